"""``gpu-sa solve --pool-interval``: the chains' elite pool from the command line, its JSON key, and bad values."""
import json

import pytest

from conftest import ROOT

GRID_16 = ROOT / "examples" / "sudoku_16x16.txt"


def _answers(out):
    return [json.loads(line) for line in out.splitlines()]


def test_the_interval_reaches_the_run_and_its_json(cli):
    status, out, err = cli("solve", GRID_16, "--move", "tabu", "--pool-interval", "50", "--chains", "4",
                           "--backend", "cpu", "--seed", "3", "--json", "--quiet")
    assert status == 0, err
    answers = _answers(out)
    assert answers and all(answer["pool_interval"] == 50 for answer in answers)
    assert all(answer["solved"] for answer in answers)


def test_tabu_pools_by_default_and_zero_means_chains_alone(cli):
    from gpu_sa.puzzles.sudoku.moves import tabu

    status, out, _ = cli("solve", GRID_16, "--move", "tabu", "--chains", "2", "--backend", "cpu", "--seed", "3",
                         "--json", "--quiet")
    assert status == 0 and all(answer["pool_interval"] == tabu.POOL_INTERVAL for answer in _answers(out))
    status, out, _ = cli("solve", GRID_16, "--move", "tabu", "--pool-interval", "0", "--chains", "2", "--backend",
                         "cpu", "--seed", "3", "--json", "--quiet")
    assert status == 0 and all("pool_interval" not in answer for answer in _answers(out))
    status, out, _ = cli("solve", GRID_16, "--move", "swap", "--chains", "8", "--backend", "cpu", "--seed", "3",
                         "--json", "--quiet")
    assert status == 0 and all("pool_interval" not in answer for answer in _answers(out))  # the annealers: none


@pytest.mark.parametrize("value", ["-1", "two", "1.5"])
def test_a_bad_interval_is_one_line_and_exit_2(cli, value):
    status, out, err = cli("solve", GRID_16, "--pool-interval", value)
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "--pool-interval" in err
