#!/usr/bin/env python3
"""The peer a Python user writes: a thread pool of `requests` downloads feeding pyvips' thumbnail_buffer.
usage: pyvips_pool.py URLS OUT_DIR SIZE [THREADS]   (THREADS default: the core count)"""
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import pyvips
import requests

local = threading.local()


def session():
    if not hasattr(local, "session"):
        local.session = requests.Session()
    return local.session


def thumbnail(url, out, size):
    response = session().get(url, timeout=60)
    response.raise_for_status()
    image = pyvips.Image.thumbnail_buffer(response.content, size, height=size)
    name = os.path.splitext(url.rsplit("/", 1)[-1])[0] + ".jpg"
    image.write_to_file(os.path.join(out, name))


def main():
    urls = [line.strip() for line in open(sys.argv[1]) if line.strip()]
    out, size = sys.argv[2], int(sys.argv[3])
    threads = int(sys.argv[4]) if len(sys.argv) > 4 else os.cpu_count()
    with ThreadPoolExecutor(threads) as pool:
        for result in pool.map(lambda u: thumbnail(u, out, size), urls):
            pass


if __name__ == "__main__":
    main()
