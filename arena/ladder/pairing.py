"""Deprecated: ``arena.ladder.pairing`` moved to ``arena.ladder.schedules.pairing``.

The old path keeps working for one release, with a ``DeprecationWarning``."""

import warnings

from arena.ladder.schedules.pairing import *  # noqa: F403

warnings.warn(
    "arena.ladder.pairing is deprecated: import arena.ladder.schedules.pairing",
    DeprecationWarning, stacklevel=2)
