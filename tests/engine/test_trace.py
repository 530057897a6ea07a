"""gpu_sa.engine.trace: what a run's progress callback gives is what the trace file reads back."""
import dataclasses
import json
import os
import subprocess
import sys

import pytest

import gpu_sa
from conftest import ROOT
from gpu_sa.engine import trace

EASY = "..237.9....75684.2.8..9....1...4.8..2.4...7.6..6.2...1....5..1.5.19326....3.862.."


@pytest.fixture(scope="module")
def progress_records():
    """Progress records of a short real run (numpy backend: no compilation), several chunks."""
    puzzle = gpu_sa.parse(EASY, "easy")[0]
    records = []
    gpu_sa.anneal(puzzle, backend="numpy", chains=8, seed=3, chunk_moves=81 * 4, max_moves=81 * 16,
                  early_stop=False, progress=records.append, propagate=False)
    assert len(records) == 4
    return records


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_records_read_back_as_written(tmp_path, progress_records, suffix):
    path = tmp_path / f"run{suffix}"
    with trace.TraceWriter(path) as writer:
        for record in progress_records:
            writer.write("easy:1", record)
    # tuples (the exchange rates) read back as lists, as JSON has them; the label stands for the puzzle's index
    expected = json.loads(json.dumps([{"puzzle": "easy:1", **{k: v for k, v in dataclasses.asdict(r).items()
                                                              if k != "index"}} for r in progress_records]))
    assert trace.read(path) == expected
    assert list(trace.read(path)[0])[:len(trace.FIELDS)] == list(trace.FIELDS)
    assert path.read_text().startswith("puzzle,trial,moves," if suffix == ".csv" else '{"puzzle": "easy:1", "trial": 1')


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_recorder_is_an_anneal_progress_callback_and_flushes_each_record(tmp_path, suffix):
    puzzle = gpu_sa.parse(EASY, "easy")[0]
    path = tmp_path / f"run{suffix}"
    seen = []
    with trace.TraceWriter(path) as writer:
        record = writer.recorder(puzzle.label)

        def progress(p):
            record(p)
            seen.append(len(trace.read(path)))  # read while the writer is still open

        gpu_sa.anneal(puzzle, backend="numpy", chains=8, seed=3, chunk_moves=81, max_moves=81 * 3,
                      early_stop=False, progress=progress, propagate=False)
    assert seen == [1, 2, 3]
    assert [r["moves"] for r in trace.read(path)] == [81, 162, 243]


def test_a_killed_run_keeps_its_trace(tmp_path):
    path = tmp_path / "killed.jsonl"
    script = (f"import gpu_sa, os\nfrom gpu_sa.engine import trace\np = gpu_sa.parse({EASY!r}, 'easy')[0]\n"
              f"w = trace.TraceWriter({str(path)!r})\n"
              "def progress(record):\n    w.write(p.label, record)\n    if record.moves >= 162: os._exit(9)\n"
              "gpu_sa.anneal(p, backend='numpy', chains=4, seed=1, chunk_moves=81, max_moves=810, "
              "early_stop=False, progress=progress, propagate=False)\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 9, done.stderr[-2000:]
    assert [r["moves"] for r in trace.read(path)] == [81, 162]


@dataclasses.dataclass(frozen=True)
class FutureProgress:
    """A Progress with a field the runner does not have yet (replica exchange rates)."""

    seconds: float
    moves: int
    best_cost: int
    temperature: float
    trial: int = 1
    exchange_rates: tuple = ()


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_extra_fields_pass_through(tmp_path, suffix):
    path = tmp_path / f"extra{suffix}"
    with trace.TraceWriter(path) as writer:
        writer.write("p:1", FutureProgress(0.5, 81, 3, float("inf"), exchange_rates=(0.25, 0.5)))
    (record,) = trace.read(path)
    assert record == {"puzzle": "p:1", "trial": 1, "moves": 81, "seconds": 0.5, "temperature": float("inf"),
                      "best_cost": 3, "exchange_rates": [0.25, 0.5]}


def test_an_existing_file_is_never_overwritten(tmp_path):
    path = tmp_path / "kept.jsonl"
    path.write_text("precious\n")
    with pytest.raises(trace.TraceError, match="exists; a trace is never overwritten"):
        trace.TraceWriter(path)
    assert path.read_text() == "precious\n"


def test_a_line_cut_short_at_the_end_is_dropped_elsewhere_an_error(tmp_path):
    path = tmp_path / "cut.jsonl"
    path.write_text('{"puzzle": "a", "moves": 1}\n{"puzzle": "a", "mo')
    assert trace.read(path) == [{"puzzle": "a", "moves": 1}]
    path.write_text('{"puzzle": "a", "moves": 1}\nnot json\n{"puzzle": "a", "moves": 2}\n')
    with pytest.raises(trace.TraceError, match=r"cut.jsonl:2: not a JSON object"):
        trace.read(path)
    csv_path = tmp_path / "cut.csv"
    csv_path.write_text("puzzle,moves,seconds\na,1,0.5\na,2")
    assert trace.read(csv_path) == [{"puzzle": "a", "moves": 1, "seconds": 0.5}]
    with pytest.raises(trace.TraceError, match="No such file or directory"):
        trace.read(tmp_path / "missing.jsonl")
    (tmp_path / "table.txt").write_text("a,b\n1,2\n")
    with pytest.raises(trace.TraceError, match="not a trace"):
        trace.read(tmp_path / "table.txt")
