"""bench/portfolio_choice.py: one cell end to end (two 25x25 instances at 60 % of the Sudoku-LS set copied into
bench/data), with auto's first-method settings overridden and put back."""
import re
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import portfolio_choice  # noqa: E402  (bench/ is not a package)

from gpu_sa.puzzles.sudoku import auto as portfolio  # noqa: E402

from .records import the_record  # noqa: E402


@pytest.mark.slow
def test_one_cell_reports_every_method_and_who_answered(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(portfolio, "LOCAL_SEARCH_ORDER", portfolio.LOCAL_SEARCH_ORDER)  # restored after the test
    monkeypatch.setattr(portfolio, "FEW_FREE_CELLS", portfolio.FEW_FREE_CELLS)
    assert portfolio_choice.main(["25", "60", "--instances", "0-1", "--local-search-order", "5",
                                  "--few-free-cells", "0", "--results", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "LOCAL_SEARCH_ORDER 5, FEW_FREE_CELLS 0" in out
    line = out.splitlines()[-1]
    for method in ("default", "anneal", "exact"):
        assert re.search(rf"{method} 2/2 median [0-9.]+ ms slowest [0-9.]+", line), line
    # the chains first from order 5, no descent first: the chains answer both (as is, the search answers both: "ee")
    assert "answered by aa |" in line, line
    assert re.search(r"default / the faster [0-9.]+$", line), line
    (row,) = the_record(tmp_path, "portfolio_choice")["rows"]  # the line, as the record keeps it
    assert (row["size"], row["givens %"], row["answered by"]) == ("25x25", 60, "aa")
    assert row["default solved"] == row["anneal solved"] == row["exact solved"] == "2/2"
    assert isinstance(row["default median ms"], float) and row["default / the faster"] > 0
