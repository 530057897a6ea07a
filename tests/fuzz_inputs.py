"""Hostile puzzle files, as Hypothesis strategies, and the checks every one of them must pass; shared by
``tests/cli/test_fuzz_input.py`` (a fixed, small number of examples in CI) and ``bench/fuzz_input.py`` (a
longer run).

An input is a good file of some kind and format, then up to four edits: cut short, a piece inserted,
deleted or replaced (the pieces are ones that have broken parsers: a byte-order mark, ``-1``,
``+2``, ``13.0``, full-width digits, a trailing ``# note``, huge sizes and numbers, control characters,
or any character at all), a line doubled or dropped; or plain random text or bytes.

The checks:
  parse         returns puzzles or raises ``PuzzleError`` with one line that starts with the source
                name; nothing else (no ``IndexError``, ``OverflowError``, ``MemoryError`` ...);
  round trip    every puzzle read writes back in its own format and reads again to the same puzzle;
  no solution   ``contradiction()`` never raises, and when it says "no solution" for a small puzzle,
                the exact solver agrees (the checks are sound);
  command line  ``gpu-sa solve`` on the bytes ends with exit status 0, 1 or 2, never a traceback, and
                every solution it prints passes the independent validator.
"""
from __future__ import annotations

import contextlib
import io
import json

import numpy as np
from hypothesis import strategies as st

from gpu_sa.puzzles.hashi.validate import hashi_violations
from gpu_sa.puzzles.shikaku.validate import shikaku_violations
from gpu_sa.puzzles.sudoku.validate import sudoku_violations
from gpu_sa.engine.limits import TooLarge
from gpu_sa.puzzles import PUZZLES, hashi, shikaku, sudoku
from gpu_sa.puzzles.common.errors import PuzzleError

SOURCE = "fuzz.txt"
EASY = "..237.9....75684.2.8..9....1...4.8..2.4...7.6..6.2...1....5..1.5.19326....3.862.."
SMALL_SUDOKU = "1..4..2..1..4..1"  # 4x4
SHIKAKU = np.array([[2, 0, 0, 4], [1, 2, 0, 0], [1, 0, 0, 2]])
HASHI = np.array([[2, 0, 0, 1], [0, 0, 0, 0], [3, 0, 0, 2]])


def _sudoku_texts():
    texts = [EASY, SMALL_SUDOKU, EASY + "\n" + EASY]
    for line in (EASY, SMALL_SUDOKU):
        puzzle = sudoku.parse(line)[0]
        texts += [sudoku.formats.write(puzzle.givens, puzzle.order, fmt) for fmt in ("grid", "numbers", "acs")]
    return texts


GOOD_TEXTS = {
    "sudoku": _sudoku_texts(),
    "shikaku": [shikaku.write_puzzle(SHIKAKU, fmt) for fmt in shikaku.FORMATS],
    "hashi": [hashi.write_puzzle(HASHI, fmt) for fmt in hashi.FORMATS],
}
PIECES = ["\ufeff", "-1", "+2", "13.0", "１２", "２", "²", " # note", "#", "\t", "\r", "\x00", "\x0c", "|", ".", "0",
          "9", "10", "?", " ", "\n", "\n\n", "x", "A", "_", "99999x99999:", "99999999999999999999", "3x3:", "7x7#1",
          "https://puzz.link/p?", "shikaku/", "hashi/", "/99999/99999/", "1 99999999999 1\n", "3\n1\n", "\u3000",
          "\u00a0", "é", "\ufffd"]
SMALL_LIMIT = 64  # cells: up to here "no solution" is checked against the exact solver


def _edit(text, edit):
    kind, where, piece, length = edit
    at = int(where * len(text))
    if kind == "cut":
        return text[:at]
    if kind == "insert":
        return text[:at] + piece + text[at:]
    if kind == "delete":
        return text[:at] + text[at + length:]
    if kind == "replace":
        return text[:at] + piece + text[at + len(piece):]
    lines = text.split("\n")
    row = int(where * len(lines)) % len(lines)
    if kind == "double":
        return "\n".join(lines[:row + 1] + lines[row:])
    return "\n".join(lines[:row] + lines[row + 1:])  # "drop"


_EDITS = st.tuples(st.sampled_from(["cut", "insert", "insert", "delete", "replace", "replace", "double", "drop"]),
                   st.floats(0, 1), st.one_of(st.sampled_from(PIECES), st.text(max_size=3)), st.integers(1, 6))


@st.composite
def hostile_texts(draw, kind):
    """A good file of ``kind`` with up to four edits, or, one time in eight, random text."""
    if draw(st.integers(0, 7)) == 0:
        return draw(st.text(max_size=120))
    text = draw(st.sampled_from(GOOD_TEXTS[kind]))
    for edit in draw(st.lists(_EDITS, max_size=4)):
        text = _edit(text, edit)
    return text


def formats(kind):
    """``auto`` most of the time, else one of the kind's formats."""
    return st.one_of(st.just("auto"), st.just("auto"), st.sampled_from(PUZZLES[kind].FORMATS))


def _rewritten(puzzle, kind):
    if kind == "sudoku":
        return sudoku.formats.write(puzzle.givens, puzzle.order, puzzle.fmt)
    return PUZZLES[kind].write_puzzle(puzzle.clues if kind == "shikaku" else puzzle.grid, puzzle.fmt)


def _same(a, b, kind):
    field = {"sudoku": "givens", "shikaku": "clues", "hashi": "grid"}[kind]
    return np.array_equal(getattr(a, field), getattr(b, field))


def _no_solution_confirmed(puzzle, kind):
    """The exact solver's word on a small puzzle: True when it has no solution, None when not checked."""
    if kind == "sudoku":
        if puzzle.givens.size > SMALL_LIMIT * 2:
            return None
        return puzzle.count_solutions(limit=1).solutions == 0
    cells = puzzle.clues.size if kind == "shikaku" else puzzle.grid.size
    if cells > SMALL_LIMIT:
        return None
    try:
        answer = puzzle.count_solutions(limit=1, time_limit=20)
    except PuzzleError:  # a Shikaku clue with no rectangle at all: no program to build, no solution
        return True
    return None if answer.gave_up else answer.solutions == 0


def check_parse(kind: str, text: str, fmt: str = "auto") -> list[str]:
    """What is wrong with how ``text`` is read (empty: nothing)."""
    module = PUZZLES[kind]
    try:
        puzzles = module.parse(text, SOURCE, fmt)
    except PuzzleError as error:
        errors = []
        try:  # each bad puzzle's error kept, the good ones read
            module.parse(text, SOURCE, fmt, errors=errors)
        except PuzzleError:
            pass
        except Exception as other:  # noqa: BLE001
            return [f"{type(other).__name__} from parse(errors=[]): {other}"]
        for message in [str(error)] + [str(bad) for bad in errors]:
            if "\n" in message or not message.startswith(SOURCE):
                return [f"PuzzleError not one line starting with the source: {message!r}"]
        return []
    except Exception as error:  # noqa: BLE001 - any other exception is the defect this looks for
        return [f"{type(error).__name__} from parse: {error}"]
    problems = _check_lenient_parse(module, text, fmt, puzzles)
    for puzzle in puzzles:
        again = module.parse(_rewritten(puzzle, kind), SOURCE, puzzle.fmt)
        if len(again) != 1 or not _same(again[0], puzzle, kind):
            problems.append(f"{puzzle.label} ({puzzle.fmt}) does not read back the same after writing")
        try:
            reason = puzzle.contradiction()
        except TooLarge:
            continue  # a puzzle over the memory limit says so in one line: fine
        except Exception as error:  # noqa: BLE001
            problems.append(f"{type(error).__name__} from contradiction(): {error}")
            continue
        if reason is not None and _no_solution_confirmed(puzzle, kind) is False:
            problems.append(f"{puzzle.label}: contradiction() says {reason!r}, but the exact solver finds a solution")
    return problems


def _check_lenient_parse(module, text, fmt, puzzles) -> list[str]:
    """A file that reads whole reads the same, with no error, when bad puzzles are collected (``errors``)."""
    errors = []
    try:
        again = module.parse(text, SOURCE, fmt, errors=errors)
    except Exception as error:  # noqa: BLE001
        return [f"{type(error).__name__} from parse(errors=[]) of a file that reads whole: {error}"]
    if errors or len(again) != len(puzzles) or [p.label for p in again] != [p.label for p in puzzles]:
        return [f"parse(errors=[]) differs from parse: {len(again)} puzzles, errors {errors[:2]}"]
    return []


SOLVE_OPTIONS = ["--backend", "numpy", "--chains", "4", "--max-moves", "300", "--trials", "1", "--seed", "1",
                 "--json", "--quiet"]


def _records(stdout):
    for line in stdout.splitlines():
        if line.startswith("{"):
            yield json.loads(line)


def check_solution_records(kind: str, text: str, stdout: str, source: str = SOURCE) -> list[str]:
    """Every solution printed in ``stdout`` (JSON lines) is valid for its puzzle of ``text`` (read as ``source``)."""
    try:  # the good puzzles of a file with bad ones are answered too
        puzzles = {p.label: p for p in PUZZLES[kind].parse(text, source, errors=[])}
    except PuzzleError:
        puzzles = {}
    problems = []
    for record in _records(stdout):
        if not record.get("solved"):
            continue
        puzzle = puzzles.get(record["puzzle"])
        if puzzle is None:
            problems.append(f"a solution for {record['puzzle']!r}, which the file does not hold")
            continue
        if kind == "sudoku":
            grid = sudoku.parse(record["solution"], fmt=puzzle.fmt)[0].givens
            side = puzzle.side
            violations = sudoku_violations((np.asarray(grid) + 1).reshape(side, side).tolist(),
                                                    (np.asarray(puzzle.givens) + 1).reshape(side, side).tolist())
        elif kind == "shikaku":
            violations = shikaku_violations(puzzle.clues.tolist(), record["solution"])
        else:
            violations = hashi_violations(puzzle.grid.tolist(), record["solution"])
        if violations:
            problems.append(f"{record['puzzle']}: the solution printed breaks the rules: {violations[:2]}")
    return problems


def _bad_puzzles_said(lines, path) -> bool:
    """Whether ``lines`` (stderr, --quiet) are a file's bad puzzles, one line each naming FILE:LINE, then the line
    that counts them (docs/cli.md, "Exit status")."""
    *bad, last = lines
    return bool(bad) and all(line.startswith(f"gpu-sa: error: {path}:") for line in bad) and \
        last.startswith(f"gpu-sa: error: {path}: {len(bad):,} of its ")


def check_cli_in_process(kind: str, path: str, text: str, extra=()) -> list[str]:
    """``gpu-sa solve PATH --kind KIND`` run through ``cli.main``: an exception escaping it would be a traceback."""
    from gpu_sa.cli import main as cli

    out, err = io.StringIO(), io.StringIO()
    usage = False
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = cli.main(["solve", path, "--kind", kind, *SOLVE_OPTIONS, *extra])
    except SystemExit as leaving:  # argparse: the usage, then one line "gpu-sa solve: error: ..."
        status, usage = leaving.code, True
    except Exception as error:  # noqa: BLE001
        return [f"{type(error).__name__} escaped the command: {error}"]
    problems = [] if status in (0, 1, 2) else [f"exit status {status}"]
    lines = err.getvalue().strip().splitlines()
    if status == 2 and not (lines and "error:" in lines[-1] and (usage or len(lines) == 1 or
                                                               _bad_puzzles_said(lines, path))):
        problems.append(f"exit 2 without one error line on stderr: {err.getvalue()!r}")
    return problems + check_solution_records(kind, text, out.getvalue(), path)
