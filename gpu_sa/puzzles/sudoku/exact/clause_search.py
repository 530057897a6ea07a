"""The clause-learning search as ``count_solutions`` runs it (``learned_search``): the root strengthened by the
features' propagation, then one CDCL search (``clauses.cdcl``) on a worker thread, or several from different
activity orders racing (``race``), the answer a function of the seed and their number, not of timing.
"""
from __future__ import annotations

import threading
import time

import numpy as np

from ....engine import rng, stop
from .backtracking import ExactResult
from .board import _digits, tables
from .clauses import CLAUSES, COMPLETE, NODE_LIMIT, STOPPED, cdcl, noise
from .consistency import strengthened


def race(cand, units, limit, max_nodes, halt, key0, key1, features, searches, masks):
    """``cdcl``'s answer (found, decisions, conflicts, restarts, outcome, ticks) for ``searches`` searches from the
    same root, search k starting from the activities ``noise(..., search=k)``, each on a thread of its own; the
    winner's first solution goes to ``masks``.

    The answer is that of the search that decides (a count it has finished, or a proof of none) within the fewest
    ticks (the work counted by ``cdcl``: candidates struck, watch nodes visited and literals scanned, which track its
    time), the lower number among equals: a function of the seed and ``searches``, not of timing. A search still
    running once its published ticks pass the best answer's can only decide later, and is stopped; until then it
    runs on, the price of that determinism. ``halt[0]`` stops them all (outcome STOPPED); with no answer and no stop,
    NODE_LIMIT (``max_nodes`` decisions in each). Without an answer the counts are search 0's."""
    count = cand.shape[0] * units.shape[1]
    flags = [np.zeros(1, dtype=np.uint8) for _ in range(searches)]
    published = [np.zeros(3, dtype=np.int64) for _ in range(searches)]  # decisions, 0, ticks (``cdcl``)
    found_masks = [np.zeros(cand.shape[0], dtype=np.uint64) for _ in range(searches)]
    results = [None] * searches
    failures = []
    changed = threading.Event()

    def one(k):
        try:
            results[k] = cdcl(cand, units, limit, max_nodes, flags[k], noise(count, key0, key1, k), found_masks[k],
                              features, published[k])
        except BaseException as error:  # raised again on the calling thread
            failures.append(error)
            for each in flags:
                each[0] = 1
        finally:
            changed.set()

    def winner():  # (ticks, search) of the best answer so far
        return min(((r[5], k) for k, r in enumerate(results) if r is not None and r[4] == COMPLETE), default=None)

    threads = [threading.Thread(target=one, args=(k,), name=f"gpu-sa-cdcl-{k}", daemon=True) for k in range(searches)]
    for thread in threads:
        thread.start()
    while any(thread.is_alive() for thread in threads):
        changed.wait(0.002)
        changed.clear()
        if halt[0]:
            for each in flags:
                each[0] = 1
        best = winner()
        if best is not None:
            for k in range(searches):  # its ticks at the end will be at least those published
                if results[k] is None and (published[k][2], k) > best:
                    flags[k][0] = 1
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
    best = winner()
    if best is None:
        return results[0][:4] + (STOPPED if halt[0] else NODE_LIMIT, results[0][5])
    masks[:] = found_masks[best[1]]
    return results[best[1]]


def learned_search(cand, order, limit, max_nodes, seed, time_limit, flag, features, watched, published=None,
                   searches=1):
    """``count_solutions``' answer by CDCL: the root strengthened by ``features``' propagation, then ``cdcl``
    on a worker thread (``watched``: ``restarts._watched``, so that a stop or the time limit is heard), which
    publishes its decisions in ``published`` (int64[2], see ``cdcl``) when given; with ``searches`` > 1 (and no
    ``published``), that many searches racing (``race``), ``max_nodes`` the decisions of each.
    ``nodes`` are decisions; ``restarts`` the CDCL's restarts + 1. It does not resume: a later call with
    ``first_restart`` starts again (``resume_at`` stays 0)."""
    peers, units, cell_units, full = tables(order)
    cand = cand.copy()
    key0, key1 = rng.split_seed(seed)
    start = time.perf_counter()
    answer = []
    masks = np.zeros(cand.shape[0], dtype=np.uint64)

    def work(halt):
        if not strengthened(cand, peers, units, cell_units, full, features & ~CLAUSES, halt):
            answer.extend((0, 0, 0, 0, COMPLETE))
        elif not halt[0] and searches > 1:
            answer.extend(race(cand, units, limit, max_nodes, halt, key0, key1, features, searches, masks))
        elif not halt[0]:
            answer.extend(cdcl(cand, units, limit, max_nodes, halt, noise(cand.shape[0] * units.shape[1], key0, key1),
                               masks, features, np.zeros(2, np.int64) if published is None else published))

    stopped, timed_out = watched(work, flag=flag, deadline=stop.Deadline.after(time_limit, start=start))
    found, decisions, conflicts, restarts, outcome = answer[:5] if answer else (0, 0, 0, 0, STOPPED)
    return ExactResult(solutions=int(found), solution=_digits(masks) if found else None, nodes=int(decisions),
                       seconds=time.perf_counter() - start, gave_up=outcome != COMPLETE,
                       interrupted=outcome == STOPPED and not timed_out, timed_out=outcome == STOPPED and timed_out,
                       restarts=int(restarts) + 1, final_nodes=int(decisions), seed=seed)
