"""Deprecated: ``arena.ladder.report_page`` moved to ``arena.site.report_page``.

The old path keeps working for one release, with a ``DeprecationWarning``."""

import warnings

from arena.site.report_page import *  # noqa: F403

warnings.warn(
    "arena.ladder.report_page is deprecated: import arena.site.report_page",
    DeprecationWarning, stacklevel=2)
