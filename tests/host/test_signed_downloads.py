"""A contestant checks what the server sends them, offline, with the competition's public key:
real `arena host` processes on 127.0.0.1 (TLS, the process sandbox, the house's bots; the
operator assigns `greedy` to alice). Under `own-seat`, alice downloads her seat's view with
`arena logs` and `arena verify` checks it against the `referee.pub` the public page offers;
under `public`, bob, who played nothing, downloads the whole log, and the public page offers the
signed log beside the replay. A changed result, score, seed commitment, decision of the seat or
claim of the statement: `arena verify` says NOT verified in one line, exit 1."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from arena.cli.main import app
from arena.host import client as hc
from arena.host.config import load_competition
from tests.support.competition import RunningServer, finished_match, house_server

pytestmark = [pytest.mark.integration, pytest.mark.slow]
runner = CliRunner(env={"COLUMNS": "400"})


@pytest.fixture(scope="module")
def own_seat(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    server = house_server(tmp_path_factory.mktemp("own-seat"), "own-seat")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def public(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    server = house_server(tmp_path_factory.mktemp("public"), "public")
    server.start()
    yield server
    server.stop()


def _arena(server: RunningServer, who: str, *args: str) -> Result:
    """``arena ARGS`` as ``who``, the server given by the environment (as in CI)."""
    env = {hc.CONFIG_ENV: str(server.state_dir.parent / "no-profiles.toml"),
           hc.SERVER_ENV: server.address, hc.CA_ENV: str(server.ca),
           hc.TOKEN_ENV: server.tokens[who]}
    return runner.invoke(app, list(args), env=env)


def _wait_for(path: Path, timeout: float = 120) -> Path:
    deadline = time.monotonic() + timeout
    while not path.is_file():
        assert time.monotonic() < deadline, f"{path} did not appear"
        time.sleep(0.3)
    return path


def _public_key(server: RunningServer) -> Path:
    """The referee's public key as the competition's public page offers it."""
    return _wait_for(load_competition(server.file).site_dir / "referee.pub")


def _verify(file: Path, key: Path) -> Result:
    return runner.invoke(app, ["verify", str(file), "--key", str(key)])


def _not_verified(file: Path, key: Path) -> str:
    """`arena verify` refuses ``file``: exit 1, one line."""
    out = _verify(file, key)
    lines = [line for line in out.output.splitlines() if line.strip()]
    assert out.exit_code == 1 and len(lines) == 1, out.output
    assert lines[0].startswith(f"NOT verified: {file}: "), lines
    return lines[0]


def _edited(original: Path, out: Path, kind: str, edit: Callable[[dict[str, Any]], None]
            ) -> Path:
    """A copy of ``original`` with the first record of type ``kind`` changed by ``edit`` (the
    record re-written as the server writes JSON)."""
    lines = original.read_bytes().splitlines(keepends=True)
    for number, line in enumerate(lines):
        record = json.loads(line)
        if record["type"] == kind:
            edit(record)
            lines[number] = (json.dumps(record, separators=(",", ":")) + "\n").encode()
            break
    else:
        raise AssertionError(f"no {kind} record")
    out.write_bytes(b"".join(lines))
    return out


def _flip_hex(text: str) -> str:
    return ("1" if text[0] != "1" else "2") + text[1:]


def test_a_seat_view_download_verifies_offline_and_nothing_in_it_can_be_changed(
        own_seat: RunningServer, tmp_path: Path) -> None:
    match_id, seat = finished_match(own_seat)
    file = tmp_path / "mine.seat-view.jsonl"
    got = _arena(own_seat, "alice", "logs", "--match", match_id, "-o", str(file))
    assert got.exit_code == 0, got.output
    assert "your seat's view" in got.stdout and "signed statement" in got.stdout
    key = _public_key(own_seat)
    checked = _verify(file, key)
    assert checked.exit_code == 0, checked.output
    assert re.match(rf"verified: {re.escape(str(file))}: seat {seat}'s view of match "
                    rf"{re.escape(match_id)} \(lost-cities: ", checked.stdout), checked.stdout
    statement = json.loads(json.loads(file.read_bytes().splitlines()[-1])["statement"])
    assert statement["document"] == "seat-view" and statement["seat"] == seat

    def winner(r: dict[str, Any]) -> None:
        r["result"]["winner"] = 1 if r["result"]["winner"] != 1 else 0

    def score(r: dict[str, Any]) -> None:
        r["scores"][seat] += 1

    def commitment(r: dict[str, Any]) -> None:
        r["seed_commitment"] = _flip_hex(r["seed_commitment"])

    def decision(r: dict[str, Any]) -> None:
        r["action"] = "pass" if r["action"] != "pass" else "draw"

    for kind, edit in (("match_end", winner), ("round_end", score),
                       ("seat_header", commitment), ("observation", decision)):
        line = _not_verified(_edited(file, tmp_path / f"{kind}.jsonl", kind, edit), key)
        assert "changed after it was signed" in line, line

    def claim(r: dict[str, Any]) -> None:  # the statement itself: another winner
        text = json.loads(r["statement"])
        text["result"]["winner"] = 1 - (text["result"]["winner"] or 0)
        r["statement"] = json.dumps(text, separators=(",", ":"))

    line = _not_verified(_edited(file, tmp_path / "claim.jsonl", "statement", claim), key)
    assert "signature is not key" in line
    # hidden information: the seed and its salt (the operator's log) are nowhere in the file
    log = Path(load_competition(own_seat.file).logs_dir / "lost-cities" / f"{match_id}.jsonl")
    end = json.loads(log.read_bytes().splitlines()[-2])
    assert end["type"] == "match_end"
    for secret in (str(end["result"]["seed"]), end["seed_salt"]):
        assert secret.encode() not in file.read_bytes()
    bob = _arena(own_seat, "bob", "logs", "--match", match_id, "-o", str(tmp_path / "b.jsonl"))
    assert bob.exit_code == 2 and not (tmp_path / "b.jsonl").exists()  # own-seat: not his


def test_the_whole_log_verifies_where_visibility_allows_it(public: RunningServer,
                                                           tmp_path: Path) -> None:
    match_id, _ = finished_match(public)
    file = tmp_path / f"{match_id}.jsonl"
    got = _arena(public, "bob", "logs", "--match", match_id, "-o", str(file))
    assert got.exit_code == 0, got.output
    assert "the match log" in got.stdout and "signed statement" in got.stdout
    key = _public_key(public)
    checked = _verify(file, key)
    assert checked.exit_code == 0, checked.output
    assert "the match log of match" in checked.stdout
    assert "replayed under the rules" in checked.stdout
    assert "the seed matches its commitment" in checked.stdout
    replayed = runner.invoke(app, ["replay", str(file)])  # the statement line is skipped
    assert replayed.exit_code == 0, replayed.output

    def reveal(r: dict[str, Any]) -> None:
        r["seed_salt"] = _flip_hex(r["seed_salt"])

    def totals(r: dict[str, Any]) -> None:
        r["totals"][0] += 1

    def deal(r: dict[str, Any]) -> None:
        r["deal"]["deck"] = r["deal"]["deck"][1:] + r["deal"]["deck"][:1]

    for kind, edit in (("match_end", reveal), ("round_end", totals), ("deal", deal)):
        _not_verified(_edited(file, tmp_path / f"{kind}.jsonl", kind, edit), key)


def test_the_public_page_offers_the_signed_log_next_to_the_replay(public: RunningServer) -> None:
    match_id, _ = finished_match(public)
    replays = load_competition(public.file).site_dir / "lost-cities" / "replays"
    signed = _wait_for(replays / f"{match_id}.jsonl")
    page = (replays / f"{match_id}.html").read_text()
    assert f'href="{match_id}.jsonl"' in page and "arena verify" in page
    checked = _verify(signed, _public_key(public))
    assert checked.exit_code == 0, checked.output
    end = json.loads(signed.read_bytes().splitlines()[-2])
    assert end["result"]["detail"] == "" and end["bot_logs"] == [None, None]
    index = (load_competition(public.file).site_dir / "index.html").read_text()
    assert 'href="referee.pub"' in index
