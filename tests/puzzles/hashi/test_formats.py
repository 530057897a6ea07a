import numpy as np
import pytest

from conftest import DATA
from gpu_sa.puzzles.common.errors import PuzzleError
from gpu_sa.puzzles.hashi.formats import FORMATS, draw_solution, parse, write

URL = "https://puzz.link/p?hashi/"

# 3 rows x 4 columns
SMALL = np.array([[2, 0, 0, 1],
                  [0, 0, 0, 0],
                  [3, 0, 0, 2]])
SMALL_BRIDGES = [[0, 0, 0, 3, 1], [0, 0, 2, 0, 1], [2, 0, 2, 3, 2]]


def one_line(error):
    message = str(error.value)
    assert "\n" not in message
    return message


def special_grids():
    long_water = np.zeros((1, 60), dtype=np.int64)  # 58 water cells: > 26 (Tatham), > 20 (puzz.link)
    long_water[0, 0] = long_water[0, 59] = 1
    every_value = np.array([[1, 0, 2, 0, 3, 0, 4, 0], [0, 0, 0, 0, 0, 0, 0, 0], [5, 0, 6, 0, 7, 0, 8, 0]])
    return {"small": SMALL, "long_water": long_water, "every_value": every_value,
            "tall": long_water.reshape(60, 1), "adjacent": np.array([[3, 3], [3, 3]]), "one": np.array([[8]])}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", sorted(special_grids()))
def test_round_trip(fmt, name):
    grid = special_grids()[name]
    text = write(grid, fmt)
    puzzles = parse(text)  # auto-detection must find the format too
    assert len(puzzles) == 1 and puzzles[0].fmt == fmt
    assert puzzles[0].grid.dtype == np.int32
    np.testing.assert_array_equal(puzzles[0].grid, grid)
    np.testing.assert_array_equal(parse(text, fmt=fmt)[0].grid, grid)


@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip_random_non_square(fmt):
    generator = np.random.default_rng(99)
    for _ in range(40):
        rows, cols = (int(v) for v in generator.integers(1, 30, size=2))
        grid = np.where(generator.random((rows, cols)) < 0.25, generator.integers(1, 9, (rows, cols)), 0)
        grid[generator.integers(rows), generator.integers(cols)] = int(generator.integers(1, 9))
        again = parse(write(grid, fmt), fmt=fmt)[0].grid
        assert again.shape == (rows, cols)
        np.testing.assert_array_equal(again, grid)


def test_written_forms():
    assert write(SMALL, "has") == "3 4 4\n2 0 0 1\n0 0 0 0\n3 0 0 2"
    assert write(SMALL, "plain") == "2..1\n....\n3..2"
    assert write(SMALL, "tatham") == "4x3:2b1d3b2"
    assert write(SMALL, "puzzlink") == "https://puzz.link/p?hashi/4/3/2h1j3h2"
    assert write(special_grids()["long_water"], "tatham") == "60x1:1zzf1"
    assert write(special_grids()["long_water"], "puzzlink").endswith("/60/1/1zzx1")


# Simon Tatham's Portable Puzzle Collection, icons/bridges.sav (the game the Bridges icon is drawn
# from; copy read at chrisboyle/sgtpuzzles jni/icons/bridges.sav): PARAMS 10x10i30e10m2d2, DESC below.
TATHAM_BRIDGES_ID = "10x10i30e10m2d2:a1a4a4b4k4b6b2a4b2b2b1e2e1a4b4c3j25d2a1f2c3a4d4c3"
TATHAM_BRIDGES = np.array([  # by hand; the save file's moves agree, e.g. "L8,0,5,0" joins x8y0 = 4 to x5y0 = 4
    [0, 1, 0, 4, 0, 4, 0, 0, 4, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [4, 0, 0, 6, 0, 0, 2, 0, 4, 0],
    [0, 2, 0, 0, 2, 0, 0, 1, 0, 0],
    [0, 0, 0, 2, 0, 0, 0, 0, 0, 1],
    [0, 4, 0, 0, 4, 0, 0, 0, 3, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 2],
    [5, 0, 0, 0, 0, 2, 0, 1, 0, 0],
    [0, 0, 0, 0, 2, 0, 0, 0, 3, 0],
    [4, 0, 0, 0, 0, 4, 0, 0, 0, 3]])

# pzprjs test/script/hashikake.js: url "5/5/4g2i3h23k3g1g3g4g3", whose board the same file spells out
# as the pzprv3 file "5/5/4 . 2 . . /. 3 . . 2 /3 . . . . /. 3 . 1 . /3 . 4 . 3 /"
PZPRJS_HASHI = np.array([
    [4, 0, 2, 0, 0],
    [0, 3, 0, 0, 2],
    [3, 0, 0, 0, 0],
    [0, 3, 0, 1, 0],
    [3, 0, 4, 0, 3]])


def test_known_tatham_id():
    puzzle = parse(TATHAM_BRIDGES_ID)[0]
    assert puzzle.fmt == "tatham"
    np.testing.assert_array_equal(puzzle.grid, TATHAM_BRIDGES)
    assert write(TATHAM_BRIDGES, "tatham") == "10x10:" + TATHAM_BRIDGES_ID.split(":")[1]  # bridges.c encode_game


@pytest.mark.parametrize("url", [
    "https://puzz.link/p?hashi/5/5/4g2i3h23k3g1g3g4g3",
    "http://pzv.jp/p.html?hashikake/5/5/4g2i3h23k3g1g3g4g3",
    "https://pzprxs.vercel.app/p?bridges/5/5/4g2i3h23k3g1g3g4g3",  # pzprjs variety.js: pzprurl hashi, alias bridges
    "hashi/5/5/4g2i3h23k3g1g3g4g3",
])
def test_known_pzprjs_url(url):
    puzzle = parse(url)[0]
    assert puzzle.fmt == "puzzlink"
    np.testing.assert_array_equal(puzzle.grid, PZPRJS_HASHI)
    assert write(PZPRJS_HASHI, "puzzlink") == "https://puzz.link/p?hashi/5/5/4g2i3h23k3g1g3g4g3"


def test_non_square_ids_put_width_first():
    # Tatham "WxH" and pzprjs "(cols)/(rows)": 2 wide, 3 high
    expected = np.array([[1, 0], [0, 0], [0, 1]])
    np.testing.assert_array_equal(parse("2x3:1d1")[0].grid, expected)
    np.testing.assert_array_equal(parse("hashi/2/3/1j1")[0].grid, expected)


def test_coelho_has_file():
    # tests/data/hashi_coelho_100_001.has = shared/data/hashi/coelho2019/100/Hs_16_100_25_00_001.has
    puzzles = parse((DATA / "hashi_coelho_100_001.has").read_text(), "Hs_16_100_25_00_001.has")
    assert len(puzzles) == 1 and puzzles[0].fmt == "has" and puzzles[0].line == 1
    grid = puzzles[0].grid
    assert grid.shape == (16, 16) and int((grid > 0).sum()) == 100
    assert grid[0].tolist() == [2, 0, 0, 3, 2, 6, 2, 1, 0, 0, 0, 0, 0, 5, 2, 1]
    assert grid[15].tolist() == [1, 0, 5, 2, 2, 4, 0, 5, 0, 0, 0, 0, 0, 2, 3, 2]


def test_has_file_with_two_puzzles():
    text = write(SMALL, "has") + "\n\n" + write(special_grids()["adjacent"], "has") + "\n"
    puzzles = parse(text, fmt="has")
    assert [p.line for p in puzzles] == [1, 6]
    np.testing.assert_array_equal(puzzles[1].grid, [[3, 3], [3, 3]])
    assert [p.fmt for p in parse(text)] == ["has", "has"]


def test_plain_allows_spaces_and_comments():
    puzzles = parse("# a comment\n2 . . 1\n. . . .\n3 . . 2\n\n4x3:2b1d3b2\n", "p.txt")
    assert [(p.fmt, p.line, p.label) for p in puzzles] == [("plain", 2, "p.txt:2"), ("tatham", 6, "p.txt:6")]
    for puzzle in puzzles:
        np.testing.assert_array_equal(puzzle.grid, SMALL)


@pytest.mark.parametrize("text, fmt, match", [
    # plain
    ("2.0\n...\n", "auto", r"^p\.txt:1:3: island with value 0; an island needs 1..8 bridges \('\.' is water\)$"),
    ("2..\n..9\n", "auto", r"^p\.txt:2:3: island value 9; values are 1..8$"),
    ("2..\n.x.\n", "auto", r"^p\.txt:2:2: bad character 'x'"),
    ("2..1\n...\n", "auto", r"^p\.txt:2: ragged rows: 3 cells in this row, 4 in the puzzle's first row \(line 1\)$"),
    ("....\n", "auto", r"^p\.txt:1: no island in the 1x4 grid$"),
    # has
    ("2 3 3\n1 0 0\n0 0 2\n", "auto", r"^p\.txt:1: the header says 3 islands, the grid has 2$"),
    ("2 3 2\n1 0 0\n0 2\n", "auto", r"^p\.txt:3: ragged rows: 2 numbers in this row, the header says 3 columns$"),
    ("2 3 2\n1 0 0\n", "auto", r"^p\.txt:1: the header says 2 rows, 1 follow$"),
    ("2 3 2\n1 0 0\n0 0 9\n", "auto", r"^p\.txt:3:5: island value 9; values are 0 \(water\) and 1..8$"),
    ("2 3 2\n1 0 0\n0 -1 2\n", "has", r"^p\.txt:3:3: bad number '-1'"),
    ("2 0 2\n", "has", r"^p\.txt:1: bad header '2 0 2': expected three positive integers 'rows cols islands' \(a grid "
                      r"of numbers with 0 for water is the has format, which starts with that header\)$"),
    ("2 3\n1 0 0\n0 0 2\n", "has", r"^p\.txt:1: bad header '2 3'"),
    # Tatham
    ("2x2:1b0\n", "auto", r"^p\.txt:1:7: bad character '0' in the description$"),
    ("2x2:1c1\n", "auto", r"^p\.txt:1:7: too much data"),
    ("2x2:1b\n", "auto", r"^p\.txt:1: not enough data: the description covers 3 of the 4 cells$"),
    ("2x2:9c\n", "auto", r"^p\.txt:1: island at r1c1 has value 9; values are 1..8$"),
    ("2x2:Ac\n", "auto", r"^p\.txt:1: island at r1c1 has value 10; values are 1..8$"),  # bridges.c: 'A' = 10
    ("2xx2:1c\n", "tatham", r"^p\.txt:1: not a Tatham game ID"),
    # puzz.link
    (URL + "2/2/1\n", "auto", r"^p\.txt:1: truncated body: it describes 1 of the 4 cells$"),
    (URL + "2/2/.i\n", "auto", r"^p\.txt:1: the island at r1c1 is '\?' \(unknown\); every island needs its number$"),
    (URL + "2/2/h0g\n", "auto", r"^p\.txt:1: island with value 0 at r2c1; islands are 1..8$"),
    (URL + "2/2/9i\n", "auto", r"^p\.txt:1: island at r1c1 has value 9; values are 1..8$"),
    (URL + "-2/2/1i\n", "auto", r"^p\.txt:1: bad size: width '-2' is not a positive integer$"),
    ("https://puzz.link/p?shikaku/2/2/1i\n", "puzzlink", r"^p\.txt:1: not a puzz.link URL of hashi or hashikake or bridges"),
])
def test_bad_input_names_source_line_and_problem(text, fmt, match):
    with pytest.raises(PuzzleError, match=match) as error:
        parse(text, "p.txt", fmt)
    one_line(error)


def test_unknown_format_is_a_value_error():
    with pytest.raises(ValueError, match="unknown format"):
        parse("1", fmt="pzpr")
    with pytest.raises(ValueError, match="unknown output format"):
        write(SMALL, "pzpr")


def test_draw_solution():
    assert draw_solution(SMALL, SMALL_BRIDGES) == "2-----1\n| . . .\n3=====2"
    # a vertical double bridge, an empty edge (count 0) and a crossing (an unfinished state still draws)
    grid = np.array([[0, 2, 0], [2, 0, 2], [0, 2, 0]])
    assert draw_solution(grid, [[0, 1, 2, 1, 2], [1, 0, 1, 2, 0]]) == '. 2 .\n2 " 2\n. 2 .'
    assert draw_solution(grid, [[0, 1, 2, 1, 1], [1, 0, 1, 2, 1]]) == ". 2 .\n2-+-2\n. 2 ."


# Two neighbouring islands have no cell between them: their bridge must still be drawn.
def test_bridges_between_touching_islands_are_drawn():
    row = np.array([[2, 3, 0, 1]])
    assert draw_solution(row, [[0, 0, 0, 1, 2], [0, 1, 0, 3, 1]]) == "2=3---1"
    assert draw_solution(row, []) == "2 3 . 1"
    column = row.T  # rows spread too, only because two islands touch vertically
    assert draw_solution(column, [[0, 0, 1, 0, 2], [1, 0, 3, 0, 1]]) == '2\n"\n3\n|\n|\n|\n1'
    assert draw_solution(column, [[0, 0, 1, 0, 1]]) == "2\n|\n3\n\n.\n\n1"
    square = np.array([[4, 3], [3, 4]])
    drawn = draw_solution(square, [[0, 0, 0, 1, 2], [0, 0, 1, 0, 2], [0, 1, 1, 1, 1], [1, 0, 1, 1, 1]])
    assert drawn == '4=3\n" |\n3-4'


def test_drawing_of_a_solved_coelho_grid_shows_every_bridge():
    from gpu_sa.puzzles.hashi import exact

    grid = parse((DATA / "hashi_coelho_100_001.has").read_text())[0].grid
    bridges = exact.solve(grid).solution
    lines = draw_solution(grid, bridges).split("\n")
    assert ((grid[1:] > 0) & (grid[:-1] > 0)).any()  # islands touch vertically: rows are spread too
    assert len(lines) == 31 and max(map(len, lines)) == 31
    glyphs = {(True, 1): "-", (True, 2): "=", (False, 1): "|", (False, 2): '"'}
    for r1, c1, r2, c2, count in bridges:  # the character just after the first island is the bridge
        y, x = (2 * r1, 2 * c1 + 1) if r1 == r2 else (2 * r1 + 1, 2 * c1)
        assert lines[y][x] == glyphs[r1 == r2, count]
        assert lines[2 * r1][2 * c1] == str(grid[r1, c1]) and lines[2 * r2][2 * c2] == str(grid[r2, c2])


def test_draw_solution_rejects_impossible_bridges():
    with pytest.raises(ValueError, match="is not an island"):
        draw_solution(SMALL, [[0, 0, 1, 0, 1]])
    with pytest.raises(ValueError, match="neither horizontal nor vertical"):
        draw_solution(SMALL, [[0, 0, 2, 3, 1]])
    with pytest.raises(ValueError, match="count must be 0, 1 or 2"):
        draw_solution(SMALL, [[0, 0, 0, 3, 3]])
    with pytest.raises(ValueError, match="runs through the island"):
        draw_solution(np.array([[1, 1, 1]]), [[0, 0, 0, 2, 1]])


HAS = "3 4 4\n2 0 0 1\n0 0 0 0\n3 0 0 2\n"  # SMALL in the has format


# A has file with one problem is still read as has, and the error names the token.
@pytest.mark.parametrize("text, match", [
    (HAS.replace("2 0 0 1", "2 0 . 1"), r"^p\.txt:2:5: bad number '\.' \(0 = water, 1..8 = island\)$"),
    (HAS.replace("2 0 0 1", "2 0 0.0 1"), r"^p\.txt:2:5: bad number '0\.0' \(0 = water, 1..8 = island\)$"),
    (HAS.replace("2 0 0 1", "2 0 ０ 1"), r"^p\.txt:2:5: bad number '０': write '0' \(only ASCII is read\)$"),
    (HAS.replace("2 0 0 1", "2 0 -1 1"), r"^p\.txt:2:5: bad number '-1' \(0 = water, 1..8 = island\)$"),
    (HAS.replace("3 4 4", "3 4"), r"^p\.txt:1: bad header '3 4': expected three positive integers"),
    (HAS.split("\n", 1)[1], r"^p\.txt:1: bad header '2 0 0 1': expected three positive integers 'rows cols islands' "
                            r"\(a grid of numbers with 0 for water is the has format"),
    ("1 99999999999 1\n1 0\n", r"^p\.txt:1: a 99999999999x1 grid \(width x height\) has 99,999,999,999 cells"),
    ("2..1\n....\n3..２\n", r"^p\.txt:3:4: bad character '２': write '2' \(only ASCII is read\)$"),
    ("99999x99999:zzz\n", r"^p\.txt:1: a 99999x99999 grid"),
    (URL + "99999/99999/zzz\n", r"^p\.txt:1: a 99999x99999 grid"),
])
def test_hostile_input(text, match):
    with pytest.raises(PuzzleError, match=match) as error:
        parse(text, "p.txt")
    one_line(error)


def test_byte_order_mark_and_comments_are_accepted():
    noted = "\ufeff" + HAS.replace("\n", "   # rows cols islands\n", 1)
    assert parse(noted)[0].fmt == "has"
    np.testing.assert_array_equal(parse(noted)[0].grid, SMALL)
    np.testing.assert_array_equal(parse("\ufeff2..1\n....\n3..2 # r3\n")[0].grid, SMALL)
