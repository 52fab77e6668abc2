"""A competition's public page: one ladder site per game (``arena.site.refresh.refresh_site``,
incremental and atomic) under ``<site dir>/<game>/``, an index linking them, and the audit log
of the operator's moderation (``audit.json``). Each game's site shows its matches as moderated:
a voided match, and every match of a disqualified contestant's bots, marked void (out of the
standings), a rerun in its void match's place.

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
from collections.abc import Callable, Mapping
from pathlib import Path

from arena.errors import ConfigError, SignatureError
from arena.host.config import Competition
from arena.host.final import COMMITMENT_SUFFIX
from arena.host.final import SITE_DIR as FINAL_SITE_DIR
from arena.host.views import PUBLIC, shared_log
from arena.ladder.config import LadderConfig
from arena.ladder.store import LadderStore, StoredMatch
from arena.record.signing import LOG_DOCUMENT, Signer, load_signer, statement_for
from arena.render.html.competition import front_page, with_signed_log
from arena.site.match_pages import REPLAY_DIR, replay_name
from arena.site.refresh import ReplayMaker, SiteSummary, refresh_site, site_replay, write_public

PUBLIC_KEY = "referee.pub"
"""The referee's public key at the top of the site (the server writes it)."""
AUDIT_FILE = "audit.json"
"""The competition's audit log (``arena.host.audit``: every moderation action, why and when)
at the top of the site."""
View = Callable[[list[StoredMatch]], list[StoredMatch]]
SIGNED_LOG = ".jsonl"
"""A signed log's suffix, beside its replay page (``<match>.html``)."""


def refresh_competition_site(competition: Competition, ladders: Mapping[str, LadderConfig],
                             store: LadderStore,
                             views: Mapping[str, View] | None = None,
                             audit: bytes | None = None) -> dict[str, SiteSummary]:
    """Bring every game's site up to date, then the index; what each refresh did, by game.
    ``views``: by game, the matches its site shows from the store's (moderation); ``audit``:
    the audit log as published (``AUDIT_FILE``)."""
    out = competition.site_dir
    public = competition.logs == PUBLIC
    signer = _signer(competition) if public else None
    done = {game: refresh_site(config, out / game, store=store, replays=public, detail=False,
                               make_replay=signed_replay(out / game / REPLAY_DIR, signer),
                               view=(views or {}).get(game))
            for game, config in ladders.items()}
    for game in ladders:
        remove_unlinked_logs(out / game / REPLAY_DIR)
    if audit is not None:
        write_public(out / AUDIT_FILE, audit)
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
    check it (``arena.render.html.competition``)."""
    return with_signed_log(page, name, PUBLIC_KEY)


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
    referee's public key, which checks every log and seat view a contestant downloads
    (``arena.render.html.competition``)."""
    return front_page(competition.name, [g.game for g in competition.games], PUBLIC_KEY,
                      signed_logs=competition.logs == PUBLIC, finals=final_links(competition))


def final_links(competition: Competition) -> list[tuple[str, str]]:
    """(label, link) of each game's final on the site: its results once published, its seed
    commitment while it plays (``arena.host.final``)."""
    links = []
    site = competition.site_dir / FINAL_SITE_DIR
    for g in competition.games:
        if (site / g.game / "index.html").is_file():
            links.append((f"{g.game}: final standings", f"{FINAL_SITE_DIR}/{g.game}/index.html"))
        elif (site / f"{g.game}{COMMITMENT_SUFFIX}").is_file():
            links.append((f"{g.game}: the final is under way (its seed commitment)",
                          f"{FINAL_SITE_DIR}/{g.game}{COMMITMENT_SUFFIX}"))
    return links
