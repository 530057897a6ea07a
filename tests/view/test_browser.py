"""The page in a real headless browser: Debian's Chromium and chromedriver, driven by Selenium.

Each test checks what a person sees against the API the page is built on, and leaves a
screenshot of its state in a temporary folder; GPU_SA_UPDATE_DOCS=1 writes them into docs/
(the README shows them). Without Selenium or Chromium the tests skip with the reason; under
CI (CI=true) a missing browser is a failure, since .ci/run installs one.
"""
import http.server
import importlib.util
import json
import os
import shutil
import tempfile
import threading
import time

import numpy as np
import pytest

import gpu_sa
from conftest import ROOT
from gpu_sa.view import server as view_server
from view_helpers import CLASH, EASY, NEVER_SOLVED, STALLS, cli_error_line, running_server

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
MISSING = ("selenium is not installed (pip install 'gpu-sa[test]')" if importlib.util.find_spec("selenium")
           is None else None) or (None if CHROMIUM and CHROMEDRIVER else
                                  "no chromium and chromedriver on PATH (apt-get install chromium chromium-driver)")
if MISSING and os.environ.get("CI") == "true":
    pytest.fail(f"browser tests cannot run in CI: {MISSING}", pytrace=False)
pytestmark = pytest.mark.skipif(MISSING is not None, reason=str(MISSING))
UPDATE = os.environ.get("GPU_SA_UPDATE_DOCS") == "1"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1150", "--hide-scrollbars")
WAIT = 120  # seconds: the first anneal compiles the chains' code in the server


@pytest.fixture(scope="module")
def server():
    with running_server("cpu") as running:
        yield running


@pytest.fixture(scope="module")
def driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="gpu-sa-chromium-")
    for flag in FLAGS + (f"--user-data-dir={profile}",):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the console: CSP reports
    browser = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield browser
    browser.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(server, driver):
    driver.get(server.url)
    wait(driver, lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "1")
    return driver


def wait(driver, condition, seconds=WAIT):
    """``condition``'s first true value within ``seconds``; past them, a failure that says what the page shows."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(driver, seconds, poll_frequency=0.1).until(condition)
    except TimeoutException:
        shown = driver.execute_script(
            "const $ = (id) => document.getElementById(id);"
            "return {status: $('anneal-status').textContent, message: $('message').textContent,"
            " records: $('chart').dataset.records, board: $('board').dataset.state,"
            " anneal_enabled: !$('anneal').disabled, stop_enabled: !$('stop').disabled};")
        pytest.fail(f"the page did not get there in {seconds} s; it shows {shown}")


def screenshot(driver, name, tmp_path, docs=True):
    """The page as it is now, in ``tmp_path``; also in docs/ (the README's pictures) with GPU_SA_UPDATE_DOCS=1."""
    path = tmp_path / f"{name}.png"
    assert driver.save_screenshot(str(path))
    if UPDATE and docs:
        shutil.copyfile(path, ROOT / "docs" / f"{name}.png")


def type_grid(driver, text):
    box = driver.find_element("id", "puzzle-text")
    box.clear()
    box.send_keys(text)


def click(driver, button):
    driver.find_element("id", button).click()


def board(driver):
    """(state, values, candidate sets) of every cell as the page shows them."""
    cells = driver.execute_script(
        "return [...document.querySelectorAll('#board .cell')].map(c => [c.dataset.value, c.dataset.candidates])")
    values = [int(v) if v else 0 for v, _ in cells]
    candidates = [{int(d) for d in c.split()} for _, c in cells]
    return driver.find_element("id", "board").get_attribute("data-state"), values, candidates


def text_of(driver, element):
    return driver.find_element("id", element).text


def Select(element):
    from selenium.webdriver.support.ui import Select as Choice

    return Choice(element)


def test_type_a_grid(page, tmp_path):
    type_grid(page, "1...\n..3.\n.4..\n...2")
    click(page, "load")
    wait(page, lambda d: len(board(d)[1]) == 16)
    state, values, candidates = board(page)
    assert state == "round-0"
    assert values == [1, 0, 0, 0, 0, 0, 3, 0, 0, 4, 0, 0, 0, 0, 0, 2]
    assert candidates[1] == {1, 2, 3, 4} and candidates[0] == {1}
    assert text_of(page, "message") == ""


def test_step_the_rules_one_round_at_a_time(page, tmp_path):
    from gpu_sa.puzzles.sudoku.exact.steps import rule_rounds

    puzzle = gpu_sa.parse(EASY)[0]
    expected = list(rule_rounds(puzzle.givens, puzzle.order))
    type_grid(page, EASY)
    click(page, "load")
    wait(page, lambda d: board(d)[0] == "round-0")
    assert board(page)[2] == [set(expected[0].candidates(cell)) for cell in range(81)]
    for step in expected[1:]:
        click(page, "rules")
        wait(page, lambda d: board(d)[0] == f"round-{step.number}")
        _, values, candidates = board(page)
        assert candidates == [set(step.candidates(cell)) for cell in range(81)]
        framed = page.execute_script("return [...document.querySelectorAll('#board .placed-now')]"
                                     ".map(c => Number(c.dataset.cell))")
        assert sorted(framed) == sorted(p["cell"] for p in step.placed)
        info = text_of(page, "round-info")
        assert info.startswith(f"round {step.number}: {len(step.placed)} cell")
        if step.number == 1:
            assert len(page.find_elements("css selector", "#changes li")) > 1
            screenshot(page, "view_rules", tmp_path)
    assert expected[-1].status == "solved" and "solved: every cell holds one digit" in info
    click(page, "previous")
    wait(page, lambda d: board(d)[0] == f"round-{expected[-2].number}")


def test_solution_shows_the_validated_solution(page, tmp_path):
    type_grid(page, EASY)
    click(page, "solve")
    wait(page, lambda d: board(d)[0] == "solved-exact")
    _, values, _ = board(page)
    puzzle = gpu_sa.parse(EASY)[0]
    assert puzzle.check(np.asarray(values) - 1) == []
    assert values == (puzzle.count_solutions(limit=1).solution + 1).tolist()
    assert text_of(page, "round-info").startswith("Exact search (seed 1): unique solution")
    screenshot(page, "view_solution", tmp_path)


def test_anneal_draws_records_live_and_ends_solved(page, tmp_path):
    type_grid(page, EASY)
    seed = page.find_element("id", "seed")
    seed.clear()
    seed.send_keys("1")
    click(page, "anneal")
    wait(page, lambda d: board(d)[0] == "solved-anneal")
    records = int(page.find_element("id", "chart").get_attribute("data-records"))
    assert records >= 1
    _, values, _ = board(page)
    assert gpu_sa.parse(EASY)[0].check(np.asarray(values) - 1) == []
    status = text_of(page, "anneal-status")
    assert status.startswith("Solved in ") and "seed 1" in status
    assert page.find_element("id", "anneal").is_enabled() and not page.find_element("id", "stop").is_enabled()
    screenshot(page, "view_anneal", tmp_path)


def test_a_click_within_the_typing_pause_is_not_lost(page, monkeypatch):
    """Anneal clicked within 0.4 s of typing loads the text itself. The pause's own load, fired while the click's
    was on its way, used to take a newer ticket: the click's load answered false and the click did nothing (the
    page sat at round 0 with Anneal enabled; three browser tests failed that way, now and then, on a 2-core VM).
    A slow load holds the click's on its way past the pause for certain."""
    load = view_server.api.load

    def slow_load(text):
        time.sleep(0.8)
        return load(text)

    monkeypatch.setattr(view_server.api, "load", slow_load)
    type_grid(page, EASY)
    click(page, "anneal")  # at once, well within the pause
    wait(page, lambda d: board(d)[0] == "solved-anneal")
    assert text_of(page, "anneal-status").startswith("Solved in ")


@pytest.mark.slow
def test_stop_ends_the_run_and_keeps_the_chart(page, server, tmp_path, monkeypatch):
    stop = view_server.Work.stop

    def stop_and_answer_after_the_run_ended(work, why):
        """The stop's answer comes after the run's stream has closed: a race the page once lost under a loaded
        CI run, when it took its own run, ended meanwhile, for another's ("The other run is stopping")."""
        stop(work, why)
        deadline = time.monotonic() + 30
        while work.id in server.works and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.5)  # the run's handler closes the stream once it has left server.works
        answered.set()

    answered = threading.Event()
    monkeypatch.setattr(view_server.Work, "stop", stop_and_answer_after_the_run_ended)
    type_grid(page, NEVER_SOLVED)  # only a stop ends its run (view_helpers)
    page.find_element("id", "move").send_keys("sirdey")
    seed = page.find_element("id", "seed")
    seed.clear()
    seed.send_keys("2")
    limit = page.find_element("id", "time-limit")  # the longest: the run may end only by the stop, however
    limit.clear()                                  # long a loaded machine takes to compile its chains
    limit.send_keys("3600")
    click(page, "anneal")
    wait(page, lambda d: int(d.find_element("id", "chart").get_attribute("data-records")) >= 3)
    assert page.find_element("id", "stop").is_enabled()
    click(page, "stop")
    wait(page, lambda d: text_of(d, "anneal-status").startswith("Stopped (a Stop request)"))
    wait(page, lambda d: d.find_element("id", "anneal").is_enabled())
    assert not server.runs
    assert answered.wait(WAIT)
    time.sleep(1.0)  # the page has had the stop's answer: what it shows stays
    assert text_of(page, "anneal-status").startswith("Stopped (a Stop request)")
    assert not page.find_element("id", "stop").is_enabled()
    screenshot(page, "view_anneal_stopped", tmp_path)


def test_a_bad_grid_shows_the_clis_line(page, tmp_path, monkeypatch, capsys):
    type_grid(page, CLASH)
    click(page, "load")
    wait(page, lambda d: text_of(d, "message") != "")
    assert text_of(page, "message") == cli_error_line(CLASH, monkeypatch, capsys)
    assert board(page)[0] == "empty"
    screenshot(page, "view_bad_grid", tmp_path)


# Another site's page, served from another port of the same host (another origin): it tries what a hostile
# page can do without the user's consent: "simple" POSTs that need no CORS preflight (text/plain, a form),
# a JSON POST (which needs a preflight the server never grants), and framing the page to click its buttons.
HOSTILE = """<!doctype html><html><head><meta charset="utf-8"><title>another site</title></head><body>
<form id="form" method="post" enctype="text/plain" target="sink" action="TARGET/api/anneal">
<input name='{"text": "EASY", "x": "' value='"}'></form>
<iframe name="sink"></iframe><iframe id="frame" src="TARGET/"></iframe><pre id="results"></pre>
<script>
const results = {};
async function attempt(name, path, init) {
  try {
    const response = await fetch("TARGET" + path, {method: "POST", body: JSON.stringify({text: "EASY"}), ...init});
    results[name] = `${response.type} ${response.status}`;
  } catch (error) {
    results[name] = "blocked";
  }
}
(async () => {
  await attempt("solve no-cors text/plain", "/api/solve", {mode: "no-cors", headers: {"Content-Type": "text/plain"}});
  await attempt("anneal no-cors text/plain", "/api/anneal", {mode: "no-cors", headers: {"Content-Type": "text/plain"}});
  await attempt("rounds no-cors", "/api/rounds", {mode: "no-cors"});
  await attempt("solve json", "/api/solve", {headers: {"Content-Type": "application/json"}});
  document.getElementById("form").submit();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  document.getElementById("results").textContent = JSON.stringify(results);
  document.body.dataset.done = "1";
})();
</script></body></html>"""


def serve_hostile(target):
    page = HOSTILE.replace("TARGET", target.rstrip("/")).replace("EASY", EASY).encode()

    class Hostile(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args):
            pass

    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hostile)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    return other


@pytest.mark.slow
def test_another_sites_page_cannot_make_the_server_work(server, driver, monkeypatch):
    seen = []  # every POST's sender, and whether it was let through
    original = view_server.Handler._check_sender

    def watched(handler):
        try:
            original(handler)
        except Exception as error:
            seen.append((handler.path, handler.headers.get("Origin"), getattr(error, "status", None)))
            raise
        seen.append((handler.path, handler.headers.get("Origin"), 200))

    # The last test's page may still have a load on its way (its typing pause's): it is this server's own page and
    # let through, but it must not be counted here. Off that page, and a moment for what it sent to arrive.
    driver.get("about:blank")
    time.sleep(0.5)
    monkeypatch.setattr(view_server.Handler, "_check_sender", watched)
    calls = []
    for name in ("load", "rounds", "solve"):
        monkeypatch.setattr(view_server.api, name, lambda *a, _n=name, **k: calls.append(_n))
    other = serve_hostile(server.url)
    try:
        driver.get_log("browser")  # drop earlier entries
        driver.get(f"http://127.0.0.1:{other.server_address[1]}/")
        wait(driver, lambda d: d.find_element("tag name", "body").get_attribute("data-done") == "1")
        results = json.loads(text_of(driver, "results"))
        log = " ".join(entry["message"] for entry in driver.get_log("browser"))
    finally:
        other.shutdown()
        other.server_close()
    # the JSON POST's preflight got no CORS grant; the "simple" POSTs went out (the server saw them, below), and
    # their answers are refused to the page (Cross-Origin-Resource-Policy: same-origin)
    assert set(results.values()) == {"blocked"}, results
    refused = [entry for entry in seen if entry[2] == 403]
    assert {path for path, _, _ in refused} >= {"/api/solve", "/api/anneal", "/api/rounds"}, seen
    assert all(origin == f"http://127.0.0.1:{other.server_address[1]}" for _, origin, _ in refused)
    assert not [entry for entry in seen if entry[2] == 200] and calls == [] and not server.runs
    assert "frame-ancestors" in log or "X-Frame-Options" in log, log  # the page refused to be framed


def test_the_page_runs_under_its_content_security_policy(page):
    page.get_log("browser")
    click(page, "solve")
    wait(page, lambda d: board(d)[0] == "solved-exact")
    assert "Content Security Policy" not in " ".join(entry["message"] for entry in page.get_log("browser"))


def test_the_page_stops_an_anneal_it_did_not_start(page, server):
    from view_helpers import request

    empty64 = "\n".join([" ".join(["0"] * 64)] * 64)
    other = threading.Thread(target=request, args=(server, "POST", "/api/anneal",
                                                   {"text": empty64, "chains": 64, "seed": "1", "time_limit": 120}))
    other.start()  # a client that is not this page
    deadline = time.monotonic() + WAIT
    while not server.runs and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.runs
    type_grid(page, EASY)
    click(page, "anneal")
    wait(page, lambda d: "another anneal is running" in text_of(d, "message"))
    wait(page, lambda d: d.find_element("id", "stop").is_enabled())
    click(page, "stop")
    other.join(30)
    assert not other.is_alive() and not server.runs
    wait(page, lambda d: text_of(d, "anneal-status").startswith("The other run is stopping"))
    assert not page.find_element("id", "stop").is_enabled()


# Stale results, and the layout at 1280x800.

FOUR = "1...\n..3.\n.4..\n...2"


@pytest.fixture
def laptop(page):
    """The page in a 1280x800 viewport (a common laptop screen), for one test."""
    page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                         {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    page.get(page.current_url)
    wait(page, lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "1")
    yield page
    page.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def paste(driver, text):
    """Text put in the box as a paste does: one input event."""
    driver.execute_script("const box = document.getElementById('puzzle-text'); box.value = arguments[0];"
                          "box.dispatchEvent(new Event('input', {bubbles: true}));", text)


def shown_givens(driver):
    """The givens the board shows (0 = not a given), from its cells' classes and values."""
    return driver.execute_script("return [...document.querySelectorAll('#board .cell')]"
                                 ".map(c => c.classList.contains('given') ? Number(c.dataset.value) : 0)")


def givens_of(text):
    return (np.asarray(gpu_sa.parse(text)[0].givens) + 1).tolist()


@pytest.mark.slow
def test_a_typed_puzzle_never_shows_the_previous_board(laptop, tmp_path):
    """After Solution on one puzzle, typing another left its solution and 'Exact search (seed 1): unique solution'
    on the page, even for givens that clash."""
    type_grid(laptop, EASY)
    click(laptop, "solve")
    wait(laptop, lambda d: board(d)[0] == "solved-exact")
    box = laptop.find_element("id", "puzzle-text")
    box.clear()
    for typed in range(1, len(FOUR) + 1):  # key by key: at no moment is the 9x9's board or verdict shown
        box.send_keys(FOUR[typed - 1])
        state, values, _ = board(laptop)
        assert state != "solved-exact" and len(values) in (0, 16), (typed, state)
        assert not text_of(laptop, "round-info").startswith("Exact search")
    wait(laptop, lambda d: board(d)[0] == "round-0")
    assert shown_givens(laptop) == givens_of(FOUR) and text_of(laptop, "round-info").startswith("round 0")
    paste(laptop, CLASH)
    assert board(laptop)[0] in ("typing", "empty")  # at once, before the server has answered
    wait(laptop, lambda d: text_of(d, "message") != "")
    assert board(laptop)[0] == "empty" and text_of(laptop, "round-info") == ""
    paste(laptop, STALLS)
    wait(laptop, lambda d: board(d)[0] == "round-0")
    assert shown_givens(laptop) == givens_of(STALLS) and text_of(laptop, "message") == ""
    screenshot(laptop, "view_typed", tmp_path, docs=False)


def test_another_puzzle_clears_the_last_anneal(laptop, tmp_path):
    """The last anneal's chart and 'Solved in ...' stayed after another puzzle was loaded."""
    type_grid(laptop, EASY)
    seed = laptop.find_element("id", "seed")
    seed.clear()
    seed.send_keys("1")
    click(laptop, "anneal")
    wait(laptop, lambda d: board(d)[0] == "solved-anneal")
    assert text_of(laptop, "anneal-status").startswith("Solved in ")
    assert int(laptop.find_element("id", "chart").get_attribute("data-records")) >= 1
    Select(laptop.find_element("id", "example")).select_by_index(4)  # the 4x4
    wait(laptop, lambda d: board(d)[0] == "round-0" and len(board(d)[1]) == 16)
    assert text_of(laptop, "anneal-status") == ""
    assert laptop.find_element("id", "chart").get_attribute("data-records") == "0"
    assert shown_givens(laptop) == givens_of(FOUR)


def test_the_anneal_keeps_its_puzzle_until_it_ends(laptop):
    """While a run goes, the box and the examples are locked (Stop ends the run): its result can only be drawn
    on its own puzzle."""
    type_grid(laptop, STALLS)
    laptop.find_element("id", "move").send_keys("sirdey")  # swap, since its fix, may solve STALLS before the checks
    click(laptop, "anneal")
    wait(laptop, lambda d: not d.find_element("id", "anneal").is_enabled())
    assert not laptop.find_element("id", "puzzle-text").is_enabled()
    assert not laptop.find_element("id", "example").is_enabled()
    click(laptop, "stop")
    wait(laptop, lambda d: d.find_element("id", "anneal").is_enabled())
    assert laptop.find_element("id", "puzzle-text").is_enabled()


@pytest.mark.parametrize("example,side", [(0, 9), (4, 16), (5, 25)], ids=["9x9", "16x16", "25x25"])
def test_the_board_is_in_view_beside_the_panels_at_1280x800(laptop, example, side, tmp_path):
    """At 1280 px the 16x16 and 25x25 boards dropped below the charts, about 1150 px down."""
    Select(laptop.find_element("id", "example")).select_by_index(example + 1)  # option 0: "your own"
    wait(laptop, lambda d: board(d)[0] == "round-0" and len(board(d)[1]) == side * side)
    box = laptop.execute_script("const r = document.getElementById('board').getBoundingClientRect();"
                                "const p = document.getElementById('input-panel').getBoundingClientRect();"
                                "return [r.left, r.top, r.right, r.bottom, p.right, innerWidth, innerHeight];")
    left, top, right, bottom, panel_right, width, height = box
    assert (width, height) == (1280, 800)
    assert left >= panel_right and top >= 0 and right <= width and bottom <= height, box
    cell = laptop.execute_script("return document.querySelector('#board .cell').getBoundingClientRect().width")
    assert cell >= (24 if side == 25 else 36)  # readable: the board uses the room it has
    screenshot(laptop, f"view_{side}x{side}_1280", tmp_path, docs=False)


def test_two_digit_struck_candidates_stay_apart(laptop, tmp_path):
    """On a 16x16 the struck two-digit pencil marks of a round ran together ('1213')."""
    Select(laptop.find_element("id", "example")).select_by_index(5)  # the 16x16
    wait(laptop, lambda d: board(d)[0] == "round-0" and len(board(d)[1]) == 256)
    click(laptop, "rules")
    wait(laptop, lambda d: board(d)[0] == "round-1")
    overlaps = laptop.execute_script("""
        const gaps = [];
        for (const marks of document.querySelectorAll('#board .marks')) {
          const boxes = [...marks.children].map((span) => {
            if (!span.textContent) return null;
            const range = document.createRange();
            range.selectNodeContents(span);
            const text = range.getBoundingClientRect(), slot = span.getBoundingClientRect();
            return {text, slot, struck: span.classList.contains('removed'), two: span.textContent.length === 2};
          });
          boxes.forEach((box, i) => {
            if (!box || !box.struck || !box.two) return;
            const next = boxes[i + 1];
            if (box.text.left < box.slot.left - 0.5 || box.text.right > box.slot.right + 0.5) gaps.push('outside');
            if (next && (i + 1) % 4 && next.text.left - box.text.right < 1) gaps.push(next.text.left - box.text.right);
          });
        }
        return [gaps, document.querySelectorAll('#board .marks span.removed').length];""")
    gaps, struck = overlaps
    assert struck > 0 and gaps == []
    screenshot(laptop, "view_16x16_round1", tmp_path, docs=False)
