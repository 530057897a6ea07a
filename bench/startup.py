"""Whole-process wall time of short ``gpu-sa`` commands with numba's cache warm: what a user waits for
when the puzzle itself takes milliseconds (a 16x16's search takes well under a millisecond, so the process's
start is nearly all of it).

    python bench/startup.py [--repeats 15] [--against OTHER_CHECKOUT] [--cadical] [--results DIR]

Each command runs once to warm its caches (numba's machine code, Python's bytecode), then --repeats
times; the table gives the median and the fastest. Beside them, in the same run, the floor no command
of ours can go under: the interpreter alone, and importing NumPy and numba. ``--against`` runs the same
commands from another checkout of the repository (for example ``git worktree add /tmp/before HEAD~1``),
interleaved with this one, run for run, and adds the ratio this / other. ``--cadical`` adds Debian's
``cadical`` on the 16x16's CNF (the bench's peer, bench/peers.py), its answer checked by the validator.

Children run with PYTHONDONTWRITEBYTECODE removed, as an installed package runs (pip compiles the
bytecode; a machine that sets the variable would make every import compile its source again). The run's
record goes to bench/results/startup/ (``--results``).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, add_results_option, environment, print_header, print_table, write_record

SIXTEEN = "tests/data/acs_inst16x16_45_0.txt"
COMMANDS = {  # label -> arguments of gpu-sa, run from the checkout's root, and a text its output must hold
    "exact 9x9 (deterministic)": (["exact", "examples/seed_easy.txt"], "unique solution"),
    "exact 9x9 --seed 1": (["exact", "examples/sudoku_9x9_hard.txt", "--seed", "1"], "unique solution"),
    "solve 9x9 --seed 1 (README's first)": (["solve", "examples/seed_easy.txt", "--seed", "1"], "solved"),
    "exact 16x16 45 % --seed 1": (["exact", SIXTEEN, "--seed", "1"], "solution"),
    "solve 16x16 45 % --seed 1": (["solve", SIXTEEN, "--seed", "1"], "solved"),
    "--help": (["--help"], "usage"),
}
FLOORS = {
    "python3 -c pass": ["-c", "pass"],
    "python3 -c 'import numpy'": ["-c", "import numpy"],
    "python3 -c 'import numba'": ["-c", "import numba"],
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=15, help="timed runs of each command (after one warm-up)")
    parser.add_argument("--against", type=Path, help="another checkout: the same commands from there, interleaved")
    parser.add_argument("--cadical", action="store_true", help="add Debian's cadical on the 16x16 (apt-get install cadical)")
    add_results_option(parser)
    args = parser.parse_args(argv)
    info = environment()
    info["against"] = str(args.against) if args.against else "-"
    print_header(f"gpu-sa start-up: whole process, numba's cache warm, {args.repeats} runs each", info)
    checkouts = [ROOT] + ([args.against.resolve()] if args.against else [])
    rows = []
    for label, (arguments, expected) in COMMANDS.items():
        seconds = {checkout: [] for checkout in checkouts}
        for checkout in checkouts:
            _timed([sys.executable, "-m", "gpu_sa", *arguments], checkout, expected)  # warm-up (may compile)
        for _ in range(args.repeats):
            for checkout in checkouts:
                seconds[checkout].append(_timed([sys.executable, "-m", "gpu_sa", *arguments], checkout, expected))
        rows.append(_row(f"gpu-sa {label}", seconds, checkouts))
    for label, arguments in FLOORS.items():
        times = [_timed([sys.executable, *arguments], ROOT, "") for _ in range(args.repeats)]
        rows.append(_row(label, {ROOT: times}, checkouts))
    if args.cadical:
        rows.append(_row("cadical 16x16 45 % (its whole process)", {ROOT: _cadical(args.repeats)}, checkouts))
    columns = ["command", "median s", "fastest s"]
    if args.against:
        columns += ["other's median s", "other's fastest s", "median ratio (this / other)"]
    print_table(columns, rows)
    write_record("startup", results=args.results, args=argv)


def _timed(command, checkout: Path, expected: str) -> float:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True, timeout=600)
    seconds = time.perf_counter() - start
    assert done.returncode == 0 and expected in done.stdout, (command, done.returncode, done.stderr[-2000:])
    return seconds


def _row(label, seconds, checkouts):
    row = [label, statistics.median(seconds[checkouts[0]]), min(seconds[checkouts[0]])]
    if len(checkouts) > 1:
        other = seconds.get(checkouts[1])
        row += ([statistics.median(other), min(other), statistics.median(seconds[checkouts[0]]) / statistics.median(other)]
                if other else ["-", "-", "-"])
    return row


def _cadical(repeats: int) -> list[float]:
    from large import read_numbers  # the bench's own reader: the validator's givens come from no product code
    from peers import cnf_text, read_dimacs_model

    from gpu_sa.puzzles.sudoku.validate import sudoku_violations

    givens = read_numbers(ROOT / SIXTEEN)
    times = []
    with tempfile.TemporaryDirectory() as folder:
        cnf = Path(folder) / "puzzle.cnf"
        cnf.write_text(cnf_text(givens))
        for _ in range(repeats + 1):  # the first run warms the page cache, as our warm-up does
            start = time.perf_counter()
            done = subprocess.run(["cadical", str(cnf)], capture_output=True, text=True, timeout=600)
            times.append(time.perf_counter() - start)
            claim = read_dimacs_model(done.stdout, givens)
            assert claim.solved and not sudoku_violations(claim.grid, givens), "cadical's answer is not a solution"
    return times[1:]


if __name__ == "__main__":
    main()
