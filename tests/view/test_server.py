"""gpu-sa view without a browser: the JSON API, the HTTP server's rules, and the command's life cycle."""
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import gpu_sa
from conftest import ROOT
from gpu_sa.puzzles.sudoku.validate import sudoku_violations
from gpu_sa.puzzles.sudoku import exact
from gpu_sa.view import api
from view_helpers import CLASH, EASY, NEVER_SOLVED, STALLS, cli_error_line, request, running_server

FOUR = "1...\n..3.\n.4..\n...2"
NO_SOLUTION = "12..\n....\n..3.\n..4."  # r1c3: row 1 holds 1 and 2, column 3 holds 3 and 4


def valid_solution(puzzle_text, values):
    puzzle = gpu_sa.parse(puzzle_text)[0]
    side = puzzle.side
    givens = (np.asarray(puzzle.givens) + 1).reshape(side, side).tolist()
    return sudoku_violations(np.asarray(values).reshape(side, side).tolist(), givens) == []


def needs_steps():
    from gpu_sa.puzzles.sudoku.exact import steps

    return steps


def digits(hex_mask):
    mask = int(hex_mask, 16)
    return [d + 1 for d in range(64) if mask >> d & 1]


def test_the_stop_tests_grid_has_no_solution_the_rules_can_see():
    """The browser's stop test needs a run that only a stop ends: no solution (the complete search proves it),
    and no contradiction the rules find (else the server would refuse to anneal it)."""
    puzzle = gpu_sa.parse(NEVER_SOLVED)[0]
    assert not puzzle.contradicts()
    count = exact.count_solutions(puzzle.givens, puzzle.order, limit=1)
    assert count.solutions == 0 and not count.gave_up


def test_load_gives_the_givens_and_round_0():
    answer = api.load(FOUR + "\n\n" + FOUR)
    assert answer["puzzle"]["givens"][:5] == [1, 0, 0, 0, 0]
    assert answer["puzzle"]["note"] == "the text holds 2 puzzles; this page shows the first"
    assert answer["round"]["round"] == 0 and answer["round"]["status"] == "start"
    assert answer["round"]["masks"][:3] == ["1", "f", "f"]  # 1 = digit 1 alone; f = digits 1-4


@pytest.mark.parametrize("text, last", [(EASY, "solved"), (STALLS, "fixpoint"), (NO_SOLUTION, "contradiction")])
def test_rounds_are_the_step_apis_rounds_with_masks_in_hex(text, last):
    rule_rounds = needs_steps().rule_rounds
    puzzle = gpu_sa.parse(text)[0]
    expected = [step.to_dict() for step in rule_rounds(puzzle.givens, puzzle.order)]
    got = api.rounds(text)["rounds"]
    loaded = api.load(text)["round"]
    assert loaded == {key: got[0][key] for key in loaded}  # the page's round 0 before it asks for the rounds
    assert len(got) == len(expected) >= 2 and got[-1]["status"] == last
    for ours, theirs in zip(got, expected):
        assert [digits(mask) for mask in ours.pop("masks")] == theirs.pop("candidates")
        assert ours == theirs
    if last == "contradiction":
        assert got[-1]["contradiction"]["text"].startswith("r1c3 has no candidate left")


def test_bad_input_gives_the_clis_line(monkeypatch, capsys):
    with pytest.raises(api.ApiError) as caught:
        api.load(CLASH)
    assert str(caught.value) == cli_error_line(CLASH, monkeypatch, capsys)
    assert str(caught.value) == "gpu-sa: error: <page>:1: givens clash: 1 twice in row 1 (r1c1 and r1c2)"
    with pytest.raises(api.ApiError, match="no puzzle found"):
        api.load("")
    with pytest.raises(api.ApiError, match="no puzzle text"):
        api.load(None)


def test_solve_shows_the_validated_solution_and_counts_to_two():
    answer = api.solve(EASY)
    assert answer["verdict"] == "unique solution" and valid_solution(EASY, answer["solution"])
    two = api.solve("." * 81)
    assert two["solutions"] == 2 and two["verdict"].startswith("at least 2") and valid_solution("." * 81,
                                                                                                  two["solution"])
    none = api.solve(NO_SOLUTION)
    assert none["solutions"] == 0 and none["solution"] is None and none["verdict"] == "no solution"


def test_the_page_search_is_the_seeded_one_of_gpu_sa_exact():
    """The page's Solution ran seed 002's deterministic search, which gave up after 30 s on this 36x36 (2.3
    million branches); ``gpu-sa exact --seed 1`` counts it to 2 in under a second (clause learning)."""
    text = (ROOT / "bench" / "data" / "sudoku36_45" / "inst36x36_45_1.txt").read_text()
    answer = api.solve(text)
    puzzle = gpu_sa.parse(text)[0]
    cli = puzzle.count_solutions(limit=2, seed=api.SOLVE_SEED, max_nodes=api.SOLVE_MAX_NODES)
    assert not answer["gave_up"] and answer["seed"] == "1" and answer["solutions"] == cli.solutions == 2
    assert answer["nodes"] == cli.nodes and answer["solution"] == (np.asarray(cli.solution) + 1).tolist()
    assert valid_solution(text, answer["solution"])
    other = api.solve(text, seed=api.solve_seed({"seed": "7"}))
    assert other["seed"] == "7" and other["solutions"] == 2 and valid_solution(text, other["solution"])
    assert api.solve_seed({}) == api.solve_seed({"seed": ""}) == 1
    with pytest.raises(api.ApiError, match="seed must be an integer, got 'x'"):
        api.solve_seed({"seed": "x"})


@pytest.mark.parametrize("body, message", [
    ({"move": "teleport"}, "unknown move 'teleport'; choose from sirdey, swap"),
    ({"chains": "0"}, "chains must be between 1 and 65,536, got 0"),
    ({"chains": "many"}, "chains must be an integer, got 'many'"),
    ({"seed": "-1"}, "seed must be between 0 and"),
    ({"time_limit": "0"}, "time_limit must be positive and at most 3600"),
])
def test_anneal_options_are_checked(body, message):
    backend, _ = gpu_sa.engine.backends.select("numpy")
    with pytest.raises(api.ApiError, match=message):
        api.anneal_options(body, backend)


@pytest.mark.parametrize("field, what", [("time_limit", "a number"), ("chains", "an integer"),
                                         ("seed", "an integer")])
@pytest.mark.parametrize("flag", [True, False])
def test_a_boolean_is_refused_for_every_numeric_field(field, what, flag):
    """`"time_limit": true` ran for 1 s (Python takes true for 1) where `"seed": true` was refused: every numeric
    field of the page's API refuses a JSON boolean alike, over HTTP as the page sends it."""
    with running_server("numpy") as server:
        status, answer = request(server, "POST", "/api/anneal", {"text": EASY, "chains": "4", field: flag})
        assert status == 400, answer
        assert answer["error"] == f"gpu-sa: error: {field} must be {what}, got {str(flag).lower()}"
        if field == "seed":
            status, answer = request(server, "POST", "/api/solve", {"text": EASY, "seed": flag})
            assert status == 400 and answer["error"] == f"gpu-sa: error: seed must be an integer, got {str(flag).lower()}"


def test_http_rules():
    with running_server("numpy") as server:
        status, info = request(server, "GET", "/api/info")
        assert status == 200 and info["backend"] == "numpy" and info["moves"] == ["sirdey", "swap", "tabu"]
        assert request(server, "GET", "/api/info", host="evil.example:80")[0] == 403
        assert request(server, "GET", "/static/../../etc/passwd")[0] == 404
        assert request(server, "POST", "/api/nothing", {})[0] == 404
        assert request(server, "POST", "/api/load", raw=b"not json")[1]["error"] == "gpu-sa: error: the request is not JSON"
        status, answer = request(server, "POST", "/api/load", {"text": CLASH})
        assert status == 400 and answer["error"].startswith("gpu-sa: error: <page>:1: givens clash")
        status, answer = request(server, "POST", "/api/solve", {"text": EASY, "seed": "5"})
        assert status == 200 and answer["seed"] == "5" and answer["verdict"] == "unique solution"
        status, answer = request(server, "POST", "/api/solve", {"text": EASY, "seed": "-1"})
        assert status == 400 and answer["error"].startswith("gpu-sa: error: seed must be between 0 and")
        status, page = request(server, "GET", "/")
        assert status == 200 and "<title>gpu-sa view</title>" in page
        status, script = request(server, "GET", "/static/app.js")
        assert status == 200 and "function renderCandidates" in script


def test_anneal_streams_progress_then_a_validated_result():
    with running_server("numpy") as server:
        status, events = request(server, "POST", "/api/anneal", {"text": FOUR, "chains": 4, "seed": "7"})
    assert status == 200
    assert [e["event"] for e in events][0] == "start" and events[0]["seed"] == "7"
    assert events[-1]["event"] == "result" and events[-1]["solved"] and valid_solution(FOUR, events[-1]["solution"])
    assert all(e["event"] == "progress" for e in events[1:-1])


def test_anneal_of_contradicting_givens_is_refused_at_once():
    with running_server("numpy") as server:
        status, answer = request(server, "POST", "/api/anneal", {"text": NO_SOLUTION})
    assert status == 422 and "no solution" in answer["error"]


def test_stop_ends_that_run_only_and_one_run_at_a_time():
    hard16 = (ROOT / "tests" / "data" / "sudoku16_45pct.txt").read_text()
    with running_server("numpy") as server:
        events = []
        stream = threading.Thread(target=lambda: events.extend(request(
            server, "POST", "/api/anneal", {"text": hard16, "chains": 4, "move": "sirdey", "seed": "1"})[1]))
        stream.start()
        deadline = time.monotonic() + 60
        while not server.runs and time.monotonic() < deadline:
            time.sleep(0.05)
        (run_id,) = server.runs
        status, busy = request(server, "POST", "/api/anneal", {"text": EASY})
        assert status == 409 and "another anneal is running" in busy["error"]
        assert request(server, "POST", "/api/stop", {"run": "not-a-run"})[1] == {"stopping": False}
        assert request(server, "POST", "/api/stop", {"run": run_id})[1] == {"stopping": True}
        stream.join(60)
        assert not stream.is_alive() and not server.runs
    assert events[-1]["event"] == "stopped" and events[-1]["why"] == "a Stop request"


def test_a_run_stopped_before_its_chains_ran_ends_with_a_stopped_event(monkeypatch):
    """runner.anneal raises stop.Interrupted when the stop came during its set-up: a 'stopped' event, not an
    internal error."""
    from gpu_sa.engine import runner, stop

    def stopped_in_set_up(*args, **kwargs):
        raise stop.Interrupted("setting up the chains")

    monkeypatch.setattr(runner, "anneal", stopped_in_set_up)
    with running_server("numpy") as server:
        status, events = request(server, "POST", "/api/anneal", {"text": EASY})
    assert status == 200 and events[-1]["event"] == "stopped" and "error" not in {e["event"] for e in events}


def view_process(*options):
    script = ("import argparse, sys\nfrom gpu_sa.cli.commands import view\nparser = argparse.ArgumentParser()\n"
              "view.add_arguments(parser)\nsys.exit(view.run(parser.parse_args(sys.argv[1:])))")
    return subprocess.Popen([sys.executable, "-c", script, "--no-browser", "--backend", "numpy", *options], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_the_command_serves_until_a_signal_then_one_line(signum, status):
    process = view_process("--port", "0")
    line = process.stdout.readline()
    assert line.startswith("gpu-sa view: serving on http://127.0.0.1:"), line
    port = int(line.split("127.0.0.1:")[1].split("/")[0])
    with socket.create_connection(("127.0.0.1", port), timeout=10):
        pass
    process.send_signal(signum)
    out, err = process.communicate(timeout=30)
    assert process.returncode == status
    assert err == f"gpu-sa view: stopped ({signal.Signals(signum).name})\n"


def test_a_port_in_use_is_one_line_and_exit_2():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = view_process("--port", str(port))
        out, err = process.communicate(timeout=60)
    assert process.returncode == 2 and out == ""
    assert err.startswith(f"gpu-sa: error: cannot serve on 127.0.0.1:{port}: ") and err.count("\n") == 1, err
