"""The web page's Solution (``gpu_sa.view.api.solve``) on the large built sets, against the original deterministic
search, which the page ran before it, with the same limits.

    python bench/view_search.py [--sets sudoku36_45,sudoku49_45] [--instances 20] [--budget 30]
                                [--searches page,deterministic] [--json] [--results DIR]

Each search runs in this process, one instance at a time, after a warm-up (compilation) on
examples/sudoku_25x25.txt; a row is one call's wall time, counting to 2 within --budget seconds and
``api.SOLVE_MAX_NODES`` branches. ``page``: ``api.solve`` (the seeded complete search, seed
``api.SOLVE_SEED``); ``deterministic``: ``count_solutions`` without a seed. Every solution found is checked
by the validator. Per set and search: instances settled (a count to 2, or none), median and slowest wall
time (an unsettled instance counts as the budget), branches. The run's record (that table, also with
``--json``) goes to bench/results/view_search/ (``--results``).
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np
from common import ROOT, add_results_option, environment, print_header, print_table, record_rows, write_record

import gpu_sa
from gpu_sa.puzzles.sudoku import exact
from gpu_sa.view import api

SEARCHES = ("page", "deterministic")


def instances(name: str, count: int):
    folder = ROOT / "bench" / "data" / name
    files = sorted(folder.glob("inst*.txt"), key=lambda path: int(path.stem.rsplit("_", 1)[1]))
    return files[:count]


def run_one(text: str, search: str, budget: float) -> dict:
    puzzle = gpu_sa.parse(text)[0]
    start = time.monotonic()
    if search == "page":
        answer = api.solve(text, time_limit=budget)
        solutions, gave_up, nodes = answer["solutions"], answer["gave_up"], answer["nodes"]
        solution = None if answer["solution"] is None else np.asarray(answer["solution"]) - 1
    else:
        answer = exact.count_solutions(puzzle.givens, puzzle.order, limit=2, max_nodes=api.SOLVE_MAX_NODES,
                                       time_limit=budget)
        solutions, gave_up, nodes, solution = answer.solutions, answer.gave_up, answer.nodes, answer.solution
    seconds = time.monotonic() - start
    if solution is not None and puzzle.check(solution):
        raise SystemExit(f"view_search.py: the {search} search's solution fails the validator")
    return {"search": search, "solutions": solutions, "settled": not gave_up, "nodes": nodes,
            "seconds": round(seconds, 3)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="sudoku36_45,sudoku49_45",
                        help="folders of bench/data (default: %(default)s)")
    parser.add_argument("--instances", type=int, default=20, help="at most this many per set (default: %(default)s)")
    parser.add_argument("--budget", type=float, default=api.SOLVE_TIME_LIMIT,
                        help="seconds per search (default: the page's, %(default)s)")
    parser.add_argument("--searches", default=",".join(SEARCHES), help="page, deterministic (default: both)")
    parser.add_argument("--json", action="store_true", help="one JSON object per search and instance, then no table")
    add_results_option(parser)
    args = parser.parse_args(argv)
    searches = [name for name in args.searches.split(",") if name]
    if not searches or any(name not in SEARCHES for name in searches):
        parser.error(f"--searches: choose from {', '.join(SEARCHES)}")
    info, title = environment(), "the page's exact search against the deterministic one, counting to 2"
    if not args.json:
        print_header(title, info)
    api.solve((ROOT / "examples" / "sudoku_25x25.txt").read_text(), time_limit=1.0)  # compiled before the clocks
    rows = []
    for name in args.sets.split(","):
        for search in searches:
            records = []
            for path in instances(name, args.instances):
                record = {"set": name, "file": path.name, **run_one(path.read_text(), search, args.budget)}
                records.append(record)
                if args.json:
                    print(json.dumps(record), flush=True)
            times = [record["seconds"] for record in records]
            nodes = [record["nodes"] for record in records]
            rows.append([name, search, f"{sum(r['settled'] for r in records)}/{len(records)}",
                         statistics.median(times), max(times), f"{min(nodes):,}-{max(nodes):,}"])
    columns = ["set", "search", "settled", "median s", "slowest s", "branches"]
    if not args.json:
        print_table(columns, rows)
    write_record("view_search", record_rows(columns, rows), columns=columns, info=info, title=title,
                 results=args.results, args=argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
