"""Bit-exact cases shared by the in-process tests and the CUDA worker subprocess.

A case is a small dict (JSON-friendly); ``run_case`` runs it on one backend and returns
every state array, so two backends can be compared with ``assert_array_equal``.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from gpu_sa.engine import backends, rng, runner, schedule
from gpu_sa.engine.exchange import exchange_table
from gpu_sa.engine.kernels import NO_EXCHANGE, Chains, Chunk
from gpu_sa.engine.pool import NO_POOL
from gpu_sa.engine.contract import stack_moves
from gpu_sa.puzzles import hashi, shikaku, sudoku

PUZZLES = {
    # order 2: 6 givens of the grid 1234/3412/2143/4321
    "order2": "1..4" "..1." ".1.." "4..1",
    # order 3: the seed's easy puzzle (leleux_easy)
    "order3": "..237.9....75684.2.8..9....1...4.8..2.4...7.6..6.2...1....5..1.5.19326....3.862..",
    # order 3: seed 003's 17-clue puzzle, mostly free cells
    "order3_17": ".......1.4.........2...........5.4.7..8...3....1.9....3..4..2...5.1........8.6...",
    # order 4: a 16x16 line puzzle, half given (from the pattern grid), digits 1-9 then A-G
    # order 3: a forum-hardest puzzle that propagation leaves with 58 free cells, about 4 candidates each
    "order3_hard": "........8..3...4...9..2..6.....79.......612...6.5.2.7...8...5...1.....2.4.5.....3",
    # order 4: a sparse 16x16 (a quarter given) whose propagation leaves restrictive candidates
    "order4_sparse": "".join("123456789ABCDEFG"[(r * 4 + r // 4 + c) % 16] if (r * 5 + c * 3) % 4 == 0 else "."
                             for r in range(16) for c in range(16)),
    "order4": "".join("123456789ABCDEFG"[(r * 4 + r // 4 + c) % 16] if (r * 7 + c * 3) % 2 else "."
                      for r in range(16) for c in range(16)),
}


def pattern_grid(order, every):
    """The pattern grid of ``order`` (digit (r x n + r // n + c) mod N at (r, c)) with the cells where (7r + 3c) mod
    ``every`` is 0 emptied, in the numbers format (any order): a puzzle whose chains conflict for long enough that
    move tabu goes through its best-move mode."""
    side = order * order
    return "\n".join(" ".join(str((r * order + r // order + c) % side + 1) if (r * 7 + c * 3) % every else "0"
                               for c in range(side)) for r in range(side))


PUZZLES.update({f"pattern{order}_{every}": pattern_grid(order, every) for order, every in ((4, 3), (5, 4), (6, 5))})



def lengths(*moves):
    """Move tabu's segment lengths, chain c taking moves[c mod len(moves)] (its tables' layout)."""
    return np.array(moves, dtype=np.uint32)


EVERY_MOVE = 1 << 20  # tabu's segment_cost above any cost here: every move counts (the segments as first written)


def _rows(text):
    """A grid written as rows of space-separated numbers, '.' = 0 (no parser involved)."""
    return np.array([[0 if t == "." else int(t) for t in line.split()] for line in text.strip().splitlines()])


GRIDS = {
    # shikaku 5x5 (8 clues, from a hand-drawn partition) and 4x6 (11 clues, generator seed 0, no merges;
    # 6 clues keep two or more candidates after pruning)
    "shikaku5": ("shikaku", _rows("""
        . . . 4 .
        4 . . . .
        . 3 . . 4
        . . 2 3 .
        . 4 . . 1""")),
    "shikaku4x6": ("shikaku", _rows("""
        . . 2 . . 3
        2 2 . . . 3
        2 2 . 2 . .
        . . 2 . 2 2""")),
    # hashi: 6 islands whose numbers also allow one disconnected assignment (chains reach local
    # cost 0 both ways, so the connectivity walk runs), and a 100-island Coelho et al. instance
    "hashi6": ("hashi", _rows("""
        . 1 . .
        2 2 . 1
        3 . . .
        3 . . 2""")),
    "hashi100": ("hashi", _rows("""
        2 . . 3 2 6 2 1 . . . . . 5 2 1
        1 . . . . . 3 6 . . . 2 . . . .
        . . . . . . 1 . . . . . . . . .
        4 . . 5 . 7 . 8 . . . . . 8 4 4
        4 2 2 6 3 . 1 . 2 . 4 . 1 . . .
        4 2 4 . 3 . 3 . 4 . 7 6 2 . . .
        . . 2 . 2 . . . . . . . . . . 1
        4 . . . 6 3 3 . . 1 . 6 2 . . 2
        4 2 . . . 2 2 . . . . . . . . .
        . 2 . . 8 7 4 . 4 5 . . . 4 6 4
        5 . 4 1 . . . . . 4 . . 3 4 4 2
        2 . . . . 4 1 . . 2 . 2 1 . 1 1
        . . . . . 2 . . . . . . . . . .
        . . . 2 6 . . 7 . . 5 . . 4 . .
        1 . 7 . . 4 . 8 . . . . . . 5 3
        1 . 5 2 2 4 . 5 . . . . . 2 3 2""")),
}

# Tiny sizes: the CUDA simulator runs a proposal in a few milliseconds.
CASES = [
    dict(id="sirdey-order2-seed1", move="sirdey", puzzle="order2", chains=4, seed=1, chain_base=0,
         chunks=[[0, 70], [70, 200]], t0=2.0),
    dict(id="sirdey-order2-seed-big", move="sirdey", puzzle="order2", chains=3, seed=2**63 + 12345, chain_base=7,
         chunks=[[0, 160]], t0=0.7),
    dict(id="sirdey-order3-seed7", move="sirdey", puzzle="order3", chains=4, seed=7, chain_base=0,
         chunks=[[0, 100], [100, 250]], t0=1.0),
    dict(id="sirdey-order3-seed99-base", move="sirdey", puzzle="order3", chains=3, seed=99, chain_base=1000,
         chunks=[[0, 200]], t0=3.0),
    dict(id="sirdey-order3-17clue", move="sirdey", puzzle="order3_17", chains=2, seed=5, chain_base=0,
         chunks=[[0, 150]], t0=0.5),
    dict(id="sirdey-order4", move="sirdey", puzzle="order4", chains=2, seed=11, chain_base=3, chunks=[[0, 120]],
         t0=1.0),
    dict(id="swap-order2-seed1", move="swap", puzzle="order2", chains=4, seed=1, chain_base=0,
         chunks=[[0, 60], [60, 150]], t0=1.0),
    dict(id="swap-order3-seed7", move="swap", puzzle="order3", chains=4, seed=7, chain_base=0,
         chunks=[[0, 90], [90, 220]], t0=1.0),
    dict(id="swap-order3-17clue-base", move="swap", puzzle="order3_17", chains=3, seed=2**40 + 3, chain_base=500,
         chunks=[[0, 180]], t0=0.6),
    dict(id="swap-order4", move="swap", puzzle="order4", chains=2, seed=13, chain_base=0, chunks=[[0, 120]], t0=0.8),
    dict(id="rect-shikaku5", move="rect", puzzle="shikaku5", chains=4, seed=3, chain_base=0,
         chunks=[[0, 40], [40, 110]], t0=1.5),
    dict(id="rect-shikaku4x6-base", move="rect", puzzle="shikaku4x6", chains=3, seed=2**63 + 5, chain_base=77,
         chunks=[[0, 120]], t0=0.8),
    dict(id="bridge-hashi6", move="bridge", puzzle="hashi6", chains=4, seed=5, chain_base=0,
         chunks=[[0, 50], [50, 160]], t0=1.0),
    dict(id="bridge-hashi6-hot", move="bridge", puzzle="hashi6", chains=3, seed=2**40 + 9, chain_base=12,
         chunks=[[0, 150]], t0=4.0),
    dict(id="bridge-hashi100", move="bridge", puzzle="hashi100", chains=2, seed=21, chain_base=0,
         chunks=[[0, 80], [80, 200]], t0=1.0),
    # candidates from propagation: swap draws legal partners only, its initial fill is repaired into a matching
    dict(id="swap-order3-hard-candidates", move="swap", puzzle="order3_hard", propagate=True, chains=3, seed=9,
         chain_base=0, chunks=[[0, 90], [90, 200]], t0=0.8),
    dict(id="swap-order4-candidates", move="swap", puzzle="order4_sparse", propagate=True, chains=2, seed=4,
         chain_base=5, chunks=[[0, 150]], t0=0.8),
    dict(id="sirdey-order3-hard-candidates", move="sirdey", puzzle="order3_hard", propagate=True, chains=3,
         seed=10, chain_base=0, chunks=[[0, 120], [120, 260]], t0=1.0),
    # move tabu: a conflicting cell takes its best digit; tabu marks, flags and best-move mode (its memory compared too)
    dict(id="tabu-order2-seed1", move="tabu", puzzle="order2", chains=4, seed=1, chain_base=0,
         chunks=[[0, 40], [40, 100]], t0=1.0),
    dict(id="tabu-order3-17clue", move="tabu", puzzle="order3_17", chains=3, seed=2**40 + 7, chain_base=9,
         chunks=[[0, 150], [150, 400]], t0=0.3),
    dict(id="tabu-order3-hard-candidates", move="tabu", puzzle="order3_hard", propagate=True, chains=3, seed=9,
         chain_base=0, chunks=[[0, 90], [90, 300]], t0=0.8),
    dict(id="tabu-order4-candidates", move="tabu", puzzle="order4_sparse", propagate=True, chains=2, seed=4,
         chain_base=5, chunks=[[0, 200]], t0=0.5),
    dict(id="tabu-order4", move="tabu", puzzle="order4", chains=2, seed=13, chain_base=0, chunks=[[0, 160]], t0=0.5),
    dict(id="tabu-batch-replicas", move="tabu", puzzle="order3", batch=["order3_17", "order3_hard", "order3"],
         active=[1, 1, 1], bases=[0, 40, 80], chains=4, replicas=2, interval=11, seed=18, chain_base=0,
         chunks=[[0, 120], [120, 260]], t0=1.0),
    # tabu's segments: short ones, so that chains go back to their snapshots, lengths grow, journals overflow
    dict(id="tabu-order3-segments", move="tabu", puzzle="order3_hard", propagate=True, chains=3, seed=21,
         chain_base=0, chunks=[[0, 110], [110, 400]], t0=1.5, tables=dict(segment_moves=lengths(23, 61), segment_growth=2,
                                                                           segment_cost=EVERY_MOVE)),
    dict(id="tabu-order4-segments", move="tabu", puzzle="order4", chains=2, seed=22, chain_base=3,
         chunks=[[0, 300]], t0=2.0, tables=dict(segment_moves=lengths(37), segment_growth=3, segment_cost=EVERY_MOVE)),
    dict(id="tabu-order3-hot-segments", move="tabu", puzzle="order3_17", chains=3, seed=24, chain_base=0,
         chunks=[[0, 200], [200, 500]], t0=6.0, tables=dict(segment_moves=lengths(150, 90), segment_growth=1,
                                                                    segment_cost=EVERY_MOVE)),
    # the default counts a segment's moves only while the best cost is at most tabu.SEGMENT_COST: here 3, so that a
    # hot chain passes from not counting to counting and back
    dict(id="tabu-order3-gated-segments", move="tabu", puzzle="order3_17", chains=3, seed=25, chain_base=0,
         chunks=[[0, 200], [200, 600]], t0=2.0, tables=dict(segment_moves=lengths(20, 45), segment_growth=1,
                                                             segment_cost=3)),
    dict(id="tabu-batch-segments", move="tabu", puzzle="order3", batch=["order3_17", "order2", "order3"],
         active=[1, 1, 1], bases=[0, 40, 80], chains=4, replicas=2, interval=9, seed=23, chain_base=0,
         chunks=[[0, 150], [150, 330]], t0=2.0, tables=dict(segment_moves=lengths(19, 31, 26), segment_growth=1,
                                                                            segment_cost=EVERY_MOVE)),
    # move tabu's cooperative layout (one block of threads_per_chain threads per chain; the backends without it run the
    # same chains): best-move mode, segments, a batch with a puzzle sitting still and replica exchanges, 36x36, a warp
    dict(id="tabu-block-order4-best-moves", move="tabu", puzzle="pattern4_3", threads_per_chain=8, chains=2, seed=3,
         chain_base=0, chunks=[[0, 60], [60, 150]], t0=0.3),
    dict(id="tabu-block-order5-segments", move="tabu", puzzle="pattern5_4", threads_per_chain=8, chains=2, seed=5,
         chain_base=1, chunks=[[0, 120]], t0=0.3, tables=dict(segment_moves=lengths(17, 29), segment_growth=1,
                                                              segment_cost=EVERY_MOVE)),
    dict(id="tabu-block-batch-replicas", move="tabu", puzzle="order3", batch=["order3_17", "order3", "order3_17"],
         active=[1, 0, 1], bases=[0, 40, 80], threads_per_chain=8, chains=2, replicas=2, interval=9, seed=20,
         chain_base=0, chunks=[[0, 50], [50, 110]], t0=4.0),
    dict(id="tabu-block-order6", move="tabu", puzzle="pattern6_5", threads_per_chain=8, chains=1, seed=6,
         chain_base=0, chunks=[[0, 50]], t0=0.3),
    dict(id="tabu-block-order4-warp", move="tabu", puzzle="pattern4_3", threads_per_chain=32, chains=1, seed=7,
         chain_base=5, chunks=[[0, 70]], t0=0.3),
    # the chains' elite pool (gpu_sa.engine.pool): a round every "pool" moves, inside chunks and at their ends; with
    # segments, a batch with a puzzle sitting still and replica exchanges, the cooperative layout, a move without
    # memory
    dict(id="tabu-pool-order5-segments", move="tabu", puzzle="pattern5_4", chains=4, pool=15, seed=31, chain_base=0,
         chunks=[[0, 50], [50, 160]], t0=0.3, tables=dict(segment_moves=lengths(17, 29), segment_growth=1,
                                                           segment_cost=EVERY_MOVE)),
    dict(id="tabu-pool-batch-replicas", move="tabu", puzzle="order3", batch=["order3_17", "order3_hard", "order3_17"],
         active=[1, 0, 1], bases=[0, 40, 80], chains=4, replicas=2, interval=7, pool=15, seed=32, chain_base=0,
         chunks=[[0, 45], [45, 120]], t0=1.0),
    dict(id="tabu-block-pool", move="tabu", puzzle="pattern4_3", threads_per_chain=8, chains=3, pool=12, seed=33,
         chain_base=0, chunks=[[0, 36], [36, 80]], t0=0.3),
    dict(id="swap-pool-order3", move="swap", puzzle="order3_17", chains=6, pool=25, seed=34, chain_base=0,
         chunks=[[0, 50], [50, 140]], t0=0.8),
    # replica exchange: groups of 4 rungs, exchanges every 7 moves, across chunk boundaries
    dict(id="swap-order3-replicas", move="swap", puzzle="order3_17", chains=8, replicas=4, interval=7, seed=12,
         chain_base=0, chunks=[[0, 50], [50, 130]], t0=1.5),
    dict(id="sirdey-order2-replicas", move="sirdey", puzzle="order2", chains=6, replicas=3, interval=5, seed=13,
         chain_base=3, chunks=[[0, 90]], t0=3.0),
    dict(id="bridge-hashi6-replicas", move="bridge", puzzle="hashi6", chains=4, replicas=2, interval=3, seed=14,
         chain_base=0, chunks=[[0, 60]], t0=2.0),
    # batches: several puzzles in one launch, one of them sitting still, each at its own chain base
    dict(id="swap-batch", move="swap", puzzle="order3", batch=["order3", "order3_17", "order3"], active=[1, 1, 0],
         bases=[0, 64, 128], chains=2, seed=15, chain_base=0, chunks=[[0, 70], [70, 160]], t0=1.0),
    dict(id="sirdey-batch-replicas", move="sirdey", puzzle="order3", batch=["order3_17", "order3"], active=[1, 1],
         bases=[10, 0], chains=4, replicas=2, interval=9, seed=16, chain_base=0, chunks=[[0, 100]], t0=1.0),
    dict(id="rect-batch", move="rect", puzzle="shikaku5", batch=["shikaku5", "shikaku5"], active=[0, 1],
         bases=[0, 3], chains=2, seed=17, chain_base=0, chunks=[[0, 60]], t0=1.0),
]

STATE_FIELDS = ("config", "counts", "cost", "accepted", "best_cost", "best_config", "best_move", "level",
                "exchanges", "memory")


def case_puzzle(case):
    if case["puzzle"] in GRIDS:
        kind, grid = GRIDS[case["puzzle"]]
        return shikaku.Shikaku(clues=grid) if kind == "shikaku" else hashi.Hashi(grid=grid)
    return sudoku.parse(PUZZLES[case["puzzle"]])[0]


def anneal_grid(name, backend, *, chains=16, moves=300, t0=1.0, seed=5):
    """(puzzle, result with every chain's state) of a short run on grid ``name`` of GRIDS, through the public
    API: ten plateaus of a geometric law from ``t0`` to 0.2, no early stop."""
    puzzle = case_puzzle({"puzzle": name})
    move = puzzle.move()
    law = schedule.geometric(t0=t0, t_end=0.2, plateaus=10, plateau_length=move.plateau_length)
    result = runner.anneal(puzzle, backend=backend, chains=chains, seed=seed, schedule=law, max_moves=moves,
                           early_stop=False, keep_state=True)
    return puzzle, result


def case_move(case):
    """The case's move: one puzzle, or the stacked tables of ``case["batch"]`` (puzzle ids); ``case["tables"]``
    overrides shared integers of the tables (short segments of move tabu)."""
    moves = [_puzzle_named(name).move(case["move"], propagate=case.get("propagate", False))
             for name in case.get("batch", [case["puzzle"]])]
    move = stack_moves(moves)
    if "tables" in case:
        move = dataclasses.replace(move, tables=move.tables._replace(**case["tables"]))
    return move


def _puzzle_named(name):
    return case_puzzle({"puzzle": name})


def run_case(backend, case):
    """Init and advance the case's chains on ``backend``; every state array, on the host."""
    move, law, chains, state = start_case(backend, case)
    for begin, end in case["chunks"]:
        backend.advance(state, move, chains, chunk_of(law, move, begin, end, case.get("interval"), case.get("pool")))
    host = backend.to_host(state)
    return {name: np.asarray(getattr(host, name)) for name in STATE_FIELDS}


def start_case(backend, case):
    """The case's move, temperature law and chains, and its state on ``backend`` after init."""
    move = case_move(case)
    length = move.plateau_length // 4 or 1
    replicas = case.get("replicas", 1)
    if replicas > 1:
        law = schedule.ladder(t_low=0.05, t_high=case["t0"], replicas=replicas, plateaus=40, plateau_length=length)
    else:
        law = schedule.geometric(t0=case["t0"], t_end=0.05, plateaus=40, plateau_length=length)
    puzzles = len(case.get("batch", [case["puzzle"]]))
    state = backend.allocate(move, case["chains"] * puzzles)
    chains = batch_chains(case["seed"], case["chains"], case.get("bases", [case["chain_base"]]),
                          case.get("active", [1] * puzzles), replicas)
    backend.init(state, move, chains)
    return move, law, chains, state


def batch_chains(seed, rows, bases, active, replicas=1):
    """``rows`` chains per puzzle, puzzle p's first chain index ``bases[p]``, puzzles with active 0 still."""
    key0, key1 = rng.split_seed(seed)
    return Chains(per_puzzle=np.int64(rows), bases=np.array(bases, dtype=np.int64),
                  active=np.array(active, dtype=np.uint8), key0=key0, key1=key1, replicas=np.int64(replicas))


def chunk_of(law, move, begin, end, interval=None, pool_interval=None):
    """The launch arguments of moves [begin, end) under ``law`` (a ladder exchanges every ``interval``; the chains'
    elite pool has a round every ``pool_interval`` moves, None: no pool)."""
    length = law.plateau_length
    first, stop = begin // length, max(end - 1, begin) // length + 1
    ladder = law.levels > 1
    return Chunk(move_begin=np.int64(begin), move_end=np.int64(end), plateau_begin=np.int64(first),
                 plateau_length=np.int64(length), thresholds=law.acceptance_rows(first, stop, move.max_delta),
                 exchange_interval=np.int64(interval) if ladder else NO_EXCHANGE,
                 exchange_table=exchange_table(law.rungs()) if ladder else np.zeros((1, 1), dtype=np.uint32),
                 pool_interval=NO_POOL if pool_interval is None else np.int64(pool_interval))


def backend_named(name, case=None):
    """The backend ``name`` for ``case``: the cuda backend in the case's layout (``threads_per_chain``, default the
    one-thread kernel: the simulator runs a block per chain far slower), the others as they are."""
    if name == "cuda":
        return backends.CudaBackend(threads_per_chain=(case or {}).get("threads_per_chain", 1))
    return {"numpy": backends.NumpyBackend, "cpu": backends.CpuBackend}[name]()
