"""Ladder tests: a fixed deal secret, so the fake player's seed-driven results are repeatable;
the store's backends (SQLite always, PostgreSQL from $ARENA_TEST_POSTGRES_URL)."""

from __future__ import annotations

import importlib.util
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest
from sqlalchemy import Engine, create_engine, make_url
from sqlalchemy.exc import SQLAlchemyError

from arena.ladder import runner


@pytest.fixture(autouse=True)
def fixed_deal_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    """New ladders get the same (instead of a random) secret; the file logic stays real."""
    monkeypatch.setattr(runner.secrets, "token_hex", lambda nbytes=16: "ab" * nbytes)


# --- store backends ---------------------------------------------------------------------------
POSTGRES_URL_ENV = "ARENA_TEST_POSTGRES_URL"
REQUIRE_POSTGRES_ENV = "ARENA_REQUIRE_POSTGRES"


def _postgres_unavailable(message: str) -> NoReturn:
    """Skip, or fail under ARENA_REQUIRE_POSTGRES=1 (CI: a PostgreSQL test never silently skips)."""
    if os.environ.get(REQUIRE_POSTGRES_ENV) == "1":
        pytest.fail(f"{message}, and {REQUIRE_POSTGRES_ENV}=1", pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def postgres_engine() -> Iterator[Engine]:
    """An engine on the test database named by $ARENA_TEST_POSTGRES_URL (a live server)."""
    url = os.environ.get(POSTGRES_URL_ENV, "")
    if not url:
        _postgres_unavailable(f"{POSTGRES_URL_ENV} is not set (see .ci/postgres-setup.sh)")
    if importlib.util.find_spec("psycopg") is None:
        _postgres_unavailable("the psycopg driver is missing (pip install 'psycopg[binary]')")
    engine = create_engine(url, connect_args={"connect_timeout": 5})
    try:
        with engine.connect():
            pass
    except SQLAlchemyError as exc:
        engine.dispose()
        shown = make_url(url).render_as_string(hide_password=True)
        _postgres_unavailable(f"no PostgreSQL answers at {shown}: {str(exc).splitlines()[0]}")
    yield engine
    engine.dispose()


@pytest.fixture
def postgres_url(postgres_engine: Engine) -> Iterator[str]:
    """A SQLAlchemy URL whose tables land in a fresh schema, dropped after the test."""
    schema = f"arena_test_{uuid.uuid4().hex[:12]}"
    with postgres_engine.begin() as conn:
        conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
    url = postgres_engine.url.update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with postgres_engine.begin() as conn:
            conn.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The store's URL on each backend: a SQLite file, then a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'state' / 'ladder.db'}"
    return str(request.getfixturevalue("postgres_url"))
