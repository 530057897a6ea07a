"""Move tabu's tables, built over whole arrays, against the definition written cell by cell."""
import numpy as np
import pytest

import gpu_sa
from gpu_sa.puzzles.sudoku import tabu
from conftest import DATA, ROOT

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
