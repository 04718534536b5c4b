#!/usr/bin/env python3
"""Decode fidelity of imgfetch against libvips itself, over directories of images (issue #13).

For every file under the given directories:
  clean   libvips decodes it without a single warning: `vips avg FILE[fail_on=warning]` (all frames where the
          loader has them), run serially with VIPS_CONCURRENCY=1, exits 0 and prints nothing on stderr;
  thumb   `vipsthumbnail FILE -s 64` exits 0;
  refused imgfetch (--renderer off --no-cache, --resize 64x64, PNG out) exits non-zero, with its --fail-on level.
Prints the counts, and with -v the files libvips decodes cleanly that imgfetch refuses.
Needs libvips-tools (vips, vipsthumbnail). Usage:
  scripts/decode-fidelity.py [-v] [--imgfetch .build/debug/imgfetch] [--fail-on LEVEL] DIR...
"""
import argparse, os, subprocess, sys, tempfile

MULTI = (".gif", ".webp", ".tif", ".tiff", ".heic", ".avif")

def run(command, timeout=60, env=None):
    try:
        done = subprocess.run(command, capture_output=True, timeout=timeout, env=env)
        return done.returncode, done.stderr.decode(errors="replace").strip()
    except subprocess.TimeoutExpired:
        return -999, "timeout"

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-v", action="store_true")
    parser.add_argument("--imgfetch", default=".build/debug/imgfetch")
    parser.add_argument("--fail-on", default=None)
    parser.add_argument("dirs", nargs="+")
    args = parser.parse_args()
    env = dict(os.environ, VIPS_CONCURRENCY="1")
    files = sorted(os.path.join(root, name) for top in args.dirs for root, _, names in os.walk(top) for name in names
                   if not name.startswith(".") and name.lower() not in ("license", "readme.md", "commit", "pngsuite.readme"))
    clean = thumbs = refused = refused_clean = thumbed_not_made = 0
    out = tempfile.mkdtemp()
    for path in files:
        options = "[fail_on=warning,n=-1]" if path.lower().endswith(MULTI) else "[fail_on=warning]"
        code, err = run(["vips", "avg", path + options], env=env)
        is_clean = code == 0 and err == ""
        code, _ = run(["vipsthumbnail", path, "-s", "64", "-o", os.path.join(out, "t.png")])
        thumbed = code == 0
        command = [args.imgfetch, path, "--renderer", "off", "--no-cache", "--resize", "64x64", "-o", os.path.join(out, "i.png")]
        if args.fail_on: command += ["--fail-on", args.fail_on]
        code, err = run(command, timeout=120)
        made = code == 0
        clean += is_clean; thumbs += thumbed; refused += not made
        if is_clean and not made:
            refused_clean += 1
            if args.v: print(f"refused though clean: {path}: {err.splitlines()[-1] if err else code}")
        if thumbed and not made:
            thumbed_not_made += 1
            if args.v and args.fail_on == "none": print(f"vipsthumbnail made it, imgfetch not: {path}: {err[-200:]}")
    print(f"files {len(files)}, libvips-clean {clean}, vipsthumbnail-ok {thumbs}, imgfetch-refused {refused}, "
          f"refused-though-clean {refused_clean}, thumbnailed-by-vipsthumbnail-not-imgfetch {thumbed_not_made}")

if __name__ == "__main__":
    main()
