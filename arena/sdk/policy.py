"""A bot's policy as the SDK calls it: a function ``decision -> action``, or an object with a
``decide(decision)`` method and optional ``match_start(info)``, ``round_end(round, scores,
totals)`` and ``match_end(result, termination, totals)`` hooks. Shared by the SDK's gRPC loop and
the referee's in-process seat, so a policy behaves the same in both."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena.sdk.decision import Decision, MatchInfo


def _hook(policy: Any, name: str) -> Callable[..., Any] | None:
    hook = getattr(policy, name, None)
    return hook if callable(hook) else None


class PolicyCalls:
    """Calls into a policy: ``decide`` always, the hooks when the policy has them."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        self.decide: Callable[[Decision], Any] = (
            policy.decide if _hook(policy, "decide") else policy
        )

    def match_start(self, info: MatchInfo) -> None:
        if hook := _hook(self.policy, "match_start"):
            hook(info)

    def round_end(self, round_index: int, scores: tuple[int, ...],
                  totals: tuple[int, ...]) -> None:
        if hook := _hook(self.policy, "round_end"):
            hook(round_index, scores, totals)

    def match_end(self, result: str, termination: str, totals: tuple[int, ...]) -> None:
        """``result`` and ``termination`` are the arena.v1 enum names (``MATCH_RESULT_WIN``,
        ``TERMINATION_NORMAL``, ...)."""
        if hook := _hook(self.policy, "match_end"):
            hook(result, termination, totals)
