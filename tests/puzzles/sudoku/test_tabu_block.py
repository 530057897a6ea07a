"""Move tabu's cooperative layout (``gpu_sa.puzzles.sudoku.moves.tabu_block``): its shared-memory layout, and that
its bit-exact cases (``chain_cases.CASES``, ids ``tabu-block-*``, compared with the NumPy twin by test_tabu.py on
every backend, the simulated kernel included) go through what they are meant to cover."""
import numpy as np
import pytest

from chain_cases import CASES, backend_named, chunk_of, start_case
from gpu_sa.puzzles.sudoku.moves import tabu, tabu_block

BLOCK_CASES = [case for case in CASES if case.get("threads_per_chain", 1) > 1]


def test_the_shared_memory_layout_adds_up():
    """Offsets in 32-bit words, then 16-bit cell words, as the module docstring draws them: 49x49 and 64x64 fit in
    the 48 KiB a block takes without opting in, 121x121 too, with room for several chains per SM."""
    for side in (16, 25, 49, 64, 121):
        hist, conflicting, flags, boxes, words = tabu_block.layout(side)
        bitmap = -(-side * side // 32)
        assert hist == tabu_block.HIST_WORD and conflicting == hist + tabu_block.BATCH * side
        assert flags == conflicting + bitmap and boxes == flags + bitmap and words == 2 * (boxes + side)
        assert tabu_block.shared_bytes(side) == 2 * words + 2 * side * side
        assert tabu_block.fits(side)
    assert tabu_block.shared_bytes(49) == 7238 and tabu_block.shared_bytes(64) == 11584
    assert tabu_block.shared_bytes(121) < tabu_block.MAX_SHARED_BYTES < tabu_block.shared_bytes(150)


def test_the_cases_cover_the_layouts_offered():
    """A case at a whole warp (the offered sizes are multiples of 32), the others at 8 threads (the simulator runs a
    thread per Python thread); 16x16 to 36x36; a batch with replica exchanges; segments."""
    assert {case["threads_per_chain"] for case in BLOCK_CASES} >= {8, 32}
    assert 32 in tabu_block.THREADS and all(t % 32 == 0 for t in tabu_block.THREADS)
    assert {"pattern4_3", "pattern5_4", "pattern6_5"} <= {case["puzzle"] for case in BLOCK_CASES}
    assert any(case.get("replicas", 1) > 1 and 0 in case.get("active", []) for case in BLOCK_CASES)
    assert any("segment_moves" in case.get("tables", {}) for case in BLOCK_CASES)


@pytest.mark.parametrize("case", [c for c in BLOCK_CASES if c["id"] in ("tabu-block-order4-best-moves",
                                                                        "tabu-block-order5-segments")],
                         ids=lambda c: c["id"])
def test_best_move_mode_and_segment_returns_are_reached(case):
    """Move by move on the twin: chains spend moves in best-move mode (the block's one-pass scan over every
    conflicting cell), and in the segments case they go back to their snapshots (the block's recount of gamma)."""
    backend = backend_named("numpy")
    move, law, chains, state = start_case(backend, case)
    in_best_mode = returns = 0
    for begin, end in case["chunks"]:
        for m in range(begin, end):
            left = state.memory[:, tabu.SEGMENT_LEFT].copy()
            backend.advance(state, move, chains, chunk_of(law, move, m, m + 1, case.get("interval")))
            in_best_mode += int((state.memory[:, tabu.BEST_MOVES_LEFT] > 0).sum())
            returns += int(((left == 1) & (state.memory[:, tabu.SEGMENT_LEFT] != 0)).sum())
    assert in_best_mode >= 20
    if "segment_moves" in case.get("tables", {}):
        assert returns >= 2
