"""The exact solver of seed 002: solve, count, prove; every answer checked by the validator."""
import json

import numpy as np
import pytest

from conftest import DATA, ROOT, run_cli
from gpu_sa.puzzles.sudoku import exact
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


@pytest.mark.slow
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


def test_a_search_that_gives_up_says_what_stopped_it_and_points_to_the_local_search(cli):
    """The node limit and the time limit each named once in the verdict (it used to read "gave up after N nodes ...
    (N nodes, ...)") and in --json (``stopped``), and, for a Sudoku left without a solution, one note on stderr: the
    deterministic search points to --seed 1, either search to ``solve``'s local search; not with --quiet, not when a
    solution was found."""
    hard = write(parse((DATA / "sudoku_samples.txt").read_text())[25].givens, 3, "line") + "\n"
    status, out, err = cli("exact", "-", "--max-nodes", "3", stdin=hard)
    assert status == 1 and ("the complete search gave up at the branch limit (--max-nodes) with 0 solutions found "
                            "after ") in out and " s (3 branches)\n" in out
    assert err.count("gpu-sa: note: the deterministic search gave up on <stdin>:1 without a solution; '--seed 1' runs "
                     "the seeded complete search (restarts, and clause learning from 25x25), which settles most grids "
                     "this one gives up on; 'gpu-sa solve' looks for one by local search") == 1
    status, out, err = cli("exact", "-", "--max-nodes", "3", "--quiet", stdin=hard + hard)
    assert status == 1 and out.count("gave up at the branch limit") == 2 and err == ""
    status, out, err = cli("exact", "-", "--max-nodes", "3", stdin=hard + hard)
    assert "gave up on 2 puzzles without a solution" in err
    status, out, err = cli("exact", "-", "--count-limit", "3", "--max-nodes", "47", stdin="." * 81 + "\n")
    assert status == 0 and "gave up at the branch limit (--max-nodes) with 1 solution found" in out and "note" not in err
    large = (ROOT / "bench" / "data" / "sudoku49_50" / "inst49x49_50_0.txt").read_text()
    status, out, err = cli("exact", "-", "--time-limit", "0.3", "--quiet", stdin=large)
    assert status == 1 and "gave up at the time limit with 0 solutions found after " in out
    status, out, err = cli("exact", "-", "--time-limit", "0.3", "--seed", "1", stdin=large)
    assert status == 1 and err.count("gpu-sa: note: the seeded complete search gave up on <stdin>:1 without a "
                                     "solution; 'gpu-sa solve' looks for one by local search") == 1
    for options, stopped in ((["--time-limit", "0.3"], "time_limit"), (["--max-nodes", "3"], "max_nodes")):
        status, out, err = cli("exact", "-", "--json", "--quiet", *options, stdin=large)
        record = json.loads(out)
        assert status == 1 and record["gave_up"] and record["stopped"] == stopped
    status, out, err = cli("exact", "-", "--json", stdin=hard)
    assert status == 0 and "stopped" not in json.loads(out)


def test_the_verdict_of_an_integer_program_that_gave_up(monkeypatch):
    """An integer program reports no nodes and no stop of its own: the time limit, or a stop request when one came."""
    from gpu_sa.engine import stop
    from gpu_sa.apps.solve import _gave_up
    from gpu_sa.puzzles.common.ilp import ExactAnswer

    answer = ExactAnswer(solutions=0, solution=None, seconds=1.0, gave_up=True)
    assert _gave_up(answer) == "time_limit"
    monkeypatch.setattr(stop, "requested", lambda: True)
    assert _gave_up(answer) == "interrupted"


def test_solve_reports_no_solution_without_annealing():
    done = run_cli("solve", "-", "--json", stdin="12345678." "........9" + "." * 63 + "\n")
    assert done.returncode == 1 and '"stopped": "contradiction"' in done.stdout
    assert '"reason": "propagating the givens leads to a contradiction"' in done.stdout


def test_solve_check_unique():
    import json

    args = ["--method", "anneal", "--backend", "cpu", "--chains", "64", "--schedule", "geometric", "--t0", "0.5", "--plateaus", "1000",
            "--seed", "1", "--json", "--check-unique"]
    done = run_cli("solve", DATA / "seed_puzzles.txt", *args)
    first = json.loads(done.stdout.splitlines()[0])
    assert first["solved"] and first["unique"] is True
    done = run_cli("solve", "-", *args, stdin="1" + "." * 80 + "\n")
    record = json.loads(done.stdout)
    assert record["solved"] and record["unique"] is False


# --- the seeded search with restarts -------------------------------------------------------------

def _cases(order, count, seed):
    """Puzzles of ``order`` with 0, 1 and several solutions: a valid grid with holes, some with
    one given changed (usually no solution left, sometimes one only the search refutes)."""
    side = order * order
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(count):
        full = _valid_grid(order, seed=seed * 1000 + k)
        holes = rng.random(side * side) < (0.35, 0.8, 0.6)[k % 3]  # mostly unique, several, one wrong given
        givens = np.where(holes, -1, full).astype(np.int16)
        if k % 3 == 2:  # one wrong given
            cell = rng.choice(np.flatnonzero(givens >= 0))
            givens[cell] = (givens[cell] + 1 + rng.integers(side - 1)) % side
        cases.append(givens)
    return cases


@pytest.mark.parametrize("order, count", [(2, 40), (3, 30), (4, 12)])
def test_restarted_counts_equal_the_deterministic_counts(order, count):
    counts, restarted = set(), 0
    for givens in _cases(order, count, seed=order):
        reference = exact.count_solutions(givens, order, limit=5)
        # base_nodes=2 forces many short restarts: the count must survive them.
        answer = exact.count_solutions(givens, order, limit=5, seed=11, base_nodes=2)
        assert not reference.gave_up and not answer.gave_up
        assert answer.solutions == reference.solutions, givens
        if answer.solutions:
            puzzle = parse(write(givens, order, "numbers"))[0]
            assert puzzle.check(answer.solution) == []
        counts.add(min(answer.solutions, 2))
        restarted += answer.restarts > 1
    assert counts == {0, 1, 2}, "the cases must cover no, one and several solutions"
    assert restarted, "no case needed a second restart: the test would not exercise restarts"


def test_restarted_answer_and_node_counts_depend_on_the_seed_only():
    hard = parse((DATA / "sudoku_samples.txt").read_text())[25]  # one of the forum's hardest
    runs = [exact.count_solutions(hard.givens, 3, limit=2, seed=5, threads=threads, base_nodes=3)
            for threads in (1, 2, 3, 1)]
    first = runs[0]
    assert first.restarts > 1 and first.solutions == 1 and not first.gave_up
    for run in runs[1:]:
        assert (run.solutions, run.nodes, run.final_nodes, run.restarts, run.seed) == \
               (first.solutions, first.nodes, first.final_nodes, first.restarts, 5)
        assert np.array_equal(run.solution, first.solution)
    other = exact.count_solutions(hard.givens, 3, limit=2, seed=6, threads=2, base_nodes=3)
    assert np.array_equal(other.solution, first.solution)  # a unique puzzle: the same answer, by other paths
    assert (other.nodes, other.restarts) != (first.nodes, first.restarts)


@pytest.mark.parametrize("order, count", [(2, 30), (3, 30), (4, 12)])
def test_a_search_from_the_propagation_is_the_search_from_the_givens(order, count):
    """``count_solutions(propagated=propagate(...))`` skips the root's propagation, and must change
    nothing: the same counts, node counts, restarts and first solution, seeded or not."""
    cases = _cases(order, count, seed=70 + order)
    if order == 3:
        cases += [p.givens for p in parse((DATA / "sudoku_samples.txt").read_text())[20:30]]
    contradicted = restarted = 0
    for givens in cases:
        propagated = exact.propagate(givens, order)
        contradicted += propagated.contradiction
        for options in (dict(limit=3), dict(limit=3, seed=4, base_nodes=2), dict(limit=1, seed=9, threads=2)):
            plain = exact.count_solutions(givens, order, **options)
            started = exact.count_solutions(givens, order, propagated=propagated, **options)
            restarted += plain.restarts > 1
            assert (started.solutions, started.nodes, started.restarts, started.final_nodes, started.gave_up) == \
                   (plain.solutions, plain.nodes, plain.restarts, plain.final_nodes, plain.gave_up), (givens, options)
            assert (started.solution is None) == (plain.solution is None)
            if plain.solution is not None:
                assert np.array_equal(started.solution, plain.solution)
    assert contradicted and restarted, "the cases must cover a contradiction and restarts"


def test_a_search_resumed_at_resume_at_is_the_search_in_one_call():
    """Two calls, the second from the first's ``resume_at``, find what one call with both budgets finds: the
    same deciding restart, solution and nodes (``auto`` cuts its rounds' searches this way)."""
    hard = parse((DATA / "sudoku_samples.txt").read_text())[25]  # one of the forum's hardest
    whole = exact.count_solutions(hard.givens, 3, limit=1, seed=5, base_nodes=3, threads=2)
    assert whole.restarts > 5 and not whole.gave_up
    # a first call of the first four restarts' whole budgets (3 x Luby 1, 1, 2, 1), then one of part of the
    # fifth (Luby 1 = 3 branches: it is re-run whole by the second call)
    for first_budget, resume_at in ((15, 4), (16, 4), (18, 5)):
        first = exact.count_solutions(hard.givens, 3, limit=1, seed=5, base_nodes=3, max_nodes=first_budget)
        assert first.gave_up and first.resume_at == resume_at and first.nodes == first_budget
        rest = exact.count_solutions(hard.givens, 3, limit=1, seed=5, base_nodes=3, first_restart=first.resume_at,
                                     threads=2)
        assert not rest.gave_up and rest.restarts == whole.restarts - resume_at
        assert rest.final_nodes == whole.final_nodes and np.array_equal(rest.solution, whole.solution)
        full_budgets = 3 * sum(exact.luby(i + 1) for i in range(resume_at))
        assert rest.nodes == whole.nodes - full_budgets


def test_luby_sequence():
    assert [exact.luby(i) for i in range(1, 16)] == [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]


def test_restarted_search_spends_exactly_max_nodes_when_it_gives_up():
    empty = np.full(49 * 49, -1, dtype=np.int16)
    answer = exact.count_solutions(empty, 7, limit=10**6, max_nodes=3000, seed=1, base_nodes=100)
    assert answer.gave_up and not answer.interrupted and not answer.timed_out
    assert answer.nodes == 3000 and answer.restarts >= 3


def test_node_limit_zero_still_propagates():
    solved_by_rules = parse((DATA / "seed_puzzles.txt").read_text())[0]
    for seed in (None, 1):
        answer = solved_by_rules.count_solutions(limit=2, max_nodes=0, seed=seed)
        assert answer.solutions == 1 and not answer.gave_up and answer.nodes == 0


@pytest.mark.parametrize("seed", [None, 3], ids=["deterministic", "restarted"])
def test_stop_request_is_answered_within_a_second(seed):
    """A long search (every solution of an empty 49x49 grid) stops soon after ``stop.request()``."""
    import threading
    import time

    from gpu_sa.engine import stop

    empty = np.full(49 * 49, -1, dtype=np.int16)
    exact.count_solutions(empty[:16], 2)  # compile or load the search before timing it
    asked = []

    def ask():
        asked.append(time.perf_counter())
        stop.request()

    timer = threading.Timer(0.5, ask)
    try:
        timer.start()
        answer = exact.count_solutions(empty, 7, limit=10**9, max_nodes=10**15, seed=seed)
        returned = time.perf_counter()
    finally:
        timer.cancel()
        stop.clear()
    assert asked and returned - asked[0] < 1.0
    assert answer.interrupted and answer.gave_up and not answer.timed_out


def test_stop_request_ends_a_batch_and_marks_the_unfinished_puzzles():
    from gpu_sa.engine import stop

    puzzles = np.stack([p.givens for p in parse((DATA / "sudoku_samples.txt").read_text())[:3]])
    stop.request()
    try:
        answers = exact.count_many(puzzles, 3)
    finally:
        stop.clear()
    assert all(a.interrupted and a.gave_up and a.solution is None for a in answers)
    assert all(a.solutions == 1 and not a.interrupted for a in exact.count_many(puzzles, 3))


def test_count_many_results_are_ordinary_frozen_exact_results():
    """count_many fills its results' ``__dict__`` at once (``counting._batch_results``): each must equal the
    result ``ExactResult(...)`` builds from the same numbers, hold every field as a plain Python value, and stay
    frozen; on solved, unsolved (node limit) and stopped puzzles alike."""
    import dataclasses

    from gpu_sa.engine import stop
    from gpu_sa.puzzles.sudoku.exact.backtracking import ExactResult

    puzzles = np.stack([p.givens for p in parse((DATA / "sudoku_samples.txt").read_text())[:3]])
    blank = np.full((1, 81), -1, dtype=np.int16)
    stop.request()
    try:
        stopped = exact.count_many(puzzles, 3)
    finally:
        stop.clear()
    solved = exact.count_many(puzzles, 3)
    (unsolved,) = exact.count_many(blank, 3, limit=3, max_nodes=40)
    for answers in (solved, [unsolved], stopped):
        for answer in answers:
            fields = {field.name: getattr(answer, field.name) for field in dataclasses.fields(ExactResult)}
            assert vars(answer).keys() == fields.keys()
            built = ExactResult(**{**fields, "solution": None})
            assert dataclasses.replace(answer, solution=None) == built
            assert [type(getattr(answer, name)) for name in ("solutions", "nodes", "final_nodes", "gave_up",
                                                             "interrupted", "seconds")] == [int, int, int, bool,
                                                                                            bool, float]
            with pytest.raises(dataclasses.FrozenInstanceError):
                answer.nodes = 0
    assert all(a.solutions == 1 and not a.gave_up and a.solution.shape == (81,) for a in solved)
    assert unsolved.gave_up and not unsolved.interrupted and unsolved.nodes == unsolved.final_nodes == 40
    assert all(a.interrupted and a.gave_up and a.solution is None for a in stopped)


def test_time_limit_ends_the_search():
    import time

    empty = np.full(49 * 49, -1, dtype=np.int16)
    start = time.perf_counter()
    answer = exact.count_solutions(empty, 7, limit=10**9, max_nodes=10**15, seed=2, time_limit=0.3)
    assert time.perf_counter() - start < 1.5
    assert answer.timed_out and answer.gave_up and not answer.interrupted


@pytest.mark.parametrize("options, message", [
    (dict(order=3, givens=np.zeros(80)), "80 cells for order 3"),
    (dict(order=12, givens=np.zeros(81)), "order must be an integer from 2 to 11"),
    (dict(order=3, givens=np.full(81, 9)), "givens must be 0-based digits below 9"),
    (dict(order=3, givens=np.full(81, -1), seed=1, threads=0), "threads must be a positive integer"),
    (dict(order=3, givens=np.full(81, -1), seed=1, base_nodes=0), "base_nodes must be a positive integer"),
    (dict(order=3, givens=np.full(81, -1), seed=-1), r"seed must be in \[0, 2\*\*64\)"),
    (dict(order=3, givens=np.full(81, -1), time_limit=0), "time_limit must be positive"),
])
def test_bad_arguments_get_one_clear_error(options, message):
    with pytest.raises(ValueError, match=message):
        exact.count_solutions(options.pop("givens"), options.pop("order"), **options)


# --- propagation -----------------------------------------------------------------------------------

def test_propagation_forces_only_what_every_solution_holds():
    puzzles = parse((DATA / "sudoku_samples.txt").read_text()) + parse((DATA / "seed_puzzles.txt").read_text())
    for puzzle in puzzles:
        answer = puzzle.count_solutions(limit=2)
        assert answer.solutions == 1, puzzle.label  # so the solution shows what is implied
        found = exact.propagate(puzzle.givens, puzzle.order)
        assert not found.contradiction
        assert found.values.dtype == np.int64 and found.candidates.dtype == np.uint64
        set_cells = found.values >= 0
        assert np.array_equal(found.values[set_cells], answer.solution[set_cells]), puzzle.label
        given = puzzle.givens >= 0
        assert np.array_equal(found.values[given], puzzle.givens[given])
        assert sum(found.forced.values()) == set_cells.sum() - given.sum()
        bits = np.uint64(1) << answer.solution.astype(np.uint64)
        assert np.all(found.candidates & bits), "a solution digit was removed"
        assert np.array_equal(found.candidates[set_cells], bits[set_cells])  # a set cell holds its own bit only
    easy = exact.propagate(puzzles[-3].givens, 3)  # the seed's easy puzzle: the rules alone solve it
    assert (easy.values >= 0).all() and easy.forced["uniqueness"] + easy.forced["exclusivity"] > 0


def _propagated_given_by_given(givens, order):
    """The fixpoint as the search reaches it: every given spread on its own (``_start``, ``_fixpoint``)."""
    peers, units, cell_units, full = exact.tables(order)
    cand = exact.initial_candidates(givens, order)
    placed = np.zeros(cand.shape[0], dtype=np.uint8)
    pending = np.empty(cand.shape[0], dtype=np.int64)
    dirty = np.zeros(units.shape[0], dtype=np.uint8)
    counts = np.zeros((1, exact.TRACE_COLUMNS), dtype=np.int64)
    top = exact._start(cand, placed, units, pending, dirty)
    consistent = top >= 0 and exact._fixpoint(cand, placed, peers, units, cell_units, full, pending, top, dirty,
                                              counts)
    return cand, not consistent, {rule: int(counts[0, 1 + k]) for k, rule in enumerate(exact.RULES)}


def test_propagation_spreads_the_givens_unit_by_unit_to_the_same_fixpoint():
    """``propagate`` spreads the givens a unit at a time: the candidates, the contradictions (where they
    stopped) and the counts per rule must be those of spreading each given on its own."""
    cases = [(givens, order) for order in (2, 3, 4) for givens in _cases(order, 30, seed=90 + order)]
    cases += [(p.givens, p.order) for p in parse((DATA / "sudoku16_45pct.txt").read_text())]
    contradicted = 0
    for givens, order in cases:
        found = exact.propagate(givens, order)
        cand, contradiction, forced = _propagated_given_by_given(givens, order)
        contradicted += contradiction
        assert found.contradiction == contradiction and found.forced == forced, givens
        assert np.array_equal(found.candidates, cand), givens
    assert 0 < contradicted < len(cases)


def _closure_by_rounds(cand, order):
    """The rules' fixpoint reached the slow way, with no bookkeeping of what changed: whole-grid rounds
    (``rule_round``) until a round changes nothing. None on a contradiction."""
    peers, units, cell_units, full = exact.tables(order)
    cand = cand.copy()
    while True:
        before = cand.copy()
        if not exact.rule_round(cand, peers, units, cell_units, full, None):
            return None
        if np.array_equal(before, cand):
            return cand


def _closure_plain(cand, order):
    """The three rules to their fixpoint, written again from their statement with Python sets, sharing no code with
    the package (its rounds share ``_uniqueness`` with the search, and once shared a fault with it): the candidates
    as masks, or None on a contradiction (a cell without a digit, a digit without a place in a unit)."""
    side = order * order
    cells = [{d for d in range(side) if int(mask) >> d & 1} for mask in cand]
    units = [[r * side + c for c in range(side)] for r in range(side)]
    units += [[r * side + c for r in range(side)] for c in range(side)]
    units += [[(br * order + i) * side + bc * order + j for i in range(order) for j in range(order)]
              for br in range(order) for bc in range(order)]
    changed = True
    while changed:
        changed = False
        for unit in units:
            for cell in unit:
                if not cells[cell]:
                    return None
                if len(cells[cell]) == 1:  # naked single: the digit leaves the unit's other cells
                    for other in unit:
                        if other != cell and cells[other] & cells[cell]:
                            cells[other] -= cells[cell]
                            changed = True
            for digit in range(side):  # hidden single: a digit's only place takes it
                places = [cell for cell in unit if digit in cells[cell]]
                if not places:
                    return None
                if len(places) == 1 and cells[places[0]] != {digit}:
                    cells[places[0]] = {digit}
                    changed = True
            for a in unit:  # naked pair: two cells holding the same two digits take them from the others
                for b in unit:
                    if a < b and len(cells[a]) == 2 and cells[a] == cells[b]:
                        for other in unit:
                            if other not in (a, b) and cells[other] & cells[a]:
                                cells[other] -= cells[a]
                                changed = True
    return np.array([sum(1 << d for d in digits) for digits in cells], dtype=np.uint64)


def test_the_searchs_incremental_fixpoint_is_the_closure_of_the_rules():
    """After a branch the search re-runs only the rules whose units changed (``dirty``): every removal marks its
    units for the hidden single, and for the naked pair only when it leaves the cell with two digits (a pair
    already applied cannot apply again; a new one needs a cell newly down to two). Walking down random branches
    as ``search_core`` does, each child's fixpoint must be the closure whole-grid rounds reach, and a
    contradiction must be found exactly when the rounds find one."""
    checked = contradicted = 0
    for order in (3, 4):
        peers, units, cell_units, full = exact.tables(order)
        rng = np.random.default_rng(17 + order)
        for givens in _cases(order, 9, seed=70 + order):
            cand, contradiction, _ = _propagated_given_by_given(givens, order)
            if contradiction:
                continue
            placed = np.array([exact._popcount(c) == 1 for c in cand], dtype=np.uint8)
            for _ in range(order * order * 2):
                free = np.flatnonzero(placed == 0)
                if free.size == 0:
                    break
                cell = int(rng.choice(free))
                digits = [d for d in range(order * order) if cand[cell] >> np.uint64(d) & exact.ONE]
                bit = exact.ONE << np.uint64(rng.choice(digits))
                child, child_placed = cand.copy(), placed.copy()
                dirty = np.zeros(units.shape[0], dtype=np.uint8)
                pending = np.empty(cand.shape[0], dtype=np.int64)
                branched = child.copy()
                branched[cell] = bit
                exact._remove(child, cell, ~bit, cell_units, dirty)  # as search_core branches
                pending[0] = cell
                consistent = exact._fixpoint(child, child_placed, peers, units, cell_units, full, pending, 1, dirty,
                                             None)
                expected = _closure_by_rounds(branched, order)
                plain = _closure_plain(branched, order)
                assert (expected is None) == (plain is None) and (plain is None or np.array_equal(expected, plain))
                assert consistent == (expected is not None), (givens, cell, bit)
                checked += 1
                if not consistent:
                    contradicted += 1
                    continue
                assert np.array_equal(child, expected), (givens, cell, bit)
                cand, placed = child, child_placed  # one level deeper
    assert checked > 100 and 0 < contradicted < checked, (checked, contradicted)


# A state the search reached (17-clue puzzle 421 of Royle's set, its first branch): row 6 holds 5 and 7 only in
# cell (6, 3), whose candidates are exactly {5, 7}. Each digit's last place is that cell, which cannot take both.
TWO_LAST_PLACES = """
489 3 4589 1 6 57 79 789 2
89 6 589 4 2 57 3 789 1
7 1 2 9 8 3 5 4 6
1489 49 14789 6 3 149 2 15789 5789
3 2 1479 8 5 149 6 179 79
6 5 189 2 7 19 4 3 89
149 49 149 57 14 2 8 6 3
2 8 3 57 14 6 79 579 579
5 7 6 3 9 8 1 2 4"""


def test_a_cell_that_is_the_last_place_of_two_digits_is_a_contradiction_even_holding_just_those_two():
    """The uniqueness rule once skipped a cell whose candidates were exactly the digits that had their last place
    in it, so the search went on below a dead state (and the Python twin with it): 2.8 % more branches on top1465
    (63,600 against 61,870), 2.2 % on 17-clue puzzles."""
    cand = np.array([sum(1 << (int(d) - 1) for d in word) for word in TWO_LAST_PLACES.split()], dtype=np.uint64)
    peers, units, cell_units, full = exact.tables(3)
    trace = np.zeros((1 + 9 * 81, exact.TRACE_COLUMNS), dtype=np.int64)
    assert not exact.rule_round(cand.copy(), peers, units, cell_units, full, trace)
    last = trace[trace[0, 0]]
    assert (last[0], last[1], last[5], last[6]) == (exact.UNIQUENESS, exact.CONTRADICTION, 6 * 9 + 3, 0b1010000)
    placed = np.array([exact._popcount(c) == 1 for c in cand], dtype=np.uint8)
    dirty = np.full(units.shape[0], 0xFF, dtype=np.uint8)
    assert not exact._fixpoint(cand.copy(), placed, peers, units, cell_units, full, np.empty(81, dtype=np.int64), 0,
                               dirty, None)


def test_a_contradiction_found_by_propagation_is_real():
    seen = 0
    for order in (2, 3, 4):
        for givens in _cases(order, 30, seed=50 + order):
            found = exact.propagate(givens, order)
            if found.contradiction:
                seen += 1
                assert exact.count_solutions(givens, order, limit=1).solutions == 0
    assert seen >= 5, "too few contradictions to test"
    assert exact.contradicts(parse("12345678." "........9" + "." * 63)[0].givens, 3)


def test_propagation_on_large_orders():
    for order, seed in ((5, 1), (6, 2)):
        full = _valid_grid(order, seed=seed)
        givens = np.where(np.random.default_rng(seed).random(full.size) < 0.5, full, -1)
        found = exact.propagate(givens, order)
        assert not found.contradiction
        set_cells = found.values >= 0
        assert np.array_equal(found.values[set_cells], full[set_cells])  # the grid is a solution, and with
        assert set_cells.sum() > (givens >= 0).sum()  # half the cells given the rules force more


def test_a_signal_reaches_the_handler_while_the_compiled_search_runs():
    """Ctrl-C during the compiled search is heard: the search runs off the main thread,
    so the handler (here one that calls stop.request, as the command's does) runs and the search ends."""
    import signal
    import subprocess
    import sys
    import time

    from conftest import ROOT

    code = ("import signal, numpy as np\n"
            "from gpu_sa.engine import stop\n"
            "from gpu_sa.puzzles.sudoku import exact\n"
            "signal.signal(signal.SIGINT, lambda signum, frame: stop.request(signum))\n"
            "exact.count_solutions(np.full(16, -1, np.int16), 2)\n"
            "print('searching', flush=True)\n"
            "answer = exact.count_solutions(np.full(49 * 49, -1, np.int16), 7, limit=10**9, max_nodes=10**15)\n"
            "print(answer.interrupted, stop.signal_number(), flush=True)\n")
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert process.stdout.readline().strip() == "searching"
        time.sleep(0.3)
        asked = time.perf_counter()
        process.send_signal(signal.SIGINT)
        line = process.stdout.readline()
        answered = time.perf_counter() - asked
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()
    assert line.split() == ["True", str(int(signal.SIGINT))] and answered < 1.0


@pytest.mark.parametrize("dtype, bad", [(dtype, bad) for dtype in (np.int16, np.int64, np.uint8, np.float64)
                                         for bad in (9, -2, 200) if not (bad < 0 and np.dtype(dtype).kind == "u")])
def test_propagate_rejects_what_is_not_a_digit_in_any_dtype(dtype, bad):
    """int16 givens are checked inside the compiled pass, other dtypes before converting (a wrap to int16
    must not turn 70000 into a digit); either way the same one-line error."""
    givens = np.full(81, -1, dtype=np.int64)
    givens[40] = bad
    with pytest.raises(ValueError, match="givens must be 0-based digits below 9"):
        exact.propagate(givens.astype(dtype), 3)
    with pytest.raises(ValueError, match="givens must be 0-based digits below 9"):
        exact.count_solutions(givens.astype(dtype), 3)


def test_propagate_counts_the_cells_it_leaves_free():
    for puzzle in parse((DATA / "seed_puzzles.txt").read_text()):
        found = exact.propagate(puzzle.givens, puzzle.order)
        assert found.free == int((found.values < 0).sum())


def test_count_many_checks_every_row():
    rows = np.full((3, 81), -1)
    rows[2, 5] = 70000  # would wrap to a valid-looking int16
    with pytest.raises(ValueError, match="givens must be 0-based digits below 9"):
        exact.count_many(rows, 3)
    with pytest.raises(ValueError, match="puzzles x cells"):
        exact.count_many(np.full(81, -1), 3)
