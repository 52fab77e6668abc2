"""The server's view of a ladder's results: a match is in flight from its start until a refresh
lists it as recorded, never neither (a watcher asking for it in between was told there is no
such match)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.host.config import ladder_config, load_competition
from arena.host.results import LadderResults
from arena.ladder.store import LadderStore
from tests.support.competition import make_server
from tests.support.versioned import bot, result

pytestmark = pytest.mark.unit


def test_a_recorded_match_stays_in_flight_until_a_refresh_lists_it(tmp_path: Path) -> None:
    c = load_competition(make_server(tmp_path / "c", sandbox="process").file)
    config = ladder_config(c, "lost-cities")
    seats = (bot("alpha", "1"), bot("beta", "1"))
    with LadderStore(c.database) as store:
        results = LadderResults("lost-cities", config, store)
        results.refresh()

        def play(match_id: str) -> None:
            results.started(match_id, ("alpha@1", "beta@1"))
            store.record_match(config.name, result(match_id, 7, seats), seats)

        play("m-1")  # recorded, then the runner's event, then the refresh
        results.finished("m-1", recorded=True)
        assert results.running("m-1") is not None and results.find("m-1") is None
        results.refresh()
        assert results.running("m-1") is None and results.find("m-1") is not None

        play("m-2")  # the refresh came first: not left in flight for ever
        results.refresh()
        results.finished("m-2", recorded=True)
        assert results.running("m-2") is None and results.find("m-2") is not None

        results.started("m-3", ("alpha@1", "beta@1"))  # given up: never recorded
        results.finished("m-3")
        assert results.running("m-3") is None and results.in_flight() == 0
