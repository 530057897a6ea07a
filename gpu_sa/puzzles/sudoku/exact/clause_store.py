"""The learned clauses' storage, for the clause-learning search (``clauses.cdcl``).

Clause c's literals are ``lits[cstart[c]:cstart[c] + clen[c]]``; its first two are the watched ones, each watch a
node of a linked list per literal (``head[literal]`` is the first node, ``nxt[node]`` the next; node 2c + k watches
literal k of clause c). ``lbd[c]`` is the number of decision levels it spanned when learned (LBD), ``deleted[c]`` its
flag once a reduction drops it (its watches are unlinked as the search walks past them). The arrays grow by
doubling; a reduction halves the learned clauses and moves the kept ones' literals down.
"""
from __future__ import annotations

import numpy as np

from ....engine.jit import njit


@njit(cache=True, nogil=True)
def _grow(array, need):
    if need <= array.shape[0]:
        return array
    bigger = np.empty(max(need, 2 * array.shape[0]), dtype=array.dtype)
    bigger[:array.shape[0]] = array
    return bigger


@njit(cache=True, nogil=True)
def _add(learnt, size, levels, count, cstart, clen, nxt, lbd, deleted, lits, used, head):
    """Clause ``count``: ``learnt[:size]``, its first two literals watched. Returns the arrays (grown if need be)
    and the literals used."""
    if count == cstart.shape[0]:
        cstart, clen, nxt, lbd, deleted = _more_clauses(cstart, clen, nxt, lbd, deleted)
    lits = _grow(lits, used + size)
    cstart[count] = used
    clen[count] = size
    lbd[count] = levels
    lits[used:used + size] = learnt[:size]
    for k in range(2):
        node = 2 * count + k
        nxt[node] = head[learnt[k]]
        head[learnt[k]] = node
    return cstart, clen, nxt, lbd, deleted, lits, used + size


@njit(cache=True, nogil=True)
def _grow_zeroed(array, need):
    """``_grow`` with the new entries zero: for flags that nothing writes before they are read."""
    old = array.shape[0]
    bigger = _grow(array, need)
    bigger[old:] = 0
    return bigger


@njit(cache=True, nogil=True)
def _more_clauses(cstart, clen, nxt, lbd, deleted):
    grown = 2 * cstart.shape[0]
    more = np.full(2 * grown, -1, dtype=np.int64)
    more[:nxt.shape[0]] = nxt
    # zeroed, not _grow's uninitialised tail: _add does not write a clause's flag, so a new clause read whatever
    # memory held (a learned clause dropped at random: the search was not a function of the seed once it grew)
    return _grow(cstart, grown), _grow(clen, grown), more, _grow(lbd, grown), _grow_zeroed(deleted, grown)


@njit(cache=True, nogil=True)
def _reduce(lbd, deleted, original, count, reason, cstart, clen, lits, used):
    """Delete the half of the learned clauses (those from ``original`` on, not yet deleted, with more than
    two levels) that span the most decision levels (LBD, Audemard & Simon 2009); the oldest first among equals.
    A clause that is the reason of a literal on the trail stays (analysis reads it; the literal it implied is
    one of its two watched ones). Then the learned clauses kept are moved down over the deleted ones' literals
    (in order, each clause's literals in order: the search is the same), so that the literals in use stay about
    what the kept clauses hold; without it they grew by some 15 MB a second at 49x49. Returns the literals used."""
    candidates = np.empty(count - original, dtype=np.int64)
    size = 0
    for c in range(original, count):
        if deleted[c]:
            continue
        locked = reason[lits[cstart[c]] >> 1] == c or reason[lits[cstart[c] + 1] >> 1] == c
        if lbd[c] > 2 and not locked:
            candidates[size] = c
            size += 1
    keys = np.empty(size, dtype=np.int64)
    for j in range(size):
        keys[j] = -lbd[candidates[j]] * (count + 1) + candidates[j]
    order = np.argsort(keys)
    for j in range(size // 2):
        deleted[candidates[order[j]]] = 1
    if original == count:
        return used
    # the learned clauses' literals follow those of the clauses before ``original``, clause after clause: move the
    # kept ones down
    end = cstart[original]
    for c in range(original, count):
        if deleted[c]:
            continue
        start = cstart[c]
        if start != end:
            for i in range(clen[c]):
                lits[end + i] = lits[start + i]
            cstart[c] = end
        end += clen[c]
    return end
