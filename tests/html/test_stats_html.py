"""Resource statistics in HTML: the replay page's move list shows CPU beside wall when the log
recorded it (and only wall for an old log); the ladder report's Resources table and charts, from
a real ladder's logs; a bot's name in them is text, never markup."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.site.refresh import site_replay
from arena.site.report_page import report_page
from arena.stats.resources import BotStats, Spread
from tests.support.pages import mini_ladder, page_data, play_logged

pytestmark = pytest.mark.integration

runner = CliRunner()


def _with_cpu(log: Path) -> Path:
    """The log as a format-5 CPU-clock referee writes it: every decision with its CPU time."""
    lines = []
    for line in log.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["type"] == "header":
            record["log_format"] = 5
            record["time_control"].update(clock="cpu", wall_guard=4.0)
        if record["type"] == "decision":
            record["cpu_ms"] = 4.321
        lines.append(json.dumps(record))
    out = log.with_name("cpu-" + log.name)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def _moves(html: str) -> str:
    data = page_data(html)
    return json.dumps(data, ensure_ascii=False)


@pytest.mark.unit
def test_move_list_shows_cpu_beside_wall(tmp_path: Path) -> None:
    log = play_logged(tmp_path, "portas", 3)
    old = _moves(site_replay(log, True))
    assert " ms" in old and "CPU" not in old
    page = site_replay(_with_cpu(log), True)
    moves = _moves(page)
    assert "· CPU 4.3 ms" in moves
    assert "on the CPU clock (wall guard 4×)" in page + moves


def _bot(name: str) -> BotStats:
    return BotStats(name, 2, 40, Spread(40.0, 44.0, 47.5), Spread(45.0, 50.0, 60.0),
                    Spread(5.0, 6.0, 12.5), Spread(120.0, 130.0, 130.0), 2000.0, 50 * 2**20,
                    80.0, 20.0, 200.0, "proc", "cpu")


def test_report_resources_table_and_charts(tmp_path: Path) -> None:
    from arena.ladder.config import load_ladder
    from arena.ladder.reports import crosstable_of, load_matches, standings_of
    from arena.site.report_page import ReportData

    ladder = mini_ladder(tmp_path)
    config = load_ladder(ladder)
    matches = load_matches(config)
    data = ReportData(config.name, config.game, standings_of(config.name, matches),
                      crosstable_of(matches), matches, (),
                      bot_stats=[_bot("ann"), _bot("<b>evil</b>")], stats_over=12)
    html = report_page(data)
    assert 'id="resources"' in html and 'id="cpu-chart"' in html and 'id="gap-chart"' in html
    assert "40.0 / 44.0 / 47.5" in html and "5.0 / 6.0 / 12.5" in html and "50.0" in html
    assert "<b>evil</b>" not in html and "&lt;b&gt;evil&lt;/b&gt;" in html
    assert "newest 12 matches" in html
    empty = report_page(ReportData(config.name, config.game, standings_of(config.name, matches),
                                   crosstable_of(matches), matches, ()))
    assert 'id="resources"' not in empty


def test_site_and_cli_statistics_of_a_real_ladder(tmp_path: Path) -> None:
    ladder = mini_ladder(tmp_path)
    out = tmp_path / "site"
    result = runner.invoke(app, ["ladder", "report", str(ladder), "--out", str(out)])
    assert result.exit_code == 0, result.output
    index = (out / "index.html").read_text(encoding="utf-8")
    assert 'id="resources"' in index and "newest 12 matches" in index
    result = runner.invoke(app, ["ladder", "stats", str(ladder), "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["ladder"] == "mini" and doc["matches"] == doc["logs_read"] == 12
    assert sorted(b["bot"] for b in doc["bots"]) == ["ann", "ben", "cy"]
    for bot in doc["bots"]:
        assert bot["matches"] == 8 and bot["decisions"] > 0
        assert bot["wall_ms"]["median"] <= bot["wall_ms"]["p95"] <= bot["wall_ms"]["max"]
        assert bot["cpu_ms"] is None  # in-process seats have no CPU meter
    result = runner.invoke(app, ["ladder", "stats", str(ladder)])
    assert result.exit_code == 0, result.output
    assert "resource statistics" in result.stdout and "12 of 12 match logs read" in result.stdout


@pytest.mark.unit
def test_stats_of_a_ladder_without_results_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "empty.toml"
    path.write_text('name = "empty"\ngame = "portas"\nentrants = ["a", "b"]\n')
    result = runner.invoke(app, ["ladder", "stats", str(path)])
    assert result.exit_code == 2
    assert "no results yet" in result.output
