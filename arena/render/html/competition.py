"""A competition's public pages (`arena host`'s site): the front page linking each game's ladder
site and the referee's public key, and the line under a replay's title that links its signed
log and says how to check it offline. Pure: names in, HTML out (``arena.host.site`` writes
them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

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


def front_page(name: str, games: Sequence[str], public_key: str, signed_logs: bool,
               finals: Sequence[tuple[str, str]] = ()) -> str:
    """The competition's front page: its games, each a link to its ladder's page, and the
    referee's public key, which checks every log and seat view a contestant downloads
    (``signed_logs``: and the signed log beside each replay); ``finals``: (label, link) of each
    final tournament's results or, while it plays, its seed commitment."""
    items = "".join(f'<li><a href="{text(game)}/index.html">{text(game)}</a></li>'
                    for game in games)
    if finals:
        items += "".join(f'<li><a href="{text(link)}">{text(label)}</a></li>'
                         for label, link in finals)
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


def final_page(manifest: Mapping[str, Any]) -> str:
    """A final tournament's published results (its manifest, ``arena.site.final``): the places
    under the tie rule, each version's rating and 95% interval, the seed commitment and its
    reveal, and how to check it all."""
    final = manifest["final"]
    by_player = {r["player"]: r for r in manifest.get("fit", [])}
    rows = []
    for p in final["places"]:
        tied = ", ".join(p["tied_with"])
        note = (f"intervals overlap {tied}: ordered by the tie-break ({p['decided_by']})"
                if p["decided_by"] else f"shares its places with {tied}" if tied else "")
        games = by_player.get(p["player"], {}).get("games", "")
        rows.append(f"<tr><td>{text(p['place'])}</td><td>{text(p['player'])}</td>"
                    f"<td>{p['rating']:.0f}</td><td>&plusmn;{p['ci95']:.0f}</td>"
                    f"<td>{p['rating'] - p['ci95']:.0f} to {p['rating'] + p['ci95']:.0f}</td>"
                    f"<td>{text(games)}</td><td>{text(note)}</td></tr>")
    rule = ("versions whose 95% intervals overlap share their places"
            if final["tie_break"] == "none" else
            "versions whose 95% intervals overlap are ordered by the rating estimate (the "
            "tie-break, not the matches, decides between them)")
    withdrawn = "".join(
        f"<li>{text(w['name'])}@{text(w['version'])}: {text(w['why'])}</li>"
        for w in final.get("withdrawn", []))
    if withdrawn:
        withdrawn = ("<p>Taken out after the final began (their matches played stay in the "
                     f"results; the standings are fitted without them):</p><ul>{withdrawn}</ul>")
    state = ("every scheduled match was played" if final.get("complete") else
             "not every scheduled match was played (the final was closed before its end)")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" '
        f'content="{site_policy(script=False, style_attributes=False)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{text(manifest['ladder'])}: final standings</title></head>\n<body>\n"
        f"<h1>{text(manifest['ladder'])}: final standings</h1>"
        f"<p>{text(final['format'])}, {text(final['encounters'])} duplicate encounter(s) per "
        f"pair; {text(state)}. Tie rule: {text(rule)}.</p>"
        "<table><thead><tr><th>Place</th><th>Version</th><th>Rating</th><th>95%</th>"
        "<th>Interval</th><th>Games</th><th></th></tr></thead><tbody>"
        + "".join(rows) + "</tbody></table>" + withdrawn
        + f"<p>Seeds: committed before the first match to the SHA-256 "
        f"<code>{text(final['commitment'])}</code> of a secret, revealed here: "
        f"<code>{text(final['secret'])}</code>. Every deal is computed from it; "
        f"<code>arena verify</code> checks each one, the commitment's signature, and these "
        f"places from the logs (<a href=\"manifest.json\">manifest.json</a>).</p>"
        "</body></html>\n")
