"""Shikaku: the seed's integer program (HiGHS) and the cut-and-merge generator, every answer
checked by the independent validator."""
import itertools

import numpy as np
import pytest

from gpu_sa.puzzles.shikaku import exact
from gpu_sa.puzzles.common.errors import PuzzleError
from gpu_sa.puzzles.shikaku.generate import GenerationFailed, generate
from gpu_sa.puzzles.shikaku.geometry import geometry
from gpu_sa.puzzles.shikaku.validate import shikaku_violations


def brute_force_count(clues):
    """Solutions by trying every choice of one candidate per clue (tiny grids only)."""
    shape = geometry(np.asarray(clues))
    count = 0
    for choice in itertools.product(*(shape.candidates_of(k).tolist() for k in range(shape.clues))):
        count += shikaku_violations(clues, list(choice)) == []
    return count


@pytest.mark.parametrize("size, seeds", [((4, 4), range(6)), ((7, 5), range(4)), ((10, 10), range(4)),
                                         ((15, 15), range(2)), ((25, 25), range(1))])
def test_ilp_solution_of_generated_instances_validates(size, seeds):
    for seed in seeds:
        clues, planted = generate(*size, seed=seed)
        answer = exact.solve(clues)
        assert answer.solutions == 1 and not answer.gave_up, (size, seed)
        assert shikaku_violations(clues.tolist(), answer.solution) == [], (size, seed)
        shape = geometry(clues)
        assert answer.variables == len(shape.rectangles)
        assert answer.constraints == shape.clues + clues.size  # the seed's K + MN rows


def test_two_solutions_are_counted_and_a_unique_puzzle_has_one():
    # Clues 2 on a diagonal of a 2x2: two horizontal or two vertical dominoes.
    two = exact.solve([[2, 0], [0, 2]], limit=2)
    assert two.solutions == 2 and not two.gave_up and two.rounds == 2
    assert shikaku_violations([[2, 0], [0, 2]], two.solution) == []
    assert exact.solve([[2, 0], [0, 2]], limit=5).solutions == 2  # and no third
    one = exact.solve([[2, 2], [0, 0]], limit=2)
    assert one.solutions == 1 and one.solution == [[0, 0, 1, 0], [0, 1, 1, 1]]


@pytest.mark.parametrize("seed", range(8))
def test_counts_match_brute_force_on_small_grids(seed):
    rng = np.random.default_rng(seed)
    clues, _ = generate(4, 4, seed=seed, merge_iterations=int(rng.integers(0, 4)))
    assert exact.solve(clues, limit=50).solutions == brute_force_count(clues.tolist())


def test_infeasible_puzzle_has_no_solution():
    # Well formed (sum 9, every clue has a candidate), but nothing can cover r3c1.
    clues = [[2, 0, 2], [0, 3, 0], [0, 0, 2]]
    assert brute_force_count(clues) == 0
    answer = exact.solve(clues, limit=2)
    assert answer.solutions == 0 and answer.solution is None and not answer.gave_up


def test_clues_that_are_no_puzzle_raise_puzzle_error():
    with pytest.raises(PuzzleError, match="sum to 5"):
        exact.solve([[2, 0], [0, 3]])
    with pytest.raises(PuzzleError, match="no rectangle of area 8"):
        exact.solve([[2, 0, 0, 2], [0, 0, 0, 0], [4, 0, 0, 0], [0, 0, 0, 8]])


def test_limit_must_be_positive():
    with pytest.raises(ValueError, match="limit"):
        exact.solve([[2, 0], [0, 2]], limit=0)


def test_generator_is_deterministic_per_seed_and_plants_a_valid_solution():
    first, rectangles = generate(12, 9, seed=7)
    again, same = generate(12, 9, seed=7)
    other, _ = generate(12, 9, seed=8)
    assert np.array_equal(first, again) and rectangles == same and not np.array_equal(first, other)
    assert first.shape == (12, 9) and first.sum() == 12 * 9
    assert shikaku_violations(first.tolist(), rectangles) == []


def test_generator_defaults_look_like_published_puzzles():
    areas = np.concatenate([c[c > 0] for c, _ in (generate(10, 10, seed=s) for s in range(20))])
    assert areas.min() >= 2  # min_area=2: no clue of 1
    assert np.mean((areas >= 2) & (areas <= 12)) > 0.9
    assert 10 <= len(areas) / 20 <= 30


def test_generator_options():
    # depth=0 and no merge: the whole grid is one rectangle; depth 1: exactly two
    clues, rectangles = generate(5, 6, seed=1, depth=0, merge_iterations=0)
    assert rectangles == [[0, 0, 4, 5]] and clues.max() == 30
    assert len(generate(5, 6, seed=1, depth=1, merge_iterations=0)[1]) == 2
    # max_area caps every rectangle (cutting goes on past depth, merges stop at the cap)
    for seed in range(5):
        clues, rectangles = generate(9, 9, seed=seed, depth=2, merge_iterations=5, merge_probability=1.0,
                                     max_area=6)
        assert clues.max() <= 6 and shikaku_violations(clues.tolist(), rectangles) == []
    # merges make rectangles that cutting to depth d alone cannot: fewer, larger pieces
    unmerged = generate(10, 10, seed=3, merge_iterations=0)[1]
    merged = generate(10, 10, seed=3, merge_iterations=3, merge_probability=1.0)[1]
    assert len(merged) < len(unmerged)


@pytest.mark.parametrize("size", [(5, 5), (8, 8), (10, 10)])
def test_unique_generation_gives_exactly_one_solution(size):
    clues, rectangles = generate(*size, seed=11, unique=True)
    answer = exact.solve(clues, limit=2)
    assert answer.solutions == 1 and not answer.gave_up
    assert sorted(answer.solution) == sorted(rectangles)


def test_unique_generation_gives_up_with_a_clear_error():
    # A time limit of zero stops every uniqueness check before it starts: no attempt can succeed.
    with pytest.raises(GenerationFailed, match="unique solution in 3 attempts"):
        generate(6, 6, seed=0, unique=True, max_attempts=3, time_limit=0)
