"""Signed match logs against a forger: real logs of all three games (sample bots in the process
sandbox, over the referee's real gRPC), signed with a referee key, then copied and tampered with
the way someone who serves or hosts the logs could: a flipped byte in any record, a removed or
reordered line, a log of another match under this match's name, lines after the signature, a
signature by a key nobody trusts (also over a tampered log), a key rotated out, a forged seed
reveal. Each is refused by `arena replay LOG --key PUB` (``verify_log``) with the step that
failed and a one-line reason, exit 1; a genuine log verifies; logs of format 3 written before
signing existed still replay and say "unsigned"."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.bots import load_bot_dir
from arena.cli.main import app
from arena.errors import LogFormatError, ReplayMismatchError, SignatureError
from arena.games import game_ids
from arena.model import MatchSpec, Termination, TimeControl, seed_commitment
from arena.record.log import seed_sidecar_path
from arena.record.replay import UNSIGNED, SeedCheck, replay_log, verify_log
from arena.record.signing import (
    Signer,
    TrustedKeys,
    check_log_signature,
    load_signer,
    load_trusted,
    new_key,
    sign_log,
)
from arena.referee.match import play_match
from tests.support.paths import ROOT, sample_bot

pytestmark = pytest.mark.unit

FORMAT3 = Path(__file__).resolve().parent / "data" / "format3"
OPTIONS: dict[str, dict[str, object]] = {
    "lost-cities": {"rounds": 1}, "haggis": {"target": 60}, "portas": {"games": 1}}
"""One short match of each game (every record kind still appears)."""
runner = CliRunner()
Record = dict[str, Any]


@dataclass(frozen=True)
class Keys:
    """The referee's current key, the key it used before (rotated out), and a stranger's."""

    current: Signer
    old: Signer
    stranger: Signer
    current_pub: Path
    old_pub: Path
    stranger_pub: Path


@dataclass(frozen=True)
class Played:
    """The finished logs of one match of each game, as the referee wrote them (unsigned)."""

    logs: dict[str, Path]


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Keys:
    root = tmp_path_factory.mktemp("keys")
    made = {name: new_key(root / name) for name in ("current", "old", "stranger")}
    signers = {name: load_signer(private) for name, (private, _) in made.items()}
    return Keys(signers["current"], signers["old"], signers["stranger"],
                made["current"][1], made["old"][1], made["stranger"][1])


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    """Each game played once by its sample bots in the process sandbox."""
    log_dir = tmp_path_factory.mktemp("played")
    sockets = Path(tempfile.mkdtemp(prefix="t", dir="/tmp"))
    logs: dict[str, Path] = {}
    try:
        for number, game in enumerate(game_ids()):
            bots = tuple(load_bot_dir(sample_bot(game, name))
                         for name in ("greedy", "random"))
            spec = MatchSpec(game, 7_000_000_000 + number, (bots[0], bots[1]),
                             dict(OPTIONS.get(game, {})), TimeControl(5000, 0, 30_000))
            result = asyncio.run(play_match(spec, sandbox="process", log_dir=log_dir,
                                            socket_root=sockets))
            assert result.termination is Termination.NORMAL, result.detail
            logs[game] = Path(result.log or "")
    finally:
        shutil.rmtree(sockets, ignore_errors=True)
    yield Played(logs)


def _signed(played: Played, game: str, signer: Signer, into: Path) -> Path:
    """A copy of ``game``'s log (under its own name) signed by ``signer``."""
    into.mkdir(parents=True, exist_ok=True)
    copy = into / played.logs[game].name
    shutil.copyfile(played.logs[game], copy)
    sign_log(copy, signer)
    return copy


def _trust(*public: Path) -> TrustedKeys:
    return load_trusted(list(public))


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def _index(lines: list[bytes], kind: str, nth: int = 0) -> int:
    found = [i for i, line in enumerate(lines) if json.loads(line)["type"] == kind]
    return found[nth]


def _rejected(path: Path, trusted: TrustedKeys, *words: str) -> str:
    """``verify_log`` refuses the log with a signature error naming ``words``."""
    with pytest.raises(SignatureError) as caught:
        verify_log(path, trusted)
    message = str(caught.value)
    assert "\n" not in message and all(w in message for w in words), message
    return message


def _flip_digit(line: bytes) -> bytes:
    """``line`` with its middle digit changed (still valid JSON: the change a forger would
    make: a card, a time, a score, a digest)."""
    positions = [i for i, byte in enumerate(line) if chr(byte).isdigit()]
    at = positions[len(positions) // 2]
    digit = line[at] - ord("0")
    return line[:at] + str((digit + 1) % 10).encode() + line[at + 1:]


def _records(path: Path) -> list[Record]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _write(path: Path, records: list[Record]) -> Path:
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records),
                    encoding="utf-8")
    return path


def _unsigned_records(path: Path) -> list[Record]:
    records = _records(path)
    assert records[-1]["type"] == "signature"
    return records[:-1]


# --- a genuine log -----------------------------------------------------------------------------
@pytest.mark.integration
@pytest.mark.parametrize("game", game_ids())
def test_a_signed_log_of_every_game_verifies(game: str, played: Played, keys: Keys,
                                             tmp_path: Path) -> None:
    log = _signed(played, game, keys.current, tmp_path)
    checked = verify_log(log, _trust(keys.current_pub))
    assert checked.signature is not None and checked.signature.verified
    assert checked.signature.key_id == keys.current.key_id
    assert checked.report.seed is SeedCheck.MATCHES and checked.report.finished
    assert checked.report.log_format >= 4
    signature = json.loads(_lines(log)[-1])
    assert set(signature) == {"type", "algorithm", "key_id", "sha256", "signature"}
    assert signature["algorithm"] == "ed25519" and signature["key_id"] == keys.current.key_id
    out = runner.invoke(app, ["replay", str(log), "--key", str(keys.current_pub)])
    assert out.exit_code == 0, out.output
    text = " ".join(out.stdout.split())
    assert f"signature: verified (key {keys.current.key_id})" in text
    assert "seed: matches its commitment" in text and "rules: ✓" in text


@pytest.mark.integration
@pytest.mark.parametrize("game", game_ids())
def test_the_header_holds_no_seed_and_the_sidecar_is_gone(game: str, played: Played) -> None:
    """Hidden information: the header of a committed log never states the seed (a live log is
    what a bot's author might get to read); the seed's private sidecar went with the end."""
    log = played.logs[game]
    header_line = _lines(log)[0]
    header = json.loads(header_line)
    end = _records(log)[-1]
    seed = end["result"]["seed"]
    assert "seed" not in header and str(seed).encode() not in header_line
    assert header["seed_commitment"] == seed_commitment(seed, end["seed_salt"])
    assert len(end["seed_salt"]) == 32 and header["ladder"] is None
    assert not seed_sidecar_path(log).exists()


# --- a flipped byte, a removed line, reordered lines -------------------------------------------
@pytest.mark.integration
@pytest.mark.parametrize("game", game_ids())
@pytest.mark.parametrize("kind", ["header", "deal", "decision", "round_end", "match_end"])
def test_a_flipped_digit_in_any_record_is_refused(game: str, kind: str, played: Played,
                                                  keys: Keys, tmp_path: Path) -> None:
    log = _signed(played, game, keys.current, tmp_path)
    lines = _lines(log)
    at = _index(lines, kind)
    lines[at] = _flip_digit(lines[at])
    log.write_bytes(b"".join(lines))
    _rejected(log, _trust(keys.current_pub), "changed after it was signed")


@pytest.mark.integration
@pytest.mark.parametrize("game", game_ids())
def test_a_flipped_bit_anywhere_before_the_signature_is_refused(
        game: str, played: Played, keys: Keys, tmp_path: Path) -> None:
    """Not only edits that keep the log valid JSON: any one bit, at spread-out places."""
    log = _signed(played, game, keys.current, tmp_path)
    original = log.read_bytes()
    body = len(original) - len(_lines(log)[-1])
    trusted = _trust(keys.current_pub)
    for at in range(0, body, max(1, body // 23)):
        log.write_bytes(original[:at] + bytes([original[at] ^ 0x04]) + original[at + 1:])
        with pytest.raises(SignatureError):
            verify_log(log, trusted)


@pytest.mark.integration
@pytest.mark.parametrize("game", game_ids())
def test_a_removed_line_is_refused(game: str, played: Played, keys: Keys,
                                   tmp_path: Path) -> None:
    log = _signed(played, game, keys.current, tmp_path)
    lines = _lines(log)
    del lines[_index(lines, "decision", 2)]
    log.write_bytes(b"".join(lines))
    _rejected(log, _trust(keys.current_pub), "changed after it was signed")


@pytest.mark.integration
@pytest.mark.parametrize("game", game_ids())
def test_two_swapped_lines_are_refused(game: str, played: Played, keys: Keys,
                                       tmp_path: Path) -> None:
    log = _signed(played, game, keys.current, tmp_path)
    lines = _lines(log)
    a, b = _index(lines, "decision", 0), _index(lines, "decision", 1)
    lines[a], lines[b] = lines[b], lines[a]
    log.write_bytes(b"".join(lines))
    _rejected(log, _trust(keys.current_pub), "changed after it was signed")


@pytest.mark.integration
def test_the_signature_line_removed_leaves_an_unsigned_log_that_fails_with_a_key(
        played: Played, keys: Keys, tmp_path: Path) -> None:
    log = _signed(played, "haggis", keys.current, tmp_path)
    log.write_bytes(b"".join(_lines(log)[:-1]))
    assert _rejected(log, _trust(keys.current_pub)) == UNSIGNED
    assert verify_log(log, None).signature is None  # without a key: replays, unsigned


@pytest.mark.integration
def test_lines_after_the_signature_are_refused(played: Played, keys: Keys,
                                               tmp_path: Path) -> None:
    log = _signed(played, "portas", keys.current, tmp_path)
    lines = _lines(log)
    log.write_bytes(b"".join(lines) + lines[_index(lines, "decision", 0)])
    _rejected(log, _trust(keys.current_pub), "follow")
    twice = _signed(played, "lost-cities", keys.current, tmp_path / "twice")
    twice.write_bytes(twice.read_bytes() + _lines(twice)[-1])  # a second signature record
    _rejected(twice, _trust(keys.current_pub), "follow")


# --- another match's log, untrusted and rotated keys -------------------------------------------
@pytest.mark.integration
def test_a_log_of_another_match_under_this_matchs_name_is_refused(
        played: Played, keys: Keys, tmp_path: Path) -> None:
    """A genuine, signed log of another match, given the file name of this one (the name is
    what a manifest or a page points at)."""
    other = _signed(played, "lost-cities", keys.current, tmp_path / "other")
    this_name = played.logs["haggis"].name
    swapped = tmp_path / this_name
    shutil.copyfile(other, swapped)
    _rejected(swapped, _trust(keys.current_pub), "lost-cities", this_name.removesuffix(".jsonl"))
    out = runner.invoke(app, ["replay", str(swapped), "--key", str(keys.current_pub)])
    assert out.exit_code == 1 and " ".join(out.stderr.split()).startswith("error: signature:")


@pytest.mark.integration
def test_a_whole_log_set_aside_as_aborted_verifies_and_stays_its_match(
        played: Played, keys: Keys, tmp_path: Path) -> None:
    """A server killed after signing a log but before recording its match sets the whole log
    aside as ``<id>.aborted-<n>.jsonl`` when it plays the match again: it still verifies; the
    suffix on another match's name does not pass (seen in CI: tests/host/test_signing.py)."""
    log = _signed(played, "lost-cities", keys.current, tmp_path / "signed")
    aside = tmp_path / f"{log.name.removesuffix('.jsonl')}.aborted-1.jsonl"
    shutil.copyfile(log, aside)
    signature = check_log_signature(aside, _trust(keys.current_pub))
    assert signature is not None and signature.verified
    other = tmp_path / f"{played.logs['haggis'].name.removesuffix('.jsonl')}.aborted-1.jsonl"
    shutil.copyfile(log, other)
    _rejected(other, _trust(keys.current_pub), "lost-cities", other.name.removesuffix(".jsonl")
              .removesuffix(".aborted-1"))


@pytest.mark.integration
@pytest.mark.parametrize("game", game_ids())
def test_a_signature_by_an_untrusted_key_is_refused(game: str, played: Played, keys: Keys,
                                                    tmp_path: Path) -> None:
    log = _signed(played, game, keys.stranger, tmp_path)
    _rejected(log, _trust(keys.current_pub, keys.old_pub), keys.stranger.key_id, "not trusted")


@pytest.mark.integration
def test_a_tampered_log_re_signed_by_an_untrusted_key_is_refused(
        played: Played, keys: Keys, tmp_path: Path) -> None:
    """The forger changes the winner and signs the result with a key of their own."""
    log = _signed(played, "lost-cities", keys.current, tmp_path)
    records = _unsigned_records(log)
    result = records[-1]["result"]
    result["winner"] = 1 - result["winner"]
    sign_log(_write(log, records), keys.stranger)
    _rejected(log, _trust(keys.current_pub), keys.stranger.key_id, "not trusted")
    # ... and a lone public key of their own passed as --key verifies only the signature:
    # the result they wrote still fails the rules.
    with pytest.raises(ReplayMismatchError, match="^rules: "):
        verify_log(log, _trust(keys.stranger_pub))


@pytest.mark.integration
def test_a_rotated_out_key_passes_while_it_is_trusted_and_fails_after(
        played: Played, keys: Keys, tmp_path: Path) -> None:
    log = _signed(played, "portas", keys.old, tmp_path)
    checked = verify_log(log, _trust(keys.current_pub, keys.old_pub))
    assert checked.signature is not None and checked.signature.key_id == keys.old.key_id
    both = tmp_path / "trusted"
    both.mkdir()
    shutil.copyfile(keys.current_pub, both / "current.pub")
    shutil.copyfile(keys.old_pub, both / "old.pub")
    out = runner.invoke(app, ["replay", str(log), "--key", str(both)])  # a directory of keys
    assert out.exit_code == 0, out.output
    assert f"verified (key {keys.old.key_id})" in " ".join(out.stdout.split())
    _rejected(log, _trust(keys.current_pub), keys.old.key_id, "not trusted")
    out = runner.invoke(app, ["replay", str(log), "--key", str(keys.current_pub)])
    assert out.exit_code == 1 and "not trusted" in " ".join(out.stderr.split())


# --- a forged seed reveal ----------------------------------------------------------------------
@pytest.mark.integration
@pytest.mark.parametrize("game", game_ids())
def test_a_reveal_of_another_seed_fails_the_commitment(game: str, played: Played, keys: Keys,
                                                       tmp_path: Path) -> None:
    """The referee's own key signs a log whose match end reveals another seed and salt (deals
    chosen after the fact): the signature holds, the commitment does not."""
    log = _signed(played, game, keys.current, tmp_path)
    records = _unsigned_records(log)
    end = records[-1]
    end["result"]["seed"] += 1
    end["seed_salt"] = "0" * 32
    sign_log(_write(log, records), keys.current)
    signature = check_log_signature(log, _trust(keys.current_pub))
    assert signature is not None and signature.verified
    with pytest.raises(ReplayMismatchError) as caught:
        verify_log(log, _trust(keys.current_pub))
    assert str(caught.value).startswith(
        "seed: the revealed seed does not match the header's commitment")
    out = runner.invoke(app, ["replay", str(log), "--key", str(keys.current_pub)])
    assert out.exit_code == 1 and out.stderr.startswith("error: seed: the revealed seed does not")
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr


@pytest.mark.integration
@pytest.mark.parametrize("game", game_ids())
def test_a_consistent_new_seed_and_commitment_fail_the_deals(
        game: str, played: Played, keys: Keys, tmp_path: Path) -> None:
    """A new seed with a commitment to match, all signed: the logged deals are not that seed's."""
    log = _signed(played, game, keys.current, tmp_path)
    records = _unsigned_records(log)
    seed, salt = records[-1]["result"]["seed"] + 1, "ab" * 16
    records[0]["seed_commitment"] = seed_commitment(seed, salt)
    records[-1]["result"]["seed"] = seed
    records[-1]["seed_salt"] = salt
    sign_log(_write(log, records), keys.current)
    with pytest.raises(ReplayMismatchError) as caught:
        verify_log(log, _trust(keys.current_pub))
    assert str(caught.value).startswith("rules: event 2: the deal of round 0 differs")


# --- old logs, and what cannot be checked ------------------------------------------------------
@pytest.mark.parametrize("log", sorted(FORMAT3.glob("*.jsonl")), ids=lambda p: p.name[:6])
def test_an_unsigned_log_of_format_3_replays_and_says_unsigned(log: Path, keys: Keys) -> None:
    checked = verify_log(log, None)
    assert checked.signature is None and checked.report.log_format == 3
    assert checked.report.seed is SeedCheck.NOT_COMMITTED and checked.report.finished
    out = runner.invoke(app, ["replay", str(log)])
    assert out.exit_code == 0, out.output
    text = " ".join(out.stdout.split())
    assert "signature: unsigned" in text and "seed: not committed (log format < 4)" in text
    out = runner.invoke(app, ["replay", str(log), "--key", str(keys.current_pub)])
    assert out.exit_code == 1
    assert " ".join(out.stderr.split()) == f"error: {UNSIGNED}"


def test_a_format_3_result_with_another_seed_than_its_header_is_refused(tmp_path: Path) -> None:
    """Before format 4 the header states the seed; a result naming another one was not
    compared with it (a published result could name any seed)."""
    log = sorted(FORMAT3.glob("*.jsonl"))[0]
    records = _records(log)
    records[-1]["result"]["seed"] += 1
    with pytest.raises(ReplayMismatchError, match="the result's seed .* is not the header's"):
        replay_log(_write(tmp_path / log.name, records))


@pytest.mark.integration
def test_a_running_committed_log_replays_only_with_its_seed(played: Played,
                                                            tmp_path: Path) -> None:
    """Without its match end a format-4 log does not say its seed: the operator's sidecar
    does while the match runs; without it the log cannot be checked, and says so."""
    lines = _lines(played.logs["lost-cities"])
    running = tmp_path / played.logs["lost-cities"].name
    running.write_bytes(b"".join(lines[:_index(lines, "decision", 5)]))
    with pytest.raises(LogFormatError, match="the seed of a running committed log is unknown"):
        replay_log(running)
    out = runner.invoke(app, ["replay", str(running)])
    assert out.exit_code == 2 and "seed of a running committed log" in " ".join(
        out.stderr.split())
    seed = _records(played.logs["lost-cities"])[-1]["result"]["seed"]
    seed_sidecar_path(running).write_text(json.dumps({"seed": seed}))
    report = replay_log(running)
    assert report.seed is SeedCheck.UNREVEALED and not report.finished


@pytest.mark.integration
def test_cli_refuses_a_key_that_is_not_one_and_a_missing_log(played: Played, keys: Keys,
                                                             tmp_path: Path) -> None:
    log = _signed(played, "haggis", keys.current, tmp_path)
    private = keys.current.path
    assert private is not None
    for bad in (tmp_path / "nope.pub", private, log):
        out = runner.invoke(app, ["replay", str(log), "--key", str(bad)])
        flat = " ".join(out.stderr.split())
        assert out.exit_code == 2 and flat.startswith("error:") and flat.count("error:") == 1
    out = runner.invoke(app, ["replay", str(tmp_path / "gone.jsonl"), "--key",
                              str(keys.current_pub)])
    assert out.exit_code == 2



# --- the JSON Schema ---------------------------------------------------------------------------
@pytest.mark.integration
def test_signed_logs_and_format_3_logs_validate_against_the_schema(
        played: Played, keys: Keys, tmp_path: Path) -> None:
    """docs/schema/match-log.schema.json describes format 4 (a committed header, its ladder
    slot, the salt's reveal, the signature record) and still accepts the logs of format 3."""
    from jsonschema import Draft202012Validator

    schema = json.loads((ROOT / "docs" / "schema" / "match-log.schema.json").read_text())
    validator = Draft202012Validator(schema)
    logs = [_signed(played, game, keys.current, tmp_path) for game in game_ids()]
    for log in [*logs, *sorted(FORMAT3.glob("*.jsonl"))]:
        for number, record in enumerate(_records(log), start=1):
            errors = sorted(validator.iter_errors(record), key=str)
            assert not errors, f"{log.name}:{number}: {errors[0].message[:300]}"
    header, *_, end, signature = _records(logs[0])
    for broken in ({**header, "seed": 1}, {k: v for k, v in header.items() if k != "ladder"},
                   {**header, "ladder": {"name": "x"}}, {**end, "seed_salt": "xyz"},
                   {**signature, "key_id": "0" * 15}, {**signature, "algorithm": "rsa"},
                   {**signature, "extra": 1}):
        assert list(validator.iter_errors(broken)), broken
    old = _records(sorted(FORMAT3.glob("*.jsonl"))[0])[0]
    assert list(validator.iter_errors({**old, "seed_commitment": "0" * 64}))


# --- docs/log-format.md: the checks it shows work ----------------------------------------------
def _doc_block(language: str, after: str) -> str:
    page = (ROOT / "docs" / "log-format.md").read_text(encoding="utf-8")
    start = page.index(f"```{language}\n", page.index(after)) + len(language) + 4
    return page[start:page.index("```", start)]


@pytest.mark.integration
def test_the_documented_python_check_verifies_a_signed_log_and_catches_a_change(
        played: Played, keys: Keys, tmp_path: Path) -> None:
    script = tmp_path / "check.py"
    script.write_text(_doc_block("python", "any Ed25519 library"), encoding="utf-8")
    log = _signed(played, "lost-cities", keys.current, tmp_path)
    ok = subprocess.run([sys.executable, str(script), str(log), str(keys.current_pub)],
                        capture_output=True, text=True, timeout=120, check=False)
    assert ok.returncode == 0, ok.stderr
    assert f"signed by key {keys.current.key_id}; seed" in ok.stdout
    lines = _lines(log)
    lines[1] = _flip_digit(lines[1])
    log.write_bytes(b"".join(lines))
    changed = subprocess.run([sys.executable, str(script), str(log), str(keys.current_pub)],
                             capture_output=True, text=True, timeout=120, check=False)
    assert changed.returncode != 0 and "the log changed" in changed.stderr


@pytest.mark.integration
def test_the_documented_openssl_lines_verify_a_signed_log(played: Played, keys: Keys,
                                                          tmp_path: Path) -> None:
    if shutil.which("openssl") is None:
        pytest.skip("no openssl command here (the Python check above is the one always run)")
    log = _signed(played, "haggis", keys.current, tmp_path)
    lines = _doc_block("sh", "Or with OpenSSL 3").replace("LOG", str(log)).replace(
        "referee.pub", str(keys.current_pub))
    out = subprocess.run(["bash", "-eo", "pipefail", "-c", lines], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    assert "Signature Verified Successfully" in out.stdout
    assert keys.current.key_id in out.stdout
