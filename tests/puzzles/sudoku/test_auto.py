"""Method auto for Sudoku: propagation, then the complete search and the annealer in turns, deterministic."""
import dataclasses

import numpy as np
import pytest

import gpu_sa
from chain_cases import PUZZLES
from conftest import DATA, ROOT
from gpu_sa.puzzles.sudoku import auto as portfolio
from gpu_sa.puzzles.sudoku.formats import write

EASY = (ROOT / "examples" / "seed_easy.txt").read_text()


def test_propagation_answers_first():
    answer = portfolio.solve(gpu_sa.parse(EASY)[0], seed=1, backend="cpu")
    assert answer.solved and answer.method == "propagation" and answer.rounds == 0


def test_a_contradiction_is_no_solution_at_once():
    puzzle = gpu_sa.parse("12345678." + "........9" + "." * 63)[0]  # r1c9 can be neither 9 (its column) nor 1-8
    answer = portfolio.solve(puzzle, seed=1, backend="cpu")
    assert not answer.solved and answer.stopped == "contradiction" and answer.method == "propagation"


def test_the_complete_search_answers_a_hard_puzzle_and_proves_it():
    puzzle = gpu_sa.parse(PUZZLES["order3_hard"])[0]
    answer = portfolio.solve(puzzle, seed=3, backend="cpu")
    assert answer.solved and answer.method == "exact" and answer.rounds == 1 and not puzzle.check(answer.solution)


@pytest.mark.slow
def test_the_annealer_answers_when_the_search_budget_is_spent(monkeypatch):
    monkeypatch.setattr(portfolio, "EXACT_NODES", 1)  # the search gives up at once: only the annealer can answer
    monkeypatch.setattr(portfolio, "PROPOSALS_PER_NODE", 400_000)
    puzzle = gpu_sa.parse(PUZZLES["order3_hard"])[0]
    first = portfolio.solve(puzzle, seed=5, backend="cpu")
    again = portfolio.solve(puzzle, seed=5, backend="cpu")
    assert first.solved and first.method == "anneal" and not puzzle.check(first.solution)
    assert (first.rounds, first.nodes, first.moves, first.anneal.chain) == (again.rounds, again.nodes, again.moves,
                                                                             again.anneal.chain)
    np.testing.assert_array_equal(first.solution, again.solution)


def test_a_time_limit_ends_it_without_an_answer(monkeypatch):
    monkeypatch.setattr(portfolio, "EXACT_NODES", 1)
    monkeypatch.setattr(portfolio, "PROPOSALS_PER_NODE", 1)
    puzzle = gpu_sa.parse(PUZZLES["order3_hard"])[0]
    answer = portfolio.solve(puzzle, seed=1, backend="cpu", time_limit=0.5)
    assert answer.stopped in ("time_limit", "solved")  # a lucky early round may still answer
    if answer.stopped == "time_limit":
        assert not answer.solved and answer.solution is None


def test_no_solution_is_proven_by_the_search():
    """A unique puzzle plus one given that disagrees with its solution, which propagation alone does not
    refute: the search's first round ends without giving up, and that is a proof."""
    answer = portfolio.solve(_wrong_given_needing_search(), seed=1, backend="cpu")
    assert not answer.solved and answer.method == "exact" and answer.stopped == "no_solution"


def _wrong_given_needing_search():
    """A unique puzzle plus one given that disagrees with its solution, which propagation alone does not refute."""
    puzzle = gpu_sa.parse((DATA / "seed_puzzles.txt").read_text())[1]
    solution = puzzle.count_solutions(limit=1).solution
    for cell in np.flatnonzero(puzzle.givens < 0):
        givens = puzzle.givens.copy()
        givens[cell] = (int(solution[cell]) + 1) % 9
        wrong = gpu_sa.parse(puzzle.write(givens, "line"))[0]
        if not wrong.contradicts():
            return wrong
    pytest.fail("no contradiction needing search was found")


@pytest.mark.parametrize("order", range(2, 9))
def test_the_warm_up_takes_the_easy_path_at_every_order(order):
    """The warm-up's stand-in puzzle goes through propagation, the search's first restart (no worker thread,
    no annealing) and the validator, as an easy puzzle of that order does; the answer is a valid grid."""
    puzzle = gpu_sa.parse(EASY)[0].stand_in(order)
    assert (puzzle.givens < 0).sum() == 3 * order * order
    answer = portfolio._rounds(puzzle, portfolio._Work(start=0.0, setup=0.0), seed=0, backend=None, chains=None,
                               threads=1, progress=None, anneal=False)
    assert answer.solved and answer.method == "exact" and answer.restarts == 1 and 0 < answer.nodes <= 256
    assert not puzzle.check(answer.solution)


def test_each_round_resumes_the_search_where_the_last_one_stopped(monkeypatch):
    monkeypatch.setattr(portfolio, "EXACT_NODES", 5)
    monkeypatch.setattr(portfolio, "PROPOSALS_PER_NODE", 0)  # one plateau per annealing round: the search answers
    calls = []
    search = portfolio.exact.count_solutions

    def recorded(*args, **options):
        result = search(*args, base_nodes=3, **options)  # restarts of 3 x Luby branches: many rounds
        calls.append((options["first_restart"], result))
        return result

    monkeypatch.setattr(portfolio.exact, "count_solutions", recorded)
    monkeypatch.setattr(portfolio, "_warmed", set())  # the warm-up's searches come first, whatever ran before
    puzzle = gpu_sa.parse((DATA / "sudoku_samples.txt").read_text())[25]  # one of the forum's hardest
    answer = portfolio.solve(puzzle, seed=5, backend="cpu")
    timed = calls[1 + portfolio.WARM_UP_RUNS:]  # after the warm-up's searches
    assert answer.solved and answer.method == "exact" and len(timed) == answer.rounds > 2
    assert [first for first, _ in timed] == [0] + [result.resume_at for _, result in timed[:-1]]
    firsts = [first for first, _ in timed]
    # a restart whose Luby budget exceeds a round's budget is cut, and run again whole by a later round
    assert firsts == sorted(firsts) and firsts[-1] > 0
    assert answer.restarts == sum(result.restarts for _, result in timed)


@pytest.mark.parametrize("order", [2, 3, 4, 5, 6, 7, 8])
def test_an_empty_grid_is_answered_at_once(order):
    """A trivial puzzle is trivial for auto. Below LOCAL_SEARCH_ORDER an empty grid is filled by
    the complete search's first round, with no backtracking (fewer branches than cells) and no annealing round; from
    it up, by the local search's chains before the search's first slice is due (as fast as that slice's descent)."""
    puzzle = gpu_sa.parse(write(np.full(order ** 4, -1), order, "numbers"))[0]
    answer = portfolio.solve(puzzle, seed=1, backend="cpu")
    assert answer.solved and not puzzle.check(answer.solution)
    if order < portfolio.LOCAL_SEARCH_ORDER:
        assert answer.method == "exact" and answer.rounds == 1 and answer.moves == 0 and answer.nodes < order ** 4
    else:
        assert answer.method == "anneal" and answer.rounds == 0 and answer.nodes == 0
        assert 0 < answer.moves < portfolio.FIRST_SLICE_MOVES


def test_a_large_grid_the_rules_nearly_fill_is_answered_by_one_descent_before_any_chain():
    """From LOCAL_SEARCH_ORDER a root with at most FEW_FREE_CELLS free cells (36x36 at 60 % givens: 8-35) gets slice
    0, one descent, before the chains are built: there the chains' set-up costs more than the search."""
    path = ROOT / "bench" / "data" / "sudoku_ls" / "INST_36x36" / "60" / "inst36x36_60_0.txt"
    puzzle = gpu_sa.parse(path.read_text())[0]
    assert 0 < puzzle.propagated.free <= portfolio.FEW_FREE_CELLS
    answer = portfolio.solve(puzzle, seed=1, backend="cpu")
    assert answer.solved and not puzzle.check(answer.solution)
    assert answer.method == "exact" and answer.moves == 0 and answer.anneal is None and answer.rounds == 1


@pytest.mark.parametrize("path", ["rounds", "local_search"])
def test_a_stop_while_the_chains_are_set_up_is_an_interrupted_answer(monkeypatch, path):
    """runner.anneal raises stop.Interrupted when the stop came before its chains ran (once a StopIteration that
    escaped as a traceback): auto answers 'interrupted', as for a stop between chunks."""
    from gpu_sa.engine import stop

    def stopped_in_set_up(*args, **kwargs):
        raise stop.Interrupted("setting up the chains")

    if path == "rounds":
        monkeypatch.setattr(portfolio, "EXACT_NODES", 1)
    else:
        monkeypatch.setattr(portfolio, "LOCAL_SEARCH_ORDER", 3)
        search = portfolio.exact.count_solutions
        monkeypatch.setattr(portfolio.exact, "count_solutions", lambda *a, **o: search(*a, **{**o, "max_nodes": 1}))
    monkeypatch.setattr(portfolio, "_warm_up", lambda puzzle, backend: None)
    monkeypatch.setattr(portfolio.runner, "anneal", stopped_in_set_up)
    answer = portfolio.solve(gpu_sa.parse(PUZZLES["order3_hard"])[0], seed=1, backend="cpu")
    assert answer.stopped == "interrupted" and not answer.solved and answer.solution is None


# From LOCAL_SEARCH_ORDER up, one long run of move tabu's chains with the search in slices between.
# The 9x9 cases below lower LOCAL_SEARCH_ORDER to 3 so that the rules are checked in milliseconds.

def test_from_the_local_search_order_the_chains_answer_and_replay(monkeypatch):
    monkeypatch.setattr(portfolio, "LOCAL_SEARCH_ORDER", 3)
    search = portfolio.exact.count_solutions
    monkeypatch.setattr(portfolio.exact, "count_solutions", lambda *a, **o: search(*a, **{**o, "max_nodes": 1}))
    puzzle = gpu_sa.parse(PUZZLES["order3_hard"])[0]
    first = portfolio.solve(puzzle, seed=5, backend="cpu")
    again = portfolio.solve(puzzle, seed=5, backend="cpu")
    assert first.solved and first.method == "anneal" and not puzzle.check(first.solution)
    assert first.anneal.chains == 2 * 1 or first.anneal.chains == gpu_sa.engine.backends.CpuBackend().cores()
    assert (first.anneal.chain, first.anneal.chain_moves) == (again.anneal.chain, again.anneal.chain_moves)
    np.testing.assert_array_equal(first.solution, again.solution)


@pytest.mark.parametrize("per_literal", [0, 1, 2])
def test_the_slices_run_at_their_move_counts_and_a_solving_slice_answers(monkeypatch, per_literal):
    """Slice 0 (one descent) once the chains have made FIRST_SLICE_MOVES moves, slice k >= 1 once they have made
    M x 2^(k-1), M = max(FIRST_SLICE_MOVES, per literal x the literals of the search's CNF): per_literal 0 spaces
    them by FIRST_SLICE_MOVES alone, 1 and 2 by the CNF."""
    monkeypatch.setattr(portfolio, "LOCAL_SEARCH_ORDER", 3)
    monkeypatch.setattr(portfolio, "FIRST_SLICE_MOVES", 4)
    monkeypatch.setattr(portfolio, "SLICE_MOVES_PER_LITERAL", per_literal)
    monkeypatch.setattr(portfolio, "NODES_PER_MOVE_SHIFT", 0)
    monkeypatch.setattr(portfolio, "FEW_FREE_CELLS", 0)  # a 9x9's free cells would have slice 0 run before any move
    seen = []  # (moves per chain the chains had made, the slice's branches)
    moves = [0]
    search = portfolio.exact.count_solutions

    def recorded(*args, **options):
        seen.append((moves[0], options["max_nodes"]))
        return search(*args, **options)

    monkeypatch.setattr(portfolio.exact, "count_solutions", recorded)
    monkeypatch.setattr(portfolio, "_warmed", {("x",)})  # no warm-up searches in the record
    monkeypatch.setattr(portfolio, "_warm_up", lambda puzzle, backend: None)
    puzzle = gpu_sa.parse(PUZZLES["order3_hard"])[0]
    answer = portfolio.solve(puzzle, seed=3, backend="cpu", progress=lambda record: moves.__setitem__(0, record.moves))
    assert answer.solved and not puzzle.check(answer.solution)
    root = portfolio.exact.propagate(puzzle.givens, 3)
    free = int((root.values < 0).sum())
    literals = portfolio.exact.cnf_literals(root.candidates, 3)
    assert literals > 4  # so that per_literal 1 and 2 space the slices differently from 0
    first = max(4, per_literal * literals)
    assert seen[0][0] >= 4 and seen[0][1] == max(free, portfolio.FIRST_SLICE_NODES)  # slice 0: one descent
    for index, (made, nodes) in enumerate(seen[1:], start=1):
        due = first << (index - 1)
        assert nodes == due and made >= due  # slice k once the chains made its moves, that many branches
    if answer.method == "exact":
        assert answer.rounds == len(seen)
    else:  # the chains solved before the next slice was due
        assert answer.anneal.chain_moves <= first << (len(seen) - 1)


def test_no_solution_is_still_proven_at_the_local_search_orders(monkeypatch):
    monkeypatch.setattr(portfolio, "LOCAL_SEARCH_ORDER", 3)
    answer = portfolio.solve(_wrong_given_needing_search(), seed=1, backend="cpu")
    assert not answer.solved and answer.method == "exact" and answer.stopped == "no_solution"


def test_a_36x36_near_the_phase_transition_is_answered_by_the_local_search():
    """Sudoku-LS's 36x36 at 40 % givens, instance 1: the search's first slices cannot answer it, the chains do
    (in about 0.1 s on two cores)."""
    puzzle = gpu_sa.parse((ROOT / "bench" / "data" / "sudoku_ls" / "INST_36x36" / "40" /
                           "inst36x36_40_1.txt").read_text())[0]
    answer = portfolio.solve(puzzle, seed=1, backend="cpu", time_limit=60)
    assert answer.solved and answer.method == "anneal" and not puzzle.check(answer.solution)
    assert answer.anneal.chains == gpu_sa.engine.backends.CpuBackend().cores()


# At 25x25 on two cores or more, the search on a thread of its own beside the chains. Which one answers
# is decided by counts (N branches against M moves per chain, at MOVES_PER_NODE), never by which thread is ahead.

NEAR_TRANSITION_25 = ROOT / "bench" / "data" / "sudoku_ls" / "INST_25x25" / "40"


def _side_by_side_parts(puzzle, rows):
    """(the search's branches to its answer, the first solving chain's moves), each run alone as auto runs it."""
    from gpu_sa.engine import backends, runner

    found = puzzle.propagated
    assert portfolio.DESCENT_BESIDE[0] < found.free / found.values.size < portfolio.DESCENT_BESIDE[1]
    search = portfolio.exact.count_solutions(puzzle.givens, puzzle.order, limit=1, seed=1, threads=1,
                                             max_nodes=portfolio.exact.NO_NODE_LIMIT, propagated=found)
    chains = runner.anneal(puzzle, backend=backends.CpuBackend(), chains=rows, seed=1, trials=1)
    assert search.solutions and chains.solved
    return search, chains


def _two_cores(monkeypatch):
    monkeypatch.setattr(portfolio, "available_cores", lambda: 2)  # one chain beside the search, whatever the host


def _chains_first(monkeypatch, moves):
    """``moves``: the chains (one per core: two) alone for that many moves, then the search beside them; None: the
    search beside one chain from the first move (what auto does below CHAINS_FIRST_SHARE). Returns (the moves before
    the search, the chains)."""
    if moves is None:
        monkeypatch.setattr(portfolio, "CHAINS_FIRST_SHARE", 1.0)
        return 0, 1
    monkeypatch.setattr(portfolio, "CHAINS_FIRST_MOVES", moves)
    return moves, 2


@pytest.mark.parametrize("index", [0, 3])
@pytest.mark.parametrize("rate", [1, "default", 10**6])
@pytest.mark.parametrize("first", [None, 1000])
def test_side_by_side_the_earlier_count_answers(monkeypatch, index, rate, first):
    """The answer is the search's when the moves before it plus its branches x MOVES_PER_NODE are at most the
    solving chain's moves, else the chains': predicted from each run alone. Rate 1 favours the search, 10**6 the
    chains; ``first``: the chains alone for that many moves first (None: the search beside one chain at once)."""
    _two_cores(monkeypatch)
    if rate != "default":
        monkeypatch.setattr(portfolio, "MOVES_PER_NODE", rate)
    after, rows = _chains_first(monkeypatch, first)
    puzzle = gpu_sa.parse((NEAR_TRANSITION_25 / f"inst25x25_40_{index}.txt").read_text())[0]
    search, chains = _side_by_side_parts(puzzle, rows)
    answer = portfolio.solve(puzzle, seed=1, backend="cpu")
    assert answer.solved and not puzzle.check(answer.solution) and answer.rounds == 1
    assert answer.anneal.chains == rows
    if after + search.nodes * portfolio.MOVES_PER_NODE <= chains.chain_moves:
        assert answer.method == "exact" and answer.nodes == search.nodes
        np.testing.assert_array_equal(answer.solution, search.solution)
        # the chains went past its count first
        assert answer.moves >= after + search.nodes * portfolio.MOVES_PER_NODE
    else:
        assert answer.method == "anneal" and answer.anneal.chain_moves == chains.chain_moves
        np.testing.assert_array_equal(answer.solution, chains.solution)
        # the search went past it first (or never started: the chains solved before it was due)
        assert answer.nodes > (chains.chain_moves - after) // portfolio.MOVES_PER_NODE


@pytest.mark.parametrize("index", [0, 3])
def test_near_the_transition_the_chains_run_alone_first(monkeypatch, index):
    """25x25 at 40 % givens (more than CHAINS_FIRST_SHARE of the cells free): one chain per core, and no branch of
    the search when two chains solve within CHAINS_FIRST_MOVES (the 10 Sudoku-LS dev grids: 2,536-16,123 moves)."""
    _two_cores(monkeypatch)
    puzzle = gpu_sa.parse((NEAR_TRANSITION_25 / f"inst25x25_40_{index}.txt").read_text())[0]
    found = puzzle.propagated
    assert found.free / found.values.size > portfolio.CHAINS_FIRST_SHARE
    answer = portfolio.solve(puzzle, seed=1, backend="cpu")
    assert answer.method == "anneal" and answer.anneal.chains == 2
    assert answer.anneal.chain_moves < portfolio.CHAINS_FIRST_MOVES and answer.nodes == 0


def test_a_search_due_before_the_solving_move_runs_even_if_no_chunk_started_it(monkeypatch):
    """The search is due one move before the chains solve: no chunk boundary lies between the two, so it starts only
    after the chunk in which they solved, and must then run past its due count (0 branches) before they answer."""
    _two_cores(monkeypatch)
    puzzle = gpu_sa.parse((NEAR_TRANSITION_25 / "inst25x25_40_0.txt").read_text())[0]
    _, chains = _side_by_side_parts(puzzle, 2)
    _chains_first(monkeypatch, chains.chain_moves - 1)
    started = []
    start = portfolio._SearchBeside.start
    monkeypatch.setattr(portfolio._SearchBeside, "start",
                        lambda self: (started.append(self.moves if self.thread is None else None), start(self)))
    answer = portfolio.solve(puzzle, seed=1, backend="cpu")
    assert answer.method == "anneal" and answer.anneal.chain_moves == chains.chain_moves and answer.nodes >= 1
    assert started[0] >= chains.chain_moves  # started after the chains' last chunk


@pytest.mark.parametrize("first", [None, 1000])
def test_the_search_never_runs_during_the_chains_set_up(monkeypatch, first):
    """The chains' set-up is off the clock, so the search starts only once it is done: at once (beside one chain
    from the first move) or after the chains' first ``first`` moves."""
    _two_cores(monkeypatch)
    _chains_first(monkeypatch, first)
    puzzle = gpu_sa.parse((NEAR_TRANSITION_25 / "inst25x25_40_3.txt").read_text())[0]
    events = []
    start, anneal = portfolio._SearchBeside.start, portfolio.runner.anneal
    monkeypatch.setattr(portfolio._SearchBeside, "start",
                        lambda self: (self.thread is None and events.append(("search", self.moves)), start(self)))

    def chains(*args, on_ready, **kwargs):
        events.append(("set-up", 0))
        return anneal(*args, on_ready=lambda: (events.append(("ready", 0)), on_ready()), **kwargs)

    monkeypatch.setattr(portfolio.runner, "anneal", chains)
    portfolio.solve(puzzle, seed=1, backend="cpu")
    assert events[:2] == [("set-up", 0), ("ready", 0)] and events[2][0] == "search"
    assert events[2][1] == 0 if first is None else events[2][1] >= first


@pytest.mark.parametrize("first,index,winner", [(None, 0, "anneal"), (None, 3, "exact"), (1000, 3, "exact")])
@pytest.mark.parametrize("late", ["search", "chains"])
def test_side_by_side_does_not_depend_on_which_thread_is_ahead(monkeypatch, late, first, index, winner):
    """The same answer when one side is held back 50 ms (the search's thread as it starts, or every chunk of the
    chains), with the search beside one chain at once or joining two chains after 1,000 moves."""
    import time

    _two_cores(monkeypatch)
    _chains_first(monkeypatch, first)
    puzzle = gpu_sa.parse((NEAR_TRANSITION_25 / f"inst25x25_40_{index}.txt").read_text())[0]
    first_answer = portfolio.solve(puzzle, seed=1, backend="cpu")
    if late == "search":
        search = portfolio._SearchBeside._search
        monkeypatch.setattr(portfolio._SearchBeside, "_search", lambda self: (time.sleep(0.05), search(self)))
        again = portfolio.solve(puzzle, seed=1, backend="cpu")
    else:
        again = portfolio.solve(puzzle, seed=1, backend="cpu", progress=lambda record: time.sleep(0.05))
    # the winner's count is the same; the loser's work (how far past it the other side went) is what the threads did
    assert first_answer.method == again.method == winner
    if winner == "exact":
        assert first_answer.nodes == again.nodes
    else:
        assert first_answer.anneal.chain_moves == again.anneal.chain_moves
    np.testing.assert_array_equal(first_answer.solution, again.solution)


@pytest.mark.parametrize("chains_first", [False, True])
def test_side_by_side_proves_no_solution(monkeypatch, chains_first):
    """The search beside the chains still proves "no solution" (the 9x9 case, side by side from order 3, the
    descent inside the search's thread): the chains stop at the proof. With the chains first, their trial ends
    (a short schedule) before the search was due: it then starts, alone, and proves it."""
    import threading

    _two_cores(monkeypatch)
    monkeypatch.setattr(portfolio, "SIDE_BY_SIDE_ORDERS", frozenset({3}))
    monkeypatch.setattr(portfolio, "DESCENT_BESIDE", (0.0, 1.0))
    if chains_first:
        monkeypatch.setattr(portfolio, "CHAINS_FIRST_SHARE", 0.0)
        monkeypatch.setattr(portfolio, "CHAINS_FIRST_MOVES", 10**6)
        short = portfolio.runner.default_schedule
        monkeypatch.setattr(portfolio.runner, "default_schedule",
                            lambda move, **kw: dataclasses.replace(short(move, **kw), n_plateaus=10))
    else:
        monkeypatch.setattr(portfolio, "CHAINS_FIRST_SHARE", 1.0)
    puzzle = _wrong_given_needing_search()
    assert portfolio.side_by_side(3, portfolio.runner.backends_module.CpuBackend())
    answer = portfolio.solve(puzzle, seed=1, backend="cpu")
    assert not answer.solved and answer.method == "exact" and answer.stopped == "no_solution"
    assert answer.anneal.chains == (2 if chains_first else 1)
    if chains_first:
        assert answer.anneal.stopped == "max_moves" and answer.moves < portfolio.CHAINS_FIRST_MOVES
    assert not any(thread.name == "gpu-sa auto search" for thread in threading.enumerate())


def test_side_by_side_a_time_limit_or_a_stop_ends_both(monkeypatch):
    import threading

    from gpu_sa.engine import stop

    _two_cores(monkeypatch)
    hard = gpu_sa.parse((ROOT / "bench" / "data" / "sudoku_ls" / "INST_64x64" / "50" / "inst64x64_50_1.txt")
                        .read_text())[0]
    monkeypatch.setattr(portfolio, "SIDE_BY_SIDE_ORDERS", frozenset({5, 8}))
    monkeypatch.setattr(portfolio, "LOCAL_SEARCH_ORDER", 9)
    answer = portfolio.solve(hard, seed=1, backend="cpu", time_limit=1.0)
    assert answer.stopped == "time_limit" and not answer.solved and answer.rounds == 1 and answer.nodes > 0
    assert not any(thread.name == "gpu-sa auto search" for thread in threading.enumerate())

    def stop_now(record):
        stop.FLAG[0] = 1

    try:
        answer = portfolio.solve(hard, seed=1, backend="cpu", progress=stop_now)
    finally:
        stop.FLAG[0] = 0
    assert answer.stopped == "interrupted" and not answer.solved
    assert not any(thread.name == "gpu-sa auto search" for thread in threading.enumerate())


def test_the_search_publishes_its_branches_as_it_goes():
    from gpu_sa.puzzles.sudoku.exact import counting

    puzzle = gpu_sa.parse((NEAR_TRANSITION_25 / "inst25x25_40_0.txt").read_text())[0]
    published = np.zeros(2, dtype=np.int64)
    search = counting.count_solutions(puzzle.givens, 5, limit=1, seed=1, published=published)
    descent = int(np.count_nonzero(np.asarray(puzzle.givens) < 0)) + counting.DEFAULT_BASE_NODES
    assert search.solutions and published[1] == descent  # the descent gave up, the CDCL published on top of it
    assert descent < published[0] < search.nodes  # its last publication: a lower bound of the branches made
