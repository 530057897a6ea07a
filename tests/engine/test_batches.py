"""Batches of puzzles, replica exchange and propagation through the public API (cpu backend)."""
import dataclasses

import numpy as np
import pytest

import gpu_sa
from gpu_sa.engine import runner, schedule
from conftest import DATA, ROOT
from chain_cases import PUZZLES, batch_chains, case_move, chunk_of, backend_named

HARD = PUZZLES["order3_hard"]
SAMPLES = [line for line in (DATA / "sudoku_samples.txt").read_text().splitlines()
           if line and not line.startswith("#")]


def _key(result):
    return (result.index, result.solved, result.cost, result.chain, result.chain_moves, result.trials,
            tuple(result.best))


def test_a_batch_reports_what_each_puzzle_reports_alone():
    puzzles = [p for line in SAMPLES[:5] for p in gpu_sa.parse(line)]
    options = dict(backend="cpu", chains=8, seed=5, propagate=False, chunk_moves=4000, max_moves=20000, trials=3)
    alone = [_key(r) for r in runner.anneal_many(puzzles, batch=1, **options)]
    together = [_key(r) for r in runner.anneal_many(puzzles, batch=3, **options)]
    assert together == alone
    assert [k[0] for k in together] == list(range(len(puzzles)))  # input order
    assert any(k[5] > 1 for k in alone), "no puzzle needed a second trial: the refill path went untested"


def test_a_batch_reports_progress_per_puzzle_as_each_puzzle_alone():
    """Each chunk gives one record per running puzzle, of that puzzle's chains alone (``index``: its position in
    the input): a puzzle's records are those it gives alone, but for the clock. One record for the whole batch had
    the lowest best cost of whichever puzzles were left, which rose again when the best one left."""
    puzzles = [p for line in SAMPLES[:4] for p in gpu_sa.parse(line)]
    options = dict(backend="cpu", chains=8, replicas=2, seed=5, propagate=False, chunk_moves=1000, max_moves=4000,
                   trials=3)

    def records(batch):
        seen = []
        results = list(runner.anneal_many(puzzles, batch=batch, progress=seen.append, **options))
        per_puzzle = {}
        for record in seen:
            per_puzzle.setdefault(record.index, []).append(dataclasses.replace(record, seconds=0.0,
                                                                               proposals_per_second=0.0))
        return per_puzzle, results

    alone, results = records(1)
    together, _ = records(3)
    assert together == alone and sorted(together) == list(range(len(puzzles)))
    for index, chunks in together.items():
        assert chunks[-1].trial == results[index].trials and len(chunks[-1].exchange_rates) == 1
        for before, after in zip(chunks, chunks[1:]):
            assert after.trial > before.trial or after.best_cost <= before.best_cost
    assert any(chunks[-1].trial > 1 for chunks in together.values()), "no restart: the trial field went untested"


def test_a_stop_before_the_first_trial_leaves_nothing_to_report_and_says_so():
    """anneal() raises stop.Interrupted (a StopIteration once escaped it, and a caller's generator turned that into
    'RuntimeError: generator raised StopIteration'); anneal_many simply yields nothing."""
    from gpu_sa.engine import stop

    puzzle = gpu_sa.parse(HARD)[0]
    options = dict(backend="cpu", chains=4, seed=1, stop_when=lambda: True)
    assert list(runner.anneal_many([puzzle], **options)) == []
    with pytest.raises(stop.Interrupted, match="setting up the chains"):
        runner.anneal(puzzle, **options)


def test_building_the_move_is_timed_and_its_stand_in_is_built_once_per_specialization(monkeypatch):
    """Building a puzzle's move (its rules' root and tables) is solving work, in ``seconds``; the stand-in's move
    built first, once per specialization in the process, loads the machine code and is setup."""
    from gpu_sa.puzzles.sudoku import Sudoku

    monkeypatch.setattr(runner, "_warmed_moves", set())
    stand_ins = []
    real = Sudoku.stand_in
    monkeypatch.setattr(Sudoku, "stand_in", lambda self, *a: stand_ins.append(self) or real(self, *a))
    puzzle = gpu_sa.parse(HARD)[0]
    options = dict(move="tabu", backend="cpu", chains=2, seed=1, max_moves=50, trials=1)
    first, second = runner.anneal(puzzle, **options), runner.anneal(puzzle, **options)
    assert len(stand_ins) == 1  # the second run found the code loaded
    assert 0 < first.prepare_seconds <= first.seconds and 0 < second.prepare_seconds <= second.seconds
    runner.anneal(puzzle, **{**options, "move": "swap"})
    assert len(stand_ins) == 2  # another move: other code


def test_the_call_s_time_before_the_first_move_is_setup(monkeypatch):
    """seconds + setup_seconds cover the call's wall time: the runner's own set-up before its clock (checking the
    options, choosing the schedule, stacking tables) is setup. It was counted nowhere (0.15 ms a run at 36x36,
    which ``auto``, timing around the call, paid and ``--method anneal`` did not)."""
    import time

    real = runner.Options.schedule_of
    monkeypatch.setattr(runner.Options, "schedule_of", lambda self, move: time.sleep(0.3) or real(self, move))
    puzzle = gpu_sa.parse(HARD)[0]
    start = time.perf_counter()
    result = runner.anneal(puzzle, move="tabu", backend="numpy", chains=2, seed=1, max_moves=50, trials=1)
    wall = time.perf_counter() - start
    assert result.setup_seconds >= 0.3
    assert 0 <= wall - (result.seconds + result.setup_seconds) < 0.1  # only the result's own construction is left


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["numpy", "cpu"])
def test_a_puzzle_wider_than_the_batch_so_far_gets_a_wider_state(backend):
    """Move tabu's state widths follow the batch's most free cells: a puzzle taking a freed slot with more free
    cells than any before must get a state that wide (it once overran the old one: a wrong grid on cpu)."""
    puzzles = [p for line in SAMPLES[7:12] for p in gpu_sa.parse(line)]
    puzzles.sort(key=lambda p: int(np.count_nonzero(p.propagation[0] < 0)))
    widths = [int(np.count_nonzero(p.propagation[0] < 0)) for p in puzzles]
    assert widths[2] > max(widths[:2]), "the samples no longer grow in free cells: the wider refill goes untested"
    moves = 600
    if backend == "numpy":  # the plain reference is slow: the first wider refill (the third puzzle) is the case
        puzzles, moves = puzzles[:3], 300
    options = dict(backend=backend, move="tabu", chains=4, seed=3, chunk_moves=moves // 2, max_moves=moves, trials=2)
    alone = [_key(r) for r in runner.anneal_many(puzzles, batch=1, **options)]
    together = [_key(r) for r in runner.anneal_many(puzzles, batch=2, **options)]
    assert together == alone


def test_propagation_alone_solves_with_zero_moves():
    easy = gpu_sa.parse((ROOT / "examples" / "seed_easy.txt").read_text())[0]
    result = gpu_sa.anneal(easy, backend="cpu", chains=8, seed=1)
    assert result.solved and result.moves == 0 and result.stopped == "solved"


def test_swap_starts_within_candidates_and_mostly_keeps_to_them():
    """The initial fill respects the candidates (a matching exists on this puzzle); afterwards 1 proposal in 8
    ignores them (they can split a box's legal swaps into islands, see gpu_sa/puzzles/sudoku/swap.py), so the
    chains hold few digits outside them, and none once solved."""
    puzzle = gpu_sa.parse(HARD)[0]
    values, masks = puzzle.propagation
    free = values < 0
    options = dict(move="swap", backend="cpu", chains=8, seed=2, trials=1, early_stop=False, keep_state=True)
    start = gpu_sa.anneal(puzzle, max_moves=0, **options).state.config.astype(np.uint64)
    assert np.all((masks[None, :] >> start) & np.uint64(1)), "an initial cell holds a digit propagation ruled out"
    grids = gpu_sa.anneal(puzzle, max_moves=3000, **options).state.config.astype(np.uint64)
    outside = ~((masks[None, :] >> grids) & np.uint64(1)).astype(bool) & free[None, :]
    assert 0 < outside.sum() < 0.2 * free.sum() * grids.shape[0]


def test_restricted_path_with_full_candidates_is_the_plain_move():
    """The legal-partner path, fed every digit as a candidate, draws exactly the plain swap's partners."""
    case = dict(id="x", move="swap", puzzle="order3", chains=3, seed=7, chain_base=0, t0=1.0)
    move = case_move(case)
    forced = dataclasses.replace(move, tables=move.tables._replace(restricted=np.ones(1, dtype=np.uint8)))
    law = schedule.geometric(t0=1.0, t_end=0.05, plateaus=40, plateau_length=20)
    results = []
    for m in (move, forced):
        backend = backend_named("cpu")
        state = backend.allocate(m, 3)
        chains = batch_chains(7, 3, [0], [1])
        backend.init(state, m, chains)
        backend.advance(state, m, chains, chunk_of(law, m, 0, 300))
        results.append(state)
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_replica_exchange_reports_rates_and_solves():
    puzzle = gpu_sa.parse(HARD)[0]
    result = gpu_sa.anneal(puzzle, backend="cpu", chains=32, replicas=8, seed=3, time_limit=60)
    assert result.replicas == 8 and len(result.exchange_rates) == 7
    assert all(0.0 <= rate <= 1.0 for rate in result.exchange_rates) and max(result.exchange_rates) > 0
    assert result.solved


def test_a_constant_temperature_move_gets_a_ladder_above_its_temperature():
    """Move tabu's default is one temperature (0.15): --replicas without --t0/--t-end gets rungs from it up to
    4 times it (a ladder from 0.15 to 0.15 was refused: the default move from 25x25 could not use --replicas)."""
    move = gpu_sa.parse(HARD)[0].move("tabu")
    law = schedule.default_ladder(move, 4)
    assert (law.t_low, law.t_high, law.replicas) == (0.15, 0.6, 4)
    result = gpu_sa.anneal(gpu_sa.parse(HARD)[0], move="tabu", backend="cpu", chains=8, replicas=4, seed=3,
                           time_limit=60)
    assert result.solved and result.replicas == 4 and len(result.exchange_rates) == 3


def test_replicas_must_divide_the_chains():
    with pytest.raises(ValueError, match="multiple of the replicas"):
        gpu_sa.anneal(gpu_sa.parse(HARD)[0], backend="numpy", chains=10, replicas=4, seed=1)


class _DatasetStub(gpu_sa.engine.backends.NumpyBackend):
    """A backend whose dataset count differs from its single-puzzle count, as the cuda backend's does."""

    def default_chains(self, move):
        return 8

    def dataset_chains(self, move):
        return 4


def test_puzzles_that_share_launches_get_the_dataset_chain_count():
    puzzles = [p for line in SAMPLES[:3] for p in gpu_sa.parse(line)]
    options = dict(backend=_DatasetStub(), seed=5, propagate=False, max_moves=200, trials=1)
    assert [r.chains for r in runner.anneal_many(puzzles, **options)] == [4, 4, 4]
    assert [r.chains for r in runner.anneal_many(puzzles, batch=1, **options)] == [8, 8, 8]  # one at a time
    assert [r.chains for r in runner.anneal_many(puzzles[:1], **options)] == [8]  # a single puzzle
    assert [r.chains for r in runner.anneal_many(puzzles, chains=6, **options)] == [6, 6, 6]  # named: always


class _MaxRowsStub(gpu_sa.engine.backends.NumpyBackend):
    """A backend whose launches hold at most 8 rows, as the cuda backend's 32-bit strides bound them
    (``max_rows``); records the rows of every allocation."""

    def __init__(self):
        self.allocated = []

    def dataset_chains(self, move):
        return 4

    def max_rows(self, move):
        return 8

    def allocate(self, move, rows):
        self.allocated.append(rows)
        return super().allocate(move, rows)


def test_batches_stay_within_the_backends_rows():
    """Four times the default chain count would be 64 rows (16 puzzles of 4 chains): capped at 8, two puzzles a
    launch, with the answers of one puzzle at a time."""
    puzzles = [p for line in SAMPLES[:5] for p in gpu_sa.parse(line)]
    options = dict(seed=5, propagate=False, max_moves=200, trials=1, chains=4)
    stub = _MaxRowsStub()
    capped = list(runner.anneal_many(puzzles, backend=stub, **options))
    assert stub.allocated and max(stub.allocated) == 8
    alone = list(runner.anneal_many(puzzles, backend="numpy", batch=1, **options))
    assert [(r.cost, r.chain, r.chain_moves, r.best.tolist()) for r in capped] == \
        [(r.cost, r.chain, r.chain_moves, r.best.tolist()) for r in alone]


def test_on_chunk_gets_the_moves_of_every_progress_record_and_comes_before_stop_when():
    """``on_chunk`` (the portfolio's cheap per-chunk hook) sees each chunk's moves per chain, the same numbers the
    progress records carry, and is called before ``stop_when`` is asked about that chunk."""
    puzzle = gpu_sa.parse(HARD)[0]
    events = []
    result = runner.anneal(puzzle, backend="cpu", chains=4, seed=1, chunk_moves=500, max_moves=3000, trials=1,
                           early_stop=False, progress=lambda record: events.append(("progress", record.moves)),
                           on_chunk=lambda moves: events.append(("chunk", moves)),
                           stop_when=lambda: events.append(("stop_when", None)) or False)
    chunks = [moves for kind, moves in events if kind == "chunk"]
    assert chunks == [moves for kind, moves in events if kind == "progress"] == list(range(500, 3001, 500))
    assert result.moves == 3000
    for position, (kind, moves) in enumerate(events):
        if kind == "chunk" and moves < 3000:
            assert events[position + 1][0] == "stop_when"
