"""The page's HTTP server: static files from the package, a small JSON API, runs streamed live.

    GET  /                     the page (static/index.html); /static/NAME its scripts and styles
    GET  /api/info             backend, moves, limits
    POST /api/load   {text}    the first puzzle of the text and its round 0 (givens, every digit elsewhere)
    POST /api/rounds {text}    seed 002's rule rounds (gpu_sa.exact.steps), up to a fixpoint, a solved
                               grid or a contradiction
    POST /api/solve  {text}    the exact search, counting to 2
    POST /api/anneal {text, move, chains, seed, time_limit}
                               a stream of JSON lines: start, progress (one per chunk), then result
                               or stopped
    POST /api/stop   {run}     stop that run (and no other) before its next chunk

Every answer is JSON; an error is ``{"error": one line}`` with status 4xx (5xx for a bug).
Runs: one anneal at a time per server (the chains already use every core); each has its own
stop event, set by /api/stop, by the page going away (its stream breaks) or by the server
stopping. Only 127.0.0.1 is served, and a request must name it (or localhost) as its Host,
so that another site's page cannot reach the server through DNS rebinding.
"""
from __future__ import annotations

import json
import secrets
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources

from .. import __version__, runner
from ..puzzles.sudoku import DEFAULT_MOVE, MOVES
from . import api

HOST = "127.0.0.1"
MAX_BODY = 1 << 20  # bytes; a 64x64 grid in the numbers format is about 12 KB
STATIC_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}


class RunStopped(Exception):
    """Raised from a run's progress callback: its page asked to stop, went away, or the server stops."""


class ViewServer(ThreadingHTTPServer):
    daemon_threads = True
    # allow_reuse_address stays on (a restart may bind while old connections linger); SO_REUSEPORT stays
    # off, so a port that another server listens on is still an error
    allow_reuse_port = False

    def __init__(self, port: int, backend, backend_why: str):
        super().__init__((HOST, port), Handler)
        self.backend, self.backend_why = backend, backend_why
        self.stopping = threading.Event()
        self.anneal_slot = threading.Lock()
        self.runs: dict[str, threading.Event] = {}
        self.static = {entry.name: entry for entry in resources.files(__package__).joinpath("static").iterdir()
                       if entry.is_file() and _suffix(entry.name) in STATIC_TYPES}

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}/"

    def handle_error(self, request, client_address):
        """A request that failed outside the handler's own checks: one line, not a traceback."""
        error = sys.exc_info()[1]
        if not isinstance(error, (BrokenPipeError, ConnectionResetError)):
            print(f"gpu-sa view: a request from {client_address[0]} failed: {_internal(error)}", file=sys.stderr)

    def stop_runs(self) -> None:
        """Every run stops before its next chunk; called as the server shuts down."""
        self.stopping.set()
        for event in list(self.runs.values()):
            event.set()


class Handler(BaseHTTPRequestHandler):
    server: ViewServer
    server_version = f"gpu-sa/{__version__}"

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass  # the terminal shows the URL and the stop line only

    def do_GET(self):  # noqa: N802 - http.server's naming
        if not self._host_ok():
            return
        path = self.path.split("?", 1)[0]
        if path == "/":
            return self._static("index.html")
        if path.startswith("/static/"):
            return self._static(path[len("/static/"):])
        if path == "/api/info":
            return self._json({"version": __version__, "backend": self.server.backend.name,
                               "backend_why": self.server.backend_why, "moves": list(MOVES),
                               "default_move": DEFAULT_MOVE,
                               "default_chains": api.page_chains(self.server.backend),
                               "default_time_limit": api.DEFAULT_TIME_LIMIT, "max_chains": api.MAX_CHAINS})
        self._json({"error": f"gpu-sa: error: no such page: {path}"}, HTTPStatus.NOT_FOUND)

    def do_POST(self):  # noqa: N802
        if not self._host_ok():
            return
        try:
            routes = {"/api/load": api.load, "/api/rounds": api.rounds, "/api/solve": api.solve}
            body = self._body()
            if self.path in routes:
                return self._json(routes[self.path](body.get("text")))
            if self.path == "/api/anneal":
                return self._anneal(body)
            if self.path == "/api/stop":
                event = self.server.runs.get(str(body.get("run")))
                if event is not None:
                    event.set()
                return self._json({"stopping": event is not None})
            raise api.ApiError(f"no such action: {self.path}", HTTPStatus.NOT_FOUND)
        except api.ApiError as error:
            self._json({"error": str(error)}, error.status)
        except Exception as error:  # a bug: one line on the page, not a traceback in the terminal
            self._json({"error": _internal(error)}, HTTPStatus.INTERNAL_SERVER_ERROR)

    def _host_ok(self):
        port = self.server.server_address[1]
        if self.headers.get("Host") in (f"{HOST}:{port}", f"localhost:{port}"):
            return True
        self._json({"error": "gpu-sa: error: this server answers only to 127.0.0.1"}, HTTPStatus.FORBIDDEN)
        return False

    def _body(self) -> dict:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            raise api.ApiError("bad Content-Length") from None
        if length > MAX_BODY:
            raise api.ApiError(f"the request is larger than {MAX_BODY:,} bytes", HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise api.ApiError("the request is not JSON") from None
        if not isinstance(body, dict):
            raise api.ApiError("the request is not a JSON object")
        return body

    def _json(self, payload, status=HTTPStatus.OK):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)

    def _static(self, name):
        entry = self.server.static.get(name)
        if entry is None:
            return self._json({"error": f"gpu-sa: error: no such file: {name}"}, HTTPStatus.NOT_FOUND)
        data = entry.read_bytes()
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", STATIC_TYPES[_suffix(name)])
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)

    def _anneal(self, body):
        puzzle, _ = api.puzzle_of(body.get("text"))
        options = api.anneal_options(body, self.server.backend)
        if puzzle.contradicts():  # as solve does: no chain could ever reach cost 0
            raise api.ApiError("no solution: the seed-002 rules alone find a contradiction in these givens", 422)
        if not self.server.anneal_slot.acquire(blocking=False):
            raise api.ApiError("another anneal is running on this server; stop it first", HTTPStatus.CONFLICT)
        run_id = secrets.token_hex(8)
        stop = self.server.runs[run_id] = threading.Event()
        last = {}

        def progress(record):
            if stop.is_set() or self.server.stopping.is_set():
                raise RunStopped
            last.update(api.progress_json(record))
            self._line(last)

        try:
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "application/x-ndjson")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()  # HTTP/1.0: the stream ends when the connection closes
            self._line({"event": "start", "run": run_id, "backend": self.server.backend.name,
                        **options, "seed": str(options["seed"])})
            try:
                result = runner.anneal(puzzle, backend=self.server.backend, progress=progress, **options)
            except RunStopped:
                why = "the server is stopping" if self.server.stopping.is_set() else "stopped by the page"
                self._line({"event": "stopped", "why": why, "best_cost": last.get("best_cost"),
                            "moves": last.get("moves"), "trial": last.get("trial")})
                return
            except Exception as error:  # a bug: one line on the page, not a traceback in the terminal
                self._line({"event": "error", "error": _internal(error)})
                return
            self._line(api.result_json(puzzle, result))
        except RunStopped:
            pass  # the page went away; its run is over
        finally:
            del self.server.runs[run_id]
            self.server.anneal_slot.release()

    def _line(self, payload):
        try:
            self.wfile.write(json.dumps(payload).encode() + b"\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            raise RunStopped from None  # the page is gone: stop its run


def _internal(error):
    return f"gpu-sa: error: internal error ({type(error).__name__}: {error}); please report it"


def _suffix(name):
    return name[name.rfind("."):] if "." in name else ""
