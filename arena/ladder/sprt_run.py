"""Deprecated: ``arena.ladder.sprt_run`` moved to ``arena.sprt.run``.

The old path keeps working for one release, with a ``DeprecationWarning``."""

import warnings

from arena.sprt.run import *  # noqa: F403

warnings.warn(
    "arena.ladder.sprt_run is deprecated: import arena.sprt.run",
    DeprecationWarning, stacklevel=2)
