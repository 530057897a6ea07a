"""Product text speaks of the product: no lab-notebook citations in the package or the manual.

Comments, docstrings, help and the documentation say what the code does and why, and where to re-measure a
figure (the bench script). They must not lean on things a reader cannot follow or that stop being true: the
work sessions that produced a change, issue numbers, labels of benchmark runs ("run W", "S3"), commit hashes,
or bench/RESULTS.md (replaced by the records under bench/results/ and docs/performance.md).
"""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


# Hex-looking words that are not commit hashes, each with where it stands and why it stays.
NOT_COMMITS = {
    "0123456789abcdef": "the alphabet of base-16 cell symbols (gpu_sa/puzzles/common/codecs.py)",
    "2b1d3b2": "a Hashiwokakero grid in Simon Tatham's encoding, 4x3:2b1d3b2 (the formats' example)",
}

_SESSION = re.compile(r"\bsessions?\b", re.IGNORECASE)
# "issue 14", "Issue 24 item 6", "issues 13-17", "issue #3"
_ISSUE = re.compile(r"\bissues? #?\d+", re.IGNORECASE)
_RESULTS = re.compile(r"RESULTS\.md")
# The notebook named benchmark runs by a capital letter with an optional digit ("run W", "runs S2 and S3",
# "Run M"); the S-series also stood alone ("(S3: 0.41)"). Only the words "run(s)" before a lone label, and a
# lone S2-S9, are flagged: r1c2, 0x5F or a variable named S2_table do not match.
_RUN_LABEL = re.compile(r"\b[Rr]uns? [A-Z]\d?\b(?![\w*'/-])|(?<![\w.])S[2-9](?![\w(\[]|\s*=|\.\w)")
# A commit hash: 7 to 40 lowercase hex characters, at least one digit and one of a-f, a word of its own (not
# 0x..., not #a0b1c2, not inside an identifier or a longer number).
_HEX_WORD = re.compile(r"(?<![\w#])[0-9a-f]{7,40}(?![\w])")


def _commit_hashes(line):
    return [word for word in _HEX_WORD.findall(line)
            if re.search(r"\d", word) and re.search(r"[a-f]", word) and word not in NOT_COMMITS]


CHECKS = (
    ("a work session", lambda line: _SESSION.findall(line)),
    ("an issue number", lambda line: _ISSUE.findall(line)),
    ("bench/RESULTS.md", lambda line: _RESULTS.findall(line)),
    ("a run label", lambda line: _RUN_LABEL.findall(line)),
    ("a commit hash", _commit_hashes),
)


_CONTINUATION = re.compile(r"^\s*(#|//|/?\*+|<!--)?\s*")  # a wrapped comment's next line starts so


def findings(text):
    """(line number, what, the words found) for each check that flags a line of ``text``, or a citation
    wrapped across a line break ("issue" at the end of one comment line, "14" at the start of the next)."""
    found = []
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        following = _CONTINUATION.sub("", lines[number]) if number < len(lines) else ""
        for what, check in CHECKS:
            words = check(line)
            joined = check(line.rstrip() + " " + following)
            wrapped = [w for w in joined if w not in words and w not in check(following)]
            if words or wrapped:
                found.append((number, what, words + wrapped))
    return found


def _text_files(*roots):
    """Every text file under ``roots`` (files or folders, relative to the repository), binaries skipped."""
    for root in roots:
        path = ROOT / root
        for file in sorted([path] if path.is_file() else path.rglob("*")):
            if not file.is_file() or "__pycache__" in file.parts:
                continue
            data = file.read_bytes()
            if b"\0" in data:
                continue
            try:
                yield file.relative_to(ROOT).as_posix(), data.decode("utf-8")
            except UnicodeDecodeError:
                continue


def report(*roots):
    return [f"{name}:{number}: {what}: {', '.join(map(str, words))}"
            for name, text in _text_files(*roots)
            for number, what, words in findings(text)]


# Sentences in the style the notebook used, each with the check that must flag it, and sentences that must
# pass: the checks cannot pass by matching nothing, nor flag Sudoku notation, hex constants or colours.
FLAGGED = (
    ("measured in the seventeenth session", "a work session"),
    ("Sessions 3-5 tried it", "a work session"),
    ("see issue 14", "an issue number"),
    ("Issue 24 item 6 asked for it", "an issue number"),
    ("the branches of issues 13-17", "an issue number"),
    ("(bench/RESULTS.md, thirty-fourth section)", "bench/RESULTS.md"),
    ("as in run W, the chains", "a run label"),
    ("runs S2 and S3 on the Intel VM", "a run label"),
    ("Run M: 10/10", "a run label"),
    ("0.41x CaDiCaL's median (S3: 0.42)", "a run label"),
    ("5.73 s here against 11.9 s in S3.", "a run label"),
    ("engine as on main 0f6ea5e", "a commit hash"),
    ("commits feef6ae..bcedb6d", "a commit hash"),
    ("at 9c7da3c", "a commit hash"),
    ("# as measured in issue\n# 14, the chains", "an issue number"),
    ("(bench/RESULTS.md, run\n    W)", "a run label"),
    ("the full hash 30254a5f0e1d2c3b4a5968778695a4b3c2d1e0f9", "a commit hash"),
)
PASSED = (
    "r1c2 and r9c9 are peers; the cell at r3c4",
    "state = 0x9e3779b97f4a7c15 (the golden ratio); key 0xbb67ae85",
    "color: #a0b1c2; background: #1f2937",
    "a run stops when /api/stop names it; run it again; the server runs I/O on its own thread; run A* search",
    "the MIP gap is 1e-9; 12345678 moves; 2026-11-21",
    "S2_table = build(x); self.S3x = 1; S4.shape; S5[0]; S6 = 2",
    "def f(deadbeef_cafe1234): pass",
    "4x3:2b1d3b2",
)


@pytest.mark.parametrize("sentence,what", FLAGGED, ids=[sentence for sentence, _ in FLAGGED])
def test_each_check_flags_the_notebook_style(sentence, what):
    assert what in {found for _, found, _ in findings(sentence)}, f"{what!r} not found in {sentence!r}"


@pytest.mark.parametrize("sentence", PASSED)
def test_code_and_notation_pass(sentence):
    assert findings(sentence) == []


def test_the_word_session_is_flagged_even_hyphenated():
    assert findings("a session-free cache")[0][1] == "a work session"


PACKAGE = ("gpu_sa", "cpu_ref")
MANUAL = ("README.md", *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md")))


def test_the_scan_reads_the_package_and_the_manual():
    """Python, the page's JavaScript, HTML and CSS, and the manual's pages are read; binaries are not."""
    names = [name for name, _ in _text_files(*PACKAGE, *MANUAL)]
    for suffix in (".py", ".js", ".html", ".css", ".md"):
        assert any(name.endswith(suffix) for name in names), suffix
    assert "gpu_sa/engine/kernels.py" in names and "cpu_ref/rng.py" in names and "docs/cli.md" in names
    assert not any("__pycache__" in name or name.endswith(".png") for name in names)


def test_the_allow_list_is_used():
    """Every allowed hex word still occurs in the package: an entry that no longer serves is removed."""
    text = "\n".join(text for _, text in _text_files(*PACKAGE, *MANUAL))
    unused = [word for word in NOT_COMMITS if not re.search(rf"(?<![\w#]){word}(?!\w)", text)]
    assert unused == [], f"NOT_COMMITS entries no longer needed: {unused}"


def test_the_package_text_speaks_of_the_product():
    found = report(*PACKAGE)
    assert found == [], "notebook citations in product text:\n" + "\n".join(found)


def test_the_manual_speaks_of_the_product():
    found = report(*MANUAL)
    assert found == [], "notebook citations in the README or docs/:\n" + "\n".join(found)
