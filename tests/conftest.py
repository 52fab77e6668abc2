"""Fixtures shared by every folder: a log directory, a Docker engine and the bot base images, a
PostgreSQL database, a bot on the old generated protocol code. Helpers (functions, classes,
constants) live in tests/support/; this file only makes fixtures of them.

Docker, PostgreSQL and Chromium tests skip without their service, unless ARENA_REQUIRE_DOCKER=1,
ARENA_REQUIRE_POSTGRES=1 or ARENA_REQUIRE_CHROMIUM=1 (set by .ci/run): then they fail."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from arena.bots.images import BaseImage
from tests.support import cli_runner, old_protocol, postgres
from tests.support.containers import RecordingSandbox, base_image_for, require_docker


def pytest_configure(config: pytest.Config) -> None:
    """Each test process (each pytest-xdist worker) keeps the deal epochs of the matches it
    plays to itself: a worker's duplicate deals never wait for another's (or another run's)
    matches to drain. The processes it starts inherit the directory. A worker's terminal size
    is the tests' own, as in a plain run. Competition servers draw and send watch streams
    without holding back. typer's test runner builds the whole `arena` command line once
    (``tests.support.cli_runner``)."""
    from arena.sandbox.epochs import DIR_ENV

    # a competition server a test starts draws watched frames at an ordinary priority and sends
    # them unpaced: at the default lowest priority a suite that keeps both cores busy starved the
    # drawing process (minutes for one match's frames), and 10 frames a second made every watch
    # of a match 40 s; tests/host/test_feeds.py checks the priority and the pacer themselves
    os.environ.setdefault("ARENA_WATCH_NICE", "0")
    os.environ.setdefault("ARENA_WATCH_FPS", "10000")
    os.environ.setdefault("ARENA_WATCH_TOTAL_FPS", "10000")
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    os.environ[DIR_ENV] = tempfile.mkdtemp(prefix=f"arena-epochs-{worker}-")  # mode 0700
    config.add_cleanup(lambda: shutil.rmtree(os.environ.pop(DIR_ENV), ignore_errors=True))
    if worker != "main":
        # xdist workers start with COLUMNS=80: the CLI's consoles, made on import, would keep
        # that width and ignore the COLUMNS a test gives its CliRunner (a plain run has none)
        os.environ.pop("COLUMNS", None)
        os.environ.pop("LINES", None)
    cli_runner.install()  # typer's test runner builds the whole command line once


TIERS = ("unit", "integration", "docker")
"""Every test has exactly one of these marks (pyproject.toml says what each means)."""


TIER_PROBLEM = pytest.StashKey[str]()


@pytest.hookimpl(tryfirst=True)  # before ``-m`` selects
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Give every test exactly one tier, or refuse to run: the nearest tier mark wins (the
    test's own or its parameter's, then its class's, then its module's ``pytestmark``), so a
    file says its tier once and marks only the tests that differ; no tier, or two different
    ones at the same level, is a mistake named in one line per test. The tier is then the
    test's own mark alone, so ``-m unit`` selects exactly the unit tests."""
    problems = []
    for item in items:
        problem = None
        for node in reversed(item.listchain()):
            tiers = sorted({mark.name for mark in node.own_markers if mark.name in TIERS})
            if len(tiers) == 1:
                if node is not item:
                    item.add_marker(tiers[0])
                break
            if tiers:
                problem = f"two tiers ({', '.join(tiers)})"
                break
        else:
            problem = "no tier"
        if problem:
            line = (f"{item.nodeid}: {problem}; mark it with one of {', '.join(TIERS)} "
                    "(tests/README.md)")
            item.stash[TIER_PROBLEM] = line
            problems.append(line)
    if problems and not os.environ.get("PYTEST_XDIST_WORKER"):
        raise pytest.UsageError("\n".join(problems))  # a worker cannot stop the run: below
    for node in {node for item in items for node in item.listchain()[:-1]}:
        node.own_markers[:] = [mark for mark in node.own_markers if mark.name not in TIERS]
    if os.environ.get("PYTEST_XDIST_WORKER"):
        _costliest_first(items)


DURATIONS = Path(__file__).with_name("durations.json")
"""Each test file's summed seconds in a whole run (``scripts/test-durations.py`` writes it)."""


def _costliest_first(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``--dist loadfile --no-loadscope-reorder``), the costliest files
    first: the workers take files in this order, so the longest (a whole season, minutes) no
    longer starts last while the others idle. A file missing from ``DURATIONS`` (a new one)
    counts 10 s per ``slow`` test. A stable sort of a file read by every worker: the same
    order in each, as xdist requires."""
    try:
        seconds = json.loads(DURATIONS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    guess: dict[str, float] = {}
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        if path not in seconds:
            guess[path] = guess.get(path, 0.0) + 10.0 * bool(item.get_closest_marker("slow"))
    items.sort(key=lambda item: -float(seconds.get(path := item.nodeid.split("::", 1)[0],
                                                   guess.get(path, 0.0))))


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Under pytest-xdist, a test without a single tier fails with the line that names it."""
    if TIER_PROBLEM in item.stash:
        pytest.fail(item.stash[TIER_PROBLEM], pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    """After a test and its fixtures, the CLI's consoles take their width from the terminal (or
    COLUMNS) again: a test that left one at a fixed width would make every later test of its
    process draw at it (CI failed once on paths folded at 80 columns in tests asking for 200).
    A test sets a width with ``tests.support.terminal.console_width``."""
    yield
    common = sys.modules.get("arena.cli.common")
    if common is None:
        return None
    left = [name for name in ("console", "err_console")
            if getattr(common, name)._width is not None]
    for name in left:
        getattr(common, name)._width = None
    if left:
        pytest.fail(f"{item.nodeid} left arena.cli.common.{left[0]} at a fixed width: set it "
                    "with tests.support.terminal.console_width", pytrace=False)
    return None


@pytest.fixture
def log_dir(tmp_path: Path) -> Path:
    return tmp_path / "logs"


# --- Docker -----------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def docker_client() -> Iterator[Any]:
    """A Docker SDK client for a live engine."""
    require_docker()
    from arena.bots.images import docker_client as make_client

    client = make_client(timeout=600)
    yield client
    client.close()


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory every pytest-xdist worker of this run shares (pytest's own without xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def base_image(docker_client: Any, run_dir: Path) -> BaseImage:
    """The local bot base image (built once per run; reused when its inputs have not changed)."""
    return base_image_for(docker_client, "python", run_dir)


@pytest.fixture(scope="session")
def node_base_image(docker_client: Any, run_dir: Path) -> BaseImage:
    """The local Node.js base image (for bots with ``base = "node"``)."""
    return base_image_for(docker_client, "node", run_dir)


@pytest.fixture(scope="session")
def lab_base_image(docker_client: Any, run_dir: Path) -> BaseImage:
    """The local lab base image (numpy and OpenSpiel; bots with ``base = "lab"``)."""
    return base_image_for(docker_client, "lab", run_dir)


@pytest.fixture(scope="module")
def docker_sandbox(base_image: BaseImage, docker_client: Any) -> RecordingSandbox:
    """One Docker sandbox for a test module (it builds each bot directory's image once)."""
    return RecordingSandbox(docker_client)


# --- PostgreSQL -------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def postgres_engine() -> Iterator[Engine]:
    """An engine on the test database named by $ARENA_TEST_POSTGRES_URL (a live server)."""
    engine = postgres.database_engine()
    yield engine
    engine.dispose()


@pytest.fixture
def postgres_url(postgres_engine: Engine) -> Iterator[str]:
    """A SQLAlchemy URL whose tables land in a fresh schema, dropped after the test."""
    with postgres.fresh_schema(postgres_engine) as url:
        yield url


# --- a bot on the old generated code (tests/wire/old_protocol) --------------------------------
@pytest.fixture(scope="module")
def readable_root() -> Iterator[Path]:
    """A directory the sandboxed bot user can read (pytest's own are private)."""
    with old_protocol.readable_dir() as root:
        yield root


@pytest.fixture(scope="module")
def old_bot(readable_root: Path) -> Path:
    """A Python bot whose generated code comes from the .proto files of before the plugin
    envelope (game-neutral: copy it and add a bot.toml)."""
    return old_protocol.generate_old_bot(readable_root / "generated")
