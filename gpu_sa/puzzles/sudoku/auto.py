"""Method ``auto`` for Sudoku: propagation, then the complete search and the annealer in turns.

Measured on the large orders near the phase transition (bench/large.py): the
seeded complete search with restarts (``gpu_sa.puzzles.sudoku.exact``) solves every 16x16 and 25x25 instance of the
Lloyd & Amos set, most in well under a second, while the annealer alone loses to the ant colony there;
on 9x9 the complete search wins by orders of magnitude. The annealer still earns its turns where the
search's tail is long (a puzzle on which every restart wanders) and on a GPU, where it runs hundreds of
thousands of chains. So ``auto`` runs both, in turns with doubling budgets, one at a time on every core:

    round k = 0, 1, 2, ...:  complete search, seed S, at most EXACT_NODES x 2^k branches (over its restarts)
                             one annealing trial of the size's default schedule, chain indices k x chains ..

Round k's search goes on from the first restart round k - 1 did not finish (``first_restart``), so the
rounds' searches together are one seeded search cut into pieces, not the same restarts run again. ``auto``
stops at the first verified solution. Budgets are counted in branches and moves, never in seconds,
so which method answers, and the answer, depend on the seed alone; a time limit only decides whether
there is an answer. The search is complete: a round where it ends without giving up proves the count
(no solution: "no solution"). Propagation alone (the three rules to a fixpoint) answers first when
it solves the puzzle or finds a contradiction.

From 36x36 (LOCAL_SEARCH_ORDER) up the local search of move ``tabu`` is the faster method by far (bench/large.py,
36x36 and 49x49 at 40 %: a few times to tens of times the search's speed, and the search solves none of 49x49),
so there ``auto`` runs it as ONE long annealing run of the chains (they are never restarted: a tabu search's
progress is its chains' state) and gives the complete search its slices in between, still by counts, never by
seconds:

    slice 0, once the chains have made FIRST_SLICE_MOVES moves each:  the search, at most as many branches
                               as free cells: one descent, which fills a grid it needs no backtracking for
    slice k >= 1:              once the chains have made M x 2^(k-1) moves each, the search goes on for that many
                               moves >> NODES_PER_MOVE_SHIFT branches (a few percent of the chains' time on the
                               CPU); M = the larger of FIRST_SLICE_MOVES and SLICE_MOVES_PER_LITERAL x the literals
                               of the grid's direct CNF (``cnf_literals``), a measure of the search's size

Slice 0 runs before any move only when the rules leave at most FEW_FREE_CELLS free cells (60 % givens from
36x36: a descent of microseconds, where the chains' tables alone take longer). Elsewhere it waits for the chains:
it takes 2-4 ms on every 36x36 at 40 % (about 775 branches), 5-9 % of the chains' median there, while the chains
fill an empty grid about as fast as the descent does (36x36: 16 ms against 8 ms; 49x49: 22 against 30; 64x64: 94
against 88; bench/portfolio_choice.py).

At 25x25 (SIDE_BY_SIDE_ORDERS) on a CPU of two cores or more, the two run at once instead of in turns: there
the search and the chains are about as fast and which one is faster changes from grid to grid (25x25 at 40 %
givens: the search's median 25 ms, one chain's 15 ms; bench/portfolio_choice.py), so in turns the default paid
for the slower one first on half the grids. The search gets a thread of its own, the local search's chains
(``--method anneal``'s) the cores:

    the descent alone first, unless the rules leave a share of free cells inside DESCENT_BESIDE (near the
    phase transition, where it never filled a grid): then the search beside the chains begins with it
    above CHAINS_FIRST_SHARE free cells (where the chains are the faster method): the chains, one per core, alone
    for their first CHAINS_FIRST_MOVES = A moves, then the search beside them; below it: A = 0, the search beside
    one chain per other core from the first move
    the search (one thread, no node cap) and the chains (one trial), each at its own pace; the search
    publishes its branch count as it goes
    the search's answer after N branches comes first unless a chain solved within A + N x MOVES_PER_NODE moves:
    when the chains solve at M moves the search is stopped once it has passed (M - A) / MOVES_PER_NODE branches
    (its answer counts if it came within them), and when the search answers the chains stop once they have
    passed A + N x MOVES_PER_NODE moves (theirs counts if it came first)

So the answer, and which method gave it, still depend on the seed alone, whichever thread is ahead; the loser's
branches or moves in the report are the work it did before it was stopped, which timing decides. A time limit
that comes while the chains are still short of the count of an answer the search has found returns that answer
rather than losing it (on a puzzle with several solutions, the chains might have found another one first with
more time). With one core, or on a GPU (not measured there), the rounds below run as before.

A slice runs at the first chunk boundary past its move count; the answer is the earlier of the two in that
order of counts: the local search's, when its chain solved at or before a slice's move count, else the slice's.
So the answer still depends on the seed alone, and the search, given its slices, still proves "no solution".
"""
from __future__ import annotations

import dataclasses
import functools
import threading
import time
from dataclasses import dataclass

import numpy as np

from ...apps import schema
from ...apps import solve as app
from ...engine import runner
from ...engine.backends import available_cores
from ...engine import stop as stop_module
from . import exact

EXACT_NODES = 20_000  # the first round's branches: about 50 ms at 25x25 on 2 cores (400,000 branches/s)
# An annealing round gets this many proposals per branch of the search's round: about a fifth of the
# search's time on the CPU (at 16x16, 25x25 and 36x36 3-8 proposals cost what one branch does; bench/large.py),
# where the search answers every Lloyd & Amos instance. It was 100 while the search was
# several times slower per branch, which had made the annealing rounds 55-60 % of a hard 25x25's time.
PROPOSALS_PER_NODE = 8
CPU_CHAINS = 16  # few chains, so that a round's proposals still cool each chain over many plateaus
MAX_ROUNDS = 40
ROUNDS_MOVE = "swap"  # the annealing rounds' move below LOCAL_SEARCH_ORDER (what those rounds were measured with)
LOCAL_SEARCH_ORDER = 6  # from 36x36 up: the local search with the search in slices (module docstring)
LOCAL_SEARCH_MOVE = "tabu"
FIRST_SLICE_MOVES = 1 << 18  # slice 1 after at least 262,144 moves per chain (0.2-0.3 s on the CPU)
# Set when a slice past 0 cost about 30 ns per literal of the CNF whatever its branches (the clause-learning search
# built its clauses again: 10 ms at 36x36 40 %, 340,000 literals; 90 ms at 64x64 40 %, 2.9 million) and a chain's
# move about 1 us from 36x36 to 64x64 on the CPU: slice 1 after one move per literal cost about 3 % of the chains'
# time, where a fixed 262,144 made the default 1.27 x the chains' median at 64x64 40 % (bench/large.py).
# With the grid's constraints implicit (gpu_sa.puzzles.sudoku.exact.implicit) that fixed cost is 7-12 times
# smaller (64 branches: 12-20 ms against 140-160 ms at 64x64 40 %, on a machine where the CNF's took 90 ms); the
# schedule was not tuned again.
SLICE_MOVES_PER_LITERAL = 1
# a slice's branches = its moves per chain >> 9: deep in a long run a branch of the clause-learning search costs
# about 20 moves at 36x36 (with >> 6, auto took 1.7x the chains' time on a 36x36 at 50 % the chains solved in
# 24 s), so a slice takes a few percent of the time the chains took to earn it. The search solved none of 49x49
# at 40-50 % and took 0.69 s on 36x36 at 40 % where the chains took 0.05 s (bench/large.py): past slice 0 it is
# there to prove "no solution", so it gets little
NODES_PER_MOVE_SHIFT = 9
FIRST_SLICE_NODES = 64  # slice 0's branches at least; else the free cells: one descent
# a root with at most this many free cells has slice 0 run before the chains are built: the descent fills it in
# microseconds, where building the chains' tables and strengthened root alone takes 0.3 ms at 36x36 (60 % givens
# leave 8-35 free cells there after the rules; 40-50 %, hundreds)
FEW_FREE_CELLS = 64
# At 25x25 on a CPU of two cores or more, the search and the chains run side by side (module docstring): the two
# are about as fast there (25x25 at 40 % givens: the search's median 25 ms, one chain's 15 ms, and which one is
# faster changes from grid to grid), so running both beats running either first (bench/portfolio_choice.py).
SIDE_BY_SIDE_ORDERS = frozenset({5})
# The exchange rate that orders their answers: the search's answer after N branches comes first unless a chain
# solved within N x MOVES_PER_NODE moves. A branch costs 6-16 us at 25x25 near the transition, a chain's move
# about 1 us; the loser waits until the winner's count is passed, so a rate off the true one costs time either
# way. Swept over 4-10 on Lloyd & Amos 25x25 at 35/40/45 % (bench/portfolio_choice.py --repeats 3): 6 kept the
# default within 0.94-1.08 of the faster method at 35 and 40 % and 1.21-1.31 at 45 %, where the search is twice
# as fast as the chains.
MOVES_PER_NODE = 6
# The descent runs alone first (microseconds to a few milliseconds) unless the share of free cells after the rules
# lies strictly between these: 25x25 near the phase transition (40 and 45 % givens leave 52-60 % of the cells free),
# where it filled none of the 20 Lloyd & Amos grids tried and took 2-4 ms each (bench/portfolio_choice.py); it filled
# 9 of 10 at 50 % (18-44 % free), 5 of 10 at 35 % (64-65 %) and every empty grid. Inside that band the search
# beside the chains begins with it instead.
DESCENT_BESIDE = (0.48, 0.70)
# Above this share of free cells after the rules (25x25 at 40 % givens and fewer: 0.59 and up) the chains are the
# faster method (Lloyd & Amos and Sudoku-LS 25x25 at 35 and 40 %: two chains' median 4 and 7 ms, the search's 12 ms;
# one chain beside the search made the default 1.24-1.6 x the two chains'), so there ``--method anneal``'s chains,
# one per core, run alone for their first CHAINS_FIRST_MOVES moves and the search joins them only after: its answer
# after N branches then counts as at CHAINS_FIRST_MOVES + N x MOVES_PER_NODE moves. At 45 % (0.51-0.54 free) the
# search is the faster method and starts beside one chain at once (bench/portfolio_choice.py).
CHAINS_FIRST_SHARE = 0.56
# two chains solved 37 of 40 such grids within it (Sudoku-LS 25x25 40 % and Lloyd & Amos 35 %, instances 0-19; a
# chain's median there: about 14,000 moves, 10 ms)
CHAINS_FIRST_MOVES = 20_000


@dataclass(frozen=True)
class Answer:
    """What ``auto`` found, and how."""

    solved: bool
    solution: np.ndarray | None  # 0-based digits, validated
    method: str  # who answered: propagation | exact | anneal | none
    stopped: str  # solved | contradiction | no_solution | time_limit | interrupted | rounds
    seconds: float  # searching and annealing, compilation and the annealer's setup excluded
    setup_seconds: float
    rounds: int  # rounds begun
    nodes: int  # complete-search branches, over every round
    restarts: int  # complete-search restarts, over every round
    moves: int  # annealing moves per chain, over every round
    anneal: runner.Result | None  # the best annealing round's result (lowest cost, earliest), if one ran


def solve(puzzle, *, seed: int, backend="auto", threads_per_chain: int | None = None, chains: int | None = None,
          time_limit: float | None = None, threads: int | None = None, progress=None) -> Answer:
    """Solve a Sudoku by ``auto`` (see the module docstring). ``progress`` receives the annealing rounds'
    records (``runner.Progress``). ``backend`` is a name or a backend object; ``threads_per_chain`` goes with a
    name, as ``runner.anneal`` takes it."""
    setup_start = time.perf_counter()
    threads_per_chain = runner.check_threads_per_chain(threads_per_chain, backend)
    if isinstance(backend, str):
        from ...engine import backends

        backend, _ = backends.select(backend, cpu_preferred=cpu_preferred(puzzle), threads_per_chain=threads_per_chain)
    _warm_up(puzzle, backend)
    start = time.perf_counter()
    work = _Work(start=start, deadline=stop_module.Deadline.after(time_limit, start=start),
                 setup=start - setup_start)
    return _rounds(puzzle, work, seed=seed, backend=backend, chains=chains, threads=threads, progress=progress)


def cpu_preferred(puzzle) -> str:
    """Why ``--backend auto`` should run ``auto`` on the CPU for this puzzle ("" where the GPU serves): from
    LOCAL_SEARCH_ORDER up its chains are the local search's, whose move says (``AnnealMove.cpu_preferred``)."""
    if puzzle.order < LOCAL_SEARCH_ORDER:
        return ""
    from .. import sudoku

    return sudoku.CPU_PREFERRED.get(LOCAL_SEARCH_MOVE, "")


def annealing_move(puzzle, backend: str = "cuda"):
    """(move, why): the move whose chains ``solve`` would anneal ``puzzle`` with on the backend named ``backend``,
    built as ``solve`` builds it (an ``AnnealMove``), or None when no chain would run, and why in a few words. For
    the launch plan (``gpu-sa solve --plan``): nothing runs. Only the rules run first (on the puzzle's cache, as
    ``solve`` would), since whether they leave anything to anneal decides whether there is a launch at all."""
    found = puzzle.propagated
    if found.contradiction:
        return None, "the three rules find a contradiction: auto answers before any chain runs"
    if found.free == 0:
        return None, "the three rules solve it: auto answers before any chain runs"
    if puzzle.order >= LOCAL_SEARCH_ORDER:
        side = LOCAL_SEARCH_ORDER ** 2
        return puzzle.move(LOCAL_SEARCH_MOVE), f"auto from {side}x{side}: one long run of the local search's chains"
    if side_by_side(puzzle.order, _Named(backend)):
        return puzzle.move(), "auto on a CPU at this size: the chains beside the complete search"
    return puzzle.move(ROUNDS_MOVE), "auto's annealing rounds, in turns with the complete search"


@dataclass(frozen=True)
class _Named:
    """A backend as ``side_by_side`` reads it: its name alone (the launch plan selects none)."""

    name: str


def _rounds(puzzle, work, *, seed, backend, chains, threads, progress, anneal=True) -> Answer:
    """The timed part of ``solve``: propagation, then the rounds (``anneal=False``: the first search only)."""
    found = puzzle.propagated  # computed here, on the clock; the chains' root is then built on it
    if found.contradiction:
        return work.answer(False, None, "propagation", "contradiction")
    if found.free == 0:
        return work.answer(True, _checked(puzzle, found.values), "propagation", "solved")
    if anneal and puzzle.order >= LOCAL_SEARCH_ORDER:
        return _local_search(puzzle, work, found, seed=seed, backend=backend, chains=chains, threads=threads,
                             progress=progress)
    if anneal and side_by_side(puzzle.order, backend):
        return _side_by_side(puzzle, work, found, seed=seed, backend=backend, chains=chains, progress=progress)
    next_restart = 0  # each round's search goes on from the restarts the last one did not finish
    for round_index in range(MAX_ROUNDS if anneal else 1):
        work.rounds = round_index + 1
        left = work.deadline.left()
        if left is not None and left <= 0:
            return work.answer(False, None, "none", "time_limit")
        # from the propagation above: the search would otherwise find the same fixpoint again, every restart
        search = exact.count_solutions(puzzle.givens, puzzle.order, limit=1, seed=seed, threads=threads,
                                       max_nodes=EXACT_NODES << round_index, time_limit=left, propagated=found,
                                       first_restart=next_restart)
        next_restart = search.resume_at
        work.add_search(search)
        decided = _decided(puzzle, work, search)
        if decided is not None:
            return decided
        if search.interrupted or stop_module.requested():
            return work.answer(False, None, "none", "interrupted")
        if not anneal:
            return work.answer(False, None, "none", "rounds")
        left = work.deadline.left()
        if left is not None and left <= 0:
            return work.answer(False, None, "none", "time_limit")
        move = puzzle.move(ROUNDS_MOVE)
        rows = chains or (backend.default_chains(move) if backend.name == "cuda" else CPU_CHAINS)
        budget = max(move.plateau_length, PROPOSALS_PER_NODE * (EXACT_NODES << round_index) // rows)
        # the size's default cooling, compressed into this round's moves
        law = dataclasses.replace(runner.default_schedule(move), n_plateaus=max(1, budget // move.plateau_length))
        try:
            result = runner.anneal(puzzle, move=ROUNDS_MOVE, backend=backend, chains=rows, seed=seed, schedule=law,
                                   trials=1, chain_base=round_index * rows, time_limit=left, progress=progress)
        except stop_module.Interrupted:  # the stop came while the round's chains were set up
            return work.answer(False, None, "none", "interrupted")
        work.add_round(result)
        if result.solved:
            return work.answer(True, result.solution, "anneal", "solved")
        if result.stopped == "interrupted":
            return work.answer(False, None, "none", "interrupted")
    return work.answer(False, None, "none", "rounds")


class _Slices:
    """The complete search's slices between the local search's moves (module docstring), one seeded search cut
    into pieces: each slice goes on from the restart where the last one stopped."""

    def __init__(self, puzzle, work, found, *, seed, threads):
        self.puzzle, self.work, self.found = puzzle, work, found
        self.seed, self.threads = seed, threads
        self.index, self.next_restart = 0, 0
        self.answer: Answer | None = None  # once a slice has answered (solved, no solution) or been stopped

    @functools.cached_property
    def first_moves(self) -> int:
        """Slice 1's moves per chain; counted when slice 0 has run (the chains solve most grids before)."""
        literals = exact.cnf_literals(np.ascontiguousarray(self.found.candidates, dtype=np.uint64), self.puzzle.order)
        return max(FIRST_SLICE_MOVES, SLICE_MOVES_PER_LITERAL * literals)

    def run_first(self):
        """Slice 0 now, before any move (a root with few free cells); its answer, if any."""
        self._run(self.at(0)[1])
        self.index = 1
        return self.answer

    def at(self, index):
        """(moves per chain before slice ``index``, its branches)."""
        if index == 0:
            return FIRST_SLICE_MOVES, max(int(self.found.free), FIRST_SLICE_NODES)
        moves = self.first_moves << (index - 1)
        return moves, moves >> NODES_PER_MOVE_SHIFT

    def run_until(self, moves):
        """Every slice due at or before ``moves`` moves per chain, in order, until one answers."""
        while self.answer is None and self.at(self.index)[0] <= moves:
            self._run(self.at(self.index)[1])
            self.index += 1
        return self.answer

    def _run(self, nodes):
        work = self.work
        left = work.deadline.left()
        if left is not None and left <= 0:
            return
        search = exact.count_solutions(self.puzzle.givens, self.puzzle.order, limit=1, seed=self.seed,
                                       threads=self.threads, max_nodes=nodes, time_limit=left, propagated=self.found,
                                       first_restart=self.next_restart)
        self.next_restart = search.resume_at
        work.rounds += 1
        work.add_search(search)
        self.answer = _decided(self.puzzle, work, search)
        if self.answer is None and (search.interrupted or stop_module.requested()):
            self.answer = work.answer(False, None, "none", "interrupted")


def _local_search(puzzle, work, found, *, seed, backend, chains, threads, progress) -> Answer:
    """From LOCAL_SEARCH_ORDER up: one long run of the local search's chains, the search in slices between."""
    slices = _Slices(puzzle, work, found, seed=seed, threads=threads)

    def between_chunks(record):
        if progress is not None:
            progress(record)
        if record.best_cost > 0:  # solved in this chunk: the slices due before the solving move come after
            slices.run_until(record.moves)

    if found.free <= FEW_FREE_CELLS and slices.run_first() is not None:
        return slices.answer
    left = work.deadline.left()
    if left is not None and left <= 0:
        return work.answer(False, None, "none", "time_limit")
    # chains=None: the runner's default for the move (one per core on the CPU), from the tables it builds anyway
    try:
        result = runner.anneal(puzzle, move=LOCAL_SEARCH_MOVE, backend=backend, chains=chains, seed=seed, trials=1,
                               time_limit=left, progress=between_chunks, stop_when=lambda: slices.answer is not None)
    except stop_module.Interrupted:  # the stop came while the chains were set up (no slice runs before a chunk)
        return work.answer(False, None, "none", "interrupted")
    work.add_round(result)
    if result.solved:
        # a slice due before the move at which the chain solved would have answered first
        if slices.run_until(result.chain_moves - 1) is not None and slices.answer.solved:
            return slices.answer
        return work.answer(True, result.solution, "anneal", "solved")
    if slices.answer is not None:
        return slices.answer
    if result.stopped in ("interrupted", "time_limit"):
        return work.answer(False, None, "none", result.stopped)
    # the chains' trial ended unsolved (its schedule ran out): the search alone goes on, slice after slice
    while slices.run_until(slices.at(slices.index)[0]) is None:
        left = work.deadline.left()
        if left is not None and left <= 0:
            return work.answer(False, None, "none", "time_limit")
    return slices.answer


def side_by_side(order: int, backend) -> bool:
    """Whether ``auto`` runs the search and the chains side by side (module docstring) on this order and backend."""
    return order in SIDE_BY_SIDE_ORDERS and backend.name == "cpu" and available_cores() >= 2


def _side_by_side(puzzle, work, found, *, seed, backend, chains, progress) -> Answer:
    """SIDE_BY_SIDE_ORDERS on a CPU of two cores or more (module docstring): the search's descent, then the
    search on a thread of its own beside the local search's chains on the other cores."""
    first_restart = 0  # the search beside the chains begins with the descent (_dive_then_learn)
    free_share = found.free / found.values.size
    if not DESCENT_BESIDE[0] < free_share < DESCENT_BESIDE[1]:
        work.rounds = 1  # the descent alone first: it fills most grids away from the phase transition
        # at most the free cells left by the rules + the restarts' base budget: within _dive_then_learn's first
        # descent (which counts the givens' empty cells), so this call runs that descent and nothing after it
        descent = int(found.free) + exact.DEFAULT_BASE_NODES
        search = exact.count_solutions(puzzle.givens, puzzle.order, limit=1, seed=seed, threads=1,
                                       max_nodes=descent, time_limit=work.deadline.left(), propagated=found)
        work.add_search(search)
        decided = _decided(puzzle, work, search)
        if decided is not None:
            return decided
        first_restart = search.resume_at
    left = work.deadline.left()
    if left is not None and left <= 0:
        return work.answer(False, None, "none", "time_limit")
    work.rounds += 1
    chains_first = free_share > CHAINS_FIRST_SHARE
    beside = _SearchBeside(puzzle, found, seed=seed, first_restart=first_restart,
                           after_moves=CHAINS_FIRST_MOVES if chains_first else 0)
    # one chain per core; beside the search from the first move, one core fewer
    rows = chains or (available_cores() if chains_first else max(1, available_cores() - 1))
    try:
        result = runner.anneal(puzzle, backend=backend, chains=rows, seed=seed, trials=1, time_limit=left,
                               progress=progress, on_chunk=beside.chunk_done, stop_when=beside.decided,
                               on_ready=beside.ready)
    except stop_module.Interrupted:  # the stop came while the chains were set up: the search had not started
        beside.finish()
        return work.answer(False, None, "none", "interrupted")
    except BaseException:
        beside.finish()
        raise
    work.add_round(result)
    if result.solved:
        # the search's answer comes first if it found one within the branches the solving move is worth
        bound = beside.branches_within(result.chain_moves)
        search = beside.finish(past=bound, deadline=work.deadline)
        work.add_search(search)
        if search.solutions and search.nodes <= bound:
            return _decided(puzzle, work, search)
        return work.answer(True, result.solution, "anneal", "solved")
    # unsolved: the search answered (the chains then went past its count), or time ran out, or a stop came, or the
    # chains' trial ended, and then the search goes on alone
    ended = result.stopped not in ("time_limit", "interrupted") and not stop_module.requested()
    search = beside.finish(until_done=ended, deadline=work.deadline)
    work.add_search(search)
    decided = _decided(puzzle, work, search)
    if decided is not None:
        return decided
    # the search's own "interrupted" is finish()'s halt: a stop request is the process's flag
    return work.answer(False, None, "none", "interrupted" if stop_module.requested() else "time_limit")


def _decided(puzzle, work, search) -> Answer | None:
    """The Answer of a search that solved the puzzle or proved it has no solution; None if it gave up."""
    if search.solutions:
        return work.answer(True, _checked(puzzle, search.solution), "exact", "solved")
    if not search.gave_up:
        return work.answer(False, None, "exact", "no_solution")
    return None


class _SearchBeside:
    """The complete search on a thread of its own, beside the chains (``_side_by_side``). It starts once the
    chains are set up (``ready``: their set-up is off the clock, so the search must not run during it) and have made
    ``after_moves`` moves per chain, publishes its branches as it goes (``published``), and stops at ``finish``.
    The two answers are ordered by counts: the search's at N branches comes before the chains' at M moves per chain
    when after_moves + N x MOVES_PER_NODE <= M, so the answer depends on the seed alone, whichever thread is ahead
    (and whichever chunk boundary past ``after_moves`` the search actually started at)."""

    def __init__(self, puzzle, found, *, seed, first_restart, after_moves=0):
        self.puzzle, self.found, self.seed, self.first_restart = puzzle, found, seed, first_restart
        self.after_moves = after_moves
        self.flag = np.zeros(1, dtype=np.uint8)  # the search's halt flag (this thread relays stop requests)
        self.published = np.zeros(2, dtype=np.int64)  # [0]: a lower bound of its branches so far (count_solutions)
        self.moves = 0  # the chains' moves per chain so far
        self.set_up = False  # the chains' set-up is done (the clock runs)
        self.thread: threading.Thread | None = None
        self.result = None
        self.error: BaseException | None = None

    def ready(self):
        """The chains are set up: the search starts now, or once they have made ``after_moves`` moves."""
        self.set_up = True
        if self.after_moves == 0:
            self.start()

    def start(self):
        if self.thread is None:
            self.thread = threading.Thread(target=self._search, name="gpu-sa auto search", daemon=True)
            self.thread.start()

    def branches_within(self, moves: int) -> int:
        """The most branches whose answer comes before the chains' at ``moves`` moves per chain (negative: none)."""
        return (moves - self.after_moves) // MOVES_PER_NODE

    def _search(self):
        try:  # no time limit and no node cap: finish() ends it (the CDCL reads self.flag every 64 branches)
            self.result = exact.count_solutions(
                self.puzzle.givens, self.puzzle.order, limit=1, seed=self.seed, threads=1, max_nodes=exact.NO_NODE_LIMIT,
                propagated=self.found, first_restart=self.first_restart, flag=self.flag, published=self.published)
        except BaseException as error:  # raised again on the main thread, by finish()
            self.error = error

    def chunk_done(self, moves: int):
        """Between the chains' chunks (``on_chunk``): start the search once they are past ``after_moves``."""
        self.moves = moves
        if moves >= self.after_moves:
            self.start()

    def decided(self) -> bool:
        """Asked between the chains' chunks: stop them once the search's answer is theirs to beat no more."""
        if stop_module.requested():
            self.flag[0] = 1
        result = self.result
        if result is None:
            return False
        if result.solutions:
            return self.branches_within(self.moves) >= result.nodes
        return True  # a proof of no solution, or a search that stopped

    def finish(self, *, past: int | None = None, until_done: bool = False,
               deadline: stop_module.Deadline = stop_module.Deadline()):
        """Stop the search and return its result, once it has published more than ``past`` branches (or
        answered), or, with ``until_done``, once it has answered; a deadline or a stop request ends the wait.
        Either of those starts a search that has not started yet (the chains' trial ended before they had made
        ``after_moves`` moves), unless the chains were never set up or ``past`` is negative."""
        waiting = (past is not None and past >= 0) or until_done
        if waiting and self.set_up:
            self.start()
        while (waiting and self.thread is not None and self.thread.is_alive()
               and (past is None or self.published[0] <= past)
               and not deadline.passed() and not stop_module.requested()):
            self.thread.join(WAIT_SECONDS)
        self.flag[0] = 1
        if self.thread is not None:
            self.thread.join()
        if self.error is not None:
            raise self.error
        if self.result is None:  # never started (a stop during the chains' set-up)
            return exact.ExactResult(solutions=0, solution=None, nodes=0, seconds=0.0, gave_up=True, interrupted=True)
        return self.result


WAIT_SECONDS = 0.0002  # finish() looks at the search's published count this often


WARM_UP_RUNS = 3  # timed-path runs per order before the clock (``_warm_up``)


def _warm_up(puzzle, backend):
    """The timed path (``_rounds``: propagation, the search, the validator) on stand-in puzzles, first of
    order 2, then WARM_UP_RUNS times of the puzzle's own order, right before the clock; nothing is kept.

    A first call costs several times a later one: numba's dispatch (machine code compiled or loaded from
    numba's cache) and numpy's first calls on the 4x4, then, at the puzzle's size, the code paths, tables and
    Python frames of that size, which the search and the rules of an easy 16x16 or 25x25 take most of its
    time touching (bench/large.py --sizes 16,25 --percentages 45,50,60 measures these easy cells). The
    peer's clock starts after the same kind of work: its board setup runs the propagation code its ants then
    run. The stand-in is a valid grid with
    three of its digits emptied: the rules cannot fill it, the search fills it in a few dozen branches of its
    first restart (4 to 53 at orders 2 to 8), through the same steps as an easy puzzle. What the warm-up
    costs is in ``setup_seconds``, with the order's constant tables it builds (peers, units: about 2 ms at
    16x16, once per process), as ``gpu-sa exact``'s clock starts after them."""
    kind = puzzle.specialization
    if kind in _warmed:  # a file of many puzzles: the previous ones have run these steps at this size
        return
    for order in (2,) + (puzzle.order,) * WARM_UP_RUNS:
        _rounds(puzzle.stand_in(order), _Work(start=time.perf_counter(), setup=0), seed=0, backend=backend,
                chains=None, threads=1, progress=None, anneal=False)
    _warmed.add(kind)


_warmed: set = set()  # (order, dtype, writeable) of the puzzles warmed up for in this process


@dataclass
class _Work:
    """The rounds' accounting: the clock starts after the search's code is loaded; the annealer's own setup
    (allocation, compilation) happens inside the rounds and is taken off ``seconds``."""

    start: float
    setup: float  # before the clock, plus every annealing round's setup
    deadline: stop_module.Deadline = stop_module.Deadline()  # the time limit, from ``start``
    annealer_setup: float = 0.0
    rounds: int = 0
    nodes: int = 0
    restarts: int = 0
    moves: int = 0
    anneal: runner.Result | None = None

    def add_search(self, search):
        self.nodes += search.nodes
        self.restarts += search.restarts

    def add_round(self, result: runner.Result):
        self.moves += result.moves
        self.annealer_setup += result.setup_seconds
        if self.anneal is None or result.cost < self.anneal.cost:  # the best round (the earliest of equals)
            self.anneal = result

    def answer(self, solved, solution, method, stopped) -> Answer:
        wall = time.perf_counter() - self.start
        return Answer(solved=solved, solution=solution, method=method, stopped=stopped,
                      seconds=max(0.0, wall - self.annealer_setup), setup_seconds=self.setup + self.annealer_setup,
                      rounds=self.rounds, nodes=self.nodes, restarts=self.restarts, moves=self.moves,
                      anneal=self.anneal)


def _checked(puzzle, values):
    values = np.asarray(values, dtype=np.int64)
    violations = puzzle.check(values)
    if violations:
        raise RuntimeError(f"internal error: auto's solution is rejected by the validator: {violations[0]}")
    return values


def answer(puzzle, *, backend, seed: int, chains=None, time_limit=None, fmt=None, check_unique=False,
           progress=None) -> app.Answer:
    """What ``gpu-sa solve`` runs for method auto: ``solve`` as the command's Answer (its text and JSON record)."""
    deadline = stop_module.Deadline.after(time_limit)  # --check-unique gets what the solve leaves of it
    found = solve(puzzle, seed=seed, backend=backend, chains=chains, time_limit=time_limit, progress=progress)
    if found.stopped == "contradiction":
        return app.contradiction(puzzle, "auto", seed)
    json_fmt = puzzle.fmt if fmt in (None, "same") else fmt
    unique = {}
    if check_unique:
        started = time.perf_counter()
        verdict = app.uniqueness(puzzle, seed=seed, time_left=deadline.left(started)) if found.solved else None
        unique = {"unique": verdict, "unique_seconds": round(time.perf_counter() - started, 6)}
    annealed_round = found.anneal
    best = {}
    if annealed_round is not None:  # the best annealing round: what it reached even when nothing solved the puzzle
        best = dict(chain=annealed_round.chain, chains=annealed_round.chains,
                    best=puzzle.answer(annealed_round.best, json_fmt))
    cost = 0 if found.solved else (None if annealed_round is None else annealed_round.cost)
    record = schema.record("auto", puzzle=puzzle.label, solved=found.solved,
                           solution=puzzle.answer(found.solution, json_fmt) if found.solved else None, cost=cost,
                           answered_by=found.method, rounds=found.rounds, nodes=found.nodes, restarts=found.restarts,
                           moves=found.moves, seconds=round(found.seconds, 6),
                           setup_seconds=round(found.setup_seconds, 6), backend=backend.name, seed=seed,
                           stopped=found.stopped, **best, **unique)
    work = []
    if found.rounds:
        work.append(f"{app.plural(found.rounds, 'round')}: {app.plural(found.nodes, 'branch', 'branches')} of the "
                    "complete search")
    if found.moves:
        work.append(f"{app.plural(found.moves, 'annealing move')} per chain on {backend.name}")
    if not work and found.method == "propagation":
        work.append("the three rules alone")
    reached = [] if found.solved or cost is None else [f"the annealer's best cost {cost}"]
    effort = "; ".join(work + [f"seed {seed}"] + reached)
    if found.method in app.BY:  # who answered (solved, or proved there is no solution)
        who = app.BY[found.method]
    else:  # nobody: what ran
        who = " and ".join(app.BY[method] for method, ran in (("exact", found.rounds), ("anneal", found.moves))
                           if ran) or "auto"
    lines = [app.verdict(puzzle.label, who, found.stopped, found.seconds, effort)]
    if found.solved:
        if check_unique:
            lines.append(f"{app.UNIQUE_TEXT[unique['unique']]} ({unique['unique_seconds']:.2f} s)")
        lines.append(puzzle.write(found.solution, puzzle.fmt if fmt == "same" else (fmt or "pretty")))
    return app.Answer(puzzle.label, found.solved, found.stopped, record, "\n".join(lines), found.anneal)
