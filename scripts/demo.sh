#!/usr/bin/env bash
# The main job on a fresh machine: install, then run the demo ladder of the Lost Cities sample bots.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/arena run-ladder ladder/demo.toml "$@"
