"""``gpu-sa solve --plan`` and ``--threads-per-chain``: the launch plan is a model (no GPU, no chain run), and the
layout option reaches every backend selected by name without changing an answer."""
import json
import os
import types

import pytest

from conftest import ROOT, run_cli

GRID_49 = ROOT / "bench" / "data" / "sudoku49_40" / "inst49x49_40_0.txt"  # one 49x49 at 40 % givens
HARD_9 = ROOT / "examples" / "sudoku_9x9_hard.txt"  # three puzzles
GRID_16 = ROOT / "examples" / "sudoku_16x16.txt"
GRID_25 = ROOT / "examples" / "sudoku_25x25.txt"
HEAD_KEYS = ("puzzle", "index", "kind", "size", "method", "backend")
SIZES = "expected auto or one of 1, 32, 64, 128, 256"

# the annealer's answer, without what the clock decides (seconds, and the moves made, which end at a chunk boundary)
ANSWER_KEYS = ("solved", "solution", "cost", "chain", "chain_moves", "backend", "seed", "chains", "trials")


@pytest.fixture
def nothing_runs(monkeypatch):
    """Selecting a backend or annealing fails the command (exit 70): --plan must do neither."""
    from gpu_sa.engine import backends, runner

    def refuse(*args, **kwargs):
        raise AssertionError("--plan ran something")

    monkeypatch.setattr(backends, "select", refuse)
    monkeypatch.setattr(runner, "anneal_many", refuse)


def _plans(out):
    return [json.loads(line) for line in out.splitlines()]


def test_plan_json_is_one_object_per_puzzle_with_every_key_and_runs_nothing(cli, nothing_runs):
    from gpu_sa.cli.commands.solve import PLAN_KEYS

    status, out, err = cli("solve", GRID_49, "--backend", "cuda", "--plan", "--json", "--quiet")
    assert status == 0, err
    (plan,) = _plans(out)
    assert [key for key in plan if key in HEAD_KEYS or key in PLAN_KEYS] == [*HEAD_KEYS, *PLAN_KEYS]
    assert plan["puzzle"] == f"{GRID_49}:1" and plan["index"] == 0 and plan["size"] == "49x49"
    assert plan["method"] == "auto" and plan["backend"] == "cuda"
    assert plan["move"] == "tabu" and plan["kernel"]
    assert plan["chains"] is None or plan["chains"] > 0  # the model's count that fills the device, if it has one
    assert isinstance(plan["occupancy"], dict) and isinstance(plan["predicted_moves_per_second"], dict)
    status, out, err = cli("solve", HARD_9, "--plan", "--json", "--method", "anneal", "--chains", "512")
    assert status == 0, err
    plans = _plans(out)
    assert [plan["index"] for plan in plans] == [0, 1, 2]
    assert {plan["move"] for plan in plans} == {"swap"} and {plan["chains"] for plan in plans} == {512}


def test_the_plan_keys_are_the_models():
    """Every line carries the launch plan's keys of PLAN_KEYS, in the model's order; a puzzle without a launch too."""
    import gpu_sa
    from gpu_sa.cli.commands.solve import PLAN_KEYS
    from gpu_sa.engine import plan

    puzzle = gpu_sa.parse(GRID_25.read_text())[0]
    for threads in (None, 1, 64):
        keys = list(plan.launch_plan(puzzle.move("tabu"), threads_per_chain=threads))
        assert [key for key in keys if key in PLAN_KEYS] == list(PLAN_KEYS)


def test_plan_without_a_gpu_in_a_process_of_its_own():
    env = {name: value for name, value in os.environ.items() if name != "NUMBA_ENABLE_CUDASIM"}
    done = run_cli("solve", GRID_49, "--backend", "cuda", "--plan", "--json", env=env)
    assert done.returncode == 0, done.stderr
    assert _plans(done.stdout)[0]["move"] == "tabu"


def test_plan_as_text(cli, nothing_runs):
    status, out, err = cli("solve", GRID_49, "--plan", "--threads-per-chain", "64", "--chains", "1000")
    assert status == 0, err
    assert out.startswith(f"{GRID_49}:1: sudoku 49x49, method auto, backend auto\n")
    for row in ("move", "kernel", "layout", "chains", "per chain", "why"):
        assert f"\n  {row} " in out, out
    assert "64 threads per chain (requested)" in out and "1,000" in out


def test_a_method_without_chains_plans_no_launch(cli, nothing_runs):
    status, out, err = cli("solve", HARD_9, "--plan", "--json", "--method", "exact")
    assert status == 0, err
    from gpu_sa.cli.commands.solve import PLAN_KEYS

    for plan in _plans(out):
        assert list(plan) == [*HEAD_KEYS, *PLAN_KEYS]
        assert plan["kernel"] is None and plan["move"] is None and "no chains" in plan["why"]
    status, out, err = cli("solve", HARD_9, "--plan", "--method", "exact")
    assert status == 0 and out.count("no launch: method exact runs no chains") == 3, out


@pytest.mark.parametrize("given, threads, chosen", [(None, None, "model"), ("auto", None, "model"),
                                                    ("1", 1, "requested"), ("64", 64, "requested"),
                                                    ("256", 256, "requested")])
def test_the_plan_shows_the_threads_per_chain_asked(cli, nothing_runs, given, threads, chosen):
    status, out, err = cli("solve", GRID_49, "--plan", "--json", *(["--threads-per-chain", given] if given else []))
    assert status == 0, err
    (plan,) = _plans(out)
    assert plan["chosen"] == chosen
    if threads is not None:
        assert plan["threads_per_chain"] == threads and plan["layout"] == ("block" if threads > 1 else "thread")


def test_a_block_per_chain_for_a_move_without_that_layout_is_one_line(cli, nothing_runs):
    status, out, err = cli("solve", HARD_9, "--plan", "--json", "--threads-per-chain", "64")
    assert status == 2 and out == "" and len(err.splitlines()) == 1, err
    assert err.startswith("gpu-sa: error: --threads-per-chain 64: ") and "swap" in err


@pytest.mark.parametrize("method", ["anneal", "auto"])
def test_a_block_per_chain_on_cuda_for_a_move_without_that_layout_is_refused_before_the_run(cli, monkeypatch,
                                                                                           method):
    """The cuda backend (a stand-in: none is needed to refuse) with move swap, which has the one-thread layout only."""
    from gpu_sa.engine import backends

    monkeypatch.setattr(backends, "select", lambda *args, **kwargs: (types.SimpleNamespace(name="cuda"), "a stand-in"))
    status, out, err = cli("solve", HARD_9, "--method", method, "--backend", "cuda", "--threads-per-chain", "32",
                           "--seed", "1")
    assert status == 2 and out == "" and len(err.splitlines()) == 1, err
    assert err.startswith("gpu-sa: error: --threads-per-chain 32: ") and "swap" in err


@pytest.mark.parametrize("method", ["anneal", "auto"])
def test_the_option_reaches_the_backend_selection(cli, monkeypatch, method):
    from gpu_sa.engine import backends

    asked = []
    select = backends.select

    def recording(name, **keywords):
        asked.append(keywords.get("threads_per_chain"))
        return select(name, **keywords)

    monkeypatch.setattr(backends, "select", recording)
    status, out, err = cli("solve", HARD_9, "--method", method, "--backend", "cpu", "--threads-per-chain", "128",
                           "--seed", "1", "--quiet", "--chains", "16")
    assert status == 0, err
    assert asked and set(asked) == {128}


def _answers(cli, *args):
    status, out, err = cli("solve", *args, "--backend", "cpu", "--seed", "7", "--json", "--quiet")
    assert status == 0, err
    return [{key: record.get(key) for key in ANSWER_KEYS} for record in _plans(out)]


@pytest.mark.parametrize("args", [(GRID_16, "--method", "anneal"), (GRID_16,), (GRID_25, "--move", "tabu")])
def test_no_answer_depends_on_the_threads_per_chain(cli, args):
    alone = _answers(cli, *args)
    assert alone and all(answer["solved"] for answer in alone)
    assert _answers(cli, *args, "--threads-per-chain", "64") == alone
    assert _answers(cli, *args, "--threads-per-chain", "1") == alone


@pytest.mark.parametrize("value", ["0", "abc", "33", "-1", "1.5", "512", ""])
def test_bad_values_are_one_line(cli, value):
    status, out, err = cli("solve", HARD_9, "--threads-per-chain", value)
    assert status == 2 and out == "" and len(err.splitlines()) == 1, err
    assert err.startswith(f"gpu-sa: error: --threads-per-chain {value}: {SIZES}"), err


def test_the_option_is_for_the_methods_that_run_chains(cli):
    status, out, err = cli("solve", HARD_9, "--method", "exact", "--threads-per-chain", "64")
    assert status == 2 and len(err.splitlines()) == 1
    assert "--threads-per-chain applies to --method anneal or auto, not exact" in err


def test_bad_input_is_still_one_line_with_plan(cli, tmp_path):
    status, out, err = cli("solve", tmp_path / "missing.txt", "--plan")
    assert status == 2 and out == "" and err == f"gpu-sa: error: {tmp_path / 'missing.txt'}: no such file\n"
    bad = tmp_path / "bad.txt"
    bad.write_text("1234\n")
    status, out, err = cli("solve", bad, "--plan", "--json")
    assert status == 2 and out == "" and len(err.splitlines()) == 1, err


def test_the_sizes_offered_are_the_cooperative_layouts():
    from gpu_sa.options import THREADS_PER_CHAIN
    from gpu_sa.puzzles.sudoku.moves import tabu_block

    assert THREADS_PER_CHAIN == (1, *tabu_block.THREADS)


def test_the_python_api_takes_the_layout_with_a_backend_name():
    import gpu_sa
    from gpu_sa.engine import backends

    puzzle = gpu_sa.parse(HARD_9.read_text())[0]
    keywords = dict(backend="cpu", chains=16, seed=3, move="swap")
    plain = gpu_sa.anneal(puzzle, **keywords)
    blocked = gpu_sa.anneal(puzzle, threads_per_chain=64, **keywords)
    assert (blocked.solved, blocked.cost, blocked.chain, blocked.chain_moves) == \
        (plain.solved, plain.cost, plain.chain, plain.chain_moves)
    assert (blocked.solution == plain.solution).all()
    with pytest.raises(ValueError, match="one of 1, 32, 64, 128, 256, got 33"):
        gpu_sa.anneal(puzzle, threads_per_chain=33, **keywords)
    with pytest.raises(ValueError, match="a backend object keeps its own"):
        gpu_sa.anneal(puzzle, **{**keywords, "backend": backends.CpuBackend()}, threads_per_chain=64)
