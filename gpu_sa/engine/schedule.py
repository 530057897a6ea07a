"""Temperature laws, and the integer acceptance tables every backend reads.

A schedule is a sequence of plateaus; each plateau holds one temperature for
``plateau_length`` moves. Past the last plateau the last temperature holds.

No backend evaluates ``exp``: for a chunk of plateaus the host builds

    table[p, delta] = min(2**32 - 1, floor(exp(-delta / T_p) * 2**32))   for delta = 1 .. max_delta

in float64, and a move of cost change ``delta`` is accepted iff ``delta <= 0`` or
``u < table[p, delta]`` with ``u`` a uint32 from the chain's stream. Column 0 is unused
(a non-positive delta is always accepted) and holds 2**32 - 1.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

UINT32_MAX = 2**32 - 1


@dataclass(frozen=True)
class Schedule:
    """Base of the temperature laws: ``plateaus`` plateaus of ``plateau_length`` moves."""

    plateau_length: int

    @property
    def plateaus(self) -> int:  # pragma: no cover - every law overrides it
        raise NotImplementedError

    def _temperatures(self, indices: np.ndarray) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    @property
    def levels(self) -> int:
        """Rungs of the temperature ladder at every plateau (1 unless chains exchange temperatures)."""
        return 1

    @property
    def total_moves(self) -> int:
        """Moves per chain for the whole schedule (every plateau once)."""
        return self.plateaus * self.plateau_length

    def temperatures(self, first: int, stop: int) -> np.ndarray:
        """float64 temperatures of plateaus ``first`` .. ``stop - 1`` (the last one holds past the end)."""
        indices = np.minimum(np.arange(first, stop, dtype=np.int64), self.plateaus - 1)
        return self._temperatures(indices)

    def acceptance_table(self, first: int, stop: int, max_delta: int) -> np.ndarray:
        """uint32 table of shape (stop - first, max_delta + 1) for plateaus ``first`` .. ``stop - 1``."""
        return acceptance_table(self.temperatures(first, stop), max_delta)

    def temperature_rows(self, first: int, stop: int) -> np.ndarray:
        """float64 (stop - first, levels): every rung's temperature at plateaus ``first`` .. ``stop - 1``."""
        return self.temperatures(first, stop)[:, None]

    def acceptance_rows(self, first: int, stop: int, max_delta: int) -> np.ndarray:
        """uint32 (stop - first, levels, max_delta + 1): the acceptance table of every rung."""
        rows = self.temperature_rows(first, stop)
        return acceptance_table(rows.reshape(-1), max_delta).reshape(rows.shape + (max_delta + 1,))

    def describe(self) -> str:  # pragma: no cover
        raise NotImplementedError


def _plateaus(count: int, length: int) -> str:
    """'2000 plateaus of 81 moves', '1 plateau of 1 move': how every law describes its length."""
    return f"{count} plateau{'s' * (count != 1)} of {length} move{'s' * (length != 1)}"


def acceptance_table(temperatures: np.ndarray, max_delta: int) -> np.ndarray:
    """Per-plateau thresholds: ``u < table[p, delta]`` accepts with probability ~ exp(-delta/T_p)."""
    temperatures = np.asarray(temperatures, dtype=np.float64)
    if temperatures.size and not np.all(temperatures > 0):
        raise ValueError("temperatures must be positive")
    deltas = np.arange(max_delta + 1, dtype=np.float64)
    probabilities = np.exp(-deltas[None, :] / temperatures[:, None])
    # min() before the cast: exp(-tiny) * 2**32 rounds to 2**32, which would wrap to 0 as uint32.
    table = np.minimum(np.floor(probabilities * 2.0**32), float(UINT32_MAX)).astype(np.uint32)
    table[:, 0] = np.uint32(UINT32_MAX)
    return table


@dataclass(frozen=True)
class SirdeyLaw(Schedule):
    """Sirdey (2006), eq. (2): T0 = e_p, T_{k+1} = T_k / (1 + log(1 + delta) / (e_p + 1) * T_k).

    The recurrence telescopes (the seed, section V) to T_k = T0 / (1 + k * a * T0) with
    a = log(1 + delta) / (e_p + 1); this closed form is what is evaluated, so plateau k's
    temperature does not depend on how many plateaus were computed before it. The law
    stops at the first plateau below ``t_final``: eq. (3), T_f = eps / (log N - log(1 - alpha)).
    """

    t0: float
    delta: float
    max_cost: float
    t_final: float

    @property
    def rate(self) -> float:
        return math.log1p(self.delta) / (self.max_cost + 1.0)

    @property
    def plateaus(self) -> int:
        # T_k >= T_f  <=>  k <= (1/T_f - 1/T0) / a; check the float boundary both ways.
        k = int(math.floor((1.0 / self.t_final - 1.0 / self.t0) / self.rate))
        while k >= 0 and self._temperatures(np.array([k]))[0] < self.t_final:
            k -= 1
        while self._temperatures(np.array([k + 1]))[0] >= self.t_final:
            k += 1
        return max(k + 1, 1)

    def _temperatures(self, indices):
        return self.t0 / (1.0 + indices.astype(np.float64) * self.rate * self.t0)

    def describe(self) -> str:
        return (f"sirdey: T0={self.t0:g}, delta={self.delta:g}, e_p={self.max_cost:g}, "
                f"T_f={self.t_final:.8g}, {_plateaus(self.plateaus, self.plateau_length)}")


@dataclass(frozen=True)
class GeometricLaw(Schedule):
    """T_k = T0 * (T_end / T0) ** (k / (plateaus - 1)): ``plateaus`` plateaus from T0 down to T_end."""

    t0: float
    t_end: float
    n_plateaus: int

    @property
    def plateaus(self) -> int:
        return self.n_plateaus

    def _temperatures(self, indices):
        if self.n_plateaus == 1:
            return np.full(indices.shape, float(self.t0))
        ratio = math.log(self.t_end / self.t0) / (self.n_plateaus - 1)
        return self.t0 * np.exp(indices.astype(np.float64) * ratio)

    def describe(self) -> str:
        return (f"geometric: T0={self.t0:g}, T_end={self.t_end:g}, "
                f"{_plateaus(self.n_plateaus, self.plateau_length)}")


@dataclass(frozen=True)
class TemperatureList(Schedule):
    """A user-supplied temperature per plateau."""

    values: tuple[float, ...]

    @property
    def plateaus(self) -> int:
        return len(self.values)

    def _temperatures(self, indices):
        return np.asarray(self.values, dtype=np.float64)[indices]

    def describe(self) -> str:
        return f"list: {_plateaus(len(self.values), self.plateau_length)}"


@dataclass(frozen=True)
class LadderLaw(Schedule):
    """Replica exchange: ``replicas`` rungs at fixed temperatures, geometric from ``t_low`` (rung 0)
    to ``t_high``, held for ``n_plateaus`` plateaus (the clock of a trial); chains exchange rungs."""

    t_low: float
    t_high: float
    replicas: int
    n_plateaus: int

    @property
    def plateaus(self) -> int:
        return self.n_plateaus

    @property
    def levels(self) -> int:
        return self.replicas

    def rungs(self) -> np.ndarray:
        """float64 (replicas,): the ladder's temperatures, coldest first."""
        if self.replicas == 1:
            return np.array([self.t_low])
        return self.t_low * (self.t_high / self.t_low) ** (np.arange(self.replicas) / (self.replicas - 1))

    def _temperatures(self, indices):
        return np.full(indices.shape, self.t_low)  # the coldest rung: what progress lines show

    def temperature_rows(self, first, stop):
        return np.broadcast_to(self.rungs(), (max(stop - first, 0), self.replicas)).copy()

    def describe(self) -> str:
        return (f"ladder: {self.replicas} replicas, T={self.t_low:g}..{self.t_high:g} (geometric), "
                f"{_plateaus(self.n_plateaus, self.plateau_length)}")


def ladder(*, t_low: float, t_high: float, replicas: int, plateaus: int, plateau_length: int) -> LadderLaw:
    """Fixed temperatures for replica exchange: ``replicas`` rungs from ``t_low`` up to ``t_high``."""
    _positive("T_low", t_low)
    _positive("T_high", t_high)
    if isinstance(replicas, bool) or int(replicas) != replicas or replicas < 1:
        raise ValueError(f"replicas must be a positive integer, got {replicas!r}")
    if replicas > 1 and not t_high > t_low:
        raise ValueError(f"the ladder's top temperature {t_high:g} must be above its bottom {t_low:g}")
    if int(plateaus) != plateaus or plateaus < 1:
        raise ValueError(f"plateaus must be a positive integer, got {plateaus}")
    return LadderLaw(plateau_length=_length(plateau_length), t_low=float(t_low), t_high=float(t_high),
                     replicas=int(replicas), n_plateaus=int(plateaus))


def sirdey(*, max_cost: float, log_states: float, plateau_length: int, delta: float = 0.1,
           alpha: float = 0.99, epsilon: float = 0.5, t0: float | None = None) -> SirdeyLaw:
    """Sirdey's law for a problem of maximal cost ``max_cost`` (e_p) and ``log N = log_states``.

    T0 defaults to e_p; T_f = epsilon / (log N - log(1 - alpha)), eq. (3).
    """
    _positive("delta", delta)
    _positive("epsilon", epsilon)
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    t0 = float(max_cost if t0 is None else t0)
    _positive("T0", t0)
    t_final = epsilon / (log_states - math.log1p(-alpha))
    if t_final > t0:
        raise ValueError(f"final temperature {t_final:g} is above T0 = {t0:g}")
    return SirdeyLaw(plateau_length=_length(plateau_length), t0=t0, delta=float(delta),
                     max_cost=float(max_cost), t_final=t_final)


def geometric(*, t0: float, t_end: float, plateaus: int, plateau_length: int) -> GeometricLaw:
    """Geometric cooling from ``t0`` to ``t_end`` over ``plateaus`` plateaus."""
    _positive("T0", t0)
    _positive("T_end", t_end)
    if int(plateaus) != plateaus or plateaus < 1:
        raise ValueError(f"plateaus must be a positive integer, got {plateaus}")
    return GeometricLaw(plateau_length=_length(plateau_length), t0=float(t0), t_end=float(t_end),
                        n_plateaus=int(plateaus))


def from_list(temperatures, *, plateau_length: int) -> TemperatureList:
    """One plateau per given temperature, in order."""
    values = tuple(float(t) for t in temperatures)
    if not values:
        raise ValueError("the temperature list is empty")
    for t in values:
        _positive("every temperature", t)
    return TemperatureList(plateau_length=_length(plateau_length), values=values)


def _positive(name, value):
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive number, got {value!r}")


def _length(plateau_length):
    if int(plateau_length) != plateau_length or not 1 <= plateau_length < 2**31:
        raise ValueError(f"plateau length must be an integer from 1 to 2**31 - 1 (the kernels count a plateau's "
                         f"moves in 32 bits), got {plateau_length}")
    return int(plateau_length)


# The tuned defaults, from bench/tts.py: with move swap, a geometric schedule
# 0.5 -> 0.05 over 4000 plateaus (324,000 moves per chain for 9x9) had the lowest or near-lowest
# time to solution on the seed puzzles, forum_hardest and 17-clue samples. Other sizes and kinds
# carry their own measured (t0, t_end, plateaus) in their move's ``schedule_defaults``.
DEFAULT_T0, DEFAULT_T_END, DEFAULT_PLATEAUS = 0.5, 0.05, 4000


def default_schedule(anneal_move):
    """The tuned default: a geometric law over plateaus of the move's natural length.

    Sudoku: DEFAULT_T0 -> DEFAULT_T_END over DEFAULT_PLATEAUS; other kinds carry their own
    measured (t0, t_end, plateaus) in ``schedule_defaults``.
    """
    t0, t_end, plateaus = anneal_move.schedule_defaults or (DEFAULT_T0, DEFAULT_T_END, DEFAULT_PLATEAUS)
    return geometric(t0=t0, t_end=t_end, plateaus=plateaus, plateau_length=anneal_move.plateau_length)


CONSTANT_LADDER_SPAN = 4.0


def default_ladder(anneal_move, replicas: int):
    """Replica exchange's default: the default schedule's end and start temperatures as the ladder; a move
    whose default is one constant temperature (``tabu``) gets the ladder from it to CONSTANT_LADDER_SPAN times it."""
    t0, t_end, plateaus = anneal_move.schedule_defaults or (DEFAULT_T0, DEFAULT_T_END, DEFAULT_PLATEAUS)
    if t0 <= t_end:
        t0 = t_end * CONSTANT_LADDER_SPAN
    return ladder(t_low=t_end, t_high=t0, replicas=replicas, plateaus=plateaus,
                  plateau_length=anneal_move.plateau_length)


def sirdey_schedule(anneal_move):
    """Sirdey's law, as the seed states it, for this instance's size (the faithful mode)."""
    return sirdey(max_cost=anneal_move.max_cost, log_states=anneal_move.log_states,
                  plateau_length=anneal_move.plateau_length)
