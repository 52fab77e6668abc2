"""The competition server signs its ladders' match logs: with the key its file names, else one it
makes in its state directory at the first start; server.json names the key id and the public
key, the public page offers referee.pub; killed mid-match (kill -9), the cut log stays unsigned
and the replayed match's log is signed. A bad key: one line, exit 2, nothing started.

Attack: a published ladder log swapped for another replayable one (another deal, another
ladder's match): signed with the ladder slot in its header, the swap no longer verifies. Real
server processes on 127.0.0.1 with TLS, real SQLite."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.host.config import load_competition
from arena.ladder.store import LadderStore
from arena.model import LadderSlot, MatchEndEvent
from arena.record.log import read_events
from arena.record.signing import (
    check_log_signature,
    load_trusted,
    new_key,
    parse_log_signature,
)
from tests.support.competition import RunningServer, make_server, rested, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
LADDER = "t-lost-cities"


def _with(server: RunningServer, **replace: str) -> None:
    text = server.file.read_text()
    for old, new in replace.items():
        assert old in text
        text = text.replace(old, new)
    server.file.write_text(text)


_wait = functools.partial(wait_for, timeout=600, every=0.3)


def _recorded(server: RunningServer) -> dict[str, Any]:
    with LadderStore(load_competition(server.file).database) as db:
        return {m.match_id: m for m in db.matches(LADDER)}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """A competition whose house plays itself (random and greedy): ladder matches at once (in
    the process sandbox: what is signed does not depend on where the bots ran), resting
    between legs (the tests need a few, not a ladder flat out)."""
    running = rested(make_server(tmp_path_factory.mktemp("signing"), sandbox="process"))
    _with(running, **{'house = ["random"]': 'house = ["random", "greedy"]'})
    running.start()
    yield running
    running.end()


def _logs(server: RunningServer) -> Path:
    return server.state_dir / "logs" / "lost-cities"


def test_a_configured_key_is_used_and_a_bad_one_refused(tmp_path: Path) -> None:
    running = make_server(tmp_path / "keyed", sandbox="process")
    _, public = new_key(tmp_path / "keyed" / "operator")
    _with(running, **{'sandbox = "process"\n':
                      'sandbox = "process"\nsigning_key = "operator/referee.key"\n'})
    running.start()
    try:
        info = json.loads((running.state_dir / "server.json").read_text())
        assert info["key_id"] == load_trusted([public]).key_ids[0]
        assert info["public_key"] == str(public)
        assert not (running.state_dir / "keys").exists()
    finally:
        running.end()
    os.chmod(tmp_path / "keyed" / "operator" / "referee.key", 0o644)
    run = subprocess.run([sys.executable, "-m", "arena", "host", str(running.file)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "COLUMNS": "400"})
    lines = [line for line in (run.stdout + run.stderr).splitlines() if line.strip()]
    assert run.returncode == 2 and len(lines) == 1 and "readable by others" in lines[0], lines


def test_the_competitions_key_goes_into_every_ladder_file_and_only_there(
        tmp_path: Path) -> None:
    from arena.errors import ConfigError
    from arena.host.config import ladder_data

    running = make_server(tmp_path / "c", sandbox="process")
    c = load_competition(running.file)
    assert c.signing_key is None and c.referee_key == c.state_dir / "keys" / "referee.key"
    assert ladder_data(c, "lost-cities")["signing_key"] == str(c.referee_key)
    _with(running, **{'sandbox = "process"\n': 'sandbox = "process"\nsigning_key = "k/r.key"\n'})
    c = load_competition(running.file)
    assert c.referee_key == tmp_path / "c" / "k" / "r.key"
    assert ladder_data(c, "lost-cities")["signing_key"] == str(c.referee_key)
    _with(running, **{"[games.lost-cities.ladder]\n":
                      '[games.lost-cities.ladder]\nsigning_key = "mine.key"\n'})
    with pytest.raises(ConfigError, match="games.lost-cities.ladder.signing_key.*is set by the "
                                          "competition"):
        load_competition(running.file)


def test_the_servers_ladder_logs_are_signed_by_its_own_key(server: RunningServer) -> None:
    private = server.state_dir / "keys" / "referee.key"
    public = server.state_dir / "keys" / "referee.pub"
    assert private.stat().st_mode & 0o777 == 0o600
    trusted = load_trusted([public])
    info = json.loads((server.state_dir / "server.json").read_text())
    assert info["key_id"] == trusted.key_ids[0] and info["public_key"] == str(public)
    ladder = load_competition(server.file).ladders / "lost-cities.toml"
    assert f'signing_key = "{private}"' in ladder.read_text()

    recorded = _wait("two recorded ladder matches", lambda: len(_recorded(server)) >= 2 and
                     _recorded(server))
    for match in recorded.values():
        path = Path(match.log_path)
        signature = check_log_signature(path, trusted)
        assert signature is not None and signature.verified, path.name
        header = next(iter(read_events(path)))
        assert header.slot == LadderSlot(LADDER, match.encounter_id, match.cycle, match.leg)
    site_key = load_competition(server.file).site_dir / "referee.pub"
    _wait("referee.pub on the public page", site_key.is_file, timeout=60)
    assert site_key.read_bytes() == public.read_bytes()


def test_kill_9_mid_match_the_cut_log_stays_unsigned_the_replayed_one_is_signed(
        server: RunningServer) -> None:
    def cut() -> list[Path]:
        done = _recorded(server)
        return [p for p in _logs(server).glob("*.jsonl") if ".aborted-" not in p.name
                and p.name.removesuffix(".jsonl") not in done and p.stat().st_size > 2000]

    in_flight = _wait("a ladder match under way", cut)
    server.kill9()
    trusted = load_trusted([server.state_dir / "keys" / "referee.pub"])
    cut_ids = {p.name.removesuffix(".jsonl") for p in in_flight}
    for path in in_flight:
        if path.name.removesuffix(".jsonl") not in _recorded(server):
            _signed_only_if_whole(path, trusted)
    server.start()
    replayed = _wait("the cut matches replayed and recorded",
                     lambda: cut_ids <= set(_recorded(server)) and _recorded(server))
    for match_id in cut_ids:
        signature = check_log_signature(Path(replayed[match_id].log_path), trusted)
        assert signature is not None and signature.verified
    for aborted in _logs(server).glob("*.aborted-*.jsonl"):
        _signed_only_if_whole(aborted, trusted)


def _signed_only_if_whole(path: Path, trusted: Any) -> None:
    """A log cut by the kill is never signed. (A match can end, its log signed, between the
    test seeing it under way and the kill, before the store records it: that log is whole,
    and its signature must verify; the restart replays the match and sets it aside.)"""
    if parse_log_signature(path.read_bytes()) is None:
        return
    signature = check_log_signature(path, trusted)
    assert signature is not None and signature.verified, path.name
    assert isinstance(list(read_events(path))[-1], MatchEndEvent), path.name
