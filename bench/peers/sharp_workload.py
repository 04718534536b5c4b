#!/usr/bin/env python3
"""sharp's published benchmark with pyvips: a 2725x2225 JPEG to 720x588 (Lanczos 3, JPEG quality 80), repeated,
in a thread pool of THREADS workers over the local file's bytes.
usage: sharp_workload.py JPEG OUT_DIR COUNT [THREADS]"""
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import pyvips


def one(data, out, index):
    image = pyvips.Image.thumbnail_buffer(data, 720, height=588, size="force")
    image.write_to_file(os.path.join(out, f"{index}.jpg"), Q=80)


def main():
    data = open(sys.argv[1], "rb").read()
    out, count = sys.argv[2], int(sys.argv[3])
    threads = int(sys.argv[4]) if len(sys.argv) > 4 else os.cpu_count()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(lambda i: one(data, out, i), range(count)))


if __name__ == "__main__":
    main()
