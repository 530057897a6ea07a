"""The seeded search's restarts (Luby budgets), and the worker threads that run searches.

Restart i runs with a budget of Luby(i + 1) x ``base_nodes`` branches, its ties and digit order drawn
from the seed, so that one unlucky early choice cannot hold the search for ever. The first restart runs
on the calling thread (it is short, and most puzzles end there), the others one per core (short ones one
at a time: ``PARALLEL_NODES``); the answer is the one of the lowest-numbered restart that finishes, whatever
the timing.
"""
from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass

import numpy as np

from ....engine import rng, stop
from .backtracking import CANCELLED, COMPLETE, NEVER, NODE_LIMIT, STOPPED, ExactResult, search_core
from .board import ZERO, _digits, initial_candidates, tables
from .consistency import strengthened
from .learning import LAG, PHASE, WDEG, initial_weights, overlay, saved_phases

NO_WEIGHTS = np.zeros(0, dtype=np.int64)  # the restarts' weights without WDEG (never read)
NO_PHASES = np.zeros(0, dtype=np.uint64)  # ... and phases without PHASE

DEFAULT_BASE_NODES = 256  # restart budgets: Luby(i) x this (bench/exact.py --large)
# A first restart of at most this many branches runs on the calling thread, before any worker: handing
# it to a worker thread and waiting for it cost 0.1 to 1 ms on this project's 2-core machine, more than
# the whole search of an easy 16x16; 256 branches take at most about 15 ms (an empty 64x64 grid), so a
# Ctrl-C or a time limit is still heard within a fraction of a second.
FIRST_RESTART_HERE_NODES = DEFAULT_BASE_NODES
# A restart of fewer branches than this starts only while no other restart runs: beside one another, short
# restarts that learn (WDEG, PHASE) spent their time waiting for the restart they learn from and for the GIL
# (1,023 restarts of a hard 9x9 at a Luby base of 2: 0.43 s on two threads against 0.035 s on one). Which thread
# runs a restart never changes its answer.
PARALLEL_NODES = DEFAULT_BASE_NODES


def available_cores() -> int:
    """Cores this process may run on (the affinity mask, not the machine's count)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def luby(i: int) -> int:
    """The Luby sequence, 1-based: 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ... (Luby, Sinclair, Zuckerman 1993)."""
    while True:
        k = i.bit_length()
        if i == (1 << k) - 1:
            return 1 << (k - 1)
        i -= (1 << (k - 1)) - 1


_pool: list = [None, 0]  # (executor, its size): threads kept between searches
_pool_lock = threading.Lock()  # callers on several threads (minimisation's pool) share it


def _workers(count: int) -> ThreadPoolExecutor:
    """A pool of at least ``count`` threads, kept between calls (starting threads costs more than an easy puzzle)."""
    if _pool[1] < count:
        if _pool[0] is not None:
            _pool[0].shutdown(wait=False)
        _pool[0], _pool[1] = ThreadPoolExecutor(max_workers=count, thread_name_prefix="gpu-sa-exact"), count
    return _pool[0]


def _watched(work, *, flag, deadline, workers: int = 1) -> tuple[bool, bool]:
    """Run ``work(halt)`` on ``workers`` threads while this thread relays stop requests (``flag``)
    and the deadline into ``halt``, the flag the compiled loops read. (halted, timed out).

    Off the main thread with one worker and no deadline, the work runs right here and reads
    ``flag`` itself. On the main thread the compiled loops never run on it: Python runs a
    signal handler (the one that sets ``gpu_sa.engine.stop.FLAG``) only between bytecodes of the
    main thread, so that thread must stay free for a Ctrl-C to be heard.
    """
    if workers == 1 and deadline.at is None and threading.current_thread() is not threading.main_thread():
        work(flag)
        return bool(flag[0]), False
    halt = np.array([flag[0]], dtype=np.uint8)
    running = []
    with _pool_lock:  # a pool replaced by a larger one refuses new work: submit under the lock
        pool = _workers(workers)
        for _ in range(workers):
            if flag[0] and running:
                break  # a stop while the threads start: start no more (the first one reports what was stopped)
            try:
                running.append(pool.submit(work, halt))
            except RuntimeError:  # "can't start new thread" (a memory or process cap): go on with those running
                if not running:
                    raise MemoryError("cannot start a thread for the exact search (a memory or thread limit)") from None
                break
    timed_out = False
    try:
        while wait(running, timeout=0.02).not_done:
            if flag[0]:
                halt[0] = 1
            if not timed_out and deadline.passed():
                timed_out = True
                halt[0] = 1
    finally:  # an exception here (a second Ctrl-C) stops the workers before it goes on
        halt[0] |= any(not future.done() for future in running)
        wait(running)
    for future in running:
        future.result()  # a worker's exception, raised here
    return bool(halt[0]), timed_out


@dataclass
class _Restart:
    found: int
    nodes: int
    outcome: int
    masks: np.ndarray
    learned: np.ndarray  # what the restart added to the unit weights (learning.WDEG)
    saved: np.ndarray  # the digits of its deepest node (learning.PHASE)


@dataclass(frozen=True)
class Learned:
    """What a seeded search had learned when it gave up, for a later call that goes on from ``resume_at``: the
    unit weights and saved digits restart ``resume_at`` starts from, and what each of the LAG - 1 restarts
    before it added (pairs: weights added, digits saved)."""
    weights: np.ndarray
    phases: np.ndarray
    recent: tuple


def _restarted(givens, order, limit, max_nodes, seed, threads, time_limit, base_nodes, flag, root,
               first_restart=0, features=0, learned: Learned | None = None) -> ExactResult:
    """Restarts f, f + 1, f + 2, ... (f = ``first_restart``) with budgets Luby(i + 1) x ``base_nodes``, ``threads``
    at a time (None: every core; a budget below ``PARALLEL_NODES`` starts only while no other restart runs)
    (restart f alone first, on this thread, when its budget is small). ``root``:
    the givens' fixpoint (``propagate``'s candidates), or None. ``features``: the search's propagation and
    learning (``consistency``, ``learning``); with any, the root is first strengthened once (on a worker, so
    that a stop or the time limit is heard) and every restart starts from it.

    The answer is that of the lowest restart that completes. Every restart below it has run
    to its whole budget (a restart is only ever cancelled by a lower one completing), so the
    answer, its node counts and the number of restarts are the same for any thread count.
    With WDEG, restart i starts from the weights learned by restarts f - 1 .. i - LAG (``learned``: those
    before f), waiting for them if need be: the same weights for any thread count, LAG restarts at a time.
    The budgets stop when their sum reaches ``max_nodes``.
    """
    peers, units, cell_units, full = tables(order)
    cand = initial_candidates(givens, order) if root is None else root
    key0, key1 = rng.split_seed(seed)
    start = time.perf_counter()
    deadline = stop.Deadline.after(time_limit, start=start)
    stopped = timed_out = False
    if features:
        cand = cand.copy()
        verdict = []
        stopped, timed_out = _watched(
            lambda halt: verdict.append(strengthened(cand, peers, units, cell_units, full, features, halt)),
            flag=flag, deadline=deadline)
        if verdict and not verdict[0]:  # the root's propagation proves there is no solution
            return ExactResult(solutions=0, solution=None, nodes=0, seconds=time.perf_counter() - start,
                               gave_up=False, restarts=1, seed=seed)
        root = cand
    learns = bool(features & (WDEG | PHASE))
    base = learned.weights if learned is not None else initial_weights(order)
    base_phases = learned.phases if learned is not None else np.zeros(cand.shape[0], dtype=np.uint64)
    recent = {first_restart - len(learned.recent) + k: d for k, d in enumerate(learned.recent)} if learned else {}
    cancel = np.full(1, NEVER, dtype=np.int64)  # the lowest restart known to have completed
    budgets = []  # budget of restart first_restart + i; they add up to at most max_nodes
    results: dict[int, _Restart] = {}
    lock = threading.Condition()

    # What restarts first_restart - 1 .. end - 1 taught, summed in that order: restarts are claimed in increasing
    # order, so each claim only adds the restarts after the last one's (summing from the start for every restart
    # made a run of k restarts cost k^2 / 2 overlays: 4.7 s of 4.8 s over 1,023 restarts of a hard 9x9).
    taught = {"end": first_restart - 1, "weights": base.copy(), "phases": base_phases}

    def learned_by(index):
        """Restart ``index``'s (weights, phases), or None while a restart it learns from is still running."""
        stop = index - LAG + 1
        state = taught
        if stop < taught["end"]:  # before the running sum (the ``resume_at`` of an undecided call): from the start
            state = {"end": first_restart - 1, "weights": base.copy(), "phases": base_phases}
        while state["end"] < stop:
            j = state["end"]
            if j in recent:
                added, saved = recent[j]
            elif j >= first_restart:
                if j not in results:
                    return None
                added, saved = results[j].learned, results[j].saved
            else:
                added = None
            if added is not None:
                state["weights"] += added
                state["phases"] = overlay(state["phases"], saved)
            state["end"] = j + 1
        return state["weights"].copy(), state["phases"]

    failed = [False]  # a restart raised: no thread starts another (the error is raised by ``_watched``)

    def next_restart(halt):
        with lock:
            while True:
                index = first_restart + len(budgets)
                spent = sum(budgets)
                if failed[0] or index > cancel[0] or halt[0] or (budgets and spent >= max_nodes):
                    return None
                budget = min(luby(index + 1) * base_nodes, max_nodes - spent)
                # wait while a short restart would run beside another, or a restart it learns from still runs
                # (the restarts claimed and not finished: those with a budget and no result yet)
                if (len(budgets) == len(results) or budget >= PARALLEL_NODES) \
                        and (not learns or (state := learned_by(index)) is not None):
                    break
                lock.wait(0.02)
            budgets.append(budget)
            if budget >= PARALLEL_NODES:
                # the next restart may start beside this one. Only here, when a restart completes or raises and
                # when a thread runs out of work, are the waiting threads woken: woken at every short restart's end,
                # they cost the one that runs the restarts more than they saved
                lock.notify_all()
            return (index, budget) + (state if learns else (NO_WEIGHTS, NO_PHASES))

    def run(index, budget, weights, phases, halt):
        masks = np.zeros(cand.shape[0], dtype=np.uint64)
        before = weights.copy()
        deepest = np.zeros(cand.shape[0] if features & PHASE else 0, dtype=np.uint64)
        try:
            found, nodes, outcome = search_core(cand, peers, units, cell_units, full, limit, budget, masks, ZERO,
                                                halt, key0, key1, index, cancel, root is not None, features,
                                                weights, phases, deepest)
        except BaseException:  # (a MemoryError, say) the threads waiting for this restart must not wait for ever
            with lock:
                failed[0] = True
                lock.notify_all()
            raise
        with lock:
            results[index] = _Restart(int(found), int(nodes), int(outcome), masks, weights - before,
                                      saved_phases(deepest) if features & PHASE else base_phases)
            if outcome == COMPLETE and index < cancel[0]:
                cancel[0] = index
                lock.notify_all()  # the restarts after it are not needed: no thread waits to run one

    def work(halt):
        while (claimed := next_restart(halt)) is not None:
            run(*claimed, halt)
        with lock:
            lock.notify_all()  # a thread waiting to run beside this one: there is nothing left to run

    if not stopped and min(luby(first_restart + 1) * base_nodes, max_nodes) <= FIRST_RESTART_HERE_NODES:
        # The first restart here, to its whole budget as on a worker (the same answer); it reads the stop flag
        # itself, and the workers take the next one on only if it did not decide.
        if (claimed := next_restart(flag)) is not None:
            run(*claimed, flag)
    if not stopped and cancel[0] != first_restart:
        stopped, timed_out = _watched(work, flag=flag, deadline=deadline,
                                      workers=available_cores() if threads is None else threads)
    seconds = time.perf_counter() - start
    decided = None
    for index in range(first_restart, first_restart + len(budgets)):
        run = results.get(index)
        if run is None or run.outcome in (STOPPED, CANCELLED):
            break
        if run.outcome == COMPLETE:
            decided = index
            break
    if decided is not None:
        run = results[decided]
        return ExactResult(solutions=run.found, solution=_digits(run.masks) if run.found else None,
                           nodes=sum(results[i].nodes for i in range(first_restart, decided + 1)), seconds=seconds,
                           gave_up=False, restarts=decided + 1 - first_restart, final_nodes=run.nodes, seed=seed)
    # Undecided: every restart hit its budget (or a stop came first). Any restart's solutions are
    # real ones, so the most found by one restart is a lower bound.
    ran = [results[i] for i in sorted(results)]
    best = max(ran, key=lambda r: r.found, default=None)
    first = next((r for r in ran if r.found), None)
    resume_at = first_restart  # the first restart not run to its whole Luby budget
    while resume_at in results and results[resume_at].outcome == NODE_LIMIT \
            and budgets[resume_at - first_restart] == luby(resume_at + 1) * base_nodes:
        resume_at += 1
    later = None
    if learns:
        nothing = (np.zeros_like(base), np.zeros_like(base_phases))  # what a restart before restart 0 learned
        later = Learned(*learned_by(resume_at),
                        tuple(recent.get(j, (results[j].learned, results[j].saved) if j in results else nothing)
                              for j in range(resume_at - LAG + 1, resume_at)))
    return ExactResult(solutions=best.found if best else 0, solution=_digits(first.masks) if first else None,
                       nodes=sum(r.nodes for r in ran), seconds=seconds, gave_up=True,
                       interrupted=stopped and not timed_out, timed_out=stopped and timed_out, restarts=len(ran),
                       final_nodes=ran[-1].nodes if ran else 0, seed=seed, resume_at=resume_at, learned=later)
