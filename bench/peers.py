"""The peers of bench/large.py: solvers from outside this project, one registry entry each.

An entry says how to write an instance in the peer's input format, how to run the peer on that file with a
budget and a seed, and how to read what it printed (a ``Claim``: solved or not, the grid, the peer's own
clock). bench/large.py runs each entry as a process of its own, as it runs ours, and every grid a peer
claims goes through our validator (``gpu_sa.puzzles.sudoku.validate``) before it counts. To add a peer,
add one ``Peer`` to ``PEERS``.

- ``acs``: the ant colony of Lloyd & Amos (``huwlloyd-mmu/sudoku_acs``, built outside the repository; see
  bench/large.py), ``--peer-acs PATH``.
- ``cadical``: the CDCL SAT solver CaDiCaL (Debian's ``cadical``, ``--cadical PATH``) on the instance's CNF
  (``cnf_text``: the direct encoding with the givens' digits taken out first, Kwon & Jain's "optimised
  encoding"), ``-t BUDGET --seed=S``. Its clock: its "total real time since initialization" less its
  parsing time (what it printed), so that reading the CNF, like our reading of the puzzle, is not counted.
- ``kissat``: the CDCL SAT solver Kissat (Biere et al.; not packaged by Debian 12: ``fetch`` arminbiere/kissat,
  ``./configure && make`` outside the repository, then ``--kissat PATH`` or GPU_SA_KISSAT) on the same CNF,
  ``--time=BUDGET --seed=S``. Its clock: its "process-time" (CPU seconds; it is one thread) less its "finished
  parsing after" seconds.
- ``cpsat``: OR-Tools CP-SAT (PyPI ``ortools``, the ``bench`` extra) through bench/peer_cpsat.py: one
  AllDifferent per unit, ``max_time_in_seconds`` BUDGET, ``random_seed`` S, ``--cpsat-workers`` workers
  (default 2). Its clock: the solver's wall time (model building excluded).
- ``sudoku-ls``: Sudoku-LS (``Ailuras/AllDIff-LS``, 2025), the local search that owned large Sudoku, built
  outside the repository by bench/peers/build_sudoku_ls.sh (``--sudoku-ls PATH`` or GPU_SA_SUDOKU_LS):
  ``PATH F SEED BUDGET 1`` on the instance in the ant colony's format (the order, 1, the grid with -1 empty).
  Its clock: its process CPU time from after reading the file, its simplification rules (naked and hidden
  singles) included as our propagation is, to the answer, in nanoseconds (the build script's changes besides
  printing the time beside the grid: its own clock counted 10 ms ticks and started after the rules). Builds
  before 2010cb6 started it after the rules: on grids the rules solve they printed about 0. It is one thread; it checks its time limit only between its
  tabu searches, so it may overrun the budget (an answer past it counts as over budget).
"""
from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

BENCH = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Claim:
    """What a method's output says: solved or not, the grid it printed, its own clock."""
    solved: bool
    grid: list | None = None
    seconds: float | None = None
    detail: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Peer:
    """One solver from outside: its input file, its command, and how its output reads."""
    name: str
    suffix: str  # of the input file written for it
    write: Callable[[tuple], str]  # the givens (rows of ints, 0 = empty) -> the text of its input file
    argv: Callable[[Path, object], list]  # (input file, settings: budget, seed, paths) -> its command
    read: Callable[[str, tuple], Claim]  # (its stdout, the givens) -> what it claims
    unavailable: Callable[[object], str | None] = lambda settings: None  # why it cannot run here, or None
    max_side: int = 100  # the largest grid bench/large.py has (SIDES)
    too_large: str = ""  # why it cannot take sides above max_side

    def runs_on(self, side: int) -> str | None:
        return None if side <= self.max_side else self.too_large.format(side=side, max_side=self.max_side)


# ------------------------------------------------------------------------------------- the ant colony

def acs_text(givens) -> str:
    """The original Lloyd & Amos format: the box side, then 1, then the grid with -1 for an empty cell."""
    side = len(givens)
    rows = ["\t".join(str(v if v else -1) for v in row) for row in givens]
    return f"{math.isqrt(side)}\n1\n" + "\n".join(rows) + "\n"


def _grid(values, side):
    if len(values) != side * side:
        raise ValueError(f"{len(values)} values for a {side}x{side} grid")
    return [values[r * side:(r + 1) * side] for r in range(side)]


def read_acs(stdout: str, givens) -> Claim:
    """``sudokusolver --verbose``: 'Solution:', the grid (numbers, '|' and '-+' borders), 'solved in T';
    or 'failed in time T' (T unset on failure: see bench/large.py's docstring). Its own check may also print
    'solution not valid' before failing."""
    detail = {"peer_says_invalid": True} if "solution not valid" in stdout else {}
    if re.search(r"failed in time\s+\S+", stdout):
        # Its solTime is only written on success: after a failure it prints an uninitialised float.
        return Claim(False, None, None, detail)
    solved = re.search(r"Solution:\n(.*?)\nsolved in\s+(\S+)", stdout, re.S)
    if not solved:
        raise ValueError("neither 'Solution:' ... 'solved in T' nor 'failed in time T' in the output")
    values = [int(v) for v in re.findall(r"\d+", solved.group(1))]
    return Claim(True, _grid(values, len(givens)), float(solved.group(2)), detail)


def _acs_argv(path, settings):
    return [str(settings.peer_paths["acs"]), "--alg", "0", "--timeout", str(math.ceil(settings.budget)),
            "--file", str(path), "--verbose"]


def _acs_unavailable(settings):
    path = settings.peer_paths.get("acs")
    if path is None:
        return "the ant colony needs --peer-acs PATH (build it with make, see bench/large.py --help)"
    return None if os.access(path, os.X_OK) else f"--peer-acs {path}: not an executable file"


# ----------------------------------------------------------------------------------------- CaDiCaL

def variable(cell: int, digit: int, side: int) -> int:
    """The CNF variable of "cell holds digit" (0-based both): cell x side + digit + 1."""
    return cell * side + digit + 1


def _encoding(givens):
    """(cells' values, units, digits given per unit, each cell's candidates): a free cell's candidates are the
    digits given in none of its units; a given cell has none (it gets no variable)."""
    side = len(givens)
    order = math.isqrt(side)
    cells = [v for row in givens for v in row]
    units = ([[r * side + c for c in range(side)] for r in range(side)]
             + [[r * side + c for r in range(side)] for c in range(side)]
             + [[(b // order * order + i // order) * side + b % order * order + i % order for i in range(side)]
                for b in range(side)])
    unit_digits = [{cells[cell] - 1 for cell in unit if cells[cell]} for unit in units]
    cell_units = [[] for _ in cells]
    for u, unit in enumerate(units):
        for cell in unit:
            cell_units[cell].append(u)
    candidates = [[] if value else [d for d in range(side) if all(d not in unit_digits[u] for u in cell_units[cell])]
                  for cell, value in enumerate(cells)]
    return cells, units, unit_digits, candidates


def cnf_text(givens) -> str:
    """DIMACS CNF of the instance: the direct encoding (variable per cell and digit), reduced by the givens.

    A given's digit is taken out of its row's, column's and box's other cells before any clause is written,
    and given cells get no variable (Kwon & Jain 2006, "optimised encoding": what unit propagation would do
    first). Then for every free cell: at least one of its digits, and at most one (pairwise); for every
    unit and digit not given in it: at least one of the cells where it may go, and at most one (pairwise).
    Variables keep their full-encoding numbers (``variable``), so the header counts side^3; the solver
    may set the variables no clause holds either way, and the reader ignores them."""
    side = len(givens)
    cells, units, unit_digits, candidates = _encoding(givens)
    clauses = []

    def exactly_one(literals):
        clauses.append(literals)
        clauses.extend([-a, -b] for i, a in enumerate(literals) for b in literals[i + 1:])

    for cell, digits in enumerate(candidates):
        if not cells[cell]:
            exactly_one([variable(cell, d, side) for d in digits])  # empty: a clause [] = unsatisfiable
    for u, unit in enumerate(units):
        for d in range(side):
            if d not in unit_digits[u]:
                exactly_one([variable(cell, d, side) for cell in unit if d in candidates[cell]])
    lines = [f"p cnf {side ** 3} {len(clauses)}"] + [" ".join(map(str, c)) + " 0" for c in clauses]
    return "\n".join(lines) + "\n"


# Each SAT solver's closing statistics: (its total time, its parsing time), as each prints them
SAT_CLOCKS = {
    "CaDiCaL": (r"^c total real time since initialization:\s+([\d.]+)", r"^c parsed \d+ clauses in ([\d.]+) seconds"),
    "Kissat": (r"^c process-time:.*?([\d.]+) seconds", r"^c finished parsing after ([\d.]+) seconds"),
}


def read_dimacs_model(stdout: str, givens) -> Claim:
    """A SAT solver's answer in the competition format: 's SATISFIABLE' and 'v' lines, or 's UNSATISFIABLE' /
    's UNKNOWN'. The grid: each given, and in each free cell the candidate digit (``_encoding``) whose
    variable is true. The clock from the solver's statistics (``SAT_CLOCKS``; see the module docstring)."""
    side = len(givens)
    status = re.search(r"^s (\S+)", stdout, re.M)
    clocks = [(re.search(total, stdout, re.M), re.search(parsed, stdout, re.M)) for total, parsed in SAT_CLOCKS.values()]
    total, parsed = next(((t, p) for t, p in clocks if t), (None, None))
    if status is None and total is None:
        raise ValueError("neither an 's ...' status line nor a SAT solver's closing statistics in the output")
    detail = {"peer_status": status.group(1) if status else "UNKNOWN"}  # CaDiCaL's time limit: no 's' line
    seconds = None if total is None else max(0.0, float(total.group(1)) - (float(parsed.group(1)) if parsed else 0))
    if status is None or status.group(1) != "SATISFIABLE":
        return Claim(False, None, seconds, detail)
    true = {int(v) for line in re.findall(r"^v (.*)$", stdout, re.M) for v in line.split() if int(v) > 0}
    cells, _, _, candidates = _encoding(givens)
    values = []
    for cell, given in enumerate(cells):
        digits = [d for d in candidates[cell] if variable(cell, d, side) in true]
        # an empty cell with no true variable (or several) stays 0: the validator rejects the grid
        values.append(given if given else (digits[0] + 1 if len(digits) == 1 else 0))
    return Claim(True, _grid(values, side), seconds, detail)


def _cadical_argv(path, settings):
    return [str(settings.peer_paths["cadical"]), "-t", str(math.ceil(settings.budget)), f"--seed={settings.seed}",
            str(path)]


def _program_unavailable(name: str, why: str):
    """``Peer.unavailable`` for a peer run as a program: ``why`` unless its path (``peer_paths[name]``) is an
    executable."""
    def unavailable(settings):
        path = settings.peer_paths.get(name)
        return None if path and os.access(path, os.X_OK) else why
    return unavailable


def _kissat_argv(path, settings):
    return [str(settings.peer_paths["kissat"]), f"--time={math.ceil(settings.budget)}", f"--seed={settings.seed}",
            str(path)]


# ------------------------------------------------------------------------------------------ CP-SAT

def numbers_text(givens) -> str:
    return "\n".join(" ".join(map(str, row)) for row in givens) + "\n"


def read_cpsat(stdout: str, givens) -> Claim:
    """bench/peer_cpsat.py's JSON line."""
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise ValueError("no JSON line on stdout")
    record = json.loads(lines[-1])
    detail = {"peer_status": record["status"], "workers": record["workers"]}
    solved = bool(record["solved"]) and record["grid"] is not None
    return Claim(solved, record["grid"] if solved else None, record["seconds"], detail)


def _cpsat_argv(path, settings):
    return [sys.executable, str(BENCH / "peer_cpsat.py"), str(path), "--budget", f"{settings.budget:g}",
            "--seed", str(settings.seed), "--workers", str(settings.cpsat_workers)]


def _cpsat_unavailable(settings):
    return None if importlib.util.find_spec("ortools") else \
        "OR-Tools is not installed: pip install -e '.[bench]' (or pip install ortools)"


# ------------------------------------------------------------------------------------------ Sudoku-LS

def read_sudoku_ls(stdout: str, givens) -> Claim:
    """Sudoku-LS built by bench/peers/build_sudoku_ls.sh, display 1: 'FILE find answer: T' then the grid (N lines
    of N tab-separated digits); on failure only 'current min clash length: K'."""
    found = re.search(r"find answer:\s*([0-9.eE+-]+)", stdout)
    if not found:
        clashes = re.search(r"current min clash length:\s*(\d+)", stdout)
        return Claim(False, None, None, {"peer_clashes": int(clashes.group(1))} if clashes else {})
    side = len(givens)
    rows = [line.split() for line in stdout[found.end():].splitlines()]
    rows = [row for row in rows if len(row) == side and all(token.lstrip("-").isdigit() for token in row)]
    return Claim(True, _grid([int(v) for row in rows[:side] for v in row], side), float(found.group(1)))


def _sudoku_ls_argv(path, settings):
    return [str(settings.peer_paths["sudoku-ls"]), str(path), str(settings.seed), f"{settings.budget:g}", "1"]


PEERS = {
    "acs": Peer("acs", ".acs", acs_text, _acs_argv, read_acs, _acs_unavailable, max_side=30,
                too_large=("the ant colony reads value v as the character 'a' + v - 1, which overflows above "
                           "{max_side} (sudoku_acs src/solvermain.cpp ReadFile): {side}x{side} is left out")),
    "cadical": Peer("cadical", ".cnf", cnf_text, _cadical_argv, read_dimacs_model, _program_unavailable(
        "cadical", "CaDiCaL not found: apt-get install cadical, or --cadical PATH")),
    "kissat": Peer("kissat", ".cnf", cnf_text, _kissat_argv, read_dimacs_model, _program_unavailable(
        "kissat", "Kissat not found: build it (bench/peers.py says how), then --kissat PATH or GPU_SA_KISSAT")),
    "cpsat": Peer("cpsat", ".txt", numbers_text, _cpsat_argv, read_cpsat, _cpsat_unavailable),
    "sudoku-ls": Peer("sudoku-ls", ".txt", acs_text, _sudoku_ls_argv, read_sudoku_ls, _program_unavailable(
        "sudoku-ls", "Sudoku-LS not found: build it with bench/peers/build_sudoku_ls.sh, then --sudoku-ls PATH")),
}


def default_paths() -> dict:
    """Where each peer's program is found when no option names it."""
    return {"cadical": shutil.which("cadical"), "kissat": os.environ.get("GPU_SA_KISSAT") or shutil.which("kissat"),
            "sudoku-ls": os.environ.get("GPU_SA_SUDOKU_LS")}
