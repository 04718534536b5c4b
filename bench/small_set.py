#!/usr/bin/env python3
"""Makes the small-image workload's set: N distinct small images (default 10,000) of 200-400 px a side, as a web
crawl meets them: 80 % baseline JPEG at quality 75, 20 % palette PNG (8 bits, 256 colours), each a crop of one of
the photographs of Debian's wallpaper packages (photo_set.py fetches them) taken from a copy scaled to 1600-3200 px,
metadata stripped. Deterministic (a fixed seed): the same N makes the same files.

usage: small_set.py OUT_DIR [COUNT]   (run with a Python that has pyvips: bench/work/venv/bin/python)
Kept: a second run with the same COUNT does nothing. OUT_DIR/manifest.json lists name -> width, height, bytes."""
import json
import os
import random
import sys

import pyvips

from photo_set import photos


def sources(work, rng):
    """Every wallpaper photograph, each scaled once to a random width of 640-1280 px."""
    scaled = []
    for path in photos(work):
        width = rng.randint(1600, 3200)
        scaled.append(pyvips.Image.thumbnail(path, width, height=width * 4).copy_memory())
    return scaled


def make(out, count):
    manifest_path = os.path.join(out, "manifest.json")
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            if len(json.load(f)) == count:
                return
    os.makedirs(out, exist_ok=True)
    rng = random.Random(35)
    images = sources(os.path.dirname(os.path.abspath(out)), rng)
    manifest = {}
    for index in range(count):
        image = images[index % len(images)]
        width, height = rng.randint(200, 400), rng.randint(200, 400)
        width, height = min(width, image.width), min(height, image.height)
        left, top = rng.randint(0, image.width - width), rng.randint(0, image.height - height)
        crop = image.crop(left, top, width, height)
        if rng.random() < 0.8:
            name = f"{index:05d}.jpg"
            crop.jpegsave(os.path.join(out, name), Q=75, strip=True)
        else:
            name = f"{index:05d}.png"
            crop.pngsave(os.path.join(out, name), palette=True, strip=True)
        manifest[name] = {"width": width, "height": height, "bytes": os.path.getsize(os.path.join(out, name))}
    with open(manifest_path + ".part", "w") as f:
        json.dump(manifest, f)
    os.replace(manifest_path + ".part", manifest_path)


if __name__ == "__main__":
    make(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 10000)
