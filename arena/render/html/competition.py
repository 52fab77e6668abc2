"""A competition's public pages (`arena host`'s site): the front page linking each game's ladder
site and the referee's public key, and the line under a replay's title that links its signed
log and says how to check it offline. Pure: names in, HTML out (``arena.host.site`` writes
them)."""

from __future__ import annotations

from collections.abc import Sequence

from arena.render.html.markup import text
from arena.render.html.page import site_policy


def with_signed_log(page: str, name: str, public_key: str) -> str:
    """A replay page with a line under its title: the signed log ``name`` beside it and how to
    check it against ``public_key`` (a file two directories up)."""
    line = (f'<p class="meta">The <a href="{text(name)}" download>signed log</a> of this match '
            f"checks offline against the referee's public key "
            f'(<a href="../../{public_key}" download>{public_key}</a>): '
            f"<code>arena verify {text(name)} --key {public_key}</code></p>")
    cut = page.find("</header>")
    return page if cut < 0 else page[:cut] + line + page[cut:]


def front_page(name: str, games: Sequence[str], public_key: str, signed_logs: bool) -> str:
    """The competition's front page: its games, each a link to its ladder's page, and the
    referee's public key, which checks every log and seat view a contestant downloads
    (``signed_logs``: and the signed log beside each replay)."""
    items = "".join(f'<li><a href="{text(game)}/index.html">{text(game)}</a></li>'
                    for game in games)
    replays = " and the signed log beside each replay" if signed_logs else ""
    key = (f'<p>The referee\'s public key: <a href="{public_key}" download>{public_key}</a>. '
           f"It checks every match log and seat view downloaded with <code>arena logs</code>"
           f"{replays}, offline: <code>arena verify FILE --key {public_key}</code>.</p>")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" '
        f'content="{site_policy(script=False, style_attributes=False)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{text(name)}</title></head>\n<body>"
        f"<h1>{text(name)}</h1><p>The ladder of each game:</p><ul>{items}</ul>"
        f"{key}</body></html>\n")
