"""What ``gpu-sa generate``, ``minimize`` and ``puzzle`` run for Sudoku (seed 003), as ``Made`` items.

Each function takes the kind module and the commands' options by keyword, checks what the options alone can
tell before any work, and yields each grid or puzzle as soon as it is made; a stop request ends the stream
between items and what was made stays made.
"""
from __future__ import annotations

import itertools
import math

from ....apps.generate import Made, check_format
from ....engine import stop
from ....options import UsageError, check_cooling
from ..formats import write as write_grid
from . import (DEFAULT_BRUTE_NODES, DEFAULT_ITERATIONS, DEFAULT_METHOD, check_count, grid_stream, minimize,
               minimize_stream)

DEFAULT_ORDER = 3  # 9x9 grids when neither --order nor --size is given


def grids(kind, *, count: int, seed: int, fmt: str | None = None, order: int | None = None, size: int | None = None,
          grid_method: str = DEFAULT_METHOD, backend: str = "auto", chains: int | None = None):
    """Full valid grids (seed 003), each given a random symmetry; streamed as they are made. A count larger
    than the number of grids that exist is refused before any work. The grid: ``order`` (the box side) or
    ``size`` (the grid's side), 9x9 without either."""
    order = _order(order, size)
    _check_count(count, order)
    fmt = _grid_format(kind, fmt, order)
    stream = grid_stream(order=order, method=grid_method, seed=seed, backend=backend, chains=chains)
    return _grids(itertools.islice(stream, count), order, fmt, seed, grid_method)


def _grids(stream, order, fmt, seed, grid_method):
    # the stream ends early only on a stop request: what was made is printed, nothing is lost
    for index, grid in enumerate(stream):
        text = write_grid(grid, order, fmt)
        yield Made(_grid_text(text, fmt), {"index": index, "grid": text, "seed": seed, "method": grid_method})


def _order(order: int | None, size: int | None) -> int:
    """The box side from --order and --size (the grid's side, its square), which must agree when both are given."""
    if size is None:
        return DEFAULT_ORDER if order is None else order
    by_size = math.isqrt(size)
    if order is not None and order != by_size:
        raise UsageError(f"--size {size}x{size} and --order {order} disagree: --order {order} makes "
                         f"{order * order}x{order * order} grids, --size {size}x{size} is --order {by_size}; "
                         "give one of the two")
    return by_size


def _check_count(count: int, order: int, reason: str = "") -> None:
    try:
        check_count(count, order, reason)
    except ValueError as error:
        raise UsageError(str(error)) from None


def minimized(kind, *, grids, seed: int, minimize_method: str = "anneal",
              iterations: int = DEFAULT_ITERATIONS, t0: float = 1.0, t_end: float = 0.15,
              max_nodes: int = DEFAULT_BRUTE_NODES, time_limit: float | None = None):
    """For every full grid (or puzzle with one solution), a puzzle with few givens inside it whose only
    solution is the same (proved by the exact solver); ``brute`` proves the minimum within its budget."""
    check_cooling(t0, t_end)
    for grid in grids:
        if (grid.givens >= 0).all() and grid.check(grid.givens):
            raise UsageError(f"{grid.label}: not a valid grid: {grid.check(grid.givens)[0]}")
    if len({g.order for g in grids}) > 1:
        raise UsageError("every grid of one call must have the same order")
    results = minimize_stream([g.givens for g in grids], grids[0].order, method=minimize_method,
                                                seed=seed, iterations=iterations, t0=t0, t_end=t_end,
                                                max_nodes=max_nodes, time_limit=time_limit)
    return _minimized(grids, results, seed, minimize_method)


def _minimized(grids, results, seed, minimize_method):
    for grid, result in zip(grids, results):
        if not result.unique:
            raise RuntimeError(f"{grid.label}: the minimised puzzle is not unique")
        text = grid.write(result.puzzle)
        record = {"source": grid.label, "puzzle": text, "givens": result.givens, "unique": True, "seed": seed,
                  "method": minimize_method, "stopped": result.stopped, "seconds": round(result.seconds, 6)}
        head = f"# {grid.label}: {result.givens} givens, unique"
        if result.proof is not None:
            record.update(proof=result.proof, lower_bound=result.lower_bound, search_ended=result.search_ended,
                          nodes=result.nodes, checks=result.checks, steps=result.steps)
            head += ("; the minimum (proven)" if result.proof == "optimal" else
                     f"; minimum unknown ({result.search_ended.replace('_', ' ')}), at least {result.lower_bound}")
        yield Made(head + "\n" + _grid_text(text, grid.fmt), record)


def puzzles(kind, *, count: int, seed: int, fmt: str | None = None, order: int | None = None, size: int | None = None,
                   grid_method: str = DEFAULT_METHOD, backend: str = "auto",
                   chains: int | None = None,
                   minimize_method: str = "anneal", iterations: int = DEFAULT_ITERATIONS,
                   t0: float = 1.0, t_end: float = 0.15, givens_max: int | None = None, max_grids: int | None = None):
    """Grids made and minimised until ``count`` puzzles have at most ``givens_max`` givens (the grid: as ``grids``)."""
    order = _order(order, size)
    check_cooling(t0, t_end)
    _check_count(count, order, " (each puzzle comes from a grid of its own)")
    return _puzzles(_grid_format(kind, fmt, order), count, seed, order, grid_method, backend, chains, minimize_method,
                    iterations, t0, t_end, givens_max, max_grids or 50 * count)


def _puzzles(fmt, count, seed, order, grid_method, backend, chains, minimize_method, iterations, t0, t_end, givens_max,
             limit):
    stream = grid_stream(order=order, method=grid_method, seed=seed, backend=backend, chains=chains)
    kept, tried, batch = 0, 0, max(count, 8)
    while kept < count and tried < limit and not stop.requested():
        made = list(itertools.islice(stream, min(batch, limit - tried)))
        if not made:  # every grid of the order is out, or a stop request
            break
        results = minimize(made, order, method=minimize_method, seed=seed + tried,
                                             iterations=iterations, t0=t0, t_end=t_end)
        tried += len(made)
        for grid, result in zip(made, results):
            if kept < count and result.unique and (givens_max is None or result.givens <= givens_max):
                kept += 1
                text = write_grid(result.puzzle, order, fmt)
                yield Made(_grid_text(text, fmt), {"puzzle": text, "givens": result.givens,
                                                   "solution": write_grid(grid, order, fmt), "seed": seed})
    if kept < count and not stop.requested():
        yield Made(None, None, f"only {kept} puzzles with at most {givens_max} givens after {tried} grids "
                               f"(--max-grids {limit})")


def _grid_format(kind, fmt: str | None, order: int) -> str:
    if fmt is not None:
        check_format(kind, fmt)
    fmt = fmt or "line"
    return "numbers" if fmt in ("line", "grid") and order > 5 else fmt


def _grid_text(text: str, fmt: str) -> str:
    return text if fmt == "line" else text + "\n"
