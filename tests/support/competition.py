"""A real competition server for the tests: `arena host` in a process of its own, TLS on
127.0.0.1, its own CA, two contestants (alice and bob), real Docker for the bots.

``make_server`` writes the competition file, the certificates and the contestants, starts the
server and waits until it listens; ``RunningServer`` holds what a client needs (address, the CA
to pin, each contestant's token) and can kill (-9) and restart it on the same state.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from arena.host.accounts import Accounts
from arena.host.config import load_competition
from arena.v1 import competition_pb2 as pb
from tests.support.paths import ROOT

START_TIMEOUT_S = 120.0


@dataclass
class RunningServer:
    """A competition server process and what its clients need."""

    file: Path
    state_dir: Path
    ca: Path
    tokens: dict[str, str]
    proc: subprocess.Popen[bytes] | None = None
    port: int = 0
    metrics_port: int = 0
    channels: list[grpc.Channel] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start (or restart) the server on its state; wait until it listens."""
        info = self.state_dir / "server.json"
        info.unlink(missing_ok=True)
        out = (self.state_dir.parent / "server.log").open("ab")
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self.env}
        self.proc = subprocess.Popen([sys.executable, "-m", "arena", "host",
                                      str(self.file)], stdout=out, stderr=subprocess.STDOUT,
                                     env=env, cwd=ROOT, start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"the server exited with {self.proc.returncode}:\n"
                                     + self.log()[-3000:])
            if info.exists():
                try:
                    data = json.loads(info.read_text())
                except ValueError:
                    data = {}
                if data.get("pid") == self.proc.pid:
                    self.port, self.metrics_port = data["port"], data["metrics_port"]
                    return
            time.sleep(0.2)
        raise AssertionError("the server did not start:\n" + self.log()[-3000:])

    def log(self) -> str:
        path = self.state_dir.parent / "server.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def kill9(self) -> None:
        """kill -9 the server (and what it started in its session: cluster workers)."""
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def end(self) -> None:
        """A test done with the server: kill -9 it and every process below it, then close the
        test's channels. Its kill -9 alone leaves what runs in sessions of their own (the
        sandboxed bots, the match-view workers) behind; its orderly ``stop`` kept its ladder
        playing for nobody 5-8 s more."""
        from tests.support.cluster import descendants

        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGSTOP)  # nothing new starts while it is read
            below = [pid for pid, _ in descendants(self.proc.pid)]
            os.killpg(self.proc.pid, signal.SIGKILL)
            for pid in below:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            self.proc.wait(timeout=30)
        self.stop()

    def stop(self) -> None:
        for channel in self.channels:
            channel.close()
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=30)

    def stub(self, who: str | None, ca: Path | None = None) -> Any:
        """A client stub with ``who``'s token (None: no token), pinning the server's CA."""
        from arena.v1 import competition_pb2_grpc as pb_grpc

        credentials = grpc.ssl_channel_credentials(root_certificates=(ca or self.ca).read_bytes())
        channel = grpc.secure_channel(self.address, credentials)
        self.channels.append(channel)
        stub = pb_grpc.CompetitionServiceStub(channel)
        if who is None:
            return stub
        return _WithToken(stub, self.tokens.get(who, who))


class OneAtATime:
    """A module's servers, one running at a time: asking for one ends the one running (whose
    ladder would go on playing for nobody, a core's share of the machine: ``RunningServer.end``);
    a server asked for again after it was ended starts again on its state. The module's tests
    come grouped by server, so each starts once."""

    def __init__(self, makers: dict[str, Callable[[], RunningServer]]) -> None:
        self._makers = makers
        self._made: dict[str, RunningServer] = {}
        self._running: str | None = None

    def get(self, name: str) -> RunningServer:
        if self._running not in (None, name):
            self._made[self._running].end()
        self._running = None
        server = self._made.get(name)
        if server is None:
            server = self._made[name] = self._makers[name]()
        if server.proc is None or server.proc.poll() is not None:
            server.start()
        self._running = name
        return server

    def stop(self) -> None:
        for server in self._made.values():
            server.end()


class _WithToken:
    """Every call of ``stub`` with the token as metadata."""

    def __init__(self, stub: Any, token: str) -> None:
        self._stub = stub
        self._metadata = (("authorization", f"Bearer {token}"),)

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._stub, name)
        return lambda *args, **kwargs: method(*args, metadata=self._metadata, **kwargs)


COMPETITION = """\
[competition]
name = "t"
sandbox = "{sandbox}"

[server]
listen = "127.0.0.1:0"
tls_cert = "certs/server.pem"
tls_key = "certs/server.key"
metrics = "127.0.0.1:0"
{server}
[site]
refresh_s = {site_refresh_s}

[visibility]
logs = "{logs}"

[quotas]
max_upload_mb = {max_upload_mb}
max_image_upload_mb = {max_image_upload_mb}
submissions_per_day = {per_day}
active_bots = {active_bots}

[games.lost-cities]
reference = "random"
house = ["random"]

[games.lost-cities.ladder]
seed = 7
concurrency = 1
duplicate = true

[games.lost-cities.ladder.options]
rounds = 1

[games.lost-cities.ladder.schedule]
placement = 1
refresh_s = 1

[games.lost-cities.ladder.time_control]
move_time_ms = 2000
time_bank_ms = 5000
"""


def make_server(root: Path, **settings: Any) -> RunningServer:
    """A competition under ``root`` (file, certificates, alice and bob), not started;
    ``settings`` fill the file's blanks (``server``: more lines of its ``[server]`` table)."""
    from arena.host.accounts import Accounts
    from arena.host.certs import make_server_certs
    from arena.host.config import load_competition

    values = {"sandbox": "docker", "logs": "own-seat", "max_upload_mb": 5,
              "max_image_upload_mb": 512, "per_day": 5, "active_bots": 3, "site_refresh_s": 1,
              "server": ""}
    values.update(settings)
    root.mkdir(parents=True, exist_ok=True)
    file = root / "competition.toml"
    file.write_text(COMPETITION.format(**values))
    make_server_certs(root / "certs", ["127.0.0.1", "localhost"])
    competition = load_competition(file)
    accounts = Accounts.open(competition.database)
    tokens = {name: accounts.add(name) for name in ("alice", "bob")}
    return RunningServer(file, competition.state_dir, root / "certs" / "ca.pem", tokens)


REST_S = 4
"""A house server's ladder rests this long between the starts of two matches: its tests need a
match or a few, and a ladder that plays flat out took 0.8 of a core for as long as the server ran
(0.02 idle), beside the rest of the suite."""


def house_server(root: Path, logs: str = "own-seat",
                 house: tuple[str, ...] = ("random", "greedy"),
                 rest_s: float = REST_S) -> RunningServer:
    """A competition in the process sandbox whose ladder plays the house's ``house`` sample
    bots (``rest_s`` between the starts of its matches), greedy assigned to alice; not
    started."""
    server = make_server(root, sandbox="process", logs=logs)
    server.file.write_text(server.file.read_text().replace(
        'house = ["random"]', f"house = {json.dumps(list(house))}"))
    rested(server, rest_s)
    Accounts.open(load_competition(server.file).database).assign("greedy", "alice")
    return server


def rested(server: RunningServer, rest_s: float = REST_S) -> RunningServer:
    """``server`` (not started) whose continuous ladder starts a leg no sooner than ``rest_s``
    after the one before (its first leg at once): for tests that need a match or a few, not a
    ladder playing flat out beside them."""
    schedule = "[games.lost-cities.ladder.schedule]\n"
    text = server.file.read_text()
    assert schedule in text and "rest_s" not in text
    server.file.write_text(text.replace(schedule, f"{schedule}rest_s = {rest_s}\n"))
    return server


def house_servers(root: Path, *settings: str) -> OneAtATime:
    """A ``house_server`` for each log visibility setting in ``settings`` (in ``root/SETTING``),
    one running at a time (``OneAtATime``, by setting)."""
    def maker(setting: str) -> Callable[[], RunningServer]:
        return lambda: house_server(root / setting, setting)

    return OneAtATime({setting: maker(setting) for setting in settings})


def finished_match(server: RunningServer) -> tuple[str, int]:
    """A recorded match and greedy's seat in it (waiting for the ladder to play one)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        page = server.stub("bob").ListMatches(pb.MatchesRequest(limit=5), timeout=30).matches
        if page:
            return page[0].match_id, list(page[0].names).index("greedy")
        time.sleep(0.5)
    raise AssertionError("the ladder recorded no match:\n" + server.log()[-2000:])


def wait_for(what: str, check: Callable[[], Any], server: RunningServer | None = None, *,
             timeout: float = 300, every: float = 0.2) -> Any:
    """``check()``'s first truthy value, asked every ``every`` s; after ``timeout`` s an
    ``AssertionError`` naming ``what`` (with the end of ``server``'s log, when given)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every)
    log = f":\n{server.log()[-3000:]}" if server is not None else ""
    raise AssertionError(f"timed out waiting for {what}{log}")

