"""Continuous ladders: they run until stopped and pick up new versions and entrants while they
run. With the fast in-process player (versions, placement, the entrant list edited or broken,
names that are another entrant's, a flood of versions, resume) and a real ladder (process
sandbox) whose bot directory gets a new version while it runs."""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena.bots import catalogue
from arena.bots.identity import directory_hash
from arena.errors import ConfigError
from arena.ladder.config import LadderConfig, load_ladder
from arena.ladder.entrants import Entered, EntryFeed, Withdrawn
from arena.ladder.reports import load_matches
from arena.ladder.runner import LadderEvent, LadderEventKind, RunSummary, run_ladder
from arena.ladder.schedules.continuous import LOOK_RETRY_S, SNAPSHOTS, VERSIONS_FILE
from arena.ladder.schedules.registry import schedule_status
from arena.ladder.schedules.schedule import slug
from arena.ladder.schedules.sources import PAIRINGS_FILE, encounter_number
from arena.ladder.schedules.status import AdaptiveStatus
from arena.ladder.store import LadderStore
from arena.model import BotSpec
from tests.support.fakes import FakePlayer

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_bots" / "lost-cities"


class Bots:
    """Entrants by name whose version (and so code identity) a test changes while it runs."""

    def __init__(self, **versions: str) -> None:
        self.versions = dict(versions)
        self.names: dict[str, str] = {}
        """A reference → the name its bot.toml gives (default: the reference)."""

    def __call__(self, ref: str, base_dir: Path) -> BotSpec:
        from arena.errors import ConfigError

        if ref not in self.versions:
            raise ConfigError(f"no bot {ref!r}")
        version = self.versions[ref]
        return BotSpec(name=self.names.get(ref, ref), game="lost-cities", command=("true",),
                       version=version, digest=f"fake:{ref}:{version}")


def ladder(tmp_path: Path, entrants: str = '"alpha", "beta", "gamma"',
           schedule: str = "placement = 2\nrefresh_s = 0.02") -> LadderConfig:
    path = tmp_path / "cont.toml"
    path.write_text(f'name = "cont"\ngame = "lost-cities"\nentrants = [{entrants}]\n'
                    f'concurrency = 2\n[schedule]\ntype = "continuous"\n{schedule}\n')
    return load_ladder(path)


def run(cfg: LadderConfig, bots: Bots, until: Callable[[LadderEvent, int], bool],
        player: FakePlayer | None = None, **kwargs: Any) -> RunSummary:
    """Run until ``until(event, matches finished)`` says so (at most 400 matches)."""
    stop = asyncio.Event()
    finished = 0

    def on_event(event: LadderEvent) -> None:
        nonlocal finished
        finished += event.kind is LadderEventKind.MATCH_FINISHED
        if until(event, finished) or finished >= 400:
            stop.set()

    return asyncio.run(run_ladder(cfg, play=player or FakePlayer(delay=0.002), resolve=bots,
                                  on_event=on_event, stop=stop, **kwargs))


def status(event: LadderEvent) -> AdaptiveStatus:
    assert isinstance(event.progress.schedule, AdaptiveStatus)
    return event.progress.schedule


def states(event: LadderEvent) -> dict[str, str]:
    return {p.player: p.state for p in status(event).players}


def versions(cfg: LadderConfig) -> list[dict[str, Any]]:
    return [json.loads(line) for line in
            (cfg.state_dir / VERSIONS_FILE).read_text().splitlines()]


def decisions(cfg: LadderConfig) -> list[dict[str, Any]]:
    return [json.loads(line) for line in
            (cfg.state_dir / PAIRINGS_FILE).read_text().splitlines()]


def first_encounter_after_adoption(cfg: LadderConfig, key: str) -> int:
    """How many encounters were handed out after ``key`` was adopted before its first one (0:
    its first encounter was the very next)."""
    name, version = key.split("@")
    adopted = next(r for r in versions(cfg) if r["event"] == "adopted" and r["name"] == name
                   and r["version"] == version)
    first = next(encounter_number(slug(cfg.name), d["encounter"]) for d in decisions(cfg)
                 if key in d["pair"])
    return first - adopted["after"]


def test_a_new_version_plays_its_placement_first_and_replaces_the_old(tmp_path: Path) -> None:
    cfg = ladder(tmp_path)
    bots = Bots(alpha="1", beta="1", gamma="1")
    seen: list[LadderEvent] = []

    def until(event: LadderEvent, finished: int) -> bool:
        seen.append(event)
        if finished == 16:
            bots.versions["beta"] = "2"
        played = {p.player: p.encounters for p in status(event).players}
        return played.get("beta@2", 0) >= 3

    summary = run(cfg, bots, until)
    assert summary.interrupted and summary.stopped == ""
    last = states(seen[-1])
    assert last["beta@1"] == "retired (replaced by beta@2)"
    assert last["beta@2"] == "playing" and last["alpha@1"] == "playing"
    # placement first: the new version's first two encounters were placement encounters,
    # the first of them the very next encounter handed out
    assert first_encounter_after_adoption(cfg, "beta@2") <= 1
    rules = [d["rule"] for d in decisions(cfg) if "beta@2" in d["pair"]]
    assert rules[:1] == ["placement"]
    # the retired version plays no more; every result stays with the version that played it
    adopted = next(r["after"] for r in versions(cfg) if r["version"] == "2")
    late = [d for d in decisions(cfg) if encounter_number("cont", d["encounter"]) >= adopted]
    assert late and not any("beta@1" in d["pair"] for d in late)
    for m in load_matches(cfg):
        for seat in (0, 1):
            if m.bots[seat] == "beta":
                assert m.identities[seat] == f"fake:beta:{m.versions[seat]}"


def test_the_operator_adds_and_removes_entrants_and_a_broken_file_changes_nothing(
        tmp_path: Path) -> None:
    cfg = ladder(tmp_path)
    assert cfg.source is not None
    text = cfg.source.read_text()
    bots = Bots(alpha="1", beta="1", gamma="1", delta="1")
    notices: list[str] = []

    def until(event: LadderEvent, finished: int) -> bool:
        if finished == 10:
            cfg.source.write_text(text.replace('"gamma"]', '"gamma", "delta"]'))
        if finished == 30:
            cfg.source.write_text(text.replace('"beta", "gamma"]', '"gamma", "delta"]'))
        if finished == 50:
            cfg.source.write_text("entrants = [")  # an edit half saved
        if status(event).notice:
            notices.append(status(event).notice)
        assert all(d.encounter_id for d in status(event).decisions)
        return finished >= 70

    run(cfg, bots, until)
    events = [(r["event"], r["ref"]) for r in versions(cfg)]
    assert events == [("adopted", "alpha"), ("adopted", "beta"), ("adopted", "gamma"),
                      ("adopted", "delta"), ("withdrawn", "beta")]
    assert any("the ladder file was not taken" in n for n in notices)
    late = [d for d in decisions(cfg) if encounter_number("cont", d["encounter"]) >= 22]
    assert late and not any("beta@1" in d["pair"] for d in late)
    assert any("delta@1" in d["pair"] for d in late)
    with LadderStore(cfg.database_url) as db:
        rest = schedule_status(cfg, db)
    assert isinstance(rest, AdaptiveStatus) and rest.kind == "continuous"
    assert {p.player: p.state for p in rest.players}["beta@1"] == "retired (withdrawn)"


def test_a_name_another_entrant_holds_is_refused(tmp_path: Path) -> None:
    cfg = ladder(tmp_path, entrants='"alpha", "beta", "impostor"')
    bots = Bots(alpha="1", beta="1", impostor="1")
    bots.names["impostor"] = "alpha"  # its bot.toml claims another entrant's name
    last: list[LadderEvent] = []
    run(cfg, bots, lambda event, finished: last.append(event) is None and finished >= 10)
    refused = [p for p in status(last[-1]).players if p.state.startswith("refused")]
    assert [(p.player, p.state) for p in refused] == [
        ("alpha@1", "refused: the name alpha is entrant 'alpha''s")]
    assert {m.identities for m in load_matches(cfg)} <= {("fake:alpha:1", "fake:beta:1"),
                                                        ("fake:beta:1", "fake:alpha:1")}


def test_an_entrant_that_does_not_resolve_is_refused_and_two_players_are_waited_for(
        tmp_path: Path) -> None:
    cfg = ladder(tmp_path, entrants='"alpha", "ghost"')
    bots = Bots(alpha="1")
    player = FakePlayer()
    stop = asyncio.Event()

    async def main() -> RunSummary:
        async def later() -> None:
            await asyncio.sleep(0.5)  # the ladder waits for a second player meanwhile
            stop.set()

        task = asyncio.create_task(later())
        summary = await run_ladder(cfg, play=player, resolve=bots, stop=stop)
        await task
        return summary

    summary = asyncio.run(main())
    assert summary.played == 0 and player.calls == [] and summary.interrupted
    with LadderStore(cfg.database_url) as db:
        rest = schedule_status(cfg, db)
    assert isinstance(rest, AdaptiveStatus)
    assert [(p.player, p.state) for p in rest.players] == [
        ("alpha@1", "placement 1/2"), ("ghost", "refused: no bot 'ghost'")]


def test_an_author_who_never_stops_submitting_starves_no_one(tmp_path: Path) -> None:
    cfg = ladder(tmp_path, entrants='"alpha", "beta", "gamma", "delta"')
    bots = Bots(alpha="1", beta="1", gamma="1", delta="1")
    submitted = 1

    def until(event: LadderEvent, finished: int) -> bool:
        nonlocal submitted
        if event.kind is LadderEventKind.MATCH_FINISHED:  # a new version after every match
            submitted += 1
            bots.versions["alpha"] = str(submitted)
        return finished >= 160

    run(cfg, bots, until)
    pairs = [d["pair"] for d in decisions(cfg)]
    for name in ("beta", "gamma", "delta"):
        share = sum(any(p.startswith(f"{name}@") for p in pair) for pair in pairs) / len(pairs)
        assert share >= 1 / 8, (name, share)  # the floor: 1/(2N) of the encounters
    adopted = [r for r in versions(cfg) if r["ref"] == "alpha" and r["event"] == "adopted"]
    assert 2 <= len(adopted) < len(pairs) / 2  # each version played its placement first


def test_rest_s_spaces_the_starts_of_its_matches(tmp_path: Path) -> None:
    """With ``rest_s``, no match starts sooner than that after the one before, even with two
    workers free (without it the first two start together). The schedule spaces the matches
    it hands out; a player starts one after the event loop gets to it, up to tens of
    milliseconds later on a loaded machine (a gap of 0.231 s was seen with rest_s 0.25), so
    the gaps are checked with that margin: far above the ~0 s of the matches started
    together."""
    starts: list[float] = []
    player = FakePlayer(delay=0.002, hook=lambda spec: starts.append(time.monotonic()))
    cfg = ladder(tmp_path, schedule="placement = 1\nrefresh_s = 0.02\nrest_s = 0.3")
    assert cfg.schedule.rest_s == 0.3
    run(cfg, Bots(alpha="1", beta="1"), lambda event, finished: finished >= 5, player)
    gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    assert len(gaps) >= 4 and min(gaps) >= 0.2, gaps
    assert starts[-1] - starts[0] >= 0.3 * (len(starts) - 1) - 0.1, gaps


@pytest.mark.parametrize("value", ["-1", "inf", '"soon"'])
def test_rest_s_must_be_seconds(tmp_path: Path, value: str) -> None:
    with pytest.raises(ConfigError, match="rest_s"):
        ladder(tmp_path, schedule=f"rest_s = {value}")


def test_a_resumed_continuous_ladder_keeps_its_versions(tmp_path: Path) -> None:
    cfg = ladder(tmp_path)
    bots = Bots(alpha="1", beta="1", gamma="1")

    def until(event: LadderEvent, finished: int) -> bool:
        if finished == 10:
            bots.versions["gamma"] = "2"
        return finished >= 30

    run(cfg, bots, until)
    before = versions(cfg)
    first = [p.player for p in _rest(cfg).players]
    run(cfg, bots, lambda event, finished: finished >= 10)
    assert versions(cfg) == before  # nothing new was seen: nothing adopted again
    assert [p.player for p in _rest(cfg).players][3:] == first[3:] == ["gamma@1"]
    assert len({m.match_id for m in load_matches(cfg)}) == len(load_matches(cfg)) >= 40


def test_entries_in_memory_join_and_leave_with_no_file_and_no_catalogue(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ladder fed its entrants in memory (the competition server's way) reads neither its
    file (removed here) nor the catalogue (on in the file): an entrant joins and another leaves
    by event alone, though its file's refresh_s would look again only in an hour."""
    cfg = ladder(tmp_path, schedule="placement = 2\nrefresh_s = 3600\ncatalogue = true")
    assert cfg.source is not None
    cfg.source.unlink()
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    catalogue.add("stranger", "1", "lost-cities", "sha256:" + "1" * 64, "sha256:" + "1" * 64)
    bots = Bots(alpha="1", beta="1", gamma="1", delta="1", stranger="1")
    feed = EntryFeed(Entered(ref) for ref in ("alpha", "beta", "gamma"))

    def until(event: LadderEvent, finished: int) -> bool:
        if event.kind is LadderEventKind.MATCH_FINISHED and finished == 10:
            feed.send(Entered("delta"))
        if event.kind is LadderEventKind.MATCH_FINISHED and finished == 30:
            feed.send(Withdrawn("beta"))
        return finished >= 50

    run(cfg, bots, until, entries=feed)
    events = [(r["event"], r["ref"]) for r in versions(cfg)]
    assert events == [("adopted", "alpha"), ("adopted", "beta"), ("adopted", "gamma"),
                      ("adopted", "delta"), ("withdrawn", "beta")]
    late = [d for d in decisions(cfg) if encounter_number("cont", d["encounter"]) >= 22]
    assert late and not any("beta@1" in d["pair"] for d in late)
    assert any("delta@1" in d["pair"] for d in late)
    assert not any("stranger" in p for d in decisions(cfg) for p in d["pair"])


def test_an_entry_is_pinned_to_its_version(tmp_path: Path) -> None:
    """``Entered(ref, pinned)``: the ladder plays the version entered, not whatever the
    reference resolves to later."""
    cfg = ladder(tmp_path, schedule="placement = 1\nrefresh_s = 0.02")
    bots = Bots(alpha="1", beta="1", **{"gamma@2": "2"})
    bots.names["gamma@2"] = "gamma"
    feed = EntryFeed([Entered("alpha"), Entered("beta"), Entered("gamma", "gamma@2")])
    run(cfg, bots, lambda event, finished: finished >= 10, entries=feed)
    assert [(r["ref"], r["name"], r["version"]) for r in versions(cfg)] == [
        ("alpha", "alpha", "1"), ("beta", "beta", "1"), ("gamma", "gamma", "2")]


def test_two_selected_versions_of_one_bot_both_play_after_the_freeze(tmp_path: Path) -> None:
    """What a competition's freeze sends (``arena.host.server.sync_entries``): each name's
    entrant withdrawn, then each selected version entered as its own entrant ``name@version``
    (pinned to itself). Two versions of one bot both play (a name's entrants are versions of
    it, not two bots claiming one name); the versions not selected play no more; the version
    that was playing keeps its results (it is the same player, not a new one)."""
    cfg = ladder(tmp_path, schedule="placement = 1\nrefresh_s = 0.02")
    bots = Bots(alpha="1", beta="1", **{"gamma@1": "1", "gamma@2": "2", "beta@1": "1"})
    bots.names.update({"gamma@1": "gamma", "gamma@2": "gamma", "beta@1": "beta"})

    def catalogue(ref: str, base_dir: Path) -> BotSpec:  # a version is one code, by any ref
        spec = bots(ref, base_dir)
        return replace(spec, digest=f"fake:{spec.name}:{spec.version}")

    feed = EntryFeed([Entered("alpha"), Entered("beta"), Entered("gamma", "gamma@2")])
    frozen: list[int] = []

    def until(event: LadderEvent, finished: int) -> bool:
        if event.kind is LadderEventKind.MATCH_FINISHED and finished == 8 and not frozen:
            frozen.append(finished)
            for ref in ("beta", "gamma"):
                feed.send(Withdrawn(ref))
            for ref in ("gamma@1", "gamma@2", "beta@1"):
                feed.send(Entered(ref, ref))
        return finished >= 40

    run(cfg, catalogue, until, entries=feed)  # type: ignore[arg-type]
    adopted = [(r["ref"], r["version"]) for r in versions(cfg) if r["event"] == "adopted"]
    assert adopted[-3:] == [("gamma@1", "1"), ("gamma@2", "2"), ("beta@1", "1")], adopted
    assert not [r for r in versions(cfg) if r["event"] == "refused"]
    pairs = [d["pair"] for d in decisions(cfg)]
    late = [p for d, p in zip(decisions(cfg), pairs, strict=True)
            if encounter_number("cont", d["encounter"]) >= 12]
    assert any("gamma@1" in p for p in late) and any("gamma@2" in p for p in late)
    assert any("beta@1" in p for p in late)
    assert not any("beta@1+" in k for p in pairs for k in p)  # beta@1 is the same player


@pytest.mark.parametrize("refresh_s", [10.0])
def test_an_entry_plays_without_waiting_a_look(tmp_path: Path, refresh_s: float) -> None:
    """An ``Entered`` event sent from another thread (as the server's pipeline does) wakes
    the ladder: the entrant's first match starts well within ``refresh_s`` (the default, 10 s:
    the interval at which the file and the catalogue were looked at again)."""
    cfg = ladder(tmp_path, schedule=f"placement = 2\nrefresh_s = {refresh_s}")
    bots = Bots(alpha="1", beta="1", gamma="1", delta="1")
    feed = EntryFeed(Entered(ref) for ref in ("alpha", "beta", "gamma"))
    warm = threading.Event()
    sent: list[float] = []
    started: list[float] = []

    def send() -> None:
        warm.wait(60)
        sent.append(time.monotonic())
        feed.send(Entered("delta"))

    def until(event: LadderEvent, finished: int) -> bool:
        if finished >= 10:
            warm.set()
        if event.kind is LadderEventKind.MATCH_STARTED and any(
                "delta" in f.bots for f in event.progress.in_flight):
            started.append(time.monotonic())
        return bool(started) or finished >= 300

    sender = threading.Thread(target=send)
    sender.start()
    run(cfg, bots, until, player=FakePlayer(delay=0.05), entries=feed)
    sender.join()
    assert sent and started, "delta never played"
    latency = started[0] - sent[0]
    assert latency < refresh_s / 4, f"{latency:.3f} s from the event to delta's first match"


def test_an_entry_whose_look_fails_is_looked_at_again(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The look an ``Entered`` event starts fails (the catalogue's database busy while the
    pipeline writes it, say): the event is not lost; the ladder logs it and looks again within
    ``LOOK_RETRY_S``, not at ``refresh_s`` (an hour here). Before, the look died in a task no
    one awaited, and a competition's first submission waited the hour unplayed."""
    cfg = ladder(tmp_path, schedule="placement = 1\nrefresh_s = 3600")
    bots = Bots(alpha="1", beta="1")
    feed = EntryFeed([Entered("alpha")])
    failed: list[float] = []
    loops: list[asyncio.AbstractEventLoop] = []  # the ladder's, once it runs

    def resolve(ref: str, base_dir: Path) -> BotSpec:
        if ref == "alpha" and not feed.generation:  # the first look has read its entrants
            loops[0].call_soon_threadsafe(loops[0].call_later, 0.2, feed.send, Entered("beta"))
        if ref == "beta" and not failed:
            failed.append(time.monotonic())
            raise sqlite3.OperationalError("database is locked")
        return bots(ref, base_dir)

    started: list[float] = []

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        loops.append(loop)
        loop.call_later(60, stop.set)

        def on_event(event: LadderEvent) -> None:
            if event.kind is LadderEventKind.MATCH_STARTED:
                started.append(time.monotonic())
                stop.set()

        await run_ladder(cfg, play=FakePlayer(delay=0.002), resolve=resolve,  # type: ignore[arg-type]
                         on_event=on_event, stop=stop, entries=feed)

    caplog.set_level(logging.WARNING, logger="arena.ladder.schedules.continuous")
    asyncio.run(main())
    assert failed and started, "beta's entry was lost with its failed look"
    assert started[0] - failed[0] < LOOK_RETRY_S + 10
    assert [(r["event"], r["ref"]) for r in versions(cfg)] == [
        ("adopted", "alpha"), ("adopted", "beta")]
    assert any('"look_failed"' in m and "database is locked" in m for m in caplog.messages)


def _rest(cfg: LadderConfig) -> AdaptiveStatus:
    with LadderStore(cfg.database_url) as db:
        rest = schedule_status(cfg, db)
    assert isinstance(rest, AdaptiveStatus)
    return rest


# --- a real continuous ladder ---------------------------------------------------------------
@pytest.mark.slow
def test_a_real_bot_directory_gets_a_new_version_while_the_ladder_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
        ) -> None:
    mine = tmp_path / "mine"
    shutil.copytree(SAMPLES / "greedy", mine)
    manifest = mine / "bot.toml"
    manifest.write_text(manifest.read_text().replace('name = "greedy"', 'name = "mine"'))
    # a submitted bot of the game: the catalogue joins, its image is refused by the process
    # sandbox, never played, and the ladder goes on
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    catalogue.add("boxed", "1", "lost-cities", "sha256:" + "0" * 64, "sha256:" + "0" * 64)
    # one cluster worker, an encounter at a time: a second worker costs more CPU than it saves;
    # fairness = 2: a version may be replaced 2 encounters after it came (the default window,
    # twice the players, kept the new version waiting 6 encounters: 8 matches more)
    path = tmp_path / "real.toml"
    path.write_text(
        f'name = "real"\ngame = "lost-cities"\nentrants = ["{mine}", "{SAMPLES / "random"}", '
        f'"{SAMPLES / "greedy"}"]\nconcurrency = 1\nseed = 9\nsandbox = "process"\n'
        "[options]\nrounds = 1\n"
        '[schedule]\ntype = "continuous"\nplacement = 1\nfairness = 2\nrefresh_s = 0.2\n'
        "catalogue = true\n")
    cfg = load_ladder(path)
    stop = asyncio.Event()
    finished = 0
    last: list[AdaptiveStatus] = []
    changed: list[int] = []

    def on_event(event: LadderEvent) -> None:
        nonlocal finished
        last[:] = [status(event)]
        if event.kind is not LadderEventKind.MATCH_FINISHED:
            return
        finished += 1
        played = {p.player: p.encounters for p in last[0].players}
        if played.get("mine@1", 0) >= 1 and not changed:
            # a new version once the first has played: bot.toml and the code change
            changed.append(finished)
            manifest.write_text(manifest.read_text().replace('version = "1"',
                                                             'version = "2"'))
            with (mine / "bot.py").open("a") as code:
                code.write("\n# version 2\n")
        if played.get("mine@2", 0) >= 1 or finished >= 40:
            stop.set()

    summary = asyncio.run(run_ladder(cfg, on_event=on_event, stop=stop))
    assert summary.interrupted and finished < 40, "the new version never played"
    delay = first_encounter_after_adoption(cfg, "mine@2")
    with capsys.disabled():
        print(f"\nnew version's first encounter: {delay} encounters after it was seen")
    assert delay <= 1  # playing within two encounters of being seen (the target)
    by_player = {p.player: p.state for p in last[0].players}
    assert by_player["mine@1"] == "retired (replaced by mine@2)"
    assert by_player["boxed@1"].startswith("refused: boxed is a submitted container image")
    # the version that played is the snapshot of the directory as it was seen
    recorded = {(m.versions[s], m.identities[s]) for m in load_matches(cfg)
                for s in (0, 1) if m.bots[s] == "mine"}
    assert {v for v, _ in recorded} == {"1", "2"}
    new = next(i for v, i in recorded if v == "2")
    snapshot = cfg.state_dir / SNAPSHOTS / "bots" / new.removeprefix("dir:sha256:")
    assert directory_hash(snapshot) == new == directory_hash(mine)
    assert (snapshot / "bot.py").read_text().endswith("# version 2\n")
    assert oct(snapshot.stat().st_mode & 0o777) == oct(0o755)
    for m in load_matches(cfg):
        assert m.termination == "normal", m.detail
        assert "boxed" not in m.bots
