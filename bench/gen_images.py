#!/usr/bin/env python3
"""Generate the benchmark image set with the `vips` command-line tool.

    gen_images.py WWW_DIR COUNT

Writes, under WWW_DIR (served by nginx):
  hero.jpg              one 4000x3000 JPEG (workloads 1 and 4)
  set/imgNNNN.{jpg,png,webp}
                        COUNT distinct images of 0.3-12 megapixels (workloads 2 and 3)
  big.jpg, big.png      10000x10000 (workload 5)
  manifest.json         name, format, size and bytes of every file above

The pictures are synthetic but shaped like photographs for the codecs: smooth
colour fields (Perlin noise), hard-edged shapes, fine texture and sensor-like
grain, so a 12 MP JPEG at Q85 is ~3 MB and a PNG ~30 MB.  Six 12 MP bases (one
per common aspect ratio) are synthesised once; each set image is one
`vips resize` of a base with its own scale, aspect jitter, format and quality,
so every file is distinct.  Image i depends only on i, so raising COUNT later
only adds files.  Files are written to a temporary name and renamed, and an
existing file is kept: an interrupted run resumes where it stopped.
"""
import concurrent.futures
import json
import math
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

RECIPE = 1                      # bump when the recipe changes (www dir name carries it)
MIN_MP, MAX_MP = 0.3, 12.0
# (width, height) of the bases: ~12 MP in the aspect ratios cameras and phones produce.
BASES = [(4000, 3000), (4240, 2832), (4608, 2592), (3464, 3464), (3000, 4000), (2832, 4240)]
FORMATS = [("jpg", 0.6), ("png", 0.2), ("webp", 0.2)]


def vips(*args):
    subprocess.run(["vips", *[str(a) for a in args]], check=True,
                   stdout=subprocess.DEVNULL)


def synth_base(out_v, width, height, seed, tmp):
    """A width x height 3-band uchar image in vips format at out_v."""
    def t(name):
        return os.path.join(tmp, f"{name}.v")
    w, h = max(1, width // 4), max(1, height // 4)
    s = seed * 10
    # Low-resolution stage (upscaled x4 at the end): colour fields, mid detail, shapes.
    for i, band in enumerate("rgb"):
        vips("perlin", t(band), w, h, "--cell-size", 160, "--seed", s + i + 1)
    vips("bandjoin", f"{t('r')} {t('g')} {t('b')}", t("rgb"))
    vips("linear", t("rgb"), t("rgb2"), "110 90 100", "128 120 110")
    vips("perlin", t("m"), w, h, "--cell-size", 24, "--seed", s + 4)
    vips("linear", t("m"), t("m2"), 45, 0)
    vips("perlin", t("e"), w, h, "--cell-size", 90, "--seed", s + 6)
    vips("relational_const", t("e"), t("em"), "more", 0.05)        # hard-edged shapes
    vips("linear", t("em"), t("em2"), 0.25, " -32")
    vips("add", t("m2"), t("em2"), t("mm"))
    vips("add", t("rgb2"), t("mm"), t("low"))
    vips("resize", t("low"), t("up"), 4, "--vscale", height / (h * 4.0))
    # Full-resolution stage: fine texture and grain.
    upw = int(round(w * 4))
    vips("perlin", t("tx"), upw, height, "--cell-size", 6, "--seed", s + 5)
    vips("linear", t("tx"), t("tx2"), 18, 0)
    vips("gaussnoise", t("gn"), upw, height, "--sigma", 7, "--mean", 0)
    vips("add", t("tx2"), t("gn"), t("det"))
    vips("add", t("up"), t("det"), t("full"))
    vips("extract_area", t("full"), t("crop"), 0, 0, min(width, upw), height)
    vips("cast", t("crop"), out_v, "uchar")
    for name in ("r", "g", "b", "rgb", "rgb2", "m", "m2", "e", "em", "em2", "mm", "low",
                 "up", "tx", "tx2", "gn", "det", "full", "crop"):
        try:
            os.unlink(t(name))
        except FileNotFoundError:
            pass


def atomic_vips(final, *args_before_out, out_opts="", after=()):
    """Run `vips OP IN <tmpfile>[opts] ...` and rename the result to final."""
    d, base = os.path.split(final)
    ext = os.path.splitext(final)[1]
    tmp = os.path.join(d, f".tmp-{os.getpid()}-{base}{ext}")
    vips(*args_before_out, f"{tmp}{out_opts}", *after)
    os.replace(tmp, final)


def image_plan(i, seed):
    """Deterministic recipe of set image i: depends on (seed, i) only."""
    rng = random.Random(f"{seed}:{i}")
    r = rng.random()
    acc = 0.0
    for ext, weight in FORMATS:
        acc += weight
        if r < acc:
            break
    b = rng.randrange(len(BASES))
    bw, bh = BASES[b]
    mp = math.exp(rng.uniform(math.log(MIN_MP), math.log(MAX_MP)))
    k = math.sqrt(mp * 1e6 / (bw * bh))
    hs, vs = k * rng.uniform(0.92, 1.08), k * rng.uniform(0.92, 1.08)
    # Keep the area within [MIN_MP, MAX_MP] after the jitter.
    area = bw * hs * bh * vs / 1e6
    if area > MAX_MP:
        f = math.sqrt(MAX_MP / area) * 0.999
        hs, vs = hs * f, vs * f
    elif area < MIN_MP:
        f = math.sqrt(MIN_MP / area) * 1.001
        hs, vs = hs * f, vs * f
    if ext == "jpg":
        opts = f"[Q={rng.randint(70, 95)},strip]"
    elif ext == "webp":
        opts = f"[Q={rng.randint(60, 90)},strip]"
    else:
        opts = f"[compression={rng.choice([6, 6, 6, 3])},strip]"
    return {"name": f"img{i:04d}.{ext}", "base": b, "hscale": hs, "vscale": vs,
            "opts": opts}


def pool_map(fn, items, jobs):
    """fn over items on a thread pool, in order; Ctrl-C cancels what hasn't started."""
    ex = concurrent.futures.ThreadPoolExecutor(jobs)
    try:
        futures = [ex.submit(fn, it) for it in items]
        return [f.result() for f in futures]
    finally:
        ex.shutdown(wait=True, cancel_futures=True)


def header(path):
    out = subprocess.run(["vipsheader", "-a", path], check=True, capture_output=True,
                         text=True).stdout
    fields = {}
    for line in out.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            fields[k.strip()] = v.strip()
    return int(fields["width"]), int(fields["height"])


def on_signal(signum, frame):
    # The first INT or TERM stops the run; later ones (run.sh's TERM after a Ctrl-C) must
    # not interrupt the clean-up.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt


def main():
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    if len(sys.argv) != 3:
        sys.exit("usage: gen_images.py WWW_DIR COUNT")
    www, count = sys.argv[1], int(sys.argv[2])
    seed = 20240601
    jobs = int(os.environ.get("BENCH_GEN_JOBS", os.cpu_count() or 2))
    setdir = os.path.join(www, "set")
    basedir = os.path.join(www, "..", "bases")
    for d in (www, setdir, basedir):
        os.makedirs(d, exist_ok=True)
    t0 = time.time()
    made = 0

    with tempfile.TemporaryDirectory(dir=basedir, prefix=".synth-") as tmp:
        bases = []
        for b, (bw, bh) in enumerate(BASES):
            path = os.path.join(basedir, f"base{b}-{bw}x{bh}.v")
            if not os.path.exists(path):
                part = path + ".part.v"
                synth_base(part, bw, bh, seed + b, tmp)
                os.replace(part, path)
                made += 1
            bases.append(path)

        hero = os.path.join(www, "hero.jpg")
        if not os.path.exists(hero):
            atomic_vips(hero, "copy", bases[0], out_opts="[Q=85,strip]")
            made += 1

        # 10000x10000: the square base upscaled, plus fresh grain at full resolution.
        big_jpg, big_png = os.path.join(www, "big.jpg"), os.path.join(www, "big.png")
        if not (os.path.exists(big_jpg) and os.path.exists(big_png)):
            sq = bases[3]
            n = 10000
            up = os.path.join(tmp, "bigup.v")
            vips("resize", sq, up, n / BASES[3][0])
            vips("extract_area", up, os.path.join(tmp, "bigc.v"), 0, 0, n, n)
            vips("gaussnoise", os.path.join(tmp, "bgn.v"), n, n, "--sigma", 5, "--mean", 128)
            vips("cast", os.path.join(tmp, "bgn.v"), os.path.join(tmp, "bgn8.v"), "uchar")
            os.unlink(os.path.join(tmp, "bgn.v"))
            vips("add", os.path.join(tmp, "bigc.v"), os.path.join(tmp, "bgn8.v"),
                 os.path.join(tmp, "bigsum.v"))
            for p in ("bigup.v", "bigc.v", "bgn8.v"):
                os.unlink(os.path.join(tmp, p))
            src = os.path.join(tmp, "bigsum.v")
            if not os.path.exists(big_jpg):
                atomic_vips(big_jpg, "linear", src, out_opts="[Q=85,strip]",
                            after=("1", " -128", "--uchar"))
                made += 1
            if not os.path.exists(big_png):
                atomic_vips(big_png, "linear", src, out_opts="[strip]",
                            after=("1", " -128", "--uchar"))
                made += 1
            os.unlink(src)

    plans = [image_plan(i, seed) for i in range(count)]
    todo = [p for p in plans if not os.path.exists(os.path.join(setdir, p["name"]))]

    def make(p):
        atomic_vips(os.path.join(setdir, p["name"]), "resize", bases[p["base"]],
                    out_opts=p["opts"], after=(f"{p['hscale']:.6f}", "--vscale",
                                               f"{p['vscale']:.6f}"))

    if todo:
        print(f"gen_images: making {len(todo)} of {count} set images with {jobs} jobs...",
              file=sys.stderr, flush=True)
        pool_map(make, todo, jobs)
        made += len(todo)

    # Manifest (cheap to rebuild; dimensions from the old manifest where known).
    mpath = os.path.join(www, "manifest.json")
    old = {}
    if os.path.exists(mpath):
        with open(mpath) as f:
            old = {e["path"]: e for e in json.load(f)["files"]}
    def entry(rel):
        size = os.path.getsize(os.path.join(www, rel))
        e = old.get(rel)
        if not e or e["bytes"] != size:
            w, h = header(os.path.join(www, rel))
            e = {"path": rel, "width": w, "height": h, "bytes": size}
        return e

    # Every set image on disk is listed, not only the first COUNT: a quick run with a small
    # COUNT must not make the next full run read all headers again.
    on_disk = sorted(n for n in os.listdir(setdir) if n.startswith("img"))
    rels = ["hero.jpg", "big.jpg", "big.png"] + [f"set/{n}" for n in on_disk]
    files = pool_map(entry, rels, jobs)
    with open(mpath + ".tmp", "w") as f:
        json.dump({"recipe": RECIPE, "files": files}, f, indent=0)
    os.replace(mpath + ".tmp", mpath)
    print(f"gen_images: {made} files made, {count} set images ready "
          f"({time.time() - t0:.1f} s)", file=sys.stderr)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("gen_images: interrupted")
