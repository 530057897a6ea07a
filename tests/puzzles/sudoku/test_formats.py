import numpy as np
import pytest

from conftest import DATA
from gpu_sa.puzzles.sudoku import PuzzleError, parse
from gpu_sa.puzzles.sudoku.formats import write

EASY = "..237.9....75684.2.8..9....1...4.8..2.4...7.6..6.2...1....5..1.5.19326....3.862.."


def test_line_format_with_dots_and_zeros():
    dots = parse(EASY)[0]
    zeros = parse(EASY.replace(".", "0"))[0]
    assert dots.order == 3 and dots.fmt == "line"
    np.testing.assert_array_equal(dots.givens, zeros.givens)
    assert int((dots.givens >= 0).sum()) == sum(ch != "." for ch in EASY) == 34 and dots.givens[2] == 1  # '2' is stored 0-based


def test_file_of_many_puzzles_with_comments():
    puzzles = parse((DATA / "seed_puzzles.txt").read_text(), "seed.txt")
    assert len(puzzles) == 3 and [p.line for p in puzzles] == [3, 5, 7]
    assert puzzles[0].label == "seed.txt:3"


def test_grid_format_with_separators():
    rows = [EASY[9 * r:9 * r + 9] for r in range(9)]
    boxed = []
    for r, row in enumerate(rows):
        boxed.append(" ".join(row[:3]) + " | " + " ".join(row[3:6]) + " | " + " ".join(row[6:]))
        if r in (2, 5):
            boxed.append("------+-------+------")
    puzzle = parse("\n".join(boxed))[0]
    assert puzzle.fmt == "grid"
    np.testing.assert_array_equal(puzzle.givens, parse(EASY)[0].givens)


def test_seed_numbers_format_16x16():
    puzzle = parse((DATA / "sudoku16_45pct.txt").read_text())[0]
    assert puzzle.order == 4 and puzzle.fmt == "numbers"
    assert puzzle.givens[4] == 1 and puzzle.givens[5] == 14  # "0 0 0 0 2 15 ..."


@pytest.mark.parametrize("order", [2, 3, 4, 5, 6, 7])
def test_numbers_format_any_order_round_trip(order):
    side = order * order
    generator = np.random.default_rng(order)
    values = np.full(side * side, -1, dtype=np.int16)
    # a valid pattern grid (digit = (r*n + r//n + c) mod N), then blank most cells
    r, c = np.divmod(np.arange(side * side), side)
    full = (r * order + r // order + c) % side
    keep = generator.random(side * side) < 0.3
    values[keep] = full[keep]
    text = write(values, order, "numbers")
    again = parse(text)[0]
    assert again.order == order and again.fmt == "numbers"
    np.testing.assert_array_equal(again.givens, values)


@pytest.mark.parametrize("fmt", ["line", "grid", "numbers"])
def test_round_trip_every_format(fmt):
    puzzle = parse(EASY)[0]
    again = parse(write(puzzle.givens, 3, fmt))[0]
    np.testing.assert_array_equal(again.givens, puzzle.givens)
    assert again.fmt == fmt


def test_order_2_and_4_lines_use_letters():
    assert parse("1..4..2..1..4..1")[0].order == 2
    line16 = "123456789ABCDEFG" + "." * 240
    puzzle = parse(line16)[0]
    assert puzzle.order == 4 and puzzle.givens[15] == 15
    assert write(puzzle.givens, 4, "line") == line16


def test_pretty_has_box_borders():
    text = write(parse(EASY)[0].givens, 3, "pretty")
    lines = text.splitlines()
    assert lines[0] == "+-------+-------+-------+" and len(lines) == 13
    assert lines[1] == "| . . 2 | 3 7 . | 9 . . |"


# Every bad input: a one-line error naming the line (and column) and the problem.
BAD = [
    ("wrong-length", "# c\n" + EASY[:-1], r"<input>:2: wrong length 80"),
    ("bad-character", EASY[:10] + "x" + EASY[11:], r"<input>:1:11: bad character 'x'"),
    ("letter-in-9x9", "A" + EASY[1:], r"<input>:1:1: bad character 'A'"),
    ("value-out-of-range-letter", "H" + "." * 255, r"<input>:1:1: value 'H' = 17 out of range 1..16"),
    ("value-out-of-range-number", "1 0 0 0\n0 0 0 0\n0 0 5 0\n0 0 0 0", r"<input>:3:5: value 5 out of range 0..4 \(0 = empty\)$"),
    ("row-clash", "3..3" "...." "...." "....", r"<input>:1: givens clash: 3 twice in row 1 \(r1c1 and r1c4\)"),
    ("column-clash", "4..." "...." "4..." "....", r"givens clash: 4 twice in column 1 \(r1c1 and r3c1\)"),
    ("box-clash", "1..." ".1.." "...." "....", r"givens clash: 1 twice in box 1 \(r1c1 and r2c2\)"),
    ("clash-in-9x9", "22" + EASY[2:], r"givens clash: 2 twice in row 1 \(r1c1 and r1c2\)"),
    ("grid-short-row", "\n".join([EASY[:9]] * 4 + [EASY[:8]] + [EASY[:9]] * 4), r"<input>:5: wrong length: 8 cells"),
    ("numbers-not-a-side", "1 2 3\n0 0 0\n0 0 0",
     r"<input>:1: 3 rows of 3 numbers in the numbers format: a Sudoku has n\*n rows of n\*n numbers for n = 2..11$"),
    ("bad-number", "1 0 0 0\n0 0 x 0\n0 0 0 0\n0 0 0 0", r"<input>:2:5: bad number 'x': a cell is 0..4 \(0 = empty\)$"),
    ("empty", "# only a comment\n\n", r"no puzzle found"),
]


@pytest.mark.parametrize("text,message", [(t, m) for _, t, m in BAD], ids=[i for i, _, _ in BAD])
def test_bad_input_gets_one_line_error(text, message):
    with pytest.raises(PuzzleError, match=message) as caught:
        parse(text)
    assert "\n" not in str(caught.value)


# A file in one format with one problem is read in the format it evidently uses (not as the line format, which
# would say "wrong length N"), and the error names the line, the column and the token in that format's terms.
NUMBERS_9 = write(parse(EASY)[0].givens, 3, "numbers")  # "0 0 2 3 7 0 9 0 0 ...": 0 = empty
NUMBERS_16 = (DATA / "sudoku16_45pct.txt").read_text()


def _replace_token(text, line, column, token):
    """``text`` with the whitespace-separated token starting at (1-based) ``line``:``column`` replaced."""
    lines = text.split("\n")
    row = lines[line - 1]
    end = row.find(" ", column - 1)
    lines[line - 1] = row[:column - 1] + token + (row[end:] if end >= 0 else "")
    return "\n".join(lines)


NUMBERS_PROBLEMS = [
    ("minus-one", _replace_token(NUMBERS_9, 2, 3, "-1"),
     r"^<input>:2:3: value -1 out of range 0..9 \(0 = empty; -1 is the acs format's empty cell, and an acs file "
     r"starts with a line holding the order, then a line '1'\)$"),
    ("fifteen-rows-of-a-16x16", "\n".join(NUMBERS_16.splitlines()[:15]),
     r"^<input>:1: 15 rows of 16 numbers in the numbers format: a 16x16 Sudoku needs 16 rows$"),
    ("decimal", _replace_token(NUMBERS_16, 1, 11, "15.0"),
     r"^<input>:1:11: bad number '15.0': cells hold integers, 0..16 \(0 = empty\)$"),
    ("plus-sign", _replace_token(NUMBERS_9, 9, 17, "+2"), r"^<input>:9:17: bad number '\+2': write numbers without a sign$"),
    ("full-width", _replace_token(NUMBERS_16, 1, 11, "１５"),
     r"^<input>:1:11: bad number '１５': write '15' \(only ASCII is read\)$"),
    ("full-width-9x9", _replace_token(NUMBERS_9, 1, 5, "２"), r"^<input>:1:5: bad number '２': write '2'"),
    ("superscript", _replace_token(NUMBERS_9, 1, 5, "²"), r"^<input>:1:5: bad number '²': write '2'"),
    ("out-of-range-16x16", _replace_token(NUMBERS_16, 16, 1, "17"),
     r"^<input>:16:1: value 17 out of range 0..16 \(0 = empty\)$"),
    ("short-row", NUMBERS_9.replace("\n", " \n", 3).replace(" 0\n", "\n", 1),
     r"^<input>:\d: wrong length: 8 numbers in a row, expected 9$"),
    ("extra-row", NUMBERS_9 + "\n0 0 0 0 0 0 0 0 0",
     r"^<input>:1: 10 rows of 9 numbers in the numbers format: a 9x9 Sudoku needs 9 rows$"),
    ("grid-missing-a-row", "\n".join(EASY[9 * r:9 * r + 9] for r in range(8)),
     r"^<input>:1: a grid of 8 rows: rows of 9 cells: a 9x9 grid needs 9 rows$"),
    ("full-width-in-a-line", EASY[:2] + "２" + EASY[3:], r"^<input>:1:3: bad character '２': write '2'"),
    ("blank-inside-a-line", EASY[:40] + " " + EASY[40:], r"^<input>:1: wrong length 82 \(a line puzzle has 16, 81, "
                                                         r"256, 625 cells and no blanks\)$"),
]


@pytest.mark.parametrize("text,message", [(t, m) for _, t, m in NUMBERS_PROBLEMS],
                         ids=[i for i, _, _ in NUMBERS_PROBLEMS])
def test_one_problem_is_reported_in_the_format_the_file_uses(text, message):
    with pytest.raises(PuzzleError, match=message) as caught:
        parse(text)
    assert "\n" not in str(caught.value) and "wrong length 1" not in str(caught.value)


def test_what_is_accepted_a_byte_order_mark_and_trailing_comments():
    assert parse("\ufeff" + EASY)[0].fmt == "line"  # was "wrong length 82"
    np.testing.assert_array_equal(parse("\ufeff" + NUMBERS_9)[0].givens, parse(EASY)[0].givens)
    noted = NUMBERS_9.replace("\n", "  # a note\n", 1) + "\t# and another"
    assert parse(noted)[0].fmt == "numbers"
    np.testing.assert_array_equal(parse(noted)[0].givens, parse(EASY)[0].givens)
    assert parse(EASY + " # from the seed")[0].fmt == "line"
    # a '#' inside a token starts no comment: the token is a bad number
    with pytest.raises(PuzzleError, match=r"^<input>:1:17: bad number '0#x': a cell is 0..9"):
        parse(NUMBERS_9.replace("0\n", "0#x\n", 1))


def test_spaced_digits_stay_the_numbers_format_and_spaced_symbols_the_grid_format():
    assert parse(NUMBERS_9)[0].fmt == "numbers"
    spaced = "\n".join(" ".join(EASY[9 * r:9 * r + 9]) for r in range(9))
    assert parse(spaced)[0].fmt == "grid"
    boxes = "\n".join(" ".join([EASY[9 * r:9 * r + 3], EASY[9 * r + 3:9 * r + 6], EASY[9 * r + 6:9 * r + 9]])
                      for r in range(9))
    assert parse(boxes)[0].fmt == "grid"
    np.testing.assert_array_equal(parse(boxes)[0].givens, parse(EASY)[0].givens)


# The files of Lloyd & Amos's ant-colony solver.
@pytest.mark.parametrize("name, order", [("acs_inst9x9_45_0.txt", 3), ("acs_inst16x16_45_0.txt", 4)])
def test_acs_files_are_read_by_auto_and_written_back_line_for_line(name, order):
    raw = (DATA / name).read_bytes().decode()  # as the repository ships it: tabs, CRLF
    assert "\r\n" in raw
    puzzle = parse(raw)[0]  # was "wrong length 1"
    assert puzzle.fmt == "acs" and puzzle.order == order and puzzle.line == 1
    assert parse(raw, fmt="acs")[0].fmt == "acs"
    assert write(puzzle.givens, order, "acs") + "\n" == raw.replace("\r\n", "\n")  # every tab, every -1


def test_acs_and_numbers_read_the_same_16x16_grid():
    acs = parse((DATA / "acs_inst16x16_45_0.txt").read_text())[0]
    np.testing.assert_array_equal(acs.givens, parse(NUMBERS_16)[0].givens)
    assert acs.givens[0] == -1 and acs.givens[4] == 1  # "-1 ... 2": empty, then the digit 2 (0-based 1)


@pytest.mark.parametrize("order", [2, 3, 5, 6])
def test_acs_round_trip_any_order(order):
    side = order * order
    r, c = np.divmod(np.arange(side * side), side)
    values = ((r * order + r // order + c) % side).astype(np.int16)
    values[np.random.default_rng(order).random(side * side) < 0.5] = -1
    again = parse(write(values, order, "acs"))[0]
    assert again.fmt == "acs" and again.order == order
    np.testing.assert_array_equal(again.givens, values)


ACS_9 = (DATA / "acs_inst9x9_45_0.txt").read_text()
ACS_PROBLEMS = [
    ("zero", ACS_9.replace("-1", "0", 1), r"^<input>:3:1: value 0 out of range 1..9 \(-1 = empty; 0 is the numbers "
                                          r"format's empty cell\)$"),
    ("minus-two", ACS_9.replace("-1", "-2", 1), r"^<input>:3:1: bad number '-2': a cell is 1..9 \(-1 = empty\)$"),
    ("missing-row", ACS_9.rsplit("\n", 2)[0], r"^<input>:1: the acs header says order 3: 9 rows of 9 numbers, 8 rows "
                                              r"follow$"),
    ("order-too-large", "12" + ACS_9[1:], r"^<input>:1: acs header: the first line is the order, 2..11 \(3 for 9x9\), "
                                          r"got '12'$"),
    ("short-row", ACS_9.replace("-1\t\n", "\n", 1), r"^<input>:\d+: wrong length: 8 numbers in a row, expected 9$"),
]


@pytest.mark.parametrize("text,message", [(t, m) for _, t, m in ACS_PROBLEMS], ids=[i for i, _, _ in ACS_PROBLEMS])
def test_acs_problems_name_line_column_and_token(text, message):
    with pytest.raises(PuzzleError, match=message):
        parse(text)
    with pytest.raises(PuzzleError, match=message):
        parse(text, fmt="acs")


def test_acs_asked_for_on_a_block_too_short_to_hold_one():
    # found by bench/fuzz.py: an IndexError before
    with pytest.raises(PuzzleError, match=r"^<input>:1: an acs puzzle is a line with the order, a line '1', then the "
                                          r"rows; this block has 1 line$"):
        parse(":", fmt="acs")


def test_givens_that_clash_are_refused_in_every_unit_and_only_then():
    """The clash check's array fast path (``formats._any_clash``) against a brute force over every pair of givens,
    on random grids with clashes in rows, columns and boxes, or none."""
    from gpu_sa.puzzles.sudoku.formats import _any_clash

    rng = np.random.default_rng(8)
    clashes = 0
    for order in (2, 3, 4, 5):
        side = order * order
        for density in (0.05, 0.15, 0.3):
            for _ in range(25):
                grid = np.where(rng.random((side, side)) < density, rng.integers(0, side, (side, side)), -1)
                cells = [(r, c) for r in range(side) for c in range(side) if grid[r, c] >= 0]
                clash = any(grid[a] == grid[b] and (a[0] == b[0] or a[1] == b[1] or
                                                     (a[0] // order, a[1] // order) == (b[0] // order, b[1] // order))
                            for i, a in enumerate(cells) for b in cells[i + 1:])
                assert _any_clash(grid.astype(np.int16), order) == clash
                clashes += clash
                text = write(grid.reshape(-1), order, "numbers")
                if clash:
                    with pytest.raises(PuzzleError, match="givens clash"):
                        parse(text)
                else:
                    assert np.array_equal(parse(text)[0].givens, grid.reshape(-1))
    assert 50 < clashes < 250
