"""The command-line fuzz test (tests/cli/test_fuzz.py) with many more examples: cases tried, failures.

    python3 bench/fuzz.py --examples 500 --signals 20 [--results DIR]

Runs the same Hypothesis bodies as CI (random bytes, truncated and mutated files, random solve
options, signals at random moments), derandomised, with the example counts given here; prints
the environment header and one table. A failure prints Hypothesis's shrunk example above it. The run's record
goes to bench/results/fuzz/ (``--results``).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from common import ROOT, add_results_option, environment, print_header, print_table, write_record

TESTS = ("test_random_bytes", "test_truncated_and_mutated_files", "test_random_options",
         "test_signals_at_random_moments")


def _fuzz_module():
    """The fuzz test module as pytest imported it (its name depends on pytest's import mode)."""
    return next(module for name, module in list(sys.modules.items()) if name.rsplit(".", 1)[-1] == "test_fuzz")


class _Count:
    """A pytest plugin that records each test's outcome and the cases the fuzz module ran."""

    def __init__(self):
        self.rows = []
        self.started = 0.0

    def pytest_runtest_setup(self, item):
        self._before = _fuzz_module().cases["tried"]
        self.started = time.perf_counter()

    def pytest_runtest_logreport(self, report):
        if report.when == "call":
            tried = _fuzz_module().cases["tried"] - self._before
            self.rows.append([report.nodeid.split("::")[-1], tried, 0 if report.passed else 1,
                              time.perf_counter() - self.started])
        elif report.failed and self.rows:  # a failure in setup or teardown counts against that test
            self.rows[-1][2] = 1


def main(argv=None) -> int:
    import pytest

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=500, help="examples per in-process test (CI: 25)")
    parser.add_argument("--signals", type=int, default=20, help="examples of the signal test (CI: 3)")
    add_results_option(parser)
    args = parser.parse_args(argv)
    os.environ["GPU_SA_FUZZ_EXAMPLES"] = str(args.examples)
    os.environ["GPU_SA_FUZZ_SIGNALS"] = str(args.signals)
    info = {**environment(), "examples": args.examples, "signal examples": args.signals}
    print_header("gpu-sa command-line fuzzing (tests/cli/test_fuzz.py)", info)
    counter = _Count()
    status = pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:warnings",
                          str(ROOT / "tests" / "cli" / "test_fuzz.py"), "-k", " or ".join(TESTS)], plugins=[counter])
    print_table(["test", "cases tried", "failures", "seconds"], counter.rows)
    total = f"total: {sum(r[1] for r in counter.rows)} cases, {sum(r[2] for r in counter.rows)} failing tests"
    print(total)
    write_record("fuzz", notes=[total], info=info, results=args.results, args=argv,
                 title="gpu-sa command-line fuzzing (tests/cli/test_fuzz.py)")
    return int(status)


if __name__ == "__main__":
    sys.exit(main())
