"""One self-contained HTML document: the style and any script inline, data as inline JSON.

The content security policy forbids every fetch (no scripts, styles, fonts, images or
connections from anywhere), so a page works offline and cannot reach the network even through
text a bot controls (its name, an unparseable answer). Links to other files of a report are
plain navigation. Pure.
"""

from __future__ import annotations

import json
from typing import Any

from arena.render.html.assets import STYLE
from arena.render.html.markup import Markup, render, text

CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
       "img-src data:; base-uri 'none'; form-action 'none'")
"""The page's content security policy: inline style and script only, nothing fetched."""


def json_script(element_id: str, data: Any) -> str:
    """``data`` as an inline JSON block that no string inside it can close early."""
    payload = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    payload = payload.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace(
        "\u2029", "\\u2029")
    return f'<script type="application/json" id="{element_id}">{payload}</script>'


def document(title: str, body: Markup, *, script: str = "", data: Any = None) -> str:
    """The whole page: ``body`` (markup), then the data block and the script, if any."""
    parts = [
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="generator" content="arena">',
        f"<title>{text(title)}</title><style>{STYLE}</style></head>\n<body>",
        render(body),
    ]
    if data is not None:
        parts.append(json_script("arena-data", data))
    if script:
        parts.append(f"<script>{script}</script>")
    parts.append("</body></html>\n")
    return "\n".join(parts)
