"""A newcomer's first hour (issue 24): nothing silent, nothing that says what did not happen.

Other items of the issue are tested where their code is tested: the README's commands in test_readme.py,
generation in test_generate.py and test_hashi_exact.py, kind detection in test_cli_puzzles.py, the import
cycle in test_layers.py, the web page in test_view_browser.py.
"""
import os
import subprocess
import sys
import time

import pytest

from conftest import ROOT

EASY = ROOT / "examples" / "seed_easy.txt"


def _start_up_seconds(environment) -> float:
    """How long this machine takes, now, for ``gpu-sa solve --help``: Python, numba and the command's parser, the
    start-up every run pays before its work (measured as a peer of the command in the same test)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "gpu_sa", "solve", "--help"], env=environment, check=True,
                   stdout=subprocess.DEVNULL, cwd=ROOT)
    return time.perf_counter() - start


def _first_stderr_lines(args, environment, until: str, timeout: float = 120.0):
    """(seconds from the start to each stderr line, lines) of ``gpu-sa ARGS`` until a line containing ``until``;
    the process is then killed (the compilation it announces is not waited for)."""
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "gpu_sa", *map(str, args)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, env=environment, cwd=ROOT)
    lines = []
    try:
        for line in process.stderr:
            lines.append((time.perf_counter() - start, line.rstrip("\n")))
            if until in line or time.perf_counter() - start > timeout:
                break
    finally:
        process.kill()
        process.wait()
    return lines


def _fresh_caches(tmp_path):
    environment = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(tmp_path / "numba"),
                       GPU_SA_CACHE_DIR=str(tmp_path / "kernels"))
    environment.pop("NUMBA_ENABLE_CUDASIM", None)
    return environment


def test_a_fresh_install_says_what_it_compiles_within_a_second(tmp_path):
    """The first solve after install sat 15 s with nothing on screen while numba compiled. With empty caches
    (numba's and the generated kernels'), the line naming what is compiled comes before the compilation, within
    a second of the command's start-up (Python, numba, the parser: 0.5-0.9 s on the shared 2-core machine)."""
    environment = _fresh_caches(tmp_path)
    start_up = _start_up_seconds(environment)
    lines = _first_stderr_lines(["solve", EASY, "--seed", "1"], environment, until="compiling")
    seconds, line = lines[-1]
    assert line == ("gpu-sa: compiling the complete search and the propagation rules for this machine, once (numba "
                    "keeps it in its cache): about 15 s"), lines
    assert seconds < start_up + 1.0, (seconds, start_up)


def test_a_fresh_install_says_so_before_compiling_the_annealer(tmp_path):
    """The first anneal sat 4.6 s in silence (a Hashiwokakero: no Sudoku propagation is compiled before)."""
    lines = _first_stderr_lines(["solve", ROOT / "examples" / "hashi_10x10.txt", "--kind", "hashi", "--seed", "1"],
                                _fresh_caches(tmp_path), until="compiling")
    assert lines[-1][1] == ("gpu-sa: compiling the annealer for this machine, once (numba keeps it in its cache): "
                            "5-10 s per move"), lines


def test_a_warm_install_announces_nothing(cli):
    status, out, err = cli("solve", EASY, "--seed", "1")
    assert status == 0 and "compiling" not in err


def test_a_long_search_says_what_it_is_doing(cli):
    """The default method on a 36x36 the search does not finish: a line after a second, naming the puzzle and
    the method, instead of silence until the time limit."""
    path = ROOT / "bench" / "data" / "sudoku36_45" / "inst36x36_45_0.txt"
    status, out, err = cli("solve", path, "--seed", "1", "--time-limit", "1.5")
    assert status == 1 and f"gpu-sa: {path}:1: auto (the complete search and annealing rounds in turns) for 1 s " \
                           "(Ctrl-C stops and reports)" in err.splitlines()
    status, out, err = cli("exact", path, "--time-limit", "1.5")
    assert status == 1 and f"gpu-sa: {path}:1: counting solutions for 1 s (Ctrl-C stops and reports)" in err
