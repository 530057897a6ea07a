"""Time limits and stop requests, every puzzle kind: how long past --time-limit a run goes, and how long a Ctrl-C
takes to end it, each as a whole process.

    python3 bench/limits.py [--time-limit 1] [--delays 3,6] [--large] [--json] [--results DIR]

For each case: one run with ``--time-limit`` (wall time, the seconds the run reports, and the rest: start-up,
preparing and writing), then one run per delay with SIGINT sent that many seconds after start (seconds from
the signal to the process's end, and what it said). ``--large`` adds the Shikaku grids of clues of 1 (300x300,
1000x1000: the start-up grows with the grid) and the default method on an empty 64x64. The run's record (both
tables) goes to bench/results/limits/ (``--results``).
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, add_results_option, environment, print_header, print_table, write_record

HARD36 = ROOT / "bench" / "data" / "sudoku36_45" / "inst36x36_45_1.txt"
DATA = ROOT / "tests" / "data"


def cases(scratch: Path, large: bool) -> dict:
    empty64 = scratch / "empty64.txt"
    empty64.write_text("\n".join([" ".join(["0"] * 64)] * 64) + "\n")
    found = {
        "sudoku 64x64 empty, anneal": ["solve", str(empty64), "--method", "anneal"],
        "sudoku 36x36 45 %, auto": ["solve", str(HARD36)],
        "sudoku 36x36 45 %, exact": ["exact", str(HARD36)],
        "sudoku 36x36 45 %, exact --seed": ["exact", str(HARD36), "--seed", "1"],
        "shikaku 80x80, anneal": ["solve", "--kind", "shikaku", str(DATA / "shikaku_80x80_seed3.txt")],
        "hashi 60x60, anneal": ["solve", "--kind", "hashi", str(DATA / "hashi_60x60_seed1.txt")],
    }
    if large:
        found["sudoku 64x64 empty, auto"] = ["solve", str(empty64)]
        for side in (300, 1000):
            ones = scratch / f"ones{side}.txt"
            ones.write_text("\n".join([" ".join(["1"] * side)] * side) + "\n")
            found[f"shikaku {side}x{side} of 1s, anneal"] = ["solve", "--kind", "shikaku", str(ones)]
    return found


def start(args):
    return subprocess.Popen([sys.executable, "-m", "gpu_sa", *args, "--json"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))


def timed(args, time_limit):
    began = time.monotonic()
    process = start([*args, "--time-limit", str(time_limit), "--seed", "1"] if "--seed" not in args
                    else [*args, "--time-limit", str(time_limit)])
    out, err = process.communicate(timeout=600)
    wall = time.monotonic() - began
    record = json.loads(out.splitlines()[-1]) if out.strip() else {}
    return {"wall_s": wall, "run_s": record.get("seconds"), "stopped": record.get("stopped", record.get("gave_up")),
            "status": process.returncode}


def interrupted(args, delay):
    process = start(args if "--seed" in args else [*args, "--seed", "1"])
    time.sleep(delay)
    if process.poll() is not None:
        process.communicate()
        return {"latency_s": None, "status": process.returncode, "said": "ended before the signal"}
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=600)
    lines = err.strip().splitlines()
    return {"latency_s": time.monotonic() - sent, "status": process.returncode,
            "said": lines[-1].removeprefix("gpu-sa: ") if lines else "", "reported": len(out.splitlines())}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=1.0)
    parser.add_argument("--delays", default="3,6", help="seconds after start to send SIGINT, comma-separated")
    parser.add_argument("--large", action="store_true", help="add the large grids (minutes, gigabytes)")
    parser.add_argument("--json", action="store_true")
    add_results_option(parser)
    args = parser.parse_args(argv)
    delays = [float(d) for d in args.delays.split(",")]
    print_header("time limits and Ctrl-C, every kind, whole processes", environment())
    limit_rows, stop_rows = [], []
    with tempfile.TemporaryDirectory() as scratch:
        for name, command in cases(Path(scratch), args.large).items():
            row = timed(command, args.time_limit)
            limit_rows.append([name, args.time_limit, row["run_s"], row["wall_s"], row["stopped"]])
            for delay in delays:
                stop = interrupted(command, delay)
                stop_rows.append([name, delay, stop["latency_s"] if stop["latency_s"] is not None else "-",
                                  stop["status"], stop["said"][:70]])
                if args.json:
                    print(json.dumps({"case": name, "delay": delay, **stop}))
            if args.json:
                print(json.dumps({"case": name, "time_limit": args.time_limit, **row}))
    print(f"\n--time-limit {args.time_limit:g}: the run's own seconds (annealing or search) and the whole process")
    print_table(["case", "limit s", "run s", "process s", "stopped"], limit_rows)
    print("\nSIGINT: seconds from the signal to the process's end")
    print_table(["case", "sent at s", "to exit s", "status", "last line"], stop_rows, name="SIGINT")
    write_record("limits", results=args.results, args=argv)


if __name__ == "__main__":
    main()
