"""Reading and writing Sudoku grids.

Formats (``fmt``):
  line     one puzzle per line, N*N symbols, row by row: ``1``-``9`` then ``A``-``Z`` for
           10..35, ``.`` or ``0`` for an empty cell (orders 2..5). A file may hold many.
  grid     N lines of N symbols (same symbols); spaces, ``|`` and separator lines made of
           ``-+=|`` are ignored. Blank lines separate grids.
  numbers  the seed's format: N lines of N whitespace-separated integers, 0 = empty (any order).

``#`` starts a comment line. Values are returned 0-based with -1 for an empty cell.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .. import codecs
from ..errors import PuzzleError
from .geometry import MAX_ORDER, order_of_side

FORMATS = ("line", "grid", "numbers")
SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
EMPTY = ".0"
LINE_LENGTHS = tuple((n * n) ** 2 for n in range(2, 6))  # 16, 81, 256, 625: orders with one symbol per value
_SEPARATOR_LINE = re.compile(r"^[\s\-+=|]+$")


@dataclass(frozen=True, eq=False)
class ParsedGrid:
    values: np.ndarray  # (N*N,) int16, 0-based digits, -1 = empty
    order: int
    fmt: str
    source: str
    line: int  # 1-based line where the puzzle starts


def parse(text: str, source: str = "<input>", fmt: str = "auto") -> list[ParsedGrid]:
    """Every puzzle in ``text``; raises ``PuzzleError`` on the first problem."""
    if fmt not in ("auto",) + FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected auto, {', '.join(FORMATS)}")
    puzzles = []
    for block in _blocks(text):
        kind = fmt if fmt != "auto" else _detect(block)
        if kind == "line":
            puzzles.extend(_parse_line(number, content, source) for number, content in block)
        elif kind == "grid":
            puzzles.append(_parse_grid(block, source))
        else:
            puzzles.append(_parse_numbers(block, source))
    if not puzzles:
        raise PuzzleError(f"{source}: no puzzle found")
    return puzzles


def _blocks(text):
    """Runs of (line number, stripped content) separated by blank lines; comments and separator lines dropped."""
    for block in codecs.blocks(text):
        kept = [(line.number, line.content) for line in block if not _SEPARATOR_LINE.match(line.content)]
        if kept:
            yield kept


def _detect(block):
    """Decide a block's format from its row count and first row; the parser then checks every row."""
    rows = len(block)
    if rows == 1:
        return "line"
    first = block[0][1].replace("|", " ").split()
    if len(first) == rows and all(token.isdigit() for token in first):
        return "numbers"
    if order_of_side(rows) and len("".join(first)) == rows:
        return "grid"
    return "line"


def _where(source, line, column=None):
    return f"{source}:{line}" + (f":{column}" if column is not None else "")


def _symbol_value(symbol, side, source, line, column):
    if symbol in EMPTY:
        return -1
    index = SYMBOLS.find(symbol.upper())
    if index < 0 or (index >= 9 and side <= 9):  # letters are values only from 10x10 grids on
        raise PuzzleError(f"{_where(source, line, column)}: bad character {symbol!r}")
    if index >= side:
        raise PuzzleError(f"{_where(source, line, column)}: value {symbol!r} = {index + 1} out of range 1..{side}")
    return index


def _parse_line(number, content, source):
    length = len(content)
    order = order_of_side(int(round(length ** 0.5))) if int(round(length ** 0.5)) ** 2 == length else None
    if order is None or length not in LINE_LENGTHS:
        raise PuzzleError(f"{_where(source, number)}: wrong length {length} "
                          f"(a line puzzle has {', '.join(map(str, LINE_LENGTHS))} cells)")
    side = order * order
    values = [_symbol_value(s, side, source, number, i + 1) for i, s in enumerate(content)]
    return _checked(np.array(values, dtype=np.int16), order, "line", source, number)


def _parse_grid(block, source):
    side = len(block)
    order = order_of_side(side)
    if order is None or side > len(SYMBOLS):
        raise PuzzleError(f"{_where(source, block[0][0])}: a grid of {side} rows is not a Sudoku of "
                          f"order 2..5 (use the numbers format for larger grids)")
    values = []
    for number, content in block:
        cells = [(i + 1, s) for i, s in enumerate(content) if not s.isspace() and s != "|"]
        if len(cells) != side:
            raise PuzzleError(f"{_where(source, number)}: wrong length: {len(cells)} cells in a row, expected {side}")
        values.extend(_symbol_value(s, side, source, number, column) for column, s in cells)
    return _checked(np.array(values, dtype=np.int16), order, "grid", source, block[0][0])


def _parse_numbers(block, source):
    side = len(block)
    order = order_of_side(side)
    if order is None:
        raise PuzzleError(f"{_where(source, block[0][0])}: {side} rows of numbers is not a Sudoku side "
                          f"(n*n for n = 2..{MAX_ORDER})")
    values = []
    for number, content in block:
        tokens = content.replace("|", " ").split()
        if len(tokens) != side:
            raise PuzzleError(f"{_where(source, number)}: wrong length: {len(tokens)} numbers in a row, expected {side}")
        for token in tokens:
            if not token.lstrip("-").isdigit():
                raise PuzzleError(f"{_where(source, number)}: bad number {token!r}")
            value = int(token)
            if not 0 <= value <= side:
                raise PuzzleError(f"{_where(source, number)}: value {value} out of range 0..{side} (0 = empty)")
            values.append(value - 1)
    return _checked(np.array(values, dtype=np.int16), order, "numbers", source, block[0][0])


def _checked(values, order, fmt, source, line):
    """Reject givens that already break a rule: the same digit twice in a row, column or box."""
    side = order * order
    grid = values.reshape(side, side)
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


def _symbol(value, side):
    """Printed form of a 1-based value: one symbol for sides up to 35, else the number."""
    return SYMBOLS[value - 1] if side <= len(SYMBOLS) else str(value)


def write(values: np.ndarray, order: int, fmt: str) -> str:
    """``values`` (0-based, -1 empty) as text in ``fmt``: line, grid, numbers or pretty (boxed)."""
    side = order * order
    grid = np.asarray(values).reshape(side, side)
    if fmt in ("line", "grid") and side > len(SYMBOLS):
        fmt = "numbers"  # no single symbol per value: fall back to the seed's format
    if fmt == "line":
        return "".join("." if v < 0 else SYMBOLS[v] for v in grid.ravel())
    if fmt == "grid":
        return "\n".join("".join("." if v < 0 else SYMBOLS[v] for v in row) for row in grid)
    if fmt == "numbers":
        return "\n".join(" ".join(str(int(v) + 1) for v in row) for row in grid)
    if fmt == "pretty":
        return _pretty(grid, order)
    raise ValueError(f"unknown output format {fmt!r}")


def _pretty(grid, order):
    side = order * order
    width = 1 if side <= len(SYMBOLS) else len(str(side))

    def cell(v):
        text = "." if v < 0 else _symbol(int(v) + 1, side)
        return text.rjust(width)

    band = "+" + "+".join(["-" * (order * (width + 1) + 1)] * order) + "+"
    lines = [band]
    for r, row in enumerate(grid):
        parts = [" ".join(cell(v) for v in row[b * order:(b + 1) * order]) for b in range(order)]
        lines.append("| " + " | ".join(parts) + " |")
        if (r + 1) % order == 0:
            lines.append(band)
    return "\n".join(lines)
