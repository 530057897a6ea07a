"""Hashiwokakero: the ILP with lazy connectivity cuts (HiGHS) and the seed's generator, every
answer checked by the independent validator."""
import itertools
import json

import numpy as np
import pytest

from conftest import DATA
from gpu_sa.puzzles.hashi import exact
from gpu_sa.puzzles.common.errors import PuzzleError
from gpu_sa.puzzles.hashi.generate import GenerationFailed, crossing_cells, generate
from gpu_sa.puzzles.hashi.geometry import geometry
from gpu_sa.puzzles.hashi.validate import hashi_violations

COELHO = sorted((DATA / "hashi_coelho").glob("*.has"))


def read_has(path):
    """A Coelho .has file: 'rows cols islands', then the grid (0 = water)."""
    lines = path.read_text().split("\n")
    rows, cols, islands = map(int, lines[0].split())
    grid = np.array([[int(v) for v in line.split()] for line in lines[1:1 + rows]], dtype=np.int64)
    assert grid.shape == (rows, cols) and (grid > 0).sum() == islands
    return grid


def every_assignment(grid):
    """(connected solutions, degree-only solutions) by trying 0, 1 or 2 bridges on every
    candidate edge and asking the validator (tiny grids only)."""
    shape = geometry(np.asarray(grid))
    connected = degree_only = 0
    for counts in itertools.product(range(3), repeat=len(shape.edges)):
        bridges = [[*map(int, shape.cells[a]), *map(int, shape.cells[b]), count]
                   for (a, b), count in zip(shape.edges, counts) if count]
        problems = hashi_violations(grid, bridges)
        connected += not problems
        degree_only += all(p.startswith("the bridges connect") for p in problems)
    return connected, degree_only


def test_coelho_sample_is_present():
    assert len(COELHO) == 3


@pytest.mark.parametrize("path", COELHO, ids=lambda p: p.stem)
def test_ilp_solves_coelho_instances(path):
    grid = read_has(path)
    answer = exact.solve(grid)
    assert answer.solutions == 1 and not answer.gave_up
    assert hashi_violations(grid.tolist(), answer.solution) == []
    assert answer.rounds - 1 <= answer.cuts  # every round but the last added at least one cut


@pytest.mark.parametrize("islands, size, seeds", [(10, 8, range(4)), (20, 10, range(3)), (40, 12, range(2)),
                                                  (60, 14, range(2))])
def test_ilp_solution_of_generated_instances_validates(islands, size, seeds):
    for seed in seeds:
        grid, planted = generate(size, size, islands=islands, seed=seed, exact=True, edge_probability=0.5)
        assert (grid > 0).sum() == islands
        answer = exact.solve(grid)
        assert answer.solutions == 1 and not answer.gave_up, (islands, seed)
        assert hashi_violations(grid.tolist(), answer.solution) == [], (islands, seed)


def test_connectivity_cuts_are_needed_and_counted():
    # 2 . 3 . 1      the two rows can each be solved alone (a=b double, b-c; d-e, e=f double),
    # . . . . .      which meets every number but leaves two components; there are also
    # 1 . 3 . 2      connected solutions through the vertical edges.
    grid = [[2, 0, 3, 0, 1], [0, 0, 0, 0, 0], [1, 0, 3, 0, 2]]
    connected, degree_only = every_assignment(grid)
    assert connected == 3 and degree_only > connected  # the seed's model alone admits disconnected ones
    # Counting past every connected solution makes the solver meet the disconnected ones: each
    # must be cut off, whatever order HiGHS finds them in.
    answer = exact.solve(grid, limit=10)
    assert answer.solutions == connected and not answer.gave_up
    # rounds: one per connected solution, a last infeasible one, and the ones that added cuts
    assert answer.cuts >= 1 and 1 <= answer.rounds - connected - 1 <= answer.cuts
    assert hashi_violations(grid, answer.solution) == []


def test_connectivity_cut_routine_on_a_disconnected_assignment():
    grid = np.array([[2, 0, 3, 0, 1], [0, 0, 0, 0, 0], [1, 0, 3, 0, 2]])
    shape = geometry(grid)
    # edges: 0 a-b, 1 a-d, 2 b-c, 3 b-e, 4 c-f, 5 d-e, 6 e-f
    used = np.zeros(len(shape.edges), dtype=bool)
    used[[0, 2, 5, 6]] = True  # the two rows
    matrix, lower, upper = exact.connectivity_cuts(shape, used)
    # Both components have the same cut (the three vertical edges): one row, over the x variables.
    assert matrix.shape == (1, 2 * len(shape.edges)) and lower == 1
    assert sorted(matrix.indices.tolist()) == [1, 3, 4]
    assert exact.connectivity_cuts(shape, np.ones(len(shape.edges), dtype=bool)) is None


def test_counts_match_brute_force_on_small_grids():
    seen = set()
    for seed in range(16):
        grid, _ = generate(5, 5, islands=7, seed=seed, exact=True, edge_probability=0.5)
        if len(geometry(grid).edges) > 9:
            continue  # too many edges for brute force
        connected, degree_only = every_assignment(grid.tolist())
        assert exact.solve(grid, limit=20).solutions == connected, seed
        seen.add((connected > 1, degree_only > connected))
    assert seen == {(False, False), (False, True), (True, False)}  # unique, trap, several solutions


def test_bounds_on_pairs_keep_two_island_puzzles():
    # With only two islands, joining two 1s or doubling between two 2s is the solution.
    assert exact.solve([[1, 0, 1]]).solution == [[0, 0, 0, 2, 1]]
    assert exact.solve([[2], [0], [2]]).solution == [[0, 0, 2, 0, 2]]


def test_infeasible_puzzles_have_no_solution():
    degree = exact.solve([[1, 0, 2]], limit=2)  # one bridge cannot give 1 and 2
    assert degree.solutions == 0 and degree.solution is None and not degree.gave_up
    # Two groups that no candidate edge joins: each meets its numbers alone, so only the
    # connectivity cut (an empty one) can prove there is no solution.
    grid = np.zeros((5, 7), dtype=np.int64)
    grid[0, [0, 2, 4]] = [1, 2, 1]
    grid[[1, 2, 3], 6] = [1, 2, 1]
    apart = exact.solve(grid, limit=2)
    assert apart.solutions == 0 and apart.cuts >= 1 and not apart.gave_up
    assert exact.solve([[0, 3, 0]]).solutions == 0  # a lone island


def test_grid_that_is_no_puzzle_raises_puzzle_error():
    with pytest.raises(PuzzleError, match="values are 1..8"):
        exact.solve([[9, 0, 1]])


def test_maximize_edges_still_gives_a_valid_solution():
    grid = read_has(COELHO[0])
    answer = exact.solve(grid, maximize_edges=True)
    assert answer.solutions == 1 and hashi_violations(grid.tolist(), answer.solution) == []


def test_crossings_become_islands():
    occupied = np.zeros((5, 5), dtype=bool)
    occupied[0, 2] = occupied[4, 2] = occupied[2, 0] = occupied[2, 4] = True
    assert np.argwhere(crossing_cells(occupied)).tolist() == [[2, 2]]


def test_generator_is_deterministic_per_seed_and_plants_a_valid_solution():
    for kwargs in ({"islands": 12}, {"islands": 40, "exact": True}, {"islands": 30, "exact": True,
                                                                      "edge_probability": 0.3}):
        grid, bridges = generate(12, 12, seed=5, **kwargs)
        again, same = generate(12, 12, seed=5, **kwargs)
        other, _ = generate(12, 12, seed=6, **kwargs)
        assert np.array_equal(grid, again) and bridges == same and not np.array_equal(grid, other)
        assert hashi_violations(grid.tolist(), bridges) == []
        assert geometry(grid).crossings.shape[0] == 0


def test_seed_mode_adds_crossing_islands_and_uses_every_edge():
    grid, bridges = generate(10, 10, islands=12, seed=2)
    assert (grid > 0).sum() >= 12
    assert len(bridges) == len(geometry(grid).edges)  # edge_probability=1: the seed keeps every edge


def test_generator_reaches_coelho_sizes():
    grid, bridges = generate(16, 16, islands=100, seed=0, exact=True)
    assert (grid > 0).sum() == 100 and grid.max() <= 8
    assert hashi_violations(grid.tolist(), bridges) == []


@pytest.mark.parametrize("islands", [6, 12])
def test_unique_generation_gives_exactly_one_solution(islands):
    grid, bridges = generate(8, 8, islands=islands, seed=3, unique=True)
    answer = exact.solve(grid, limit=2)
    assert answer.solutions == 1 and sorted(answer.solution) == sorted(bridges)


@pytest.mark.slow
def test_unique_generation_at_the_coelho_density_repairs_the_planted_solution():
    """`generate --kind hashi --size 16x16 --islands 100 --unique`: plain draws at that density (1,000 in 25 s)
    are never unique, so the planted solution is repaired until it is the only one."""
    from gpu_sa.puzzles.hashi.generate import draw

    drawn, _ = draw(np.random.default_rng(1), 16, 16, islands=100, exact=True, double_probability=0.5,
                    edge_probability=1.0)
    assert exact.solve(drawn, limit=2).solutions == 2
    grid, bridges = generate(16, 16, islands=100, seed=1, exact=True, unique=True)
    answer = exact.solve(grid, limit=2)
    assert (grid > 0).sum() == 100 and answer.solutions == 1 and not answer.gave_up
    assert sorted(answer.solution) == sorted(bridges) and hashi_violations(grid.tolist(), bridges) == []


def test_the_closest_other_solution_is_a_local_change():
    grid, bridges = generate(16, 16, islands=100, seed=0, exact=True)
    shape = geometry(grid)
    counts = np.zeros(len(shape.edges), dtype=np.int64)
    index = {(*shape.cells[a], *shape.cells[b]): e for e, (a, b) in enumerate(shape.edges)}
    for r1, c1, r2, c2, count in bridges:
        counts[index[(r1, c1, r2, c2)]] = count
    other = exact.closest_other_solution(shape, counts)
    assert other is not None
    changed = np.flatnonzero(other != counts)
    assert 4 <= len(changed) <= 8  # a short cycle of shifted bridges
    assert hashi_violations(grid.tolist(), [[*map(int, shape.cells[a]), *map(int, shape.cells[b]), int(other[e])]
                                            for e, (a, b) in enumerate(shape.edges) if other[e]]) == []


def test_generation_gives_up_with_a_clear_error():
    with pytest.raises(GenerationFailed, match="unique 8x8 .* in 2 attempts"):
        generate(8, 8, islands=10, seed=0, unique=True, max_attempts=2, time_limit=0)
    with pytest.raises(ValueError, match="islands"):
        generate(3, 3, islands=10, seed=0)


def _solution_in_a_fresh_process(path, seed):
    import json
    import subprocess
    import sys

    from conftest import ROOT

    code = ("import json, sys; import numpy as np; from gpu_sa.puzzles.hashi import exact as hashi; "
            "lines = open(sys.argv[1]).read().split('\\n'); rows = int(lines[0].split()[0]); "
            "grid = np.array([[int(v) for v in line.split()] for line in lines[1:1 + rows]]); "
            "print(json.dumps(hashi.solve(grid, seed=int(sys.argv[2])).solution))")
    done = subprocess.run([sys.executable, "-c", code, str(path), str(seed)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_same_seed_same_solution_in_separate_processes():
    # Hs_16_100_25_00_006 has several solutions; which one HiGHS returns first depends on its random_seed.
    path = DATA / "hashi_coelho" / "Hs_16_100_25_00_006.has"
    assert exact.solve(read_has(path), limit=2).solutions == 2
    first, again = (_solution_in_a_fresh_process(path, seed=3) for _ in range(2))
    assert first == again and hashi_violations(read_has(path).tolist(), first) == []


def test_different_seeds_reach_different_solutions():
    """An observation about HiGHS (scipy 1.17's), kept as a test because it fails if the seed
    stopped reaching HiGHS: over eight seeds this instance's first solution is not always the same."""
    grid = read_has(DATA / "hashi_coelho" / "Hs_16_100_25_00_006.has")
    solutions = {json.dumps(exact.solve(grid, seed=seed).solution) for seed in range(8)}
    assert len(solutions) >= 2


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5])
def test_bad_seed(seed):
    with pytest.raises(ValueError, match="seed must be an integer"):
        exact.solve([[1, 0, 1]], seed=seed)
