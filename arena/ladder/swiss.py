"""Deprecated: ``arena.ladder.swiss`` moved to ``arena.ladder.schedules.swiss``.

The old path keeps working for one release, with a ``DeprecationWarning``."""

import warnings

from arena.ladder.schedules.swiss import *  # noqa: F403

warnings.warn(
    "arena.ladder.swiss is deprecated: import arena.ladder.schedules.swiss",
    DeprecationWarning, stacklevel=2)
