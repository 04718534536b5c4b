#!/usr/bin/env python3
"""Makes the real-photo workload: N images (default 400) scaled from the photographs that Debian's wallpaper
packages ship (lomiri-wallpapers-16.04, lomiri-wallpapers-20.04, ukui-wallpapers: photos by their named authors,
under the packages' licences), spread over 0.4-12 megapixels and over JPEG (70%), WebP (20%) and PNG (10%).

usage: photo_set.py OUT_DIR [COUNT]   (kept: a second run with the same COUNT does nothing; with another COUNT a
file is made again only where its source or scale changed, and files of the old set past COUNT are removed)
The .deb files are fetched with `apt-get download` into OUT_DIR/../debs; the `vips` CLI does the scaling."""
import glob
import json
import os
import subprocess
import sys

PACKAGES = ["lomiri-wallpapers-16.04", "lomiri-wallpapers-20.04", "ukui-wallpapers"]


def photos(work):
    debs = os.path.join(work, "debs")
    tree = os.path.join(debs, "tree")
    found = sorted(glob.glob(os.path.join(tree, "usr/share/backgrounds/*.jpg")))
    if found:
        return found
    os.makedirs(debs, exist_ok=True)
    subprocess.run(["apt-get", "download", *PACKAGES], cwd=debs, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for deb in glob.glob(os.path.join(debs, "*.deb")):
        subprocess.run(["dpkg-deb", "-x", deb, tree], check=True)
    return sorted(glob.glob(os.path.join(tree, "usr/share/backgrounds/*.jpg")))


def size_of(path):
    out = subprocess.run(["vipsheader", "-f", "width", path], capture_output=True, text=True, check=True).stdout
    width = int(out)
    out = subprocess.run(["vipsheader", "-f", "height", path], capture_output=True, text=True, check=True).stdout
    return width, int(out)


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 400
    manifest_path = os.path.join(out, "manifest.json")
    old = {}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            old = json.load(f)
        if len(old) == count:
            return
    os.makedirs(out, exist_ok=True)
    sources = photos(os.path.dirname(os.path.abspath(out)))
    if not sources:
        sys.exit("photo_set: no photographs found in the wallpaper packages")
    sizes = {p: size_of(p) for p in sources}
    manifest = {}
    for i in range(count):
        source = sources[i % len(sources)]
        width, height = sizes[source]
        # Geometric spread of 0.4-12 MP, cycling with a stride so sizes and sources mix.
        megapixels = 0.4 * (30 ** (((i * 37) % count) / max(1, count - 1)))
        scale = min(1.0, (megapixels * 1e6 / (width * height)) ** 0.5)
        kind = i % 10
        ext, options = ("png", "[compression=6]") if kind == 9 else \
            ("webp", "[Q=80]") if kind in (3, 7) else ("jpg", "[Q=85]")
        name = f"photo-{i:04d}.{ext}"
        target = os.path.join(out, name)
        recipe = {"from": os.path.basename(source), "scale": f"{scale:.6f}"}
        before = old.get(name, {})
        if not os.path.exists(target) or any(before.get(k) != v for k, v in recipe.items()):
            subprocess.run(["vips", "resize", source, target + options, recipe["scale"]], check=True)
        w, h = size_of(target)
        manifest[name] = {"width": w, "height": h, "bytes": os.path.getsize(target), **recipe}
    for name in set(old) - set(manifest):
        if os.path.exists(os.path.join(out, name)):
            os.unlink(os.path.join(out, name))
    # sharp's benchmark input: a 2725x2225 JPEG, cut from the largest photograph to that aspect and scaled.
    sharp = os.path.join(out, "sharp-2725x2225.jpg")
    if not os.path.exists(sharp):
        largest = max(sources, key=lambda p: sizes[p][0] * sizes[p][1])
        subprocess.run(["vipsthumbnail", largest, "-s", "2725x2225", "-m", "centre", "-c",
                        "-o", os.path.abspath(sharp) + "[Q=90]"], check=True)
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1)


if __name__ == "__main__":
    main()
