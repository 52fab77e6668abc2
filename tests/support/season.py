"""What the season's host tests share (tests/host/test_season_host.py, test_whole_season.py):
contestants' and the operator's commands against a real competition server, bot directories
told apart, the one-line refusals, and what the server's log and state say of its phase and
its ladder."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from typer.testing import CliRunner, Result

from arena.cli.main import app
from arena.host import client as hc
from arena.ladder.schedules.continuous import VERSIONS_FILE
from arena.ladder.schedules.sources import PAIRINGS_FILE
from arena.v1 import competition_pb2 as pb
from tests.support.competition import RunningServer, make_server, rested
from tests.support.competition import wait_for as wait_for  # the seasons' tests import it here
from tests.support.paths import ROOT
from tests.support.terminal import flat

RANDOM_BOT = ROOT / "sample_bots" / "lost-cities" / "random"
runner = CliRunner(env={"COLUMNS": "400"})
ENTRIES = (("alice", "alpha", 1), ("alice", "alpha", 2), ("bob", "beta", 1))
"""Who submits what, in order: alice alpha twice (two versions), bob beta once."""


def season_server(root: Path, tables: str, duplicate: bool = True,
                  rest_s: float = 0) -> RunningServer:
    """A competition in the Docker sandbox under ``root`` (alice and bob), the bots given 60 s
    to start (a loaded host starts containers slowly), ``tables`` added; not started.
    ``duplicate = False``: an encounter of its ladder is one match, not two legs; ``rest_s``:
    its continuous ladder starts a leg no sooner than that after the one before."""
    server = make_server(root / "competition")
    text = server.file.read_text().replace(
        "time_bank_ms = 5000\n", "time_bank_ms = 5000\nstartup_ms = 60000\n")
    if not duplicate:
        text = text.replace("duplicate = true\n", "duplicate = false\n")
    server.file.write_text(text + tables)
    return rested(server, rest_s) if rest_s else server


class People:
    """The contestants' profile file and the operator's competition file, and commands run
    with them (in this process)."""

    def __init__(self, server: RunningServer, root: Path) -> None:
        self.server = server
        self.config = root / "client.toml"
        self.env = {hc.CONFIG_ENV: str(self.config), hc.SERVER_ENV: None, hc.CA_ENV: None,
                    hc.TOKEN_ENV: None}

    def run(self, *args: str, input: str | None = None) -> Result:
        """``arena ARGS``; the server's address now (a restart takes another port)."""
        return runner.invoke(app, list(args), input=input,
                             env={**self.env, hc.SERVER_ENV: self.server.address})

    def login(self, who: str) -> Result:
        return self.run("login", who, "--address", self.server.address, "--ca",
                        str(self.server.ca), "--token-stdin",
                        input=self.server.tokens[who] + "\n")

    def operator(self, *args: str) -> Result:
        return self.run(*args, "--competition", str(self.server.file))


def enter_bots(people: People, root: Path) -> dict[tuple[str, int], str]:
    """alice and bob logged in, then ``ENTRIES`` submitted, each until it entered the ladder:
    each one's version (``name@s<id>``) by its name and variant."""
    server = people.server
    for who in ("alice", "bob"):
        assert people.login(who).exit_code == 0
    entered = {}
    for who, name, variant in ENTRIES:
        out = people.run("submit", str(bot_dir(root, name, variant)), "--server", who,
                         "--until", "entered")
        assert out.exit_code == 0, out.output + server.log()[-3000:]
        found = re.search(rf"entered: submission \d+, ({name}@s\d+)", flat(out.stdout))
        assert found, out.stdout
        entered[(name, variant)] = found.group(1)
    return entered


def bot_dir(root: Path, name: str, variant: int) -> Path:
    """The random sample bot as ``name``, its code told apart by ``variant``."""
    bot = root / f"{name}-{variant}"
    shutil.copytree(RANDOM_BOT, bot)
    toml = (bot / "bot.toml").read_text().replace('name = "random"', f'name = "{name}"')
    (bot / "bot.toml").write_text(toml)
    with (bot / "bot.py").open("a") as handle:
        handle.write(f"\n# variant {variant}\n")
    return bot


def one_line_exit_2(result: Result, *words: str) -> str:
    """The refusal's one line (its words checked), nothing on stdout."""
    said = flat(result.stderr).strip()
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stdout.strip() == "", result.stdout
    for word in words:
        assert word in said, said
    return said


def phase_of(server: RunningServer) -> str:
    """The phase the server acts in: its log's last word of it since its last start (the
    start line names the phase it started in, each phase it entered since has a line)."""
    text = server.log()
    return str(re.findall(r'"phase": "(\w+)"', text[text.rfind('"event": "started"'):])[-1])


def versions(server: RunningServer) -> list[dict[str, Any]]:
    path = server.state_dir / "ladders" / "lost-cities" / VERSIONS_FILE
    return [json.loads(line) for line in path.read_text().splitlines()]


def only(keys: set[str], played: list[dict[str, Any]]) -> bool:
    """Whether every encounter of ``played`` is between ``keys`` and the house's random."""
    return all(k in keys or k.startswith("random@") for d in played for k in d["pair"])


def pairings(server: RunningServer) -> list[dict[str, Any]]:
    path = server.state_dir / "ladders" / "lost-cities" / PAIRINGS_FILE
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def submissions(server: RunningServer, who: str) -> list[Any]:
    return list(server.stub(who).ListSubmissions(pb.SubmissionsRequest(), timeout=30)
                .submissions)


