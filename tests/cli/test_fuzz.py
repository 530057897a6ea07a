"""Fuzzing the command line: random bytes, truncated and mutated files, random options drawn
from the parser's own list, and signals sent to running commands.

Every run must end with a documented status and no traceback, with one line on stderr for bad input,
and every solution it prints must pass the independent validators (``gpu_sa.puzzles.<kind>.validate``). In-process
cases call ``gpu_sa.cli.main.main`` (no start-up per case); signal cases run in subprocesses. Examples are
few and derandomised here (CI); ``bench/fuzz.py`` runs the same bodies with many more.
"""
import argparse
import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import time

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conftest import DATA, ROOT, wait_for_handlers
from gpu_sa.cli import main as cli
from gpu_sa.puzzles.hashi.validate import hashi_violations
from gpu_sa.puzzles.shikaku.validate import shikaku_violations
from gpu_sa.puzzles.sudoku.validate import sudoku_violations
from gpu_sa.puzzles import PUZZLES

EXAMPLES = int(os.environ.get("GPU_SA_FUZZ_EXAMPLES", "25"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
DOCUMENTED = {0, 1, 2, 74, 129, 130, 143}
SEEDS = {  # valid inputs to truncate and mutate: (kind, text)
    "sudoku-line": ("sudoku", (ROOT / "examples" / "seed_easy.txt").read_text()),
    "sudoku-4": ("sudoku", "1..4..1..1..4..1\n.2.4..1..1..4.1.\n"),
    "sudoku-numbers": ("sudoku", (DATA / "sudoku16_45pct.txt").read_text()),
    "shikaku-tatham": ("shikaku", (ROOT / "examples" / "shikaku_7x7.txt").read_text()),
    "shikaku-plain": ("shikaku", "2 . 2\n. . .\n. 3 .\n"),
    "hashi-tatham": ("hashi", (ROOT / "examples" / "hashi_10x10.txt").read_text()),
    "hashi-has": ("hashi", (DATA / "hashi_coelho_100_001.has").read_text()),
}
# Budget options put after the random ones (argparse keeps the last): every case ends within seconds.
BOUNDED = ["--json", "--time-limit", "1"]
VALUES = ["0", "-1", "1", "2", "3", "0.5", "1e12", "1e400", "abc", "nan", "", "2x2", "auto", "@/nonexistent", "１"]
cases = {"tried": 0}


def run_main(argv, stdin: bytes):
    """(status, stdout, stderr) of ``gpu_sa.cli.main.main`` in this process."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = cli.main(argv)
    finally:
        sys.stdin = saved
    cases["tried"] += 1
    return status, out.getvalue(), err.getvalue()


def check_run(kind, text, status, out, err):
    """The contract every run keeps, whatever it was given."""
    assert status in DOCUMENTED, (status, err)
    assert "Traceback" not in err and "internal error" not in err, err
    if status == 2:
        assert len(err.strip().splitlines()) <= 2 and "gpu-sa: error:" in err, err  # (+ a backend note)
    for line in out.splitlines():
        check_record(kind, text, json.loads(line))


def check_record(kind, text, record):
    """A printed solution passes the independent validator against the puzzle it came from."""
    solution = record.get("solution")
    if solution is None or not (record.get("solved") or record.get("solutions")):
        return
    puzzles = {p.label: p for p in PUZZLES[kind].parse(text, "<stdin>")}
    puzzle = puzzles[record["puzzle"]]
    if kind == "sudoku":
        (solved,) = PUZZLES[kind].parse(solution, "<solution>")
        side = puzzle.side
        grid = (solved.givens.astype(int) + 1).reshape(side, side).tolist()
        givens = (puzzle.givens.astype(int) + 1).reshape(side, side).tolist()
        assert sudoku_violations(grid, givens) == [], record
    elif kind == "shikaku":
        assert shikaku_violations(puzzle.clues.tolist(), solution) == [], record
    else:
        assert hashi_violations(puzzle.grid.tolist(), solution) == [], record


def _solve_args(kind):
    return ["solve", "-", "--kind", kind, "--backend", "numpy", "--chains", "4", "--max-moves", "300"] + BOUNDED


@FUZZ
@given(kind=st.sampled_from(sorted(PUZZLES)), data=st.binary(max_size=300), command=st.sampled_from(["solve", "exact"]))
def test_random_bytes(kind, data, command):
    argv = _solve_args(kind) if command == "solve" else ["exact", "-", "--kind", kind, "--json"]
    check_run(kind, data.decode("utf-8", "replace"), *run_main(argv, data))


@FUZZ
@given(seed=st.sampled_from(sorted(SEEDS)), cut=st.floats(0, 1), flips=st.lists(
    st.tuples(st.floats(0, 1), st.sampled_from(list(" .0123456789x\n-#:_a"))), max_size=3))
def test_truncated_and_mutated_files(seed, cut, flips):
    kind, text = SEEDS[seed]
    text = text[:int(len(text) * cut)]
    for where, symbol in flips:
        if text:
            at = int(where * (len(text) - 1))
            text = text[:at] + symbol + text[at + 1:]
    command = ["exact", "-", "--kind", kind, "--json", "--count-limit", "2"] if kind != "sudoku" or len(text) < 400 \
        else _solve_args(kind)
    check_run(kind, text, *run_main(command, text.encode()))


def _solve_flags():
    """The solve command's options as its parser lists them: (flag, choices or None, takes a value)."""
    parser = cli.build_parser()
    solve = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices["solve"]
    flags = []
    for action in solve._actions:
        flag = next((s for s in action.option_strings if s.startswith("--")), None)
        if flag in (None, "--help", "--backend", "--time-limit", "--json", "--dump-states", "--trace", "--quiet"):
            continue  # budget, output files and backend stay fixed so that every case is quick, checkable, clean
        choices = tuple(action.metavar.strip("{}").split(",")) if (action.metavar or "").startswith("{") else None
        flags.append((flag, choices, action.nargs != 0))
    return flags


SOLVE_FLAGS = _solve_flags()


@st.composite
def solve_options(draw):
    chosen = draw(st.lists(st.sampled_from(SOLVE_FLAGS), max_size=4, unique_by=lambda f: f[0]))
    argv = []
    for flag, choices, takes_value in chosen:
        argv.append(flag)
        if takes_value:
            argv.append(draw(st.sampled_from(list(choices or VALUES) + ["bogus"])))
    return argv


@pytest.mark.slow
@FUZZ
@given(kind=st.sampled_from(sorted(PUZZLES)), argv=solve_options())
@example(kind="sudoku", argv=["--dask", "0"])  # a bad address was the third line after two notes
def test_random_options(kind, argv):
    text = {"sudoku": "1..4..1..1..4..1\n", "shikaku": "2 . 2\n. . .\n. 3 .\n", "hashi": "2 . 2\n. . .\n1 . 1\n"}[kind]
    method = argv[argv.index("--method") + 1] if "--method" in argv else "anneal"
    backend = ["--backend", "numpy"] if method == "anneal" else []
    check_run(kind, text, *run_main(["solve", "-", "--kind", kind, *argv, *backend, *BOUNDED], text.encode()))


# Long runs in a subprocess, signalled at a random moment after the handlers are in place
# (numba's import and the compilation included).
LONG = {
    "solve": (["solve", "-", "--method", "anneal", "--backend", "numpy", "--chains", "4", "--max-moves", "100000", "--no-early-stop",
               "--trials", "1", "--seed", "1", "--json"], ("1..4..1..1..4..1\n" * 20), "sudoku"),
    "exact": (["exact", "-", "--count-limit", "300000", "--max-nodes", "1000000000", "--json"], ("." * 81 + "\n") * 20,
              "sudoku"),
    "generate": (["generate", "--kind", "shikaku", "--size", "30x30", "--count", "100000", "--seed", "1", "--json"],
                 "", None),
}


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads the signal mask from /proc (Linux)")
@pytest.mark.slow
@settings(max_examples=int(os.environ.get("GPU_SA_FUZZ_SIGNALS", "3")), deadline=None, derandomize=True,
          database=None)
@given(command=st.sampled_from(sorted(LONG)), signum=st.sampled_from([signal.SIGINT, signal.SIGTERM, signal.SIGHUP]),
       delay=st.floats(0.0, 4.0), twice=st.booleans())
def test_signals_at_random_moments(command, signum, delay, twice):
    argv, stdin, kind = LONG[command]
    process = subprocess.Popen([sys.executable, "-m", "gpu_sa", *argv], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT)
    process.stdin.write(stdin.encode())
    process.stdin.close()
    process.stdin = None
    wait_for_handlers(process.pid)
    time.sleep(delay)
    process.send_signal(signum)
    if twice:
        time.sleep(0.05)
        process.send_signal(signum)
    out, err = process.communicate(timeout=120)
    cases["tried"] += 1
    assert process.returncode == 128 + signum, err
    assert b"Traceback" not in err
    for line in out.decode().splitlines():
        record = json.loads(line)
        if kind:
            check_record(kind, stdin, record)


def test_the_fuzz_cases_cover_every_solve_option():
    flags = {flag for flag, _, _ in SOLVE_FLAGS}
    assert {"--chains", "--seed", "--move", "--schedule", "--t0", "--method", "--kind", "--format"} <= flags


@pytest.fixture(autouse=True)
def _no_files_left_behind():
    before = set(os.listdir(ROOT))
    yield
    assert set(os.listdir(ROOT)) - before <= {".hypothesis"}
