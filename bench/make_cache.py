#!/usr/bin/env python3
"""Make an imgfetch disk cache of N original entries, for the cache-upkeep workload.

    make_cache.py DIR N [--expired-fraction F] [--seed S]

Layout written (imgfetch's on-disk format, version 1; see Sources/ImgCore/Caching):

    DIR/CACHEDIR.TAG, DIR/tmp/, DIR/locks/
    DIR/entries/XX/<sha256 hex of the original key>/original      (XX = first two hex chars)

Each entry file is
    line 1  `IMGFETCH-ENTRY 1`
    line 2  one JSON object: url, key, variant (null), kind ("original"), size, sha256 (of the
            body), format, width, height, created (unix seconds), ttl (seconds), etag,
            lastModified, contentType
    then    the body bytes (here the same 614-byte 16x16 JPEG for every entry)
and its atime is the entry's last access, its mtime its expiry (last access + ttl).

A fraction F (default 0.3) of the entries with a TTL is expired (expiry 1 minute to 10 days
ago); the rest expire between 1 minute and one TTL from now.  TTLs are 1 d, 7 d or 30 d, and 2 %
of the entries have none (ttl null, mtime = 253402300799, the end of year 9999: never expires);
creation lies up to 30 days before the last access.  The result is deterministic for a given seed, relative to now.
Prints one JSON line of totals on stdout.  DIR must not exist or be empty.
"""
import argparse
import base64
import hashlib
import json
import os
import random
import sys
import time

TINY_JPEG = base64.b64decode(
    "/9j/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgy"
    "PC4zNDL/2wBDAQkJCQwLDBgNDRgyIRwhMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIy"
    "MjIyMjIyMjL/wAARCAAQABADASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAA"
    "AgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0"
    "NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKz"
    "tLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAA"
    "AAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAV"
    "YnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImK"
    "kpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oA"
    "DAMBAAIRAxEAPwCeiiivkD6o/9k=")
TINY_W, TINY_H = 16, 16
CACHEDIR_TAG = (b"Signature: 8a477f597d28d172789f06886806bc55\n"
                b"# This file is a cache directory tag created by imgfetch.\n"
                b"# For information about cache directory tags, see:\n"
                b"#\thttps://bford.info/cachedir/\n")
DAY = 86400.0
NEVER = 253402300799        # expiry (mtime) of an entry that never expires: end of year 9999


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("n", type=int)
    ap.add_argument("--expired-fraction", type=float, default=0.3)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()

    if os.path.exists(a.dir) and os.listdir(a.dir):
        sys.exit(f"make_cache: {a.dir} exists and is not empty")
    os.makedirs(a.dir, mode=0o700, exist_ok=True)
    os.chmod(a.dir, 0o700)
    entries = os.path.join(a.dir, "entries")
    for sub in ("entries", "tmp", "locks"):
        os.mkdir(os.path.join(a.dir, sub), 0o700)
    with open(os.path.join(a.dir, "CACHEDIR.TAG"), "wb") as f:
        f.write(CACHEDIR_TAG)
    for i in range(256):
        os.mkdir(os.path.join(entries, f"{i:02x}"), 0o700)

    body = TINY_JPEG
    digest = hashlib.sha256(body).hexdigest()
    rng = random.Random(a.seed)
    now = time.time()
    expired = file_bytes = 0
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    for i in range(a.n):
        url = f"http://bench.imgfetch.invalid/cache/{i:06d}.jpg"
        key = url                                   # already normalised: no query, lower case
        h = hashlib.sha256(key.encode()).hexdigest()
        ttl = rng.choices((DAY, 7 * DAY, 30 * DAY, None), (0.15, 0.68, 0.15, 0.02))[0]
        if ttl is None:                             # never expires: expiry is NEVER
            last_access = now - rng.uniform(60, 10 * DAY)
            expiry = NEVER
        elif rng.random() < a.expired_fraction:
            expiry = now - rng.uniform(60, 10 * DAY)
            expired += 1
            last_access = expiry - ttl
        else:
            expiry = now + rng.uniform(60, ttl - 60)
            last_access = expiry - ttl
        created = last_access - rng.uniform(0, 30 * DAY)
        meta = {"url": url, "key": key, "variant": None, "kind": "original",
                "size": len(body), "sha256": digest, "format": "jpeg",
                "width": TINY_W, "height": TINY_H, "created": round(created, 3),
                "ttl": None if ttl is None else int(ttl), "etag": None, "lastModified": None,
                "contentType": "image/jpeg"}
        data = (b"IMGFETCH-ENTRY 1\n" + json.dumps(meta, separators=(",", ":")).encode()
                + b"\n" + body)
        d = os.path.join(entries, h[:2], h)
        os.mkdir(d, 0o700)
        path = os.path.join(d, "original")
        fd = os.open(path, flags, 0o600)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        os.utime(path, ns=(int(last_access * 1e9), int(expiry * 1e9)))
        file_bytes += len(data)
    print(json.dumps({"dir": a.dir, "entries": a.n, "expired": expired,
                      "body_bytes": a.n * len(body), "file_bytes": file_bytes}))


if __name__ == "__main__":
    main()
