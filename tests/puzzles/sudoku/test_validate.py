import numpy as np

from gpu_sa.puzzles.sudoku.validate import sudoku_violations

GRID = [[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]]
GIVENS = [[1, 0, 0, 4], [0, 0, 1, 0], [0, 1, 0, 0], [4, 0, 0, 1]]


def test_valid_grid_has_no_violation():
    assert sudoku_violations(GRID, GIVENS) == []


def test_a_broken_box_is_caught_even_when_rows_and_columns_hold():
    # rows and columns are permutations, boxes are not: the box rule is checked on its own
    latin = [[1, 2, 3, 4], [2, 3, 4, 1], [3, 4, 1, 2], [4, 1, 2, 3]]
    problems = sudoku_violations(latin, [[0] * 4] * 4)
    assert problems and all(p.startswith("box") for p in problems)


def test_a_changed_given_is_caught():
    swapped = [row[:] for row in GRID]
    problems = sudoku_violations(swapped, [[2, 0, 0, 0]] + GIVENS[1:])
    assert any("given 2 but holds 1" in p for p in problems)


def test_empty_cell_and_duplicate_are_caught():
    holes = [row[:] for row in GRID]
    holes[0][0] = 0
    holes[1][1] = 3
    problems = sudoku_violations(holes, [[0] * 4] * 4)
    assert any("r1c1 holds 0" in p for p in problems) and any(p.startswith("row 2") for p in problems)


def test_arrays_get_the_same_verdicts_as_lists():
    # the checker tests integer arrays whole, and must name the same violations as for lists
    latin = [[1, 2, 3, 4], [2, 3, 4, 1], [3, 4, 1, 2], [4, 1, 2, 3]]
    holes = [row[:] for row in GRID]
    holes[0][0] = 0
    holes[1][1] = 3
    for grid, givens in [(GRID, GIVENS), (latin, [[0] * 4] * 4), (GRID, [[2, 0, 0, 0]] + GIVENS[1:]),
                         (holes, [[0] * 4] * 4), (GRID, [[0] * 4] * 4)]:
        expected = sudoku_violations(grid, givens)
        assert sudoku_violations(np.array(grid), np.array(givens)) == expected
    assert sudoku_violations(np.array(GRID), np.array(GIVENS)) == []
    assert sudoku_violations(np.array(latin), np.zeros((4, 4), dtype=np.int64)) != []
