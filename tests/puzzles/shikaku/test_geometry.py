"""Shikaku candidates: every rectangle that fits, and pruning that never loses a solution."""
import numpy as np
import pytest

from gpu_sa.puzzles.common import milp
from gpu_sa.puzzles.shikaku import exact
from gpu_sa.puzzles.shikaku.generate import generate
from gpu_sa.puzzles.shikaku.geometry import geometry


def _brute_force_candidates(clues):
    """Every (top, left, bottom, right) of the clue's area holding it and no other clue, by trying all."""
    rows, cols = clues.shape
    found = []
    for r, c in np.argwhere(clues > 0):
        mine = set()
        for top in range(rows):
            for bottom in range(top, rows):
                for left in range(cols):
                    for right in range(left, cols):
                        inside = clues[top:bottom + 1, left:right + 1]
                        if (bottom - top + 1) * (right - left + 1) == clues[r, c] and (inside > 0).sum() == 1 \
                                and top <= r <= bottom and left <= c <= right:
                            mine.add((top, left, bottom, right))
        found.append(mine)
    return found


@pytest.mark.parametrize("seed", range(6))
def test_unpruned_candidates_are_exactly_the_rectangles_that_fit(seed):
    clues, _ = generate(5 + seed, 7, seed=seed)
    geo = geometry(clues, pruned=False)
    for k, expected in enumerate(_brute_force_candidates(clues)):
        assert {tuple(map(int, r)) for r in geo.candidates_of(k)} == expected


def _count(clues, pruned):
    """Solutions (up to 50) of the seed's ILP over pruned or whole candidate lists."""
    model = exact.model_of(geometry(clues, pruned=pruned))
    return milp.enumerate_solutions(model, limit=50, time_limit=None).solutions


@pytest.mark.parametrize("seed", range(12))
def test_pruning_keeps_every_solution(seed):
    clues, planted = generate(6, 6 + seed % 3, seed=100 + seed, merge_iterations=seed % 4)
    geo = geometry(clues)
    for k, rectangle in enumerate(planted):  # the planted solution survives
        assert (geo.candidates_of(k) == np.asarray(rectangle)).all(axis=1).any()
    assert _count(clues, pruned=True) == _count(clues, pruned=False) >= 1


def test_pruning_shrinks_the_search():
    clues, _ = generate(25, 25, seed=[1, 25, 0])
    whole, pruned = geometry(clues, pruned=False), geometry(clues)
    assert pruned.rectangles.shape[0] < whole.rectangles.shape[0] / 2


def test_unsolvable_clues_keep_their_candidates():
    # every clue has rectangles that fit, the clues sum to the area, yet no tiling exists: the 6 can
    # only go down its column (2x3 is blocked by the 2 and the 4), leaving the 2 no room
    clues = np.array([[2, 6, 0, 4], [0, 0, 0, 0], [0, 0, 0, 0]])
    assert _count(clues, pruned=False) == 0
    assert geometry(clues).rectangles.shape == geometry(clues, pruned=False).rectangles.shape
