#!/usr/bin/env bash
# The test job on a fresh machine: install with the test extras, start a Docker engine (installing
# docker.io and debootstrap when missing), a local PostgreSQL (for the ladder store) and Debian's
# chromium (for the HTML page tests), then lint, type-check, check the import layering and run
# the whole test suite in parallel: ARENA_TEST_WORKERS pytest-xdist workers (default 3: most
# tests wait on processes, containers and sockets, so one more worker than cores wins;
# tests/README.md has the figures), a file's tests in one worker (they share module fixtures:
# a competition server, a browser, played matches), then the `serial` tests alone. Arguments go
# to pytest (both runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
bash .ci/docker-setup.sh
# the bot base images (python, node, lab: minutes on a fresh machine, mostly Debian's downloads)
# build while Chromium, PostgreSQL and the linters are set up and run: the tests then find them
# instead of all waiting for the first to build them (a test builds one itself if this failed)
# (recorded for the tests in ARENA_TEST_BASE_IMAGES: even finding one costs a minute, its
# inputs' wheels made again, and every pytest process of the run would pay it)
images_log="$(mktemp)"
ARENA_TEST_BASE_IMAGES="$(mktemp -d)"
export ARENA_TEST_BASE_IMAGES
trap 'rm -rf "$ARENA_TEST_BASE_IMAGES" "$images_log"' EXIT
.venv/bin/python -m tests.support.containers "$ARENA_TEST_BASE_IMAGES" python node lab \
  >"$images_log" 2>&1 &
images=$!
# pytest's rewritten test modules (its assertion messages), cached once while the set-up and the
# linters run (tests/__init__.py keeps bytecode): the workers, which all collect at once, find them
.venv/bin/python -m pytest -q -p no:cacheprovider --collect-only tests >/dev/null 2>&1 &
collected=$!
bash .ci/chromium-setup.sh
if [ -z "${ARENA_TEST_POSTGRES_URL:-}" ]; then  # a local PostgreSQL for the ladder store tests
  ARENA_TEST_POSTGRES_URL="$(bash .ci/postgres-setup.sh)"
  export ARENA_TEST_POSTGRES_URL
fi
.venv/bin/ruff check arena tests benchmarks sample_bots examples setup.py arena_protogen.py
.venv/bin/mypy arena
.venv/bin/lint-imports   # the layering contract in pyproject.toml: rooms import only downwards
# the checkout's bytecode, once: with PYTHONDONTWRITEBYTECODE set (as on these machines) every
# `arena` command, server and worker a test starts compiled the modules it imports again
.venv/bin/python -m compileall -q arena tests >/dev/null
wait "$images" || true
wait "$collected" || true
grep -h "^test.sh: " "$images_log" >&2 || true
# the suite in parallel, then the few tests that measure the host (`serial`) alone; exit 5
# ("no tests collected": arguments that select no serial test) is no failure
status=0
.venv/bin/python -m pytest -q -p no:cacheprovider -n "${ARENA_TEST_WORKERS:-3}" --dist loadfile --no-loadscope-reorder \
  -m "not serial" "$@" || status=$?
.venv/bin/python -m pytest -q -p no:cacheprovider -m serial "$@" || {
  code=$?
  [ "$code" -eq 5 ] || status=$code
}
exit "$status"
