"""Deprecated: ``arena.ladder.status_text`` moved to ``arena.render.status_text``.

The old path keeps working for one release, with a ``DeprecationWarning``."""

import warnings

from arena.render.status_text import *  # noqa: F403

warnings.warn(
    "arena.ladder.status_text is deprecated: import arena.render.status_text",
    DeprecationWarning, stacklevel=2)
