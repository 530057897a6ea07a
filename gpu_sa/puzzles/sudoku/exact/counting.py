"""The public entry points of the search: count one puzzle's solutions, or many puzzles' at once."""
from __future__ import annotations

import dataclasses
import functools
import time

import numpy as np

from ....engine import stop
from .backtracking import (COMPLETE, DEFAULT_MAX_NODES, DETERMINISTIC, NEVER, STOPPED, ExactResult, search_batch,
                           search_core)
from .bitboard import PEERS, search9, search_batch9
from .board import (ZERO, ZERO32, _check_counts, _check_digits, _check_givens, _digits, initial_candidates,
                    tables)
from .propagation import Propagation, propagate
from .clause_search import learned_search
from .clauses import (CLAUSES, LOCAL_MINIMIZATION, NO_REASON_BUMPS, NO_VIVIFY, SAVED_PHASES, SHORT_RESTARTS, cdcl,
                      noise)
from . import wide
from .consistency import ALLDIFF, BOX_LINE, PROBE, strengthened
from .learning import PHASE, WDEG, initial_weights
from .ordering import DUAL
from .restarts import DEFAULT_BASE_NODES, Learned, _restarted, _watched, available_cores

ALL_FEATURES = (BOX_LINE | ALLDIFF | PROBE | WDEG | PHASE | DUAL | CLAUSES | SHORT_RESTARTS | SAVED_PHASES
                | NO_REASON_BUMPS | LOCAL_MINIMIZATION | NO_VIVIFY)
# The seeded search's features per order, measured (bench/ablation.py, bench/large.py); an order not listed gets
# DEFAULT_LARGE.
# At 25x25 the CDCL keeps MiniSat's phase saving, Luby x 100 restarts and local minimization (only the reasons'
# bumps added): its searches last a few hundred conflicts, and there the stable mode's heuristics cost more per
# conflict than they save (bench/ablation.py); from 36x36 on they make the search.
DEFAULT_FEATURES = {2: 0, 3: 0, 4: 0, 5: CLAUSES | SHORT_RESTARTS | SAVED_PHASES | LOCAL_MINIMIZATION}
DEFAULT_LARGE = CLAUSES
# The CDCL search runs only where the direct CNF of its root (``cnf_literals``) is below this many literals; above
# it, on the nearly empty 49x49 and 64x64 grids that the first descent did not fill, the restarts go on instead.
# It was set when the CDCL stored that CNF (an empty 64x64's: 67 million literals, half a gigabyte); the grid's
# constraints are now implicit (``implicit``), but the CDCL has not been shown to do better there: on an empty
# 64x64 it makes 20,000 decisions in 33 s without a solution.
CNF_LITERALS_LIMIT = 8_000_000


def default_features(order: int) -> int:
    return DEFAULT_FEATURES.get(order, DEFAULT_LARGE)


# clause learning's searches racing (``clause_search.race``): a constant, not the cores, so that the answer is the same
# on every machine; one, so that ``auto``'s chains keep the other cores
DEFAULT_SEARCHES = 1
MAX_SEARCHES = 64  # each holds its own clauses (at 49x49 about 2 MB more a second of search: docs/cli.md, "Limits")


# The seeded search's four compiled parts, each called once on a blank 4x4 grid (``_loaded``: "search_core" the
# restarts and the rules, "stronger_root" and "cdcl" where the features use them; tests/warm_caches.py calls them
# in another order, with the same argument types).
def _compile_the_rules():
    """The root's rules (``propagate``, ``initial_candidates``), which the CDCL's root comes from: compiled inside
    the timed search they would take about 10 s of a cold first run (2 cores), uncounted by its time limit. Both
    kinds of givens: numba compiles a read-only array (a parsed puzzle's) apart."""
    for writeable in (True, False):
        blank = np.full(16, -1, dtype=np.int16)
        blank.flags.writeable = writeable
        propagate(blank, 2)
        initial_candidates(blank, 2)


def _compile_the_restarts():
    peers, units, cell_units, full = tables(2)
    masks = np.zeros(16, dtype=np.uint64)
    for root_at_fixpoint in (False, True):  # a blank grid is its own fixpoint
        search_core(np.full(16, full), peers, units, cell_units, full, 1, 1, masks, ZERO, np.zeros(1, np.uint8),
                    ZERO32, ZERO32, 0, np.full(1, NEVER, np.int64), root_at_fixpoint, 0, initial_weights(2),
                    masks.copy(), masks.copy())


def _compile_the_stronger_root():
    peers, units, cell_units, full = tables(2)
    strengthened(np.full(16, full), peers, units, cell_units, full, ALL_FEATURES, np.zeros(1, np.uint8))


def _compile_the_cdcl():
    _, units, _, full = tables(2)
    cdcl(np.full(16, full), units, 2, 100, np.zeros(1, np.uint8), noise(256, ZERO32, ZERO32),
         np.zeros(16, dtype=np.uint64), 0, np.zeros(2, np.int64))


@functools.cache
def _loaded(entry: str) -> bool:
    """Compile ``entry`` (or load it from numba's cache) once, on a 4x4 grid (9x9 for the bitboards), so that no
    timing includes it."""
    peers, units, cell_units, full = tables(2)
    if entry == "search9":
        search9(np.full(81, tables(3)[3]), PEERS, 1, 1, np.zeros(1, np.uint8), np.zeros(81, dtype=np.uint64), False)
    elif entry == "search_batch9":
        empty = np.full((1, 81), -1, dtype=np.int16)
        search_batch9(empty, PEERS, tables(3)[3], 1, 1, np.zeros(1, np.uint8), np.zeros(1, np.int64), empty.copy(),
                      np.zeros(1, np.int64), np.zeros(1, np.int64), False)
    elif entry == "search_core":
        _compile_the_restarts()
        _compile_the_rules()
    elif entry == "stronger_root":
        _compile_the_stronger_root()
    elif entry == "cdcl":
        _compile_the_cdcl()
    else:
        empty = np.zeros((0, 16), dtype=np.int16)
        search_batch(empty, peers, units, cell_units, full, 1, 0, np.zeros(1, np.uint8), np.zeros(0, np.int64),
                     empty.copy(), np.zeros(0, np.int64), np.zeros(0, np.int64), 0)
    return True


def count_solutions(givens, order: int, *, limit: int = 2, max_nodes: int = DEFAULT_MAX_NODES,
                    seed: int | None = None, threads: int | None = None, time_limit: float | None = None,
                    base_nodes: int = DEFAULT_BASE_NODES, flag: np.ndarray | None = None,
                    propagated: Propagation | None = None, first_restart: int = 0, features: int | None = None,
                    learned: Learned | None = None, published: np.ndarray | None = None,
                    searches: int | None = None, box_line: bool = False) -> ExactResult:
    """Solutions of the puzzle (0-based givens, -1 empty), counted up to ``limit``.

    ``seed=None``: the seed's deterministic search; with ``box_line``, pointing and box-line reduction join its
    three rules at every node (the same count, fewer branches: about half on hard 9x9s; docs/algorithms.md, "The
    complete search").
    ``seed=S``: the seeded search with restarts
    (Luby budgets x ``base_nodes``) on ``threads`` cores (default, and at most: all this process may use);
    its answer and node counts depend on the seed only, not on ``threads`` or timing.
    ``max_nodes`` bounds the branches over all restarts, ``time_limit`` (seconds) the wall
    time; a stop request (``flag``, default ``gpu_sa.engine.stop.FLAG``) ends the search within a
    fraction of a second. Each of them gives ``gave_up`` (and ``timed_out``/``interrupted``).
    ``propagated``: ``propagate(givens, order)``, when the caller has it already: the search
    starts from its candidates instead of propagating again (the same root, so the same answer);
    one that ended in a contradiction is not used (the search finds it again at once).
    ``first_restart`` (seeded search): the restarts begin at this index, with its Luby budget, as if
    those below it had run without deciding (a previous call's ``resume_at``); ``restarts`` and ``nodes``
    then count this call's restarts only, and ``learned`` (a previous call's) is what it had learned by then.
    ``features`` (seeded search): the propagation and learning the search uses, a sum of
    ``consistency.BOX_LINE``, ``ALLDIFF``, ``PROBE`` and ``learning.WDEG``; default ``default_features(order)``
    (measured per order: bench/ablation.py). Every one keeps the count exact.
    ``published`` (int64[2], the clause-learning search only): ``published[0]`` is a lower bound of the branches
    made so far (this call's, ``nodes``), written every 64 while it runs, for a thread beside it (``auto``'s chains
    beside the search, ``gpu_sa.puzzles.sudoku.auto``); ``published[1]`` is the search's own (its branches before the CDCL).
    ``searches`` (the clause-learning search only; default ``DEFAULT_SEARCHES``, one): that many CDCL searches
    from different activity orders race, each on a thread of its own (``clause_search.race``); the answer is the
    one that decides within the fewest ticks (work counted, not timed), so it depends on the seed and ``searches``,
    not on timing; ``max_nodes`` then bounds each search's decisions. Not with ``published``.
    From order 9 on the search of ``wide`` answers (the rules, then branching; a seed draws its digit order), without
    restarts, learning or threads: ``features``, ``searches`` and ``box_line`` change nothing there.
    """
    if wide.is_wide(order):
        _check_counts(limit, max_nodes)
        if time_limit is not None and not time_limit > 0:
            raise ValueError(f"time_limit must be positive seconds, got {time_limit}")
        root = None if propagated is None or propagated.contradiction else propagated.candidates
        return _wide(givens, order, int(limit), int(max_nodes), seed, time_limit, flag, root)
    givens = _check_givens(givens, order)
    _check_counts(limit, max_nodes)
    root = None
    if propagated is not None and not propagated.contradiction:
        root = np.ascontiguousarray(propagated.candidates, dtype=np.uint64)
        if root.shape != givens.shape:
            raise ValueError(f"propagated has {root.shape[0]} cells, the givens {givens.shape[0]}")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be positive seconds, got {time_limit}")
    flag = stop.FLAG if flag is None else flag
    if seed is None:
        return _deterministic(givens, order, int(limit), int(max_nodes), time_limit, flag, root, bool(box_line))
    if box_line:
        raise ValueError("box_line is an option of the deterministic search (seed=None); the seeded search's "
                         "propagation is chosen by features")
    if int(base_nodes) != base_nodes or base_nodes < 1:
        raise ValueError(f"base_nodes must be a positive integer, got {base_nodes}")
    if threads is not None and (int(threads) != threads or threads < 1):
        raise ValueError(f"threads must be a positive integer, got {threads}")
    if threads is not None:
        threads = min(int(threads), available_cores())  # more threads than cores only wait (and cost memory)
    if int(first_restart) != first_restart or first_restart < 0:
        raise ValueError(f"first_restart must be a non-negative integer, got {first_restart}")
    searches = DEFAULT_SEARCHES if searches is None else searches
    if int(searches) != searches or not 1 <= searches <= MAX_SEARCHES:
        raise ValueError(f"searches must be an integer from 1 to {MAX_SEARCHES}, got {searches}")
    if searches > 1 and published is not None:
        raise ValueError("published follows one search: not with searches > 1")
    features = default_features(order) if features is None else int(features)
    if features & ~ALL_FEATURES:
        raise ValueError(f"features must be a sum of FEATURES' values, got {features}")
    # only what these features run is compiled before the clock: a seeded 9x9 (features 0) does not wait for the
    # CDCL (about 35 s of a cold first run on 2 cores) nor the stronger root
    _loaded("search_core")
    if features:
        _loaded("stronger_root")
    if features & CLAUSES:
        _loaded("cdcl")
        return _dive_then_learn(givens, order, int(limit), int(max_nodes), int(seed), threads, time_limit,
                                int(base_nodes), flag, root, int(first_restart), features, published, int(searches))
    return _restarted(givens, order, int(limit), int(max_nodes), int(seed), None if threads is None else int(threads),
                      time_limit, int(base_nodes), flag, root, int(first_restart), features, learned)


def _dive_then_learn(givens, order, limit, max_nodes, seed, threads, time_limit, base_nodes, flag, root, first_restart,
                     features, published=None, searches=1) -> ExactResult:
    """CLAUSES: first the seed's deterministic search with a budget of one whole descent (the empty cells +
    ``base_nodes``): a puzzle it fills without backtracking, an empty grid of any order among them, is answered
    there without starting the CDCL; if it does not decide, the CDCL search (``clause_search.learned_search``) with
    what is left of the budgets, or the restarts on a nearly empty grid (``CNF_LITERALS_LIMIT``). A later call
    with ``first_restart`` >= 1 (``resume_at`` of a call that gave up) skips the descent; the CDCL search starts
    again from its root."""
    start = time.perf_counter()
    deadline = stop.Deadline.after(time_limit, start=start)  # the limit covers all of this call
    nodes = 0
    if first_restart == 0:
        dive = int(np.count_nonzero(givens < 0)) + base_nodes
        first = _deterministic(givens, order, limit, min(max_nodes, dive), time_limit, flag, root, False)
        if not first.gave_up or first.interrupted or first.timed_out or first.nodes >= max_nodes:
            return dataclasses.replace(first, resume_at=1 if first.gave_up else 0, seed=seed)
        nodes = first.nodes
        if published is not None:
            published[:] = nodes  # the descent's branches: the CDCL's decisions are published on top of them
    cand = root
    if cand is None:  # the CDCL starts from the rules' fixpoint: the size is measured there (49x49 at 40 % givens:
        propagated = propagate(givens, order)  # 9.8 million literals from the givens alone, 1.1 million there)
        cand = (initial_candidates(givens, order) if propagated.contradiction else
                np.ascontiguousarray(propagated.candidates, dtype=np.uint64))
    left = deadline.left()  # what is left of it after the root
    if left is not None and left <= 0:
        return ExactResult(solutions=0, solution=None, nodes=nodes, seconds=time.perf_counter() - start, gave_up=True,
                           timed_out=True, restarts=1, seed=seed, resume_at=1)
    if cnf_literals(cand, order) > CNF_LITERALS_LIMIT:
        rest = _restarted(givens, order, limit, max_nodes - nodes, seed, threads, left, base_nodes, flag, root,
                          max(first_restart, 1), features & ~CLAUSES)
        return dataclasses.replace(rest, nodes=rest.nodes + nodes, seconds=time.perf_counter() - start,
                                   restarts=rest.restarts + (first_restart == 0))
    learned = learned_search(cand, order, limit, max_nodes - nodes, seed, left, flag, features, _watched, published,
                             searches)
    return dataclasses.replace(learned, nodes=learned.nodes + nodes, seconds=time.perf_counter() - start,
                               restarts=learned.restarts + (first_restart == 0), resume_at=1 if learned.gave_up else 0)


def _wide(givens, order, limit, max_nodes, seed, time_limit, flag, root) -> ExactResult:
    """The search of ``wide`` (orders 9 to 11) on a worker thread, under the deadline and the stop flag."""
    work, solution = wide.searcher(givens, order, limit=limit, max_nodes=max_nodes, seed=seed, root=root)
    answer = []
    start = time.perf_counter()
    _, timed_out = _watched(lambda halt: answer.extend(work(halt)), flag=stop.FLAG if flag is None else flag,
                            deadline=stop.Deadline.after(time_limit, start=start))
    seconds = time.perf_counter() - start
    found, nodes, outcome = answer
    stopped = outcome == STOPPED
    return ExactResult(solutions=int(found), solution=solution.astype(np.int16) if found else None, nodes=int(nodes),
                       seconds=seconds, gave_up=outcome != COMPLETE, interrupted=stopped and not timed_out,
                       timed_out=stopped and timed_out, restarts=1, final_nodes=int(nodes), seed=seed,
                       resume_at=1 if outcome != COMPLETE else 0)


def cnf_literals(cand, order: int) -> int:
    """Literals of the direct CNF of ``cand`` (which the CDCL search stored before its constraints were made
    implicit): "exactly one" over each free cell's k digits and each unit's digit's k places costs k + k (k - 1)
    literals. A measure of the search's size (``CNF_LITERALS_LIMIT``, ``gpu_sa.puzzles.sudoku.auto``'s slices).
    ``cand``: (cells,) bitmasks, or (cells, N) with nonzero = possible (order 9 on)."""
    side = order * order
    if np.ndim(cand) == 2:
        bits = (np.asarray(cand) != 0).astype(np.int64)
    else:
        bits = ((cand[:, None] >> np.arange(side, dtype=np.uint64)) & np.uint64(1)).astype(np.int64)  # cells x digits
    free = bits.sum(axis=1) > 1
    per_cell = bits[free].sum(axis=1)
    places = bits * free[:, None]
    _, units, _, _ = wide.tables(order) if wide.is_wide(order) else tables(order)
    per_unit = places[units].sum(axis=1).ravel()  # (units, digits)
    return int((per_cell * per_cell).sum() + (per_unit * per_unit).sum())


def _deterministic(givens, order, limit, max_nodes, time_limit, flag, root, box_line) -> ExactResult:
    """The seed's search; ``root``: the givens' fixpoint (``propagate``'s candidates), or None; ``box_line``: with
    BOX_LINE (whose root is propagated again: ``root`` is the seed's rules' fixpoint only)."""
    peers, units, cell_units, full = tables(order)
    cand = initial_candidates(givens, order) if root is None else root
    masks = np.zeros(cand.shape[0], dtype=np.uint64)
    answer = []
    _loaded("search9" if order == 3 else "search_core")

    def work(halt):
        if order == 3:  # the same search on bitboards (``bitboard``): the same answer and nodes, 2.5-2.9x as fast
            answer.extend(search9(cand, PEERS, limit, max_nodes, halt, masks, box_line))
            return
        answer.extend(search_core(cand, peers, units, cell_units, full, limit, max_nodes, masks, ZERO, halt,
                                  np.uint32(0), np.uint32(0), DETERMINISTIC, np.full(1, NEVER, np.int64),
                                  root is not None and not box_line, BOX_LINE if box_line else 0,
                                  initial_weights(order), masks.copy(), masks.copy()))

    start = time.perf_counter()
    _, timed_out = _watched(work, flag=flag, deadline=stop.Deadline.after(time_limit, start=start))
    seconds = time.perf_counter() - start
    found, nodes, outcome = answer
    return ExactResult(solutions=int(found), solution=_digits(masks) if found else None, nodes=int(nodes),
                       seconds=seconds, gave_up=outcome != COMPLETE, interrupted=outcome == STOPPED and not timed_out,
                       timed_out=outcome == STOPPED and timed_out, restarts=1, final_nodes=int(nodes))


def count_many(givens, order: int, *, limit: int = 2, max_nodes: int = DEFAULT_MAX_NODES,
               flag: np.ndarray | None = None, box_line: bool = False) -> list[ExactResult]:
    """The deterministic ``count_solutions`` for every row of ``givens`` (puzzles x cells), one compiled call;
    ``box_line`` as there.

    ``seconds`` of each result is the batch's time divided evenly (one call cannot time its
    puzzles apart without slowing them). A stop request (``flag``, default ``gpu_sa.engine.stop.FLAG``)
    ends the batch: the puzzles it did not finish come back ``interrupted``.
    """
    _check_counts(limit, max_nodes)
    givens = np.asarray(givens)
    if givens.ndim != 2:
        raise ValueError(f"givens must be puzzles x cells, got shape {givens.shape}")
    if wide.is_wide(order):  # one search per puzzle (``wide``): at these sizes a call costs nothing next to it
        flag = stop.FLAG if flag is None else flag
        return [_wide(row, order, int(limit), int(max_nodes), None, None, flag, None) for row in givens]
    if givens.shape[0]:
        _check_givens(givens[0], order)  # the order and the row length
        _check_digits(givens, order * order)
    givens = np.ascontiguousarray(givens, dtype=np.int16)
    peers, units, cell_units, full = tables(order)
    flag = stop.FLAG if flag is None else flag
    count = givens.shape[0]
    counts = np.zeros(count, dtype=np.int64)
    nodes = np.zeros(count, dtype=np.int64)
    outcome = np.zeros(count, dtype=np.int64)
    solutions = np.empty_like(givens)
    if order == 3:  # the same search on bitboards (``bitboard``): the same answers and nodes, 2.5-2.9x as fast
        _loaded("search_batch9")

        def work(halt):
            search_batch9(givens, PEERS, full, int(limit), int(max_nodes), halt, counts, solutions, nodes, outcome,
                          bool(box_line))
    else:
        _loaded("search_batch")

        def work(halt):
            search_batch(givens, peers, units, cell_units, full, int(limit), int(max_nodes), halt, counts, solutions,
                         nodes, outcome, BOX_LINE if box_line else 0)
    start = time.perf_counter()
    _watched(work, flag=flag, deadline=stop.Deadline())
    seconds = (time.perf_counter() - start) / max(count, 1)
    return _batch_results(counts, solutions, nodes, outcome, seconds)


_RESULT_DEFAULTS = {field.name: field.default for field in dataclasses.fields(ExactResult)
                    if field.default is not dataclasses.MISSING}


def _batch_results(counts, solutions, nodes, outcome, seconds) -> list[ExactResult]:
    """``count_many``'s results, each built as ``pickle`` and ``copy`` build an object: its ``__dict__`` filled
    at once. A frozen dataclass's ``__init__`` sets its twelve fields one by one through ``object.__setattr__``,
    3-4 us a result, which would be a tenth of ``count_many``'s time on top1465 (bench/exact.py).
    The objects are the same: equal to ``ExactResult(...)``'s, frozen, every field set (tests/puzzles/sudoku/exact/test_search.py)."""
    make = object.__new__
    results = []
    for found, row, branches, end in zip(counts.tolist(), solutions, nodes.tolist(), outcome.tolist()):
        result = make(ExactResult)
        result.__dict__.update(_RESULT_DEFAULTS, solutions=found, solution=row if found else None, nodes=branches,
                               seconds=seconds, gave_up=end != COMPLETE, interrupted=end == STOPPED,
                               final_nodes=branches)
        results.append(result)
    return results
