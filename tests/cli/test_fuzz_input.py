"""Input fuzz test: hostile puzzle files never get a traceback, a wrong answer or an exit
status outside the documented set, every parser answers with puzzles or one line, and no "no solution"
check fires on a solvable puzzle. A fixed, small number of examples with a fixed seed here;
``bench/fuzz_input.py`` runs the same checks for longer (``GPU_SA_FUZZ_INPUT_EXAMPLES`` raises the count
here too). The command line's own fuzzing (options, signals) is ``tests/cli/test_fuzz.py``."""
import os
import random
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT, run_cli
from fuzz_inputs import (GOOD_TEXTS, SOLVE_OPTIONS, check_cli_in_process, check_parse, check_solution_records,
                         formats, hostile_texts)
from gpu_sa.puzzles import PUZZLES

EXAMPLES = int(os.environ.get("GPU_SA_FUZZ_INPUT_EXAMPLES", "120"))

def fixed(examples):
    """Hypothesis settings for CI: a fixed seed (derandomize), no example database, no deadline."""
    return settings(max_examples=examples, derandomize=True, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("kind", PUZZLES)
@fixed(EXAMPLES)
@given(data=st.data())
def test_reading_hostile_files(kind, data):
    text = data.draw(hostile_texts(kind), label="text")
    fmt = data.draw(formats(kind), label="format")
    assert check_parse(kind, text, fmt) == []


@pytest.mark.parametrize("kind", PUZZLES)
@fixed(max(4, EXAMPLES // 10))
@given(data=st.data())
def test_solving_hostile_files_in_process(kind, data):
    text = data.draw(hostile_texts(kind), label="text")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "fuzz.txt")
        with open(path, "w", encoding="utf-8", errors="surrogatepass") as handle:
            handle.write(text)
        assert check_cli_in_process(kind, path, text) == []


def _subprocess_cases():
    """Random bytes and cut-short good files, for real processes (each pays the interpreter's start)."""
    generator = random.Random(16)
    cases = []
    for kind in PUZZLES:
        cases.append((kind, bytes(generator.randrange(256) for _ in range(generator.randrange(1, 200)))))
        good = max(GOOD_TEXTS[kind], key=len).encode()
        cases.append((kind, good[:generator.randrange(1, len(good))]))
    return cases


@pytest.mark.parametrize("kind, data", _subprocess_cases(), ids=lambda value: value if isinstance(value, str) else "")
def test_solving_hostile_bytes_in_a_process(kind, data, tmp_path):
    path = tmp_path / "fuzz.txt"
    path.write_bytes(data)
    done = run_cli("solve", path, "--kind", kind, *SOLVE_OPTIONS)
    assert "Traceback" not in done.stderr and done.returncode in (0, 1, 2), done.stderr
    if done.returncode == 2:
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    text = data.decode("utf-8", errors="replace")
    assert check_solution_records(kind, text, done.stdout, str(path)) == []


def test_the_good_files_are_good():
    # the fuzz inputs start from these: each must read, or every mutation would test only errors
    for kind, texts in GOOD_TEXTS.items():
        for text in texts:
            assert PUZZLES[kind].parse(text), (kind, text)
    assert (ROOT / "tests" / "fuzz_inputs.py").exists()


@pytest.mark.parametrize("kind, text, fmt", [
    ("shikaku", "2\xa0 . . 4\n2\xa0 . . 4\n1 2 . .\n1 . . . ", "plain"),  # a clue with no rectangle (bench/fuzz_input.py)
    ("sudoku", ":", "acs"),  # an acs block of one line (bench/fuzz_input.py)
    ("shikaku", "4x3:2b4_1_2²1b2", "auto"),  # a superscript digit in a Tatham clue (bench/fuzz_input.py)
])
def test_cases_the_longer_run_found(kind, text, fmt):
    assert check_parse(kind, text, fmt) == []
