"""Pure time accounting: a per-decision limit plus an optional bank shared by the match.

Two clock models (``TimeControl.clock``): on the ``wall`` clock a decision is charged the wall
time from the request going out to the answer arriving; on the ``cpu`` clock it is charged the
CPU time the bot's sandbox used in that span, and a wall-clock guard (``TimeControl.guard_ms``
of the allowance) ends a decision that takes too long in wall time (a bot that sleeps or
deadlocks) as ``wall_timeout``. The referee and replay decide every decision here, from the
same (rounded) figures, so a replay re-runs the clocks exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.model import HumanSeat, Termination, TimeControl

UNTIMED_MS = 2**31 - 1
"""What an untimed seat (a person with no clock, `arena play`) is offered per decision: about 25
days, finite so that every figure derived from it stays an integer."""


@dataclass
class Clock:
    """One seat's clock. Times in milliseconds, measured by the referee."""

    control: TimeControl
    """The match's time control (its move time, clock model and wall guard)."""
    bank_ms: float = 0.0
    """What is left of the seat's bank (``of`` starts it full)."""
    untimed: bool = False
    """A seat with no clock (a person, `arena play`): no decision is ever a timeout."""

    @classmethod
    def of(cls, control: TimeControl) -> Clock:
        """A fresh clock for one seat of a match played under ``control``."""
        return cls(control, float(control.time_bank_ms))

    @classmethod
    def none(cls) -> Clock:
        """The clock of an untimed seat (``untimed``)."""
        return cls(TimeControl(clock="wall"), 0.0, untimed=True)

    @property
    def move_time_ms(self) -> int:
        """The time every decision may take before it draws on the bank."""
        return self.control.move_time_ms

    @property
    def cpu(self) -> bool:
        """Whether decisions are charged their CPU time (else their wall time)."""
        return self.control.clock == "cpu"

    def allowance_ms(self) -> float:
        """How much the next decision may be charged before it is a timeout."""
        if self.untimed:
            return float(UNTIMED_MS)
        return self.move_time_ms + self.bank_ms

    def guard_ms(self) -> float:
        """CPU clock: the wall time after which the next decision is a ``wall_timeout``."""
        return self.control.guard_ms(self.allowance_ms())

    def wait_ms(self) -> float:
        """How long the referee waits for the next answer: the allowance on the wall clock,
        the guard on the CPU clock."""
        return self.guard_ms() if self.cpu else self.allowance_ms()

    def charged_ms(self, elapsed_ms: float, cpu_ms: float | None) -> float:
        """What a decision costs on this clock: its CPU time on the CPU clock (its wall time
        where no CPU counter was read), else its wall time."""
        return cpu_ms if self.cpu and cpu_ms is not None else elapsed_ms

    def verdict(self, elapsed_ms: float, cpu_ms: float | None) -> Termination | None:
        """The fault a decision with these figures earns (None: within its limits); pure."""
        if self.untimed:
            return None
        if self.charged_ms(elapsed_ms, cpu_ms) > self.allowance_ms():
            return Termination.TIMEOUT
        if self.cpu and cpu_ms is not None and elapsed_ms > self.guard_ms():
            return Termination.WALL_TIMEOUT
        return None

    def charge(self, elapsed_ms: float, cpu_ms: float | None = None) -> Termination | None:
        """Account one decision: None when it stayed within its limits (the bank pays what
        went over the move time), else the fault it earned (the bank is then spent)."""
        if self.untimed:
            return None
        fault = self.verdict(elapsed_ms, cpu_ms)
        if fault is not None:
            self.bank_ms = 0.0
            return fault
        self.bank_ms -= max(0.0, self.charged_ms(elapsed_ms, cpu_ms) - self.move_time_ms)
        return None


def seat_clocks(control: TimeControl, humans: Sequence[HumanSeat] = ()) -> list[Clock]:
    """Both seats' fresh clocks: the match's ``control``, except for a seat a person plays
    (``humans``), which has its own (wall-clock) time control or none."""
    clocks = [Clock.of(control) for _ in range(2)]
    for human in humans:
        tc = human.time_control
        clocks[human.seat] = Clock.none() if tc is None else Clock.of(tc)
    return clocks
