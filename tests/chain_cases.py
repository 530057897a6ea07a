"""Bit-exact cases shared by the in-process tests and the CUDA worker subprocess.

A case is a small dict (JSON-friendly); ``run_case`` runs it on one backend and returns
every state array, so two backends can be compared with ``assert_array_equal``.
"""
from __future__ import annotations

import numpy as np

from gpu_sa import backends, schedule
from gpu_sa.puzzles import sudoku

PUZZLES = {
    # order 2: 6 givens of the grid 1234/3412/2143/4321
    "order2": "1..4" "..1." ".1.." "4..1",
    # order 3: the seed's easy puzzle (leleux_easy)
    "order3": "..237.9....75684.2.8..9....1...4.8..2.4...7.6..6.2...1....5..1.5.19326....3.862..",
    # order 3: seed 003's 17-clue puzzle, mostly free cells
    "order3_17": ".......1.4.........2...........5.4.7..8...3....1.9....3..4..2...5.1........8.6...",
}

# Tiny sizes: the CUDA simulator runs a proposal in a few milliseconds.
CASES = [
    dict(id="order2-seed1", puzzle="order2", chains=4, seed=1, chain_base=0, chunks=[[0, 70], [70, 200]], t0=2.0),
    dict(id="order2-seed-big", puzzle="order2", chains=3, seed=2**63 + 12345, chain_base=7, chunks=[[0, 160]], t0=0.7),
    dict(id="order3-seed7", puzzle="order3", chains=4, seed=7, chain_base=0, chunks=[[0, 100], [100, 250]], t0=1.0),
    dict(id="order3-seed99-base", puzzle="order3", chains=3, seed=99, chain_base=1000, chunks=[[0, 200]], t0=3.0),
    dict(id="order3-17clue", puzzle="order3_17", chains=2, seed=5, chain_base=0, chunks=[[0, 150]], t0=0.5),
]

STATE_FIELDS = ("config", "counts", "cost", "accepted", "best_cost", "best_config", "best_move")


def case_move(case):
    return sudoku.parse(PUZZLES[case["puzzle"]])[0].move("sirdey")


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
