"""Deprecated: ``arena.ladder.sprt_pairs`` moved to ``arena.stats.sprt_pairs`` (the counting) and
``arena.sprt.plan`` (the ids and seeds).

The old path keeps working for one release, with a ``DeprecationWarning``."""

import warnings

from arena.sprt.plan import *  # noqa: F403
from arena.stats.sprt_pairs import *  # noqa: F403

warnings.warn(
    "arena.ladder.sprt_pairs is deprecated: import arena.stats.sprt_pairs / arena.sprt.plan",
    DeprecationWarning, stacklevel=2)
