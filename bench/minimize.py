"""Minimisation against the proven optimum: greedy and annealed givens vs the brute force.

    python bench/minimize.py [--grids9 8] [--time-limit 20] [--iterations 100000] [--counter-grids 8] [--json]
                             [--results DIR]

Part 1, every 4x4 grid (all 288, enumerated): givens after greedy removal, after the seed's
annealing scheme, and the brute force's proven minimum; the proof's nodes and solver checks;
then the seed's own brute force (a binary counter over all 2^16 subsets, each one solver
call) on the first --counter-grids grids, timed against ours in the same run. Verify: every
puzzle unique with its grid as solution, every brute-force answer "optimal", and the same
minimum as the counter's exhaustive search.

Part 2, --grids9 random 9x9 grids (backtrack, seed 7), each emptied by the annealing scheme
(--iterations steps). Two proven statements per grid:
  check  the seed's question on the annealed puzzle P: the smallest unique puzzle inside P
         (brute force restricted to P's givens); the seed's counter would try 2^|P| subsets
  grid   the smallest unique puzzle inside the whole grid, within --time-limit seconds of search
         (after brute's own greedy pass and --iterations of annealing, its starting puzzle): a
         proven lower bound L (no unique puzzle with fewer than L givens) when time runs out
Verify: every puzzle unique with its grid as solution. The run's record (the three tables) goes to
bench/results/minimize/ (``--results``).
"""
from __future__ import annotations

import argparse
import collections
import json
import statistics
import time

import numpy as np
from common import add_results_option, environment, print_header, print_table, write_record

from gpu_sa.engine import backends
from gpu_sa.puzzles.sudoku import generate
from gpu_sa.puzzles.sudoku.generate import exact


def seed_counter(grid, order):
    """Seed 003's brute force: every subset of the givens (a binary counter), the fewest givens kept unique."""
    cells = grid.shape[0]
    best = cells
    for start in range(0, 2**cells, 2**14):
        keep = (np.arange(start, min(start + 2**14, 2**cells))[:, None] >> np.arange(cells)) & 1 == 0
        puzzles = np.where(keep, grid, -1).astype(np.int16)
        counts = exact.count_many(puzzles, order, limit=2)
        sizes = keep.sum(axis=1)
        unique = np.array([r.solutions == 1 for r in counts])
        if unique.any():
            best = min(best, int(sizes[unique].min()))
    return best


def verify(results, grids):
    for result, grid in zip(results, grids):
        (check,) = exact.count_many(result.puzzle[None, :], int(round(len(grid) ** 0.25)), limit=2)
        assert result.unique and check.solutions == 1 and np.array_equal(check.solution, grid), "not unique"


def histogram(values):
    counts = collections.Counter(values)
    return " ".join(f"{k}:{counts[k]}" for k in sorted(counts))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grids9", type=int, default=8)
    parser.add_argument("--time-limit", type=float, default=20.0, help="brute force on a whole 9x9 grid, per grid")
    parser.add_argument("--iterations", type=int, default=generate.DEFAULT_ITERATIONS)
    parser.add_argument("--counter-grids", type=int, default=8)
    parser.add_argument("--json", action="store_true")
    add_results_option(parser)
    args = parser.parse_args(argv)
    info = environment()
    cores = backends.available_cores()
    print_header("minimisation vs the proven optimum", info)
    records = []

    grids4 = generate.every_4x4_grid()
    generate.minimize(grids4[:2], 2, method="brute", iterations=10)  # warm-up: compilation
    generate.minimize(grids4[:2], 2, method="anneal", iterations=10)
    runs = {}
    # brute's own starting puzzle: its greedy pass and 200 annealing steps (the time is the whole call)
    for method, options in (("greedy", {}), ("anneal", dict(iterations=2000)), ("brute", dict(iterations=200))):
        start = time.perf_counter()
        runs[method] = generate.minimize(grids4, 2, method=method, seed=1, **options)
        runs[method + " seconds"] = time.perf_counter() - start
        verify(runs[method], grids4)
    assert all(r.proof == "optimal" for r in runs["brute"])
    optimum = [r.givens for r in runs["brute"]]
    rows = []
    for method, label in (("greedy", "greedy"), ("anneal", "anneal 2,000 steps"), ("brute", "brute (proven)")):
        givens = [r.givens for r in runs[method]]
        at_optimum = sum(g == o for g, o in zip(givens, optimum))
        rows.append([label, len(grids4), histogram(givens), statistics.mean(givens), at_optimum,
                     runs[method + " seconds"] / len(grids4)])
        records.append(dict(part="4x4", method=method, grids=len(grids4), histogram=histogram(givens),
                            mean=statistics.mean(givens), at_optimum=at_optimum,
                            seconds_per_grid=runs[method + " seconds"] / len(grids4)))
    print(f"# verify: all {len(grids4)} 4x4 grids; every puzzle unique; every brute-force answer proven optimal")
    print_table(["method", "grids", "givens (count:grids)", "mean", "at the optimum", f"s/grid ({cores} cores)"],
                rows)
    nodes = [r.nodes for r in runs["brute"]]
    checks = [r.checks for r in runs["brute"]]
    notes = [f"brute-force proofs: nodes median {statistics.median(nodes)}, max {max(nodes)}; solver checks median "
             f"{statistics.median(checks)}, max {max(checks)} (the seed's counter: 65,536 subsets per grid)"]
    print(f"# {notes[-1]}")

    sample = grids4[:args.counter_grids]
    start = time.perf_counter()
    counted = [seed_counter(g, 2) for g in sample]
    counter_seconds = (time.perf_counter() - start) / max(len(sample), 1)
    brute_seconds = runs["brute seconds"] / len(grids4)
    assert counted == optimum[:len(sample)], "the seed's counter disagrees with the brute force"
    print(f"# verify: the seed's binary counter finds the same minimum on the first {len(sample)} grids")
    print_table(["search", "grids", "subsets or nodes per grid", "s/grid", "ratio"],
                [["seed's counter (all 2^16 subsets)", len(sample), 2**16, counter_seconds, 1.0],
                 ["brute (hitting sets)", len(grids4), statistics.mean(nodes), brute_seconds,
                  counter_seconds / brute_seconds]], name="the original binary counter against the brute force")
    records.append(dict(part="4x4 counter", grids=len(sample), counter_seconds=counter_seconds,
                        brute_seconds=brute_seconds))
    print()

    grids9 = generate.grids(args.grids9, method="backtrack", seed=7)
    generate.minimize(grids9[:1], 3, method="brute", max_nodes=10, iterations=10)  # warm-up
    annealed = generate.minimize(grids9, 3, method="anneal", seed=1, iterations=args.iterations)
    greedy = generate.minimize(grids9, 3, method="greedy", seed=1)
    # inside P, brute's own greedy pass and a short anneal give the incumbent; the time is the whole call
    checked = generate.minimize([a.puzzle for a in annealed], 3, method="brute", seed=1, iterations=1000,
                                max_nodes=10**9)
    whole = generate.minimize(grids9, 3, method="brute", seed=1, iterations=args.iterations, max_nodes=10**12,
                              time_limit=args.time_limit)
    for results in (annealed, greedy, checked, whole):
        verify(results, grids9)
    rows = []
    for i, (a, g, c, w) in enumerate(zip(annealed, greedy, checked, whole)):
        rows.append([i, g.givens, a.givens, f"{c.givens} ({c.proof})", c.nodes, c.checks, c.seconds,
                     f"2^{a.givens}", w.lower_bound, w.givens, w.search_ended, w.nodes, w.seconds])
        records.append(dict(part="9x9", grid=i, greedy=g.givens, anneal=a.givens, check_givens=c.givens,
                            check_proof=c.proof, check_nodes=c.nodes, check_checks=c.checks,
                            check_seconds=c.seconds, grid_lower_bound=w.lower_bound, grid_best=w.givens,
                            grid_ended=w.search_ended, grid_nodes=w.nodes, grid_seconds=w.seconds))
    print(f"# verify: all {len(grids9)} 9x9 grids; every puzzle unique, its grid the solution")
    print(f"# anneal: {args.iterations:,} steps; grid search budget {args.time_limit:g} s per grid, {cores} grids at "
          "a time")
    print_table(["grid", "greedy", "anneal", "check: min inside anneal", "nodes", "checks", "s",
                 "seed's counter", "grid: proven >=", "grid: best found", "ended", "nodes", "s"], rows, name="9x9")
    gaps = [a.givens - w.lower_bound for a, w in zip(annealed, whole)]
    improved = sum(c.givens < a.givens for a, c in zip(annealed, checked))
    notes.append(f"check: {improved} of {len(grids9)} annealed puzzles still had givens that could go; "
                 f"gap anneal - proven lower bound: median {statistics.median(gaps)}, min {min(gaps)}")
    print(f"# {notes[-1]}")
    if args.json:
        for record in records:
            print(json.dumps({**record, "commit": info["commit"], "cores": cores}))
    write_record("minimize", notes=notes, results=args.results, args=argv)


if __name__ == "__main__":
    main()
