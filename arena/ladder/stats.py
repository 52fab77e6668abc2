"""Deprecated: ``arena.ladder.stats`` moved to ``arena.stats.resources``.

The old path keeps working for one release, with a ``DeprecationWarning``."""

import warnings

from arena.stats.resources import *  # noqa: F403

warnings.warn(
    "arena.ladder.stats is deprecated: import arena.stats.resources",
    DeprecationWarning, stacklevel=2)
