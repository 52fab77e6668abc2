"""The one error hierarchy of the arena. Names end in ``Error`` (our fault or the user's) or
``Fault`` (a bot's fault, which forfeits its match)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the error tree sits below the data it names (model imports it)
    from arena.model import Termination


class ArenaError(Exception):
    """Base of every error the arena raises on purpose."""


# --- rules engines (pure) ---------------------------------------------------------------
class GameError(ArenaError):
    """Base of the errors raised by rules engines."""


class InvalidActionError(GameError):
    """An action text (or message) that does not parse in the game's action grammar."""


class IllegalActionError(GameError):
    """An action that parses but is not legal in the current state."""


class OptionsError(GameError):
    """An unknown rules option or an invalid option value."""


class UnknownGameError(ArenaError):
    """A game id that is not in the registry."""


# --- configuration and user input -------------------------------------------------------
class ConfigError(ArenaError):
    """A bad bot manifest, ladder file, command-line value and the like."""


class LogFormatError(ArenaError):
    """A match log that cannot be read."""


class ReplayMismatchError(ArenaError):
    """A match log whose actions or scores disagree with the rules engine."""


class SignatureError(ArenaError):
    """A signed file (a match log, a results manifest) whose signature does not hold: changed
    bytes, an untrusted key, a malformed signature record."""


# --- sandboxes and infrastructure -------------------------------------------------------
class SandboxError(ArenaError):
    """The sandbox could not start or supervise a bot for reasons that are not the bot's fault."""


class ClusterError(ArenaError):
    """The match cluster cannot run matches: no scheduler answers, a refused certificate, a
    worker or scheduler of another arena version."""


class VersionMismatchError(ClusterError):
    """A head and a worker (or scheduler) run different arena versions or cluster protocols."""


class BotFault(ArenaError):
    """A bot misbehaved: carries the termination it earns and, once known, its seat. Raised
    inside the referee and the sandboxes only; the match loop turns it into a forfeit."""

    def __init__(self, termination: Termination, detail: str, seat: int | None = None,
                 answer: str | None = None) -> None:
        super().__init__(f"{termination}: {detail}")
        self.termination = termination
        self.detail = detail
        self.seat = seat
        self.answer = answer
        """What the bot answered, as text, when the fault is about an answer (bounded)."""

    def at(self, seat: int) -> BotFault:
        """The same fault, attributed to ``seat``."""
        return BotFault(self.termination, self.detail, seat, self.answer)
