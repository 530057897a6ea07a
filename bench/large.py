"""Large Sudoku (16x16 to 100x100) near the phase transition: our methods and the peers (Sudoku-LS, the ant colony
of Lloyd & Amos, CaDiCaL, Kissat, OR-Tools CP-SAT) on the same instances, in the same run.

    python bench/large.py [--budget 60] [--sizes 16,25,36,49] [--percentages 0,35,40,45,50,60]
                          [--cells SIDE:P[=BUDGET],...|table] [--instances K | --indices I-J,K]
                          [--set lloyd-amos|sudoku-ls] [--methods swap,sirdey,default,exact] [--seed 1]
                          [--peers sudoku-ls,cadical,kissat,cpsat] [--sudoku-ls PATH] [--peer-acs PATH]
                          [--cadical PATH] [--kissat PATH] [--cpsat-workers 2]
                          [--backend auto] [--extra-args '...'] [--exact-args '...'] [--grace 60]
                          [--variant NAME='SOLVE OPTIONS' ...] [--records FILE.jsonl] [--json] [--results DIR]
    python bench/large.py --build 36|49

The large-grid comparison with Sudoku-LS, in one command (Sudoku-LS built first, bench/peers/build_sudoku_ls.sh):

    python bench/large.py --set sudoku-ls --cells table --indices 20-29 --seed 1 \
        --methods default --variant anneal='--method anneal' \
        --peers sudoku-ls --sudoku-ls /work/peers/Sudoku-LS-timed --records /work/peers/large-table.jsonl

``--cells table`` is ``TABLE_CELLS``: 49x49 at 50 %, 64x64 at 50 and 60 %, 81x81 at 40 % (each --budget's 60 s),
81x81 at 50 % and 100x100 at 40 % (300 s each); instances 20-29 of each cell from Sudoku-LS's own set
(bench/data/sudoku_ls/README.md: 0-9 are the dev instances, 10-19 the check, 20-29 this table; tune on others).
Columns: ``default`` (``gpu-sa solve`` as a user runs it), ``anneal`` (``--method anneal``), ``sudoku-ls``; every
answer validated; seed 1. Ten instances x three methods x six cells: up to 7 hours of budget (2 h at 60 s, 5 h at
300 s), best on a machine with nothing else running: Sudoku-LS's clock (and its time limit) is its process CPU
time, ours elapsed time, so a loaded machine is unfair to ours, and there Sudoku-LS needs a --grace that covers its
budget in wall seconds (it was killed at 60 + 20 s while still inside its 60 CPU seconds). ``--records`` lets an interrupted run resume; an interrupted run (Ctrl-C) still writes its record of the
runs that ended. ``--cells 64:50,64:60`` (or any cells of the table) runs a part. A cell our command cannot read
(an order it does not take yet) is not a crash: each of its runs is ``refused``, a failure, with the command's
error line as the reason (the record's "each run" table).

Instances. 16x16 and 25x25: ``../shared/data/sudoku/lloyd_amos/instNxN_F_I.txt`` (20 per size and
percentage F of givens; the seed's numbers format; not guaranteed unique: any valid completion is a
solution). Built here and checked in (``build_set``, ``BUILT``): 36x36 at 45 % in
``bench/data/sudoku36_45/`` (20 grids from ``gpu-sa generate --order 6 --method backtrack --seed 36``) and
49x49 at 40, 45 and 50 % in ``bench/data/sudoku49_P/`` (10 per percentage, 30 grids from ``gpu-sa generate
--order 7 --method backtrack --seed 49``, instance i of the k-th percentage from grid 10 k + i); in grid g the
cells with the smallest Philox words (key = the set's seed, counter = (cell, 0, g, tag ``EMPT``)) are
emptied, keeping ceil(P % of the cells) givens, the rounding of the Lloyd & Amos files. Each folder's
README says the same. ``--build 36`` or ``--build 49`` rebuilds them with this checkout's generator: the
checked-in ones come from commit 9fb8ee2 (``BuiltSet.built_at``), and a later commit's generator makes other
grids, so it refuses to overwrite an instance with a different one (exit 2; ``--data-large DIR`` builds elsewhere).
``--set sudoku-ls``: Sudoku-LS's own instances, copied unchanged into ``bench/data/sudoku_ls/INST_NxN/P/`` (the
ant colony's format): 0-19 of 25x25 to 64x64 at 40, 50 and 60 %, and 20-29 of the comparison's cells (its README).

Methods, each run as a WHOLE PROCESS per instance, as a user would run it:
- ``swap``, ``sirdey``: ``gpu-sa solve F --move M --time-limit BUDGET --seed S --backend B --json``;
- ``default``: ``gpu-sa solve F --time-limit BUDGET --seed S --backend B --json``, no other option
  (whatever the defaults are at this commit);
- ``exact``: ``gpu-sa exact F --count-limit 1 --seed S --time-limit BUDGET --json`` (the complete search
  alone, seeded restarts; one solution, not a count; ``--exact-args`` adds options);
- ``--variant NAME='OPTIONS'``: ``gpu-sa solve`` with OPTIONS, a column of its own (to sweep defaults);
- the peers (``--peers``, ``--peer-acs``), one registry entry each in bench/peers.py, which says how each
  is run with the budget and the seed and how its answer is read: ``acs`` (``PATH --alg 0 --timeout
  ceil(BUDGET) --file F.acs --verbose``, the instance in the original format: order, then 1, then the grid
  with -1 = empty; it seeds itself from std::random_device, so its runs do not replay), ``cadical``
  (``cadical -t ceil(BUDGET) --seed=S F.cnf``), ``kissat`` (``kissat --time=ceil(BUDGET) --seed=S F.cnf``, built
  from source), ``cpsat`` (bench/peer_cpsat.py, ``--cpsat-workers``).
``--extra-args`` is appended to every ``gpu-sa solve`` command. ``--data`` points at the Lloyd & Amos
folder when this checkout is not beside ``shared/`` (a worktree; or set GPU_SA_SHARED_DATA).

Two clocks per run: ``wall``, the whole process (Python start, imports and numba compile included for
ours, about a millisecond for a native peer), and ``solve``, the method's own report of its search time
(``seconds`` of our JSON: annealing or search, compile excluded; each peer's as bench/peers.py reads it:
the ant colony's Solve() call, CaDiCaL's real time less its parsing, CP-SAT's wall time). An instance
counts as solved only if the method says so within the budget on its own clock AND the independent
validator (``gpu_sa.puzzles.sudoku.validate``: every given kept, every rule satisfied) accepts the grid
it printed; a claimed solution that fails validation is reported as ``invalid`` and counts as a
failure. A process still running at BUDGET + ``--grace`` wall seconds is killed (``killed``); one of
ours that exits with status 2 and a "gpu-sa: error:" line without an answer (an input it refuses) is ``refused``.
Medians and maxima are over all instances of a cell, a failure counting as slower than the cell's budget
(printed ``>B``; ``--cells`` gives a cell a budget of its own, the table's "budget s"); ratios divide by each
peer's median in the same run (> 1: slower than the peer), the
wall ratio by the first peer's. After the table: the cells where ``default``, ``anneal`` or ``exact`` lose to a peer,
and the instances a peer solved that they did not. The run's record (the summary table, each run's status and
clocks, and those lines as notes) goes to bench/results/large/ (``--results``); ``--records`` is another thing,
a log of runs to resume from.
Before timing, one unrecorded warm-up run per method of ours and size, with a 5 s budget (fills numba's
on-disk caches where kernels are cacheable, and the OS file cache).

The ant colony, rebuilt outside this repository (none of its code is in gpu-sa):

    git clone https://github.com/huwlloyd-mmu/sudoku_acs /work/peers/sudoku_acs
    cd /work/peers/sudoku_acs && git checkout 5181658dd674731029e7703241cfd22c3d3c936d  # newest, May 2018
    make              # g++ -c -O3 -std=c++0x src/*.cpp into obj/, links ./sudokusolver (g++ 12.2 here)
    python bench/large.py --peer-acs /work/peers/sudoku_acs/sudokusolver ...

Read from its source (``src/solvermain.cpp``): ``--alg 0`` is the ant colony system (10 ants, q0 0.9,
rho 0.9, evaporation 0.005 by default), ``--timeout`` an integer of seconds checked every 100
iterations; without ``--verbose`` it prints ``0`` (solved) or ``1`` and the seconds, with it the grid
(numbers) and ``solved in T``, or ``failed in time T``, where T is then a member that only a success
writes (uninitialised: 3e-08 was seen), so a failure's own clock is recorded as unknown; it checks its
own answer against its board and prints ``solution not valid`` when that fails. Its reader maps a value v to the character 'a' + v - 1,
which leaves the signed char range above 30, so it cannot read 36x36 instances (it answers ``failed in
time 0`` at once): the ``acs`` column is left out at 36x36, and the reason is printed.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from common import (ROOT, SHARED_DATA, add_results_option, checkout_commit, environment, print_header, print_table,
                    record_rows, write_record)
from peers import PEERS, Claim, _grid, default_paths

from gpu_sa.puzzles.sudoku.validate import sudoku_violations

LLOYD_AMOS = SHARED_DATA / "sudoku" / "lloyd_amos"
DATA_LARGE = ROOT / "bench" / "data"  # sudoku36_45/, sudoku49_40/, sudoku49_45/, sudoku49_50/
DATA_36 = DATA_LARGE / "sudoku36_45"
PERCENTAGES = (0, 35, 40, 45, 50, 60)
SIDES = (16, 25, 36, 49, 64, 81, 100)
DATA_SUDOKU_LS = ROOT / "bench" / "data" / "sudoku_ls"  # INST_NxN/P/instNxN_P_I.txt (README there)
SETS = ("lloyd-amos", "sudoku-ls")
# The cells of the large-grid comparison with Sudoku-LS (``--cells table``): side:percent, and =budget where a cell's
# budget is not --budget's (60 s). Sudoku-LS's own instances, 20-29 of each cell (bench/data/sudoku_ls/README.md).
TABLE_CELLS = "49:50,64:50,64:60,81:40,81:50=300,100:40=300"


@dataclass(frozen=True)
class BuiltSet:
    """A set of instances this bench builds and checks in (``build_set``): ``count`` instances at each
    percentage, from ``gpu-sa generate --order ORDER --count (count x percentages) --seed SEED --method
    backtrack``; instance i of the k-th percentage comes from grid k x count + i. ``built_at``: the commit whose
    generator made the checked-in instances. The grids are a function of the seed and of the version: ``backtrack``
    is the seeded complete search on an empty grid, and its decisions change with it (at 9fb8ee2's successors the
    same command gives other 36x36 and 49x49 grids), so a later ``--build`` writes other instances."""
    order: int
    percentages: tuple
    count: int
    seed: int
    built_at: str = "9fb8ee2"

    @property
    def side(self):
        return self.order * self.order


BUILT = {36: BuiltSet(order=6, percentages=(45,), count=20, seed=36),
         49: BuiltSet(order=7, percentages=(40, 45, 50), count=10, seed=49)}
BUILD_36_SEED = BUILT[36].seed
BUILD_36_PERCENT = 45
TAG_EMPTY = 0x454D5054  # "EMPT": the stream that picks the cells emptied in the built grids
PEER = "acs"  # the reference peer when it runs (ratios are to the first peer of the run otherwise)
WARM_UP_BUDGET = 5.0
STATUSES = ("solved", "over_budget", "unsolved", "invalid", "killed", "refused", "error")


@dataclass(frozen=True)
class Instance:
    side: int
    percent: int
    index: int
    path: Path
    givens: tuple  # rows of ints, 0 = empty

    @property
    def name(self):
        return self.path.name

    @property
    def label(self):
        return f"{self.side}x{self.side} {self.percent}% #{self.index}"


@dataclass(frozen=True)
class Method:
    """One column: how to run it on an instance and how to read what it printed."""
    name: str
    kind: str  # "solve", "exact" or "peer"
    options: tuple[str, ...] = ()

    @property
    def peer(self):
        return PEERS[self.name] if self.kind == "peer" else None

    def argv(self, instance: Instance, settings, peer_file: Path | None = None) -> list[str]:
        if self.kind == "peer":
            return self.peer.argv(peer_file, settings)
        gpu_sa = [sys.executable, "-m", "gpu_sa"]
        if self.kind == "exact":
            return [*gpu_sa, "exact", str(instance.path), "--json", "--count-limit", "1", "--seed", str(settings.seed),
                    "--time-limit", f"{settings.budget:g}", *self.options]
        return [*gpu_sa, "solve", str(instance.path), "--json", "--quiet", "--seed", str(settings.seed),
                "--time-limit", f"{settings.budget:g}", "--backend", settings.backend, *self.options]

    def read(self, stdout: str, instance: Instance) -> Claim:
        if self.kind == "peer":
            return self.peer.read(stdout, instance.givens)
        return read_gpu_sa(stdout, instance.side, self.kind)

    def runs_on(self, side: int) -> str | None:
        """None if the method can run on this size, else the reason it cannot."""
        return self.peer.runs_on(side) if self.kind == "peer" else None


# ----------------------------------------------------------------------------------------- instances

def read_numbers(path: Path) -> tuple:
    """The numbers format: N lines of N whitespace-separated ints, 0 = empty, or the ant colony's (the box side,
    a line 1, then the grid with -1 = empty), read here, not by the product's parser, so that the validator's
    givens do not come from the code under test."""
    rows = [tuple(int(v) for v in line.split()) for line in path.read_text().splitlines() if line.strip()]
    if len(rows) > 2 and len(rows[0]) == len(rows[1]) == 1:  # the ant colony's header
        rows = [tuple(max(v, 0) for v in row) for row in rows[2:]]
    rows = tuple(rows)
    side = len(rows)
    if side not in SIDES or any(len(row) != side for row in rows):
        raise ValueError(f"{path}: not a {side}x{side} grid of numbers")
    return rows


def instances(sides, percentages, count, data: Path, data_large: Path,
              instance_set: str = "lloyd-amos", cells=None, indices=None) -> tuple[list[Instance], list[str]]:
    """The first ``count`` instances (by number) of every (side, percentage) cell, or those numbered
    ``indices`` when given; and notes on the cells that have none, or lack some of ``indices``. The cells: every
    side with every percentage, or the (side, percent) pairs of ``cells`` when given. Set ``lloyd-amos``: 16x16
    and 25x25 come from ``data`` (Lloyd & Amos), the built sets from ``data_large``/sudoku{side}_{percent}/
    (only at their own percentages). Set ``sudoku-ls``: bench/data/sudoku_ls/INST_NxN/P/ (its README: which
    cells and instances are there)."""
    found, notes = [], []
    pairs = cells if cells is not None else [(side, percent) for side in sides for percent in percentages]
    for side, percent in pairs:
        if instance_set == "sudoku-ls":
            folder = DATA_SUDOKU_LS / f"INST_{side}x{side}" / str(percent)
        elif side in BUILT and percent not in BUILT[side].percentages:
            continue  # the built sets exist at their own percentages only, by design
        else:
            folder = data_large / f"sudoku{side}_{percent}" if side in BUILT else data
        pattern = re.compile(rf"inst{side}x{side}_{percent}_(\d+)\.txt$")
        paths = sorted((int(m.group(1)), p) for p in folder.glob(f"inst{side}x{side}_{percent}_*.txt")
                       if (m := pattern.search(p.name)))
        if indices is not None:
            lacking = sorted(set(indices) - {index for index, _ in paths})
            paths = [(index, path) for index, path in paths if index in indices]
            if lacking and paths:
                notes.append(f"{side}x{side} at {percent} % in {folder} lacks instance"
                             f"{'s' if len(lacking) > 1 else ''} {', '.join(map(str, lacking))}")
        else:
            paths = paths[:count]
        if not paths:
            which = f" numbered {format_indices(indices)}" if indices is not None else ""
            notes.append(f"no {side}x{side} instances{which} at {percent} % in {folder}")
            continue
        found += [Instance(side, percent, index, path, read_numbers(path)) for index, path in paths]
    return found, notes


def parse_indices(text: str) -> tuple[int, ...]:
    """'20-29' or '0-4,7,9': the instance numbers, sorted. ValueError on anything else."""
    numbers = set()
    for part in filter(None, (p.strip() for p in text.split(","))):
        low, dash, high = part.partition("-")
        first, last = int(low), int(high) if dash else int(low)
        if first < 0 or last < first:
            raise ValueError(f"{part!r}: not a range of instance numbers")
        numbers.update(range(first, last + 1))
    if not numbers:
        raise ValueError("no instance numbers")
    return tuple(sorted(numbers))


def format_indices(indices) -> str:
    """(20, 21, ..., 29) -> '20-29'; (0, 1, 5) -> '0-1,5'."""
    runs, indices = [], sorted(indices)
    for index in indices:
        if runs and index == runs[-1][1] + 1:
            runs[-1][1] = index
        else:
            runs.append([index, index])
    return ",".join(f"{a}-{b}" if b > a else f"{a}" for a, b in runs)


def parse_cells(text: str) -> list[tuple[int, int, float | None]]:
    """'64:50,81:50=300' (or 'table': ``TABLE_CELLS``): (side, percent, budget or None) per cell, in order."""
    cells = []
    for part in filter(None, (p.strip() for p in (TABLE_CELLS if text == "table" else text).split(","))):
        cell, equals, budget = part.partition("=")
        side, colon, percent = cell.partition(":")
        if not colon:
            raise ValueError(f"{part!r}: not SIDE:PERCENT[=BUDGET]")
        seconds = float(budget) if equals else None
        if seconds is not None and not seconds > 0:
            raise ValueError(f"{part!r}: the budget must be positive")
        cells.append((int(side), int(percent), seconds))
    if not cells:
        raise ValueError("no cells")
    return cells


def emptied_cells(cells: int, keep: int, grid_index: int, seed: int) -> list[int]:
    """The ``cells - keep`` cells emptied in grid ``grid_index``: those with the smallest Philox word
    (ties by cell number), on the project's stream rule (key = seed, counter = (cell, 0, grid, tag))."""
    import numpy as np

    from gpu_sa.engine import rng

    k0, k1 = rng.split_seed(seed)
    words = [int(rng.philox4x32_10(np.uint32(cell), np.uint32(0), np.uint32(grid_index), np.uint32(TAG_EMPTY),
                                   k0, k1)[0]) for cell in range(cells)]
    order = sorted(range(cells), key=lambda cell: (words[cell], cell))
    return sorted(order[:cells - keep])


class BuildClash(Exception):
    """``build_set`` would overwrite an instance file with other grids."""


def build_set(built: BuiltSet, data_large: Path) -> list[Path]:
    """Write the instances of ``built`` to ``data_large``/sudoku{side}_{percent}/, each folder with a README
    that says how they were made (and at which commit): count x percentages full grids from ``gpu-sa generate
    --method backtrack``, then in grid g (instance i of the k-th percentage p: g = k x count + i) the cells with
    the smallest Philox4x32-10 words (key = the seed, counter = (cell, 0, g, "EMPT")) emptied, keeping ceil(p %
    of the cells) givens, the rounding of the Lloyd & Amos files. Raises ``BuildClash`` before writing anything
    when an instance file there holds other grids (the checked-in sets, rebuilt by a generator that has
    changed since: ``BuiltSet``)."""
    side, cells = built.side, built.side ** 2
    grids = built.count * len(built.percentages)
    command = [sys.executable, "-m", "gpu_sa", "generate", "--order", str(built.order), "--count", str(grids),
               "--seed", str(built.seed), "--method", "backtrack", "--output-format", "numbers"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=_env(), check=True)
    values = [int(v) for v in done.stdout.split()]
    if len(values) != grids * cells:
        raise RuntimeError(f"gpu-sa generate gave {len(values)} numbers, expected {grids * cells}")
    texts = {}  # path: the instance's or the folder README's text, all made before any is written
    commit = checkout_commit()
    for k, percent in enumerate(built.percentages):
        keep = math.ceil(percent * cells / 100)
        folder = data_large / f"sudoku{side}_{percent}"
        for i in range(built.count):
            g = k * built.count + i
            grid = values[g * cells:(g + 1) * cells]
            if sudoku_violations([grid[r * side:(r + 1) * side] for r in range(side)], [[0] * side] * side):
                raise RuntimeError(f"gpu-sa generate gave an invalid grid (number {g})")
            for cell in emptied_cells(cells, keep, g, built.seed):
                grid[cell] = 0
            path = folder / f"inst{side}x{side}_{percent}_{i}.txt"
            texts[path] = "\n".join(" ".join(map(str, grid[r * side:(r + 1) * side])) for r in range(side)) + "\n"
        grid_number = f"{k * built.count} + i" if k else "i"
        texts[folder / "README.md"] = (
            f"# {side}x{side} Sudoku at {percent} % givens\n\n"
            f"Built at commit {commit} by `python bench/large.py --build {side}` (`bench/large.py`, `build_set`): "
            f"{grids} grids from\n"
            f"`{' '.join(['gpu-sa', *command[3:]])}`; instance i is grid {grid_number}, in which the {cells - keep} "
            f"cells with the smallest\n"
            f"Philox4x32-10 word (key = seed {built.seed}, counter = (cell, 0, grid, \"EMPT\")) are emptied, keeping "
            f"{keep} givens\n(ceil of {percent} % of {cells}, as in the Lloyd & Amos files). The seed's numbers format, "
            f"0 = empty;\nevery instance has at least the generated grid as a solution, and may have others.\n"
            f"The generator's grids are a function of the seed and of the version (its backtracking is the seeded\n"
            f"complete search, whose decisions change with it): another commit's `--build` may make other grids.\n")
    instances = [path for path in texts if path.name != "README.md"]
    for path in instances:
        if path.exists() and path.read_text() != texts[path]:
            raise BuildClash(f"{path} holds other grids than this checkout's generator makes (the checked-in sets "
                             f"were built at {built.built_at}; the generator's grids change with the version): "
                             f"nothing written; give --data-large DIR to build elsewhere")
    for path, text in texts.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return instances


# ------------------------------------------------------------------------------------ reading outputs

def read_gpu_sa(stdout: str, side: int, kind: str) -> Claim:
    """The last JSON line of ``gpu-sa solve --json`` or ``gpu-sa exact --json``."""
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise ValueError("no JSON line on stdout")
    record = json.loads(lines[-1])
    solution = record.get("solution")
    solved = bool(record.get("solved")) if kind == "solve" else bool(record.get("solutions"))
    keys = ("cost", "chains", "moves", "trials", "stopped", "setup_seconds", "backend", "nodes", "gave_up",
            "restarts", "replicas")
    detail = {k: record[k] for k in keys if k in record}
    values = [int(v) for v in solution.split()] if solved and solution else []
    if len(values) == side * side + 2:  # the ant colony's format (the input's) has two header lines
        values = values[2:]
    grid = _grid(values, side) if values else None
    return Claim(solved and grid is not None, grid, record.get("seconds"), detail)


# ----------------------------------------------------------------------------------------------- runs

@dataclass(frozen=True)
class Settings:
    budget: float
    grace: float
    seed: int
    backend: str
    peer_paths: dict = field(default_factory=dict)  # peer name -> its program (bench/peers.py)
    cpsat_workers: int = 2


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run_one(method: Method, instance: Instance, settings: Settings, workdir: Path) -> dict:
    """Run ``method`` on ``instance`` as a process of its own; the record of what happened."""
    peer_file = None
    if method.kind == "peer":
        peer_file = workdir / (instance.path.stem + method.peer.suffix)
        peer_file.write_text(method.peer.write(instance.givens))
    argv = method.argv(instance, settings, peer_file)
    record = {"side": instance.side, "percent": instance.percent, "index": instance.index, "file": instance.name,
              "method": method.name, "budget": settings.budget, "seed": settings.seed,
              "command": shlex.join(argv[2:] if argv[0] == sys.executable else argv)}
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                               env=_env(), start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=settings.budget + settings.grace)
    except subprocess.TimeoutExpired:
        _kill(process)
        stdout, stderr = process.communicate()
        record.update(status="killed", wall=time.perf_counter() - start, seconds=None)
        return record
    except BaseException:  # Ctrl-C: the child runs in its own session, so end it here
        _kill(process)
        process.communicate()
        raise
    record["wall"] = time.perf_counter() - start
    record["returncode"] = process.returncode
    if method.kind != "peer" and (reason := refusal(process.returncode, stdout, stderr)) is not None:
        record.update(status="refused", seconds=None, error=reason)
        return record
    try:
        if method.kind != "peer" and process.returncode not in (0, 1):
            raise ValueError(f"exit status {process.returncode}")
        claim = method.read(stdout, instance)
    except (ValueError, KeyError, json.JSONDecodeError) as error:
        record.update(status="error", seconds=None, error=f"{error}; stderr: {stderr.strip()[-300:]}")
        return record
    record.update(seconds=claim.seconds, **claim.detail)
    if not claim.solved:
        record["status"] = "unsolved"
        return record
    violations = sudoku_violations(claim.grid, [list(row) for row in instance.givens])
    if violations:
        record.update(status="invalid", violations=violations[:5], violation_count=len(violations))
    elif claim.seconds is None or claim.seconds > settings.budget:
        record["status"] = "over_budget"
    else:
        record["status"] = "solved"
    return record


def refusal(returncode: int, stdout: str, stderr: str) -> str | None:
    """Why our command refused the instance (exit status 2 with a "gpu-sa: error:" line and no JSON answer: an
    input it cannot read, such as an order it does not take), else None. A refusal counts as a failure, with
    this reason in the record, as an instance it failed on would."""
    if returncode != 2 or any(line.startswith("{") for line in stdout.splitlines()):
        return None
    errors = [line.strip() for line in stderr.splitlines() if "error:" in line]
    return errors[-1][:300] if errors else None


def _kill(process):
    try:
        os.killpg(process.pid, signal.SIGKILL)  # the group this run started (start_new_session)
    except ProcessLookupError:
        pass


# -------------------------------------------------------------------------------------------- summary

def summarise(records: list[dict], methods: list[str], budget: float) -> list[dict]:
    """Per (side, percent, method): solved/total, median and max of both clocks over all instances (a
    failure counts as infinitely slow), and the ratios of the medians to each peer's (``ratios``: peer ->
    ratio of the solve clocks; ``ratio``, ``ratio_wall``: to the reference peer, the first of ``methods``)."""
    peers = [m for m in methods if m in PEERS]
    cells = sorted({(r["side"], r["percent"]) for r in records})
    rows = []
    for side, percent in cells:
        group = [r for r in records if (r["side"], r["percent"]) == (side, percent)]
        stats = {}
        for method in methods:
            runs = [r for r in group if r["method"] == method]
            if not runs:
                continue
            solve = [r["seconds"] if r["status"] == "solved" else math.inf for r in runs]
            wall = [r["wall"] if r["status"] == "solved" else math.inf for r in runs]
            stats[method] = dict(side=side, percent=percent, method=method, budget=runs[0].get("budget", budget),
                                 total=len(runs),
                                 solved=sum(r["status"] == "solved" for r in runs),
                                 failures={s: n for s in STATUSES[1:] if (n := sum(r["status"] == s for r in runs))},
                                 median=statistics.median(solve), max=max(solve), median_wall=statistics.median(wall),
                                 max_wall=max(wall))
        reference = next((stats[p] for p in peers if p in stats), None)
        for entry in stats.values():
            entry["ratios"] = {p: _ratio(entry["median"], stats[p]["median"]) for p in peers if p in stats}
            entry["ratio"] = _ratio(entry["median"], reference["median"]) if reference else None
            entry["ratio_wall"] = _ratio(entry["median_wall"], reference["median_wall"]) if reference else None
            rows.append(entry)
    return rows


def _ratio(ours, theirs):
    if math.isinf(ours) or math.isinf(theirs):
        return None
    return ours / theirs if theirs > 0 else None


def losses(rows: list[dict], method: str = "default") -> list[str]:
    """The cells where ``method`` does worse than a peer: fewer solved, or a slower median."""
    lines = []
    for entry in rows:
        if entry["method"] != method:
            continue
        for peer in (e for e in rows if e["method"] in PEERS and (e["side"], e["percent"]) ==
                     (entry["side"], entry["percent"])):
            cell = f"{entry['side']}x{entry['side']} {entry['percent']} %"
            ratio = entry["ratios"].get(peer["method"])
            if entry["solved"] < peer["solved"]:
                lines.append(f"{cell}: {method} solved {entry['solved']}/{entry['total']}, {peer['method']} "
                             f"{peer['solved']}/{peer['total']}")
            elif ratio is not None and ratio > 1 or (math.isinf(entry["median"]) and not math.isinf(peer["median"])):
                lines.append(f"{cell}: {method} median {entry['median']:.3g} s, {peer['method']} "
                             f"{peer['median']:.3g} s ({_ratio_text(ratio)}x slower)")
    return lines


def missed(records: list[dict], method: str) -> list[str]:
    """The instances some peer solved and ``method`` did not."""
    solved_by = {}
    for r in records:
        if r["status"] == "solved":
            solved_by.setdefault(r["file"], set()).add(r["method"])
    return sorted(f"{file} (solved by {', '.join(sorted(who & set(PEERS)))})" for file, who in solved_by.items()
                  if who & set(PEERS) and method not in who and any(r["method"] == method and r["file"] == file
                                                                     for r in records))


def _seconds(value, budget):
    if value is None:
        return "-"
    return f">{budget:g}" if math.isinf(value) else value


def _ratio_text(ratio):
    if ratio is None:
        return "-"
    return f"{ratio:,.0f}" if ratio >= 100 else f"{ratio:.3g}"


def summary_table(rows, budget) -> tuple[list[str], list[list]]:
    """(columns, rows) of the printed summary."""
    peers = list(dict.fromkeys(p for e in rows for p in e["ratios"]))
    reference = peers[0] if peers else None
    table = []
    for e in rows:
        failures = ", ".join(f"{n} {s}" for s, n in e["failures"].items())
        cell_budget = e.get("budget") or budget
        table.append([f"{e['side']}x{e['side']}", e["percent"], e["method"], f"{e['solved']}/{e['total']}",
                      cell_budget, _seconds(e["median"], cell_budget), _seconds(e["max"], cell_budget),
                      _seconds(e["median_wall"], cell_budget),
                      *(_ratio_text(e["ratios"].get(p)) for p in peers), _ratio_text(e["ratio_wall"]),
                      failures or "-"])
    return (["size", "givens %", "method", "solved", "budget s", "median solve s", "max solve s", "median wall s",
             *(f"solve / {p}" for p in peers), f"wall / {reference or 'peer'}", "failures"], table)


def print_summary(rows, budget):
    print_table(*summary_table(rows, budget))


RUN_COLUMNS = ["instance", "method", "status", "solve s", "wall s", "cost left", "reason"]


def runs_table(records: list[dict]) -> list[dict]:
    """Each run: its instance, method, status, both clocks, where an unsolved one ended (our best cost, or the
    peer's own count of clashes), and why a refused or failed one ended so (its error line)."""
    return [dict(zip(RUN_COLUMNS, [r.get("file"), r.get("method"), r.get("status"), r.get("seconds"), r.get("wall"),
                                   r.get("cost", r.get("peer_clashes")), r.get("error")])) for r in records]


# ----------------------------------------------------------------------------------------------- main

def build_methods(args) -> list[Method]:
    try:
        return _build_methods(args)
    except ValueError as error:  # shlex: an unbalanced quote in --extra-args, --exact-args or --variant
        raise SystemExit(f"large.py: error: cannot split the options: {error}") from None


def _build_methods(args) -> list[Method]:
    extra = tuple(shlex.split(args.extra_args))
    known = {"swap": Method("swap", "solve", ("--move", "swap", *extra)),
             "sirdey": Method("sirdey", "solve", ("--move", "sirdey", *extra)),
             "default": Method("default", "solve", extra),
             "exact": Method("exact", "exact", tuple(shlex.split(args.exact_args)))}
    methods = []
    for name in filter(None, args.methods.split(",")):
        if name not in known:
            raise SystemExit(f"large.py: error: unknown method {name!r}; choose from {', '.join(known)} "
                             f"(or add one with --variant NAME='OPTIONS')")
        methods.append(known[name])
    for variant in args.variant:
        name, sep, options = variant.partition("=")
        if not sep or not name or name in known or name in PEERS or any(m.name == name for m in methods):
            raise SystemExit(f"large.py: error: --variant wants a new NAME='SOLVE OPTIONS', got {variant!r}")
        methods.append(Method(name, "solve", (*shlex.split(options), *extra)))
    for name in peer_names(args):
        methods.append(Method(name, "peer"))
    if not methods:
        raise SystemExit("large.py: error: no method to run (--methods is empty and no --variant or peer)")
    return methods


def peer_names(args) -> list[str]:
    """The peers of the run, in order: those of --peers, and acs when --peer-acs names its program."""
    names = list(filter(None, args.peers.split(",")))
    unknown = [name for name in names if name not in PEERS]
    if unknown:
        raise SystemExit(f"large.py: error: unknown peer {unknown[0]!r}; choose from {', '.join(PEERS)}")
    if args.peer_acs is not None and "acs" not in names:
        names.append("acs")
    return list(dict.fromkeys(names))


def peer_paths(args) -> dict:
    paths = default_paths()
    if args.cadical is not None:
        paths["cadical"] = args.cadical
    if args.kissat is not None:
        paths["kissat"] = args.kissat
    if args.peer_acs is not None:
        paths["acs"] = args.peer_acs
    if args.sudoku_ls is not None:
        paths["sudoku-ls"] = args.sudoku_ls
    return paths


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--budget", type=float, default=60.0,
                        help="seconds per instance and method, on the method's own clock (default 60)")
    parser.add_argument("--sizes", default=None,
                        help=f"grid sides among {', '.join(map(str, SIDES))} (default 16,25,36)")
    parser.add_argument("--percentages", default=None,
                        help="percentages of givens (default 0,35,40,45,50,60; 36x36 exists at 45 only, 49x49 at "
                             "40, 45 and 50)")
    parser.add_argument("--cells", default=None, metavar="SIDE:P[=BUDGET],...",
                        help="the cells to run, instead of every --sizes with every --percentages, each with its own "
                             "budget where =BUDGET (seconds) is given, else --budget's; 'table': the large-grid "
                             f"comparison's cells, {TABLE_CELLS}")
    parser.add_argument("--instances", type=int, default=20, help="first K instances of each cell (default 20)")
    parser.add_argument("--indices", default=None, metavar="I-J,K",
                        help="the instances numbered so in each cell (e.g. 20-29), instead of the first --instances")
    parser.add_argument("--methods", default="swap,sirdey,default,exact",
                        help="columns among swap, sirdey, default, exact (default: all four)")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME=OPTIONS",
                        help="one more column: gpu-sa solve with OPTIONS (repeatable), e.g. "
                             "--variant pt8='--replicas 8'")
    parser.add_argument("--extra-args", default="", help="options appended to every gpu-sa solve command")
    parser.add_argument("--exact-args", default="", help="options appended to the gpu-sa exact command")
    parser.add_argument("--peers", default="", help=f"peer columns among {', '.join(PEERS)} (bench/peers.py), "
                        "comma-separated, e.g. cadical,cpsat")
    parser.add_argument("--peer-acs", type=Path, default=None,
                        help="the ant-colony binary (sudoku_acs's sudokusolver): adds the 'acs' column")
    parser.add_argument("--cadical", type=Path, default=None, help="the CaDiCaL program (default: cadical on PATH)")
    parser.add_argument("--kissat", type=Path, default=None,
                        help="the Kissat program (default: $GPU_SA_KISSAT, else kissat on PATH)")
    parser.add_argument("--cpsat-workers", type=int, default=2, help="CP-SAT's num_workers (default 2)")
    parser.add_argument("--sudoku-ls", type=Path, default=None,
                        help="the Sudoku-LS program built by bench/peers/build_sudoku_ls.sh (default: $GPU_SA_SUDOKU_LS)")
    parser.add_argument("--set", dest="instance_set", choices=SETS, default="lloyd-amos",
                        help="lloyd-amos (default: 16x16 and 25x25 from ../shared/data, the 36x36 and 49x49 sets "
                             "built here) or sudoku-ls (Sudoku-LS's own set, bench/data/sudoku_ls: 25x25 to 64x64 at "
                             "40, 50, 60 %%, and the comparison's 81x81 and 100x100 cells)")
    parser.add_argument("--seed", type=int, default=1, help="seed of every gpu-sa solve run (default 1)")
    parser.add_argument("--backend", default="auto", help="gpu-sa solve --backend (default auto)")
    parser.add_argument("--grace", type=float, default=60.0,
                        help="wall seconds past the budget before a process is killed (default 60)")
    parser.add_argument("--records", type=Path, default=None,
                        help="JSON-lines file: every run is appended as it ends, and runs already in it "
                             "(same method, command, budget and instance) are reused, so a long run resumes")
    parser.add_argument("--data", type=Path, default=LLOYD_AMOS,
                        help="folder of the Lloyd & Amos 16x16 and 25x25 instances (default: %(default)s)")
    parser.add_argument("--data-large", type=Path, default=DATA_LARGE,
                        help="folder of the built sets sudoku36_45/, sudoku49_40/, ... (default: %(default)s)")
    parser.add_argument("--build", type=int, choices=sorted(BUILT), default=None, metavar="SIDE",
                        help="(re)build the instances of this side (36 or 49; see build_set) with this checkout's generator, "
                             "then exit; exit 2, writing nothing, if an instance there would change (the "
                             f"checked-in sets come from commit {BUILT[36].built_at}'s generator)")
    parser.add_argument("--no-warmup", action="store_true", help="skip the unrecorded warm-up runs")
    parser.add_argument("--json", action="store_true",
                        help="JSON lines on stdout: the environment, every run, every cell's summary")
    add_results_option(parser)
    args = parser.parse_args(argv)
    if args.cells is not None and (args.sizes is not None or args.percentages is not None):
        parser.error("--cells names the cells: give it without --sizes and --percentages")
    try:
        args.side_list = [int(v) for v in (args.sizes or "16,25,36").split(",")]
        args.percent_list = [int(v) for v in (args.percentages or ",".join(map(str, PERCENTAGES))).split(",")]
    except ValueError:
        parser.error("--sizes and --percentages take comma-separated integers")
    try:
        args.cell_list = parse_cells(args.cells) if args.cells is not None else None
    except ValueError as error:
        parser.error(f"--cells: {error}")
    if args.cell_list is not None:
        args.side_list = list(dict.fromkeys(side for side, _, _ in args.cell_list))
        args.percent_list = list(dict.fromkeys(percent for _, percent, _ in args.cell_list))
    args.cell_budgets = {(side, percent): budget for side, percent, budget in args.cell_list or () if budget}
    try:
        args.index_list = parse_indices(args.indices) if args.indices is not None else None
    except ValueError as error:
        parser.error(f"--indices: {error}")
    if not set(args.side_list) <= set(SIDES):
        parser.error(f"--sizes: choose among {', '.join(map(str, SIDES))}")
    if args.budget <= 0 or args.instances < 1 or args.grace < 0:
        parser.error("--budget must be positive, --instances at least 1, --grace not negative")
    if args.cpsat_workers < 1:
        parser.error("--cpsat-workers must be at least 1")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    methods = build_methods(args)
    done = _load_records(args.records)
    if args.build is not None:
        try:
            paths = build_set(BUILT[args.build], args.data_large)
        except BuildClash as clash:
            print(f"large.py: error: {clash}", file=sys.stderr)
            return 2
        print(f"wrote {len(paths)} instances to {args.data_large}", file=sys.stderr)
        return 0
    if args.instance_set == "lloyd-amos" and not args.data.is_dir() and {16, 25} & set(args.side_list):
        raise SystemExit(f"large.py: error: {args.data}: no such directory (the Lloyd & Amos instances: --data)")
    settings = Settings(args.budget, args.grace, args.seed, args.backend, peer_paths(args), args.cpsat_workers)
    for method in methods:
        if method.kind == "peer" and (why := method.peer.unavailable(settings)) is not None:
            raise SystemExit(f"large.py: error: peer {method.name}: {why}")
    chosen, notes = instances(args.side_list, args.percent_list, args.instances, args.data, args.data_large,
                              args.instance_set,
                              [(side, percent) for side, percent, _ in args.cell_list] if args.cell_list else None,
                              args.index_list)
    info = environment()
    for method in methods:
        if method.kind == "peer" and method.name in settings.peer_paths:
            path = Path(settings.peer_paths[method.name])
            info[f"peer_{method.name}"] = f"{path} (sha256 {hashlib.sha256(path.read_bytes()).hexdigest()[:16]})"
        elif method.name == "cpsat":
            import ortools

            info["peer_cpsat"] = f"OR-Tools {ortools.__version__}, {settings.cpsat_workers} workers"
    info["timing"] = ("whole process per instance; 'solve' = the method's own clock (compile and process start "
                      "excluded), 'wall' = the whole process")
    info["budget"] = args.budget
    budgets = ""
    if args.cell_budgets:
        info["cell_budgets"] = ", ".join(f"{side}x{side} {percent} %: {budget:g} s"
                                         for (side, percent), budget in args.cell_budgets.items())
        budgets = f" ({info['cell_budgets']})"
    if args.index_list is not None:
        info["instances"] = f"numbers {format_indices(args.index_list)} of each cell"
    title = (f"large Sudoku: budget {args.budget:g} s{budgets}, seed {args.seed}, backend {args.backend}, "
             f"methods {', '.join(m.name for m in methods)}")
    if args.json:
        print(json.dumps({"title": title, "environment": info}), flush=True)
    else:
        print_header(title, info)
    for note in notes:
        print(f"large.py: {note}", file=sys.stderr)
    for method in methods:
        for side in sorted({i.side for i in chosen}):
            if (why := method.runs_on(side)) is not None:
                print(f"large.py: {why}", file=sys.stderr)

    records, status = [], 0
    with tempfile.TemporaryDirectory(prefix="large-") as workdir:
        try:
            if not args.no_warmup:
                _warm_up(methods, chosen, settings, Path(workdir))
            plan = [(i, m) for i in chosen for m in methods if m.runs_on(i.side) is None]
            for number, (instance, method) in enumerate(plan, 1):
                cell = replace(settings, budget=args.cell_budgets.get((instance.side, instance.percent), args.budget))
                key = _key(method, instance, cell)
                record = done.get(key)
                if record is None:
                    record = run_one(method, instance, cell, Path(workdir))
                    record.update(key=key, commit=info["commit"])
                    _append(args.records, record)
                else:
                    record = {**record, "reused": True}
                records.append(record)
                if args.json:
                    print(json.dumps(record), flush=True)
                print(f"[{number}/{len(plan)}] {instance.label} {method.name}: {record['status']} "
                      f"{_clock(record.get('seconds'))} (wall {record['wall']:.2f} s)"
                      f"{' (from --records)' if record.get('reused') else ''}", file=sys.stderr, flush=True)
        except KeyboardInterrupt:
            print("large.py: interrupted; the table covers the runs that ended", file=sys.stderr)
            status = 130
    rows = summarise(records, [m.name for m in methods], args.budget)
    notes = []
    reused = [r for r in records if r.get("reused")]
    if reused:
        commits = sorted({r.get("commit", "unrecorded") for r in reused})
        # the commits go into the record's settings, not into the note: the note is rendered into the docs
        info["reused_commits"] = ", ".join(commits)
        notes.append(f"{len(reused)} of {len(records)} runs read from the --records file (made by the checkouts "
                     "in the record's reused_commits), not run now")
    for name in ("default", "anneal", "exact"):
        notes += [f"{name} loses: {line}" for line in losses(rows, name)]
        notes += [f"{name} misses {line}" for line in missed(records, name)]
    if args.json:
        for entry in rows:
            print(json.dumps({"summary": {k: (None if isinstance(v, float) and math.isinf(v) else v)
                                          for k, v in entry.items()}}), flush=True)
    else:
        print_summary(rows, args.budget)
        for note in notes:
            print(f"# {note}")
    columns, table = summary_table(rows, args.budget)
    write_record("large", record_rows(columns, table), columns=columns, info=info, title=title, notes=notes,
                 tables=[{"name": "each run", "columns": RUN_COLUMNS, "rows": runs_table(records)}],
                 results=args.results, args=argv)
    invalid = [r for r in records if r["status"] == "invalid"]
    for r in invalid:
        print(f"large.py: {r['method']} claimed {r['file']} solved but the validator rejects it: "
              f"{'; '.join(r['violations'])}", file=sys.stderr)
    return status


def _warm_up(methods, chosen, settings, workdir):
    settings = replace(settings, budget=min(settings.budget, WARM_UP_BUDGET))  # enough to compile
    for method in methods:
        if method.kind == "peer":
            continue  # a native binary: nothing to compile or cache
        for side in sorted({i.side for i in chosen}):
            easiest = max((i for i in chosen if i.side == side), key=lambda i: (i.percent, -i.index))
            print(f"large.py: warm-up {method.name} on {easiest.name}", file=sys.stderr, flush=True)
            run_one(method, easiest, settings, workdir)


def _key(method, instance, settings):
    return json.dumps([method.name, method.kind, method.options, settings.budget, settings.seed, settings.backend,
                       str(settings.peer_paths.get(method.name)) if method.kind == "peer" else None, instance.name]
                      + ([settings.cpsat_workers] if method.name == "cpsat" else []))


def _load_records(path):
    if path is None or not path.exists():
        return {}
    records = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip():
            try:
                record = json.loads(line)
                records[record["key"]] = record
            except (json.JSONDecodeError, KeyError, TypeError):
                raise SystemExit(f"large.py: error: {path}:{number}: not a run record of bench/large.py") from None
    return records


def _append(path, record):
    if path is not None:
        with path.open("a") as out:
            out.write(json.dumps(record) + "\n")


def _clock(seconds):
    return "-" if seconds is None else f"{seconds:.3g} s"


if __name__ == "__main__":
    sys.exit(main())
