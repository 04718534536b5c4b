#!/usr/bin/env python3
"""A/B rounds of `imgfetch batch` settings, for measuring the levers of issue 17 on a busy machine.

usage: levers.py URLS OUT_PARENT ROUNDS 'NAME|ENV=V ENV2=V|ARGS' ... [-- COMMON ARGS]

ARGS may hold @FILE: that list instead of URLS (same number of lines); with --no-cache no --cache-dir is given.
Every round runs each variant once, the first one rotating, each into a fresh output folder and a fresh cache
directory (cold, disk cache on), so that variants share whatever else the machine is doing. A run is timed from
fork to exit with os.wait4: wall time, CPU (user+sys) and peak RSS; the load average is sampled before and after
each run. Prints one line per run and a table of medians. IMGFETCH (default .build/release/imgfetch) is the binary;
a variant's ENV may name its own (IMGFETCH=path). Directories a round leaves are put aside and deleted after the last
round (as bench.py does: on ext4 without a journal, deleting files just before a run makes that run's file creations
slower).

example (from the repository root, nginx serving bench/work/www-r1 as bench/run.sh does):
  python3 bench/levers.py bench/work/run/photo-urls.txt /tmp/levers 3 'j8||-j 8' 'j2||-j 2' \\
      'j8-vc1|VIPS_CONCURRENCY=1|-j 8' -- --resize 200x200 --format jpeg
"""
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time


def load():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def main():
    args = sys.argv[1:]
    common = []
    if "--" in args:
        common = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    urls, parent, rounds, specs = args[0], args[1], int(args[2]), args[3:]
    default_binary = os.environ.get("IMGFETCH", ".build/release/imgfetch")
    variants = []
    for spec in specs:
        name, env_text, arg_text = (spec.split("|") + ["", ""])[:3]
        env = dict(item.split("=", 1) for item in env_text.split())
        variants.append((name, env, shlex.split(arg_text)))
    count = sum(1 for line in open(urls) if line.strip())
    results = {name: [] for name, _, _ in variants}
    os.makedirs(parent, exist_ok=True)
    trash = os.path.join(parent, "trash")
    os.makedirs(trash, exist_ok=True)
    for r in range(rounds):
        shift = r % len(variants)
        for name, env, extra in variants[shift:] + variants[:shift]:
            out, cache = os.path.join(parent, f"out-{name}"), os.path.join(parent, f"cache-{name}")
            for d in (out, cache):
                if os.path.exists(d):   # put aside, not deleted: see Bench.rm in bench.py
                    os.rename(d, os.path.join(trash, f"{os.path.basename(d)}-{r}-{time.time_ns()}"))
            os.makedirs(out)
            listing = next((a[1:] for a in extra if a.startswith("@")), urls)
            extra = [a for a in extra if not a.startswith("@")]
            cache_args = [] if "--no-cache" in extra else ["--cache-dir", cache]
            binary = env.get("IMGFETCH", default_binary)
            cmd = [binary, "batch", listing, "-O", out, "-q"] + cache_args + common + extra
            full_env = {k: v for k, v in os.environ.items() if not k.startswith("IMGFETCH_")}
            full_env.update({k: v for k, v in env.items() if k != "IMGFETCH"})
            before = load()
            t0 = time.perf_counter()
            p = subprocess.Popen(cmd, env=full_env, stdin=subprocess.DEVNULL)
            _, status, ru = os.wait4(p.pid, 0)
            wall = time.perf_counter() - t0
            rc = os.waitstatus_to_exitcode(status)
            written = len(os.listdir(out))
            run = (wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, before, load())
            print(f"round {r + 1} {name:>12}: wall {wall:6.2f} s  cpu {run[1]:6.2f} s  rss {run[2]:5.0f} MiB  "
                  f"load {run[3]:.2f}->{run[4]:.2f}  exit {rc}  {written}/{count} written", flush=True)
            if rc == 0 and written == count:
                results[name].append(run)
    shutil.rmtree(trash, ignore_errors=True)
    print("\n| variant | env | args | median wall | median CPU (user+sys) | max peak RSS | runs |")
    print("|---|---|---|---|---|---|---|")
    for name, env, extra in variants:
        rs = results[name]
        if not rs:
            print(f"| {name} | | | failed | | | 0 |")
            continue
        print(f"| {name} | {' '.join(f'{k}={v}' for k, v in env.items()) or '—'} | {' '.join(extra) or '—'} | "
              f"{statistics.median(x[0] for x in rs):.2f} s | {statistics.median(x[1] for x in rs):.2f} s | "
              f"{max(x[2] for x in rs):.0f} MiB | {len(rs)} |")


if __name__ == "__main__":
    main()
