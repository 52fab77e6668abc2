"""A season on a real competition server (``arena host`` in its own process, TLS on 127.0.0.1,
real Docker for the bots), its phases started by the operator (``arena phase PHASE -c FILE``,
from another process than the server's) and the server killed with SIGKILL in each phase:

* open: alice submits alpha twice, bob beta once; alice selects her first version (not her
  latest), bob selects nothing (his latest is his by default); `arena submissions` marks what
  is selected; a selection of someone else's version or of too many is one line, exit 2;
  `arena login` and `arena standings` say the phase and that the freeze waits for the operator;
* frozen: a submission and a selection are one line each, exit 2, nothing recorded; the ladder
  plays only the selected versions (alpha's second version never again), also after kill -9;
* final: the continuous ladder stops (it says so; no new pairing), also after kill -9;
* closed: the refusals say so; the standings are still served.

One server for the module, in order (the phases only go forward)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from arena.host import client as hc
from arena.v1 import competition_pb2 as pb
from tests.support.competition import RunningServer
from tests.support.containers import require_docker
from tests.support.season import (
    People,
    bot_dir,
    enter_bots,
    one_line_exit_2,
    only,
    pairings,
    phase_of,
    season_server,
    submissions,
    versions,
    wait_for,
)
from tests.support.terminal import flat

pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.timeout(1200)]

SEASON = "\n[season]\n\n[final]\nselections = 2\n"


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The server in its open phase, alice's and bob's bots entered, alice's selection made."""
    require_docker()
    root = tmp_path_factory.mktemp("season")
    # an encounter: one match; the ladder rests 2 s between legs (its first after a start at
    # once: the final's check after a restart sees a ladder that runs)
    server = season_server(root, SEASON, duplicate=False, rest_s=2)
    server.start()
    people = People(server, root)
    try:
        entered = enter_bots(people, root)
        yield {"server": server, "people": people, "root": root, "entered": entered}
    finally:
        server.end()


def test_open_selections_and_the_book(season: dict[str, Any]) -> None:
    people: People = season["people"]
    first, second = season["entered"][("alpha", 1)], season["entered"][("alpha", 2)]
    beta = season["entered"][("beta", 1)]
    shown = people.run("select", "--server", "alice")
    assert shown.exit_code == 0, shown.output
    assert f"selected for the final: {second} (at most 2 per game" in flat(shown.stdout)
    chose = people.run("select", first, "--server", "alice")
    assert chose.exit_code == 0, chose.output
    assert f"selected for the final: {first}" in flat(chose.stdout)
    assert "season: open; frozen when the operator starts it" in flat(chose.stdout)
    book = people.run("submissions", "--server", "alice", "--format", "json")
    marked = {f"{s['name']}@{s['version']}": s.get("selected", False)
              for s in map(json.loads, book.stdout.splitlines())}
    assert marked == {first: True, second: False}, marked
    table = people.run("submissions", "--server", "alice")
    assert flat(table.stdout).count("· selected") == 1, table.stdout
    one_line_exit_2(people.run("select", beta, "--server", "alice"),
                    f"{beta} is not one of your entered versions")
    one_line_exit_2(people.run("select", first, second, beta, "--server", "bob"),
                    "is not one of your entered versions")
    login = people.login("bob")
    assert f"selected for the final: {beta} (at most 2 per game; until the freeze" in flat(
        login.stdout)
    assert "season: open; frozen when the operator starts it" in flat(login.stdout)


def test_kill9_in_open_keeps_the_selection(season: dict[str, Any]) -> None:
    server: RunningServer = season["server"]
    server.kill9()
    server.start()
    reply = server.stub("alice").WhoAmI(pb.WhoAmIRequest(), timeout=30)
    assert reply.season.phase == "open" and reply.season.seasonal
    assert list(reply.selected) == [season["entered"][("alpha", 1)]]


def test_frozen_refuses_and_plays_only_the_selected(season: dict[str, Any]) -> None:
    server: RunningServer = season["server"]
    people: People = season["people"]
    first, second = season["entered"][("alpha", 1)], season["entered"][("alpha", 2)]
    beta = season["entered"][("beta", 1)]
    started = people.operator("phase", "frozen")
    assert started.exit_code == 0, started.output
    assert "started frozen at" in flat(started.stdout)
    wait_for("the server to freeze", lambda: phase_of(server) == "frozen")
    wait_for("the ladder to take the selected versions", lambda: {first, beta} <= {
        r["ref"] for r in versions(server) if r["event"] == "adopted"})
    frozen_at = len(pairings(server))
    before = len(submissions(server, "alice"))
    late = people.run("submit", str(bot_dir(season["root"], "alpha", 3)), "--server", "alice")
    said = one_line_exit_2(late, "submissions closed at the deadline",
                           "the competition is frozen now")
    assert "the server refused" in said
    assert len(submissions(server, "alice")) == before  # nothing recorded, nothing counted
    one_line_exit_2(people.run("select", second, "--server", "alice"),
                    "selections closed at the freeze")
    standings = people.run("standings", "--server", "bob")
    assert "season: frozen since" in flat(standings.stdout)
    assert "final when the operator starts it" in flat(standings.stdout)
    # the ladder hands out encounters of the selected versions (and the house's) only
    wanted = {first, beta}
    played = wait_for("two encounters after the freeze", lambda: (
        p := pairings(server)[frozen_at:]) and len(p) >= 2 and p)
    assert only(wanted, played), played
    server.kill9()
    server.start()
    assert phase_of(server) == "frozen"
    assert server.stub("bob").WhoAmI(pb.WhoAmIRequest(), timeout=30).season.phase == "frozen"
    restarted = len(pairings(server))
    again = wait_for("an encounter after the restart",
                     lambda: pairings(server)[restarted:])
    assert only(wanted, again), again
    assert not any(second in d["pair"] for d in pairings(server)[frozen_at:])
    one_line_exit_2(people.run("select", first, "--server", "alice"),
                    "selections closed at the freeze")


def test_final_stops_the_ladder(season: dict[str, Any]) -> None:
    server: RunningServer = season["server"]
    people: People = season["people"]
    assert people.operator("phase", "final").exit_code == 0
    wait_for("the server to enter the final", lambda: phase_of(server) == "final")
    wait_for("the ladder to stop", lambda: '"event": "ladder_stopped"' in server.log(),
             timeout=60)
    for restarted in (False, True):
        if restarted:
            server.kill9()
            server.start()
            assert phase_of(server) == "final"
        handed = len(pairings(server))
        time.sleep(4)  # a running ladder hands out its next encounter at once
        assert len(pairings(server)) == handed
    one_line_exit_2(people.run("submit", str(bot_dir(season["root"], "beta", 4)), "--server",
                               "bob"), "the competition is final now")
    one_line_exit_2(people.run("select", season["entered"][("beta", 1)], "--server", "bob"),
                    "selections closed at the freeze")


def test_closed_refuses_and_still_shows_the_standings(season: dict[str, Any]) -> None:
    server: RunningServer = season["server"]
    people: People = season["people"]
    again = people.operator("phase", "final")
    one_line_exit_2(again, "the season is final already")
    assert people.operator("phase", "closed").exit_code == 0
    wait_for("the server to close", lambda: phase_of(server) == "closed")
    server.kill9()
    server.start()
    assert phase_of(server) == "closed"
    one_line_exit_2(people.run("submit", str(bot_dir(season["root"], "beta", 5)), "--server",
                               "bob"), "the competition is closed now",
                    "the results are published")
    one_line_exit_2(people.run("select", season["entered"][("beta", 1)], "--server", "bob"),
                    "selections closed at the freeze")
    standings = people.run("standings", "--server", "alice")
    assert standings.exit_code == 0, standings.output
    assert "season: closed since" in flat(standings.stdout) and "alpha" in standings.stdout
    shown = people.operator("phase")
    assert shown.exit_code == 0, shown.output
    text = flat(shown.stdout)
    assert "t: closed since" in text and "(by the operator)" in text


@pytest.fixture(autouse=True)
def _no_stray_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in (hc.SERVER_ENV, hc.CA_ENV, hc.TOKEN_ENV):
        monkeypatch.delenv(name, raising=False)
    yield
