#!/usr/bin/env python3
"""Pillow's version of the same script: requests downloads in a thread pool, Image.draft for JPEG shrink-on-load,
thumbnail, JPEG out.
usage: pillow_pool.py URLS OUT_DIR SIZE [THREADS]   (THREADS default: the core count)"""
import io
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import requests
from PIL import Image

local = threading.local()


def session():
    if not hasattr(local, "session"):
        local.session = requests.Session()
    return local.session


def thumbnail(url, out, size):
    response = session().get(url, timeout=60)
    response.raise_for_status()
    with Image.open(io.BytesIO(response.content)) as image:
        image.draft("RGB", (size, size))
        image = image.convert("RGB")
        image.thumbnail((size, size), Image.Resampling.LANCZOS)
        name = os.path.splitext(url.rsplit("/", 1)[-1])[0] + ".jpg"
        image.save(os.path.join(out, name), "JPEG", quality=75)


def main():
    urls = [line.strip() for line in open(sys.argv[1]) if line.strip()]
    out, size = sys.argv[2], int(sys.argv[3])
    threads = int(sys.argv[4]) if len(sys.argv) > 4 else os.cpu_count()
    with ThreadPoolExecutor(threads) as pool:
        for result in pool.map(lambda u: thumbnail(u, out, size), urls):
            pass


if __name__ == "__main__":
    main()
