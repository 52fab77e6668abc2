"""`arena ladder publish` and `arena verify` on real ladders: the Lost Cities sample bots played
in the process sandbox (one cycle, one round a match), their logs signed by the ladder, then
published and attacked: whoever serves the directory (no key) and a publisher whose manifest
lies about what its own signed logs say are both caught.

Each attack is a copy of a good publication changed the way the attack would change it; where
the attack needs the manifest re-signed, it is signed with the key the verifier trusts (a
publisher's key cannot vouch for a manifest that its logs contradict) or with another
ladder's."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from arena.errors import ConfigError
from arena.ladder.config import LadderConfig, load_ladder
from arena.ladder.reports import load_matches, load_standings
from arena.ladder.runner import default_play, ladder_signing, run_ladder_blocking
from arena.record.signing import (
    Signer,
    TrustedKeys,
    check_log_signature,
    load_trusted,
    new_key,
    sign_bytes,
    sign_log,
)
from arena.site.publish import (
    DOMAIN,
    LOGS,
    MANIFEST,
    SIGNATURE,
    manifest_bytes,
    publish,
    verify_publication,
)

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots" / "lost-cities"


@dataclass(frozen=True)
class Ladder:
    """A real ladder that was played, and its publication."""

    config: LadderConfig
    signer: Signer
    published: Path

    @property
    def trusted(self) -> TrustedKeys:
        """What a verifier trusts: this ladder's public key."""
        return TrustedKeys([self.signer.public])


def _play(root: Path, name: str, bots: tuple[str, ...], seed: int) -> Ladder:
    root.mkdir()
    path = root / f"{name}.toml"
    entrants = ", ".join(f'"{SAMPLES / bot}"' for bot in bots)
    path.write_text(f'name = "{name}"\ngame = "lost-cities"\nentrants = [{entrants}]\n'
                    f'concurrency = 2\nseed = {seed}\nsandbox = "process"\n'
                    "[options]\nrounds = 1\n[schedule]\ncycles = 1\n")
    config = load_ladder(path)
    # on the real referee in this process: what is published is what the runner recorded and
    # signed; the embedded cluster (tests/cluster) would cost more than these matches
    summary = run_ladder_blocking(config, play=default_play())
    assert summary.remaining == 0 and summary.played == len(bots) * (len(bots) - 1)
    published = root / "published"
    publish(config, published)
    return Ladder(config, ladder_signing(config).signer, published)


@pytest.fixture(scope="module")
def ladders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Ladder, Ladder]:
    """The ladder under test (3 bots: 6 matches) and another one (2 bots: 2 matches), each with
    its own key made in its state directory."""
    root = tmp_path_factory.mktemp("publish")
    return (_play(root / "main", "main", ("random", "greedy", "strong"), 5),
            _play(root / "other", "other", ("random", "greedy"), 9))


@pytest.fixture
def ladder(ladders: tuple[Ladder, Ladder]) -> Ladder:
    return ladders[0]


@pytest.fixture
def other(ladders: tuple[Ladder, Ladder]) -> Ladder:
    return ladders[1]


@pytest.fixture
def copy(ladder: Ladder, tmp_path: Path) -> Path:
    """A copy of the publication, to attack."""
    target = tmp_path / "copy"
    shutil.copytree(ladder.published, target)
    return target


def _manifest(directory: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    return data


def _resign(directory: Path, manifest: dict[str, Any], signer: Signer) -> None:
    """Write ``manifest`` and sign it with ``signer`` (as a publisher holding it would)."""
    manifest["key_id"] = signer.key_id
    data = manifest_bytes(manifest)
    (directory / MANIFEST).write_bytes(data)
    (directory / SIGNATURE).write_text(json.dumps({
        "algorithm": "ed25519", "domain": DOMAIN, "key_id": signer.key_id,
        "signature": base64.b64encode(sign_bytes(signer, DOMAIN, data)).decode()}))


def _differences(directory: Path, trusted: TrustedKeys) -> list[str]:
    report = verify_publication(directory, trusted)
    assert not report.ok
    return list(report.differences)


def _any(lines: list[str], *words: str) -> bool:
    return any(all(word in line for word in words) for line in lines)


# --- what a publication is -----------------------------------------------------------------
def test_publish_then_verify(ladder: Ladder) -> None:
    report = verify_publication(ladder.published, ladder.trusted)
    assert report.ok, report.differences
    assert (report.ladder, report.key_id, report.matches, report.logs) == (
        "main", ladder.signer.key_id, 6, 6)
    manifest = _manifest(ladder.published)
    stored = load_matches(ladder.config)
    assert [row["match_id"] for row in manifest["matches"]] == [m.match_id for m in stored]
    # the standings exactly as `arena standings --format json` gives them
    assert manifest["standings"] == load_standings(ladder.config).to_json()
    assert manifest["ratings"] == {"prior": 1.0, "rated_by": "name", "elo_k": 16.0,
                                   "elo_start": 1500.0, "given_up_matches": 0}
    for m, row in zip(stored, manifest["matches"], strict=True):
        assert (row["bots"], row["winner"], row["totals"], row["encounter_id"], row["leg"]) == (
            list(m.bots), m.winner, list(m.totals), m.encounter_id, m.leg)
        log = ladder.published / row["log"]
        signature = check_log_signature(log, ladder.trusted)
        assert signature is not None and signature.verified
        assert log.read_bytes() == Path(m.log_path or "").read_bytes()  # signed by the ladder
    assert load_trusted([ladder.published / "referee.pub"]).key_ids == (ladder.signer.key_id,)


class _Banner(HTMLParser):
    """The text of the banner (section#published) and of its key id (code#key-id)."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str | None] = []
        self.text: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack.append(dict(attrs).get("id"))

    def handle_endtag(self, tag: str) -> None:
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        for name in ("published", "key-id"):
            if name in self.stack:
                self.text[name] = self.text.get(name, "") + data


def test_the_report_shows_the_key_id_and_the_verification(ladder: Ladder) -> None:
    page = _Banner()
    page.feed((ladder.published / "index.html").read_text(encoding="utf-8"))
    assert page.text["key-id"] == ladder.signer.key_id
    assert "verified on 20" in page.text["published"]
    assert "arena verify" in page.text["published"]
    assert (ladder.published / "matches").is_dir() and (ladder.published / "replays").is_dir()


def test_a_publication_is_refused_by_another_ladders_key(ladder: Ladder, other: Ladder) -> None:
    lines = _differences(ladder.published, other.trusted)
    assert _any(lines, SIGNATURE, ladder.signer.key_id, "not trusted")
    assert _any(lines, "its log", "not trusted")


# --- attacks on a publication ---------------------------------------------------------------
def test_a_manifest_signed_by_another_ladders_key(copy: Path, ladder: Ladder,
                                                  other: Ladder) -> None:
    _resign(copy, _manifest(copy), other.signer)
    assert _any(_differences(copy, ladder.trusted), SIGNATURE, other.signer.key_id,
                "not trusted")


def test_a_manifest_missing_one_match(copy: Path, ladder: Ladder) -> None:
    manifest = _manifest(copy)
    dropped = manifest["matches"].pop(2)
    (copy / MANIFEST).write_bytes(manifest_bytes(manifest))  # by whoever serves it: no key
    lines = _differences(copy, ladder.trusted)
    assert _any(lines, SIGNATURE, "changed after it was signed")
    _resign(copy, manifest, ladder.signer)  # by the publisher: its standings still count it
    lines = _differences(copy, ladder.trusted)
    assert _any(lines, f"{dropped['match_id']}.jsonl", "does not list")
    assert _any(lines, "standings.standings", "the logs give")
    assert not _any(lines, SIGNATURE)
    (copy / dropped["log"]).unlink()  # and its log gone too: the standings still disagree
    lines = _differences(copy, ladder.trusted)
    assert _any(lines, "standings.rated_matches", "the manifest says 6, the logs give 5")


def _add_other_match(copy: Path, other: Ladder, signer: Signer | None
                     ) -> tuple[str, dict[str, Any]]:
    """List a match of the other ladder in ``copy``: its log copied in (re-signed by
    ``signer``, else as the other ladder signed it), its row added, the manifest re-signed."""
    row = dict(_manifest(other.published)["matches"][0])
    source = other.published / row["log"]
    target = copy / row["log"]
    if signer is None:
        shutil.copyfile(source, target)
    else:
        target.write_bytes(b"".join(source.read_bytes().splitlines(keepends=True)[:-1]))
        sign_log(target, signer)
    row["sha256"] = hashlib.sha256(target.read_bytes()).hexdigest()
    return str(row["match_id"]), row


def test_a_manifest_with_a_match_of_another_ladder_added(copy: Path, ladder: Ladder,
                                                         other: Ladder) -> None:
    manifest = _manifest(copy)
    match_id, row = _add_other_match(copy, other, None)
    manifest["matches"].append(row)
    _resign(copy, manifest, ladder.signer)
    lines = _differences(copy, ladder.trusted)
    assert _any(lines, match_id, other.signer.key_id, "not trusted")
    # trusting both keys, the log is still the other ladder's
    both = TrustedKeys([ladder.signer.public, other.signer.public])
    lines = _differences(copy, both)
    assert _any(lines, match_id, "ladder 'other'", "lists it in ladder 'main'")


def test_an_added_match_re_signed_by_this_ladders_key(copy: Path, ladder: Ladder,
                                                      other: Ladder) -> None:
    manifest = _manifest(copy)
    match_id, row = _add_other_match(copy, other, ladder.signer)
    manifest["matches"].append(row)
    _resign(copy, manifest, ladder.signer)
    lines = _differences(copy, ladder.trusted)
    assert _any(lines, match_id, "played in ladder 'other'")
    assert not _any(lines, match_id, "not trusted")


def test_a_changed_result_in_a_re_signed_manifest(copy: Path, ladder: Ladder) -> None:
    manifest = _manifest(copy)
    row = next(r for r in manifest["matches"] if r["winner"] is not None)
    row["winner"] = 1 - row["winner"]
    row["totals"] = row["totals"][::-1]
    _resign(copy, manifest, ladder.signer)
    lines = _differences(copy, ladder.trusted)
    assert _any(lines, row["match_id"], "winner is", "the manifest says")
    assert _any(lines, row["match_id"], "totals is")


def test_a_changed_rating_in_a_re_signed_manifest(copy: Path, ladder: Ladder) -> None:
    manifest = _manifest(copy)
    manifest["standings"]["standings"][0]["rating"] += 0.1
    manifest["fit"][1]["rating"] += 1e-3
    _resign(copy, manifest, ladder.signer)
    lines = _differences(copy, ladder.trusted)
    assert _any(lines, "standings.standings[0].rating", "the logs give")
    assert _any(lines, "fit[1].rating", "the logs give")
    assert len(lines) == 2


def test_an_extra_unlisted_log(copy: Path, ladder: Ladder, other: Ladder) -> None:
    row = _manifest(other.published)["matches"][0]
    shutil.copyfile(other.published / row["log"], copy / row["log"])
    lines = _differences(copy, ladder.trusted)
    assert lines == [f"{LOGS}/{row['match_id']}.jsonl: a file the manifest does not list"]


def test_a_tampered_log_byte(copy: Path, ladder: Ladder) -> None:
    manifest = _manifest(copy)
    row = manifest["matches"][3]
    log = copy / row["log"]
    data = bytearray(log.read_bytes())
    at = data.index(b'"type":"deal"') + 20
    data[at] = ord("0") if data[at] != ord("0") else ord("1")
    log.write_bytes(bytes(data))
    assert _any(_differences(copy, ladder.trusted), row["match_id"], "SHA-256")
    # the manifest's hash updated and re-signed: the log's own signature still fails
    row["sha256"] = hashlib.sha256(bytes(data)).hexdigest()
    _resign(copy, manifest, ladder.signer)
    assert _any(_differences(copy, ladder.trusted), row["match_id"], "changed after it was "
                                                                     "signed")


# --- publishing ------------------------------------------------------------------------------
def test_a_publication_that_does_not_verify_is_refused(ladder: Ladder, tmp_path: Path) -> None:
    """A ladder log changed after it was recorded: publish refuses, and writes nothing."""
    m = load_matches(ladder.config)[0]
    log = Path(m.log_path or "")
    original = log.read_bytes()
    log.write_bytes(original.replace(b'"totals":[', b'"totals": [', 1))
    try:
        with pytest.raises(ConfigError, match="does not verify: match .*changed after it was "
                                              "signed"):
            publish(ladder.config, tmp_path / "out")
    finally:
        log.write_bytes(original)
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def unsigned(other: Ladder) -> Iterator[list[Path]]:
    """The other ladder's logs as a ladder from before signing left them (restored after)."""
    logs = [Path(m.log_path or "") for m in load_matches(other.config)]
    originals = [log.read_bytes() for log in logs]
    for log, data in zip(logs, originals, strict=True):
        log.write_bytes(b"".join(data.splitlines(keepends=True)[:-1]))
    yield logs
    for log, data in zip(logs, originals, strict=True):
        log.write_bytes(data)


def test_unsigned_logs_are_signed_in_the_copy(other: Ladder, unsigned: list[Path],
                                              tmp_path: Path) -> None:
    before = [log.read_bytes() for log in unsigned]
    done = publish(other.config, tmp_path / "out")
    assert len(done.signed_now) == 2 and done.verification.ok
    assert [log.read_bytes() for log in unsigned] == before  # the ladder's own logs untouched
    assert verify_publication(tmp_path / "out", other.trusted).ok


def test_a_missing_log(other: Ladder, tmp_path: Path) -> None:
    m = load_matches(other.config)[1]
    log = Path(m.log_path or "")
    aside = log.with_name("aside")
    log.rename(aside)
    try:
        with pytest.raises(ConfigError, match=f"match {m.match_id}: its log is missing.*"
                                              "--allow-missing"):
            publish(other.config, tmp_path / "refused")
        assert not (tmp_path / "refused").exists()
        done = publish(other.config, tmp_path / "out", allow_missing=True)
    finally:
        aside.rename(log)
    assert done.missing == (m.match_id,)
    report = verify_publication(tmp_path / "out", other.trusted)
    assert report.ok and report.missing == (m.match_id,) and report.logs == 1
    row = _manifest(tmp_path / "out")["matches"][1]
    assert (row["log"], row["sha256"]) == (None, None)


def test_publish_replaces_an_earlier_publication_only(other: Ladder, tmp_path: Path) -> None:
    out = tmp_path / "out"
    publish(other.config, out)
    (out / LOGS / "stale.jsonl").write_text("{}\n")
    again = publish(other.config, out)
    assert again.verification.ok and not (out / LOGS / "stale.jsonl").exists()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match="holds other files"):
        publish(other.config, elsewhere)
    assert [p.name for p in elsewhere.iterdir()] == ["notes.txt"]


def test_a_rotated_key_still_trusted(other: Ladder, tmp_path: Path) -> None:
    """The ladder's logs signed by its old key, the ladder now on a new key: publish trusts the
    old public key given, and a verifier trusting both keys passes; the new key alone not."""
    private, public = new_key(tmp_path / "keys", "new")
    config = load_ladder(_with_key(Path(other.config.source or ""), private))
    with pytest.raises(ConfigError, match="not trusted"):
        publish(config, tmp_path / "refused")
    done = publish(config, tmp_path / "out", trusted=[other.signer.public])
    assert done.key_id != other.signer.key_id
    both = load_trusted([public, *_pub_of(other)])
    assert verify_publication(tmp_path / "out", both).ok
    lines = _differences(tmp_path / "out", load_trusted([public]))
    assert _any(lines, other.signer.key_id, "not trusted")


def _with_key(path: Path, private: Path) -> Path:
    """A copy of the ladder file ``path`` beside it with a top-level ``signing_key`` (the same
    ladder: its name and state directory)."""
    rotated = path.with_name("rotated.toml")
    text = path.read_text()
    head, _, rest = text.partition("[options]")
    rotated.write_text(f'{head}signing_key = "{private}"\nstate_dir = "state/other"\n'
                       f"[options]{rest}")
    return rotated


def _pub_of(ladder: Ladder) -> list[Path]:
    return [ladder.config.state_dir / "keys" / "referee.pub"]


def test_a_match_a_person_played_listed_and_signed(copy: Path, ladder: Ladder) -> None:
    """A log of `arena play` (a person against a bot), signed by the ladder's own key and
    listed in a re-signed manifest, is refused: no ladder rates a match with a human seat."""
    import asyncio

    from arena.model import BotSpec, HumanSeat, MatchSpec, TimeControl
    from arena.referee.human import HumanPlayer, Prompt
    from arena.referee.local import LocalPlayer
    from arena.referee.match import Match

    class FirstLegal:
        def started(self, start: Any) -> None: ...
        async def choose(self, prompt: Prompt) -> str:
            return prompt.legal_texts[0]
        def timed_out(self, detail: str) -> None: ...
        def round_ended(self, *args: Any) -> None: ...
        def finished(self, result: Any) -> None: ...

    spec = MatchSpec("lost-cities", 4, (BotSpec("human:ada", "lost-cities"),
                                        BotSpec("greedy", "lost-cities")),
                     {"rounds": 1}, TimeControl(), match_id="human-played",
                     humans=(HumanSeat(0, None),))
    match = Match(spec, sandbox_name="in-process", log_dir=copy / LOGS)
    result = asyncio.run(match.run((HumanPlayer(0, FirstLegal()),
                                    LocalPlayer(1, lambda d: d.legal_texts[0]))))
    log = copy / LOGS / "human-played.jsonl"
    sign_log(log, ladder.signer)
    manifest = _manifest(copy)
    manifest["matches"].append({
        "match_id": "human-played", "log": f"{LOGS}/human-played.jsonl",
        "sha256": hashlib.sha256(log.read_bytes()).hexdigest(), "rated": True, "void": False,
        "bots": list(result.bots), "versions": ["", ""], "identities": ["", ""],
        "encounter_id": "e", "cycle": 0, "leg": 0, "winner": result.winner,
        "totals": list(result.totals), "termination": str(result.termination)})
    _resign(copy, manifest, ladder.signer)
    lines = _differences(copy, ladder.trusted)
    assert _any(lines, "human-played", "a person played")
