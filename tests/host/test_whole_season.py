"""A whole season on a real competition server (issue 37's "Done when"): ``arena host`` in its own
process, TLS on 127.0.0.1, real Docker for the bots, the freeze's and the final's UTC times in
the competition file seconds apart.

Two contestants submit (alice twice) and select (alice her first version, bob nothing: his
latest is his), then the operator publishes the season's times and restarts the server (kill
-9: nothing is lost). Bob misses the deadline once: his submission one second after it is
refused in one line, exit 2, nothing recorded. The freeze and the final come at their times
while the server runs; it is killed with SIGKILL in the frozen phase and in the middle of the
final (its match under way) and resumes in the right phase each time. The final plays the
selected versions and publishes nothing while the phase is final; the operator closes the
season once it is played (`arena phase closed`: a scheduled close would have to guess how long
a match in containers takes on a loaded host; tests/host/test_season_schedule.py has the close
at its time), the results publish, `arena verify` passes on them, and in every phase a refusal is
one line with exit 2 (open: a selection of another's version; after the deadline: a
submission and a selection). An encounter is one match here (``duplicate = false``): the two
legs of a deal would close a deal epoch each time (``arena.sandbox.epochs``); a duplicate final
in containers: tests/host/test_final_phases.py."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from arena.v1 import competition_pb2 as pb
from tests.support.competition import RunningServer
from tests.support.containers import require_docker
from tests.support.finals import recorded
from tests.support.season import (
    People,
    bot_dir,
    enter_bots,
    one_line_exit_2,
    phase_of,
    season_server,
    submissions,
    wait_for,
)
from tests.support.terminal import flat

pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.timeout(1800)]

FINAL = "\n[final]\nselections = 2\nencounters = 1\n"
FREEZE_IN = 18
"""Seconds from the times' publication to the freeze: the restart and bob's login come first."""
FINAL_AFTER = 18
"""Seconds from the freeze to the final: the refusals, a restart and the standings between."""
LADDER_REST_S = 600
"""The open and frozen phases' ladder rests this long between two legs (the final's round
robin does not rest)."""


def season_table(frozen: float, final: float, closed: float) -> str:
    def at(t: float) -> str:
        return datetime.fromtimestamp(round(t), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

    return f"\n[season]\nfrozen = {at(frozen)}\nfinal = {at(final)}\nclosed = {at(closed)}\n"


def refused_everything(people: People, root: Path, phase: str, variant: int, version: str
                       ) -> None:
    """In ``phase``: bob's submission and alice's selection of ``version``, one line each,
    exit 2."""
    one_line_exit_2(people.run("submit", str(bot_dir(root, "beta", variant)), "--server",
                               "bob"), "submissions closed at the deadline",
                    f"the competition is {phase} now")
    one_line_exit_2(people.run("select", version, "--server", "alice"),
                    "selections closed at the freeze", f"the competition is {phase} now")


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    require_docker()
    root = tmp_path_factory.mktemp("whole-season")
    # an encounter: one match; the continuous ladder, which nothing here looks at, plays one
    # leg after each start and then rests (flat out it kept two containers running all season)
    server = season_server(root, FINAL, duplicate=False, rest_s=LADDER_REST_S)
    base = server.file.read_text()
    later = time.time() + 24 * 3600  # the season's times are published once the bots are in
    server.file.write_text(base + season_table(later, later + 60, later + 120))
    server.start()
    try:
        yield {"server": server, "people": People(server, root), "root": root, "base": base}
    finally:
        server.end()


def test_a_whole_season(season: dict[str, Any]) -> None:
    server: RunningServer = season["server"]
    people: People = season["people"]
    root: Path = season["root"]
    entered = enter_bots(people, root)
    alpha, beta = entered[("alpha", 1)], entered[("beta", 1)]
    one_line_exit_2(people.run("select", beta, "--server", "alice"),  # open: not hers
                    f"{beta} is not one of your entered versions")
    assert people.run("select", alpha, "--server", "alice").exit_code == 0

    # the operator publishes the season: the freeze and the final seconds apart, the close a
    # day later (started early once the final is played); the server is restarted on it
    # (killed: nothing is lost)
    start = time.time()
    frozen = start + FREEZE_IN
    final = frozen + FINAL_AFTER
    server.file.write_text(season["base"] + season_table(frozen, final, final + 24 * 3600))
    server.kill9()
    server.start()
    said = flat(people.login("bob").stdout)
    assert re.search(r"season: open; frozen in \d+ s \(at ", said), said
    assert f"selected for the final: {beta}" in said

    # bob misses the deadline: his submission a second after it is refused
    wait_for("the deadline", lambda: time.time() >= round(frozen) + 1, timeout=60)
    before = len(submissions(server, "bob"))
    refused_everything(people, root, "frozen", 2, alpha)
    assert len(submissions(server, "bob")) == before
    wait_for("the server to freeze", lambda: phase_of(server) == "frozen")
    server.kill9()  # in the frozen phase
    server.start()
    assert phase_of(server) == "frozen"
    standings = people.run("standings", "--server", "alice")
    assert re.search(r"season: frozen since .*; final in \d+ s", flat(standings.stdout)), \
        standings.stdout

    # the final begins at its time with the selected versions, its seeds committed
    commitment = server.state_dir / "site" / "final" / "lost-cities-commitment.json"
    wait_for("the final's commitment", commitment.is_file, timeout=120)
    assert phase_of(server) == "final"
    committed = json.loads(json.loads(commitment.read_text())["statement"])  # signed
    assert [f"{e['name']}@{e['version']}" for e in committed["entrants"]] == [alpha, beta]
    refused_everything(people, root, "final", 3, alpha)
    wait_for("a match of the final", lambda: list(
        (server.state_dir / "logs").glob("lost-cities-final/*.jsonl")), timeout=300)
    server.kill9()  # in the middle of the final
    server.start()
    assert phase_of(server) == "final"

    # played (one encounter, one match), unpublished until the operator closes the season
    out = server.state_dir / "site" / "final" / "lost-cities"
    wait_for("the final played", lambda: len(recorded(server)) == 1, timeout=900)
    assert not (out / "manifest.json").exists()
    closing = people.operator("phase", "closed")
    assert closing.exit_code == 0, closing.output

    # the results publish, `arena verify` passes on them
    wait_for("the final's results", lambda: (out / "manifest.json").is_file(), timeout=120)
    wait_for("the close", lambda: phase_of(server) == "closed", timeout=120)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["final"]["complete"] is True
    assert {p["player"] for p in manifest["final"]["places"]} >= {alpha, beta}
    key = server.state_dir / "keys" / "referee.pub"
    verify = people.run("verify", str(out), "--key", str(key))
    assert verify.exit_code == 0, verify.output
    refused_everything(people, root, "closed", 4, alpha)
    closed_standings = people.run("standings", "--server", "bob")
    assert "season: closed since" in flat(closed_standings.stdout)
    reply = server.stub("alice").WhoAmI(pb.WhoAmIRequest(), timeout=30)
    assert (reply.season.phase, list(reply.selected)) == ("closed", [alpha])
    shown = flat(people.operator("phase").stdout)
    for phase, how in (("frozen", "scheduled"), ("final", "scheduled"),
                       ("closed", "by the operator")):
        assert re.search(rf"{phase} +began .*? \({how}\)", shown), shown
