"""Self-contained HTML pages: match replays with a small player, and the pieces a ladder report
is drawn with (inline SVG charts). Pure: data in, one HTML string out; nothing is fetched.

- ``markup``: HTML as fragment trees, and the table that stores each distinct fragment once;
- ``page``: the document shell (inline style and script, a policy that forbids every fetch);
- ``assets``: the style sheet and the player script;
- ``replay``: a replayed match → its page; ``<game>.BOARD`` draws each game's frames;
- ``charts``: interval chart, line chart and heat-map colours as inline SVG/CSS.
"""

from __future__ import annotations

from arena.render.html.replay import ReplayPage, board_for, replay_page

__all__ = ["ReplayPage", "board_for", "replay_page"]
