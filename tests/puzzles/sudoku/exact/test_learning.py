"""The seeded search's stronger propagation and learning (gpu_sa.puzzles.sudoku.exact: consistency, learning,
ordering.DUAL, clauses): still complete and exact, still a function of the seed alone."""
import json
import threading

import numpy as np
import pytest

from conftest import DATA, run_cli
from gpu_sa.puzzles.sudoku import exact
from gpu_sa.puzzles.sudoku.exact import counting, learning, restarts
from gpu_sa.puzzles.sudoku.exact.clauses import (CLAUSES, LOCAL_MINIMIZATION, NO_REASON_BUMPS, NO_VIVIFY, SAVED_PHASES,
                                         SHORT_RESTARTS)
from gpu_sa.puzzles.sudoku.exact.consistency import ALLDIFF, BOX_LINE, PROBE
from gpu_sa.puzzles.sudoku.exact.learning import PHASE, WDEG
from gpu_sa.puzzles.sudoku.exact.ordering import DUAL
from gpu_sa.puzzles.sudoku import parse
from gpu_sa.puzzles.sudoku.formats import write
from .test_search import _cases

HARD = parse((DATA / "sudoku_samples.txt").read_text())[25]  # one of the forum's hardest
MINISAT_STYLE = CLAUSES | SHORT_RESTARTS | SAVED_PHASES | NO_REASON_BUMPS | LOCAL_MINIMIZATION | NO_VIVIFY
FEATURE_SETS = {"clauses": CLAUSES, "clauses, MiniSat style": MINISAT_STYLE, "propagation": BOX_LINE | ALLDIFF | PROBE,
                "learning": WDEG | PHASE | DUAL, "everything": BOX_LINE | ALLDIFF | PROBE | WDEG | PHASE | DUAL}


@pytest.mark.parametrize("name", FEATURE_SETS)
def test_counts_equal_the_deterministic_counts(name):
    """0, 1 and several solutions (limit 5) on 4x4, 9x9 and 16x16 cases: each feature keeps the count a proof."""
    counts = set()
    for order, count in ((2, 24), (3, 18), (4, 6)):
        for givens in _cases(order, count, seed=order):
            reference = exact.count_solutions(givens, order, limit=5)
            answer = exact.count_solutions(givens, order, limit=5, seed=11, base_nodes=2, features=FEATURE_SETS[name])
            assert not answer.gave_up and answer.solutions == reference.solutions, (name, givens)
            if answer.solutions:
                assert parse(write(givens, order, "numbers"))[0].check(answer.solution) == []
            counts.add(min(answer.solutions, 2))
    assert counts == {0, 1, 2}


@pytest.mark.parametrize("features", [0, MINISAT_STYLE & ~CLAUSES])
def test_the_clause_learning_counts_from_a_root_the_rules_never_saw(features):
    """``cdcl`` straight from the givens' candidates: a given's digit still a candidate of its peers, a cell or a
    unit's digit with one place left (``implicit.level_zero`` settles them before the first decision), wrong givens,
    a grid full of givens. Its counts (limit 50) equal the deterministic search's."""
    from gpu_sa.puzzles.sudoku.exact.board import initial_candidates, tables
    from gpu_sa.puzzles.sudoku.exact.clauses import cdcl, noise

    counts = set()
    for order, count in ((2, 30), (3, 24), (4, 6)):
        _, units, _, _ = tables(order)
        cases = list(_cases(order, count, seed=order + 7))
        full = exact.count_solutions(cases[0], order, limit=1).solution
        if full is not None:
            cases += [full, np.where(np.arange(full.size) == 0, (full + 1) % (order * order), full)]
        for givens in cases:
            cand = initial_candidates(givens, order)
            masks = np.zeros(cand.shape[0], dtype=np.uint64)
            answer = cdcl(cand, units, 50, 10 ** 9, np.zeros(1, np.uint8), noise(cand.size * order ** 2, 3, 4),
                          masks, features, np.zeros(3, np.int64))
            reference = exact.count_solutions(givens, order, limit=50)
            assert answer[0] == reference.solutions and answer[4] == 0, (order, givens)
            if answer[0]:
                digits = np.array([int(mask).bit_length() - 1 for mask in masks])
                assert parse(write(givens, order, "numbers"))[0].check(digits) == []
            counts.add(min(answer[0], 2))
    assert counts == {0, 1, 2}


@pytest.mark.parametrize("name", ["learning", "clauses"])
def test_the_answer_depends_on_the_seed_only(name):
    """Learning carried across restarts (weights, phases: restart i learns from restarts up to i - LAG) gives the
    same restarts, nodes and solution on 1, 2 or 3 threads."""
    features = FEATURE_SETS[name]
    runs = [exact.count_solutions(HARD.givens, 3, limit=2, seed=5, threads=threads, base_nodes=3, features=features)
            for threads in (1, 2, 3, 1)]
    first = runs[0]
    assert first.solutions == 1 and not first.gave_up and first.nodes > 0
    if name == "learning":
        assert first.restarts > 2
    for run in runs[1:]:
        assert (run.solutions, run.nodes, run.final_nodes, run.restarts) == \
               (first.solutions, first.nodes, first.final_nodes, first.restarts)
        assert np.array_equal(run.solution, first.solution)


def test_a_search_resumed_with_what_it_learned_is_the_search_in_one_call():
    features = WDEG | PHASE
    whole = exact.count_solutions(HARD.givens, 3, limit=1, seed=5, base_nodes=3, threads=2, features=features)
    assert whole.restarts > 5 and not whole.gave_up
    first = exact.count_solutions(HARD.givens, 3, limit=1, seed=5, base_nodes=3, max_nodes=15, features=features)
    assert first.gave_up and first.resume_at == 4 and first.learned is not None
    rest = exact.count_solutions(HARD.givens, 3, limit=1, seed=5, base_nodes=3, threads=2, features=features,
                                 first_restart=first.resume_at, learned=first.learned)
    assert rest.restarts == whole.restarts - 4 and rest.final_nodes == whole.final_nodes
    assert np.array_equal(rest.solution, whole.solution)


def test_each_restart_adds_only_the_new_restarts_phases(monkeypatch):
    """What earlier restarts taught is a running sum: k restarts cost about k overlays of saved phases, not the
    k^2 / 2 of summing from the start for each (a hard 9x9 with 1,023 restarts: 4.7 s of overlays that way)."""
    calls = []

    def counted(phases, newer):
        calls.append(1)
        return learning.overlay(phases, newer)
    monkeypatch.setattr(restarts, "overlay", counted)
    answer = exact.count_solutions(HARD.givens, 3, limit=1, seed=5, base_nodes=2, threads=1, features=PHASE)
    assert not answer.gave_up and answer.restarts > 50
    assert len(calls) <= 2 * answer.restarts


def test_short_restarts_run_one_at_a_time_with_the_answer_of_one_thread(monkeypatch):
    """Two threads, restarts of a few branches that learn: none below ``PARALLEL_NODES`` starts beside another (beside
    one another they wait for each other: 12 times slower than one thread), and the answer
    is one thread's."""
    lock, running, overlaps = threading.Lock(), [], []

    def watched(*args):
        budget = args[6]
        with lock:
            if running and budget < restarts.PARALLEL_NODES:
                overlaps.append((tuple(running), budget))
            running.append(budget)
        try:
            return search_core(*args)
        finally:
            with lock:
                running.remove(budget)
    search_core = restarts.search_core
    alone = exact.count_solutions(HARD.givens, 3, limit=2, seed=5, base_nodes=2, threads=1, features=PHASE)
    monkeypatch.setattr(restarts, "search_core", watched)
    two = exact.count_solutions(HARD.givens, 3, limit=2, seed=5, base_nodes=2, threads=2, features=PHASE)
    assert alone.restarts > 50 and overlaps == []
    assert (two.solutions, two.nodes, two.restarts) == (alone.solutions, alone.nodes, alone.restarts)
    assert np.array_equal(two.solution, alone.solution)


def test_a_restart_that_raises_ends_the_search_with_its_error(monkeypatch):
    """Two threads: a restart that raises (a MemoryError, say) must not leave the other thread waiting for ever,
    whether for the restart it learns from or for its turn to run a short restart; the error reaches the caller."""
    search_core = restarts.search_core

    def failing(*args):
        if args[12] == 9:  # the restart's index
            raise MemoryError("no room for the restart")
        return search_core(*args)
    monkeypatch.setattr(restarts, "search_core", failing)
    for features in (0, PHASE):
        errors = []

        def search():
            try:
                exact.count_solutions(HARD.givens, 3, limit=2, seed=5, base_nodes=2, threads=2, features=features)
            except MemoryError as error:
                errors.append(error)
        caller = threading.Thread(target=search, daemon=True)
        caller.start()
        caller.join(20)
        assert not caller.is_alive() and len(errors) == 1, features


def test_probing_and_alldifferent_prove_a_contradiction_the_rules_miss():
    """A puzzle with one wrong given that the seed's rules do not refute: the strengthened root does, or the search
    does; either way 0 solutions, proven."""
    puzzle = parse((DATA / "seed_puzzles.txt").read_text())[1]
    solution = puzzle.count_solutions(limit=1).solution
    for cell in np.flatnonzero(puzzle.givens < 0):
        givens = puzzle.givens.copy()
        givens[cell] = (int(solution[cell]) + 1) % 9
        if exact.propagate(givens, 3).contradiction:
            continue
        for features in (ALLDIFF | PROBE, CLAUSES, BOX_LINE | WDEG | DUAL):
            answer = exact.count_solutions(givens, 3, limit=2, seed=1, features=features)
            assert answer.solutions == 0 and not answer.gave_up
        return
    pytest.fail("no wrong given survives propagation")


def test_the_default_features_by_order():
    assert [counting.default_features(order) for order in (2, 3, 4)] == [0, 0, 0]
    assert all(counting.default_features(order) & CLAUSES for order in (5, 6, 7, 8))
    with pytest.raises(ValueError, match="features"):
        exact.count_solutions(HARD.givens, 3, seed=1, features=1 << 20)


@pytest.mark.parametrize("order", [5, 6, 7, 8])
def test_an_empty_grid_is_filled_without_a_cnf(order):
    """The learning search first runs one descent of the seed's search: an empty grid (every order) is filled
    there, without backtracking, without building a CNF (an empty 64x64's would have 67 million literals)."""
    empty = np.full(order ** 4, -1, dtype=np.int16)
    assert counting.cnf_literals(exact.initial_candidates(empty, order), order) == 4 * order ** 8
    answer = exact.count_solutions(empty, order, limit=1, seed=1)
    assert answer.solutions == 1 and not answer.gave_up and answer.restarts == 1 and answer.nodes < order ** 4
    assert parse(write(np.full(order ** 4, -1), order, "numbers"))[0].check(answer.solution) == []


def test_a_time_limit_is_not_cut_by_the_default_node_cap(monkeypatch):
    seen = {}

    def spy(*args, **options):
        seen.update(options)
        return original(*args, **options)

    original = exact.count_solutions
    monkeypatch.setattr(exact, "count_solutions", spy)
    HARD.count_solutions(limit=1, seed=1, time_limit=5)
    assert seen["max_nodes"] == exact.NO_NODE_LIMIT
    HARD.count_solutions(limit=1, seed=1)
    assert seen["max_nodes"] == exact.DEFAULT_MAX_NODES


def test_the_time_limit_covers_the_root_of_the_learning_search(monkeypatch):
    """The CDCL's root (the rules' fixpoint of the givens) is built on the limit's clock. It was built after what was
    left of the limit had been taken, so a cold first run, which compiled the rules there (about 10 s on 2 cores),
    answered after twice its --time-limit. A root made slow by 0.6 s:
    the answer still comes within the limit of 1 s (it came after 1.6 s or more)."""
    import time

    from conftest import ROOT

    path = ROOT / "bench" / "data" / "sudoku49_50" / "inst49x49_50_1.txt"  # none of ours solves it in 60 s
    puzzle = parse(path.read_text(), path.name)[0]
    propagate = counting.propagate

    def slow_propagate(*args, **options):
        time.sleep(0.6)
        return propagate(*args, **options)

    monkeypatch.setattr(counting, "propagate", slow_propagate)
    answer = exact.count_solutions(puzzle.givens, 7, limit=1, seed=1, time_limit=1.0)
    assert answer.gave_up and answer.timed_out and answer.solutions == 0
    assert answer.seconds < 1.35, answer.seconds


@pytest.mark.parametrize("order, features, compiled", [
    (3, None, ["search_core"]),  # the default for 9x9: no features
    (3, WDEG, ["search_core", "stronger_root"]),
    (5, None, ["search_core", "stronger_root", "cdcl"]),  # the default from 25x25 up: clause learning
])
def test_only_what_the_features_run_is_compiled_before_the_clock(monkeypatch, order, features, compiled):
    """A seeded search compiles (or loads) before its clock only the parts its features run: a seeded 9x9, the
    README's first command among them, no longer waits for the CDCL's compilation (about 35 s of a cold first run on
    2 cores)."""
    asked = []
    loaded = counting._loaded
    monkeypatch.setattr(counting, "_loaded", lambda entry: asked.append(entry) or loaded(entry))
    answer = exact.count_solutions(np.full(order ** 4, -1, dtype=np.int16), order, limit=1, seed=1, features=features)
    assert answer.solutions == 1 and list(dict.fromkeys(asked)) == compiled  # each once (a second ask is cached)


def test_a_node_cap_is_reported_as_max_nodes_not_time_limit():
    from gpu_sa.apps import solve as app

    answer = app.exact(HARD, method="exact", check_unique=False, options={"max_nodes": 1})
    assert not answer.solved and answer.stopped == "max_nodes" and answer.record["stopped"] == "max_nodes"
    assert "branch limit" in answer.text


def test_threads_beyond_the_cores_are_capped_with_a_note(tmp_path):
    path = tmp_path / "hard.txt"
    path.write_text(write(HARD.givens, 3, "line") + "\n")
    done = run_cli("exact", path, "--seed", "1", "--threads", "1000", "--time-limit", "5", "--json")
    assert done.returncode == 0, done.stderr
    assert "--threads 1000 is more than the" in done.stderr
    assert json.loads(done.stdout)["solutions"] == 1
    answer = exact.count_solutions(HARD.givens, 3, seed=1, threads=1000)
    assert answer.solutions == 1 and not answer.gave_up


def test_a_grown_clause_database_keeps_its_new_clauses():
    """The clause arrays double when the learned clauses fill them; the deletion flags' new half must be zero (it
    was left uninitialised: a new learned clause could read as deleted, and the search then depended on whatever
    memory held, not on the seed alone)."""
    from gpu_sa.puzzles.sudoku.exact.clause_store import _more_clauses

    size = 4096
    for _ in range(8):
        np.full(2 * size, 1, dtype=np.uint8)  # memory the allocator may hand back, dirty
    deleted = np.zeros(size, dtype=np.uint8)
    deleted[::3] = 1
    numbers = np.arange(size, dtype=np.int64)
    *_, grown = _more_clauses(numbers, numbers.copy(), np.full(2 * size, -1, dtype=np.int64), numbers.copy(), deleted)
    assert grown.shape == (2 * size,)
    np.testing.assert_array_equal(grown[:size], deleted)
    assert not grown[size:].any()


def test_target_phases_and_reason_bumps_solve_a_36x36_the_minisat_style_search_cannot_in_the_same_decisions():
    """36x36 at 45 % givens, instance 2: the search (target phases, Luby x 1,024 restarts, reasons bumped,
    recursive minimization) solves it in 9,773 decisions; the search before them (MiniSat's phase saving and
    Luby x 100) needed 514,947 (before the grid's constraints were kept implicit: 18,964 and 401,214). Each
    heuristic alone off still finds a valid solution."""
    from conftest import ROOT

    path = ROOT / "bench" / "data" / "sudoku36_45" / "inst36x36_45_2.txt"
    puzzle = parse(path.read_text(), path.name)[0]
    budget = 40_000
    answer = exact.count_solutions(puzzle.givens, 6, limit=1, seed=1, features=CLAUSES, max_nodes=budget)
    assert answer.solutions == 1 and puzzle.check(answer.solution) == [] and answer.nodes < budget
    before = exact.count_solutions(puzzle.givens, 6, limit=1, seed=1, features=MINISAT_STYLE, max_nodes=budget)
    assert before.solutions == 0 and before.gave_up
    for off in (SHORT_RESTARTS, SAVED_PHASES, NO_REASON_BUMPS, LOCAL_MINIMIZATION, NO_VIVIFY):
        alone = exact.count_solutions(puzzle.givens, 6, limit=1, seed=1, features=CLAUSES | off)
        assert alone.solutions == 1 and puzzle.check(alone.solution) == [], off


def test_vivification_keeps_a_count_that_needs_thousands_of_conflicts_exact():
    """36x36 at 45 % givens, instance 3, with 103 more of its cells given (from the solution the search finds): 4
    solutions, whose count needs about 4,300 conflicts, so the learned clauses are reduced and then vivified (after
    2,000). With and without vivification the count is complete and the same, the first solution valid, and the
    searches differ (vivification changed what the search learned)."""
    from conftest import ROOT
    from gpu_sa.engine import rng
    from gpu_sa.puzzles.sudoku.exact.board import _digits, tables
    from gpu_sa.puzzles.sudoku.exact.clauses import COMPLETE, cdcl, noise
    from gpu_sa.puzzles.sudoku.exact.consistency import strengthened

    puzzle, _ = _root(ROOT / "bench" / "data" / "sudoku36_45" / "inst36x36_45_3.txt", 6)
    solution = exact.count_solutions(puzzle.givens, 6, limit=1, seed=1).solution
    empty = np.flatnonzero(puzzle.givens < 0)
    givens = puzzle.givens.copy()
    more = np.random.default_rng(0).choice(empty, 103, replace=False)
    givens[more] = solution[more]
    cand = exact.initial_candidates(givens, 6)
    peers, units, cell_units, full = tables(6)
    assert strengthened(cand, peers, units, cell_units, full, 0, np.zeros(1, np.uint8))
    key0, key1 = rng.split_seed(1)
    answers = {}
    for features in (0, NO_VIVIFY):
        masks = np.zeros(cand.shape[0], dtype=np.uint64)
        answers[features] = cdcl(cand, units, 50, 10 ** 9, np.zeros(1, np.uint8), noise(cand.size * 36, key0, key1),
                                 masks, features, np.zeros(3, np.int64))
        found, _, conflicts, _, outcome, _ = answers[features]
        assert outcome == COMPLETE and found == 4 and conflicts > 2000, answers
        assert puzzle.check(_digits(masks)) == []
    assert answers[0][1:] != answers[NO_VIVIFY][1:]
    assert exact.count_solutions(givens, 6, limit=50, seed=1).solutions == 4


def test_vivification_steps_through_a_clause():
    """``vivify.step`` on the clause (x0 or x1 or x2 or x3): the next unset literal's negation to decide, a false
    literal passed over, a true one ending it (IMPLIED at a level above 0, SATISFIED at level 0), UNCHANGED when
    every literal was decided without either."""
    from gpu_sa.puzzles.sudoku.exact import vivify

    lits = np.array([0, 2, 4, 6], dtype=np.int64)  # x0 .. x3 true
    cstart = np.array([0], dtype=np.int64)
    clen = np.array([4], dtype=np.int64)
    kept = np.empty(4, dtype=np.int64)

    def start():
        state = np.zeros(vivify.FIELDS, dtype=np.int64)
        state[vivify.CLAUSE] = 0
        return state

    assign = np.full(4, -1, dtype=np.int8)
    level = np.zeros(4, dtype=np.int64)
    state = start()
    assert vivify.step(state, assign, level, lits, cstart, clen, kept) == 1  # decide "not x0"
    assign[0], level[0] = 0, 1
    assign[1], level[1] = 0, 1  # x1 false by propagation: passed over
    assign[2], level[2] = 1, 1  # x2 true by propagation: x0 or x2 is implied
    assert vivify.step(state, assign, level, lits, cstart, clen, kept) == vivify.IMPLIED
    assert list(kept[:state[vivify.KEPT]]) == [0, 4]
    level[2] = 0  # true at level 0: the clause is satisfied for good
    state = start()
    assign[0] = -1
    assert vivify.step(state, assign, level, lits, cstart, clen, kept) == 1
    assign[0] = 0
    assert vivify.step(state, assign, level, lits, cstart, clen, kept) == vivify.SATISFIED
    state = start()
    assign[:] = -1
    for lit in lits:
        assert vivify.step(state, assign, level, lits, cstart, clen, kept) == lit ^ 1
        assign[lit >> 1] = 0
    assert vivify.step(state, assign, level, lits, cstart, clen, kept) == vivify.UNCHANGED
    assert state[vivify.KEPT] == 4


def test_vivification_rounds_take_the_fewest_levels_first_within_their_budget():
    """``start_round`` queues the clauses never tried, with 1-6 levels and more than two literals, fewest levels
    first and newest first among equals; ``next_clause`` skips a deleted clause and one that is a reason, marks
    each clause it hands out as tried, and ends the round when its ticks are spent (a tenth of those since the
    last round)."""
    from gpu_sa.puzzles.sudoku.exact import vivify

    count = 7
    lbd = np.array([3, 2, 7, 3, 0, 2, 2], dtype=np.int64)  # clause 2: too many levels; 4: excludes a solution
    clen = np.array([3, 3, 3, 5, 4, 2, 4], dtype=np.int64)  # clause 5: binary
    deleted = np.zeros(count, dtype=np.uint8)
    tried = np.zeros(count, dtype=np.uint8)
    tried[6] = 1
    state = np.zeros(vivify.FIELDS, dtype=np.int64)
    state[vivify.SINCE] = 1000
    queue = vivify.start_round(state, count, deleted, tried, lbd, clen, 2000)
    assert list(queue) == [1, 3, 0] and state[vivify.LIMIT] == 2100
    cstart = np.array([0, 3, 6, 9, 14, 18, 20], dtype=np.int64)
    lits = np.arange(24, dtype=np.int64) * 2
    reason = np.full(24, -1, dtype=np.int64)
    reason[lits[cstart[3]] >> 1] = 3  # clause 3 implied its first literal
    deleted[1] = 1
    assert vivify.next_clause(state, queue, deleted, tried, reason, lits, cstart, 2000) == 0
    assert tried[0] == 1 and tried[1] == 0 and tried[3] == 0
    assert vivify.next_clause(state, queue, deleted, tried, reason, lits, cstart, 2000) == -1
    assert state[vivify.SINCE] == 2000
    state[vivify.NEXT] = 0
    deleted[1] = 0
    assert vivify.next_clause(state, queue, deleted, tried, reason, lits, cstart, 2100) == -1  # the budget is spent


def test_the_cnf_size_limit_is_judged_on_the_rules_fixpoint(monkeypatch):
    """49x49 at 40 % givens, instance 1: the CNF of the givens' candidates would pass CNF_LITERALS_LIMIT (9.8 million
    literals), that of the rules' fixpoint, which the CDCL search builds, would not (1.1 million). The size was
    measured on the former, so `gpu-sa exact` ran the restarts there instead of the CDCL search."""
    from conftest import ROOT
    from gpu_sa.puzzles.sudoku.exact.board import initial_candidates

    path = ROOT / "bench" / "data" / "sudoku49_40" / "inst49x49_40_1.txt"
    puzzle = parse(path.read_text(), path.name)[0]
    assert counting.cnf_literals(initial_candidates(puzzle.givens, 7), 7) > counting.CNF_LITERALS_LIMIT
    calls = []

    def learned(cand, *args):
        calls.append(counting.cnf_literals(cand, 7))
        return exact.ExactResult(solutions=0, solution=None, nodes=0, seconds=0.0, gave_up=True, seed=1)

    monkeypatch.setattr(counting, "learned_search", learned)
    exact.count_solutions(puzzle.givens, 7, limit=1, seed=1)
    assert len(calls) == 1 and calls[0] < counting.CNF_LITERALS_LIMIT


def _alone(cand, order, search, seed=1, limit=1):
    """cdcl's answer for search ``search`` of a race, run alone from the strengthened root ``cand``."""
    from gpu_sa.engine import rng
    from gpu_sa.puzzles.sudoku.exact.board import tables
    from gpu_sa.puzzles.sudoku.exact.clauses import cdcl, noise

    _, units, _, _ = tables(order)
    key0, key1 = rng.split_seed(seed)
    masks = np.zeros(cand.shape[0], dtype=np.uint64)
    answer = cdcl(cand, units, limit, 10 ** 9, np.zeros(1, np.uint8), noise(cand.shape[0] * units.shape[1], key0, key1,
                  search), masks, CLAUSES, np.zeros(3, np.int64))
    return answer, masks


def _root(path, order):
    from gpu_sa.puzzles.sudoku.exact.board import tables
    from gpu_sa.puzzles.sudoku.exact.consistency import strengthened

    puzzle = parse(path.read_text(), path.name)[0]
    peers, units, cell_units, full = tables(order)
    cand = exact.initial_candidates(puzzle.givens, order)
    assert strengthened(cand, peers, units, cell_units, full, 0, np.zeros(1, np.uint8))
    return puzzle, cand


@pytest.mark.slow
@pytest.mark.parametrize("index", [0, 2, 5])
def test_racing_searches_answer_as_the_one_that_decides_within_the_fewest_ticks(index):
    """36x36 at 45 % givens: three searches race; the answer (solution, decisions, ticks) is that of the search which,
    run alone, decides within the fewest ticks, whichever thread finishes first; twice the same."""
    from conftest import ROOT
    from gpu_sa.engine import rng
    from gpu_sa.puzzles.sudoku.exact.board import tables
    from gpu_sa.puzzles.sudoku.exact.clause_search import race

    puzzle, cand = _root(ROOT / "bench" / "data" / "sudoku36_45" / f"inst36x36_45_{index}.txt", 6)
    alone = [_alone(cand, 6, search) for search in range(3)]
    ticks = [answer[5] for answer, _ in alone]
    assert len(set(ticks)) == 3 and all(answer[0] == 1 for answer, _ in alone)
    best = int(np.argmin(ticks))
    _, units, _, _ = tables(6)
    for _ in range(2):
        masks = np.zeros(cand.shape[0], dtype=np.uint64)
        answer = race(cand, units, 1, 10 ** 9, np.zeros(1, np.uint8), *rng.split_seed(1), CLAUSES, 3, masks)
        assert answer == alone[best][0]
        np.testing.assert_array_equal(masks, alone[best][1])
    whole = exact.count_solutions(puzzle.givens, 6, limit=1, seed=1, features=CLAUSES, searches=3)
    assert whole.solutions == 1 and puzzle.check(whole.solution) == [] and not whole.gave_up
    assert whole.final_nodes == alone[best][0][1]


def test_racing_searches_keep_counts_and_proofs_exact():
    """0, 1 and several solutions (limit 5) with three searches racing from the rules' fixpoint, each search's count
    a proof; the first solution valid."""
    from gpu_sa.engine import rng
    from gpu_sa.puzzles.sudoku.exact.board import tables
    from gpu_sa.puzzles.sudoku.exact.clause_search import race
    from gpu_sa.puzzles.sudoku.exact.clauses import COMPLETE
    from gpu_sa.puzzles.sudoku.exact.consistency import strengthened

    puzzle = parse((DATA / "seed_puzzles.txt").read_text())[1]
    solution = puzzle.count_solutions(limit=1).solution
    wrong = []  # one wrong given each, which the rules do not refute: 0 solutions, proven by the search
    for cell in np.flatnonzero(puzzle.givens < 0):
        givens = puzzle.givens.copy()
        givens[cell] = (int(solution[cell]) + 1) % 9
        if not exact.propagate(givens, 3).contradiction:
            wrong.append(givens)
    counts = []
    for order, cases in ((2, _cases(2, 12, seed=9)), (3, _cases(3, 8, seed=10) + wrong[:3]), (4, _cases(4, 4, seed=11))):
        peers, units, cell_units, full = tables(order)
        for givens in cases:
            reference = exact.count_solutions(givens, order, limit=5)
            cand = exact.initial_candidates(givens, order)
            if not strengthened(cand, peers, units, cell_units, full, 0, np.zeros(1, np.uint8)):
                assert reference.solutions == 0
                continue
            masks = np.zeros(cand.shape[0], dtype=np.uint64)
            found, *_, outcome, _ = race(cand, units, 5, 10 ** 9, np.zeros(1, np.uint8), *rng.split_seed(3), CLAUSES,
                                         3, masks)
            assert outcome == COMPLETE and found == reference.solutions, givens
            if found:
                values = np.log2(masks.astype(np.float64)).astype(np.int64)
                assert parse(write(givens, order, "numbers"))[0].check(values) == []
            counts.append(min(found, 2))
    assert set(counts) == {0, 1, 2} and len(counts) > 10


@pytest.mark.slow
def test_a_race_stops_on_its_time_limit_and_on_a_stop_request():
    import threading
    import time

    from conftest import ROOT

    path = ROOT / "bench" / "data" / "sudoku49_50" / "inst49x49_50_1.txt"  # none of ours solves it in 60 s
    puzzle = parse(path.read_text(), path.name)[0]
    start = time.perf_counter()
    answer = exact.count_solutions(puzzle.givens, 7, limit=1, seed=1, searches=2, time_limit=1.0)
    assert answer.gave_up and answer.timed_out and not answer.interrupted and answer.solutions == 0
    assert time.perf_counter() - start < 6
    flag = np.zeros(1, np.uint8)
    threading.Timer(1.0, lambda: flag.__setitem__(0, 1)).start()
    answer = exact.count_solutions(puzzle.givens, 7, limit=1, seed=1, searches=2, flag=flag)
    assert answer.gave_up and answer.interrupted and not answer.timed_out
    assert not [thread for thread in threading.enumerate() if thread.name.startswith("gpu-sa-cdcl")]


def test_a_failing_search_in_a_race_is_raised_and_stops_the_others(monkeypatch):
    from conftest import ROOT
    from gpu_sa.puzzles.sudoku.exact import clause_search

    original = clause_search.cdcl

    def failing(cand, units, limit, max_nodes, flag, noise, masks, features, published):
        if noise is failing.second:
            raise MemoryError("no room for the CNF")
        return original(cand, units, limit, max_nodes, flag, noise, masks, features, published)

    def noises(count, key0, key1, search=0):
        made = real_noise(count, key0, key1, search)
        if search == 1:
            failing.second = made
        return made

    real_noise = clause_search.noise
    failing.second = None
    monkeypatch.setattr(clause_search, "cdcl", failing)
    monkeypatch.setattr(clause_search, "noise", noises)
    path = ROOT / "bench" / "data" / "sudoku49_50" / "inst49x49_50_1.txt"
    puzzle = parse(path.read_text(), path.name)[0]
    with pytest.raises(MemoryError, match="no room"):
        exact.count_solutions(puzzle.givens, 7, limit=1, seed=1, searches=2, time_limit=30)


def test_the_number_of_searches_is_checked():
    with pytest.raises(ValueError, match="searches"):
        exact.count_solutions(HARD.givens, 3, seed=1, searches=0)
    with pytest.raises(ValueError, match="searches"):
        exact.count_solutions(HARD.givens, 3, seed=1, searches=counting.MAX_SEARCHES + 1)
    with pytest.raises(ValueError, match="published"):
        exact.count_solutions(HARD.givens, 3, seed=1, searches=2, published=np.zeros(2, np.int64))
    from gpu_sa.puzzles import sudoku

    assert sudoku.MAX_SEARCHES == counting.MAX_SEARCHES


def test_searches_from_the_command_line(tmp_path):
    from conftest import ROOT

    path = ROOT / "bench" / "data" / "sudoku36_45" / "inst36x36_45_2.txt"
    done = run_cli("exact", path, "--seed", "1", "--searches", "2", "--count-limit", "1", "--json")
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["solutions"] == 1 and not record["gave_up"]
    bad = run_cli("exact", path, "--seed", "1", "--searches", "0")
    assert bad.returncode == 2 and "--searches" in bad.stderr and "Traceback" not in bad.stderr


def test_a_reduction_moves_the_kept_learned_clauses_over_the_deleted_ones():
    """``_reduce`` deletes the half of the learned clauses that span the most levels (not a reason on the trail), then
    moves the kept ones' literals down, each intact and in order: without it the literals grew by some 15 MB a
    second at 49x49 (a minute's search held a gigabyte)."""
    from gpu_sa.puzzles.sudoku.exact.clause_store import _reduce

    original_literals = [[0, 2], [4, 6, 8]]
    learned = [[1, 3, 5], [7, 9], [11, 13, 15, 17], [19, 21], [23, 25, 27], [29, 31]]
    levels = [3, 9, 8, 4, 7, 2]  # the last: two levels, never deleted
    clauses = original_literals + learned
    cstart = np.array(np.cumsum([0] + [len(c) for c in clauses])[:-1], dtype=np.int64)
    clen = np.array([len(c) for c in clauses], dtype=np.int64)
    lits = np.array([lit for clause in clauses for lit in clause] + [-1] * 8, dtype=np.int64)
    used = int(clen.sum())
    lbd = np.array([0, 0] + levels, dtype=np.int64)
    deleted = np.zeros(len(clauses), dtype=np.uint8)
    reason = np.full(40, -1, dtype=np.int64)
    reason[11 >> 1] = 4  # clause 4 (lbd 8) implied a literal on the trail: it stays
    used = _reduce(lbd, deleted, 2, len(clauses), reason, cstart, clen, lits, used)
    # candidates: clauses 2, 3, 4, 5, 6 less the locked 4 -> 2, 3, 5, 6; the two with the most levels go (3: 9, 6: 7)
    assert list(np.flatnonzero(deleted)) == [3, 6]
    kept = [c for c in range(len(clauses)) if not deleted[c]]
    assert used == sum(len(clauses[c]) for c in kept)
    for c in kept:
        assert list(lits[cstart[c]:cstart[c] + clen[c]]) == clauses[c]
    assert sorted(cstart[c] for c in kept) == list(np.cumsum([0] + [len(clauses[c]) for c in kept])[:-1])


def test_the_search_helpers_are_compiled_without_reference_counting():
    """The CDCL calls these per literal or per conflict with its arrays; numba's reference counting (an atomic
    increment and decrement per array per call) would take a third of the search's time at 49x49. Compiled with
    ``_nrt=False`` they have none; ``inline="always"`` or plain ``njit`` would bring it back. The search itself is
    unchanged, which the counts and seeds above check."""
    import numba

    from gpu_sa.puzzles.sudoku.exact import clauses, implicit

    hot = [(clauses, name) for name in ("_value", "_bump", "_heap_up", "_heap_down", "_bump_reasons", "_keep_target",
                                        "_implied", "_undo")]
    hot += [(implicit, name) for name in ("_assign", "_restore", "_literals")]
    for module, name in hot:
        options = getattr(module, name).targetoptions
        assert options.get("_nrt") is False and options.get("inline", "never") == "never", name
    # what the option does, on a fresh compilation of one of them (the search's own may come from the disk cache)
    without = numba.njit(_nrt=False)(clauses._heap_up.py_func)
    counted = numba.njit(clauses._heap_up.py_func)
    for compiled in (without, counted):
        heap, where, activity = np.arange(4), np.arange(4), np.array([1.0, 2.0, 3.0, 4.0])
        compiled(heap, where, activity, 3)  # the most active variable, last, rises to the top
        assert list(heap) == [3, 0, 2, 1] and list(where) == [1, 3, 2, 0]
    llvm = without.inspect_llvm(without.signatures[0])
    assert "@NRT_incref" not in llvm and "@NRT_decref" not in llvm
    assert "@NRT_decref" in counted.inspect_llvm(counted.signatures[0])  # the check sees counting where there is some
