"""Deprecated: ``arena.ladder.sprt`` moved to ``arena.stats.sprt``.

The old path keeps working for one release, with a ``DeprecationWarning``."""

import warnings

from arena.stats.sprt import *  # noqa: F403

warnings.warn(
    "arena.ladder.sprt is deprecated: import arena.stats.sprt",
    DeprecationWarning, stacklevel=2)
