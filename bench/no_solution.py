"""The quick "no solution" checks (``puzzle.contradiction()``): how often they fire, how fast, and never
wrongly, against the exact integer program on the same puzzles.

    python bench/no_solution.py [--per-size 25] [--shikaku-sizes 10,25,50] [--seed 1] [--data DIR] [--results DIR]

Puzzles: Hashiwokakero from the Coelho et al. 2019 set (``--per-size`` of each of 100..400 islands) and
Shikaku from the generator (``--per-size`` per side); each as published or generated (solvable), and
a "nudged" copy: one unit moved from one clue or island to another (sums kept, so parity and the
area checks see nothing), which may or may not still have a solution. For every puzzle the exact
solver (HiGHS, lazy connectivity cuts for Hashi) decides, and the row says how many of the puzzles
without a solution the checks caught, how many they missed, whether any check fired on a solvable
puzzle (false alarms, must be 0), and the mean and worst time of the checks beside the exact solver's.
The run's record goes to bench/results/no_solution/ (``--results``).
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from common import SHARED_DATA, add_results_option, environment, print_header, print_table, write_record

from gpu_sa.puzzles import hashi, shikaku
from gpu_sa.puzzles.common.errors import PuzzleError
from gpu_sa.puzzles.shikaku.generate import generate


def nudged(values, generator):
    """A copy with one unit moved from one positive entry (> 1) to another."""
    values = values.copy()
    cells = np.argwhere(values > 0)
    donors = np.argwhere(values > 1)
    if len(cells) < 2 or len(donors) == 0:
        return None
    giver = tuple(donors[generator.integers(len(donors))])
    taker = tuple(cells[generator.integers(len(cells))])
    if giver == taker:
        return None
    values[giver] -= 1
    values[taker] += 1
    return values


def hashi_puzzles(data, per_size, generator):
    for size in sorted(p.name for p in data.iterdir() if p.is_dir()):
        for path in sorted((data / size).glob("*.has"))[:per_size]:
            grid = hashi.parse(path.read_text(), str(path))[0].grid
            yield f"hashi {size}", grid
            other = nudged(grid, generator)
            if other is not None and other.max() <= 8:
                yield f"hashi {size} nudged", other


def shikaku_puzzles(sizes, per_size, seed, generator):
    for side in sizes:
        for i in range(per_size):
            clues, _ = generate(side, side, seed=[seed, side, i])
            yield f"shikaku {side}x{side}", clues
            other = nudged(clues, generator)
            if other is not None:
                yield f"shikaku {side}x{side} nudged", other


def measure(label, values):
    """(checks' reason, checks' seconds, has a solution per the exact solver, exact seconds, geometry seconds)."""
    kind = hashi if label.startswith("hashi") else shikaku
    puzzle = kind.Hashi(grid=values.astype(np.int32)) if kind is hashi else kind.Shikaku(clues=values.astype(np.int32))
    start = time.perf_counter()
    try:
        puzzle.geometry  # built once per puzzle, for the annealer too: timed apart
    except PuzzleError:
        pass
    geometry = time.perf_counter() - start
    start = time.perf_counter()
    reason = puzzle.contradiction()
    checks = time.perf_counter() - start
    start = time.perf_counter()
    try:
        solutions = puzzle.count_solutions(limit=1, time_limit=60).solutions
    except PuzzleError:  # a clue with no rectangle at all: the program cannot even be built
        solutions = 0
    return reason, checks, solutions > 0, time.perf_counter() - start, geometry


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-size", type=int, default=25)
    parser.add_argument("--shikaku-sizes", default="10,25,50")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data", type=Path, default=SHARED_DATA / "hashi" / "coelho2019")
    add_results_option(parser)
    args = parser.parse_args(argv)
    print_header("quick no-solution checks against the exact solver", environment())
    generator = np.random.default_rng(args.seed)
    groups = {}
    puzzles = list(shikaku_puzzles([int(s) for s in args.shikaku_sizes.split(",")], args.per_size, args.seed,
                                   generator))
    if args.data.is_dir():
        puzzles = list(hashi_puzzles(args.data, args.per_size, generator)) + puzzles
    else:
        print(f"# {args.data}: not found, Hashiwokakero skipped")
    measure(*puzzles[0])  # warm-up: imports, HiGHS
    for label, values in puzzles:
        groups.setdefault(label, []).append(measure(label, values))
    rows = []
    for label, results in groups.items():
        impossible = [r for r in results if not r[2]]
        rows.append([label, len(results), len(impossible), sum(r[0] is not None for r in impossible),
                     sum(r[0] is None for r in impossible), sum(r[0] is not None for r in results if r[2]),
                     1e3 * statistics.mean(r[4] for r in results), 1e3 * statistics.mean(r[1] for r in results),
                     1e3 * max(r[1] for r in results), 1e3 * statistics.mean(r[3] for r in results)])
    print_table(["puzzles", "n", "no solution (exact)", "caught", "missed", "false alarms", "geometry mean ms",
                 "checks mean ms", "checks max ms", "exact mean ms"], rows)
    write_record("no_solution", results=args.results, args=argv)


if __name__ == "__main__":
    main()
