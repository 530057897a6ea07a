"""Wall time to solve the three example puzzles of Leleux's report (the first is examples/seed_easy.txt): tuned vs
faithful.

    python bench/seed_puzzles.py [--backend auto] [--chains N] [--seed S] [--time-limit S] [--json] [--results DIR]

Two modes per puzzle, in the same run:
  tuned     the package's defaults: move swap, geometric 0.5 -> 0.05 over 4000 plateaus,
            up to 100 trials (restarts)
  faithful  the seed's algorithm: move sirdey, Sirdey's law (T0 = e_p, delta = 0.1, down to
            T_f = 0.00273852: 252 million moves per chain), one trial
Every solution is checked by the independent validator (the runner refuses to report an
unvalidated one). Times exclude compilation (reported as setup). The run's record goes to
bench/results/seed_puzzles/ (``--results``).
"""
from __future__ import annotations

import argparse
import json

from common import ROOT, add_results_option, environment, print_header, print_table, write_record

from gpu_sa.engine import runner
from gpu_sa.puzzles.sudoku import parse

MODES = {
    "tuned": lambda puzzle: dict(move=None, schedule=None, trials=None),
    "faithful": lambda puzzle: dict(move="sirdey", schedule=runner.sirdey_schedule(puzzle.move("sirdey")), trials=1),
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--chains", type=int, default=None)
    parser.add_argument("--modes", default="tuned,faithful")
    parser.add_argument("--time-limit", type=float, default=300.0, help="per puzzle and mode (default 300 s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    add_results_option(parser)
    args = parser.parse_args(argv)
    puzzles = parse((ROOT / "tests" / "data" / "seed_puzzles.txt").read_text(), "seed_puzzles.txt")
    names = ["leleux_easy", "leleux_very_hard", "leleux_17_clues"]
    info = environment()
    print_header(f"seed puzzles: backend {args.backend}, seed {args.seed}, time limit {args.time_limit} s", info)
    rows = []
    for name, puzzle in zip(names, puzzles):
        for mode in args.modes.split(","):
            result = runner.anneal(puzzle, backend=args.backend, chains=args.chains, seed=args.seed,
                                   time_limit=args.time_limit, **MODES[mode](puzzle))
            rows.append(dict(puzzle=name, mode=mode, backend=result.backend, chains=result.chains,
                             solved=result.solved, cost=result.cost, seconds=result.seconds,
                             setup_seconds=result.setup_seconds, trials=result.trials,
                             chain_moves=result.chain_moves, moves=result.moves, proposals=result.proposals))
    tuned = {r["puzzle"]: r["seconds"] for r in rows if r["mode"] == "tuned" and r["solved"]}
    print_table(["puzzle", "mode", "backend", "chains", "solved", "cost", "seconds", "setup s", "trials",
                 "moves of solver", "moves/slot", "proposals", "x tuned time"],
                [[r["puzzle"], r["mode"], r["backend"], r["chains"], r["solved"], r["cost"], r["seconds"],
                  r["setup_seconds"], r["trials"], r["chain_moves"], r["moves"], r["proposals"],
                  f"{r['seconds'] / tuned[r['puzzle']]:.0f}" if r["puzzle"] in tuned and r["solved"] else "-"]
                 for r in rows])
    if args.json:
        for r in rows:
            print(json.dumps({**r, "commit": info["commit"], "gpu": info["gpu"]}))
    write_record("seed_puzzles", results=args.results, args=argv)


if __name__ == "__main__":
    main()
