"""A contestant's commands end to end against a real competition server (``arena host`` in its
own process, TLS on 127.0.0.1, its own CA, real Docker for the bots): alice logs in, submits a
bot directory and follows it to its first rated match, reads the standings and her matches,
watches and downloads one of them and reads her bot's output; bob, another contestant, gets
"not yours to see" for all of that and cannot submit under alice's bot name; a wrong token and a
server certificate of another CA are one line each."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from arena.cli.main import app
from arena.cluster.security import make_certs
from arena.host import client as hc
from tests.support.competition import RunningServer
from tests.support.terminal import flat

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = ROOT / "sample_bots" / "lost-cities" / "random"
runner = CliRunner(env={"COLUMNS": "400"})
# the first test to need `rated` builds, validates, rates
pytestmark = [pytest.mark.docker, pytest.mark.timeout(900)]


class Contestants:
    """The profile file the tests' contestants share and a way to run commands with it."""

    def __init__(self, server: RunningServer, root: Path) -> None:
        self.server = server
        self.root = root
        self.config = root / "client" / "client.toml"
        self.env = {hc.CONFIG_ENV: str(self.config), hc.SERVER_ENV: None, hc.CA_ENV: None,
                    hc.TOKEN_ENV: None}

    def run(self, *args: str, input: str | None = None, **env: str) -> Result:
        """``arena ARGS`` in this process, with the shared profile file."""
        return runner.invoke(app, list(args), input=input, env={**self.env, **env})

    def login(self, who: str) -> Result:
        """``arena login WHO`` with WHO's token on standard input."""
        return self.run("login", who, "--address", self.server.address, "--ca",
                        str(self.server.ca), "--token-stdin", input=self.server.tokens[who] + "\n")


@pytest.fixture(scope="module")
def people(competition_server: RunningServer, tmp_path_factory: pytest.TempPathFactory
           ) -> Contestants:
    """alice and bob logged in (profiles ``alice`` and ``bob``)."""
    people = Contestants(competition_server, tmp_path_factory.mktemp("contestants"))
    for who in ("alice", "bob"):
        done = people.login(who)
        assert done.exit_code == 0, done.output
    return people


@pytest.fixture(scope="module")
def rated(people: Contestants, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """alice's bot ``alpha`` submitted and followed to its first rated match: the command's
    output and the submission's id."""
    bot = tmp_path_factory.mktemp("bots") / "alpha"
    shutil.copytree(RANDOM_BOT, bot)
    toml = (bot / "bot.toml").read_text().replace('name = "random"', 'name = "alpha"')
    (bot / "bot.toml").write_text(toml)
    out = people.run("submit", str(bot), "--server", "alice")
    assert out.exit_code == 0, out.output + people.server.log()[-3000:]
    found = re.search(r"rated: submission (\d+), alpha@(s\d+)", flat(out.stdout))
    assert found, out.stdout
    return {"output": flat(out.stdout), "id": int(found.group(1)), "version": found.group(2)}


def _matches(people: Contestants, who: str, *args: str) -> list[dict[str, Any]]:
    out = people.run("matches", "--server", who, "--format", "json", *args)
    assert out.exit_code == 0, out.output
    return [json.loads(line) for line in out.stdout.splitlines()]  # a match a line


@pytest.fixture(scope="module")
def alices_match(people: Contestants, rated: dict[str, Any]) -> dict[str, Any]:
    """A recorded ladder match of alice's bot."""
    mine = _matches(people, "alice", "--mine")
    assert mine, "alice's bot has a rated match"
    return mine[0]


def test_login_saves_a_private_profile_checked_with_the_server(people: Contestants) -> None:
    assert set(hc.read_profiles(people.config)) == {"alice", "bob"}
    again = people.login("alice")
    said = flat(again.stdout)
    assert again.exit_code == 0, again.output
    assert f"logged in to t at {people.server.address} as alice" in said
    assert "game lost-cities: submissions are validated against random" in said
    assert "5 submissions a day" in said and "own-seat" in said
    assert oct(people.config.stat().st_mode & 0o777) == "0o600"
    assert people.server.tokens["alice"] not in again.output


def test_a_wrong_token_and_another_ca_are_one_line(people: Contestants, tmp_path: Path) -> None:
    wrong = people.run("standings", "--server", "alice",
                       **{hc.TOKEN_ENV: "arena_000000000000_" + "x" * 43})
    assert wrong.exit_code == 2
    assert "refused the token: `arena login` again or ask the operator" in flat(wrong.stderr)
    other = make_certs(tmp_path / "other", ["127.0.0.1"], ca_name="impostor CA")
    pinned = people.run("standings", "--server", "alice", **{hc.CA_ENV: str(other.ca)})
    assert pinned.exit_code == 2
    assert "is not signed by the CA you pinned" in flat(pinned.stderr)
    # the real command in a process of its own: the one error, none of gRPC's own log lines
    env = {**os.environ, hc.CONFIG_ENV: str(people.config), hc.CA_ENV: str(other.ca),
           "COLUMNS": "400"}
    env.pop("GRPC_VERBOSITY", None)
    proc = subprocess.run([sys.executable, "-m", "arena", "standings", "--server",
                           "alice"], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.startswith("error: the server's certificate at"), proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    not_saved = people.run("login", "mallory", "--address", people.server.address, "--ca",
                           str(people.server.ca), "--token-stdin",
                           input="arena_000000000000_" + "y" * 43 + "\n")
    assert not_saved.exit_code == 2 and "refused the token" in flat(not_saved.stderr)
    assert "mallory" not in hc.read_profiles(people.config)


def test_submit_shows_each_stage_to_the_first_rated_match(rated: dict[str, Any]) -> None:
    said = rated["output"]
    for stage in ("uploaded", "built", "validated", "entered", "rated"):
        assert f" {stage} " in said, said
    assert "-self" in said and "-reference" in said


def test_standings_matches_and_submissions(people: Contestants, rated: dict[str, Any],
                                           alices_match: dict[str, Any]) -> None:
    standings = people.run("standings", "--server", "bob", "--format", "json")
    assert standings.exit_code == 0, standings.output
    rows = json.loads(standings.stdout.splitlines()[0])["rows"]  # a game a line
    alpha = next(r for r in rows if r["name"] == "alpha")
    assert (alpha["version"], alpha["owner"]) == (rated["version"], "alice")
    table = people.run("standings", "--server", "bob")
    assert "alpha" in table.stdout and "95% CI" in table.stdout and "alice" in table.stdout
    assert "alpha" in alices_match["names"]
    everyone = _matches(people, "bob", "--bot", "alpha")
    assert alices_match["match_id"] in {m["match_id"] for m in everyone}
    assert _matches(people, "bob", "--mine") == []
    subs = people.run("submissions", "--server", "alice")
    assert subs.exit_code == 0, subs.output
    assert "RATED" in subs.stdout and "1 of 5 submissions used" in flat(subs.stdout)
    follow = people.run("submissions", "--server", "alice", "--follow", str(rated["id"]))
    assert follow.exit_code == 0, follow.output
    assert f"rated: submission {rated['id']}, alpha@{rated['version']}" in flat(follow.stdout)


def test_alice_watches_and_downloads_her_own_seat(people: Contestants,
                                                  alices_match: dict[str, Any],
                                                  tmp_path: Path) -> None:
    match_id = alices_match["match_id"]
    seat = alices_match["names"].index("alpha")
    watched = people.run("watch", "--server", "alice", "--match", match_id, "--seat", str(seat))
    assert watched.exit_code == 0, watched.output
    assert f"seat {seat} view" in watched.stdout
    whole = people.run("watch", "--server", "alice", "--match", match_id)
    assert whole.exit_code == 2 and "add --seat N" in flat(whole.stderr)  # own-seat setting
    out = tmp_path / "mine.jsonl"
    got = people.run("logs", "--server", "alice", "--match", match_id, "-o", str(out))
    assert got.exit_code == 0, got.output
    assert "your seat's view" in flat(got.stdout)
    lines = out.read_text().splitlines()
    assert lines and all(json.loads(line) for line in lines)
    output = people.run("logs", "--server", "alice", "--match", match_id, "--bot-output")
    assert output.exit_code == 0, output.output
    assert f"your bot played seat {seat}" in flat(output.stdout)


def test_bob_sees_nothing_private_of_alices(people: Contestants, rated: dict[str, Any],
                                            alices_match: dict[str, Any],
                                            tmp_path: Path) -> None:
    match_id = alices_match["match_id"]
    seat = alices_match["names"].index("alpha")
    out = tmp_path / "stolen.jsonl"
    for args in (["logs", "--match", match_id, "-o", str(out)],
                 ["logs", "--match", match_id, "--bot-output"],
                 ["watch", "--match", match_id, "--seat", str(seat)],
                 ["watch", "--match", match_id],
                 ["submissions", "--follow", str(rated["id"])]):
        refused = people.run(*args, "--server", "bob")
        assert refused.exit_code == 2, (args, refused.output)
        assert "not yours to see" in flat(refused.stderr), (args, refused.stderr)
        assert refused.stdout == "", (args, refused.stdout)
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_bob_cannot_submit_under_alices_name(people: Contestants, tmp_path: Path) -> None:
    bot = tmp_path / "alpha"
    shutil.copytree(RANDOM_BOT, bot)
    (bot / "bot.toml").write_text((bot / "bot.toml").read_text().replace(
        'name = "random"', 'name = "ALPHA"'))
    refused = people.run("submit", str(bot), "--server", "bob")
    assert refused.exit_code in (1, 2), refused.output
    assert "alpha" in flat(refused.output).lower()
    subs = people.run("submissions", "--server", "bob", "--format", "json")
    assert all(s.get("stage") not in ("ENTERED", "RATED")
               for s in map(json.loads, subs.stdout.splitlines()))


@pytest.fixture(autouse=True)
def _no_stray_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in (hc.SERVER_ENV, hc.CA_ENV, hc.TOKEN_ENV):
        monkeypatch.delenv(name, raising=False)
    yield
