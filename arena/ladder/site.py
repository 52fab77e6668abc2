"""Deprecated: ``arena.ladder.site`` moved to ``arena.site.refresh``.

The old path keeps working for one release, with a ``DeprecationWarning``."""

import warnings

from arena.site.refresh import *  # noqa: F403

warnings.warn(
    "arena.ladder.site is deprecated: import arena.site.refresh",
    DeprecationWarning, stacklevel=2)
