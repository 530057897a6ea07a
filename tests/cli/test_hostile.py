"""The command line against hostile and careless input (docs/security.md, "The command line"): huge and
endless inputs, memory limits, runs that must honour --time-limit and Ctrl-C, numbers past what the solvers hold,
two signals for one request, output paths that name no file, and messages. Memory cases run under
``resource.setrlimit``; timing cases sample every puzzle kind on instances kept in tests/data."""
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import gpu_sa
from conftest import DATA, ROOT, run_cli
from gpu_sa.puzzles.shikaku.validate import shikaku_violations

# Sudoku-LS's 36x36 at 50 % givens, #8: the exact search gives up after 60 s (bench/large.py), the chains
# solve it in under a second (the Lloyd & Amos-style 36x36 at 45 % that was here is now solved in about a second)
HARD36 = ROOT / "bench" / "data" / "sudoku_ls" / "INST_36x36" / "50" / "inst36x36_50_8.txt"
EASY = "..237.9....75684.2.8..9....1...4.8..2.4...7.6..6.2...1....5..1.5.19326....3.862.."
SIGNAL_TO_EXIT = 1.0  # seconds from a stop signal to the process's end, at most (docs/cli.md, "Limits")


def start(*args, limit_mb=None, stdin=subprocess.DEVNULL):
    """``python -m gpu_sa ARGS`` in its own process (under an address-space limit of ``limit_mb`` MB)."""
    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (limit_mb << 20, limit_mb << 20))

    return subprocess.Popen([sys.executable, "-m", "gpu_sa", *map(str, args)], cwd=ROOT, stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)), preexec_fn=limited if limit_mb else None)


def finish(process, timeout=120):
    """(exit status, stdout, stderr) of a process ``start`` began. Whatever a hostile input does, the command's own
    policy answers it: never the last resort's "internal error ... please report it"."""
    out, err = process.communicate(timeout=timeout)
    assert "internal error" not in err and "please report it" not in err, err[-2000:]
    return process.returncode, out, err


def stopped_within(process, signum=signal.SIGINT, after=0.0, line=None):
    """Send ``signum`` once stderr has shown a line starting with ``line`` (if given) and ``after`` more seconds
    have passed; (exit status, stdout, stderr, seconds from the signal to the end)."""
    if line is not None:
        seen = process.stderr.readline()
        while seen and not seen.startswith(line):
            seen = process.stderr.readline()
        assert seen, f"the run ended before it said {line!r}"
    time.sleep(after)
    assert process.poll() is None, "the run ended before the signal"
    sent = time.monotonic()
    process.send_signal(signum)
    status, out, err = finish(process)
    return status, out, err, time.monotonic() - sent


# -- item 7: endless or huge input is refused, not read whole --------------------------------------------------

@pytest.mark.parametrize("args", [("exact", "/dev/zero"),
                                  ("solve", str(ROOT / "examples" / "seed_easy.txt"), "--method", "anneal",
                                   "--schedule", "list", "--temperatures", "@/dev/zero"),
                                  ("plot", "/dev/zero", "-o", "never.png")])
def test_an_endless_file_is_refused_past_the_input_limit(args):
    process = start(*args, limit_mb=1000)  # read whole, /dev/zero took 24 GB before the kernel killed it
    status, out, err = finish(process, timeout=60)
    assert status == 2 and out == ""
    assert err.strip() == "gpu-sa: error: /dev/zero: input larger than 16 MB; --max-input MB reads more"


def test_an_endless_pipe_is_refused_and_max_input_moves_the_limit():
    producer = subprocess.Popen(["yes", "1234.........................................................................."],
                                stdout=subprocess.PIPE)
    try:
        process = start("exact", "-", "--max-input", "2", limit_mb=1000, stdin=producer.stdout)
        status, _, err = finish(process, timeout=60)
    finally:
        producer.kill()
        producer.wait()
    assert status == 2 and err.strip() == "gpu-sa: error: <stdin>: input larger than 2 MB; --max-input MB reads more"


@pytest.mark.slow
def test_out_of_memory_says_what_was_being_allocated():
    # the limit raised past what an address-space cap of 1,000 MB holds: the line names the read, not the chains
    status, out, err = finish(start("exact", "/dev/zero", "--max-input", "100000", limit_mb=1000), timeout=120)
    assert status == 2 and out == ""
    assert err.strip() == ("gpu-sa: error: out of memory while reading /dev/zero (an input is held whole in memory; "
                           "--max-input bounds it, now 100,000 MB)")


def test_chains_past_an_address_space_limit_are_refused_before_allocating(tmp_path):
    empty = tmp_path / "empty64.txt"
    empty.write_text("\n".join([" ".join(["0"] * 64)] * 64) + "\n")
    status, out, err = finish(start("solve", empty, "--method", "anneal", "--move", "swap", "--backend", "cpu",
                                    "--chains", "60000",
                                    limit_mb=1500))
    assert status == 2 and out == "" and "Traceback" not in err and "bad_alloc" not in err
    assert err.strip().splitlines()[-1].startswith("gpu-sa: error: --chains 60000: 60,000 chains would need 939.6 MiB")


def test_a_replica_exchange_table_past_an_address_space_limit_is_refused_before_allocating():
    # the table was made whole, 65,535 rung pairs x 65,536 gaps of float64 (32 GiB), and the run ended in "out of
    # memory (in a step that does not say what it allocates ...)"; it is cut at the move's cost bound (16x16's sirdey:
    # 4,992), checked first, and still too large for this limit
    status, out, err = finish(start("solve", ROOT / "examples" / "sudoku_16x16.txt", "--method", "anneal", "--move",
                                    "sirdey", "--backend", "numpy", "--replicas", "65536", "--chains", "65536",
                                    "--seed", "1", limit_mb=1500))
    assert status == 2 and out == "" and "Traceback" not in err
    (line,) = [line for line in err.splitlines() if "error" in line]
    assert line.startswith("gpu-sa: error: --replicas 65536: the replica exchange table (65,535 rung pairs x 4,993 "
                           "cost gaps) would need 1.2 GiB, ") and line.endswith(" available"), err


@pytest.mark.slow
def test_ctrl_c_while_parsing_a_large_file(tmp_path):
    many = tmp_path / "many.txt"
    many.write_text((EASY + "\n") * 150_000)  # 12 MB: parsing took 52 MB / 70 s with Ctrl-C ignored
    process = start("exact", many)
    status, out, err, seconds = stopped_within(process, after=3.5)
    assert status == 130 and out == "" and seconds < SIGNAL_TO_EXIT
    assert err.strip() == f"gpu-sa: stopped by SIGINT while parsing {many}"


# -- item 8: time limits and Ctrl-C everywhere ------------------------------------------------------------------

def one_record(out):
    (line,) = out.splitlines()
    return json.loads(line)


# a 64x64 at 50 % givens (the local search answers the empty 64x64 in about a second, this one not in seconds)
HARD64 = ROOT / "bench" / "data" / "sudoku_ls" / "INST_64x64" / "50" / "inst64x64_50_1.txt"
RUNS = {  # every kind, at sizes where a second of work solves nothing
    "sudoku 64x64, anneal": ("solve", HARD64, "--method", "anneal"),
    "sudoku 64x64, auto": ("solve", HARD64),
    "sudoku 36x36, exact": ("exact", HARD36),
    "shikaku 80x80": ("solve", "--kind", "shikaku", DATA / "shikaku_80x80_seed3.txt"),
    "hashi 60x60": ("solve", "--kind", "hashi", DATA / "hashi_60x60_seed1.txt"),
}


def run_of(name):
    return [str(arg) for arg in RUNS[name]]


@pytest.mark.slow
@pytest.mark.parametrize("name", RUNS)
def test_time_limit_is_honoured_within_a_second(name):
    status, out, err = finish(start(*run_of(name), "--time-limit", "1", "--seed", "1", "--json"))
    record = one_record(out)
    assert status == 1 and not record.get("solved", record.get("solutions")), err
    assert record["seconds"] < 1.0 + 1.0, record  # a 64x64 anneal of 65,536 chains ran 39.5 s past a 5 s limit


@pytest.mark.slow
@pytest.mark.parametrize("method", ["auto", "anneal"])
def test_check_unique_gets_what_is_left_of_the_time_limit(method):
    """The uniqueness check after a solve ran past --time-limit 60 for over a minute on a 36x36 (the seeded
    search looking for a second solution): it now gets what is left of the limit, and says it gave up.

    The limit leaves the solve room: the annealer solves this one in 2.4-2.9 s here, and a limit of 3 s left it
    unsolved on a slow CI hour (best cost 4)."""
    puzzle, limit = HARD36, 6
    began = time.monotonic()
    status, out, err = finish(start("solve", puzzle, "--method", method, "--check-unique", "--time-limit", limit,
                                    "--seed", "1", "--json"))
    record = one_record(out)
    assert status == 0 and record["solved"] and record["unique"] is None, (record, err)
    assert record["seconds"] < limit and time.monotonic() - began < limit + 5, record  # 5: Python and numba's start-up


@pytest.mark.slow
@pytest.mark.parametrize("name", ["sudoku 64x64, anneal", "sudoku 36x36, exact", "shikaku 80x80", "hashi 60x60"])
def test_ctrl_c_ends_a_run_within_a_second_with_its_result(name):
    process = start(*run_of(name), "--seed", "1", "--json")
    if name.startswith("sudoku 36x36"):  # the search prints nothing before its answer: past start-up, in it
        status, out, err, seconds = stopped_within(process, after=5.0)
    else:  # the puzzle's first progress line comes once its chains have moved for a second: they are moving.
        # (Not "a second and a half after the launch line": that line comes before the puzzle's cheap checks, which
        # on the 80x80 Shikaku build an integer program, over 1.5 s on a loaded 2-core machine; the stop then came
        # before the run began, and nothing was there to report.)
        puzzle = next(arg for arg in run_of(name) if arg.endswith(".txt"))
        status, out, err, seconds = stopped_within(process, line=f"{puzzle}:1:", after=0.2)
    assert status == 130 and seconds < SIGNAL_TO_EXIT, (seconds, err)
    assert one_record(out)["puzzle"].endswith(":1")  # the best so far is reported
    assert err.strip().splitlines()[-1] == "gpu-sa: stopped by SIGINT: 1 of 1 puzzles reported"


MILLION_CELLS = {  # one puzzle of 1000x1000 cells in each format that lists its cells
    "shikaku plain": ("shikaku", "\n".join([" ".join(["1"] * 1000)] * 1000)),
    "shikaku tatham": ("shikaku", "1000x1000:" + "_".join(["1"] * 1_000_000)),
    "shikaku puzz.link": ("shikaku", "https://puzz.link/p?shikaku/1000/1000/" + "1" * 1_000_000),
    "hashi plain": ("hashi", "\n".join([" ".join(["."] * 1000)] * 1000)),
}


@pytest.mark.parametrize("case", MILLION_CELLS)
def test_a_stop_request_ends_the_parse_of_a_grid_of_a_million_cells(case):
    """These took 1.6-4.5 s to parse with no stop check, so a Ctrl-C then waited for the parse's end (2.7 s on a
    loaded CI machine). With the request already made, the parse stops within its first rows or runs."""
    from gpu_sa import puzzles
    from gpu_sa.engine import stop

    kind, text = MILLION_CELLS[case]
    stop.request()
    try:
        began = time.monotonic()
        with pytest.raises(stop.Interrupted, match="parsing big.txt"):
            puzzles.PUZZLES[kind].parse(text + "\n", "big.txt")
        assert time.monotonic() - began < 0.5
    finally:
        stop.clear()


def test_a_stop_request_ends_the_passes_over_one_block_of_many_sudoku_lines(monkeypatch):
    """150,000 puzzle lines with no blank line between them are one block. The Sudoku reader's two passes over it
    (dropping grid separator lines, voting on the format) had no stop check, and a Ctrl-C waited up to 1.1 s
    for them (test_ctrl_c_while_parsing_a_large_file above ran 1.23 s past its signal on a loaded machine)."""
    from gpu_sa.engine import stop
    from gpu_sa.puzzles.common import codecs
    from gpu_sa.puzzles.sudoku import formats

    (block,) = codecs.blocks((EASY + "\n") * 150_000)  # read before the request: its own checks pass
    monkeypatch.setattr(codecs, "blocks", lambda text: iter([block]))
    stop.request()
    try:
        with pytest.raises(stop.Interrupted, match="parsing many.txt"):
            next(formats._blocks("", "many.txt"))
        with pytest.raises(stop.Interrupted, match="parsing many.txt"):
            formats._detect(block, "many.txt")
    finally:
        stop.clear()


@pytest.mark.slow
def test_ctrl_c_while_a_large_shikaku_is_prepared(tmp_path):
    # 300x300 clues of 1 ran past 90 s with a 10 s limit, deaf to Ctrl-C. Every clue has one rectangle, so the
    # pruning answers and no launch line ever comes: a 1000x1000 grid (the cell limit) takes seconds to read,
    # list and prune on any machine, and the signal comes 3 s into that (its answer, megabytes, is never written)
    ones = tmp_path / "ones.txt"
    ones.write_text("\n".join([" ".join(["1"] * 1000)] * 1000) + "\n")
    process = start("solve", "--kind", "shikaku", ones, "--seed", "1", "--json")
    status, out, err, seconds = stopped_within(process, after=3.0)
    assert status == 130 and out == "" and seconds < SIGNAL_TO_EXIT, (seconds, err)
    assert err.strip().splitlines()[-1].startswith("gpu-sa: stopped by SIGINT"), err


def test_the_shikaku_validator_is_linear():
    side = 200  # quadratic (every rectangle against every clue): 1.6 billion steps, minutes
    clues = np.ones((side, side), dtype=np.int64)
    cells = np.indices((side, side)).reshape(2, -1).T
    rectangles = np.concatenate([cells, cells], axis=1)
    start_time = time.monotonic()
    assert shikaku_violations(clues.tolist(), rectangles.tolist()) == []
    assert time.monotonic() - start_time < 10
    rectangles[0] = [0, 0, 1, 1]
    assert shikaku_violations(clues, rectangles)[:3] == [
        "rectangle 1 [0 0 1 1] holds 4 clues, not one", "r1c2 is covered 2 times", "r2c1 is covered 2 times"]


@pytest.mark.slow
def test_ctrl_c_stops_the_shikaku_generators_merge_loop():
    process = start("generate", "--kind", "shikaku", "--size", "10x10", "--merge-iterations", "1000000000", "--count",
                    "1", "--seed", "1")
    status, out, err, seconds = stopped_within(process, after=3.0)
    assert status == 130 and out == "" and seconds < SIGNAL_TO_EXIT
    assert err.strip().splitlines()[-1] == "gpu-sa: stopped by SIGINT while generating a Shikaku (merging rectangles)"


def test_workers_past_the_cores_are_lowered_with_a_note(cli):
    from gpu_sa.engine.backends import available_cores

    # --kind given: without it the input is read first, to tell the kind, and its "no puzzle found" comes first
    status, _, err = cli("solve", "-", "--kind", "sudoku", "--method", "anneal", "--workers", "1000", stdin="")
    assert status == 2
    assert err.splitlines()[0] == (f"gpu-sa: note: --workers 1,000 is more than the {available_cores()} cores this "
                                   f"process may use; starting {available_cores()}")


# -- item 9: numbers that overflow ------------------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (("exact", "-", "--count-limit", str(10**30)),
     f"--count-limit {10**30}: expected an integer from 1 to 9223372036854775807 (solutions to count)"),
    (("solve", "-", "--method", "anneal", "--no-propagate", "--time-limit", "1e308"),
     "--time-limit 1e308: expected a number > 0 and at most 1e+09"),
    (("solve", "-", "--method", "anneal", "--max-moves", str(2**63)),
     f"--max-moves {2**63}: expected an integer from 0 to 9223372036854775807"),
    (("solve", "-", "--method", "anneal", "--plateau-length", str(2**31)),
     "plateau length must be an integer from 1 to 2**31 - 1"),
])
def test_numbers_past_what_the_solvers_hold_are_usage_errors(cli, args, message):
    status, out, err = cli(*args, stdin=EASY + "\n")
    assert status == 2 and out == "" and err.count("\n") == 1 and message in err, err


def test_a_huge_time_limit_through_the_api_does_not_overflow():
    puzzle = gpu_sa.parse("1...\n..3.\n.4..\n...2")[0]
    result = gpu_sa.anneal(puzzle, backend="numpy", chains=4, seed=1, time_limit=1e308, propagate=False)
    assert result.solved


# -- item 10: two signals, one request --------------------------------------------------------------------------

@pytest.mark.slow
def test_two_sigterms_at_once_keep_the_result():
    process = start("exact", HARD36, "--json")
    time.sleep(5.0)  # past start-up, in the search
    process.send_signal(signal.SIGTERM)
    process.send_signal(signal.SIGTERM)  # GNU timeout signals the process, then its group: the same request
    status, out, err = finish(process)
    assert status == 143 and one_record(out)["gave_up"], err
    assert "again: aborting" not in err


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("timeout") is None, reason="GNU timeout is not installed")
def test_gnu_timeout_gets_the_result():
    done = subprocess.run(["timeout", "6", sys.executable, "-m", "gpu_sa", "exact", str(HARD36), "--json"], cwd=ROOT,
                          capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    assert done.returncode == 124 and one_record(done.stdout)["gave_up"], done.stderr


# -- item 11: output paths --------------------------------------------------------------------------------------

ANNEAL = ("solve", "-", "--method", "anneal", "--backend", "numpy", "--chains", "2", "--max-moves", "16", "--seed",
          "1", "--quiet", "--no-propagate")


@pytest.mark.parametrize("option", ["--dump-states", "--trace"])
@pytest.mark.parametrize("path, why", [("{dir}", "is a directory; name a file"), ("{dir}/", "is a directory"),
                                       ("/dev/full", "not a regular file (a device, a pipe or a socket)"),
                                       ("/dev/null", "not a regular file"), ("", "an empty file name"),
                                       ("{dir}/missing/x", "directory {dir}/missing does not exist")])
def test_an_output_path_that_names_no_file_is_refused_before_the_run(cli, tmp_path, option, path, why):
    before = set(os.listdir(tmp_path))
    status, out, err = cli(*ANNEAL, option, path.format(dir=tmp_path), stdin=EASY + "\n")
    assert status == 2 and out == "" and why.format(dir=tmp_path) in err and err.count("\n") == 1, err
    assert set(os.listdir(tmp_path)) == before and not os.path.exists(f"{tmp_path}.npz")
    assert not os.path.exists("/dev/full.npz") and not os.path.exists(".npz")


@pytest.mark.slow
def test_npz_goes_only_after_a_plain_name_and_force_overwrites(cli, tmp_path):
    dump, trace_file = tmp_path / "states", tmp_path / "run.jsonl"
    assert cli(*ANNEAL, "--dump-states", dump, "--trace", trace_file, stdin=EASY + "\n")[0] in (0, 1)
    assert (tmp_path / "states.npz").is_file() and trace_file.is_file()
    status, _, err = cli(*ANNEAL, "--dump-states", dump, stdin=EASY + "\n")
    assert status == 2 and "states.npz: already exists; --force overwrites it" in err
    status, _, err = cli(*ANNEAL, "--trace", trace_file, stdin=EASY + "\n")
    assert status == 2 and "exists; a trace is never overwritten unless asked (--force overwrites it)" in err
    trace_file.write_text("old\n")
    status, _, err = cli(*ANNEAL, "--dump-states", dump, "--trace", trace_file, "--force", stdin=EASY + "\n")
    assert status in (0, 1), err
    assert trace_file.read_text().startswith('{"puzzle"') and np.load(tmp_path / "states.npz")["states"].shape[0] == 2


def test_help_says_what_an_existing_output_file_does():
    done = run_cli("solve", "--help", env=dict(os.environ, COLUMNS="10000"))
    assert "an existing file is refused unless --force" in done.stdout
    assert "overwrite the files of --trace and --dump-states if they exist" in done.stdout


# -- item 13: messages ------------------------------------------------------------------------------------------

def test_a_negative_size_gets_the_options_own_message(cli):
    status, out, err = cli("generate", "--kind", "shikaku", "--size", "-3x3", "--count", "1")
    assert status == 2 and err.startswith("gpu-sa: error: --size -3x3: expected ROWSxCOLS with sides from 1")


def test_a_huge_value_is_not_echoed_whole(cli):
    status, _, err = cli("solve", "-", "--seed", "9" * 100_000, stdin=EASY + "\n")
    assert status == 2 and len(err) < 300 and "(100,000 characters)" in err, err[:300]
    status, _, err = cli("solve", "-", "--no-such-option", "9" * 100_000, stdin=EASY + "\n")
    assert status == 2 and len(err) < 400 and "characters)" in err


def test_hashi_crossings_are_every_crossing_pair_found_in_linear_time():
    from gpu_sa.puzzles.hashi.geometry import geometry

    rng = np.random.default_rng(5)
    for _ in range(20):
        grid = np.where(rng.random((9, 11)) < 0.3, rng.integers(1, 9, (9, 11)), 0)
        if (grid > 0).sum() < 2:
            continue
        geo = geometry(grid)
        a, b = geo.cells[geo.edges[:, 0]], geo.cells[geo.edges[:, 1]]
        pairs = [(e, f) for e in range(len(a)) if a[e, 0] == b[e, 0] for f in range(len(a)) if a[f, 1] == b[f, 1]
                 and a[e, 1] < a[f, 1] < b[e, 1] and a[f, 0] < a[e, 0] < b[f, 0]]  # every pair, as it was
        assert geo.crossings.tolist() == [list(pair) for pair in pairs]
    islands = np.zeros((301, 301), dtype=np.int64)
    islands[::2, ::2] = 2  # 22,801 islands: 500 million edge pairs for the quadratic search, none crossing
    start_time = time.monotonic()
    geo = geometry(islands)
    assert len(geo.edges) == 2 * 150 * 151 and geo.crossings.shape == (0, 2)
    assert time.monotonic() - start_time < 10


HIGHS_SAYS = """
import sys
from gpu_sa.cli import main as cli
from gpu_sa.puzzles.common import milp
solve = milp.GrowingModel.solve
def said(self, *args, **kwargs):  # a line on stderr as each HiGHS solve begins
    print("highs", file=sys.stderr, flush=True)
    return solve(self, *args, **kwargs)
milp.GrowingModel.solve = said
sys.exit(cli.main())
"""


def test_ctrl_c_during_a_highs_solve_ends_it_cleanly(tmp_path):
    lattice = tmp_path / "lattice.txt"  # 22,801 islands of 2: no solution, which HiGHS takes seconds to find
    lattice.write_text("\n".join("".join("2" if r % 2 == 0 and c % 2 == 0 else "." for c in range(301))
                                 for r in range(301)) + "\n")
    process = subprocess.Popen([sys.executable, "-c", HIGHS_SAYS, "solve", "--kind", "hashi", str(lattice), "--method",
                                "ilp", "--json"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, PYTHONPATH=str(ROOT)))
    status, out, err, seconds = stopped_within(process, line="highs")
    assert status == 130 and seconds < SIGNAL_TO_EXIT, (seconds, err)
    assert one_record(out)["stopped"] == "interrupted"
    assert "terminate called" not in err  # HiGHS's threads met C++'s exit handlers: abort, status 134


# -- a FIFO that nobody writes to, a file of one long line ------------------------------------------------------

def holds_open(pid, path, timeout=15.0):
    """Whether process ``pid`` holds ``path`` open within ``timeout`` seconds (its /proc/PID/fd links)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if any(os.readlink(f"/proc/{pid}/fd/{fd}") == str(path) for fd in os.listdir(f"/proc/{pid}/fd")):
                return True
        except OSError:  # a descriptor closed while it was looked at
            pass
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.005)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and Linux's FIFO poll")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("command", ["solve", "exact", "plot"])
def test_a_fifo_that_nobody_writes_to_is_left_at_the_first_stop_signal(tmp_path, command, signum):
    """open(2) of a FIFO waits for a writer, and restarts after a signal whose handler only sets the stop flag:
    the first SIGINT was ignored, and a single SIGTERM (plain ``timeout``) never ended the run."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    process = start(command, fifo, *(["-o", tmp_path / "never.png"] if command == "plot" else []))
    try:
        holds_open(process.pid, fifo)  # opened: the wait for a writer is the read's poll, which checks the stop flag
        sent = time.monotonic()
        process.send_signal(signum)
        out, err = process.communicate(timeout=10)
        seconds = time.monotonic() - sent
    finally:
        if process.poll() is None:  # deaf to the signal: not left behind
            process.kill()
            process.communicate()
    assert process.returncode == 128 + signum and out == "" and seconds < SIGNAL_TO_EXIT, (seconds, err)
    assert err == f"gpu-sa: stopped by {signum.name} while reading {fifo}\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_is_read_once_a_writer_comes(tmp_path):
    import threading

    from gpu_sa.options import read_text

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def write():
        time.sleep(0.3)
        with open(fifo, "w") as writer:
            writer.write(EASY + "\n")

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert read_text(str(fifo)) == (EASY + "\n", str(fifo))
    finally:
        writer.join()


PEAK = """
import resource, subprocess, sys
done = subprocess.run([sys.executable, "-m", "gpu_sa", *sys.argv[1:]], stdout=subprocess.DEVNULL,
                      stderr=subprocess.PIPE, text=True)
sys.stderr.write(done.stderr)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)  # its only child: KiB on Linux
"""


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss in KiB")
@pytest.mark.parametrize("line, message", [
    ("." * 12_000_000, "wrong length 12000000 (a line puzzle has 16, 81, 256, 625 cells)"),
    ("1 " * 6_000_000, "1 row of 6000000 numbers in the numbers format: a Sudoku has n*n rows of n*n numbers for "
                       "n = 2..11"),
], ids=["symbols", "numbers"])
def test_a_long_line_is_refused_in_a_small_multiple_of_its_size(tmp_path, line, message):
    """A 12 MB line took 1.5 GB and 10 s before its refusal: each kind tried read it, and Hashiwokakero's plain
    reader made a tuple of every character before its size was checked."""
    path = tmp_path / "line.txt"
    path.write_text(line + "\n")
    done = subprocess.run([sys.executable, "-c", PEAK, "solve", str(path)], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    status, peak_kib = map(int, done.stdout.split())
    assert status == 2 and done.stderr == f"gpu-sa: error: {path}:1: {message}\n"
    assert peak_kib < 600 * 1024, f"{peak_kib / 1024:.0f} MiB at the peak"


@pytest.mark.parametrize("kind", ["sudoku", "shikaku", "hashi"])
def test_a_stop_request_ends_the_parse_of_one_long_line(kind):
    """A parser made a pass over a line of megabytes, or a list of its characters, before any stop check."""
    from gpu_sa import puzzles
    from gpu_sa.engine import stop

    text = "." * 12_000_000 + "\n"
    stop.request()
    try:
        began = time.monotonic()
        with pytest.raises(stop.Interrupted, match="parsing line.txt"):
            puzzles.PUZZLES[kind].parse(text, "line.txt")
        assert time.monotonic() - began < 0.5
    finally:
        stop.clear()


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/PID/fd")
def test_ctrl_c_while_a_long_line_is_parsed(tmp_path):
    """A 60 MB line (--max-input 100) was deaf to Ctrl-C for 9-10 s, then ran out of memory under a 4 GB address
    space, in a step that said nothing of what it allocated."""
    path = tmp_path / "line.txt"
    path.write_text("." * 60_000_000 + "\n")
    process = start("solve", path, "--max-input", "100", limit_mb=4000)
    assert holds_open(process.pid, path, timeout=60)
    while holds_open(process.pid, path, timeout=0):  # until it is read whole and closed: the parsers have it
        pass
    status, out, err, seconds = stopped_within(process)
    assert status == 130 and out == "" and seconds < SIGNAL_TO_EXIT, (seconds, err)
    assert err.startswith("gpu-sa: stopped by SIGINT while ") and len(err.splitlines()) == 1, err
