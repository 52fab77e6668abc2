"""What the gate says: the checks' names, each check's verdict, one plugin's report."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

CHECKS = ("determinism", "grammar", "playouts-end", "is-legal", "replay", "codec-round-trip",
          "leak", "options", "renderers")
"""Every check of the gate, in the order it runs them."""
GATE_VERSION = 1
"""Bumped when the checks change: a result cached by another version is not used."""


@dataclass(frozen=True)
class Check:
    """One check's verdict."""

    name: str
    """One of ``CHECKS``."""
    passed: bool
    detail: str
    """What was checked (passed) or the first failure, with its seed and decision."""


@dataclass(frozen=True)
class GateReport:
    """What the gate found of one plugin."""

    game_id: str
    plugin_identity: str
    """The identity the result holds for (``plugin_identity``)."""
    passed: bool
    checks: tuple[Check, ...]
    seconds: float = 0.0
    """How long the gate ran."""

    @property
    def failed(self) -> tuple[str, ...]:
        """The names of the failed checks."""
        return tuple(c.name for c in self.checks if not c.passed)

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-able data (``--format json``, the cache)."""
        return {"gate_version": GATE_VERSION, "game": self.game_id,
                "identity": self.plugin_identity, "passed": self.passed,
                "seconds": round(self.seconds, 3),
                "checks": [{"name": c.name, "passed": c.passed, "detail": c.detail}
                           for c in self.checks]}

    @classmethod
    def from_json(cls, data: Any) -> GateReport:
        """A report read back; ``ValueError`` for anything else."""
        if not isinstance(data, dict) or data.get("gate_version") != GATE_VERSION:
            raise ValueError("not a gate report of this version")
        checks = tuple(Check(str(c["name"]), bool(c["passed"]), str(c["detail"]))
                       for c in data["checks"])
        if tuple(c.name for c in checks) != CHECKS:
            raise ValueError("a gate report without every check")
        return cls(str(data["game"]), str(data["identity"]), bool(data["passed"]), checks,
                   float(data.get("seconds", 0.0)))


class CheckFailed(Exception):
    """A check's failure, as its detail says it."""


def canonical_json(value: Any) -> str:
    """Compact JSON with sorted keys (what two runs compare; ``repr`` for the rest)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr)


def one_line(text: str) -> str:
    """One line (a detail is shown in a table cell and in one-line refusals)."""
    return " ".join(str(text).split())


def clip(text: str, limit: int = 160) -> str:
    """At most ``limit`` characters, an ellipsis where it was cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
