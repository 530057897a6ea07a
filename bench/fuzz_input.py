"""The input fuzz test's longer run: hostile puzzle files through every parser and through
``gpu-sa solve``.

    python bench/fuzz_input.py [--examples 2000] [--solve-examples 200] [--kinds sudoku,shikaku,hashi]
                               [--seed S] [--show 5] [--results DIR]

Checks (``tests/fuzz_inputs.py`` describes the inputs and the checks):
  read     every kind's parser on mutated good files and random text: puzzles or one line of
           PuzzleError; every puzzle read writes back and reads again the same; contradiction()
           never raises, and on small puzzles the exact solver confirms each "no solution"
  solve    ``gpu-sa solve`` through ``cli.main`` (so an escaping exception is a traceback) on the
           same inputs: a documented exit status, one error line with 2, every printed solution valid

Random options and signals are ``bench/fuzz.py``'s (the command-line fuzz test). Prints one row per
check and kind: cases tried, failures, seconds; then the first failure of each kind. The examples are
drawn by Hypothesis from ``--seed`` (default: random, printed), no shrinking. The run's record goes to
bench/results/fuzz_input/ (``--results``).
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time

from common import ROOT, add_results_option, environment, print_header, print_table, write_record

sys.path.insert(0, str(ROOT / "tests"))

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from fuzz_inputs import check_cli_in_process, check_parse, formats, hostile_texts  # noqa: E402


def _settings(examples):
    """Hypothesis, generating only: a failure is counted, not shrunk."""
    return settings(max_examples=examples, database=None, deadline=None, phases=[Phase.generate],
                    suppress_health_check=list(HealthCheck))


def run_read(kind, examples, seed_value, failures):
    tried = [0]

    @seed(seed_value)
    @_settings(examples)
    @given(data=st.data())
    def case(data):
        text, fmt = data.draw(hostile_texts(kind)), data.draw(formats(kind))
        tried[0] += 1
        failures.extend((kind, "read", text, problem) for problem in check_parse(kind, text, fmt))

    case()
    return tried[0]


def run_solve(kind, examples, seed_value, failures):
    tried = [0]
    folder = tempfile.mkdtemp(prefix="gpu-sa-fuzz-")
    path = os.path.join(folder, "fuzz.txt")

    @seed(seed_value)
    @_settings(examples)
    @given(data=st.data())
    def case(data):
        text = data.draw(hostile_texts(kind))
        with open(path, "w", encoding="utf-8", errors="surrogatepass") as handle:
            handle.write(text)
        tried[0] += 1
        failures.extend((kind, "solve", text, problem) for problem in check_cli_in_process(kind, path, text))

    case()
    return tried[0]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=2000, help="read cases per kind")
    parser.add_argument("--solve-examples", type=int, default=200, help="solve cases per kind")
    parser.add_argument("--kinds", default="sudoku,shikaku,hashi")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--show", type=int, default=5, help="failures printed in full")
    add_results_option(parser)
    args = parser.parse_args(argv)
    seed_value = random.randrange(2 ** 32) if args.seed is None else args.seed
    info = environment()
    info["fuzz seed"] = seed_value
    print_header("fuzz: hostile puzzle files", info)
    rows, failures = [], []
    for kind in args.kinds.split(","):
        checks = [("read", lambda: run_read(kind, args.examples, seed_value, failures))]
        if args.solve_examples:
            checks.append(("solve", lambda: run_solve(kind, args.solve_examples, seed_value, failures)))
        for name, run in checks:
            before, start = len(failures), time.perf_counter()
            tried = run()
            rows.append([name, kind, tried, len(failures) - before, time.perf_counter() - start])
    print_table(["check", "kind", "cases", "failures", "seconds"], rows)
    write_record("fuzz_input", results=args.results, args=argv)
    kinds_of_failure = {}  # the first input of each (kind, check, error type)
    for kind, check, text, problem in failures:
        kinds_of_failure.setdefault((kind, check.split(" ")[0], problem.split(":")[0]), (check, text, problem))
    for (kind, _, _), (check, text, problem) in list(kinds_of_failure.items())[:args.show]:
        print(f"\n{kind} {check}: {problem}\n  input: {text[:200]!r}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
