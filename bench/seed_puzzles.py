"""Wall time to solve the three puzzles of the seeds (seed 003's annex), per backend and schedule.

    python bench/seed_puzzles.py [--backend auto] [--chains N] [--schedule sirdey|geometric]
                                 [--time-limit S] [--seed S] [--json]

Every solution is checked by the independent validator (the runner refuses to report an
unvalidated one). Times exclude compilation (reported as setup).
"""
from __future__ import annotations

import argparse
import json

from common import ROOT, environment, print_header, print_table

from gpu_sa import runner, schedule
from gpu_sa.puzzles.sudoku import parse


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--chains", type=int, default=None)
    parser.add_argument("--schedule", choices=("sirdey", "geometric"), default="sirdey")
    parser.add_argument("--t0", type=float, default=0.5, help="geometric: T0 (default 0.5)")
    parser.add_argument("--plateaus", type=int, default=5000, help="geometric: plateaus (default 5000)")
    parser.add_argument("--time-limit", type=float, default=300.0, help="per puzzle (default 300 s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    puzzles = parse((ROOT / "tests" / "data" / "seed_puzzles.txt").read_text(), "seed_puzzles.txt")
    names = ["leleux_easy", "leleux_very_hard", "leleux_17_clues"]
    info = environment()
    print_header(f"seed puzzles: schedule {args.schedule}, backend {args.backend}, seed {args.seed}", info)
    rows = []
    for name, puzzle in zip(names, puzzles):
        law = None if args.schedule == "sirdey" else schedule.geometric(
            t0=args.t0, t_end=0.05, plateaus=args.plateaus, plateau_length=81)
        result = runner.anneal(puzzle, backend=args.backend, chains=args.chains, seed=args.seed, schedule=law,
                               time_limit=args.time_limit)
        rows.append(dict(puzzle=name, backend=result.backend, chains=result.chains, solved=result.solved,
                         cost=result.cost, seconds=result.seconds, setup_seconds=result.setup_seconds,
                         chain_moves=result.chain_moves, moves=result.moves, proposals=result.proposals,
                         stopped=result.stopped))
    print_table(["puzzle", "backend", "chains", "solved", "cost", "seconds", "setup s", "moves of solver",
                 "moves/chain", "proposals"],
                [[r["puzzle"], r["backend"], r["chains"], r["solved"], r["cost"], r["seconds"], r["setup_seconds"],
                  r["chain_moves"], r["moves"], r["proposals"]] for r in rows])
    if args.json:
        for r in rows:
            print(json.dumps({**r, "schedule": args.schedule, "commit": info["commit"], "gpu": info["gpu"]}))


if __name__ == "__main__":
    main()
