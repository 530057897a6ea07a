"""bench/view_search.py: the page's search against the deterministic one on one 36x36 instance, end to end."""
import json
import sys

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import view_search  # noqa: E402  (bench/ is not a package)


def test_the_page_settles_what_the_deterministic_search_gives_up_on(capsys):
    assert view_search.main(["--sets", "sudoku36_45", "--instances", "1", "--budget", "3", "--json"]) == 0
    page, deterministic = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert page["file"] == deterministic["file"] == "inst36x36_45_0.txt"
    assert page["search"] == "page" and page["settled"] and page["solutions"] == 2
    assert deterministic["search"] == "deterministic" and not deterministic["settled"]
    assert deterministic["seconds"] >= 3 and deterministic["solutions"] == 0


def test_an_unknown_search_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as ending:
        view_search.main(["--searches", "cdcl"])
    assert ending.value.code == 2
    assert "--searches: choose from page, deterministic" in capsys.readouterr().err
