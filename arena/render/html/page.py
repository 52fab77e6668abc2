"""An HTML document: the style and any script inline, or linked from a site's shared files;
data as inline JSON (packed in a site's page: gzip, base64).

A page on its own (``arena watch --html``) is self-contained: the style and the player inline.
A page of a site (``arena ladder report``, the competition server's public page) links the
site's shared files instead (``SiteLinks``: ``assets/arena-<hash>.css``,
``assets/viewer-<hash>.js``), so a thousand replays share one copy of the player. Either way
the content security policy forbids every fetch from elsewhere (no scripts, styles, fonts,
images or connections from anywhere but the site itself; no inline script in a site page), so
a page works offline and cannot reach the network even through text a bot controls (its name,
an unparseable answer). Links to other files of a site are plain navigation. Pure.
"""

from __future__ import annotations

import base64
import gzip
import json
from dataclasses import dataclass
from typing import Any

from arena.render.html.assets import STYLE, shared_name
from arena.render.html.markup import Markup, attrs, render, text

CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
       "img-src data:; base-uri 'none'; form-action 'none'")
"""A self-contained page's content security policy: inline style and script only, nothing
fetched."""
POLICY_TAIL = "img-src data:; base-uri 'none'; form-action 'none'"
"""What every site page's policy ends with."""


@dataclass(frozen=True)
class SiteLinks:
    """Where a site page finds the site's shared files (see ``arena.render.html.assets``)."""

    root: str = ""
    """The way from the page to the site's root: ``""`` for index.html, ``"../"`` for a page
    one directory down (``replays/``, ``matches/``)."""

    def href(self, content: str) -> str:
        """The relative link to the shared file holding ``content``."""
        return self.root + shared_name(content)


def site_policy(*, script: bool, style_attributes: bool) -> str:
    """The policy of a site page: the site's own style sheet (and its script, if the page has
    one), nothing inline but ``style`` attributes where the page draws with them (the charts,
    the heat map); nothing fetched from elsewhere."""
    style = "style-src 'self'" + (" 'unsafe-inline'" if style_attributes else "")
    scripts = "; script-src 'self'" if script else ""
    return f"default-src 'none'; {style}{scripts}; {POLICY_TAIL}"


def json_script(element_id: str, data: Any) -> str:
    """``data`` as an inline JSON block that no string inside it can close early."""
    payload = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    payload = payload.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace(
        "\u2029", "\\u2029")
    return f'<script type="application/json" id="{element_id}">{payload}</script>'


def packed_script(element_id: str, data: Any) -> str:
    """``data`` as JSON, gzip-compressed and in base64, in an inline block the player unpacks
    (``DecompressionStream``): a replay's frames are markup that repeats itself, about a
    sixth of their size packed. The same data always packs to the same bytes."""
    payload = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    packed = base64.b64encode(gzip.compress(payload, compresslevel=9, mtime=0)).decode("ascii")
    return (f'<script type="application/octet-stream" id="{element_id}" '
            f'data-encoding="gzip+base64">{packed}</script>')


def document(title: str, body: Markup, *, script: str = "", data: Any = None,
             site: SiteLinks | None = None) -> str:
    """The whole page: ``body`` (markup), then the data block and the script, if any. With
    ``site`` the style and the script (a shared one: ``assets.PLAYER``) are links to the
    site's shared files and the data is packed (``packed_script``); without, they are inline
    and the data is plain JSON."""
    html = render(body)
    if site is None:
        block = "" if data is None else json_script("arena-data", data)
        policy, style = CSP, f"<style>{STYLE}</style>"
        code = f"<script>{script}</script>" if script else ""
    else:  # a style attribute can only be markup here: text has its quotes escaped
        block = "" if data is None else packed_script("arena-data", data)
        drawn = ' style="' in html or ' style=\\"' in json.dumps(data)  # frames: markup
        policy = site_policy(script=bool(script), style_attributes=drawn)
        style = f'<link rel="stylesheet"{attrs({"href": site.href(STYLE)})}>'
        code = f"<script{attrs({'src': site.href(script)})}></script>" if script else ""
    parts = [
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="generator" content="arena">',
        f"<title>{text(title)}</title>{style}</head>\n<body>",
        html,
    ]
    parts += [part for part in (block, code) if part]
    parts.append("</body></html>\n")
    return "\n".join(parts)
