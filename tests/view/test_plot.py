"""gpu-sa plot: the README's pictures are drawn from a real trace and a real TTS table, by this code.

The trace in docs/ is regenerated here (same seed, same chunking: every field but the timings
must match), and both pictures are redrawn from the files in docs/ and compared with the PNGs
checked in beside them. GPU_SA_UPDATE_DOCS=1 rewrites docs/ instead of comparing.
"""
import argparse
import importlib.util
import os
import shutil
import sys

import pytest

import gpu_sa
from conftest import ROOT
from gpu_sa.cli.commands import plot as plot_command_module
from gpu_sa.view import plot
from gpu_sa.engine import trace

DOCS = ROOT / "docs"
UPDATE = os.environ.get("GPU_SA_UPDATE_DOCS") == "1"
TIMINGS = ("seconds", "proposals_per_second")
# The README's trace: the 16x16 Lloyd & Amos instance of tests/data, the default schedule and move, fixed chunks,
# no propagation (with it the run ends within a few chunks, a picture with little to show).
TRACE_PUZZLE = (ROOT / "tests" / "data" / "sudoku16_45pct.txt").read_text()
TRACE_RUN = dict(backend="cpu", chains=32, seed=1, chunk_moves=256 * 8, propagate=False)
TRACE_TITLE = "sudoku16_45pct: move swap, 32 chains on cpu, seed 1, no propagation"

needs_matplotlib = pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None,
                                      reason="matplotlib is not installed (the [plot] extra)")


def plot_command(*argv):
    parser = argparse.ArgumentParser(prog="gpu-sa plot", description=plot_command_module.DESCRIPTION)
    plot_command_module.add_arguments(parser)
    return plot_command_module.run(parser.parse_args([str(a) for a in argv]))


def assert_same_picture(expected, actual):
    from matplotlib.testing.compare import compare_images

    if UPDATE:
        shutil.copyfile(actual, expected)
    assert compare_images(str(expected), str(actual), tol=1) is None, f"{actual} differs from {expected}"


def test_the_docs_trace_is_what_the_run_writes(tmp_path):
    puzzle = gpu_sa.parse(TRACE_PUZZLE, "sudoku16_45pct")[0]
    path = tmp_path / "trace.jsonl"
    with trace.TraceWriter(path) as writer:
        result = gpu_sa.anneal(puzzle, progress=writer.recorder(puzzle.label), **TRACE_RUN)
    assert result.solved
    if UPDATE:
        shutil.copyfile(path, DOCS / "trace.jsonl")
    strip = lambda records: [{k: v for k, v in r.items() if k not in TIMINGS} for r in records]  # noqa: E731
    assert strip(trace.read(path)) == strip(trace.read(DOCS / "trace.jsonl"))


@needs_matplotlib
def test_trace_picture(tmp_path):
    out = tmp_path / "trace.png"
    assert plot_command(DOCS / "trace.jsonl", "-o", out, "--title", TRACE_TITLE) == 0
    assert_same_picture(DOCS / "plot_trace.png", out)


@needs_matplotlib
def test_tts_picture(tmp_path):
    out = tmp_path / "tts.png"
    assert plot_command(DOCS / "tts_seed.txt", "-o", out, "--title", "bench/tts.py --set seed (256 chains on cpu)") == 0
    assert_same_picture(DOCS / "plot_tts.png", out)


@needs_matplotlib
def test_svg_is_reproducible_and_csv_traces_plot(tmp_path):
    records = trace.read(DOCS / "trace.jsonl")
    csv_path = tmp_path / "trace.csv"
    with trace.TraceWriter(csv_path) as writer:
        for record in records:
            writer.write(record.pop("puzzle"), record)
    first, second = tmp_path / "a.svg", tmp_path / "b.svg"
    assert plot_command(csv_path, "-o", first) == 0
    assert plot_command(DOCS / "trace.jsonl", "-o", second, "--title", "trace.csv") == 0
    assert first.read_bytes() == second.read_bytes()
    assert first.read_text().lstrip().startswith("<?xml")


def test_restarts_continue_the_moves_axis():
    records = [{"trial": 1, "moves": 100}, {"trial": 1, "moves": 200}, {"trial": 2, "moves": 100},
               {"trial": 2, "moves": 150}, {"trial": 3, "moves": 50}]
    assert plot.run_moves(records) == [100, 200, 300, 350, 400]


@needs_matplotlib
def test_several_puzzles_and_trials_and_a_choice_of_puzzle(tmp_path, capsys):
    path = tmp_path / "two.jsonl"
    with trace.TraceWriter(path) as writer:
        for label in ("a:1", "a:2"):
            for trial in (1, 2):
                for step in range(1, 4):
                    writer.write(label, {"trial": trial, "moves": 81 * step, "seconds": 0.1 * step,
                                         "temperature": 0.5 / step, "best_cost": 4 - step, "mean_cost": 9.0 - step,
                                         "acceptance": 0.3 / step})
    assert plot_command(path, "-o", tmp_path / "both.png") == 0
    assert "12 trace records (2 puzzles)" in capsys.readouterr().err
    assert plot_command(path, "-o", tmp_path / "one.png", "--puzzle", "a:2") == 0
    assert "6 trace records (1 puzzle)" in capsys.readouterr().err


@needs_matplotlib
def test_a_batched_run_s_trace_draws_one_puzzle_by_its_label(tmp_path, capsys):
    """Puzzles sharing the launches give each chunk a record per puzzle (``recorder`` with their labels): --puzzle
    picks one; a label the file lacks is one line that lists those it holds."""
    from gpu_sa.engine import runner

    puzzles = gpu_sa.parse((ROOT / "examples" / "sudoku_9x9_hard.txt").read_text(), "hard")
    labels = [puzzle.label for puzzle in puzzles]
    path = tmp_path / "batch.jsonl"
    with trace.TraceWriter(path) as writer:
        list(runner.anneal_many(puzzles, backend="numpy", batch=3, chains=8, seed=1, max_moves=243, trials=1,
                                propagate=False, progress=writer.recorder(labels)))
    held = [r for r in trace.read(path) if r["puzzle"] == labels[0]]
    assert held and all(r["moves"] for r in held)
    assert plot_command(path, "-o", tmp_path / "first.png", "--puzzle", labels[0]) == 0
    assert f"drew {len(held)} trace records (1 puzzle)" in capsys.readouterr().err
    assert plot_command(path, "-o", tmp_path / "none.png", "--puzzle", "hard:7") == 2
    assert one_line_error(capsys) == f"gpu-sa: error: no record of hard:7; the file holds {', '.join(labels)}\n"


def one_line_error(capsys):
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("gpu-sa: error: "), err
    return err


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    assert plot_command(tmp_path / "missing.jsonl", "-o", tmp_path / "x.png") == 2
    assert "missing.jsonl: No such file or directory" in one_line_error(capsys)
    assert plot_command(DOCS / "trace.jsonl", "-o", tmp_path / "x.gif") == 2
    assert "must end in .png, .svg or .pdf" in one_line_error(capsys)
    assert plot_command(DOCS / "trace.jsonl", "-o", tmp_path / "x.png", "--kind", "tts") == 2
    assert "no JSON line of 'bench/tts.py --json'" in one_line_error(capsys)
    assert plot_command(DOCS / "trace.jsonl", "-o", tmp_path / "x.png", "--puzzle", "nope:1") == 2
    assert "no record of nope:1; the file holds sudoku16_45pct:1" in one_line_error(capsys)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert plot_command(empty, "-o", tmp_path / "x.png") == 2
    assert "empty.jsonl: no records" in one_line_error(capsys)
    odd = tmp_path / "odd.csv"
    odd.write_text("puzzle,trial,moves,temperature,best_cost\na:1,1,81,0.5,3\na:1,1,162,hot,2\n")
    assert plot_command(odd, "-o", tmp_path / "x.png") == 2
    assert "odd.csv: record 2 has 'hot' as its temperature, not a number" in one_line_error(capsys)
    assert not (tmp_path / "x.png").exists()


def test_without_matplotlib_one_line_names_the_extra(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    assert plot_command(DOCS / "trace.jsonl", "-o", tmp_path / "x.png") == 2
    assert one_line_error(capsys) == "gpu-sa: error: gpu-sa plot needs matplotlib: pip install 'gpu-sa[plot]'\n"
