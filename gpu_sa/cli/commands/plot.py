"""gpu-sa plot: a run's trace, or a time-to-solution table, drawn as PNG, SVG or PDF (``gpu_sa.view.plot``)."""
from __future__ import annotations

import sys
from pathlib import Path

from ...engine import trace as trace_module
from ...options import MAX_INPUT_MB
from ...view.plot import PlotError, draw_trace, draw_tts, format_of, load, save, select_puzzles

COMPILES = False  # pictures only: numba is never needed (gpu_sa.cli.main announces compilations of the others)
HELP = "draw a run's trace (cost, acceptance, temperature) or a TTS table as PNG, SVG or PDF"
DESCRIPTION = ("Draw TRACE, a file written by 'solve --trace' (cost and acceptance against moves and against "
               "temperature), or the output of 'bench/tts.py --json' (success probability and TTS99 against the "
               "budget of moves per chain), into FILE.")
EPILOG = "Exit status: 0 drawn, 2 bad input or usage (matplotlib missing: pip install 'gpu-sa[plot]')."
MISSING_MATPLOTLIB = "gpu-sa plot needs matplotlib: pip install 'gpu-sa[plot]'"
EXIT_DRAWN, EXIT_USAGE = 0, 2


def add_arguments(parser) -> None:
    parser.add_argument("input", metavar="TRACE", help="trace file (JSON Lines or CSV from 'solve --trace'), or the "
                                                       "output of 'bench/tts.py --json'")
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="picture to write; its suffix picks the format: .png, .svg or .pdf (an existing file "
                             "is replaced, as by every plotting tool; a directory, a device or an empty name is "
                             "refused)")
    parser.add_argument("--kind", choices=("auto", "trace", "tts"), default="auto",
                        help="what TRACE holds (default: auto, from its content)")
    parser.add_argument("--puzzle", action="append", metavar="LABEL",
                        help="draw only this puzzle (its label, e.g. 'puzzles.txt:3'); repeat for several "
                             "(default: every puzzle of the file)")
    parser.add_argument("--tts-unit", choices=("moves", "seconds"), default="moves",
                        help="tts: TTS99 in moves per chain (default; device independent) or in seconds at the "
                             "proposal rate measured by the run")
    parser.add_argument("--title", default=None, help="title above the picture (default: the file's name)")
    parser.add_argument("--max-input", type=_megabytes, default=None, metavar="MB",
                        help=f"read at most this many MB of TRACE (default {MAX_INPUT_MB}); a larger or endless file "
                             f"is refused in one line")


def _megabytes(text):
    import argparse

    from ...options import Integer, shown

    try:
        return Integer(1, 10**6)(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer from 1 to 1000000, got {shown(text)}") from None


def run(args) -> int:
    from ...options import check_output

    check_output(args.output, "--output", overwrite=True)  # a file: not a directory, a device or an empty name
    try:
        picture_format = format_of(args.output)
        kind, records = load(args.input, args.kind, max_mb=args.max_input)
        records = select_puzzles(records, args.puzzle)
        try:
            import matplotlib
        except ImportError:
            print(f"gpu-sa: error: {MISSING_MATPLOTLIB}", file=sys.stderr)
            return EXIT_USAGE
        matplotlib.use("Agg")
        title = args.title if args.title is not None else Path(args.input).name
        figure = draw_trace(records, title) if kind == "trace" else draw_tts(records, title, args.tts_unit)
        save(figure, args.output, picture_format)
    except (PlotError, trace_module.TraceError) as error:
        print(f"gpu-sa: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as error:
        print(f"gpu-sa: error: {args.output}: {error.strerror}", file=sys.stderr)
        return EXIT_USAGE
    puzzles = len(dict.fromkeys(r.get("puzzle") for r in records))
    print(f"gpu-sa: drew {len(records)} {kind} records ({puzzles} puzzle{'s' * (puzzles != 1)}) into {args.output}",
          file=sys.stderr)
    return EXIT_DRAWN
