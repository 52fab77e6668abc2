"""Running the gate: every check on a plugin, in order, each failure a failed check (never a
crash), the referee's own log records about the gate's matches left out."""

from __future__ import annotations

import contextlib
import logging
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

from arena.games import registered
from arena.games.plugin import GamePlugin
from arena.gate.actions import check_grammar, check_is_legal
from arena.gate.determinism import check_determinism
from arena.gate.identity import plugin_identity
from arena.gate.options import check_options
from arena.gate.playouts import check_playouts_end, check_replay
from arena.gate.report import CHECKS, Check, CheckFailed, GateReport, one_line
from arena.gate.subject import GATE_MATCH, Subject
from arena.gate.views import check_codec, check_leak, check_renderers

CHECK_FUNCTIONS: dict[str, Callable[[Subject], str]] = {
    "determinism": check_determinism,
    "grammar": check_grammar,
    "playouts-end": check_playouts_end,
    "is-legal": check_is_legal,
    "replay": check_replay,
    "codec-round-trip": check_codec,
    "leak": check_leak,
    "options": check_options,
    "renderers": check_renderers,
}
"""Each check, by name (``CHECKS`` is their order)."""


# --- running ---------------------------------------------------------------------------------
def run_gate(plugin: GamePlugin, *, matches: int = 3,
             progress: Callable[[Check], None] | None = None) -> GateReport:
    """Run every check on ``plugin`` (made this process's game of its id meanwhile: an
    uninstalled package is checked as it would play) and report each; ``progress`` is called
    with each check as it ends. Never raises for the game's faults: they are failed checks."""
    started = time.monotonic()
    identity = plugin_identity(plugin)
    subject = Subject(plugin.id, max(1, matches), plugin)
    results: list[Check] = []
    with registered(plugin), _quiet_matches(), \
            tempfile.TemporaryDirectory(prefix="arena-gate-") as tmp:
        subject.workdir = Path(tmp)
        for name in CHECKS:
            check = _one(name, subject)
            results.append(check)
            if progress is not None:
                progress(check)
    return GateReport(plugin.id, identity, all(c.passed for c in results), tuple(results),
                      time.monotonic() - started)


class _GateMatches(logging.Filter):
    """Drops the referee's own log records about the gate's matches (their failures are the
    gate's report)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        return not any(isinstance(a, str) and a.startswith(GATE_MATCH) for a in args)


@contextlib.contextmanager
def _quiet_matches() -> Iterator[None]:
    match_log, quiet = logging.getLogger("arena.referee.match"), _GateMatches()
    match_log.addFilter(quiet)
    try:
        yield
    finally:
        match_log.removeFilter(quiet)


def _one(name: str, subject: Subject) -> Check:
    subject.where = ""
    try:
        return Check(name, True, CHECK_FUNCTIONS[name](subject))
    except CheckFailed as failed:
        return Check(name, False, one_line(str(failed)))
    except (Exception, SystemExit) as exc:  # noqa: BLE001 — the game's failure is the check's
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        at = f"{subject.where}: " if subject.where else ""
        return Check(name, False, one_line(f"{at}{type(exc).__name__}: {exc} (raised at "
                                        f"{frame.filename}:{frame.lineno})"))
