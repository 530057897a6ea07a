"""Move ``tabu``'s parameters, one chain at a time: moves and CPU seconds to solution per (instance, seed).

    python bench/tabu_sweep.py SIDE PERCENT [--instances 0-9] [--seeds 1,2] [--temperature 0.15]
                               [--budget 20] [--flag-moves N] [--tenure-span N] [--tenure-q8 N]
                               [--segment-moves N] [--segment-growth N] [--segment-cost N] [--results DIR]

Instances: the Sudoku-LS set copied into ``bench/data/sudoku_ls`` (``INST_{S}x{S}/{P}/inst{S}x{S}_{P}_{i}.txt``,
instances 0-19). Each (instance, seed) runs ONE chain of move ``tabu`` on one CPU thread, at a constant
temperature, one trial as long as the budget allows (``trials=0``, a trial of 10^12 moves), so the figures are
the local search's own: no restarts, no other chain. The clock is the process's CPU time around ``anneal``
(less sensitive to a shared machine than wall time). Prints one JSON line per run, then a summary line:
solved, median CPU seconds (a failure counts as slower than the budget), mean moves of the solved runs. The
run's record (the runs, and the summary line as a note) goes to bench/results/tabu_sweep/ (``--results``).
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
from gpu_sa.engine import backends, schedule  # noqa: E402
from gpu_sa.puzzles.sudoku.moves import tabu  # noqa: E402
from gpu_sa.puzzles.sudoku.validate import sudoku_violations  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "sudoku_ls"
TRIAL_MOVES = 10 ** 12


def instance_path(side: int, percent: int, index: int) -> Path:
    return DATA / f"INST_{side}x{side}" / str(percent) / f"inst{side}x{side}_{percent}_{index}.txt"


def indices(text: str) -> list[int]:
    if "-" in text:
        first, last = map(int, text.split("-"))
        return list(range(first, last + 1))
    return [int(part) for part in text.split(",")]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("side", type=int, help="grid side: 25, 36, 49 or 64")
    parser.add_argument("percent", type=int, help="givens, percent: 40, 50 or 60")
    parser.add_argument("--instances", default="0-9", help="instance indices, '0-9' or '0,3,5' (default 0-9)")
    parser.add_argument("--seeds", default="1,2", help="seeds, comma-separated (default 1,2)")
    parser.add_argument("--temperature", type=float, default=tabu.SCHEDULE[0],
                        help=f"the constant temperature (default: the move's, {tabu.SCHEDULE[0]})")
    parser.add_argument("--budget", type=float, default=20.0, help="seconds per run (default 20)")
    parser.add_argument("--flag-moves", type=int, help=f"best-move steps (default {tabu.FLAG_MOVES})")
    parser.add_argument("--tenure-span", type=int, help=f"tenure's random part (default {tabu.TENURE_SPAN})")
    parser.add_argument("--tenure-q8", type=int, help=f"tenure per conflicting cell x 256 (default {tabu.TENURE_Q8})")
    parser.add_argument("--segment-moves", type=int,
                        help=f"moves of a segment before the return to the best (default {tabu.SEGMENT_MOVES}; 0: none)")
    parser.add_argument("--segment-growth", type=int,
                        help=f"a fruitless segment's growth, in segments (default {tabu.SEGMENT_GROWTH})")
    parser.add_argument("--segment-cost", type=int,
                        help=f"segments count moves only while the best cost is at most this (default {tabu.SEGMENT_COST})")
    add_results_option(parser)
    args = parser.parse_args(argv)
    for option in ("segment_moves", "segment_growth", "segment_cost", "flag_moves", "tenure_span", "tenure_q8"):
        if getattr(args, option) is not None:  # the module's default, which tabu.tables reads, overridden
            setattr(tabu, option.upper(), getattr(args, option))
    backend = backends.CpuBackend(threads=1)
    rows = []
    for index in indices(args.instances):
        puzzle = gpu_sa.parse(instance_path(args.side, args.percent, index).read_text())[0]
        move = puzzle.move("tabu")
        law = schedule.geometric(t0=args.temperature, t_end=args.temperature,
                                 plateaus=TRIAL_MOVES // move.plateau_length, plateau_length=move.plateau_length)
        for seed in map(int, args.seeds.split(",")):
            started = time.process_time()
            result = gpu_sa.anneal(puzzle, move="tabu", backend=backend, chains=1, seed=seed, schedule=law,
                                   trials=0, time_limit=args.budget)
            seconds = time.process_time() - started
            if result.solved:  # the independent validator, on 1-based rows (0 = empty given)
                side = puzzle.side
                rows_of = lambda values: [[int(v) + 1 for v in values[r * side:(r + 1) * side]] for r in range(side)]
                problems = sudoku_violations(rows_of(result.solution), rows_of(puzzle.givens))
                if problems:
                    raise SystemExit(f"instance {index} seed {seed}: invalid answer: {problems[0]}")
            rows.append(dict(instance=index, seed=seed, solved=bool(result.solved), moves=int(result.moves),
                             cost=int(result.cost), cpu_seconds=round(seconds, 3)))
            print(json.dumps(rows[-1]), flush=True)
    solved = [row for row in rows if row["solved"]]
    median = statistics.median(row["cpu_seconds"] if row["solved"] else float("inf") for row in rows)
    summary = (f"SUMMARY {args.side}x{args.side} {args.percent} % T={args.temperature} flag_moves={tabu.FLAG_MOVES} "
               f"tenure_span={tabu.TENURE_SPAN} tenure_q8={tabu.TENURE_Q8} segment_moves={tabu.SEGMENT_MOVES} "
               f"segment_growth={tabu.SEGMENT_GROWTH} segment_cost={tabu.SEGMENT_COST}: solved {len(solved)}/{len(rows)}, "
               f"median CPU s {round(median, 3) if median != float('inf') else '>' + str(args.budget)}, mean moves of "
               f"the solved {statistics.mean(row['moves'] for row in solved) if solved else 0:.0f}")
    print(summary)
    write_record("tabu_sweep", rows, notes=[summary.removeprefix("SUMMARY ")], info=environment(), args=argv,
                 results=args.results, title=f"move tabu, one chain: {args.side}x{args.side} at {args.percent} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
