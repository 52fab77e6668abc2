"""A real competition server for the host tests (tests/support/competition.py): `arena host`
in a process of its own, TLS on 127.0.0.1, real Docker for the bots."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.competition import RunningServer, make_server, rested
from tests.support.containers import require_docker


@pytest.fixture(scope="module")
def competition_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """A running competition (Docker sandbox, own-seat visibility, default quotas), its ladder
    resting between legs (``rested``: its tests need a rated match, not a ladder flat out)."""
    require_docker()
    server = rested(make_server(tmp_path_factory.mktemp("competition")))
    server.start()
    yield server
    server.end()
