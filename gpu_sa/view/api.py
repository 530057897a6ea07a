"""What the page asks for, as plain JSON-ready dicts: no HTTP here (``server.py`` serves it).

Candidate sets travel as hexadecimal bitmasks, one string per cell (bit d set = digit d + 1
possible): order 8 has 64 digits, more than a JavaScript number holds exactly.

Errors are ``ApiError``: the one line the CLI prints for the same input, source ``<page>``.
"""
from __future__ import annotations

import json
import math

import numpy as np

from ..engine import limits, runner, stop
from ..engine.contract import state_bytes
from ..puzzles.common.errors import PuzzleError
from ..puzzles.sudoku import MOVES, DEFAULT_MOVE, parse

SOURCE = "<page>"
MAX_CHAINS = 1 << 16
MAX_CHAIN_CELLS = 1 << 26  # chains x cells of one anneal: 16,384 chains of a 64x64 grid (256 MiB of state)
MAX_TIME_LIMIT = 3600.0
DEFAULT_TIME_LIMIT = 60.0
SOLVE_TIME_LIMIT = 30.0  # seconds of the page's exact search (it also stops at SOLVE_MAX_NODES)
SOLVE_MAX_NODES = 10_000_000
SOLVE_SEED = 1  # the page's exact search is `gpu-sa exact --seed 1`'s unless the request names another seed


# Its rounds send a cell's candidates as one bitmask of at most 64 digits, and from 81x81 on a grid's cells are
# too small on a screen to read: larger grids are declined with a message that names the command that solves them.
PAGE_MAX_ORDER = 8


class ApiError(ValueError):
    """Bad input from the page: ``str`` is the one line shown, as the CLI would print it; ``details``: more
    keys of the JSON answer (a 409's ``run``, which the page's Stop can end)."""

    def __init__(self, message: str, status: int = 400, **details):
        super().__init__(f"gpu-sa: error: {message}")
        self.status = status
        self.details = details


def puzzle_of(text):
    """(the first Sudoku of ``text``, how many the text holds); bad input raises ApiError."""
    if not isinstance(text, str):
        raise ApiError("the request has no puzzle text")
    try:
        puzzles = parse(text, SOURCE)
    except PuzzleError as error:
        raise ApiError(str(error)) from None
    except stop.Interrupted:
        raise ApiError("the server is stopping", 503) from None
    if puzzles[0].order > PAGE_MAX_ORDER:
        side = puzzles[0].side
        raise ApiError(f"this page shows grids up to {PAGE_MAX_ORDER ** 2}x{PAGE_MAX_ORDER ** 2} (order "
                       f"{PAGE_MAX_ORDER}); a {side}x{side} grid is solved by 'gpu-sa solve'")
    return puzzles[0], len(puzzles)


def puzzle_json(puzzle, count: int = 1) -> dict:
    note = f"the text holds {count} puzzles; this page shows the first" if count > 1 else ""
    return {"order": puzzle.order, "side": puzzle.side, "givens": (np.asarray(puzzle.givens) + 1).tolist(),
            "text": puzzle.write(puzzle.givens), "note": note}


def load(text) -> dict:
    """The first puzzle of ``text`` and its round 0 (the fields of the step API's round 0 that the
    page draws): a given holds its digit, an empty cell every digit."""
    puzzle, count = puzzle_of(text)
    full = (1 << puzzle.side) - 1
    masks = [format(full if given < 0 else 1 << int(given), "x") for given in puzzle.givens]
    return {"puzzle": puzzle_json(puzzle, count),
            "round": {"round": 0, "status": "start", "masks": masks, "placed": [], "removed": [],
                      "contradiction": None}}


def solve(text, *, seed: int = SOLVE_SEED, flag=None, time_limit: float = SOLVE_TIME_LIMIT) -> dict:
    """The seeded complete search (``gpu-sa exact --seed``: restarts up to 16x16, clause learning from 25x25 up),
    counting to 2, within ``time_limit`` seconds and SOLVE_MAX_NODES nodes, and until ``flag`` (``gpu_sa.engine.stop``'s
    protocol) asks it to stop; the solution shown is checked by the validator. Not seed 002's deterministic
    search: that one gives up on most 36x36 grids that this one settles in a second (bench/view_search.py)."""
    from ..puzzles.sudoku import exact

    puzzle, count = puzzle_of(text)
    answer = exact.count_solutions(puzzle.givens, puzzle.order, limit=2, max_nodes=SOLVE_MAX_NODES, seed=seed,
                                   time_limit=time_limit, flag=flag)
    solution = None
    if answer.solutions:
        violations = puzzle.check(answer.solution)
        if violations:
            raise ApiError(f"internal error: the exact solver's grid breaks a rule: {violations[0]}", status=500)
        solution = (np.asarray(answer.solution) + 1).tolist()
    if answer.timed_out:
        verdict = (f"gave up after {time_limit:g} s ({answer.nodes:,} branches) with {answer.solutions} solution(s) "
                   "found")
    elif answer.gave_up:
        verdict = f"gave up after {answer.nodes:,} branches with {answer.solutions} solution(s) found"
    elif answer.solutions == 0:
        verdict = "no solution"
    elif answer.solutions == 1:
        verdict = "unique solution"
    else:
        verdict = "at least 2 solutions (the first is shown)"
    return {"puzzle": puzzle_json(puzzle, count), "solutions": answer.solutions, "solution": solution,
            "nodes": answer.nodes, "seconds": answer.seconds, "gave_up": answer.gave_up, "verdict": verdict,
            "seed": str(seed)}


def solve_seed(body: dict) -> int:
    """The exact search's seed from a request's ``seed`` (SOLVE_SEED when absent or empty: the page's Solution
    sends none, since its seed field belongs to the anneal, whose empty seed means a random one)."""
    return _integer(body, "seed", SOLVE_SEED, 0, 2**64 - 1)


def page_chains(backend) -> int:
    """The page's default chain count: the backend's, or on a GPU a launch of 16,384 (one puzzle watched live
    needs no full device)."""
    return runner.DEFAULT_CHAINS.get(backend.name, 1 << 14)


def anneal_options(body: dict, backend, *, puzzle=None) -> dict:
    """Keyword arguments for ``runner.anneal`` from the page's form; one line for a bad value. With ``puzzle``,
    the chains' state must stay within MAX_CHAIN_CELLS cells and the memory this process can still get.

    The page anneals the grid as it stands, without the solver's own propagation: the page is there
    to watch the annealer, and its rules button applies propagation when the user asks for it."""
    move = body.get("move") or DEFAULT_MOVE
    if move not in MOVES:
        raise ApiError(f"unknown move {move!r}; choose from {', '.join(MOVES)}")
    chains = _integer(body, "chains", page_chains(backend), 1, MAX_CHAINS)
    seed = _integer(body, "seed", None, 0, 2**64 - 1)
    time_limit = _number(body, "time_limit", DEFAULT_TIME_LIMIT, MAX_TIME_LIMIT)
    if puzzle is not None:
        _check_state(puzzle, move, chains)
    return {"move": move, "chains": chains, "seed": runner.default_seed() if seed is None else seed,
            "time_limit": time_limit, "propagate": False}


def _check_state(puzzle, move, chains):
    cells = puzzle.side * puzzle.side
    if chains * cells > MAX_CHAIN_CELLS:
        raise ApiError(f"chains x cells must be at most {MAX_CHAIN_CELLS:,}: at most {MAX_CHAIN_CELLS // cells:,} "
                       f"chains for a {puzzle.side}x{puzzle.side} grid, got {chains:,}")
    try:
        limits.check_memory(state_bytes(puzzle.move(move, propagate=False), chains), f"{chains:,} chains")
    except limits.TooLarge as error:
        raise ApiError(str(error), 413) from None


def _given(body, name, what):
    """The value of a numeric field, None when absent or empty; every numeric field of the API reads through here,
    so that a JSON boolean is refused by each alike (Python would take true for 1)."""
    value = body.get(name)
    if isinstance(value, bool):
        raise ApiError(f"{name} must be {what}, got {json.dumps(value)}")
    return None if value in (None, "") else value


def _integer(body, name, default, low, high):
    value = _given(body, name, "an integer")
    if value is None:
        return default
    try:
        number = int(str(value).replace("_", "").strip())
    except ValueError:
        raise ApiError(f"{name} must be an integer, got {value!r}") from None
    if not low <= number <= high:
        raise ApiError(f"{name} must be between {low:,} and {high:,}, got {number:,}")
    return number


def _number(body, name, default, high):
    value = _given(body, name, "a number")
    if value is None:
        return default
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ApiError(f"{name} must be a number, got {value!r}") from None
    if not (math.isfinite(number) and 0 < number <= high):
        raise ApiError(f"{name} must be positive and at most {high:g}, got {value!r}")
    return number


def progress_json(progress) -> dict:
    return {"event": "progress", "seconds": progress.seconds, "trial": progress.trial, "moves": progress.moves,
            "max_moves": progress.max_moves, "plateau": progress.plateau, "temperature": progress.temperature,
            "best_cost": progress.best_cost, "mean_cost": progress.mean_cost, "acceptance": progress.acceptance,
            "proposals_per_second": progress.proposals_per_second}


def result_json(puzzle, result) -> dict:
    """The run's answer; ``solution`` is set only for a grid the independent validator accepts."""
    solved = bool(result.solved) and puzzle.check(result.solution) == []
    return {"event": "result", "solved": solved, "stopped": result.stopped,
            "solution": (np.asarray(result.solution) + 1).tolist() if solved else None,
            "best": (np.asarray(result.best) + 1).tolist(), "cost": result.cost, "chain": result.chain,
            "chain_moves": result.chain_moves, "moves": result.moves, "seconds": result.seconds,
            "setup_seconds": result.setup_seconds, "backend": result.backend, "seed": str(result.seed),
            "chains": result.chains, "trials": result.trials}


def rounds(text) -> dict:
    """Seed 002's rounds (``gpu_sa.puzzles.sudoku.exact.steps.rule_rounds``): round 0 (the givens), then one per
    press, up to a fixpoint, a solved grid or a contradiction."""
    puzzle, count = puzzle_of(text)
    return {"puzzle": puzzle_json(puzzle, count), "rounds": [round_json(step) for step in _rule_rounds(puzzle)]}


def _rule_rounds(puzzle):
    try:
        from ..puzzles.sudoku.exact.steps import rule_rounds
    except ImportError:  # an installation without the steps module answers 501, not a traceback
        raise ApiError("stepping the rules needs gpu_sa.puzzles.sudoku.exact.steps, which this installation lacks", 501) from None
    return rule_rounds(puzzle.givens, puzzle.order)


def round_json(step) -> dict:
    """``Round.to_dict()``, the API's own JSON, with each cell's candidates as a hexadecimal mask
    (``masks``) in place of its list of digits: a 64x64 grid's lists weigh a megabyte a round."""
    payload = {key: value for key, value in step.to_dict().items() if key != "candidates"}
    payload["masks"] = [format(mask, "x") for mask in step.masks]
    return payload
