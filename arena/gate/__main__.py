"""``python -m arena.gate PLUGIN_JSON SEED...``: the other process of ``determinism``
(``trace_main``)."""

from __future__ import annotations

import sys

from arena.gate.determinism import trace_main

raise SystemExit(trace_main(sys.argv[1:]))
