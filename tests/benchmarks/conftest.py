"""The benchmarks' records, during the tests: never in the repository.

Every benchmark writes a record of its run (bench/common.py, ``write_record``) to bench/results/ unless told
otherwise. The tests here pass ``--results`` with a temporary folder; the benchmarks the session starts in the
background (tests/conftest.py: bench/gpu.sh --smoke, bench/sass.py) are told by $GPU_SA_BENCH_RESULTS, set here,
at collection, before they start, to ``BACKGROUND_RECORDS``, a folder removed when the session ends.
"""
import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

BACKGROUND_RECORDS = Path(tempfile.mkdtemp(prefix="gpu-sa-bench-records-"))
os.environ["GPU_SA_BENCH_RESULTS"] = str(BACKGROUND_RECORDS)
atexit.register(shutil.rmtree, BACKGROUND_RECORDS, ignore_errors=True)


@pytest.fixture
def background_records():
    """The folder of the records written by the benchmarks the session runs in the background."""
    return BACKGROUND_RECORDS
