"""Hashiwokakero instances by seed 004's method (section 2.4), plus a fixed-size variant.

The seed's method (``exact=False``): draw ``islands`` distinct cells at random; take every
edge between row or column neighbours; wherever a horizontal and a vertical edge cross,
add an island at the crossing cell; give every edge 1 or 2 bridges at random (2 with
``double_probability``); an island's number is the sum of its bridges. The final puzzle
has ``islands`` plus the crossing islands. One round of crossing islands is enough: the
new islands only split existing edges, so no new crossing can appear. If the islands do
not form one connected graph, the draw is thrown away and another made.

``exact=True`` gives exactly ``islands`` islands (Coelho et al. 2019 use 100 to 400 on
grids of about 16x16 to 30x30): islands are placed one at a time, each on a free cell
that shares a row or a column with an island placed before (so the graph stays connected
by construction), followed by the crossing islands it causes; a cell whose crossings
would pass the count is refused and another drawn.

``edge_probability`` < 1 departs from the seed, which uses every edge: a random spanning
tree of the edges is always kept (connectivity), every other edge with that probability,
so that unused candidate edges are part of the puzzle as in published ones.

Every draw comes from ``numpy.random.default_rng(seed)``: one seed, one instance. With
``unique=True`` whole new instances are drawn from the same generator until the exact
solver (``gpu_sa.exact.hashi.solve(grid, limit=2)``) finds exactly one solution.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree

from ...validate import hashi_violations
from .geometry import geometry


class GenerationFailed(RuntimeError):
    """No instance with the asked property turned up within the allowed attempts."""


def _island_before(occupied: np.ndarray, axis: int) -> np.ndarray:
    """True where an island lies strictly before the cell along ``axis`` (above / to the left)."""
    counts = occupied.astype(np.int64)
    return (np.cumsum(counts, axis=axis) - counts) > 0


def crossing_cells(occupied: np.ndarray) -> np.ndarray:
    """Water cells with an island somewhere on each of their four sides: a horizontal and a
    vertical edge between neighbours both pass there, so they cross."""
    sides = [_island_before(occupied, axis) for axis in (0, 1)]
    sides += [np.flip(_island_before(np.flip(occupied, axis), axis), axis) for axis in (0, 1)]
    return ~occupied & np.logical_and.reduce(sides)


def _scatter(rng, rows, cols, islands):
    """The seed's islands: ``islands`` random cells, plus an island at every crossing."""
    occupied = np.zeros((rows, cols), dtype=bool)
    occupied.flat[rng.choice(rows * cols, size=islands, replace=False)] = True
    return occupied | crossing_cells(occupied)


def _grow(rng, rows, cols, islands):
    """Exactly ``islands`` islands, connected by construction; None when the count cannot be hit."""
    occupied = np.zeros((rows, cols), dtype=bool)
    occupied.flat[rng.integers(rows * cols)] = True
    count = 1
    while count < islands:
        # Free cells that see an island along their row or column.
        reachable = ~occupied & (occupied.any(axis=1, keepdims=True) | occupied.any(axis=0, keepdims=True))
        for cell in rng.permutation(np.flatnonzero(reachable)):
            occupied.flat[cell] = True
            crossings = crossing_cells(occupied)
            added = 1 + int(crossings.sum())
            if count + added <= islands:
                occupied |= crossings
                count += added
                break
            occupied.flat[cell] = False
        else:
            return None
    return occupied


def _connected(shape) -> bool:
    a, b = shape.edges[:, 0], shape.edges[:, 1]
    graph = sp.csr_array((np.ones(len(a)), (a, b)), shape=(shape.islands, shape.islands))
    return connected_components(graph, directed=False)[0] == 1


def _bridges(rng, shape, double_probability, edge_probability):
    """(edge index, count) of the planted solution: every edge, or a spanning tree plus a random share."""
    edges = shape.edges.shape[0]
    keep = rng.random(edges) < edge_probability
    if not keep.all():
        # Random weights make the minimum spanning tree a random spanning tree.
        a, b = shape.edges[:, 0], shape.edges[:, 1]
        weights = sp.csr_array((rng.random(edges) + 1.0, (a, b)), shape=(shape.islands, shape.islands))
        tree = minimum_spanning_tree(weights).tocoo()
        tree_pairs = set(zip(np.minimum(tree.row, tree.col).tolist(), np.maximum(tree.row, tree.col).tolist()))
        keep |= np.array([(int(p), int(q)) in tree_pairs for p, q in shape.edges], dtype=bool)
    counts = np.where(rng.random(edges) < double_probability, 2, 1)
    return [(e, int(counts[e])) for e in np.flatnonzero(keep)]


def draw(rng, rows, cols, *, islands, exact, double_probability, edge_probability):
    """One instance from ``rng`` without uniqueness check: (grid, bridges), or None to draw again."""
    occupied = _grow(rng, rows, cols, islands) if exact else _scatter(rng, rows, cols, islands)
    if occupied is None:
        return None
    shape = geometry(occupied.astype(np.int64))  # values do not matter for edges and crossings
    if len(shape.crossings):
        raise AssertionError("internal error: crossing edges left after adding the crossing islands")
    if shape.islands < 2 or not _connected(shape):
        return None
    grid = np.zeros((rows, cols), dtype=np.int64)
    bridges = []
    for e, count in _bridges(rng, shape, double_probability, edge_probability):
        a, b = shape.edges[e]
        for island in (a, b):
            grid[tuple(shape.cells[island])] += count
        bridges.append([*map(int, shape.cells[a]), *map(int, shape.cells[b]), count])
    return grid, bridges


def generate(rows: int, cols: int, *, islands: int, seed, unique: bool = False, max_attempts: int = 1000,
             double_probability: float = 0.5, exact: bool = False, edge_probability: float = 1.0,
             time_limit: float | None = None):
    """A Hashiwokakero instance and its planted solution: (grid (rows, cols) int array, bridges).

    ``bridges`` are [r1, c1, r2, c2, count] (0-based, (r1, c1) left of / above (r2, c2)).
    ``islands``: the seed's number of random islands (the result has more, the crossing
    islands), or with ``exact=True`` the exact number of islands. With ``unique=True`` the
    result has exactly one solution (each check bounded by ``time_limit`` seconds, one that
    runs out counting as a failure). ``GenerationFailed`` after ``max_attempts`` draws that
    were disconnected, missed the count or were not unique.
    """
    if rows < 1 or cols < 1:
        raise ValueError(f"the grid must have at least one cell, got {rows}x{cols}")
    if not 2 <= islands <= rows * cols:
        raise ValueError(f"islands must be between 2 and {rows * cols} for a {rows}x{cols} grid, got {islands}")
    rng = np.random.default_rng(seed)
    for _ in range(max_attempts):
        drawn = draw(rng, rows, cols, islands=islands, exact=exact, double_probability=double_probability,
                     edge_probability=edge_probability)
        if drawn is None:
            continue
        grid, bridges = drawn
        problems = hashi_violations(grid.tolist(), bridges)
        if problems:
            raise AssertionError(f"internal error: a generated {rows}x{cols} Hashiwokakero fails its validator: "
                                 f"{problems[:3]}")
        if not unique:
            return grid, bridges
        from gpu_sa.exact.hashi import solve  # the exact solver is only needed for uniqueness

        answer = solve(grid, limit=2, time_limit=time_limit)
        if answer.solutions == 1 and not answer.gave_up:
            return grid, bridges
    wanted = "unique " if unique else ""
    raise GenerationFailed(f"no connected {wanted}{rows}x{cols} Hashiwokakero with {islands} "
                           f"{'islands' if exact else 'random islands'} in {max_attempts} attempts (seed {seed})")
