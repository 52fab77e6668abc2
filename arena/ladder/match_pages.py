"""Deprecated: ``arena.ladder.match_pages`` moved to ``arena.site.match_pages``.

The old path keeps working for one release, with a ``DeprecationWarning``."""

import warnings

from arena.site.match_pages import *  # noqa: F403

warnings.warn(
    "arena.ladder.match_pages is deprecated: import arena.site.match_pages",
    DeprecationWarning, stacklevel=2)
