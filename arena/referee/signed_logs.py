"""Signing the log of a match just played, where results are kept (a ladder's runner, `arena
serve`): the log is signed once it is finished; a log that cannot be signed (none was written,
it is not whole, the disk failed) costs only its signature, never the result, and is said in
the caller's log."""

from __future__ import annotations

import logging
from pathlib import Path

from arena.errors import ArenaError
from arena.model import MatchResult
from arena.referee.signing import LogSignature, Signer, sign_log


def sign_played(result: MatchResult, signer: Signer, logger: logging.Logger
                ) -> LogSignature | None:
    """Append ``signer``'s signature to the finished log of ``result``; None (logged to
    ``logger`` unless the match had no log at all) when it could not be signed."""
    if result.log is None or not Path(result.log).is_file():
        return None  # a match void before its log began
    try:
        return sign_log(Path(result.log), signer)
    except (ArenaError, OSError, ValueError) as exc:
        logger.error("match %s: its log %s was not signed: %s", result.match_id, result.log,
                     exc)
        return None
