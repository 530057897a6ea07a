"""The engine rewrite changed no stream: every bit-exact case ends in the states the landed
kernels reached (tests/data/golden, written by commit 0f6ea5e's code), and whole runs through
the public API without propagation (``--no-propagate``) report the same chain, moves and grid."""
import json

import numpy as np
import pytest

import gpu_sa
from gpu_sa import schedule
from chain_cases import CASES, backend_named, run_case
from conftest import DATA

GOLDEN = DATA / "golden"
OLD_FIELDS = ("config", "counts", "cost", "accepted", "best_cost", "best_config", "best_move")


LANDED = [case for case in CASES if (GOLDEN / (case["id"] + ".npz")).exists()]  # the cases the landed code had


def test_every_landed_case_is_still_compared():
    assert len(LANDED) == 15


@pytest.mark.parametrize("case", LANDED, ids=[case["id"] for case in LANDED])
def test_cpu_reproduces_the_landed_trajectories(case):
    got = run_case(backend_named("cpu"), case)
    with np.load(GOLDEN / (case["id"] + ".npz")) as old:
        for name in OLD_FIELDS:
            np.testing.assert_array_equal(got[name], old[name], err_msg=name)


@pytest.mark.parametrize("run", json.loads((GOLDEN / "runs.json").read_text()), ids=lambda r: f"{r['move']}-{r['seed']}")
def test_whole_runs_report_what_they_did(run):
    puzzle = gpu_sa.parse(run["puzzle"])[0]
    # the landed default schedule for every order (16x16 and up have their own default now)
    landed = schedule.geometric(t0=0.5, t_end=0.05, plateaus=4000, plateau_length=puzzle.side ** 2)
    result = gpu_sa.anneal(puzzle, move=run["move"], backend="cpu", chains=run["chains"], seed=run["seed"],
                           chunk_moves=5000, propagate=False, schedule=landed)
    assert (result.solved, result.cost, result.chain, result.chain_moves, result.moves, result.trials) == (
        run["solved"], run["cost"], run["chain"], run["chain_moves"], run["moves"], run["trials"])
    assert puzzle.write(result.best, "line") == run["best"]
