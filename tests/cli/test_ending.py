"""How every command ends (gpu_sa.cli.ending): signals, output that fails, closed streams, the last resort.

Each way a command can end badly (a signal, a closed descriptor, an error inside), reproduced as a user (or a
script) meets it: in a subprocess where the process itself is at stake (signals, descriptors), in this process
otherwise.
"""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, run_cli
from gpu_sa.puzzles.sudoku.validate import sudoku_violations

SUDOKU_4 = "1..4..1..1..4..1"
ALL_SIGNALS = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGHUP: 129}


def _start(*args, stdin=None, **popen):
    environment = dict(os.environ, PYTHONPATH=str(ROOT))
    # bufsize=0: _line must not read ahead into a buffer that communicate() (which reads the descriptor) skips
    process = subprocess.Popen([sys.executable, "-m", "gpu_sa", *map(str, args)], stdin=subprocess.PIPE, bufsize=0,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment, cwd=ROOT, **popen)
    if stdin is not None:
        process.stdin.write(stdin.encode())
    process.stdin.close()
    process.stdin = None  # so that communicate() does not flush it again
    return process


def _line(stream, timeout=120.0) -> bytes:
    """The next line of a child's output, or a failure (never a hung test) after ``timeout`` seconds.

    ``stream`` must be unbuffered (``bufsize=0``): a buffered reader may take the start of the next line
    along with this one, and ``communicate()`` then reads on from the descriptor without it (CI saw a
    record cut in two that way)."""
    import select

    ready, _, _ = select.select([stream], [], [], timeout)
    assert ready, f"no output within {timeout} s"
    return stream.readline()


def _grid(text):
    return [[int(c, 36) for c in text[4 * r:4 * r + 4]] for r in range(4)]


# Each command runs long enough per puzzle (about a second here) that a signal lands after the first
# result and before the last; the run must stop after the puzzle in hand, print it, and exit 128 + signal.
# solve runs one puzzle at a time (--batch 1): in one batch all 20 end together, their records come out within a
# few milliseconds, and a test process that was slow to send the signal (a loaded CI machine) found the run over.
SIGNAL_CASES = {
    "solve-SIGTERM": (signal.SIGTERM, ["solve", "-", "--method", "anneal", "--backend", "numpy", "--chains", "4", "--max-moves", "3000",
                                       "--no-early-stop", "--trials", "1", "--batch", "1", "--seed", "1", "--json"],
                      (SUDOKU_4 + "\n") * 20),
    "exact-SIGHUP": (signal.SIGHUP, ["exact", "-", "--count-limit", "300000", "--max-nodes", "1000000000", "--json"],
                     ("." * 81 + "\n") * 20),
    "generate-SIGINT": (signal.SIGINT, ["generate", "--kind", "shikaku", "--size", "30x30", "--count", "100000",
                                        "--seed", "1", "--json"], None),
    # a stop in the middle of a grid must not end in 'RuntimeError: generator raised StopIteration', exit 70. Seed 3:
    # its first grids take about 0.2 s each (seed 1's second grid, the one in hand when the signal comes, about 10 s)
    "generate-64x64-SIGTERM": (signal.SIGTERM, ["generate", "--order", "8", "--count", "100000", "--seed", "3",
                                                "--json"], None),
}


@pytest.mark.parametrize("case", SIGNAL_CASES)
def test_a_signal_stops_after_the_puzzle_in_hand_and_keeps_every_result(case):
    signum, args, stdin = SIGNAL_CASES[case]
    process = _start(*args, stdin=stdin)
    first = _line(process.stdout)  # the first result is out: the run is under way
    process.send_signal(signum)
    rest, stderr = process.communicate(timeout=120)
    records = [json.loads(line) for line in (first + rest).decode().splitlines()]
    assert process.returncode == ALL_SIGNALS[signum], stderr
    assert 1 <= len(records) < 20 and b"Traceback" not in stderr
    assert f"stopped by {signal.Signals(signum).name}".encode() in stderr
    for record in records:
        if args[0] == "solve":
            assert record["stopped"] in ("max_moves", "interrupted") and len(record["best"]) == 16
            if record["solved"]:
                assert sudoku_violations(_grid(record["solution"]), _grid(SUDOKU_4.replace(".", "0"))) == []
        elif args[0] == "exact":
            assert record["solutions"] >= 1
        else:
            assert record["index"] == records.index(record)


WATCHED = """
import numpy
import numba
from gpu_sa.cli import ending
from gpu_sa.engine import stop

@numba.njit(nogil=True)
def spin(flag, steps):  # compiled code that only the flag stops: Python's own handlers cannot run meanwhile
    while flag[0] == 0:
        steps[0] += 1  # work in the loop, as in a real search (an empty loop's load may be hoisted out of it)
    return 1

steps = numpy.zeros(1, numpy.int64)
spin(numpy.ones(1, numpy.uint8), steps)  # compile now
with ending.handling():
    print("spinning", flush=True)
    spin(stop.FLAG, steps)
    print("stopped by", stop.signal_number(), flush=True)
    spin(numpy.zeros(1, numpy.uint8), steps)  # a step that never looks at the stop flag
"""


def test_the_flag_is_set_while_compiled_code_runs_and_a_second_signal_aborts():
    process = subprocess.Popen([sys.executable, "-c", WATCHED], stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
                               env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT)
    try:
        assert _line(process.stdout) == b"spinning\n"
        process.send_signal(signal.SIGTERM)
        assert _line(process.stdout) == b"stopped by 15\n"  # the watcher thread set the flag
    except BaseException:
        process.kill()
        raise
    started = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130 and time.monotonic() - started < 10
    assert stderr.decode().strip() == "gpu-sa: SIGINT again: aborting"


def test_output_closed_is_an_error_not_a_silent_success():
    done = subprocess.run([sys.executable, "-m", "gpu_sa", "exact", "-"], input=SUDOKU_4.encode(),
                          stderr=subprocess.PIPE, env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT,
                          preexec_fn=lambda: os.close(1), timeout=300)
    assert done.returncode == 74
    assert done.stderr.decode().splitlines() == ["gpu-sa: error: standard output is closed: the results would be lost"]


@pytest.fixture(scope="module")
def search_in_the_cache():
    """``gpu-sa exact`` run once on SUDOKU_4, so that numba's cache holds the search and the tests below do not wait
    for a compilation of their own."""
    done = run_cli("exact", "-", stdin=SUDOKU_4)
    assert done.returncode == 0, done.stderr


# --quiet: these tests compare the error line alone. Without it a run that lasts a second also prints its progress
# line first, right for a user; a loaded CI machine took over a second to load the cached search for this 4x4.
def test_a_full_output_is_one_line_and_exit_74(search_in_the_cache):
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "gpu_sa", "exact", "-", "--quiet"], input=SUDOKU_4.encode(),
                              stdout=full, stderr=subprocess.PIPE, env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT,
                              timeout=300)
    assert done.returncode == 74
    assert done.stderr.decode().splitlines() == ["gpu-sa: error: cannot write the output: No space left on device"]


def test_a_closed_pipe_is_one_line_and_exit_74(search_in_the_cache):
    process = _start("exact", "-", "--quiet", stdin=SUDOKU_4)
    process.stdout.close()  # the reader is gone before anything was written (as `| head` after its lines)
    stderr = process.stderr.read()
    process.wait(timeout=300)
    assert process.returncode == 74
    assert stderr.decode().splitlines() == ["gpu-sa: error: cannot write the output: the reader closed the pipe"]


@pytest.mark.parametrize("stderr", ["full", "closed"])
def test_an_unwritable_stderr_never_loses_the_result(stderr):
    target = open("/dev/full", "w") if stderr == "full" else None
    with target or open(os.devnull) as _:
        done = subprocess.run([sys.executable, "-m", "gpu_sa", "generate", "--kind", "shikaku", "--size", "4x4",
                               "--count", "2", "--json"], stdout=subprocess.PIPE, stderr=target,
                              env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT, timeout=300,
                              preexec_fn=None if target else lambda: os.close(2))
    assert done.returncode == 0  # no --seed: the seed note goes to the unwritable stderr
    assert [json.loads(line)["index"] for line in done.stdout.decode().splitlines()] == [0, 1]


def test_closed_standard_input_is_one_line():
    done = subprocess.run([sys.executable, "-m", "gpu_sa", "solve", "-"], capture_output=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT, preexec_fn=lambda: os.close(0),
                          timeout=300)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode().splitlines() == ["gpu-sa: error: standard input is closed: nothing to read from '-'"]


def test_a_numba_that_cannot_start_is_one_line():
    done = run_cli("exact", "-", stdin=SUDOKU_4, env=dict(os.environ, NUMBA_NUM_THREADS="0"))
    lines = done.stderr.splitlines()
    assert done.returncode == 2 and len(lines) == 1 and lines[0].startswith("gpu-sa: error: numba cannot start"), \
        done.stderr


def test_an_unwritable_dump_keeps_the_result_and_exits_74():
    done = run_cli("solve", "-", "--method", "anneal", "--backend", "numpy", "--chains", "2", "--max-moves", "50", "--seed", "3", "--json",
                   "--dump-states", "/proc/gpu-sa-cannot-write-here.npz", stdin=SUDOKU_4)
    assert done.returncode == 74
    (record,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert record["puzzle"] == "<stdin>:1" and len(record["best"]) == 16  # printed before the dump was tried
    (line,) = done.stderr.splitlines()[2:]  # after the backend note and the launch line
    assert line.startswith("gpu-sa: error: /proc/gpu-sa-cannot-write-here.npz: cannot write the states")


def test_an_internal_error_is_one_line_and_exit_70(cli, monkeypatch):
    from gpu_sa.apps import solve

    def broken(*args, **kwargs):
        raise RuntimeError("something nobody expected\nwith a second line")

    monkeypatch.setattr(solve, "count", broken)
    status, out, err = cli("exact", "-", stdin=SUDOKU_4)
    assert status == 70 and out == ""
    assert err.splitlines() == ["gpu-sa: internal error: RuntimeError: something nobody expected. This is a bug: "
                                "please report it with the command line (run with GPU_SA_DEBUG=1 for the traceback)"]


def test_a_keyboard_interrupt_from_a_handler_of_pythons_own_is_exit_130(cli, monkeypatch):
    from gpu_sa.apps import solve

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(solve, "count", interrupted)
    status, out, err = cli("exact", "-", stdin=SUDOKU_4)
    assert status == 130 and err == "gpu-sa: interrupted\n"


def test_a_stop_before_the_first_run_began_reports_nothing_and_exits_130(cli, monkeypatch):
    from gpu_sa.engine import runner, stop

    def stopped_before_start(*args, **kwargs):  # what runner.anneal does when the stop came first
        stop.request(signal.SIGINT)
        raise stop.Interrupted("setting up the chains")

    monkeypatch.setattr(runner, "anneal", stopped_before_start)
    status, out, err = cli("solve", "-", "--method", "anneal", "--batch", "1", "--backend", "numpy", "--json",
                           stdin=SUDOKU_4 + "\n" + SUDOKU_4 + "\n")
    assert status == 130 and out == ""
    assert err.splitlines()[-1] == "gpu-sa: stopped by SIGINT: 0 of 2 puzzles reported"


LONG_LINES = """
import sys, time
from gpu_sa.cli import ending
from gpu_sa.engine import stop
with ending.handling(keep=True):
    sys.stderr.write("ready\\n"); sys.stderr.flush()
    for k in range(200):
        ending.emit(str(k) + "x" * 5000)  # longer than a pipe's 4 KiB buffer
        if stop.requested():
            break
sys.exit(ending.Outcome().status())
"""


@pytest.mark.slow
def test_a_signal_during_a_blocked_write_keeps_the_whole_line():
    """A signal that interrupts a write blocked on a full pipe (the reader is slow) makes write(2)
    return short; every line must still come out whole (CPython's buffered writer dropped the rest
    of a line longer than its buffer: found by the fuzz test on generate --kind shikaku --json)."""
    for attempt in range(3):  # the pipe fills within milliseconds; the signal then meets a blocked write
        process = subprocess.Popen([sys.executable, "-c", LONG_LINES], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT)
        assert _line(process.stderr) == b"ready\n"
        time.sleep(0.5 + 0.2 * attempt)  # nobody reads: the pipe is full and the writer blocked
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
        assert process.returncode == 130, err
        lines = out.decode().split("\n")
        assert lines[-1] == "" and len(lines) > 2
        for k, line in enumerate(lines[:-1]):
            assert line == str(k) + "x" * 5000, f"line {k} cut at {len(line)} characters"


# The program ends at once when its command is done (gpu_sa.cli.main._exit_now): its atexit handlers run, the
# interpreter's tear-down does not (a module global's __del__ would print), and numba loaded its array math with
# SciPy's linear algebra hidden (gpu_sa.cli.main._numba_without_its_blas_probe).
AS_THE_PROGRAM = """
import atexit, sys
class Witness:
    def __del__(self):
        sys.stderr.write("torn down\\n")
witness = Witness()
atexit.register(lambda: sys.stderr.write(f"atexit: scipy.linalg {'scipy.linalg' in sys.modules}\\n"))
from gpu_sa.cli import main as cli
sys.exit(cli.main())
"""


@pytest.mark.parametrize("puzzle, status", [(SUDOKU_4, 0), ("12........3...4.", 1)])
def test_the_program_ends_without_the_interpreters_tear_down_or_scipy(search_in_the_cache, cli, puzzle, status):
    done = subprocess.run([sys.executable, "-c", AS_THE_PROGRAM, "exact", "-", "--quiet", "--json"], input=puzzle,
                          capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT,
                          timeout=300)
    assert done.stderr.splitlines() == ["atexit: scipy.linalg False"]
    in_process = cli("exact", "-", "--quiet", "--json", stdin=puzzle)
    assert done.returncode == in_process[0] == status
    record, expected = json.loads(done.stdout), json.loads(in_process[1])
    assert {key: record[key] for key in record if key != "seconds"} == \
        {key: expected[key] for key in expected if key != "seconds"}


def test_a_profiler_still_writes_its_report(search_in_the_cache, tmp_path):
    import pstats

    report = tmp_path / "exact.prof"
    done = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(report), "-m", "gpu_sa", "exact", "-",
                           "--quiet"], input=SUDOKU_4, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT, timeout=300)
    assert done.returncode == 0 and "at least 2 solutions" in done.stdout, done.stderr
    functions = {(Path(path).name, name) for path, _, name in pstats.Stats(str(report)).stats}
    assert ("main.py", "main") in functions
