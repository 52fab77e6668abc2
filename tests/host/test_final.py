"""The final tournament on a real `arena host` (its own process, TLS on 127.0.0.1, real SQLite,
bots in the process sandbox): `arena final` commits to the seeds before any match is played,
the server plays the round robin through the ladder's runner, a `kill -9` in the middle loses
nothing and plays no recorded match again, the results are published on the public page and
`arena verify` passes on them, and fails on tampered ones (a changed byte, places that are not
the tie rule's, a revealed secret that is not the committed one). Config: `[final]` keys refused
in one line."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.errors import ConfigError
from arena.host.config import FinalSettings, load_competition
from arena.host.moderation import Moderator
from arena.ladder.store import LadderStore
from arena.record.signing import load_signer, load_trusted, sign_bytes
from arena.site.publish import DOMAIN, MANIFEST, SIGNATURE, manifest_bytes, verify_publication
from tests.support.competition import COMPETITION, make_server
from tests.support.finals import ENTRANTS, arena, recorded, wait
from tests.support.paths import ROOT

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(900)]

SCHEDULED = 3 * 2  # three pairs, one duplicate encounter (two legs) each


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A competition whose ladder has one house bot (it plays nothing), and a final of three
    sample bots begun with `arena final`, killed (-9) after two recorded matches and started
    again, played to its end and published."""
    server = make_server(tmp_path_factory.mktemp("final"), sandbox="process")
    server.file.write_text(server.file.read_text() + "\n[final]\nencounters = 1\n")
    c = load_competition(server.file)
    Moderator(c).disqualify("bob", "an entry of the audit log")  # bob has no bot here
    server.start()
    try:
        begun = arena("final", str(server.file), *ENTRANTS)
        assert begun.returncode == 0, begun.stdout + begun.stderr
        commitment_file = c.site_dir / "final" / "lost-cities-commitment.json"
        # the commitment is public before the final's first match is recorded
        commitment = json.loads(commitment_file.read_text())
        assert not recorded(server)
        before = wait("two final matches recorded",
                       lambda: len(recorded(server)) >= 2 and recorded(server), server)
        server.kill9()
        before = recorded(server)
        hashes = {m: _sha(Path(row.log_path)) for m, row in before.items()}
        assert len(before) < SCHEDULED, "the final ended before the kill: nothing to resume"
        server.start()
        out = c.site_dir / "final" / "lost-cities"
        wait("the final published", lambda: (out / MANIFEST).is_file(), server)
        yield {"server": server, "out": out, "begun": begun.stdout, "before": before,
               "hashes": hashes, "commitment": commitment, "competition": c}
    finally:
        server.end()


def test_the_commitment_is_published_before_the_first_match_and_names_the_final(
        published: dict[str, Any]) -> None:
    line = " ".join(published["begun"].split())
    statement = json.loads(published["commitment"]["statement"])
    assert statement["commitment"] in line and "3 entrants" in line
    assert statement["entrants"] == [{"name": n, "version": "1"}
                                     for n in ("random", "greedy", "strong")]
    manifest = json.loads((published["out"] / MANIFEST).read_text())
    assert manifest["final"]["commitment_record"] == published["commitment"]
    secret = manifest["final"]["secret"]
    assert hashlib.sha256(secret.encode()).hexdigest() == statement["commitment"]


def test_kill_9_mid_final_resumes_without_playing_a_recorded_match_again(
        published: dict[str, Any]) -> None:
    server = published["server"]
    after = recorded(server)
    assert len(after) == SCHEDULED
    for match_id, digest in published["hashes"].items():
        log = Path(after[match_id].log_path)
        assert _sha(log) == digest, f"{match_id} was played again"
        assert not list(log.parent.glob(f"{match_id}.aborted-*")), match_id
    manifest = json.loads((published["out"] / MANIFEST).read_text())
    assert sorted(r["match_id"] for r in manifest["matches"]) == sorted(after)
    assert manifest["final"]["complete"] is True


def test_arena_verify_passes_on_the_published_final_and_the_page_shows_it(
        published: dict[str, Any]) -> None:
    c, out = published["competition"], published["out"]
    key = c.state_dir / "keys" / "referee.pub"
    run = arena("verify", str(out), "--key", str(key))
    assert run.returncode == 0, run.stdout + run.stderr
    said = " ".join(run.stdout.split())
    assert "final: the seed commitment signed before its first match and the secret revealed " \
        "agree" in said and "(every scheduled match listed)" in said, said
    manifest = json.loads((out / MANIFEST).read_text())
    places = manifest["final"]["places"]
    assert {p["player"] for p in places} == {"random@1", "greedy@1", "strong@1"}
    assert all(p["ci95"] > 0 for p in places)
    page = (out / "index.html").read_text()
    assert "final standings" in page and manifest["final"]["secret"] in page
    for p in places:
        assert p["player"] in page
    front = c.site_dir / "index.html"
    wait("the front page links the final",
          lambda: "final/lost-cities/index.html" in front.read_text(), published["server"],
          timeout=60)


def _resigned(published: dict[str, Any], tmp_path: Path, change: Any) -> Path:
    """A copy of the publication whose manifest ``change`` edits, signed again with the
    referee's own key (what an operator with the key could publish)."""
    c = published["competition"]
    copy = tmp_path / "copy"
    shutil.copytree(published["out"], copy)
    manifest = json.loads((copy / MANIFEST).read_text())
    change(manifest)
    data = manifest_bytes(manifest)
    signer = load_signer(c.state_dir / "keys" / "referee.key")
    (copy / MANIFEST).write_bytes(data)
    (copy / SIGNATURE).write_text(json.dumps({
        "algorithm": "ed25519", "domain": DOMAIN, "key_id": signer.key_id,
        "signature": base64.b64encode(sign_bytes(signer, DOMAIN, data)).decode()}))
    return copy


def _verify_fails(published: dict[str, Any], directory: Path, expected: str) -> None:
    """`arena verify`'s own check (in this process: the command is run once above) finds
    ``expected`` among its differences."""
    key = published["competition"].state_dir / "keys" / "referee.pub"
    report = verify_publication(directory, load_trusted([key]))
    assert not report.ok
    assert any(expected in line for line in report.differences), report.differences


def test_arena_verify_fails_on_a_tampered_final(published: dict[str, Any],
                                                tmp_path: Path) -> None:
    # a byte of the manifest changed after it was signed: the command says so, exit 1
    copy = tmp_path / "flipped"
    shutil.copytree(published["out"], copy)
    data = (copy / MANIFEST).read_bytes()
    (copy / MANIFEST).write_bytes(data.replace(b'"encounters": 1', b'"encounters": 2', 1))
    key = published["competition"].state_dir / "keys" / "referee.pub"
    run = arena("verify", str(copy), "--key", str(key))
    assert run.returncode == 1 and "manifest.sig" in run.stdout, run.stdout + run.stderr

    # places the tie rule does not give (one place for a version that shares them, or the
    # reverse), signed again with the referee's key
    def one_place(manifest: dict[str, Any]) -> None:
        row = manifest["final"]["places"][-1]
        row["place"], row["first"], row["last"] = "1", 1, 1

    _verify_fails(published, _resigned(published, tmp_path / "places", one_place),
                  "final.places")

    # another secret revealed (deals chosen after the commitment), the commitment hash in the
    # manifest changed to match it: the signed commitment and the logs' deals give it away
    def other_secret(manifest: dict[str, Any]) -> None:
        secret = "0" * 64
        manifest["final"]["secret"] = secret
        manifest["final"]["commitment"] = hashlib.sha256(secret.encode()).hexdigest()

    copy = _resigned(published, tmp_path / "secret", other_secret)
    _verify_fails(published, copy, "the commitment published before the first match says "
                                   "commitment")
    _verify_fails(published, copy, "its deal is not the committed secret's")


def _file(tmp_path: Path, final: str) -> Path:
    file = tmp_path / "c.toml"
    file.write_text(COMPETITION.format(
        sandbox="process", server="", site_refresh_s=1, logs="own-seat", max_upload_mb=5,
        max_image_upload_mb=5, per_day=5, active_bots=3) + final)
    return file


@pytest.mark.unit
def test_the_final_table_and_its_defaults(tmp_path: Path) -> None:
    assert load_competition(_file(tmp_path, "")).final == FinalSettings()
    c = load_competition(_file(tmp_path, '[final]\ntop = 4\nencounters = 3\n'
                                         'tie_break = "rating"\n'))
    assert c.final == FinalSettings("round-robin", 4, 3, "rating")
    c = load_competition(_file(tmp_path, '[final]\nhouse = true\n'))
    assert c.final.house is True


@pytest.mark.unit
@pytest.mark.parametrize(("table", "expected"), [
    ("top = 1", "final.top"),
    ('format = "lottery"', "final.format"),
    ("encounters = 0", "final.encounters"),
    ('tie_break = "coin"', "final.tie_break"),
    ('house = "yes"', "final.house"),
    ("rounds = 3", "rounds"),
])
def test_a_bad_final_table_is_one_line(tmp_path: Path, table: str, expected: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_competition(_file(tmp_path, f"\n[final]\n{table}\n"))
    assert expected in str(caught.value) and "\n" not in str(caught.value)


def _first_match_only() -> tuple[Any, Any]:
    """A player that plays the first match it is given (the real referee, in this process)
    and starts no other, and the stop event set once that one is recorded: a run stopped
    there cancels no match under way (a cancelled one would hold the host's deal epoch,
    ``arena.sandbox.epochs``, until it gave up on it)."""
    import asyncio

    from arena.ladder.runner import default_play

    real = default_play()
    stop = asyncio.Event()
    given: list[str] = []

    async def play(spec: Any, **kwargs: Any) -> Any:
        if given:
            await asyncio.Event().wait()  # never starts: the stop cancels it
        given.append(spec.match_id)
        result = await real(spec, **kwargs)
        return result

    def on_event(event: Any) -> None:
        from arena.ladder.runner import LadderEventKind

        if event.kind is LadderEventKind.MATCH_FINISHED:
            stop.set()

    return play, (stop, on_event)


def _recorded_in(final: Any) -> list[Any]:
    return final.store.matches(final.ladder)


def _final(tmp_path: Path, table: str) -> Any:
    from arena.host.final import Final
    from arena.ladder.runner import signing_of

    c = load_competition(_file(tmp_path, f"\n[final]\n{table}\n"))
    store = LadderStore(c.database)
    return Final(c, "lost-cities", store, signing_of(c.signing_key, c.state_dir))


@pytest.mark.unit
def test_top_n_takes_the_versions_the_ladder_rates_highest_and_a_final_begins_once(
        tmp_path: Path) -> None:
    final = _final(tmp_path, "top = 2")
    ratings = {"random@1": 1300.0, "greedy@1": 1550.0, "strong@1": 1600.0}
    state = final.begin(ENTRANTS, ratings)
    assert [e.key for e in state.entrants] == ["greedy@1", "strong@1"]
    again = final.begin(ENTRANTS[:2], {})
    assert again == state  # begun once: the same entrants, secret and commitment
    assert final.commitment_file.is_file()
    assert json.loads(final.commitment_file.read_text()) == state.commitment_record


@pytest.mark.unit
def test_a_secret_changed_after_the_commitment_stops_the_final(tmp_path: Path) -> None:
    final = _final(tmp_path, "")
    state = final.begin(ENTRANTS[:2])
    (final.directory / "deal-secret").write_text("0" * 64)
    with pytest.raises(ConfigError, match="not the secret the final committed to"):
        final.remaining(state)


@pytest.mark.unit
@pytest.mark.parametrize(("refs", "expected"), [
    (ENTRANTS[:1], "at least two entrants"),
    ([ENTRANTS[0], ENTRANTS[0]], "twice"),
    ([ENTRANTS[0], "nobody@s9"], "no bot 'nobody@s9'"),
    ([ENTRANTS[0], str(ROOT / "sample_bots" / "haggis" / "random")], "plays haggis"),
])
def test_bad_entrants_are_one_line_and_begin_nothing(tmp_path: Path, refs: list[str],
                                                     expected: str) -> None:
    final = _final(tmp_path, "")
    with pytest.raises(ConfigError) as caught:
        final.begin(refs)
    assert expected in str(caught.value) and "\n" not in str(caught.value)
    assert final.state() is None and not final.commitment_file.exists()


def test_an_entrant_withdrawn_mid_final_plays_no_more_and_leaves_the_standings(
        tmp_path: Path) -> None:
    """A version taken out after the final began (a disqualification): its matches not played
    yet never are, those played stay listed, the standings and places are fitted without it,
    and the results verify; a manifest that hides the withdrawal does not."""
    import asyncio

    from arena.ladder.runner import default_play

    final = _final(tmp_path, "encounters = 1")
    final.begin(ENTRANTS)
    play, (stop, on_event) = _first_match_only()
    asyncio.run(final.play(stop=stop, on_event=on_event, play=play))
    [first] = _recorded_in(final)
    out = f"{first.bots[0]}@1"
    assert final.withdraw({out: "disqualified: a test"}) == [out]
    summary = asyncio.run(final.play(play=default_play()))
    assert summary.played == 2  # the one pair without it, both legs
    publication = final.publish()
    assert publication.verification.ok, publication.verification.differences
    manifest = json.loads((publication.directory / MANIFEST).read_text())
    assert manifest["final"]["complete"] is True
    assert manifest["final"]["withdrawn"] == [{"name": out.split("@")[0], "version": "1",
                                               "why": "disqualified: a test"}]
    assert any(out in (f"{r['bots'][0]}@1", f"{r['bots'][1]}@1") for r in manifest["matches"])
    assert out not in {p["player"] for p in manifest["final"]["places"]}
    assert len(manifest["final"]["places"]) == 2

    def hidden(m: dict[str, Any]) -> None:
        m["final"]["withdrawn"] = []

    published = {"out": publication.directory, "competition": final.competition}
    _verify_fails(published, _resigned(published, tmp_path / "hidden", hidden), "standings")


def test_a_final_closed_before_its_end_publishes_what_it_played_and_says_so(
        tmp_path: Path) -> None:
    import asyncio

    final = _final(tmp_path, "encounters = 1")
    final.begin(ENTRANTS[:2])
    play, (stop, on_event) = _first_match_only()
    asyncio.run(final.play(stop=stop, on_event=on_event, play=play))
    publication = final.publish()
    assert publication.verification.ok, publication.verification.differences
    manifest = json.loads((publication.directory / MANIFEST).read_text())
    assert len(manifest["matches"]) == 1 and manifest["final"]["complete"] is False
    assert "not every scheduled match was played" in \
        (publication.directory / "index.html").read_text()

    def complete(m: dict[str, Any]) -> None:
        m["final"]["complete"] = True

    published = {"out": publication.directory, "competition": final.competition}
    _verify_fails(published, _resigned(published, tmp_path / "complete", complete),
                  "said to be complete")


def test_the_published_final_includes_the_audit_log_signed(published: dict[str, Any]) -> None:
    """The operator's moderation is part of the signed results (the manifest `arena verify`
    checked above)."""
    manifest = json.loads((published["out"] / MANIFEST).read_text())
    (entry,) = manifest["final"]["audit"]
    assert (entry["seq"], entry["action"], entry["subject"], entry["why"]) == (
        1, "disqualify", "bob", "an entry of the audit log")
    assert "operator" not in entry
