"""Deprecated: ``arena.ladder.status`` moved to ``arena.ladder.schedules.status``.

The old path keeps working for one release, with a ``DeprecationWarning``."""

import warnings

from arena.ladder.schedules.status import *  # noqa: F403

warnings.warn(
    "arena.ladder.status is deprecated: import arena.ladder.schedules.status",
    DeprecationWarning, stacklevel=2)
