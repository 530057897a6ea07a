"""Grid generation and puzzle minimisation: grids per second by each method, givens left by each minimiser.

    python bench/generate.py [--grids 2000] [--minimize 100] [--iterations 10000,30000,100000] [--json]
    python bench/generate.py --orders 3,4,5,6,7,8 [--budget 20]   # only the per-order part
    (both take --results DIR: where the run's record goes, default bench/results/generate/)

Part 0 (``--orders``), the default method per order: grids made by each method (backtrack, anneal on cpu) within
``--budget`` seconds at each order, after a warm-up at order 2 (compilation); a stop request ends a method's
run at the budget, so a method that makes no grid in time counts 0. Every grid checked by the validator.

Part 1, grids per second: every method (anneal and swaps on every available backend,
backtrack on one core), after a warm-up; verify: every grid valid (independent validator)
and all distinct. Part 2, minimisation: --minimize random grids (backtrack, seed 7), each
emptied by greedy removal and by the seed's annealing scheme at each --iterations; verify:
every puzzle has exactly one solution, equal to its grid (exact solver); the distribution of
givens (min, median, max, histogram) and seconds per puzzle on all cores. The seed reached
22-23 givens on single grids; greedy removal usually stops at 24-27; the proven floor is 17.
"""
from __future__ import annotations

import argparse
import collections
import json
import statistics
import time

import numpy as np
from common import add_results_option, environment, print_header, print_table, write_record

from gpu_sa.puzzles.sudoku import exact
from gpu_sa.engine import backends
from gpu_sa.puzzles.sudoku import generate
from gpu_sa.puzzles.sudoku.validate import sudoku_violations


def valid(grid):
    rows = (np.asarray(grid).reshape(9, 9) + 1).tolist()
    return not sudoku_violations(rows, [[0] * 9] * 9)


def per_order(orders, budget, info, as_json):
    """Grids per second of each method at each order within ``budget`` seconds (the stop flag ends a run)."""
    import threading

    from gpu_sa.engine import stop
    from gpu_sa.puzzles.sudoku.validate import sudoku_violations as violations

    print_header(f"grid generation per order, {budget:g} s per method and order", info)
    rows = []
    for method in ("backtrack", "anneal"):
        generate.grids(4, order=2, method=method, seed=99, backend="cpu")  # warm-up: compilation
        for order in orders:
            side = order * order
            timer = threading.Timer(budget, stop.request)
            start = time.perf_counter()
            timer.start()
            made = []
            for grid in generate.grid_stream(order=order, method=method, seed=1, backend="cpu"):
                made.append(grid)
                if stop.requested():
                    break
            seconds = time.perf_counter() - start
            timer.cancel()
            stop.clear()
            assert all(not violations((g.reshape(side, side) + 1).tolist(), [[0] * side] * side) for g in made)
            rows.append(dict(part="per_order", method=method, order=order, grids=len(made), seconds=seconds,
                             per_second=len(made) / seconds))
    print("# verify: every grid valid (independent validator)")
    print_table(["method", "grid", "grids made", "seconds", "grids/s"],
                [[r["method"], f"{r['order'] ** 2}x{r['order'] ** 2}", r["grids"], r["seconds"], r["per_second"]]
                 for r in rows])
    if as_json:
        for r in rows:
            print(json.dumps({**r, "commit": info["commit"]}))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grids", type=int, default=2000)
    parser.add_argument("--minimize", type=int, default=100)
    parser.add_argument("--iterations", default="10000,30000,100000")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--orders", default="", help="e.g. 3,4,5,6,7,8: only the per-order part")
    parser.add_argument("--budget", type=float, default=20.0, help="seconds per method and order (--orders)")
    add_results_option(parser)
    args = parser.parse_args(argv)
    info = environment()
    if args.orders:
        per_order([int(order) for order in args.orders.split(",")], args.budget, info, args.json)
        write_record("generate", results=args.results, args=argv)
        return
    print_header("generation and minimisation, 9x9", info)
    usable, simulated, _ = backends.cuda_status()
    runs = [("backtrack", "cpu")] + [(m, b) for m in ("anneal", "swaps")
                                     for b in (["cuda"] if usable and not simulated else []) + ["cpu"]]
    rows = []
    for method, backend in runs:
        generate.grids(10, method=method, seed=99, backend=backend)  # warm-up: compilation
        start = time.perf_counter()
        made = generate.grids(args.grids, method=method, seed=1, backend=backend)
        seconds = time.perf_counter() - start
        assert len({g.tobytes() for g in made}) == args.grids and all(valid(g) for g in made), method
        rows.append(dict(part="grids", method=method, backend=backend, grids=args.grids, seconds=seconds,
                         per_second=args.grids / seconds))
    print(f"# verify: all {args.grids} grids of every method valid and distinct")
    print_table(["method", "backend", "grids", "seconds", "grids/s"],
                [[r["method"], r["backend"], r["grids"], r["seconds"], r["per_second"]] for r in rows])
    print()
    grids = generate.grids(args.minimize, method="backtrack", seed=7)
    settings = [("greedy", None)] + [("anneal", int(float(k))) for k in args.iterations.split(",")]
    table = []
    generate.minimize(grids[:2], 3, method="anneal", seed=1, iterations=100)  # warm-up
    generate.minimize(grids[:2], 3, method="greedy", seed=1)
    for method, iterations in settings:
        start = time.perf_counter()
        results = generate.minimize(grids, 3, method=method, seed=1, iterations=iterations or 1)
        seconds = time.perf_counter() - start
        for grid, result in zip(grids, results):
            (check,) = exact.count_many(result.puzzle[None, :], 3)
            assert check.solutions == 1 and np.array_equal(check.solution, grid), "not unique"
        givens = [r.givens for r in results]
        histogram = collections.Counter(givens)
        row = dict(part="minimize", method=method, iterations=iterations, grids=len(grids), min=min(givens),
                   median=statistics.median(givens), max=max(givens),
                   histogram=" ".join(f"{k}:{histogram[k]}" for k in sorted(histogram)),
                   seconds_per_puzzle=seconds / len(grids), cores=backends.available_cores())
        rows.append(row)
        table.append([method, iterations or "-", len(grids), row["min"], row["median"], row["max"], row["histogram"],
                      row["seconds_per_puzzle"]])
    print("# verify: every puzzle has exactly one solution, its grid (exact solver)")
    print_table(["method", "iterations", "grids", "min", "median", "max", "histogram (givens:count)",
                 f"s/puzzle ({backends.available_cores()} cores)"], table, name="minimisation")
    if args.json:
        for r in rows:
            print(json.dumps({**r, "commit": info["commit"]}))
    write_record("generate", results=args.results, args=argv)


if __name__ == "__main__":
    main()
