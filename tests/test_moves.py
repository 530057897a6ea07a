"""Every move of every puzzle kind is found by its name: its kernel, its NumPy twin and its test file."""
import pytest

from move_suite import LANDED
from chain_cases import CASES, case_move
from conftest import ROOT
from gpu_sa.puzzles import PUZZLES

MOVES = [(kind, move) for kind, module in PUZZLES.items() for move in module.MOVES]


def test_every_kind_offers_moves():
    assert {kind for kind, _ in MOVES} == set(PUZZLES)
    assert sorted(move for _, move in MOVES) == ["bridge", "rect", "sirdey", "swap", "tabu"]


@pytest.mark.parametrize("kind, move", MOVES, ids=[move for _, move in MOVES])
def test_a_move_s_kernel_twin_and_test_carry_its_name(kind, move):
    kernel = ROOT / "gpu_sa" / "puzzles" / kind / "moves" / f"{move}.py"
    twin = ROOT / "cpu_ref" / kind / f"{move}.py"
    test = ROOT / "tests" / "puzzles" / kind / f"test_{move}.py"
    assert kernel.is_file() and twin.is_file() and test.is_file()
    assert f'MOVE = "{move}"' in test.read_text(), "the test file runs the move's bit-exact cases"
    anneal_move = case_move(next(case for case in CASES if case["move"] == move))  # what the registry builds
    assert anneal_move.kernel.__name__ == f"gpu_sa.puzzles.{kind}.moves.{move}"
    assert anneal_move.reference.__name__ == f"cpu_ref.{kind}.{move}"


def test_every_landed_case_is_still_compared():
    assert len(LANDED) == 15
