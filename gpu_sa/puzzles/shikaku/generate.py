"""Shikaku instances by seed 004's method (section 1.4): cut, merge, place the clues.

1. Cut the rows x cols rectangle recursively: a rectangle is cut across its rows or across
   its columns, the longer side being the likelier (probability proportional to its
   length), at a uniformly drawn position; the two parts are cut in turn until ``depth``
   levels are done (None: no such limit) or no cut is possible. A cut is possible when both
   parts keep at least ``min_area`` cells (2 by default, so that clues of 1, rare in
   published puzzles, never appear unless the grid has one cell); a part larger than
   ``max_area`` keeps being cut past ``depth`` while it can.
2. Merge: ``merge_iterations`` passes over the rectangles in random order; each rectangle
   not merged yet in this pass joins, with probability ``merge_probability``, one drawn
   neighbour with which its union is a rectangle (area at most ``max_area``). This
   reaches layouts that cutting alone cannot (the seed's figure 5: no straight cut runs
   across the whole grid), and it is what makes the rectangles grow past 3 cells.
3. Put each rectangle's area as its clue at a uniformly drawn cell of it.

Every draw comes from ``numpy.random.default_rng(seed)``: one seed, one instance. With
``unique=True`` the generator keeps drawing whole new instances from the same generator
until the exact solver finds exactly one solution.

Defaults: no depth limit (cut down to pieces of 2 or 3 cells), then 3 merge passes at
probability 0.5, no ``max_area``. Measured over 30 seeds, a 10x10 grid then has about 16
clues (a published 10x10 has 15 to 25), areas median 6, 5th-95th percentile 2..12, the
largest about 20; 25x25 about 100 clues, 50x50 about 390, with the same area spread.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from ...apps.generate import instances as made_instances
from ...engine import stop
from .validate import shikaku_violations

DEFAULT_MERGE_ITERATIONS = 3


class GenerationFailed(RuntimeError):
    """No instance with the asked property turned up within the allowed attempts."""


def _cut(rng, rows, cols, depth, min_area, max_area):
    """Step 1: the rectangles [top, left, bottom, right] of the recursive cutting."""
    done = []
    pending = [(0, 0, rows, cols, 0)]  # top, left, height, width, level
    while pending:
        if not len(done) & 4095:
            stop.check("generating a Shikaku (cutting the grid)")
        top, left, height, width, level = pending.pop()
        if depth is not None and level >= depth and (max_area is None or height * width <= max_area):
            done.append((top, left, top + height - 1, left + width - 1))
            continue
        # A cut across the rows after k of them leaves areas k * width and (height - k) * width.
        row_cuts = [k for k in range(1, height) if min(k, height - k) * width >= min_area]
        col_cuts = [k for k in range(1, width) if min(k, width - k) * height >= min_area]
        weights = np.array([height if row_cuts else 0, width if col_cuts else 0], dtype=float)
        if not weights.any():
            done.append((top, left, top + height - 1, left + width - 1))
            continue
        if rng.random() < weights[0] / weights.sum():
            k = row_cuts[rng.integers(len(row_cuts))]
            pending += [(top, left, k, width, level + 1), (top + k, left, height - k, width, level + 1)]
        else:
            k = col_cuts[rng.integers(len(col_cuts))]
            pending += [(top, left, height, k, level + 1), (top, left + k, height, width - k, level + 1)]
    return done


def _merge(rng, rectangles, iterations, probability, max_area):
    """Step 2: random passes of merges of two rectangles whose union is a rectangle."""
    rectangles = list(rectangles)
    for _ in range(iterations):  # --merge-iterations may ask for billions of passes: each polls the stop flag
        stop.check("generating a Shikaku (merging rectangles)")
        # Who starts where: a rectangle's right or lower neighbour has this key.
        by_left = {(t, b, l): i for i, (t, l, b, r) in enumerate(rectangles)}
        by_top = {(l, r, t): i for i, (t, l, b, r) in enumerate(rectangles)}
        by_right = {(t, b, r): i for i, (t, l, b, r) in enumerate(rectangles)}
        by_bottom = {(l, r, b): i for i, (t, l, b, r) in enumerate(rectangles)}
        merged = set()
        alive = [True] * len(rectangles)
        for step, i in enumerate(rng.permutation(len(rectangles))):
            if not step & 4095:
                stop.check("generating a Shikaku (merging rectangles)")
            if i in merged:
                continue
            t, l, b, r = rectangles[i]
            partners = [j for j in (by_left.get((t, b, r + 1)), by_top.get((l, r, b + 1)),
                                    by_right.get((t, b, l - 1)), by_bottom.get((l, r, t - 1)))
                        if j is not None and j not in merged]
            if max_area is not None:
                area = (b - t + 1) * (r - l + 1)
                partners = [j for j in partners if area + _area(rectangles[j]) <= max_area]
            if not partners or rng.random() >= probability:
                continue
            j = partners[rng.integers(len(partners))]
            u = rectangles[j]
            # Both rectangles take the union's place; the pass's keys still point at the old
            # shapes, which is harmless since neither can merge again in this pass.
            rectangles[i] = (min(t, u[0]), min(l, u[1]), max(b, u[2]), max(r, u[3]))
            alive[j] = False
            merged.update((i, j))
        rectangles = [rect for rect, keep in zip(rectangles, alive) if keep]
    return rectangles


def _area(rectangle):
    t, l, b, r = rectangle
    return (b - t + 1) * (r - l + 1)


def _place_clues(rng, rows, cols, rectangles):
    """Step 3: clues (numpy) and the rectangles sorted into row-major clue order."""
    clues = np.zeros((rows, cols), dtype=np.int64)
    placed = []
    for t, l, b, r in rectangles:
        cell = (int(rng.integers(t, b + 1)), int(rng.integers(l, r + 1)))
        clues[cell] = _area((t, l, b, r))
        placed.append((cell, [t, l, b, r]))
    placed.sort()
    return clues, [rectangle for _, rectangle in placed]


def draw(rng, rows, cols, *, depth, merge_iterations, merge_probability, min_area, max_area):
    """One instance from ``rng``, without any uniqueness check: (clues, rectangles)."""
    rectangles = _cut(rng, rows, cols, depth, min_area, max_area)
    rectangles = _merge(rng, rectangles, merge_iterations, merge_probability, max_area)
    return _place_clues(rng, rows, cols, rectangles)


def generate(rows: int, cols: int, *, seed, depth: int | None = None, merge_iterations: int | None = None,
             merge_probability: float = 0.5, unique: bool = False, max_attempts: int = 1000,
             time_limit: float | None = None, max_area: int | None = None, min_area: int = 2):
    """A Shikaku instance and its planted solution: (clues (rows, cols) int array, rectangles).

    ``rectangles`` are [top, left, bottom, right] (inclusive, 0-based) in row-major clue
    order. With ``unique=True`` the result has exactly one solution (checked by
    ``gpu_sa.puzzles.shikaku.exact.solve(clues, limit=2)``, each check bounded by ``time_limit``
    seconds, a check that runs out counting as a failure); ``GenerationFailed`` after
    ``max_attempts`` draws without one. Defaults: see the module docstring.
    """
    if rows < 1 or cols < 1:
        raise ValueError(f"the grid must have at least one cell, got {rows}x{cols}")
    if min_area < 1 or (max_area is not None and max_area < 1):
        raise ValueError(f"min_area and max_area must be positive, got {min_area} and {max_area}")
    merge_iterations = DEFAULT_MERGE_ITERATIONS if merge_iterations is None else merge_iterations
    rng = np.random.default_rng(seed)
    for _ in range(max_attempts if unique else 1):
        clues, rectangles = draw(rng, rows, cols, depth=depth, merge_iterations=merge_iterations,
                                 merge_probability=merge_probability, min_area=min_area, max_area=max_area)
        problems = shikaku_violations(clues.tolist(), rectangles)
        if problems:
            raise AssertionError(f"internal error: a generated {rows}x{cols} Shikaku fails its validator: "
                                 f"{problems[:3]}")
        if not unique:
            return clues, rectangles
        from gpu_sa.puzzles.shikaku.exact import solve  # the exact solver is only needed for uniqueness

        answer = solve(clues, limit=2, time_limit=time_limit)
        if answer.solutions == 1 and not answer.gave_up:
            return clues, rectangles
    raise GenerationFailed(f"no {rows}x{cols} Shikaku with a unique solution in {max_attempts} attempts "
                           f"(seed {seed}, depth {depth}, {merge_iterations} merge passes)")


def generate_puzzle(rows: int, cols: int, *, seed, unique: bool = False, depth: int | None = None,
                    merge_iterations: int | None = None):
    """(clues, rectangles) by the seed's generator (``generate.generate``); ValueError when none can be made."""
    try:
        return generate(rows, cols, seed=seed, unique=unique, depth=depth, merge_iterations=merge_iterations)
    except GenerationFailed as error:
        raise ValueError(str(error)) from None


# what ``gpu-sa generate`` runs for this kind (named in the kind's COMMANDS)
instances = partial(made_instances, make=generate_puzzle)
