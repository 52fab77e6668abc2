"""Scrimmages and moderation on a real `arena host` (its own process, TLS on 127.0.0.1, the
process sandbox: no Docker): three house bots, alice owns greedy.

One season of it, in order: alice challenges within and over her quota (one line, exit 2,
saying when the next is possible); her scrimmages are played beside the ladder, listed to her and
not to bob, and never rated (the server's standings are the fit of the ladder's own matches, and
would differ with the scrimmages in); the operator voids a ladder match on the running server
(it leaves the standings, stays listed, marked) and reruns it, the server is killed (-9) before
the rerun is played, and after its restart the rerun is played with the very deal of the void
match and stands in its place; the operator disqualifies alice on the running server: greedy
leaves the ladder at once (Withdrawn), her further challenges are refused, the standings equal
the fit of the ladder's matches without greedy's, which stay listed, marked; the metrics count
each action and the public page publishes the audit log; killed (-9) again, the server keeps
greedy out. And a contestant disqualified once the final has begun is withdrawn from it,
once."""

from __future__ import annotations

import calendar
import functools
import json
import os
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from typer.testing import Result

from arena.bots.home import HOME_ENV
from arena.gate import require_gated
from arena.host import client as hc
from arena.host.audit import AuditLog, extra_ladder
from arena.host.config import ladder_config, load_competition
from arena.host.final import Final
from arena.host.moderation import Moderator
from arena.host.server import CompetitionServer
from arena.ladder.reports import standings_of
from arena.ladder.runner import signing_of
from arena.ladder.schedules.continuous import VERSIONS_FILE
from arena.ladder.store import LadderStore, StoredMatch
from arena.v1 import competition_pb2 as pb
from tests.support.competition import RunningServer, wait_for
from tests.support.moderation import moderated, operate, rows, runner

pytestmark = [pytest.mark.integration, pytest.mark.slow]

_wait = functools.partial(wait_for, timeout=180.0, every=0.25)


def _operator(server: RunningServer, *args: str) -> str:
    code, out = operate(server.file, *args)
    assert code == 0, out
    return out


def _challenge_cli(server: RunningServer, *args: str) -> Result:
    """`arena challenge ARGS` as alice, in this process (the server runs in its own)."""
    from arena.cli.main import app

    env = {hc.SERVER_ENV: server.address, hc.CA_ENV: str(server.ca),
           hc.TOKEN_ENV: server.tokens["alice"], "COLUMNS": "300",
           hc.CONFIG_ENV: str(server.file.parent / "no-profile.toml")}
    return runner.invoke(app, ["challenge", *args], env=env)


def _fit_equals(server: RunningServer, matches_of: Callable[[list[StoredMatch]],
                list[StoredMatch]]) -> bool:
    """The server's standings are the fit of ``matches_of(the ladder's first n matches)``,
    n as the server counts them."""
    c = load_competition(server.file)
    config = ladder_config(c, "lost-cities")
    (game,) = server.stub("bob").Standings(pb.StandingsRequest(), timeout=30).games
    with LadderStore(c.database) as store:
        recorded = store.matches(config.name)[:game.matches]
    fit = standings_of(config.name, matches_of(recorded), prior=config.rating.prior,
                       versions=True)
    return rows(game, 6) == rows(fit, 6)


def _metric(server: RunningServer, name: str, labels: str) -> float:
    url = f"http://127.0.0.1:{server.metrics_port}/metrics"
    with urllib.request.urlopen(url, timeout=10) as reply:
        text = reply.read().decode()
    line = next((ln for ln in text.splitlines() if ln.startswith(f"{name}{{{labels}}}")), "")
    return float(line.rsplit(" ", 1)[1]) if line else 0.0


def _first_deal(path: str) -> dict[str, Any]:
    with open(path, encoding="utf-8") as handle:
        return next(json.loads(ln) for ln in handle if '"type":"deal"' in ln)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    server = moderated(tmp_path_factory.mktemp("moderation"))
    server.file.write_text(server.file.read_text() + "\n[scrimmages]\nper_hour = 2\n"
                                                     "outstanding = 1\nshare = 0.5\n")
    server.start()
    yield server
    server.end()  # kill -9 with all below it, not its orderly stop (5-8 s more of its ladder)


def test_scrimmages_moderation_and_kill_9(server: RunningServer) -> None:
    c = load_competition(server.file)
    ladder = c.ladder_name("lost-cities")
    alice, bob = server.stub("alice"), server.stub("bob")
    _wait("a ladder match", lambda: bob.ListMatches(pb.MatchesRequest(limit=5),
                                                    timeout=30).matches, server)

    # --- scrimmages: within and over the quota ---------------------------------------------
    asked = time.monotonic()
    ladder_before = len(bob.ListMatches(pb.MatchesRequest(limit=500), timeout=30).matches)
    first = alice.Challenge(pb.ChallengeRequest(bot="greedy", rival="random"), timeout=30)
    assert first.left_this_hour == 1 and len(first.match_ids) == 2
    assert "unrated" in first.message
    with pytest.raises(grpc.RpcError) as waiting:
        alice.Challenge(pb.ChallengeRequest(bot="greedy", rival="random"), timeout=30)
    assert waiting.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "1 of your scrimmages against random wait to be played" in waiting.value.details()
    second = alice.Challenge(pb.ChallengeRequest(bot="greedy@1", rival="strong"), timeout=30)
    assert second.left_this_hour == 0
    over = _challenge_cli(server, "greedy", "strong")
    lines = over.stderr.strip().splitlines()
    assert over.exit_code == 2 and len(lines) == 1, over.output
    assert "2 scrimmages an hour is the quota" in lines[0]
    assert "the next is possible at 20" in lines[0], lines
    refused = _challenge_cli(server, "random", "strong")  # not hers
    assert refused.exit_code == 2 and "random is not one of your bots" in refused.stderr

    ids = [*first.match_ids, *second.match_ids]
    scrimmages = _wait("the scrimmages played", lambda: (lambda page: page if len(page) == 4
                       else None)(alice.ListMatches(pb.MatchesRequest(kind="scrimmage"),
                                                    timeout=30).matches), server)
    ladder_during = len(bob.ListMatches(pb.MatchesRequest(limit=500),
                                        timeout=30).matches) - ladder_before
    print(f"2 scrimmages (4 matches) played {time.monotonic() - asked:.1f} s after the first "
          f"challenge; the ladder recorded {ladder_during} matches meanwhile")
    assert ladder_during >= 2  # share 0.5: 2 of every 4 matches handed out at most
    assert sorted(m.match_id for m in scrimmages) == sorted(ids)
    assert all(m.kind == "scrimmage" and "greedy" in m.names for m in scrimmages)
    assert not bob.ListMatches(pb.MatchesRequest(kind="scrimmage"), timeout=30).matches
    log = b"".join(chunk.data for chunk in alice.GetLog(pb.LogRequest(match_id=ids[0]),
                                                        timeout=60))
    assert log  # her seat's view (own-seat logs)
    with pytest.raises(grpc.RpcError) as hidden:
        list(bob.GetLog(pb.LogRequest(match_id=ids[0]), timeout=60))
    assert hidden.value.code() is grpc.StatusCode.PERMISSION_DENIED
    assert _metric(server, "arena_scrimmages_total", 'outcome="accepted"') == 2
    assert _metric(server, "arena_scrimmages_total", 'outcome="refused"') == 3
    assert _metric(server, "arena_matches_total",
                   'game="lost-cities",outcome="scrimmage"') == 4

    with LadderStore(c.database) as store:
        played = store.matches(extra_ladder(ladder, "scrimmages"))
        assert not set(ids) & store.recorded_ids(ladder)  # never the ladder's matches
    _wait("the standings: the ladder's matches alone", lambda: _fit_equals(
        server, lambda matches: matches), server, timeout=60)
    assert not _fit_equals(server, lambda matches: [*matches, *played])  # would differ

    # --- void and rerun; kill -9 before the rerun is played --------------------------------
    target = bob.ListMatches(pb.MatchesRequest(limit=50), timeout=30).matches[-1]
    assert "voided" not in target.note
    out = _operator(server, "host", "void", target.match_id, "--why", "power cut")
    assert out.startswith(f"voided {target.match_id}; audit entry 1")

    def voided() -> Any:
        rows = bob.ListMatches(pb.MatchesRequest(limit=500), timeout=30).matches
        row = next(m for m in rows if m.match_id == target.match_id)
        return row if row.void and row.note == "voided: power cut" else None

    _wait("the void match marked", voided, server, timeout=30)
    out = _operator(server, "host", "rerun", target.match_id)
    rerun_id = f"{target.match_id}-rerun1"
    assert f"rerun {target.match_id} as {rerun_id}" in out
    server.kill9()
    server.start()
    alice, bob = server.stub("alice"), server.stub("bob")  # its new port
    rerun = _wait("the rerun played after kill -9", lambda: [
        m for m in bob.ListMatches(pb.MatchesRequest(kind="rerun"), timeout=30).matches
        if m.match_id == rerun_id], server)[0]
    assert (list(rerun.names), list(rerun.versions)) == (list(target.names),
                                                         list(target.versions))
    assert rerun.note == f"rerun of {target.match_id}"
    with LadderStore(c.database) as store:
        original = next(m for m in store.matches(ladder) if m.match_id == target.match_id)
        (again,) = store.matches(extra_ladder(ladder, "reruns"))
    assert again.seed == original.seed and again.bots == original.bots
    assert original.log_path and again.log_path
    assert _first_deal(again.log_path) == _first_deal(original.log_path)  # the same deal
    reruns = {again.match_id: again}
    moderation = AuditLog(LadderStore(c.database).engine).moderation()
    _wait("the standings with the rerun in its place", lambda: _fit_equals(
        server, lambda matches: moderation.standing(matches, reruns)), server, timeout=60)

    # --- disqualify alice on the running server --------------------------------------------
    versions = c.ladders / "lost-cities" / VERSIONS_FILE
    out = _operator(server, "contestants", "disqualify", "alice", "--why", "shared code")
    assert "disqualified alice (greedy); audit entry 3" in out
    dq_at = time.time()
    withdrawn = time.monotonic()
    _wait("greedy withdrawn", lambda: any(
        r.get("event") == "withdrawn" and "greedy" in r.get("ref", "")
        for r in map(json.loads, versions.read_text().splitlines())), server, timeout=30)
    print(f"disqualify -> greedy withdrawn from the running ladder: "
          f"{time.monotonic() - withdrawn:.2f} s")
    moderation = AuditLog(LadderStore(c.database).engine).moderation()
    _wait("the standings without greedy", lambda: _fit_equals(
        server, lambda matches: moderation.standing(matches, reruns)), server, timeout=60)
    (game,) = bob.Standings(pb.StandingsRequest(), timeout=30).games
    assert {r.name for r in game.rows} == {"random", "strong"}
    rows = bob.ListMatches(pb.MatchesRequest(bot="greedy", limit=500), timeout=30).matches
    assert rows and all(r.note.startswith("disqualified: alice (shared code)") for r in rows)
    with pytest.raises(grpc.RpcError) as out_now:
        alice.Challenge(pb.ChallengeRequest(bot="greedy", rival="random"), timeout=30)
    assert "you are disqualified from this competition: shared code" in \
        out_now.value.details()
    start = pb.SubmitRequest(start=pb.SubmitStart(name="greedy2", kind="directory", size=10,
                                                  sha256="0" * 64))
    with pytest.raises(grpc.RpcError) as no_submission:
        list(alice.Submit(iter([start]), timeout=30))
    assert no_submission.value.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert "you are disqualified from this competition" in no_submission.value.details()
    time.sleep(3)
    with LadderStore(c.database) as store:
        later = [m for m in store.matches(ladder) if m.finished_at > dq_at + 1.5
                 and any(b.startswith("greedy") for b in m.bots)]
    assert len(later) <= 2, later  # at most the encounter in flight when it was withdrawn

    # --- counted and published -------------------------------------------------------------
    for action in ("void", "rerun", "disqualify"):
        assert _metric(server, "arena_moderation_total", f'action="{action}"') == 1, action
    assert _metric(server, "arena_matches_total", 'game="lost-cities",outcome="rerun"') == 1
    audit = _wait("the published audit log", lambda: (lambda data: data if len(
        data.get("audit", [])) == 3 else None)(json.loads(
            (c.site_dir / "audit.json").read_text()) if (c.site_dir / "audit.json").exists()
        else {}), server, timeout=30)
    assert [(e["seq"], e["action"], e["subject"], e["why"]) for e in audit["audit"]] == [
        (1, "void", target.match_id, "power cut"), (2, "rerun", target.match_id, ""),
        (3, "disqualify", "alice", "shared code")]
    assert "operator" not in audit["audit"][0]

    # --- kill -9 again: the disqualification holds, the log is counted again, once ----------
    versions_before = versions.read_text()
    server.kill9()
    restarted = time.time()
    server.start()
    bob = server.stub("bob")
    _wait("a ladder match after the restart", lambda: [
        m for m in bob.ListMatches(pb.MatchesRequest(limit=20), timeout=30).matches
        if calendar.timegm(time.strptime(m.finished_at, "%Y-%m-%dT%H:%M:%SZ")) > restarted],
        server)
    assert versions.read_text().startswith(versions_before)
    assert not any(json.loads(line).get("event") == "adopted" and "greedy" in line
                   for line in versions.read_text()[len(versions_before):].splitlines())
    with LadderStore(c.database) as store:
        assert not [m for m in store.matches(ladder) if m.finished_at > restarted
                    and any(b.startswith("greedy") for b in m.bots)]
    _wait("the standings without greedy after the restart", lambda: _fit_equals(
        server, lambda matches: moderation.standing(matches, reruns)), server, timeout=60)
    for action in ("void", "rerun", "disqualify"):
        assert _metric(server, "arena_moderation_total", f'action="{action}"') == 1, action


def test_a_contestant_disqualified_during_the_final_is_withdrawn_from_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server applies a disqualification to a final begun (``Final.withdraw``), and
    applies it once however often it reads the log again (a restart)."""
    # The final points ARENA_HOME at the competition's (empty) home, where the servers below
    # would find no verdict of the conformance gate and run it again, here (3-4 s of CPU):
    # the verdict kept in the arena's own home is read first (this process remembers it), and
    # ARENA_HOME comes back as it was after the test.
    if HOME_ENV in os.environ:
        monkeypatch.setenv(HOME_ENV, os.environ[HOME_ENV])
    else:
        monkeypatch.delenv(HOME_ENV, raising=False)
    require_gated("lost-cities")
    c = load_competition(moderated(tmp_path / "c").file)
    with LadderStore(c.database) as store:
        final = Final(c, "lost-cities", store, signing_of(None, c.state_dir))
        state = final.begin([str(d) for d in c.game("lost-cities").house_dirs])
        greedy = next(e.key for e in state.entrants if e.name == "greedy")
        Moderator(c).disqualify("alice", "shared code")
        for _ in range(2):  # a server, then the same server started again
            CompetitionServer(c)._apply_audit()
        assert final.withdrawn() == {greedy: "disqualified: shared code"}
