"""gpu-sa view: serve the web page (``gpu_sa.view``) until Ctrl-C (or SIGTERM/SIGHUP).

``run`` returns 128 + the signal's number (130 for Ctrl-C) once stopped, 2 when the port cannot be had or
the backend is unavailable.
"""
from __future__ import annotations

import signal
import sys
import threading
import time
import webbrowser

from ...engine import backends, stop

HELP = "a local web page: step through the three rules, solve exactly, watch the annealer live"
DESCRIPTION = ("Serve a web page on 127.0.0.1 where you type or paste a Sudoku (order 2 to 8, every format "
               "'solve' reads), press 'Rules' to apply the three rules (naked single, hidden single, naked pair) one round at a time with every "
               "cell's candidates shown, 'Solution' to finish with the exact search, and 'Anneal' to watch a run's "
               "best cost, temperature and acceptance live. Ctrl-C stops the server. The server admits only its own "
               "page (other web sites' requests are refused) and bounds every request and run: docs/cli.md, 'gpu-sa "
               "view', and SECURITY.md.")
EPILOG = "Exit status: 130 stopped by Ctrl-C (143 SIGTERM, 129 SIGHUP), 2 the port is in use or bad usage."
EXIT_USAGE = 2
STOP_SIGNALS = tuple(s for s in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s is not None)


def add_arguments(parser) -> None:
    parser.add_argument("--port", type=_port, default=8765,
                        help="port on 127.0.0.1 to serve on (default 8765; 0 = any free port; the address is printed)")
    parser.add_argument("--no-browser", action="store_true", help="do not open the page in a web browser")
    parser.add_argument("--backend", choices=backends.BACKENDS, default="auto",
                        help="where the page's annealing runs (default: auto = cuda if a GPU is usable, else cpu; auto "
                             "runs move tabu on cpu, where it is far faster per chain)")


def _port(text):
    import argparse

    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port between 0 and 65535, got {port}")
    return port


def run(args) -> int:
    from ...view.server import ViewServer

    try:
        backend, why = backends.select(args.backend)
    except (ValueError, backends.BackendUnavailable) as error:
        print(f"gpu-sa: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        server = ViewServer(args.port, backend, why, auto=args.backend == "auto")
    except OSError as error:
        hint = "; choose another with --port, or --port 0 for any free one" if args.port else ""
        print(f"gpu-sa: error: cannot serve on 127.0.0.1:{args.port}: {error.strerror}{hint}", file=sys.stderr)
        return EXIT_USAGE
    stop.clear()
    previous = {signum: signal.signal(signum, _request_stop) for signum in STOP_SIGNALS}
    serving = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True,
                               name="gpu-sa-view")
    serving.start()
    print(f"gpu-sa view: serving on {server.url} (annealing on {backend.name}: {why}); Ctrl-C stops it", flush=True)
    if not args.no_browser:
        webbrowser.open(server.url)
    try:
        while not stop.requested():
            time.sleep(0.2)  # a signal's handler sets the flag; the loop then ends
    except KeyboardInterrupt:  # a handler installed before ours may still raise it
        stop.request(signal.SIGINT)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        server.stop_runs()
        server.shutdown()
        server.server_close()
    signum = stop.signal_number() or signal.SIGINT
    print(f"gpu-sa view: stopped ({signal.Signals(signum).name})", file=sys.stderr, flush=True)
    stop.clear()
    return 128 + int(signum)


def _request_stop(signum, frame):
    stop.request(signum)
