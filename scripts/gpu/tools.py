#!/usr/bin/env python3
"""The Python side of scripts/gpu.sh on the GPU host (Python cv2 and numpy, no OpenCV C++).

  decode SAMPLES OUT [--tiled] [NAME...]
                                   every bundled photo and every frame of every bundled clip (or
                                   only those NAMEs) as OUT/NAME.WxHxC.TYPE.raw (RGB order,
                                   little-endian), which the GPU tests read from $HS_RAW_PHOTOS /
                                   $HS_RAW_CLIPS; --tiled adds the 256 MiB gray tilings of
                                   scripts/gpu/cases.tsv
  synth-streams SAMPLES OUT        raw streams of the desktop application's playback targets, from
                                   fruits_4k.jpg panned and brightened frame by frame: 4K 8-bit
                                   RGB (30 frames), 8K 8-bit RGB (16), 4K 16-bit RGB (30), and the
                                   8K photo as one raw frame (OUT/NAME.WxHxC.TYPE.raw)
  cases SET RAW                    the cases of SET (bench, learn): NAME<TAB>ARGS per line
  bench-report DIR OUT.json        the bench JSONs of DIR as one document and a table
  stream-report DIR OUT.json       the stream JSONs of DIR as one document and a summary
  ab-report DIR OUT.json           bench-ab's JSONs: both trees' medians and their ratio
  learn DIR MAP                    the "auto" selection map from DIR's bench JSONs and traces
  auto-report DIR OUT.json         per learn case: the best engine, auto's choice and ratio
  compare CLI PHOTO                every GPU engine against cpu through `histoscope-cli hist`
  equalize-bench CLI OUT.json RUNS KERNEL   the equalizer against the cpu engine and OpenCV
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SAMPLES = os.path.join(ROOT, "resources", "samples")


def cv():
    import cv2  # noqa: PLC0415 - only the subcommands that decode need it
    return cv2


def load_json_dir(folder):
    docs = {}
    for f in sorted(os.listdir(folder)):
        if f.endswith(".json"):
            with open(os.path.join(folder, f)) as fh:
                docs[f[:-5]] = json.load(fh)
    return docs


def write_json(path, doc):
    with open(path, "w") as fh:
        json.dump(doc, fh, indent=1)


# --- media -----------------------------------------------------------------------------------

def rgb_order(img):
    cv2 = cv()
    if img.ndim == 3:
        return cv2.cvtColor(img, cv2.COLOR_BGR2RGB if img.shape[2] == 3 else cv2.COLOR_BGRA2RGBA)
    return img


def raw_name(name, img):
    c = 1 if img.ndim == 2 else img.shape[2]
    t = "u8" if img.dtype.name == "uint8" else "u16"
    return f"{name}.{img.shape[1]}x{img.shape[0]}x{c}.{t}.raw"


def tofile(img, path):
    img.astype("<" + ("u1" if img.dtype.name == "uint8" else "u2")).tofile(path)


def decode(src, out, tiled, only=()):
    import numpy as np  # noqa: PLC0415
    cv2 = cv()
    os.makedirs(out, exist_ok=True)
    for name in sorted(os.listdir(src)):
        if only and name not in only:
            continue
        path = os.path.join(src, name)
        if name.lower().endswith((".avi", ".mp4")):
            cap = cv2.VideoCapture(path)
            frames, shape, partial = 0, None, os.path.join(out, "partial")
            with open(partial, "wb") as fh:
                while True:
                    ok, bgr = cap.read()
                    if not ok:
                        break
                    shape = bgr.shape
                    cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB).tofile(fh)
                    frames += 1
            if frames == 0:
                os.remove(partial)
                print("raw clip:", name, "has no decodable frame")
                continue
            os.rename(partial, os.path.join(out, f"{name}.{shape[1]}x{shape[0]}x3.u8.raw"))
            print("raw clip:", name, frames, "frames", shape[1], "x", shape[0])
        elif name.lower().endswith((".jpg", ".png", ".tif")):
            img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
            if img is None:
                continue
            img = rgb_order(img)
            tofile(img, os.path.join(out, raw_name(name, img)))
            print("raw photo:", name, img.shape, img.dtype.name)
    if not only or "fruits_4k.jpg" in only:
        # Deep frames of the 4K photo, as a 10- or 12-bit camera would give them: smoothed in
        # float so that the codes between the 8-bit ones occur (921 distinct 10-bit green codes).
        # In a folder of their own: the GPU tests read every raw file of OUT as a photo.
        img = rgb_order(cv2.imread(os.path.join(src, "fruits_4k.jpg"), cv2.IMREAD_COLOR))
        os.makedirs(os.path.join(out, "deep"), exist_ok=True)
        for bits in (10, 12):
            top = (1 << bits) - 1
            f = cv2.GaussianBlur(img.astype(np.float32) * (top / 255.0), (0, 0), 1.2)
            deep = np.clip(np.rint(f), 0, top).astype(np.uint16)
            h, w = deep.shape[:2]
            tofile(deep, os.path.join(out, "deep", f"fruits_4k.jpg.{w}x{h}x3.u16_{bits}.raw"))
            print(f"raw {bits}-bit frame: fruits_4k.jpg", deep.shape)
    if tiled:
        # Real photos' samples repeated to 256 MiB (gray: 2^28 8-bit or 2^27 16-bit samples).
        for name in ("fruits_4k.jpg", "starry_night.jpg", "moon.png", "moon_4k_16bit.png"):
            img = cv2.imread(os.path.join(src, name), cv2.IMREAD_UNCHANGED)
            if img.dtype == np.uint8:
                img = cv2.imread(os.path.join(src, name), cv2.IMREAD_GRAYSCALE)
            elif img.ndim == 3:
                img = img[:, :, 0]
            n = (1 << 28) // img.dtype.itemsize
            tofile(np.resize(img.ravel(), n), os.path.join(out, f"{name}.gray_256MiB.raw"))
            print("tiled gray:", name, n, "samples")


def synth_streams(src, out):
    import numpy as np  # noqa: PLC0415
    os.makedirs(out, exist_ok=True)
    photo = rgb_order(cv().imread(os.path.join(src, "fruits_4k.jpg"), cv().IMREAD_COLOR))
    big = np.repeat(np.repeat(photo, 2, axis=0), 2, axis=1)  # 8K: each pixel 2x2

    def write(name, img, frames, deep):
        path = os.path.join(out, raw_name(name, img))
        with open(path, "wb") as fh:
            for k in range(frames):
                # Panned and brightened by the frame: every frame's pixels and counts differ.
                f = np.roll(img, 37 * k, axis=1).astype(np.int32)
                f = f * 257 + 13 * k if deep else f + (k % 31) - 15
                np.clip(f, 0, 65535 if deep else 255).astype("<u2" if deep else "u1").tofile(fh)
        print("raw stream:", os.path.basename(path), frames, "frames")

    write("pan_4k", photo, 30, False)
    write("pan_8k", big, 16, False)
    write("pan_4k_16bit", photo.astype(np.uint16), 30, True)
    tofile(big, os.path.join(out, raw_name("photo_8k", big)))
    print("raw photo: photo_8k", big.shape)


def cases(which, raw):
    with open(os.path.join(HERE, "cases.tsv")) as fh:
        for line in fh:
            if line.startswith("#") or not line.strip():
                continue
            name, sets, args = line.rstrip("\n").split("\t")
            if which in sets.split(","):
                print(f"{name}\t{args.replace('{raw}', raw)}")


# --- reports ---------------------------------------------------------------------------------

def bench_report(folder, out):
    docs = load_json_dir(folder)
    write_json(out, docs)
    for name, doc in docs.items():
        print(f"## {name}  device={doc['device']}  read_bw={doc['read_bandwidth_gbs']:.0f} GB/s")
        print(f"{'kernel':<16}{'median_ms':>11}{'Gpix/s':>9}{'GB/s':>9}{'%bw':>7}{'e2e_ms':>10}"
              f"{'b2b_ms':>10}{'xfloor':>8}{'xb2b':>7}  verified")
        for r in doc["results"]:
            if r["status"] != "ok":
                print(f"{r['kernel']:<16}{r['status']}: {r.get('reason', '')[:90]}")
                continue
            opt = lambda key, fmt: format(r[key], fmt) if key in r else "-"
            print(f"{r['kernel']:<16}{r['median_ms']:>11.4f}{r['gpix_s']:>9.2f}{r['gb_s']:>9.1f}"
                  f"{r['pct_read_bw']:>7.1f}{r['end_to_end_median_ms']:>10.3f}"
                  f"{opt('back_to_back_ms', '.4f'):>10}{opt('floor_ratio', '.2f'):>8}"
                  f"{opt('back_to_back_floor_ratio', '.2f'):>7}  {r['verified']}")
    ok = all(r["verified"] for d in docs.values() for r in d["results"] if r["status"] == "ok")
    return 0 if ok and docs else 1


def ab_report(folder, out):
    """bench-ab's JSONs (NAME.base.ROUND, NAME.new.ROUND): per case and engine the median of
    each tree's rounds and new / base; fails when a result was not verified."""
    runs = {}  # (case, tree) -> {kernel: [median_ms]}
    docs = load_json_dir(folder)
    for name, doc in docs.items():
        case, tree, _ = name.rsplit(".", 2)
        for r in doc["results"]:
            if r["status"] == "ok":
                runs.setdefault((case, tree), {}).setdefault(r["kernel"], []).append(r["median_ms"])
    table = {}
    for case in sorted({c for c, _ in runs}):
        base, new = runs.get((case, "base"), {}), runs.get((case, "new"), {})
        print(f"## {case}\n{'kernel':<16}{'base_ms':>11}{'new_ms':>11}{'new/base':>10}")
        for kernel in [k for k in new if k in base] + [k for k in base if k not in new]:
            b = statistics.median(base[kernel]) if kernel in base else None
            n = statistics.median(new[kernel]) if kernel in new else None
            ratio = n / b if b and n else None
            table.setdefault(case, {})[kernel] = {"base_ms": b, "new_ms": n, "new_over_base": ratio}
            show = lambda v, f: "-" if v is None else format(v, f)
            print(f"{kernel:<16}{show(b, '.4f'):>11}{show(n, '.4f'):>11}{show(ratio, '.3f'):>10}")
    write_json(out, {"table": table, "runs": docs})
    ok = all(r["verified"] for d in docs.values() for r in d["results"] if r["status"] == "ok")
    return 0 if ok and docs else 1


def stream_report(folder, out):
    runs = []
    for name, doc in load_json_dir(folder).items():
        doc["run"] = name
        runs.append(doc)
    write_json(out, {"runs": runs})

    def mib(b):
        return "n/a" if b is None else f"{b / 1048576:.1f}"
    for r in runs:
        m, st = r["memory"], r["stage_median_ms"]
        print(f"== {r['run']}: {r['device']}, {r['width']}x{r['height']}x{r['image_channels']}, "
              f"{r['frames']} frames ({r['ok']} ok, {r['failed']} failed), stream "
              f"'{r['stream_engine']}', histograms '{r['histogram_engine']}' ({r['channels']}), "
              f"equalizer '{r['equalizer']}'")
        print("   stage medians ms: " + ", ".join(f"{k} {v:.4f}" for k, v in st.items()))
        up, floor = r["upload_alone_ms"], r.get("copy_floor_ms")
        print(f"   steady state {r['steady_state_ms_per_frame']:.4f} ms/frame, upload alone "
              + ("n/a" if up is None else
                 f"{up:.4f} ms, ratio {r['steady_state_over_upload']:.3f}")
              + ", copy floor "
              + ("n/a" if floor is None else
                 f"{floor:.4f} ms, ratio {r['steady_state_over_copy_floor']:.3f}")
              + f"; decode {r['decode_fps']:.1f} fps, end to end {r['end_to_end_fps']:.1f} fps")
        for what, key in (("host RSS", "host_rss_bytes"), ("device used", "device_used_bytes")):
            print(f"   {what} MiB start/after pass 1/end: " + " / ".join(
                mib(m[k][key]) if m[k] else "n/a" for k in ("start", "after_first_pass", "end")))
        print(f"   verified: {r['verified']} ({r['verified_frames']} frames)")
    # Rounds with scopes against the rounds of the same work without them: medians per kind.
    rounds = {}
    for r in runs:
        if r["run"].startswith("scopes_"):
            kind = r["run"].rsplit("_", 1)[0]
            rounds.setdefault(kind, []).append(r)
    if "scopes_base" in rounds:
        base = statistics.median(r["steady_state_ms_per_frame"] for r in rounds["scopes_base"])
        for kind, rs in sorted(rounds.items()):
            ms = [r["steady_state_ms_per_frame"] for r in rs]
            med = statistics.median(ms)
            what = "; ".join(rs[0].get("scopes") or ["no scopes"])
            print(f"== {kind}: {what}: steady state median {med:.4f} ms/frame over "
                  f"{len(ms)} rounds ({', '.join(f'{m:.4f}' for m in ms)}), "
                  f"{100.0 * (med - base) / base:+.1f}% against {base:.4f} without scopes")
    ok = all(r["verified"] and r["failed"] == 0 for r in runs)
    return 0 if ok and runs else 1


def learn(folder, map_path):
    kinds = {"plain": "Plain", "luma": "Luma", "joint": "Joint", "edges": "Edges"}
    entries = {}  # key text -> (key, {kernel: [ratio to best]}, [case names], [best ms])
    devices = set()
    for name, doc in load_json_dir(folder).items():
        if "." in name:
            continue
        trace = os.path.join(folder, name + ".trace")
        if not os.path.exists(trace):
            print(f"learn: {name}: no trace of auto's key, skipped", file=sys.stderr)
            continue
        with open(trace) as fh:
            key_text = fh.readline().split("\t")[0].strip()
        key = dict(kv.split("=") for kv in key_text.split())
        devices.add(doc["device"])
        times = {r["kernel"]: r["median_ms"] for r in doc["results"]
                 if r["status"] == "ok" and r["verified"] and not r.get("floor")
                 and r["kernel"] not in ("auto", "cpu")}
        if not times:
            continue
        best = min(times.values())
        e = entries.setdefault(key_text, (key, {}, [], []))
        for k, t in times.items():
            e[1].setdefault(k, []).append(t / best)
        e[2].append(name)
        e[3].append(best)
    lines = ["// Generated by `scripts/gpu.sh learn-auto` from benchmarks on the GPU; do not edit "
             "by hand.",
             "// Key: {u16, kind, channels, image_channels, ceil(log2 bins), floor(log2 bytes), "
             "race},",
             "// then the verified engines, fastest first (mean ratio to the fastest over the "
             "cases).",
             "// Device: " + ", ".join(sorted(devices))]
    for key_text, (k, ratios, names, bests) in entries.items():
        ranked = sorted(ratios, key=lambda n: (sum(ratios[n]) / len(ratios[n]), n))
        detail = ", ".join(f"{n} {sum(ratios[n]) / len(ratios[n]):.2f}" for n in ranked)
        lines.append(f"// {'+'.join(names)}: best {min(bests):.4f} ms; {detail}")
        lines.append("{{%s, AutoKind::%s, %s, %s, %s, %s, %s}, \"%s\", \"%s\"}," % (
            k["u16"], kinds[k["kind"]], k["channels"], k["image_channels"], k["bins"], k["size"],
            k["race"], ",".join(ranked), "+".join(names)))
    with open(map_path, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print(f"learn: wrote {len(entries)} entries to {map_path}", file=sys.stderr)
    return 0 if entries else 1


def auto_report(folder, out):
    """auto's time against the best engine's, per case (auto from CASE.auto.json when a second
    pass wrote one, else from the same run as the others)."""
    docs = load_json_dir(folder)
    traces = {}
    for f in os.listdir(folder):
        if f.endswith(".trace"):
            with open(os.path.join(folder, f)) as fh:
                traces[f[:-6]] = fh.read().strip().splitlines()
    rows, worst = [], 0.0
    print(f"{'case':<32}{'best':<15}{'ms':>9}  {'auto ->':<15}{'ms':>9}{'ratio':>8}  verified")
    for name in sorted(n for n in docs if "." not in n):
        rs = [r for r in docs[name]["results"] if r["status"] == "ok"]
        ok = [r for r in rs if r["verified"] and not r.get("floor")
              and r["kernel"] not in ("auto", "cpu")]
        auto_doc = docs.get(name + ".auto", docs[name])
        auto = [r for r in auto_doc["results"] if r["status"] == "ok" and r["kernel"] == "auto"]
        if not ok or not auto:
            print(f"{name:<32}no verified result for the best engine or auto")
            worst = float("inf")
            continue
        best, a = min(ok, key=lambda r: r["median_ms"]), auto[0]
        chosen = traces.get(name, ["?\t?"])[-1].split("\t")[1]
        ratio = a["median_ms"] / best["median_ms"]
        verified = all(r["verified"] for r in rs) and a["verified"]
        worst = max(worst, ratio if verified else float("inf"))
        rows.append({"case": name, "best": best["kernel"], "best_ms": best["median_ms"],
                     "auto": chosen, "auto_ms": a["median_ms"], "ratio": ratio,
                     "verified": verified})
        print(f"{name:<32}{best['kernel']:<15}{best['median_ms']:>9.4f}  {chosen:<15}"
              f"{a['median_ms']:>9.4f}{ratio:>8.3f}  {verified}")
    print(f"worst auto / best: {worst:.3f}")
    write_json(out, {"rows": rows, "worst_ratio": worst, "cases": docs, "auto_traces": traces})
    return 0 if rows and worst <= 1.10 else 1


# --- end to end ------------------------------------------------------------------------------

def compare(cli, photo):
    """hist with every available GPU engine and with cpu on the same raw frames, bin for bin:
    MATCH / MISMATCH lines with the engines' own stage timings (single runs: not a benchmark),
    REFUSED for an engine that says it cannot serve a request (exit 2, "error: engine ...")."""
    import tempfile  # noqa: PLC0415
    import numpy as np  # noqa: PLC0415
    cv2 = cv()
    work = tempfile.mkdtemp()
    img = cv2.imread(photo, cv2.IMREAD_COLOR)
    if img is None:
        sys.exit("cannot decode " + photo)
    rgb = np.ascontiguousarray(img[:, :, ::-1])
    h, w = rgb.shape[:2]
    rgb.tofile(os.path.join(work, "frame8.raw"))
    # A 16-bit frame: value * 257 + column parity, so all 16 bits vary.
    deep = rgb.astype(np.uint16) * 257 + (np.arange(w, dtype=np.uint16) % 2)[None, :, None]
    deep.astype("<u2").tofile(os.path.join(work, "frame16.raw"))
    kernels = json.loads(subprocess.run([cli, "kernels", "--format", "json"], check=True,
                                        capture_output=True, text=True).stdout)["kernels"]
    engines = [k["name"] for k in kernels if k["available"] and k["name"] not in ("cpu", "opencv")]
    if not engines:
        print("MISMATCH: no GPU engine is available")
        return 1

    def hist(fmt, frame, args, kernel):
        return subprocess.run([cli, "hist", "--raw", fmt, os.path.join(work, frame)] + args +
                              ["--kernel", kernel, "--format", "json"],
                              capture_output=True, text=True)

    status = 0
    for label, fmt, frame, args in (
            (f"8-bit 256 bins {w}x{h}", f"{w}x{h}x3:u8", "frame8.raw",
             ["--channels", "r,g,b,luma,luma709"]),
            ("8-bit 7 bins [10,250)", f"{w}x{h}x3:u8", "frame8.raw",
             ["--bins", "7", "--range", "10:250", "--channels", "g"]),
            ("16-bit 1024 bins", f"{w}x{h}x3:u16", "frame16.raw",
             ["--bins", "1024", "--channels", "r,luma"]),
            ("8-bit 256 bins saturating at 65535", f"{w}x{h}x3:u8", "frame8.raw",
             ["--saturate", "65535", "--channels", "r,g,b,luma"]),
            ("16-bit edges", f"{w}x{h}x3:u16", "frame16.raw",
             ["--edges", "0,100.5,1000,30000,65535", "--channels", "b"])):
        ref = json.loads(hist(fmt, frame, args, "cpu").stdout)
        for e in engines:
            p = hist(fmt, frame, args, e)
            if p.returncode == 2 and p.stderr.startswith(f"error: engine '{e}'"):
                print(f"REFUSED  {e} {label}: {p.stderr.strip()}")
                continue
            if p.returncode != 0:
                print(f"MISMATCH {e} {label}: exit {p.returncode}: {p.stderr.strip()}")
                status = 1
                continue
            got = json.loads(p.stdout)
            same = [c["counts"] for c in ref["channels"]] == [c["counts"] for c in got["channels"]]
            status |= 0 if same else 1
            print("MATCH   " if same else "MISMATCH", e, label,
                  "channels=" + ",".join(c["name"] for c in got["channels"]),
                  "stages_ms=" + " ".join(f"{k}:{v:.3f}" for k, v in got["timing_ms"].items()))
    return status


def equalize_bench(cli, out_json, runs, kernel):
    """`histoscope-cli equalize --repeat N --timing` with KERNEL and with cpu on the bundled 4K
    photos (8-bit RGB, 16-bit gray), OpenCV's functions timed on the same frames in the same run,
    and every output compared with OpenCV's result of the same pipeline (16-bit global: with the
    cpu engine's output; cv2.equalizeHist takes 8-bit images only)."""
    import tempfile  # noqa: PLC0415
    import numpy as np  # noqa: PLC0415
    cv2 = cv()
    work = tempfile.mkdtemp()
    cpu_runs = 3

    def sh(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()
        except Exception as e:  # noqa: BLE001 - a missing tool only leaves a field empty
            return f"unavailable ({e})"

    def median_ms(f, n):
        f()  # warm-up
        times = []
        for _ in range(n):
            start = time.perf_counter()
            f()
            times.append((time.perf_counter() - start) * 1e3)
        return statistics.median(times)

    fruits = np.ascontiguousarray(rgb_order(cv2.imread(os.path.join(SAMPLES, "fruits_4k.jpg"))))
    moon = cv2.imread(os.path.join(SAMPLES, "moon_4k_16bit.png"), cv2.IMREAD_UNCHANGED)
    frames = {"fruits_4k": (fruits, f"{fruits.shape[1]}x{fruits.shape[0]}x3:u8"),
              "moon_4k_16bit": (moon, f"{moon.shape[1]}x{moon.shape[0]}x1:u16")}
    for name, (img, _) in frames.items():
        tofile(img, os.path.join(work, name + ".raw"))

    def run_cli(frame, kern, args, n, out):
        img, fmt = frames[frame]
        cmd = [cli, "equalize", "--raw", fmt, os.path.join(work, frame + ".raw"), "-o", out,
               "--kernel", kern, "--repeat", str(n), "--timing", "--format", "json"] + args
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            return {"command": " ".join(cmd), "exit_code": p.returncode,
                    "error": p.stderr.strip()}, None
        report = json.loads(p.stdout)
        report["command"] = " ".join(cmd)
        return report, np.fromfile(out, dtype=img.dtype).reshape(img.shape)

    def luma_pipeline(rgb, f):
        ycc = cv2.cvtColor(rgb, cv2.COLOR_RGB2YCrCb)
        ycc[:, :, 0] = f(ycc[:, :, 0])
        return cv2.cvtColor(ycc, cv2.COLOR_YCrCb2RGB)

    fruits_y = np.ascontiguousarray(cv2.cvtColor(fruits, cv2.COLOR_RGB2YCrCb)[:, :, 0])
    clahe = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(8, 8))
    clahe_args = ["--mode", "clahe", "--clip", "2", "--tiles", "8x8"]
    table = [
        ("fruits_4k RGB 8-bit, luma, global HE", "fruits_4k", [],
         {"equalizeHist_on_Y": lambda: cv2.equalizeHist(fruits_y),
          "pipeline_RGB2YCrCb_equalizeHist_YCrCb2RGB":
              lambda: luma_pipeline(fruits, cv2.equalizeHist)},
         lambda: luma_pipeline(fruits, cv2.equalizeHist)),
        ("fruits_4k RGB 8-bit, luma, CLAHE clip 2 tiles 8x8", "fruits_4k", clahe_args,
         {"clahe_apply_on_Y": lambda: clahe.apply(fruits_y),
          "pipeline_RGB2YCrCb_clahe_YCrCb2RGB": lambda: luma_pipeline(fruits, clahe.apply)},
         lambda: luma_pipeline(fruits, clahe.apply)),
        ("moon_4k 16-bit gray, global HE", "moon_4k_16bit", [], {}, None),
        ("moon_4k 16-bit gray, CLAHE clip 2 tiles 8x8", "moon_4k_16bit", clahe_args,
         {"clahe_apply_16bit": lambda: clahe.apply(moon)}, lambda: clahe.apply(moon)),
    ]
    results = []
    for case, frame, args, opencv, expected in table:
        gpu, gpu_out = run_cli(frame, kernel, args, runs, os.path.join(work, "gpu.raw"))
        cpu, cpu_out = run_cli(frame, "cpu", args, cpu_runs, os.path.join(work, "cpu.raw"))
        r = {"case": case, "gpu": gpu, "cpu_reference": cpu,
             "opencv_median_ms": {k: median_ms(f, runs) for k, f in opencv.items()},
             "compared_with": "opencv" if expected else "cpu engine"}
        want = expected() if expected else cpu_out
        if gpu_out is not None and want is not None:
            diff = np.abs(gpu_out.astype(np.int64) - want.astype(np.int64))
            r.update(gpu_equal=bool((diff == 0).all()), max_abs_diff=int(diff.max()),
                     samples_differing=int((diff != 0).sum()))
        results.append(r)
    doc = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "device": sh(["nvidia-smi", "--query-gpu=name,driver_version",
                         "--format=csv,noheader"]),
           "host_cpu": platform.processor() or sh(["sh", "-c",
                                                   "grep -m1 'model name' /proc/cpuinfo"]),
           "host_cores": os.cpu_count(), "opencv_version": cv2.__version__,
           "opencv_threads": cv2.getNumThreads(), "kernel": kernel, "gpu_runs": runs,
           "cpu_runs": cpu_runs, "opencv_runs": runs, "results": results}
    write_json(out_json, doc)
    print(f"# {doc['date']} {doc['device']}; OpenCV {doc['opencv_version']} "
          f"({doc['opencv_threads']} threads); medians: gpu {runs} runs, cpu {cpu_runs}, "
          f"opencv {runs}")
    print("case | gpu upload/histogram/lut/apply/download (engine total) ms | cpu engine ms | "
          "opencv ms | gpu output")
    for r in results:
        t = r["gpu"].get("timing_ms", {})
        stages = "/".join(f"{t.get(s, float('nan')):.3f}" for s in
                          ("upload", "histogram", "lut", "apply", "download"))
        cpu_t = r["cpu_reference"].get("timing_ms", {}).get("engine_total", float("nan"))
        ocv = ", ".join(f"{k} {v:.3f}" for k, v in r["opencv_median_ms"].items()) or "n/a"
        if "gpu_equal" not in r:
            same = "error: " + r["gpu"].get("error", "?")
        elif r["gpu_equal"]:
            same = "equal to " + r["compared_with"]
        else:
            same = (f"DIFFERS from {r['compared_with']} (max {r['max_abs_diff']}, "
                    f"{r['samples_differing']} samples)")
        print(f"{r['case']} | {stages} ({t.get('engine_total', float('nan')):.3f}) | "
              f"{cpu_t:.1f} | {ocv} | {same}")
    return 0 if all(r.get("gpu_equal") for r in results) else 1


def main(argv):
    ap = argparse.ArgumentParser(prog="tools.py", description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 1)[1])
    sub = ap.add_subparsers(dest="cmd", required=True, metavar="COMMAND")

    def command(name, func, *args):
        p = sub.add_parser(name)
        for a in args:
            p.add_argument(a)
        p.set_defaults(func=func)
        return p

    p = command("decode", None, "samples", "out")
    p.add_argument("--tiled", action="store_true")
    p.add_argument("names", nargs="*", metavar="NAME")
    command("synth-streams", synth_streams, "src", "out")
    command("cases", cases, "which", "raw")
    for name, func, args in (("bench-report", bench_report, ("folder", "out")),
                             ("stream-report", stream_report, ("folder", "out")),
                             ("ab-report", ab_report, ("folder", "out")),
                             ("learn", learn, ("folder", "map_path")),
                             ("auto-report", auto_report, ("folder", "out")),
                             ("compare", compare, ("cli", "photo"))):
        command(name, func, *args)
    p = command("equalize-bench", equalize_bench, "cli", "out_json")
    p.add_argument("runs", type=int)
    p.add_argument("kernel")

    a = vars(ap.parse_args(argv[1:]))
    cmd, func = a.pop("cmd"), a.pop("func")
    if cmd == "decode":
        missing = [n for n in a["names"] if not os.path.isfile(os.path.join(a["samples"], n))]
        if missing:
            ap.error("decode: not in " + a["samples"] + ": " + ", ".join(missing))
        decode(a["samples"], a["out"], a["tiled"], a["names"])
        return 0
    return func(**a) or 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
