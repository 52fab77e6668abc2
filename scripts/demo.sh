#!/usr/bin/env bash
# The main job on a fresh machine: install, then run the demo ladder of the Lost Cities sample bots
# the way the arena is meant to run: every bot in a hardened container. It sets up a Docker engine
# and the local base image as the test job does; only where no engine can be had does the ladder
# fall back to the process sandbox, and it says so.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if bash .ci/docker-setup.sh && .venv/bin/arena images build-base; then
  echo "demo: bots play in containers"
else
  echo "demo: no Docker engine could be started here: the ladder falls back to the process" \
       "sandbox (see the warning it prints)" >&2
fi
exec .venv/bin/arena run-ladder ladder/demo.toml "$@"
