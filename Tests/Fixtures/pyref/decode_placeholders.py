#!/usr/bin/env python3
"""Decodes a BlurHash and a ThumbHash with the reference decoders from PyPI (the `blurhash` and `thumbhash`
packages) and prints, as one JSON object, what the Swift tests compare with the image they were made from:

    {"blurhashMean": [r, g, b], "thumbhashMean": [r, g, b], "thumbhashAspect": w / h}

(on its last line).

Usage: decode_placeholders.py BLURHASH THUMBHASH_BASE64 WIDTH HEIGHT
(WIDTH x HEIGHT: the size to decode the BlurHash at, the image's aspect ratio.)
"""
import base64
import json
import sys

import blurhash
import thumbhash


def main() -> None:
    blur, thumb, width, height = sys.argv[1], base64.b64decode(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    rows = blurhash.decode(blur, width, height)
    pixels = [pixel for row in rows for pixel in row]
    blur_mean = [sum(p[band] for p in pixels) / len(pixels) for band in range(3)]
    # ThumbHash's own average-colour and aspect-ratio decoders: thumbhash 0.1.2's full decode (thumb_hash_to_rgba)
    # is off by itself (its own hash of a photo whose mean is (100, 98, 106) decodes to a mean of (148, 137, 110)),
    # and it prints the ratio on stdout: only the last line is the answer.
    thumb_mean = [255 * value for value in thumbhash.thumb_hash_to_average_rgba(list(thumb))[:3]]
    aspect = thumbhash.thumb_hash_to_approximate_aspect_ratio(list(thumb))
    print()
    print(json.dumps({"blurhashMean": blur_mean, "thumbhashMean": thumb_mean, "thumbhashAspect": aspect}))


if __name__ == "__main__":
    main()
