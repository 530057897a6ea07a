"""Vivification of the learned clauses: each one tried again, and shortened where unit propagation proves less.

A learned clause l1 or l2 or ... or lk is tried by deciding "not l1", "not l2", ... in turn, each at a new
decision level, with unit propagation after each (the grid's constraints and the other learned clauses; the
clause itself is ignored, or it would imply its own last literal):

- a conflict after "not l1" .. "not li": l1 or ... or li is implied, and the rest of the clause can go;
- some lj true after "not l1" .. "not li": l1 or ... or li or lj is implied;
- some lj already false: it is not decided, and it is left out if one of the two above follows;
- none of these, every literal decided: the clause stays as it was.

A shorter clause replaces the old one (one literal: a fact at level 0); a clause true at level 0 is dropped.
Piette, Hamadi & Saïs (2008) vivified the input clauses; Luo et al. (2017) showed that the learned ones pay
most; CaDiCaL and Kissat do it as part of their inprocessing. Here (``clauses.cdcl``), after each reduction
of the learned clauses the search goes back to level 0 (as for a restart, not counted as one) and tries the
clauses with at most ``MAX_LBD`` levels that were never tried, fewest levels first and the newest first among
equals, until it has spent 1/``SHARE`` of the ticks the search spent since the last round. The budget is in
ticks, not seconds, so the search stays a function of the seed. With it, on 2 cores, 7 of the ten 49x49 at 45 %
are solved in 30 s against 5 without (seed 2: 6 against 5), all ten in 60 s; a larger share (1/3, LBD <= 8)
solves 4 (bench/large.py --sizes 49 --percentages 45 --methods exact).

The state between steps is ``state`` (int64[FIELDS]):

    [CLAUSE]    the clause being tried (-1: none)      [NEXT]      the next position in ``queue``
    [POSITION]  its next literal to look at            [QUEUED]    the clauses in ``queue``
    [KEPT]      its literals kept so far (``kept``)    [LIMIT]     the ticks at which this round ends
                                                       [SINCE]     the ticks when the last round ended
"""
from __future__ import annotations

import numpy as np

from ....engine.jit import njit

CLAUSE, POSITION, KEPT, NEXT, QUEUED, LIMIT, SINCE = range(7)
FIELDS = 7
MAX_LBD = 6
SHARE = 10
# ``step``'s answers below 0 (at or above 0: the literal to set next)
IMPLIED, SATISFIED, UNCHANGED = -1, -2, -3


@njit(cache=True, nogil=True)
def start_round(state, count, deleted, tried, lbd, clen, ticks):
    """The clauses of the next round, in the order they are tried; ``state`` set for their first."""
    keys = np.empty(count, dtype=np.int64)
    queued = 0
    for c in range(count):
        # LBD 0: a clause that excludes a solution (never deleted, never shortened)
        if not deleted[c] and not tried[c] and 0 < lbd[c] <= MAX_LBD and clen[c] > 2:
            keys[queued] = lbd[c] * (count + 1) + (count - c)
            queued += 1
    keys = np.sort(keys[:queued])
    queue = count - keys % (count + 1)
    state[NEXT] = 0
    state[QUEUED] = queued
    state[LIMIT] = ticks + (ticks - state[SINCE]) // SHARE
    state[CLAUSE] = -1
    return queue


@njit(cache=True, nogil=True, _nrt=False)
def next_clause(state, queue, deleted, tried, reason, lits, cstart, ticks):
    """The next clause to try (-1: the round is over, ``state[SINCE]`` set). A clause that is the reason of a
    literal set at level 0 is skipped: that literal's analysis reads it."""
    while state[NEXT] < state[QUEUED] and ticks < state[LIMIT]:
        c = queue[state[NEXT]]
        state[NEXT] += 1
        if deleted[c] or reason[lits[cstart[c]] >> 1] == c or reason[lits[cstart[c] + 1] >> 1] == c:
            continue
        tried[c] = 1
        state[CLAUSE] = c
        state[POSITION] = 0
        state[KEPT] = 0
        return c
    state[CLAUSE] = -1
    state[SINCE] = ticks
    return -1


@njit(cache=True, nogil=True, _nrt=False)
def step(state, assign, level, lits, cstart, clen, kept):
    """After a propagation without conflict: the literal to set next (the negation of the clause's next unset
    literal, which goes to ``kept``), or SATISFIED (a literal true at level 0), IMPLIED (a literal true: with it,
    ``kept`` is implied) or UNCHANGED (every literal decided or false, no conflict)."""
    c = state[CLAUSE]
    base = cstart[c]
    while state[POSITION] < clen[c]:
        lit = lits[base + state[POSITION]]
        state[POSITION] += 1
        a = assign[lit >> 1]
        if a >= 0 and (a ^ (lit & 1)) == 1:
            if level[lit >> 1] == 0:
                return SATISFIED
            kept[state[KEPT]] = lit
            state[KEPT] += 1
            return IMPLIED
        if a >= 0:
            continue  # false: left out if the clause shortens
        kept[state[KEPT]] = lit
        state[KEPT] += 1
        return lit ^ 1
    return UNCHANGED
