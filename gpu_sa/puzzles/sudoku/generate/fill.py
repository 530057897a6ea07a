"""Full valid grids (seed 003), three methods (``METHODS``):

  anneal     the batch annealer started from an empty grid: every chain that reaches cost 0
             holds a valid grid, so one launch yields up to one grid per chain
  backtrack  the exact solver on an empty grid, trying digits in a pseudo-random order
  swaps      the seed's "random swaps keeping only improvements": move swap at zero
             temperature (a swap that does not lower the cost is refused, except ties), restarted

Every grid then gets a uniformly random symmetry of the Sudoku group (digit relabelling,
band and stack permutations, row and column permutations inside them, transposition), so
the output does not carry the method's bias towards particular grids; duplicates are dropped.

The default method is ``backtrack``: on the CPU it made grids faster than ``anneal`` at every
order (bench/generate.py --orders), and from order 6 up the annealer's chains from an
empty grid hardly ever reach cost 0 (``generate --order 7`` made no grid in 150 s).

How many grids exist (``GRIDS_OF_ORDER``): 288 of order 2 and 6,670,903,752,021,072,936,960 of order 3
(Felgenhauer and Jarvis 2006); from order 4 up far more than any run can make (about 6 x 10^98 of
order 4, an estimate), so no cap is set there.
"""
from __future__ import annotations

import itertools

import numpy as np

from ....engine import backends, rng, runner, schedule, stop
from . import exact

METHODS = ("anneal", "backtrack", "swaps")
TAG_FILL = np.uint32(0x46494C4C)  # "FILL": the digit orders of the backtracking attempts
KEYS_PER_BLOCK = 1024  # attempt_keys drawn at a time
ATTEMPT_BRANCHES_PER_CELL = 2  # the first backtracking budgets (attempt_budget)
# The most: the search polls no stop flag, so this bounds how long a Ctrl-C waits (about 10 s at 64x64).
ATTEMPT_MAX_BRANCHES = 1_000_000
DEFAULT_METHOD = "backtrack"
MAX_COUNT = 2**63 - 1  # the compiled loops count in 64 bits
GRIDS_OF_ORDER = {2: 288, 3: 6_670_903_752_021_072_936_960}  # every valid grid, counted exactly


def check_count(count: int, order: int, reason: str = "") -> None:
    """ValueError, before any work, when more distinct grids are asked for than exist at ``order``."""
    existing = GRIDS_OF_ORDER.get(order)
    if existing is not None and count > existing:
        side = order * order
        raise ValueError(f"--count {count:,}: only {existing:,} distinct {side}x{side} grids exist{reason}")
    if count > MAX_COUNT:
        raise ValueError(f"--count {count:,}: at most {MAX_COUNT:,} grids can be asked for in one run")


def empty_puzzle(order: int):
    from .. import Sudoku

    return Sudoku(givens=np.full((order * order) ** 2, -1, dtype=np.int16), order=order, fmt="line",
                  source="<empty>", line=1)


def shuffle_symmetry(grid: np.ndarray, order: int, generator: np.random.Generator) -> np.ndarray:
    """A uniformly random element of the Sudoku symmetry group applied to ``grid`` (0-based digits)."""
    side = order * order
    g = grid.reshape(side, side)

    def lines():
        return np.concatenate([band * order + generator.permutation(order) for band in generator.permutation(order)])

    g = g[lines()][:, lines()]
    if generator.integers(2):
        g = g.T
    return generator.permutation(side)[g].astype(np.int16).ravel()


def grid_stream(*, order: int = 3, method: str = DEFAULT_METHOD, seed: int = 0, backend="auto",
                chains: int | None = None, max_rounds: int | None = None):
    """Distinct valid full grids (0-based digits), one at a time, reproducible from ``seed``.

    Lazy, so a caller that wants more grids later (``gpu-sa puzzle``) continues the same stream
    instead of making the earlier ones again; it goes on until every grid of the order is out
    (order 2: 288) or, with ``max_rounds``, that many annealing rounds have run (RuntimeError then).
    A stop request (``gpu_sa.engine.stop``) ends it once the grids already made are out: after the
    annealing round or backtracking attempt in flight.
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
    generator = np.random.default_rng([seed, order])
    seen: set[bytes] = set()
    if method == "backtrack":
        batches = (_backtracked(order, seed),)
    else:
        rounds = itertools.count() if max_rounds is None else range(max_rounds)
        batches = (_annealed(order, method, seed, backend, chains, r) for r in rounds)
    existing = GRIDS_OF_ORDER.get(order)
    for batch in batches:
        for grid in batch:
            shuffled = shuffle_symmetry(grid, order, generator)
            if shuffled.tobytes() not in seen:
                seen.add(shuffled.tobytes())
                yield shuffled
                if len(seen) == existing:  # every grid of the order is out
                    return
        if stop.requested():
            return
    raise RuntimeError(f"only {len(seen)} distinct grids could be made")


def grids(count: int, **options) -> list[np.ndarray]:
    """The first ``count`` grids of ``grid_stream(**options)``; fewer when a stop request ended it."""
    if int(count) != count or count < 1:
        raise ValueError(f"count must be a positive integer, got {count}")
    check_count(count, options.get("order", 3))
    return list(itertools.islice(grid_stream(**options), int(count)))


def every_4x4_grid() -> list[np.ndarray]:
    """All 288 valid 4x4 grids (0-based digits), row by row: rows 0-1 and rows 2-3 share their boxes."""
    rows = list(itertools.permutations(range(4)))
    found = []

    def extend(partial):
        if len(partial) == 4:
            found.append(np.array(partial, dtype=np.int16).ravel())
            return
        for row in rows:
            if any(row[c] == above[c] for above in partial for c in range(4)):
                continue
            shares_boxes = len(partial) % 2  # with the row above
            if shares_boxes and ({row[0], row[1]} & set(partial[-1][:2]) or {row[2], row[3]} & set(partial[-1][2:])):
                continue
            extend(partial + [row])

    extend([])
    return found


def _annealed(order, method, seed, backend, chains, round_index):
    """The solved chains of one annealing trial from an empty grid (chain indices offset per round)."""
    puzzle = empty_puzzle(order)
    move = puzzle.move("swap")
    if isinstance(backend, str):
        backend, _ = backends.select(backend)
    chains = chains or backend.default_chains(move)
    length = move.plateau_length
    if method == "swaps":
        law, moves = schedule.from_list([1e-3], plateau_length=length), 200 * length
    else:
        law, moves = schedule.geometric(t0=0.5, t_end=0.05, plateaus=200, plateau_length=length), None
    try:
        result = runner.anneal(puzzle, move="swap", backend=backend, chains=chains, seed=seed, schedule=law,
                               max_moves=moves, trials=1, early_stop=False, chain_base=round_index * chains,
                               keep_state=True, propagate=False)
    except stop.Interrupted:  # the stop came while the round was being set up: it made no grid
        return np.empty((0, puzzle.side * puzzle.side), dtype=np.int16)
    state = result.state
    solved = state.best_config[state.best_cost == 0].astype(np.int16)
    for grid in solved:
        if puzzle.check(grid):
            raise RuntimeError("internal error: a chain at cost 0 holds an invalid grid")
    return solved


def attempt_keys(seed: int, first: int, count: int) -> np.ndarray:
    """The digit-order keys (uint64) of backtracking attempts ``first`` .. ``first + count - 1``: Philox's first two
    words at counter (the attempt's low and high words, 0, TAG_FILL), key = the seed; never 0, which asks the
    search for digits in increasing order (a 0 becomes 1). Drawn a block at a time (Philox on NumPy arrays:
    0.47 ms for 1,024 keys on the 2-core VM, what two or three keys cost one at a time in Python). Every
    attempt gets its own order: the earlier ``(seed x 1,000,003 + attempt) | 1`` gave two consecutive attempts
    the same key, so every other attempt repeated the one before it (the same grid under another random
    symmetry, or the same failed search)."""
    key0, key1 = rng.split_seed(seed)
    attempts = np.arange(first, first + count, dtype=np.uint64)
    words = rng.philox4x32_10((attempts & np.uint64(0xFFFFFFFF)).astype(np.uint32),
                              (attempts >> np.uint64(32)).astype(np.uint32), np.uint32(0), TAG_FILL, key0, key1)
    keys = words[1].astype(np.uint64) << np.uint64(32) | words[0].astype(np.uint64)
    keys[keys == 0] = 1
    return keys


def attempt_budget(cells: int, attempt: int) -> int:
    """Branches allowed to backtracking attempt ``attempt`` on an empty grid of ``cells`` cells: Luby(attempt + 1)
    x ATTEMPT_BRANCHES_PER_CELL x cells, at most ATTEMPT_MAX_BRANCHES. Most attempts fill the grid in 0.6 to
    0.9 branches a cell at every order; from 25x25 up a few wander hundreds of times longer (a heavy tail: up
    to 10 s each at 49x49 and 64x64 with a fixed budget of a million). Budgets that grow as Luby's
    restarts from a small start cut those short, and still let an order that needs more branches have them
    in time (bench/generate.py --orders)."""
    return min(exact.luby(attempt + 1) * ATTEMPT_BRANCHES_PER_CELL * cells, ATTEMPT_MAX_BRANCHES)


def _patterned(order, seed):
    side = order * order
    rows, columns = np.divmod(np.arange(side * side), side)
    pattern = ((order * (rows % order) + rows // order + columns) % side).reshape(side, side)
    generator = np.random.default_rng([seed, order, 1])
    while not stop.requested():
        yield shuffle_symmetry(shuffle_symmetry(pattern, order, generator), order, generator)


def _backtracked(order, seed):
    """Grids from the exact solver on an empty grid, digits tried in an order drawn from (seed, attempt), for
    as long as they are asked for; attempt i gives up after ``attempt_budget(cells, i)`` branches.
    From 81x81 on (``exact.wide``) the search without naked pairs rarely fills an empty grid within its budget:
    each grid is then the pattern grid (n (r mod n) + r div n + c) mod N under a random relabelling and band,
    stack, row and column permutations (``grid_stream`` adds a random symmetry on top), valid by construction;
    they are drawn from that one grid's orbit, not from every grid."""
    if order >= exact.wide.MIN_ORDER:
        yield from _patterned(order, seed)
        return
    peers, units, cell_units, full = exact.tables(order)
    cells = (order * order) ** 2
    masks = np.zeros(cells, dtype=np.uint64)
    for attempt in itertools.count():
        if stop.requested():
            return
        if attempt % KEYS_PER_BLOCK == 0:
            keys = attempt_keys(seed, attempt, KEYS_PER_BLOCK)
        cand = np.full(cells, full, dtype=np.uint64)
        found, _, _ = exact.search(cand, peers, units, cell_units, full, 1, attempt_budget(cells, attempt), masks,
                                   keys[attempt % KEYS_PER_BLOCK])
        if found:
            digits = np.empty(cells, dtype=np.int16)
            exact._digits_of(masks, digits)
            yield digits


