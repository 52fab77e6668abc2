"""Pure time accounting: a per-decision limit plus an optional bank shared by the match."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Clock:
    """One seat's clock. Times in milliseconds, measured by the referee."""

    move_time_ms: int
    bank_ms: float

    def allowance_ms(self) -> float:
        """How long the next decision may take before it is a timeout."""
        return self.move_time_ms + self.bank_ms

    def charge(self, elapsed_ms: float) -> bool:
        """Account one decision; False when it took longer than the allowance (a timeout)."""
        if elapsed_ms > self.allowance_ms():
            self.bank_ms = 0.0
            return False
        self.bank_ms -= max(0.0, elapsed_ms - self.move_time_ms)
        return True
