"""The page's HTTP server: static files from the package, a small JSON API, runs streamed live.

    GET  /                     the page (static/index.html); /static/NAME its scripts and styles
    GET  /api/info             backend, moves, limits
    GET  /api/runs             every search and anneal running on this server, whoever asked for it
    POST /api/load   {text}    the first puzzle of the text and its round 0 (givens, every digit elsewhere)
    POST /api/rounds {text}    seed 002's rule rounds (gpu_sa.puzzles.sudoku.exact.steps), up to a fixpoint, a solved
                               grid or a contradiction
    POST /api/solve  {text, seed}
                               the seeded exact search (seed: default api.SOLVE_SEED), counting to 2,
                               within api.SOLVE_TIME_LIMIT seconds
    POST /api/anneal {text, move, chains, seed, time_limit}
                               a stream of JSON lines: start, progress (one per chunk), then result
                               or stopped
    POST /api/stop   {run}     stop that run (any run of this server: the page can end another's)

Every answer is JSON; an error is ``{"error": one line}`` with status 4xx (5xx for a bug).

What the server trusts (docs/security.md, "The web page's server"): it listens on 127.0.0.1 only and answers
only requests that name 127.0.0.1 or localhost as their Host (DNS rebinding). A POST changes state (it starts work), so
it must come from the page itself: a browser's ``Origin`` must be this server's, its ``Sec-Fetch-Site``
``same-origin``; a request with neither (curl, a script) is accepted. Every POST must be
``application/json``, which a page of another site cannot send without a CORS preflight, and the server
grants none. Every response carries ``nosniff``, a Content-Security-Policy that allows the page's own
files only, and forbids framing.

Bounds: a request must arrive whole (line, headers, body of at most MAX_BODY bytes, JSON nested at most
MAX_JSON_DEPTH deep) within REQUEST_SECONDS; at most MAX_CONNECTIONS connections at once (the next ones
get 503 at once); at most MAX_SEARCHES rule rounds or exact searches at once, each search within
``api.SOLVE_TIME_LIMIT`` seconds and ``api.SOLVE_MAX_NODES`` nodes; one anneal at a time (the chains
already use every core), within its time limit. A run stops when ``/api/stop`` names it, when its client
goes away (checked every poll of the serving loop, whether or not the run has written anything), or
when the server stops.
"""
from __future__ import annotations

import json
import re
import secrets
import select
import socket
import sys
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources

import numpy as np

from .. import __version__
from ..engine import backends, runner, stop
from ..puzzles.sudoku import CPU_PREFERRED, DEFAULT_MOVE, MOVES
from . import api

HOST = "127.0.0.1"
MAX_BODY = 1 << 20  # bytes; a 64x64 grid in the numbers format is about 12 KB
MAX_JSON_DEPTH = 4  # the API's bodies are flat objects; deeper nesting is refused, never recursed into
MAX_CONNECTIONS = 32  # open at once; the page needs two (a stream and a request)
MAX_SEARCHES = 2  # rule rounds and exact searches at once
REQUEST_SECONDS = 10.0  # to send a whole request, and the socket's timeout for each read or write
STATIC_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    # the page's own script and style files only: no inline code, no other site, no framing
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                               "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
}
SAME_ORIGIN_FETCHES = ("same-origin", "none")  # Sec-Fetch-Site values of the page's own requests
CONTENT_LENGTH = re.compile(r"[0-9]{1,19}")  # digits only: int() would also take '+5', ' 5', '5_0'


class RunStopped(Exception):
    """Raised from a run's progress callback: it was asked to stop, its client went away, or the server stops."""


class Work:
    """A search or an anneal in flight: what ``/api/runs`` lists and ``/api/stop`` ends.

    ``flag`` is the stop flag the exact search polls (``gpu_sa.engine.stop``'s protocol: 1 = stop); the anneal's
    progress callback reads it between chunks."""

    def __init__(self, kind: str, connection, detail: dict):
        self.id = secrets.token_hex(8)
        self.kind, self.connection, self.detail = kind, connection, detail
        self.started = time.monotonic()
        self.flag = np.zeros(1, dtype=np.uint8)
        self.why: str | None = None

    def stop(self, why: str) -> None:
        if self.why is None:
            self.why = why
        self.flag[0] = 1

    @property
    def stopped(self) -> bool:
        return bool(self.flag[0])

    def to_json(self) -> dict:
        return {"run": self.id, "kind": self.kind, "seconds": round(time.monotonic() - self.started, 1),
                **self.detail}


class ViewServer(ThreadingHTTPServer):
    daemon_threads = True
    # allow_reuse_address stays on (a restart may bind while old connections linger); SO_REUSEPORT stays
    # off, so a port that another server listens on is still an error
    allow_reuse_port = False
    request_queue_size = MAX_CONNECTIONS

    def __init__(self, port: int, backend, backend_why: str, *, auto: bool = False):
        super().__init__((HOST, port), Handler)
        self.backend, self.backend_why = backend, backend_why
        # with auto beside a GPU, a move whose GPU kernel loses runs on the CPU (backend_for)
        self.cpu_backend = backends.CpuBackend() if auto and backend.name == "cuda" else None
        self.stopping = threading.Event()
        self.anneal_slot = threading.Lock()
        self.searches = threading.BoundedSemaphore(MAX_SEARCHES)
        self.connections = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self.lock = threading.Lock()  # guards works and reading
        self.works: dict[str, Work] = {}
        self.reading: dict[socket.socket, float] = {}  # connections still sending their request: deadline
        self.static = {entry.name: entry for entry in resources.files(__package__).joinpath("static").iterdir()
                       if entry.is_file() and _suffix(entry.name) in STATIC_TYPES}

    def backend_for(self, move: str):
        """Where a run of ``move`` anneals: the server's backend, except that with ``auto`` a move that prefers the
        CPU (``puzzles.sudoku.CPU_PREFERRED``, empty now that move tabu has its block layout) runs on the CPU beside a
        GPU, as ``solve`` does."""
        return self.cpu_backend if self.cpu_backend is not None and CPU_PREFERRED.get(move) else self.backend

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}/"

    @property
    def runs(self) -> dict[str, Work]:
        """The anneals in flight, by id."""
        with self.lock:
            return {key: work for key, work in self.works.items() if work.kind == "anneal"}

    def process_request(self, request, client_address):
        """A thread per connection, up to MAX_CONNECTIONS; past that, 503 at once and the connection closed."""
        if not self.connections.acquire(blocking=False):
            try:
                request.settimeout(1.0)
                request.sendall(BUSY_RESPONSE)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.connections.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.connections.release()

    def service_actions(self):
        """Between polls of the serving loop: close connections whose request is late, stop runs whose client left."""
        now = time.monotonic()
        with self.lock:
            late = [connection for connection, deadline in self.reading.items() if now > deadline]
            for connection in late:
                del self.reading[connection]
            works = list(self.works.values())
        for connection in late:
            try:
                connection.shutdown(socket.SHUT_RDWR)  # its handler's read ends at once
            except OSError:
                pass
        for work in works:
            if not work.stopped and _client_gone(work.connection):
                work.stop("its page went away")

    def handle_error(self, request, client_address):
        """A request that failed outside the handler's own checks: one line, not a traceback."""
        error = sys.exc_info()[1]
        if not isinstance(error, OSError):
            print(f"gpu-sa view: a request from {client_address[0]} failed: {_internal(error)}", file=sys.stderr)

    def stop_runs(self) -> None:
        """Every run stops (searches within a fraction of a second, anneals before their next chunk); called as
        the server shuts down."""
        self.stopping.set()
        with self.lock:
            works = list(self.works.values())
        for work in works:
            work.stop("the server is stopping")

    def start_work(self, kind: str, connection, detail: dict) -> Work:
        work = Work(kind, connection, detail)
        with self.lock:
            self.works[work.id] = work
        if self.stopping.is_set():
            work.stop("the server is stopping")
        return work

    def end_work(self, work: Work) -> None:
        with self.lock:
            self.works.pop(work.id, None)


class Handler(BaseHTTPRequestHandler):
    server: ViewServer
    server_version = f"gpu-sa/{__version__}"
    timeout = REQUEST_SECONDS  # the socket's timeout: no read or write waits longer
    default_request_version = "HTTP/1.0"  # an HTTP/0.9 answer would have no headers, hence no security headers

    def setup(self):
        super().setup()
        with self.server.lock:
            self.server.reading[self.connection] = time.monotonic() + REQUEST_SECONDS

    def finish(self):
        self._request_read()
        try:
            super().finish()
        except OSError:
            pass  # the client is gone; nothing is left to flush to it

    def _request_read(self):
        with self.server.lock:
            self.server.reading.pop(self.connection, None)

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass  # the terminal shows the URL and the stop line only

    def end_headers(self):
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)
        super().end_headers()

    def send_error(self, code, message=None, explain=None):
        """http.server's own refusals (a bad request line, too many headers, an unknown method) as JSON."""
        self.close_connection = True
        status = HTTPStatus(code)
        text = message or status.phrase
        self._json({"error": f"gpu-sa: error: {text if len(text) <= 200 else text[:200] + '...'}"}, status)

    def do_GET(self):  # noqa: N802 - http.server's naming
        self._request_read()
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
                               "default_time_limit": api.DEFAULT_TIME_LIMIT, "max_chains": api.MAX_CHAINS,
                               "max_time_limit": api.MAX_TIME_LIMIT, "solve_time_limit": api.SOLVE_TIME_LIMIT})
        if path == "/api/runs":
            with self.server.lock:
                works = sorted(self.server.works.values(), key=lambda work: work.started)
            return self._json({"runs": [work.to_json() for work in works]})
        self._json({"error": f"gpu-sa: error: no such page: {path}"}, HTTPStatus.NOT_FOUND)

    def do_POST(self):  # noqa: N802
        try:
            if not self._host_ok():
                return
            self._check_sender()
            body = self._body()
            routes = {"/api/load": api.load}
            if self.path in routes:
                return self._json(routes[self.path](body.get("text")))
            if self.path in ("/api/rounds", "/api/solve"):
                return self._search(body)
            if self.path == "/api/anneal":
                return self._anneal(body)
            if self.path == "/api/stop":
                with self.server.lock:
                    work = self.server.works.get(str(body.get("run")))
                if work is not None:
                    work.stop("a Stop request")
                return self._json({"stopping": work is not None})
            raise api.ApiError(f"no such action: {self.path}", HTTPStatus.NOT_FOUND)
        except api.ApiError as error:
            self.close_connection = True
            self._json({"error": str(error), **error.details}, error.status)
        except Exception as error:  # a bug: one line on the page, not a traceback in the terminal
            self.close_connection = True
            self._json({"error": _internal(error)}, HTTPStatus.INTERNAL_SERVER_ERROR)
        finally:
            self._request_read()

    def _host_ok(self):
        port = self.server.server_address[1]
        if self.headers.get("Host") in (f"{HOST}:{port}", f"localhost:{port}"):
            return True
        self._request_read()
        self._json({"error": "gpu-sa: error: this server answers only to 127.0.0.1"}, HTTPStatus.FORBIDDEN)
        return False

    def _check_sender(self):
        """A POST starts work: only from this server's own page (or a client that is no browser), and JSON."""
        port = self.server.server_address[1]
        origins = self.headers.get_all("Origin")
        if origins is not None and (len(origins) != 1 or origins[0] not in (f"http://{HOST}:{port}",
                                                                              f"http://localhost:{port}")):
            raise api.ApiError(f"requests from other web pages are refused (Origin {_shown(', '.join(origins))})",
                               HTTPStatus.FORBIDDEN)
        site = self.headers.get("Sec-Fetch-Site")
        if site is not None and site not in SAME_ORIGIN_FETCHES:
            raise api.ApiError(f"requests from other web pages are refused (Sec-Fetch-Site {_shown(site)})",
                               HTTPStatus.FORBIDDEN)
        kind = (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
        if kind != "application/json":
            raise api.ApiError(f"a POST must be application/json, not {_shown(kind) if kind else 'untyped'}",
                               HTTPStatus.UNSUPPORTED_MEDIA_TYPE)

    def _body(self) -> dict:
        """The request's JSON object, read within the request's deadline; its length checked before any read."""
        if self.headers.get("Transfer-Encoding") is not None:
            raise api.ApiError("send the body with a Content-Length, not a Transfer-Encoding", HTTPStatus.LENGTH_REQUIRED)
        lengths = self.headers.get_all("Content-Length")
        if not lengths:
            raise api.ApiError("a POST needs a Content-Length", HTTPStatus.LENGTH_REQUIRED)
        if len(set(lengths)) != 1 or not CONTENT_LENGTH.fullmatch(lengths[0]):
            raise api.ApiError(f"bad Content-Length {_shown(', '.join(lengths))}: expected one number of bytes")
        length = int(lengths[0])
        if length > MAX_BODY:
            raise api.ApiError(f"the request is larger than {MAX_BODY:,} bytes", HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
        try:
            data = self.rfile.read(length)
        except TimeoutError:
            raise api.ApiError(f"the request did not arrive within {REQUEST_SECONDS:g} s",
                               HTTPStatus.REQUEST_TIMEOUT) from None
        if len(data) < length:
            raise api.ApiError(f"the request ended after {len(data):,} of its {length:,} bytes")
        self._request_read()
        try:
            body = json.loads(data or b"{}")
        except RecursionError:
            body = None
        except (ValueError, UnicodeDecodeError):
            raise api.ApiError("the request is not JSON") from None
        if body is None or _depth(body) > MAX_JSON_DEPTH:
            raise api.ApiError(f"the request nests deeper than {MAX_JSON_DEPTH} levels")
        if not isinstance(body, dict):
            raise api.ApiError("the request is not a JSON object")
        return body

    def _json(self, payload, status=HTTPStatus.OK):
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            if status == HTTPStatus.SERVICE_UNAVAILABLE:
                self.send_header("Retry-After", "1")
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            self.close_connection = True  # the client left (or timed out) before its answer

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

    def _search(self, body):
        """Rule rounds or the exact search: at most MAX_SEARCHES at once, each stopped when its client leaves."""
        if not self.server.searches.acquire(blocking=False):
            raise api.ApiError(f"the server is busy with {MAX_SEARCHES} searches; try again when one ends",
                               HTTPStatus.SERVICE_UNAVAILABLE)
        kind = self.path.rsplit("/", 1)[1]
        work = self.server.start_work(kind, self.connection, {})
        try:
            if kind == "rounds":
                return self._json(api.rounds(body.get("text")))
            answer = api.solve(body.get("text"), seed=api.solve_seed(body), flag=work.flag)
            if work.stopped:
                answer["verdict"] = f"stopped ({work.why}) after {answer['nodes']:,} branches"
            self._json(answer)
        finally:
            self.server.end_work(work)
            self.server.searches.release()

    def _anneal(self, body):
        puzzle, _ = api.puzzle_of(body.get("text"))
        backend = self.server.backend_for(body.get("move") or DEFAULT_MOVE)
        options = api.anneal_options(body, backend, puzzle=puzzle)
        if puzzle.contradicts():  # as solve does: no chain could ever reach cost 0
            raise api.ApiError("no solution: the three rules alone find a contradiction in these givens", 422)
        if not self.server.anneal_slot.acquire(blocking=False):
            other = next(iter(self.server.runs.values()), None)
            raise api.ApiError("another anneal is running on this server"
                               + (f" ({other.to_json()['seconds']:g} s so far); Stop ends it" if other else ""),
                               HTTPStatus.CONFLICT, run=other.id if other else None)
        work = self.server.start_work("anneal", self.connection, {"chains": options["chains"], "side": puzzle.side,
                                                                  "move": options["move"]})
        last = {}

        def progress(record):
            if work.stopped:
                raise RunStopped
            last.update(api.progress_json(record))
            self._line(last)

        try:
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "application/x-ndjson")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()  # HTTP/1.0: the stream ends when the connection closes
            self._line({"event": "start", "run": work.id, "backend": backend.name,
                        **options, "seed": str(options["seed"])})
            try:
                result = runner.anneal(puzzle, backend=backend, progress=progress,
                                       stop_when=lambda: work.stopped, **options)
            except (RunStopped, stop.Interrupted):  # Interrupted: stopped before the chains had run
                result = None
            except Exception as error:  # a bug: one line on the page, not a traceback in the terminal
                self._line({"event": "error", "error": _internal(error)})
                return
            if result is None or result.stopped == "interrupted":
                self._line({"event": "stopped", "why": work.why or "the server is stopping", "best_cost": last.get("best_cost"),
                            "moves": last.get("moves"), "trial": last.get("trial")})
                return
            self._line(api.result_json(puzzle, result))
        except (RunStopped, OSError):
            pass  # the page went away; its run is over
        finally:
            self.server.end_work(work)
            self.server.anneal_slot.release()

    def _line(self, payload):
        try:
            self.wfile.write(json.dumps(payload).encode() + b"\n")
            self.wfile.flush()
        except OSError:
            raise RunStopped from None  # the page is gone (or stopped reading): stop its run


def _client_gone(connection) -> bool:
    """Whether the client closed its end: the request is read whole, so a readable socket means end of file."""
    try:
        readable, _, _ = select.select([connection], [], [], 0)
        return bool(readable) and connection.recv(1, socket.MSG_PEEK) == b""
    except ValueError:  # a descriptor past select's limit: cannot tell
        return False
    except OSError:
        return True


def _depth(value) -> int:
    """How deep arrays and objects nest in ``value`` (0: a scalar), counted without recursion; stops past the bound."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            if deepest > MAX_JSON_DEPTH:
                break
            pending.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def _shown(text: str, most: int = 80) -> str:
    """A header's value as an error message quotes it: repr, cut short."""
    return repr(text if len(text) <= most else text[:most] + "...")


def _busy_response() -> bytes:
    body = json.dumps({"error": f"gpu-sa: error: the server has {MAX_CONNECTIONS} connections open; try again"})
    head = ["HTTP/1.0 503 Service Unavailable", "Content-Type: application/json", f"Content-Length: {len(body)}",
            "Retry-After: 1", "Connection: close", *(f"{name}: {value}" for name, value in SECURITY_HEADERS.items())]
    return ("\r\n".join(head) + "\r\n\r\n" + body).encode()


BUSY_RESPONSE = _busy_response()


def _internal(error):
    return f"gpu-sa: error: internal error ({type(error).__name__}: {error}); please report it"


def _suffix(name):
    return name[name.rfind("."):] if "." in name else ""
