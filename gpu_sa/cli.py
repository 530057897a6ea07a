"""The ``gpu-sa`` command.

    gpu-sa solve PUZZLE_FILE|-   anneal every puzzle of the file (or standard input)
    gpu-sa exact PUZZLE_FILE|-   solve and count solutions exactly (seed 002's solver)
    gpu-sa generate --count N    full valid grids (seed 003)
    gpu-sa minimize GRID_FILE|-  puzzles with few givens and a unique solution (seed 003)
    gpu-sa puzzle --count N      generate + minimize

Exit status: 0 every puzzle solved; 1 some puzzle not solved within the budget;
2 bad input or usage (one line on stderr); 130 interrupted by Ctrl-C (the best state
found so far is still reported).
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time

import numpy as np

from . import __version__, backends, runner, schedule
from .puzzles import PUZZLES, module as puzzle_module
from .puzzles.errors import PuzzleError
from .puzzles.sudoku.formats import write as write_grid

EXIT_SOLVED, EXIT_UNSOLVED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
INPUT_FORMATS = ("auto",) + tuple(dict.fromkeys(f for m in PUZZLES.values() for f in m.FORMATS))
OUTPUT_FORMATS = ("same",) + tuple(dict.fromkeys(f for m in PUZZLES.values() for f in m.OUTPUT_FORMATS))
KIND_HELP = ("puzzle kind: sudoku (default), shikaku (seed 004: cover the grid with rectangles, one clue each, "
             "clue = area) or hashi (seed 004: Hashiwokakero, bridges joining every island)")
FORMAT_HELP = ("input format (default: auto-detect). sudoku: line, grid, numbers; shikaku: plain (rows of numbers, "
               "'.' empty), tatham (Simon Tatham's rect game ID 'WxH:...'), puzzlink (https://puzz.link/p?shikaku/W/H/...);"
               " hashi: has (Coelho et al. files: 'rows cols islands' then the grid, 0 = water), plain (digits 1-8 and "
               "'.'), tatham (bridges game ID), puzzlink (https://puzz.link/p?hashi/W/H/...)")


class UsageError(Exception):
    """A bad option value or input: printed as one line, exit 2."""


def _count(text):
    """A positive or zero integer; accepts 250000, 250_000, 2.5e5."""
    try:
        value = float(text.replace("_", "")) if any(c in text for c in ".eE") else int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value != value or value in (float("inf"), float("-inf")) or value != int(value) or value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return int(value)


def _positive_float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpu-sa", description="Solve logic puzzles by simulated annealing: thousands of independent "
        "Metropolis chains in lockstep on the GPU, or on the CPU.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    solve = commands.add_parser(
        "solve", help="anneal every puzzle of a file", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Anneal every puzzle of PUZZLE_FILE ('-' = standard input), one after the other.",
        epilog="Exit status: 0 all solved, 1 some puzzle unsolved within the budget, 2 bad input or usage, "
               "130 interrupted (the best state so far is still reported).\n"
               "Input formats: 'line' (81 characters, '.' or '0' empty; one puzzle per line; 16, 256 and 625 "
               "characters for orders 2, 4, 5 with digits 1-9 then A-Z), 'grid' (one row per line) and "
               "'numbers' (N lines of N space-separated numbers, 0 = empty: any order).")
    solve.add_argument("puzzle_file", metavar="PUZZLE_FILE", help="file of puzzles, or '-' for standard input")
    solve.add_argument("--kind", choices=sorted(PUZZLES), default="sudoku", help=KIND_HELP)
    solve.add_argument("--format", dest="input_format", choices=INPUT_FORMATS, default="auto", help=FORMAT_HELP)
    solve.add_argument("--method", choices=("anneal", "ilp"), default="anneal",
                       help="anneal (default): the batch annealer; ilp: the exact integer program (scipy's HiGHS), "
                            "shikaku and hashi only (sudoku's exact solver is 'gpu-sa exact')")
    solve.add_argument("--backend", choices=backends.BACKENDS, default="auto",
                       help="where chains run: cuda (GPU), cpu (numba, all cores), numpy (the plain reference), "
                            "auto = cuda if a GPU is usable, else cpu (default: auto; the choice is printed on stderr)")
    solve.add_argument("--chains", type=_count, default=None,
                       help="independent chains run in lockstep (default: "
                            + ", ".join(f"{k} {v}" for k, v in runner.DEFAULT_CHAINS.items()) + ")")
    solve.add_argument("--seed", type=_count, default=None,
                       help="64-bit seed; a run is a pure function of the seed and the options "
                            "(default: random, printed with the result)")
    solve.add_argument("--move", default=None,
                       help="move set. sudoku: swap (default, Lewis 2007: boxes stay permutations, two free cells "
                            "of a box swap; cost = digits missing from rows and columns) or sirdey (the seed's: one "
                            "free cell takes another digit; cost = conflicting peer pairs). shikaku: rect (one clue "
                            "takes another candidate rectangle; cost = cells covered twice or more, counted beyond "
                            "the first). hashi: bridge (one edge takes 0, 1 or 2 bridges; cost = degree mismatches + "
                            "crossings, or 1 for a disconnected network)")
    law = solve.add_argument_group("temperature schedule")
    law.add_argument("--schedule", choices=("sirdey", "geometric", "list"), default="geometric",
                     help="geometric (default, tuned by measurement): --t0 to --t-end over --plateaus; sirdey: the "
                          "seed's law T0 = e_p, T_{k+1} = T_k / (1 + log(1+delta)/(e_p+1) T_k) down to T_f (252 "
                          "million moves per chain for 9x9: the faithful mode); list: the temperatures of "
                          "--temperatures")
    law.add_argument("--delta", type=_positive_float, default=None, help="sirdey: the law's delta (default 0.1)")
    law.add_argument("--t0", type=_positive_float, default=None,
                     help=f"starting temperature (geometric default: {runner.DEFAULT_T0}; sirdey default: e_p, "
                          f"810 for 9x9 with move sirdey)")
    law.add_argument("--t-end", type=_positive_float, default=None,
                     help=f"geometric: final temperature (default {runner.DEFAULT_T_END})")
    law.add_argument("--plateaus", type=_count, default=None,
                     help=f"geometric: number of plateaus (default {runner.DEFAULT_PLATEAUS}: 324,000 moves per "
                          f"chain for 9x9)")
    law.add_argument("--plateau-length", type=_count, default=None,
                     help="moves per plateau (default: the number of cells for sudoku, as in the seed; the number of "
                          "movable clues for shikaku, of movable edges for hashi)")
    law.add_argument("--temperatures", default=None,
                     help="list: comma-separated temperatures, or @FILE with one per line")
    stop = solve.add_argument_group("budget and stopping")
    stop.add_argument("--max-moves", type=_count, default=None,
                      help="moves per chain at most (default: the schedule's length; past its end the last "
                           "temperature holds)")
    stop.add_argument("--trials", type=_count, default=None,
                      help="restarts: when a trial ends unsolved, every chain is replaced by a fresh one (new chain "
                           "indices, so the run still replays from its seed) and the schedule starts again; 0 = until "
                           f"solved or --time-limit (default {runner.DEFAULT_TRIALS}; 1 with --no-early-stop)")
    stop.add_argument("--stall-plateaus", type=_count, default=None, metavar="N",
                      help="the seed's ad-hoc stop: end a trial once no chain has lowered its best cost for N "
                           "plateaus (the seed suggests 10000)")
    stop.add_argument("--time-limit", type=_positive_float, default=None, metavar="SECONDS",
                      help="stop each puzzle after about this many seconds")
    stop.add_argument("--no-early-stop", action="store_true",
                      help="run every chain for exactly --max-moves moves even once a chain has solved")
    out = solve.add_argument_group("output")
    out.add_argument("--json", action="store_true",
                     help="one JSON object per puzzle per line on stdout: solved, solution (sudoku: the grid in the "
                          "input's format; shikaku: rectangles [top, left, bottom, right], inclusive, 0-based, in "
                          "row-major clue order; hashi: bridges [r1, c1, r2, c2, count], 0-based), cost, chain, moves, "
                          "proposals, seconds, backend, seed, method, and more")
    out.add_argument("--output-format", choices=OUTPUT_FORMATS, default=None,
                     help="how sudoku grids are written (default: pretty with box borders; with --json, same as the "
                          "input); shikaku and hashi solutions are always drawn (pretty)")
    out.add_argument("--dump-states", metavar="PATH", default=None,
                     help="write an .npz with states (chains x cells, digits 1..N for sudoku; each clue's candidate "
                          "number for shikaku; bridges per candidate edge for hashi), costs and accepted after the "
                          "run; with several puzzles PATH-1.npz, PATH-2.npz, ...; never overwrites a file")
    out.add_argument("--quiet", "-q", action="store_true", help="no progress or backend notes on stderr")
    out.add_argument("--check-unique", action="store_true",
                     help="after a solve, count solutions with the exact solver (up to 2; the ILP for shikaku and "
                          "hashi) and report whether the one found is the only one (JSON key 'unique': true, false, or "
                          "null if the search gave up)")

    exact = commands.add_parser(
        "exact", help="prove, count and solve puzzles exactly (seed 002's solver)",
        description="Solve every puzzle of PUZZLE_FILE ('-' = standard input) exactly: candidates as bitmasks, "
                    "the rules exclusivity (naked single), uniqueness (hidden single) and parity (naked pair) until "
                    "nothing changes, then branching on a cell with the fewest candidates. Counts solutions up to "
                    "--count-limit.",
        epilog="Exit status: 0 every puzzle has a solution, 1 some puzzle has none (or the search gave up before "
               "finding one), 2 bad input or usage.")
    exact.add_argument("puzzle_file", metavar="PUZZLE_FILE", help="file of puzzles, or '-' for standard input")
    exact.add_argument("--kind", choices=sorted(PUZZLES), default="sudoku", help=KIND_HELP + "; shikaku and hashi "
                       "are solved by their integer programs (scipy's HiGHS; hashi with lazy connectivity cuts)")
    exact.add_argument("--format", dest="input_format", choices=INPUT_FORMATS, default="auto", help=FORMAT_HELP)
    exact.add_argument("--time-limit", type=_positive_float, default=None, metavar="SECONDS",
                       help="shikaku and hashi: give up on a puzzle after about this long")
    exact.add_argument("--count-limit", type=_count, default=2,
                       help="stop counting at this many solutions (default 2: is it 0, 1 or more than 1?)")
    exact.add_argument("--max-nodes", type=_count, default=None,
                       help="sudoku: give up after this many branches (default 10,000,000), so that a huge empty grid "
                            "cannot hang the search")
    exact.add_argument("--json", action="store_true",
                       help="one JSON object per puzzle per line: solutions (count, capped at --count-limit), "
                            "solution (the first, in the input's format, or null), nodes, seconds, gave_up")
    exact.add_argument("--output-format", choices=OUTPUT_FORMATS, default=None,
                       help="how the solution is written (default: pretty; with --json, same as the input)")

    generate = commands.add_parser(
        "generate", help="generate full sudoku grids (seed 003), or shikaku and hashi puzzles (seed 004)",
        description="sudoku: generate COUNT distinct full valid grids, each given a uniformly random symmetry (digit "
                    "relabelling, band/stack and row/column permutations, transposition). Methods: anneal (the "
                    "batch annealer from an empty grid: one grid per solved chain), backtrack (the exact solver "
                    "with a random digit order), swaps (the seed's random swaps keeping only improvements: move "
                    "swap at zero temperature, restarted). shikaku (--size): the seed's generator, recursive cuts "
                    "of the grid, random merges of neighbouring rectangles, one clue per rectangle at a random cell. "
                    "hashi (--size, --islands): the seed's generator, random islands, every edge between "
                    "neighbours, an island added where edges cross, random bridge counts. Puzzle i of a run uses "
                    "seed (SEED, i), so a run replays.")
    generate.add_argument("--count", type=_count, required=True, help="number of grids or puzzles")
    generate.add_argument("--kind", choices=sorted(PUZZLES), default="sudoku", help=KIND_HELP)
    _generation_options(generate)
    seed004 = generate.add_argument_group("shikaku and hashi")
    seed004.add_argument("--size", default=None, metavar="ROWSxCOLS", help="grid size, e.g. 10x10 or 9x16")
    seed004.add_argument("--islands", type=_count, default=None,
                         help="hashi: islands wanted (default: about a quarter of the cells, capped at 100)")
    seed004.add_argument("--depth", type=_count, default=None,
                         help="shikaku: the seed's recursion depth of the cuts (more depth, more rectangles; "
                              "default: enough for puzzle-like rectangles)")
    seed004.add_argument("--merge-iterations", type=_count, default=None,
                         help="shikaku: the seed's nbMergeIter, passes of random merges (default: the generator's)")
    seed004.add_argument("--unique", action="store_true",
                         help="keep only puzzles with exactly one solution (checked by the ILP with a no-good cut)")
    generate.add_argument("--json", action="store_true",
                          help="one JSON object per grid or puzzle: index, grid (sudoku) or puzzle and solution "
                               "(shikaku, hashi), seed, method")

    minimize = commands.add_parser(
        "minimize", help="empty full grids to puzzles with few givens and a unique solution (seed 003)",
        description="For every full grid of GRID_FILE ('-' = standard input), find a puzzle with as few givens as "
                    "the method reaches whose only solution is that grid (proved by the exact solver). anneal: the "
                    "seed's scheme (a given is removed when the puzzle stays unique; an empty cell gets its digit "
                    "back with probability exp(-1/T), T falling linearly from --t0 to --t-end). greedy: one pass "
                    "over the givens in random order. Grids run in parallel on every core.")
    minimize.add_argument("grid_file", metavar="GRID_FILE", help="file of full grids, or '-' for standard input")
    minimize.add_argument("--format", dest="input_format", choices=("auto",) + PUZZLES["sudoku"].FORMATS,
                          default="auto", help="input format (default: auto-detect)")
    _minimize_options(minimize, "--method")
    minimize.add_argument("--seed", type=_count, default=None, help="64-bit seed (default: random, printed)")
    minimize.add_argument("--json", action="store_true",
                          help="one JSON object per grid: puzzle (input's format), givens, unique, source")

    puzzle = commands.add_parser(
        "puzzle", help="generate puzzles: generate + minimize, keeping those with at most --givens-max givens",
        description="Generate grids and minimise them until COUNT puzzles have at most --givens-max givens.")
    puzzle.add_argument("--count", type=_count, required=True, help="number of puzzles")
    puzzle.add_argument("--givens-max", type=_count, default=None,
                        help="keep only puzzles with at most this many givens (default: keep all)")
    puzzle.add_argument("--max-grids", type=_count, default=None,
                        help="give up after minimising this many grids (default: 50 x COUNT)")
    _generation_options(puzzle)
    _minimize_options(puzzle, "--minimize-method")
    puzzle.add_argument("--json", action="store_true", help="one JSON object per puzzle: puzzle, givens, solution")
    return parser


def _generation_options(command):
    from .puzzles.sudoku import generate

    command.add_argument("--order", type=_count, default=None, help="sudoku: box side n, grids of n^2 x n^2 (default 3)")
    command.add_argument("--method", dest="grid_method", choices=generate.METHODS, default=None,
                         help="sudoku: how grids are made (default: anneal)")
    command.add_argument("--seed", type=_count, default=None, help="64-bit seed (default: random, printed)")
    command.add_argument("--backend", choices=backends.BACKENDS, default="auto",
                         help="where the anneal and swaps methods run (default: auto)")
    command.add_argument("--chains", type=_count, default=None, help="chains per annealing launch")
    command.add_argument("--output-format", choices=INPUT_FORMATS[1:],
                         default=None, help="sudoku: line (default; numbers for orders above 5), grid or numbers; "
                                            "shikaku: plain (default), tatham, puzzlink; hashi: plain (default), has, "
                                            "tatham, puzzlink")


def _minimize_options(command, flag):
    from .puzzles.sudoku import generate

    command.add_argument(flag, dest="minimize_method", choices=generate.MINIMIZE_METHODS, default="anneal",
                         help="how givens are removed: anneal (default, the seed's scheme) or greedy (one pass)")
    command.add_argument("--iterations", type=_count, default=generate.DEFAULT_ITERATIONS,
                         help=f"anneal: steps per grid (default {generate.DEFAULT_ITERATIONS:,})")
    command.add_argument("--t0", type=_positive_float, default=1.0, help="anneal: first temperature (default 1.0)")
    command.add_argument("--t-end", type=_positive_float, default=0.15, help="anneal: last temperature (default 0.15)")


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return {"solve": _solve, "exact": _exact, "generate": _generate, "minimize": _minimize,
                "puzzle": _puzzle}[args.command](args)
    except (UsageError, PuzzleError, ValueError, backends.BackendUnavailable) as error:
        print(f"gpu-sa: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_SOLVED


def _read_input(path):
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read(), path
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a directory") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not a text file (UTF-8)") from None
    except OSError as error:
        raise UsageError(f"{path}: {error.strerror}") from None


SCHEDULE_OPTIONS = {"delta": ("sirdey",), "t_end": ("geometric",), "plateaus": ("geometric",),
                    "temperatures": ("list",), "t0": ("sirdey", "geometric")}


def _schedule(args, anneal_move):
    for option, laws in SCHEDULE_OPTIONS.items():
        if getattr(args, option) is not None and args.schedule not in laws:
            raise UsageError(f"--{option.replace('_', '-')} applies to --schedule {' or '.join(laws)}, "
                             f"not {args.schedule}")
    length = anneal_move.plateau_length if args.plateau_length is None else args.plateau_length
    if length < 1:
        raise UsageError("--plateau-length must be at least 1")
    if args.schedule == "sirdey":
        return schedule.sirdey(max_cost=anneal_move.max_cost, log_states=anneal_move.log_states,
                               plateau_length=length, delta=0.1 if args.delta is None else args.delta, t0=args.t0)
    if args.schedule == "geometric":
        plateaus = runner.DEFAULT_PLATEAUS if args.plateaus is None else args.plateaus
        if plateaus < 1:
            raise UsageError("--plateaus must be at least 1")
        return schedule.geometric(t0=args.t0 or runner.DEFAULT_T0,
                                  t_end=runner.DEFAULT_T_END if args.t_end is None else args.t_end,
                                  plateaus=plateaus, plateau_length=length)
    if not args.temperatures:
        raise UsageError("--schedule list needs --temperatures")
    return schedule.from_list(_temperatures(args.temperatures), plateau_length=length)


def _temperatures(text):
    if text.startswith("@"):
        raw, source = _read_input(text[1:])
        items = [(f"{source}:{n}", line.strip()) for n, line in enumerate(raw.splitlines(), 1)
                 if line.strip() and not line.strip().startswith("#")]
    else:
        items = [(f"--temperatures item {n}", item.strip()) for n, item in enumerate(text.split(","), 1)]
    values = []
    for where, item in items:
        try:
            value = float(item)
        except ValueError:
            raise UsageError(f"{where}: {item!r} is not a temperature") from None
        if not 0 < value < float("inf"):
            raise UsageError(f"{where}: temperature {item} must be positive")
        values.append(value)
    return values


def _dump_paths(path, count):
    if path is None:
        return [None] * count
    stem = path[:-4] if path.endswith(".npz") else path
    paths = [stem + ".npz"] if count == 1 else [f"{stem}-{k}.npz" for k in range(1, count + 1)]
    for candidate in paths:
        if os.path.exists(candidate):
            raise UsageError(f"{candidate}: already exists; --dump-states never overwrites a file")
        directory = os.path.dirname(candidate) or "."
        if not os.path.isdir(directory):
            raise UsageError(f"{candidate}: directory {directory} does not exist")
    return paths


def _check_formats(args, kind):
    """Formats exist per kind: a sudoku format with --kind hashi is a usage error, not a guess."""
    if args.input_format != "auto" and args.input_format not in kind.FORMATS:
        raise UsageError(f"--format {args.input_format} is not a {kind.KIND} format; choose from auto, "
                         f"{', '.join(kind.FORMATS)}")
    if args.output_format not in (None, "same") and args.output_format not in kind.OUTPUT_FORMATS:
        raise UsageError(f"--output-format {args.output_format} is not a {kind.KIND} output format; choose from "
                         f"same, {', '.join(kind.OUTPUT_FORMATS)}")


def _solve(args):
    kind = puzzle_module(args.kind)
    _check_formats(args, kind)
    if args.method not in kind.METHODS:
        raise UsageError(f"--method {args.method} is not available for {args.kind}; choose from "
                         f"{', '.join(kind.METHODS)}" + (" (sudoku's exact solver: gpu-sa exact)"
                                                         if args.kind == "sudoku" else ""))
    text, source = _read_input(args.puzzle_file)
    puzzles = kind.parse(text, source, args.input_format)
    if args.method == "ilp":
        return _solve_ilp(args, puzzles)
    backend, why = backends.select(args.backend)
    if args.move is not None and args.move not in kind.MOVES:
        raise UsageError(f"unknown move {args.move!r} for {args.kind}; choose from {', '.join(kind.MOVES)}")
    schedules = [_schedule(args, p.move(args.move or kind.DEFAULT_MOVE)) for p in puzzles]
    dumps = _dump_paths(args.dump_states, len(puzzles))
    if args.chains == 0:
        raise UsageError("--chains must be at least 1")
    if args.stall_plateaus == 0:
        raise UsageError("--stall-plateaus must be at least 1")
    if args.trials == 0 and args.time_limit is None and args.no_early_stop:
        raise UsageError("--trials 0 with --no-early-stop needs --time-limit")
    if not args.quiet:
        print(f"gpu-sa: {why}", file=sys.stderr)
    status = EXIT_SOLVED
    for puzzle, law, dump in zip(puzzles, schedules, dumps):
        if puzzle.contradicts():  # the cheap bound: propagation only, no search
            _report_no_solution(puzzle, args)
            status = EXIT_UNSOLVED
            continue
        reporter = _ProgressLine(puzzle.label, quiet=args.quiet)
        result = runner.anneal(puzzle, move=args.move, backend=backend, chains=args.chains, seed=args.seed,
                               schedule=law, max_moves=args.max_moves, trials=args.trials,
                               stall_plateaus=args.stall_plateaus, time_limit=args.time_limit,
                               early_stop=not args.no_early_stop, progress=reporter, keep_state=dump is not None)
        reporter.close()
        if dump is not None:
            _dump(dump, result.state, puzzle)
        unique = _uniqueness(puzzle) if args.check_unique and result.solved else None
        _report(puzzle, result, args, unique)
        if not result.solved:
            status = EXIT_UNSOLVED
        if result.stopped == "interrupted":
            return EXIT_INTERRUPTED
    return status


ANNEALING_ONLY_OPTIONS = ("backend", "chains", "seed", "move", "max_moves", "trials", "stall_plateaus", "dump_states",
                    "delta", "t0", "t_end", "plateaus", "plateau_length", "temperatures")


def _solve_ilp(args, puzzles):
    """--method ilp: the exact integer program per puzzle, its solution checked by the independent validator."""
    for option in ANNEALING_ONLY_OPTIONS:
        if getattr(args, option) not in (None, False, "auto"):
            raise UsageError(f"--{option.replace('_', '-')} is an annealing option; --method ilp does not use it")
    status = EXIT_SOLVED
    for puzzle in puzzles:
        answer = puzzle.count_solutions(limit=2 if args.check_unique else 1, time_limit=args.time_limit)
        solved = answer.solutions > 0
        if solved:
            violations = puzzle.check(answer.solution)
            if violations:
                raise RuntimeError(f"internal error: {puzzle.label}: the ILP's solution fails the validator: "
                                   f"{violations[0]}")
        else:
            status = EXIT_UNSOLVED
        unique = None if answer.gave_up and answer.solutions < 2 else answer.solutions == 1
        stopped = "solved" if solved else ("time_limit" if answer.gave_up else "no_solution")
        if args.json:
            record = {"puzzle": puzzle.label, "method": "ilp", "solved": solved,
                      "solution": puzzle.answer(answer.solution) if solved else None, "cost": 0 if solved else None,
                      "seconds": round(answer.seconds, 6), "stopped": stopped, "rounds": answer.rounds,
                      "cuts": answer.cuts, "variables": answer.variables, "constraints": answer.constraints}
            if args.check_unique:
                record["unique"] = unique
            print(json.dumps(record), flush=True)
            continue
        if solved:
            print(f"{puzzle.label}: solved by the ILP in {answer.seconds:.3f} s ({answer.variables:,} variables, "
                  f"{answer.constraints:,} constraints, {answer.rounds} MILP solves, {answer.cuts} connectivity cuts)")
            if args.check_unique:
                print({True: "the solution is unique", False: "the puzzle has other solutions too",
                       None: "uniqueness unknown: the time limit came first"}[unique])
            print(puzzle.write(answer.solution), flush=True)
        else:
            reason = "time limit reached" if answer.gave_up else "the puzzle has no solution"
            print(f"{puzzle.label}: not solved by the ILP: {reason} ({answer.seconds:.3f} s)", flush=True)
    return status


def _dump(path, state, puzzle):
    with open(path, "xb") as handle:  # "x": never overwrite, even if the file appeared meanwhile
        base = puzzle.state_base
        np.savez(handle, states=state.config.astype(np.int64) + base, costs=state.cost, accepted=state.accepted,
                 best_states=state.best_config.astype(np.int64) + base, best_costs=state.best_cost,
                 best_moves=state.best_move, **puzzle.instance_arrays())


def _uniqueness(puzzle):
    """True/False from the exact solver, None when it gave up before knowing."""
    exact = puzzle.count_solutions(limit=2)
    return None if exact.gave_up and exact.solutions < 2 else exact.solutions == 1


def _report_no_solution(puzzle, args):
    if args.json:
        print(json.dumps({"puzzle": puzzle.label, "method": "anneal", "solved": False, "solution": None, "cost": None, "chain": None,
                          "moves": 0, "proposals": 0, "seconds": 0.0, "backend": None, "seed": args.seed,
                          "stopped": "no_solution"}), flush=True)
    else:
        print(f"{puzzle.label}: no solution: propagating the givens leads to a contradiction")


def _report(puzzle, result, args, unique=None):
    if args.json:
        fmt = args.output_format if args.output_format not in (None, "same") else puzzle.fmt
        record = {"puzzle": puzzle.label, "method": "anneal", "solved": result.solved,
                  "solution": puzzle.answer(result.solution, fmt) if result.solved else None,
                  "cost": result.cost, "chain": result.chain, "moves": result.moves, "proposals": result.proposals,
                  "seconds": round(result.seconds, 6), "setup_seconds": round(result.setup_seconds, 6), "backend": result.backend, "seed": result.seed,
                  "chains": result.chains, "chain_moves": result.chain_moves, "trials": result.trials,
                  "stopped": result.stopped,
                  "best": puzzle.answer(result.best, fmt), "schedule": result.schedule}
        if args.check_unique:
            record["unique"] = unique
        print(json.dumps(record), flush=True)
        return
    fmt = args.output_format or "pretty"
    fmt = puzzle.fmt if fmt == "same" else fmt
    trials = f" over {result.trials} trials" if result.trials > 1 else ""
    budget = (f"{result.chains:,} chains x {result.moves:,} moves{trials} on {result.backend}, seed {result.seed}; "
              f"setup {result.setup_seconds:.2f} s")
    if result.solved:
        head = (f"{puzzle.label}: solved in {result.seconds:.2f} s by chain {result.chain} after "
                f"{result.chain_moves:,} moves ({budget})")
        grid = result.solution
    else:
        head = (f"{puzzle.label}: not solved ({result.stopped.replace('_', ' ')}) after {result.seconds:.2f} s; "
                f"best cost {result.cost} in chain {result.chain} ({budget})")
        grid = result.best
    print(head)
    if args.check_unique and result.solved:
        print({True: "the solution is unique", False: "the puzzle has other solutions too",
               None: "uniqueness unknown: the exact search gave up"}[unique])
    print(puzzle.write(grid, fmt), flush=True)


def _grid_format(args, order):
    fmt = args.output_format or "line"
    return "numbers" if fmt in ("line", "grid") and order > 5 else fmt


def _print_grid_text(text, fmt):
    print(text if fmt == "line" else text + "\n", flush=True)


def _seed_or_random(args, quiet=False):
    seed = runner.default_seed() if args.seed is None else args.seed
    if args.seed is None and not quiet:
        print(f"gpu-sa: seed {seed}", file=sys.stderr)
    return seed


def _size(text):
    try:
        rows, cols = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise UsageError(f"--size expects ROWSxCOLS such as 10x10, got {text!r}") from None
    if not (1 <= rows <= 1000 and 1 <= cols <= 1000):
        raise UsageError(f"--size {text}: rows and columns must be 1..1000")
    return rows, cols


SEED004_OPTIONS = {"size": ("shikaku", "hashi"), "islands": ("hashi",), "depth": ("shikaku",),
                   "merge_iterations": ("shikaku",), "unique": ("shikaku", "hashi")}
SUDOKU_GENERATION_OPTIONS = ("grid_method", "chains", "order")


def _sudoku_generation_defaults(args):
    args.grid_method = args.grid_method or "anneal"
    args.order = 3 if args.order is None else args.order


def _generate_seed004(args):
    """gpu-sa generate --kind shikaku|hashi: the seed's generators, one seed (SEED, i) per puzzle."""
    if args.size is None:
        raise UsageError(f"generate --kind {args.kind} needs --size ROWSxCOLS")
    rows, cols = _size(args.size)
    kind = puzzle_module(args.kind)
    fmt = args.output_format or "plain"
    if fmt not in kind.FORMATS:
        raise UsageError(f"--output-format {fmt} is not a {args.kind} format; choose from {', '.join(kind.FORMATS)}")
    seed = _seed_or_random(args, quiet=args.json)
    for index in range(args.count):
        instance, solution = kind.generate_puzzle(rows, cols, seed=[seed, index], unique=args.unique,
                                                  islands=args.islands, depth=args.depth,
                                                  merge_iterations=args.merge_iterations)
        text = kind.write_puzzle(instance, fmt)
        if args.json:
            print(json.dumps({"index": index, "puzzle": text, "solution": solution, "seed": seed,
                              "kind": args.kind, "unique": True if args.unique else None}), flush=True)
        else:
            print(text + ("\n" if fmt in ("plain", "has") else ""), flush=True)
    return EXIT_SOLVED


def _generate(args):
    from .puzzles.sudoku import generate
    from .puzzles.sudoku.geometry import MAX_ORDER, MIN_ORDER

    if args.count < 1:
        raise UsageError("--count must be at least 1")
    for option, kinds in SEED004_OPTIONS.items():
        if getattr(args, option) not in (None, False) and args.kind not in kinds:
            raise UsageError(f"--{option.replace('_', '-')} applies to generate --kind {' or '.join(kinds)}")
    if args.kind != "sudoku":
        for option in SUDOKU_GENERATION_OPTIONS:
            if getattr(args, option) is not None:
                raise UsageError(f"--{option.replace('grid_', '')} applies to generate --kind sudoku")
        return _generate_seed004(args)
    _sudoku_generation_defaults(args)
    if not MIN_ORDER <= args.order <= MAX_ORDER:
        raise UsageError(f"--order must be in {MIN_ORDER}..{MAX_ORDER}")
    if args.output_format not in (None,) + PUZZLES["sudoku"].FORMATS:
        raise UsageError(f"--output-format {args.output_format} is not a sudoku format")
    seed = _seed_or_random(args, quiet=args.json)
    made = generate.grids(args.count, order=args.order, method=args.grid_method, seed=seed, backend=args.backend,
                          chains=args.chains)
    fmt = _grid_format(args, args.order)
    for index, grid in enumerate(made):
        text = write_grid(grid, args.order, fmt)
        if args.json:
            print(json.dumps({"index": index, "grid": text, "seed": seed, "method": args.grid_method}), flush=True)
        else:
            _print_grid_text(text, fmt)
    return EXIT_SOLVED


def _minimize(args):
    from .puzzles.sudoku import generate

    text, source = _read_input(args.grid_file)
    grids = puzzle_module("sudoku").parse(text, source, args.input_format)
    for grid in grids:
        if (grid.givens < 0).any() or grid.check(grid.givens):
            raise UsageError(f"{grid.label}: not a full valid grid (minimize needs solved grids)")
    if len({g.order for g in grids}) > 1:
        raise UsageError("every grid of one call must have the same order")
    seed = _seed_or_random(args, quiet=args.json)
    results = generate.minimize([g.givens for g in grids], grids[0].order, method=args.minimize_method, seed=seed,
                                iterations=args.iterations, t0=args.t0, t_end=args.t_end)
    for grid, result in zip(grids, results):
        if not result.unique:
            raise RuntimeError(f"internal error: {grid.label}: minimised puzzle is not unique")
        text = grid.write(result.puzzle)
        if args.json:
            print(json.dumps({"source": grid.label, "puzzle": text, "givens": result.givens, "unique": True,
                              "seed": seed, "method": args.minimize_method}), flush=True)
        else:
            print(f"# {grid.label}: {result.givens} givens, unique")
            _print_grid_text(text, grid.fmt)
    return EXIT_SOLVED


def _puzzle(args):
    from .puzzles.sudoku import generate

    if args.count < 1:
        raise UsageError("--count must be at least 1")
    _sudoku_generation_defaults(args)
    seed = _seed_or_random(args, quiet=args.json)
    limit = args.max_grids or 50 * args.count
    stream = generate.grid_stream(order=args.order, method=args.grid_method, seed=seed, backend=args.backend,
                                  chains=args.chains)
    kept, tried, batch = [], 0, max(args.count, 8)
    while len(kept) < args.count and tried < limit:
        size = min(batch, limit - tried)
        made = list(itertools.islice(stream, size))
        results = generate.minimize(made, args.order, method=args.minimize_method, seed=seed + tried,
                                    iterations=args.iterations, t0=args.t0, t_end=args.t_end)
        tried += size
        for grid, result in zip(made, results):
            if result.unique and (args.givens_max is None or result.givens <= args.givens_max):
                kept.append((grid, result))
    fmt = _grid_format(args, args.order)
    for grid, result in kept[:args.count]:
        text = write_grid(result.puzzle, args.order, fmt)
        if args.json:
            print(json.dumps({"puzzle": text, "givens": result.givens, "solution": write_grid(
                grid, args.order, fmt), "seed": seed}), flush=True)
        else:
            _print_grid_text(text, fmt)
    if len(kept) < args.count:
        print(f"gpu-sa: only {len(kept)} puzzles with at most {args.givens_max} givens after {tried} grids",
              file=sys.stderr)
        return EXIT_UNSOLVED
    return EXIT_SOLVED


def _exact(args):
    kind = puzzle_module(args.kind)
    _check_formats(args, kind)
    if args.count_limit < 1:
        raise UsageError("--count-limit must be at least 1")
    if args.kind == "sudoku" and args.time_limit is not None:
        raise UsageError("--time-limit applies to shikaku and hashi; sudoku's search is bounded by --max-nodes")
    if args.kind != "sudoku" and args.max_nodes is not None:
        raise UsageError("--max-nodes applies to sudoku; bound the integer programs with --time-limit")
    limits = {"max_nodes": args.max_nodes} if args.kind == "sudoku" else {"time_limit": args.time_limit}
    text, source = _read_input(args.puzzle_file)
    puzzles = kind.parse(text, source, args.input_format)
    status = EXIT_SOLVED
    for puzzle in puzzles:
        answer = puzzle.count_solutions(limit=args.count_limit, **limits)
        if answer.solutions == 0:
            status = EXIT_UNSOLVED
        if args.json:
            fmt = args.output_format if args.output_format not in (None, "same") else puzzle.fmt
            print(json.dumps({"puzzle": puzzle.label, "solutions": answer.solutions,
                              "solution": puzzle.answer(answer.solution, fmt) if answer.solutions else None,
                              "nodes": answer.nodes, "seconds": round(answer.seconds, 9),
                              "gave_up": answer.gave_up}), flush=True)
            continue
        effort = (f"{answer.nodes:,} nodes" if answer.nodes is not None
                  else f"{answer.rounds} MILP solves, {answer.cuts} connectivity cuts")
        if answer.gave_up:
            verdict = f"gave up after {effort} with {answer.solutions} solution(s) found"
        elif answer.solutions == 0:
            verdict = "no solution"
        elif answer.solutions >= args.count_limit and args.count_limit > 1:
            verdict = f"at least {answer.solutions} solutions (counting stopped at --count-limit)"
        elif answer.solutions == 1 and args.count_limit > 1:
            verdict = "unique solution"
        else:
            verdict = f"{answer.solutions} solution(s) (not counted further)"
        print(f"{puzzle.label}: {verdict} ({effort}, {answer.seconds * 1e3:.2f} ms)")
        if answer.solutions:
            print(puzzle.write(answer.solution, args.output_format or "pretty"), flush=True)
    return status


class _ProgressLine:
    """Progress on stderr once a run has lasted a second: rewritten in place on a terminal,
    one line every ten seconds otherwise."""

    def __init__(self, label, quiet):
        self.label = label
        self.quiet = quiet
        self.tty = sys.stderr.isatty()
        self.last = 0.0
        self.shown = False

    def __call__(self, p: runner.Progress):
        if self.quiet or p.seconds < 1.0:
            return
        now = time.monotonic()
        if now - self.last < (0.2 if self.tty else 10.0):
            return
        self.last = now
        trial = f"trial {p.trial}  " if p.trial > 1 else ""
        line = (f"{self.label}: {p.seconds:6.1f} s  {trial}moves/chain {p.moves:,} ({100 * p.moves / max(p.max_moves, 1):.1f}%)"
                f"  T={p.temperature:.4g}  best cost {p.best_cost}  {p.proposals_per_second:.3g} proposals/s")
        print(("\r" + line + "\x1b[K") if self.tty else line, end="" if self.tty else "\n", file=sys.stderr, flush=True)
        self.shown = True

    def close(self):
        if self.shown and self.tty:
            print(file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
