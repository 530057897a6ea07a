"""bench/common.py's records: what a run writes, where, and what it leaves out (no numba, no benchmark run)."""
import json
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import common  # noqa: E402  (bench/ is not a package)

from .records import the_record  # noqa: E402

INFO = {"commit": "abc1234+dirty", "gpu_sa": "0.1.0", "python": "3.11.7", "numpy": "2.4.6", "numba": "0.68.1",
        "cpu": "AMD EPYC", "cores": 2, "numba_cuda": "0.30.4", "gpu": "none (no CUDA GPU or driver found)",
        "workers": "2 processes"}


def test_a_run_is_recorded_as_printed(tmp_path, capsys):
    """The header and the tables printed since it are the record's defaults: the first table its rows (numbers as
    numbers, text kept), the others its tables; the header's other entries its settings."""
    common.print_header("a benchmark", INFO)
    common.print_table(["grid", "chains", "rate", "solved", "x peer"], [["9x9", 1024, 1.5e9, "5/5", "12.5"],
                                                                       ["16x16", "2,048", float("inf"), "0/5", "-"]])
    common.print_table(["move", "seconds"], [["swap", 0.25]], name="per move")
    path = common.write_record("throughput", results=str(tmp_path), args=["--orders", "3", "--results", str(tmp_path),
                                                                          str(ROOT / "bench" / "data" / "x.txt")])
    assert path.parent == tmp_path / "throughput" and path.name.endswith("-abc1234-2-core-amd-epyc.json")
    assert "# record: " in capsys.readouterr().err
    record = the_record(tmp_path, "throughput")
    assert (record["title"], record["commit"], record["dirty"]) == ("a benchmark", "abc1234", True)
    assert record["device"] == {"cpu": "AMD EPYC", "cores": 2, "gpu": None}
    assert record["command"] == "python bench/throughput.py --orders 3 bench/data/x.txt"
    assert record["settings"] == {"workers": "2 processes"}
    assert record["columns"] == ["grid", "chains", "rate", "solved", "x peer"]
    assert record["rows"] == [{"grid": "9x9", "chains": 1024, "rate": 1.5e9, "solved": "5/5", "x peer": 12.5},
                              {"grid": "16x16", "chains": 2048, "rate": "inf", "solved": "0/5", "x peer": "-"}]
    assert record["tables"] == [{"name": "per move", "columns": ["move", "seconds"],
                                 "rows": [{"move": "swap", "seconds": 0.25}]}]
    assert json.loads(path.read_text()) == record  # the one-row-per-line layout is JSON


def test_two_runs_keep_a_file_each_and_a_rewrite_keeps_its_date(tmp_path):
    first = common.write_record("x", [{"a": 1}], info=INFO, results=str(tmp_path), args=[])
    second = common.write_record("x", [{"a": 2}], info=INFO, results=str(tmp_path), args=[])
    assert first != second and first.exists() and second.exists()
    date = json.loads(first.read_text())["date"]
    again = common.write_record("x", [{"a": 3}], info=INFO, results=str(tmp_path), args=[], path=first)
    assert again == first and json.loads(first.read_text())["rows"] == [{"a": 3}]
    assert json.loads(first.read_text())["date"] == date


def test_a_gpu_is_named_by_its_own_facts():
    info = {**INFO, "gpu": "NVIDIA H200", "gpu_memory": "139.8 GiB", "driver": "580.159.04", "cores": 16,
            "cpu": "Intel(R) Xeon(R) Platinum 8480+"}
    device = common.device_of(info)
    assert device["gpu"] == {"name": "NVIDIA H200", "memory": "139.8 GiB", "driver": "580.159.04"}
    assert common.device_slug(device) == "nvidia-h200"
    assert common.device_of({**INFO, "gpu": "none: NUMBA_ENABLE_CUDASIM=1: simulator"})["gpu"] is None
    assert common.device_slug(common.device_of({**info, "gpu": "none"})) == "16-core-intel-xeon-platinum-8480"


def test_under_a_test_records_go_only_where_asked(tmp_path, monkeypatch):
    """The repository keeps records of measurements: under pytest (or on CI) the default folder is refused, a
    folder named by --results or $GPU_SA_BENCH_RESULTS is used, and '-' writes none."""
    monkeypatch.delenv(common.RESULTS_VARIABLE, raising=False)
    assert common.results_folder() is None  # PYTEST_CURRENT_TEST is set while this test runs
    assert common.write_record("x", [{"a": 1}], info=INFO, args=[]) is None
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    monkeypatch.delenv("CI", raising=False)
    assert common.results_folder() == ROOT / "bench" / "results"
    monkeypatch.setenv("CI", "true")
    assert common.results_folder() is None
    monkeypatch.setenv(common.RESULTS_VARIABLE, str(tmp_path))
    assert common.results_folder() == tmp_path and common.results_folder("-") is None
    assert common.results_folder(str(tmp_path / "given")) == tmp_path / "given"


def test_plain_values():
    import numpy as np

    assert [common.plain(v) for v in ("1,024", "-3", "2.50", "1.2e+09", "5/10", ">60", "12.3x", "")] == \
        [1024, -3, 2.5, 1.2e9, "5/10", ">60", "12.3x", ""]
    assert [common.plain(v) for v in (np.int64(7), np.float32(0.5), float("nan"), -float("inf"), True, None)] == \
        [7, 0.5, None, "-inf", True, None]
    assert common.plain(0.123456789) == 0.123457  # six significant digits
    assert common.plain({"a": (1, "2")}) == {"a": [1, 2]}
