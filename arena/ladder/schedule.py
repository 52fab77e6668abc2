"""Deprecated: ``arena.ladder.schedule`` moved to ``arena.ladder.schedules.schedule``.

The old path keeps working for one release, with a ``DeprecationWarning``."""

import warnings

from arena.ladder.schedules.schedule import *  # noqa: F403

warnings.warn(
    "arena.ladder.schedule is deprecated: import arena.ladder.schedules.schedule",
    DeprecationWarning, stacklevel=2)
