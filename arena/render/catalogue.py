"""How the local bots and images look on the terminal (`arena bots list`, `arena images
prune`): tables that fit 80 columns and never cut a name or an image id a user copies next.
Pure: the catalogue's and the prune's records in, rich renderables out."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text

from arena.render.tables import Col, fitted_table
from arena.render.text import Fitted, plain

if TYPE_CHECKING:
    from arena.bots.catalogue import SubmittedBot
    from arena.bots.images.prune import PruneCandidate


def bots_table(bots: Sequence[SubmittedBot]) -> Fitted:
    """The submitted bots: each name and image id whole; at 80 columns the time submitted, the
    identity and the game go first."""
    columns = (Col("name", keep=True), Col("version"), Col("game", drop=3),
               Col("image", keep=True), Col("identity", drop=2), Col("submitted", drop=1))
    cells = [tuple(plain(cell) for cell in (
        bot.name, bot.version, bot.game, bot.image[:19], bot.digest[:19],
        time.strftime("%Y-%m-%d %H:%M", time.localtime(bot.created)))) for bot in bots]
    return fitted_table(columns, cells, title="submitted bots")


def images_table(results: Sequence[PruneCandidate], dry_run: bool) -> Fitted:
    """What `arena images prune` did (or would do) to each image: its short id whole, its kind,
    its own size and the outcome (why it was kept)."""
    columns = (Col("image", keep=True), Col("kind"), Col("own size", "right"), Col("outcome"))
    cells = []
    for item in results:
        if item.reason:  # may quote a tag or the engine's words
            outcome = plain(f"kept: {item.reason}")
        else:
            outcome = Text("would be removed") if dry_run else Text("removed", style="green")
        cells.append((item.image_id[7:19], item.kind, size_text(item.size), outcome))
    return fitted_table(columns, cells, title="arena images" + (" (dry run)" if dry_run else ""))


def size_text(n: int) -> str:
    """A size in MiB, or KiB below one MiB."""
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n / 1024:.1f} KiB"
