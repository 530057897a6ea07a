"""Conflict-driven clause learning on the grid's candidates: the search that learns from every conflict.

The root (the propagation's fixpoint, ``consistency.strengthened``) gives the variables: one per free cell and
candidate digit ("cell holds digit"). The grid's constraints ("exactly one" per cell and per unit and digit) are
not written out as clauses: ``implicit`` keeps them as bitmasks and names the clause behind each implication on
demand, so only the learned clauses are stored (two watched literals). The search is CDCL (as in MiniSat, Eén &
Sörensson 2003): unit propagation, a conflict analysed back to its first unique implication point, the learned
clause minimized (recursively, Sörensson & Biere 2009) and added, and the search sent back (non-chronologically) to
the level where that clause asserts a literal; variables ordered by activity (VSIDS: bumped in every conflict,
decaying), with the variables of the learned clause's reasons bumped too; after each reduction of the learned
clauses, the short ones are vivified (``vivify``: tried again, and shortened where propagation proves less). The
rest is CaDiCaL's stable mode (Biere & Fleury 2020), the mode its ``--sat`` setting keeps: decisions take the
target phases (each variable's value in the longest conflict-free trail so far) and restarts come after Luby(i) x
1,024 conflicts, keeping everything learned. Together they cut the conflicts of the 36x36 instances at 45 % about
twentyfold and solve the 49x49 at 40 % in seconds (bench/large.py --methods exact); each can be taken out for the
ablation (``SHORT_RESTARTS``, ``SAVED_PHASES``, ``NO_REASON_BUMPS``, ``LOCAL_MINIMIZATION``, ``NO_VIVIFY``); order 5
takes three of them out (``counting.DEFAULT_FEATURES``).

Completeness and counting: every learned clause is implied by the grid, so a conflict at level 0 proves there is
no (further) solution. Each solution found is recorded and excluded by a clause (the negation of its
decisions), so counting up to ``limit`` is exact. The seed only breaks the initial ties of the activity order
(Philox, stream ``TAG_CLAUSES``): the answer is a function of the seed.

Literals: 2 x variable + (1 for the negation). The learned clauses' arrays (a slice of ``lits`` each, two
watched literals, linked watch lists) and their reduction are ``clause_store``'s; running one search or several
racing, ``clause_search``'s.
"""
from __future__ import annotations

import numpy as np

from ....engine.jit import njit
from .board import ONE, ZERO, _bit_index, _is_single
from .clause_store import _add, _grow_zeroed, _reduce
from .implicit import NO_REASON, UNSET, _assign, _literals, _restore, _var, layout, level_zero
from .ordering import _philox
from .vivify import FIELDS, IMPLIED, KEPT, SATISFIED, next_clause, start_round, step

TAG_CLAUSES = np.uint32(0x434C4155)  # "CLAU"
RESTART_CONFLICTS = 1024  # restarts after Luby(i) x this many conflicts (CaDiCaL's stable mode: "reluctant doubling")
DECAY = 0.95  # VSIDS: the bump grows by 1 / DECAY per conflict
REASON_BUMPS_PER_LITERAL = 10
# feature bits (beside consistency's, learning's, ordering's and CLAUSES), each taking one heuristic out of the
# search, for the ablation (bench/ablation.py)
SHORT_RESTARTS = 128  # Luby(i) x SHORT_RESTART_CONFLICTS (MiniSat's), the search before target phases
SHORT_RESTART_CONFLICTS = 100
SAVED_PHASES = 256  # decisions take each variable's last value (phase saving), not the target phases
NO_REASON_BUMPS = 512  # only the variables of the conflict's resolution bumped
LOCAL_MINIMIZATION = 1024  # a learned literal dropped only when its own reason is in the clause
NO_VIVIFY = 2048  # the learned clauses never vivified
REDUCE_FIRST, REDUCE_MORE = 2000, 300  # learned clauses halved after 2000, then 2300, 2600, ... more conflicts
COMPLETE, NODE_LIMIT, STOPPED = 0, 1, 2
ACTIVITY_LIMIT = 1e100


# The search's helpers (those below marked ``@_helper``) read and write the search's arrays and allocate none, so
# they are compiled without numba's reference counting: with it, every call increments and decrements a counter per
# array passed (an atomic operation each), and those took a third of the search's time at 49x49. Inlining them
# (``inline="always"``) keeps the counting in the caller.
_helper = njit(cache=True, nogil=True, _nrt=False)


@_helper
def _value(assign, lit):
    """1 true, 0 false, -1 unset."""
    a = assign[lit >> 1]
    if a < 0:
        return -1
    return a ^ (lit & 1)


@_helper
def _heap_up(heap, where, activity, i):
    var = heap[i]
    while i > 0:
        parent = (i - 1) >> 1
        if activity[heap[parent]] >= activity[var]:
            break
        heap[i] = heap[parent]
        where[heap[i]] = i
        i = parent
    heap[i] = var
    where[var] = i


@_helper
def _heap_down(heap, where, activity, size, i):
    var = heap[i]
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and activity[heap[child + 1]] > activity[heap[child]]:
            child += 1
        if activity[heap[child]] <= activity[var]:
            break
        heap[i] = heap[child]
        where[heap[i]] = i
        i = child
    heap[i] = var
    where[var] = i


# decisions are published, and the halt flag read, every 64 (about 0.6 ms of a 25x25's search): a search beside
# the chains is halted as soon as their answer comes first (gpu_sa.puzzles.sudoku.auto)
PUBLISH_MASK = 63


@njit(cache=True, nogil=True)
def cdcl(cand, units, limit, max_nodes, flag, noise, solution, features, published):
    """(solutions found (<= limit), decisions, conflicts, restarts, outcome, ticks) of the CDCL search from the root
    ``cand``; the first solution's candidate masks go to ``solution``. ``noise`` (float64, one per possible
    variable, in [0, 1)): the seed's initial activities. Outcome COMPLETE (the count is exact), NODE_LIMIT
    (``max_nodes`` decisions) or STOPPED (``flag[0]``, read every 64 decisions and 1,024 conflicts). The decisions
    made plus ``published[1]`` (the caller's branches before it) go to ``published[0]`` every 64 (PUBLISH_MASK + 1),
    for a thread that runs beside it (``auto``'s chains): a solution found later is found at a count above it; with a
    third entry, the ticks so far go to ``published[2]`` at the same time (``race``'s clock). ``features``:
    the bits SHORT_RESTARTS, SAVED_PHASES, NO_REASON_BUMPS, LOCAL_MINIMIZATION and NO_VIVIFY each take one
    heuristic out (for the ablation; 0 is the search). Vivification's decisions are not counted as decisions."""
    cells = cand.shape[0]
    side = units.shape[1]
    variables, cell_unit, cell_pos, root, cell_first, var_cell, var_digit, places, has_alo = layout(cand, units)
    if variables < 0:  # a cell without a candidate
        return 0, 0, 0, 0, COMPLETE, 0
    root_places = places.copy()  # the reasons' literals: the places at the root
    alive = root.copy()
    # the learned clauses: starts/lengths into ``lits``, two watch nodes each
    capacity = 1024
    cstart = np.empty(capacity, dtype=np.int64)
    clen = np.empty(capacity, dtype=np.int64)
    lits = np.empty(4096, dtype=np.int64)
    used = 0
    nxt = np.full(2 * capacity, -1, dtype=np.int64)
    head = np.full(2 * variables, -1, dtype=np.int64)
    lbd = np.zeros(capacity, dtype=np.int64)  # distinct levels (0: never deleted)
    deleted = np.zeros(capacity, dtype=np.uint8)
    assign = np.full(variables, UNSET, dtype=np.int8)
    level = np.zeros(variables, dtype=np.int64)
    reason = np.full(variables, NO_REASON, dtype=np.int64)
    phase = np.zeros(variables, dtype=np.int8)  # 0: true first (a decision places a digit)
    restart_base = SHORT_RESTART_CONFLICTS if features & SHORT_RESTARTS else RESTART_CONFLICTS
    targets = not features & SAVED_PHASES
    reason_bumps = not features & NO_REASON_BUMPS
    recursive = not features & LOCAL_MINIMIZATION
    vivify = not features & NO_VIVIFY
    vivify_due = False  # a reduction happened: a round of vivification at the next point without conflict
    vivifying = -1  # the clause being vivified (the propagation ignores it), -1 when the search runs
    viv = np.zeros(FIELDS, dtype=np.int64)  # vivification's state (vivify.py)
    queue = np.empty(0, dtype=np.int64)  # ... the clauses of its round
    kept_lits = np.empty(variables + 1, dtype=np.int64)  # ... the literals it keeps of the clause it tries
    tried = np.zeros(capacity, dtype=np.uint8)  # per learned clause: vivified once already
    target = np.zeros(variables, dtype=np.int8)  # the phases of the longest conflict-free trail so far
    target_length = 0  # ... and its length
    stack = np.empty(variables + 1, dtype=np.int64)  # scratch: the recursive minimization's search
    marked = np.empty(variables + 1, dtype=np.int64)  # scratch: variables marked ``seen`` beyond the clause's own
    trail = np.empty(variables, dtype=np.int64)
    trail_lim = np.empty(variables + 1, dtype=np.int64)
    seen = np.zeros(variables, dtype=np.uint8)
    activity = noise[:variables].copy() * 1e-3
    bump = 1.0
    heap = np.arange(variables, dtype=np.int64)
    where = np.arange(variables, dtype=np.int64)
    heap_size = variables
    for i in range(variables // 2 - 1, -1, -1):
        _heap_down(heap, where, activity, heap_size, i)
    learnt = np.empty(variables + 1, dtype=np.int64)
    minimal = np.empty(variables + 1, dtype=np.int64)
    literals = np.empty(variables + 1, dtype=np.int64)  # scratch: a reason's literals (``_literals``)
    stamp = np.full(variables + 2, -1, dtype=np.int64)  # per decision level: the conflict that last counted it
    qhead = 0
    decision_level = 0
    count = 0
    size_trail = level_zero(cand, units, variables, root, cell_first, places, has_alo, assign, level, reason, trail,
                            var_cell, var_digit, alive, cell_unit, cell_pos)
    if size_trail < 0:
        return 0, 0, 0, 0, COMPLETE, 0
    cells_code = variables  # reason codes (implicit): a cell's -2 - (cells_code + cell), a unit's digit's
    places_code = variables + cells  # -2 - (places_code + unit * side + digit)
    next_reduce = REDUCE_FIRST
    reductions = 0
    found = 0
    decisions = 0
    conflicts = 0
    restarts = 0
    ticks = 0  # the work done, a clock that does not depend on timing: bits struck, watch nodes, literals scanned
    luby_index = 1
    restart_at = restart_base
    since_restart = 0
    while True:
        # --- unit propagation: the grid's constraints through the masks, then the learned clauses' watches
        conflict = NO_REASON  # or the conflict's reason code (implicit's docstring)
        conflict_var = -1  # a "not both" conflict's other variable
        while qhead < size_trail and conflict == NO_REASON:
            lit = trail[qhead]
            qhead += 1
            var = lit >> 1
            cell = var_cell[var]
            digit = var_digit[var]
            # the four groups the literal's variable is in: its cell (g = 0: over digits) and its row, column and box
            # (g = 1, 2, 3: the digit over the unit's places)
            if lit & 1 == 0:
                # a placement: the other members of each group become false ("not both"; a conflict where one of them
                # is true already)
                for g in range(4):
                    if g == 0:
                        rest = alive[cell] & ~(ONE << np.uint64(digit))
                    else:
                        u = cell_unit[cell, g - 1]
                        rest = places[u * side + digit] & ~(ONE << np.uint64(cell_pos[cell, g - 1]))
                    while rest:
                        ticks += 1
                        bit = rest & (~rest + ONE)
                        rest ^= bit
                        if g == 0:
                            w = _var(cell_first, root, cell, _bit_index(bit))
                        else:
                            w = _var(cell_first, root, units[u, _bit_index(bit)], digit)
                        if assign[w] == 1:
                            conflict = -2 - w
                            conflict_var = var
                            break
                        size_trail = _assign(2 * w + 1, decision_level, -2 - var, assign, level, reason, trail,
                                             size_trail, var_cell, var_digit, alive, places, cell_unit, cell_pos,
                                             side)
                    if conflict != NO_REASON:
                        break
            else:
                # an exclusion: each group ("at least one") may have one member left (which becomes true) or none (a
                # conflict); a unit whose digit is a single of the root has no such group
                ticks += 1
                for g in range(4):
                    if g == 0:
                        code = cells_code + cell
                        left = alive[cell]
                    else:
                        ud = cell_unit[cell, g - 1] * side + digit
                        if not has_alo[ud]:
                            continue
                        code = places_code + ud
                        left = places[ud]
                    if left == ZERO:
                        conflict = -2 - code
                        break
                    if _is_single(left):
                        if g == 0:
                            w = _var(cell_first, root, cell, _bit_index(left))
                        else:
                            w = _var(cell_first, root, units[cell_unit[cell, g - 1], _bit_index(left)], digit)
                        if assign[w] < 0:
                            size_trail = _assign(2 * w, decision_level, -2 - code, assign, level, reason, trail,
                                                 size_trail, var_cell, var_digit, alive, places, cell_unit, cell_pos,
                                                 side)
            if conflict != NO_REASON:
                break
            # the learned clauses watching the literal made false (two watched literals)
            false_lit = lit ^ 1
            previous = -1
            node = head[false_lit]
            while node >= 0:
                ticks += 1
                c = node >> 1
                k = node & 1
                following = nxt[node]
                if c == vivifying:
                    previous = node
                    node = following
                    continue
                if deleted[c]:  # dropped by a reduction: its watch goes now
                    if previous < 0:
                        head[false_lit] = following
                    else:
                        nxt[previous] = following
                    node = following
                    continue
                base = cstart[c]
                other = lits[base + 1 - k]
                if _value(assign, other) == 1:
                    previous = node
                    node = following
                    continue
                moved = False
                for j in range(base + 2, base + clen[c]):
                    ticks += 1
                    candidate = lits[j]
                    if _value(assign, candidate) != 0:
                        lits[base + k] = candidate
                        lits[j] = false_lit
                        if previous < 0:
                            head[false_lit] = following
                        else:
                            nxt[previous] = following
                        nxt[node] = head[candidate]
                        head[candidate] = node
                        moved = True
                        break
                if moved:
                    node = following
                    continue
                if _value(assign, other) == 0:
                    conflict = c
                    break
                size_trail = _assign(other, decision_level, c, assign, level, reason, trail, size_trail, var_cell,
                                     var_digit, alive, places, cell_unit, cell_pos, side)
                previous = node
                node = following
        if vivifying >= 0 and (conflict == NO_REASON or decision_level > 0):
            # --- vivification (a conflict at level 0 is the search's: no further solution)
            outcome = IMPLIED if conflict != NO_REASON else step(viv, assign, level, lits, cstart, clen, kept_lits)
            if outcome >= 0:
                trail_lim[decision_level] = size_trail
                decision_level += 1
                size_trail = _assign(outcome, decision_level, NO_REASON, assign, level, reason, trail, size_trail,
                                     var_cell, var_digit, alive, places, cell_unit, cell_pos, side)
                continue
            if decision_level > 0:
                size_trail, heap_size = _undo(trail, trail_lim[0], size_trail, phase, assign, reason, heap, where,
                                              activity, heap_size, var_cell, var_digit, alive, places, cell_unit,
                                              cell_pos, side)
                qhead = size_trail
                decision_level = 0
            shorter = outcome == IMPLIED and viv[KEPT] < clen[vivifying]
            if shorter or outcome == SATISFIED:
                deleted[vivifying] = 1
            if shorter and viv[KEPT] == 1:
                size_trail = _assign(kept_lits[0], 0, NO_REASON, assign, level, reason, trail, size_trail, var_cell,
                                     var_digit, alive, places, cell_unit, cell_pos, side)
            elif shorter:
                cstart, clen, nxt, lbd, deleted, lits, used = _add(kept_lits, viv[KEPT], min(lbd[vivifying], viv[KEPT]),
                                                                   count, cstart, clen, nxt, lbd, deleted, lits,
                                                                   used, head)
                tried = _grow_zeroed(tried, count + 1)
                tried[count] = 1
                count += 1
            vivifying = next_clause(viv, queue, deleted, tried, reason, lits, cstart, ticks)
            continue
        if conflict != NO_REASON:
            conflicts += 1
            since_restart += 1
            if (conflicts & 1023) == 0 and flag[0] != 0:
                return found, decisions, conflicts, restarts, STOPPED, ticks
            if decision_level == 0:
                return found, decisions, conflicts, restarts, COMPLETE, ticks
            # the levels below this one were free of conflict
            target_length = _keep_target(trail, trail_lim[decision_level - 1], target, target_length)
            # --- first-UIP analysis
            size = 1
            pending = 0
            lit = -1
            index = size_trail - 1
            c = conflict
            about = conflict_var  # the variable whose clause ``c`` is (a "not both" names its other one from it)
            while True:
                n = _literals(c, about, literals, cstart, clen, lits, variables, cells, side, cell_first, root,
                              root_places, units)
                for j in range(n):
                    q = literals[j]
                    var = q >> 1
                    if lit >= 0 and var == (lit >> 1):
                        continue
                    if seen[var] == 0 and level[var] > 0:
                        seen[var] = 1
                        bump = _bump(var, activity, bump, heap, where)
                        if level[var] == decision_level:
                            pending += 1
                        else:
                            learnt[size] = q
                            size += 1
                while seen[trail[index] >> 1] == 0:
                    index -= 1
                lit = trail[index]
                index -= 1
                seen[lit >> 1] = 0
                pending -= 1
                if pending == 0:
                    break
                c = reason[lit >> 1]
                about = lit >> 1
            learnt[0] = lit ^ 1
            # minimization: a literal implied by the clause's other literals through reasons adds nothing (recursive:
            # Sörensson & Biere 2009; local: a literal whose reason's other literals are all in the clause)
            kept = 1
            cleared = 0
            abstract = 0  # a bit per level (modulo 64) of the clause's literals: a reason outside them cannot help
            for j in range(1, size):
                abstract |= 1 << (level[learnt[j] >> 1] & 63)
                marked[cleared] = learnt[j] >> 1
                cleared += 1
            for j in range(1, size):
                q = learnt[j]
                if reason[q >> 1] == NO_REASON:
                    redundant = False
                elif recursive:
                    redundant, cleared = _implied(q >> 1, abstract, seen, level, reason, stack, marked, cleared,
                                                  literals, cstart, clen, lits, variables, cells, side, cell_first,
                                                  root, root_places, units)
                else:
                    redundant = True
                    n = _literals(reason[q >> 1], q >> 1, literals, cstart, clen, lits, variables, cells, side,
                                  cell_first, root, root_places, units)
                    for i in range(n):
                        v = literals[i] >> 1
                        if v != (q >> 1) and seen[v] == 0 and level[v] > 0:
                            redundant = False
                            break
                if not redundant:
                    minimal[kept] = q
                    kept += 1
            for j in range(cleared):
                seen[marked[j]] = 0
            size = kept
            back = 0
            levels = 1
            stamp[decision_level] = conflicts
            for j in range(1, size):
                learnt[j] = minimal[j]
                at = level[learnt[j] >> 1]
                if stamp[at] != conflicts:
                    stamp[at] = conflicts
                    levels += 1
                if at > back:
                    back = at
                    learnt[1], learnt[j] = learnt[j], learnt[1]
            if reason_bumps:
                bump = _bump_reasons(learnt, size, reason, level, seen, marked, activity, bump, heap, where, literals,
                                     cstart, clen, lits, variables, cells, side, cell_first, root, root_places, units)
            bump *= 1.0 / DECAY
            # --- back to level ``back``
            size_trail, heap_size = _undo(trail, trail_lim[back], size_trail, phase, assign, reason, heap, where,
                                          activity, heap_size, var_cell, var_digit, alive, places, cell_unit,
                                          cell_pos, side)
            qhead = size_trail
            decision_level = back
            # --- the learned clause
            if size == 1:
                size_trail = _assign(learnt[0], 0, NO_REASON, assign, level, reason, trail, size_trail, var_cell,
                                     var_digit, alive, places, cell_unit, cell_pos, side)
                continue
            cstart, clen, nxt, lbd, deleted, lits, used = _add(learnt, size, levels, count, cstart, clen, nxt, lbd,
                                                               deleted, lits, used, head)
            size_trail = _assign(learnt[0], decision_level, count, assign, level, reason, trail, size_trail,
                                 var_cell, var_digit, alive, places, cell_unit, cell_pos, side)
            count += 1
            if conflicts >= next_reduce:  # now, not at the next restart: restarts are rare (Luby x 1,024)
                next_reduce = conflicts + REDUCE_FIRST + REDUCE_MORE * reductions
                reductions += 1
                used = _reduce(lbd, deleted, 0, count, reason, cstart, clen, lits, used)  # 0: all are learned
                vivify_due = vivify
            continue
        # --- no conflict: vivify, restart, or decide, or a solution
        if vivify_due:
            vivify_due = False
            target_length = _keep_target(trail, size_trail, target, target_length)
            if decision_level > 0:
                size_trail, heap_size = _undo(trail, trail_lim[0], size_trail, phase, assign, reason, heap, where,
                                              activity, heap_size, var_cell, var_digit, alive, places, cell_unit,
                                              cell_pos, side)
                qhead = size_trail
                decision_level = 0
            tried = _grow_zeroed(tried, count)
            queue = start_round(viv, count, deleted, tried, lbd, clen, ticks)
            vivifying = next_clause(viv, queue, deleted, tried, reason, lits, cstart, ticks)
            continue
        if since_restart >= restart_at:
            since_restart = 0
            restarts += 1
            luby_index += 1
            restart_at = restart_base * _luby(luby_index)
            target_length = _keep_target(trail, size_trail, target, target_length)
            if decision_level > 0:
                size_trail, heap_size = _undo(trail, trail_lim[0], size_trail, phase, assign, reason, heap, where,
                                              activity, heap_size, var_cell, var_digit, alive, places, cell_unit,
                                              cell_pos, side)
                qhead = size_trail
                decision_level = 0
        var = -1
        while heap_size > 0:
            top = heap[0]
            heap_size -= 1
            where[top] = -1  # outside the heap
            if heap_size > 0:
                heap[0] = heap[heap_size]
                where[heap[0]] = 0
                _heap_down(heap, where, activity, heap_size, 0)
            if assign[top] < 0:
                var = top
                break
        if var < 0:
            # every variable set, no conflict: a solution
            if found == 0:
                solution[:] = cand
                for v in range(variables):
                    if assign[v] == 1:
                        solution[var_cell[v]] = ONE << np.uint64(var_digit[v])
            found += 1
            if found >= limit:
                return found, decisions, conflicts, restarts, COMPLETE, ticks
            # exclude it: the clause "some decision differs" (the negation of the true decisions' literals)
            size = 0
            for j in range(decision_level):
                learnt[size] = trail[trail_lim[j]] ^ 1
                size += 1
            if size == 0:
                return found, decisions, conflicts, restarts, COMPLETE, ticks  # forced at level 0: it is the only one
            # back to level 0 and add the clause: its literals are then all unset (decisions of levels >= 1)
            size_trail, heap_size = _undo(trail, trail_lim[0], size_trail, phase, assign, reason, heap, where,
                                          activity, heap_size, var_cell, var_digit, alive, places, cell_unit,
                                          cell_pos, side)
            qhead = size_trail
            decision_level = 0
            if size == 1:
                size_trail = _assign(learnt[0], 0, NO_REASON, assign, level, reason, trail, size_trail, var_cell,
                                     var_digit, alive, places, cell_unit, cell_pos, side)
                continue
            # LBD 0: a clause that excludes a solution is never deleted
            cstart, clen, nxt, lbd, deleted, lits, used = _add(learnt, size, 0, count, cstart, clen, nxt, lbd, deleted,
                                                               lits, used, head)
            count += 1
            continue
        decisions += 1
        if decisions > max_nodes:
            return found, decisions - 1, conflicts, restarts, NODE_LIMIT, ticks
        if (decisions & PUBLISH_MASK) == 0:
            published[0] = published[1] + decisions - 1  # made; the one being made may still find a solution
            if published.shape[0] > 2:
                published[2] = ticks  # a race's clock (``race``)
            if flag[0] != 0:
                return found, decisions - 1, conflicts, restarts, STOPPED, ticks
        trail_lim[decision_level] = size_trail
        decision_level += 1
        value = target[var] if targets else phase[var]
        size_trail = _assign(2 * var + value, decision_level, NO_REASON, assign, level, reason, trail, size_trail,
                             var_cell, var_digit, alive, places, cell_unit, cell_pos, side)


@_helper
def _bump(var, activity, bump, heap, where):
    """VSIDS: ``var``'s activity up by ``bump``, its place in the heap restored. Returns the bump (all activities
    and the bump scaled down together when one gets too large)."""
    activity[var] += bump
    if activity[var] > ACTIVITY_LIMIT:
        for v in range(activity.shape[0]):
            activity[v] *= 1e-100
        bump *= 1e-100
    if where[var] >= 0:
        _heap_up(heap, where, activity, where[var])
    return bump


@_helper
def _bump_reasons(learnt, size, reason, level, seen, marked, activity, bump, heap, where, literals, cstart, clen, lits,
                  variables, cells, side, cell_first, root, root_places, units):
    """Bump, once each, the variables of the reasons of the learned clause's literals (CaDiCaL's "bumpreason",
    Biere et al.): they caused the conflict too. Skipped, as there, when they are more than 10 x the clause's
    size (long reasons: bumping would blur the order). Returns the bump."""
    extra = 0
    for j in range(size):
        seen[learnt[j] >> 1] = 1
    for j in range(size):
        r = reason[learnt[j] >> 1]
        if r == NO_REASON:
            continue
        length = _literals(r, learnt[j] >> 1, literals, cstart, clen, lits, variables, cells, side, cell_first, root,
                           root_places, units)
        for i in range(length):
            var = literals[i] >> 1
            if seen[var] == 0 and level[var] > 0:
                seen[var] = 1
                marked[extra] = var
                extra += 1
        if extra > REASON_BUMPS_PER_LITERAL * size:
            break
    for j in range(size):
        seen[learnt[j] >> 1] = 0
    bumps = extra <= REASON_BUMPS_PER_LITERAL * size
    for j in range(extra):
        seen[marked[j]] = 0
        if bumps:
            bump = _bump(marked[j], activity, bump, heap, where)
    return bump


@_helper
def _keep_target(trail, quiet, target, target_length):
    """Target phases (Biere & Fleury 2020, CaDiCaL's stable mode): when the first ``quiet`` literals of the trail,
    free of conflict, are more than any conflict-free trail before (``target_length`` of them), their values
    become the decisions' phases. Returns the new target length."""
    if quiet <= target_length:
        return target_length
    for j in range(quiet):
        target[trail[j] >> 1] = trail[j] & 1
    return quiet


@_helper
def _implied(var, abstract, seen, level, reason, stack, marked, cleared, literals, cstart, clen, lits, variables, cells,
             side, cell_first, root, root_places, units):
    """(whether ``var``'s literal is implied by the clause's (``seen``) literals through reasons, the new count of
    ``marked``): MiniSat's recursive minimization (Sörensson & Biere 2009); the variables proven implied stay
    marked (``seen``, listed in ``marked``), a failed search unmarks its own."""
    top = cleared
    size = 1
    stack[0] = var
    while size > 0:
        size -= 1
        v = stack[size]
        length = _literals(reason[v], v, literals, cstart, clen, lits, variables, cells, side, cell_first, root,
                           root_places, units)
        for i in range(length):
            u = literals[i] >> 1
            if u == v or seen[u] or level[u] == 0:
                continue
            if reason[u] != NO_REASON and (abstract >> (level[u] & 63)) & 1:
                seen[u] = 1
                stack[size] = u
                size += 1
                marked[cleared] = u
                cleared += 1
            else:
                for j in range(top, cleared):
                    seen[marked[j]] = 0
                return False, top
    return True, cleared


@_helper
def _undo(trail, keep, size_trail, phase, assign, reason, heap, where, activity, heap_size, var_cell, var_digit, alive,
          places, cell_unit, cell_pos, side):
    """Unset the trail back to ``keep`` literals, saving each variable's phase, giving an exclusion's bits back to
    the masks and putting the variable back in the heap. Returns (trail size, heap size)."""
    while size_trail > keep:
        size_trail -= 1
        var = trail[size_trail] >> 1
        phase[var] = trail[size_trail] & 1
        if assign[var] == 0:
            _restore(var, var_cell, var_digit, alive, places, cell_unit, cell_pos, side)
        assign[var] = UNSET
        reason[var] = NO_REASON
        if where[var] < 0:
            heap[heap_size] = var
            where[var] = heap_size
            heap_size += 1
            _heap_up(heap, where, activity, heap_size - 1)
    return size_trail, heap_size


@njit(cache=True, nogil=True)
def noise(count, key0, key1, search=0):
    """``count`` floats in [0, 1) from Philox (key = the seed, counter = (i, search, 0, TAG_CLAUSES)): search
    ``search``'s initial activities (0 for a search alone)."""
    out = np.empty(count, dtype=np.float64)
    for i in range(count):
        word = _philox(np.uint32(i), np.uint32(search), np.uint32(0), TAG_CLAUSES, key0, key1)[0]
        out[i] = np.float64(word) / 4294967296.0
    return out


@njit(cache=True, inline="always")
def _luby(i):
    """The Luby sequence, 1-based (as ``restarts.luby``)."""
    while True:
        k = 1
        while (1 << k) - 1 < i:
            k += 1
        if i == (1 << k) - 1:
            return 1 << (k - 1)
        i -= (1 << (k - 1)) - 1


CLAUSES = 64  # a feature bit (with consistency's, learning's and ordering's): this search instead of the restarts
