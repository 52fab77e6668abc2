"""The arena's tests (tests/README.md).

The test run keeps its bytecode even where PYTHONDONTWRITEBYTECODE is set (as on the project's
machines): pytest's rewritten test modules and the modules they import are then compiled once
instead of in every pytest process (collection: 12.5-13.7 s of CPU a process without the cache,
4.2-4.8 s with it)."""

import sys

sys.dont_write_bytecode = False
