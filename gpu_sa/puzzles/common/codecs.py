"""Text codecs shared by the puzzle file formats: Simon Tatham's game IDs and puzz.link URLs,
and the line/block splitting every format's reader starts from (``blocks``, ``split_block``).

A decoded grid is a flat, row-major int64 array with ``EMPTY`` (-1) for a cell without a
number. Every decoder raises ``PuzzleError`` whose message starts with ``where`` and, for a
problem at one character, the 1-based column of that character in the line. The size in a game
ID or URL goes through ``limits.check_cells`` before any array is allocated (a few bytes such as
``99999x99999:z`` describe ten billion cells), and a number too large for any accepted grid is
refused before it reaches an int64 array.

Tatham game IDs (Simon Tatham's Portable Puzzle Collection, ``rect.c`` and ``bridges.c``)::

    WxH[parameters]:description        e.g. 7x7:a3d2b2a3_2a4a8h2a3c4_2b2c3a3_3c3b

  W is the width (columns), H the height (rows); the parameters after WxH (``e4``, ``i30e10m2d2``
  ...) only steer the generator and are ignored. The description lists the cells row by row:
  a letter ``a``..``z`` is a run of 1..26 empty cells, anything else is a number whose spelling
  the puzzle decides (``read_value`` below). Tatham's encoders split a longer run into ``z``s
  and a remainder: 30 empty cells are ``zd``.

puzz.link / pzv.jp URLs (pzprjs, ``src/puzzle/Encode.js`` ``genericDecodeNumber16``)::

    https://puzz.link/p?NAME/W/H/BODY      (also http://, pzv.jp/p.html?, pzprxs.vercel.app/p?,
                                            a bare NAME/W/H/BODY, and NAME/FLAG/W/H/BODY)

  BODY is pzprjs's "number16" code, row-major over the W*H cells:

    0-9 a-f            one hex digit: the number 0..15
    -XX                16..255      (two hex digits)
    +XXX               256..4095    (three hex digits)
    =XXX  %XXX         4096 + XXX, 8192 + XXX
    *XXXX  $XXXXX      12240 + XXXX, 77776 + XXXXX
    .                  a number shown as "?" (unknown): ``UNKNOWN``
    g-z                a run of 1..20 empty cells (g = 1, z = 20)

  pzprjs skips characters it does not know and stops at the last cell; these decoders reject
  both (a bad character, a body that is short or runs past the grid is an error). pzprjs writes
  the ``=``/``%``/``*``/``$`` forms without zero padding, which its own reader misreads for small
  offsets; ``encode_number16`` pads them to the width the reader expects.
"""
from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Optional, Tuple

import numpy as np

from ...engine import limits, stop
from .errors import PuzzleError, PuzzleTooLarge

EMPTY = -1     # a cell without a number
UNKNOWN = -2   # pzprjs '.': a number shown as "?"

# --- lines of a puzzle file -------------------------------------------------------------------

BOM = "\ufeff"
_COMMENT = re.compile(r"(?:^|(?<=\s))#.*")


# what str.splitlines() splits at, "\r\n" first as one break
_LINE_BREAK = re.compile("\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_RARE_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_BLANKS = np.array([code for code in range(0x3001) if chr(code).isspace()], dtype=np.uint32)  # str.isspace's
SHORT_LINE = 4096  # characters: a shorter line is counted by a regular expression, a longer one by NumPy


def lines(text: str) -> Iterator[str]:
    """The lines of ``text`` one at a time, as ``text.splitlines()`` lists them: a list of them all would hold a
    second copy of the file, and a file of one long line must cost no more than that line."""
    if not any(mark in text for mark in _RARE_BREAKS):  # only newlines: str.find, ten times a regex's speed
        start, end = 0, text.find("\n")
        while end >= 0:
            yield text[start:end]
            start, end = end + 1, text.find("\n", end + 1)
    else:
        start = 0
        for match in _LINE_BREAK.finditer(text):
            yield text[start:match.start()]
            start = match.end()
    if start < len(text):
        yield text[start:]


def count_tokens(content: str, separators: str = "") -> tuple[int, int]:
    """(tokens, characters in them) of ``content``, a token being a run of characters that are neither blanks
    (``str.isspace``) nor in ``separators``. Counted without a list of them: a line of six million numbers would
    take a gigabyte as a list of strings before its size could be refused, and a regular expression's count of
    them a second, deaf to Ctrl-C; NumPy counts them in a few hundredths."""
    if len(content) <= SHORT_LINE:
        rest, count = _token(separators).subn("", content)
        return count, len(content) - len(rest)
    apart = np.concatenate([_BLANKS, np.array([ord(mark) for mark in separators], dtype=np.uint32)])
    if content.isascii():  # a byte a character (a str knows whether it is ASCII without a pass over it): a table
        table = np.ones(128, dtype=bool)
        table[apart[apart < 128]] = False
        inside = table[np.frombuffer(content.encode("ascii"), dtype=np.uint8)]
    else:
        inside = ~np.isin(np.frombuffer(content.encode("utf-32-le"), dtype=np.uint32), apart)
    starts = int(inside[0]) + int(np.count_nonzero(inside[1:] & ~inside[:-1]))
    return starts, int(np.count_nonzero(inside))


def count_cells(content: str) -> int:
    """The characters of ``content`` that are not blanks, counted without a list of them (as ``count_tokens``)."""
    return count_tokens(content)[1]


@functools.lru_cache(maxsize=None)
def _token(separators: str) -> re.Pattern:
    return re.compile(r"[^\s" + re.escape(separators) + "]+")


@dataclass(frozen=True)
class SourceLine:
    number: int   # 1-based line number
    content: str  # stripped of surrounding whitespace
    indent: int   # characters stripped on the left: content[i] is at column indent + i + 1


def blocks(text: str) -> Iterator[list[SourceLine]]:
    """Runs of non-blank lines separated by blank lines, without comments.

    ``#`` at the start of a line or after a blank starts a comment that runs to the end of the line;
    a line that is only a comment is dropped and separates nothing. A byte-order mark (U+FEFF) at the
    start of a line is dropped: editors write one at the start of a UTF-8 file, and concatenated files
    carry it into the middle; columns count from the character after it.
    """
    block = []
    for number, raw in enumerate(lines(text), start=1):
        if not number & 1023:  # a file of many puzzles takes seconds: a Ctrl-C must not wait for its end
            stop.check("reading the puzzles")
        raw = raw.lstrip(BOM)
        if not raw.strip():
            if block:
                yield block
            block = []
            continue
        if "#" in raw:  # the search for a comment costs a tenth of the regular expression's, on a long line
            raw = _COMMENT.sub("", raw)
        content = raw.strip()
        if content:
            block.append(SourceLine(number, content, len(raw) - len(raw.lstrip())))
    if block:
        yield block


def polled(items: Iterable, what: str, every: int = 1024) -> Iterator:
    """``items`` one by one, with a stop check (``Interrupted(what)``) every ``every`` of them (a power of two): a
    pass over a block of a hundred thousand lines takes a second, and a Ctrl-C must not wait for its end."""
    for index, item in enumerate(items, start=1):
        if not index & (every - 1):
            stop.check(what)
        yield item


def gather(attempts: Iterable[Callable[[], object]], source: str, errors: Optional[list] = None) -> list:
    """The puzzles of a file, each made by one of ``attempts`` (a call that returns a puzzle or raises
    ``PuzzleError``): every kind's ``parse`` ends here, so that all of them treat a bad puzzle alike.

    ``errors`` None: the first bad puzzle's error is raised (the file is read whole or refused). ``errors`` a list:
    each bad puzzle's error is appended to it and the reading goes on with the next one, so that one bad line in a
    file of many puzzles costs that line only. Either way, a text without one good puzzle raises: its first error,
    or "no puzzle found"."""
    puzzles = []
    for attempt in attempts:
        stop.check(f"parsing {source}")  # between puzzles: a puzzle, or the passes before it, may be megabytes
        try:
            puzzles.append(attempt())
        except PuzzleError as error:
            if errors is None:
                raise
            errors.append(error.with_traceback(None))  # the message is all that is kept; frames hold lines of text
    if not puzzles:
        if errors:
            raise errors[0]
        raise PuzzleError(f"{source}: no puzzle found")
    return puzzles


def split_block(block: list[SourceLine], fmt: str, puzzlink_names: Iterable[str]
                ) -> Iterator[tuple[str, list[SourceLine]]]:
    """A block's puzzles as ``(format, lines)``: every Tatham ID or puzz.link URL line alone,
    each run of other lines one ``"plain"`` grid. ``fmt`` other than ``"auto"`` decides for all."""
    puzzlink_names = tuple(puzzlink_names)
    if fmt == "plain":
        yield "plain", block
        return
    grid = []  # plain rows waiting for the end of their puzzle
    for line in block:
        kind = fmt if fmt != "auto" else one_line_format(line.content, puzzlink_names) or "plain"
        if kind == "plain":
            grid.append(line)
            continue
        if grid:
            yield "plain", grid
            grid = []
        yield kind, [line]
    if grid:
        yield "plain", grid


def one_line_format(content: str, puzzlink_names: Iterable[str]) -> Optional[str]:
    """``"puzzlink"`` or ``"tatham"`` when ``content`` is one of those one-line IDs, else None."""
    if looks_like_puzzlink(content, puzzlink_names):
        return "puzzlink"
    if _TATHAM_PREFIX.match(content):
        return "tatham"
    return None


# --- Simon Tatham's run-length descriptions --------------------------------------------------

_TATHAM_ID = re.compile(r"^(\d+)x(\d+)([^:]*):(.*)$", re.ASCII)
_TATHAM_PREFIX = re.compile(r"^\d+x\d+[^:#\s]*[:#]", re.ASCII)  # a game ID, or a random-seed ID (WxH#seed)
_TATHAM_SEED_ID = re.compile(r"^\d+x\d+[^:#]*#", re.ASCII)
TATHAM_RUN = 26  # 'a'..'z'

# read_value(text, i) -> (value or None for a no-op character, characters used), or None when
# text[i] starts no value of the puzzle's grammar.
ValueReader = Callable[[str, int], Optional[Tuple[Optional[int], int]]]


def _at(where: str, column: int) -> str:
    return f"{where}:{column}"


def split_tatham_id(line: str, where: str) -> tuple[int, int, str, int]:
    """``(rows, cols, description, 1-based column where the description starts)`` of a game ID."""
    match = _TATHAM_ID.match(line)
    if not match and _TATHAM_SEED_ID.match(line):
        raise PuzzleError(f"{where}: {shorten(line)!r} is a random-seed ID (WxH#seed), which only Tatham's "
                          f"generator can turn into a puzzle; give the game ID (WxH:description)")
    if not match:
        raise PuzzleError(f"{where}: not a Tatham game ID: expected WxH:description (width x height, "
                          f"then ':'), got {shorten(line)!r}")
    cols, rows = int(match.group(1)), int(match.group(2))
    if rows <= 0 or cols <= 0:
        raise PuzzleError(f"{where}: grid size {cols}x{rows}: width and height must be positive")
    limits.check_cells(rows, cols, where, error=PuzzleTooLarge)
    return rows, cols, match.group(4), match.start(4) + 1


def decode_runs(description: str, cells: int, read_value: ValueReader, where: str,
                column: int = 1) -> np.ndarray:
    """Tatham description -> (cells,) int64, ``EMPTY`` where a run of letters left no number.

    ``column`` is the 1-based column of the description's first character in the line.
    """
    values = np.full(cells, EMPTY, dtype=np.int64)
    cell = i = steps = 0
    while i < len(description):
        steps += 1
        if not steps & 4095:  # a description of a million cells takes seconds: a Ctrl-C must not wait for its end
            stop.check(f"parsing {where}")
        symbol = description[i]
        if "a" <= symbol <= "z":
            cell += ord(symbol) - ord("a") + 1
            length, value = 1, None
        else:
            token = read_value(description, i)
            if token is None:
                raise PuzzleError(f"{_at(where, column + i)}: bad character {symbol!r} in the description"
                                  f"{lookalike_note(symbol)}")
            value, length = token
            if value is not None and value > limits.MAX_GRID_CELLS:  # and a 30-digit one would not fit int64
                raise PuzzleError(f"{_at(where, column + i)}: number {value} is larger than any grid accepted "
                                  f"({limits.MAX_GRID_CELLS:,} cells)")
            if value is not None:
                if cell < cells:
                    values[cell] = value
                cell += 1
        if cell > cells:
            raise PuzzleError(f"{_at(where, column + i)}: too much data: the description runs past the "
                              f"last of the {cells} cells")
        i += length
    if cell < cells:
        raise PuzzleError(f"{where}: not enough data: the description covers {cell} of the {cells} cells")
    return values


def encode_runs(values: Iterable[int], write_value: Callable[[int], str], separator: str = "") -> str:
    """Inverse of ``decode_runs``: negative values are empty cells, ``separator`` goes between two
    numbers that follow each other without a run (Tatham's ``_`` in Rectangles)."""
    parts, run, previous_was_number = [], 0, False
    for value in values:
        if value < 0:
            run += 1
            continue
        if run:
            parts.append(_tatham_run(run))
        elif previous_was_number:
            parts.append(separator)
        parts.append(write_value(int(value)))
        run, previous_was_number = 0, True
    if run:
        parts.append(_tatham_run(run))
    return "".join(parts)


def _tatham_run(run: int) -> str:
    full, rest = divmod(run, TATHAM_RUN)
    return "z" * full + (chr(ord("a") + rest - 1) if rest else "")


# --- pzprjs number16 --------------------------------------------------------------------------

PUZZLINK_HOSTS = ("puzz.link", "pzv.jp", "pzprxs.vercel.app")
PUZZLINK_HEAD = 256  # characters of a line that hold a URL's host and puzzle name ("http://pzprxs.vercel.app/p?")
PUZZLINK_RUN = 20  # 'g'..'z'
_HEX = "0123456789abcdefABCDEF"
# prefix -> (hex digits that follow, offset added)
_NUMBER16_PREFIXES = {"-": (2, 0), "+": (3, 0), "=": (3, 4096), "%": (3, 8192), "*": (4, 12240), "$": (5, 77776)}
_NUMBER16_RANGES = (  # (upper bound exclusive, prefix, digits, offset), in writing order
    (16, "", 1, 0), (256, "-", 2, 0), (4096, "+", 3, 0), (8192, "=", 3, 4096),
    (12240, "%", 3, 8192), (77776, "*", 4, 12240), (77776 + 16 ** 5, "$", 5, 77776))
NUMBER16_MAX = _NUMBER16_RANGES[-1][0] - 1
_SIGNED_INTEGER = re.compile(r"^[-+]?\d+$", re.ASCII)


def looks_like_puzzlink(line: str, names: Iterable[str]) -> bool:
    """True for a puzz.link-style URL of one of ``names`` (or any pzprjs host), which names them at its start: the
    searches stop at PUZZLINK_HEAD characters, not to be a pass each over a line of megabytes."""
    head = line[:PUZZLINK_HEAD]
    if any(host in head for host in PUZZLINK_HOSTS):
        return True
    return any(f"?{name}/" in head or head.startswith(f"{name}/") for name in names)


def split_puzzlink_url(line: str, names: Iterable[str], where: str) -> tuple[int, int, str, int]:
    """``(rows, cols, body, 1-based column where the body starts)`` of ``[...?]NAME/[FLAG/]W/H/BODY``."""
    names = tuple(names)
    start = line.find("?") + 1  # 0 when bare
    parts = line[start:].split("/")
    if parts[0] not in names:
        raise PuzzleError(f"{where}: not a puzz.link URL of {' or '.join(names)}: expected "
                          f"https://puzz.link/p?{names[0]}/W/H/BODY, got {shorten(line)!r}")
    fields = 1
    if len(parts) > 1 and not _SIGNED_INTEGER.match(parts[1]):
        fields = 2  # pzprjs parser.js: a first segment that is not a number is a flag before the size
    if len(parts) < fields + 3:
        raise PuzzleError(f"{where}: bad size: expected {parts[0]}/W/H/BODY after the '?', got "
                          f"{shorten(line[start:])!r}")
    width, height = parts[fields], parts[fields + 1]
    for label, text in (("width", width), ("height", height)):
        if not (text.isascii() and text.isdigit()) or int(text) <= 0:
            raise PuzzleError(f"{where}: bad size: {label} {shorten(text)!r} is not a positive integer")
    limits.check_cells(int(height), int(width), where, error=PuzzleTooLarge)
    body_column = start + sum(len(part) + 1 for part in parts[:fields + 2]) + 1
    return int(height), int(width), "/".join(parts[fields + 2:]), body_column


def puzzlink_grid(line: SourceLine, names: Iterable[str], where: str, thing: str, zero_error: str) -> np.ndarray:
    """(rows, cols) numbers of a puzz.link URL line, 0 = empty; '?' and 0 numbers are refused.

    ``thing`` names a number in the '?' message ("clue", "island"); ``zero_error`` is the
    message for a 0, formatted with the cell as ``{cell}`` (such as "r1c2").
    """
    rows, cols, body, column = split_puzzlink_url(line.content, names, where)
    grid = decode_number16(body, rows * cols, where, line.indent + column).reshape(rows, cols)
    for r, c in np.argwhere(grid == UNKNOWN)[:1]:
        raise PuzzleError(f"{where}: the {thing} at r{r + 1}c{c + 1} is '?' (unknown); every {thing} needs its number")
    for r, c in np.argwhere(grid == 0)[:1]:
        raise PuzzleError(f"{where}: " + zero_error.format(cell=f"r{r + 1}c{c + 1}"))
    return grid.clip(min=0)


def decode_number16(body: str, cells: int, where: str, column: int = 1) -> np.ndarray:
    """pzprjs number16 body -> (cells,) int64: numbers, ``EMPTY``, ``UNKNOWN`` for '.'."""
    values = np.full(cells, EMPTY, dtype=np.int64)
    cell = i = steps = 0
    while i < len(body):
        steps += 1
        if not steps & 4095:  # as in decode_runs
            stop.check(f"parsing {where}")
        if cell >= cells:
            raise PuzzleError(f"{_at(where, column + i)}: too much data: {shorten(body[i:])!r} follows the last of "
                              f"the {cells} cells")
        symbol = body[i]
        if "g" <= symbol <= "z":
            run = ord(symbol) - ord("g") + 1
            if cell + run > cells:
                raise PuzzleError(f"{_at(where, column + i)}: too much data: a run of {run} empty cells from "
                                  f"cell {cell + 1} runs past the last of the {cells} cells")
            cell += run
            i += 1
            continue
        if symbol in "0123456789abcdef":
            values[cell], length = int(symbol, 16), 1
        elif symbol == ".":
            values[cell], length = UNKNOWN, 1
        elif symbol in _NUMBER16_PREFIXES:
            digits, offset = _NUMBER16_PREFIXES[symbol]
            code = body[i + 1:i + 1 + digits]
            if len(code) < digits or any(c not in _HEX for c in code):
                raise PuzzleError(f"{_at(where, column + i)}: {symbol!r} must be followed by {digits} hex "
                                  f"digits, got {code!r}")
            values[cell], length = int(code, 16) + offset, 1 + digits
        else:
            raise PuzzleError(f"{_at(where, column + i)}: bad character {symbol!r} in the puzz.link body"
                              f"{lookalike_note(symbol)}")
        cell += 1
        i += length
    if cell < cells:
        raise PuzzleError(f"{where}: truncated body: it describes {cell} of the {cells} cells")
    return values


def encode_number16(values: Iterable[int]) -> str:
    """Inverse of ``decode_number16`` (negative = empty, as pzprjs's ``genericEncodeNumber16``)."""
    parts, run = [], 0
    for value in values:
        if value < 0:
            run += 1
            if run == PUZZLINK_RUN:
                parts.append(_number16_run(run))
                run = 0
            continue
        if run:
            parts.append(_number16_run(run))
            run = 0
        parts.append(_number16(int(value)))
    if run:
        parts.append(_number16_run(run))
    return "".join(parts)


def _number16_run(run: int) -> str:
    return chr(ord("g") + run - 1)


def _number16(value: int) -> str:
    for bound, prefix, digits, offset in _NUMBER16_RANGES:
        if value < bound:
            return prefix + format(value - offset, f"0{digits}x")
    raise ValueError(f"{value} is too large for pzprjs's number16 code (at most {NUMBER16_MAX})")


def puzzlink_url(name: str, rows: int, cols: int, body: str) -> str:
    return f"https://puzz.link/p?{name}/{cols}/{rows}/{body}"


def lookalike_note(text: str) -> str:
    """``": write '12' (only ASCII is read)"`` when ``text`` is a compatibility form (full-width digits,
    superscripts) of ASCII text, else ``""``: such input is refused, never silently converted."""
    if len(text) > SHOWN:  # a message quotes at most that much: a long token's note would be longer than its use
        return ""
    plain = unicodedata.normalize("NFKC", text)
    return f": write {plain!r} (only ASCII is read)" if plain != text and plain.isascii() else ""


SHOWN = 60  # characters of a bad token or line quoted in an error line, at most


def shorten(text: str, limit: int = SHOWN) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."
