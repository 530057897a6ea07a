"""Time to solution: per puzzle, the probability p that one chain solves within a budget of
moves, and TTS99 = t * ln(0.01) / ln(1 - p), over a grid of budgets, for each move.

    python bench/tts.py [--set seed|forum_hardest|17_clue|FILE] [--sample 10] [--moves sirdey,swap]
                        [--budgets 1e4,3e4,1e5,3e5,1e6] [--chains 256] [--backend cpu] [--json] [--results DIR]
    python bench/tts.py --faithful [--faithful-moves 2e7]   # Sirdey's own schedule

For a budget b, every chain runs a geometric schedule from --t0 to --t-end spread over b
moves, with no early stop; p = the fraction of chains that reached cost 0 (each chain's
first hitting move is recorded, so a chain that solved and moved on still counts). TTS99 is
given in chain-moves (b * ln 0.01 / ln(1 - p): device independent) and in seconds at the
proposal rate measured in the same run (chains are independent, so a device that runs C
chains at once reaches 99 % after TTS99 / rate seconds). p = 0 gives infinity; a puzzle that
propagation solves before any move gives 0 (and no rate).

--faithful runs Sirdey's law exactly as the seed states it (T0 = e_p, delta = 0.1, 81 moves
per plateau) but cut at --faithful-moves (the full trial is 252 million moves; by 20 million
the temperature is below 0.04 and chains no longer move); p is then the fraction of chains
that solve within one trial and 1/p the expected number of trials (the seed's figure).

The run's record (both tables: per puzzle, and the summary per move and budget) goes to bench/results/tts/
(``--results``).
"""
from __future__ import annotations

import argparse
import json
import math
import statistics

from common import ROOT, SHARED_DATA, add_results_option, environment, print_header, print_table, write_record

from gpu_sa.engine import runner, schedule
from gpu_sa.puzzles.sudoku import parse

SETS = {"forum_hardest": "forum_hardest_1106_dev.txt", "17_clue": "17_clue_dev.txt", "top1465": "top1465_dev.txt"}


def load(name, sample):
    if name == "seed":
        return parse((ROOT / "tests" / "data" / "seed_puzzles.txt").read_text(), "seed_puzzles.txt")
    path = SHARED_DATA / "sudoku" / SETS[name] if name in SETS else None
    if path is None:
        from pathlib import Path

        path = Path(name)
    puzzles = parse(path.read_text(), path.name)
    stride = max(1, len(puzzles) // sample)
    return puzzles[::stride][:sample]


def tts99(budget, p):
    if p <= 0:
        return math.inf
    if p >= 1:
        return float(budget)
    return budget * math.log(0.01) / math.log1p(-p)


def measure(puzzle, move, law, budget, args):
    result = runner.anneal(puzzle, move=move, backend=args.backend, chains=args.chains, seed=args.seed,
                           schedule=law, max_moves=budget, early_stop=False, keep_state=True)
    solved = result.state.best_cost == 0
    for row in solved.nonzero()[0]:  # every hit, not only the reported one, goes through the validator
        assert puzzle.check(result.state.best_config[row]) == [], f"{puzzle.label}: chain {row} invalid"
    p = float(solved.mean())
    if result.proposals == 0:  # solved before the first move (propagation): nothing for the chains to do
        return dict(puzzle=puzzle.label, move=move, budget=budget, chains=args.chains, p=p, tts99_moves=0,
                    tts99_seconds=0.0, rate=0.0, median_hit=0.0)
    rate = result.proposals / result.seconds
    moves = tts99(budget, p)
    return dict(puzzle=puzzle.label, move=move, budget=budget, chains=args.chains, p=p, tts99_moves=moves,
                tts99_seconds=moves / rate, rate=rate, median_hit=float(statistics.median(
                    result.state.best_move[solved])) if solved.any() else None)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="seed", help="seed, forum_hardest, 17_clue, top1465 or a file")
    parser.add_argument("--sample", type=int, default=10, help="puzzles taken evenly from a shared set")
    parser.add_argument("--moves", default="sirdey,swap")
    parser.add_argument("--budgets", default="1e4,3e4,1e5,3e5,1e6")
    parser.add_argument("--chains", type=int, default=256)
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--t0", type=float, default=0.5)
    parser.add_argument("--t-end", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--faithful", action="store_true", help="Sirdey's schedule, cut at --faithful-moves")
    parser.add_argument("--faithful-moves", type=float, default=2e7)
    parser.add_argument("--json", action="store_true")
    add_results_option(parser)
    args = parser.parse_args(argv)
    puzzles = load(args.set, args.sample)
    moves = [m for m in args.moves.split(",") if m]
    budgets = [int(float(b)) for b in args.budgets.split(",")] if not args.faithful else [int(args.faithful_moves)]
    info = environment()
    what = "Sirdey's schedule" if args.faithful else f"geometric T0={args.t0} -> {args.t_end} over each budget"
    print_header(f"time to solution: {args.set} ({len(puzzles)} puzzles), {what}, {args.chains} chains on "
                 f"{args.backend}, seed {args.seed}", info)
    rows = []
    for puzzle in puzzles:
        for move in moves:
            length = puzzle.move(move).plateau_length
            for budget in budgets:
                if args.faithful:
                    law = runner.default_schedule(puzzle.move(move))
                else:
                    law = schedule.geometric(t0=args.t0, t_end=args.t_end, plateaus=max(1, budget // length),
                                             plateau_length=length)
                rows.append(measure(puzzle, move, law, budget, args))
    print("# verify: every chain that reached cost 0 holds a grid the independent validator accepts")
    print_table(["puzzle", "move", "budget", "p", "TTS99 moves", "TTS99 s", "proposals/s", "median hit"],
                [[r["puzzle"], r["move"], r["budget"], f"{r['p']:.3f}", r["tts99_moves"], r["tts99_seconds"],
                  r["rate"] or "-", r["median_hit"] if r["median_hit"] is not None else "-"] for r in rows])
    print()
    summary = []
    for move in moves:
        for budget in budgets:
            group = [r for r in rows if r["move"] == move and r["budget"] == budget]
            seconds = sorted(r["tts99_seconds"] for r in group)
            summary.append([move, budget, statistics.median(seconds), seconds[-1],
                            f"{sum(r['p'] > 0 for r in group)}/{len(group)}",
                            f"{1 / statistics.median(r['p'] for r in group):.1f}" if args.faithful and
                            statistics.median(r["p"] for r in group) > 0 else "-"])
    print_table(["move", "budget", "median TTS99 s", "worst TTS99 s", "puzzles solved", "trials (1/median p)"],
                summary, name="summary")
    if args.json:
        for r in rows:
            print(json.dumps({**r, "set": args.set, "commit": info["commit"], "faithful": args.faithful}))
    write_record("tts", results=args.results, args=argv)


if __name__ == "__main__":
    main()
