"""Exact solver throughput: puzzles per second, counting up to 2 solutions, one core.

    python bench/exact.py [--repeats 7] [--python-sample 100] [--clue17-sample 10000] [--json]

Sets: top1465 (first 1,265), forum_hardest (first 300) and a sample of Royle's 17-clue
puzzles, read from ../shared/data/sudoku/ (the seed puzzles bundled in tests/data/ are used
when that folder is absent). Steps: environment header; warm-up (compilation); verify: every
answer has exactly one solution, checked by the independent validator, and on a sample the
plain-Python solver of the same rules (bench/python_exact.py) finds the same solution with
the same node count; time: the compiled solver over each whole set, best and median of
--repeats runs, against the Python baseline on a sample, in the same run. Target: at least
5,000 puzzles per second on top1465.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np
import python_exact
from common import ROOT, SHARED_DATA, environment, print_header, print_table

from cpu_ref.exact import sudoku as exact
from gpu_sa.puzzles.sudoku import parse


def load_sets(clue17_sample):
    folder = SHARED_DATA / "sudoku"
    if not folder.is_dir():
        return {"seed_puzzles": parse((ROOT / "tests" / "data" / "seed_puzzles.txt").read_text())}
    sets = {}
    for name, file in [("top1465", "top1465_dev.txt"), ("forum_hardest", "forum_hardest_1106_dev.txt"),
                       ("17_clue", "17_clue_dev.txt")]:
        puzzles = parse((folder / file).read_text(), file)
        sets[name] = puzzles[:clue17_sample] if name == "17_clue" else puzzles
    return sets


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--python-sample", type=int, default=100, help="puzzles per set for the Python baseline")
    parser.add_argument("--clue17-sample", type=int, default=10000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    info = environment()
    print_header("exact solver: count up to 2 solutions, one core", info)
    sets = load_sets(args.clue17_sample)
    rows = []
    for name, puzzles in sets.items():
        givens = np.stack([p.givens for p in puzzles])
        exact.count_many(givens[:1], 3)  # warm-up
        results = exact.count_many(givens, 3)
        for puzzle, result in zip(puzzles, results):
            assert result.solutions == 1 and not result.gave_up, f"{puzzle.label}: {result}"
            assert puzzle.check(result.solution) == [], f"{puzzle.label}: validator rejects the solution"
        sample = puzzles[:args.python_sample]
        start = time.perf_counter()
        for puzzle, result in zip(sample, results):
            found, first, nodes = python_exact.count_solutions(puzzle.givens, 3)
            assert (found, first, nodes) == (1, list(result.solution), result.nodes), f"{puzzle.label}: baseline differs"
        python_rate = len(sample) / (time.perf_counter() - start)
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            exact.count_many(givens, 3)
            times.append(time.perf_counter() - start)
        best, median = len(puzzles) / min(times), len(puzzles) / statistics.median(times)
        rows.append(dict(set=name, puzzles=len(puzzles), nodes_per_puzzle=sum(r.nodes for r in results) / len(puzzles),
                         numba_best=best, numba_median=median, python=python_rate, python_sample=len(sample),
                         speedup=median / python_rate))
    print("# verify: every answer unique and accepted by the validator; Python baseline agrees on samples")
    print_table(["set", "puzzles", "nodes/puzzle", "numba best /s", "numba median /s", "python /s (sample)",
                 "median / python"],
                [[r["set"], r["puzzles"], r["nodes_per_puzzle"], r["numba_best"], r["numba_median"],
                  f"{r['python']:.1f} ({r['python_sample']})", f"{r['speedup']:.0f}"] for r in rows])
    if args.json:
        for r in rows:
            print(json.dumps({**r, "commit": info["commit"]}))


if __name__ == "__main__":
    main()
