"""``gpu-sa`` on Shikaku and Hashiwokakero, run as a user runs it: exit codes, JSON, errors."""
import json

import numpy as np
import pytest

from conftest import ROOT, run_cli
from gpu_sa.puzzles.hashi.validate import hashi_violations
from gpu_sa.puzzles.shikaku.validate import shikaku_violations
from gpu_sa.puzzles import hashi, shikaku

SHIKAKU = ROOT / "examples" / "shikaku_7x7.txt"
HASHI = ROOT / "examples" / "hashi_10x10.txt"
COELHO = ROOT / "tests" / "data" / "hashi_coelho_100_001.has"


def _record(done):
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()
    return json.loads(line)


def _clues(path):
    return shikaku.parse(path.read_text(), str(path))[0].clues.tolist()


def _grid(path):
    return hashi.parse(path.read_text(), str(path))[0].grid.tolist()


@pytest.mark.parametrize("method", ["anneal", "ilp"])
def test_shikaku_json_solution_is_rectangles_in_clue_order(method):
    record = _record(run_cli("solve", SHIKAKU, "--kind", "shikaku", "--method", method, "--json", "--check-unique",
                             *(["--backend", "cpu", "--seed", "3"] if method == "anneal" else [])))
    assert record["solved"] and record["method"] == method and record["unique"] is True
    assert shikaku_violations(_clues(SHIKAKU), record["solution"]) == []


@pytest.mark.parametrize("path, method", [(HASHI, "anneal"), (HASHI, "ilp"), (COELHO, "anneal"), (COELHO, "ilp")])
def test_hashi_json_solution_is_bridges(path, method):
    record = _record(run_cli("solve", path, "--kind", "hashi", "--method", method, "--json",
                             *(["--backend", "cpu", "--seed", "4"] if method == "anneal" else [])))
    assert record["solved"] and record["cost"] == 0
    assert all(len(bridge) == 5 and bridge[4] in (1, 2) for bridge in record["solution"])
    assert hashi_violations(_grid(path), record["solution"]) == []


def test_human_output_draws_the_solution():
    done = run_cli("solve", HASHI, "--kind", "hashi", "--backend", "cpu", "--seed", "1")
    assert done.returncode == 0 and "solved by the annealer in" in done.stdout
    assert "=" in done.stdout and '"' in done.stdout  # double bridges, horizontal and vertical


def test_exact_counts_with_the_ilp():
    record = _record(run_cli("exact", SHIKAKU, "--kind", "shikaku", "--json"))
    assert record["solutions"] == 1 and record["gave_up"] is False
    assert shikaku_violations(_clues(SHIKAKU), record["solution"]) == []
    done = run_cli("exact", HASHI, "--kind", "hashi")
    assert done.returncode == 0 and "unique solution" in done.stdout


def test_dump_states_for_shikaku(tmp_path):
    dump = tmp_path / "run.npz"
    done = run_cli("solve", SHIKAKU, "--kind", "shikaku", "--backend", "numpy", "--chains", "3", "--max-moves", "20",
                   "--no-early-stop", "--seed", "1", "--dump-states", dump, "--json")
    assert done.returncode in (0, 1), done.stderr
    with np.load(dump) as saved:
        clues = np.asarray(_clues(SHIKAKU))
        assert saved["states"].shape == (3, int((clues > 0).sum()))
        np.testing.assert_array_equal(saved["clues"], clues)


@pytest.mark.parametrize("kind, text, args, message", [
    ("shikaku", "4 . .\n. . .\n. . 4\n", [], "sum to 8, not to the grid's area 3x3 = 9"),
    ("shikaku", "2 . .\n. . .\n. . 16\n", [], "larger than the 3x3 grid"),
    ("shikaku", "7x7:a3d2b2a3_2a4a8h2a3c4_2b2c3a3_3c3bz\n", [], "<stdin>:1"),
    ("shikaku", "https://puzz.link/p?shikaku/6/6/j3g5\n", [], "<stdin>:1"),
    ("hashi", "2 . 0\n", [], "value 0"),
    ("hashi", "2 . 9\n", [], "9"),
    ("hashi", "1 3 3\n1 0 1\n", [], "<stdin>:1"),
    ("hashi", "2 . 2\n", ["--format", "line"], "--format line is not a hashi format"),
    ("sudoku", "." * 81 + "\n", ["--method", "ilp"], "not available for sudoku"),
    ("hashi", "2 . 2\n", ["--method", "ilp", "--chains", "8"], "--chains applies to --method anneal or auto, not ilp"),
    ("hashi", "2 . 2\n", ["--move", "rect"], "--move rect is not a hashi move; choose from bridge"),
])
def test_bad_input_is_one_line_and_exit_2(kind, text, args, message, cli):
    status, out, err = cli("solve", "-", "--kind", kind, *args, stdin=text)
    assert status == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gpu-sa: error:") and message in lines[0], err


def test_unsolvable_hashi_is_exit_1_not_a_wrong_answer():
    # two islands in a row asking for 1 and 2 bridges: no assignment fits
    done = run_cli("solve", "-", "--kind", "hashi", "--method", "ilp", "--json", stdin="1 . 2\n")
    assert done.returncode == 1
    record = json.loads(done.stdout)
    assert record["solved"] is False and record["solution"] is None and record["stopped"] == "no_solution"
    done = run_cli("solve", "-", "--kind", "hashi", "--backend", "cpu", "--seed", "1", "--plateaus", "20",
                   "--trials", "2", "--json", stdin="1 . 2\n")
    assert done.returncode == 1 and json.loads(done.stdout)["solved"] is False


@pytest.mark.parametrize("kind, size, extra", [("shikaku", "6x9", []), ("hashi", "8x10", ["--islands", "14"])])
def test_generate_unique_puzzles_replay_from_the_seed(kind, size, extra):
    args = ["generate", "--kind", kind, "--size", size, "--count", "2", "--seed", "5", "--unique", "--json", *extra]
    first, second = run_cli(*args), run_cli(*args)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout  # a run is a function of its seed
    records = [json.loads(line) for line in first.stdout.splitlines()]
    assert len(records) == 2 and records[0]["puzzle"] != records[1]["puzzle"]
    module = {"shikaku": shikaku, "hashi": hashi}[kind]
    for record in records:
        (puzzle,) = module.parse(record["puzzle"])
        rows, cols = map(int, size.split("x"))
        instance = puzzle.clues if kind == "shikaku" else puzzle.grid
        assert instance.shape == (rows, cols)
        if kind == "hashi":
            assert (instance > 0).sum() == 14
            assert hashi_violations(instance.tolist(), record["solution"]) == []
        else:
            assert shikaku_violations(instance.tolist(), record["solution"]) == []
        assert puzzle.count_solutions(limit=2).solutions == 1  # --unique, checked again here


@pytest.mark.parametrize("args, message", [
    (["--kind", "shikaku", "--count", "1"], "generate --kind shikaku needs --size ROWSxCOLS"),
    (["--kind", "shikaku", "--count", "1", "--size", "ten"], "--size ten: expected ROWSxCOLS"),
    (["--kind", "shikaku", "--count", "1", "--size", "5x5", "--islands", "3"],
     "--islands applies to generate --kind hashi, not shikaku"),
    (["--kind", "hashi", "--count", "1", "--size", "5x5", "--order", "3"], "--order applies to generate --kind sudoku"),
    (["--kind", "hashi", "--count", "1", "--size", "5x5", "--output-format", "line"], "not a hashi output format"),
    (["--kind", "hashi", "--count", "1", "--size", "1x1"], "--size 1x1: expected ROWSxCOLS with sides from 1 to "
                                                           "1,000 and at least 2 cells"),
    (["--kind", "hashi", "--count", "1", "--size", "5x5", "--chains", "4"], "--chains does not apply to generate "
                                                                            "--kind hashi"),
    (["--count", "1", "--size", "5x5"], "--size 5x5: expected NxN with N one of 4, 9, 16, 25, 36, 49, 64"),
    (["--count", "0"], "--count 0: expected an integer >= 1"),
    (["--count", "1", "--chains", "0"], "--chains 0: expected an integer >= 1"),
    (["--count", "1", "--order", "12"], "--order 12: expected an integer from 2 to 11"),
    ([], "the following arguments are required: --count"),
])
def test_generate_usage_errors(args, message, cli):
    status, out, err = cli("generate", *args)
    assert status == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1, err


# A file of another kind is recognised without --kind, not misread as a Sudoku ("wrong length 65 (a line puzzle has
# 16, 81, 256, 625 cells)", "17 rows of 16 numbers ... a 16x16 Sudoku needs 16 rows").

@pytest.mark.parametrize("path,kind,fmt", [(HASHI, "hashi", "tatham"), (SHIKAKU, "shikaku", "tatham"),
                                           (ROOT / "examples" / "hashi_coelho_100.has", "hashi", "has")],
                         ids=["hashi-tatham", "shikaku-tatham", "hashi-has"])
@pytest.mark.parametrize("command", ["solve", "exact"])
def test_a_file_that_names_its_kind_needs_no_kind_option(path, kind, fmt, command, cli):
    options = ["--method", "ilp"] if command == "solve" else []
    status, out, err = cli(command, path, *options, "--json")
    assert status == 0 and err.startswith(f"gpu-sa: {path} holds {kind} puzzles ({fmt} format): reading it as "
                                          f"--kind {kind}\n")
    given = cli(command, path, *options, "--json", "--kind", kind)
    assert [{k: v for k, v in json.loads(line).items() if k != "seconds"} for line in out.splitlines()] == \
        [{k: v for k, v in json.loads(line).items() if k != "seconds"} for line in given[1].splitlines()]


@pytest.mark.parametrize("text,message", [
    ("2 . 2\n. . .\n2 . 2\n", "a grid of 3 rows: a Sudoku grid of order 2..5 has 4, 9, 16 or 25 rows; use the numbers "
                              "format for larger grids (is it another kind? the file reads as hashi with --kind hashi)"),
    ("..237.9....75684.2.8..9....1...4.8..2.4...7.6..6.2...1....5..1.5.1..8....1..\n",
     "wrong length 76 (a line puzzle has 16, 81, 256, 625 cells)"),  # a Sudoku with a typo: no other kind's hint
    ("11" + "." * 79 + "\n", "givens clash: 1 twice in row 1 (r1c1 and r1c2)"),  # also a 1x81 plain Hashiwokakero
], ids=["plain-hashi", "broken-sudoku", "clashing-sudoku"])
def test_a_file_that_does_not_name_its_kind_gets_the_sudoku_error_and_a_hint_if_another_kind_reads_it(text, message,
                                                                                                   cli):
    status, out, err = cli("solve", "-", stdin=text)
    assert status == 2 and out == "" and err == f"gpu-sa: error: <stdin>:1: {message}\n"


def test_a_file_that_names_its_kind_is_read_as_that_kind_with_a_bad_puzzle_in_it(cli, tmp_path):
    good = SHIKAKU.read_text().splitlines()[1]
    path = tmp_path / "two.txt"
    path.write_text(f"{good}\n{good[:-1]}\n")  # the second ID two cells short
    status, out, err = cli("exact", path, "--json")
    assert status == 2 and [json.loads(line)["puzzle"] for line in out.splitlines()] == [f"{path}:1"]
    assert err.splitlines() == [
        f"gpu-sa: {path} holds shikaku puzzles (tatham format): reading it as --kind shikaku",
        f"gpu-sa: error: {path}:2: not enough data: the description covers 47 of the 49 cells",
        f"gpu-sa: error: {path}: 1 of its 2 puzzles is bad input (each said above) and was not tried"]


def test_a_file_that_two_kinds_read_alike_needs_the_kind_option(cli):
    status, out, err = cli("solve", "-", "--format", "plain", stdin="1 1\n")  # two clues of 1, two islands of 1
    assert status == 2 and out == ""
    assert err == "gpu-sa: error: <stdin>: the file reads as shikaku or hashi: --kind shikaku or --kind hashi says which\n"


def test_the_detected_kind_is_said_unless_quiet(cli):
    status, _, err = cli("exact", HASHI)
    assert status == 0 and "holds hashi puzzles (tatham format): reading it as --kind hashi" in err
    status, _, err = cli("exact", HASHI, "--quiet")
    assert status == 0 and err == ""
