"""Cheap proofs that a Hashiwokakero puzzle has no solution, tried before annealing.

Each check is sound (it never rejects a solvable puzzle) and runs in milliseconds, so an
impossible puzzle (say an 8 in a corner) is answered at once instead of after the annealer's
whole budget. In order:

  parity        every bridge adds 2 to the sum of the numbers, so the sum is even;
  bridge count  one network of I islands needs at least I - 1 bridges: sum / 2 >= I - 1;
  reach         an island's number is at most what its candidate edges can carry
                (``bridge.most_bridges``: 2, less next to a 1 or between two 2s);
  components    the edges that may carry a bridge connect every island;
  relaxation    the exact solver's integer program (degrees, crossings, double <= single) plus
                "at least I - 1 edges used", with integrality dropped, is feasible (HiGHS).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from ..common.ilp import relaxation_infeasible
from .moves.bridge import most_bridges
from .geometry import HashiGeometry


def contradiction(geo: HashiGeometry, *, relaxation: bool = True) -> str | None:
    """Why ``geo``'s puzzle has no solution, as a sentence, or None when no check proves it."""
    values = geo.values.astype(np.int64)
    islands, total = geo.islands, int(values.sum())

    def island(i):
        return f"island {values[i]} at r{geo.cells[i, 0] + 1}c{geo.cells[i, 1] + 1}"

    if total % 2:
        return f"the island numbers sum to {total}, an odd number, but every bridge adds 2"
    if total // 2 < islands - 1:
        return (f"{islands} islands need at least {islands - 1} bridges to form one network; their numbers "
                f"allow {total // 2}")
    most = most_bridges(geo).astype(np.int64)
    reach = np.bincount(geo.edges.ravel(), weights=np.repeat(most, 2), minlength=islands).astype(np.int64)
    for i in np.flatnonzero(values > reach)[:1]:
        neighbours = int((geo.incident[i] >= 0).sum())
        if neighbours == 0:
            return f"{island(i)} has no neighbour to bridge to"
        return (f"{island(i)} can get at most {_count(reach[i], 'bridge')} from its "
                f"{_count(neighbours, 'neighbour')}")
    usable = geo.edges[most > 0]
    graph = sp.csr_array((np.ones(len(usable)), (usable[:, 0], usable[:, 1])), shape=(islands, islands))
    groups, label = connected_components(graph, directed=False)
    if groups > 1:
        other = int(np.flatnonzero(label != label[0])[0])
        return (f"no chain of bridges can join {island(0)} to {island(other)}: the islands fall into {groups} "
                f"groups")
    if relaxation and _relaxation_infeasible(geo):
        return ("the integer program's linear relaxation is infeasible: no bridges, even fractional ones, meet "
                "every number without crossings")
    return None


def _count(number, noun):
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _relaxation_infeasible(geo: HashiGeometry) -> bool:
    from gpu_sa.puzzles.hashi.exact import model_of
    from gpu_sa.puzzles.common.milp import rows

    model = model_of(geo)
    edges = geo.edges.shape[0]
    model.add(rows([np.arange(edges)], [np.ones(edges)], 2 * edges), geo.islands - 1, np.inf)  # x: used edges
    return relaxation_infeasible(model)
