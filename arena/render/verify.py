"""What `arena verify` found, on the terminal: a verified download (a match log or a seat view
a contestant downloaded) in one line, or a published ladder's verification (a summary when it
verifies, else every difference, one line each). Pure: the verification's records in, rich
renderables out (the records are the site's and the competition server's: named here for the
type checker only, as the data they hand down)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Group
from rich.text import Text

from arena.render.text import notice

if TYPE_CHECKING:
    from arena.host.views import Checked
    from arena.site.publish import Verification


def render_checked(path: Path, checked: Checked) -> Text:
    """What a verified download holds, in one line."""
    names = checked.bots
    result = checked.result
    winner = result.get("winner")
    if result.get("void"):
        outcome = "void"
    elif isinstance(winner, int) and 0 <= winner < len(names):
        outcome = f"{names[winner]} won"
    else:
        outcome = "a draw"
    totals = ", ".join(str(t) for t in result.get("totals") or ())
    what = {"log": "the match log", "signed log": "the signed match log"}.get(
        checked.kind, f"seat {checked.seat}'s view")
    said = [f"{what} of match {checked.match_id} ({checked.game}: "
            f"{' vs '.join(names)}), signed by key {checked.key_id}",
            f"{outcome}, totals [{totals}] ({result.get('termination')})"]
    if checked.seed is not None:
        said.append(f"replayed under the rules: {checked.decisions} decisions, the seed "
                    f"{checked.seed}")
    else:
        said.append(f"the seed commitment {checked.seed_commitment}; the seat's "
                    f"{checked.decisions} decisions as the referee recorded them")
    return Text.assemble(("verified", "bold green"), f": {path}: " + "; ".join(said))


def render_verification(report: Verification) -> Group:
    """What a verification found: a summary when it verifies, else every difference."""
    if not report.ok:
        lines = [notice("difference", "bold red", line) for line in report.differences]
        count = len(report.differences)
        lines.append(notice("NOT verified", "bold red", f"{count} difference"
                            f"{'s' if count > 1 else ''} in {report.directory}"))
        return Group(*lines)
    lines = [Text.assemble(("verified", "bold green"), f": {report.directory}: ladder "
                           f"{report.ladder}, {report.logs} match logs signed by trusted keys, "
                           "replayed under the rules and as listed; the manifest signed by "
                           f"key {report.key_id}; the standings recomputed from the logs "
                           "agree")]
    if report.final:
        lines.append(Text(f"final: {report.final}"))
    if report.missing:
        lines.append(notice("warning", "yellow", f"{len(report.missing)} match"
                            f"{'es' if len(report.missing) > 1 else ''} listed without a log "
                            f"(not verifiable, taken as listed): {', '.join(report.missing)}"))
    if report.unslotted:
        lines.append(notice("note", "yellow", f"{report.unslotted} log"
                            f"{'s' if report.unslotted > 1 else ''} from before log format 4 "
                            "name no ladder slot: their encounter, cycle and leg are the "
                            "manifest's"))
    return Group(*lines)
