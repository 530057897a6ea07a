"""An independent Sudoku solution counter: what the complete search's counts and proofs are checked against.

The product's searches (``gpu_sa.puzzles.sudoku.exact``: the deterministic search, the seeded restarts, the clause
learning) are compared with each other in the tests; this counter shares no code with any of them (no tables,
no rules, no bitmask helpers), so a fault in their common parts (the seed's three rules, ``board``'s tables)
cannot make all of them agree on a wrong count. It is plain Python: a depth-first search on one bitmask per row,
column and box; at each node a cell without a candidate, or a row, column or box with no place left for a digit,
ends the branch; a digit with one place left in a unit is placed there, else the search branches on the empty
cell with the fewest candidates. Fast enough for 4x4 and 9x9 and for 16x16 with enough givens; ``node_cap``
bounds the rest.
"""
from __future__ import annotations


class _Capped(Exception):
    pass


def count_solutions(givens, order: int, limit: int, node_cap: int = 1_000_000):
    """``(count, first, complete)`` for 0-based ``givens`` (a sequence of side * side ints, -1 empty):
    ``count`` the solutions found, at most ``limit``; ``first`` the first one (a list of 0-based digits) or None;
    ``complete`` False when ``node_cap`` branches ran out first (then ``count`` is only a lower bound).
    Givens that repeat a digit in a row, column or box have no solution."""
    side = order * order
    cells = side * side
    givens = [int(d) for d in givens]
    if len(givens) != cells:
        raise ValueError(f"{cells} cells expected for order {order}, got {len(givens)}")
    row, col, box = [0] * side, [0] * side, [0] * side
    box_of = [(c // side) // order * order + (c % side) // order for c in range(cells)]
    grid = list(givens)
    for cell, digit in enumerate(givens):
        if digit < 0:
            continue
        bit = 1 << digit
        r, k, b = cell // side, cell % side, box_of[cell]
        if (row[r] | col[k] | box[b]) & bit:
            return 0, None, True
        row[r] |= bit
        col[k] |= bit
        box[b] |= bit
    full = (1 << side) - 1
    units = ([[r * side + k for k in range(side)] for r in range(side)]
             + [[r * side + k for r in range(side)] for k in range(side)]
             + [[cell for cell in range(cells) if box_of[cell] == b] for b in range(side)])
    found, first, nodes = [0], [None], [0]

    def descend(empty):
        """True when the count reached ``limit`` (stop everything)."""
        nodes[0] += 1
        if nodes[0] > node_cap:
            raise _Capped
        if not empty:
            found[0] += 1
            if first[0] is None:
                first[0] = list(grid)
            return found[0] >= limit
        candidates = {}
        best, best_mask, best_size = 0, 0, side + 1
        for i, cell in enumerate(empty):
            mask = full & ~(row[cell // side] | col[cell % side] | box[box_of[cell]])
            candidates[cell] = mask
            size = bin(mask).count("1")
            if size < best_size:
                best, best_mask, best_size = i, mask, size
                if size == 0:
                    return False
        if best_size > 1:  # a digit with no place in a unit ends the branch; one with a single place is placed
            for unit in units:
                placed, once, twice = 0, 0, 0  # digits placed; candidates of one empty cell, of two or more
                for cell in unit:
                    mask = candidates.get(cell)
                    if mask is None:
                        placed |= 1 << grid[cell]
                    else:
                        twice |= once & mask
                        once |= mask
                if once | placed != full:
                    return False
                single = once & ~twice & ~placed
                if single and best_size > 1:
                    bit = single & -single
                    for cell in unit:
                        if candidates.get(cell, 0) & bit:
                            best, best_mask, best_size = empty.index(cell), bit, 1
                            break
        cell = empty[best]
        rest = empty[:best] + empty[best + 1:]
        r, k, b = cell // side, cell % side, box_of[cell]
        while best_mask:
            bit = best_mask & -best_mask
            best_mask ^= bit
            row[r] |= bit
            col[k] |= bit
            box[b] |= bit
            grid[cell] = bit.bit_length() - 1
            done = descend(rest)
            row[r] &= ~bit
            col[k] &= ~bit
            box[b] &= ~bit
            grid[cell] = -1
            if done:
                return True
        return False

    try:
        descend([cell for cell in range(cells) if givens[cell] < 0])
    except _Capped:
        return found[0], first[0], False
    return found[0], first[0], True
