"""Orders 9 to 11 (81x81 to 121x121): more digits than a uint64 candidate mask holds. Formats, the validator,
propagation and the complete search of ``exact.wide``, the moves swap and sirdey on the CPU and their NumPy twins,
the generator. The grids are built here: the pattern grid of any order, relabelled, with cells emptied."""
from __future__ import annotations

import json

import numpy as np
import pytest

from chain_cases import STATE_FIELDS, backend_named, batch_chains, chunk_of
from gpu_sa.engine import schedule
from gpu_sa.puzzles import sudoku
from gpu_sa.puzzles.sudoku import exact, formats
from gpu_sa.puzzles.sudoku.exact import wide
from gpu_sa.puzzles.sudoku.generate import fill


def solved_grid(order, seed=1):
    side = order * order
    rows, columns = np.divmod(np.arange(side * side), side)
    pattern = (order * (rows % order) + rows // order + columns) % side
    return np.random.default_rng(seed).permutation(side)[pattern].astype(np.int16)


def puzzle_of(order, blanks, seed=1):
    """(givens, solution): a valid grid with ``blanks`` cells emptied at random."""
    solution = solved_grid(order, seed)
    givens = solution.copy()
    givens[np.random.default_rng(seed + 1).choice(solution.size, blanks, replace=False)] = -1
    return givens, solution


def acs_text(givens, order):
    side = order * order
    rows = ["\t".join(str(v + 1 if v >= 0 else -1) for v in row) for row in givens.reshape(side, side)]
    return "\n".join([str(order), "1", *rows]) + "\n"


@pytest.mark.parametrize("order", [9, 10, 11])
def test_acs_and_numbers_read_and_write_every_large_order(order):
    givens, _ = puzzle_of(order, 30)
    (acs,) = sudoku.parse(acs_text(givens, order))
    assert (acs.order, acs.fmt) == (order, "acs") and np.array_equal(acs.givens, givens)
    numbers = acs.write(givens, "numbers")
    (again,) = sudoku.parse(numbers)
    assert (again.order, again.fmt) == (order, "numbers") and np.array_equal(again.givens, givens)
    assert sudoku.parse(acs.write(givens))[0].givens.tolist() == givens.tolist()  # acs out, acs in
    assert acs.write(givens, "line") == numbers  # no symbol per value: the numbers format
    pretty = acs.write(givens, "pretty").splitlines()
    assert len(pretty) == order * order + order + 1


def test_formats_that_cannot_hold_81x81_say_so_in_one_line():
    with pytest.raises(sudoku.PuzzleError, match="numbers or acs") as error:
        sudoku.parse("." * 81 ** 2, fmt="line")
    assert "\n" not in str(error.value)
    with pytest.raises(sudoku.PuzzleError, match="acs header.*2..11"):
        sudoku.parse("12\n1\n" + "1\n" * 3)
    with pytest.raises(sudoku.PuzzleError, match="out of range 1..81"):
        sudoku.parse(acs_text(np.full(81 * 81, -1), 9).replace("-1", "82", 1))
    assert formats.MAX_SIDE == 121


@pytest.mark.parametrize("order", [9, 11])
def test_the_validator_checks_large_grids(order):
    givens, solution = puzzle_of(order, 10)
    puzzle = sudoku.Sudoku(givens=givens, order=order)
    assert puzzle.check(solution) == []
    broken = solution.copy()
    broken[[0, 1]] = broken[[1, 0]]
    assert any("column" in problem for problem in puzzle.check(broken))


@pytest.mark.parametrize("order", [9, 10, 11])
def test_propagation_and_the_complete_search_at_large_orders(order):
    givens, solution = puzzle_of(order, 60)
    found = exact.propagate(givens, order)
    side = order * order
    assert not found.contradiction and found.candidates.shape == (side * side, side)
    assert found.candidates.dtype == bool and found.candidates[np.arange(side * side), solution].all()
    result = exact.count_solutions(givens, order, limit=2)
    assert result.solutions == 1 and not result.gave_up and np.array_equal(result.solution, solution)
    seeded = exact.count_solutions(givens, order, limit=1, seed=3)
    assert seeded.solutions == 1 and np.array_equal(seeded.solution, solution)


def test_an_empty_121x121_stops_at_its_time_limit():
    result = exact.count_solutions(np.full(121 ** 2, -1), 11, limit=1, max_nodes=exact.NO_NODE_LIMIT,
                                   time_limit=0.3)
    assert result.gave_up and (result.timed_out or result.solutions == 1)
    assert result.seconds < 5


def test_a_contradiction_is_found_at_81x81():
    givens, solution = puzzle_of(9, 2)
    free = int(np.flatnonzero(givens < 0)[0])
    row = np.arange(81) + (free // 81) * 81
    mate = int(row[(givens[row] >= 0) & (row != free)][0])
    bad = givens.copy()
    bad[free] = givens[mate]  # a digit its row holds already
    assert exact.count_solutions(bad, 9).solutions == 0
    assert sudoku.Sudoku(givens=bad, order=9).contradicts()


def test_the_wide_search_reports_the_outcomes_of_the_others():
    from gpu_sa.puzzles.sudoku.exact import backtracking

    assert (wide.COMPLETE, wide.NODE_LIMIT, wide.STOPPED) == (backtracking.COMPLETE, backtracking.NODE_LIMIT,
                                                              backtracking.STOPPED)


@pytest.mark.parametrize("order", [2, 3, 4])
def test_the_wide_search_counts_as_the_uint64_search(order):
    """``exact.wide``'s code works at any order: below 81x81 it must count what the landed search counts."""
    rng = np.random.default_rng(order)
    peers, units, _, full = wide.tables(order)
    for trial in range(12):
        givens, _ = puzzle_of(order, int(rng.integers(order ** 4 // 3, order ** 4 * 4 // 5)), seed=trial)
        solution = np.full(givens.size, -1, dtype=np.int64)
        found, _, outcome = wide._search(wide.candidates_of(givens, order), peers, units, full, 5, 10 ** 6, solution,
                                         np.zeros(1, np.uint8), False, np.uint32(0), np.uint32(0))
        assert outcome == 0 and found == exact.count_solutions(givens, order, limit=5).solutions


@pytest.mark.parametrize("order", [9, 11])
def test_the_moves_roots_at_large_orders(order):
    givens, solution = puzzle_of(order, 40)
    puzzle = sudoku.Sudoku(givens=givens, order=order)
    side = order * order
    for values, candidates in (puzzle.unpropagated, puzzle.propagation, puzzle.local_search_root):
        assert candidates.shape == (side * side, side) and candidates.dtype == bool
        assert candidates[np.arange(side * side), solution].all()
        assert ((values < 0) | (values == solution)).all()


@pytest.mark.parametrize("name", ["swap", "sirdey"])
@pytest.mark.parametrize("propagate", [False, True])
def test_swap_and_sirdey_cpu_equals_numpy_at_81x81(name, propagate):
    givens, _ = puzzle_of(9, 3000 if propagate else 300)  # the rules fill a grid with a few hundred blanks
    move = sudoku.Sudoku(givens=givens, order=9).move(name, propagate=propagate)
    assert move.has_free_variables
    law = schedule.geometric(t0=0.5, t_end=0.05, plateaus=4, plateau_length=50)
    results = []
    for backend in (backend_named("numpy"), backend_named("cpu")):
        state = backend.allocate(move, 3)
        chains = batch_chains(7, 3, [0], [1])
        backend.init(state, move, chains)
        backend.advance(state, move, chains, chunk_of(law, move, 0, 200))
        host = backend.to_host(state)
        results.append({field: np.asarray(getattr(host, field)) for field in STATE_FIELDS})
    for field in STATE_FIELDS:
        np.testing.assert_array_equal(results[1][field], results[0][field], err_msg=field)
    assert results[0]["config"].max() < 81


@pytest.mark.parametrize("order", [9, 10, 11])
def test_generated_large_grids_are_valid(order):
    grids = fill.grids(2, order=order, seed=4)
    side = order * order
    for grid in grids:
        assert sudoku.Sudoku(givens=np.full(side * side, -1, dtype=np.int16), order=order).check(grid) == []
    assert not np.array_equal(grids[0], grids[1])


def test_solve_and_generate_at_81x81_from_the_command_line(tmp_path, capsys):
    from gpu_sa.cli.main import main

    givens, solution = puzzle_of(9, 40)
    path = tmp_path / "s81.txt"
    path.write_text(acs_text(givens, 9))
    assert main(["solve", str(path), "--seed", "1", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert answer["solved"] and sudoku.parse(answer["solution"])[0].givens.tolist() == solution.tolist()
    assert main(["solve", str(path), "--method", "anneal", "--move", "swap", "--no-propagate", "--chains", "4",
                 "--seed", "1", "--time-limit", "20"]) == 0
    assert "solved by the annealer" in capsys.readouterr().out
    assert main(["exact", str(path), "--count-limit", "2"]) == 0
    assert "unique solution" in capsys.readouterr().out
    assert main(["generate", "--size", "81x81", "--count", "1", "--seed", "2"]) == 0
    (grid,) = sudoku.parse(capsys.readouterr().out)
    assert grid.order == 9 and (grid.givens >= 0).all()
