"""The Docker sandbox on its own: hardening, exit reporting, logs, janitor (real engine)."""

from __future__ import annotations

import asyncio
import json
import os
import socket
from pathlib import Path
from typing import Any

import pytest

from arena.bots.images import BaseImage
from arena.model import BotSpec
from arena.sandbox import hostview
from arena.sandbox.api import SOCKET_NAME, Limits
from arena.sandbox.docker import LABEL_MANAGED, LABEL_OWNER, DockerSandbox, janitor
from tests.support.containers import arena_containers, make_bot_dir

pytestmark = pytest.mark.docker

PROBE = r"""
import errno, json, os, socket
report = {"uid": os.getuid(), "gid": os.getgid()}
devices = open("/proc/net/dev").readlines()[2:]  # this network namespace's
report["interfaces"] = sorted(line.split(":")[0].strip() for line in devices)
try:
    open("/etc/owned", "w")
    report["root_write"] = "ok"
except OSError as exc:
    report["root_write"] = errno.errorcode[exc.errno]
with open("/tmp/x", "w") as f:
    f.write("fine")
report["tmp_write"] = "ok"
report["memtotal"] = open("/proc/meminfo").readline().split()[1:]
report["vmstat"] = len(open("/proc/vmstat").read())
report["sys"] = os.listdir("/sys")
status = open("/proc/self/status").read().splitlines()
report["status"] = {k: v.strip() for k, _, v in (l.partition(":") for l in status)}
try:
    socket.create_connection(("1.1.1.1", 53), timeout=1)
    report["network"] = "connected"
except OSError as exc:
    report["network"] = type(exc).__name__
target = os.environ["ARENA_SOCKET"].removeprefix("unix://")
s = socket.socket(socket.AF_UNIX)
s.connect(target)
s.sendall(json.dumps(report).encode() + b"\n")
s.close()
"""


def _listen(socket_dir: Path) -> socket.socket:
    socket_dir.mkdir(mode=0o755)
    socket_dir.chmod(0o755)
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(socket_dir / SOCKET_NAME))
    (socket_dir / SOCKET_NAME).chmod(0o777)
    server.listen(1)
    server.settimeout(30)
    return server


def _receive(server: socket.socket) -> dict[str, Any]:
    conn, _ = server.accept()
    data = b""
    while chunk := conn.recv(65536):
        data += chunk
    conn.close()
    return dict(json.loads(data))


def _spec(directory: Path) -> BotSpec:
    return BotSpec(
        name=directory.name,
        game="lost-cities",
        directory=str(directory),
        command=("python3", "bot.py"),
    )


def test_hardened_container_reaches_only_its_socket(
    base_image: BaseImage, docker_client: Any, tmp_path: Path
) -> None:
    bot_dir = make_bot_dir(tmp_path / "bots", PROBE)
    server = _listen(tmp_path / "sock")
    box = DockerSandbox()

    async def scenario() -> tuple[dict[str, Any], Any, dict[str, Any]]:
        bot = await box.start(_spec(bot_dir), tmp_path / "sock", "m-probe", 1)
        attrs = docker_client.containers.get(bot.container_id).attrs
        report = await asyncio.to_thread(_receive, server)
        info = await bot.wait()
        await bot.stop()
        return report, info, attrs

    report, info, attrs = asyncio.run(scenario())
    labels = attrs["Config"]["Labels"]
    assert attrs["Config"]["Healthcheck"] == {"Test": ["NONE"]}  # no image HEALTHCHECK runs
    assert info.exit_code == 0 and not info.oom_killed
    assert report["uid"] == 65534 and report["gid"] == 65534
    assert report["interfaces"] == ["lo"]
    assert report["root_write"] == "EROFS"
    assert report["tmp_write"] == "ok"
    assert report["network"] != "connected"
    assert report["status"]["CapEff"] == "0000000000000000"
    assert report["status"]["NoNewPrivs"] == "1"
    assert report["status"]["Seccomp"] == "2"
    assert report["memtotal"] == ["524288", "kB"]  # the limit, static (arena.sandbox.confine)
    assert report["vmstat"] == 0 and report["sys"] == []  # host-wide counters masked
    profile = [o for o in attrs["HostConfig"]["SecurityOpt"] if o.startswith("seccomp=")]
    assert len(profile) == (1 if hostview.seccomp_note() is None else 0)
    assert labels["arena.match"] == "m-probe" and labels["arena.seat"] == "1"
    assert labels[LABEL_MANAGED] == "1"
    assert not arena_containers(docker_client)


def test_exit_status_oom_and_kill_are_reported(
    base_image: BaseImage, docker_client: Any, tmp_path: Path
) -> None:
    exits = make_bot_dir(tmp_path / "a", "import sys\nprint('bye')\nsys.exit(3)\n", "exits")
    bomb = make_bot_dir(
        tmp_path / "b", "blocks = []\nwhile True:\n    blocks.append(bytearray(1 << 20))\n", "bomb"
    )
    sleeper = make_bot_dir(tmp_path / "c", "import time\ntime.sleep(60)\n", "sleeper")
    sock = tmp_path / "sock"
    sock.mkdir()
    box = DockerSandbox(Limits(memory_mb=128))

    async def scenario() -> list[Any]:
        first = await box.start(_spec(exits), sock, "m-exit", 0)
        second = await box.start(_spec(bomb), sock, "m-exit", 1)
        third = await box.start(_spec(sleeper), sock, "m-exit", 0)
        infos = [
            await asyncio.wait_for(first.wait(), 30),
            await asyncio.wait_for(second.wait(), 30),
        ]
        assert third.poll() is None
        infos.append(await third.stop())
        infos.append(await third.stop())  # idempotent
        await first.stop()
        await second.stop()
        return [*infos, first.log_tail()]

    code3, oom, killed, again, tail = asyncio.run(scenario())
    assert code3.exit_code == 3 and not code3.oom_killed and not code3.killed_by_arena
    assert oom.oom_killed
    assert killed.killed_by_arena and killed.signal == 9
    assert again == killed
    assert tail.strip() == "bye"
    assert not arena_containers(docker_client)


def test_log_tail_is_bounded(base_image: BaseImage, docker_client: Any, tmp_path: Path) -> None:
    chatty = make_bot_dir(
        tmp_path / "bots",
        "import sys\nline = 'x' * 1023 + '\\n'\nfor _ in range(50 * 1024):\n"
        "    sys.stdout.write(line)\nprint('THE END')\n",
        "chatty",
    )
    sock = tmp_path / "sock"
    sock.mkdir()

    async def scenario() -> str:
        bot = await DockerSandbox().start(_spec(chatty), sock, "m-chatty", 0)
        await asyncio.wait_for(bot.wait(), 60)
        await bot.stop()
        return bot.log_tail()

    tail = asyncio.run(scenario())
    assert 0 < len(tail.encode()) <= 64 * 1024
    assert tail.rstrip().endswith("THE END")
    assert not arena_containers(docker_client)


def test_janitor_removes_leftovers_of_dead_referees(
    base_image: BaseImage, docker_client: Any
) -> None:
    dead_owner = f"{socket.gethostname()}:{2**22 + 12345}"
    alive_owner = f"{socket.gethostname()}:{os.getppid()}"
    made = [
        docker_client.containers.create(
            base_image.image_id,
            ["sleep", "60"],
            network_mode="none",
            labels={LABEL_MANAGED: "1", LABEL_OWNER: owner},
        )
        for owner in (dead_owner, alive_owner)
    ]
    try:
        janitor(docker_client)  # its count may be 0: another worker's janitor can come first
        left = {c.id for c in docker_client.containers.list(  # sparse: another worker's
            all=True, sparse=True, filters={"label": f"{LABEL_MANAGED}=1"})}  # may go meanwhile
        assert made[0].id not in left  # its referee is gone
        assert made[1].id in left  # its referee (this test's parent process) lives
    finally:
        for container in made:
            try:
                container.remove(force=True)
            except Exception:  # noqa: BLE001 — already removed by the janitor
                pass
