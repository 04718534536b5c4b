"""Workloads 7 and 8 (issue 17): real photographs, against the scripts people write instead.

7. 400 real photos (bench/photo_set.py: Debian's wallpaper photographs scaled over 0.4-12 MP, JPEG/WebP/PNG)
   to 200 px JPEG thumbnails from nginx on loopback: `imgfetch batch` cold with its disk cache, against
   the local decode floor (two `vipsthumbnail` processes over local copies, one per core), a pyvips
   thread pool of requests downloads (bench/peers/pyvips_pool.py), the same with Pillow
   (bench/peers/pillow_pool.py), and the existing xargs peer; then the warm re-run, and imgfetch's peak RSS
   at 400 and at 4,000 lines (the list repeated under distinct query-free names is not possible, so the
   4,000-line list names every photo ten times through distinct symlinked paths on the server).
8. sharp's published benchmark: a 2725x2225 JPEG to 720x588 (Lanczos 3, JPEG quality 80), over N local
   copies: imgfetch batch --no-cache against pyvips' thread pool; thumbnails per second per core.
Peers that need Python packages run from a venv that bench/run.sh makes (pip install pyvips pillow requests)."""
import os
import shlex
import statistics

from common import HERE, Contender, env_int, fmt_mib, fmt_time, human_bytes, log, measure, \
    ratio, rounds_text, time_table


def read_into_page_cache(paths):
    """Reads each file once before a workload's rounds, so that no contender's first run pays for reading the
    set from the disk. On the VMs this bench has run on, DAMON pages out memory left untouched for a minute, the page
    cache included (`/sys/kernel/mm/damon/admin/kdamonds/0`: action pageout, min age 12 x 5 s): a set not read for
    a while came from the disk again, and the batch that read it first took 7.6 s where the next took 5.4 s."""
    for path in paths:
        with open(path, "rb") as f:
            while f.read(1 << 20):
                pass


class PhotoWorkloads:
    def __init__(self, bench, python):
        self.b = bench
        self.python = python          # the venv's python with pyvips, Pillow and requests
        self.photos = os.path.join(bench.www, "photos")

    def names(self):
        import json
        with open(os.path.join(self.photos, "manifest.json")) as f:
            manifest = json.load(f)
        return manifest, sorted(manifest)

    def fresh(self, *dirs):
        def f():
            for d in dirs:
                self.b.rm(d)
                os.makedirs(d)
        return f

    def count_check(self, d, count):
        def f():
            n = len(os.listdir(d)) if os.path.isdir(d) else 0
            return None if n == count else f"{n} of {count} thumbnails written"
        return f

    def w7(self):
        b = self.b
        manifest, names = self.names()
        count = len(names)
        urls = b.p("photo-urls.txt")
        with open(urls, "w") as f:
            f.writelines(f"{b.url}/photos/{n}\n" for n in names)
        local = [os.path.join(self.photos, n) for n in names]
        mps = [manifest[n]["width"] * manifest[n]["height"] / 1e6 for n in names]
        kinds = {}
        for n in names:
            kinds[n.rsplit(".", 1)[1]] = kinds.get(n.rsplit(".", 1)[1], 0) + 1
        size = (f"{count} real photographs ({', '.join(f'{v} {k}' for k, v in sorted(kinds.items()))}), "
                f"{min(mps):.1f}–{max(mps):.1f} MP (median {statistics.median(mps):.1f}), "
                f"{human_bytes(sum(manifest[n]['bytes'] for n in names))}")
        rounds = env_int("BENCH_ROUNDS_PHOTOS", 3)
        od = {k: b.p("out", f"w7-{k}") for k in ("imgfetch", "floor", "pyvips", "pillow", "warm")}
        cmd = [b.imgfetch, "batch", urls, "-O", od["imgfetch"], "--resize", "200x200", "--format", "jpeg",
               "--cache-dir", "PLACEHOLDER"]
        last = {}

        def prep():
            self.fresh(od["imgfetch"])()
            cmd[-1] = last["dir"] = b.fresh_cache("photos")
        imf = Contender("w7-imgfetch", "imgfetch batch urls.txt -O out --resize 200x200 --format jpeg "
                        "--cache-dir EMPTY (default -j)", cmd, imgfetch=True, prepare=prep,
                        check=self.count_check(od["imgfetch"], count))
        half = (count + 1) // 2
        files_a = " ".join(shlex.quote(p) for p in local[:half])
        files_b = " ".join(shlex.quote(p) for p in local[half:])
        out = shlex.quote(od["floor"])
        floor = Contender("w7-floor", "two vipsthumbnail -s 200x200 processes over local copies (one per core)",
                          f"vipsthumbnail -s 200x200 -o {out}/%s.jpg {files_a} & "
                          f"vipsthumbnail -s 200x200 -o {out}/%s.jpg {files_b}; wait",
                          prepare=self.fresh(od["floor"]), check=self.count_check(od["floor"], count),
                          short="floor")
        pyv = Contender("w7-pyvips", "pyvips thread pool: requests + thumbnail_buffer (bench/peers/pyvips_pool.py)",
                        [self.python, os.path.join(HERE, "peers", "pyvips_pool.py"), urls, od["pyvips"], "200"],
                        prepare=self.fresh(od["pyvips"]), check=self.count_check(od["pyvips"], count),
                        short="pyvips")
        pil = Contender("w7-pillow", "Pillow thread pool: requests + draft + thumbnail (bench/peers/pillow_pool.py)",
                        [self.python, os.path.join(HERE, "peers", "pillow_pool.py"), urls, od["pillow"], "200"],
                        prepare=self.fresh(od["pillow"]), check=self.count_check(od["pillow"], count),
                        short="Pillow")
        cs = [imf, floor, pyv, pil]
        b.mark_missing(cs)
        log(f"workload 7: {count} real photos, {rounds} rounds")
        read_into_page_cache(local)
        measure(b.runner, cs, rounds)
        b.section(7, "Real photographs to 200 px thumbnails, cold (disk cache on)", size,
                  rounds_text(rounds) + "; the photos read once before (page cache warm for every tool); "
                  "every tool writes one JPEG per photo (checked by count)",
                  time_table(cs, imf))
        ours = imf.median() if imf.ok else None
        for peer, what, aim, limit in ((floor, "local decode floor (2 × vipsthumbnail)", "≤ 1.10", 1.10),
                                       (pyv, "pyvips thread-pool script", "≤ 0.90", 0.90),
                                       (pil, "Pillow thread-pool script", "—", None)):
            b.add_aim(7, f"photos, cold, vs {what}", fmt_time(ours) if imf.ok else (imf.failure or "—"),
                      fmt_time(peer.median()) if peer.ok else (peer.failure or "—"),
                      ratio(ours, peer.median() if peer.ok else None), aim, limit)
        if imf.ok:
            b.add_aim(7, "photos, cold, peak RSS at the default -j", fmt_mib(max(imf.rss)), "", None,
                      "≤ 150 MiB", None)
        b.store(7, cs)
        # Warm re-run on the cache the last cold run filled.
        warm_cmd = list(cmd)
        warm_cmd[warm_cmd.index("-O") + 1] = od["warm"]
        warm_cmd[-1] = last.get("dir", "none")
        warm = Contender("w7-warm", "the same batch again, warm cache", warm_cmd, imgfetch=True,
                         prepare=self.fresh(od["warm"]), check=self.count_check(od["warm"], count))
        b.mark_missing([warm])
        measure(b.runner, [warm], env_int("BENCH_ROUNDS_WARM", 5))
        b.add_aim(7, "photos, warm re-run vs cold", fmt_time(warm.median()) if warm.ok else (warm.failure or "—"),
                  fmt_time(ours) if ours else "—", ratio(warm.median() if warm.ok else None, ours), "≤ 0.05", 0.05)
        b.store("7-warm", [warm])
        self.rss_flatness(names, count)

    def rss_flatness(self, names, count):
        """Peak RSS of the cold batch at `count` and at ten times as many lines (distinct URLs through the
        server's alias folders photos-1 ... photos-9, symlinks to photos/)."""
        b = self.b
        for k in range(1, 10):
            alias = os.path.join(b.www, f"photos-{k}")
            if not os.path.lexists(alias):
                os.symlink("photos", alias)
        urls = b.p("photo-urls-x10.txt")
        with open(urls, "w") as f:
            for k in range(10):
                folder = "photos" if k == 0 else f"photos-{k}"
                f.writelines(f"{b.url}/{folder}/{n}\n" for n in names)
        out = b.p("out", "w7-x10")
        cmd = [b.imgfetch, "batch", urls, "-O", out, "--resize", "200x200", "--format", "jpeg",
               "--name", "{index}.{ext}", "--cache-dir", "PLACEHOLDER"]

        def prep():
            self.fresh(out)()
            cmd[-1] = b.fresh_cache("photos-x10")
        big = Contender("w7-x10", f"imgfetch batch of {10 * count} lines", cmd, imgfetch=True, prepare=prep,
                        check=self.count_check(out, 10 * count))
        b.mark_missing([big])
        log(f"workload 7: peak RSS at {10 * count} lines (1 round)")
        measure(b.runner, [big], 1)
        small = b.results.get("7", {}).get("w7-imgfetch", {}).get("rss_kb") or []
        if big.ok and small:
            b.add_aim(7, f"photos, peak RSS at {10 * count} lines vs {count}", fmt_mib(max(big.rss)),
                      fmt_mib(max(small)), ratio(max(big.rss), max(small)), "flat (≈ 1.0)", None)
        b.store("7-x10", [big])

    def w8(self):
        b = self.b
        source = os.path.join(self.photos, "sharp-2725x2225.jpg")
        copies = env_int("BENCH_SHARP_COUNT", 200)
        folder = os.path.join(b.www, "sharp")
        os.makedirs(folder, exist_ok=True)
        paths = []
        for i in range(copies):
            p = os.path.join(folder, f"{i:04d}.jpg")
            if not os.path.exists(p):
                os.link(source, p)
            paths.append(p)
        listing = b.p("sharp-list.txt")
        with open(listing, "w") as f:
            f.writelines(p + "\n" for p in paths)
        od = {k: b.p("out", f"w8-{k}") for k in ("imgfetch", "pyvips")}
        imf = Contender("w8-imgfetch", f"imgfetch batch LIST -O out -p 'resize(720x588,exact)' --quality 80 "
                        f"--format jpeg --no-cache ({copies} local copies)",
                        [b.imgfetch, "batch", listing, "-O", od["imgfetch"], "-p", "resize(720x588,exact)",
                         "--quality", "80", "--format", "jpeg", "--no-cache"], imgfetch=True,
                        prepare=self.fresh(od["imgfetch"]), check=self.count_check(od["imgfetch"], copies))
        pyv = Contender("w8-pyvips", "pyvips thread pool, thumbnail_buffer(720, height=588, size=force), Q=80",
                        [self.python, os.path.join(HERE, "peers", "sharp_workload.py"), source, od["pyvips"],
                         str(copies)], prepare=self.fresh(od["pyvips"]),
                        check=self.count_check(od["pyvips"], copies), short="pyvips")
        cs = [imf, pyv]
        b.mark_missing(cs)
        rounds = env_int("BENCH_ROUNDS_SHARP", 3)
        log(f"workload 8: sharp's benchmark, {copies} thumbnails, {rounds} rounds")
        read_into_page_cache([source])
        measure(b.runner, cs, rounds)
        cores = os.cpu_count() or 1
        rows = time_table(cs, imf) + ["", "| Tool | Thumbnails / s / core |", "|---|---|"]
        for c in cs:
            rate = f"{copies / c.median() / cores:.1f}" if c.ok else (c.failure or "—")
            rows.append(f"| {c.short} | {rate} |")
        b.section(8, "sharp's benchmark: 2725×2225 JPEG to 720×588, Lanczos 3, quality 80", f"{copies} copies",
                  rounds_text(rounds) + f"; {cores} cores", rows)
        b.add_aim(8, "sharp's workload vs pyvips", fmt_time(imf.median()) if imf.ok else (imf.failure or "—"),
                  fmt_time(pyv.median()) if pyv.ok else (pyv.failure or "—"),
                  ratio(imf.median() if imf.ok else None, pyv.median() if pyv.ok else None), "—", None)
        b.store(8, cs)
