"""The exact solver of seed 002: solve, count, prove; every answer checked by the validator."""
import numpy as np
import pytest

from conftest import DATA, run_cli
from cpu_ref.exact import sudoku as exact
from gpu_sa.puzzles.sudoku import parse
from gpu_sa.puzzles.sudoku.formats import write


def _answers(puzzles, limit=2):
    return exact.count_many(np.stack([p.givens for p in puzzles]), puzzles[0].order, limit=limit)


@pytest.mark.parametrize("file", ["seed_puzzles.txt", "sudoku_samples.txt"])
def test_every_puzzle_of_the_seed_file_and_samples_is_solved_unique_and_valid(file):
    puzzles = parse((DATA / file).read_text())
    for puzzle, answer in zip(puzzles, _answers(puzzles)):
        assert answer.solutions == 1 and not answer.gave_up, puzzle.label
        assert puzzle.check(answer.solution) == [], puzzle.label


def _valid_grid(order, seed):
    """A random valid full grid: the pattern grid, shuffled by symmetries that keep validity."""
    side = order * order
    rng = np.random.default_rng(seed)
    r, c = np.divmod(np.arange(side * side), side)
    grid = ((r * order + r // order + c) % side).reshape(side, side)

    def shuffled_lines():
        bands = rng.permutation(order)
        return np.concatenate([b * order + rng.permutation(order) for b in bands])

    grid = grid[shuffled_lines()][:, shuffled_lines()]
    return rng.permutation(side)[grid].ravel().astype(np.int16)


def _unavoidable_rectangle(full, order):
    """Cells r1c1 r1c2 r2c1 r2c2 holding a b / b a and lying in exactly two boxes, or None.

    Blanking them leaves exactly two completions (a b / b a and b a / a b)."""
    side = order * order
    for grid, flip in ((full.reshape(side, side), False), (full.reshape(side, side).T, True)):
        for r1 in range(side):
            for r2 in range(r1 + 1, (r1 // order + 1) * order):  # same band: the rows cross the same boxes
                for c1 in range(side):
                    for c2 in range(c1 + 1, side):
                        if c1 // order != c2 // order and grid[r1, c1] == grid[r2, c2] and \
                                grid[r1, c2] == grid[r2, c1]:
                            corners = [(r1, c1), (r1, c2), (r2, c1), (r2, c2)]
                            return [(c * side + r) if flip else (r * side + c) for r, c in corners]
    return None


def test_a_puzzle_with_two_solutions_gives_2():
    easy = parse((DATA / "seed_puzzles.txt").read_text())[0]
    full = easy.count_solutions().solution
    cells = _unavoidable_rectangle(full, 3)
    assert cells is not None, "the easy puzzle's solution has no unavoidable rectangle"
    givens = full.copy()
    givens[cells] = -1
    (answer,) = exact.count_many(givens[None, :], 3, limit=5)
    assert answer.solutions == 2 and not answer.gave_up


@pytest.mark.parametrize("text", [
    "12345678." "........9" + "." * 63,  # r1c9 has no digit left: propagation alone sees it
    "1" + "." * 80,  # a fine puzzle, for contrast
], ids=["contradiction", "solvable"])
def test_contradictions(text):
    puzzle = parse(text)[0]
    contradictory = text.startswith("12345678.")
    assert puzzle.contradicts() == contradictory
    assert (puzzle.count_solutions(limit=2).solutions == 0) == contradictory


def test_contradiction_that_needs_search_gives_0():
    # A unique puzzle plus one given that disagrees with its solution has no solution; keep the first
    # such given that propagation alone does not refute, so that the search has to prove it.
    puzzle = parse((DATA / "seed_puzzles.txt").read_text())[1]
    answer = puzzle.count_solutions(limit=2)
    free = np.flatnonzero(puzzle.givens < 0)
    for cell in free:
        wrong = (int(answer.solution[cell]) + 1) % 9
        givens = puzzle.givens.copy()
        givens[cell] = wrong
        if parse(write(givens, 3, "line"))[0].contradicts():
            continue  # propagation alone sees this one; look for a deeper contradiction
        (deep,) = exact.count_many(givens[None, :], 3)
        assert deep.solutions == 0 and not deep.gave_up and deep.nodes > 0
        return
    pytest.fail("no contradiction needing search was found")


@pytest.mark.parametrize("order", [2, 3, 4, 5])
def test_generated_puzzles_of_every_order(order):
    side = order * order
    full = _valid_grid(order, seed=order)
    rng = np.random.default_rng(100 + order)
    one_hole = full.copy()
    one_hole[rng.integers(side * side)] = -1
    (answer,) = exact.count_many(one_hole[None, :], order)
    assert answer.solutions == 1 and np.array_equal(answer.solution, full)
    sparse = np.where(rng.random(side * side) < 0.5, full, -1).astype(np.int16)
    (answer,) = exact.count_many(sparse[None, :], order, limit=1, max_nodes=100_000)
    assert answer.solutions == 1 and not answer.gave_up
    puzzle = parse(write(sparse, order, "numbers"))[0]
    assert puzzle.check(answer.solution) == []


def test_node_limit_gives_up_on_a_huge_empty_grid():
    empty = np.full(49 * 49, -1, dtype=np.int16)
    (answer,) = exact.count_many(empty[None, :], 7, limit=2, max_nodes=50)
    assert answer.gave_up and answer.nodes == 50 and answer.solutions < 2


def test_deterministic():
    puzzles = parse((DATA / "sudoku_samples.txt").read_text())[:10]
    first, again = _answers(puzzles), _answers(puzzles)
    assert [(a.solutions, a.nodes, a.solution.tobytes()) for a in first] == \
        [(a.solutions, a.nodes, a.solution.tobytes()) for a in again]


def test_exact_command_json():
    done = run_cli("exact", DATA / "seed_puzzles.txt", "--json")
    assert done.returncode == 0, done.stderr
    import json

    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["solutions"] for r in records] == [1, 1, 1]
    assert {"solutions", "solution", "nodes", "seconds"} <= set(records[0]) and len(records[0]["solution"]) == 81


def test_exact_command_seed_numbers_format_and_exit_codes(tmp_path):
    puzzle = parse((DATA / "seed_puzzles.txt").read_text())[0]
    path = tmp_path / "seed.txt"
    path.write_text(write(puzzle.givens, 3, "numbers") + "\n")
    done = run_cli("exact", path)
    assert done.returncode == 0 and "unique solution" in done.stdout
    done = run_cli("exact", "-", stdin="12345678." "........9" + "." * 63 + "\n")
    assert done.returncode == 1 and "no solution" in done.stdout
    done = run_cli("exact", "-", "--count-limit", "3", stdin="." * 81 + "\n")
    assert done.returncode == 0 and "at least 3 solutions" in done.stdout
    done = run_cli("exact", "-", stdin="12" + "." * 78 + "\n")
    assert done.returncode == 2 and "wrong length 80" in done.stderr


def test_solve_reports_no_solution_without_annealing():
    done = run_cli("solve", "-", "--json", stdin="12345678." "........9" + "." * 63 + "\n")
    assert done.returncode == 1 and '"stopped": "no_solution"' in done.stdout


def test_solve_check_unique():
    import json

    args = ["--backend", "cpu", "--chains", "64", "--schedule", "geometric", "--t0", "0.5", "--plateaus", "1000",
            "--seed", "1", "--json", "--check-unique"]
    done = run_cli("solve", DATA / "seed_puzzles.txt", *args)
    first = json.loads(done.stdout.splitlines()[0])
    assert first["solved"] and first["unique"] is True
    done = run_cli("solve", "-", *args, stdin="1" + "." * 80 + "\n")
    record = json.loads(done.stdout)
    assert record["solved"] and record["unique"] is False
