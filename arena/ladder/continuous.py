"""Deprecated: ``arena.ladder.continuous`` moved to ``arena.ladder.schedules.continuous``.

The old path keeps working for one release, with a ``DeprecationWarning``."""

import warnings

from arena.ladder.schedules.continuous import *  # noqa: F403

warnings.warn(
    "arena.ladder.continuous is deprecated: import arena.ladder.schedules.continuous",
    DeprecationWarning, stacklevel=2)
