"""Move rect (``gpu_sa/puzzles/shikaku/moves/rect.py``, twin ``cpu_ref/shikaku/rect.py``): the backends agree bit
for bit and reach the landed trajectories; costs and counts are exact; the annealer solves and the validator agrees.

The expected costs are recomputed here from the rules, by painting rectangles: no table or count of the annealer
is used.
"""
import numpy as np
import pytest

from bit_exact import (pytest_generate_tests, reference_results, test_cases_are_not_trivial,  # noqa: F401
                       test_cpu_equals_numpy, test_cuda_equals_numpy,
                       test_cpu_reproduces_the_landed_trajectories)
from chain_cases import GRIDS, anneal_grid, case_puzzle
from gpu_sa.engine import runner

MOVE = "rect"
BACKENDS = ["numpy", "cpu"]


def _coverage(shape, rectangles):
    coverage = np.zeros(shape, dtype=np.int64)
    for top, left, bottom, right in rectangles:
        coverage[top:bottom + 1, left:right + 1] += 1
    return coverage


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["shikaku5", "shikaku4x6"])
def test_shikaku_cost_and_coverage_are_exact(name, backend):
    puzzle, result = anneal_grid(name, backend)
    state = result.state
    clues = puzzle.clues
    for config, counts, cost in zip(state.config, state.counts, state.cost):
        rectangles = puzzle.solution(config)
        for (top, left, bottom, right), (r, c) in zip(rectangles, np.argwhere(clues > 0)):
            assert (bottom - top + 1) * (right - left + 1) == clues[r, c]  # area = clue
            assert top <= r <= bottom and left <= c <= right  # holds its clue
        coverage = _coverage(clues.shape, rectangles)
        np.testing.assert_array_equal(counts, coverage.ravel())
        assert cost == np.maximum(coverage - 1, 0).sum()
    for config, cost in zip(state.best_config, state.best_cost):
        assert cost == np.maximum(_coverage(clues.shape, puzzle.solution(config)) - 1, 0).sum()
    assert np.all(state.accepted > 0)


@pytest.mark.parametrize("backend, name", [(b, n) for n in sorted(GRIDS) if GRIDS[n][0] == "shikaku" for b in BACKENDS
                                           if b == "cpu" or n != "hashi100"])  # numpy: 35 s on hashi100
def test_annealer_solves_and_the_validator_agrees(name, backend):
    puzzle = case_puzzle({"puzzle": name})
    result = runner.anneal(puzzle, backend=backend, chains=32 if backend == "numpy" else 128, seed=2,
                           time_limit=60)
    assert result.solved and result.cost == 0
    assert puzzle.check(result.solution) == []
    if name == "hashi6":  # its only connected answer, not the two-piece one with the same degrees
        assert puzzle.solution(result.solution) == puzzle.answer(puzzle.count_solutions(limit=1).solution)


@pytest.mark.parametrize("name", [n for n in sorted(GRIDS) if GRIDS[n][0] == "shikaku"])
def test_ilp_solution_is_a_state_the_annealer_could_hold(name):
    puzzle = case_puzzle({"puzzle": name})
    answer = puzzle.count_solutions(limit=1)
    assert answer.solutions == 1 and puzzle.check(answer.solution) == []
    assert puzzle.answer(answer.solution) == puzzle.solution(answer.solution)
