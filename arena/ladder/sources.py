"""Deprecated: ``arena.ladder.sources`` moved to ``arena.ladder.schedules.sources``, and its
``schedule_status`` to ``arena.ladder.schedules.registry``.

The old path keeps working for one release, with a ``DeprecationWarning``."""

import warnings

from arena.ladder.schedules.registry import schedule_status  # noqa: F401
from arena.ladder.schedules.sources import *  # noqa: F403

warnings.warn(
    "arena.ladder.sources is deprecated: import arena.ladder.schedules.sources "
    "(schedule_status: arena.ladder.schedules.registry)",
    DeprecationWarning, stacklevel=2)
