"""Workload 10 (issue 35): the cost of a line. N distinct small images (small_set.py: 200-400 px, 80 % JPEG, 20 %
palette PNG, a few KB each) from nginx on loopback, to 64 px and to 200 px JPEG thumbnails, one batch each, cold
with the disk cache on: `imgfetch batch` (loose files, and WebDataset tars) against the pyvips thread pool
(peers/pyvips_pool.py) and img2dataset (PyPI, OpenCV decode and resize, one process per core, WebDataset output).
Reported: wall time, CPU per line (user + system of the whole process tree, from wait4), lines per second per core,
peak RSS of the largest process; then imgfetch's peak RSS at N and at BENCH_SMALL_TIMES x N lines (distinct URLs
through alias folders)."""
import glob
import json
import os
import statistics

from common import HERE, Contender, env_int, fmt_mib, fmt_time, human_bytes, log, measure, ratio, rounds_text, \
    time_table

SIZES = (64, 200)


class SmallImageWorkload:
    def __init__(self, bench, peer_python, img2dataset):
        self.b = bench
        self.python = peer_python      # the venv's python with pyvips and requests
        self.img2dataset = img2dataset  # the img2dataset command of its own venv, or ""
        self.folder = os.path.join(bench.www, "small")

    def fresh(self, d):
        def f():
            self.b.rm(d)
            os.makedirs(d)
        return f

    def count_check(self, d, count):
        def f():
            n = len([name for name in os.listdir(d) if name.endswith(".jpg")]) if os.path.isdir(d) else 0
            return None if n == count else f"{n} of {count} thumbnails written"
        return f

    @staticmethod
    def shard_check(d, count, successes):
        """The samples the shards' NAME_stats.json files count (`successes` reads one file's count): every line."""
        def f():
            done = 0
            for stats in glob.glob(os.path.join(d, "*_stats.json")):
                with open(stats) as s:
                    done += successes(json.load(s))
            return None if done == count else f"{done} of {count} samples written"
        return f

    def img2dataset_check(self, d, count):
        return self.shard_check(d, count, lambda stats: stats.get("successes", 0))

    def tar_check(self, d, count):
        return self.shard_check(d, count, lambda stats: stats.get("statuses", {}).get("ok", 0))

    def contenders(self, urls, count, size):
        b = self.b
        od = {k: b.p("out", f"w10-{size}-{k}") for k in ("imgfetch", "wds", "pyvips", "img2dataset")}
        cmd = [b.imgfetch, "batch", urls, "-O", od["imgfetch"], "--resize", f"{size}x{size}", "--format", "jpeg",
               "-q", "--cache-dir", "PLACEHOLDER"]

        def prep():
            self.fresh(od["imgfetch"])()
            cmd[-1] = b.fresh_cache(f"small-{size}")
        imf = Contender(f"w10-{size}-imgfetch", f"imgfetch batch urls.txt -O out --resize {size}x{size} "
                        "--format jpeg --cache-dir EMPTY (default -j)", cmd, imgfetch=True, prepare=prep,
                        check=self.count_check(od["imgfetch"], count))
        # With a Parquet table beside each tar, as img2dataset writes one.
        wds_cmd = [b.imgfetch, "batch", urls, "-O", od["wds"], "--resize", f"{size}x{size}", "--format", "jpeg",
                   "-q", "--output-format", "webdataset", "--parquet", "--cache-dir", "PLACEHOLDER"]

        def prep_wds():
            self.fresh(od["wds"])()
            wds_cmd[-1] = b.fresh_cache(f"small-wds-{size}")
        wds = Contender(f"w10-{size}-imgfetch-wds", f"imgfetch batch urls.txt -O out --resize {size}x{size} --format "
                        "jpeg --output-format webdataset --parquet --cache-dir EMPTY", wds_cmd, imgfetch=True, prepare=prep_wds,
                        check=self.tar_check(od["wds"], count), short="imgfetch (WebDataset)", session_memory=True)
        pyv = Contender(f"w10-{size}-pyvips", "pyvips thread pool: requests + thumbnail_buffer "
                        "(bench/peers/pyvips_pool.py)",
                        [self.python, os.path.join(HERE, "peers", "pyvips_pool.py"), urls, od["pyvips"], str(size)],
                        prepare=self.fresh(od["pyvips"]), check=self.count_check(od["pyvips"], count),
                        short="pyvips")
        cores = os.cpu_count() or 1
        i2d = Contender(f"w10-{size}-img2dataset", f"img2dataset --image_size {size} --resize_mode "
                        f"keep_ratio_largest --output_format webdataset --processes_count {cores} "
                        "--thread_count 16 --encode_quality 85",
                        [self.img2dataset, "--url_list", urls, "--input_format", "txt", "--output_folder",
                         od["img2dataset"], "--output_format", "webdataset", "--image_size", str(size),
                         "--resize_mode", "keep_ratio_largest", "--processes_count", str(cores), "--thread_count",
                         "16", "--encode_quality", "85", "--timeout", "30", "--retries", "0",
                         "--enable_wandb", "False"],
                        prepare=self.fresh(od["img2dataset"]), check=self.img2dataset_check(od["img2dataset"], count),
                        short="img2dataset", session_memory=True)
        if not self.img2dataset:
            i2d.fail("not installed", "no img2dataset venv (bench/work/venv-img2dataset.log)")
        return [imf, wds, pyv, i2d]

    def w10(self):
        b = self.b
        with open(os.path.join(self.folder, "manifest.json")) as f:
            manifest = json.load(f)
        names = sorted(manifest)
        count = len(names)
        urls = b.p("small-urls.txt")
        with open(urls, "w") as f:
            f.writelines(f"{b.url}/small/{n}\n" for n in names)
        kinds = {}
        for n in names:
            kinds[n.rsplit(".", 1)[1]] = kinds.get(n.rsplit(".", 1)[1], 0) + 1
        total = sum(manifest[n]["bytes"] for n in names)
        size_text = (f"{count} distinct small images ({', '.join(f'{v} {k}' for k, v in sorted(kinds.items()))}), "
                     f"200–400 px a side, {human_bytes(total)} ({human_bytes(total / count)} a file on average)")
        rounds = env_int("BENCH_ROUNDS_SMALL", 1)
        cores = os.cpu_count() or 1
        for size in SIZES:
            cs = self.contenders(urls, count, size)
            b.mark_missing(cs)
            log(f"workload 10: {count} small images to {size} px, {rounds} round(s)")
            measure(b.runner, cs, rounds)
            rows = time_table(cs, cs[0]) + ["", "| Tool | CPU per line | Lines / s / core | Peak memory of all its "
                                            "processes, summed |", "|---|---|---|---|"]
            for c in cs:
                if c.ok:
                    summed = fmt_mib(max(c.tree_rss)) if c.tree_rss else "—"
                    rows.append(f"| {c.short} | {statistics.median(c.cpus) / count * 1000:.2f} ms | "
                                f"{count / c.median() / cores:.0f} | {summed} |")
                else:
                    rows.append(f"| {c.short} | {c.failure} | | |")
            b.section(f"10.{SIZES.index(size) + 1}", f"Small images to {size} px, cold (disk cache on)", size_text,
                      rounds_text(rounds) + f"; {cores} cores; CPU is user + system of the whole process tree",
                      rows)
            self.aims(cs, count, size)
            b.store(f"10-{size}", cs)
        self.rss_flatness(names, count)

    def aims(self, cs, count, size):
        imf, wds, pyv, i2d = cs
        ours = statistics.median(imf.cpus) / count if imf.ok else None
        b = self.b
        b.add_aim(10, f"small images to {size} px: CPU per line", fmt_time(ours) if ours else (imf.failure or "—"),
                  "", None, "≤ 3 ms", None)
        if i2d.ok:
            theirs = statistics.median(i2d.cpus) / count
            b.add_aim(10, f"small images to {size} px: CPU per line vs img2dataset", fmt_time(ours),
                      fmt_time(theirs), ratio(ours, theirs), "< 1.00", 0.999)
        if wds.ok and i2d.ok:
            b.add_aim(10, f"small images to {size} px, WebDataset: wall vs img2dataset", fmt_time(wds.median()),
                      fmt_time(i2d.median()), ratio(wds.median(), i2d.median()), "≤ 0.50", 0.50)
            ours_kb, theirs_kb = max(wds.tree_rss), max(i2d.tree_rss)
            b.add_aim(10, f"small images to {size} px, WebDataset: peak memory of all processes summed vs "
                      "img2dataset", fmt_mib(ours_kb), fmt_mib(theirs_kb), ratio(ours_kb, theirs_kb), "≤ 0.50", 0.50)
        b.add_aim(10, f"small images to {size} px: wall vs pyvips pool",
                  fmt_time(imf.median()) if imf.ok else (imf.failure or "—"),
                  fmt_time(pyv.median()) if pyv.ok else (pyv.failure or "—"),
                  ratio(imf.median() if imf.ok else None, pyv.median() if pyv.ok else None), "≤ 0.40", 0.40)

    def rss_flatness(self, names, count):
        """imgfetch's peak RSS at `count` lines and at BENCH_SMALL_TIMES (default 10) times as many: the same names
        through the server's alias folders small-1 ... small-K (symbolic links to small/), so every URL is new."""
        b = self.b
        times = env_int("BENCH_SMALL_TIMES", 10)
        if times < 2:
            return
        for k in range(1, times):
            alias = os.path.join(b.www, f"small-{k}")
            if not os.path.lexists(alias):
                os.symlink("small", alias)
        urls = b.p("small-urls-x.txt")
        with open(urls, "w") as f:
            for k in range(times):
                folder = "small" if k == 0 else f"small-{k}"
                f.writelines(f"{b.url}/{folder}/{n}\n" for n in names)
        out = b.p("out", "w10-x")
        cmd = [b.imgfetch, "batch", urls, "-O", out, "--resize", "64x64", "--format", "jpeg", "-q",
               "--name", "{index}.{ext}", "--cache-dir", "PLACEHOLDER"]

        def prep():
            self.fresh(out)()
            cmd[-1] = b.fresh_cache("small-x")
        big = Contender("w10-x", f"imgfetch batch of {times * count} lines to 64 px", cmd, imgfetch=True,
                        prepare=prep, check=self.count_check(out, times * count))
        b.mark_missing([big])
        log(f"workload 10: peak RSS at {times * count} lines (1 round)")
        measure(b.runner, [big], 1)
        small = b.results.get("10-64", {}).get("w10-64-imgfetch", {}).get("rss_kb") or []
        b.section("10.3", f"Peak RSS at {count} and {times * count} lines", f"{times * count} lines to 64 px",
                  "1 round", time_table([big], big))
        if big.ok:
            lines = times * count
            b.add_aim(10, f"small images, {lines} lines: CPU per line", fmt_time(min(big.cpus) / lines), "", None,
                      "≤ 3 ms", None)
            if small:
                b.add_aim(10, f"small images, peak RSS at {lines} lines vs {count}", fmt_mib(max(big.rss)),
                          fmt_mib(max(small)), ratio(max(big.rss), max(small)), "≤ 1.10", 1.10)
            b.add_aim(10, f"small images, peak RSS at {lines} lines", fmt_mib(max(big.rss)), "", None,
                      "≤ 150 MiB", None)
        b.store("10-x", [big])
