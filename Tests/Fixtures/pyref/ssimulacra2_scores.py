"""Scores each DISTORTED image against REFERENCE with the ssimulacra2 package from PyPI (an implementation
independent of libjxl's Butteraugli); prints one JSON list of scores, in the order given.

Usage: python ssimulacra2_scores.py REFERENCE DISTORTED...
"""
import json
import sys

from ssimulacra2 import compute_ssimulacra2

reference, distorted = sys.argv[1], sys.argv[2:]
print(json.dumps([float(compute_ssimulacra2(reference, path)) for path in distorted]))
