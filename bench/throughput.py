"""Proposals per second of every available backend, move sirdey, fixed work per chain.

    python bench/throughput.py [--backends cuda,cpu,numpy] [--chains N ...] [--moves M] [--json]

Steps: environment header; verify (every backend's chains equal the numpy reference's, bit
for bit, on a small run); warm-up (compilation is excluded: the runner reports it as setup);
time a fixed number of moves per chain with no early stop at a constant temperature of 0.5
on seed 003's 17-clue puzzle (never solved at that temperature, so every chain works the
whole time); one table, ratios against the numpy reference measured in the same run.
"""
from __future__ import annotations

import argparse
import json

import numpy as np
from common import environment, print_header, print_table

from gpu_sa import backends, runner, schedule
from gpu_sa.puzzles.sudoku import parse

PUZZLE = ".......1.4.........2...........5.4.7..8...3....1.9....3..4..2...5.1........8.6..."
DEFAULT_CHAINS = {"cuda": [1 << 14, 1 << 16], "cpu": [256, 1024], "numpy": [64, 256]}
DEFAULT_MOVES = {"cuda": 200_000, "cpu": 100_000, "numpy": 2_000}


def available():
    usable, simulated, _ = backends.cuda_status()
    return (["cuda"] if usable and not simulated else []) + ["cpu", "numpy"]


def verify(names, puzzle, law):
    reference = runner.anneal(puzzle, backend="numpy", chains=4, seed=7, schedule=law, max_moves=300,
                              early_stop=False, keep_state=True).state
    for name in names:
        got = runner.anneal(puzzle, backend=name, chains=4, seed=7, schedule=law, max_moves=300, early_stop=False,
                            keep_state=True).state
        for a, b in zip(got.arrays(), reference.arrays()):
            np.testing.assert_array_equal(a, b, err_msg=f"{name} differs from the numpy reference")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default=",".join(available()), help="comma-separated (default: all available)")
    parser.add_argument("--chains", type=int, nargs="*", default=None, help="chain counts (default: per backend)")
    parser.add_argument("--moves", type=int, default=None, help="moves per chain (default: per backend)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON lines after the table")
    args = parser.parse_args()
    names = [n for n in args.backends.split(",") if n]
    puzzle = parse(PUZZLE)[0]
    law = schedule.from_list([0.5], plateau_length=81)
    info = environment()
    print_header("throughput: sudoku 9x9, move sirdey, T = 0.5", info)
    verify(names, puzzle, law)
    print("# verify: every backend equals the numpy reference bit for bit (4 chains x 300 moves)")
    rows = []
    for name in names:
        for chains in args.chains or DEFAULT_CHAINS[name]:
            moves = args.moves or DEFAULT_MOVES[name]
            result = runner.anneal(puzzle, backend=name, chains=chains, seed=1, schedule=law, max_moves=moves,
                                   early_stop=False)
            rows.append(dict(backend=name, chains=chains, moves=moves, seconds=result.seconds,
                             setup_seconds=result.setup_seconds, proposals_per_second=result.proposals / result.seconds))
    base = max((r["proposals_per_second"] for r in rows if r["backend"] == "numpy"), default=None)
    print_table(["backend", "chains", "moves/chain", "seconds", "setup s", "proposals/s", "x numpy"],
                [[r["backend"], r["chains"], r["moves"], r["seconds"], r["setup_seconds"], r["proposals_per_second"],
                  f"{r['proposals_per_second'] / base:.1f}" if base else "-"] for r in rows])
    if args.json:
        for r in rows:
            print(json.dumps({**r, "commit": info["commit"], "gpu": info["gpu"]}))


if __name__ == "__main__":
    main()
