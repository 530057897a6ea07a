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
    ("value-out-of-range-number", "1 0 0 0\n0 0 0 0\n0 0 5 0\n0 0 0 0", r"<input>:3: value 5 out of range 0..4"),
    ("row-clash", "3..3" "...." "...." "....", r"<input>:1: givens clash: 3 twice in row 1 \(r1c1 and r1c4\)"),
    ("column-clash", "4..." "...." "4..." "....", r"givens clash: 4 twice in column 1 \(r1c1 and r3c1\)"),
    ("box-clash", "1..." ".1.." "...." "....", r"givens clash: 1 twice in box 1 \(r1c1 and r2c2\)"),
    ("clash-in-9x9", "22" + EASY[2:], r"givens clash: 2 twice in row 1 \(r1c1 and r1c2\)"),
    ("grid-short-row", "\n".join([EASY[:9]] * 4 + [EASY[:8]] + [EASY[:9]] * 4), r"<input>:5: wrong length: 8 cells"),
    ("numbers-not-a-side", "1 2 3\n0 0 0\n0 0 0", r"3 rows of numbers is not a Sudoku side"),
    ("bad-number", "1 0 0 0\n0 0 x 0\n0 0 0 0\n0 0 0 0", r"<input>:2: bad number 'x'"),
    ("empty", "# only a comment\n\n", r"no puzzle found"),
]


@pytest.mark.parametrize("text,message", [(t, m) for _, t, m in BAD], ids=[i for i, _, _ in BAD])
def test_bad_input_gets_one_line_error(text, message):
    with pytest.raises(PuzzleError, match=message) as caught:
        parse(text)
    assert "\n" not in str(caught.value)
