"""A bot's policy as the SDK calls it: a function ``decision -> action``, or an object with a
``decide(decision)`` method and optional ``match_start(info)``, ``round_end(round, scores,
totals)`` and ``match_end(result, termination, totals, detail=..., faulty_seat=...)`` hooks.
Shared by the SDK's gRPC loop and the referee's in-process seat, so a policy behaves the same in
both.

``match_end`` gets ``detail`` and ``faulty_seat`` only when it asks for them: a parameter of
that name (or ``**kwargs``). A hook written as ``match_end(self, result, termination, totals)``
(before they were passed) is called exactly as it always was."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from arena.sdk.decision import Decision, MatchInfo

_BY_NAME = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def _hook(policy: Any, name: str) -> Callable[..., Any] | None:
    hook = getattr(policy, name, None)
    return hook if callable(hook) else None


def accepts(func: Callable[..., Any], keyword: str) -> bool:
    """Whether ``func`` takes ``keyword`` as a keyword argument (a parameter of that name, or
    ``**kwargs``); False when its signature cannot be read (it is then called as before)."""
    try:
        parameters = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind is inspect.Parameter.VAR_KEYWORD
               or (p.name == keyword and p.kind in _BY_NAME) for p in parameters)


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

    def match_end(self, result: str, termination: str, totals: tuple[int, ...], *,
                  detail: str = "", faulty_seat: int | None = None) -> None:
        """``result`` and ``termination`` are the arena.v1 enum names (``MATCH_RESULT_WIN``,
        ``TERMINATION_NORMAL``, ...); ``detail`` says what ended the match (empty for a normal
        end) and ``faulty_seat`` is the seat at fault (None when nobody is), each passed only
        to a hook that takes it (module doc)."""
        hook = _hook(self.policy, "match_end")
        if hook is None:
            return
        extra = {name: value for name, value in (("detail", detail),
                                                 ("faulty_seat", faulty_seat))
                 if accepts(hook, name)}
        hook(result, termination, totals, **extra)
