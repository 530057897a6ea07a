"""bench/view_search.py: the page's search against the deterministic one on one 36x36 instance, end to end."""
import json
import sys

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import view_search  # noqa: E402  (bench/ is not a package)

from .records import the_record  # noqa: E402


@pytest.mark.slow
def test_the_page_settles_what_the_deterministic_search_gives_up_on(capsys, tmp_path):
    assert view_search.main(["--sets", "sudoku36_45", "--instances", "1", "--budget", "3", "--json",
                             "--results", str(tmp_path)]) == 0
    page, deterministic = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert page["file"] == deterministic["file"] == "inst36x36_45_0.txt"
    assert page["search"] == "page" and page["settled"] and page["solutions"] == 2
    assert deterministic["search"] == "deterministic" and not deterministic["settled"]
    assert deterministic["seconds"] >= 3 and deterministic["solutions"] == 0
    record = the_record(tmp_path, "view_search")  # the table, which --json does not print
    assert record["columns"] == ["set", "search", "settled", "median s", "slowest s", "branches"]
    assert [(row["search"], row["settled"]) for row in record["rows"]] == [("page", "1/1"), ("deterministic", "0/1")]
    assert record["command"] == "python bench/view_search.py --sets sudoku36_45 --instances 1 --budget 3 --json"


def test_an_unknown_search_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as ending:
        view_search.main(["--searches", "cdcl"])
    assert ending.value.code == 2
    assert "--searches: choose from page, deterministic" in capsys.readouterr().err
