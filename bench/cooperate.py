"""Chains that cooperate on one puzzle, measured: move ``tabu``'s chains alone against the same chains sharing an
elite pool (``gpu_sa.engine.pool``), on the CPU backend, one instance at a time, in the same run.

    python bench/cooperate.py SIDE PERCENT [--instances 0-9] [--budget 60] [--seed 1]
                              [--variants alone=2:0,pool=2:2000000,...] [--results DIR]

A variant is ``NAME=CHAINS[:INTERVAL]``: CHAINS chains (2 = one per core of a 2-core machine, what ``gpu-sa solve
--method anneal`` runs there) with a pool round every INTERVAL moves, 0 = the chains alone. Each run is
``gpu_sa.anneal(puzzle, move="tabu", backend="cpu", chains=CHAINS, trials=0, time_limit=BUDGET,
pool_interval=INTERVAL)`` on the Sudoku-LS set's instance (``bench/data/sudoku_ls``; 0-19 are the ones to tune
on, 20-29 the comparison's), its clock the wall time, every answer validated. One JSON line per run, a summary
per variant; the record goes to bench/results/cooperate/.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import gpu_sa  # noqa: E402
from common import add_results_option, environment, write_record  # noqa: E402
from gpu_sa.puzzles.sudoku.validate import sudoku_violations  # noqa: E402
from tabu_sweep import indices, instance_path  # noqa: E402


def parse_variant(text: str):
    """NAME=CHAINS[:INTERVAL]: (name, chains, pool interval; 0 = the chains alone)."""
    name, _, spec = text.partition("=")
    chains, _, interval = spec.partition(":")
    try:
        return name, int(chains), int(interval or 0)
    except ValueError:
        raise SystemExit(f"cooperate.py: a variant is NAME=CHAINS[:INTERVAL], got {text!r}") from None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("side", type=int, help="grid side: 25 to 100")
    parser.add_argument("percent", type=int, help="givens, percent")
    parser.add_argument("--instances", default="0-9", help="instance indices, '0-9' or '0,3,5' (default 0-9)")
    parser.add_argument("--budget", type=float, default=60.0, help="wall seconds per run (default 60)")
    parser.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    parser.add_argument("--variants", default="alone=2:0,pool=2:2000000",
                        help="NAME=CHAINS[:INTERVAL], comma-separated (default alone=2:0,pool=2:2000000)")
    add_results_option(parser)
    args = parser.parse_args(argv)
    variants = [parse_variant(text) for text in args.variants.split(",")]
    rows = []
    for index in indices(args.instances):
        puzzle = gpu_sa.parse(instance_path(args.side, args.percent, index).read_text())[0]
        for name, chains, interval in variants:
            started = time.perf_counter()
            result = gpu_sa.anneal(puzzle, move="tabu", backend="cpu", chains=chains, seed=args.seed, trials=0,
                                   time_limit=args.budget, pool_interval=interval)
            seconds = time.perf_counter() - started
            if result.solved:
                side = puzzle.side
                rows_of = lambda values: [[int(v) + 1 for v in values[r * side:(r + 1) * side]] for r in range(side)]
                problems = sudoku_violations(rows_of(result.solution), rows_of(puzzle.givens))
                if problems:
                    raise SystemExit(f"instance {index} {name}: invalid answer: {problems[0]}")
            rows.append(dict(instance=index, variant=name, chains=chains, pool_interval=interval,
                             solved=bool(result.solved), seconds=round(seconds, 3), moves=int(result.moves),
                             cost=int(result.cost)))
            print(json.dumps(rows[-1]), flush=True)
    notes = []
    for name, *_ in variants:
        mine = [row for row in rows if row["variant"] == name]
        solved = [row for row in mine if row["solved"]]
        median = statistics.median(row["seconds"] if row["solved"] else float("inf") for row in mine)
        notes.append(f"{name}: solved {len(solved)}/{len(mine)}, median "
                     f"{round(median, 1) if median != float('inf') else '>' + str(args.budget)} s")
        print("SUMMARY", notes[-1])
    write_record("cooperate", rows, notes=notes, info=environment(), args=argv, results=args.results,
                 title=f"chains that cooperate, move tabu: {args.side}x{args.side} at {args.percent} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
