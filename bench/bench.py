#!/usr/bin/env python3
"""imgfetch benchmark driver: runs the workloads of issue 8 against their peers.

Called by bench/run.sh once the image set exists and nginx serves it:

    bench.py --www DIR --base-url http://127.0.0.1:PORT --run-dir DIR --imgfetch PATH
             --count N --report docs/BENCHMARKS.md

Timing: each workload runs its commands in rounds, one run of every command per round, the
starting command rotating from round to round, so imgfetch and its peers alternate and share
whatever the machine is doing.  A run is timed from fork to exit (wall clock) with
os.wait4(), which also gives user+sys CPU and peak RSS of the process tree's largest member.
Medians are reported; ratios are imgfetch's median over the peer's.  hyperfine is not used:
it finishes all runs of one command before starting the next, and cannot alternate.

A command that exits non-zero stops being run in that workload and its row says
"failed (exit N)" (the cache-upkeep rows say "n/a (exit N)"); the others go on.
Knobs (environment): BENCH_ROUNDS_FAST (default 10: workloads 1 and 4 use it, 4 twice over),
BENCH_ROUNDS_BATCH (3), BENCH_ROUNDS_WARM (5), BENCH_ROUNDS_MEM (3), BENCH_CACHE_ENTRIES
(100000), BENCH_CACHE_ROUNDS (3), BENCH_CACHE_EXPIRED (0.3), BENCH_CACHE_PARENT (/dev/shm when
it is a tmpfs, else bench/work), BENCH_ONLY (e.g. "1,4"), BENCH_TIMEOUT (seconds per run, 600).
"""
import argparse
import datetime
import json
import os
import platform
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import time
import traceback

from common import HERE, ROOT, env_int, env_float, log, on_signal, Runner, Contender, run_contender, \
    measure, fmt_time, fmt_mib, fmt_ratio, ratio, md_code, cell, rounds_text, FORMAT_NAMES, human_bytes, spread, \
    time_table


# --------------------------------------------------------------------------- the bench


class Bench:
    def __init__(self, a):
        self.a = a
        self.www = os.path.abspath(a.www)
        self.url = a.base_url.rstrip("/")
        self.run_dir = os.path.abspath(a.run_dir)
        self.imgfetch = a.imgfetch
        self.only = {s.strip() for s in os.environ.get("BENCH_ONLY", "").split(",") if s.strip()}
        with open(os.path.join(self.www, "manifest.json")) as f:
            self.manifest = {e["path"]: e for e in json.load(f)["files"]}
        # Nothing is deleted while the workloads run: what a round leaves goes to a trash folder emptied after the
        # last workload (see `rm`), and an earlier run's directory is moved aside and deleted then too.
        self.old_runs = []
        if os.path.exists(self.run_dir):
            aside = f"{self.run_dir}.old-{time.time_ns()}"
            os.rename(self.run_dir, aside)
            self.old_runs.append(aside)
        self.trash_seq = 0
        for d in ("out", "caches", "tmp", "xdg", "logs", "trash"):
            os.makedirs(os.path.join(self.run_dir, d))
        env = {k: v for k, v in os.environ.items() if not k.startswith("IMGFETCH_")}
        # The warm renderer's name of this run (bench/run.sh stops it at the end).
        if os.environ.get("IMGFETCH_RENDERER_SOCKET"):
            env["IMGFETCH_RENDERER_SOCKET"] = os.environ["IMGFETCH_RENDERER_SOCKET"]
        env["XDG_CACHE_HOME"] = os.path.join(self.run_dir, "xdg")   # never touch ~/.cache
        env["MAGICK_TMPDIR"] = os.path.join(self.run_dir, "tmp")
        env["TMPDIR"] = os.path.join(self.run_dir, "tmp")
        self.env = env
        self.runner = Runner(env, os.path.join(self.run_dir, "logs"),
                             env_float("BENCH_TIMEOUT", 600))
        self.sections = []     # markdown blocks, one per workload
        self.aims = []         # (workload, what, imgfetch value, peer value, ratio, aim, met)
        self.notes = []
        self.results = {}      # raw numbers for results.json
        self.harness_errors = 0
        self.nocache_args = None
        self.cache_seq = 0
        self.last_cache = {}

    # ---- helpers
    def p(self, *parts):
        return os.path.join(self.run_dir, *parts)

    def fresh_cache(self, tag):
        """A cache directory path that does not exist yet (imgfetch creates it 0700).

        The previous directory handed out for the same tag is put aside (untimed; see `rm`)."""
        old = self.last_cache.get(tag)
        if old and os.path.exists(old):
            self.rm(old)
        self.cache_seq += 1
        self.last_cache[tag] = self.p("caches", f"{tag}-{self.cache_seq}")
        return self.last_cache[tag]

    def imgfetch_missing(self):
        return not (os.path.isfile(self.imgfetch) and os.access(self.imgfetch, os.X_OK))

    def enabled(self, n):
        return not self.only or str(n) in self.only

    def add_aim(self, wl, what, ours, theirs, r, aim, limit, unit="ratio"):
        met = "—" if r is None or limit is None else ("yes" if r <= limit else "no")
        self.aims.append((wl, what, ours, theirs, fmt_ratio(r) if unit == "ratio" else r, aim, met))

    def rm(self, path):
        """Puts a directory a round left into the trash (a rename), emptied after the last workload.

        Why not delete it: this project's VMs run ext4 without a journal, where creating a file scans past every
        inode of its block group deleted in the last minutes (`recently_deleted` in the kernel's inode allocator).
        Deleting a round's 1,200 files just before the next round made that round's file creations cost up to
        1.7 s of CPU (perf: find_inode_bit), paid by whoever creates the most files; a cold batch on a user's
        machine does not follow the deletion of its own previous run by seconds.  Below 8 GiB free, it deletes."""
        if not os.path.lexists(path):
            return
        if os.path.isdir(path) and not os.path.islink(path):
            st = os.statvfs(self.run_dir)
            if st.f_bavail * st.f_frsize > 8 * 2**30:
                self.trash_seq += 1
                os.rename(path, self.p("trash", str(self.trash_seq)))
            else:
                shutil.rmtree(path)
        else:
            os.unlink(path)

    def empty_trash(self):
        for d in [self.p("trash")] + self.old_runs:
            shutil.rmtree(d, ignore_errors=True)
        os.makedirs(self.p("trash"), exist_ok=True)

    def check_file(self, path, max_side=200):
        if not os.path.isfile(path) or os.path.getsize(path) == 0:
            return f"no output at {os.path.relpath(path, self.run_dir)}"
        return None

    def dims(self, path):
        try:
            out = subprocess.run(["vipsheader", path], capture_output=True, text=True,
                                 env=self.env, timeout=60).stdout
            # "path: 200x150 uchar, 3 bands, ..."
            wh = out.split(": ", 1)[1].split()[0]
            return wh
        except Exception:
            return "?"

    def mark_missing(self, contenders):
        for c in contenders:
            if c.imgfetch and self.imgfetch_missing():
                c.fail("not built", f"{self.imgfetch} does not exist")

    def nocache(self):
        """imgfetch's 'no cache at all' arguments: --no-cache, or a fresh --cache-dir."""
        if self.nocache_args is not None:
            return self.nocache_args
        self.nocache_args = ["--no-cache"]
        if self.imgfetch_missing():
            return self.nocache_args
        out = self.p("out", "probe.jpg")
        r = self.runner.run("probe-nocache", [self.imgfetch, f"{self.url}/hero.jpg", "--resize",
                                              "200x200", "-o", out, "--no-cache"])
        if r.rc == 2:
            r2 = self.runner.run("probe-cachedir", [self.imgfetch, f"{self.url}/hero.jpg",
                                                    "--resize", "200x200", "-o", out,
                                                    "--cache-dir", self.fresh_cache("probe")])
            if r2.rc == 0:
                self.nocache_args = "fresh-cache-dir"
                self.notes.append("`--no-cache` was refused (exit 2), so each cold imgfetch run "
                                  "used a fresh, empty `--cache-dir` instead.")
        return self.nocache_args

    def cold_args(self):
        """Arguments for a cold run: ["--no-cache"], or ["--cache-dir", DIR] where the caller's
        prepare step replaces DIR by a fresh directory before every run."""
        mode = self.nocache()
        if mode == "fresh-cache-dir":
            return ["--cache-dir", self.fresh_cache("cold")]
        return list(mode)

    @staticmethod
    def cold_label(nc):
        return "--no-cache" if nc[0] == "--no-cache" else "--cache-dir EMPTY"

    def size_of(self, rel):
        e = self.manifest[rel]
        fmt = rel.rsplit(".", 1)[1].upper()
        return f"{e['width']}×{e['height']} {FORMAT_NAMES.get(fmt, fmt)}, {human_bytes(e['bytes'])}"

    # ---- workload 1
    def w1(self):
        rounds = env_int("BENCH_ROUNDS_FAST", 10)
        url = f"{self.url}/hero.jpg"
        outs = {k: self.p("out", f"w1-{k}.jpg") for k in ("imgfetch", "imgfetch-auto", "vips", "convert")}
        nc = self.cold_args()

        def imgfetch_contender(key, extra, label_extra):
            cmd = [self.imgfetch, url, "--resize", "200x200", "-o", outs[key]] + extra + nc
            c = Contender(f"w1-{key}", "imgfetch URL --resize 200x200 -o out.jpg " + label_extra
                          + self.cold_label(nc), cmd, imgfetch=True)

            def prepare():
                self.rm(outs[key])
                if nc[0] == "--cache-dir":
                    cmd[-1] = self.fresh_cache("cold")
            c.prepare = prepare
            c.check = lambda: self.check_file(outs[key])
            return c
        # The default (--renderer off): rendering in the command's own process, libvips loaded every time.
        imf = imgfetch_contender("imgfetch", [], "")
        # Opted in (--renderer auto): the warm-up round leaves a warm renderer, which the measured rounds use.
        imf_on = imgfetch_contender("imgfetch-auto", ["--renderer", "auto"], "--renderer auto ")
        vt = Contender("w1-vips", "curl -s URL | vipsthumbnail stdin -s 200x200 -o out.jpg",
                       f"curl -sf {shlex.quote(url)} | vipsthumbnail stdin -s 200x200 -o "
                       f"{shlex.quote(outs['vips'])}",
                       prepare=lambda: self.rm(outs["vips"]),
                       check=lambda: self.check_file(outs["vips"]), short="curl | vipsthumbnail")
        cv = Contender("w1-convert", "curl -s URL | convert -define jpeg:size=400x400 - "
                       "-thumbnail 200x200 out.jpg",
                       f"curl -sf {shlex.quote(url)} | /usr/bin/convert -define "
                       f"jpeg:size=400x400 - -thumbnail 200x200 {shlex.quote(outs['convert'])}",
                       prepare=lambda: self.rm(outs["convert"]),
                       check=lambda: self.check_file(outs["convert"]), short="curl | convert")
        cs = [imf, imf_on, vt, cv]
        self.mark_missing(cs)
        log(f"workload 1: cold fetch + thumbnail, {rounds} rounds")
        measure(self.runner, cs, rounds, warmup=1)
        sizes = {c.short: self.dims(outs[k])
                 for c, k in ((imf, "imgfetch"), (vt, "vips"), (cv, "convert")) if c.ok}
        self.notes.append("Workload 1: `imgfetch` runs with its default `--renderer off`, loading libvips in the "
                          "command every time. The `--renderer auto` row is the opt-in warm renderer: its warm-up "
                          "round leaves a renderer (`imgfetch renderer serve`) that renders for the measured rounds; "
                          "its CPU time and memory are not in that row.")
        size = f"1 × {self.size_of('hero.jpg')}"
        self.section(1, "Cold fetch + 200 px thumbnail", size,
                     rounds_text(rounds, " after 1 warm-up round") + "; outputs: "
                     + ", ".join(f"{k} {v}" for k, v in sizes.items()), time_table(cs, imf))
        peers = [c for c in (vt, cv) if c.ok]
        best = min(peers, key=lambda c: c.median()) if peers else None
        r = ratio(imf.median() if imf.ok else None, best.median() if best else None)
        peer = best.short if best else "—"
        self.add_aim(1, f"cold fetch + thumbnail (default, --renderer off) vs the faster peer ({peer})",
                     fmt_time(imf.median()) if imf.ok else (imf.failure or "—"),
                     fmt_time(best.median()) if best else "—", r, "≤ 1.0", 1.0)
        r_on = ratio(imf_on.median() if imf_on.ok else None, best.median() if best else None)
        self.add_aim(1, "the same with `--renderer auto` (opt-in warm renderer)",
                     fmt_time(imf_on.median()) if imf_on.ok else (imf_on.failure or "—"),
                     fmt_time(best.median()) if best else "—", r_on, "(for comparison)", None)
        self.w1_vips = vt
        self.store(1, cs)

    # ---- workloads 2 and 3
    def w2_w3(self):
        count = self.a.count
        names = sorted(n for n in self.manifest if n.startswith("set/"))[:count]
        urls = self.p("urls.txt")
        with open(urls, "w") as f:
            f.writelines(f"{self.url}/{n}\n" for n in names)
        ent = [self.manifest[n] for n in names]
        by_fmt = {}
        for n in names:
            ext = FORMAT_NAMES.get(n.rsplit(".", 1)[1].upper(), "?")
            by_fmt[ext] = by_fmt.get(ext, 0) + 1
        mps = [e["width"] * e["height"] / 1e6 for e in ent]
        size = (f"{count} distinct images ({', '.join(f'{v} {k}' for k, v in sorted(by_fmt.items()))}), "
                f"{min(mps):.1f}–{max(mps):.1f} MP (median {statistics.median(mps):.1f}), "
                f"{human_bytes(sum(e['bytes'] for e in ent))}")
        rounds = env_int("BENCH_ROUNDS_BATCH", 3)
        od = {k: self.p("out", f"w2-{k}") for k in ("imgfetch", "xargs", "twostep", "warm")}
        dl = self.p("out", "w2-download")

        def fresh(*dirs):
            def f():
                for d in dirs:
                    self.rm(d)
                    os.makedirs(d)
            return f

        def count_check(d):
            def f():
                n = len(os.listdir(d)) if os.path.isdir(d) else 0
                return None if n == count else f"{n} of {count} thumbnails written"
            return f

        cmd = [self.imgfetch, "batch", urls, "-O", od["imgfetch"], "--resize", "200x200",
               "--format", "jpeg", "-j", "8", "--cache-dir", "PLACEHOLDER"]
        last_cache = {}

        def prep_imf():
            fresh(od["imgfetch"])()
            cmd[-1] = last_cache["dir"] = self.fresh_cache("batch")
        imf = Contender("w2-imgfetch", "imgfetch batch urls.txt -O out --resize 200x200 "
                        "--format jpeg -j 8 --cache-dir EMPTY", cmd, imgfetch=True,
                        prepare=prep_imf, check=count_check(od["imgfetch"]))
        per_url = ('n=${1##*/}; curl -sf "$1" | vipsthumbnail stdin -s 200x200 '
                   '-o "$OUT/${n%.*}.jpg"')
        xa = Contender("w2-xargs", "xargs -P 8 -n 1 sh -c 'curl -s URL | vipsthumbnail stdin "
                       "-s 200x200 -o out/NAME.jpg' < urls.txt",
                       f"export OUT={shlex.quote(od['xargs'])}; xargs -P 8 -n 1 sh -c "
                       f"{shlex.quote(per_url)} sh < {shlex.quote(urls)}",
                       prepare=fresh(od["xargs"]), check=count_check(od["xargs"]))
        ts = Contender("w2-twostep", "(cd dl && xargs -P 8 -n 16 curl -s --remote-name-all "
                       "< urls.txt) && vipsthumbnail -s 200x200 -o out/%s.jpg dl/*",
                       f"cd {shlex.quote(dl)} && xargs -P 8 -n 16 curl -sf --remote-name-all "
                       f"< {shlex.quote(urls)} && vipsthumbnail -s 200x200 -o "
                       f"{shlex.quote(od['twostep'])}/%s.jpg {shlex.quote(dl)}/*",
                       prepare=fresh(od["twostep"], dl), check=count_check(od["twostep"]))
        cs = [imf, xa, ts]
        self.mark_missing(cs)
        if self.enabled(2):
            log(f"workload 2: batch of {count}, {rounds} rounds (the longest workload)")
            measure(self.runner, cs, rounds)
            self.section(2, "Batch thumbnails from a URL list, cold", size,
                         rounds_text(rounds) + f"; every tool writes {count} JPEG thumbnails "
                         "(checked by count)", time_table(cs, imf))
            ours = imf.median() if imf.ok else None
            self.add_aim(2, "batch, cold, vs xargs + curl | vipsthumbnail per URL",
                         fmt_time(ours) if imf.ok else (imf.failure or "—"),
                         fmt_time(xa.median()) if xa.ok else (xa.failure or "—"),
                         ratio(ours, xa.median() if xa.ok else None), "≤ 0.5", 0.5)
            self.add_aim(2, "batch, cold, vs curl all then one vipsthumbnail",
                         fmt_time(ours) if imf.ok else (imf.failure or "—"),
                         fmt_time(ts.median()) if ts.ok else (ts.failure or "—"),
                         ratio(ours, ts.median() if ts.ok else None), "≤ 1.0", 1.0)
            self.store(2, cs)

        if not self.enabled(3):
            return
        wrounds = env_int("BENCH_ROUNDS_WARM", 5)
        warm_dir = last_cache.get("dir") if imf.ok else None
        wcmd = list(cmd)
        warm = Contender("w3-imgfetch", "imgfetch batch urls.txt -O out --resize 200x200 "
                         "--format jpeg -j 8 --cache-dir WARM", wcmd, imgfetch=True,
                         prepare=fresh(od["warm"]), check=count_check(od["warm"]))
        wcmd[wcmd.index("-O") + 1] = od["warm"]
        self.mark_missing([warm])
        if not warm.failure and not warm_dir:
            log("workload 3: warming a cache (untimed)")
            warm_dir = self.fresh_cache("warm")
            wcmd[-1] = warm_dir
            run_contender(self.runner, warm, measured=False)
        wcmd[-1] = warm_dir or "none"
        log(f"workload 3: batch of {count} again, warm cache, {wrounds} rounds")
        measure(self.runner, [warm], wrounds)
        cold = imf.median() if imf.ok else None
        rows = ["| Command | Median | Min – max | CPU (user+sys) | Peak RSS | ÷ workload 2 cold |",
                "|---|---|---|---|---|---|"]
        if warm.failure:
            rows.append(f"| {md_code(warm.label)} | {warm.failure} | | | | |")
        else:
            rows.append(f"| {md_code(warm.label)} | {fmt_time(warm.median())} | {spread(warm)} | "
                        f"{fmt_time(statistics.median(warm.cpus))} | {fmt_mib(max(warm.rss))} | "
                        f"{fmt_ratio(ratio(warm.median(), cold))} |")
        self.section(3, "The same batch again, warm cache", size,
                     rounds_text(wrounds) + "; the cache is the one workload 2's last imgfetch run "
                     "filled (originals and variants)", rows)
        self.add_aim(3, "batch, warm, vs workload 2 cold",
                     fmt_time(warm.median()) if warm.ok else (warm.failure or "—"),
                     fmt_time(cold) if cold else (imf.failure or "—"),
                     ratio(warm.median() if warm.ok else None, cold), "≤ 0.1", 0.1)
        self.store(3, [warm])

    # ---- workload 4
    def w4(self):
        rounds = 2 * env_int("BENCH_ROUNDS_FAST", 10)
        url = f"{self.url}/hero.jpg"
        local = os.path.join(self.www, "hero.jpg")
        out_i, out_v = self.p("out", "w4-imgfetch.jpg"), self.p("out", "w4-vips.jpg")
        warm_dir = self.fresh_cache("w4")
        cmd = [self.imgfetch, url, "--resize", "200x200", "-o", out_i, "--cache-dir", warm_dir]
        imf = Contender("w4-imgfetch", "imgfetch URL --resize 200x200 -o out.jpg --cache-dir WARM",
                        cmd, imgfetch=True, prepare=lambda: self.rm(out_i),
                        check=lambda: self.check_file(out_i))
        vt = Contender("w4-vips", "vipsthumbnail hero.jpg -s 200x200 -o out.jpg",
                       ["vipsthumbnail", local, "-s", "200x200", "-o", out_v],
                       prepare=lambda: self.rm(out_v), check=lambda: self.check_file(out_v))
        cs = [imf, vt]
        self.mark_missing(cs)
        if not imf.failure:
            log("workload 4: filling the cache (untimed)")
            run_contender(self.runner, imf, measured=False)
        log(f"workload 4: warm hit, {rounds} rounds")
        measure(self.runner, cs, rounds, warmup=2)
        self.section(4, "One warm cache hit vs the vipsthumbnail process",
                     f"1 × {self.size_of('hero.jpg')} (imgfetch: result cached; vipsthumbnail: "
                     "local copy)", rounds_text(rounds, " after 2 warm-up rounds"), time_table(cs, imf))
        self.add_aim(4, "warm hit vs vipsthumbnail on the local file",
                     fmt_time(imf.median()) if imf.ok else (imf.failure or "—"),
                     fmt_time(vt.median()) if vt.ok else (vt.failure or "—"),
                     ratio(imf.median() if imf.ok else None, vt.median() if vt.ok else None),
                     "≤ 0.3", 0.3)
        w1v = getattr(self, "w1_vips", None)
        if w1v is not None and w1v.ok and imf.ok:
            self.notes.append(f"Workload 4 against workload 1's `curl | vipsthumbnail` "
                              f"({fmt_time(w1v.median())}): "
                              f"{fmt_ratio(ratio(imf.median(), w1v.median()))}.")
        self.store(4, cs)

    # ---- workload 5
    def w5(self):
        rounds = env_int("BENCH_ROUNDS_MEM", 3)
        cs_all, rows = [], []
        nc = self.cold_args()
        for name in ("big.jpg", "big.png"):
            url = f"{self.url}/{name}"
            tag = name.replace(".", "-")
            outs = {k: self.p("out", f"w5-{tag}-{k}.jpg") for k in ("imgfetch", "convert", "vips")}
            mems = {k: self.p("out", f"w5-{tag}-{k}.mem") for k in outs}
            T = ["/usr/bin/time", "-f", "%M", "-o"]
            cmd = T + [mems["imgfetch"], self.imgfetch, url, "--resize", "200x200",
                       "--max-bytes", "1G", "-o", outs["imgfetch"]] + nc

            def prep(k, cmd=cmd, outs=outs, mems=mems):
                def f():
                    self.rm(outs[k])
                    self.rm(mems[k])
                    if k == "imgfetch" and nc[0] == "--cache-dir":
                        cmd[-1] = self.fresh_cache("cold")
                return f
            imf = Contender(f"w5-{tag}-imgfetch", "imgfetch URL --resize 200x200 --max-bytes 1G "
                            "-o out.jpg " + self.cold_label(nc),
                            cmd, imgfetch=True, prepare=prep("imgfetch"), mem_file=mems["imgfetch"],
                            check=lambda o=outs: self.check_file(o["imgfetch"]))
            q = shlex.quote
            cv = Contender(f"w5-{tag}-convert", "curl -s URL | convert -define jpeg:size=400x400 - "
                           "-thumbnail 200x200 out.jpg",
                           f"curl -sf {q(url)} | /usr/bin/time -f %M -o {q(mems['convert'])} "
                           f"/usr/bin/convert -define jpeg:size=400x400 - -thumbnail 200x200 "
                           f"{q(outs['convert'])}", prepare=prep("convert"),
                           mem_file=mems["convert"], check=lambda o=outs: self.check_file(o["convert"]))
            vt = Contender(f"w5-{tag}-vips", "curl -s URL | vipsthumbnail stdin -s 200x200 -o out.jpg",
                           f"curl -sf {q(url)} | /usr/bin/time -f %M -o {q(mems['vips'])} "
                           f"vipsthumbnail stdin -s 200x200 -o {q(outs['vips'])}",
                           prepare=prep("vips"), mem_file=mems["vips"],
                           check=lambda o=outs: self.check_file(o["vips"]))
            cs = [imf, cv, vt]
            self.mark_missing(cs)
            log(f"workload 5: peak memory, {name}, {rounds} rounds")
            measure(self.runner, cs, rounds)
            cs_all.append((name, cs))
        rows = ["| Input | Command | Peak RSS (median) | Time (median) | imgfetch ÷ this (memory) |",
                "|---|---|---|---|---|"]
        for name, cs in cs_all:
            imf = cs[0]
            ours = statistics.median(imf.mem) if imf.ok and all(imf.mem) else None
            for c in cs:
                if c.failure:
                    rows.append(f"| {self.size_of(name)} | {md_code(c.label)} | {c.failure} | | |")
                    continue
                m = statistics.median(c.mem) if all(v is not None for v in c.mem) else None
                r = "—" if c is imf else fmt_ratio(ratio(ours, m))
                rows.append(f"| {self.size_of(name)} | {md_code(c.label)} | {fmt_mib(m)} | "
                            f"{fmt_time(c.median())} | {r} |")
            cv = cs[1]
            theirs = statistics.median(cv.mem) if cv.ok and all(cv.mem) else None
            met = "—" if ours is None else ("yes" if ours <= 100 * 1e6 / 1024 else "no")
            self.aims.append((5, f"peak memory, 10000×10000 {FORMAT_NAMES[name.split('.')[1].upper()]} "
                              f"(convert beside it)", fmt_mib(ours) if ours else (imf.failure or "—"),
                              fmt_mib(theirs) if theirs else (cv.failure or "—"),
                              fmt_ratio(ratio(ours, theirs)), "≤ 100 MB", met))
            self.store(f"5-{name}", cs)
        self.section(5, "Peak memory of a 200 px thumbnail of a 10000×10000 image",
                     f"1 × {self.size_of('big.jpg')}; 1 × {self.size_of('big.png')}",
                     rounds_text(rounds) + "; peak RSS of the image process by `/usr/bin/time -f %M` "
                     "(curl not counted); ImageMagick runs under Debian's policy.xml "
                     "(memory 256 MiB, map 512 MiB, then disk)", rows)

    # ---- workload 6
    def count_entries(self, d):
        n = 0
        ents = os.path.join(d, "entries")
        if not os.path.isdir(ents):
            return 0
        for xx in os.scandir(ents):
            if xx.is_dir(follow_symlinks=False):
                for e in os.scandir(xx.path):
                    if os.path.isfile(os.path.join(e.path, "original")):
                        n += 1
        return n

    def delete_cache(self, d):
        """Remove a cache dir entry by entry, timed: the file system's floor for removals."""
        t0 = time.perf_counter()
        n = 0
        ents = os.path.join(d, "entries")
        if os.path.isdir(ents):
            for xx in os.scandir(ents):
                if not xx.is_dir(follow_symlinks=False):
                    continue
                for e in os.scandir(xx.path):
                    if e.is_dir(follow_symlinks=False):
                        for f in os.scandir(e.path):
                            if f.is_dir(follow_symlinks=False):
                                shutil.rmtree(f.path)
                            else:
                                os.unlink(f.path)
                        os.rmdir(e.path)
                        n += 1
        t = time.perf_counter() - t0
        shutil.rmtree(d, ignore_errors=True)
        return n, t

    def w6(self):
        n = env_int("BENCH_CACHE_ENTRIES", 100000)
        rounds = env_int("BENCH_CACHE_ROUNDS", 3)
        expired_frac = env_float("BENCH_CACHE_EXPIRED", 0.3)
        body = 614
        limit_kib = max(1, int(n * (1 - expired_frac) * body * 0.6) // 1024)
        limit = f"{limit_kib}K"
        d = self.upkeep_dir()
        try:
            self._w6(d, n, rounds, expired_frac, limit)
        finally:
            if os.path.exists(d):
                shutil.rmtree(d, ignore_errors=True)

    def upkeep_dir(self):
        """Where the 100k-entry cache goes: BENCH_CACHE_PARENT, else /dev/shm when it is a
        tmpfs with room, else the run directory.

        Why tmpfs by default: on this project's VMs, ext4 metadata writes (mkdir, create,
        unlink) were measured at 70-500 µs each and slowed as a session went on, so making a
        100k-entry cache took up to a minute per round and clean-expired/prune were bound by
        the disk's deletions, not by imgfetch.  BENCH_CACHE_PARENT=bench/work measures on disk."""
        parent = os.environ.get("BENCH_CACHE_PARENT", "").strip()
        if not parent:
            parent = os.path.dirname(self.run_dir)
            try:
                with open("/proc/mounts") as f:
                    shm_tmpfs = any(l.split()[1] == "/dev/shm" and l.split()[2] == "tmpfs" for l in f)
                st = os.statvfs("/dev/shm")
                if shm_tmpfs and st.f_bavail * st.f_frsize > 4 * 2**30 and os.access("/dev/shm", os.W_OK):
                    parent = "/dev/shm"
            except OSError:
                pass
        parent = os.path.abspath(parent)
        d = os.path.join(parent, f"imgfetch-bench-upkeep-{os.getuid()}")
        if os.path.exists(d):
            shutil.rmtree(d, ignore_errors=True)        # left by an interrupted run
        return d

    def fs_of(self, path):
        best, fs = "", "?"
        try:
            with open("/proc/mounts") as f:
                for line in f:
                    dev, mnt, typ, opts = line.split()[:4]
                    if (path + "/").startswith(mnt.rstrip("/") + "/") and len(mnt) >= len(best):
                        best, fs = mnt, f"{typ} on {mnt}"
        except OSError:
            pass
        return fs

    def _w6(self, d, n, rounds, expired_frac, limit):
        finder = f"find {shlex.quote(d)} -type f -printf '%A@ %s %p\\n' | sort -n > /dev/null"
        find_a = Contender("w6-find-a", "find DIR -type f -printf '%A@ %s %p\\n' | sort -n", finder)
        find_b = Contender("w6-find-b", "find DIR ... | sort -n (after clean-expired)", finder)
        inspect = Contender("w6-inspect", "imgfetch cache inspect --cache-dir DIR",
                            [self.imgfetch, "cache", "inspect", "--cache-dir", d], imgfetch=True,
                            fail_word="n/a")
        clean = Contender("w6-clean", "imgfetch cache clean-expired --cache-dir DIR",
                          [self.imgfetch, "cache", "clean-expired", "--cache-dir", d],
                          imgfetch=True, fail_word="n/a")
        prune = Contender("w6-prune", f"imgfetch cache prune --size-limit {limit} --cache-dir DIR",
                          [self.imgfetch, "cache", "prune", "--size-limit", limit, "--cache-dir", d],
                          imgfetch=True, fail_word="n/a")
        self.mark_missing([inspect, clean, prune])
        for c in (inspect, clean, prune):
            if c.failure:
                c.failure = c.failure.replace("failed", "n/a")
        info, left_clean, left_prune, floors = None, [], [], []
        fresh_needed = True
        gen_t = []
        log(f"workload 6: cache upkeep on {n} entries, {rounds} rounds")
        for r in range(rounds):
            if fresh_needed:
                if os.path.exists(d):
                    k, t = self.delete_cache(d)
                    if k:
                        floors.append((k, t))
                t0 = time.perf_counter()
                out = subprocess.run([sys.executable, os.path.join(HERE, "make_cache.py"), d, str(n),
                                      "--expired-fraction", str(expired_frac)],
                                     check=True, capture_output=True, text=True).stdout
                gen_t.append(time.perf_counter() - t0)
                info = json.loads(out)
            pair = [find_a, inspect] if r % 2 == 0 else [inspect, find_a]
            for c in pair:
                run_contender(self.runner, c, True)
            destructive = False
            if not clean.failure:
                run_contender(self.runner, clean, True)
                destructive = True
                if not clean.failure:
                    left_clean.append(self.count_entries(d))
            run_contender(self.runner, find_b, True)
            if not prune.failure:
                run_contender(self.runner, prune, True)
                destructive = True
                if not prune.failure:
                    left_prune.append(self.count_entries(d))
            fresh_needed = destructive
        if os.path.exists(d):
            k, t = self.delete_cache(d)
            if k:
                floors.append((k, t))
        files_mib = info["file_bytes"] / 2**20 if info else 0
        size = (f"{n:,} original entries ({info['expired']:,} expired), "
                f"{files_mib:.0f} MiB of entry files, one directory per entry, in "
                f"{os.path.dirname(d)} ({self.fs_of(d)})" if info else f"{n} entries")
        rows = ["| Command | Median | Min – max | Peak RSS | ÷ find on the same directory |",
                "|---|---|---|---|---|"]
        for c, ref in ((find_a, None), (inspect, find_a), (clean, find_a), (find_b, None),
                       (prune, find_b)):
            if c.failure:
                rows.append(f"| {md_code(c.label)} | {c.failure} | | | |")
                continue
            rr = "—" if ref is None else fmt_ratio(ratio(c.median(), ref.median() if ref.ok else None))
            rows.append(f"| {md_code(c.label)} | {fmt_time(c.median())} | {spread(c)} | "
                        f"{fmt_mib(max(c.rss))} | {rr} |")
        notes = [rounds_text(rounds) + f"; a fresh cache from `bench/make_cache.py` for every round in "
                 f"which a command changed it ({statistics.median(gen_t):.1f} s to make, untimed); "
                 f"prune's limit {limit} is about 60 % of the bodies left after clean-expired"]
        if info and left_clean:
            notes.append(f"entries left by clean-expired: {statistics.median(left_clean):,.0f} "
                         f"(unexpired entries made: {n - info['expired']:,})")
        if left_prune:
            notes.append(f"entries left by prune: {statistics.median(left_prune):,.0f}")
        if floors:
            us = statistics.median(t / k for k, t in floors) * 1e6
            notes.append(f"the file system's floor: removing one entry here (unlink + rmdir, "
                         f"Python, timed on the leftovers) takes {us:.0f} µs, so removing "
                         f"{info['expired'] if info else 0:,} expired entries costs at least "
                         f"{us * (info['expired'] if info else 0) / 1e6:.2f} s")
        self.section(6, "Cache upkeep", size, "; ".join(notes), rows)
        for c, ref, what in ((inspect, find_a, "cache inspect (summary)"),
                             (clean, find_a, "cache clean-expired"),
                             (prune, find_b, "cache prune")):
            self.add_aim(6, f"{what} vs find | sort",
                         fmt_time(c.median()) if c.ok else (c.failure or "—"),
                         fmt_time(ref.median()) if ref.ok else (ref.failure or "—"),
                         ratio(c.median() if c.ok else None, ref.median() if ref.ok else None),
                         "≤ 2.0", 2.0)
        self.store(6, [find_a, inspect, clean, find_b, prune])

    # ---- reporting
    def section(self, n, title, size, how, rows):
        block = [f"### {n}. {title}", "", f"Size: {size}.  ", f"{how}.", ""] + rows + [""]
        self.sections.append("\n".join(block))

    def store(self, wl, cs):
        self.results[str(wl)] = {c.key: {"label": c.label, "walls": c.walls, "cpus": c.cpus,
                                         "rss_kb": c.rss, "mem_kb": c.mem, "failure": c.failure,
                                         "detail": c.detail} for c in cs}
        for c in cs:
            if c.failure and "(not built)" in c.failure:
                note = f"imgfetch is not built: {c.detail}; its rows are empty."
            elif c.failure and c.detail:
                note = f"{md_code(c.label)} {c.failure}: {c.detail}"
            else:
                continue
            if note not in self.notes:
                self.notes.append(note)

    def machine(self):
        def first_line(cmd, stream="stdout"):
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, env=self.env, timeout=30)
                text = (p.stdout if stream == "stdout" else p.stderr).strip() or \
                       (p.stderr if stream == "stdout" else p.stdout).strip()
                return text.splitlines()[0] if text else f"(exit {p.returncode})"
            except Exception as e:
                return f"(unavailable: {e.__class__.__name__})"

        cpu = "?"
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith("model name"):
                        cpu = line.split(":", 1)[1].strip()
                        break
        except OSError:
            pass
        mem = "?"
        try:
            with open("/proc/meminfo") as f:
                for line in f:
                    if line.startswith("MemTotal"):
                        mem = f"{int(line.split()[1]) / 2**20:.1f} GiB"
        except OSError:
            pass
        debian = "?"
        try:
            with open("/etc/debian_version") as f:
                debian = f.read().strip()
        except OSError:
            pass
        fs = "?"
        try:
            best = ""
            with open("/proc/mounts") as f:
                for line in f:
                    dev, mnt, typ, opts = line.split()[:4]
                    if self.run_dir.startswith(mnt.rstrip("/") + "/") and len(mnt) >= len(best):
                        best, fs = mnt, f"{typ} on {mnt} ({opts})"
        except OSError:
            pass
        imgfetch = ("not built" if self.imgfetch_missing()
                    else first_line([self.imgfetch, "--version"]))
        commit = first_line(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"])
        return [
            f"- Date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
            f"- CPU: {cpu}, {os.cpu_count()} cores (nproc {first_line(['nproc'])}); memory {mem}",
            f"- OS: Debian {debian}, Linux {platform.release()}; bench/work on {fs}",
            f"- Load average at start: {self.load_start}; at end: {self.load()}",
            f"- imgfetch: {imgfetch} (`{self.a.imgfetch_arg}`; repository at commit {commit})",
            f"- vips: {first_line(['vips', '--version'])}; "
            f"convert: {first_line(['/usr/bin/convert', '-version'])}",
            f"- curl: {first_line(['curl', '--version'])}",
            f"- nginx: {first_line(['nginx', '-v'], 'stderr')} (serving bench/work on 127.0.0.1, "
            f"sendfile, keep-alive, 2 workers)",
        ]

    @staticmethod
    def load():
        try:
            with open("/proc/loadavg") as f:
                return " ".join(f.read().split()[:3])
        except OSError:
            return "?"

    def report(self, elapsed):
        aims = ["| # | Figure | imgfetch | Peer / reference | Ratio | Aim | Met |",
                "|---|---|---|---|---|---|---|"]
        for a in self.aims:
            aims.append("| " + " | ".join(cell(x) for x in a) + " |")
        lines = ["# imgfetch benchmarks", "",
                 f"Made by `make bench` (`bench/run.sh`) in {elapsed / 60:.1f} min. "
                 "Each workload runs imgfetch and the tools people use instead alternately, "
                 "round by round, in the same run; figures are medians of wall-clock time from "
                 "fork to exit, and ratios are imgfetch's median over the other's (below 1.0: "
                 "imgfetch is faster). Images come from nginx on 127.0.0.1.", "",
                 "## Machine", ""] + self.machine() + [
                 "", "## Summary against the aims of issues 8 and 17", ""] + aims + [
                 "", "## Workloads", ""] + self.sections
        if self.notes:
            lines += ["## Notes", ""] + [f"- {n}" for n in self.notes] + [""]
        # The hand-written part: what limits each workload and the levers kept, with their measured effect.
        with open(os.path.join(HERE, "limits.md")) as f:
            lines += [f.read().rstrip(), ""]
        lines += ["## Reproducing", "",
                  "`make bench` (or `bash bench/run.sh`) from the repository root. "
                  "`BENCH_COUNT=100 BENCH_ROUNDS_BATCH=1 BENCH_CACHE_ENTRIES=20000 make bench` "
                  "is a quick run; `BENCH_ONLY=1,4` picks workloads; `IMGFETCH=path` benchmarks "
                  "another binary. The image set is made once into `bench/work/` and kept.", ""]
        return "\n".join(lines)

    SETTLE_SECONDS = 61

    def settle(self):
        """Waits until files deleted before the bench (a test suite's, an earlier run's) are no longer "recently
        deleted" to ext4 without a journal (see `rm`): the kernel's inode allocator skips an inode freed less than 60 s
        ago (RECENTCY_MIN in fs/ext4/ialloc.c), 360 s while its inode-table block is dirty. So: a sync, then 61 s."""
        os.sync()
        log(f"settling {self.SETTLE_SECONDS} s: files deleted before the bench must not be recent to the inode allocator")
        time.sleep(self.SETTLE_SECONDS)

    def run(self):
        t0 = time.time()
        self.settle()
        self.load_start = self.load()
        steps = [(1, self.w1), (2, self.w2_w3), (4, self.w4), (5, self.w5), (6, self.w6)]
        peer_python = os.environ.get("BENCH_PEER_PYTHON", "")
        if peer_python:
            from photos import PhotoWorkloads      # workloads 7 and 8: real photos, peers in a venv
            photos = PhotoWorkloads(self, peer_python)
            steps += [(7, photos.w7), (8, photos.w8)]
            from small import SmallImageWorkload  # workload 10: small images, the cost of a line
            small = SmallImageWorkload(self, peer_python, os.environ.get("BENCH_IMG2DATASET", ""))
            steps += [(10, small.w10)]
        for n, fn in steps:
            if n == 2 and not (self.enabled(2) or self.enabled(3)):
                continue
            if n != 2 and not self.enabled(n):
                continue
            try:
                fn()
            except KeyboardInterrupt:
                raise
            except Exception:
                self.harness_errors += 1
                tb = traceback.format_exc()
                log(f"workload {n}: harness error\n{tb}")
                self.sections.append(f"### {n}. harness error\n\n```\n{tb.strip()}\n```\n")
        self.empty_trash()
        text = self.report(time.time() - t0)
        print(text)
        os.makedirs(os.path.dirname(self.a.report), exist_ok=True)
        tmp = self.a.report + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, self.a.report)
        with open(os.path.join(os.path.dirname(self.run_dir), "results.json"), "w") as f:
            json.dump(self.results, f, indent=1)
        log(f"wrote {os.path.relpath(self.a.report, ROOT)} ({(time.time() - t0) / 60:.1f} min)")
        return 1 if self.harness_errors else 0


def main():
    ap = argparse.ArgumentParser(description="imgfetch benchmark workloads")
    ap.add_argument("--www", required=True)
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--run-dir", required=True)
    ap.add_argument("--imgfetch", required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--report", required=True)
    a = ap.parse_args()
    a.report = os.path.abspath(a.report)
    a.imgfetch_arg = a.imgfetch
    a.imgfetch = os.path.abspath(a.imgfetch) if os.sep in a.imgfetch else (
        shutil.which(a.imgfetch) or a.imgfetch)
    # run.sh starts us in the background (SIGINT ignored) and stops us with TERM.
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        sys.exit(Bench(a).run())
    except KeyboardInterrupt:
        log("interrupted")
        sys.exit(130)


if __name__ == "__main__":
    main()
