"""A season's scheduled times on a real competition server (``arena host`` in its own process,
the process sandbox, the house's bots only): the running server acts on the freeze at its time
(a submission from that second is refused in one line, exit 2, before any byte is sent), says
the time left until then, and a server killed with SIGKILL before the final and started again
after the close is closed (each phase recorded at its scheduled time) and starts no ladder."""

from __future__ import annotations

import json
import re
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from arena.host import client as hc
from arena.host.season import utc
from arena.v1 import competition_pb2 as pb
from tests.support.competition import house_server
from tests.support.season import (
    bot_dir,
    one_line_exit_2,
    pairings,
    phase_of,
    runner,
    wait_for,
)
from tests.support.terminal import flat

pytestmark = [pytest.mark.integration, pytest.mark.slow]

FREEZE_IN = 15
"""Seconds from now to the freeze: the server starts and is asked twice before it."""


def _at(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_the_schedule_moves_a_running_server_and_one_that_was_down(tmp_path: Path) -> None:
    from arena.cli.main import app

    server = house_server(tmp_path / "competition", "own-seat")
    t0 = round(time.time())
    frozen = t0 + FREEZE_IN
    final, closed = frozen + 4, frozen + 5  # killed within 4 s of the freeze: before the final
    text = server.file.read_text().replace(  # one match an encounter: no epoch to close
        "duplicate = true\n", "duplicate = false\n")
    server.file.write_text(text + f"\n[season]\nfrozen = {_at(frozen)}\nfinal = {_at(final)}\n"
                           f"closed = {_at(closed)}\n")
    server.start()
    try:
        env = {hc.SERVER_ENV: server.address, hc.CA_ENV: str(server.ca),
               hc.TOKEN_ENV: server.tokens["bob"], hc.CONFIG_ENV: str(tmp_path / "none.toml"),
               "COLUMNS": "400"}
        season = server.stub("bob").WhoAmI(pb.WhoAmIRequest(), timeout=30).season
        assert (season.phase, season.next, season.next_at) == ("open", "frozen", frozen)
        assert 0 < season.seconds_left <= FREEZE_IN
        shown = runner.invoke(app, ["standings"], env=env)
        assert shown.exit_code == 0, shown.output
        assert re.search(rf"season: open; frozen in \d+ s \(at {utc(frozen)}\)",
                         flat(shown.stdout)), shown.stdout
        bot = bot_dir(tmp_path, "late", 1)
        wait_for("the deadline", lambda: time.time() >= frozen, timeout=60, every=0.05)
        late = runner.invoke(app, ["submit", str(bot)], env=env)
        one_line_exit_2(late, f"submissions closed at the deadline, {utc(frozen)}")
        assert server.stub("bob").ListSubmissions(pb.SubmissionsRequest(),
                                                  timeout=30).submissions == []
        wait_for("the server to freeze", lambda: phase_of(server) == "frozen", timeout=30)
        server.kill9()  # down while the final's and the close's times pass
        wait_for("the close", lambda: time.time() >= closed + 1, timeout=60)
        server.start()
        assert phase_of(server) == "closed"
        assert json.loads((server.state_dir / "server.json").read_text())["phase"] == "closed"
        handed = len(pairings(server))
        reply = server.stub("bob").WhoAmI(pb.WhoAmIRequest(), timeout=30).season
        assert (reply.phase, reply.since, reply.next) == ("closed", closed, "")
        shown = runner.invoke(app, ["phase", "-c", str(server.file)])
        assert shown.exit_code == 0, shown.output
        said = flat(shown.stdout)
        for phase, at in (("frozen", frozen), ("final", final), ("closed", closed)):
            assert re.search(rf"{phase} +began {utc(at)} \(scheduled\)", said), said
        time.sleep(3)  # a ladder that ran would hand out its next encounter at once
        assert len(pairings(server)) == handed
    finally:
        server.end()
