"""The tests every move's file runs, on that move's cases. The spine: every backend gives the same states, costs
and accept counts on the same seeds, and the landed trajectories are still reached; for the kinds whose grids
``chain_cases.GRIDS`` holds, the annealer solves them and the independent validator agrees.

A move's test file (``tests/puzzles/<kind>/test_<move>.py``) sets ``MOVE`` and imports the tests and the hook
below; ``pytest_generate_tests`` then runs them on that move's cases of ``chain_cases.CASES`` only.
``numpy`` (the reference) runs in the test process; ``cpu`` too; ``cuda`` runs in its own process (numba's
CUDA simulator in CI, the real kernel where GPU_SA_TEST_REAL_CUDA=1), every case at once (``cuda_results``).

Golden data (tests/data/golden): the states the kernels reached before the engine was rewritten around one
contract, and whole runs through the public API without propagation (``--no-propagate``): the chain, moves
and grid each reported.
"""
import json

import numpy as np
import pytest

import gpu_sa
from chain_cases import CASES, GRIDS, STATE_FIELDS, backend_named, case_puzzle, run_case
from conftest import DATA
from gpu_sa.engine import runner, schedule
from gpu_sa.puzzles import PUZZLES

GOLDEN = DATA / "golden"
OLD_FIELDS = ("config", "counts", "cost", "accepted", "best_cost", "best_config", "best_move")
LANDED = [case for case in CASES if (GOLDEN / (case["id"] + ".npz")).exists()]  # the cases the landed code had
RUNS = json.loads((GOLDEN / "runs.json").read_text())


def pytest_generate_tests(metafunc):
    """The tests below, on the cases of the module's ``MOVE``."""
    move = getattr(metafunc.module, "MOVE", None)
    if move is None or metafunc.function.__module__ != __name__:
        return
    for name, items, ids in (("case", CASES, lambda c: c["id"]), ("landed_case", LANDED, lambda c: c["id"]),
                             ("run", RUNS, lambda r: f"{r['move']}-{r['seed']}")):
        if name in metafunc.fixturenames:
            chosen = [item for item in items if item["move"] == move]
            assert chosen, f"no {name} of move {move}"
            metafunc.parametrize(name, chosen, ids=[ids(item) for item in chosen])
    if "grid" in metafunc.fixturenames:
        kind = next(kind for kind, module in PUZZLES.items() if move in module.MOVES)
        grids = [name for name in sorted(GRIDS) if GRIDS[name][0] == kind]
        assert grids, f"no grid of kind {kind}"
        if "backend" in metafunc.fixturenames:
            metafunc.parametrize("backend, grid", [(backend, grid) for grid in grids for backend in ("numpy", "cpu")
                                                   if backend == "cpu" or grid != "hashi100"])  # numpy: 35 s there
        else:
            metafunc.parametrize("grid", grids)


@pytest.fixture(scope="module")
def reference_results(request):
    move = request.module.MOVE
    return {case["id"]: run_case(backend_named("numpy"), case) for case in CASES if case["move"] == move}


def test_cpu_equals_numpy(case, reference_results):
    got = run_case(backend_named("cpu"), case)
    for name in STATE_FIELDS:
        np.testing.assert_array_equal(got[name], reference_results[case["id"]][name], err_msg=name)


def test_cuda_equals_numpy(case, reference_results, cuda_results):
    with np.load(cuda_results / (case["id"] + ".npz")) as got:
        for name in STATE_FIELDS:
            np.testing.assert_array_equal(got[name], reference_results[case["id"]][name], err_msg=name)


def test_cases_are_not_trivial(case, reference_results):
    """A comparison of states that never moved would prove nothing."""
    result = reference_results[case["id"]]
    moves = case["chunks"][-1][1]
    running = np.repeat(np.array(case.get("active", [1])) != 0, case["chains"])
    assert np.all(result["accepted"][running] > 0) and np.all(result["accepted"][running] < moves)
    assert np.any(result["best_move"] > 0)
    assert np.all(result["accepted"][~running] == 0), "a puzzle marked inactive moved"
    if case.get("replicas", 1) > 1:
        assert np.any(result["exchanges"] > 0), "no replica exchange was accepted"
        levels = result["level"][running].reshape(-1, case["replicas"])  # a puzzle sitting still was never started
        assert np.all(np.sort(levels, axis=1) == np.arange(case["replicas"])), "rungs are not a permutation per group"
    if case.get("pool"):  # the pool is the only difference from the chains alone
        alone = run_case(backend_named("cpu"), {key: value for key, value in case.items() if key != "pool"})
        assert any(not np.array_equal(alone[name], result[name]) for name in STATE_FIELDS), "no chain took a copy"


def test_cpu_reproduces_the_landed_trajectories(landed_case):
    got = run_case(backend_named("cpu"), landed_case)
    with np.load(GOLDEN / (landed_case["id"] + ".npz")) as old:
        for name in OLD_FIELDS:
            np.testing.assert_array_equal(got[name], old[name], err_msg=name)


def test_whole_runs_report_what_they_did(run):
    puzzle = gpu_sa.parse(run["puzzle"])[0]
    # the landed default schedule for every order (16x16 and up have their own default now)
    landed = schedule.geometric(t0=0.5, t_end=0.05, plateaus=4000, plateau_length=puzzle.side ** 2)
    result = gpu_sa.anneal(puzzle, move=run["move"], backend="cpu", chains=run["chains"], seed=run["seed"],
                           chunk_moves=5000, propagate=False, schedule=landed)
    assert (result.solved, result.cost, result.chain, result.chain_moves, result.moves, result.trials) == (
        run["solved"], run["cost"], run["chain"], run["chain_moves"], run["moves"], run["trials"])
    assert puzzle.write(result.best, "line") == run["best"]


def test_annealer_solves_and_the_validator_agrees(grid, backend):
    puzzle = case_puzzle({"puzzle": grid})
    result = runner.anneal(puzzle, backend=backend, chains=32 if backend == "numpy" else 128, seed=2, time_limit=60)
    assert result.solved and result.cost == 0
    assert puzzle.check(result.solution) == []
    if grid == "hashi6":  # its only connected answer, not the two-piece one with the same degrees
        assert puzzle.solution(result.solution) == puzzle.answer(puzzle.count_solutions(limit=1).solution)


def test_ilp_solution_is_a_state_the_annealer_could_hold(grid):
    puzzle = case_puzzle({"puzzle": grid})
    answer = puzzle.count_solutions(limit=1)
    assert answer.solutions == 1 and puzzle.check(answer.solution) == []
    assert puzzle.answer(answer.solution) == puzzle.solution(answer.solution)
