"""Exact Sudoku solver benchmarks: throughput, large grids (restarts), propagation, start-up.

    python bench/exact.py [--repeats 7] [--python-sample 100] [--clue17-sample 10000] [--json]
    python bench/exact.py --large [--order 5] [--budget 60] [--subset N] [--percentages 35,40]
                          [--methods deterministic,restarted] [--seed 1] [--threads T] [--json]
    python bench/exact.py --propagate [--repeats 7]
    python bench/exact.py --startup
    (each mode also takes --results DIR: where the run's record goes, default bench/results/exact/)

Default mode, throughput, one core. Sets: top1465 (first 1,265), forum_hardest (first 300) and
a sample of Royle's 17-clue puzzles, read from ../shared/data/sudoku/ (the seed puzzles bundled
in tests/data/ are used when that folder is absent). Steps: environment header; warm-up
(compilation); verify: every answer has exactly one solution, checked by the independent
validator, and on a sample the plain-Python solver of the same rules (bench/python_exact.py)
finds the same solution with the same node count; time: the compiled solver over each whole
set, best and median of --repeats runs, against the Python baseline on a sample, in the same
run; and the compiled engines alone (no ``count_many`` around them), alternated with it: the
bitboards that order 3 runs on and the cell-mask search of the other orders on the same puzzles,
which must give the same counts, solutions and branches; then all of it again with box_line=True
(pointing and box-line reduction beside the three rules: same solutions, fewer branches). Target:
at least 5,000 puzzles per second on top1465 (issue 25's longer-term one: 30,000).

--large: the Lloyd & Amos instances (../shared/data/sudoku/lloyd_amos/, order 4 or 5, 20 per
percentage of givens; not all unique, so "solved" = one solution found, checked by the
validator), each solved by the deterministic search and by the seeded search with restarts
(all cores), each within --budget seconds. Per percentage: instances solved, median and worst
time (an unsolved instance counts as the budget), median restarts. Target (issue 13): the
restarted search solves every 25x25 instance within 60 s.

--propagate: wall time of ``propagate`` (the seed's rules to a fixpoint) on the 25x25 instances
and on 36x36 grids with 45 % givens (valid grids emptied at random), median and worst of
--repeats. Target: milliseconds.

--startup: whole-process wall time of ``gpu-sa exact examples/seed_easy.txt`` with an empty
numba cache (first run: everything compiles) and then with the cache it left (second run).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import python_exact
from common import ROOT, SHARED_DATA, add_results_option, environment, print_header, print_table, write_record

from gpu_sa.puzzles.sudoku import exact
from gpu_sa.puzzles.sudoku.exact import bitboard
from gpu_sa.puzzles.sudoku.exact.consistency import BOX_LINE
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--large", action="store_true", help="Lloyd & Amos instances: deterministic vs restarted")
    mode.add_argument("--propagate", action="store_true", help="time of propagation on 25x25 and 36x36")
    mode.add_argument("--startup", action="store_true", help="first and second whole-process run of gpu-sa exact")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--python-sample", type=int, default=100, help="puzzles per set for the Python baseline")
    parser.add_argument("--clue17-sample", type=int, default=10000)
    parser.add_argument("--order", type=int, choices=(4, 5), default=5, help="--large: 4 (16x16) or 5 (25x25)")
    parser.add_argument("--budget", type=float, default=60.0, help="--large: seconds per instance and method")
    parser.add_argument("--subset", type=int, default=20, help="--large: the first N instances of each percentage")
    parser.add_argument("--percentages", default="0,35,40,45,50,60", help="--large: comma-separated")
    parser.add_argument("--methods", default="deterministic,restarted", help="--large: comma-separated")
    parser.add_argument("--seed", type=int, default=1, help="--large: seed of the restarted search")
    parser.add_argument("--threads", type=int, default=None, help="--large: threads of the restarted search")
    parser.add_argument("--base-nodes", type=int, default=exact.DEFAULT_BASE_NODES, help="--large: Luby unit")
    parser.add_argument("--count-limit", type=int, default=1, help="--large: 1 = find a solution, 2 = also prove "
                        "uniqueness or find a second")
    parser.add_argument("--json", action="store_true")
    add_results_option(parser)
    args = parser.parse_args(argv)
    info = environment()
    if args.large:
        status = large(args, info)
    elif args.propagate:
        status = propagation(args, info)
    elif args.startup:
        status = startup(info)
    else:
        status = throughput(args, info)
    write_record("exact", results=args.results, args=argv)
    return status


FULL9 = exact.tables(3)[3]


def throughput(args, info):
    print_header("exact solver: count up to 2 solutions, one core", info)
    sets = load_sets(args.clue17_sample)
    rows = []
    for name, puzzles in sets.items():
        if not puzzles:  # --clue17-sample 0
            continue
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
        python_rate = len(sample) / (time.perf_counter() - start) if sample else None  # --python-sample 0: none
        # with box_line: the same answers (each puzzle has one solution), fewer branches
        boxed = exact.count_many(givens, 3, box_line=True)
        assert [(r.solutions, r.gave_up) for r in boxed] == [(1, False)] * len(puzzles), name
        assert all(np.array_equal(b.solution, r.solution) for b, r in zip(boxed, results)), name
        engines = {"bitboards": (_batch(givens, bitboard.search_batch9, bitboard.PEERS, FULL9, False), results),
                   "cell masks": (_batch(givens, exact.search_batch, *exact.tables(3), 0), results),
                   "bitboards + box-line": (_batch(givens, bitboard.search_batch9, bitboard.PEERS, FULL9, True), boxed),
                   "cell masks + box-line": (_batch(givens, exact.search_batch, *exact.tables(3), BOX_LINE), boxed)}
        for engine, expected in engines.values():  # the engines alone: the same counts, solutions and branches
            answer = engine()
            assert answer[0].tolist() == [r.solutions for r in expected], name
            assert answer[2].tolist() == [r.nodes for r in expected], name
            assert np.array_equal(answer[1], np.stack([r.solution for r in expected])), name
        runs = {"count_many": lambda: exact.count_many(givens, 3),
                "count_many + box-line": lambda: exact.count_many(givens, 3, box_line=True),
                **{engine: run for engine, (run, _) in engines.items()}}
        times = {run: [] for run in runs}
        for _ in range(args.repeats):  # alternated, so that the machine's drift touches all of them alike
            for run, call in runs.items():
                start = time.perf_counter()
                call()
                times[run].append(time.perf_counter() - start)
        best = {run: len(puzzles) / min(seconds) for run, seconds in times.items()}
        median = {run: len(puzzles) / statistics.median(seconds) for run, seconds in times.items()}
        rows.append(dict(set=name, puzzles=len(puzzles), nodes_per_puzzle=sum(r.nodes for r in results) / len(puzzles),
                         box_line_nodes_per_puzzle=sum(r.nodes for r in boxed) / len(puzzles),
                         numba_best=best["count_many"], numba_median=median["count_many"], python=python_rate,
                         python_sample=len(sample), speedup=median["count_many"] / python_rate if python_rate else None,
                         box_line_best=best["count_many + box-line"], box_line_median=median["count_many + box-line"],
                         bitboards_best=best["bitboards"], cell_masks_best=best["cell masks"],
                         bitboards_over_cell_masks=best["bitboards"] / best["cell masks"],
                         box_line_bitboards_best=best["bitboards + box-line"],
                         box_line_cell_masks_best=best["cell masks + box-line"],
                         box_line_over_seed_rules=median["count_many + box-line"] / median["count_many"]))
    print("# verify: every answer unique and accepted by the validator; Python baseline agrees on samples;")
    print("#   both compiled engines give the same counts, solutions and branches, with the seed's rules and with")
    print("#   box-line; box-line gives the same solutions")
    print("# numba: count_many (what a caller gets), the seed's three rules; engines alone: the compiled batch without")
    print("#   count_many's Python (bitboards: order 3's search; cell masks: the other orders' search_batch, run on the")
    print("#   same 9x9s)")
    print_table(["set", "puzzles", "nodes/puzzle", "numba best /s", "numba median /s", "python /s (sample)",
                 "median / python", "bitboards best /s", "cell masks best /s", "bitboards / cell masks"],
                [[r["set"], r["puzzles"], r["nodes_per_puzzle"], r["numba_best"], r["numba_median"],
                  f"{r['python']:.1f} ({r['python_sample']})" if r["python"] else "-",
                  f"{r['speedup']:.0f}" if r["speedup"] else "-", r["bitboards_best"], r["cell_masks_best"],
                  f"{r['bitboards_over_cell_masks']:.2f}"] for r in rows])
    print("# box_line=True (count_many(..., box_line=True), gpu-sa exact --box-line): pointing and box-line reduction")
    print("#   join the three rules; median / seed's rules: count_many's medians, the same run")
    print_table(["set", "nodes/puzzle", "count_many best /s", "count_many median /s", "median / seed's rules",
                 "bitboards best /s", "cell masks best /s"],
                [[r["set"], r["box_line_nodes_per_puzzle"], r["box_line_best"], r["box_line_median"],
                  f"{r['box_line_over_seed_rules']:.2f}", r["box_line_bitboards_best"], r["box_line_cell_masks_best"]]
                 for r in rows], name="box-line")
    if args.json:
        for r in rows:
            print(json.dumps({**r, "commit": info["commit"]}))


def _batch(givens, search_batch, *tables_and_rules):
    """A call of a compiled batch search (counting to 2) on ``givens``: (counts, solutions, nodes, outcome).
    ``tables_and_rules``: the search's tables, then its last argument (box_line or features)."""
    *tables, rules = tables_and_rules
    givens = np.ascontiguousarray(givens, dtype=np.int16)
    count = givens.shape[0]

    def run():
        counts, nodes, outcome = (np.zeros(count, dtype=np.int64) for _ in range(3))
        solutions = np.empty_like(givens)
        search_batch(givens, *tables, 2, exact.DEFAULT_MAX_NODES, np.zeros(1, np.uint8), counts, solutions, nodes,
                     outcome, rules)
        return counts, solutions, nodes, outcome
    return run


def lloyd_amos(order, percentages, subset):
    folder = SHARED_DATA / "sudoku" / "lloyd_amos"
    side = order * order
    return {pct: [parse((folder / f"inst{side}x{side}_{pct}_{i}.txt").read_text(), f"inst{side}x{side}_{pct}_{i}")[0]
                  for i in range(subset)] for pct in percentages}


def large(args, info):
    methods = args.methods.split(",")
    for method in methods:
        if method not in ("deterministic", "restarted"):
            raise SystemExit(f"unknown method {method!r}: choose from deterministic, restarted")
    threads = args.threads or exact.available_cores()
    side = args.order * args.order
    print_header(f"exact solver, {side}x{side} Lloyd & Amos instances: deterministic vs restarted "
                 f"(seed {args.seed}, {threads} threads, base {args.base_nodes} nodes), budget {args.budget:g} s, "
                 f"count limit {args.count_limit}", info)
    sets = lloyd_amos(args.order, [int(p) for p in args.percentages.split(",")], args.subset)
    exact.count_solutions(next(iter(sets.values()))[0].givens, args.order, limit=1, seed=1)  # warm-up
    rows = []
    for pct, puzzles in sets.items():
        row = {"percent": pct, "instances": len(puzzles)}
        for method in methods:
            times, restarts, solved = [], [], 0
            for puzzle in puzzles:
                seed = args.seed if method == "restarted" else None
                answer = puzzle.count_solutions(limit=args.count_limit, max_nodes=10**15, seed=seed, threads=threads,
                                                time_limit=args.budget)
                if answer.interrupted:
                    raise SystemExit("interrupted")
                if answer.solutions:
                    assert puzzle.check(answer.solution) == [], f"{puzzle.label}: validator rejects the solution"
                ok = answer.solutions >= 1 and not answer.gave_up
                solved += ok
                times.append(answer.seconds if ok else args.budget)
                restarts.append(answer.restarts)
                if args.json:
                    print(json.dumps({"instance": puzzle.source, "method": method, "solved": ok,
                                      "seconds": round(answer.seconds, 4), "nodes": answer.nodes,
                                      "restarts": answer.restarts, "final_nodes": answer.final_nodes,
                                      "commit": info["commit"]}), flush=True)
            row[method] = dict(solved=solved, median=statistics.median(times), worst=max(times),
                               all_solved=solved == len(puzzles), restarts=statistics.median(restarts))
        rows.append(row)
        print(f"# {pct} % done", file=sys.stderr, flush=True)
    print("# verify: every solution found was accepted by the independent validator")
    columns = ["% givens", "instances"]
    for method in methods:
        columns += [f"{method} solved", f"{method} median s", f"{method} worst s"]
    columns += ["restarts (median)"] if "restarted" in methods else []
    if len(methods) == 2:
        columns += ["median det / restarted"]
    table = []
    for row in rows:
        line = [row["percent"], row["instances"]]
        for method in methods:
            m = row[method]
            line += [f"{m['solved']}/{row['instances']}", m["median"],
                     f"{m['worst']:.3g}" if m["all_solved"] else f">{args.budget:g}"]
        if "restarted" in methods:
            line.append(row["restarted"]["restarts"])
        if len(methods) == 2:
            line.append(f"{row['deterministic']['median'] / row['restarted']['median']:.2f}")
        table.append(line)
    print_table(columns, table)


def propagation(args, info):
    print_header("exact solver: propagate() to a fixpoint, one core", info)
    sets = {"25x25 Lloyd & Amos (every %)": [p.givens for pcts in lloyd_amos(5, [0, 35, 40, 45, 50, 60], 20).values()
                                              for p in pcts]}
    generator = np.random.default_rng(36)
    sets["36x36, 45 % of a valid grid"] = [np.where(generator.random(36 ** 2) < 0.45, grid, -1)
                                           for grid in (valid_grid(6, generator) for _ in range(20))]
    exact.propagate(sets["36x36, 45 % of a valid grid"][0], 6)  # warm-up
    rows = []
    for name, puzzles in sets.items():
        order = 5 if name.startswith("25") else 6
        times, forced = [], []
        for givens in puzzles:
            best = float("inf")
            for _ in range(args.repeats):
                start = time.perf_counter()
                found = exact.propagate(givens, order)
                best = min(best, time.perf_counter() - start)
            times.append(best * 1e3)
            forced.append(int((found.values >= 0).sum() - (np.asarray(givens) >= 0).sum()))
        rows.append([name, len(puzzles), statistics.median(times), max(times), statistics.median(forced)])
    print_table(["set", "puzzles", "median ms (best of repeats)", "worst ms", "cells forced (median)"], rows)


def valid_grid(order, generator):
    """A valid full grid: the pattern grid with shuffled bands, stacks, lines and digits."""
    side = order * order
    r, c = np.divmod(np.arange(side * side), side)
    grid = ((r * order + r // order + c) % side).reshape(side, side)

    def lines():
        return np.concatenate([band * order + generator.permutation(order) for band in generator.permutation(order)])

    grid = grid[lines()][:, lines()]
    return generator.permutation(side)[grid].ravel().astype(np.int16)


def startup(info):
    print_header("gpu-sa exact examples/seed_easy.txt: whole process, cold and cached numba cache", info)
    command = [sys.executable, "-m", "gpu_sa", "exact", str(ROOT / "examples" / "seed_easy.txt")]
    rows = []
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
        for run in ("first (empty cache)", "second (cached)", "third (cached)"):
            start = time.perf_counter()
            done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=ROOT)
            seconds = time.perf_counter() - start
            assert done.returncode == 0 and "unique solution" in done.stdout, done.stderr[-2000:]
            rows.append([run, seconds])
    print_table(["run", "wall s"], rows)


if __name__ == "__main__":
    main()
