"""Large Sudoku (16x16, 25x25, 36x36) near the phase transition: our methods and the ant colony
of Lloyd & Amos on the same instances, in the same run.

    python bench/large.py [--budget 60] [--sizes 16,25,36] [--percentages 0,35,40,45,50,60]
                          [--instances K] [--methods swap,sirdey,default,exact] [--seed 1]
                          [--backend auto] [--peer-acs PATH] [--extra-args '...'] [--exact-args '...']
                          [--variant NAME='SOLVE OPTIONS' ...] [--records FILE.jsonl] [--json]

Instances. 16x16 and 25x25: ``../shared/data/sudoku/lloyd_amos/instNxN_F_I.txt`` (20 per size and
percentage F of givens; the seed's numbers format; not guaranteed unique: any valid completion is a
solution). 36x36 at 45 %: ``bench/data/sudoku36_45/`` (see ``build_36``: 20 grids from
``gpu-sa generate --order 6 --method backtrack --seed 36``, then in grid i the 712 cells with the
smallest Philox words (seed 36, chain i, index = cell, stream tag ``EMPT``) emptied, keeping
ceil(0.45 x 1296) = 584 givens, the rounding of the Lloyd & Amos files; ``--build-36`` rebuilds them).

Methods, each run as a WHOLE PROCESS per instance, as a user would run it:
- ``swap``, ``sirdey``: ``gpu-sa solve F --move M --time-limit BUDGET --seed S --backend B --json``;
- ``default``: ``gpu-sa solve F --time-limit BUDGET --seed S --backend B --json``, no other option
  (whatever the defaults are at this commit);
- ``exact``: ``gpu-sa exact F --count-limit 1 --json`` (one solution, not a count; ``--exact-args``
  adds options, e.g. the randomised restarts);
- ``--variant NAME='OPTIONS'``: ``gpu-sa solve`` with OPTIONS, a column of its own (to sweep defaults);
- ``acs`` (with ``--peer-acs PATH``): ``PATH --alg 0 --timeout ceil(BUDGET) --file F.acs --verbose``
  on the instance written in the original format (order, then 1, then the grid with -1 = empty).
  It seeds itself from std::random_device: its runs do not replay.
``--extra-args`` is appended to every ``gpu-sa solve`` command. ``--data`` points at the Lloyd & Amos
folder when this checkout is not beside ``shared/`` (a worktree).

Two clocks per run: ``wall``, the whole process (Python start, imports and numba compile included for
ours, about a millisecond for the peer), and ``solve``, the method's own report of its search time
(``seconds`` of our JSON: annealing or search, compile excluded; the peer's printed time: its
Solve() call, reading and the propagation of the givens excluded). An instance counts as solved
only if the method says so within the budget on its own clock AND the independent validator
(``gpu_sa.validate.sudoku_violations``: every given kept, every rule satisfied) accepts the grid it
printed; a claimed solution that fails validation is reported as ``invalid`` and counts as a
failure. A process still running at BUDGET + ``--grace`` wall seconds is killed (``killed``;
``gpu-sa exact`` has no time limit for Sudoku, so that is how its budget is enforced).
Medians and maxima are over all instances of a cell, a failure counting as slower than the budget
(printed ``>B``); ratios divide by the peer's median in the same run (> 1: slower than the peer).
Before timing, one unrecorded warm-up run per method and size, with a 5 s budget (fills numba's
on-disk caches where kernels are cacheable, and the OS file cache).

The peer, rebuilt outside this repository (none of its code is in gpu-sa):

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

from common import ROOT, SHARED_DATA, environment, print_header, print_table

from gpu_sa.validate import sudoku_violations

LLOYD_AMOS = SHARED_DATA / "sudoku" / "lloyd_amos"
DATA_36 = ROOT / "bench" / "data" / "sudoku36_45"
PERCENTAGES = (0, 35, 40, 45, 50, 60)
SIDES = (16, 25, 36)
BUILD_36_SEED = 36
BUILD_36_COUNT = 20
BUILD_36_PERCENT = 45
TAG_EMPTY = 0x454D5054  # "EMPT": the stream that picks the cells emptied in the 36x36 grids
PEER = "acs"
PEER_MAX_SIDE = 30  # values above 30 overflow the peer's 'a' + v - 1 character encoding
WARM_UP_BUDGET = 5.0
STATUSES = ("solved", "over_budget", "unsolved", "invalid", "killed", "error")


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
class Claim:
    """What a method's output says: solved or not, the grid it printed, its own clock."""
    solved: bool
    grid: list | None = None
    seconds: float | None = None
    detail: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Method:
    """One column: how to run it on an instance and how to read what it printed."""
    name: str
    kind: str  # "solve", "exact" or "peer"
    options: tuple[str, ...] = ()

    def argv(self, instance: Instance, settings, peer_file: Path | None = None) -> list[str]:
        if self.kind == "peer":
            return [str(settings.peer_acs), "--alg", "0", "--timeout", str(math.ceil(settings.budget)),
                    "--file", str(peer_file), "--verbose"]
        gpu_sa = [sys.executable, "-m", "gpu_sa"]
        if self.kind == "exact":
            return [*gpu_sa, "exact", str(instance.path), "--json", "--count-limit", "1", *self.options]
        return [*gpu_sa, "solve", str(instance.path), "--json", "--quiet", "--seed", str(settings.seed),
                "--time-limit", f"{settings.budget:g}", "--backend", settings.backend, *self.options]

    def read(self, stdout: str, side: int) -> Claim:
        if self.kind == "peer":
            return read_peer(stdout, side)
        return read_gpu_sa(stdout, side, self.kind)

    def runs_on(self, side: int) -> str | None:
        """None if the method can run on this size, else the reason it cannot."""
        if self.kind == "peer" and side > PEER_MAX_SIDE:
            return (f"the ant colony reads value v as the character 'a' + v - 1, which overflows above "
                    f"{PEER_MAX_SIDE} (sudoku_acs src/solvermain.cpp ReadFile): {side}x{side} is left out")
        return None


# ----------------------------------------------------------------------------------------- instances

def read_numbers(path: Path) -> tuple:
    """The seed's numbers format: N lines of N whitespace-separated ints, 0 = empty (read here, not by
    the product's parser, so that the validator's givens do not come from the code under test)."""
    rows = tuple(tuple(int(v) for v in line.split()) for line in path.read_text().splitlines() if line.strip())
    side = len(rows)
    if side not in SIDES or any(len(row) != side for row in rows):
        raise ValueError(f"{path}: not a {side}x{side} grid of numbers")
    return rows


def instances(sides, percentages, count, data: Path, data36: Path) -> tuple[list[Instance], list[str]]:
    """The first ``count`` instances (by number) of every (side, percentage) cell; and notes on the
    cells that have none."""
    found, notes = [], []
    for side in sides:
        folder = data36 if side == 36 else data
        for percent in percentages:
            pattern = re.compile(rf"inst{side}x{side}_{percent}_(\d+)\.txt$")
            paths = sorted((int(m.group(1)), p) for p in folder.glob(f"inst{side}x{side}_{percent}_*.txt")
                           if (m := pattern.search(p.name)))
            if not paths:
                if side != 36 or percent == BUILD_36_PERCENT:  # 36x36 exists at 45 % only, by design
                    notes.append(f"no {side}x{side} instances at {percent} % in {folder}")
                continue
            found += [Instance(side, percent, index, path, read_numbers(path)) for index, path in paths[:count]]
    return found, notes


def acs_text(givens) -> str:
    """The original Lloyd & Amos format: the box side, then 1, then the grid with -1 for an empty cell."""
    side = len(givens)
    rows = ["\t".join(str(v if v else -1) for v in row) for row in givens]
    return f"{math.isqrt(side)}\n1\n" + "\n".join(rows) + "\n"


def emptied_cells(cells: int, keep: int, grid_index: int, seed: int) -> list[int]:
    """The ``cells - keep`` cells emptied in grid ``grid_index``: those with the smallest Philox word
    (ties by cell number), on the project's stream rule (key = seed, counter = (cell, 0, grid, tag))."""
    import numpy as np

    from gpu_sa import rng

    k0, k1 = rng.split_seed(seed)
    words = [int(rng.philox4x32_10(np.uint32(cell), np.uint32(0), np.uint32(grid_index), np.uint32(TAG_EMPTY),
                                   k0, k1)[0]) for cell in range(cells)]
    order = sorted(range(cells), key=lambda cell: (words[cell], cell))
    return sorted(order[:cells - keep])


def build_36(folder: Path, seed: int = BUILD_36_SEED, count: int = BUILD_36_COUNT) -> list[Path]:
    """Write ``count`` 36x36 instances at 45 % givens to ``folder`` (see the module docstring)."""
    command = [sys.executable, "-m", "gpu_sa", "generate", "--order", "6", "--count", str(count), "--seed", str(seed),
               "--method", "backtrack", "--output-format", "numbers"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=_env(), check=True)
    values = [int(v) for v in done.stdout.split()]
    side, cells = 36, 36 * 36
    if len(values) != count * cells:
        raise RuntimeError(f"gpu-sa generate gave {len(values)} numbers, expected {count * cells}")
    keep = math.ceil(BUILD_36_PERCENT * cells / 100)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        grid = values[i * cells:(i + 1) * cells]
        if sudoku_violations([grid[r * side:(r + 1) * side] for r in range(side)], [[0] * side] * side):
            raise RuntimeError(f"gpu-sa generate gave an invalid grid (number {i})")
        for cell in emptied_cells(cells, keep, i, seed):
            grid[cell] = 0
        path = folder / f"inst{side}x{side}_{BUILD_36_PERCENT}_{i}.txt"
        path.write_text("\n".join(" ".join(map(str, grid[r * side:(r + 1) * side])) for r in range(side)) + "\n")
        paths.append(path)
    (folder / "README.md").write_text(
        f"# 36x36 Sudoku at {BUILD_36_PERCENT} % givens\n\n"
        f"Built by `python bench/large.py --build-36` (`bench/large.py`, `build_36`): {count} grids from\n"
        f"`{' '.join(['gpu-sa', *command[3:]])}`, then in grid i the {cells - keep} cells with the smallest\n"
        f"Philox4x32-10 word (key = seed {seed}, counter = (cell, 0, i, \"EMPT\")) emptied, keeping {keep} givens\n"
        f"(ceil of {BUILD_36_PERCENT} % of {cells}, as in the Lloyd & Amos files). The seed's numbers format, 0 = empty;\n"
        f"every instance has at least the generated grid as a solution, and may have others.\n")
    return paths


# ------------------------------------------------------------------------------------ reading outputs

def _grid(values, side):
    if len(values) != side * side:
        raise ValueError(f"{len(values)} values for a {side}x{side} grid")
    return [values[r * side:(r + 1) * side] for r in range(side)]


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
    grid = _grid([int(v) for v in solution.split()], side) if solved and solution else None
    return Claim(solved and grid is not None, grid, record.get("seconds"), detail)


def read_peer(stdout: str, side: int) -> Claim:
    """``sudokusolver --verbose``: 'Solution:', the grid (numbers, '|' and '-+' borders), 'solved in T';
    or 'failed in time T' (T unset on failure: see the module docstring). Its own check may also print
    'solution not valid' before failing."""
    detail = {"peer_says_invalid": True} if "solution not valid" in stdout else {}
    if re.search(r"failed in time\s+\S+", stdout):
        # Its solTime is only written on success: after a failure it prints an uninitialised float.
        return Claim(False, None, None, detail)
    solved = re.search(r"Solution:\n(.*?)\nsolved in\s+(\S+)", stdout, re.S)
    if not solved:
        raise ValueError("neither 'Solution:' ... 'solved in T' nor 'failed in time T' in the output")
    values = [int(v) for v in re.findall(r"\d+", solved.group(1))]
    return Claim(True, _grid(values, side), float(solved.group(2)), detail)


# ----------------------------------------------------------------------------------------------- runs

@dataclass(frozen=True)
class Settings:
    budget: float
    grace: float
    seed: int
    backend: str
    peer_acs: Path | None


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run_one(method: Method, instance: Instance, settings: Settings, workdir: Path) -> dict:
    """Run ``method`` on ``instance`` as a process of its own; the record of what happened."""
    peer_file = None
    if method.kind == "peer":
        peer_file = workdir / (instance.path.stem + ".acs")
        peer_file.write_text(acs_text(instance.givens))
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
    try:
        if method.kind != "peer" and process.returncode not in (0, 1):
            raise ValueError(f"exit status {process.returncode}")
        claim = method.read(stdout, instance.side)
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


def _kill(process):
    try:
        os.killpg(process.pid, signal.SIGKILL)  # the group this run started (start_new_session)
    except ProcessLookupError:
        pass


# -------------------------------------------------------------------------------------------- summary

def summarise(records: list[dict], methods: list[str], budget: float) -> list[dict]:
    """Per (side, percent, method): solved/total, median and max of both clocks over all instances (a
    failure counts as infinitely slow), and the ratio of the medians to the peer's."""
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
            stats[method] = dict(side=side, percent=percent, method=method, total=len(runs),
                                 solved=sum(r["status"] == "solved" for r in runs),
                                 failures={s: n for s in STATUSES[1:] if (n := sum(r["status"] == s for r in runs))},
                                 median=statistics.median(solve), max=max(solve), median_wall=statistics.median(wall),
                                 max_wall=max(wall))
        peer = stats.get(PEER)
        for entry in stats.values():
            entry["ratio"] = _ratio(entry["median"], peer["median"]) if peer else None
            entry["ratio_wall"] = _ratio(entry["median_wall"], peer["median_wall"]) if peer else None
            rows.append(entry)
    return rows


def _ratio(ours, theirs):
    if math.isinf(ours) or math.isinf(theirs):
        return None
    return ours / theirs if theirs > 0 else None


def losses(rows: list[dict], method: str = "default") -> list[str]:
    """The cells where ``method`` does worse than the peer: fewer solved, or a slower median."""
    lines = []
    for entry in rows:
        if entry["method"] != method:
            continue
        peer = next((e for e in rows if e["method"] == PEER and (e["side"], e["percent"]) ==
                     (entry["side"], entry["percent"])), None)
        if peer is None:
            continue
        cell = f"{entry['side']}x{entry['side']} {entry['percent']} %"
        if entry["solved"] < peer["solved"]:
            lines.append(f"{cell}: {method} solved {entry['solved']}/{entry['total']}, {PEER} "
                         f"{peer['solved']}/{peer['total']}")
        elif entry["ratio"] is not None and entry["ratio"] > 1:
            lines.append(f"{cell}: {method} median {entry['median']:.3g} s, {PEER} {peer['median']:.3g} s "
                         f"({_ratio_text(entry['ratio'])}x slower)")
    return lines


def _seconds(value, budget):
    if value is None:
        return "-"
    return f">{budget:g}" if math.isinf(value) else value


def _ratio_text(ratio):
    if ratio is None:
        return "-"
    return f"{ratio:,.0f}" if ratio >= 100 else f"{ratio:.3g}"


def print_summary(rows, budget):
    table = []
    for e in rows:
        failures = ", ".join(f"{n} {s}" for s, n in e["failures"].items())
        table.append([f"{e['side']}x{e['side']}", e["percent"], e["method"], f"{e['solved']}/{e['total']}",
                      _seconds(e["median"], budget), _seconds(e["max"], budget), _seconds(e["median_wall"], budget),
                      _ratio_text(e["ratio"]), _ratio_text(e["ratio_wall"]), failures or "-"])
    print_table(["size", "givens %", "method", "solved", "median solve s", "max solve s", "median wall s",
                 f"solve / {PEER}", f"wall / {PEER}", "failures"], table)


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
        if not sep or not name or name in known or name == PEER or any(m.name == name for m in methods):
            raise SystemExit(f"large.py: error: --variant wants a new NAME='SOLVE OPTIONS', got {variant!r}")
        methods.append(Method(name, "solve", (*shlex.split(options), *extra)))
    if args.peer_acs is not None:
        methods.append(Method(PEER, "peer"))
    if not methods:
        raise SystemExit("large.py: error: no method to run (--methods is empty and no --variant or --peer-acs)")
    return methods


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--budget", type=float, default=60.0,
                        help="seconds per instance and method, on the method's own clock (default 60)")
    parser.add_argument("--sizes", default="16,25,36", help="grid sides among 16, 25, 36 (default: all three)")
    parser.add_argument("--percentages", default=",".join(map(str, PERCENTAGES)),
                        help="percentages of givens (default 0,35,40,45,50,60; 36x36 exists at 45 only)")
    parser.add_argument("--instances", type=int, default=20, help="first K instances of each cell (default 20)")
    parser.add_argument("--methods", default="swap,sirdey,default,exact",
                        help="columns among swap, sirdey, default, exact (default: all four)")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME=OPTIONS",
                        help="one more column: gpu-sa solve with OPTIONS (repeatable), e.g. "
                             "--variant pt8='--replicas 8'")
    parser.add_argument("--extra-args", default="", help="options appended to every gpu-sa solve command")
    parser.add_argument("--exact-args", default="", help="options appended to the gpu-sa exact command")
    parser.add_argument("--peer-acs", type=Path, default=None,
                        help="the ant-colony binary (sudoku_acs's sudokusolver): adds the 'acs' column")
    parser.add_argument("--seed", type=int, default=1, help="seed of every gpu-sa solve run (default 1)")
    parser.add_argument("--backend", default="auto", help="gpu-sa solve --backend (default auto)")
    parser.add_argument("--grace", type=float, default=60.0,
                        help="wall seconds past the budget before a process is killed (default 60)")
    parser.add_argument("--records", type=Path, default=None,
                        help="JSON-lines file: every run is appended as it ends, and runs already in it "
                             "(same method, command, budget and instance) are reused, so a long run resumes")
    parser.add_argument("--data", type=Path, default=LLOYD_AMOS,
                        help="folder of the Lloyd & Amos 16x16 and 25x25 instances (default: %(default)s)")
    parser.add_argument("--data36", type=Path, default=DATA_36, help="folder of the 36x36 instances")
    parser.add_argument("--build-36", action="store_true", help="(re)build the 36x36 instances, then exit")
    parser.add_argument("--no-warmup", action="store_true", help="skip the unrecorded warm-up runs")
    parser.add_argument("--json", action="store_true",
                        help="JSON lines on stdout: the environment, every run, every cell's summary")
    args = parser.parse_args(argv)
    try:
        args.side_list = [int(v) for v in args.sizes.split(",")]
        args.percent_list = [int(v) for v in args.percentages.split(",")]
    except ValueError:
        parser.error("--sizes and --percentages take comma-separated integers")
    if not set(args.side_list) <= set(SIDES):
        parser.error(f"--sizes: choose among {', '.join(map(str, SIDES))}")
    if args.budget <= 0 or args.instances < 1 or args.grace < 0:
        parser.error("--budget must be positive, --instances at least 1, --grace not negative")
    if args.peer_acs is not None and not os.access(args.peer_acs, os.X_OK):
        parser.error(f"--peer-acs {args.peer_acs}: not an executable file (build it with make, see --help)")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    methods = build_methods(args)
    done = _load_records(args.records)
    if args.build_36:
        paths = build_36(args.data36)
        print(f"wrote {len(paths)} instances to {args.data36}", file=sys.stderr)
        return 0
    if 36 in args.side_list and not any(args.data36.glob("inst36x36_*.txt")):
        print(f"large.py: building the 36x36 instances in {args.data36}", file=sys.stderr)
        build_36(args.data36)
    if not args.data.is_dir() and {16, 25} & set(args.side_list):
        raise SystemExit(f"large.py: error: {args.data}: no such directory (the Lloyd & Amos instances: --data)")
    settings = Settings(args.budget, args.grace, args.seed, args.backend, args.peer_acs)
    chosen, notes = instances(args.side_list, args.percent_list, args.instances, args.data, args.data36)
    info = environment()
    if args.peer_acs is not None:
        info["peer_acs"] = f"{args.peer_acs} (sha256 {hashlib.sha256(args.peer_acs.read_bytes()).hexdigest()[:16]})"
    info["timing"] = ("whole process per instance; 'solve' = the method's own clock (compile and process start "
                      "excluded), 'wall' = the whole process")
    title = (f"large Sudoku: budget {args.budget:g} s, seed {args.seed}, backend {args.backend}, "
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
                key = _key(method, instance, settings)
                record = done.get(key)
                if record is None:
                    record = run_one(method, instance, settings, Path(workdir))
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
    if args.json:
        for entry in rows:
            print(json.dumps({"summary": {k: (None if isinstance(v, float) and math.isinf(v) else v)
                                          for k, v in entry.items()}}), flush=True)
    else:
        print_summary(rows, args.budget)
        reused = [r for r in records if r.get("reused")]
        if reused:
            commits = sorted({r.get("commit", "unrecorded") for r in reused})
            print(f"# {len(reused)} of {len(records)} runs read from {args.records} (made at commit "
                  f"{', '.join(commits)}), not run now")
        for line in losses(rows):
            print(f"# default loses: {line}")
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
                       str(settings.peer_acs) if method.kind == "peer" else None, instance.name])


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
