import numpy as np
import pytest

from gpu_sa.puzzles.common.errors import PuzzleError
from gpu_sa.puzzles.shikaku.formats import FORMATS, draw_solution, parse, write

URL = "https://puzz.link/p?shikaku/"

# 3 rows x 4 columns, solved by the six rectangles below (row-major clue order)
SMALL = np.array([[2, 0, 0, 4],
                  [1, 2, 0, 0],
                  [1, 0, 0, 2]])
SMALL_SOLUTION = [[0, 0, 0, 1], [0, 2, 1, 3], [1, 0, 1, 0], [1, 1, 2, 1], [2, 0, 2, 0], [2, 2, 2, 3]]


def random_puzzle(generator, rows, cols):
    """A solvable puzzle by guillotine cuts: every final rectangle gets its area at a random cell."""
    clues = np.zeros((rows, cols), dtype=np.int64)
    pending = [(0, 0, rows, cols)]
    while pending:
        top, left, height, width = pending.pop()
        if height * width > 1 and generator.random() < 0.85:
            if (height > 1 and generator.random() < 0.5) or width == 1:
                cut = int(generator.integers(1, height))
                pending += [(top, left, cut, width), (top + cut, left, height - cut, width)]
            else:
                cut = int(generator.integers(1, width))
                pending += [(top, left, height, cut), (top, left + cut, height, width - cut)]
            continue
        clues[top + generator.integers(height), left + generator.integers(width)] = height * width
    return clues


def one_line(error):
    message = str(error.value)
    assert "\n" not in message
    return message


def special_grids():
    long_runs = np.zeros((2, 30), dtype=np.int64)  # 29 empty cells in a row: > 26 (Tatham), > 20 (puzz.link)
    long_runs[0, 0] = long_runs[1, 29] = 30
    big = np.zeros((20, 20), dtype=np.int64)  # clues of 3 hex digits ('+') and 2 ('-'), runs of 398 cells
    big[0, 0], big[19, 19] = 300, 100
    adjacent = np.array([[2, 2, 2], [0, 0, 0]])  # adjacent clues: Tatham's '_'
    sixteen = np.zeros((2, 16), dtype=np.int64)
    sixteen[0, 0] = sixteen[1, 15] = 16  # 16 = '-10' in puzz.link, the first value of two hex digits
    return {"small": SMALL, "long_runs": long_runs, "big": big, "adjacent": adjacent, "sixteen": sixteen,
            "column": np.array([[3], [0], [0]]), "row": np.array([[0, 0, 3]]), "one": np.array([[1]])}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", sorted(special_grids()))
def test_round_trip(fmt, name):
    clues = special_grids()[name]
    text = write(clues, fmt)
    puzzles = parse(text)  # auto-detection must find the format too
    assert len(puzzles) == 1 and puzzles[0].fmt == fmt
    assert puzzles[0].clues.dtype == np.int32
    np.testing.assert_array_equal(puzzles[0].clues, clues)
    np.testing.assert_array_equal(parse(text, fmt=fmt)[0].clues, clues)


@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip_random_non_square(fmt):
    generator = np.random.default_rng(2024)
    for _ in range(40):
        rows, cols = (int(v) for v in generator.integers(1, 25, size=2))
        clues = random_puzzle(generator, rows, cols)
        again = parse(write(clues, fmt), fmt=fmt)[0].clues
        assert again.shape == (rows, cols)
        np.testing.assert_array_equal(again, clues)


def test_written_forms():
    assert write(SMALL, "plain") == "2 . . 4\n1 2 . .\n1 . . 2"
    assert write(SMALL, "tatham") == "4x3:2b4_1_2b1b2"
    assert write(SMALL, "puzzlink") == "https://puzz.link/p?shikaku/4/3/2h412h1h2"
    assert write(special_grids()["adjacent"], "tatham") == "3x2:2_2_2c"
    assert write(special_grids()["big"], "puzzlink").endswith("/20/20/+12c" + "z" * 19 + "x-64")


# Simon Tatham's Portable Puzzle Collection, icons/rect.sav (the game the Rectangles icon is drawn
# from; copy read at chrisboyle/sgtpuzzles jni/icons/rect.sav): PARAMS 7x7, DESC below.
TATHAM_RECT_ID = "7x7:a3d2b2a3_2a4a8h2a3c4_2b2c3a3_3c3b"
TATHAM_RECT = np.array([  # by hand: a=1 empty, d=4, h=8, '_' between 3 and 2, 4 and 2, 3 and 3
    [0, 3, 0, 0, 0, 0, 2],
    [0, 0, 2, 0, 3, 2, 0],
    [4, 0, 8, 0, 0, 0, 0],
    [0, 0, 0, 0, 2, 0, 3],
    [0, 0, 0, 4, 2, 0, 0],
    [2, 0, 0, 0, 3, 0, 3],
    [3, 0, 0, 0, 3, 0, 0]])

# pzprjs test/script/shikaku.js: url "6/6/j3g56h6t6h23g5j", whose board the same file spells out
# as the pzprv3 file "6/6/. . . . 3 . /5 6 . . 6 . /. . . . . . /. . . . . . /. 6 . . 2 3 /. 5 . . . . /"
PZPRJS_SHIKAKU = np.array([
    [0, 0, 0, 0, 3, 0],
    [5, 6, 0, 0, 6, 0],
    [0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0],
    [0, 6, 0, 0, 2, 3],
    [0, 5, 0, 0, 0, 0]])


def test_known_tatham_id():
    puzzle = parse(TATHAM_RECT_ID)[0]
    assert puzzle.fmt == "tatham"
    np.testing.assert_array_equal(puzzle.clues, TATHAM_RECT)
    assert write(TATHAM_RECT, "tatham") == TATHAM_RECT_ID  # our writer follows rect.c new_game_desc
    # full IDs carry generator parameters (expansion factor e, 'a' = ambiguity allowed): ignored
    np.testing.assert_array_equal(parse("7x7e4a" + TATHAM_RECT_ID[3:])[0].clues, TATHAM_RECT)


@pytest.mark.parametrize("prefix", ["https://puzz.link/p?", "http://pzv.jp/p.html?", "https://pzprxs.vercel.app/p?", ""])
def test_known_pzprjs_url(prefix):
    puzzle = parse(prefix + "shikaku/6/6/j3g56h6t6h23g5j")[0]
    assert puzzle.fmt == "puzzlink"
    np.testing.assert_array_equal(puzzle.clues, PZPRJS_SHIKAKU)
    assert write(PZPRJS_SHIKAKU, "puzzlink") == "https://puzz.link/p?shikaku/6/6/j3g56h6t6h23g5j"


def test_non_square_ids_put_width_first():
    # Tatham: "WxH", cells at y*w + x; pzprjs parser.js: "(cols)/(rows)/(bstr)". 4 wide, 3 high:
    expected = np.array([[0, 0, 0, 6], [0, 0, 0, 0], [3, 0, 0, 3]])
    np.testing.assert_array_equal(parse("4x3:c6d3b3")[0].clues, expected)
    np.testing.assert_array_equal(parse("shikaku/4/3/i6j3h3")[0].clues, expected)


def test_many_puzzles_comments_and_line_numbers():
    text = ("# three formats in one file\n"
            "2 . . 4\n1 2 . .\n1 . . 2\n"
            "\n"
            "4x3:2b4_1_2b1b2\n"
            "https://puzz.link/p?shikaku/4/3/2h412h1h2\n"
            "  . 2\n  2 .\n")
    puzzles = parse(text, "mix.txt")
    assert [(p.fmt, p.line) for p in puzzles] == [("plain", 2), ("tatham", 6), ("puzzlink", 7), ("plain", 8)]
    assert puzzles[1].label == "mix.txt:6"
    for puzzle in puzzles[:3]:
        np.testing.assert_array_equal(puzzle.clues, SMALL)


def test_plain_zero_is_empty_and_widths_align():
    np.testing.assert_array_equal(parse("2 0\n0 2")[0].clues, [[2, 0], [0, 2]])
    assert write(np.array([[12, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0]]), "plain").split("\n")[:2] == ["12  .", " .  ."]


def test_tatham_accepts_underscores_anywhere():
    np.testing.assert_array_equal(parse("2x2:_4_c_")[0].clues, [[4, 0], [0, 0]])


@pytest.mark.parametrize("text, fmt, match", [
    # the clues' checks (geometry.check_clues), at the puzzle's first line
    ("# c\n2 .\n. .\n", "auto", r"^p\.txt:2: the clues sum to 2, not to the grid's area 2x2 = 4$"),
    ("9 .\n. .\n", "auto", r"^p\.txt:1: clue 9 at r1c1 is larger than the 2x2 grid$"),
    (". .\n. .\n", "auto", r"^p\.txt:1: no clue in the 2x2 grid$"),
    # plain
    ("2 .\n. 2 .\n", "auto", r"^p\.txt:2: ragged rows: 3 tokens in this row, 2 in the puzzle's first row \(line 1\)$"),
    ("2 .\n. x\n", "auto", r"^p\.txt:2:3: clue 'x' is not a number"),
    ("4 -1\n. .\n", "plain", r"^p\.txt:1:3: clue '-1' is not a number"),
    # Tatham
    ("2x2:4!\n", "auto", r"^p\.txt:1:6: bad character '!' in the description$"),
    ("  2x2:04c\n", "auto", r"^p\.txt:1:7: bad character '0' in the description$"),
    ("2x2:4d\n", "auto", r"^p\.txt:1:6: too much data: the description runs past the last of the 4 cells$"),
    ("2x2:1_1_1_1_1\n", "auto", r"^p\.txt:1:13: too much data"),
    ("2x2:4b\n", "auto", r"^p\.txt:1: not enough data: the description covers 3 of the 4 cells$"),
    ("0x2:4\n", "auto", r"^p\.txt:1: grid size 0x2: width and height must be positive$"),
    ("2y2:4c\n", "tatham", r"^p\.txt:1: not a Tatham game ID: expected WxH:description"),
    # puzz.link
    (URL + "0/2/4i\n", "auto", r"^p\.txt:1: bad size: width '0' is not a positive integer$"),
    (URL + "2/b/4i\n", "auto", r"^p\.txt:1: bad size: height 'b' is not a positive integer$"),
    (URL + "2/2/4\n", "auto", r"^p\.txt:1: truncated body: it describes 1 of the 4 cells$"),
    (URL + "2/2/4h\n", "auto", r"^p\.txt:1: truncated body: it describes 3 of the 4 cells$"),
    (URL + "2/2/4i5\n", "auto", r"^p\.txt:1:35: too much data: '5' follows the last of the 4 cells$"),
    (URL + "2/2/4!h\n", "auto", r"^p\.txt:1:34: bad character '!' in the puzz.link body$"),
    (URL + "2/2/.i\n", "auto", r"^p\.txt:1: the clue at r1c1 is '\?' \(unknown\); every clue needs its number$"),
    (URL + "2/2/0i\n", "auto", r"^p\.txt:1: clue 0 at r1c1; clues are positive$"),
    ("https://puzz.link/p?hashi/2/2/4i\n", "puzzlink", r"^p\.txt:1: not a puzz.link URL of shikaku"),
    # nothing at all
    ("# only a comment\n\n", "auto", r"^p\.txt: no puzzle found$"),
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
    assert draw_solution(SMALL, SMALL_SOLUTION) == "\n".join([
        "+-------+-------+",
        "| 2     |     4 |",
        "+---+---+       |",
        "| 1 | 2 |       |",
        "+---+   +-------+",
        "| 1 |   |     2 |",
        "+---+---+-------+"])


def test_draw_solution_wide_clues_and_broken_states():
    clues = np.array([[10] + [0] * 9, [0] * 9 + [10]])
    rows = [[0, 0, 0, 9], [1, 0, 1, 9]]
    assert draw_solution(clues, rows) == "\n".join([
        "+" + "-" * 49 + "+",
        "| 10 " + " " * 45 + "|",
        "+" + "-" * 49 + "+",
        "|" + " " * 45 + " 10 |",
        "+" + "-" * 49 + "+"])
    # overlaps ('#') and holes ('.') are boxed alone: an unfinished state still draws
    broken = draw_solution(np.array([[2, 0, 0, 1]]), [[0, 0, 0, 1], [0, 1, 0, 1]])
    assert broken == "\n".join(["+---+---+---+---+", "| 2 | # | . | 1 |", "+---+---+---+---+"])
    with pytest.raises(ValueError, match="2 rectangles for 1 clues"):
        draw_solution(np.array([[1]]), [[0, 0, 0, 0]] * 2)
    with pytest.raises(ValueError, match="not inside the 1x1 grid"):
        draw_solution(np.array([[1]]), [[0, 0, 0, 1]])


# Bad input gets one line naming where and what, never a traceback or a guess.
@pytest.mark.parametrize("text, match", [
    ("\ufeff2 .\n. 2\n", None),  # a byte-order mark: read as if it were not there
    ("2 . # first row\n. 2\n", None),  # a trailing comment
    ("２ .\n. 2\n", r"^p\.txt:1:1: clue '２' is not a number: write '2' \(only ASCII is read\)$"),
    ("2.0 .\n. 2\n", r"^p\.txt:1:1: clue '2.0' is not a number \(a clue is a positive integer written in ASCII digits"),
    ("99999999999999999999 .\n. 2\n", r"^p\.txt:1:1: clue 99999999999999999999 is larger than any grid accepted "
                                      r"\(1,000,000 cells\)$"),  # was an OverflowError traceback
    ("2x1:99999999999999999999a\n", r"^p\.txt:1:5: number 99999999999999999999 is larger than any grid accepted"),
    ("2x1:２a\n", r"^p\.txt:1:5: bad character '２' in the description: write '2'"),
    ("4x3:2b4_1_2²1b2\n", r"^p\.txt:1:12: bad character '²' in the description: write '2'"),  # found by bench/fuzz.py
    ("99999x99999:zzz\n", r"^p\.txt:1: a 99999x99999 grid \(width x height\) has 9,999,800,001 cells; at most "
                          r"1,000,000 are accepted$"),  # was a MemoryError traceback
    (URL + "99999/99999/zzz\n", r"^p\.txt:1: a 99999x99999 grid"),
    ("7x7#12345\n", r"^p\.txt:1: '7x7#12345' is a random-seed ID \(WxH#seed\)"),
])
def test_hostile_input(text, match):
    if match is None:
        np.testing.assert_array_equal(parse(text, "p.txt")[0].clues, [[2, 0], [0, 2]])
        return
    with pytest.raises(PuzzleError, match=match) as error:
        parse(text, "p.txt")
    one_line(error)
