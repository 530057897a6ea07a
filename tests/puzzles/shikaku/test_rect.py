"""Move rect (``gpu_sa/puzzles/shikaku/moves/rect.py``, twin ``cpu_ref/shikaku/rect.py``): the backends agree bit
for bit and reach the landed trajectories; costs and counts are exact; the annealer solves and the validator agrees.

The expected costs are recomputed here from the rules, by painting rectangles: no table or count of the annealer
is used.
"""
import numpy as np
import pytest

from move_suite import (pytest_generate_tests, reference_results, test_cases_are_not_trivial,  # noqa: F401
                        test_cpu_equals_numpy, test_cuda_equals_numpy,
                        test_cpu_reproduces_the_landed_trajectories, test_annealer_solves_and_the_validator_agrees,
                        test_ilp_solution_is_a_state_the_annealer_could_hold)
from chain_cases import anneal_grid

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
