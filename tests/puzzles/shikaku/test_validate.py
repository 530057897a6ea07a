"""The independent Shikaku checker: valid solutions pass, and each rule, broken on its own, is reported (so no
check can be dead code)."""
from gpu_sa.puzzles.shikaku.validate import shikaku_violations

# 3x3, clues 3 (row 0), 2 at r2c1 (rows 1..2 of column 0), 4 at r2c3 (the 2x2 at the bottom right).
CLUES = [[0, 3, 0],
         [2, 0, 0],
         [0, 0, 4]]
RECTANGLES = [[0, 0, 0, 2], [1, 0, 2, 0], [1, 1, 2, 2]]


def test_valid_shikaku_has_no_violation():
    assert shikaku_violations(CLUES, RECTANGLES) == []


def test_shikaku_rectangle_count_must_match_the_clues():
    problems = shikaku_violations([[4, 0], [0, 0]], [[0, 0, 1, 1], [0, 0, 1, 1]])
    assert "2 rectangles for 1 clues" in problems


def test_shikaku_rectangle_outside_the_grid_or_malformed():
    assert any("leaves the 3x3 grid" in p for p in shikaku_violations(CLUES, [[0, 0, 0, 3], *RECTANGLES[1:]]))
    assert any("leaves the 3x3 grid" in p for p in shikaku_violations(CLUES, [[0, 2, 0, 0], *RECTANGLES[1:]]))
    assert any("not four integers" in p for p in shikaku_violations(CLUES, [[0, 0, 0], *RECTANGLES[1:]]))


def test_shikaku_rectangle_without_a_clue_or_with_two():
    clues = [[2, 0], [0, 2]]
    empty = shikaku_violations(clues, [[0, 1, 0, 1], [1, 1, 1, 1]])
    assert any("rectangle 1 [0, 1, 0, 1] holds 0 clues" in p for p in empty)
    double = shikaku_violations(clues, [[0, 0, 1, 1], [1, 1, 1, 1]])
    assert any("rectangle 1 [0, 0, 1, 1] holds 2 clues" in p for p in double)


def test_shikaku_rectangles_in_the_wrong_clue_order():
    # Each rectangle is right for some clue, but the list is not in row-major clue order.
    problems = shikaku_violations(CLUES, [RECTANGLES[1], RECTANGLES[0], RECTANGLES[2]])
    assert any("holds the clue at r2c1, not its own at r1c2" in p for p in problems)


def test_shikaku_area_must_be_the_clue():
    problems = shikaku_violations([[3, 0, 0]], [[0, 0, 0, 1]])
    assert "rectangle 1 [0, 0, 0, 1] has area 2 but holds the clue 3" in problems


def test_shikaku_uncovered_cell():
    # The one rectangle is right for its clue, but the grid has a third cell.
    assert shikaku_violations([[2, 0, 0]], [[0, 0, 0, 1]]) == ["r1c3 is covered 0 times"]


def test_shikaku_overlap_alone_is_reported_as_double_cover():
    # Two clues of 2 at the ends of a 1x4 row: [0..1] and [1..2] overlap at c2 and miss c4; each
    # holds exactly its own clue with the right area, so only coverage can catch it.
    problems = shikaku_violations([[2, 0, 2, 0]], [[0, 0, 0, 1], [0, 1, 0, 2]])
    assert problems == ["r1c2 is covered 2 times", "r1c4 is covered 0 times"]
