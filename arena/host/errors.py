"""What the competition server refuses or cannot do, as exceptions its rooms share (the
pipeline raises them, the service and the server turn them into answers)."""

from __future__ import annotations

from arena.errors import ArenaError, ConfigError


class QuotaRefusal(ArenaError):
    """A submission the quotas refuse before any byte is sent."""


class QuotaExceeded(ConfigError):
    """A submission the contestant's quota does not allow (nothing was recorded)."""


class Refused(Exception):
    """The submitted bot is refused (its fault: counted against the quota)."""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail


class Revoked(Exception):
    """The submission's contestant was revoked while it was under way: CANCELLED."""

    message = ("cancelled: your token was revoked while the submission was under way: nothing "
               "more is done with it (not counted)")
    detail = ""


class Failed(Exception):
    """The server could not finish a submission (its fault: not counted)."""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail


class FeedsFull(ArenaError):
    """Too many matches are being watched at once."""
