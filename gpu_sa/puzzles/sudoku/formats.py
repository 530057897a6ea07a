"""Reading and writing Sudoku grids.

Formats (``fmt``):
  line     one puzzle per line, N*N symbols, row by row: ``1``-``9`` then ``A``-``Z`` for
           10..35, ``.`` or ``0`` for an empty cell (orders 2..5). A file may hold many.
  grid     N lines of N symbols (same symbols); spaces, ``|`` and separator lines made of
           ``-+=|`` are ignored. Blank lines separate grids.
  numbers  the seed's format: N lines of N whitespace-separated integers, 0 = empty (any order).
  acs      the files of Lloyd & Amos's ant-colony solver (``huwlloyd-mmu/sudoku_acs``,
           ``instances/general/``): a line with the order n, a line ``1`` (the solver reads and
           ignores it; any integer is accepted), then N lines of N integers, ``-1`` = empty::

               2
               1
               1 -1 -1 4
               ...

Numbers are ASCII digits without a sign (``-1`` only in ``acs``); ``13.0``, ``+2`` and full-width
``１２`` are errors that name the line, the column and the token. ``#`` at the start of a line or
after a blank starts a comment; a byte-order mark is ignored (``codecs.blocks``). Values are
returned 0-based with -1 for an empty cell.

``auto`` decides per block (a run of non-blank lines): two header lines holding one integer each
make ``acs``; else each line votes by its shape (several number-like tokens: ``numbers``; as many
cells as the block has rows: ``grid``; one token of 16, 81, 256 or 625 symbols: ``line``) and the
majority decides, so a file with one bad row is read in the format it evidently uses and the error
says what is wrong with that row.
"""
from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

from ..common import codecs
from ..common.errors import PuzzleError, ShapeError
from .geometry import MAX_ORDER, MIN_ORDER, order_of_side

FORMATS = ("line", "grid", "numbers", "acs")
SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
EMPTY = ".0"
LINE_SYMBOLS = "." + SYMBOLS  # a value's symbol at value + 1 (-1: empty)
LINE_LENGTHS = tuple((n * n) ** 2 for n in range(2, 6))  # 16, 81, 256, 625: orders with one symbol per value
GRID_SIDES = tuple(n * n for n in range(2, 6))  # 4, 9, 16, 25: sides with one symbol per value
WIDE_LINE_LENGTHS = tuple((n * n) ** 2 for n in range(6, MAX_ORDER + 1))  # 1296 .. 14641: too many values for a line
ACS_EMPTY = -1
_SEPARATOR_LINE = re.compile(r"^[\s\-+=|]+$")
_TOKEN = re.compile(r"[^\s|]+")
_ASCII_INTEGER = re.compile(r"^[0-9]+$")
_SIGNED_INTEGER = re.compile(r"^[-+][0-9]+$")
_DECIMAL = re.compile(r"^[-+]?[0-9]*[.,][0-9]*$")
_NUMBER_LIKE = re.compile(r"^[-+]?\d+(?:[.,]\d*)?$")  # \d: full-width digits count as evidence too
_LINE_SYMBOLS = re.compile(r"[.0-9A-Za-z]+")
MAX_SIDE = MAX_ORDER * MAX_ORDER  # 121: no row of any format holds more cells or numbers
NEAR_MISS = 2  # a line this many cells from a puzzle's length is that puzzle with a typo, not another kind's text


@dataclass(frozen=True, eq=False)
class ParsedGrid:
    values: np.ndarray  # (N*N,) int16, 0-based digits, -1 = empty
    order: int
    fmt: str
    source: str
    line: int  # 1-based line where the puzzle starts


def parse(text: str, source: str = "<input>", fmt: str = "auto", errors: list | None = None) -> list[ParsedGrid]:
    """Every puzzle in ``text``; raises ``PuzzleError`` on the first problem, or, given ``errors`` (a list), appends
    each bad puzzle's error to it and returns the good ones (``codecs.gather``)."""
    if fmt not in ("auto",) + FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected auto, {', '.join(FORMATS)}")
    readers = {"line": _parse_line, "grid": _parse_grid, "numbers": _parse_numbers, "acs": _parse_acs}

    def attempts():
        for block in _blocks(text, source):
            kind = fmt if fmt != "auto" else _detect(block, source)
            if kind == "line":  # a puzzle per line
                for line in codecs.polled(block, f"parsing {source}", every=256):
                    yield lambda line=line: _parse_line(line, source)
            else:
                yield lambda block=block, read=readers[kind]: read(block, source)

    return codecs.gather(attempts(), source, errors)


def _blocks(text, source):
    """``codecs.blocks`` without the separator lines of the grid format."""
    for block in codecs.blocks(text):
        lines = codecs.polled(block, f"parsing {source}")
        kept = [line for line in lines if not _SEPARATOR_LINE.match(line.content)]
        if kept:
            yield kept


def _tokens(line):
    """(1-based column, token) of each token of a line; blanks and ``|`` separate tokens."""
    return [(line.indent + match.start() + 1, match.group()) for match in _TOKEN.finditer(line.content)]


def _count(line):
    """(tokens, characters in them) of a line, counted before any list of them is made (``codecs.count_tokens``)."""
    return codecs.count_tokens(line.content, "|")


def _detect(block, source):
    """The format a block evidently uses; the parser then checks every row and names what is wrong."""
    if _has_acs_header(block):
        return "acs"
    rows = len(block)
    votes = Counter(_shape(line, rows) for line in codecs.polled(block, f"parsing {source}"))
    return max(("numbers", "grid", "line"), key=lambda kind: votes[kind])  # ties: the earlier


def _has_acs_header(block):
    return (len(block) >= 3 and re.fullmatch(r"[0-9]{1,2}", block[0].content) is not None
            and re.fullmatch(r"-?[0-9]{1,9}", block[1].content) is not None)


def _shape(line, rows):
    """The format one line of a ``rows``-line block looks like."""
    count, cells = _count(line)
    # the rules below look at the tokens of lines of two or more; no row of any format has more than the largest
    # side, and the rest of a longer line changes no vote
    tokens = ([match.group() for match in itertools.islice(_TOKEN.finditer(line.content), MAX_SIDE + 1)]
              if count >= 2 else [])
    if count == 1 and cells in LINE_LENGTHS and cells != rows:
        return "line"
    if count == rows > 1 and all(_ASCII_INTEGER.match(token) for token in tokens):
        return "numbers"  # also a spaced grid of digits: both read the same
    if cells == rows or (count == 1 and cells in GRID_SIDES):
        return "grid"
    if count >= 2 and 2 * sum(bool(_NUMBER_LIKE.match(token)) for token in tokens) > len(tokens):
        return "numbers"
    return "grid" if count >= 2 and all(len(token) == 1 for token in tokens) else "line"


def _where(source, line, column=None):
    return f"{source}:{line}" + (f":{column}" if column is not None else "")


# a symbol's value (0-based, -1 empty) whatever the grid's side; ``_symbol_value`` says which are allowed where
_VALUE_OF = {**{symbol: -1 for symbol in EMPTY}, **{symbol: index for index, symbol in enumerate(SYMBOLS)},
             **{symbol.lower(): index for index, symbol in enumerate(SYMBOLS)}}


def _symbol_value(symbol, side, where):
    if symbol in EMPTY:
        return -1
    index = SYMBOLS.find(symbol.upper()) if symbol.isascii() else -1
    if index < 0 or (index >= 9 and side <= 9):  # letters are values only from 10x10 grids on
        raise PuzzleError(f"{where}: bad character {symbol!r}{codecs.lookalike_note(symbol)}")
    if index >= side:
        raise PuzzleError(f"{where}: value {symbol!r} = {index + 1} out of range 1..{side}")
    return index


def _parse_line(line, source):
    length = len(line.content)  # measured before anything is made of the line: a file may be one line of megabytes
    if length not in LINE_LENGTHS:
        nearest = min(LINE_LENGTHS, key=lambda cells: abs(cells - length))
        if abs(nearest - length) <= NEAR_MISS and _LINE_SYMBOLS.fullmatch(line.content):
            # a puzzle of this kind with a symbol left out or typed twice: that is what to say, and no other kind is
            # to blame (a ShapeError would add "the file reads as hashi", a 1-row Hashiwokakero of dots and digits);
            # a game ID or a URL (':', '/') is no near miss
            side = int(round(nearest ** 0.5))
            raise PuzzleError(f"{_where(source, line.number)}: wrong length {length}: a {side}x{side} grid has "
                              f"{nearest} cells ({_near_miss(length - nearest)})")
        if length in WIDE_LINE_LENGTHS and _LINE_SYMBOLS.fullmatch(line.content):
            side = int(round(length ** 0.5))
            raise PuzzleError(f"{_where(source, line.number)}: a {side}x{side} grid has more values than the line "
                              f"format's {len(SYMBOLS)} symbols: write it in the numbers or acs format")
        blanks = " and no blanks" if codecs.count_cells(line.content) < length else ""
        raise ShapeError(f"{_where(source, line.number)}: wrong length {length} "
                          f"(a line puzzle has {', '.join(map(str, LINE_LENGTHS))} cells{blanks})")
    order = order_of_side(int(round(length ** 0.5)))
    side = order * order
    values = [_VALUE_OF.get(symbol, side) for symbol in line.content]  # side: not a value of this grid
    if max(values) >= side:  # the slow way, which names the first bad character and where it is
        values = [_symbol_value(s, side, _where(source, line.number, line.indent + i + 1))
                  for i, s in enumerate(line.content)]
    return _checked(np.array(values, dtype=np.int16), order, "line", source, line.number)


def _near_miss(extra):
    """How a line that is ``extra`` cells longer than a puzzle (fewer when negative) came to be, as a question."""
    count = ("one", "two", "three")[abs(extra) - 1] if abs(extra) <= 3 else str(abs(extra))
    return f"{count} missing?" if extra < 0 else f"{count} too many?"


def _parse_grid(block, source):
    side = len(block)
    order = order_of_side(side)
    widths = [_count(line)[1] for line in codecs.polled(block, f"parsing {source}")]  # sizes first, cells later
    if order is None or side > len(SYMBOLS):
        width = Counter(widths).most_common(1)[0][0]
        hint = (f"rows of {width} cells: a {width}x{width} grid needs {width} rows" if width in GRID_SIDES
                else "a Sudoku grid of order 2..5 has 4, 9, 16 or 25 rows; use the numbers format for larger grids")
        raise ShapeError(f"{_where(source, block[0].number)}: a grid of {side} rows: {hint}")
    values = []
    for line, width in zip(block, widths):
        if width != side:
            raise PuzzleError(f"{_where(source, line.number)}: wrong length: {width} cells in a row, expected {side}")
        values.extend(_symbol_value(s, side, _where(source, line.number, column + i))
                      for column, token in _tokens(line) for i, s in enumerate(token))
    return _checked(np.array(values, dtype=np.int16), order, "grid", source, block[0].number)


def _rows_of_numbers(block, source, fmt, empty):
    """The values (0-based, -1 empty) of a block of N rows of N numbers, ``empty`` marking an empty cell."""
    side = len(block)
    counts = [_count(line)[0] for line in codecs.polled(block, f"parsing {source}")]  # sizes first, tokens later
    if order_of_side(side) is None:
        width = Counter(counts).most_common(1)[0][0]
        if order_of_side(width) is not None:
            problem = f"a {width}x{width} Sudoku needs {width} rows"
        else:
            problem = f"a Sudoku has n*n rows of n*n numbers for n = {MIN_ORDER}..{MAX_ORDER}"
        raise ShapeError(f"{_where(source, block[0].number)}: {side} row{'s' * (side != 1)} of {width} numbers in "
                          f"the {fmt} format: {problem}")
    values = []
    for line, count in zip(block, counts):
        if count != side:
            raise PuzzleError(f"{_where(source, line.number)}: wrong length: {count} numbers in a row, "
                              f"expected {side}")
        values.extend(_number(token, side, fmt, empty, _where(source, line.number, column))
                      for column, token in _tokens(line))
    return np.array(values, dtype=np.int16), order_of_side(side)


def _number(token, side, fmt, empty, where):
    """One cell of the numbers or acs format, 0-based, -1 for ``empty``."""
    legal = f"0..{side} (0 = empty" if empty == 0 else f"1..{side} (-1 = empty"
    if _ASCII_INTEGER.match(token) or token == str(empty):
        value = int(token)
        if value == empty:
            return -1
        if 1 <= value <= side:
            return value - 1
        hint = "; 0 is the numbers format's empty cell" if value == 0 else ""
        raise PuzzleError(f"{where}: value {value} out of range {legal}{hint})")
    if token == "-1":
        raise PuzzleError(f"{where}: value -1 out of range {legal}; -1 is the acs format's empty cell, and an acs "
                          f"file starts with a line holding the order, then a line '1')")
    if _SIGNED_INTEGER.match(token) and token.startswith("+"):
        raise PuzzleError(f"{where}: bad number {codecs.shorten(token)!r}: write numbers without a sign")
    if _DECIMAL.match(token):
        raise PuzzleError(f"{where}: bad number {codecs.shorten(token)!r}: cells hold integers, {legal})")
    note = codecs.lookalike_note(token)
    raise PuzzleError(f"{where}: bad number {codecs.shorten(token)!r}" + (note or f": a cell is {legal})"))


def _parse_numbers(block, source):
    values, order = _rows_of_numbers(block, source, "numbers", 0)
    return _checked(values, order, "numbers", source, block[0].number)


def _parse_acs(block, source):
    if len(block) < 3:
        raise PuzzleError(f"{_where(source, block[0].number)}: an acs puzzle is a line with the order, a line '1', "
                          f"then the rows; this block has {len(block)} line{'s' * (len(block) != 1)}")
    header, count, grid = block[0], block[1], block[2:]
    if not re.fullmatch(r"[0-9]+", header.content) or order_of_side(int(header.content) ** 2) is None:
        raise PuzzleError(f"{_where(source, header.number)}: acs header: the first line is the order, "
                          f"{MIN_ORDER}..{MAX_ORDER} (3 for 9x9), got {codecs.shorten(header.content)!r}")
    if not re.fullmatch(r"-?[0-9]+", count.content):
        raise PuzzleError(f"{_where(source, count.number)}: acs header: the second line is an integer (1), "
                          f"got {codecs.shorten(count.content)!r}")
    order = int(header.content)
    side = order * order
    if len(grid) != side:
        raise PuzzleError(f"{_where(source, header.number)}: the acs header says order {order}: {side} rows "
                          f"of {side} numbers, {len(grid)} rows follow")
    values, _ = _rows_of_numbers(grid, source, "acs", ACS_EMPTY)
    return _checked(values, order, "acs", source, header.number)


def _checked(values, order, fmt, source, line):
    """Reject givens that already break a rule: the same digit twice in a row, column or box."""
    side = order * order
    grid = values.reshape(side, side)
    if not _any_clash(grid, order):  # the common case, in a few array operations; the loop below names the clash
        values.setflags(write=False)
        return ParsedGrid(values=values, order=order, fmt=fmt, source=source, line=line)
    units = [("row", lambda i: [(i, c) for c in range(side)]),
             ("column", lambda i: [(r, i) for r in range(side)]),
             ("box", lambda i: [((i // order) * order + k // order, (i % order) * order + k % order)
                                for k in range(side)])]
    for unit_name, cells_of in units:
        for unit in range(side):
            seen = {}
            for r, c in cells_of(unit):
                digit = int(grid[r, c])
                if digit < 0:
                    continue
                if digit in seen:
                    r0, c0 = seen[digit]
                    raise PuzzleError(f"{_where(source, line)}: givens clash: {_symbol(digit + 1, side)} twice in "
                                      f"{unit_name} {unit + 1} (r{r0 + 1}c{c0 + 1} and r{r + 1}c{c + 1})")
                seen[digit] = (r, c)
    values.setflags(write=False)
    return ParsedGrid(values=values, order=order, fmt=fmt, source=source, line=line)


def _any_clash(grid, order):
    """Whether some digit is given twice in a row, column or box (grid: side x side, 0-based, -1 empty)."""
    side = order * order
    boxes = grid.reshape(order, order, order, order).transpose(0, 2, 1, 3).reshape(side, side)
    for units in (grid, grid.T, boxes):
        given = units >= 0
        slots = (np.arange(side)[:, None] * side + units)[given]  # (unit, digit) of every given
        if np.bincount(slots, minlength=side * side).max(initial=0) > 1:
            return True
    return False


def _symbol(value, side):
    """Printed form of a 1-based value: one symbol for sides up to 35, else the number."""
    return SYMBOLS[value - 1] if side <= len(SYMBOLS) else str(value)


def write(values: np.ndarray, order: int, fmt: str) -> str:
    """``values`` (0-based, -1 empty) as text in ``fmt``: line, grid, numbers, acs or pretty (boxed)."""
    side = order * order
    grid = np.asarray(values).reshape(side, side)
    if fmt in ("line", "grid") and side > len(SYMBOLS):
        fmt = "numbers"  # no single symbol per value: fall back to the seed's format
    if fmt == "line":  # (Python ints from tolist: indexing with numpy scalars costs 10x more)
        return "".join([LINE_SYMBOLS[v + 1] for v in grid.ravel().tolist()])
    if fmt == "grid":
        return "\n".join("".join([LINE_SYMBOLS[v + 1] for v in row]) for row in grid.tolist())
    if fmt == "numbers":
        return "\n".join(" ".join(str(int(v) + 1) for v in row) for row in grid)
    if fmt == "acs":  # as Lloyd & Amos's files: the order, the line '1', rows with a tab after every number
        rows = ("".join(f"{ACS_EMPTY if v < 0 else int(v) + 1}\t" for v in row) for row in grid)
        return "\n".join([str(order), "1", *rows])
    if fmt == "pretty":
        return _pretty(grid, order)
    raise ValueError(f"unknown output format {fmt!r}")


def _pretty(grid, order):
    side = order * order
    width = 1 if side <= len(SYMBOLS) else len(str(side))
    texts = [".".rjust(width)] + [_symbol(value, side).rjust(width) for value in range(1, side + 1)]  # value + 1
    band = "+" + "+".join(["-" * (order * (width + 1) + 1)] * order) + "+"
    lines = [band]
    for r, row in enumerate(grid.tolist()):
        cells = [texts[v + 1] for v in row]
        parts = [" ".join(cells[b * order:(b + 1) * order]) for b in range(order)]
        lines.append("| " + " | ".join(parts) + " |")
        if (r + 1) % order == 0:
            lines.append(band)
    return "\n".join(lines)
