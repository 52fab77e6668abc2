"""A competition's public page: one ladder site per game (``arena.site.refresh.refresh_site``,
incremental and atomic) under ``<site dir>/<game>/``, and an index linking them.

What is public follows the visibility setting: with ``logs = "public"`` each match has its
replay page and, beside it, its signed log (``replays/<match>.jsonl``: the log as a contestant
downloads it, ending with the referee's signed statement of it, ``arena.host.views.download``),
which the page links with the command that checks it offline against the public key the page
offers (``referee.pub``); otherwise the site has no replays and no logs (a replay is the whole
board), and logs written while it had are removed. A result's detail (it may quote a bot's last
output line) is never on the site: a bot's output is its owner's. Any static web server can
serve the directory (docs/competition-walkthrough.md, "Watching it run").
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from pathlib import Path

from arena.errors import ConfigError, SignatureError
from arena.host.config import Competition
from arena.host.views import PUBLIC, shared_log
from arena.ladder.config import LadderConfig
from arena.ladder.store import LadderStore
from arena.record.signing import LOG_DOCUMENT, Signer, load_signer, statement_for
from arena.render.html.markup import text
from arena.render.html.page import site_policy
from arena.site.match_pages import REPLAY_DIR, replay_name
from arena.site.refresh import ReplayMaker, SiteSummary, refresh_site, site_replay, write_public

PUBLIC_KEY = "referee.pub"
"""The referee's public key at the top of the site (the server writes it)."""
SIGNED_LOG = ".jsonl"
"""A signed log's suffix, beside its replay page (``<match>.html``)."""


def refresh_competition_site(competition: Competition, ladders: Mapping[str, LadderConfig],
                             store: LadderStore) -> dict[str, SiteSummary]:
    """Bring every game's site up to date, then the index; what each refresh did, by game."""
    out = competition.site_dir
    public = competition.logs == PUBLIC
    signer = _signer(competition) if public else None
    done = {game: refresh_site(config, out / game, store=store, replays=public, detail=False,
                               make_replay=signed_replay(out / game / REPLAY_DIR, signer))
            for game, config in ladders.items()}
    for game in ladders:
        remove_unlinked_logs(out / game / REPLAY_DIR)
    write_public(out / "index.html", index_page(competition).encode())
    return done


def _signer(competition: Competition) -> Signer | None:
    """The key the competition's ladders sign with (None: none readable yet)."""
    try:
        return load_signer(competition.referee_key)
    except ConfigError:
        return None


def signed_replay(replays: Path, signer: Signer | None) -> ReplayMaker:
    """A match's replay page (``site_replay``) that links its signed log, written first into
    ``replays`` (so the link never points at nothing); without a signer, or for a log the key
    did not sign, the page alone."""

    def make(log: Path, detail: bool) -> str:
        page = site_replay(log, detail)
        if signer is None:
            return page
        data = log.read_bytes()
        document = shared_log(data, frozenset())
        try:
            statement = statement_for(data, LOG_DOCUMENT, None, document, signer)
        except SignatureError:
            return page
        match_id = json.loads(data.split(b"\n", 1)[0])["match_id"]
        name = replay_name(match_id).removesuffix(".html") + SIGNED_LOG
        write_public(replays / name, document + statement)
        return linked(page, name)

    return make


def linked(page: str, name: str) -> str:
    """A replay page with a line under its title: the signed log ``name`` beside it and how to
    check it."""
    line = (f'<p class="meta">The <a href="{text(name)}" download>signed log</a> of this match '
            f"checks offline against the referee's public key "
            f'(<a href="../../{PUBLIC_KEY}" download>{PUBLIC_KEY}</a>): '
            f"<code>arena verify {text(name)} --key {PUBLIC_KEY}</code></p>")
    cut = page.find("</header>")
    return page if cut < 0 else page[:cut] + line + page[cut:]


def remove_unlinked_logs(replays: Path) -> int:
    """Remove the signed logs whose replay page is gone (the site no longer shows the match, or
    no longer shows replays); how many."""
    removed = 0
    if not replays.is_dir():
        return 0
    for path in replays.glob(f"*{SIGNED_LOG}"):
        if not path.with_suffix(".html").is_file():
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                removed += 1
    return removed


def index_page(competition: Competition) -> str:
    """The competition's front page: its games, each a link to its ladder's page, and the
    referee's public key, which checks every log and seat view a contestant downloads."""
    items = "".join(f'<li><a href="{text(g.game)}/index.html">{text(g.game)}</a></li>'
                    for g in competition.games)
    replays = " and the signed log beside each replay" if competition.logs == PUBLIC else ""
    key = (f'<p>The referee\'s public key: <a href="{PUBLIC_KEY}" download>{PUBLIC_KEY}</a>. '
           f"It checks every match log and seat view downloaded with <code>arena logs</code>"
           f"{replays}, offline: <code>arena verify FILE --key {PUBLIC_KEY}</code>.</p>")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" '
        f'content="{site_policy(script=False, style_attributes=False)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{text(competition.name)}</title></head>\n<body>"
        f"<h1>{text(competition.name)}</h1><p>The ladder of each game:</p><ul>{items}</ul>"
        f"{key}</body></html>\n")
