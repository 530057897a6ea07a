"""Shared by the web page's tests: a server in this process, and plain HTTP calls to it."""
import contextlib
import http.client
import io
import json
import threading

from gpu_sa.engine import backends
from gpu_sa.cli import main as cli
from gpu_sa.view.server import ViewServer

EASY = "..237.9....75684.2.8..9....1...4.8..2.4...7.6..6.2...1....5..1.5.19326....3.862.."
STALLS = "7.....4...2..7..8...3..8..9...5..3...6..2..9...1..7..6...3..9...3..4..6...9..1..5"
CLASH = "11" + "." * 79
# STALLS with one more given (a 2 in the last row): no solution, and the three rules do not see it (the server
# starts its anneal), so a run on it ends only when it is stopped. Sirdey's chains solve STALLS itself in about
# 20,000 moves (0.4 s): a stop test on it raced the solve and lost under a loaded CI run.
NEVER_SOLVED = "7.....4...2..7..8...3..8..9...5..3...6..2..9...1..7..6...3..9...3..4..6...9..12.5"


@contextlib.contextmanager
def running_server(backend="cpu"):
    """A ViewServer on a free port of 127.0.0.1, serving from a thread until the block ends."""
    chosen, why = backends.select(backend)
    server = ViewServer(0, chosen, why)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stop_runs()
        server.shutdown()
        server.server_close()
        thread.join(10)


def request(server, method, path, body=None, host=None, raw=None):
    """(status, parsed JSON; for a stream, the list of its JSON lines; else the text)."""
    port = server.server_address[1]
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"Host": host or f"127.0.0.1:{port}", "Content-Type": "application/json"}
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    connection.request(method, path, body=data, headers=headers)
    response = connection.getresponse()
    text = response.read().decode()
    connection.close()
    kind = response.getheader("Content-Type")
    if kind == "application/x-ndjson":
        return response.status, [json.loads(line) for line in text.splitlines()]
    return response.status, json.loads(text) if kind == "application/json" else text


def cli_error_line(text, monkeypatch, capsys):
    """The one line ``gpu-sa exact -`` prints for ``text`` on standard input, as the page would name it."""
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    assert cli.main(["exact", "-"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err.strip().replace("<stdin>", "<page>")
