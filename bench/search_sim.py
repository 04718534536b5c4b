#!/usr/bin/env python3
"""Replays `--quality auto`'s JPEG search (Sources/ImgCore/Metric/QualitySearch.swift and SearchState.swift, mirrored
here step for step) over the curves bench/search_curves.c prints, so that a grid of qualities, a start or a target
distance can be tried on every photo in seconds instead of a batch: how many encodes (each one Butteraugli call) a
search takes on average, the total bytes and the mean distance of its results.

usage: search_sim.py CURVES... [--check JSONL] [--grids 6,10,15] [--targets 1.8,2,2.2]
  --check JSONL  the `--json` lines of `imgfetch batch LIST -O DIR --resize 200x200 --format jpeg --quality auto`
                 over the same photos: every result's quality and bytes must be the ones replayed (grid 6, target 2,
                 imgfetch's start and fall); exits 1 when one differs.
For each grid (steps of that many qualities from 10 to 100) and target it prints the start and fall that took fewest
encodes (the median answer and the steps near it; the median fall near the target and 0.8 and 1.25 times it), then
the encodes a search, the total bytes and the mean distance. The fewest a search can take is 2 (its result and the
step below it, both measured) unless its result is the lowest step."""
import collections
import json
import math
import statistics
import sys

LOWER_STEP_NEARNESS = 0.35  # SearchState.lowerStepNearness
MAXIMUM_ENCODES = 6  # QualitySearch.maximumEncodes
SHIPPED = {"grid": 6, "target": 2.0, "start": 58, "fall": 0.077}  # QualityPrediction for JPEG at distance 2


def load(paths):
    """{photo: {quality: (bytes, distance)}} for photos with all 91 qualities."""
    curves = collections.defaultdict(dict)
    for path in paths:
        with open(path) as lines:
            for line in lines:
                photo, quality, size, distance = line.rsplit(" ", 3)
                curves[photo][int(quality)] = (int(size), float(distance))
    return {photo: curve for photo, curve in curves.items() if len(curve) == 91}


def worst_case(open_steps, top_assumed):
    answers, encodes = open_steps + (2 if top_assumed else 1), 0
    while (1 << encodes) < answers:
        encodes += 1
    return encodes


class SearchState:
    def __init__(self, target, fall, steps):
        self.target, self.fall, self.low, self.high, self.distances = target, fall, 0, steps - 1, {}

    def top_assumed(self):
        return self.high not in self.distances

    def record(self, probe, distance):
        self.distances[probe] = distance
        if distance <= self.target:
            self.high = probe
        else:
            self.low = probe + 1

    def feasible(self, guess, encodes_left):
        after = max(encodes_left - 1, 0)
        highest = min(self.high - 1, self.low + (1 << after) - 1)
        lowest = max(self.low, self.high - (1 << after) + (1 if self.top_assumed() else 0))
        return min(max(guess, lowest), max(highest, lowest))

    def next_guess(self):
        crossing = self.estimated_crossing()
        answer = min(max(math.ceil(crossing), self.low), self.high)
        unmeasured = [s for s in (answer - 1, answer) if self.low <= s < self.high and s not in self.distances]
        if not unmeasured:
            return answer if answer < self.high else self.high - 1
        if len(unmeasured) != 2:
            return unmeasured[0]
        return answer - 1 if crossing - (answer - 1) < LOWER_STEP_NEARNESS else answer

    def estimated_crossing(self):
        goal, log = math.log(self.target), lambda d: math.log(max(d, 0.0001))
        if self.low > 0 and self.low - 1 in self.distances and self.high in self.distances:
            below, above = log(self.distances[self.low - 1]), log(self.distances[self.high])
            if below == above:
                return (self.low - 1 + self.high) / 2
            return self.low - 1 + (goal - below) * (self.high - self.low + 1) / (above - below)
        nearest = sorted(((s, log(d)) for s, d in self.distances.items()), key=lambda e: (abs(e[1] - goal), e[0]))
        if not nearest:
            return (self.low + self.high) / 2
        first = nearest[0]
        if len(nearest) > 1:
            second = nearest[1]
            slope = (second[1] - first[1]) / (second[0] - first[0])
            if slope < 0:
                return first[0] + (goal - first[1]) / min(max(slope, -3 * self.fall), -self.fall / 3)
        return first[0] + (first[1] - goal) / self.fall


def search(curve, grid, target, start, fall):
    """(quality, encodes, bytes) of QualitySearch.lowest over one photo's curve."""
    state = SearchState(target, fall, len(grid))
    guess = min(range(len(grid)), key=lambda i: abs(grid[i] - start)) - 1
    encodes = 0
    while state.low < state.high:
        probe = state.feasible(guess, MAXIMUM_ENCODES - encodes)
        state.record(probe, curve[grid[probe]][1])
        encodes += 1
        guess = state.next_guess()
    if state.high not in state.distances:
        encodes += 1
    quality = grid[state.high]
    return quality, encodes, curve[quality][0]


def grid_of(step):
    return list(range(10, 101, step)) if 90 % step == 0 else list(range(10, 100, step)) + [100]


def best_settings(curves, grid, target):
    """The start and fall that take fewest encodes, with the results: (start, fall, [(quality, encodes, bytes)])."""
    answers, falls = [], []
    for curve in curves.values():
        top = len(grid) - 1
        while top > 0 and curve[grid[top - 1]][1] <= target:
            top -= 1
        answers.append(top)
        falls += [1 - curve[grid[i + 1]][1] / curve[grid[i]][1] for i in range(len(grid) - 1)
                  if curve[grid[i]][1] > target >= curve[grid[i + 1]][1] * 0.8 and curve[grid[i]][1] > 0]
    median = int(statistics.median(answers))
    fall = statistics.median(falls) if falls else SHIPPED["fall"]
    tried = [(grid[s], fall * k) for s in range(max(median - 1, 0), min(median + 3, len(grid))) for k in (0.8, 1, 1.25)]
    scored = [(start, f, [search(c, grid, target, start, f) for c in curves.values()]) for start, f in tried]
    return min(scored, key=lambda e: sum(r[1] for r in e[2]))


def check(curves, jsonl):
    grid, differing = grid_of(SHIPPED["grid"]), 0
    with open(jsonl) as lines:
        records = [json.loads(line) for line in lines]
    compared = 0
    for record in records:
        photo = next((p for p in curves if record.get("input") and p.endswith(record["input"])), None)
        if record.get("status") != "ok" or photo is None:
            continue
        compared += 1
        quality, _, size = search(curves[photo], grid, SHIPPED["target"], SHIPPED["start"], SHIPPED["fall"])
        if (quality, size) != (record.get("quality"), record.get("bytes")):
            differing += 1
            print(f"differs: {record['input']}: replayed q={quality} {size} B, imgfetch q={record.get('quality')} "
                  f"{record.get('bytes')} B")
    print(f"check: {compared - differing} of {compared} results replayed exactly")
    return differing == 0 and compared > 0


def main():
    arguments, options = [], {"--grids": "6,10,15", "--targets": "1.8,2,2.2", "--check": None}
    iterator = iter(sys.argv[1:])
    for argument in iterator:
        if argument in options:
            options[argument] = next(iterator, None)
        else:
            arguments.append(argument)
    if not arguments:
        sys.exit(__doc__)
    curves = load(arguments)
    print(f"{len(curves)} photos")
    if options["--check"] and not check(curves, options["--check"]):
        sys.exit(1)
    print("| grid step | target | start | fall | encodes a search | total bytes | mean distance |")
    print("|---|---|---|---|---|---|---|")
    for step in (int(s) for s in options["--grids"].split(",")):
        for target in (float(t) for t in options["--targets"].split(",")):
            start, fall, results = best_settings(curves, grid_of(step), target)
            distance = statistics.mean(curve[q][1] for curve, (q, _, _) in zip(curves.values(), results))
            print(f"| {step} | {target} | {start} | {fall:.3f} | {statistics.mean(r[1] for r in results):.2f} "
                  f"| {sum(r[2] for r in results)} | {distance:.3f} |")


if __name__ == "__main__":
    main()
