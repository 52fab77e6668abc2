"""Deprecated: ``arena.ladder.publish`` moved to ``arena.site.publish``.

The old path keeps working for one release, with a ``DeprecationWarning``."""

import warnings

from arena.site.publish import *  # noqa: F403

warnings.warn(
    "arena.ladder.publish is deprecated: import arena.site.publish",
    DeprecationWarning, stacklevel=2)
