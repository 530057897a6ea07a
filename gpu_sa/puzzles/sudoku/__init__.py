"""Sudoku of any order n (n = 2 .. 11: 4x4 up to 121x121), behind the puzzle interface.

The interface every puzzle module offers (see ``gpu_sa.puzzles``):
  parse(text, source, fmt)  -> list of puzzles          (raises PuzzleError, one line)
  parse(text, source, fmt, errors=[]) -> the good ones; each bad puzzle's PuzzleError is added to errors
  puzzle.move(name)         -> AnnealMove for the annealer
  puzzle.write(values, fmt) -> text
  puzzle.check(values)      -> list of rule violations, from the independent validator
  puzzle.contradicts()      -> True when cheap propagation proves there is no solution
  puzzle.count_solutions(limit=, max_nodes=, seed=, threads=, time_limit=, searches=, box_line=) -> the exact count
  puzzle.stand_in(), puzzle.specialization   (optional) a puzzle that runs the same compiled code, and what
                            decides which code that is: the runner builds a stand-in's move once per
                            specialization before the clock, so that loading machine code is setup, not solving
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from cpu_ref.sudoku import sirdey as sirdey_reference
from cpu_ref.sudoku import swap as swap_reference
from cpu_ref.sudoku import tabu as tabu_reference

from . import validate
from ...engine.contract import AnnealMove, per_puzzle, smallest_unsigned
from ..spec import ANNEAL, SECONDS, Choice, Integer, Method, Option, Real, SquareSize
from .moves import sirdey, swap, tabu
from .formats import FORMATS, PuzzleError, write
from .geometry import MAX_ORDER, MIN_ORDER, geometry

KIND = "sudoku"
SUMMARY = f"Sudoku of order n = {MIN_ORDER}..{MAX_ORDER} (4x4 up to {MAX_ORDER ** 2}x{MAX_ORDER ** 2})"
FORMAT_HELP = {
    "line": "one puzzle per line, row by row: 81 characters for 9x9 ('.' or '0' empty; 16, 256, 625 characters for "
            "orders 2, 4, 5, digits 1-9 then A-Z)",
    "grid": "one row per line; spaces, '|' and separator lines are ignored",
    "numbers": "the original exact solver's format: N lines of N space-separated numbers, 0 = empty (any order)",
    "acs": "Lloyd & Amos's ant-colony solver files: the order (3 for 9x9), a line '1', then N lines of N numbers, "
           "-1 = empty (any order)",
}
METHODS = (
    Method("auto", "propagation, then the seeded complete search and the annealer in turns with doubling budgets, "
           "the first verified answer wins (the measured default: docs/algorithms.md, 'Method auto')",
           runs="gpu_sa.puzzles.sudoku.auto:answer", cpu_preferred="gpu_sa.puzzles.sudoku.auto:cpu_preferred"),
    ANNEAL,
    Method("exact", "the complete search (the three rules, then branching) with seeded restarts (gpu-sa exact counts solutions too)",
           exact=True),
)
MOVES = ("sirdey", "swap", "tabu")
DEFAULT_MOVE = "swap"  # below TABU_FROM_ORDER: the seeds' annealer, with its schedule tuned by bench/tts.py
# From 25x25 up the default move is the local search ``tabu``: on 2 cores swap answers 0 of 5 Lloyd & Amos 25x25
# at 45 % in 20 s, tabu all of them in 0.07 s (median; bench/large.py --variant "tabu=--move tabu").
TABU_FROM_ORDER = 5
DEFAULT_MOVE_NOTES = {"swap": "default below 25x25", "tabu": "default from 25x25"}  # for --help


# Per move: why `--backend auto` runs it on the CPU even beside a GPU (AnnealMove.cpu_preferred); a move not named runs
# on the GPU. Move tabu was named while it had only its one-thread kernel (on an H200 a 49x49 chain made 25-85 moves a
# second against 360,000-820,000 on one CPU core); its cooperative layout (a block per chain, the launch plan's choice)
# runs it on the GPU now.
CPU_PREFERRED: dict[str, str] = {}


def default_move(order: int) -> str:
    """The annealer's move when none is named, for a grid of this order."""
    return "tabu" if order >= TABU_FROM_ORDER else DEFAULT_MOVE


# The annealer's default schedule per order (t0, t_end, plateaus): 9x9 from bench/tts.py; from 16x16 up a
# faster cooling over 1000 plateaus solves the Lloyd & Amos 16x16 and 25x25 grids at 40 % about 4 and 2.5
# times sooner than 4000 (bench/large.py). None: the runner's defaults (9x9's).
SCHEDULE_BY_ORDER = {3: None}
LARGE_SCHEDULE = (0.5, 0.05, 1000)
NAMED_FORMATS = ()  # the default kind: tried first, needs no sign of its own
OUTPUT_FORMATS = FORMATS + ("pretty",)
COMMANDS = {"solve": None, "exact": None, "generate": "gpu_sa.puzzles.sudoku.generate.commands:grids",
            "minimize": "gpu_sa.puzzles.sudoku.generate.commands:minimized",
            "puzzle": "gpu_sa.puzzles.sudoku.generate.commands:puzzles"}
GRID_METHODS = ("anneal", "backtrack", "swaps")  # the generator's, checked by tests/cli/test_registry.py
MINIMIZE_METHODS = ("anneal", "greedy", "brute")
_MINIMIZE_HELP = ("how givens are removed: anneal (default, the original scheme: a random cell; a given goes when the "
                  "puzzle stays unique, an empty cell gets its digit back with probability exp(-1/T)), greedy (one "
                  "pass in random order) or brute (the smallest unique puzzle inside the input, proven within the "
                  "budget of {budget})")
_BRUTE = {"minimize_method": ("brute",)}
SIDES = tuple(order * order for order in range(MIN_ORDER, MAX_ORDER + 1))  # the grids' sides: 4, 9, ..., 121
MAX_SEARCHES = 64  # gpu_sa.puzzles.sudoku.exact.counting's (not imported here: it compiles; a test keeps them equal)
OPTIONS = (
    Option("--max-nodes", "give up after this many branches (default: 10,000,000 without --time-limit, so that a huge "
           "empty grid cannot hang the search; none with it, so that the time limit is what stops the search)",
           Integer(1), purpose="branches of the search", commands=("exact",)),
    Option("--threads", "with --seed: restarts searched at once, one per core (default: every core); the answer and "
           "the node counts do not depend on it", Integer(1), purpose="threads", commands=("exact",)),
    Option("--searches", "with --seed, from 25x25 up (clause learning): this many searches from different variable "
           "orders race, each on a thread of its own; the answer is the one that decides within the least work "
           "(counted, not timed), so it depends on the seed and this number only, not on timing or the cores "
           f"(default 1; at most {MAX_SEARCHES})", Integer(1, MAX_SEARCHES), purpose="searches", commands=("exact",)),
    Option("--box-line", "without --seed: pointing and box-line reduction join the three rules at every node (a "
           "digit whose places in a box lie on one line leaves the rest of that line, and one whose places on a line "
           "lie in one box leaves the rest of that box): the same counts and proofs, fewer branches (about half on "
           "hard 9x9s) and on 9x9s faster; default: the original solver's three rules, its branches and node counts",
           commands=("exact",)),
    Option("--steps", "print the three rules round by round before the answer, as the original solver's page shows them "
           "(each round: the three rules once over the grid; every cell's candidates, what each rule removed); with "
           "--json one object per round ('round') before the puzzle's", commands=("exact",)),
    Option("--order", "the box side n, which makes grids of n^2 x n^2: 2 = 4x4, 3 = 9x9 (default), 4 = 16x16, ..., "
           f"{MAX_ORDER} = {MAX_ORDER ** 2}x{MAX_ORDER ** 2} (or give the grid's size: --size)",
           Integer(MIN_ORDER, MAX_ORDER), purpose="the box side", commands=("generate", "puzzle")),
    Option("--size", "the grid's size NxN, a square of side " + ", ".join(map(str, SIDES[:-1])) + f" or {SIDES[-1]} "
           f"(default 9x9; the same as --order {MIN_ORDER} to {MAX_ORDER}, the box side)", SquareSize(SIDES),
           purpose="grid size; a Sudoku grid's side is its box side squared", commands=("generate", "puzzle")),
    Option("--method", "how grids are made: backtrack (default: the exact solver with a random digit order, the "
           "fastest at every order on a CPU), anneal (the batch annealer from an empty grid, one grid per solved chain; "
           "--backend or --chains select it; from 36x36 up its chains hardly ever finish a grid), swaps (the original "
           "random swaps keeping only improvements)", Choice(GRID_METHODS), dest="grid_method",
           commands=("generate", "puzzle")),
    Option("--method", _MINIMIZE_HELP.format(budget="--max-nodes and --time-limit"), Choice(MINIMIZE_METHODS),
           dest="minimize_method", commands=("minimize",)),
    Option("--minimize-method", _MINIMIZE_HELP.format(budget="1,000,000 nodes per grid"),
           Choice(MINIMIZE_METHODS), commands=("puzzle",)),
    Option("--iterations", "anneal: steps per grid (default 100,000)", Integer(1), purpose="minimisation steps",
           commands=("minimize", "puzzle")),
    Option("--max-nodes", "brute: nodes per grid, the sets of givens tried: a step of its greedy pass or of its "
           "anneal (which takes at most half of what the pass leaves), then the search's (default 1,000,000: a few "
           "seconds on 9x9; the answer is then deterministic for a seed)", Integer(0), purpose="nodes",
           commands=("minimize",), applies=_BRUTE),
    Option("--time-limit", "brute: seconds per grid, its greedy pass and anneal (at most half of what the pass "
           "leaves) included (default: none)", SECONDS, metavar="SECONDS", purpose="seconds",
           commands=("minimize",), applies=_BRUTE),
    Option("--t0", "anneal: first temperature (default 1.0)", Real(), purpose="a temperature",
           commands=("minimize", "puzzle")),
    Option("--t-end", "anneal: last temperature (default 0.15); T falls linearly from --t0", Real(),
           purpose="a temperature", commands=("minimize", "puzzle")),
    Option("--givens-max", "keep only puzzles with at most this many givens (default: keep all)", Integer(0),
           commands=("puzzle",)),
    Option("--max-grids", "give up after minimising this many grids (default: 50 x COUNT)", Integer(1),
           purpose="grids to try before giving up", commands=("puzzle",)),
)


@dataclass(frozen=True, eq=False)
class Sudoku:
    givens: np.ndarray  # (N*N,) int16, 0-based digits, -1 = empty
    order: int
    fmt: str = "line"
    source: str = "<input>"
    line: int = 1
    state_base = 1  # digits live 0-based in chain states and print 1-based
    presolve = "propagation (the three rules)"  # what fixes variables before annealing, in messages ("solved by ...")

    @property
    def side(self) -> int:
        return self.order * self.order

    @property
    def free_cells(self) -> np.ndarray:
        return np.flatnonzero(self.givens < 0).astype(np.int32)

    @property
    def label(self) -> str:
        return f"{self.source}:{self.line}"

    @property
    def default_move(self) -> str:
        return default_move(self.order)

    @property
    def specialization(self) -> tuple:
        """What picks the machine code the rules and the search run on (numba specializes on dtype and writeability)."""
        givens = np.asarray(self.givens)
        return self.order, givens.dtype, givens.flags.writeable

    def stand_in(self, order: int | None = None) -> "Sudoku":
        """A valid grid of ``order`` (default: this one's) with its digits 0, 1 and 2 emptied, its givens typed and
        flagged like this puzzle's: the rules cannot fill it, the search fills it in a few dozen branches, through the
        same code as a real puzzle (warm-ups run it before the clock)."""
        order = self.order if order is None else order
        givens = np.asarray(self.givens)
        side = order * order
        rows, columns = np.divmod(np.arange(side * side), side)
        solved = (order * (rows % order) + rows // order + columns) % side  # a valid grid of any order
        grid = np.where(solved < 3, -1, solved).astype(givens.dtype)
        grid.flags.writeable = givens.flags.writeable
        return Sudoku(givens=grid, order=order, fmt=self.fmt, source="<stand-in>")

    def move(self, name: str | None = None, *, propagate: bool = True) -> AnnealMove:
        """The annealer's view of the puzzle under move ``name`` (None: ``default_move``, per order).

        ``propagate`` (default): the seed-002 rules run to a fixpoint first (for ``tabu``, then the
        stronger rules of ``local_search_root``); every forced cell becomes a given of the annealed
        problem and the moves draw only among each cell's remaining candidates. Off: the givens as
        written and every digit possible everywhere (the landed streams, exactly).
        """
        name = name or self.default_move
        if name not in MOVES:
            raise ValueError(f"unknown move {name!r} for sudoku; choose from {', '.join(MOVES)}")
        geo = geometry(self.order)
        if not propagate or self.propagation is None:
            values, masks = self.unpropagated
        else:
            values, masks = self.local_search_root if name == "tabu" else self.propagation
        givens = np.ascontiguousarray(values, dtype=np.int16)
        if name == "swap":
            movable, boxes = swap.box_tables(givens, self.order)
            restricted = False
            if np.ndim(masks) == 2:
                # From 81x81 on a cell's candidates outgrow the kernel's uint64 mask: the swaps are left unrestricted
                # (the plain move, which reaches every permutation of a box) and the mask is a placeholder it never
                # reads; the rules' forced cells are still givens.
                masks = np.full(geo.cells, np.uint64(2**64 - 1), dtype=np.uint64)
            else:
                restricted = swap.is_restricted(givens, masks, boxes)
            # log |Omega| = sum over boxes of log(k_b!): the permutations of each box's free cells
            log_states = float(sum(math.lgamma(k + 1) for k in boxes[:, 0]))
            tables = swap.SwapTables(
                givens=per_puzzle(givens, np.int16), movable=per_puzzle(movable, np.int32),
                n_movable=np.array([movable.shape[0]], dtype=np.int32), boxes=per_puzzle(boxes, np.int32),
                masks=per_puzzle(masks, np.uint64),
                restricted=np.array([restricted], dtype=np.uint8),
                cell_units=geo.line_units, box_corner=geo.box_corner, order=self.order, n_values=self.side)
            return AnnealMove(
                name="swap", kernel=swap, reference=swap_reference, tables=tables,
                config_size=geo.cells, counts_size=2 * self.side * self.side,
                max_delta=swap.MAX_DELTA, plateau_length=geo.cells, max_cost=swap.max_cost(self.order),
                log_states=max(log_states, 1.0), has_free_variables=movable.shape[0] > 0,
                schedule_defaults=self.schedule_defaults,
                # every row and column holds some digit: at most N - 1 missing from each, whatever the givens
                cost_bound=2 * self.side * (self.side - 1))
        if name == "tabu":
            tables = tabu.tables(givens, masks, self.order)
            free = int(tables.n_free[0])
            return AnnealMove(
                name="tabu", kernel=tabu, reference=tabu_reference, tables=tables,
                config_size=geo.cells, counts_size=max(1, free * self.side),
                counts_dtype=smallest_unsigned(geo.peers),  # a cell's peers holding a digit: uint16 from 100x100
                memory_size=tabu.memory_size(free, self.side),
                max_delta=geo.peers, plateau_length=geo.cells, max_cost=geo.max_cost,
                log_states=geo.cells * math.log(self.side), has_free_variables=free > 0,
                schedule_defaults=tabu.SCHEDULE, chains_per_core=1, cpu_preferred=CPU_PREFERRED.get("tabu", ""),
                cooperative="gpu_sa.puzzles.sudoku.moves.tabu_block",
                pool_interval=tabu.POOL_INTERVAL, pool_kept=tabu.POOL_KEPT,
                cost_bound=geo.max_cost)  # conflicting peer pairs: at most every pair
        free = np.flatnonzero(givens < 0).astype(np.int32)
        candidates = sirdey.candidate_table(masks, self.side)
        tables = sirdey.SirdeyTables(
            givens=per_puzzle(givens, np.int16), free_cells=per_puzzle(free, np.int32),
            n_free=np.array([free.size], dtype=np.int32), candidates=per_puzzle(candidates, np.uint8),
            unit_offsets=geo.unit_offsets, n_values=self.side)
        return AnnealMove(
            name="sirdey", kernel=sirdey, reference=sirdey_reference, tables=tables,
            config_size=geo.cells, counts_size=geo.count_slots,
            max_delta=geo.peers, plateau_length=geo.cells, max_cost=geo.max_cost,
            # Sirdey's T'_f: log N with N = (N digits)^(cells), free of the instance (the seed's choice).
            log_states=geo.cells * math.log(self.side), has_free_variables=free.size > 0,
            schedule_defaults=self.schedule_defaults, cost_bound=geo.max_cost)  # at most every peer pair

    @property
    def schedule_defaults(self):
        """The annealer's default (t0, t_end, plateaus) for this order (None: the runner's, measured on 9x9)."""
        return SCHEDULE_BY_ORDER.get(self.order, LARGE_SCHEDULE)

    @functools.cached_property
    def unpropagated(self) -> tuple[np.ndarray, np.ndarray]:
        """(givens, masks): the givens as written, every digit possible in every free cell. From order 9 on
        (N > 64) the candidates are a (cells, N) bool array, as ``propagation``'s there."""
        if self.side > 64:
            possible = np.ones((self.givens.shape[0], self.side), dtype=bool)
            fixed = np.flatnonzero(self.givens >= 0)
            possible[fixed] = False
            possible[fixed, self.givens[fixed]] = True
            return np.asarray(self.givens), possible
        full = np.uint64((1 << self.side) - 1) if self.side < 64 else np.uint64(2**64 - 1)
        masks = np.full(self.givens.shape, full, dtype=np.uint64)
        fixed = self.givens >= 0
        masks[fixed] = np.left_shift(np.uint64(1), self.givens[fixed].astype(np.uint64))
        return np.asarray(self.givens), masks

    @functools.cached_property
    def propagated(self):
        """``gpu_sa.puzzles.sudoku.exact.propagate`` of the givens (the seed-002 rules' fixpoint, its free cells, or a
        contradiction), computed once: ``auto`` starts from it and the moves' roots are built on it."""
        from . import exact

        return exact.propagate(self.givens, self.order)

    @functools.cached_property
    def propagation(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(values, masks) after the seed-002 rules ran to a fixpoint (forced cells filled, -1 free; each
        cell's candidate digits as a bitmask, or from order 9 on a (cells, N) bool array), or None when they prove
        the puzzle has no solution."""
        found = self.propagated
        return None if found.contradiction else (found.values, found.candidates)

    @functools.cached_property
    def local_search_root(self) -> tuple[np.ndarray, np.ndarray]:
        """(values, masks) that move ``tabu`` starts from: the rules' fixpoint (``propagation``, not None), then
        box-line reduction and each unit's AllDifferent made arc consistent (a matching and its Hall sets), to a
        fixpoint (``gpu_sa.puzzles.sudoku.exact.consistency``, the complete search's own rules; sound, so no solution is
        lost). About a millisecond at 64x64. On Sudoku-LS's set at 49x49 with 60 % givens it leaves 33 free cells
        of one instance where the rules leave 756; at 64x64 60 % it takes 6 % of the candidates. When it finds a
        contradiction the rules' fixpoint is returned: the chains can then never solve, and ``auto``'s complete
        search proves that there is no solution.
        From order 9 on, where candidates are a (cells, N) bool array (a uint64 mask holds 64 digits), the stronger
        rules, written for one word per cell, do not run: the root is the rules' fixpoint."""
        from .exact import _digits_of, tables
        from .exact.consistency import ALLDIFF, BOX_LINE, strengthened

        values, masks = self.propagation
        if np.ndim(masks) == 2:
            return values, masks
        cand = np.array(masks, dtype=np.uint64)
        peers, units, cell_units, full = tables(self.order)
        if not strengthened(cand, peers, units, cell_units, full, BOX_LINE | ALLDIFF, np.zeros(1, np.uint8)):
            return values, masks
        strong_values = np.empty(cand.shape[0], dtype=np.asarray(values).dtype)
        _digits_of(cand, strong_values)  # -1 where a cell still has several candidates
        return strong_values, cand

    def write(self, values, fmt: str | None = None) -> str:
        return write(values, self.order, fmt or self.fmt)

    def answer(self, values, fmt: str | None = None) -> str:
        """The JSON form of a grid: its text in ``fmt`` (default: the input's format)."""
        return self.write(values, fmt)

    def instance_arrays(self) -> dict:
        """What ``--dump-states`` stores beside the states: the givens, 1-based, 0 = empty."""
        return {"givens": np.asarray(self.givens) + 1}

    def contradicts(self) -> bool:
        """True when propagating the seed-002 rules from the givens alone proves there is no solution."""
        from gpu_sa.puzzles.sudoku import exact

        return exact.contradicts(self.givens, self.order)

    def contradiction(self) -> str | None:
        """Why the puzzle has no solution when propagation proves it, else None (the interface every kind offers)."""
        return "propagating the givens leads to a contradiction" if self.contradicts() else None

    def count_solutions(self, *, limit: int = 2, max_nodes: int | None = None, seed: int | None = None,
                        threads: int | None = None, time_limit: float | None = None, searches: int | None = None,
                        box_line: bool = False):
        """The exact solver's answer: ``ExactResult`` (solutions counted up to ``limit``); ``seed``
        switches on the seeded search with restarts (None: the seed's deterministic search, ``box_line``: with
        pointing and box-line reduction). Without
        ``max_nodes``, a ``time_limit`` alone bounds the search; with neither, DEFAULT_MAX_NODES does."""
        from gpu_sa.puzzles.sudoku import exact

        if max_nodes is None:
            max_nodes = exact.DEFAULT_MAX_NODES if time_limit is None else exact.NO_NODE_LIMIT
        return exact.count_solutions(self.givens, self.order, limit=limit, max_nodes=max_nodes, seed=seed,
                                     threads=threads, time_limit=time_limit, searches=searches, box_line=box_line)

    def check(self, values) -> list[str]:
        """Rule violations of a full grid (0-based values), by the independent validator."""
        # arrays, not lists: the validator tests whole arrays at once (see ``validate``)
        one_based = (np.asarray(values, dtype=np.int64) + 1).reshape(self.side, self.side)
        givens = (np.asarray(self.givens, dtype=np.int64) + 1).reshape(self.side, self.side)
        return validate.sudoku_violations(one_based, givens)


def parse(text: str, source: str = "<input>", fmt: str = "auto", errors: list | None = None) -> list[Sudoku]:
    """Every puzzle of ``text``; given ``errors`` (a list), the bad ones' errors go there and the good ones are
    returned (``common.codecs.gather``), else the first bad one raises ``PuzzleError``."""
    from .formats import parse as parse_grids

    return [Sudoku(givens=g.values, order=g.order, fmt=g.fmt, source=g.source, line=g.line)
            for g in parse_grids(text, source, fmt, errors)]


__all__ = ["Sudoku", "parse", "PuzzleError", "MOVES", "FORMATS", "OUTPUT_FORMATS", "KIND", "SUMMARY", "FORMAT_HELP",
           "METHODS", "COMMANDS", "OPTIONS"]
