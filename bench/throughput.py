"""Proposals per second of every available backend, for orders 3, 4, 5 and both moves.

    python bench/throughput.py [--backends cuda,cpu,numpy] [--orders 3,4,5] [--moves sirdey,swap]
                               [--chains N ...] [--moves-per-chain M] [--json] [--results DIR]

Steps: environment header; verify (every backend's chains equal the numpy reference's, bit
for bit, on a small run of each order and move); warm-up (compilation is excluded: the
runner reports it as setup); time a fixed number of moves per chain with no early stop at a
constant temperature of 0.5 (never solved at that temperature, so every chain works the
whole time); one table, ratios against the numpy reference measured in the same run.
Puzzles: order 3 = seed 003's 17-clue puzzle; orders 4 and 5 = a valid grid with every other
cell given in a checkerboard-like pattern (half the cells free). The run's record goes to
bench/results/throughput/ (``--results``).
"""
from __future__ import annotations

import argparse
import json

import numpy as np
from common import add_results_option, environment, print_header, print_table, write_record

from gpu_sa.engine import backends, runner, schedule
from gpu_sa.puzzles.sudoku import parse

CLUE17 = ".......1.4.........2...........5.4.7..8...3....1.9....3..4..2...5.1........8.6..."
DEFAULT_CHAINS = {"cuda": [1 << 14, 1 << 16], "cpu": [256, 1024], "numpy": [64, 256]}
DEFAULT_MOVES = {"cuda": 200_000, "cpu": 100_000, "numpy": 2_000}  # per chain, for order 3; scaled by 81 / cells


def puzzle_of_order(order):
    if order == 3:
        return parse(CLUE17)[0]
    side = order * order
    text = "\n".join(" ".join(str((r * order + r // order + c) % side + 1) if (r * 7 + c * 3) % 2 else "0"
                              for c in range(side)) for r in range(side))
    return parse(text)[0]


def available():
    usable, simulated, _ = backends.cuda_status()
    return (["cuda"] if usable and not simulated else []) + ["cpu", "numpy"]


def verify(names, puzzle, move, law):
    # 300 moves up to 25x25; 20 past it, where the numpy reference's tabu takes about 0.1 s a move per chain (300
    # moves of 4 chains at 49x49: 135 s, which no device lease's budget holds)
    moves = 300 if puzzle.order <= 5 else 20
    runs = {name: runner.anneal(puzzle, move=move, backend=name, chains=4, seed=7, schedule=law, max_moves=moves,
                                early_stop=False, keep_state=True, propagate=False).state for name in set(names) | {"numpy"}}
    for name in names:
        for a, b in zip(runs[name], runs["numpy"]):
            np.testing.assert_array_equal(a, b, err_msg=f"{name} differs from the numpy reference ({move})")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default=",".join(available()), help="comma-separated (default: all available)")
    parser.add_argument("--orders", default="3,4,5")
    parser.add_argument("--moves", default="sirdey,swap")
    parser.add_argument("--chains", type=int, nargs="*", default=None, help="chain counts (default: per backend)")
    parser.add_argument("--moves-per-chain", type=int, default=None, help="for order 3 (default: per backend)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON lines after the table")
    add_results_option(parser)
    args = parser.parse_args(argv)
    names = [n for n in args.backends.split(",") if n]
    info = environment()
    print_header("throughput: sudoku, constant T = 0.5, no early stop", info)
    rows = []
    for order in (int(o) for o in args.orders.split(",")):
        puzzle = puzzle_of_order(order)
        for move in args.moves.split(","):
            length = puzzle.move(move).plateau_length
            law = schedule.from_list([0.5], plateau_length=length)
            verify(names, puzzle, move, law)
            for name in names:
                for chains in args.chains or DEFAULT_CHAINS[name]:
                    moves = max(1, (args.moves_per_chain or DEFAULT_MOVES[name]) * 81 // length)
                    # propagate=False: the kernels' speed on the puzzle as given (propagation solves the
                    # 9x9 17-clue puzzle before any move, which would leave nothing to time)
                    result = runner.anneal(puzzle, move=move, backend=name, chains=chains, seed=1, schedule=law,
                                           max_moves=moves, early_stop=False, propagate=False)
                    rows.append(dict(order=order, move=move, backend=name, chains=chains, moves=moves,
                                     seconds=result.seconds, proposals_per_second=result.proposals / result.seconds))
    print("# verify: every backend equals the numpy reference bit for bit (4 chains x 300 moves, 20 past 25x25, each order and move)")
    table = []
    for r in rows:
        base = max((q["proposals_per_second"] for q in rows if q["backend"] == "numpy" and q["order"] == r["order"]
                    and q["move"] == r["move"]), default=None)
        table.append([f"{r['order'] ** 2}x{r['order'] ** 2}", r["move"], r["backend"], r["chains"], r["moves"],
                      r["seconds"], r["proposals_per_second"],
                      f"{r['proposals_per_second'] / base:.1f}" if base else "-"])
    print_table(["grid", "move", "backend", "chains", "moves/chain", "seconds", "proposals/s", "x numpy"], table)
    if args.json:
        for r in rows:
            print(json.dumps({**r, "commit": info["commit"], "gpu": info["gpu"]}))
    write_record("throughput", results=args.results, args=argv)


if __name__ == "__main__":
    main()
