"""The independent Hashiwokakero checker: valid solutions pass, and each rule, broken on its own, is reported (so
no check can be dead code)."""
from gpu_sa.puzzles.hashi.validate import hashi_violations

# 3 = 2      a double bridge along the top row,
# |          a single one down the left column
# 1
GRID = [[3, 0, 2],
        [0, 0, 0],
        [1, 0, 0]]
BRIDGES = [[0, 0, 0, 2, 2], [0, 0, 2, 0, 1]]


def test_valid_hashi_has_no_violation():
    assert hashi_violations(GRID, BRIDGES) == []
    # the order of a bridge's two ends does not matter
    assert hashi_violations(GRID, [[0, 2, 0, 0, 2], [2, 0, 0, 0, 1]]) == []


def test_hashi_bridge_must_join_two_islands_in_the_grid():
    assert any("leaves the 3x3 grid" in p for p in hashi_violations(GRID, [[0, 0, 0, 3, 2], BRIDGES[1]]))
    assert any("does not join two islands" in p for p in hashi_violations(GRID, [[0, 0, 0, 1, 2], BRIDGES[1]]))
    assert any("not five integers" in p for p in hashi_violations(GRID, [[0, 0, 0, 2], BRIDGES[1]]))


def test_hashi_bridge_must_run_along_a_row_or_column():
    grid = [[1, 0], [0, 1]]
    assert any("of one row or column" in p for p in hashi_violations(grid, [[0, 0, 1, 1, 1]]))
    assert any("of one row or column" in p for p in hashi_violations(grid, [[0, 0, 0, 0, 1]]))


def test_hashi_bridge_must_not_pass_over_an_island():
    grid = [[1, 2, 1]]
    problems = hashi_violations(grid, [[0, 0, 0, 2, 1], [0, 0, 0, 1, 1]])
    assert any("bridge 1 [0, 0, 0, 2, 1] passes over an island" in p for p in problems)


def test_hashi_bridge_count_is_one_or_two():
    problems = hashi_violations([[3, 0, 3]], [[0, 0, 0, 2, 3]])
    assert problems == ["bridge 1 [0, 0, 0, 2, 3] has 3 bridges, not 1 or 2",
                        "island r1c1 (3) has 0 bridges", "island r1c3 (3) has 0 bridges",
                        "the bridges connect 1 of the 2 islands from r1c1, not all"]


def test_hashi_pair_listed_twice():
    problems = hashi_violations([[2, 0, 2]], [[0, 0, 0, 2, 1], [0, 2, 0, 0, 1]])
    assert any("joins a pair of islands already joined" in p for p in problems)


def test_hashi_crossing_bridges():
    #   . 1 .
    #   1 . 1      the horizontal and the vertical bridge meet at the centre
    #   . 1 .
    grid = [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    problems = hashi_violations(grid, [[1, 0, 1, 2, 1], [0, 1, 2, 1, 1]])
    assert "bridges 1 and 2 cross at r2c2" in problems


def test_hashi_island_degree_must_be_its_number():
    problems = hashi_violations(GRID, [[0, 0, 0, 2, 1], [0, 0, 2, 0, 1]])
    assert "island r1c1 (3) has 2 bridges" in problems and "island r1c3 (2) has 1 bridges" in problems


def test_hashi_islands_must_be_connected():
    # Degrees are right, but the two pairs are apart.
    grid = [[1, 0, 1], [0, 0, 0], [1, 0, 1]]
    problems = hashi_violations(grid, [[0, 0, 0, 2, 1], [2, 0, 2, 2, 1]])
    assert problems == ["the bridges connect 2 of the 4 islands from r1c1, not all"]
