"""Move tabu (``gpu_sa/puzzles/sudoku/moves/tabu.py``, twin ``cpu_ref/sudoku/tabu.py``): the backends agree bit for
bit; its tables, built over whole arrays, against the definition written cell by cell; its segments (Sudoku-LS's
returns to its best configuration), move by move on the NumPy twin.

The segment tests check that the bit-exact cases (tests/chain_cases.py, ids "tabu-*-segments") really take every
path of the segments (a return, a longer segment, a return after the journal overflowed) and that a return lands
on a configuration of the chain's best cost, the last one reached.
"""
from __future__ import annotations

import numpy as np
import pytest

import gpu_sa
from move_suite import (pytest_generate_tests, reference_results, test_cases_are_not_trivial,  # noqa: F401
                        test_cpu_equals_numpy, test_cuda_equals_numpy)
from chain_cases import CASES, backend_named, chunk_of, start_case
from conftest import DATA, ROOT
from gpu_sa.puzzles.sudoku.moves import tabu

MOVE = "tabu"
SEGMENT_CASES = {case["id"]: case for case in CASES if "tables" in case and case["move"] == "tabu"}

SAMPLES = [line for line in (DATA / "sudoku_samples.txt").read_text().splitlines()
           if line and not line.startswith("#")]


def tables_cell_by_cell(givens, masks, order):
    """The definition: each free cell's candidates (its mask less its given peers' digits, increasing, 0-padded)
    and its free peers (same row, column or box, itself out, by increasing index, -1-padded to 3N)."""
    side = order * order
    free = np.flatnonzero(givens < 0)
    rows, columns = free // side, free % side
    boxes = (rows // order) * order + columns // order
    grid = givens.reshape(side, side)
    candidates = np.zeros((free.size, 1 + side), dtype=np.uint8)
    peers = np.full((free.size, 3 * side), -1, dtype=np.int16)
    n_peers = np.zeros(free.size, dtype=np.int16)
    for f, cell in enumerate(free):
        r, c = divmod(int(cell), side)
        top, left = (r // order) * order, (c // order) * order
        held = set(grid[r][grid[r] >= 0]) | set(grid[:, c][grid[:, c] >= 0])
        box = grid[top:top + order, left:left + order]
        held |= set(box[box >= 0])
        digits = [d for d in range(side) if (int(masks[cell]) >> d) & 1 and d not in held]
        if not digits:
            raise ValueError(f"cell r{r + 1}c{c + 1} has no possible digit: the puzzle has no solution")
        candidates[f, 0] = len(digits)
        candidates[f, 1:1 + len(digits)] = digits
        near = np.flatnonzero((rows == r) | (columns == c) | (boxes == boxes[f]))
        near = near[near != f]
        peers[f, :near.size] = near
        n_peers[f] = near.size
    return free, candidates, peers, n_peers


def puzzles():
    for line in SAMPLES[:12]:
        yield gpu_sa.parse(line)[0]
    yield gpu_sa.parse(("0 " * 16 + "\n") * 16)[0]  # empty 16x16: every cell free
    yield gpu_sa.parse((ROOT / "bench" / "data" / "sudoku_ls" / "INST_36x36" / "50" / "inst36x36_50_0.txt").read_text())[0]


@pytest.mark.parametrize("propagate", [True, False])
def test_the_tables_follow_the_definition(propagate):
    for puzzle in puzzles():
        values, masks = puzzle.propagation if propagate else puzzle.unpropagated
        givens = np.asarray(values, dtype=np.int16)
        built = tabu.tables(givens, masks, puzzle.order)
        free, candidates, peers, n_peers = tables_cell_by_cell(givens, masks, puzzle.order)
        assert np.array_equal(built.free_cells[0], free) and built.n_free[0] == free.size
        assert np.array_equal(built.candidates[0], candidates)
        assert np.array_equal(built.peers[0], peers) and np.array_equal(built.n_peers[0], n_peers)


def test_a_cell_without_a_digit_is_named():
    givens = np.full(16, -1, dtype=np.int16)
    givens[[1, 2, 3]] = [0, 1, 2]  # row 1 holds 1, 2, 3: r1c1 may only be 4
    masks = np.full(16, 0b0111, dtype=np.uint64)  # ... and its mask says 1-3
    with pytest.raises(ValueError, match=r"^cell r1c1 has no possible digit"):
        tabu.tables(givens, masks, 2)
    with pytest.raises(ValueError, match=r"^cell r1c1 has no possible digit"):
        tables_cell_by_cell(givens, masks, 2)


def test_the_local_search_root_is_stronger_than_the_rules_and_keeps_the_solution():
    """Move tabu starts from the rules' fixpoint strengthened by box-line reduction and AllDifferent consistency:
    on Sudoku-LS's 49x49 at 60 % givens, instance 0, the rules leave 756 free cells and the stronger rules 33; the
    cells the rules fixed keep their digits, and the solution the complete search finds lies in every cell's
    candidates (nothing sound is lost)."""
    puzzle = gpu_sa.parse((ROOT / "bench" / "data" / "sudoku_ls" / "INST_49x49" / "60" /
                           "inst49x49_60_0.txt").read_text())[0]
    values, masks = puzzle.local_search_root
    rule_values, _ = puzzle.propagation
    assert int((rule_values < 0).sum()) == 756 and int((values < 0).sum()) == 33
    fixed = rule_values >= 0
    np.testing.assert_array_equal(values[fixed], rule_values[fixed])
    assert int(puzzle.move("tabu").tables.n_free[0]) == 33 and int(puzzle.move("sirdey").tables.n_free.max()) == 756
    found = puzzle.count_solutions(limit=1, seed=1, time_limit=60)
    assert found.solutions == 1
    solution = np.asarray(found.solution, dtype=np.int64)
    assert not puzzle.check(solution)
    assert np.all((masks >> solution.astype(np.uint64)) & np.uint64(1))
    np.testing.assert_array_equal(values[values >= 0], solution[values >= 0])


def walk_case(case):
    """Yield (state before, state after) host copies for every move of the case, on the NumPy twin."""
    backend = backend_named("numpy")
    move, law, chains, state = start_case(backend, case)
    for index in range(case["chunks"][-1][1]):
        before = {name: getattr(state, name).copy() for name in ("memory", "config", "cost", "best_cost", "accepted")}
        backend.advance(state, move, chains, chunk_of(law, move, index, index + 1, case.get("interval")))
        yield move, before, state


@pytest.mark.slow
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


def test_the_segment_gate_widens_from_81x81():
    """Segments count from best cost 8 down up to 64x64, from 24 down from 81x81 (a chain's best cost sits at 10-12
    there for millions of moves); a gate given outright is kept."""
    for order, gate in ((2, 8), (8, 8), (9, 24), (11, 24)):
        assert tabu.default_segment_cost(order) == gate
    side = 81
    empty = np.full(side * side, -1, dtype=np.int16)
    every_digit = np.ones((side * side, side), dtype=bool)
    assert tabu.tables(empty, every_digit, 9).segment_cost == 24
    assert tabu.tables(empty, every_digit, 9, segment_cost=8).segment_cost == 8
    small = np.full(16, -1, dtype=np.int16), np.full(16, 0b1111, dtype=np.uint64)
    assert tabu.tables(*small, 2).segment_cost == 8


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
