"""Reading and writing Hashiwokakero (Bridges) puzzles.

A puzzle is ``grid``, (rows, cols) int32: 0 = water, 1..8 = an island and its number.

Formats (``fmt``):
  has       the benchmark files of Coelho et al. (2019): a header ``rows cols islands``, then
            ``rows`` lines of ``cols`` whitespace-separated integers, 0 = water. The header's
            island count must match the grid. Blank lines separate puzzles::

                3 4 4
                2 0 0 1
                0 0 0 0
                3 0 0 2

  plain     one row per line, ``1``-``8`` an island, ``.`` water; spaces between the cells are
            allowed. ``0`` is an error (an island needs a number >= 1), so is ``9``. Blank
            lines separate puzzles::

                2..1
                ....
                3..2

  tatham    Simon Tatham's Bridges game ID ``WxH[params]:desc`` (W = columns, H = rows; the
            generator parameters ``i30e10m2d2`` ... are ignored). ``desc`` lists the cells row by
            row: ``a``-``z`` = 1..26 water cells, ``1``-``9`` an island, ``A``-``G`` islands of
            10..16 (``bridges.c`` ``encode_game``; they only arise with 4 bridges a pair and are
            rejected here). Tatham also rejects orthogonally adjacent islands; we accept them::

                4x3:2b1d3b2

  puzzlink  ``https://puzz.link/p?hashi/W/H/BODY`` (also ``hashikake``, ``bridges``), BODY in
            pzprjs's number16 code; ``.`` (a "?" island) and ``0`` are rejected::

                https://puzz.link/p?hashi/4/3/2h1j3h2

  auto      a block is ``has`` when its first line is three integers and it has no ``.``, or when a
            row of spaced numbers holds a ``0`` or a number of two characters (so a has file with
            one bad token is read as has, and the error names that token); otherwise per line: a
            puzz.link URL, a Tatham ID (``^\\d+x\\d+[^:]*:``), else rows of a plain block.

``#`` at the start of a line or after a blank starts a comment; a byte-order mark is ignored
(``codecs.blocks``). Numbers are ASCII digits: a full-width ``２`` is refused with the ASCII spelling in
the message. Every puzzle goes through ``limits.check_cells`` (at most a million cells) and
``geometry.check_grid``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ...engine import limits
from ..common import codecs
from ..common.errors import PuzzleError, PuzzleTooLarge
from .geometry import MAX_VALUE, check_grid

FORMATS = ("has", "plain", "tatham", "puzzlink")
PUZZLINK_NAMES = ("hashi", "hashikake", "bridges")  # pzprjs: pzprurl, pid, alias
_TATHAM_VALUES = "123456789ABCDEFG"  # 1..16
_INTEGER = re.compile(r"^[0-9]+$")
_TOKEN = re.compile(r"\S+")
_TWO_TOKENS = re.compile(r"\S\s+\S")
# a whole token that looks like a number ([-+]digits[.digits], full-width digits too) and is 0 or two characters
# long or more: no plain cell is one
_HAS_ONLY_TOKEN = re.compile(r"(?<!\S)(?:0|[-+]\d+(?:[.,]\d*)?|\d(?:\d+(?:[.,]\d*)?|[.,]\d*))(?!\S)")


@dataclass(frozen=True, eq=False)
class ParsedHashi:
    grid: np.ndarray  # (rows, cols) int32, 0 = water, 1..8 = island
    fmt: str
    source: str
    line: int  # 1-based line where the puzzle starts

    @property
    def label(self) -> str:
        return f"{self.source}:{self.line}"


def parse(text: str, source: str = "<input>", fmt: str = "auto", errors: list | None = None) -> list[ParsedHashi]:
    """Every puzzle in ``text``; raises ``PuzzleError`` (one line, ``source:line``) on the first problem, or, given
    ``errors`` (a list), appends each bad puzzle's error to it and returns the good ones (``codecs.gather``)."""
    if fmt not in ("auto",) + FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected auto, {', '.join(FORMATS)}")
    readers = {"plain": _parse_plain, "tatham": _parse_tatham, "puzzlink": _parse_puzzlink}

    def attempts():
        for block in codecs.blocks(text):
            if fmt == "has" or (fmt == "auto" and _looks_like_has(block, source)):
                yield lambda block=block: _parse_has(block, source)
                continue
            for kind, lines in codecs.split_block(block, fmt, PUZZLINK_NAMES):
                yield lambda read=readers[kind], lines=lines: read(lines, source)

    return codecs.gather(attempts(), source, errors)


def _looks_like_has(block, source):
    """A header of three integers over a grid without '.', or a row of spaced numbers holding a 0 or a number of
    two characters or more: neither can be plain, whose spaced cells are single characters and never 0."""
    header = block[0].content.split(maxsplit=3)  # a fourth part is no header, however long the line
    if len(header) == 3 and all(_INTEGER.match(t) for t in header) and not any("." in l.content for l in block):
        return True
    for line in codecs.polled(block[1:], f"parsing {source}", every=16):  # every token of the block is looked at
        # one search each, no list of tokens (a line may hold millions): a plain grid's tokens are all single
        # characters other than 0
        if _TWO_TOKENS.search(line.content) and _HAS_ONLY_TOKEN.search(line.content):
            return True
    return False


def _tokens(line):
    """(1-based column, token) of each whitespace-separated token of a line."""
    return [(line.indent + m.start() + 1, m.group()) for m in _TOKEN.finditer(line.content)]


def _parse_has(block, source):
    header_line, grid_lines = block[0], block[1:]
    where = f"{source}:{header_line.number}"
    header = header_line.content.split(maxsplit=3)
    if len(header) != 3 or not all(_INTEGER.match(t) and int(t) > 0 for t in header):
        raise PuzzleError(f"{where}: bad header {codecs.shorten(header_line.content)!r}: expected three positive "
                          f"integers 'rows cols islands' (a grid of numbers with 0 for water is the has format, "
                          f"which starts with that header)")
    rows, cols, islands = map(int, header)
    limits.check_cells(rows, cols, where, error=PuzzleTooLarge)
    if len(grid_lines) != rows:
        raise PuzzleError(f"{where}: the header says {rows} rows, {len(grid_lines)} follow")
    grid = np.zeros((rows, cols), dtype=np.int64)
    for r, line in enumerate(codecs.polled(grid_lines, f"parsing {source}", every=16)):
        count, _ = codecs.count_tokens(line.content)  # before the list of them, which the header bounds
        if count != cols:
            raise PuzzleError(f"{source}:{line.number}: ragged rows: {count} numbers in this row, "
                              f"the header says {cols} columns")
        for c, (column, token) in enumerate(_tokens(line)):
            if not _INTEGER.match(token):
                raise PuzzleError(f"{source}:{line.number}:{column}: bad number {codecs.shorten(token)!r}" + (
                    codecs.lookalike_note(token) or f" (0 = water, 1..{MAX_VALUE} = island)"))
            if int(token) > MAX_VALUE:
                raise PuzzleError(f"{source}:{line.number}:{column}: island value {token}; values are "
                                  f"0 (water) and 1..{MAX_VALUE}")
            grid[r, c] = int(token)
    found = int((grid > 0).sum())
    if found != islands:
        raise PuzzleError(f"{where}: the header says {islands} islands, the grid has {found}")
    return _checked(grid, "has", source, header_line.number)


def _parse_plain(rows, source):
    width = None
    grid = []
    for line in codecs.polled(rows, f"parsing {source}", every=16):  # one grid may have a million cells
        count = codecs.count_cells(line.content)  # sizes before cells: a line may hold millions
        if width is None:
            width = count
            limits.check_cells(len(rows), width, f"{source}:{rows[0].number}", error=PuzzleTooLarge)
        elif count != width:
            raise PuzzleError(f"{source}:{line.number}: ragged rows: {count} cells in this row, "
                              f"{width} in the puzzle's first row (line {rows[0].number})")
        cells = codecs.polled(enumerate(line.content), f"parsing {source}", every=4096)  # 1x1,000,000 too
        grid.append([_plain_cell(symbol, source, line.number, line.indent + i + 1) for i, symbol in cells
                     if not symbol.isspace()])
    return _checked(np.array(grid, dtype=np.int64), "plain", source, rows[0].number)


def _plain_cell(symbol, source, number, column):
    if symbol == ".":
        return 0
    where = f"{source}:{number}:{column}"
    if symbol == "0":
        raise PuzzleError(f"{where}: island with value 0; an island needs 1..{MAX_VALUE} bridges ('.' is water)")
    if symbol not in "123456789":
        raise PuzzleError(f"{where}: bad character {symbol!r}" + (
            codecs.lookalike_note(symbol) or f" (islands are 1..{MAX_VALUE}, '.' is water)"))
    if int(symbol) > MAX_VALUE:
        raise PuzzleError(f"{where}: island value {symbol}; values are 1..{MAX_VALUE}")
    return int(symbol)


def _read_tatham_island(description, i):
    value = _TATHAM_VALUES.find(description[i])
    return None if value < 0 else (value + 1, 1)


def _parse_tatham(lines, source):
    (line,) = lines
    where = f"{source}:{line.number}"
    rows, cols, description, column = codecs.split_tatham_id(line.content, where)
    values = codecs.decode_runs(description, rows * cols, _read_tatham_island, where, line.indent + column)
    return _checked(values.clip(min=0).reshape(rows, cols), "tatham", source, line.number)


def _parse_puzzlink(lines, source):
    (line,) = lines
    grid = codecs.puzzlink_grid(line, PUZZLINK_NAMES, f"{source}:{line.number}", "island",
                                f"island with value 0 at {{cell}}; islands are 1..{MAX_VALUE}")
    return _checked(grid, "puzzlink", source, line.number)


def _checked(grid, fmt, source, line):
    limits.check_cells(*grid.shape, f"{source}:{line}", error=PuzzleTooLarge)
    check_grid(grid, f"{source}:{line}")
    grid = grid.astype(np.int32)
    grid.setflags(write=False)
    return ParsedHashi(grid=grid, fmt=fmt, source=source, line=line)


def write(grid: np.ndarray, fmt: str) -> str:
    """One puzzle as text in ``fmt`` (no trailing newline)."""
    grid = np.asarray(grid)
    if grid.ndim != 2:
        raise ValueError(f"grid must be a (rows, cols) array, got shape {grid.shape}")
    rows, cols = grid.shape
    if fmt == "has":
        body = (" ".join(str(int(v)) for v in row) for row in grid)
        return "\n".join([f"{rows} {cols} {int((grid > 0).sum())}", *body])
    if fmt == "plain":
        return "\n".join("".join("." if v <= 0 else str(int(v)) for v in row) for row in grid)
    flat = np.where(grid > 0, grid, codecs.EMPTY).ravel()
    if fmt == "tatham":
        return f"{cols}x{rows}:" + codecs.encode_runs(flat, lambda v: _TATHAM_VALUES[v - 1])
    if fmt == "puzzlink":
        return codecs.puzzlink_url(PUZZLINK_NAMES[0], rows, cols, codecs.encode_number16(flat))
    raise ValueError(f"unknown output format {fmt!r}; expected {', '.join(FORMATS)}")


def draw_solution(grid: np.ndarray, bridges) -> str:
    """The solved grid in Tatham's text style, spread out so that a bridge between neighbouring islands
    has room: islands as digits, ``.`` water, ``-``/``|`` single and ``=``/``"`` double bridges, ``+``
    where two bridges cross (an unfinished state still draws). ``bridges`` are ``[r1, c1, r2, c2, count]``
    (0-based, count 0..2, 0 = none).

    Cells sit two columns apart, with a blank column between them; rows are spread the same way only
    when two islands touch vertically (terminal characters are about twice as tall as wide)::

        2-----1          2 . 1          3=3
        | . . .                         "
        3=====2                         2
    """
    array = np.asarray(grid)
    rows, cols = array.shape
    islands = array > 0
    row_step = 2 if (islands[1:] & islands[:-1]).any() else 1
    grid = array.tolist()  # plain lists: a numpy element read per cell and bridge cost seconds on large grids
    picture = [[" "] * (2 * cols - 1) for _ in range((rows - 1) * row_step + 1)]
    for r in range(rows):
        for c in range(cols):
            picture[r * row_step][2 * c] = "." if grid[r][c] <= 0 else str(int(grid[r][c]))
    symbols = {(True, 1): "-", (True, 2): "=", (False, 1): "|", (False, 2): '"'}
    for bridge in np.asarray(bridges, dtype=np.int64).reshape(-1, 5):
        r1, c1, r2, c2, count = (int(v) for v in bridge)
        if count == 0:
            continue
        if count not in (1, 2):
            raise ValueError(f"bridge {bridge.tolist()}: count must be 0, 1 or 2")
        for r, c in ((r1, c1), (r2, c2)):
            if not (0 <= r < rows and 0 <= c < cols and grid[r][c] > 0):
                raise ValueError(f"bridge {bridge.tolist()}: (r{r}, c{c}) is not an island")
        if (r1 == r2) == (c1 == c2):
            raise ValueError(f"bridge {bridge.tolist()} is neither horizontal nor vertical")
        horizontal = r1 == r2
        cells = ([(r1, c) for c in range(min(c1, c2) + 1, max(c1, c2))] if horizontal
                 else [(r, c1) for r in range(min(r1, r2) + 1, max(r1, r2))])
        for r, c in cells:
            if grid[r][c] > 0:
                raise ValueError(f"bridge {bridge.tolist()} runs through the island at (r{r}, c{c})")
        if horizontal:
            path = [(r1 * row_step, x) for x in range(2 * min(c1, c2) + 1, 2 * max(c1, c2))]
        else:
            path = [(y, 2 * c1) for y in range(min(r1, r2) * row_step + 1, max(r1, r2) * row_step)]
        for y, x in path:
            picture[y][x] = symbols[horizontal, count] if picture[y][x] in " ." else "+"
    return "\n".join("".join(line).rstrip() for line in picture)
