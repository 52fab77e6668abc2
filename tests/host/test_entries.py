"""The competition hands entries to its ladder in memory: the ladder's entrants are read from
the database (house bots, then every entered submission's latest version, pinned), the exported
ladder file may be impossible to write (a directory in its place) and the ladder plays on; with
the ladder's refresh_s an hour, a submission still enters the running ladder the moment it is
entered and plays; after ``kill -9`` the server reads its ladder's entrants back from its
database (the entered bot plays on, nothing withdrawn). Real `arena host` processes; the
submission's test needs Docker."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from arena.bots import catalogue
from arena.bots.home import HOME_ENV
from arena.host.client import _requests, payload
from arena.host.config import load_competition
from arena.host.server import CompetitionServer
from arena.ladder.entrants import Entered
from arena.ladder.schedules.continuous import VERSIONS_FILE
from arena.v1 import competition_pb2 as pb
from tests.support.competition import RunningServer, finished_match, house_server, make_server
from tests.support.containers import require_docker

ROOT = Path(__file__).resolve().parents[2]
GREEDY = ROOT / "sample_bots" / "lost-cities" / "greedy"
STAGE = pb.SubmissionStage.Name


def _submit(server: RunningServer, name: str) -> list[tuple[str, float]]:
    """alice submits greedy as ``name``: (stage, time.monotonic()) until RATED or the end."""
    seen = []
    with payload(GREEDY, "directory") as made:
        start = pb.SubmitStart(name=name, kind="directory", size=made.size, sha256=made.sha256)
        call = server.stub("alice").Submit(_requests(start, made.path, None), timeout=900)
        for event in call:
            seen.append((STAGE(event.stage), time.monotonic()))
            if event.final:
                call.cancel()
                break
    return seen


def _alice_matches(server: RunningServer) -> set[str]:
    page = server.stub("alice").ListMatches(pb.MatchesRequest(mine=True, limit=100), timeout=30)
    return {m.match_id for m in page.matches}


def _versions(server: RunningServer) -> list[dict[str, Any]]:
    path = server.state_dir / "ladders" / "lost-cities" / VERSIONS_FILE
    return [json.loads(line) for line in path.read_text().splitlines()]


def _hour_between_looks(server: RunningServer) -> None:
    text = server.file.read_text()
    server.file.write_text(text.replace("placement = 1\nrefresh_s = 1\n",
                                        "placement = 1\nrefresh_s = 3600\n"))
    assert "refresh_s = 3600" in server.file.read_text()


@pytest.mark.integration
def test_the_ladders_entrants_are_read_from_the_database(tmp_path: Path) -> None:
    """The house bots, then each entered (or rated) name at its latest entered version,
    pinned; refused, failed and unfinished submissions are not entrants."""
    server = house_server(tmp_path / "c", "public")
    competition = load_competition(server.file)
    host = CompetitionServer(competition)
    book = host.book

    def submission(name: str, stages: tuple[str, ...]) -> int:
        sid = book.open("alice", "lost-cities", name, "directory", 10, "0" * 64)
        for stage in stages:
            book.advance(sid, stage, version=f"s{sid}" if stage == "BUILT" else None)
        return sid

    entered = ("UPLOADED", "BUILT", "VALIDATED", "ENTERED")
    submission("sly", (*entered, "RATED"))
    submission("bad", ("UPLOADED", "REFUSED"))
    submission("fox", entered)
    newest = submission("sly", entered)
    submission("sly", ("UPLOADED", "BUILT"))
    house = [Entered(str(d)) for d in competition.game("lost-cities").house_dirs]
    assert len(house) == 2
    assert host.entrants("lost-cities") == [
        *house, Entered("sly", f"sly@s{newest}"), Entered("fox", "fox@s3")]


@pytest.mark.integration
def test_the_ladder_plays_though_its_file_cannot_be_written(tmp_path: Path) -> None:
    """Nothing reads the exported ladder file: a directory in its place costs one warning
    line, and the ladder plays (an hour between looks: its first look, at the start, is fed
    from memory)."""
    server = house_server(tmp_path / "c", "public")
    _hour_between_looks(server)
    export = server.state_dir / "ladders" / "lost-cities.toml"
    export.mkdir(parents=True)
    try:
        server.start()
        finished_match(server)
        warnings = [line for line in server.log().splitlines()
                    if "ladder_file_not_written" in line]
        assert len(warnings) == 1 and "lost-cities" in warnings[0], warnings
    finally:
        server.end()


@pytest.mark.integration
def test_an_entered_submission_reaches_the_running_ladder_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server in this process (process sandbox, an hour between the ladder's looks): a
    submission entered in the database and the catalogue is handed to the running ladder by
    ``enter`` (what the pipeline thread does once it is ENTERED), and the ladder takes it at
    once. The process sandbox cannot run a submitted image: its refusal, recorded by the
    ladder, is the proof it was looked at. Measured: the time from ``enter`` to the record."""
    server = house_server(tmp_path / "c", "public")
    _hour_between_looks(server)
    competition = load_competition(server.file)
    monkeypatch.setenv(HOME_ENV, str(competition.home))  # restored after: start() sets it
    host = CompetitionServer(competition)
    host.start()
    try:
        versions = competition.ladders / "lost-cities" / VERSIONS_FILE
        deadline = time.monotonic() + 120
        while not (versions.exists() and len(versions.read_text().splitlines()) >= 2):
            assert time.monotonic() < deadline, "the ladder never took its house bots"
            time.sleep(0.05)
        sid = host.book.open("alice", "lost-cities", "sly", "directory", 10, "0" * 64)
        for stage in ("UPLOADED", "BUILT", "VALIDATED"):
            host.book.advance(sid, stage, version=f"s{sid}" if stage == "BUILT" else None)
        catalogue.add("sly", f"s{sid}", "lost-cities", "sha256:" + "2" * 64,
                      "sha256:" + "2" * 64, home=competition.home)
        host.book.advance(sid, "ENTERED", "entered")
        sent = time.monotonic()
        host.enter(sid)
        while not any(r["ref"] == "sly" for r in _records(versions)):
            assert time.monotonic() - sent < 60, "the ladder never looked at the entry"
            time.sleep(0.005)
        latency = time.monotonic() - sent
        (record,) = [r for r in _records(versions) if r["ref"] == "sly"]
        assert (record["event"], record["version"]) == ("refused", f"s{sid}"), record
        assert latency < 30, latency  # an hour between looks: only the event did it
        print(f"enter -> the ladder's record {latency * 1000:.0f} ms")
    finally:
        host.stop()


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.docker
@pytest.mark.slow
def test_a_submission_enters_the_running_ladder_without_its_file_and_after_kill9(
        tmp_path: Path) -> None:
    require_docker()
    server = make_server(tmp_path / "c")
    _hour_between_looks(server)
    export = server.state_dir / "ladders" / "lost-cities.toml"
    export.mkdir(parents=True)  # the export cannot be written, nor read
    try:
        server.start()
        assert "ladder_file_not_written" in server.log()
        seen = _submit(server, "alice-bot")
        stages = [stage for stage, _ in seen]
        assert stages[-2:] == ["ENTERED", "RATED"], stages
        entered, rated = (at for stage, at in seen if stage in ("ENTERED", "RATED"))
        assert rated - entered < 600  # an hour's refresh_s: only the event can have done it
        print(f"ENTERED -> RATED {rated - entered:.1f} s")
        before = _alice_matches(server)

        server.kill9()
        server.start()
        deadline = time.monotonic() + 600
        while not _alice_matches(server) - before:
            assert time.monotonic() < deadline, "alice-bot played no more after the restart"
            time.sleep(1)
        mine = [(r["event"], r["ref"]) for r in _versions(server) if r["ref"] == "alice-bot"]
        assert mine == [("adopted", "alice-bot")], mine
    finally:
        server.end()
