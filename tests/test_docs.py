"""The README and the documentation site (docs/, built by MkDocs) show what the product does.

How examples are written, and what this file checks:

- A fenced block with the info string ``console`` holds commands and their output. A line that starts
  with ``$ `` is a command (``gpu-sa ...``, ``gpu-sa ... < FILE``, ``printf '...' | gpu-sa ...`` or
  ``gpu-sa ... | gpu-sa ...``), run from the repository root; the lines after it, up to the next command,
  are what it prints, as a terminal shows it: standard error and standard output interleaved in the order
  the command writes them (for a pipe, the first command's standard error, then what the last one prints).
  A line that is exactly ``...`` stands for any number of lines.
- Commands run in this process (``gpu_sa.cli.main.main``: no interpreter start-up or cache load per
  command), on the CPU, as CI has no GPU: ``--backend auto`` picks the cpu and says why (with
  GPU_SA_TEST_REAL_CUDA=1, on a GPU machine, these checks skip: the GPU's lines differ).
- Before comparing, both sides are normalised (``normalise``): times (``0.49 s``, ``12 ms``), the moves a
  run made in all (they end at a chunk boundary, which the clock sizes), the cores a launch spreads over,
  and temporary paths. Progress lines and the first run's compilation notice depend on the clock and are
  left out of the command's side.
- Output files named by a command (``-o``, ``--trace``, ``--dump-states``) go to a temporary folder; a
  later command of the same block that names the same file reads it there.
- A command exits 0, or 2 where it shows an error, or 1 where it shows a puzzle without a solution.
- A fenced ``python`` block runs as a script from the repository root, and the ``text`` block right after it
  is what it prints (the same normalisation).
- Every ``gpu-sa`` command shown anywhere (bash blocks, text blocks) runs in a console block, or is in
  ``NOT_RUN`` with the reason; every ``py`` block (an illustration that cannot run here) is in
  ``NOT_RUN_PYTHON``.

``GPU_SA_UPDATE_DOCS=1 python3 -m pytest tests/test_docs.py`` rewrites the shown outputs from real runs
(the blocks that already match stay as they are), so that a change of wording is one command to update.
"""
from __future__ import annotations

import importlib
import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import ROOT, cuda_mode

UPDATE = os.environ.get("GPU_SA_UPDATE_DOCS") == "1"
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
COMMANDS = ("solve", "exact", "generate", "minimize", "puzzle", "plot", "view")

# Commands that are shown but not run here, and why. Everything else shown is run.
CUDA = "needs a CUDA GPU (CI has none; bench/gpu.sh runs the kernels on one)"
NOT_RUN = {
    "gpu-sa view": "starts a web server and opens a browser: tests/view/ drive the page",
    "gpu-sa view --no-browser --port 8765": "starts a web server: tests/view/ drive the page",
    "gpu-sa solve examples/sudoku_16x16.txt --method anneal --backend cuda --seed 1": CUDA,
    "NUMBA_ENABLE_CUDASIM=1 gpu-sa solve examples/seed_easy.txt --method anneal --no-propagate --backend cuda "
    "--chains 8 --max-moves 200 --seed 1": "the simulator must be on before numba is imported, so not in this "
                                          "process: tests/cli/test_main.py runs the command line under it",
    "gpu-sa solve puzzles.txt --dask tcp://HOST:8786 --seed 1": "needs a running Dask scheduler",
    "gpu-sa solve puzzles.txt --workers 4 --seed 1": "starts a Dask cluster: tests/apps/test_distributed.py starts one",
}
NOT_RUN_PYTHON = {  # illustrations (fenced as ``py``), by their first line
    "from gpu_sa.puzzles.sudoku import exact": "a sketch: givens, order and givens_2d stand for the reader's data",
    "from gpu_sa.apps import distributed": "needs a Dask cluster (tests/apps/test_distributed.py starts one)",
}


def expected_status(shown: list[str]) -> int:
    """2 for a shown error, 1 for a puzzle shown unsolved or without a solution, else 0."""
    if any(line.startswith("gpu-sa: error:") for line in shown):
        return 2
    if any(re.search(r": (no solution|not solved)\b", line) for line in shown):
        return 1
    return 0


# The commands load what tests/warm_caches.py compiles (the complete search, the moves, minimisation): after it.
pytestmark = pytest.mark.after_the_warm_up

HELP_COLUMNS = "80"  # the width the shown --help texts were written at


# ---------------------------------------------------------------------------------------------- blocks
@dataclass
class Block:
    page: Path
    info: str
    start: int  # index of the first line inside the fence
    lines: list[str]

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.start + 1}"


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of a page; a block indented in a list item loses the indentation of its fence."""
    found, lines, opened = [], page.read_text().splitlines(), None
    for number, line in enumerate(lines):
        fence = re.match(r"( *)```(\S*)\s*$", line)
        if not fence:
            continue
        if opened is None:
            opened = (fence.group(2), number + 1, len(fence.group(1)))
        else:
            info, start, indent = opened
            found.append(Block(page, info, start, [text[indent:] for text in lines[start:number]]))
            opened = None
    assert opened is None, f"{page.name}: a fenced block is not closed"
    return found


@dataclass
class Example:
    block: Block
    command: str
    shown: list[str]
    offset: int  # index of the command line inside the block

    @property
    def id(self) -> str:
        return f"{self.block.page.name}:{self.block.start + self.offset + 1}: {self.command}"


def examples(block: Block) -> list[Example]:
    found, current = [], None
    for index, line in enumerate(block.lines):
        if line.startswith("$ "):
            current = Example(block, line[2:].strip(), [], index)
            found.append(current)
        else:
            assert current is not None, f"{block.where}: output before any command"
            current.shown.append(line)
    return found


def all_blocks() -> list[Block]:
    return [block for page in PAGES for block in blocks(page)]


def console_examples() -> list[Example]:
    return [example for block in all_blocks() if block.info == "console" for example in examples(block)]


# ---------------------------------------------------------------------------------------------- running
class _Stream(io.TextIOBase):
    """One of standard output and standard error, writing into a log the two share (their interleaving)."""

    def __init__(self, log: list, name: str):
        self.log, self.name = log, name

    def writable(self):
        return True

    def write(self, text):
        self.log.append((self.name, text))
        return len(text)


def run_in_process(args: list[str], stdin: str = "") -> tuple[int, str, str, str]:
    """(exit status, standard output, standard error, both interleaved) of ``gpu-sa ARGS`` run by this process."""
    main = importlib.import_module("gpu_sa.cli.main").main
    log: list = []
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8")
    sys.stdout, sys.stderr = _Stream(log, "out"), _Stream(log, "err")
    try:
        status = main(args)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    return status, *("".join(text for name, text in log if name == part) for part in ("out", "err")), "".join(
        text for _, text in log)


OUTPUT_OPTIONS = ("-o", "--output", "--trace", "--dump-states")


def run_example(command: str, files: dict[str, str], folder: Path) -> tuple[int, str]:
    """Run a shown command line; returns (exit status of its last command, what a terminal shows). ``files`` maps
    the output files named by the block's commands so far to their places in ``folder``."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars="|<")
    lexer.whitespace_split = True
    stages = [[]]
    for word in lexer:
        if word == "|":
            stages.append([])
        else:
            stages[-1].append(word)
    stdin, shown, status = "", "", 0
    for number, args in enumerate(stages):
        if args[0] == "printf":
            assert number == 0, command
            stdin = subprocess.run(args, capture_output=True, text=True, check=True).stdout
            continue
        assert args[0] == "gpu-sa", f"only gpu-sa commands run here: {command}"
        args = args[1:]
        if "<" in args:
            at = args.index("<")
            stdin = (ROOT / args[at + 1]).read_text()
            del args[at:at + 2]
        for at, word in enumerate(args):
            if at and args[at - 1] in OUTPUT_OPTIONS:
                files.setdefault(word, str(folder / Path(word).name))
            args[at] = files.get(word, word)
        status, out, error, both = run_in_process(args, stdin)
        if number == len(stages) - 1:
            shown += both
        else:  # its standard error shows, its standard output goes down the pipe
            shown += error
            stdin = out
    for name, path in files.items():
        shown = shown.replace(path, name)
    return status, shown


# ---------------------------------------------------------------------------------------------- comparing
# Lines that depend on the clock: progress (after a second, then every ten), the first run's compilation notice.
CLOCK_LINES = re.compile(r"^gpu-sa: compiling |\(Ctrl-C stops and reports\)$|\(Ctrl-C stops, keeping what is made\)$"
                         r"|moves/chain .* proposals/s$")
NORMALISE = [
    (re.compile(r"\b\d+(?:\.\d+)?(?:e[-+]?\d+)? ?(?:s|ms|us|µs)\b"), "<time>"),  # 0.49 s, 12 ms
    (re.compile(r'"(seconds|setup_seconds|unique_seconds|moves|proposals)": [0-9.e+-]+'), r'"\1": <n>'),
    (re.compile(r"(\b\d[\d,]* chains? x )\d[\d,]*( moves?)"), r"\1<n>\2"),  # moves made in all: chunk boundaries
    (re.compile(r"\bon \d+ threads?\b"), "on <n> threads"),  # the cores of this machine
    # method auto from 25x25 up runs the search beside the chains: how far they got when it answered is the clock's
    (re.compile(r"\b\d[\d,]* (annealing moves per chain)"), r"<n> \1"),
]


def normalise(text_lines: list[str]) -> list[str]:
    lines = []
    for line in text_lines:
        for pattern, replacement in NORMALISE:
            line = pattern.sub(replacement, line)
        lines.append(line.rstrip())
    return lines


def printed_lines(text: str) -> list[str]:
    return [line for line in text.rstrip("\n").split("\n") if not CLOCK_LINES.search(line)] if text else []


def matches(shown: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` fits ``shown``, where a shown line ``...`` stands for any number of lines."""
    shown, actual = normalise(shown), normalise(actual)
    memo: dict = {}

    def fit(i, j):
        if (i, j) not in memo:
            if i == len(shown):
                memo[i, j] = j == len(actual)
            elif shown[i] == "...":
                memo[i, j] = any(fit(i + 1, k) for k in range(j, len(actual) + 1))
            else:
                memo[i, j] = j < len(actual) and shown[i] == actual[j] and fit(i + 1, j + 1)
        return memo[i, j]

    return fit(0, 0)


def rewritten(shown: list[str], actual: list[str]) -> list[str]:
    """The shown lines rewritten from ``actual``, keeping the shown shape: as many lines before the first ``...``
    and after the last one, and each run of lines between two ``...`` replaced by the lines of ``actual`` most
    like it (a change of wording moves no elision)."""
    import difflib

    if "..." not in shown:
        return actual
    segments, current = [], []
    for line in shown:
        if line == "...":
            segments.append(current)
            current = []
        else:
            current.append(line)
    segments.append(current)
    first, middle, last = segments[0], segments[1:-1], segments[-1]
    end = len(actual) - len(last)
    new, at = actual[:len(first)], len(first)

    def likeness(segment, begin):
        return sum(difflib.SequenceMatcher(None, a, b).ratio()
                   for a, b in zip(normalise(segment), normalise(actual[begin:begin + len(segment)])))

    for segment in middle:
        begin = max(range(at, end - len(segment) + 1), key=lambda b: likeness(segment, b), default=at)
        new += ["..."] + actual[begin:begin + len(segment)]
        at = begin + len(segment)
    new += ["..."] + actual[end:]
    assert matches(new, actual), f"cannot rewrite around the elisions: {shown}"
    return new


# ---------------------------------------------------------------------------------------------- the tests
@pytest.fixture
def help_width(monkeypatch):
    monkeypatch.setenv("COLUMNS", HELP_COLUMNS)


def console_blocks() -> list[Block]:
    return [block for block in all_blocks() if block.info == "console"]


@pytest.mark.slow
@pytest.mark.parametrize("block", console_blocks(), ids=lambda block: f"{block.where} {block.lines[0][2:]}")
def test_the_commands_shown_print_what_is_shown(block, tmp_path, monkeypatch, help_width):
    """Every command of a console block, in order (a later one may read a file an earlier one wrote)."""
    if cuda_mode() == "real":
        pytest.skip("the pages show what CI's CPU prints; beside a GPU, --backend auto picks it and says so")
    monkeypatch.chdir(ROOT)
    files: dict[str, str] = {}
    failures, new_lines = [], []
    for example in examples(block):
        status, shown = run_example(example.command, files, tmp_path)
        actual = printed_lines(shown)
        new_lines.append("$ " + example.command)
        if status != expected_status(example.shown):
            failures.append(f"{example.id}: exit status {status}, not {expected_status(example.shown)}\n{shown}")
        if matches(example.shown, actual):
            new_lines += example.shown
            continue
        new_lines += rewritten(example.shown, actual) if UPDATE else example.shown
        failures.append(f"{example.id} printed (normalised):\n" + "\n".join(normalise(actual))
                        + "\n--- the page shows (normalised):\n" + "\n".join(normalise(example.shown)))
    if UPDATE and new_lines != block.lines:
        _replace_block(block, new_lines)
        failures = [failure for failure in failures if "exit status" in failure]
    assert not failures, "\n\n".join(failures) + "\n(GPU_SA_UPDATE_DOCS=1 rewrites the pages from a run)"


def _replace_block(block: Block, new: list[str]) -> None:
    """Replace the lines of ``block`` in its page, found again by its content (an earlier rewrite may have moved it)."""
    page = block.page
    lines = page.read_text().split("\n")
    again = [current for current in blocks(page) if current.info == block.info and current.lines == block.lines]
    assert again, f"{block.where}: not found again"
    fence = lines[again[0].start - 1]
    indent = " " * (len(fence) - len(fence.lstrip()))
    lines[again[0].start:again[0].start + len(block.lines)] = [indent + line if line else line for line in new]
    page.write_text("\n".join(lines))


def python_examples() -> list[tuple[Block, Block | None]]:
    """Every ``python`` block with the ``text`` block right after it (None when there is none)."""
    pairs = []
    for page in PAGES:
        found = blocks(page)
        text = page.read_text().splitlines()
        for block, after in zip(found, found[1:] + [None]):
            if block.info != "python":
                continue
            between = text[block.start + len(block.lines) + 1:after.start - 1] if after else []
            adjacent = after is not None and after.info == "text" and not any(line.strip() for line in between
                                                                               if not line.rstrip().endswith(":"))
            pairs.append((block, after if adjacent else None))
    return pairs


@pytest.mark.parametrize("example", python_examples(), ids=lambda pair: pair[0].where)
def test_the_python_example_prints_what_is_shown(example):
    code, output = example
    assert output is not None, f"{code.where}: a python block is followed by the text block it prints"
    done = subprocess.run([sys.executable, "-c", "\n".join(code.lines)], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-3000:]
    actual = printed_lines(done.stdout)
    if matches(output.lines, actual):
        return
    if UPDATE:
        _replace_block(output, rewritten(output.lines, actual))
        return
    raise AssertionError(f"{code.where} printed:\n{done.stdout}")


SHOWN_COMMAND = re.compile(r"(?:^|\$ |&& |\| )((?:[A-Z_]+=\S+ )*gpu-sa (?:" + "|".join(COMMANDS) + r"|--)[^|#]*)")


def shown_commands() -> list[tuple[Block, str]]:
    """Every gpu-sa command line in a fenced block of any kind (in console blocks, the ``$`` lines only)."""
    found = []
    for block in all_blocks():
        for line in block.lines:
            if block.info == "console" and not line.startswith("$ "):
                continue
            for match in SHOWN_COMMAND.finditer(line.strip()):
                found.append((block, match.group(1).strip()))
    return found


def test_every_command_shown_is_run_or_says_why_not():
    checked = {example.command for example in console_examples()}
    checked |= {part.strip() for command in checked for part in command.split("|")}
    unexplained = sorted({f"{block.where}: {command}" for block, command in shown_commands()
                          if command not in checked and command not in NOT_RUN})
    assert not unexplained, "shown but neither run in a console block nor in NOT_RUN:\n" + "\n".join(unexplained)
    shown = {command for _, command in shown_commands()}
    assert not set(NOT_RUN) - shown, f"NOT_RUN lists commands no page shows: {set(NOT_RUN) - shown}"


def test_every_python_illustration_says_why_it_is_not_run():
    for block in all_blocks():
        if block.info == "py":
            assert any(line.startswith(first) for line in block.lines for first in NOT_RUN_PYTHON), block.where


def test_the_readme_starts_with_the_two_commands_that_work_on_a_fresh_machine(monkeypatch):
    """The first fenced block: install and solve a bundled example; install and run the tests (what .ci/run runs)."""
    monkeypatch.chdir(ROOT)
    first = blocks(README)[0]
    assert first.info == "bash"
    commands = [line for line in first.lines if line.strip() and not line.lstrip().startswith("#")]
    assert len(commands) == 2, commands
    install, solve = commands[0].split(" && ")
    assert install.startswith("python3 -m pip install") and solve.startswith("gpu-sa solve examples/")
    assert commands[1] == 'python3 -m pip install -e ".[test,sass]" && python3 -m pytest -q'
    ci = (ROOT / ".ci" / "run").read_text().replace("pip install -q ", "pip install ")  # CI installs quietly
    assert commands[1] in ci
    status, _, _, shown = run_in_process(shlex.split(solve)[1:])
    assert status == 0 and ": solved " in shown, shown


def test_the_readme_is_a_door_not_the_house():
    text = README.read_text()
    assert len(text.splitlines()) <= 200
    table = text.split("<!-- headline:begin -->", 1)[1].split("<!-- headline:end -->", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("|")][2:]  # after the header and its rule
    assert len(rows) == 5, rows
    for row in rows:
        assert re.search(r"\b20\d\d-\d\d-\d\d\b", row), f"a headline figure without its date: {row}"
    for link in re.findall(r"\]\(((?:docs/)?[\w./-]+\.md)(?:#[\w-]+)?\)", text):
        assert (ROOT / link).exists(), f"README links to {link}, which does not exist"


def test_the_readme_lists_every_extra():
    section = (ROOT / "pyproject.toml").read_text().split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    extras = set(re.findall(r"^(\w+) = \[", section, flags=re.M))
    assert {"cuda12", "cuda13", "test", "sass"} <= extras
    text = README.read_text()
    listed = set(re.findall(r"^\| `(\w+)` \|", text, flags=re.M))
    assert listed >= set(extras), f"extras missing from the README's table: {set(extras) - listed}"


def test_the_pages_name_no_sessions_issues_runs_or_commits():
    """The docs are for users: no lab notebook words."""
    for page in PAGES:
        prose = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
        prose = re.sub(r"`[^`\n]*`", "", prose)
        for pattern in (r"\bsessions?\b", r"\bissues? \d+", r"\brun [A-Z]\d?\b", r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])"
                        r"[0-9a-f]{7,40}\b"):
            found = re.search(pattern, prose)
            assert not found, f"{page.name}: {found.group(0)!r}"


def test_every_file_named_in_the_pages_exists():
    """A path of the repository written as code (`bench/sass.py`, `tests/view/`) names a file or folder that
    exists, so that moving a file shows here; paths with a placeholder (`<kind>`) are patterns."""
    written_before_it_exists = {"bench/results": "the benchmarks' records, written by their first runs"}
    for page in PAGES:
        for token in re.findall(r"`((?:gpu_sa|cpu_ref|tests|bench|examples|docs)/[^`\s]*)`", page.read_text()):
            path = token.rstrip("/")
            if not re.search(r"[<>*{}]", token) and path not in written_before_it_exists:
                assert (ROOT / path).exists(), f"{page.name} names {token}, which does not exist"


def test_the_api_page_documents_every_argument_of_anneal():
    import dataclasses
    import inspect

    import gpu_sa

    hooks = {"stop_when", "on_ready", "on_chunk", "chunk_moves"}  # for the applications and the tests
    parameters = {name for name, parameter in inspect.signature(gpu_sa.anneal).parameters.items()
                  if parameter.kind is parameter.KEYWORD_ONLY}
    runner = importlib.import_module("gpu_sa.engine.runner")
    if hasattr(runner, "Options"):  # keywords taken through **keywords
        parameters |= {field.name for field in dataclasses.fields(runner.Options)}
    table = (DOCS / "api.md").read_text().split("\n## anneal\n", 1)[1].split("\n## ", 1)[0]
    documented = {name for line in table.splitlines() if line.startswith("| `")
                  for name in re.findall(r"`(\w+)`", line.split("|")[1])}
    assert documented == parameters - hooks


def test_the_site_builds_in_strict_mode(tmp_path):
    """mkdocs is in the test extra: a missing mkdocs fails here, it is not skipped."""
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(ROOT / "mkdocs.yml"),
                           "-d", str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert (tmp_path / "site" / "index.html").exists()


def test_every_page_is_in_the_navigation():
    nav = (ROOT / "mkdocs.yml").read_text()
    for page in DOCS.glob("*.md"):
        assert re.search(rf":\s*{re.escape(page.name)}\s*$", nav, flags=re.M), f"{page.name} is not in mkdocs.yml's nav"


# ---------------------------------------------------------------------------------------------- the CLI page
def _helps(monkeypatch):
    import argparse

    monkeypatch.setenv("COLUMNS", "10000")  # no wrapping inside a flag such as --dump-states
    parser = importlib.import_module("gpu_sa.cli.main").build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    yield "gpu-sa", parser.format_help()
    for name, sub in commands.choices.items():
        yield name, sub.format_help()


def _cli_prose() -> str:
    """docs/cli.md without its console blocks (the --help texts), so that an option counts as documented only where
    the page itself says what it does."""
    text = (DOCS / "cli.md").read_text()
    return re.sub(r"```console\n.*?```", "", text, flags=re.S)


def test_every_option_in_any_help_is_documented_in_the_cli_page(monkeypatch):
    """Each command's options are explained in its own section of docs/cli.md (``## gpu-sa COMMAND``)."""
    text = _cli_prose()
    missing = {}
    for command, help_text in _helps(monkeypatch):
        section = text if command == "gpu-sa" else text.split(f"\n## gpu-sa {command}\n", 1)[1].split("\n## ", 1)[0]
        for flag in sorted(set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", help_text)) - {"--help", "--version"}):
            if not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", section):
                missing.setdefault(command, []).append(flag)
    assert not missing, f"options shown by --help but not in their command's section of docs/cli.md: {missing}"


def test_the_cli_page_shows_every_commands_help():
    shown = {example.command for example in console_examples() if example.block.page == DOCS / "cli.md"}
    assert "gpu-sa --help" in shown
    assert not {f"gpu-sa {command} --help" for command in COMMANDS} - shown


def _section(heading: str) -> str:
    text = (DOCS / "cli.md").read_text()
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def test_the_exit_status_table_covers_every_status():
    ending = importlib.import_module("gpu_sa.cli.ending")
    cells = [line.split("|")[1].strip() for line in _section("Exit status").splitlines() if line.startswith("|")]
    statuses = {int(code) for cell in cells[2:] for code in cell.split(",")}  # after the header and its rule
    assert statuses == {ending.OK, ending.UNSOLVED, ending.USAGE, ending.SOFTWARE, ending.IOERR, 129, 130, 143}


def _json_key_table():
    rows = []
    for line in _section("JSON keys").splitlines():
        if line.startswith("| `"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def _json_key_row(key, schema) -> str:
    methods = "every" if key.methods == schema.METHODS else ", ".join(f"`{m}`" for m in key.methods)
    return f"| `{key.name}` | {methods} | {key.when or 'always'} | {key.meaning} |"


def test_the_cli_page_lists_every_json_key_of_the_schema_with_its_methods():
    from gpu_sa.apps import schema

    rows = _json_key_table()
    if UPDATE and rows != [[cell.strip() for cell in _json_key_row(key, schema).strip("|").split("|")]
                           for key in schema.KEYS]:
        page = DOCS / "cli.md"
        lines = page.read_text().split("\n")
        section = lines.index("## JSON keys")
        first = next(i for i in range(section, len(lines)) if lines[i].startswith("| `"))
        last = next(i for i in range(first, len(lines)) if not lines[i].startswith("| `"))
        lines[first:last] = [_json_key_row(key, schema) for key in schema.KEYS]
        page.write_text("\n".join(lines))
        rows = _json_key_table()
    assert [row[0].strip("`") for row in rows] == [key.name for key in schema.KEYS]
    for (name, methods, present, meaning), key in zip(rows, schema.KEYS):
        assert methods == ("every" if key.methods == schema.METHODS else ", ".join(f"`{m}`" for m in key.methods))
        assert present == (key.when or "always") and meaning == key.meaning, name


def test_the_schema_names_every_method_of_every_kind():
    from gpu_sa.apps import schema

    kinds = importlib.import_module("gpu_sa.cli.commands").kinds
    assert {method.name for module in kinds("solve").values() for method in module.METHODS} == set(schema.METHODS)


def test_the_pages_show_the_commands_this_test_runs():
    commands = {example.command for example in console_examples()}
    assert "gpu-sa solve examples/seed_easy.txt --seed 1" in commands
    assert "gpu-sa generate --count 2 --seed 5 | gpu-sa minimize - --seed 1" in commands
    assert len(commands) >= 25
