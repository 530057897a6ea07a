"""Independent Hashiwokakero checker: it shares no code with the solvers, on purpose.

It receives the grid (list of rows, 0 = water, else the island's number) and the printed bridges, reads the
rules straight from the puzzle's definition, and returns the list of violations, empty when the solution is
valid.
"""
from __future__ import annotations

from numbers import Integral


def hashi_violations(grid, bridges):
    """Violations of a Hashiwokakero solution: ``bridges`` ([r1, c1, r2, c2, count], 0-based)
    on ``grid`` (list of rows, 0 = water, else the island's number).

    The rules: a bridge joins two islands of one row or column over water only, is single
    or double, and no pair of islands is listed twice; bridges never cross; each island has
    as many bridges as its number; the bridges connect all the islands.
    """
    rows = len(grid)
    cols = len(grid[0]) if rows else 0
    if rows == 0 or cols == 0 or any(len(row) != cols for row in grid):
        return ["the grid is not a non-empty rectangular grid"]
    islands = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c]]
    problems = []
    degree = {island: 0 for island in islands}
    neighbours = {island: [] for island in islands}
    seen_pairs = set()
    # Which bridge runs over each water cell, horizontally and vertically: a cell with both is a crossing.
    across = {}
    down = {}
    for k, bridge in enumerate(bridges):
        name = f"bridge {k + 1}"
        if len(bridge) != 5 or not all(isinstance(v, Integral) for v in bridge):
            problems.append(f"{name} is not five integers: {bridge!r}")
            continue
        r1, c1, r2, c2, count = bridge
        ends = [(r1, c1), (r2, c2)]
        if not all(0 <= r < rows and 0 <= c < cols for r, c in ends):
            problems.append(f"{name} {bridge} leaves the {rows}x{cols} grid")
            continue
        if not all(grid[r][c] for r, c in ends):
            problems.append(f"{name} {bridge} does not join two islands")
            continue
        if count not in (1, 2):
            problems.append(f"{name} {bridge} has {count} bridges, not 1 or 2")
            continue
        (r1, c1), (r2, c2) = sorted(ends)
        if (r1 == r2) == (c1 == c2):
            problems.append(f"{name} {bridge} does not join two distinct islands of one row or column")
            continue
        between = [(r1, c) for c in range(c1 + 1, c2)] if r1 == r2 else [(r, c1) for r in range(r1 + 1, r2)]
        if any(grid[r][c] for r, c in between):
            problems.append(f"{name} {bridge} passes over an island")
            continue
        pair = ((r1, c1), (r2, c2))
        if pair in seen_pairs:
            problems.append(f"{name} {bridge} joins a pair of islands already joined")
            continue
        seen_pairs.add(pair)
        for cell in between:
            (across if r1 == r2 else down)[cell] = k
        for island in pair:
            degree[island] += count
        neighbours[pair[0]].append(pair[1])
        neighbours[pair[1]].append(pair[0])
    for cell in sorted(set(across) & set(down)):
        problems.append(f"bridges {across[cell] + 1} and {down[cell] + 1} cross at r{cell[0] + 1}c{cell[1] + 1}")
    for r, c in islands:
        if degree[(r, c)] != grid[r][c]:
            problems.append(f"island r{r + 1}c{c + 1} ({grid[r][c]}) has {degree[(r, c)]} bridges")
    if islands:
        reached = {islands[0]}
        frontier = [islands[0]]
        while frontier:
            island = frontier.pop()
            for other in neighbours[island]:
                if other not in reached:
                    reached.add(other)
                    frontier.append(other)
        if len(reached) != len(islands):
            problems.append(f"the bridges connect {len(reached)} of the {len(islands)} islands from "
                            f"r{islands[0][0] + 1}c{islands[0][1] + 1}, not all")
    return problems
