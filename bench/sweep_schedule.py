"""Seconds to solve a few instances under several geometric schedules: how the Shikaku and Hashiwokakero defaults
were chosen.

    python bench/sweep_schedule.py hashi 200 "[(1.0,0.05,2000),(0.5,0.05,500)]"
    python bench/sweep_schedule.py shikaku 25 "[(1.0,0.05,2000),(0.5,0.05,500)]"

hashi N: every 60th instance of ../shared/data/hashi/coelho2019/N/ (4 of them); shikaku N:
four N x N grids of the default generator (seeds (7, N, i)). Each schedule is (t0, t_end,
plateaus), plateaus of the move's natural length; backend cpu, seed 1, restarts allowed,
--time-limit per instance (default 40 s). Prints one line per schedule:
(seconds, solved, trials) per instance; the run's record (one row per schedule) goes to
bench/results/sweep_schedule/ (``--results DIR``).
"""
from __future__ import annotations

import argparse
import ast

from common import SHARED_DATA, add_results_option, environment, print_header, write_record

from gpu_sa.engine import runner, schedule
from gpu_sa.puzzles import hashi, shikaku
from gpu_sa.puzzles.shikaku.generate import generate


def instances(kind, size):
    if kind == "hashi":
        files = sorted((SHARED_DATA / "hashi" / "coelho2019" / str(size)).glob("*.has"))[::60][:4]
        return [hashi.parse(f.read_text(), str(f), "has")[0] for f in files]
    return [shikaku.Shikaku(clues=generate(size, size, seed=[7, size, i])[0]) for i in range(4)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=("hashi", "shikaku"))
    parser.add_argument("size", type=int)
    parser.add_argument("schedules", help="a Python list of (t0, t_end, plateaus)")
    parser.add_argument("--time-limit", type=float, default=40.0)
    add_results_option(parser)
    args = parser.parse_args(argv)
    print_header(f"schedule sweep: {args.kind} {args.size}, cpu, seed 1, time limit {args.time_limit} s",
                 environment())
    puzzles = instances(args.kind, args.size)
    rows = []
    for t0, t_end, plateaus in ast.literal_eval(args.schedules):
        times = []
        for puzzle in puzzles:
            law = schedule.geometric(t0=t0, t_end=t_end, plateaus=plateaus, plateau_length=puzzle.move().plateau_length)
            result = runner.anneal(puzzle, backend="cpu", seed=1, schedule=law, time_limit=args.time_limit)
            times.append((round(result.seconds, 2), result.solved, result.trials))
        print(t0, t_end, plateaus, times, flush=True)
        rows.append({"t0": t0, "t_end": t_end, "plateaus": plateaus, "solved": sum(solved for _, solved, _ in times),
                     "instances": len(times), "seconds per instance": [seconds for seconds, _, _ in times],
                     "trials per instance": [trials for _, _, trials in times]})
    write_record("sweep_schedule", rows, results=args.results, args=argv)


if __name__ == "__main__":
    main()
