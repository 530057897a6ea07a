"""The smallest unique puzzle inside a grid, proven: the seed's brute force, pruned.

Seed 003 counts in binary over every subset of the givens ("days, even weeks" for a full
9x9 grid: 2^81 subsets). Two facts cut that down:

- Uniqueness is monotone: giving back a cell of the grid keeps a unique puzzle unique, so a
  set of givens that leaves two solutions leaves two for every subset of it. (Hence the
  seed's question on an annealed puzzle, "can any further givens go?", reduces to single
  removals; what a search can add is the smallest unique puzzle inside it, or inside the grid.)
- A puzzle (the cells S of grid g) is unique iff S meets every *unavoidable set* of g: a set
  of cells D such that another valid grid equals g outside D. Every second solution of a
  puzzle yields one (where it differs from g), shrunk cell by cell to a minimal one.

So the search enumerates sets of givens that meet every unavoidable set known so far,
branching on the unmet set with the fewest cells left to choose (each branch takes one of its
cells and rules out the ones tried before it, so no set is visited twice), its cells tried
first where they meet most unmet sets ("the solver's counts": the sets are what the solver
found), ties in a seeded random order. When a set of givens meets them all, the exact solver
decides: unique (found), or a second solution whose shrunk difference joins the known sets.
Sizes go up one at a time from 0 (iterative deepening), so a finished size k proves that no
unique puzzle of k givens lies inside the input, and the first size that succeeds is the
minimum. A node is cut when its givens plus a lower bound exceed k: the unmet sets chosen
greedily pairwise disjoint (on the cells left to choose) each need a given of their own.

Known sets at the start: for every pair of digits, the cells holding them split into the
minimal sets where the two digits can be swapped (the components of the graph that joins,
in every unit, the cell of one digit to the cell of the other); and, for every given of the
incumbent (the smaller of greedy's and anneal's puzzles), the shrunk difference of a second
solution once that given is removed (none when removing it keeps the puzzle unique). When
the input is itself a puzzle no given of which can go, these alone bound the search at its
size, so the seed's check on an annealed puzzle ends at the root.

Bitsets: a set of cells is ``words`` uint64, cell c at bit c & 63 of word c >> 6.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ....engine import rng, stop
from ....engine.jit import njit
from . import exact

# the seed's deterministic search, on the bitboards at 9x9: the same nodes and first solution, so the same sets,
# proofs and counts as the cell-mask search, 2.5-2.9x as fast (``exact.bitboard.search_any``, whose two searches
# ``polled_search`` calls with a flag)
search9, PEERS, CELLS_9X9 = exact.bitboard.search9, exact.bitboard.PEERS, exact.bitboard.CELLS
search_core, COMPLETE = exact.backtracking.search_core, exact.backtracking.COMPLETE
DETERMINISTIC, NEVER = exact.backtracking.DETERMINISTIC, exact.backtracking.NEVER

TAG_BRUTE = np.uint32(0x42525554)  # "BRUT": the seeded tie-break order of cells
ONE = np.uint64(1)
ZERO = np.uint64(0)
LOW6 = np.int64(63)
# How the search ended (``OUTCOMES[i]`` names outcome i)
OPTIMAL, NODE_LIMIT, STOPPED, GAVE_UP, TIME_LIMIT = 0, 1, 2, 3, 4
OUTCOMES = ("optimal", "node_limit", "stopped", "solver_gave_up", "time_limit")
# What a node of the search is
LEAF, BRANCH, DEAD = 0, 1, 2
_philox = rng.philox


@njit(cache=True, nogil=True)
def polled_search(cand0, peers, units, cell_units, full, limit, max_nodes, solution, box_line, flag):
    """``exact.bitboard.search_any`` (found, nodes, gave_up) that also reads ``flag[0]`` every 1,024 branches and
    gives up once it is set: a uniqueness check is one bounded search, but at 16x16 and above one can take seconds,
    and a stop request or a time limit must not wait for it. Until the flag is set: the same nodes and answer."""
    if cand0.shape[0] == CELLS_9X9:
        found, nodes, outcome = search9(cand0, PEERS, limit, max_nodes, flag, solution, box_line)
        return found, nodes, outcome != COMPLETE
    no_phases = np.zeros(0, dtype=np.uint64)
    found, nodes, outcome = search_core(cand0, peers, units, cell_units, full, limit, max_nodes, solution, ZERO, flag,
                                        np.uint32(0), np.uint32(0), DETERMINISTIC, np.full(1, NEVER, dtype=np.int64),
                                        False, 0, np.zeros(0, dtype=np.int64), no_phases, no_phases)
    return found, nodes, outcome != COMPLETE


@njit(cache=True)
def _has(bits, cell):
    return (bits[cell >> 6] >> np.uint64(cell & LOW6)) & ONE != ZERO


@njit(cache=True)
def _add(bits, cell):
    bits[cell >> 6] |= ONE << np.uint64(cell & LOW6)


@njit(cache=True)
def _drop(bits, cell):
    bits[cell >> 6] &= ~(ONE << np.uint64(cell & LOW6))


@njit(cache=True)
def _count(bits):
    total = 0
    for w in range(bits.shape[0]):
        total += np.int64(exact._popcount(bits[w]))
    return total


@njit(cache=True)
def _meets(a, b):
    for w in range(a.shape[0]):
        if a[w] & b[w]:
            return True
    return False


@njit(cache=True)
def _difference(grid, masks, differ):
    """``differ`` = the cells where the solution ``masks`` is not ``grid``; True when there is one."""
    differ[:] = ZERO
    found = False
    for cell in range(grid.shape[0]):
        if masks[cell] != ONE << np.uint64(grid[cell]):
            _add(differ, cell)
            found = True
    return found


@njit(cache=True)
def _other_solution(grid, given, tables, check_nodes, work, flag):
    """Is there a solution of the givens (the cells of ``grid`` in bitset ``given``) other than ``grid``?

    1: yes, and ``work.differ`` holds the cells where it differs from ``grid``; 0: ``grid`` is the
    only one; -1: the solver gave up (``check_nodes`` branches in one search, or ``flag[0]`` set).
    """
    peers, units, cell_units, full = tables
    cand, masks, differ = work[0], work[1], work[2]
    cells = grid.shape[0]
    for cell in range(cells):
        cand[cell] = (ONE << np.uint64(grid[cell])) if _has(given, cell) else full
    found, nodes, gave_up = polled_search(cand, peers, units, cell_units, full, 2, check_nodes, masks, False, flag)
    if gave_up:
        return -1
    if found < 2:
        return 0
    if _difference(grid, masks, differ):
        return 1
    # The solver met ``grid`` first and keeps only the first solution: forbid each free cell
    # its digit in turn until a solution appears.
    for cell in range(cells):
        if _has(given, cell):
            continue
        digit = ONE << np.uint64(grid[cell])
        cand[cell] = full & ~digit
        found, nodes, gave_up = polled_search(cand, peers, units, cell_units, full, 1, check_nodes, masks, False, flag)
        if gave_up:
            return -1
        if found:
            _difference(grid, masks, differ)
            return 1
        cand[cell] = digit  # every solution agrees with ``grid`` here: fixed for the next searches
    return -1  # not reached: two solutions were counted


@njit(cache=True)
def _unavoidable(grid, given, tables, check_nodes, work, flag):
    """A minimal unavoidable set that ``given`` misses, in ``work.found``: 1; 0 if none (unique); -1 gave up
    (``flag``: as ``_other_solution``).

    The difference of a second solution, shrunk: a cell stays when the grid outside the set,
    plus that cell, has no other solution; else that other solution's difference (inside the
    set, without the cell) replaces the set. One pass is enough: a cell that stayed could not
    go from a larger set, so it cannot from a smaller one.
    """
    answer = _other_solution(grid, given, tables, check_nodes, work, flag)
    if answer != 1:
        return answer
    differ, found, trial = work[2], work[3], work[4]
    found[:] = differ
    for cell in range(grid.shape[0]):
        if not _has(found, cell):
            continue
        for w in range(found.shape[0]):
            trial[w] = ~found[w]
        _add(trial, cell)
        answer = _other_solution(grid, trial, tables, check_nodes, work, flag)
        if answer < 0:
            return -1
        if answer == 1:
            found[:] = differ
    return 1


@njit(cache=True)
def _insert(sets, sizes, count, new):
    """Append ``new`` to the known sets unless it is there; (sets, sizes, count), grown as needed."""
    size = _count(new)
    for s in range(count):
        if sizes[s] == size:
            same = True
            for w in range(new.shape[0]):
                if sets[s, w] != new[w]:
                    same = False
                    break
            if same:
                return sets, sizes, count
    if count == sets.shape[0]:
        grown = np.zeros((2 * count, sets.shape[1]), dtype=np.uint64)
        grown[:count] = sets
        grown_sizes = np.zeros(2 * count, dtype=np.int64)
        grown_sizes[:count] = sizes
        sets, sizes = grown, grown_sizes
    sets[count] = new
    sizes[count] = size
    return sets, sizes, count + 1


@njit(cache=True)
def _digit_pair_sets(grid, units, sets, sizes, count):
    """Add the minimal unavoidable sets that use two digits.

    In every unit, the cell of digit a and the cell of digit b must swap together or not at all;
    the components of the graph of those links are the smallest sets where a and b can swap.
    """
    side = units.shape[1]
    cells = grid.shape[0]
    where = np.empty((units.shape[0], side), dtype=np.int64)  # where[unit, digit] = its cell
    for u in range(units.shape[0]):
        for k in range(side):
            where[u, grid[units[u, k]]] = units[u, k]
    parent = np.arange(cells)  # union-find; a root is the lowest cell of its component
    component = np.zeros(sets.shape[1], dtype=np.uint64)
    for a in range(side):
        for b in range(a + 1, side):
            for u in range(units.shape[0]):
                x, y = where[u, a], where[u, b]
                while parent[x] != x:
                    x = parent[x]
                while parent[y] != y:
                    y = parent[y]
                parent[max(x, y)] = min(x, y)
            for root in range(cells):
                if parent[root] != root or (grid[root] != a and grid[root] != b):
                    continue
                component[:] = ZERO
                for cell in range(root, cells):
                    if grid[cell] == a or grid[cell] == b:
                        top = cell
                        while parent[top] != top:
                            top = parent[top]
                        if top == root:
                            _add(component, cell)
                sets, sizes, count = _insert(sets, sizes, count, component)
            for cell in range(cells):
                parent[cell] = cell
    return sets, sizes, count


@njit(cache=True)
def _mine(grid, region, last, sets, sizes, count, tables, check_nodes, work, flag):
    """Add unavoidable sets inside ``region``: with every cell outside it given, and one cell of each
    known set inside it, ask for a missed set, add it, give one of its cells (the ``last`` or the
    first), and again until none is missed."""
    given = work[5]
    for w in range(region.shape[0]):
        given[w] = ~region[w]
    for s in range(count):
        if not _meets(sets[s], given):
            pick = -1
            for cell in range(grid.shape[0]):
                if _has(sets[s], cell):
                    pick = cell
                    if not last:
                        break
            _add(given, pick)
    while _unavoidable(grid, given, tables, check_nodes, work, flag) == 1:
        found = work[3]
        sets, sizes, count = _insert(sets, sizes, count, found)
        pick = -1
        for cell in range(grid.shape[0]):
            if _has(found, cell):
                pick = cell
                if not last:
                    break
        _add(given, pick)
    return sets, sizes, count


@njit(cache=True)
def _starting_sets(grid, incumbent, tables, check_nodes, work, flag):
    """(sets, sizes, count): the two-digit sets, sets mined on the cells of every three digits, and for
    each given of the incumbent the missed set once it is removed; fewer once ``flag[0]`` is set (a stop or the
    time limit: mining the 560 triples of digits of a 16x16 takes about 0.6 s, and a 25x25 has 2,300)."""
    units = tables[1]
    words = incumbent.shape[0]
    sets = np.zeros((256, words), dtype=np.uint64)
    sizes = np.zeros(256, dtype=np.int64)
    sets, sizes, count = _digit_pair_sets(grid, units, sets, sizes, 0)
    region = np.zeros(words, dtype=np.uint64)
    side = units.shape[1]
    cells = grid.shape[0]
    for a in range(side):
        for b in range(a + 1, side):
            for c in range(b + 1, side):
                if flag[0] != 0:
                    return sets, sizes, count
                region[:] = ZERO
                for cell in range(cells):
                    if grid[cell] == a or grid[cell] == b or grid[cell] == c:
                        _add(region, cell)
                sets, sizes, count = _mine(grid, region, False, sets, sizes, count, tables, check_nodes, work, flag)
                sets, sizes, count = _mine(grid, region, True, sets, sizes, count, tables, check_nodes, work, flag)
    given = incumbent.copy()
    for cell in range(cells):
        if flag[0] != 0:
            break
        if _has(incumbent, cell):
            _drop(given, cell)
            if _unavoidable(grid, given, tables, check_nodes, work, flag) == 1:
                sets, sizes, count = _insert(sets, sizes, count, work[3])
            _add(given, cell)
    return sets, sizes, count


@njit(cache=True)
def _evaluate(sets, unmet, n_unmet, excluded, rank, branch, work):
    """What a node is, given its unmet sets and the cells ``excluded`` from choice: (kind, branches, bound).

    LEAF: no set unmet. DEAD: an unmet set has no cell left to choose. BRANCH: the cells of the
    unmet set with the fewest choosable cells go to ``branch``, those in most unmet sets first,
    then by ``rank``; ``bound`` is a lower bound on the givens still to add: unmet sets taken
    smallest first (choosable cells) whenever disjoint from those taken, each needs its own.
    """
    union, free_size, order, tally = work
    words = excluded.shape[0]
    cells = rank.shape[0]
    if n_unmet == 0:
        return LEAF, 0, 0
    best, best_size, largest = -1, cells + 1, 0
    for i in range(n_unmet):
        s = unmet[i]
        size = 0
        for w in range(words):
            size += np.int64(exact._popcount(sets[s, w] & ~excluded[w]))
        if size == 0:
            return DEAD, 0, 0
        free_size[i] = size
        largest = max(largest, size)
        if size < best_size:
            best, best_size = s, size
    tally[:largest + 1] = 0  # counting sort of the unmet sets by choosable cells
    for i in range(n_unmet):
        tally[free_size[i]] += 1
    position = 0
    for size in range(largest + 1):
        held = tally[size]
        tally[size] = position
        position += held
    for i in range(n_unmet):
        order[tally[free_size[i]]] = unmet[i]
        tally[free_size[i]] += 1
    union[:] = ZERO
    bound = 0
    for i in range(n_unmet):
        s = order[i]
        disjoint = True
        for w in range(words):
            if sets[s, w] & ~excluded[w] & union[w]:
                disjoint = False
                break
        if disjoint:
            bound += 1
            for w in range(words):
                union[w] |= sets[s, w] & ~excluded[w]
    n = 0
    for w in range(words):
        free = sets[best, w] & ~excluded[w]
        while free:
            branch[n] = w * 64 + np.int64(exact._popcount((free & (~free + ONE)) - ONE))
            n += 1
            free &= free - ONE
    score = tally[:n]
    score[:] = 0
    for i in range(n_unmet):
        for j in range(n):
            if _has(sets[unmet[i]], branch[j]):
                score[j] += 1
    for i in range(1, n):  # insertion sort: score down, rank up
        cell, key = branch[i], score[i]
        j = i
        while j > 0 and (score[j - 1] < key or (score[j - 1] == key and rank[branch[j - 1]] > rank[cell])):
            branch[j] = branch[j - 1]
            score[j] = score[j - 1]
            j -= 1
        branch[j] = cell
        score[j] = key
    return BRANCH, n, bound


@njit(cache=True)
def _tie_ranks(cells, index, key0, key1):
    """A seeded random order of the cells (rank of each), from Philox at (cell, grid index, 0, BRUT)."""
    words = np.empty(cells, dtype=np.uint32)
    for cell in range(cells):
        words[cell] = _philox(np.uint32(cell), np.uint32(index), np.uint32(0), TAG_BRUTE, key0, key1)[0]
    order = np.argsort(words, kind="mergesort")
    rank = np.empty(cells, dtype=np.int64)
    for position in range(cells):
        rank[order[position]] = position
    return rank


@njit(nogil=True, cache=True)
def prove(grid, within, incumbent, index, key0, key1, max_nodes, check_nodes, flag, tables, best):
    """Iterative deepening over the sizes below the incumbent's; see the module docstring.

    ``within`` (bitset): the cells that may be givens; ``incumbent`` (bitset): a unique puzzle
    inside it. ``best`` receives the smallest unique puzzle found (the incumbent if none is
    smaller). Returns (outcome, lower bound, nodes, checks, sets known): every unique puzzle
    inside ``within`` has at least ``lower bound`` givens; ``best`` has that many when OPTIMAL.
    At most ``max_nodes`` nodes are looked at (NODE_LIMIT). ``flag[0]`` set (a stop request or the time limit:
    the caller tells which) ends it at once, the uniqueness checks and the sets gathered first included: STOPPED.
    """
    cells = grid.shape[0]
    words = within.shape[0]
    upper = _count(incumbent)
    best[:] = incumbent
    work = (np.empty(cells, dtype=np.uint64), np.empty(cells, dtype=np.uint64), np.zeros(words, dtype=np.uint64),
            np.zeros(words, dtype=np.uint64), np.zeros(words, dtype=np.uint64), np.zeros(words, dtype=np.uint64))
    sets, sizes, count = _starting_sets(grid, incumbent, tables, check_nodes, work, flag)
    rank = _tie_ranks(cells, index, key0, key1)
    given = np.zeros(words, dtype=np.uint64)
    excluded = np.zeros((upper + 1, words), dtype=np.uint64)
    unmet = np.zeros((upper + 1, sets.shape[0]), dtype=np.int64)  # unmet[depth, :n_unmet[depth]]: set indices
    n_unmet = np.zeros(upper + 1, dtype=np.int64)
    branch = np.zeros((upper + 1, cells), dtype=np.int64)
    branches = np.zeros(upper + 1, dtype=np.int64)
    tried = np.zeros(upper + 1, dtype=np.int64)
    scratch = (np.zeros(words, dtype=np.uint64), np.zeros(sets.shape[0], dtype=np.int64),
               np.zeros(sets.shape[0], dtype=np.int64), np.zeros(cells + 1, dtype=np.int64))
    nodes = 0
    checks = 0
    for w in range(words):
        excluded[0, w] = ~within[w]
    for size in range(upper):  # is there a unique puzzle with ``size`` givens?
        depth = 0
        given[:] = ZERO
        n_unmet[0] = count
        for s in range(count):
            unmet[0, s] = s
        fresh = True  # the node at ``depth`` still has to be looked at
        while depth >= 0:
            if fresh:
                fresh = False
                if flag[0] != 0:
                    return STOPPED, size, nodes, checks, count
                if nodes >= max_nodes:
                    return NODE_LIMIT, size, nodes, checks, count
                nodes += 1
                while True:
                    kind, n, bound = _evaluate(sets, unmet[depth], n_unmet[depth], excluded[depth], rank,
                                               branch[depth], scratch)
                    if kind != LEAF:
                        break
                    checks += 1
                    answer = _unavoidable(grid, given, tables, check_nodes, work, flag)
                    if answer == 0:
                        best[:] = given
                        return OPTIMAL, size, nodes, checks, count
                    if answer < 0:  # a check cut short by the flag proves nothing either way
                        return STOPPED if flag[0] != 0 else GAVE_UP, size, nodes, checks, count
                    sets, sizes, count = _insert(sets, sizes, count, work[3])
                    if count > unmet.shape[1]:
                        grown = np.zeros((upper + 1, sets.shape[0]), dtype=np.int64)
                        grown[:, :unmet.shape[1]] = unmet
                        unmet = grown
                        scratch = (scratch[0], np.zeros(sets.shape[0], dtype=np.int64),
                                   np.zeros(sets.shape[0], dtype=np.int64), scratch[3])
                    for d in range(depth + 1):  # the new set is unmet on the whole path
                        unmet[d, n_unmet[d]] = count - 1
                        n_unmet[d] += 1
                branches[depth] = 0 if kind == DEAD or depth + bound > size else n
                tried[depth] = 0
            if tried[depth] == branches[depth]:  # every branch of this node done: back up
                depth -= 1
                if depth >= 0:
                    _drop(given, branch[depth, tried[depth] - 1])
                continue
            i = tried[depth]
            tried[depth] += 1
            cell = branch[depth, i]
            excluded[depth + 1] = excluded[depth]
            for j in range(i + 1):  # this branch takes ``cell``; the ones before it are ruled out
                _add(excluded[depth + 1], branch[depth, j])
            _add(given, cell)
            kept = 0
            for k in range(n_unmet[depth]):
                s = unmet[depth, k]
                if not _has(sets[s], cell):
                    unmet[depth + 1, kept] = s
                    kept += 1
            n_unmet[depth + 1] = kept
            depth += 1
            fresh = True
    return OPTIMAL, upper, nodes, checks, count


@dataclass(frozen=True)
class Search:
    outcome: str  # one of OUTCOMES
    puzzle: np.ndarray  # bool per cell: the smallest unique puzzle found
    lower_bound: int  # proven: every unique puzzle inside the input has at least this many givens
    nodes: int  # search nodes (sets of givens) looked at
    checks: int  # exact-solver questions "which unavoidable set does this miss?"
    sets: int  # unavoidable sets known at the end


def _bitset(mask) -> np.ndarray:
    bits = np.zeros((len(mask) + 63) // 64, dtype=np.uint64)
    for cell in np.flatnonzero(mask):
        bits[cell >> 6] |= np.uint64(1) << np.uint64(cell & 63)
    return bits


def smallest_unique(grid, order: int, *, within, incumbent, index: int, seed: int, max_nodes: int,
                    deadline: stop.Deadline = stop.Deadline(), flag, check_nodes: int) -> Search:
    """The search of the module docstring for one grid (0-based digits), givens among the cells ``within``.

    ``incumbent`` (bool per cell, inside ``within``, unique; ideally no single given of it
    removable) bounds it from above; ``flag`` (``gpu_sa.engine.stop.FLAG``) stops it; ``max_nodes``
    and ``deadline`` bound it, the uniqueness checks inside included. For a node budget the answer
    depends only on the input and (seed, index), which fix the tie-break order.
    """
    tables = exact.tables(order)
    grid = np.ascontiguousarray(grid, dtype=np.int16)
    key0, key1 = rng.split_seed(seed)
    best = np.zeros((grid.shape[0] + 63) // 64, dtype=np.uint64)
    with stop.halting(deadline, flag) as halt:
        outcome, lower, nodes, checks, known = prove(grid, _bitset(within), _bitset(incumbent), index, key0, key1,
                                                     int(max_nodes), int(check_nodes), halt, tables, best)
    if outcome == STOPPED and not flag[0] and deadline.passed():
        outcome = TIME_LIMIT
    puzzle = np.array([(int(best[c >> 6]) >> (c & 63)) & 1 for c in range(grid.shape[0])], dtype=bool)
    return Search(outcome=OUTCOMES[outcome], puzzle=puzzle, lower_bound=int(lower), nodes=int(nodes),
                  checks=int(checks), sets=int(known))
