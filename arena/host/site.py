"""A competition's public page: one ladder site per game (``arena.ladder.site.refresh_site``,
incremental and atomic) under ``<site dir>/<game>/``, and an index linking them.

What is public follows the visibility setting: with ``logs = "public"`` each match has its
replay page; otherwise the site has no replays (a replay is the whole board). A result's detail
(it may quote a bot's last output line) is never on the site: a bot's output is its owner's.
Any static web server can serve the directory (README: Running a competition).
"""

from __future__ import annotations

from collections.abc import Mapping

from arena.host.config import Competition
from arena.host.views import PUBLIC
from arena.ladder.config import LadderConfig
from arena.ladder.site import SiteSummary, refresh_site, write_public
from arena.ladder.store import LadderStore
from arena.render.html.markup import text
from arena.render.html.page import site_policy


def refresh_competition_site(competition: Competition, ladders: Mapping[str, LadderConfig],
                             store: LadderStore) -> dict[str, SiteSummary]:
    """Bring every game's site up to date, then the index; what each refresh did, by game."""
    out = competition.site_dir
    done = {game: refresh_site(config, out / game, store=store,
                               replays=competition.logs == PUBLIC, detail=False)
            for game, config in ladders.items()}
    write_public(out / "index.html", index_page(competition).encode())
    return done


def index_page(competition: Competition) -> str:
    """The competition's front page: its games, each a link to its ladder's page."""
    items = "".join(f'<li><a href="{text(g.game)}/index.html">{text(g.game)}</a></li>'
                    for g in competition.games)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" '
        f'content="{site_policy(script=False, style_attributes=False)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{text(competition.name)}</title></head>\n<body>"
        f"<h1>{text(competition.name)}</h1><p>The ladder of each game:</p><ul>{items}</ul>"
        "</body></html>\n")
