#!/usr/bin/env bash
# The test job on a fresh machine: install with the test extras, start a Docker engine (installing
# docker.io and debootstrap when missing), a local PostgreSQL (for the ladder store) and Debian's
# chromium (for the HTML page tests), then lint, type-check, check the import layering and run
# the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
bash .ci/docker-setup.sh
bash .ci/chromium-setup.sh
if [ -z "${ARENA_TEST_POSTGRES_URL:-}" ]; then  # a local PostgreSQL for the ladder store tests
  ARENA_TEST_POSTGRES_URL="$(bash .ci/postgres-setup.sh)"
  export ARENA_TEST_POSTGRES_URL
fi
.venv/bin/ruff check arena tests benchmarks sample_bots examples setup.py arena_protogen.py
.venv/bin/mypy arena
.venv/bin/lint-imports   # the layering contract in pyproject.toml: rooms import only downwards
exec .venv/bin/python -m pytest -q -p no:cacheprovider "$@"
