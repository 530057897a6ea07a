"""gpu-sa exact: prove, count and solve puzzles exactly, each reported as it is done."""
from __future__ import annotations

from .. import ending
from ...engine import stop
from ...options import SECONDS, Integer, Option, max_input_option
from . import QUIET, add_input, input_format_option, output_format_option, read_puzzles

DETECTS_KIND = True  # without --kind, the input file's kind is detected (commands.detect_kind)
HELP = "prove, count and solve puzzles exactly (Sudoku: rules and backtracking; the others: integer programs)"
DESCRIPTION = ("Solve every puzzle of PUZZLE_FILE ('-' = standard input) exactly and count its solutions up to "
               "--count-limit. Sudoku: candidates as bitmasks, the rules exclusivity (naked "
               "single), uniqueness (hidden single) and parity (naked pair) until nothing changes, then branching on "
               "a cell with the fewest candidates. Kinds with an integer program: scipy's HiGHS (Hashiwokakero with "
               "lazy connectivity cuts), each solution found excluded by a no-good cut to count further.")
EPILOG = ("Exit status: 0 every puzzle has a solution, 1 some puzzle has none (or the search gave up before finding "
          "one), 2 bad input or usage, 74 output failed, 129/130/143 stopped by a signal, 70 internal error. "
          "docs/cli.md, 'Exit status'.")
def options():
    return (
        input_format_option("exact"), max_input_option("the puzzle file"),
        Option("--count-limit", "stop counting at this many solutions (default 2: is it 0, 1 or more than 1?)",
               Integer(1), default=2, purpose="solutions to count"),
        Option("--seed", "sudoku: up to 16x16, break ties among the fewest-candidate cells and order digits from "
               "this seed, restarting with growing node budgets (the Luby sequence) on every core; from 25x25 up, "
               "clause learning from a variable order drawn from this seed (--searches of them racing). A heavy tail "
               "no longer blocks the search, counts and 'no solution' stay exact, and the answer depends on the seed "
               "(and --searches) only (default: the original deterministic search). Integer programs: HiGHS's "
               "random_seed (default 0)",
               Integer(0, 2**64 - 1)),
        Option("--time-limit", "give up on a puzzle after about this many seconds (the answer says gave_up)", SECONDS,
               metavar="SECONDS", purpose="seconds"),
        Option("--json", "one JSON object per puzzle per line: puzzle, solutions (count, capped at --count-limit), "
               "solution (the first, as in solve --json, or null), nodes, seconds, gave_up (with stopped: time_limit, "
               "max_nodes or interrupted); with --seed also restarts and final_nodes (the deciding restart's)"),
        output_format_option("exact", "how the solution is written (default: pretty; with --json, same as the "
                             "input)."),
        QUIET,
    )


def add_arguments(parser) -> None:
    add_input(parser, options())


def run(args) -> int:
    from ...apps import solve as app
    from .solve import _report

    puzzles = read_puzzles(args, args.puzzle_file)
    options = dict(args.kind_options)
    steps = options.pop("steps", False)
    if options.get("box_line") and args.seed is not None:
        from ...options import UsageError

        raise UsageError("--box-line is an option of the deterministic search: not with --seed (the seeded "
                         "search chooses its propagation per grid size)")
    options.update({name: getattr(args, name) for name in ("seed", "time_limit") if getattr(args, name) is not None})
    if options.get("threads") is not None:
        from ...puzzles.sudoku.exact import available_cores

        if options["threads"] > (cores := available_cores()):
            ending.note(f"gpu-sa: --threads {options['threads']} is more than the {cores} cores this process may use: "
                        f"the search runs {cores} threads")
            options["threads"] = cores

    unanswered = []  # Sudoku puzzles the search gave up on before finding a solution

    def answers():
        for puzzle in puzzles:
            if steps:
                _print_rounds(puzzle, as_json=args.json)
            answer = app.count(puzzle, limit=args.count_limit, fmt=args.output_format, options=options)
            if answer.stopped == "gave_up" and args.kind_module.KIND == "sudoku":
                unanswered.append(puzzle.label)
            yield answer

    status = _report(answers(), puzzles, args, dumps=[None] * len(puzzles), working="counting solutions")
    if unanswered and not args.quiet and not stop.requested():  # a stop asked for is not a search that failed
        which = unanswered[0] if len(unanswered) == 1 else f"{len(unanswered):,} puzzles"
        if args.seed is None:  # the deterministic search: the seeded one settles most large grids it gives up on
            search, seeded = ("deterministic search", "'--seed 1' runs the seeded complete search (restarts, and "
                              "clause learning from 25x25), which settles most grids this one gives up on; ")
        else:
            search, seeded = "seeded complete search", ""
        ending.note(f"gpu-sa: note: the {search} gave up on {which} without a solution; {seeded}'gpu-sa solve' "
                    "looks for one by local search, which often finds one where no complete search here does (49x49 "
                    "at 50 % givens: docs/algorithms.md, 'The complete search'), but proves nothing about other "
                    "solutions")
    return status


def _print_rounds(puzzle, *, as_json: bool) -> None:
    """``--steps``: the seed-002 rules round by round (``gpu_sa.puzzles.sudoku.exact.steps``), each printed as it
    comes."""
    import json

    from ...puzzles.sudoku.exact.steps import render_round, rule_rounds

    for step in rule_rounds(puzzle.givens, puzzle.order):
        if as_json:
            ending.emit(json.dumps({"puzzle": puzzle.label, "round": step.to_dict()}))
        else:
            ending.emit(f"{puzzle.label}: round {step.number}\n{render_round(step)}")
