"""The ``gpu-sa`` command, run as a user runs it: a subprocess, exit codes, stdout and stderr."""
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from conftest import DATA, ROOT, cuda_env, run_cli

EASY = "..237.9....75684.2.8..9....1...4.8..2.4...7.6..6.2...1....5..1.5.19326....3.862.."
FAST = ["--method", "anneal", "--schedule", "geometric", "--t0", "0.5", "--plateaus", "1000", "--seed", "1"]
JSON_KEYS = {"solved", "solution", "cost", "chain", "moves", "proposals", "seconds", "backend", "seed"}


def _json_lines(stdout):
    return [json.loads(line) for line in stdout.splitlines()]


def test_solve_json_on_the_seed_easy_puzzle(tmp_path):
    done = run_cli("solve", "-", "--method", "anneal", "--backend", "cpu", "--chains", "64", "--json", *FAST, stdin=EASY + "\n")
    assert done.returncode == 0, done.stderr
    (record,) = _json_lines(done.stdout)
    assert JSON_KEYS <= set(record) and record["solved"] and record["cost"] == 0
    assert record["backend"] == "cpu" and record["seed"] == 1 and len(record["solution"]) == 81
    assert all(a == b for a, b in zip(EASY, record["solution"]) if a != ".")
    assert record["proposals"] == record["moves"] * 64


def test_human_output_draws_the_grid_and_auto_says_why():
    done = run_cli("solve", DATA / "seed_puzzles.txt", "--method", "anneal", "--chains", "64", "--max-moves", "0", *FAST)
    assert done.returncode == 1  # zero moves: nothing solved
    assert "auto chose" in done.stderr and "not solved" in done.stdout
    assert done.stdout.count("+-------+-------+-------+") == 3 * 4


def test_grid_input_gives_grid_solution_in_json(tmp_path):
    path = tmp_path / "grid.txt"
    path.write_text("\n".join(EASY[9 * r:9 * r + 9] for r in range(9)) + "\n")
    done = run_cli("solve", path, "--method", "anneal", "--backend", "cpu", "--chains", "64", "--json", *FAST)
    (record,) = _json_lines(done.stdout)
    assert record["solved"] and len(record["solution"].splitlines()) == 9


def test_no_early_stop_runs_exactly_max_moves_and_dumps_states(tmp_path):
    dump = tmp_path / "run.npz"
    done = run_cli("solve", "-", "--method", "anneal", "--backend", "numpy", "--chains", "3", "--max-moves", "250", "--no-early-stop",
                   "--json", "--dump-states", dump, "--seed", "9", stdin="1..4..1..1..4..1\n")
    (record,) = _json_lines(done.stdout)
    assert record["moves"] == 250 and record["proposals"] == 750
    with np.load(dump) as saved:
        assert saved["states"].shape == (3, 16) and saved["costs"].shape == (3,) and saved["accepted"].shape == (3,)
        assert saved["states"].min() >= 1 and saved["states"].max() <= 4


def test_dump_states_never_overwrites(tmp_path):
    dump = tmp_path / "keep.npz"
    dump.write_bytes(b"precious")
    done = run_cli("solve", "-", "--method", "anneal", "--dump-states", dump, stdin=EASY)
    assert done.returncode == 2 and "already exists" in done.stderr
    assert dump.read_bytes() == b"precious"


def test_seed_numbers_format_16x16_runs():
    done = run_cli("solve", DATA / "sudoku16_45pct.txt", "--method", "anneal", "--backend", "cpu", "--chains", "8", "--max-moves", "2000",
                   "--json", "--seed", "3")
    (record,) = _json_lines(done.stdout)
    assert done.returncode in (0, 1) and len(record["best"].splitlines()) == 16


@pytest.mark.parametrize("text,message", [
    (EASY[:-1], "<stdin>:1: wrong length 80"),
    ("x" + EASY[1:], "<stdin>:1:1: bad character 'x'"),
    ("1 0 0 0\n0 0 0 0\n0 0 9 0\n0 0 0 0\n", "<stdin>:3:5: value 9 out of range"),
    ("55" + EASY[2:], "<stdin>:1: givens clash: 5 twice in row 1"),
], ids=["wrong-length", "bad-character", "out-of-range", "clash"])
def test_bad_input_exits_2_with_one_line(text, message, cli):
    status, out, err = cli("solve", "-", "--method", "anneal", stdin=text)
    assert status == 2 and out == ""
    assert err.strip().splitlines() == [f"gpu-sa: error: {message}" + err.strip().split(message, 1)[1]]


SIX = [EASY, "11" + EASY[2:], EASY, EASY[:-1], EASY, EASY[:10] + "x" + EASY[11:]]  # lines 2, 4 and 6 are bad


@pytest.mark.parametrize("command", ["solve", "exact"])
def test_a_files_good_puzzles_are_answered_and_each_bad_one_said(command, cli, tmp_path):
    """One bad puzzle rejected the whole file, naming only the first bad line: the good ones were never solved."""
    path = tmp_path / "six.txt"
    path.write_text("\n".join(SIX) + "\n")
    status, out, err = cli(command, path, "--json", "--quiet", *(["--seed", "1"] if command == "solve" else []))
    assert status == 2  # docs/cli.md, "Exit status": bad input outranks the answers of the good puzzles
    records = _json_lines(out)
    assert [record["puzzle"] for record in records] == [f"{path}:1", f"{path}:3", f"{path}:5"]
    assert all(record["solution"] == records[0]["solution"] for record in records)
    assert err.splitlines() == [
        f"gpu-sa: error: {path}:2: givens clash: 1 twice in row 1 (r1c1 and r1c2)",
        f"gpu-sa: error: {path}:4: wrong length 80: a 9x9 grid has 81 cells (one missing?)",
        f"gpu-sa: error: {path}:6:11: bad character 'x'",
        f"gpu-sa: error: {path}: 3 of its 6 puzzles are bad input (each said above) and were not tried"]


def test_minimize_empties_the_good_grids_of_a_file_with_a_bad_one(cli, tmp_path):
    grids = tmp_path / "grids.txt"
    full = "462371985917568432385294167179645823254813796836729541628457319541932678793186254"
    grids.write_text(f"{full}\n{full[:-1]}\n")
    status, out, err = cli("minimize", grids, "--seed", "1", "--json", "--quiet")
    assert status == 2 and [record["source"] for record in _json_lines(out)] == [f"{grids}:1"]
    assert err.splitlines() == [
        f"gpu-sa: error: {grids}:2: wrong length 80: a 9x9 grid has 81 cells (one missing?)",
        f"gpu-sa: error: {grids}: 1 of its 2 puzzles is bad input (each said above) and was not tried"]


def test_a_file_without_one_good_puzzle_is_refused_at_its_first_error(cli):
    status, out, err = cli("exact", "-", stdin=f"{SIX[1]}\n{SIX[3]}\n")
    assert status == 2 and out == ""
    assert err == "gpu-sa: error: <stdin>:1: givens clash: 1 twice in row 1 (r1c1 and r1c2)\n"


NO_NINE = EASY.replace("9", ".")  # a line of dots and digits 1 to 8 is also a 1-row Hashiwokakero


@pytest.mark.parametrize("text, message", [
    (NO_NINE[:-1], "wrong length 80: a 9x9 grid has 81 cells (one missing?)"),
    (NO_NINE + "5", "wrong length 82: a 9x9 grid has 81 cells (one too many?)"),
    ("..3.4......1.2.", "wrong length 15: a 4x4 grid has 16 cells (one missing?)"),
], ids=["short", "long", "4x4"])
def test_a_line_one_symbol_off_is_said_so_and_no_other_kind_offered(text, message, cli):
    """It was "wrong length 80 (...) (is it another kind? the file reads as hashi with --kind hashi)", and following
    the hint gave "no solution: island 4 ..."."""
    status, out, err = cli("solve", "-", stdin=text + "\n")
    assert status == 2 and out == "" and err == f"gpu-sa: error: <stdin>:1: {message}\n"


@pytest.mark.parametrize("args,message", [
    (["missing.txt"], "missing.txt: no such file"),
    (["-", "--schedule", "list"], "--schedule list needs --temperatures"),
    (["-", "--schedule", "list", "--temperatures", "1,zero"], "'zero' is not a temperature"),
    (["-", "--chains", "0"], "--chains 0: expected an integer >= 1 (independent chains run in lockstep)"),
    (["-", "--chains", "-1"], "--chains -1: expected an integer >= 1 (independent chains run in lockstep)"),
    (["-", "--move", "bogus"], "--move bogus: expected one of"),
    (["-", "--move", "rect"], "--move rect is not a sudoku move; choose from sirdey, swap"),
    (["-", "--plateau-length", "0"], "--plateau-length 0: expected an integer >= 1"),
    (["-", "--max-moves", "1e400"], "--max-moves 1e400: expected an integer >= 0"),
    (["-", "--max-moves", "-5"], "--max-moves -5: expected an integer >= 0"),
    (["-", "--seed", "18446744073709551616"], "--seed 18446744073709551616: expected an integer from 0 to "
                                              "18446744073709551615"),
    (["-", "--schedule", "sirdey", "--plateaus", "10"], "--plateaus applies to --schedule geometric, not sirdey"),
    (["-", "--delta", "0.2"], "--delta applies to --schedule sirdey, not geometric"),
    (["-", "--t0", "0.1", "--t-end", "0.5"], "--t0 0.1 is below --t-end 0.5: the temperature would rise"),
    (["-", "--t-end", "2"], "the default --t0 0.5 is below --t-end 2"),
    (["-", "--trials", "0", "--no-early-stop"], "--trials 0 with --no-early-stop never ends: add --time-limit"),
    (["-", "--chains", "20000000", "--trials", "1000"], "--chains 20000000 x --trials 1000 = 20,000,000,000 chains in "
                                                        "all: at most 4,294,967,296"),
    (["-", "--bogus"], "unrecognized arguments: --bogus"),
], ids=["missing-file", "list-without-temperatures", "bad-temperature", "zero-chains", "negative-chains",
        "unknown-move", "move-of-another-kind", "zero-plateau-length", "huge-max-moves", "negative-max-moves",
        "seed-too-big", "plateaus-with-sirdey", "delta-with-geometric", "rising-schedule", "rising-by-default",
        "endless", "chain-indices", "unknown-option"])
def test_bad_usage_exits_2_with_one_line(args, message, cli):
    status, out, err = cli("solve", *args, "--method", "anneal", "--backend", "numpy", stdin=EASY)
    assert status == 2 and out == "" and message in err, err
    assert len(err.strip().splitlines()) == 1 and err.startswith("gpu-sa: error: ")


def test_cuda_without_a_gpu_is_an_error_not_a_fallback():
    env = dict(os.environ)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    env["CUDA_VISIBLE_DEVICES"] = ""  # hide any GPU, so this holds on GPU machines too
    done = run_cli("solve", "-", "--method", "anneal", "--backend", "cuda", stdin=EASY, env=env)
    assert done.returncode == 2 and "backend cuda is not available" in done.stderr


def test_cuda_backend_runs_in_the_simulator_from_the_command_line():
    done = run_cli("solve", "-", "--method", "anneal", "--backend", "cuda", "--chains", "2", "--max-moves", "40", "--trials", "1", "--json",
                   "--seed", "4", stdin="1..4..1..1..4..1\n", env=cuda_env())
    assert done.returncode in (0, 1), done.stderr
    (record,) = _json_lines(done.stdout)
    assert record["backend"] == "cuda"
    reference = run_cli("solve", "-", "--method", "anneal", "--backend", "numpy", "--chains", "2", "--max-moves", "40", "--trials", "1",
                        "--json", "--seed", "4", stdin="1..4..1..1..4..1\n")
    (expected,) = _json_lines(reference.stdout)
    for key in ("solved", "cost", "chain", "best", "chain_moves"):
        assert record[key] == expected[key], key


def test_cuda_runs_print_no_warning_of_the_probe_kernel():
    """Before trusting a GPU, the backend launches a one-block probe kernel; numba-cuda warns of "under-utilization"
    below 128 blocks, and on the first real GPU (an H200) every run that used it printed that warning. With the
    default chains (the device filled: no launch of ours is that small), stderr holds no warning at all. Under the
    simulator (CI) numba-cuda does not warn; the check bites with GPU_SA_TEST_REAL_CUDA=1."""
    done = run_cli("solve", "-", "--method", "anneal", "--backend", "cuda", "--max-moves", "20", "--trials", "1",
                   "--json", "--seed", "4", stdin="1..4..1..1..4..1\n", env=cuda_env())
    assert done.returncode in (0, 1), done.stderr
    assert "Warning" not in done.stderr and "Grid size" not in done.stderr, done.stderr


def test_temperature_list_from_file(tmp_path):
    temps = tmp_path / "temps.txt"
    temps.write_text("# hot to cold\n1.0\n0.5\n0.2\n")
    done = run_cli("solve", "-", "--method", "anneal", "--backend", "numpy", "--chains", "4", "--schedule", "list", "--temperatures",
                   f"@{temps}", "--json", "--seed", "2", "--no-early-stop", stdin="1..4..1..1..4..1\n")
    (record,) = _json_lines(done.stdout)
    assert record["moves"] == 3 * 16 and record["schedule"].startswith("list: 3 plateaus")


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_and_reports_the_best_state(tmp_path):
    path = tmp_path / "hard.txt"
    # forum-hardest: propagation leaves 58 free cells, so the annealer is still at work when the signal comes
    path.write_text("........8..3...4...9..2..6.....79.......612...6.5.2.7...8...5...1.....2.4.5.....3\n")
    environment = dict(os.environ)
    environment["PYTHONPATH"] = str(ROOT)
    process = subprocess.Popen([sys.executable, "-m", "gpu_sa", "solve", path, "--method", "anneal", "--backend", "numpy", "--chains", "8",
                                "--json", "--seed", "1"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=environment, cwd=ROOT)
    time.sleep(6)  # import and setup, then annealing on the slow numpy backend
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    (record,) = _json_lines(stdout)
    assert record["stopped"] == "interrupted" and record["moves"] > 0 and len(record["best"]) == 81
    assert "Traceback" not in stderr


def test_swap_move_from_the_command_line():
    done = run_cli("solve", "-", "--method", "anneal", "--move", "swap", "--backend", "cpu", "--chains", "64", "--json", *FAST,
                   stdin=EASY + "\n")
    (record,) = _json_lines(done.stdout)
    assert done.returncode == 0 and record["solved"]


def test_trials_restart_until_solved():
    # 4 chains of 60 plateaus rarely solve in one trial; seed 1 needs 7 (measured)
    done = run_cli("solve", "-", "--method", "anneal", "--move", "sirdey", "--backend", "cpu", "--chains", "4", "--schedule", "geometric",
                   "--t0", "0.5", "--no-propagate",
                   "--plateaus", "60", "--trials", "0", "--time-limit", "60", "--seed", "1", "--json",
                   stdin=EASY + "\n")
    (record,) = _json_lines(done.stdout)
    assert done.returncode == 0 and record["solved"] and record["trials"] == 7
    assert 6 * 60 * 81 < record["moves"] <= 7 * 60 * 81


def test_help_explains_every_option():
    done = run_cli("solve", "--help")
    for option in ("--backend", "--chains", "--seed", "--move", "--schedule", "--max-moves", "--time-limit", "--json",
                   "--no-early-stop", "--dump-states", "--t0", "--t-end", "--plateaus", "--temperatures", "--trials",
                   "--stall-plateaus", "--check-unique"):
        assert option in done.stdout


def test_trace_records_every_chunk_and_never_overwrites(tmp_path, cli):
    from gpu_sa.engine import trace

    path = tmp_path / "run.jsonl"
    args = ("solve", "-", "--method", "anneal", "--backend", "numpy", "--chains", "2", "--max-moves", "64", "--no-early-stop",
            "--no-propagate", "--seed", "1", "--json", "--trace", path)
    status, out, err = cli(*args, stdin="1..4..1..1..4..1\n")
    assert status in (0, 1), err
    records = trace.read(path)
    assert records and records[-1]["moves"] == 64 and {r["puzzle"] for r in records} == {"<stdin>:1"}
    status, out, err = cli(*args, stdin="1..4..1..1..4..1\n")
    assert status == 2 and out == "" and "exists; a trace is never overwritten" in err
    assert len(trace.read(path)) == len(records)


TRACE_KEYS = ["puzzle", "trial", "moves", "seconds", "plateau", "temperature", "best_cost", "mean_cost", "acceptance",
              "proposals_per_second", "max_moves", "exchange_rates"]  # docs/cli.md, "Traces"


def test_a_batched_trace_is_per_puzzle(tmp_path, cli):
    """Three puzzles sharing the launches: their records were one series labelled "3 puzzles", whose best cost rose
    again, and `plot --puzzle FILE:4` found nothing (tests/view/test_plot.py draws one). Each puzzle now has its own
    records under its own label."""
    from gpu_sa.engine import trace

    path, hard = tmp_path / "batch.jsonl", str(ROOT / "examples" / "sudoku_9x9_hard.txt")
    labels = [f"{hard}:{line}" for line in (4, 5, 6)]
    status, out, err = cli("solve", hard, "--method", "anneal", "--backend", "numpy", "--chains", "8", "--max-moves",
                           "300", "--trials", "2", "--no-propagate", "--seed", "1", "--quiet", "--trace", path)
    assert status == 1 and err == "", err
    records = trace.read(path)
    assert sorted({r["puzzle"] for r in records}) == labels
    assert all(list(r) == TRACE_KEYS for r in records)
    for label in labels:
        own = [r for r in records if r["puzzle"] == label]
        assert [r["trial"] for r in own] == sorted(r["trial"] for r in own) and own[-1]["trial"] == 2
        for before, after in zip(own, own[1:]):
            assert after["trial"] > before["trial"] or after["best_cost"] <= before["best_cost"]


@pytest.mark.parametrize("chains", ["4000000000", "1e12"])
def test_chains_that_do_not_fit_in_memory_are_one_line(chains, cli):
    status, out, err = cli("solve", "-", "--method", "anneal", "--backend", "numpy", "--chains", chains, "--trials", "1", stdin=EASY)
    assert status == 2 and out == "" and len(err.splitlines()) == 1  # checked before a backend is chosen
    assert f"gpu-sa: error: --chains {int(float(chains))}: {int(float(chains)):,} chains would need" in err


def test_the_run_header_names_the_launch(cli):
    """The launch shape (derived from the device, printed in the run header); dataset mode's
    per-puzzle count when several puzzles share the launches."""
    one = "1..4..1..1..4..1\n"
    status, _, err = cli("solve", "-", "--method", "anneal", "--backend", "numpy", "--seed", "1", stdin=one)
    assert status == 0 and "gpu-sa: launch: 64 chains per puzzle" in err.splitlines()
    status, _, err = cli("solve", "-", "--method", "anneal", "--backend", "numpy", "--seed", "1", "--chains", "8",
                         stdin=one * 3)
    assert status == 0 and "gpu-sa: launch: 8 chains per puzzle" in err.splitlines()
    status, _, err = cli("solve", "-", "--method", "anneal", "--backend", "numpy", "--seed", "1", "--quiet", stdin=one)
    assert status == 0 and "launch" not in err


def test_the_annealers_clock_covers_the_puzzles_rules(cli, monkeypatch):
    """`solve --method anneal` builds each move before the run (schedules, chain checks) on a copy: the runner builds
    the puzzle's own inside its clock, from a puzzle with no cached root, so its rules (Sudoku: propagation and the
    strengthened root of move tabu) are on the clock, as a peer's own rules are on its clock."""
    from gpu_sa.engine import runner

    cached_at_the_clock = []
    real = runner.Options.move_of

    def move_of(self, puzzle):
        cached_at_the_clock.append({"propagated", "local_search_root"} & set(vars(puzzle)))
        return real(self, puzzle)

    monkeypatch.setattr(runner.Options, "move_of", move_of)
    status, out, err = cli("solve", "-", "--method", "anneal", "--move", "tabu", "--backend", "cpu", "--chains", "2",
                           "--seed", "1", "--json", stdin=EASY)
    assert status == 0 and json.loads(out)["solved"], err
    assert cached_at_the_clock[-1] == set()  # the puzzle itself (a stand-in may come first: the code loaded)
    assert json.loads(out)["seconds"] > 0
