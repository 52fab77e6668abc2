"""Deprecated: ``arena.ladder.encounters`` moved to ``arena.stats.encounters``.

The old path keeps working for one release, with a ``DeprecationWarning``."""

import warnings

from arena.stats.encounters import *  # noqa: F403

warnings.warn(
    "arena.ladder.encounters is deprecated: import arena.stats.encounters",
    DeprecationWarning, stacklevel=2)
