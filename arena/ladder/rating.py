"""Deprecated: ``arena.ladder.rating`` moved to ``arena.stats.rating``.

The old path keeps working for one release, with a ``DeprecationWarning``."""

import warnings

from arena.stats.rating import *  # noqa: F403

warnings.warn(
    "arena.ladder.rating is deprecated: import arena.stats.rating",
    DeprecationWarning, stacklevel=2)
