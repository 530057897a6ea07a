"""The one schema of ``gpu-sa solve --json``: every key, the methods whose records carry it, and when.

Every record of every method is built through ``record``, which refuses (as an internal error) a key
the schema does not list for the record's method, or a missing key that the method always carries;
the table of keys in docs/cli.md ("JSON keys") is checked against ``KEYS`` by tests/test_docs.py. A new
method, or a new key, is one entry here (and one row in that table).

Keys present for every method come first; ``methods`` names the others' methods; ``when`` says when a
key is present only under a condition (an option, an outcome), "" = always for its methods.
"""
from __future__ import annotations

from dataclasses import dataclass

METHODS = ("auto", "anneal", "exact", "ilp")  # every method of solve, over every kind
CHAINS = ("auto", "anneal")  # the methods that run the annealer (auto in its annealing rounds)


@dataclass(frozen=True)
class Key:
    name: str
    methods: tuple[str, ...]
    meaning: str
    when: str = ""  # "" = always present for its methods; else the condition, in words

    def required(self, method: str) -> bool:
        return method in self.methods and not self.when


ANNEALED = "an annealing run or round happened"
KEYS = (
    Key("puzzle", METHODS, "where the puzzle comes from: file:line"),
    Key("method", METHODS, "the method that ran: auto, anneal, exact or ilp"),
    Key("solved", METHODS, "true when a solution was found and accepted by the independent validator"),
    Key("solution", METHODS, "the solution (Sudoku: the grid in the input's format or --output-format; Shikaku: "
        "rectangles [top, left, bottom, right]; Hashiwokakero: bridges [r1, c1, r2, c2, count]), or null"),
    Key("cost", METHODS, "the lowest cost reached, as the move counts it (docs/algorithms.md: Moves and costs); 0 "
        "when solved; null when unsolved and no annealing ran (the exact methods, a contradiction)"),
    Key("stopped", METHODS, "why the run ended: solved, max_moves, stalled, time_limit, interrupted, rounds (auto's "
        "last round), no_solution or contradiction"),
    Key("seconds", METHODS, "the solving time (auto: from propagation to the validator's verdict; anneal: building "
                            "the puzzle's move, i.e. its rules' root and tables, then the annealing itself)"),
    Key("seed", METHODS, "the seed the run is a pure function of (null: the exact methods' default, no seed)"),
    Key("unique", METHODS, "whether the solution is the only one: true, false, or null when the search gave up",
        when="--check-unique"),
    Key("unique_seconds", ("auto",), "the seconds the uniqueness check took (after the solve)", when="--check-unique"),
    Key("reason", METHODS, "why there is no solution, in words", when='"stopped": "contradiction"'),
    Key("backend", CHAINS, "where the chains ran: cuda, cpu or numpy (null when nothing ran: a contradiction)"),
    Key("setup_seconds", CHAINS, "before the clock: choosing the backend, compiling or loading the machine code (a "
        "stand-in grid's move is built once per size, so that the first real one does not pay for loading it), "
        "allocation, the chains' first states and the runner's own set-up (options checked, tables stacked): "
        "with `seconds`, the call's whole time (auto: and its warm-up on stand-in grids)"),
    Key("moves", CHAINS, "annealing moves made in each chain slot, over every trial (auto: every annealing round)"),
    Key("chain", CHAINS, "the chain that holds cost (and the solution)", when=ANNEALED),
    Key("chains", CHAINS, "chains per trial (auto: per annealing round)", when=ANNEALED),
    Key("best", CHAINS, "the best state any chain reached, in the solution's form (the solution when solved; auto: "
        "of its best annealing round)", when=ANNEALED),
    Key("proposals", ("anneal",), "moves x chains", when=ANNEALED),
    Key("chain_moves", ("anneal",), "moves the reported chain needed", when=ANNEALED),
    Key("trials", ("anneal",), "trials begun (a trial: every chain through the schedule)", when=ANNEALED),
    Key("schedule", ("anneal",), "the temperature law: its name and parameters", when=ANNEALED),
    Key("replicas", ("anneal",), "replicas per group (replica exchange)", when="--replicas R > 1"),
    Key("exchange_rates", ("anneal",), "accepted / attempted exchanges per pair of neighbouring rungs",
        when="--replicas R > 1"),
    Key("pool_interval", ("anneal",), "moves between the rounds of the chains' elite pool (docs/algorithms.md, "
        "'Chains that cooperate')", when="the chains pooled: sudoku's move tabu, or --pool-interval K > 0"),
    Key("answered_by", ("auto",), "who answered: propagation, exact, anneal, or none"),
    Key("rounds", ("auto", "ilp"), "auto: rounds of the search and the annealer begun; ilp: integer programs solved"),
    Key("nodes", ("auto", "exact"), "branches of the complete search (auto: over every round)"),
    Key("restarts", ("auto",), "restarts of the complete search, over every round"),
    Key("cuts", ("ilp",), "lazy connectivity cuts added (Hashiwokakero; 0 for Shikaku)"),
    Key("variables", ("ilp",), "variables of the integer program"),
    Key("constraints", ("ilp",), "constraints of the integer program, cuts aside"),
)
KEYS_BY_NAME = {key.name: key for key in KEYS}


class SchemaError(RuntimeError):
    """A record that the schema does not describe: a bug, never the user's doing."""


def record(method: str, **values) -> dict:
    """The JSON record of one puzzle answered by ``method``, checked against ``KEYS`` (in the order given)."""
    problems = check(method, values)
    if problems:
        raise SchemaError(f"internal error: a {method} record {problems[0]}")
    ordered = {"puzzle": values["puzzle"]} if "puzzle" in values else {}
    return {**ordered, "method": method, **values}


def check(method: str, values: dict) -> list[str]:
    """What is wrong with a record of ``method`` (empty when it follows the schema)."""
    problems = [f"has {name!r}, which the schema does not list for {method}" for name in values
                if name != "method" and (name not in KEYS_BY_NAME or method not in KEYS_BY_NAME[name].methods)]
    present = set(values) | {"method"}
    problems += [f"lacks {key.name!r}" for key in KEYS if key.required(method) and key.name not in present]
    return problems
