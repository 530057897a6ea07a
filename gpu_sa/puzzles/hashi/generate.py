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

Every draw comes from ``numpy.random.default_rng(seed)``: one seed, one instance.

``unique=True`` repairs the planted solution until it is the only one. Random draws are almost
never unique at the Coelho et al. density (none of 1,000 draws of 100 islands on 16x16, 25 s), so:
the integer program finds the solution *closest* to the planted one
(``gpu_sa.puzzles.hashi.exact.closest_other_solution``: fewest changed variables, typically a short
cycle of bridges that can be shifted), and one edge where they differ gets another bridge count in
the planted solution, a double first (an island's number changes with it, so that other solution
is gone). Repeated until no other solution exists (a few dozen repairs for 100 islands, about a
second), or a fresh draw when no edge can change (an island would lose its last bridge, or the
bridges would fall apart) or after ``MAX_REPAIRS`` repairs.
"""
from __future__ import annotations

from functools import partial

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree

from ...apps.generate import instances as made_instances
from ...engine import stop
from . import default_islands
from .validate import hashi_violations
from .geometry import geometry

MAX_REPAIRS = 500  # planted-solution repairs per draw before a fresh draw (100 islands on 16x16 take 20-40)


class GenerationFailed(RuntimeError):
    """No instance with the asked property turned up within the allowed attempts."""


class GenerationStopped(RuntimeError):
    """A stop request (``gpu_sa.engine.stop``: Ctrl-C on the command line) came while an instance was being made."""


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


def _connected(shape, used=None) -> bool:
    """Whether the candidate edges (only those marked ``used``, if given) join every island."""
    edges = shape.edges if used is None else shape.edges[used]
    a, b = edges[:, 0], edges[:, 1]
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


def _planted(rng, rows, cols, *, islands, exact, double_probability, edge_probability):
    """(geometry, bridges per candidate edge) of one random instance's planted solution, or None to draw again."""
    occupied = _grow(rng, rows, cols, islands) if exact else _scatter(rng, rows, cols, islands)
    if occupied is None:
        return None
    shape = geometry(occupied.astype(np.int64))  # values do not matter for edges and crossings
    if len(shape.crossings):
        raise AssertionError("internal error: crossing edges left after adding the crossing islands")
    if shape.islands < 2 or not _connected(shape):
        return None
    counts = np.zeros(shape.edges.shape[0], dtype=np.int64)
    for e, count in _bridges(rng, shape, double_probability, edge_probability):
        counts[e] = count
    return shape, counts


def _puzzle(shape, counts):
    """(grid, bridges [r1, c1, r2, c2, count]) of a planted solution; islands' numbers are their bridges."""
    grid = np.zeros((shape.rows, shape.cols), dtype=np.int64)
    bridges = []
    for e in np.flatnonzero(counts):
        a, b = shape.edges[e]
        for island in (a, b):
            grid[tuple(shape.cells[island])] += counts[e]
        bridges.append([*map(int, shape.cells[a]), *map(int, shape.cells[b]), int(counts[e])])
    return grid, bridges


def draw(rng, rows, cols, *, islands, exact, double_probability, edge_probability):
    """One instance from ``rng`` without uniqueness check: (grid, bridges), or None to draw again."""
    planted = _planted(rng, rows, cols, islands=islands, exact=exact, double_probability=double_probability,
                       edge_probability=edge_probability)
    return None if planted is None else _puzzle(*planted)


def _with_values(shape, counts):
    from dataclasses import replace

    degrees = np.zeros(shape.islands, dtype=np.int64)
    np.add.at(degrees, shape.edges[:, 0], counts)
    np.add.at(degrees, shape.edges[:, 1], counts)
    return replace(shape, values=degrees.astype(shape.values.dtype)), degrees


def _repaired(rng, shape, counts, time_limit):
    """The planted ``counts`` changed until they are the puzzle's only solution (module docstring), or None."""
    from gpu_sa.puzzles.hashi.exact import closest_other_solution  # the exact solver is only needed for uniqueness

    for _ in range(MAX_REPAIRS):
        if stop.requested():
            raise GenerationStopped("stopped")
        puzzle, _ = _with_values(shape, counts)
        try:
            other = closest_other_solution(puzzle, counts, time_limit=time_limit)
        except TimeoutError:
            return None
        if other is None:
            return counts
        choices = []
        for e in rng.permutation(np.flatnonzero(other != counts)):
            away = counts[e] + (1 if other[e] < counts[e] else -1)  # further from the other solution
            choices += [(e, value) for value in (away, *(v for v in (0, 1, 2) if v not in (away, counts[e])))
                        if 0 <= value <= 2]
        choices.sort(key=lambda choice: -choice[1])  # doubles first (stable: the random order otherwise)
        for e, value in choices:
            trial = counts.copy()
            trial[e] = value
            if (_with_values(shape, trial)[1] >= 1).all() and (value > 0 or _connected(shape, trial > 0)):
                counts = trial
                break
        else:
            return None
    return None


def generate(rows: int, cols: int, *, islands: int, seed, unique: bool = False, max_attempts: int = 1000,
             double_probability: float = 0.5, exact: bool = False, edge_probability: float = 1.0,
             time_limit: float | None = None):
    """A Hashiwokakero instance and its planted solution: (grid (rows, cols) int array, bridges).

    ``bridges`` are [r1, c1, r2, c2, count] (0-based, (r1, c1) left of / above (r2, c2)).
    ``islands``: the seed's number of random islands (the result has more, the crossing
    islands), or with ``exact=True`` the exact number of islands. With ``unique=True`` the
    planted solution is repaired until it is the only one (module docstring; each integer program
    bounded by ``time_limit`` seconds, one that runs out counting as a failed draw).
    ``GenerationFailed`` after ``max_attempts`` draws that were disconnected, missed the count or
    could not be made unique; ``GenerationStopped`` on a stop request during the repairs.
    """
    if rows < 1 or cols < 1:
        raise ValueError(f"the grid must have at least one cell, got {rows}x{cols}")
    if not 2 <= islands <= rows * cols:
        raise ValueError(f"islands must be between 2 and {rows * cols} for a {rows}x{cols} grid, got {islands}")
    rng = np.random.default_rng(seed)
    for _ in range(max_attempts):
        planted = _planted(rng, rows, cols, islands=islands, exact=exact, double_probability=double_probability,
                           edge_probability=edge_probability)
        if planted is None:
            continue
        shape, counts = planted
        if unique:
            counts = _repaired(rng, shape, counts, time_limit)
            if counts is None:
                continue
        grid, bridges = _puzzle(shape, counts)
        problems = hashi_violations(grid.tolist(), bridges)
        if problems:
            raise AssertionError(f"internal error: a generated {rows}x{cols} Hashiwokakero fails its validator: "
                                 f"{problems[:3]}")
        return grid, bridges
    wanted = "unique " if unique else ""
    raise GenerationFailed(f"no connected {wanted}{rows}x{cols} Hashiwokakero with {islands} "
                           f"{'islands' if exact else 'random islands'} in {max_attempts} attempts (seed {seed})")


def generate_puzzle(rows: int, cols: int, *, seed, unique: bool = False, islands: int | None = None):
    """(grid, bridges) with exactly ``islands`` islands by the seed's generator; ValueError when none can be made,
    None when a stop request came first."""
    try:
        return generate(rows, cols, islands=default_islands(rows, cols) if islands is None else islands, seed=seed,
                        unique=unique, exact=True)
    except GenerationFailed as error:
        raise ValueError(str(error)) from None
    except GenerationStopped:
        return None


# what ``gpu-sa generate`` runs for this kind (named in the kind's COMMANDS)
instances = partial(made_instances, make=generate_puzzle)
