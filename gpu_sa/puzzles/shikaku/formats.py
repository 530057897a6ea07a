"""Reading and writing Shikaku (Rectangles) puzzles.

A puzzle is ``clues``, (rows, cols) int32: 0 = no clue, k > 0 = a clue of value k.

Formats (``fmt``):
  plain     one row per line, whitespace-separated tokens: a number is a clue, ``.`` or ``0`` an
            empty cell; every row of a puzzle has the same number of tokens. Blank lines separate
            puzzles::

                . . 4 .
                2 . . .
                . . . 6
                4 . . .

  tatham    Simon Tatham's Rectangles (``rect``) game ID, one per line: ``WxH[params]:desc``,
            W = columns, H = rows; generator parameters after WxH (``e4``, ``a``) are ignored.
            ``desc`` lists the cells row by row: ``a``-``z`` = 1..26 empty cells, a decimal number
            (first digit 1-9) = a clue, ``_`` = nothing (Tatham writes it between two adjacent
            clues). The cells must number exactly W*H (``rect.c`` ``validate_desc``)::

                4x4:b4a2f6_4c

  puzzlink  puzz.link / pzv.jp URL ``https://puzz.link/p?shikaku/W/H/BODY``, BODY in pzprjs's
            number16 code (``0``-``f``, ``-XX``, ``+XXX`` ..., see ``codecs``; ``g``-``z`` = 1..20
            empty cells);
            ``.`` ("?" clue) is rejected: the annealer needs every clue's value::

                https://puzz.link/p?shikaku/4/4/h4g2l64i

  auto      per line: a puzz.link URL (``puzz.link``, ``pzv.jp``, ``?shikaku/`` or starting
            ``shikaku/``), else a Tatham ID (``^\\d+x\\d+[^:]*:``), else rows of a plain block.

``#`` at the start of a line or after a blank starts a comment; a byte-order mark is ignored
(``codecs.blocks``). Numbers are ASCII digits: a full-width ``１２`` is refused with the ASCII spelling
in the message. Every puzzle goes through ``limits.check_cells`` (at most a million cells) and
``geometry.check_clues``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ...engine import limits
from ..common import codecs
from ..common.errors import PuzzleError, PuzzleTooLarge
from .geometry import check_clues

FORMATS = ("plain", "tatham", "puzzlink")
PUZZLINK_NAMES = ("shikaku",)
_TOKEN = re.compile(r"\S+")


@dataclass(frozen=True, eq=False)
class ParsedShikaku:
    clues: np.ndarray  # (rows, cols) int32, 0 = no clue
    fmt: str
    source: str
    line: int  # 1-based line where the puzzle starts

    @property
    def label(self) -> str:
        return f"{self.source}:{self.line}"


def parse(text: str, source: str = "<input>", fmt: str = "auto", errors: list | None = None) -> list[ParsedShikaku]:
    """Every puzzle in ``text``; raises ``PuzzleError`` (one line, ``source:line``) on the first problem, or, given
    ``errors`` (a list), appends each bad puzzle's error to it and returns the good ones (``codecs.gather``)."""
    if fmt not in ("auto",) + FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected auto, {', '.join(FORMATS)}")
    readers = {"plain": _parse_plain, "tatham": _parse_tatham, "puzzlink": _parse_puzzlink}
    attempts = (lambda read=readers[kind], lines=lines: read(lines, source)
                for block in codecs.blocks(text)
                for kind, lines in codecs.split_block(block, fmt, PUZZLINK_NAMES))
    return codecs.gather(attempts, source, errors)


def _parse_plain(rows, source):
    width = None
    grid = []
    for line in codecs.polled(rows, f"parsing {source}", every=16):  # a 1000x1000 grid: a million clues
        count, _ = codecs.count_tokens(line.content)  # sizes before clues: a line may hold millions
        if width is None:
            width = count
            limits.check_cells(len(rows), width, f"{source}:{line.number}", error=PuzzleTooLarge)
        elif count != width:
            raise PuzzleError(f"{source}:{line.number}: ragged rows: {count} tokens in this row, "
                              f"{width} in the puzzle's first row (line {rows[0].number})")
        tokens = codecs.polled(_TOKEN.finditer(line.content), f"parsing {source}", every=4096)  # 1x1,000,000 too
        grid.append([_plain_clue(token.group(), line.indent + token.start() + 1, line.number, source)
                     for token in tokens])
    return _checked(np.array(grid, dtype=np.int64), "plain", source, rows[0].number)


def _plain_clue(token, column, number, source):
    if token == ".":
        return 0
    if not (token.isascii() and token.isdigit()):
        raise PuzzleError(f"{source}:{number}:{column}: clue {codecs.shorten(token)!r} is not a number" + (
            codecs.lookalike_note(token) or " (a clue is a positive integer written in ASCII digits, '.' or '0' an "
                                            "empty cell)"))
    value = int(token)
    if value > limits.MAX_GRID_CELLS:  # also keeps a 30-digit clue out of the int64 grid
        raise PuzzleError(f"{source}:{number}:{column}: clue {token} is larger than any grid accepted "
                          f"({limits.MAX_GRID_CELLS:,} cells)")
    return value


def _read_tatham_clue(description, i):
    """A decimal clue (first digit 1-9), or Tatham's no-op '_'."""
    if description[i] == "_":
        return None, 1
    if not "1" <= description[i] <= "9":
        return None
    end = i + 1
    while end < len(description) and "0" <= description[end] <= "9":
        end += 1
    return int(description[i:end]), end - i


def _parse_tatham(lines, source):
    (line,) = lines
    where = f"{source}:{line.number}"
    rows, cols, description, column = codecs.split_tatham_id(line.content, where)
    values = codecs.decode_runs(description, rows * cols, _read_tatham_clue, where, line.indent + column)
    return _checked(values.clip(min=0).reshape(rows, cols), "tatham", source, line.number)


def _parse_puzzlink(lines, source):
    (line,) = lines
    grid = codecs.puzzlink_grid(line, PUZZLINK_NAMES, f"{source}:{line.number}", "clue",
                                "clue 0 at {cell}; clues are positive")
    return _checked(grid, "puzzlink", source, line.number)


def _checked(grid, fmt, source, line):
    limits.check_cells(*grid.shape, f"{source}:{line}", error=PuzzleTooLarge)
    check_clues(grid, f"{source}:{line}")
    clues = grid.astype(np.int32)
    clues.setflags(write=False)
    return ParsedShikaku(clues=clues, fmt=fmt, source=source, line=line)


def write(clues: np.ndarray, fmt: str) -> str:
    """One puzzle as text in ``fmt`` (no trailing newline)."""
    clues = np.asarray(clues)
    if clues.ndim != 2:
        raise ValueError(f"clues must be a (rows, cols) array, got shape {clues.shape}")
    rows, cols = clues.shape
    if fmt == "plain":
        width = len(str(int(clues.max(initial=0))))
        return "\n".join(" ".join(("." if v <= 0 else str(int(v))).rjust(width) for v in row) for row in clues)
    flat = np.where(clues > 0, clues, codecs.EMPTY).ravel()
    if fmt == "tatham":
        return f"{cols}x{rows}:" + codecs.encode_runs(flat, str, separator="_")
    if fmt == "puzzlink":
        return codecs.puzzlink_url(PUZZLINK_NAMES[0], rows, cols, codecs.encode_number16(flat))
    raise ValueError(f"unknown output format {fmt!r}; expected {', '.join(FORMATS)}")


def draw_solution(clues: np.ndarray, rectangles) -> str:
    """ASCII drawing of a solved grid, borders between cells of different rectangles.

    ``rectangles`` are ``[top, left, bottom, right]`` (inclusive, 0-based), one per clue in
    row-major clue order. Corners follow Tatham's text format: ``-`` or ``|`` where a border runs
    straight through, ``+`` where borders turn or meet. Cells no rectangle covers show ``.`` and
    cells two or more cover show ``#``, each boxed on its own::

        +-------+-------+
        | 2     |     4 |
        +---+---+       |
        | 1 | 2 |       |
        +---+   +-------+
        | 1 |   |     2 |
        +---+---+-------+
    """
    clues = np.asarray(clues)
    rows, cols = clues.shape
    rectangles = np.asarray(rectangles, dtype=np.int64).reshape(-1, 4)
    clue_count = int((clues > 0).sum())
    if len(rectangles) != clue_count:
        raise ValueError(f"{len(rectangles)} rectangles for {clue_count} clues")
    cover = np.zeros((rows, cols), dtype=np.int64)
    owner = np.zeros((rows, cols), dtype=np.int64)
    for index, (top, left, bottom, right) in enumerate(rectangles):
        if not (0 <= top <= bottom < rows and 0 <= left <= right < cols):
            raise ValueError(f"rectangle {index} {[int(v) for v in (top, left, bottom, right)]} is not inside "
                             f"the {rows}x{cols} grid")
        cover[top:bottom + 1, left:right + 1] += 1
        owner[top:bottom + 1, left:right + 1] = index
    alone = cover != 1  # uncovered or overlapped: a region of its own
    owner[alone] = -1 - np.flatnonzero(alone.ravel())
    width = len(str(int(clues.max(initial=0)))) + 2

    def vertical(r, x):  # border left of cell (r, x), x = 0..cols
        return x == 0 or x == cols or owner[r, x - 1] != owner[r, x]

    def horizontal(y, c):  # border above cell (y, c), y = 0..rows
        return y == 0 or y == rows or owner[y - 1, c] != owner[y, c]

    def corner(y, x):
        left = x > 0 and horizontal(y, x - 1)
        right = x < cols and horizontal(y, x)
        up = y > 0 and vertical(y - 1, x)
        down = y < rows and vertical(y, x)
        if not (left or right or up or down):
            return " "
        if left and right and not (up or down):
            return "-"
        if up and down and not (left or right):
            return "|"
        return "+"

    def content(r, c):
        if clues[r, c] > 0:
            text = str(int(clues[r, c]))
        else:
            text = {0: ".", 1: ""}.get(int(cover[r, c]), "#")
        return " " + text.rjust(width - 2) + " "

    lines = []
    for y in range(rows + 1):
        lines.append("".join(corner(y, x) + ("-" if horizontal(y, x) else " ") * width for x in range(cols))
                     + corner(y, cols))
        if y < rows:
            lines.append("".join(("|" if vertical(y, x) else " ") + content(y, x) for x in range(cols)) + "|")
    return "\n".join(lines)
