"""Move tabu's segments (Sudoku-LS's returns to its best configuration), move by move on the NumPy twin.

The bit-exact cases (tests/chain_cases.py, ids "tabu-*-segments") compare the backends; these tests check that
those cases really take every path of the segments (a return, a longer segment, a return after the journal
overflowed) and that a return lands on a configuration of the chain's best cost, the last one reached.
"""
from __future__ import annotations

import numpy as np
import pytest

from chain_cases import CASES, backend_named, chunk_of, start_case
from gpu_sa.puzzles.sudoku import tabu

SEGMENT_CASES = {case["id"]: case for case in CASES if "tables" in case and case["move"] == "tabu"}


def walk_case(case):
    """Yield (state before, state after) host copies for every move of the case, on the NumPy twin."""
    backend = backend_named("numpy")
    move, law, chains, state = start_case(backend, case)
    for index in range(case["chunks"][-1][1]):
        before = {name: getattr(state, name).copy() for name in ("memory", "config", "cost", "best_cost", "accepted")}
        backend.advance(state, move, chains, chunk_of(law, move, index, index + 1, case.get("interval")))
        yield move, before, state


def test_segment_cases_take_every_path():
    returns = longer = after_overflow = 0
    for case in SEGMENT_CASES.values():
        for move, before, state in walk_case(case):
            width = move.tables.free_cells.shape[1]
            returned = state.memory[:, tabu.SEGMENT_LEFT] > before["memory"][:, tabu.SEGMENT_LEFT]
            returns += int(returned.sum())
            longer += int((returned & (state.memory[:, tabu.SEGMENT_LENGTH] > move.tables.segment_moves.max())).sum())
            after_overflow += int((returned & (before["memory"][:, tabu.JOURNAL_LENGTH] == width + 1)).sum())
    assert returns >= 20 and longer >= 5 and after_overflow >= 1, (returns, longer, after_overflow)


def test_a_return_lands_on_the_last_best_configuration():
    checked = 0
    for case_id in ("tabu-order3-segments", "tabu-order3-hot-segments"):
        checked += _returns_checked(SEGMENT_CASES[case_id])
    assert checked >= 4  # 5 at the time of writing


def _returns_checked(case):
    last_best = {}  # row -> the grid of the last move that ended at the row's best cost
    checked = 0
    for move, before, state in walk_case(case):
        returned = np.flatnonzero(state.memory[:, tabu.SEGMENT_LEFT] > before["memory"][:, tabu.SEGMENT_LEFT])
        for row in returned:
            assert state.cost[row] == state.best_cost[row]
            if state.accepted[row] == before["accepted"][row]:  # (a move that reached the best and ended the
                np.testing.assert_array_equal(state.config[row], last_best[row])  # segment returns to itself)
                checked += 1
        for row in np.flatnonzero(state.cost == state.best_cost):
            if row not in returned:
                last_best[row] = state.config[row].copy()
        for row in range(state.cost.shape[0]):
            last_best.setdefault(row, before["config"][row].copy())
    return checked


def test_segment_settings_are_checked():
    empty, every_digit = np.full(16, -1, dtype=np.int16), np.full(16, 0b1111, dtype=np.uint64)
    for lengths in (1 << 24, [], [10, -1], [[10]]):
        with pytest.raises(ValueError, match="segment_moves"):
            tabu.tables(empty, every_digit, 2, segment_moves=lengths)
    assert tabu.tables(empty, every_digit, 2, segment_moves=7).segment_moves.tolist() == [7]


def test_each_chain_takes_its_own_segment_length():
    case = SEGMENT_CASES["tabu-order3-segments"]  # chains 0, 1, 2 and lengths (23, 61): chain c takes c mod 2
    move, _, state = next(walk_case(case))
    np.testing.assert_array_equal(state.memory[:, tabu.SEGMENT_LENGTH], [23, 61, 23])
    np.testing.assert_array_equal(state.memory[:, tabu.SEGMENT_BASE], [23, 61, 23])


def test_segments_count_moves_only_near_a_solution():
    """segment_cost 3: a chain whose best cost is above it does not count its moves (its segment's moves left stay),
    one at or below it counts every move it makes while it has conflicts; the case sees both."""
    case = SEGMENT_CASES["tabu-order3-gated-segments"]
    assert case["tables"]["segment_cost"] == 3
    held = counted = 0
    for move, before, state in walk_case(case):
        searching = before["memory"][:, tabu.CONFLICTING] > 0
        left_before, left = before["memory"][:, tabu.SEGMENT_LEFT], state.memory[:, tabu.SEGMENT_LEFT]
        near = state.best_cost <= 3
        returned = left > left_before
        for row in np.flatnonzero(searching):
            if near[row]:
                assert returned[row] or left[row] == left_before[row] - 1
                counted += 1
            else:
                assert left[row] == left_before[row]
                held += 1
    assert held >= 50 and counted >= 50, (held, counted)
