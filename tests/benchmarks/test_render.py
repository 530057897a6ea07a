"""bench/render.py: the performance page and the README's headline, rendered from the records.

The repository's own page and headline must be what its records render (the check CI runs); the renderer itself
is checked on a small folder of made-up records."""
import json
import re
import sys

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import render  # noqa: E402  (bench/ is not a package)


def test_the_repository_page_and_headline_are_what_the_records_render(capsys):
    status = render.main(["--check"])
    assert status == 0, capsys.readouterr().err + "\nrun: python bench/render.py"


def test_every_record_in_the_repository_is_whole():
    records = render.load(render.RESULTS)
    assert records, "bench/results holds no record"
    for record in records:
        assert record["source"] == "measured" or record["source"].startswith("transcribed from bench/RESULTS.md at ")
        assert record["path"].startswith(record["script"] + "/")
        assert (ROOT / "bench" / f"{record['script']}.py").exists(), record["path"]
        assert record["columns"] and all(set(row) <= set(record["columns"]) for row in record["rows"]), record["path"]
        # a run's own record: when it ran, to the second (UTC); a transcribed one: the day its notes give
        when = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ" if record["source"] == "measured" else r"\d{4}-\d\d-\d\d"
        assert re.fullmatch(when, record["date"]), record["path"]
        assert "hostname" not in json.dumps(record["device"]), record["path"]


def _record(script, date, rows, *, device=None, command=None, tables=None, settings=None, **extra):
    return {"script": script, "title": f"{script} title", "date": date, "commit": "abc1234", "dirty": False,
            "device": device or {"cpu": "AMD EPYC", "cores": 2, "gpu": None},
            "command": command or f"python bench/{script}.py", "environment": {"python": "3.11"},
            "settings": settings or {}, "columns": list(rows[0]) if rows else [], "rows": rows,
            **({"tables": tables} if tables else {}), "source": "measured", **extra}


H200 = {"cpu": "Intel Xeon", "cores": 16, "gpu": {"name": "NVIDIA H200", "memory": "139.8 GiB"}}
GPU_TABLES = [
    {"name": "throughput", "columns": ["grid", "move", "backend", "chains", "proposals/s", "x cpu"], "rows": [
        {"grid": "9x9", "move": "swap", "backend": "cuda", "chains": 16384, "proposals/s": 5.29e9, "x cpu": 30.1},
        {"grid": "9x9", "move": "swap", "backend": "cuda", "chains": 65536, "proposals/s": 1.23e10, "x cpu": 69.9},
        {"grid": "9x9", "move": "swap", "backend": "cpu", "chains": 256, "proposals/s": 1.29e8, "x cpu": "-"}]},
    {"name": "tts", "columns": ["set", "cuda TTS99 s", "cuda solved", "cpu/cuda"], "rows": [
        {"set": "forum_hardest_sample", "cuda TTS99 s": 0.0155, "cuda solved": "5/5", "cpu/cuda": 21.9},
        {"set": "forum_hardest_sample", "cuda TTS99 s": 0.0229, "cuda solved": "5/5", "cpu/cuda": 20.8}]}]
LARGE_ROWS = [
    {"size": "49x49", "givens %": 50, "method": "anneal", "solved": "10/10", "median solve s": 5.7},
    {"size": "49x49", "givens %": 50, "method": "sudoku-ls", "solved": "7/10", "median solve s": 11.4},
    {"size": "49x49", "givens %": 40, "method": "exact", "solved": "10/10", "median solve s": 1.86},
    {"size": "49x49", "givens %": 40, "method": "cadical", "solved": "10/10", "median solve s": 11.9}]


@pytest.fixture
def results(tmp_path):
    """A folder of records: two runs of one command (the later kept), one on another device, the headline's."""
    records = {
        "throughput/a.json": _record("throughput", "2026-11-20T10:00:00Z", [{"grid": "9x9", "proposals/s": 1.0e8}]),
        "throughput/b.json": _record("throughput", "2026-11-21T10:00:00Z", [{"grid": "9x9", "proposals/s": 2.5e8}]),
        "throughput/c.json": _record("throughput", "2026-11-19T10:00:00Z", [{"grid": "9x9", "proposals/s": 1.23e10}],
                                     device=H200),
        "gpu/d.json": _record("gpu", "2026-11-27T10:00:00Z", [{"stage": "env", "status": "done"}], device=H200,
                              command="bench/gpu.sh --quick", tables=GPU_TABLES),
        "large/e.json": _record("large", "2026-11-24T10:00:00Z", LARGE_ROWS, settings={"budget": 60},
                                source="transcribed from bench/RESULTS.md at 560e864", notes=["a note"]),
        "large/f.json": _record("large", "2026-11-25T10:00:00Z", LARGE_ROWS[:1], command="python bench/large.py -x"),
        "exact/g.json": _record("exact", "2026-12-05T10:00:00Z", [{"set": "top1465", "numba median /s": 37334.2}]),
    }
    for name, record in records.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(json.dumps(record))
    return tmp_path


def test_the_page_shows_the_latest_record_per_device_and_command(results):
    text = render.page(render.load(results))
    section = text.split("\n## throughput\n")[1].split("\n## ")[0]
    assert "2.5e+08" in section and "1e+08" not in section  # the later run of the same command on the same machine
    assert "1.23e+10" in section and "NVIDIA H200 (16 cores of an Intel Xeon beside it)" in section
    assert "| 2026-11-21 | AMD EPYC, 2 cores | `python bench/throughput.py` | measured |" in section
    assert "abc1234" not in text  # the version is the record's, not the page's: no commit hash in the manual
    large = text.split("\n## large\n")[1].split("\n## ")[0]
    assert large.count("### large title") == 2 and "| `python bench/large.py` | transcribed |" in large
    assert "- a note" in large
    assert "`bench/throughput.py`: Proposals per second of every available backend" in text
    assert text.index("## gpu") < text.index("## throughput") < text.index("## large")  # the page's order
    assert render.page(render.load(results)) == text  # nothing but the records decides it


def test_the_headline_takes_each_figure_with_its_peer_from_one_record(results):
    lines = render.headline(render.load(results))
    assert lines[:2] == ["| what | gpu-sa | beside it | date | device |", "|---|---|---|---|---|"]
    assert lines[2:] == [
        "| 9x9 annealing, proposals per second (move `swap`, 65,536 chains) | 1.23e10 | 70x the same machine's 16 CPU "
        "cores | 2026-11-27 | NVIDIA H200 |",
        "| 9x9, time until 99 % of runs solve, 5 of the hardest known puzzles | 0.0155 s | 22x sooner than the 16 CPU "
        "cores | 2026-11-27 | NVIDIA H200 |",
        "| 49x49 at 50 % givens, local search, 10 puzzles, 60 s each | 10 solved | Sudoku-LS: 7 | 2026-11-24 | "
        "2-core AMD EPYC |",
        "| 49x49 at 40 % givens, complete search, 10 puzzles, median | 1.86 s | CaDiCaL: 11.9 s | 2026-11-24 | "
        "2-core AMD EPYC |",
        "| 9x9 top1465 set, counting solutions to 2, puzzles per second | 37,334 | — | 2026-12-05 | one core of a "
        "2-core AMD EPYC |"]  # the later large record has no peer: the earlier one, which has both, is shown


def test_check_says_what_is_stale_and_render_writes_it(results, tmp_path, capsys):
    page, readme = tmp_path / "performance.md", tmp_path / "README.md"
    readme.write_text("# title\n\n<!-- headline:begin -->\nold\n<!-- headline:end -->\n\nrest\n")
    options = ["--results", str(results), "--page", str(page), "--readme", str(readme)]
    assert render.main(options + ["--check"]) == 1
    err = capsys.readouterr().err
    assert "performance.md differs" in err and "README.md differs" in err and not page.exists()
    assert render.main(options) == 0 and render.main(options + ["--check"]) == 0
    text = readme.read_text()
    assert text.startswith("# title\n\n<!-- headline:begin -->\n| what | gpu-sa |") and text.endswith("\n\nrest\n")
    assert "old" not in text and text.count("<!-- headline:") == 2
    # a new record changes what renders
    (results / "exact" / "h.json").write_text(json.dumps(
        _record("exact", "2026-12-06T10:00:00Z", [{"set": "top1465", "numba median /s": 40000.0}])))
    assert render.main(options + ["--check"]) == 1


def test_a_readme_without_markers_is_left_alone(results, tmp_path, capsys):
    page, readme = tmp_path / "performance.md", tmp_path / "README.md"
    readme.write_text("# no markers\n")
    assert render.main(["--results", str(results), "--page", str(page), "--readme", str(readme)]) == 0
    assert readme.read_text() == "# no markers\n" and page.exists()
    assert "no <!-- headline:begin -->" in capsys.readouterr().err
    assert render.main(["--results", str(results), "--page", str(page), "--readme", str(readme), "--check"]) == 0


def test_a_file_that_is_not_a_record_is_named(results, tmp_path, capsys):
    (results / "throughput" / "bad.json").write_text(json.dumps({"script": "throughput"}))
    assert render.main(["--results", str(results), "--page", str(tmp_path / "p.md"), "--check"]) == 2
    assert "bad.json: not a benchmark record (missing date" in capsys.readouterr().err
