"""Deprecated: ``arena.ladder.sprt_file`` moved to ``arena.sprt.file``.

The old path keeps working for one release, with a ``DeprecationWarning``."""

import warnings

from arena.sprt.file import *  # noqa: F403

warnings.warn(
    "arena.ladder.sprt_file is deprecated: import arena.sprt.file",
    DeprecationWarning, stacklevel=2)
