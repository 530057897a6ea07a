"""The 9x9 search on bitboards (``bitboard``) against the cell-mask search it stands in for at order 3
(``search_core`` without features or seed): the same count, first solution, branches and outcome on every
puzzle, within budgets and after a stop."""
import numpy as np
import pytest

from conftest import DATA
from test_exact import _cases
from gpu_sa.exact import sudoku as exact
from gpu_sa.exact.sudoku import bitboard, counting
from gpu_sa.exact.sudoku.backtracking import DETERMINISTIC, NEVER, search_batch
from gpu_sa.exact.sudoku.learning import initial_weights
from gpu_sa.puzzles.sudoku import parse

PEERS, UNITS, CELL_UNITS, FULL = exact.tables(3)


def _puzzles():
    """The bundled samples (top1465, the forum's hardest, 17-clue: one solution each) and random grids with
    holes: unique, several solutions, or a wrong given."""
    samples = [p.givens for p in parse((DATA / "sudoku_samples.txt").read_text())]
    return samples + _cases(3, 90, seed=1234)


def _cell_masks(givens, cand, limit, max_nodes, flag):
    masks = np.zeros(81, dtype=np.uint64)
    found, nodes, outcome = exact.search_core(cand, PEERS, UNITS, CELL_UNITS, FULL, limit, max_nodes, masks,
                                              exact.ZERO, flag, np.uint32(0), np.uint32(0), DETERMINISTIC,
                                              np.full(1, NEVER, np.int64), False, 0, initial_weights(3),
                                              masks.copy(), masks.copy())
    return (found, nodes, outcome), masks


def _bitboards(cand, limit, max_nodes, flag):
    masks = np.zeros(81, dtype=np.uint64)
    return bitboard.search9(cand, bitboard.PEERS, limit, max_nodes, flag, masks), masks


@pytest.mark.parametrize("limit", [1, 2, 5])
def test_every_puzzle_gets_the_same_count_solution_and_branches(limit):
    branches = 0
    for givens in _puzzles():
        cand = exact.initial_candidates(givens, 3)
        expected, expected_masks = _cell_masks(givens, cand, limit, 10**7, np.zeros(1, np.uint8))
        got, masks = _bitboards(cand, limit, 10**7, np.zeros(1, np.uint8))
        assert tuple(got) == tuple(expected), givens
        assert np.array_equal(masks, expected_masks), givens
        branches += got[1]
    assert branches > 3000  # searches deep enough to exercise every rule at every depth


def test_budgets_end_at_the_same_branch_and_a_root_at_its_fixpoint_changes_nothing():
    for givens in _puzzles()[:40]:
        cand = exact.initial_candidates(givens, 3)
        for budget in (0, 1, 7, 40):
            assert tuple(_bitboards(cand, 2, budget, np.zeros(1, np.uint8))[0]) == \
                tuple(_cell_masks(givens, cand, 2, budget, np.zeros(1, np.uint8))[0])
        propagated = exact.propagate(givens, 3)
        if not propagated.contradiction:
            assert tuple(_bitboards(propagated.candidates, 2, 10**7, np.zeros(1, np.uint8))[0]) == \
                tuple(_bitboards(cand, 2, 10**7, np.zeros(1, np.uint8))[0])


def test_a_stop_ends_both_at_the_same_branch():
    empty = np.full(81, -1, dtype=np.int16)  # more solutions than any limit: only the stop ends it
    cand = exact.initial_candidates(empty, 3)
    got = _bitboards(cand, 10**9, 10**9, np.ones(1, np.uint8))[0]
    assert tuple(got) == tuple(_cell_masks(empty, cand, 10**9, 10**9, np.ones(1, np.uint8))[0])
    assert got[2] == exact.backtracking.STOPPED and got[1] == 1023


def test_count_many_and_the_deterministic_count_run_on_bitboards_at_order_3(monkeypatch):
    puzzles = np.stack(_puzzles()[:30])
    counts, nodes, outcome = (np.zeros(len(puzzles), np.int64) for _ in range(3))
    solutions = np.empty_like(puzzles)
    search_batch(puzzles, PEERS, UNITS, CELL_UNITS, FULL, 2, 10**7, np.zeros(1, np.uint8), counts, solutions, nodes,
                 outcome)
    exact.count_many(puzzles[:1], 3)  # compiled (``counting._loaded``) before anything is watched
    exact.count_solutions(puzzles[0], 3)
    calls = []
    for name in ("search9", "search_batch9"):
        original = getattr(counting, name)
        monkeypatch.setattr(counting, name, lambda *args, _f=original, _n=name: calls.append(_n) or _f(*args))
    answers = exact.count_many(puzzles, 3)
    assert [a.solutions for a in answers] == counts.tolist() and [a.nodes for a in answers] == nodes.tolist()
    for answer, solution in zip(answers, solutions):
        assert answer.solution is None if answer.solutions == 0 else np.array_equal(answer.solution, solution)
    single = exact.count_solutions(puzzles[0], 3)
    assert (single.solutions, single.nodes) == (counts[0], nodes[0])
    assert calls == ["search_batch9", "search9"]
