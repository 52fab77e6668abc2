#!/usr/bin/env bash
# The test job on a fresh machine: install with the test extras, start a Docker engine (installing
# docker.io and debootstrap when missing), then lint, type-check and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
bash .ci/docker-setup.sh
.venv/bin/ruff check arena tests benchmarks
.venv/bin/mypy arena
exec .venv/bin/python -m pytest -q -p no:cacheprovider "$@"
