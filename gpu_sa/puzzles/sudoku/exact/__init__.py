"""Exact Sudoku solver of seed 002, any order n (N = n*n <= 64): prove, count, verify.

The package's parts, each one file:

  board        candidates as bitmasks (bit k = digit k+1), the order's tables, input checks
  propagation  the seed's three rules (naked single, hidden single, naked pair) and their drivers:
               to a fixpoint (the search, ``propagate``) or one round at a time (``steps``)
  consistency  stronger propagation, each a switch: box-line, AllDifferent GAC, root probing
  ordering     which cell to branch on (fewest candidates) and in which order to try its digits
               (deterministic, or drawn from the seed); or a unit's digit with two places (DUAL)
  learning     dom/wdeg unit weights and saved phases, carried across restarts
  backtracking one depth-first search to its end or its budget (``search_core``)
  bitboard     the same search for 9x9 without seed on per-digit bitboards (``search9``): same nodes, faster
  restarts     the seeded search's Luby restarts, run on worker threads
  implicit     the grid's constraints as the clause learning sees them: bitmasks, not a CNF
  clauses      conflict-driven clause learning on the candidates (the default from 25x25)
  counting     the entry points: ``count_solutions`` (one puzzle), ``count_many`` (a batch), and
               which features each order uses by default

Either way the search is complete: a search that ends within its budget has counted every solution up
to ``limit``, and 0 proves there is none.

Every loop here is compiled with ``cache=True``. numba keys a function's cache on its own file only, so
code compiled in from another file (a rule inlined into the search, ``gpu_sa.engine.rng``'s Philox) would not
be re-checked when that file changes: ``_cache`` keys every function of this package on all its files.
"""
from . import _cache  # noqa: F401  (first: the functions below are cached under its key)
from .backtracking import DEFAULT_MAX_NODES, NO_NODE_LIMIT, ExactResult, search, search_batch, search_core
from .board import ONE, ZERO, initial_candidates, tables
from .board import _check_givens, _digits_of, _popcount  # noqa: F401  (used by steps, generate)
from .counting import cnf_literals, count_many, count_solutions
from .propagation import (CONTRADICTION, EXCLUSIVITY, PARITY, REMOVED, RULES, TRACE_COLUMNS, UNIQUENESS,
                          Propagation, contradicts, propagate, rule_round)
from .propagation import _fixpoint, _remove, _start  # noqa: F401  (tests drive the fixpoint directly)
from .restarts import DEFAULT_BASE_NODES, available_cores, luby

__all__ = ["count_solutions", "count_many", "cnf_literals", "propagate", "contradicts", "rule_round", "Propagation",
           "ExactResult", "tables", "initial_candidates", "search", "search_batch", "search_core", "luby", "available_cores",
           "RULES", "TRACE_COLUMNS", "EXCLUSIVITY", "UNIQUENESS", "PARITY", "REMOVED", "CONTRADICTION",
           "DEFAULT_MAX_NODES", "NO_NODE_LIMIT", "DEFAULT_BASE_NODES", "ONE", "ZERO"]
