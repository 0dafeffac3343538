#!/usr/bin/env python3
"""The independent references of the float tests, by Python and numpy alone.

  edges linear LO HI N          the fp32 edges of N bins over [LO, HI)
  edges stops LO HI STEP        the fp32 edges of stops over [LO, HI) EV
      one edge a line, as the hex bits of the float: edge k is the smallest float whose value is
      >= the exact edge (LO + k (HI - LO) / N, or 2^(LO + k STEP)), found with Python's
      fractions and integers (f >= 2^(p/q) <=> f^q >= 2^p), nothing rounded.
  hist FILE linear|stops A B C CHANNELS
      the histograms of a PFM or float TIFF file read by numpy (PFM) or tifffile: JSON
      {"channels": [{"name", "counts", "below_range", "above_range", "non_finite"}]}, bins by
      numpy.searchsorted over those edges, luminance in float32 by numpy, NaN and infinities
      apart. CHANNELS: comma-separated r, g, b, a, gray, luma709.
  write-pfm FILE W H C little|big SEED         a PFM ("PF" colour, "Pf" gray) of every kind of
  write-tiff FILE W H C SEED [OPTIONS]         float, or a float TIFF (tifffile) of them;
                                               OPTIONS: zlib, tiled, planar (LZW and the
                                               float predictor need imagecodecs: the tests
                                               write those with libtiff)
  write-scene FILE W H                         a PFM of a high dynamic range scene (a sun of
                                               2^14, a sky about 1, a ground about 2^-4, a
                                               shadow about 2^-9), for the desktop
                                               application's tests and screenshots
  values FILE                                  the samples of a PFM or TIFF as hex bits, for the
                                               reader's tests: "H W C" then one line per row
  tonemap FILE BINS CONTRAST DEPTH             the tone mapping of core/tonemap.hpp, written
                                               again with numpy in float64: "H W C linear" then
                                               the output samples, one line per row
"""
import json
import sys
from fractions import Fraction

import numpy as np

INF = np.float32(np.inf)


def next_up(f):
    return np.nextafter(np.float32(f), INF)


def next_down(f):
    return np.nextafter(np.float32(f), -INF)


def smallest_at_least(at_least, approx):
    """The smallest finite float f with at_least(f), starting the search at approx."""
    with np.errstate(over="ignore"):
        f = np.float32(approx)
    if np.isinf(f):
        f = np.float32(np.finfo(np.float32).max) * (1 if f > 0 else -1)
    while not at_least(f):
        f = next_up(f)
        if np.isinf(f):
            return f
    while True:
        b = next_down(f)
        if np.isinf(b) or not at_least(b):
            break
        f = b
    return np.float32(0.0) if f == 0 else f


def linear_edges(lo, hi, n):
    lo, hi = Fraction(lo), Fraction(hi)
    out = []
    for k in range(n + 1):
        r = lo + k * (hi - lo) / n
        out.append(smallest_at_least(lambda f, r=r: Fraction(float(f)) >= r, float(r)))
    return np.array(out, dtype=np.float32)


def stops_edges(lo, hi, step):
    lo, hi, step = Fraction(lo), Fraction(hi), Fraction(step)
    n = (hi - lo) / step
    assert n.denominator == 1, "the step does not divide the range"
    out = []
    for k in range(int(n) + 1):
        x = lo + k * step
        p, q = x.numerator, x.denominator
        power = Fraction(2) ** p  # 2^p, exact (a fraction for p < 0)

        def at_least(f, p=p, q=q, power=power):
            return f > 0 and Fraction(float(f)) ** q >= power

        out.append(smallest_at_least(at_least, 2.0 ** float(x)))
    return np.array(out, dtype=np.float32)


def edges_of(kind, a, b, c):
    if kind == "linear":
        return linear_edges(a, b, int(c))
    return stops_edges(a, b, c)


def read_pfm(path):
    data = open(path, "rb").read()
    tokens, at = [], 0
    while len(tokens) < 4:  # "PF", width, height, scale, separated by whitespace
        while data[at:at + 1].isspace():
            at += 1
        start = at
        while not data[at:at + 1].isspace():
            at += 1
        tokens.append(data[start:at].decode())
    at += 1  # the one whitespace byte before the raster
    channels = 3 if tokens[0] == "PF" else 1
    w, h, scale = int(tokens[1]), int(tokens[2]), float(tokens[3])
    dtype = "<f4" if scale < 0 else ">f4"
    a = np.frombuffer(data, dtype=dtype, count=w * h * channels, offset=at)
    return a.reshape(h, w, channels)[::-1].astype(np.float32)  # rows stored bottom to top


def read_any(path):
    if open(path, "rb").read(2) in (b"PF", b"Pf"):
        return read_pfm(path)
    import tifffile

    with tifffile.TiffFile(path) as t:
        page = t.pages[0]
        a = page.asarray()
        if page.planarconfig == 2 and a.ndim == 3:  # separate planes: (C, H, W)
            a = np.moveaxis(a, 0, 2)
    if a.ndim == 2:
        a = a[:, :, None]
    return a.astype(np.float32)


def channel_values(a, name):
    c = a.shape[2]
    if name == "luma709" and c >= 3:
        r, g, b = a[:, :, 0], a[:, :, 1], a[:, :, 2]
        return (np.float32(0.2126) * r + np.float32(0.7152) * g) + np.float32(0.0722) * b
    index = {"r": 0, "g": 1, "b": 2, "a": 3, "gray": 0, "luma709": 0}[name]
    return a[:, :, 0 if c == 1 else index]


def hist(path, kind, a, b, c, channels):
    edges = edges_of(kind, a, b, c)
    image = read_any(path)
    out = []
    for name in channels.split(","):
        v = channel_values(image, name).ravel()
        finite = np.isfinite(v)
        below = finite & (v < edges[0])
        above = finite & (v >= edges[-1])
        inside = finite & ~below & ~above
        k = np.searchsorted(edges, v[inside], side="right") - 1
        counts = np.bincount(k, minlength=len(edges) - 1)
        out.append({"name": name, "counts": [int(x) for x in counts],
                    "below_range": int(below.sum()), "above_range": int(above.sum()),
                    "non_finite": int((~finite).sum())})
    print(json.dumps({"channels": out}))


def hostile(w, h, c, seed):
    """Every kind of float: 2^u over [-20, 20) EV mostly, and zeros, negatives, subnormals,
    the largest floats, infinities, NaN, exact edges and random bit patterns."""
    rng = np.random.default_rng(seed)
    v = np.exp2(rng.uniform(-20, 20, size=(h, w, c))).astype(np.float32)
    pick = rng.integers(0, 64, size=(h, w, c))
    specials = [np.float32(0), np.float32(-0.0), np.float32(-1.5), np.float32(1e-40),
                np.finfo(np.float32).max, -np.finfo(np.float32).max, INF, -INF,
                np.float32(np.nan), np.float32(1.0), np.float32(2.0 ** -16), np.float32(65536)]
    for i, s in enumerate(specials):
        v[pick == i] = s
    bits = rng.integers(0, 2 ** 32, size=(h, w, c), dtype=np.uint64).astype(np.uint32)
    v[pick == len(specials)] = bits.view(np.float32)[pick == len(specials)]
    return v


def write_pfm(path, w, h, c, order, seed):
    v = hostile(w, h, c, seed)
    scale = -1.0 if order == "little" else 1.0
    dtype = "<f4" if order == "little" else ">f4"
    with open(path, "wb") as f:
        f.write(("PF" if c == 3 else "Pf").encode() + b"\n%d %d\n%s\n" % (w, h, str(scale).encode()))
        f.write(v[::-1].astype(dtype).tobytes())


def write_tiff(path, w, h, c, seed, options):
    import tifffile

    v = hostile(w, h, c, seed)
    kw = {}
    if "zlib" in options:
        kw["compression"] = "zlib"
    if "tiled" in options:
        kw["tile"] = (16, 16)
    if "planar" in options:
        kw["planarconfig"] = "separate"
        v = np.moveaxis(v, 2, 0)
    elif c == 1:
        v = v[:, :, 0]
    extra = {"extrasamples": ["unassalpha"]} if c == 4 else {}
    tifffile.imwrite(path, v, photometric="rgb" if c >= 3 else "minisblack", **kw, **extra)


def write_scene(path, w, h):
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    u, v = x / w, y / h
    rgb = np.zeros((h, w, 3))
    horizon = 0.55
    sky = v < horizon
    level = 2.0 * (0.25 + 0.75 * v / horizon)
    rgb[sky] = (level[sky, None] * np.array([0.35, 0.55, 1.0]))
    # The sun and its glow.
    r = np.hypot((u - 0.75) * w, (v - 0.2) * h) / w
    glow = 40.0 * (0.03 / np.maximum(r, 0.03)) ** 2
    rgb += glow[:, :, None] * np.array([1.0, 0.85, 0.6]) * sky[:, :, None]
    rgb[r < 0.03] = np.array([1.0, 0.97, 0.9]) * 16384.0
    # The ground: a texture about 2^-4, a shadow about 2^-9 on its left.
    rng = np.random.default_rng(7)
    texture = np.exp2(rng.normal(0, 0.4, size=(h, w)))
    ground = ~sky
    base = np.where(u < 0.4, 2.0 ** -9, 2.0 ** -4) * (1 + 2 * (v - horizon))
    rgb[ground] = (base * texture)[ground, None] * np.array([0.9, 0.75, 0.45])
    # A lit window in the shadow and a red ball beside it.
    window = (np.abs(u - 0.15) < 0.03) & (np.abs(v - 0.72) < 0.06)
    rgb[window] = np.array([1.0, 0.8, 0.5]) * 300.0
    ball = np.hypot((u - 0.28) * w, (v - 0.8) * h) < 0.06 * w
    rgb[ball] = (2.0 ** -6) * np.array([0.8, 0.1, 0.05]) * (1 + np.cos(u * 40)[ball, None] * 0.3)
    a = rgb.astype(np.float32)
    with open(path, "wb") as f:
        f.write(b"PF\n%d %d\n-1.0\n" % (w, h))
        f.write(a[::-1].astype("<f4").tobytes())


def values(path):
    a = read_any(path)
    h, w, c = a.shape
    print(h, w, c)
    for row in a.view(np.uint32):
        print(" ".join("%08x" % x for x in row.ravel()))


def tonemap(path, bins, contrast, depth):
    a = read_any(path)
    h, w, c = a.shape
    if c >= 3:
        lw = (np.float32(0.2126) * a[:, :, 0] + np.float32(0.7152) * a[:, :, 1]) + \
            np.float32(0.0722) * a[:, :, 2]
    else:
        lw = a[:, :, 0]
    with np.errstate(invalid="ignore"):
        valid = np.isfinite(lw) & (lw > 0)
    bw = np.zeros(lw.shape)
    bw[valid] = np.log10(lw[valid].astype(np.float64))
    lo, hi = bw[valid].min(), bw[valid].max()
    width = (hi - lo) / bins
    linear = not width > 0 or width * bins <= np.log10(contrast)
    if not linear:
        t = (bw - lo) / width
        i = np.minimum(bins - 1, np.floor(np.maximum(t, 0))).astype(np.int64)
        counts = np.bincount(i[valid], minlength=bins).astype(np.float64)
        tolerance = 0.025 * counts.sum()
        f = counts.copy()
        while True:  # the linear ceiling, as the paper iterates it
            total = f.sum()
            if total < tolerance:
                linear = True
                break
            ceiling = total * width / np.log10(contrast)
            trimmings = np.clip(f - ceiling, 0, None).sum()
            f = np.minimum(f, ceiling)
            if trimmings <= tolerance:
                break
    if linear:
        ld = lw.astype(np.float64) / 10.0 ** hi
    else:
        below = np.concatenate([[0.0], np.cumsum(f)])
        share = np.clip((below[i] + (t - i) * f[i]) / below[-1], 0, 1)
        ld = 10.0 ** (-np.log10(contrast) * (1 - share))
    scale = np.where(valid, ld / np.where(valid, lw, 1).astype(np.float64), 0)
    colours = 3 if c >= 3 else 1
    out = np.zeros((h, w, c), dtype=np.int64)
    top = 2 ** depth - 1
    with np.errstate(invalid="ignore"):
        for k in range(colours):
            cd = np.clip(np.nan_to_num(a[:, :, k].astype(np.float64) * scale, nan=0.0), 0, 1)
            v = np.where(cd <= 0.0031308, 12.92 * cd, 1.055 * cd ** (1 / 2.4) - 0.055)
            out[:, :, k] = np.where(valid, np.floor(v * top + 0.5), 0)
        if c == 4:
            alpha = np.clip(np.nan_to_num(a[:, :, 3].astype(np.float64), nan=0.0), 0, 1)
            out[:, :, 3] = np.floor(alpha * top + 0.5)
    print(h, w, c, int(linear))
    for row in out:
        print(" ".join(str(x) for x in row.ravel()))


def main(argv):
    if argv[0] == "edges":
        for f in edges_of(argv[1], argv[2], argv[3], argv[4]):
            print("%08x" % np.float32(f).view(np.uint32))
    elif argv[0] == "hist":
        hist(argv[1], argv[2], argv[3], argv[4], argv[5], argv[6])
    elif argv[0] == "write-pfm":
        write_pfm(argv[1], int(argv[2]), int(argv[3]), int(argv[4]), argv[5], int(argv[6]))
    elif argv[0] == "write-tiff":
        write_tiff(argv[1], int(argv[2]), int(argv[3]), int(argv[4]), int(argv[5]), argv[6:])
    elif argv[0] == "write-scene":
        write_scene(argv[1], int(argv[2]), int(argv[3]))
    elif argv[0] == "values":
        values(argv[1])
    elif argv[0] == "tonemap":
        tonemap(argv[1], int(argv[2]), float(argv[3]), int(argv[4]))
    else:
        sys.exit("unknown command " + argv[0])


if __name__ == "__main__":
    main(sys.argv[1:])
