"""Plain-Python baseline of the exact solver: the same rules, the same branching, no numba.

Candidates are Python ints used as bitmasks. Exclusivity, uniqueness and parity run until
nothing changes; the search branches on the first free cell with the fewest candidates and
tries digits in increasing order, exactly like ``gpu_sa.puzzles.sudoku.exact``, so both visit the
same nodes (the benchmark checks that the node counts agree).
"""
from __future__ import annotations


def make_tables(order):
    side = order * order
    cells = side * side
    rows = [[r * side + c for c in range(side)] for r in range(side)]
    columns = [[r * side + c for r in range(side)] for c in range(side)]
    boxes = [[(b // order * order + k // order) * side + b % order * order + k % order for k in range(side)]
             for b in range(side)]
    units = rows + columns + boxes
    peers = [sorted({p for u in units if cell in u for p in u} - {cell}) for cell in range(cells)]
    return peers, units, (1 << side) - 1


def _single(mask):
    return mask and not mask & (mask - 1)


def propagate(cand, placed, peers, units, full):
    pending = [cell for cell, mask in enumerate(cand) if not placed[cell] and _single(mask)]
    if any(mask == 0 for mask in cand):
        return False
    while True:
        while pending:  # exclusivity
            cell = pending.pop()
            if placed[cell]:
                continue
            placed[cell] = True
            mask = cand[cell]
            for p in peers[cell]:
                if cand[p] & mask:
                    cand[p] &= ~mask
                    if cand[p] == 0:
                        return False
                    if _single(cand[p]):
                        pending.append(p)
        for unit in units:  # uniqueness
            once = twice = 0
            for cell in unit:
                twice |= once & cand[cell]
                once |= cand[cell]
            if once != full:
                return False
            single = once & ~twice
            if single:
                for cell in unit:
                    mask = cand[cell] & single
                    if mask & (mask - 1):
                        return False
                    if mask and cand[cell] != mask:
                        cand[cell] = mask
                        pending.append(cell)
        if pending:
            continue
        changed = False
        for unit in units:  # parity
            for i, a in enumerate(unit):
                pair = cand[a]
                if bin(pair).count("1") != 2:
                    continue
                for b in unit[i + 1:]:
                    if cand[b] == pair:
                        for cell in unit:
                            if cell != a and cell != b and cand[cell] & pair:
                                cand[cell] &= ~pair
                                changed = True
                                if cand[cell] == 0:
                                    return False
                                if _single(cand[cell]):
                                    pending.append(cell)
        if not changed and not pending:
            return True


def count_solutions(givens, order, limit=2, max_nodes=10_000_000):
    """(solutions up to limit, first solution as 0-based digits or None, nodes)."""
    peers, units, full = make_tables(order)
    cand = [full if g < 0 else 1 << g for g in map(int, givens)]
    placed = [False] * len(cand)
    state = {"found": 0, "first": None, "nodes": 0}

    def fewest(cand, placed):
        best, best_count = -1, 1 << 30
        for cell, mask in enumerate(cand):
            if placed[cell]:
                continue
            count = bin(mask).count("1")
            if 1 < count < best_count:
                best, best_count = cell, count
                if count == 2:
                    break
        return best

    def explore(cand, placed):
        cell = fewest(cand, placed)
        if cell < 0:
            state["found"] += 1
            if state["first"] is None:
                state["first"] = [mask.bit_length() - 1 for mask in cand]
            return state["found"] >= limit
        rest = cand[cell]
        while rest:
            bit = rest & -rest
            rest &= ~bit
            state["nodes"] += 1
            if state["nodes"] > max_nodes:
                return True
            child, child_placed = cand[:], placed[:]
            child[cell] = bit
            if propagate(child, child_placed, peers, units, full) and explore(child, child_placed):
                return True
        return False

    if propagate(cand, placed, peers, units, full):
        explore(cand, placed)
    return state["found"], state["first"], min(state["nodes"], max_nodes)
