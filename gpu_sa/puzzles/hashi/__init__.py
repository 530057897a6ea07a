"""Hashiwokakero (seed 004, part 2): join the islands by bridges into one network.

Bridges run horizontally or vertically between neighbouring islands, at most two per pair,
never crossing; each island's number is its count of bridges. Behind the puzzle interface
(see ``gpu_sa.puzzles``):
  parse(text, source, fmt)   -> list of Hashi            (raises PuzzleError, one line)
  parse(text, source, fmt, errors=[]) -> the good ones; each bad puzzle's PuzzleError is added to errors
  puzzle.move(name)          -> AnnealMove for the annealer (move ``bridge``)
  puzzle.solution(values)    -> the bridges [r1, c1, r2, c2, count] of a chain's state
  puzzle.write(values, fmt)  -> a drawing of a chain's state
  puzzle.answer(values)      -> the JSON form of a state: the bridges
  puzzle.check(values)       -> rule violations, from the independent validator (connectivity included)
  puzzle.count_solutions(limit=, time_limit=, seed=) -> the ILP's answer (lazy connectivity cuts)
  puzzle.contradiction()     -> why the puzzle has no solution when cheap checks prove it, else None
  puzzle.contradicts()       -> contradiction() is not None
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from cpu_ref.hashi import bridge as bridge_reference

from . import validate
from ..common.errors import PuzzleError
from ..common.ilp import ExactAnswer, exact_answer
from ...engine.contract import AnnealMove, smallest_unsigned
from ..spec import ANNEAL, Integer, Method, Option, Real, Size
from .moves import bridge
from .formats import FORMATS
from .formats import write as write_puzzle
from .geometry import HashiGeometry, geometry

KIND = "hashi"
SUMMARY = "Hashiwokakero: bridges joining every island into one network"
FORMAT_HELP = {
    "has": "Coelho et al. files: 'rows cols islands' then the grid, 0 = water",
    "plain": "digits 1-8 are islands, '.' water",
    "tatham": "Simon Tatham's bridges game ID 'WxH...:...'",
    "puzzlink": "https://puzz.link/p?hashi/W/H/...",
}
MOVES = ("bridge",)
DEFAULT_MOVE = "bridge"
METHODS = (ANNEAL, Method("ilp", "the integer program, solved exactly by SciPy's HiGHS", exact=True))
NAMED_FORMATS = ("has", "tatham", "puzzlink")  # they name the puzzle: --kind can be left out
OUTPUT_FORMATS = ("pretty",)  # a solution is drawn; the puzzle formats cannot hold one
COMMANDS = {"solve": None, "exact": None, "generate": "gpu_sa.puzzles.hashi.generate:instances"}
OPTIONS = (
    Option("--size", "grid size, e.g. 10x10 or 9x16 (required)", Size(min_cells=2), commands=("generate",),
           required=True, purpose="grid size; Hashiwokakero needs room for 2 islands"),
    Option("--unique", "keep only puzzles with exactly one solution (checked by the ILP with a no-good cut)",
           commands=("generate",)),
    Option("--islands", "islands wanted (default: about a quarter of the cells, capped at 100)", Integer(2),
           purpose="islands; at least 2", commands=("generate",)),
)
# Measured on Coelho et al. instances of 200 and 300 islands (bench/sweep_schedule.py hashi 200, 300):
# a geometric law over plateaus of one move per movable edge.
SCHEDULE_DEFAULTS = (0.5, 0.05, 1000)


@dataclass(frozen=True, eq=False)
class Hashi:
    grid: np.ndarray  # (rows, cols) int32, 0 = water, 1..8 = island
    fmt: str = "plain"
    source: str = "<input>"
    line: int = 1
    state_base = 0  # chain states are stored and dumped as they are
    presolve = "candidate pruning"  # what fixes variables before annealing, in messages ("solved by ...")

    @property
    def label(self) -> str:
        return f"{self.source}:{self.line}"

    @functools.cached_property
    def geometry(self) -> HashiGeometry:
        return geometry(self.grid, self.label)

    def move(self, name: str = DEFAULT_MOVE, *, propagate: bool = True) -> AnnealMove:
        """The annealer's view of the puzzle. Its candidate pruning is part of the geometry every
        answer is read against, so it is always on: ``propagate`` changes nothing here."""
        if name not in MOVES:
            raise ValueError(f"unknown move {name!r} for hashi; choose from {', '.join(MOVES)}")
        geo = self.geometry
        tables = bridge.tables(geo)
        edges, movable = tables.edges[0], tables.movable[0]
        most_crossings = int(edges[:, 2].max()) if edges.size else 0
        return AnnealMove(
            name="bridge", kernel=bridge, reference=bridge_reference, tables=tables,
            config_size=max(1, edges.shape[0]), counts_size=3 * geo.islands,
            max_delta=5 + most_crossings, plateau_length=max(1, movable.shape[0]),
            max_cost=float(geo.values.sum() + geo.crossings.shape[0]),
            log_states=max(1.0, float(np.log(movable[:, 1] + 1.0).sum())),
            has_free_variables=movable.shape[0] > 0, config_dtype=np.uint8,
            counts_dtype=smallest_unsigned(max(geo.islands, 8)), schedule_defaults=SCHEDULE_DEFAULTS,
            # |bridges - number| <= bridges + number at each island, each edge's (at most 2) bridges counted at both
            # ends, plus the crossing pairs: a bound however far a chain is from a solution (not max_cost)
            cost_bound=int(geo.values.sum()) + 4 * int(edges.shape[0]) + int(geo.crossings.shape[0]))

    def solution(self, values) -> list[list[int]]:
        """The bridges [r1, c1, r2, c2, count] (0-based, (r1, c1) left of or above) of a state, in edge order."""
        geo = self.geometry
        bridges = []
        for e, count in enumerate(np.asarray(values)[:geo.edges.shape[0]]):
            if count:
                (r1, c1), (r2, c2) = geo.cells[geo.edges[e, 0]], geo.cells[geo.edges[e, 1]]
                bridges.append([int(r1), int(c1), int(r2), int(c2), int(count)])
        return bridges

    def values_of(self, bridges) -> np.ndarray:
        """The chain state (bridges per candidate edge) of a list [r1, c1, r2, c2, count]."""
        geo = self.geometry
        edge_of = {(tuple(geo.cells[a]), tuple(geo.cells[b])): e for e, (a, b) in enumerate(geo.edges)}
        values = np.zeros(max(1, geo.edges.shape[0]), dtype=np.int64)
        for r1, c1, r2, c2, count in bridges:
            e = edge_of.get(((r1, c1), (r2, c2)))
            if e is None:
                raise ValueError(f"bridge {[r1, c1, r2, c2]} joins no neighbouring islands")
            values[e] = count
        return values

    def write(self, values, fmt: str | None = None) -> str:
        from .formats import draw_solution

        return draw_solution(self.grid, self.solution(values))

    def answer(self, values, fmt: str | None = None) -> list[list[int]]:
        return self.solution(values)

    def instance_arrays(self) -> dict:
        """What ``--dump-states`` stores beside the states: the grid."""
        return {"grid": self.grid}

    def count_solutions(self, *, limit: int = 2, time_limit: float | None = None, max_nodes=None,
                        seed: int | None = None) -> ExactAnswer:
        """Connected solutions counted up to ``limit`` by the ILP with lazy connectivity cuts (HiGHS)."""
        from gpu_sa.puzzles.hashi import exact

        return exact_answer(exact.solve(self.grid, limit=limit, time_limit=time_limit,
                                        seed=0 if seed is None else seed), self.values_of)

    def check(self, values) -> list[str]:
        return validate.hashi_violations(self.grid.tolist(), self.solution(values))

    def contradiction(self) -> str | None:
        """Why the puzzle has no solution when a cheap check proves it (``feasibility``: parity, bridge
        count, reach, components, the linear relaxation), else None."""
        from .feasibility import contradiction

        return contradiction(self.geometry)

    def contradicts(self) -> bool:
        return self.contradiction() is not None


def default_islands(rows: int, cols: int) -> int:
    """About a quarter of the cells, at most 100 (the Coelho et al. density), at least 2."""
    return max(2, min(100, rows * cols // 4))


def parse(text: str, source: str = "<input>", fmt: str = "auto", errors: list | None = None) -> list[Hashi]:
    """Every puzzle of ``text``; given ``errors`` (a list), the bad ones' errors go there and the good ones are
    returned (``common.codecs.gather``), else the first bad one raises ``PuzzleError``."""
    from .formats import parse as parse_grids

    return [Hashi(grid=g.grid, fmt=g.fmt, source=g.source, line=g.line) for g in parse_grids(text, source, fmt, errors)]


__all__ = ["Hashi", "parse", "PuzzleError", "MOVES", "KIND", "FORMATS", "write_puzzle", "SUMMARY",
           "FORMAT_HELP", "METHODS", "COMMANDS", "OPTIONS"]
