"""The conformance gate on the Goofspiel package: the installed game passes every check, and
each broken copy (tests/support/broken_goofspiel.py, not installed) fails with the right check
named: the leak (seat 1 sees seat 0's pending bid) and determinism (the deal from the global
``random``); ``arena games check`` says so through the CLI as well."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.games import plugin
from arena.gate import CHECKS, GateReport, cache, run_gate
from tests.support import broken_goofspiel as broken
from tests.support.goofspiel import goofspiel

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def arena_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh arena home (the gate's cache) and no verdict remembered by this process."""
    home = tmp_path / "home"
    monkeypatch.setenv("ARENA_HOME", str(home))
    monkeypatch.setattr(cache, "_memo", {})
    return home


def failed(report: GateReport) -> dict[str, str]:
    return {c.name: c.detail for c in report.checks if not c.passed}


def test_the_installed_goofspiel_passes_every_check() -> None:
    goofspiel()
    report = run_gate(plugin("goofspiel"))
    assert failed(report) == {}, failed(report)
    assert report.passed and tuple(c.name for c in report.checks) == CHECKS


def test_the_leaking_copy_fails_the_leak_check() -> None:
    goofspiel()
    report = run_gate(broken.LEAKY, matches=1)
    assert not report.passed
    assert set(failed(report)) == {"leak"}, failed(report)


@pytest.mark.unit
def test_the_nondeterministic_copy_fails_determinism() -> None:
    goofspiel()
    report = run_gate(broken.NONDETERMINISTIC, matches=1)
    assert not report.passed
    assert "determinism" in failed(report), failed(report)


def test_arena_games_check_names_the_failed_check() -> None:
    goofspiel()
    runner = CliRunner()
    result = runner.invoke(app, ["games", "check", "tests.support.broken_goofspiel:LEAKY",
                                 "--format", "json"])
    assert result.exit_code == 1, result.output
    report = json.loads(result.output)
    assert [c["name"] for c in report["checks"] if not c["passed"]] == ["leak"]
    good = runner.invoke(app, ["games", "check", "arena-goofspiel"])
    assert good.exit_code == 0, good.output
