"""The one way to prepare a match (``arena.referee.service``), and that every caller uses it:
bad input is one clear error before anything is played."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from typer.testing import CliRunner

from arena.bots import bot_identity
from arena.cli.main import app
from arena.errors import ConfigError, OptionsError, UnknownGameError
from arena.model import BotSpec, TimeControl
from arena.referee.service import line_up, prepare_match
from arena.sandbox.process import ProcessSandbox
from arena.v1 import admin_pb2, admin_pb2_grpc
from tests.support.paths import RANDOM_BOT, ROOT

pytestmark = pytest.mark.unit

GREEDY = ROOT / "sample_bots" / "lost-cities" / "greedy"
HAGGIS = ROOT / "sample_bots" / "haggis" / "random"
runner = CliRunner()


def test_a_lineup_resolves_identifies_and_checks() -> None:
    lineup = line_up([str(RANDOM_BOT), str(GREEDY)], sandbox="process")
    assert lineup.game == "lost-cities" and lineup.sandbox.name == "process"
    assert [b.name for b in lineup.bots] == ["random", "greedy"]
    for bot in lineup.bots:
        assert bot.digest and bot.digest == bot_identity(bot)
    spec = lineup.match((1, 0), seed=9, options={"rounds": "1"})
    assert [b.name for b in spec.bots] == ["greedy", "random"]
    assert spec.options == {"rounds": 1, "starter_rule": "previous_round",
                            "stall_guard_turns": 150}  # validated, defaults filled
    assert spec.seed == 9 and spec.time_control == TimeControl()


def test_bots_of_another_game_or_an_unknown_game_are_refused() -> None:
    with pytest.raises(ConfigError, match="plays haggis, not lost-cities"):
        line_up([str(RANDOM_BOT), str(HAGGIS)])
    with pytest.raises(UnknownGameError, match="known games"):
        line_up([str(RANDOM_BOT)], game="chess")


def test_the_sandbox_checks_every_bot_before_anything_is_played() -> None:
    image_only = BotSpec("boxed", "lost-cities", image="sha256:" + "0" * 64)
    with pytest.raises(ConfigError, match="runs only in the Docker sandbox"):
        line_up([str(RANDOM_BOT), image_only], sandbox=ProcessSandbox())
    unchecked = line_up([str(RANDOM_BOT), image_only], sandbox=ProcessSandbox(), check=False)
    assert unchecked.bots[1].digest == image_only.image


@pytest.mark.parametrize(
    ("time_control", "field"),
    [
        (TimeControl(move_time_ms=-1), "move_time_ms"),
        (TimeControl(move_time_ms=99_999_999_999), "move_time_ms"),
        (TimeControl(time_bank_ms=-5), "time_bank_ms"),
        (TimeControl(startup_ms=0), "startup_ms"),
    ],
)
def test_time_controls_out_of_range_are_refused(time_control: TimeControl, field: str) -> None:
    with pytest.raises(ConfigError, match=field):
        prepare_match((str(RANDOM_BOT), str(RANDOM_BOT)), time_control=time_control)


def test_bad_seeds_and_options_are_refused() -> None:
    lineup = line_up([str(RANDOM_BOT), str(RANDOM_BOT)])
    with pytest.raises(ConfigError, match="seed"):
        lineup.match(seed=-1)
    with pytest.raises(OptionsError, match="rounds"):
        lineup.match(options={"rounds": 99})
    assert 0 <= lineup.match().seed < 2**64


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--move-time", "-1"), ("--move-time", "99999999999"), ("--time-bank", "-5"),
     ("--startup-time", "0")],
)
def test_arena_match_refuses_bad_timing_before_playing(flag: str, value: str,
                                                       tmp_path: Path) -> None:
    out = runner.invoke(app, ["match", str(RANDOM_BOT), str(RANDOM_BOT), flag, value,
                              "--log-dir", str(tmp_path)])
    assert out.exit_code == 2, out.output
    assert "time control" in out.output
    assert not list(tmp_path.iterdir()), "nothing was played"


@pytest.mark.integration
def test_arena_serve_refuses_a_bad_request_with_the_services_error(
    referee: str,  # noqa: F811 — the fixture
) -> None:
    with grpc.insecure_channel(referee) as channel:
        stub = admin_pb2_grpc.RefereeServiceStub(channel)
        for request, says in [
            (admin_pb2.StartMatchRequest(bots=[str(RANDOM_BOT), str(RANDOM_BOT)],
                                         time_bank_ms=4_000_000), "time_bank_ms"),
            (admin_pb2.StartMatchRequest(bots=[str(RANDOM_BOT), str(HAGGIS)]), "plays haggis"),
            (admin_pb2.StartMatchRequest(bots=[str(RANDOM_BOT)]), "exactly two bots"),
        ]:
            with pytest.raises(grpc.RpcError) as caught:
                stub.StartMatch(request, timeout=10)
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert says in (caught.value.details() or "")
        assert not stub.ListMatches(admin_pb2.ListMatchesRequest(), timeout=5).matches
