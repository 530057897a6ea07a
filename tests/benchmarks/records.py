"""What every benchmark record holds (bench/common.py's format), checked by the tests that run a benchmark."""
import json
from pathlib import Path

RECORD_KEYS = {"script", "title", "date", "commit", "dirty", "device", "command", "environment", "settings", "columns",
               "rows", "source"}


def the_record(folder: Path, script: str) -> dict:
    """The one record of ``script`` under ``folder``, checked for the keys every record holds."""
    paths = sorted((Path(folder) / script).glob("*.json"))
    assert len(paths) == 1, f"{script}: {len(paths)} records in {folder}"
    record = json.loads(paths[0].read_text())
    assert RECORD_KEYS <= set(record), RECORD_KEYS - set(record)
    assert record["script"] == script and record["source"] == "measured"
    assert set(record["environment"]) == {"python", "numpy", "numba", "numba_cuda", "gpu_sa"}
    assert {"cpu", "cores", "gpu"} <= set(record["device"]) and record["device"]["cores"] >= 1
    assert record["date"].endswith("Z") and "T" in record["date"]
    assert record["command"].startswith(("python bench/", "bench/gpu.sh"))
    assert "--results" not in record["command"]
    assert all(isinstance(row, dict) for row in record["rows"])
    return record
