"""Why the candidate-restricted ``swap`` loses easy large instances: the graph of legal swaps, box by box.

    python bench/swap_graph.py [FILE ...] [--chains 256] [--seed 1] [--moves 0] [--cap 200000] [--json]
                               [--results DIR]

With propagation, a box's free cells hold a permutation of its missing digits that respects the
candidates (a perfect matching of cells to digits), and ``swap`` (restricted) only exchanges two cells
whose digits are each a candidate of the other: both ends of a move are matchings. For each box this
enumerates every matching (up to ``--cap``; a box past it is reported as unknown) and joins two by an
edge when one legal swap turns one into the other, then reports:

- ``boxes``: free boxes after propagation; ``split``: boxes whose graph has more than one component;
  ``frozen``: boxes where the solution's matching is the only one reached by no legal swap from any other
  (a component of one matching) while others exist;
- ``split3``: boxes still split when a legal 3-cycle (three cells pass their digits round, each to a cell
  that has it as a candidate) is a move too (``+n?``: n split boxes with too many matchings to check);
- ``P(box)``: the product over boxes of the share of matchings in the solution's component (what a uniform
  start would give);
- ``reach``: of the chains' actual initial fills (the product's init, seed and chain indices as
  ``gpu-sa solve --seed S`` trial 1 uses them), how many have every box in the solution's component, i.e.
  how many chains can reach the solution at all (the state space of the restricted move is the product
  of the boxes' graphs);
- ``null``: the share of proposals that are null moves (the drawn cell has no legal partner) in the
  initial fills, averaged over chains (uniform box, uniform cell, as the kernel draws them); with
  ``--moves M`` the same after M moves of the default schedule's first trial (the chains' states then).

The instances are not guaranteed to have one solution (any valid completion is one): every solution is
enumerated (``solutions``, a plain backtracking over the propagated candidates, up to ``--max-solutions``
and 20,000 branches; ``>=n`` when it stopped early, the reach then counts only those n)
and a chain counts as able to reach one when every box of its fill lies in the component of the same
solution's arrangement; ``P(box)`` and ``frozen`` use the exact search's first solution.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import SHARED_DATA, add_results_option, environment, shown_path, write_record  # noqa: E402

import gpu_sa  # noqa: E402
from gpu_sa.engine import backends, rng  # noqa: E402
from gpu_sa.engine.kernels import Chains  # noqa: E402

DEFAULT_FILES = ([SHARED_DATA / "sudoku" / "lloyd_amos" / f"inst25x25_{p}_{i}.txt" for p in (40, 45, 50)
                  for i in range(5)]
                 + [Path(__file__).resolve().parent / "data" / "sudoku_ls" / "INST_25x25" / "50" / f"inst25x25_50_{i}.txt"
                    for i in range(5, 10)])  # its instances 0-4 are Lloyd & Amos's, in the ant colony's format


def box_cells(b: int, order: int) -> list[int]:
    side = order * order
    top, left = (b // order) * order, (b % order) * order
    return [(top + i) * side + left + j for i in range(order) for j in range(order)]


class BoxGraph:
    """The matchings of one box's free cells to its missing digits and the components of legal swaps."""

    def __init__(self, cells, candidates, cap):
        self.cells = cells
        self.candidates = candidates  # per cell: the set of its candidate digits (among the missing ones)
        self.index: dict[tuple, int] = {}
        self.too_many = False
        self._enumerate(cap)
        self.parent = list(range(len(self.index)))
        if not self.too_many:
            self._join()

    def _enumerate(self, cap):
        k = len(self.cells)
        order = sorted(range(k), key=lambda s: len(self.candidates[s]))  # fewest candidates first
        chosen = [None] * k
        used = set()

        def place(depth):
            if self.too_many:
                return
            if depth == k:
                if len(self.index) >= cap:
                    self.too_many = True
                    return
                self.index[tuple(chosen)] = len(self.index)
                return
            s = order[depth]
            for d in sorted(self.candidates[s]):
                if d not in used:
                    used.add(d)
                    chosen[s] = d
                    place(depth + 1)
                    used.discard(d)
            chosen[s] = None

        place(0)

    def _find(self, x):
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def _join(self):
        k = len(self.cells)
        for state, at in self.index.items():
            for s in range(k):
                for t in range(s + 1, k):
                    if state[t] in self.candidates[s] and state[s] in self.candidates[t]:
                        moved = list(state)
                        moved[s], moved[t] = moved[t], moved[s]
                        other = self.index[tuple(moved)]
                        ra, rb = self._find(at), self._find(other)
                        if ra != rb:
                            self.parent[ra] = rb

    def three_cycle_components(self, cap) -> int | None:
        """Components once legal 3-cycles (three cells pass their digits round) join matchings too; None past
        ``cap`` matchings."""
        if len(self.index) > cap:
            return None
        k = len(self.cells)
        parent = [self._find(at) for at in range(len(self.parent))]

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        cand = self.candidates
        for state, at in self.index.items():
            for s in range(k):
                for t in range(s + 1, k):
                    for u in range(t + 1, k):
                        # s <- t's digit, t <- u's, u <- s's; and the other way round
                        for a, b, c in ((s, t, u), (s, u, t)):
                            if state[b] in cand[a] and state[c] in cand[b] and state[a] in cand[c]:
                                moved = list(state)
                                moved[a], moved[b], moved[c] = state[b], state[c], state[a]
                                ra, rb = find(at), find(self.index[tuple(moved)])
                                if ra != rb:
                                    parent[ra] = rb
        return len({find(at) for at in range(len(parent))})

    def component(self, state) -> int | None:
        at = self.index.get(tuple(int(d) for d in state))
        return None if at is None else self._find(at)

    def sizes(self) -> dict[int, int]:
        out: dict[int, int] = {}
        for at in range(len(self.parent)):
            root = self._find(at)
            out[root] = out.get(root, 0) + 1
        return out


def solutions_of(values, masks, order, limit, max_nodes=20_000):
    """Every completion of the propagated grid (up to ``limit``), by backtracking on the fewest candidates;
    (solutions, whether the enumeration finished within ``max_nodes`` branches)."""
    side = order * order
    peers = []
    for cell in range(side * side):
        r, c = divmod(cell, side)
        b = (r // order) * order + c // order
        peers.append(sorted({r * side + j for j in range(side)} | {i * side + c for i in range(side)}
                            | set(box_cells(b, order)) - {cell}))
    grid = [int(v) for v in values]
    cand = [int(m) for m in masks]
    found = []
    nodes = [0]

    def options(cell):
        mask = cand[cell]
        for p in peers[cell]:
            if grid[p] >= 0:
                mask &= ~(1 << grid[p])
        return mask

    def search():
        nodes[0] += 1
        if len(found) >= limit or nodes[0] > max_nodes:
            return
        best, best_mask, best_n = -1, 0, side + 1
        for cell in range(side * side):
            if grid[cell] < 0:
                mask = options(cell)
                n = bin(mask).count("1")
                if n < best_n:
                    best, best_mask, best_n = cell, mask, n
                    if n == 0:
                        return
        if best < 0:
            found.append(np.array(grid))
            return
        for d in range(side):
            if best_mask >> d & 1:
                grid[best] = d
                search()
                grid[best] = -1

    search()
    return found, len(found) < limit and nodes[0] <= max_nodes


def null_share(config, tables, puzzle_row=0):
    """Per chain: the share of proposals whose cell has no legal partner (uniform box, then uniform cell)."""
    movable = tables.movable[puzzle_row]
    masks = tables.masks[puzzle_row]
    n_movable = int(tables.n_movable[puzzle_row])
    shares = np.zeros(config.shape[0])
    for b in range(n_movable):
        k = int(movable[b, 0])
        cells = movable[b, 1:1 + k]
        held = config[:, cells].astype(np.uint64)  # (chains, k)
        cand = masks[cells]  # (k,)
        # ok[c, s, t]: t's digit is a candidate of s
        ok = ((cand[None, :, None] >> held[:, None, :]) & np.uint64(1)).astype(bool)
        legal = ok & ok.transpose(0, 2, 1)
        legal[:, np.arange(k), np.arange(k)] = False
        shares += (legal.sum(axis=2) == 0).mean(axis=1)
    return shares / max(n_movable, 1)


def initial_states(puzzle, chains, seed, moves):
    """The product's initial fills of ``chains`` chains (indices 0..chains-1, seed ``seed``), on the cpu backend,
    advanced by ``moves`` moves of the default schedule when ``moves`` > 0."""
    move = puzzle.move("swap")
    backend = backends.CpuBackend()
    state = backend.allocate(move, chains)
    key0, key1 = rng.split_seed(seed)
    chain_set = Chains(per_puzzle=np.int64(chains), bases=np.zeros(1, dtype=np.int64), active=np.ones(1, np.uint8),
                       key0=key0, key1=key1, replicas=np.int64(1))
    backend.init(state, move, chain_set)
    start = np.array(backend.to_host(state).config)
    after = None
    if moves:
        from gpu_sa.engine import schedule
        from gpu_sa.engine.exchange import exchange_table  # noqa: F401  (the chunk type needs no ladder here)
        from gpu_sa.engine.kernels import NO_EXCHANGE, Chunk

        t0, t_end, plateaus = puzzle.schedule_defaults
        law = schedule.geometric(t0=t0, t_end=t_end, plateaus=plateaus, plateau_length=move.plateau_length)
        length = law.plateau_length
        stop = (moves - 1) // length + 1
        chunk = Chunk(move_begin=np.int64(0), move_end=np.int64(moves), plateau_begin=np.int64(0),
                      plateau_length=np.int64(length), thresholds=law.acceptance_rows(0, stop, move.max_delta),
                      exchange_interval=NO_EXCHANGE, exchange_table=np.zeros((1, 1), dtype=np.uint32))
        backend.advance(state, move, chain_set, chunk)
        host = backend.to_host(state)
        after = (np.array(host.config), np.array(host.cost))
    return move, start, after


def analyse(path: Path, chains: int, seed: int, moves: int, cap: int, max_solutions: int) -> dict:
    puzzle = gpu_sa.parse(path.read_text(), source=str(path))[0]
    order, side = puzzle.order, puzzle.side
    values, masks = puzzle.propagation
    solution = puzzle.count_solutions(limit=1, seed=1).solution  # the restarted search: seconds at most here
    every, complete = solutions_of(values, masks, order, max_solutions)
    if not every:
        every = [solution]
    move, start, after = initial_states(puzzle, chains, seed, moves)
    graphs = []
    for b in range(side):
        cells = [c for c in box_cells(b, order) if values[c] < 0]
        if len(cells) < 2:
            continue
        held = {int(values[c]) for c in box_cells(b, order) if values[c] >= 0}
        missing = [d for d in range(side) if d not in held]
        candidates = [{d for d in missing if (int(masks[c]) >> d) & 1} for c in cells]
        graphs.append(BoxGraph(cells, candidates, cap))
    reach = np.ones((len(every), chains), dtype=bool)  # [solution, chain]: every box in its component so far
    p_uniform = 1.0
    split = frozen = unknown = 0
    split3 = 0  # boxes still split with 3-cycles too
    unknown3 = 0
    components, matchings, free_cells = [], [], []
    for g in graphs:
        free_cells.append(len(g.cells))
        if g.too_many:
            unknown += 1
            continue
        sizes = g.sizes()
        matchings.append(len(g.index))
        components.append(len(sizes))
        target = g.component(solution[g.cells])
        if len(sizes) > 1:
            split += 1
            with_cycles = g.three_cycle_components(cap=20_000)
            if with_cycles is None:
                unknown3 += 1
            elif with_cycles > 1:
                split3 += 1
            if sizes[target] == 1:
                frozen += 1
        p_uniform *= sizes[target] / len(g.index)
        targets = [g.component(other[g.cells]) for other in every]
        starts = [g.component(start[r, g.cells]) for r in range(chains)]
        for i, t in enumerate(targets):
            reach[i] &= np.array([s == t for s in starts])
    row = {"file": path.name, "solutions": f"{len(every)}" if complete else f">={len(every)}", "free": int((values < 0).sum()),
           "boxes": len(graphs), "k_max": max(free_cells, default=0), "split": split, "frozen": frozen,
           "unknown": unknown, "split3": split3 if not unknown3 else f"{split3}+{unknown3}?", "matchings_max": max(matchings, default=0),
           "components_max": max(components, default=0), "p_uniform": p_uniform,
           "reach": int(reach.any(axis=0).sum()), "chains": chains,
           "null_start": float(null_share(start, move.tables).mean())}
    if after is not None:
        config, cost = after
        row["null_after"] = float(null_share(config, move.tables).mean())
        row["cost_after_min"] = int(cost.min())
        row["cost_after_median"] = float(np.median(cost))
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--chains", type=int, default=256)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--moves", type=int, default=0, help="also measure null moves after this many moves")
    parser.add_argument("--cap", type=int, default=200_000, help="most matchings enumerated per box")
    parser.add_argument("--max-solutions", type=int, default=1000, help="most solutions enumerated")
    parser.add_argument("--json", action="store_true")
    add_results_option(parser)
    args = parser.parse_args(argv)
    rows = []
    for f in args.files or DEFAULT_FILES:
        print(f"# {f.name}", file=sys.stderr, flush=True)
        rows.append(analyse(f, args.chains, args.seed, args.moves, args.cap, args.max_solutions))
    title = f"the graph of legal swaps, box by box: {args.chains} chains, seed {args.seed}, {args.moves} moves"
    record = [{key: shown_path(value) if isinstance(value, str) else value for key, value in row.items()}
              for row in rows]
    if args.json:
        for row in rows:
            print(json.dumps(row))
    else:
        columns = list(rows[0])
        print("| " + " | ".join(columns) + " |")
        print("|" + "---|" * len(columns))
        for row in rows:
            print("| " + " | ".join(f"{v:.3g}" if isinstance(v, float) else str(v) for v in row.values()) + " |")
    write_record("swap_graph", record, info=environment(), title=title, results=args.results, args=argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
