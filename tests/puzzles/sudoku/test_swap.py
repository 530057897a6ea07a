"""Move swap (``gpu_sa/puzzles/sudoku/moves/swap.py``, twin ``cpu_ref/sudoku/swap.py``): the backends agree bit for
bit and reach the landed trajectories; with candidates, the chains reach solutions that no swap within
candidates leads to.

Move swap with candidates: the chains reach solutions that no swap within candidates leads to.

One box of a 4x4 grid keeps three free cells whose candidates form a cycle, A {1, 2}, B {2, 3}, C {3, 1}:
its fills within candidates are 123 (the solution) and 231, and no swap that keeps both cells within their
candidates joins them (they differ by a 3-cycle). A move drawing legal partners only left every chain that
started at 231 there for ever (cost 4, null moves only); move swap's plain proposals leave it.
"""
import dataclasses

import numpy as np
import pytest

from move_suite import (pytest_generate_tests, reference_results, test_cases_are_not_trivial,  # noqa: F401
                        test_cpu_equals_numpy, test_cuda_equals_numpy,
                        test_cpu_reproduces_the_landed_trajectories, test_whole_runs_report_what_they_did)
from chain_cases import STATE_FIELDS, backend_named, batch_chains, chunk_of
from gpu_sa.engine import schedule
from gpu_sa.puzzles import sudoku
from gpu_sa.puzzles.sudoku.moves import swap

MOVE = "swap"
GRID = "1234" "3412" "2143" "4321"  # the solution
A, B, C = 0, 1, 4  # the free cells: box 0 but its bottom-right cell
CANDIDATES = {A: (0, 1), B: (1, 2), C: (2, 0)}  # digits 0-based: A {1, 2}, B {2, 3}, C {3, 1}
CHAINS = 16


def _cycle_move():
    text = "".join("." if cell in CANDIDATES else digit for cell, digit in enumerate(GRID))
    move = sudoku.parse(text)[0].move("swap", propagate=False)
    masks = move.tables.masks.copy()
    for cell, digits in CANDIDATES.items():
        masks[0, cell] = sum(1 << d for d in digits)
    restricted = swap.is_restricted(move.tables.givens[0], masks[0], move.tables.boxes[0])
    return dataclasses.replace(move, tables=move.tables._replace(masks=masks, restricted=np.array([restricted], np.uint8)))


def _legal_swaps(fill):
    """Pairs of free cells whose swap keeps both within their candidates, in the fill {cell: digit}."""
    cells = list(CANDIDATES)
    return [(s, t) for n, s in enumerate(cells) for t in cells[n + 1:]
            if fill[t] in CANDIDATES[s] and fill[s] in CANDIDATES[t]]


def _run(backend_name, moves):
    move = _cycle_move()
    backend = backend_named(backend_name)
    state = backend.allocate(move, CHAINS)
    chains = batch_chains(5, CHAINS, [0], [1])
    backend.init(state, move, chains)
    start = np.array(backend.to_host(state).config)
    law = schedule.geometric(t0=0.5, t_end=0.05, plateaus=40, plateau_length=move.plateau_length)
    backend.advance(state, move, chains, chunk_of(law, move, 0, moves))
    host = backend.to_host(state)
    return start, {name: np.asarray(getattr(host, name)) for name in STATE_FIELDS}


def test_the_box_is_restricted_and_its_fills_within_candidates_are_not_joined_by_legal_swaps():
    assert _cycle_move().tables.restricted[0] == 1
    assert _legal_swaps({A: 0, B: 1, C: 2}) == [] and _legal_swaps({A: 1, B: 2, C: 0}) == []


@pytest.mark.parametrize("backend", ["numpy", "cpu"])
def test_every_chain_reaches_the_solution_from_either_fill(backend):
    start, end = _run(backend, moves=400)
    fills = {(int(row[A]), int(row[B]), int(row[C])) for row in start}
    assert fills == {(0, 1, 2), (1, 2, 0)}, "the chains no longer start in both fills: the stranded start goes untested"
    assert np.all(end["best_cost"] == 0), "a chain never reached the solution"
    solution = np.array([int(d) - 1 for d in GRID], dtype=np.uint8)
    for row, cost in zip(end["best_config"], end["best_cost"]):
        np.testing.assert_array_equal(row, solution)


def test_the_twin_and_the_kernel_agree_on_the_cycle():
    _, reference = _run("numpy", moves=400)
    _, compiled = _run("cpu", moves=400)
    for name in STATE_FIELDS:
        np.testing.assert_array_equal(compiled[name], reference[name], err_msg=name)
