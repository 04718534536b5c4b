"""Reads WebDataset tars with the `webdataset` package (PyPI) and prints one JSON line per sample:
its key, its parsed KEY.json, its KEY.txt (null when it has none), the extensions of its members and the SHA-256
of its image member.

usage: read_webdataset.py TAR...
"""
import hashlib
import json
import sys

import webdataset


def main(paths):
    dataset = webdataset.WebDataset(paths, shardshuffle=False)
    for sample in dataset:
        extensions = sorted(name for name in sample if not name.startswith("__"))
        images = [name for name in extensions if name not in ("json", "txt")]
        image = sample[images[0]] if len(images) == 1 else b""
        print(json.dumps({
            "key": sample["__key__"],
            "json": json.loads(sample["json"]),
            "txt": sample["txt"].decode("utf-8") if "txt" in sample else None,
            "extensions": extensions,
            "sha256": hashlib.sha256(image).hexdigest(),
        }))


if __name__ == "__main__":
    main(sys.argv[1:])
