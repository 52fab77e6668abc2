"""What a contestant downloads is signed, offline-checkable, and tells nothing hidden: real logs
of every game (played in-process, signed with a referee key) rendered as the server sends them
(``views.download``: the whole log, or one seat's view, ending with the referee's statement),
then checked as `arena verify FILE --key PUB` checks them (``views.verify_download``).

Attacks: any byte of a downloaded file changed (every byte of its statement line, header and
match end, a sample of the rest), the statement's claims edited, a statement by a key nobody
trusts, a file with its statement cut off. Hidden information: a seat's statement holds neither
the seed, its salt, the result's detail nor the other seat's view's digest (a view has too
little entropy to hide behind a hash). No statement vouches for a log the key did not sign.
The public page's signed log beside a replay verifies too, and goes when the replay goes."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from arena.errors import ReplayMismatchError, SignatureError
from arena.games import game_ids
from arena.host.site import remove_unlinked_logs, signed_replay
from arena.host.views import Sight, download, seat_view_lines, shared_log, verify_download
from arena.model import BotSpec, MatchSpec, TimeControl
from arena.record.log import read_events
from arena.record.signing import (
    Signer,
    TrustedKeys,
    load_signer,
    load_trusted,
    new_key,
    sign_log,
    sign_statement,
)
from arena.referee.local import LocalPlayer
from arena.referee.match import Match

pytestmark = pytest.mark.integration

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "docs" / "schema" /
                     "match-log.schema.json").read_text(encoding="utf-8"))
FULL = Sight(frozenset((0, 1)), True)
OPTIONS: dict[str, dict[str, object]] = {
    "lost-cities": {"rounds": 1}, "haggis": {"target": 60}, "portas": {"games": 1}}
NOT_VERIFIED = (SignatureError, ReplayMismatchError)


@dataclass(frozen=True)
class Keys:
    referee: Signer
    referee_pub: Path
    stranger: Signer
    stranger_pub: Path


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Keys:
    root = tmp_path_factory.mktemp("keys")
    (referee, referee_pub), (stranger, stranger_pub) = (new_key(root / "referee"),
                                                        new_key(root / "stranger"))
    return Keys(load_signer(referee), referee_pub, load_signer(stranger), stranger_pub)


def _random_policy(rng: random.Random) -> Callable[[Any], Any]:
    return lambda decision: rng.choice(decision.legal_actions)


def _played(game: str, root: Path, seed: int, seat1: Callable[[Any], Any] | None = None
            ) -> Path:
    """A finished log of ``game`` (random policies; seat 1's ``seat1`` if given)."""
    bots = (BotSpec("alpha", game, version="3", digest="dir:sha256:aa"),
            BotSpec("beta", game, version="1", digest="dir:sha256:bb"))
    match_id = f"stmt-{game}-{seed % 1000}"
    spec = MatchSpec(game, seed, bots, dict(OPTIONS.get(game, {})), TimeControl(),
                     match_id=match_id)
    rngs = (random.Random(seed), random.Random(seed + 1))
    policies = [_random_policy(rngs[0]), _random_policy(rngs[1])]
    if seat1 is not None:
        policies[1] = seat1
    players = (LocalPlayer(0, policies[0]), LocalPlayer(1, policies[1]))
    asyncio.run(Match(spec, sandbox_name="in-process", log_dir=root).run(players))
    return root / f"{match_id}.jsonl"


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory, keys: Keys) -> dict[str, Path]:
    """One signed log of each game, as the server keeps them."""
    root = tmp_path_factory.mktemp("logs")
    logs = {game: _played(game, root, 4_000_000_000 + n) for n, game in enumerate(game_ids())}
    for path in logs.values():
        sign_log(path, keys.referee)
    return logs


def _download(log: Path, seen: Sight, own: frozenset[int], signer: Signer, out: Path) -> Path:
    data, kind = download(log, seen, own, signer)
    name = log.name if kind == "log" else log.name.replace(".jsonl", ".seat-view.jsonl")
    out.mkdir(parents=True, exist_ok=True)
    (out / name).write_bytes(data)
    return out / name


def _statement(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The last line's record and its statement text, parsed."""
    record = json.loads(path.read_bytes().splitlines()[-1])
    return record, json.loads(record["statement"])


def _refused(path: Path, trusted: TrustedKeys) -> str:
    with pytest.raises(NOT_VERIFIED) as caught:
        verify_download(path, trusted)
    message = str(caught.value)
    assert message and "\n" not in message
    return message


# --- what verifies -------------------------------------------------------------------------------
@pytest.mark.parametrize("game", game_ids())
def test_every_games_log_and_seat_views_verify_offline(game: str, signed: dict[str, Path],
                                                       keys: Keys, tmp_path: Path) -> None:
    trusted = load_trusted([keys.referee_pub])
    log = signed[game]
    whole = _download(log, FULL, frozenset(), keys.referee, tmp_path / "whole")
    checked = verify_download(whole, trusted)
    assert (checked.kind, checked.seat, checked.key_id) == ("log", None, keys.referee.key_id)
    assert checked.seed is not None and checked.seed.name == "MATCHES"  # replayed
    events = list(read_events(whole))  # the readers skip the statement
    assert events[:-1] == list(read_events(log))[:-1]
    records = [Draft202012Validator(SCHEMA).iter_errors(json.loads(line))
               for line in whole.read_bytes().splitlines()]
    assert not any(list(errors) for errors in records), "a downloaded log validates"
    for seat in (0, 1):
        view = _download(log, Sight(frozenset({seat}), False), frozenset({seat}), keys.referee,
                         tmp_path / f"seat{seat}")
        checked = verify_download(view, trusted)
        assert (checked.kind, checked.seat) == ("seat-view", seat)
        assert checked.bots == ("alpha", "beta") and checked.seed is None
        record, text = _statement(view)
        assert not list(Draft202012Validator(SCHEMA).iter_errors(record))
        text_schema = {"$defs": SCHEMA["$defs"], "$ref": "#/$defs/statement_text"}
        assert not list(Draft202012Validator(text_schema).iter_errors(text))
        assert text["sha256"] == hashlib.sha256(
            b"".join(seat_view_lines(read_events(log), seat))).hexdigest()


@pytest.mark.unit
def test_the_faulty_seats_owner_gets_the_detail_in_a_copy_that_verifies_too(
        keys: Keys, tmp_path: Path) -> None:
    """The detail (a bot's last output) is its owner's: their copy of the log keeps it, every
    other copy has it empty; each copy has its own statement, and neither holds the detail."""
    log = _played("lost-cities", tmp_path / "logs", 77, seat1=lambda d: "no such move")
    sign_log(log, keys.referee)
    detail = json.loads(log.read_bytes().splitlines()[-2])["result"]["detail"]
    assert detail
    trusted = load_trusted([keys.referee_pub])
    owners = _download(log, FULL, frozenset({1}), keys.referee, tmp_path / "owner")
    others = _download(log, FULL, frozenset({0}), keys.referee, tmp_path / "other")
    for copy, kept in ((owners, True), (others, False)):
        verify_download(copy, trusted)
        end = json.loads(copy.read_bytes().splitlines()[-2])
        assert (end["result"]["detail"] == detail) is kept and end["result"]["log"] is None
        assert end["bot_logs"] == [None, None]
        assert "detail" not in _statement(copy)[1]["result"]
        assert detail not in _statement(copy)[0]["statement"]
    assert _statement(owners)[1]["sha256"] != _statement(others)[1]["sha256"]


# --- what does not verify -------------------------------------------------------------------------
@pytest.mark.parametrize("seen", ["log", "seat-view"])
def test_any_changed_byte_fails(seen: str, signed: dict[str, Path], keys: Keys,
                                tmp_path: Path) -> None:
    """Every byte of the statement line, the header and the match end, and every 499th byte of
    the rest, changed in turn (twice: another bit, another digit): none verifies."""
    sight_of = FULL if seen == "log" else Sight(frozenset({0}), False)
    genuine = _download(signed["portas"], sight_of, frozenset({0}), keys.referee,
                        tmp_path / "genuine").read_bytes()
    trusted = load_trusted([keys.referee_pub])
    lines = genuine.splitlines(keepends=True)
    first, end_at = len(lines[0]), len(genuine) - len(lines[-1]) - len(lines[-2])
    positions = sorted({*range(first), *range(end_at, len(genuine)),
                        *range(first, end_at, 499)})
    copy = tmp_path / "copy" / "file.jsonl"
    copy.parent.mkdir()
    reasons: set[str] = set()
    for at in positions:
        for changed in (genuine[at] ^ 0x01, ord("7") if genuine[at] != ord("7") else ord("8")):
            copy.write_bytes(genuine[:at] + bytes([changed]) + genuine[at + 1:])
            reasons.add(_refused(copy, trusted).split(":")[0])
    assert len(positions) > 1500
    assert len(reasons) >= 3, reasons  # the statement line, its signature, the bytes before it
    copy.write_bytes(genuine)
    verify_download(copy, trusted)


@pytest.mark.unit
def test_an_edited_claim_a_stranger_or_a_missing_statement_fails(
        signed: dict[str, Path], keys: Keys, tmp_path: Path) -> None:
    view = _download(signed["haggis"], Sight(frozenset({1}), False), frozenset({1}),
                     keys.referee, tmp_path / "view")
    trusted = load_trusted([keys.referee_pub])
    body = view.read_bytes().rsplit(b"\n", 2)[0] + b"\n"
    _, text = _statement(view)
    text["result"]["winner"] = 1 - (text["result"]["winner"] or 0)
    forged = tmp_path / "forged.jsonl"
    record = json.loads(view.read_bytes().splitlines()[-1])
    record["statement"] = json.dumps(text, separators=(",", ":"))
    forged.write_bytes(body + (json.dumps(record, separators=(",", ":")) + "\n").encode())
    assert "signature is not key" in _refused(forged, trusted)
    resigned = tmp_path / "resigned.jsonl"  # a consistent statement, by the wrong key
    resigned.write_bytes(body + sign_statement(keys.stranger, text))
    assert "not trusted" in _refused(resigned, trusted)
    assert "not trusted" in _refused(view, load_trusted([keys.stranger_pub]))
    bare = tmp_path / "bare.jsonl"
    bare.write_bytes(body)
    assert "no signed statement" in _refused(bare, trusted)


@pytest.mark.unit
def test_no_statement_vouches_for_a_log_the_key_did_not_sign(keys: Keys,
                                                             tmp_path: Path) -> None:
    trusted = load_trusted([keys.referee_pub])
    unsigned = _played("portas", tmp_path / "unsigned", 5)
    by_stranger = _played("portas", tmp_path / "stranger", 6)
    sign_log(by_stranger, keys.stranger)
    changed = _played("portas", tmp_path / "changed", 7)
    sign_log(changed, keys.referee)
    data = changed.read_bytes()
    changed.write_bytes(data.replace(b'"type":"decision","n":1,', b'"type":"decision","n":1, ',
                                     1))
    for log in (unsigned, by_stranger, changed):
        for seen in (FULL, Sight(frozenset({0}), False)):
            data_sent, _ = download(log, seen, frozenset({0}), keys.referee)
            assert b'"type":"statement"' not in data_sent, log
        out = _download(log, FULL, frozenset(), keys.referee, tmp_path / "out" / log.parent.name)
        assert "no signed statement" in _refused(out, trusted)


# --- hidden information --------------------------------------------------------------------------
@pytest.mark.parametrize("game", game_ids())
def test_a_seats_statement_tells_nothing_the_seat_may_not_see(game: str, signed: dict[str, Path],
                                                              keys: Keys, tmp_path: Path) -> None:
    log = signed[game]
    end = json.loads(log.read_bytes().splitlines()[-2])
    seed, salt = end["result"]["seed"], end["seed_salt"]
    views = {s: b"".join(seat_view_lines(read_events(log), s)) for s in (0, 1)}
    whole = shared_log(log.read_bytes(), frozenset())
    for seat in (0, 1):
        file = _download(log, Sight(frozenset({seat}), False), frozenset({seat}), keys.referee,
                         tmp_path / str(seat)).read_bytes()
        record, text = _statement(tmp_path / str(seat) / log.name.replace(
            ".jsonl", ".seat-view.jsonl"))
        assert set(text) == {"kind", "version", "document", "seat", "sha256", "match_id",
                             "game", "game_version", "options", "ladder", "bots",
                             "seed_commitment", "result", "log"}
        assert text["seat"] == seat and text["sha256"] == hashlib.sha256(views[seat]).hexdigest()
        assert set(text["result"]) == {"winner", "totals", "rounds", "termination",
                                       "faulty_seat", "void", "decisions"}
        other = 1 - seat
        for secret in (str(seed), salt, hashlib.sha256(views[other]).hexdigest(),
                       hashlib.sha256(whole).hexdigest()):
            assert secret.encode() not in file, secret
        assert text["log"]["sha256"] == json.loads(log.read_bytes().splitlines()[-1])["sha256"]


# --- the public page -----------------------------------------------------------------------------
def test_the_public_page_offers_the_signed_log_beside_the_replay(signed: dict[str, Path],
                                                                 keys: Keys,
                                                                 tmp_path: Path) -> None:
    replays = tmp_path / "site" / "replays"
    replays.mkdir(parents=True)
    log = signed["lost-cities"]
    page = signed_replay(replays, keys.referee)(log, False)
    name = log.name
    assert f'<a href="{name}" download>signed log</a>' in page
    assert f"arena verify {name} --key referee.pub" in page
    checked = verify_download(replays / name, load_trusted([keys.referee_pub]))
    assert checked.kind == "log"
    assert json.loads((replays / name).read_bytes().splitlines()[-2])["result"]["detail"] == ""
    unsigned = _played("lost-cities", tmp_path / "unsigned", 9)
    assert "signed log" not in signed_replay(replays, keys.referee)(unsigned, False)
    assert not (replays / unsigned.name).exists()
    (replays / name.replace(".jsonl", ".html")).write_text(page)
    stray = replays / "gone.jsonl"
    shutil.copyfile(replays / name, stray)
    assert remove_unlinked_logs(replays) == 1  # its replay page is gone: so is its log
    assert (replays / name).exists() and not stray.exists()
