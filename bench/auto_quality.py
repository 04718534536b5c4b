#!/usr/bin/env python3
"""Workload 9 of make bench: the real-photo set (photo_set.py) to 200 px thumbnails in one batch each, cold (a cache
of the run's own), --quality 85 JPEG against --quality auto JPEG against --format auto: total bytes, mean SSIMULACRA2
score against the processed image (written lossless as PNG by the same chain) with the ssimulacra2 package from
PyPI, and the batch's CPU seconds (user+sys of the process and its children, from wait4). The CPU of --quality 85
and --quality auto is the median of BENCH_AUTO_ROUNDS rounds (default 3), the two alternated, from the local files
and, with BENCH_PHOTO_URL (run.sh sets it to nginx's photos/), over HTTP as workload 7 fetches them.

usage: auto_quality.py IMGFETCH PHOTO_DIR REPORT [PYTHON_WITH_SSIMULACRA2]
Environment: BENCH_PHOTOS (default 400), BENCH_JOBS (default 2), BENCH_DISTANCES (e.g. "1.5,2": more rows,
--quality auto:D JPEG, to see which distance matches --quality 85's mean score: how the default was chosen),
BENCH_AUTO_ROUNDS, BENCH_PHOTO_URL.
The section replaces the one between the markers in REPORT (appended when REPORT has none)."""
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

MODES = [("--quality 85 (JPEG)", ["--format", "jpeg", "--quality", "85"]),
         ("--quality auto (JPEG)", ["--format", "jpeg", "--quality", "auto"]),
         ("--format auto", ["--format", "auto"])]
BEGIN, END = "<!-- workload 9: begin -->", "<!-- workload 9: end -->"
SCORER = """
import json, sys
from multiprocessing import Pool
from ssimulacra2 import compute_ssimulacra2
pairs = json.load(sys.stdin)
def score(pair):
    try: return float(compute_ssimulacra2(*pair))
    except Exception: return None
with Pool(int(sys.argv[1])) as pool: print(json.dumps(pool.map(score, pairs)))
"""


def batch(imgfetch, listing, out, arguments, jobs):
    """Runs one batch in a cache of its own; returns (cpu seconds, wall seconds, {stem: path})."""
    cache = tempfile.mkdtemp(prefix="auto-cache-", dir=os.path.dirname(out))
    os.chmod(cache, 0o700)
    shutil.rmtree(out, ignore_errors=True)
    command = [imgfetch, "batch", listing, "-O", out, "--resize", "200x200", "--cache-dir", cache,
               "--jobs", str(jobs), "-q"] + arguments
    started = time.monotonic()
    process = subprocess.Popen(command)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - started
    shutil.rmtree(cache, ignore_errors=True)
    if status != 0:
        sys.exit(f"auto_quality: {' '.join(command)} exited with {status}")
    files = {os.path.splitext(name)[0]: os.path.join(out, name) for name in os.listdir(out)}
    return usage.ru_utime + usage.ru_stime, wall, files


def main():
    imgfetch, photo_dir, report = sys.argv[1:4]
    python = sys.argv[4] if len(sys.argv) > 4 else None
    count, jobs = int(os.environ.get("BENCH_PHOTOS", "400")), int(os.environ.get("BENCH_JOBS", "2"))
    photos = sorted(p for p in glob.glob(os.path.join(photo_dir, "*")) if p.endswith((".jpg", ".webp", ".png")))[:count]
    work = tempfile.mkdtemp(prefix="auto-quality-", dir=os.path.dirname(os.path.abspath(photo_dir)))
    listing = os.path.join(work, "list.txt")
    with open(listing, "w") as f:
        f.write("".join(p + "\n" for p in photos))
    _, _, references = batch(imgfetch, listing, os.path.join(work, "reference"), ["--format", "png"], jobs)
    rows = []
    extra = [d for d in os.environ.get("BENCH_DISTANCES", "").split(",") if d]
    for label, arguments in MODES + [(f"--quality auto:{d} (JPEG)", ["--format", "jpeg", "--quality", f"auto:{d}"])
                                     for d in extra]:
        cpu, wall, files = batch(imgfetch, listing, os.path.join(work, f"mode{len(rows)}"), arguments, jobs)
        formats = {}
        for path in files.values():
            formats[os.path.splitext(path)[1][1:]] = formats.get(os.path.splitext(path)[1][1:], 0) + 1
        scores = score(python, [(references[stem], path) for stem, path in sorted(files.items())], jobs)
        rows.append((label, len(files), sum(os.path.getsize(p) for p in files.values()), scores, cpu, wall, formats))
    settings = [("local files", listing)]
    base = os.environ.get("BENCH_PHOTO_URL", "").rstrip("/")
    if base:
        urls = os.path.join(work, "urls.txt")
        with open(urls, "w") as f:
            f.write("".join(f"{base}/{os.path.basename(p)}\n" for p in photos))
        settings.append(("over HTTP from nginx, disk cache on (workload 7's setting)", urls))
    rounds = int(os.environ.get("BENCH_AUTO_ROUNDS", "3"))
    ratios = [(name, *cpu_rounds(imgfetch, given, work, jobs, rounds)) for name, given in settings]
    shutil.rmtree(work, ignore_errors=True)
    write(report, section(rows, len(photos), jobs, ratio_section(ratios, rounds)))


def cpu_rounds(imgfetch, listing, work, jobs, rounds):
    """Median CPU seconds of --quality 85 and of --quality auto over `rounds` rounds, the two alternated."""
    modes = [["--format", "jpeg", "--quality", "85"], ["--format", "jpeg", "--quality", "auto"]]
    cpu = [[], []]
    for index in range(rounds):
        for which in ([0, 1] if index % 2 == 0 else [1, 0]):
            cpu[which].append(batch(imgfetch, listing, os.path.join(work, f"round-{which}"), modes[which], jobs)[0])
    return statistics.median(cpu[0]), statistics.median(cpu[1])


def ratio_section(ratios, rounds):
    lines = ["", f"CPU of `--quality auto` against `--quality 85` (JPEG), the median of {rounds} rounds, the two "
             "alternated:", "", "| Photos read | `--quality 85` | `--quality auto` | Ratio |", "|---|---|---|---|"]
    lines += [f"| {name} | {fixed:.1f} s | {auto:.1f} s | {auto / fixed:.2f}× |" for name, fixed, auto in ratios]
    return "\n".join(lines) + "\n"


def score(python, pairs, jobs):
    """The mean SSIMULACRA2 score of the pairs, or None without the package."""
    if not python:
        return None
    done = subprocess.run([python, "-c", SCORER, str(jobs)], input=json.dumps(pairs), capture_output=True, text=True)
    if done.returncode != 0:
        return None
    values = [v for v in json.loads(done.stdout) if v is not None]
    return sum(values) / len(values) if values else None


def section(rows, count, jobs, ratios):
    base_bytes, base_score, base_cpu = rows[0][2], rows[0][3], rows[0][4]
    lines = [BEGIN, f"### 9. Quality and format chosen by Butteraugli: {count} photos to 200 px, cold",
             "",
             f"One `imgfetch batch LIST -O DIR --resize 200x200 --jobs {jobs}` per row, each in a cache of its own; "
             "SSIMULACRA2 (PyPI `ssimulacra2`) of each result against the processed image written as PNG by the same "
             "chain; CPU is user+sys of the batch (wait4).",
             "",
             "| Command | Files | Total bytes | vs q85 | Mean SSIMULACRA2 | vs q85 | CPU | vs q85 | Wall | Formats |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for label, files, total, mean, cpu, wall, formats in rows:
        ratio = f"{(total / base_bytes - 1) * 100:+.1f} %"
        points = "—" if mean is None or base_score is None else f"{mean - base_score:+.2f}"
        shown = "—" if mean is None else f"{mean:.2f}"
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(formats.items()))
        lines.append(f"| `{label}` | {files} | {total} | {ratio} | {shown} | {points} | {cpu:.1f} s | "
                     f"{cpu / base_cpu:.2f}× | {wall:.1f} s | {kinds} |")
    lines += [ratios, "Aims (issue 36): `--quality auto` ≥ 20 % fewer bytes than `--quality 85` at a mean score "
              "within 1 point, `--format auto` ≥ 40 % fewer, CPU within 2.5×.", END]
    return "\n".join(lines) + "\n"


def write(report, text):
    old = open(report).read() if os.path.exists(report) else ""
    if BEGIN in old and END in old:
        new = old[:old.index(BEGIN)] + text + old[old.index(END) + len(END) + 1:]
    else:
        anchor = "\n## Notes"
        new = old.replace(anchor, "\n" + text + anchor, 1) if anchor in old else old + "\n" + text
    with open(report, "w") as f:
        f.write(new)
    print(text)


if __name__ == "__main__":
    main()
