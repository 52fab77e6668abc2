"""Deprecated: ``arena.ladder.knockout`` moved to ``arena.ladder.schedules.knockout``.

The old path keeps working for one release, with a ``DeprecationWarning``."""

import warnings

from arena.ladder.schedules.knockout import *  # noqa: F403

warnings.warn(
    "arena.ladder.knockout is deprecated: import arena.ladder.schedules.knockout",
    DeprecationWarning, stacklevel=2)
