#!/usr/bin/python3
"""Writes a small camera raw DNG of known photosites with numpy and tifffile, for the tests.

The mosaic is drawn from a seeded generator over the whole sensor range and then given the
values a raw histogram must get right: 0, the black level, the white level and values above it
(hot or saturated photosites that some cameras record past their white level). Beside the DNG
the script writes what numpy counts of the same array, as JSON: per CFA colour (r, g1, g2, b:
g1 the green on the rows of red, g2 on the rows of blue) the counts of every code value over
the whole 2x2 quads, the photosites of a last odd column or row that no whole quad holds, and
the photosites at or below the black level and at or above the white level, as text lines (see
truth()). Nothing the tests expect comes from Histoscope.

The colour pattern may be any square of the colours a DNG names (R, G, B, C, M, Y, W): 2x2,
4x4, 6x6 (X-Trans), ... (numpy's counts are written for 2x2 Bayer patterns only).

Damaged variants for the hostile tests: --truncate N keeps the first N bytes of the file,
--damage FROM:TO overwrites those bytes with a pattern, --declare WxH writes the raw image's
ImageWidth and ImageLength as W and H while its data stays the size it was made at.
"""

import argparse
import sys

import numpy as np
import tifffile

COLOURS = {"R": 0, "G": 1, "B": 2}
# The colours a DNG's CFAPattern may name (TIFF/EP's codes): R, G, B and the others a sensor may
# carry (cyan, magenta, yellow, white).
CFA_CODES = {"R": 0, "G": 1, "B": 2, "C": 3, "M": 4, "Y": 5, "W": 6}


def is_bayer(pattern):
    return pattern in ("RGGB", "BGGR", "GRBG", "GBRG")


def rational(value):
    """A positive number as a TIFF RATIONAL (numerator, denominator)."""
    if isinstance(value, str) and "/" in value:
        num, den = value.split("/")
        return int(num), int(den)
    den = 1000000
    return int(round(float(value) * den)), den


def from_photo(args):
    """The mosaic a sensor would record of a photo: its 16-bit sRGB samples (little-endian R, G,
    B of --width x --height, as ImageMagick's "rgb:" writes them) made linear, exposed so that
    the brightest parts clip, sampled through the colour pattern, on the black level, with a
    little noise."""
    rgb = np.fromfile(args.from_rgb16, dtype="<u2").reshape(args.height, args.width, 3)
    rng = np.random.default_rng(args.seed)
    # An 8-bit photo's levels dithered apart, so that the sensor's do not stand in a comb.
    linear = np.clip((rgb + rng.uniform(-128, 128, rgb.shape)) / 65535.0, 0, 1) ** 2.2
    black = args.blacks[0]
    signal = linear * (args.white - black) * 1.5
    # Shot noise and read noise.
    signal += rng.normal(0, 1, signal.shape) * np.sqrt(signal / 2 + 16)
    values = np.clip(np.round(signal + black), 0, args.white).astype(np.uint16)
    cfa = np.empty((args.height, args.width), dtype=np.uint16)
    for i, c in enumerate(args.pattern):
        y, x = divmod(i, 2)
        cfa[y::2, x::2] = values[y::2, x::2, COLOURS[c]]
    return cfa


def mosaic(args):
    if args.flat is not None:
        return np.full((args.height, args.width), args.flat, dtype=np.uint16)
    if args.from_rgb16:
        return from_photo(args)
    rng = np.random.default_rng(args.seed)
    top = min(args.white + args.above, 65535)
    cfa = rng.integers(0, top + 1, size=(args.height, args.width), dtype=np.uint16)
    # Runs of the values that matter, spread over the sensor so that every colour gets some.
    special = [0, args.white, args.white - 1, top]
    for b in args.blacks:
        special += [b, max(b - 1, 0), b + 1]
    flat = cfa.reshape(-1)
    for i, v in enumerate(special):
        flat[i * 7 :: 29 + i] = v
    return cfa


def colour_names(pattern):
    """The name of each of the 2x2 positions: r, g1 (the green on red's row), g2, b."""
    names = [[None, None], [None, None]]
    red_row = pattern.index("R") // 2
    for i, c in enumerate(pattern):
        y, x = divmod(i, 2)
        if c == "G":
            names[y][x] = "g1" if y == red_row else "g2"
        else:
            names[y][x] = c.lower()
    return names


def truth(cfa, args):
    """numpy's counts of the mosaic as text lines (no JSON reader needed by the tests):
    "pattern RGGB", "white W", then per colour "colour NAME X Y total N black B
    at_or_below_black N at_or_above_white N left_out N" and "counts NAME V:N V:N ..."."""
    names = colour_names(args.pattern)
    qh, qw = args.height // 2 * 2, args.width // 2 * 2
    lines = ["pattern " + args.pattern, "white %d" % args.white]
    for y in range(2):
        for x in range(2):
            name = names[y][x]
            whole = cfa[y:qh:2, x:qw:2].reshape(-1)
            colour = cfa[y::2, x::2]
            left_out = colour.size - whole.size
            black = args.blacks[(y * 2 + x) % len(args.blacks)]
            lines.append(
                "colour %s %d %d total %d black %d at_or_below_black %d at_or_above_white %d "
                "left_out %d"
                % (name, x, y, whole.size, black, np.count_nonzero(whole <= black),
                   np.count_nonzero(whole >= args.white), left_out))
            counts = np.bincount(whole, minlength=65536)
            lines.append("counts %s " % name + " ".join(
                "%d:%d" % (v, n) for v, n in enumerate(counts) if n))
    return "\n".join(lines) + "\n"


def write(cfa, args):
    pattern = [CFA_CODES[c] for c in args.pattern]
    side = int(round(len(pattern) ** 0.5))
    planes = [CFA_CODES[c] for c in args.planes] if args.planes else sorted(set(pattern))
    mosaic = [
        (33421, "H", 2, (side, side), True),  # CFARepeatPatternDim
        (33422, "B", len(pattern), tuple(pattern), True),  # CFAPattern
        # CFAPlaneColor: the colours the pattern holds, in the order of their codes (or as given).
        (50710, "B", len(planes), tuple(planes), True),
        (50711, "H", 1, 1, True),  # CFALayout: rectangular
    ]
    tags = [
        (50706, "B", 4, (1, 4, 0, 0), True),  # DNGVersion
        (50707, "B", 4, (1, 1, 0, 0), True),  # DNGBackwardVersion
        (50708, "s", 0, args.make + " " + args.model, True),  # UniqueCameraModel
        (271, "s", 0, args.make, True),  # Make
        (272, "s", 0, args.model, True),  # Model
    ] + ([] if args.linear else mosaic) + [
        (50713, "H", 2, (2, 2) if len(args.blacks) == 4 else (1, 1), True),  # BlackLevelRepeatDim
        (50714, "I", len(args.blacks), tuple(args.blacks), True),  # BlackLevel, per position
        (50717, "I", 1, args.white, True),  # WhiteLevel
        # ColorMatrix1 (XYZ to camera) of the sRGB primaries under D65, and a neutral white.
        (50721, "2i", 9,
         tuple(v for m in [[3.2406, -1.5372, -0.4986], [-0.9689, 1.8758, 0.0415],
                           [0.0557, -0.2040, 1.0570]] for x in m for v in (int(x * 10000), 10000)),
         True),
        (50778, "H", 1, 21, True),  # CalibrationIlluminant1: D65
        (50728, "2I", 3, tuple(v for n in args.neutral for v in rational(n)), True),  # AsShotNeutral
        (34665, "I", 1, 0, True),  # ExifIFD: where it lies is known once the file is written
    ] + ([(50829, "I", 4, tuple(args.active_area), True)] if args.active_area else [])  # ActiveArea
    with tifffile.TiffWriter(args.output, bigtiff=False) as tif:
        tif.write(
            # Linear raw: every colour at every photosite, the mosaic's value in all three.
            np.repeat(cfa[:, :, None], 3, axis=2) if args.linear else cfa,
            photometric=34892 if args.linear else 32803,  # LinearRaw or CFA
            subfiletype=0,
            compression=1,
            rowsperstrip=max(1, args.height // 3),
            datetime=args.datetime,
            software="make_dng.py",
            extratags=tags,
            metadata=None,
        )


def ifd0_entries(path):
    """{tag: (type, offset of the entry's value field)} of the first directory, and the byte
    order: read here rather than by tifffile, which drops an entry whose offset is not valid
    yet."""
    with open(path, "rb") as f:
        data = f.read()
    order = "<" if data[:2] == b"II" else ">"
    ifd = int(np.frombuffer(data[4:8], order + "u4")[0])
    count = int(np.frombuffer(data[ifd : ifd + 2], order + "u2")[0])
    entries = {}
    for i in range(count):
        at = ifd + 2 + 12 * i
        tag, kind = (int(v) for v in np.frombuffer(data[at : at + 4], order + "u2"))
        entries[tag] = (kind, at + 8)
    return entries, order


def add_exif(path, args):
    """Appends the EXIF directory (exposure, aperture, ISO, focal length, date) and points the
    ExifIFD tag of the first directory at it: cameras keep them there, and LibRaw reads the ISO
    from there only."""
    entries, order = ifd0_entries(path)
    pointer = entries[34665][1]
    date = args.datetime.encode() + b"\0"
    entries = [  # tag, type, count, value bytes
        (33434, 5, 1, np.array(rational(args.exposure), order + "u4").tobytes()),
        (33437, 5, 1, np.array(rational(args.fnumber), order + "u4").tobytes()),
        (34855, 3, 1, np.array([args.iso], order + "u2").tobytes()),
        (36867, 2, len(date), date),
        (37386, 5, 1, np.array(rational(args.focal), order + "u4").tobytes()),
    ]
    with open(path, "r+b") as f:
        f.seek(0, 2)
        if f.tell() % 2:
            f.write(b"\0")
        start = f.tell()
        data = start + 2 + 12 * len(entries) + 4
        ifd, extra = bytearray(np.array([len(entries)], order + "u2").tobytes()), bytearray()
        for tag, kind, count, value in entries:
            ifd += np.array([tag, kind], order + "u2").tobytes() + np.array([count], order + "u4").tobytes()
            if len(value) <= 4:
                ifd += value.ljust(4, b"\0")
            else:
                ifd += np.array([data + len(extra)], order + "u4").tobytes()
                extra += value + (b"\0" if len(value) % 2 else b"")
        ifd += bytes(4)
        f.write(bytes(ifd) + bytes(extra))
        f.seek(pointer)
        f.write(np.array([start], order + "u4").tobytes())


def patch_size(path, width, height):
    entries, order = ifd0_entries(path)
    with open(path, "r+b") as f:
        for tag, value in ((256, width), (257, height)):
            kind, at = entries[tag]
            f.seek(at)
            f.write(np.array([value], dtype=order + {3: "u2", 4: "u4"}[kind]).tobytes())


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("output")
    p.add_argument("--truth", help="text file for numpy's counts")
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--height", type=int, default=48)
    p.add_argument("--pattern", default="RGGB",
                   help="the CFA's colours row by row, a square of them: 4 letters (2x2), 16 (4x4), "
                   "36 (6x6), ... of R, G, B, C, M, Y, W; numpy's counts (--truth, --from-rgb16) "
                   "need a 2x2 Bayer pattern")
    p.add_argument("--planes", help="CFAPlaneColor's colours in plane order (\"BGR\"), when not "
                   "those of the pattern in the order of their codes")
    p.add_argument("--black", default="256", help="one level, or four: one per 2x2 position")
    p.add_argument("--white", type=int, default=4095)
    p.add_argument("--above", type=int, default=0, help="values up to white + ABOVE occur")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--make", default="Histoscope")
    p.add_argument("--model", default="Test Sensor")
    p.add_argument("--iso", type=int, default=400)
    p.add_argument("--exposure", default="1/250")
    p.add_argument("--fnumber", default="5.6")
    p.add_argument("--focal", default="35")
    p.add_argument("--datetime", default="2024:05:17 10:20:30")
    p.add_argument("--flat", type=int, help="every photosite at this value")
    p.add_argument("--neutral", default="1,1,1",
                   help="AsShotNeutral: the camera's R, G, B of a white (the white balance "
                   "multiplies each by its inverse)")
    p.add_argument("--from-rgb16", help="the mosaic of a photo: raw 16-bit RGB, little-endian")
    p.add_argument("--active-area", help="T,L,B,R: ActiveArea, the photosites inside the "
                   "masked borders")
    p.add_argument("--linear", action="store_true",
                   help="a linear DNG (demosaiced R, G, B samples) instead of a CFA mosaic")
    p.add_argument("--truncate", type=int, help="keep the first N bytes of the file")
    p.add_argument("--damage", help="FROM:TO: those bytes overwritten by a pattern")
    p.add_argument("--declare")
    args = p.parse_args()
    args.blacks = [int(v) for v in args.black.split(",")]
    args.neutral = args.neutral.split(",")
    args.active_area = [int(v) for v in args.active_area.split(",")] if args.active_area else None
    if len(args.neutral) != 3:
        sys.exit("--neutral takes three numbers: R, G, B")
    if len(args.blacks) not in (1, 4):
        sys.exit("--black takes one level or four")
    side = int(round(len(args.pattern) ** 0.5))
    if side < 2 or side * side != len(args.pattern) or any(c not in CFA_CODES for c in args.pattern):
        sys.exit("a pattern is a square of letters (4, 9, 16, ...) of " + ", ".join(CFA_CODES))
    if args.planes and any(c not in CFA_CODES for c in args.planes):
        sys.exit("--planes names colours of " + ", ".join(CFA_CODES))
    if (args.truth or args.from_rgb16) and not is_bayer(args.pattern):
        sys.exit("numpy's counts and a photo's mosaic need a 2x2 Bayer pattern: RGGB, BGGR, GRBG or GBRG")

    cfa = mosaic(args)
    write(cfa, args)
    add_exif(args.output, args)
    if args.declare:
        w, h = (int(v) for v in args.declare.split("x"))
        patch_size(args.output, w, h)
    if args.damage:
        start, end = (int(v) for v in args.damage.split(":"))
        with open(args.output, "r+b") as f:
            f.seek(start)
            f.write(bytes(0xA5 ^ (i & 0xFF) for i in range(start, end)))
    if args.truncate is not None:
        with open(args.output, "r+b") as f:
            f.truncate(args.truncate)
    if args.truth:
        with open(args.truth, "w") as f:
            f.write(truth(cfa, args))


if __name__ == "__main__":
    main()
