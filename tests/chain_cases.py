"""Bit-exact cases shared by the in-process tests and the CUDA worker subprocess.

A case is a small dict (JSON-friendly); ``run_case`` runs it on one backend and returns
every state array, so two backends can be compared with ``assert_array_equal``.
"""
from __future__ import annotations

import numpy as np

from gpu_sa import backends, schedule
from gpu_sa.puzzles import hashi, shikaku, sudoku

PUZZLES = {
    # order 2: 6 givens of the grid 1234/3412/2143/4321
    "order2": "1..4" "..1." ".1.." "4..1",
    # order 3: the seed's easy puzzle (leleux_easy)
    "order3": "..237.9....75684.2.8..9....1...4.8..2.4...7.6..6.2...1....5..1.5.19326....3.862..",
    # order 3: seed 003's 17-clue puzzle, mostly free cells
    "order3_17": ".......1.4.........2...........5.4.7..8...3....1.9....3..4..2...5.1........8.6...",
    # order 4: a 16x16 line puzzle, half given (from the pattern grid), digits 1-9 then A-G
    "order4": "".join("123456789ABCDEFG"[(r * 4 + r // 4 + c) % 16] if (r * 7 + c * 3) % 2 else "."
                      for r in range(16) for c in range(16)),
}



def _rows(text):
    """A grid written as rows of space-separated numbers, '.' = 0 (no parser involved)."""
    return np.array([[0 if t == "." else int(t) for t in line.split()] for line in text.strip().splitlines()])


GRIDS = {
    # shikaku 5x5 (8 clues, from a hand-drawn partition) and 4x6 (11 clues, generator seed 0, no merges;
    # 6 clues keep two or more candidates after pruning)
    "shikaku5": ("shikaku", _rows("""
        . . . 4 .
        4 . . . .
        . 3 . . 4
        . . 2 3 .
        . 4 . . 1""")),
    "shikaku4x6": ("shikaku", _rows("""
        . . 2 . . 3
        2 2 . . . 3
        2 2 . 2 . .
        . . 2 . 2 2""")),
    # hashi: 6 islands whose numbers also allow one disconnected assignment (chains reach local
    # cost 0 both ways, so the connectivity walk runs), and a 100-island Coelho et al. instance
    "hashi6": ("hashi", _rows("""
        . 1 . .
        2 2 . 1
        3 . . .
        3 . . 2""")),
    "hashi100": ("hashi", _rows("""
        2 . . 3 2 6 2 1 . . . . . 5 2 1
        1 . . . . . 3 6 . . . 2 . . . .
        . . . . . . 1 . . . . . . . . .
        4 . . 5 . 7 . 8 . . . . . 8 4 4
        4 2 2 6 3 . 1 . 2 . 4 . 1 . . .
        4 2 4 . 3 . 3 . 4 . 7 6 2 . . .
        . . 2 . 2 . . . . . . . . . . 1
        4 . . . 6 3 3 . . 1 . 6 2 . . 2
        4 2 . . . 2 2 . . . . . . . . .
        . 2 . . 8 7 4 . 4 5 . . . 4 6 4
        5 . 4 1 . . . . . 4 . . 3 4 4 2
        2 . . . . 4 1 . . 2 . 2 1 . 1 1
        . . . . . 2 . . . . . . . . . .
        . . . 2 6 . . 7 . . 5 . . 4 . .
        1 . 7 . . 4 . 8 . . . . . . 5 3
        1 . 5 2 2 4 . 5 . . . . . 2 3 2""")),
}

# Tiny sizes: the CUDA simulator runs a proposal in a few milliseconds.
CASES = [
    dict(id="sirdey-order2-seed1", move="sirdey", puzzle="order2", chains=4, seed=1, chain_base=0,
         chunks=[[0, 70], [70, 200]], t0=2.0),
    dict(id="sirdey-order2-seed-big", move="sirdey", puzzle="order2", chains=3, seed=2**63 + 12345, chain_base=7,
         chunks=[[0, 160]], t0=0.7),
    dict(id="sirdey-order3-seed7", move="sirdey", puzzle="order3", chains=4, seed=7, chain_base=0,
         chunks=[[0, 100], [100, 250]], t0=1.0),
    dict(id="sirdey-order3-seed99-base", move="sirdey", puzzle="order3", chains=3, seed=99, chain_base=1000,
         chunks=[[0, 200]], t0=3.0),
    dict(id="sirdey-order3-17clue", move="sirdey", puzzle="order3_17", chains=2, seed=5, chain_base=0,
         chunks=[[0, 150]], t0=0.5),
    dict(id="sirdey-order4", move="sirdey", puzzle="order4", chains=2, seed=11, chain_base=3, chunks=[[0, 120]],
         t0=1.0),
    dict(id="swap-order2-seed1", move="swap", puzzle="order2", chains=4, seed=1, chain_base=0,
         chunks=[[0, 60], [60, 150]], t0=1.0),
    dict(id="swap-order3-seed7", move="swap", puzzle="order3", chains=4, seed=7, chain_base=0,
         chunks=[[0, 90], [90, 220]], t0=1.0),
    dict(id="swap-order3-17clue-base", move="swap", puzzle="order3_17", chains=3, seed=2**40 + 3, chain_base=500,
         chunks=[[0, 180]], t0=0.6),
    dict(id="swap-order4", move="swap", puzzle="order4", chains=2, seed=13, chain_base=0, chunks=[[0, 120]], t0=0.8),
    dict(id="rect-shikaku5", move="rect", puzzle="shikaku5", chains=4, seed=3, chain_base=0,
         chunks=[[0, 40], [40, 110]], t0=1.5),
    dict(id="rect-shikaku4x6-base", move="rect", puzzle="shikaku4x6", chains=3, seed=2**63 + 5, chain_base=77,
         chunks=[[0, 120]], t0=0.8),
    dict(id="bridge-hashi6", move="bridge", puzzle="hashi6", chains=4, seed=5, chain_base=0,
         chunks=[[0, 50], [50, 160]], t0=1.0),
    dict(id="bridge-hashi6-hot", move="bridge", puzzle="hashi6", chains=3, seed=2**40 + 9, chain_base=12,
         chunks=[[0, 150]], t0=4.0),
    dict(id="bridge-hashi100", move="bridge", puzzle="hashi100", chains=2, seed=21, chain_base=0,
         chunks=[[0, 80], [80, 200]], t0=1.0),
]

STATE_FIELDS = ("config", "counts", "cost", "accepted", "best_cost", "best_config", "best_move")


def case_puzzle(case):
    if case["puzzle"] in GRIDS:
        kind, grid = GRIDS[case["puzzle"]]
        return shikaku.Shikaku(clues=grid) if kind == "shikaku" else hashi.Hashi(grid=grid)
    return sudoku.parse(PUZZLES[case["puzzle"]])[0]


def case_move(case):
    return case_puzzle(case).move(case["move"])


def run_case(backend, case):
    """Init and advance the case's chains on ``backend``; every state array, on the host."""
    move = case_move(case)
    law = schedule.geometric(t0=case["t0"], t_end=0.05, plateaus=40, plateau_length=move.plateau_length // 4 or 1)
    state = backend.allocate(move, case["chains"])
    backend.init(state, move, case["seed"], case["chain_base"])
    for begin, end in case["chunks"]:
        first, stop = begin // law.plateau_length, (end - 1) // law.plateau_length + 1
        table = law.acceptance_table(first, stop, move.max_delta)
        backend.advance(state, move, case["seed"], case["chain_base"], begin, end, first, law.plateau_length, table)
    host = backend.to_host(state)
    return {name: np.asarray(getattr(host, name)) for name in STATE_FIELDS}


def backend_named(name):
    return {"numpy": backends.NumpyBackend, "cpu": backends.CpuBackend, "cuda": backends.CudaBackend}[name]()
