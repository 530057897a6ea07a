import math

import numpy as np
import pytest

from gpu_sa.engine import schedule
from gpu_sa.puzzles.sudoku import parse
from gpu_sa.engine.runner import default_schedule, sirdey_schedule

EASY = "..237.9....75684.2.8..9....1...4.8..2.4...7.6..6.2...1....5..1.5.19326....3.862.."


def test_sirdey_law_reproduces_the_seed_numbers_for_9x9():
    law = sirdey_schedule(parse(EASY)[0].move("sirdey"))
    assert law.max_cost == 810 and law.t0 == 810 and law.delta == 0.1 and law.plateau_length == 81
    assert law.t_final == pytest.approx(0.00273852, abs=5e-9)
    # "about 3.1 million plateaus, 252 million moves for a full trial"
    assert 3.05e6 < law.plateaus < 3.15e6
    assert 2.50e8 < law.total_moves < 2.53e8
    last, after = law.temperatures(law.plateaus - 1, law.plateaus + 1)
    assert last >= law.t_final and after == last  # the last plateau holds past the end
    assert law._temperatures(np.array([law.plateaus]))[0] < law.t_final


def test_sirdey_closed_form_equals_the_recurrence():
    law = schedule.sirdey(max_cost=810, log_states=81 * math.log(9), plateau_length=81)
    t = 810.0
    for k in range(2000):
        assert law.temperatures(k, k + 1)[0] == pytest.approx(t, rel=1e-12)
        t = t / (1 + math.log(1.1) / 811 * t)


@pytest.mark.parametrize("order", [2, 3, 4, 5, 7])
def test_sirdey_generalises_to_order_n(order):
    side = order * order
    cells = side * side
    law = sirdey_schedule(parse(_empty_numbers(side))[0].move("sirdey"))
    assert law.max_cost == cells * (3 * side - 2 * order - 1) / 2
    assert law.t_final == pytest.approx(0.5 / (cells * math.log(side) - math.log(0.01)))
    assert law.plateau_length == cells


def _empty_numbers(side):
    return "\n".join(" ".join("0" for _ in range(side)) for _ in range(side))


def test_swap_move_has_its_own_sirdey_constants():
    law = sirdey_schedule(parse(EASY)[0].move("swap"))
    assert law.max_cost == 2 * 9 * (9 - 3) and law.plateau_length == 81


def test_default_schedule_is_the_measured_geometric_law():
    law = default_schedule(parse(EASY)[0].move())
    assert law.describe() == "geometric: T0=0.5, T_end=0.05, 4000 plateaus of 81 moves"
    assert law.total_moves == 324_000


def test_geometric_law_endpoints():
    law = schedule.geometric(t0=2.0, t_end=0.01, plateaus=11, plateau_length=5)
    temps = law.temperatures(0, 11)
    assert temps[0] == pytest.approx(2.0) and temps[-1] == pytest.approx(0.01)
    assert np.all(np.diff(temps) < 0) and law.total_moves == 55


def test_temperature_list():
    law = schedule.from_list([3, 2, 1], plateau_length=4)
    assert law.temperatures(0, 5).tolist() == [3.0, 2.0, 1.0, 1.0, 1.0]


def test_acceptance_table_is_floor_of_exp_times_2_to_32():
    table = schedule.acceptance_table(np.array([0.5, 1.0, 1e-3, 1e9]), 4)
    assert table.dtype == np.uint32 and table.shape == (4, 5)
    assert np.all(table[:, 0] == 2**32 - 1)
    assert table[1, 1] == math.floor(math.exp(-1.0) * 2**32)
    assert table[0, 3] == math.floor(math.exp(-6.0) * 2**32)
    assert np.all(table[2, 1:] == 0)  # far too cold: never accept an uphill move
    assert np.all(table[3, 1:] >= 2**32 - 20)  # T = 1e9: probability ~1, never wrapped to 0
    assert np.all(np.diff(table[:, 1:].astype(np.int64), axis=1) <= 0)


@pytest.mark.parametrize("make", [
    lambda: schedule.geometric(t0=0, t_end=0.1, plateaus=10, plateau_length=1),
    lambda: schedule.geometric(t0=1, t_end=0.1, plateaus=0, plateau_length=1),
    lambda: schedule.geometric(t0=1, t_end=0.1, plateaus=10, plateau_length=0),
    lambda: schedule.from_list([], plateau_length=1),
    lambda: schedule.from_list([1, -1], plateau_length=1),
    lambda: schedule.sirdey(max_cost=810, log_states=1, plateau_length=81, delta=0),
    lambda: schedule.sirdey(max_cost=810, log_states=1, plateau_length=81, alpha=1),
], ids=["t0-zero", "no-plateaus", "zero-length", "empty-list", "negative-temperature", "delta-zero", "alpha-one"])
def test_bad_parameters_are_refused(make):
    with pytest.raises(ValueError):
        make()
