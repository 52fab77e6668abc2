"""HTML pages: match replays with a small player, and the pieces a ladder report is drawn with
(inline SVG charts). Pure: data in, one HTML string out; nothing is fetched from elsewhere.

- ``markup``: HTML as fragment trees, and the table that stores each distinct fragment once;
- ``page``: the document shell (the style and script inline, or linked from a site's shared
  files; a policy that forbids every fetch from elsewhere);
- ``assets``: the style sheet and the player script, and their shared files' names;
- ``replay``: a replayed match (or a downloaded seat view) → its page; ``<game>.BOARD`` draws
  each game's frames;
- ``charts``: interval chart, line chart and heat-map colours as inline SVG/CSS.
"""

from __future__ import annotations

from arena.render.html.page import SiteLinks
from arena.render.html.replay import ReplayPage, board_for, replay_page, seat_view_page

__all__ = ["ReplayPage", "SiteLinks", "board_for", "replay_page", "seat_view_page"]
