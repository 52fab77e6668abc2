"""The plugin game submits in containers: a real `arena host` on 127.0.0.1 hosting only a game
package's game (the Goofspiel example, installed), its validation opponent and house bot the
reference bot the package declares (GamePlugin.reference_bot, shipped in the package: no
``sample_bots/goofspiel``); a contestant's bot directory of that game is uploaded, built
offline on the Python base (which carries the package), validated against that bot in
containers, entered and rated."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from arena.bots.images.build import INPUTS_LABEL, base_problem, layer_digest
from arena.games import plugin
from arena.v1 import competition_pb2 as pb
from tests.host.test_competition import STAGE, submit
from tests.support.competition import RunningServer, make_server
from tests.support.containers import require_docker
from tests.support.goofspiel import GREEDY, goofspiel

pytestmark = [pytest.mark.docker, pytest.mark.slow]

GOOFSPIEL = """\
[games.goofspiel]

[games.goofspiel.ladder]
seed = 7
concurrency = 1

[games.goofspiel.ladder.options]
rounds = 1

[games.goofspiel.ladder.schedule]
placement = 1
refresh_s = 1

[games.goofspiel.ladder.time_control]
move_time_ms = 2000
time_bank_ms = 5000
"""


@pytest.fixture(scope="module")
def goofspiel_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """A competition of Goofspiel alone (Docker sandbox), the file saying nothing of its bots."""
    require_docker()
    goofspiel()
    server = make_server(tmp_path_factory.mktemp("goofspiel-competition"))
    text = server.file.read_text()
    server.file.write_text(text[:text.index("[games.lost-cities]")] + GOOFSPIEL)
    server.start()
    yield server
    server.end()


def test_the_plugin_game_submits_in_containers(goofspiel_server: RunningServer,
                                               docker_client: Any) -> None:
    declared = plugin("goofspiel").reference_bot_dir()
    assert declared is not None
    alice = goofspiel_server.stub("alice")
    reply = alice.WhoAmI(pb.WhoAmIRequest(), timeout=30)
    assert [(g.game, g.reference) for g in reply.games] == [("goofspiel", declared.name)]
    events = submit(alice, GREEDY, "alice-goof")
    stages = [STAGE(e.stage) for e in events]
    assert stages == ["RECEIVING", "UPLOADED", "BUILT", "VALIDATED", "ENTERED", "RATED"], (
        [(STAGE(e.stage), e.message, e.detail) for e in events])
    sid = events[0].submission_id
    validated = next(e for e in events if STAGE(e.stage) == "VALIDATED")
    assert set(validated.match_ids) == {f"s{sid}-self", f"s{sid}-reference"}
    page = alice.ListMatches(pb.MatchesRequest(bot="alice-goof"), timeout=30).matches
    rated = next(m for m in page if m.match_id == events[-1].match_ids[0])
    assert set(rated.names) == {"alice-goof", "random"}  # the house's bot: the package's
    standings = alice.Standings(pb.StandingsRequest(), timeout=30).games[0]
    assert standings.game == "goofspiel"
    assert {r.name for r in standings.rows} >= {"alice-goof", "random"}
    # the bot's image, kept under its catalogue tag, is built on a base image the arena built
    # (the server's: whichever the tag named then; other runs on this engine may build others)
    image = docker_client.images.get(f"arena-bot/alice-goof:{events[-1].version}")
    bases = docker_client.images.list(filters={"label": INPUTS_LABEL})
    assert image.attrs["RootFS"]["Layers"][0] in {
        layer_digest(b.attrs) for b in bases if base_problem(b.attrs) is None}
