"""The 9x9 search on bitboards (``bitboard``) against the cell-mask search it stands in for at order 3
(``search_core`` without seed, without features or with BOX_LINE): the same count, first solution, branches and
outcome on every puzzle, within budgets and after a stop; and the ``box_line`` option of the deterministic search
(the API and ``gpu-sa exact --box-line``)."""
import numpy as np
import pytest

from conftest import DATA, run_cli
from .test_search import _cases
from gpu_sa.puzzles.sudoku import exact
from gpu_sa.puzzles.sudoku.exact import bitboard, counting
from gpu_sa.puzzles.sudoku.exact.backtracking import DETERMINISTIC, NEVER, search_batch
from gpu_sa.puzzles.sudoku.exact.consistency import BOX_LINE
from gpu_sa.puzzles.sudoku.exact.learning import initial_weights
from gpu_sa.puzzles.sudoku import parse

PEERS, UNITS, CELL_UNITS, FULL = exact.tables(3)


def _puzzles():
    """The bundled samples (top1465, the forum's hardest, 17-clue: one solution each) and random grids with
    holes: unique, several solutions, or a wrong given."""
    samples = [p.givens for p in parse((DATA / "sudoku_samples.txt").read_text())]
    return samples + _cases(3, 90, seed=1234)


def _cell_masks(givens, cand, limit, max_nodes, flag, box_line=False):
    masks = np.zeros(81, dtype=np.uint64)
    found, nodes, outcome = exact.search_core(cand, PEERS, UNITS, CELL_UNITS, FULL, limit, max_nodes, masks,
                                              exact.ZERO, flag, np.uint32(0), np.uint32(0), DETERMINISTIC,
                                              np.full(1, NEVER, np.int64), False, BOX_LINE if box_line else 0,
                                              initial_weights(3), masks.copy(), masks.copy())
    return (found, nodes, outcome), masks


def _bitboards(cand, limit, max_nodes, flag, box_line=False):
    masks = np.zeros(81, dtype=np.uint64)
    return bitboard.search9(cand, bitboard.PEERS, limit, max_nodes, flag, masks, box_line), masks


@pytest.mark.parametrize("box_line", [False, True])
@pytest.mark.parametrize("limit", [1, 2, 5])
def test_every_puzzle_gets_the_same_count_solution_and_branches(limit, box_line):
    branches = 0
    for givens in _puzzles():
        cand = exact.initial_candidates(givens, 3)
        expected, expected_masks = _cell_masks(givens, cand, limit, 10**7, np.zeros(1, np.uint8), box_line)
        got, masks = _bitboards(cand, limit, 10**7, np.zeros(1, np.uint8), box_line)
        assert tuple(got) == tuple(expected), givens
        assert np.array_equal(masks, expected_masks), givens
        branches += got[1]
    assert branches > 1500  # searches deep enough to exercise every rule at every depth


def test_the_box_line_tables_hold_the_rule():
    """``LOCKED`` against the rule read off the matrix directly: no row or column of the result has one bit with
    another bit left in its column or row, and nothing a solution could use was removed: every permutation
    matrix inside the input (a digit's places, one per line and one per box) is inside the result."""
    import itertools

    permutations = [sum(1 << (3 * k + j) for k, j in enumerate(p)) for p in itertools.permutations(range(3))]
    for matrix in range(512):
        locked = int(bitboard.LOCKED[matrix])
        assert locked & ~matrix == 0
        for line in range(3):
            row = locked >> (3 * line) & 7
            if row and not row & (row - 1):
                j = row.bit_length() - 1
                assert all(not locked >> (3 * other + j) & 1 for other in range(3) if other != line)
            column = line
            rows = [k for k in range(3) if locked >> (3 * k + column) & 1]
            if len(rows) == 1:
                assert (locked >> (3 * rows[0]) & 7) == 1 << column
        for permutation in permutations:
            if permutation & matrix == permutation:
                assert permutation & locked == permutation
    assert int(bitboard.LOCKED[0b001_011_111]) == 0b001_010_100  # row 2 takes box 0, then row 1 box 1
    assert int(bitboard.SPREAD[0b100_000_001]) == 0x7 | 0x7 << 24


@pytest.mark.parametrize("box_line", [False, True])
def test_budgets_end_at_the_same_branch_and_a_root_at_its_fixpoint_changes_nothing(box_line):
    for givens in _puzzles()[:40]:
        cand = exact.initial_candidates(givens, 3)
        for budget in (0, 1, 7, 40):
            assert tuple(_bitboards(cand, 2, budget, np.zeros(1, np.uint8), box_line)[0]) == \
                tuple(_cell_masks(givens, cand, 2, budget, np.zeros(1, np.uint8), box_line)[0])
        propagated = exact.propagate(givens, 3)
        if not propagated.contradiction:
            assert tuple(_bitboards(propagated.candidates, 2, 10**7, np.zeros(1, np.uint8), box_line)[0]) == \
                tuple(_bitboards(cand, 2, 10**7, np.zeros(1, np.uint8), box_line)[0])


@pytest.mark.parametrize("box_line", [False, True])
def test_a_stop_ends_both_at_the_same_branch(box_line):
    empty = np.full(81, -1, dtype=np.int16)  # more solutions than any limit: only the stop ends it
    cand = exact.initial_candidates(empty, 3)
    got = _bitboards(cand, 10**9, 10**9, np.ones(1, np.uint8), box_line)[0]
    assert tuple(got) == tuple(_cell_masks(empty, cand, 10**9, 10**9, np.ones(1, np.uint8), box_line)[0])
    assert got[2] == exact.backtracking.STOPPED and got[1] == 1023


def test_count_many_and_the_deterministic_count_run_on_bitboards_at_order_3(monkeypatch):
    puzzles = np.stack(_puzzles()[:30])
    counts, nodes, outcome = (np.zeros(len(puzzles), np.int64) for _ in range(3))
    solutions = np.empty_like(puzzles)
    search_batch(puzzles, PEERS, UNITS, CELL_UNITS, FULL, 2, 10**7, np.zeros(1, np.uint8), counts, solutions, nodes,
                 outcome, 0)
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


def test_box_line_counts_the_same_with_fewer_branches_at_every_order():
    """``box_line=True`` (count_many and count_solutions, bitboards at order 3, ``search_core`` with BOX_LINE
    elsewhere): the same counts as the seed's rules, the batch and the single search the same answers and branches,
    and at 9x9 and 16x16 fewer branches over the lot (a branch can still cost more: another cell is chosen)."""
    for order, puzzles in ((3, _puzzles()[:30]), (4, _cases(4, 12, seed=99)), (2, _cases(2, 20, seed=5))):
        puzzles = np.stack(puzzles)
        plain = exact.count_many(puzzles, order)
        stronger = exact.count_many(puzzles, order, box_line=True)
        assert [a.solutions for a in stronger] == [a.solutions for a in plain], order
        if order > 2:  # (4x4 grids leave the rule next to nothing: 36 branches either way on these)
            assert sum(a.nodes for a in stronger) < sum(a.nodes for a in plain), order
        for givens, batch in zip(puzzles, stronger):
            single = exact.count_solutions(givens, order, box_line=True)
            assert (single.solutions, single.nodes) == (batch.solutions, batch.nodes)
            assert (single.solution is None) == (batch.solution is None)
            if single.solution is not None:
                assert np.array_equal(single.solution, batch.solution)
                assert exact.count_solutions(givens, order, box_line=True,
                                             propagated=exact.propagate(givens, order)).nodes == single.nodes
    with pytest.raises(ValueError, match="deterministic search"):
        exact.count_solutions(puzzles[0], 2, seed=1, box_line=True)


@pytest.mark.slow
def test_exact_box_line_on_the_command_line(tmp_path):
    puzzle = tmp_path / "hard.txt"
    first = next(line for line in (DATA / "sudoku_samples.txt").read_text().splitlines() if not line.startswith("#"))
    puzzle.write_text(first + "\n")
    import json

    plain, stronger = (run_cli("exact", puzzle, "--json", *extra) for extra in ((), ("--box-line",)))
    assert plain.returncode == stronger.returncode == 0, plain.stderr + stronger.stderr
    plain, stronger = json.loads(plain.stdout), json.loads(stronger.stdout)
    assert (stronger["solutions"], stronger["solution"]) == (plain["solutions"], plain["solution"])
    assert stronger["nodes"] < plain["nodes"]
    refused = run_cli("exact", puzzle, "--box-line", "--seed", "1")
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.strip().splitlines() == [
        "gpu-sa: error: --box-line is an option of the deterministic search: not with --seed (the seeded search "
        "chooses its propagation per grid size)"]
