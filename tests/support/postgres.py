"""The PostgreSQL test database: $ARENA_TEST_POSTGRES_URL (made by .ci/postgres-setup.sh).
Every test gets a schema of its own (a random name, dropped after it), so tests running at the
same time, in other pytest-xdist workers too, never see each other's tables."""

from __future__ import annotations

import importlib.util
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import pytest
from sqlalchemy import Engine, create_engine, make_url
from sqlalchemy.exc import SQLAlchemyError

URL_ENV = "ARENA_TEST_POSTGRES_URL"
REQUIRE_ENV = "ARENA_REQUIRE_POSTGRES"

def unavailable(message: str) -> NoReturn:
    """Skip, or fail under ARENA_REQUIRE_POSTGRES=1 (CI: a PostgreSQL test never silently skips)."""
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{message}, and {REQUIRE_ENV}=1", pytrace=False)
    pytest.skip(message)

def database_engine() -> Engine:
    """An engine on the test database named by $ARENA_TEST_POSTGRES_URL (a live server), or a
    skip (a failure under ARENA_REQUIRE_POSTGRES=1) saying what is missing."""
    url = os.environ.get(URL_ENV, "")
    if not url:
        unavailable(f"{URL_ENV} is not set (see .ci/postgres-setup.sh)")
    if importlib.util.find_spec("psycopg") is None:
        unavailable("the psycopg driver is missing (pip install 'psycopg[binary]')")
    engine = create_engine(url, connect_args={"connect_timeout": 5})
    try:
        with engine.connect():
            pass
    except SQLAlchemyError as exc:
        engine.dispose()
        shown = make_url(url).render_as_string(hide_password=True)
        unavailable(f"no PostgreSQL answers at {shown}: {str(exc).splitlines()[0]}")
    return engine
@contextmanager
def fresh_schema(engine: Engine) -> Iterator[str]:
    """A SQLAlchemy URL whose tables land in a fresh schema, dropped on leaving."""
    schema = f"arena_test_{uuid.uuid4().hex[:12]}"
    with engine.begin() as conn:
        conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
    url = engine.url.update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with engine.begin() as conn:
            conn.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")
