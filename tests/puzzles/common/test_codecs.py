import numpy as np
import pytest

from gpu_sa.engine.limits import TooLarge
from gpu_sa.puzzles.common import codecs
from gpu_sa.puzzles.common.errors import PuzzleError

E = codecs.EMPTY


def one_line(error):
    message = str(error.value)
    assert "\n" not in message
    return message


# --- pzprjs number16 ---------------------------------------------------------------------------

@pytest.mark.parametrize("value, code", [
    (0, "0"), (9, "9"), (15, "f"), (16, "-10"), (255, "-ff"), (256, "+100"), (4095, "+fff"),
    (4096, "=000"), (8191, "=fff"), (8192, "%000"), (12239, "%fcf"), (12240, "*0000"),
    (77775, "*ffff"), (77776, "$00000"), (codecs.NUMBER16_MAX, "$fffff"),
])
def test_number16_each_width(value, code):
    # Encode.js writeNumber16 / readNumber16: '-' 2 hex digits, '+' 3, '=' +4096, '%' +8192, '*' +12240, '$' +77776
    assert codecs.encode_number16([value]) == code
    assert codecs.decode_number16(code, 1, "w").tolist() == [value]


def test_number16_runs_of_empty_cells_are_g_to_z():
    assert codecs.encode_number16([E]) == "g"
    assert codecs.encode_number16([E] * 20) == "z"
    assert codecs.encode_number16([E] * 21) == "zg"
    assert codecs.encode_number16([E] * 45 + [3]) == "zzk3"
    assert codecs.decode_number16("zzk3", 46, "w").tolist() == [E] * 45 + [3]


def test_number16_question_mark_is_unknown():
    assert codecs.decode_number16("g.", 2, "w").tolist() == [E, codecs.UNKNOWN]


def test_number16_round_trip_random():
    generator = np.random.default_rng(7)
    for _ in range(50):
        cells = int(generator.integers(1, 200))
        values = np.where(generator.random(cells) < 0.2, generator.integers(0, 5000, cells), E)
        code = codecs.encode_number16(values)
        np.testing.assert_array_equal(codecs.decode_number16(code, cells, "w"), values)


@pytest.mark.parametrize("body, cells, match", [
    ("3!", 2, r"^f:1:12: bad character '!' in the puzz.link body$"),
    ("-1", 1, r"^f:1:11: '-' must be followed by 2 hex digits, got '1'$"),
    ("+1g2", 1, r"^f:1:11: '\+' must be followed by 3 hex digits, got '1g2'$"),
    ("3h", 2, r"^f:1:12: too much data: a run of 2 empty cells from cell 2 runs past the last of the 2 cells$"),
    ("33", 1, r"^f:1:12: too much data: '3' follows the last of the 1 cells$"),
    ("3g", 4, r"^f:1: truncated body: it describes 2 of the 4 cells$"),
])
def test_number16_errors_name_the_column(body, cells, match):
    with pytest.raises(PuzzleError, match=match) as error:
        codecs.decode_number16(body, cells, "f:1", column=11)
    one_line(error)


# --- Tatham runs -------------------------------------------------------------------------------

def read_digit(text, i):
    return (int(text[i]), 1) if text[i].isdigit() else None


def test_tatham_runs_split_at_z():
    assert codecs.encode_runs([E] * 26, str) == "z"
    assert codecs.encode_runs([E] * 27 + [4], str) == "za4"
    assert codecs.encode_runs([E] * 52, str) == "zz"
    assert codecs.decode_runs("zza", 53, read_digit, "w").tolist() == [E] * 53


def test_tatham_separator_only_between_adjacent_numbers():
    # rect.c new_game_desc: '_' between two numbers, never at the start or after a run
    assert codecs.encode_runs([2, 3, E, 4, 5], str, separator="_") == "2_3a4_5"
    assert codecs.encode_runs([2, 3, E, 4, 5], str) == "23a45"


@pytest.mark.parametrize("description, match", [
    ("1!", r"^f:2:9: bad character '!' in the description$"),
    ("1c", r"^f:2:9: too much data: the description runs past the last of the 3 cells$"),
    ("1a11", r"^f:2:11: too much data: the description runs past the last of the 3 cells$"),
    ("1", r"^f:2: not enough data: the description covers 1 of the 3 cells$"),
])
def test_tatham_errors(description, match):
    with pytest.raises(PuzzleError, match=match) as error:
        codecs.decode_runs(description, 3, read_digit, "f:2", column=8)
    one_line(error)


def test_split_tatham_id_ignores_parameters():
    assert codecs.split_tatham_id("10x7i30e10m2d2:abc", "w") == (7, 10, "abc", 16)
    assert codecs.split_tatham_id("5x3:", "w") == (3, 5, "", 5)
    with pytest.raises(PuzzleError, match=r"^w: grid size 0x3: width and height must be positive$"):
        codecs.split_tatham_id("0x3:c", "w")
    with pytest.raises(PuzzleError, match=r"^w: not a Tatham game ID: expected WxH:description"):
        codecs.split_tatham_id("7xa:c", "w")


# --- puzz.link URLs ----------------------------------------------------------------------------

@pytest.mark.parametrize("url, column", [
    ("https://puzz.link/p?shikaku/5/3/abc", 33),
    ("http://pzv.jp/p.html?shikaku/5/3/abc", 34),
    ("https://pzprxs.vercel.app/p?shikaku/5/3/abc", 41),
    ("shikaku/5/3/abc", 13),
    ("https://puzz.link/p?shikaku/flag/5/3/abc", 38),  # pzprjs: an optional flag before the size
])
def test_split_puzzlink_url(url, column):
    rows, cols, body, at = codecs.split_puzzlink_url(url, ("shikaku",), "w")
    assert (rows, cols, body) == (3, 5, "abc")  # pzprjs parser.js: qdata -> [(pflag)/](cols)/(rows)/(bstr)
    assert url[at - 1:] == "abc" and at == column


@pytest.mark.parametrize("url, match", [
    ("https://puzz.link/p?hashi/5/3/abc", r"^w: not a puzz.link URL of shikaku"),
    ("shikaku/0/3/abc", r"^w: bad size: width '0' is not a positive integer$"),
    ("shikaku/5/x/abc", r"^w: bad size: height 'x' is not a positive integer$"),
    ("shikaku/5", r"^w: bad size: expected shikaku/W/H/BODY after the '\?', got 'shikaku/5'$"),
])
def test_split_puzzlink_url_errors(url, match):
    with pytest.raises(PuzzleError, match=match) as error:
        codecs.split_puzzlink_url(url, ("shikaku",), "w")
    one_line(error)


def test_puzzlink_url_puts_width_first():
    assert codecs.puzzlink_url("hashi", 3, 5, "abc") == "https://puzz.link/p?hashi/5/3/abc"


def test_one_line_format_detection():
    names = ("shikaku",)
    assert codecs.one_line_format("https://puzz.link/p?shikaku/1/1/1", names) == "puzzlink"
    assert codecs.one_line_format("http://pzv.jp/p.html?shikaku/1/1/1", names) == "puzzlink"
    assert codecs.one_line_format("shikaku/1/1/1", names) == "puzzlink"
    assert codecs.one_line_format("7x7e4:abc", names) == "tatham"
    assert codecs.one_line_format("1 2 3", names) is None


def test_blocks_drop_comments_and_keep_columns():
    text = "# header\n  1 2\n3 4\n\n\n# between\n5\n"
    blocks = list(codecs.blocks(text))
    assert [[(line.number, line.content, line.indent) for line in block] for block in blocks] == [
        [(2, "1 2", 2), (3, "3 4", 0)], [(7, "5", 0)]]


def test_split_block_groups_plain_rows_and_isolates_one_line_ids():
    (block,) = codecs.blocks("1 2\n3 4\n2x1:11\nshikaku/1/1/1\n5 6\n")
    assert [(kind, [line.number for line in lines]) for kind, lines in codecs.split_block(block, "auto", ("shikaku",))] == [
        ("plain", [1, 2]), ("tatham", [3]), ("puzzlink", [4]), ("plain", [5])]
    assert [kind for kind, _ in codecs.split_block(block, "plain", ())] == ["plain"]
    assert [len(lines) for _, lines in codecs.split_block(block, "tatham", ())] == [1] * 5


def test_blocks_drop_byte_order_marks_and_trailing_comments():
    text = "\ufeff# from Windows\n\ufeff1 2  # a note\n3 4\t#\n\n\ufeff5 6#7\n"
    assert [[(line.number, line.content, line.indent) for line in block] for block in codecs.blocks(text)] == [
        [(2, "1 2", 0), (3, "3 4", 0)], [(5, "5 6#7", 0)]]  # '#' glued to a token is part of it


def test_tatham_random_seed_ids_are_named():
    assert codecs.one_line_format("7x7#12345", ()) == "tatham"
    with pytest.raises(PuzzleError, match=r"^w: '7x7#12345' is a random-seed ID \(WxH#seed\)"):
        codecs.split_tatham_id("7x7#12345", "w")


# A few bytes of run-length code for ten billion cells must not allocate ~75 GiB and die
# with a MemoryError traceback. The size is checked before anything is allocated.
@pytest.mark.parametrize("split, text", [
    (lambda where: codecs.split_tatham_id("99999x99999:zzz", where), "99999x99999"),
    (lambda where: codecs.split_puzzlink_url("shikaku/99999/99999/zzz", ("shikaku",), where), "99999x99999"),
    (lambda where: codecs.split_tatham_id("1001x1000:a", where), "1001x1000"),
])
def test_grid_sizes_are_capped_before_decoding(split, text):
    with pytest.raises(PuzzleError, match=rf"^w: a {text} grid \(width x height\) has [\d,]+ cells; at most "
                                          rf"1,000,000 are accepted$") as error:
        split("w")
    one_line(error)
    assert isinstance(error.value, TooLarge)
    assert codecs.split_tatham_id("1000x1000:a", "w")[:2] == (1000, 1000)  # the limit itself is fine


def test_numbers_too_large_for_any_grid_stop_the_decoder():
    def read(description, i):
        return int(description[i:]), len(description) - i

    with pytest.raises(PuzzleError, match=r"^w:5: number 99999999999999999999999 is larger than any grid accepted "
                                          r"\(1,000,000 cells\)$"):
        codecs.decode_runs("99999999999999999999999", 4, read, "w", column=5)


def test_full_width_characters_are_named():
    with pytest.raises(PuzzleError, match=r"^w:3: bad character '３' in the puzz.link body: write '3'"):
        codecs.decode_number16("g３", 2, "w", column=2)
    assert codecs.lookalike_note("x") == "" and codecs.lookalike_note("１２") == ": write '12' (only ASCII is read)"


# --- lines, counts and a file's bad puzzles --------------------------------------------------------------------

@pytest.mark.parametrize("text", ["", "a", "a\n", "\n", "a\n\nb", "a\r\nb\rc\x0bd\x0ce\x1cf\x85g\u2028h\u2029i\n",
                                  "a\n\r\n", "\r", "x" * 5000 + "\ny"])
def test_lines_are_the_lines_that_splitlines_lists(text):
    assert list(codecs.lines(text)) == text.splitlines()


@pytest.mark.parametrize("length", [30, 5000])  # a regular expression counts short lines, NumPy long ones
@pytest.mark.parametrize("separators", ["", "|"])
def test_count_tokens_counts_what_a_split_would_make(length, separators):
    import random
    import re

    generator = random.Random(length)
    for alphabet in ("ab1 \t|", "ab1 \t|\u3000\xa0\x1c\u2028１"):  # ASCII only, and other blanks too
        text = "".join(generator.choice(alphabet) for _ in range(length))
        tokens = re.findall(r"[^\s" + re.escape(separators) + "]+", text)
        assert codecs.count_tokens(text, separators) == (len(tokens), sum(map(len, tokens)))
        assert codecs.count_cells(text) == sum(not character.isspace() for character in text)


def test_gather_keeps_the_good_puzzles_and_each_bad_ones_error():
    def bad(number):
        def attempt():
            raise PuzzleError(f"f:{number}: bad")
        return attempt

    attempts = [lambda: 1, bad(2), lambda: 3, bad(4)]
    errors = []
    assert codecs.gather(iter(attempts), "f", errors) == [1, 3]
    assert [str(error) for error in errors] == ["f:2: bad", "f:4: bad"]
    with pytest.raises(PuzzleError, match="^f:2: bad$"):  # no list: the first bad puzzle refuses the file
        codecs.gather(iter(attempts), "f")
    with pytest.raises(PuzzleError, match="^f:2: bad$"):  # no good puzzle at all: the first error, as before
        codecs.gather(iter([bad(2), bad(4)]), "f", [])
    with pytest.raises(PuzzleError, match="^f: no puzzle found$"):
        codecs.gather(iter([]), "f", [])


EASY = "..237.9....75684.2.8..9....1...4.8..2.4...7.6..6.2...1....5..1.5.19326....3.862.."


@pytest.mark.parametrize("kind, text, good, bad", [
    ("sudoku", f"{EASY}\n{EASY[:-1]}\n{EASY}\n\n1 2\n3 4\n\n{EASY}\n", [1, 3, 8],
     ["f:2: wrong length 80", "f:5: 2 rows of 2 numbers"]),
    ("shikaku", "2x2:4c\n2x2:3\n. 2\n. 2\n\n. 3\n. 2\n", [1, 3], ["f:2: not enough data", "f:6: the clues sum to 5"]),
    ("hashi", "3x1:1a1\n3x1:1a\n1.1\n\n1.0\n", [1, 3], ["f:2: not enough data", "f:5:3: island with value 0"]),
], ids=["sudoku", "shikaku", "hashi"])
def test_every_kind_reads_the_good_puzzles_of_a_file_with_bad_ones(kind, text, good, bad):
    from gpu_sa.puzzles import PUZZLES

    errors = []
    assert [puzzle.line for puzzle in PUZZLES[kind].parse(text, "f", errors=errors)] == good
    assert [str(error)[:len(start)] for error, start in zip(errors, bad)] == bad and len(errors) == len(bad)
    with pytest.raises(PuzzleError, match=f"^{bad[0]}"):  # without the list: refused at the first, as before
        PUZZLES[kind].parse(text, "f")
