"""Attacks on `arena serve`'s admin endpoint by another user of the host (issue 19, hole 9).

The endpoint starts matches of any bot on any server-side path and streams the omniscient view
of running ones, so only the user who started the server may use it, and nobody may stand in
for it. Real `arena serve` processes, real gRPC; the other user is uid 65534 (``setpriv``), so
these tests need root (CI runs as root: they never skip there).

* the default socket lives in a 0700 directory of the arena's data directory, made before bind
  (it was ``/tmp/arena-referee.sock``, a name any user could take first);
* a client refuses a socket in a directory another user could have planted it in (it used to
  take a fake referee's result as the match's);
* the server refuses to bind in such a directory;
* a loopback port needs the server's token (anyone on the host could play anything on it);
* the server, not the request, decides the sandbox (a request with ``sandbox="process"`` ran a
  bot as the server's user on a referee meant for containers).
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.errors import ConfigError
from arena.model import TimeControl
from arena.serve.access import check_listen_address, default_address
from arena.serve.client import run_on_referee, watch_on_referee
from arena.v1 import admin_pb2, admin_pb2_grpc
from tests.support.paths import RANDOM_BOT, ROOT

pytestmark = pytest.mark.integration

OTHER_UID = 65534
"""The other user of the host (nobody)."""
BOTS = [str(RANDOM_BOT), str(RANDOM_BOT)]


@pytest.fixture(autouse=True)
def _root_only() -> None:
    if os.geteuid() == 0:
        return
    message = "another user of the host is played by uid 65534 (setpriv needs root)"
    if os.environ.get("ARENA_REQUIRE_DOCKER") == "1":  # CI runs as root: never skip there
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture
def work() -> Iterator[Path]:
    """A directory every user can traverse (pytest's tmp_path is 0700: the other user could
    not even reach a socket in it, which would prove nothing)."""
    path = ROOT / f".serve-{uuid.uuid4().hex[:8]}"
    path.mkdir(mode=0o755)
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "ARENA_HOME": str(home), "COLUMNS": "1000"}


class Referee:
    """A real `arena serve` process; ``address`` is what it announced."""

    def __init__(self, args: list[str], home: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "arena", "serve", *args], cwd=ROOT,
            env=_env(home), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.output: list[str] = []
        self._ended = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.put(line)
        self.lines.put(None)

    def announced(self, timeout_s: float = 60) -> str | None:
        """The address it listens on, or None when it exited first."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                self._ended = True
                return None
            self.output.append(line)
            found = re.search(r"referee listening on:? (\S+) \(", line)
            if found:
                return found.group(1)
        raise AssertionError(f"the referee did not announce itself: {self.output}")

    def exit_code(self, timeout_s: float = 60) -> int:
        code = self.proc.wait(timeout_s)
        while not self._ended and (line := self.lines.get(timeout=10)) is not None:
            self.output.append(line)
        return code

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(20)


def _as_other_user(code: str, *args: str, wait: bool = True,
                   ) -> subprocess.CompletedProcess[str] | subprocess.Popen[str]:
    argv = ["setpriv", f"--reuid={OTHER_UID}", f"--regid={OTHER_UID}", "--clear-groups",
            sys.executable, "-c", code, *args]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT),
           "HOME": "/nonexistent"}
    if wait:
        return subprocess.run(argv, cwd="/", env=env, capture_output=True, text=True,
                              timeout=60, check=False)
    return subprocess.Popen(argv, cwd="/", env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


CONNECT = """
import errno, socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
    print("connected")
except OSError as exc:
    print(errno.errorcode.get(exc.errno, str(exc)))
"""


def test_the_default_socket_is_private_to_its_user(work: Path) -> None:
    home = work / "home"
    referee = Referee(["--sandbox", "process", "--log-dir", str(work / "logs")], home)
    try:
        address = referee.announced()
        assert address == f"unix://{home}/run/referee.sock", referee.output
        socket_path = Path(address.removeprefix("unix://"))
        run = socket_path.parent
        assert run.stat().st_mode & 0o777 == 0o700 and run.stat().st_uid == os.geteuid()
        assert socket_path.stat().st_mode & 0o077 == 0, oct(socket_path.stat().st_mode)
        other = _as_other_user(CONNECT, str(socket_path))
        assert other.stdout.strip() == "EACCES", other
        # the server's own user reaches it by the alias
        out = subprocess.run(
            [sys.executable, "-m", "arena", "match", *BOTS, "--seed", "3",
             "-o", "rounds=1", "--referee", "default"],
            cwd=ROOT, env=_env(home), capture_output=True, text=True, timeout=120, check=False)
        assert out.returncode == 0, out.stderr
    finally:
        referee.stop()
    assert not socket_path.exists()


FAKE_REFEREE = """
import asyncio, os, sys
import grpc
from arena.model import MatchResult, Termination
from arena.v1 import admin_pb2, admin_pb2_grpc
from arena.wire.admin import result_to_proto

FAKE = MatchResult(match_id="fake", game="lost-cities", game_version=1, seed=1, options={},
                   bots=("a", "b"), rounds=(), totals=(0, 0), winner=1,
                   termination=Termination.CRASH, faulty_seat=0,
                   detail="forged by another user", log=None, duration_s=1.0, decisions=0)

class Fake(admin_pb2_grpc.RefereeServiceServicer):
    async def StartMatch(self, request, context):
        print("called StartMatch", flush=True)
        return admin_pb2.StartMatchResponse(match_id="fake")
    async def GetMatch(self, request, context):
        return admin_pb2.GetMatchResponse(match_id="fake", status=admin_pb2.MATCH_STATUS_FINISHED,
                                          result=result_to_proto(FAKE))

async def main():
    os.umask(0)
    server = grpc.aio.server()
    admin_pb2_grpc.add_RefereeServiceServicer_to_server(Fake(), server)
    server.add_insecure_port("unix://" + sys.argv[1])
    await server.start()
    print("fake referee up", flush=True)
    await server.wait_for_termination()

asyncio.run(main())
"""


@pytest.mark.parametrize("planted_in", ["a world-writable directory",
                                        "a directory of the other user"])
def test_a_socket_planted_by_another_user_is_refused(planted_in: str, work: Path) -> None:
    drop = work / "drop"
    drop.mkdir()
    if planted_in == "a world-writable directory":
        drop.chmod(0o1777)  # as /tmp
    else:
        os.chown(drop, OTHER_UID, OTHER_UID)
    socket_path = drop / "referee.sock"
    fake = _as_other_user(FAKE_REFEREE, str(socket_path), wait=False)
    assert isinstance(fake, subprocess.Popen) and fake.stdout is not None
    try:
        for line in fake.stdout:  # (whatever gRPC may log first)
            if line.strip() == "fake referee up":
                break
        else:
            raise AssertionError(f"the fake referee did not start ({fake.wait()})")
        with pytest.raises(ConfigError, match="refusing to talk to a referee") as refused:
            run_on_referee(f"unix://{socket_path}", BOTS, None, 1, {}, TimeControl(), "")
        assert "another user could have put the socket there" in str(refused.value)
    finally:
        fake.terminate()
        rest = fake.communicate(timeout=20)[0]
    assert "called" not in rest


@pytest.mark.parametrize("where", ["world-writable", "tmp"])
def test_the_server_refuses_to_bind_where_others_can_write(where: str, work: Path) -> None:
    if where == "tmp":
        socket_path = Path(f"/tmp/arena-serve-test-{uuid.uuid4().hex[:8]}.sock")
    else:
        (work / "drop").mkdir()
        (work / "drop").chmod(0o777)
        socket_path = work / "drop" / "referee.sock"
    referee = Referee(["--listen", f"unix://{socket_path}", "--sandbox", "process"],
                      work / "home")
    try:
        assert referee.announced() is None, "it listened"
        assert referee.exit_code() == 2
    finally:
        referee.stop()
        socket_path.unlink(missing_ok=True)
    lines = [line for line in referee.output if line.strip()]
    assert len(lines) == 1 and "refusing to listen" in lines[0], referee.output
    assert "writable by other users" in lines[0]


def _calls(address: str, metadata: tuple[tuple[str, str], ...]) -> list[grpc.StatusCode]:
    """The status of each admin call made with ``metadata`` (OK when it answered)."""
    codes = []
    with grpc.insecure_channel(address) as channel:
        stub = admin_pb2_grpc.RefereeServiceStub(channel)
        calls = [
            lambda: stub.StartMatch(admin_pb2.StartMatchRequest(bots=BOTS, sandbox="process"),
                                    timeout=30, metadata=metadata),
            lambda: stub.ListMatches(admin_pb2.ListMatchesRequest(), timeout=30,
                                     metadata=metadata),
            lambda: stub.GetMatch(admin_pb2.GetMatchRequest(match_id="x"), timeout=30,
                                  metadata=metadata),
            lambda: list(stub.WatchMatch(admin_pb2.WatchMatchRequest(match_id="x"), timeout=30,
                                         metadata=metadata)),
        ]
        for call in calls:
            try:
                call()
                codes.append(grpc.StatusCode.OK)
            except grpc.RpcError as exc:
                codes.append(exc.code())
    return codes


def test_a_loopback_port_needs_the_token(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, logs = work / "home", work / "logs"
    referee = Referee(["--listen", "127.0.0.1:0", "--sandbox", "process", "--log-dir",
                       str(logs)], home)
    try:
        address = referee.announced()
        assert address is not None and re.fullmatch(r"127\.0\.0\.1:\d+", address), referee.output
        port = address.rpartition(":")[2]
        token_file = home / "run" / f"referee-{port}.token"
        assert token_file.stat().st_mode & 0o777 == 0o600
        token = token_file.read_text().strip()
        unauthenticated = [grpc.StatusCode.UNAUTHENTICATED] * 4
        assert _calls(address, ()) == unauthenticated
        assert _calls(address, (("authorization", "Bearer " + "x" * len(token)),)
                      ) == unauthenticated
        assert _calls(address, (("authorization", token),)) == unauthenticated
        with grpc.insecure_channel(address) as channel:  # health checks stay open
            health = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=10)
            assert health.status == health_pb2.HealthCheckResponse.SERVING
            listed = admin_pb2_grpc.RefereeServiceStub(channel).ListMatches(
                admin_pb2.ListMatchesRequest(), timeout=10,
                metadata=(("authorization", f"Bearer {token}"),))
        assert list(listed.matches) == [], "nothing was played"
        assert not logs.exists() or not any(logs.iterdir())
        monkeypatch.setenv("ARENA_HOME", str(home))  # the client finds the token itself
        result = run_on_referee(address, BOTS, None, 5, {"rounds": "1"}, TimeControl(), "")
        assert str(result.termination) == "normal"
        assert len(list(watch_on_referee(address, result.match_id))) > result.decisions
        monkeypatch.setenv("ARENA_REFEREE_TOKEN", "y" * 43)
        with pytest.raises(ConfigError, match="refused"):
            run_on_referee(address, BOTS, None, 5, {"rounds": "1"}, TimeControl(), "")
    finally:
        referee.stop()
    assert not token_file.exists(), "the token is withdrawn at exit"


@pytest.mark.unit
def test_a_client_without_the_token_file_is_told_what_to_do(
        work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_HOME", str(work / "home"))
    monkeypatch.delenv("ARENA_REFEREE_TOKEN", raising=False)
    with pytest.raises(ConfigError, match="no token for the referee on port 1.*ARENA_REFEREE"):
        run_on_referee("127.0.0.1:1", BOTS, None, 1, {}, TimeControl(), "")


def test_the_server_decides_the_sandbox(work: Path) -> None:
    from tests.support.containers import require_docker

    require_docker()
    private = work / "private"
    private.mkdir(mode=0o700)
    logs = work / "logs"
    address = f"unix://{private}/referee.sock"
    referee = Referee(["--listen", address, "--sandbox", "docker", "--log-dir", str(logs)],
                      work / "home")
    try:
        assert referee.announced() == address, referee.output
        with grpc.insecure_channel(address) as channel:
            stub = admin_pb2_grpc.RefereeServiceStub(channel)
            with pytest.raises(grpc.RpcError) as refused:
                stub.StartMatch(admin_pb2.StartMatchRequest(bots=BOTS, sandbox="process"),
                                timeout=30)
            assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
            assert "--allow-sandbox" in (refused.value.details() or "")
            assert list(stub.ListMatches(admin_pb2.ListMatchesRequest(), timeout=10).matches
                        ) == []
        out = subprocess.run(  # the command line: one line, exit 2
            [sys.executable, "-m", "arena", "match", *BOTS, "--sandbox", "process",
             "--referee", address], cwd=ROOT, env=_env(work / "home"), capture_output=True,
            text=True, timeout=120, check=False)
        assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
        assert "refused" in out.stderr
        assert not logs.exists() or not any(logs.iterdir()), "nothing was played"
    finally:
        referee.stop()
    allowing = Referee(["--listen", address, "--sandbox", "docker", "--allow-sandbox",
                        "process", "--log-dir", str(logs)], work / "home")
    try:
        assert allowing.announced() == address, allowing.output
        result = run_on_referee(address, BOTS, None, 5, {"rounds": "1"}, TimeControl(),
                                "process")
        assert str(result.termination) == "normal"
    finally:
        allowing.stop()


@pytest.mark.unit
def test_the_default_alias() -> None:
    assert check_listen_address("default") == default_address()
    assert default_address().endswith("/run/referee.sock")
