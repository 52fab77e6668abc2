"""The conformance gate (arena.gate): the three built-ins pass; broken copies of Lost
Cities (tests/support/broken_games.py: a leak, a deal that ignores the seed, legal actions that
disagree with is_legal, a determinize that redraws nothing, a renderer that raises) each fail
with the right check named and a detail that says where; the verdict is cached per plugin
identity; ladders, SPRT tests and the competition server refuse a failing game in one line
before anything is made, and play it when the operator overrides (one warning line)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.games import plugin, registered
from arena.games.builtin import BUILTIN_ORDER
from arena.games.plugin import GamePlugin
from arena.gate import (
    CHECKS,
    GateReport,
    cache,
    cache_path,
    gate_status,
    identity,
    plugin_identity,
    require_gated,
    run_gate,
    save_report,
)
from arena.gate import run as gate_run
from arena.host.config import Competition, GameSettings, ladder_data
from arena.ladder.config import LadderConfig, parse_ladder
from arena.ladder.runner import run_ladder
from arena.model import BotSpec
from arena.sprt.run import run_sprt
from tests.support import broken_games as broken
from tests.support.fakes import FakePlayer

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def arena_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh arena home (the gate's cache) and no verdict remembered by this process."""
    home = tmp_path / "home"
    monkeypatch.setenv("ARENA_HOME", str(home))
    monkeypatch.setattr(cache, "_memo", {})
    return home


@pytest.fixture
def stable_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """Identities from the plugins' fields alone: what one call stores the next finds even while
    files under arena/ or tests/ change meanwhile (a shared working tree)."""
    monkeypatch.setattr(identity, "package_root", lambda locator: None)


def failed(report: GateReport) -> dict[str, str]:
    return {c.name: c.detail for c in report.checks if not c.passed}


@pytest.fixture(scope="module")
def leaky_report() -> GateReport:
    """The gate's report on the leaking copy, as ``require_gated`` runs it (default matches):
    run once for the module (each run plays matches and starts another Python process)."""
    return run_gate(broken.LEAKY_PLUGIN)


@pytest.fixture
def leaky_verdict(arena_home: Path, leaky_report: GateReport) -> GateReport:
    """That report kept as this test's verdict (in its fresh home and this process), as the
    gate's first run would keep it: the refusals below read it instead of running the gate
    again. ``test_the_verdict_is_cached_per_identity`` runs the gate through
    ``require_gated`` itself."""
    report = dataclasses.replace(leaky_report,
                                 plugin_identity=plugin_identity(broken.LEAKY_PLUGIN))
    save_report(report)
    return report


# --- the built-ins pass ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def one_match_reports() -> Callable[[str], tuple[GateReport, list[str]]]:
    """A built-in's gate report at one match a seed, with the checks its progress callback was
    given in turn: run once for the module per game (``test_gate_reports_round_trip_as_json``
    reads PORTAS's again), whichever test asks first."""
    reports: dict[str, tuple[GateReport, list[str]]] = {}

    def report_of(game_id: str) -> tuple[GateReport, list[str]]:
        if game_id not in reports:
            seen: list[str] = []
            reports[game_id] = (run_gate(plugin(game_id), matches=1,
                                         progress=lambda check: seen.append(check.name)), seen)
        return reports[game_id]

    return report_of


@pytest.mark.parametrize("game_id", BUILTIN_ORDER)
def test_the_builtin_games_pass_every_check(
        game_id: str, one_match_reports: Callable[[str], tuple[GateReport, list[str]]]) -> None:
    """The whole gate passes and reports every check in order. One match a seed is enough for
    that: each check at the default matches runs on every installed game in
    tests/games/test_conformance.py (``test_the_gate_check``)."""
    report, seen = one_match_reports(game_id)
    assert failed(report) == {}, failed(report)
    assert report.passed and report.game_id == game_id
    assert tuple(c.name for c in report.checks) == CHECKS == tuple(seen)


# --- broken copies fail, with the check named ----------------------------------------------------
def test_an_observation_that_shows_the_opponents_card_fails_the_leak_check(
        leaky_report: GateReport) -> None:
    report = leaky_report
    assert not report.passed
    assert set(failed(report)) == {"leak"}
    detail = failed(report)["leak"]
    assert "seed 1, decision 1" in detail and "observation bytes change" in detail


def test_a_deal_from_the_process_randomness_fails_determinism() -> None:
    report = run_gate(broken.SEEDLESS_PLUGIN, matches=1)
    assert "determinism" in failed(report)
    assert "the deal differs between two runs of the same seed" in failed(report)["determinism"]
    assert "does not replay" in failed(report)["replay"]  # its logs cannot be re-dealt either


def test_a_deal_that_ignores_the_seed_fails_determinism() -> None:
    report = run_gate(broken.ONE_DEAL_PLUGIN, matches=1)
    assert set(failed(report)) == {"determinism"}
    assert "the seed is ignored" in failed(report)["determinism"]


def test_legal_actions_in_the_processs_hash_order_fail_determinism() -> None:
    """Deterministic within one process, not across processes: a match played on a cluster
    worker would not replay on the head."""
    report = run_gate(broken.HASH_ORDERED_PLUGIN, matches=1)
    assert set(failed(report)) == {"determinism"}
    detail = failed(report)["determinism"]
    assert detail.startswith("seed 1, decision ") and "another Python process" in detail


def test_legal_actions_that_disagree_with_is_legal_fail_the_is_legal_check() -> None:
    report = run_gate(broken.DISAGREEING_PLUGIN, matches=1)
    assert set(failed(report)) == {"is-legal"}
    assert "which legal_actions does not offer" in failed(report)["is-legal"]
    assert failed(report)["is-legal"].startswith("seed 1, decision ")


def test_legal_texts_out_of_step_with_the_legal_list_fail_the_grammar_check() -> None:
    """The referee sends a game's optional ``legal_texts`` as the legal actions: texts out of
    the list's order would make a bot's first legal text another action."""
    report = run_gate(broken.WRONG_TEXTS_PLUGIN, matches=1)
    assert set(failed(report)) == {"grammar"}
    detail = failed(report)["grammar"]
    assert detail.startswith("seed 1, decision 1") and "legal_texts gives" in detail


def test_a_determinize_that_redraws_nothing_fails_the_leak_check() -> None:
    """Otherwise the leak test compares a state with itself and proves nothing."""
    report = run_gate(broken.BLIND_PLUGIN, matches=1)
    assert set(failed(report)) == {"leak"}
    assert "would prove nothing" in failed(report)["leak"]


def test_a_check_that_raises_is_a_failed_check_with_the_exception() -> None:
    report = run_gate(broken.RAISING_PLUGIN, matches=1)
    assert set(failed(report)) == {"renderers"}
    detail = failed(report)["renderers"]
    assert "KeyError" in detail and "no such card colour" in detail and "seed 1" in detail
    assert "\n" not in detail


def test_a_game_that_exits_the_process_is_a_failed_check_not_an_exit() -> None:
    report = run_gate(broken.EXITING_PLUGIN, matches=1)
    assert set(failed(report)) == {"options"}
    assert "SystemExit: bye" in failed(report)["options"]


@pytest.mark.unit
def test_a_plugin_whose_engine_cannot_be_loaded_fails_every_check() -> None:
    missing = GamePlugin(id="missing-game", engine="tests.games.no_such_module:GAME",
                         codec="arena.games.lost_cities.codec:CODEC",
                         renderer="arena.games.lost_cities.terminal:RENDERER")
    report = run_gate(missing, matches=1)
    assert set(failed(report)) == set(CHECKS)
    assert all("no_such_module" in detail for detail in failed(report).values())


# --- the cache -----------------------------------------------------------------------------------
def test_the_verdict_is_cached_per_identity(arena_home: Path, monkeypatch: pytest.MonkeyPatch,
                                            stable_identity: None) -> None:
    with registered(broken.LEAKY_PLUGIN):
        assert gate_status(broken.LEAKY_PLUGIN) is None
        with pytest.raises(ConfigError):
            require_gated("leaky-lost-cities")
        path = cache_path("leaky-lost-cities", plugin_identity(broken.LEAKY_PLUGIN))
        assert path.parent == arena_home / "games" and path.is_file()
        assert json.loads(path.read_text())["passed"] is False
        monkeypatch.setattr(cache, "_memo", {})  # as a new process would: from the file
        monkeypatch.setattr(gate_run, "run_gate", _never)
        cached = gate_status(broken.LEAKY_PLUGIN)
        assert cached is not None and cached.failed == ("leak",)
        with pytest.raises(ConfigError):
            require_gated("leaky-lost-cities")


@pytest.mark.unit
def test_a_damaged_cache_file_is_not_a_verdict(arena_home: Path, stable_identity: None) -> None:
    path = cache_path("leaky-lost-cities", plugin_identity(broken.LEAKY_PLUGIN))
    path.parent.mkdir(parents=True)
    path.write_text('{"gate_version": 1, "passed": true')
    assert gate_status(broken.LEAKY_PLUGIN) is None
    path.write_text(json.dumps({"gate_version": 1, "game": "leaky-lost-cities",
                                "identity": "another", "passed": True, "checks": [
                                    {"name": n, "passed": True, "detail": ""} for n in CHECKS]}))
    assert gate_status(broken.LEAKY_PLUGIN) is None  # a verdict on other code


@pytest.mark.unit
def test_a_changed_package_file_is_another_identity(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "site" / "gate_probe_game"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "engine.py").write_text("GAME = None\n")
    monkeypatch.syspath_prepend(str(package.parent))
    probe = GamePlugin(id="probe", engine="gate_probe_game.engine:GAME",
                       codec="gate_probe_game.engine:CODEC",
                       renderer="gate_probe_game.engine:RENDERER")
    before = plugin_identity(probe)
    assert plugin_identity(probe) == before
    (package / "engine.py").write_text("GAME = 1\n")
    assert plugin_identity(probe) != before
    assert plugin_identity(GamePlugin(**{**probe.__dict__, "dist_version": "2"})) != \
        plugin_identity(probe)


def _never(*args: object, **kwargs: object) -> GateReport:
    raise AssertionError("the gate ran again although its verdict is cached")


# --- refusal and override -------------------------------------------------------------------------
def test_require_gated_refuses_in_one_line_naming_the_checks_and_the_command(
        leaky_verdict: GateReport) -> None:
    with registered(broken.LEAKY_PLUGIN), pytest.raises(ConfigError) as refused:
        require_gated("leaky-lost-cities")
    message = str(refused.value)
    assert "\n" not in message
    assert "fails the conformance gate (leak;" in message
    assert "arena games check leaky-lost-cities" in message
    assert "allow_ungated_game = true" in message


def test_require_gated_with_the_override_warns_once(caplog: pytest.LogCaptureFixture,
                                                    leaky_verdict: GateReport) -> None:
    with registered(broken.LEAKY_PLUGIN), caplog.at_level(logging.WARNING):
        warning = require_gated("leaky-lost-cities", allow=True)
    assert "played anyway" in warning and "leak" in warning
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.getMessage() for r in warnings] == [warning]


def test_a_builtin_passes_require_gated() -> None:
    assert require_gated("portas") == ""


@pytest.fixture
def leaky() -> Iterator[GamePlugin]:
    with registered(broken.LEAKY_PLUGIN) as registered_plugin:
        yield registered_plugin


@pytest.fixture
def leaky_gated(leaky: GamePlugin, leaky_verdict: GateReport) -> GamePlugin:
    """The leaking copy, registered, with the gate's verdict on it kept."""
    return leaky


def leaky_ladder(tmp_path: Path, extra: str = "") -> LadderConfig:
    path = tmp_path / "leaky.toml"
    path.write_text('name = "leaky"\ngame = "leaky-lost-cities"\nentrants = ["alpha", "beta"]\n'
                    f"{extra}[schedule]\ncycles = 1\n")
    return parse_ladder(path.read_text(), source=path)


def resolve_leaky(ref: str, base_dir: Path) -> BotSpec:
    return BotSpec(name=ref, game="leaky-lost-cities", directory=None, command=("true",),
                   version="1", digest=f"fake:{ref}")


def test_a_ladder_of_a_leaking_game_is_refused_before_anything_is_made(
        tmp_path: Path, leaky_gated: GamePlugin) -> None:
    config = leaky_ladder(tmp_path)
    player = FakePlayer()
    with pytest.raises(ConfigError, match="fails the conformance gate"):
        asyncio.run(run_ladder(config, play=player, resolve=resolve_leaky))
    assert player.calls == []
    assert not config.state_dir.exists()  # no store, no key, no log


def test_a_ladder_plays_a_leaking_game_when_the_operator_allows_it(
        tmp_path: Path, leaky_gated: GamePlugin, caplog: pytest.LogCaptureFixture) -> None:
    config = leaky_ladder(tmp_path, "allow_ungated_game = true\n")
    assert config.allow_ungated_game
    player = FakePlayer()
    with caplog.at_level(logging.WARNING, logger="arena.gate"):
        summary = asyncio.run(run_ladder(config, play=player, resolve=resolve_leaky))
    assert summary.played == 2 and len(player.calls) == 2
    assert sum("played anyway" in r.getMessage() for r in caplog.records) == 1


def test_an_sprt_test_of_a_leaking_game_is_refused(tmp_path: Path,
                                                   leaky_gated: GamePlugin) -> None:
    path = tmp_path / "sprt.toml"
    path.write_text('name = "leaky-sprt"\ngame = "leaky-lost-cities"\n'
                    '[sprt]\ncandidate = "alpha"\nbaseline = "beta"\nelo0 = 0\nelo1 = 50\n')
    config = parse_ladder(path.read_text(), source=path)
    player = FakePlayer()
    with pytest.raises(ConfigError, match="fails the conformance gate"):
        asyncio.run(run_sprt(config, play=player, resolve=resolve_leaky))
    assert player.calls == [] and not config.state_dir.exists()


def competition(tmp_path: Path, allow: bool) -> Competition:
    state = tmp_path / "spring-state"
    return Competition(
        name="spring", path=tmp_path / "spring.toml", state_dir=state,
        listen="127.0.0.1:0", tls_cert=tmp_path / "server.pem", tls_key=tmp_path / "server.key",
        database=f"sqlite:///{state / 'competition.sqlite3'}", metrics="",
        site_dir=state / "site", site_refresh_s=30.0, sandbox="process", logs="own-seat",
        # no house bots: the copy declares no reference bot (a file could not host it at all)
        games=(GameSettings("leaky-lost-cities", house=()),), allow_ungated_games=allow)


def test_the_competition_server_refuses_a_leaking_game_before_opening_anything(
        tmp_path: Path, leaky_gated: GamePlugin) -> None:
    from arena.host.server import CompetitionServer

    c = competition(tmp_path, allow=False)
    with pytest.raises(ConfigError) as refused:
        CompetitionServer(c)
    assert "[competition] allow_ungated_games = true" in str(refused.value)
    assert not c.state_dir.exists()


@pytest.mark.unit
def test_the_competitions_override_reaches_its_ladders(tmp_path: Path,
                                                       leaky: GamePlugin) -> None:
    assert "allow_ungated_game" not in ladder_data(competition(tmp_path, False),
                                                   "leaky-lost-cities")
    assert ladder_data(competition(tmp_path, True), "leaky-lost-cities")[
        "allow_ungated_game"] is True


def test_gate_reports_round_trip_as_json(
        one_match_reports: Callable[[str], tuple[GateReport, list[str]]]) -> None:
    report, _ = one_match_reports("portas")
    again = GateReport.from_json(json.loads(json.dumps(report.to_json())))
    assert again.checks == report.checks and again.passed == report.passed
    assert os.path.basename(cache_path("portas", report.plugin_identity)).startswith("portas-")
