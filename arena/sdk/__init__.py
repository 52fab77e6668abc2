"""The bot SDK: write a policy, call ``run(policy, name=...)``; the SDK plays the matches.

A policy is a function from a :class:`Decision` (the seat's observation plus every legal action)
to an action (the game's action value, or its text in the game's action grammar)::

    import random
    from arena.sdk import run

    def choose(decision):
        return random.choice(decision.legal_actions)

    if __name__ == "__main__":
        run(choose, name="random")

The SDK connects to the socket named by ``$ARENA_SOCKET``, says Hello, and answers every
DecisionRequest by calling the policy. A policy may also be an object with a ``decide(decision)``
method and optional ``match_start(info)``, ``round_end(round, scores, totals)`` and
``match_end(result, termination, totals, detail, faulty_seat)`` hooks (``detail`` and
``faulty_seat`` are passed to a hook that names them; an older three-argument hook still works).
An exception in the policy ends the bot (the match is forfeited as a crash), with the traceback
on stderr, which the arena keeps. docs/bots.md, "The Python SDK", documents every attribute of
``Decision`` and ``MatchInfo`` and every hook.
"""

from __future__ import annotations

from arena.sdk.client import run
from arena.sdk.decision import Decision, MatchInfo

__all__ = ["Decision", "MatchInfo", "run"]
