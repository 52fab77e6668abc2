"""Old import paths of modules that moved: each still works for one release, as the moved module
itself, with one ``DeprecationWarning`` naming the new path (the referee's moved modules, the
built-in games' codecs, renderers and boards)."""

from __future__ import annotations

import importlib
import sys
import warnings
from types import ModuleType


def moved(old: str, new: str) -> ModuleType:
    """Make ``old`` the module ``new`` (its names, and what is patched through either), warning
    the importer (called from the old module's body, so the importer is three frames up)."""
    warnings.warn(f"{old} moved to {new}: import it from there ({old} goes in the next "
                  "release)", DeprecationWarning, stacklevel=3)
    module = importlib.import_module(new)
    sys.modules[old] = module
    return module
