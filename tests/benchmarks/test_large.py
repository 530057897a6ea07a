"""bench/large.py: the peer's file format and output, the verdicts (an unverified "solved" is a failure),
the summary's medians and ratios, and the 36x36 instances it built. No numba process is started: the
end-to-end test runs a stand-in for the ant-colony binary that prints a recorded answer."""
import json
import math
import stat
import sys
from pathlib import Path

import pytest

from conftest import DATA, ROOT

sys.path.insert(0, str(ROOT / "bench"))
import large  # noqa: E402  (bench/ is not a package)
import peers  # noqa: E402

from gpu_sa.puzzles.sudoku.validate import sudoku_violations  # noqa: E402

from .records import the_record  # noqa: E402

INSTANCE = DATA / "sudoku16_45pct.txt"  # Lloyd & Amos inst16x16_45_0
ORIGINAL = DATA / "acs_inst16x16_45_0.txt"  # the same instance as sudoku_acs ships it (CRLF, tabs, -1)
PEER_ANSWER = DATA / "acs_verbose_16x16_45_0.txt"  # sudokusolver --verbose on it


def test_acs_text_is_the_original_format():
    givens = large.read_numbers(INSTANCE)
    assert peers.acs_text(givens).split() == ORIGINAL.read_text().split()


GIVENS = large.read_numbers(INSTANCE)


def test_read_peer_takes_the_printed_grid_and_time():
    claim = peers.read_acs(PEER_ANSWER.read_text(), GIVENS)
    assert claim.solved and claim.seconds == pytest.approx(0.001202)
    assert sudoku_violations(claim.grid, [list(r) for r in large.read_numbers(INSTANCE)]) == []


def test_read_peer_failure_and_garbage():
    assert peers.read_acs("failed in time 3.19453e-08\n", GIVENS) == large.Claim(False, None, None)  # an unset float
    flagged = peers.read_acs("solution not valid x.txt 0\nnumfixedCells 3\n...\nfailed in time 2\n", GIVENS)
    assert not flagged.solved and flagged.detail == {"peer_says_invalid": True}
    with pytest.raises(ValueError):
        peers.read_acs("Solution:\n 1 2 |\nsolved in 0.1\n", GIVENS)  # 2 values for 256 cells
    with pytest.raises(ValueError):
        peers.read_acs("", GIVENS)


def test_read_gpu_sa_json():
    grid = [[(r * 4 + r // 4 + c) % 16 + 1 for c in range(16)] for r in range(16)]
    text = "\n".join(" ".join(map(str, row)) for row in grid)
    line = json.dumps({"solved": True, "solution": text, "seconds": 1.5, "setup_seconds": 4.0, "stopped": "solved"})
    claim = large.read_gpu_sa("note\n" + line + "\n", 16, "solve")
    assert claim.solved and claim.grid == grid and claim.seconds == 1.5
    assert claim.detail == {"setup_seconds": 4.0, "stopped": "solved"}
    unsolved = large.read_gpu_sa(json.dumps({"solved": False, "solution": None, "seconds": 9.9}), 16, "solve")
    assert not unsolved.solved and unsolved.seconds == 9.9
    exact = large.read_gpu_sa(json.dumps({"solutions": 1, "solution": text, "seconds": 2e-4, "nodes": 7}), 16, "exact")
    assert exact.solved and exact.detail == {"nodes": 7}


def _fake_peer(tmp_path, name, stdout):
    """An executable that ignores its arguments and prints ``stdout``, as sudokusolver --verbose would."""
    path = tmp_path / name
    (tmp_path / f"{name}.out").write_text(stdout)
    path.write_text(f"#!{sys.executable}\nimport sys\nsys.stdout.write(open({str(tmp_path / (name + '.out'))!r}).read())\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.mark.parametrize("tamper, status", [(False, "solved"), (True, "invalid")], ids=["true-answer", "given-changed"])
def test_end_to_end_with_a_stand_in_peer(tmp_path, capsys, tamper, status):
    data = tmp_path / "data"
    data.mkdir()
    (data / "inst16x16_45_0.txt").write_text(INSTANCE.read_text())
    answer = PEER_ANSWER.read_text()
    if tamper:  # r1c5 is given 2: print 3 there, and swap the row's 3 to 2 so that the row stays a permutation
        lines = answer.splitlines()
        lines[1] = lines[1].replace("  2  15   3", "  3  15   2", 1)
        answer = "\n".join(lines) + "\n"
    peer = _fake_peer(tmp_path, "sudokusolver", answer)
    records = tmp_path / "runs.jsonl"
    argv = ["--data", str(data), "--sizes", "16", "--percentages", "45", "--methods", "", "--peer-acs", str(peer),
            "--budget", "5", "--no-warmup", "--json", "--records", str(records), "--results", str(tmp_path / "results")]
    assert large.main(argv) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # the run's record: the summary as printed (without --json), each run, the budget
    record = the_record(tmp_path / "results", "large")
    assert record["columns"][:4] == ["size", "givens %", "method", "solved"]
    assert record["rows"] == [{**record["rows"][0], "size": "16x16", "givens %": 45, "method": "acs",
                               "solved": "0/1" if tamper else "1/1"}]
    (runs,) = record["tables"]
    assert runs["name"] == "each run" and [(r["method"], r["status"]) for r in runs["rows"]] == [("acs", status)]
    assert record["settings"]["budget"] == 5 and record["command"].startswith("python bench/large.py --data ")
    (run,) = [line for line in lines if line.get("method") == "acs"]
    assert run["status"] == status and run["command"].endswith("--verbose")
    (summary,) = [line["summary"] for line in lines if "summary" in line]
    assert summary["solved"] == (0 if tamper else 1)
    if tamper:
        assert summary["median"] is None and summary["failures"] == {"invalid": 1}
        assert any("r1c5 is given 2" in v for v in run["violations"])
    # a second run reuses the recorded one instead of running the peer again
    peer.write_text(f"#!{sys.executable}\nraise SystemExit(3)\n")
    assert large.main(argv) == 0
    again = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["status"] for line in again if line.get("method") == "acs"] == [status]


def _record(percent, method, status, seconds, wall=None):
    return {"side": 25, "percent": percent, "method": method, "status": status, "seconds": seconds,
            "wall": seconds + 5 if wall is None else wall}


def test_summary_counts_failures_as_slower_than_the_budget():
    records = [_record(45, "default", "solved", 2.0), _record(45, "default", "unsolved", 60.0),
               _record(45, "default", "invalid", 1.0), _record(45, "acs", "solved", 0.5),
               _record(45, "acs", "solved", 1.0), _record(45, "acs", "solved", 3.0),
               _record(50, "default", "solved", 1.0), _record(50, "acs", "solved", 4.0)]
    rows = large.summarise(records, ["default", "acs"], budget=60)
    default45, acs45, default50, acs50 = rows
    assert (default45["solved"], default45["total"]) == (1, 3)
    assert default45["failures"] == {"unsolved": 1, "invalid": 1}
    assert math.isinf(default45["median"]) and default45["ratio"] is None
    assert acs45["median"] == 1.0 and acs45["ratio"] == 1.0
    assert default50["ratio"] == 0.25 and default50["ratio_wall"] == pytest.approx(6 / 9)
    assert large.losses(rows) == ["25x25 45 %: default solved 1/3, acs 3/3"]


def test_the_peer_is_left_out_above_30x30():
    peer = large.Method("acs", "peer")
    assert peer.runs_on(25) is None and "overflows" in peer.runs_on(36)
    assert large.Method("cadical", "peer").runs_on(49) is None


def test_the_36x36_instances_are_the_documented_ones():
    for index in (0, 19):
        path = ROOT / "bench" / "data" / "sudoku36_45" / f"inst36x36_45_{index}.txt"
        cells = [v for row in large.read_numbers(path) for v in row]
        empty = [cell for cell, v in enumerate(cells) if v == 0]
        assert len(cells) - len(empty) == math.ceil(0.45 * 36 * 36)
        assert empty == large.emptied_cells(36 * 36, 584, index, large.BUILD_36_SEED)


def test_methods_and_variants():
    args = large.parse_args(["--methods", "default,exact", "--extra-args", "--chains 64", "--exact-args",
                             "--max-nodes 1e9", "--variant", "hot=--t0 2"])
    methods = large.build_methods(args)
    assert [(m.name, m.options) for m in methods] == [("default", ("--chains", "64")),
                                                      ("exact", ("--max-nodes", "1e9")),
                                                      ("hot", ("--t0", "2", "--chains", "64"))]
    with pytest.raises(SystemExit):
        large.build_methods(large.parse_args(["--methods", "annealing"]))
    with pytest.raises(SystemExit):
        large.build_methods(large.parse_args(["--variant", "swap=--t0 1"]))


@pytest.mark.parametrize("side, percent, index", [(49, 40, 0), (49, 45, 3), (49, 50, 9)])
def test_the_49x49_instances_are_the_documented_ones(side, percent, index):
    built = large.BUILT[side]
    path = ROOT / "bench" / "data" / f"sudoku{side}_{percent}" / f"inst{side}x{side}_{percent}_{index}.txt"
    cells = [v for row in large.read_numbers(path) for v in row]
    keep = math.ceil(percent * side * side / 100)
    grid = built.percentages.index(percent) * built.count + index
    assert [cell for cell, v in enumerate(cells) if v == 0] == large.emptied_cells(side * side, keep, grid, built.seed)


@pytest.mark.slow
def test_a_build_says_its_commit_and_never_overwrites_other_grids(tmp_path):
    # a small set of the same kind (4x4 grids, two per percentage), built twice: the same files, then a changed
    # instance (as the checked-in sets are for a later generator) stops the build before it writes anything
    small = large.BuiltSet(order=2, percentages=(50, 75), count=2, seed=5)
    paths = large.build_set(small, tmp_path)
    assert [p.name for p in paths] == ["inst4x4_50_0.txt", "inst4x4_50_1.txt", "inst4x4_75_0.txt", "inst4x4_75_1.txt"]
    texts = {p: p.read_text() for p in paths}
    for p in paths:
        cells = [int(v) for v in p.read_text().split()]
        assert len(cells) == 16 and sum(v != 0 for v in cells) == (8 if "_50_" in p.name else 12)
    readme = (tmp_path / "sudoku4_50" / "README.md").read_text()
    assert f"Built at commit {large.checkout_commit()} by" in readme and "function of the seed and of the version" in readme
    assert large.build_set(small, tmp_path) == paths and {p: p.read_text() for p in paths} == texts
    paths[3].write_text(texts[paths[3]].replace("0", "9", 1))  # an empty cell filled
    changed = paths[3].read_text()
    paths[0].unlink()
    with pytest.raises(large.BuildClash, match="inst4x4_75_1.txt holds other grids .* built at 9fb8ee2"):
        large.build_set(small, tmp_path)
    assert not paths[0].exists() and paths[3].read_text() == changed  # nothing written


def test_the_checked_in_sets_name_the_commit_that_built_them():
    for side, built in large.BUILT.items():
        for percent in built.percentages:
            readme = (ROOT / "bench" / "data" / f"sudoku{side}_{percent}" / "README.md").read_text()
            assert f"Built at commit {built.built_at} by `python bench/large.py --build {side}`" in readme


def _solution_16():
    """The 16x16 instance's solution, as the recorded ant-colony answer gives it (validated)."""
    return peers.read_acs(PEER_ANSWER.read_text(), GIVENS).grid


def _satisfied(clauses, true_variables):
    return all(any((lit > 0) == (abs(lit) in true_variables) for lit in clause) for clause in clauses)


def test_the_cnf_holds_exactly_the_solutions():
    """Every clause of the CNF holds for the solution's variables, and a grid with two free cells swapped
    (a row still a permutation) breaks one: the encoding says what a Sudoku says, given the givens."""
    text = peers.cnf_text(GIVENS)
    header, *lines = text.splitlines()
    clauses = [[int(v) for v in line.split()[:-1]] for line in lines]
    assert header == f"p cnf {16 ** 3} {len(clauses)}" and all(line.endswith(" 0") for line in lines)
    solution = _solution_16()

    def model(grid):
        return {peers.variable(r * 16 + c, grid[r][c] - 1, 16) for r in range(16) for c in range(16) if not GIVENS[r][c]}

    assert _satisfied(clauses, model(solution))
    row = next(r for r in range(16) if sum(v == 0 for v in GIVENS[r]) >= 2)
    a, b = [c for c in range(16) if not GIVENS[row][c]][:2]
    swapped = [list(line) for line in solution]
    swapped[row][a], swapped[row][b] = swapped[row][b], swapped[row][a]
    assert not _satisfied(clauses, model(swapped))
    # the givens' digits are taken out first: no variable of a digit given in the cell's row
    given_in_row = {v - 1 for v in GIVENS[row] if v}
    assert not any(abs(lit) in {peers.variable(row * 16 + a, d, 16) for d in given_in_row} for c in clauses for lit in c)


def test_a_sat_model_is_read_back_into_the_grid():
    solution = _solution_16()
    true = [peers.variable(r * 16 + c, solution[r][c] - 1, 16) for r in range(16) for c in range(16)
            if not GIVENS[r][c]]
    # variables no clause holds (a given cell's, a digit given in a free cell's row) may come back true
    given = next(r * 16 + c for r in range(16) for c in range(16) if GIVENS[r][c])
    row, column = next((r, c) for r in range(16) for c in range(16) if not GIVENS[r][c])
    taken = next(v - 1 for v in GIVENS[row] if v)
    unused = [peers.variable(given, d, 16) for d in range(16)] + [peers.variable(row * 16 + column, taken, 16)]
    stdout = ("c parsed 100 clauses in 0.25 seconds process time\ns SATISFIABLE\n"
              f"v {' '.join(map(str, true[:50] + unused))}\nv {' '.join(map(str, true[50:]))} -7 0\n"
              "c total real time since initialization:            1.50    seconds\n")
    claim = peers.read_dimacs_model(stdout, GIVENS)
    assert claim.solved and claim.grid == solution and claim.seconds == pytest.approx(1.25)
    unknown = peers.read_dimacs_model("s UNKNOWN\nc total real time since initialization: 60.0 seconds\n", GIVENS)
    assert not unknown.solved and unknown.seconds == 60.0 and unknown.detail == {"peer_status": "UNKNOWN"}
    timed_out = peers.read_dimacs_model("c total real time since initialization: 60.1 seconds\nc exit 0\n", GIVENS)
    assert not timed_out.solved and timed_out.detail == {"peer_status": "UNKNOWN"}  # CaDiCaL's -t: no 's' line
    with pytest.raises(ValueError):
        peers.read_dimacs_model("c nothing\n", GIVENS)


def test_kissat_output_is_read_with_its_own_clock():
    """Kissat prints the same model lines as CaDiCaL but other statistics: its process time less its parsing
    (the lines as Kissat 4.0.4 prints them)."""
    solution = _solution_16()
    true = [peers.variable(r * 16 + c, solution[r][c] - 1, 16) for r in range(16) for c in range(16)
            if not GIVENS[r][c]]
    stdout = ("c finished parsing after 0.09 seconds\ns SATISFIABLE\n"
              f"v {' '.join(map(str, true))} 0\n"
              "c maximum-resident-set-size:         45244416 bytes         43 MB\n"
              "c process-time:                             9s               8.58 seconds\n")
    claim = peers.read_dimacs_model(stdout, GIVENS)
    assert claim.solved and claim.grid == solution and claim.seconds == pytest.approx(8.49)
    unknown = peers.read_dimacs_model("s UNKNOWN\nc process-time:     1m     59.99 seconds\nc exit 0\n", GIVENS)
    assert not unknown.solved and unknown.seconds == pytest.approx(59.99)
    settings = large.Settings(budget=59.5, grace=5, seed=3, backend="cpu", peer_paths={"kissat": "/opt/kissat"})
    assert peers.PEERS["kissat"].argv(Path("x.cnf"), settings) == ["/opt/kissat", "--time=60", "--seed=3", "x.cnf"]
    assert "Kissat not found" in peers.PEERS["kissat"].unavailable(settings)  # not an executable


def test_cpsat_output_is_read():
    solution = _solution_16()
    line = json.dumps({"status": "OPTIMAL", "solved": True, "grid": solution, "seconds": 0.5, "workers": 2,
                       "version": "9"})
    claim = peers.read_cpsat("warning\n" + line + "\n", GIVENS)
    assert claim.solved and claim.grid == solution and claim.seconds == 0.5
    unsolved = json.dumps({"status": "UNKNOWN", "solved": False, "grid": None, "seconds": 60.0, "workers": 2,
                           "version": "9"})
    assert not peers.read_cpsat(unsolved, GIVENS).solved


def test_cadical_and_cpsat_columns_end_to_end(tmp_path, capsys):
    """Both peers through large.main, every claim through the validator: CaDiCaL as a stand-in that prints the
    true model, CP-SAT for real when OR-Tools is installed (the bench extra)."""
    import importlib.util

    data = tmp_path / "data"
    data.mkdir()
    (data / "inst16x16_45_0.txt").write_text(INSTANCE.read_text())
    solution = _solution_16()
    true = [peers.variable(r * 16 + c, solution[r][c] - 1, 16) for r in range(16) for c in range(16)
            if not GIVENS[r][c]]
    fake = _fake_peer(tmp_path, "cadical", f"s SATISFIABLE\nv {' '.join(map(str, true))} 0\n"
                      "c total real time since initialization: 0.01 seconds\n")
    names = "cadical,cpsat" if importlib.util.find_spec("ortools") else "cadical"
    argv = ["--results", str(tmp_path / "results"), "--data", str(data), "--sizes", "16", "--percentages", "45",
            "--methods", "", "--peers", names, "--cadical", str(fake), "--budget", "10", "--no-warmup", "--json"]
    assert large.main(argv) == 0
    record = the_record(tmp_path / "results", "large")
    assert {row["method"] for row in record["rows"]} == set(names.split(","))
    assert all(row["solved"] == "1/1" for row in record["rows"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    runs = {line["method"]: line for line in lines if "method" in line and "status" in line}
    assert set(runs) == set(names.split(","))
    assert all(run["status"] == "solved" for run in runs.values()), runs
    assert runs["cadical"]["command"].startswith(str(fake)) and "--seed=1" in runs["cadical"]["command"]
    summaries = [line["summary"] for line in lines if "summary" in line]
    assert {s["method"] for s in summaries} == set(runs) and all(s["ratio"] is not None for s in summaries)
    with pytest.raises(SystemExit, match="unknown peer"):
        large.main(argv[:-6] + ["--peers", "glucose", "--no-warmup"])
