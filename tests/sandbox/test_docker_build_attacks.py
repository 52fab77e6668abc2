"""A hostile bot's Dockerfile and build context against the real engine (issue 19, hole 6 and
the build half of hole 1): the daemon builds only what the arena writes.

Each attack here succeeded before the arena wrote the build context and the Dockerfile itself:
``ADD`` made the daemon fetch a URL from the host's network, ``COPY --from`` copied another
author's submitted image, a hidden file went into the image without being in the bot's identity,
a symlink was built in, ``VOLUME``, ``EXPOSE``, ``USER root`` made images the arena then ran, and
nothing bounded a build's time or the image's size. Servers started here listen on 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import http.server
import io
import tarfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import docker.errors
import pytest
from typer.testing import CliRunner

from arena.bots.files import BotFileError, bot_files
from arena.bots.images import (
    BUILD_TIMEOUT_ENV,
    BaseImage,
    DockerfileError,
    build_bot_image,
)
from arena.errors import ConfigError
from tests.support.paths import RANDOM_BOT

pytestmark = pytest.mark.docker

HEAD = "ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\n"
"""Lines 1-2 of every attack; the attack is on line 3."""
TAIL = 'WORKDIR /bot\nCOPY . /bot\nUSER 65534:65534\nCMD ["python3", "bot.py"]\n'
STATIC_REFUSAL_S = 10.0
"""A refused Dockerfile is refused before the engine is asked anything: well within this."""

WriteBot = Callable[[str], Path]


@pytest.fixture
def nonce() -> str:
    """A label value no other build has: which images an attack made, if any."""
    return uuid.uuid4().hex


@pytest.fixture
def write_bot(tmp_path: Path, nonce: str) -> WriteBot:
    """A copy of the random bot with the given Dockerfile (and the nonce's label after it)."""

    def write(dockerfile: str) -> Path:
        bot = tmp_path / f"bot-{uuid.uuid4().hex[:8]}"
        bot.mkdir()
        for name in ("bot.py", "bot.toml"):
            (bot / name).write_bytes((RANDOM_BOT / name).read_bytes())
        (bot / "Dockerfile").write_text(f"{dockerfile}LABEL test.nonce={nonce}\n")
        return bot

    return write


def images_of(client: Any, nonce: str) -> list[Any]:
    """The images an attack's build produced (its final image carries the nonce's label)."""
    return list(client.images.list(filters={"label": f"test.nonce={nonce}"}))


def refused(
    bot: Path, client: Any, nonce: str, line: int, fragment: str
) -> DockerfileError:
    """Build ``bot``: it must be refused at once naming ``line``, and no image made."""
    started = time.monotonic()
    with pytest.raises(DockerfileError) as raised:
        build_bot_image(bot, client=client)
    assert time.monotonic() - started < STATIC_REFUSAL_S
    message = str(raised.value)
    assert f"Dockerfile line {line}: " in message and fragment in message, message
    assert "\n" not in message
    assert images_of(client, nonce) == []
    return raised.value


def bot_listing(client: Any, image_id: str) -> dict[str, int]:
    """The regular files under /bot of an image (path below /bot: mode), read without running
    it."""
    container = client.containers.create(image_id, command=["none"])
    try:
        stream, _ = container.get_archive("/bot")
        data = b"".join(stream)
    finally:
        container.remove(force=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        return {m.name.removeprefix("bot/"): m.mode for m in tar.getmembers() if m.isfile()}


# --- the network: ADD of a URL ---------------------------------------------------------------
class _Recorder(http.server.BaseHTTPRequestHandler):
    seen: list[str]

    def do_GET(self) -> None:  # noqa: N802 — the stdlib's name
        self.seen.append(self.path)
        body = b"fetched from the host's network\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 — the stdlib's name
        return


@pytest.fixture
def http_server() -> Iterator[tuple[str, list[str]]]:
    """An HTTP server on 127.0.0.1 (a stand-in for a metadata endpoint or an internal service)
    and the paths it was asked for."""
    seen: list[str] = []
    handler = type("Recorder", (_Recorder,), {"seen": seen})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("spelling", [
    "ADD {url}/x /x\n", "add {url}/x /x\n", "a\\\ndd {url}/x /x\n", 'ADD ["{url}/x", "/x"]\n',
])
def test_add_of_a_url_is_refused_and_fetches_nothing(
    spelling: str, http_server: tuple[str, list[str]], base_image: BaseImage,
    docker_client: Any, write_bot: WriteBot, nonce: str,
) -> None:
    url, seen = http_server
    bot = write_bot(HEAD + spelling.format(url=url) + TAIL)
    refused(bot, docker_client, nonce, 3, "ADD: not allowed: ADD fetches URLs")
    time.sleep(0.5)  # a fetch would have arrived by now (it never starts)
    assert seen == []


# --- other images: COPY --from, FROM ------------------------------------------------------------
@pytest.fixture
def rival(docker_client: Any, nonce: str) -> Iterator[str]:
    """Another author's submitted bot: a tiny image tagged as the arena keeps them, holding the
    rival's code in /bot."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        code = b"the rival's secret strategy\n"
        info = tarfile.TarInfo("bot/strategy.py")
        info.size = len(code)
        tar.addfile(info, io.BytesIO(code))
    tag = f"arena-bot/rival-{nonce[:12]}:2"
    repository, version = tag.split(":")
    docker_client.api.import_image_from_data(buffer.getvalue(), repository=repository,
                                             tag=version)
    try:
        yield tag
    finally:
        with contextlib.suppress(docker.errors.APIError):
            docker_client.images.remove(tag, force=True)


@pytest.mark.parametrize("copy", [
    "COPY --from={rival} /bot /rival\n",
    "copy --from={rival} /bot /rival\n",
    "COPY --fr\\\nom={rival} /bot /rival\n",
    "COPY \\\n# the flag is on the next line\n  --from={rival} /bot /rival\n",
    'COPY --fr"om"={rival} /bot /rival\n',
    'COPY ["--from={rival}", "/bot", "/rival"]\n',
])
def test_copy_from_another_bots_image_is_refused(
    copy: str, rival: str, base_image: BaseImage, docker_client: Any, write_bot: WriteBot,
    nonce: str,
) -> None:
    bot = write_bot(HEAD + copy.format(rival=rival) + TAIL)
    refused(bot, docker_client, nonce, 3, "COPY: ")


@pytest.mark.parametrize("image", ["{rival}", "some/missing:image"])
def test_from_any_image_but_the_base_is_refused(
    image: str, rival: str, base_image: BaseImage, docker_client: Any, write_bot: WriteBot,
    nonce: str,
) -> None:
    """Neither another author's image nor one the daemon would pull."""
    bot = write_bot("ARG BASE_IMAGE\nFROM " + image.format(rival=rival) + "\n" + TAIL)
    refused(bot, docker_client, nonce, 2, "is not allowed: build FROM ${BASE_IMAGE}")


# --- what runs in the daemon, and what the image asks for ----------------------------------
@pytest.mark.parametrize(("line", "fragment"), [
    ("RUN head -c 200G /dev/zero > /f\n", "RUN: not allowed"),
    ("RUN sleep infinity\n", "RUN: not allowed"),
    ("VOLUME /data\n", "VOLUME: not allowed"),
    ("EXPOSE 80\n", "EXPOSE: not allowed"),
    ("USER root\n", "a bot never runs as root"),
    ("HEALTHCHECK CMD sleep 1\n", "HEALTHCHECK: not allowed"),
    ("ONBUILD COPY . /elsewhere\n", "ONBUILD: not allowed"),
])
def test_instructions_that_run_or_reach_something_are_refused_at_once(
    line: str, fragment: str, base_image: BaseImage, docker_client: Any, write_bot: WriteBot,
    nonce: str,
) -> None:
    bot = write_bot(HEAD + line + TAIL)
    refused(bot, docker_client, nonce, 3, fragment)


def test_a_parser_directive_is_refused(
    base_image: BaseImage, docker_client: Any, write_bot: WriteBot, nonce: str
) -> None:
    bot = write_bot("# syntax=docker/dockerfile:1\n" + HEAD + TAIL)
    refused(bot, docker_client, nonce, 1, "parser directive")


# --- the build context: exactly the bot's files ---------------------------------------------
def test_the_image_holds_exactly_the_bots_files(
    base_image: BaseImage, docker_client: Any, write_bot: WriteBot, nonce: str
) -> None:
    """A hidden file (not in the bot's identity) is not built in; the arena's Dockerfile and its
    ignore file are gone from the context before COPY; modes follow the execute bit."""
    bot = write_bot(HEAD + TAIL)
    (bot / ".secret").write_text("not part of the bot's identity\n")
    (bot / ".dockerignore").write_text("bot.py\n")  # the author's: plays no part
    (bot / "lib").mkdir()
    (bot / "lib" / "run.sh").write_text("#!/bin/sh\n")
    (bot / "lib" / "run.sh").chmod(0o700)
    (bot / "lib" / ".cache").mkdir()
    (bot / "lib" / ".cache" / "x").write_text("x")
    built = build_bot_image(bot, client=docker_client)
    try:
        listing = bot_listing(docker_client, built.image_id)
        assert sorted(listing) == [f.rel for f in bot_files(bot)]
        assert sorted(listing) == ["Dockerfile", "bot.py", "bot.toml", "lib/run.sh"]
        assert listing["lib/run.sh"] & 0o777 == 0o755 and listing["bot.py"] & 0o777 == 0o644
        assert [i.id for i in images_of(docker_client, nonce)] == [built.image_id]
    finally:
        docker_client.images.remove(built.image_id, force=True)


def test_a_symlink_in_the_bot_directory_refuses_the_build(
    base_image: BaseImage, docker_client: Any, write_bot: WriteBot, nonce: str, tmp_path: Path
) -> None:
    secret = tmp_path / "deal-secret"
    secret.write_text("the ladder's deal secret\n")
    bot = write_bot(HEAD + TAIL)
    (bot / "notes.txt").symlink_to(secret)
    with pytest.raises(BotFileError, match="notes.txt is a symlink"):
        build_bot_image(bot, client=docker_client)
    assert images_of(docker_client, nonce) == []


def test_continuations_and_comments_build_what_they_say(
    base_image: BaseImage, docker_client: Any, write_bot: WriteBot, nonce: str
) -> None:
    """The daemon reads the arena's one-line instructions as the author's lines meant them."""
    bot = write_bot(
        "arg BASE_IMAGE\nfrom ${BASE_IMAGE}\nworkdir /bot\n"
        "copy \\\n  # only the code\n  bot.py \\\n\n  bot.toml /bot/\n"
        "user 65534:65534\ncmd [\"python3\", \\\n  \"bot.py\"]\n"
    )
    built = build_bot_image(bot, client=docker_client)
    try:
        assert sorted(bot_listing(docker_client, built.image_id)) == ["bot.py", "bot.toml"]
        config = docker_client.images.get(built.image_id).attrs["Config"]
        assert config["Cmd"] == ["python3", "bot.py"] and config["WorkingDir"] == "/bot"
    finally:
        docker_client.images.remove(built.image_id, force=True)


# --- bounds: time and size -----------------------------------------------------------------
def _nonce_images(client: Any, nonce: str) -> list[Any]:
    """Every image (intermediate ones too) whose environment carries the nonce."""
    return [i for i in client.images.list(all=True)
            if any(nonce in e for e in i.attrs["Config"].get("Env") or [])]


def test_a_build_over_the_time_limit_is_cancelled_in_the_daemon(
    base_image: BaseImage, docker_client: Any, write_bot: WriteBot, nonce: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """97 ENV lines: the daemon commits an image for each, several seconds in all; with a 1 s
    limit the build is given up at 1 s, and the daemon stops there (no more steps, no final
    image), not at the end of the Dockerfile."""
    steps = 97
    bot = write_bot(HEAD + "".join(f"ENV V{i}={nonce}\n" for i in range(steps)))
    monkeypatch.setenv(BUILD_TIMEOUT_ENV, "1")
    started = time.monotonic()
    with pytest.raises(ConfigError, match=f"took over 1 s and was cancelled .{BUILD_TIMEOUT_ENV}"):
        build_bot_image(bot, client=docker_client)
    assert time.monotonic() - started < 30
    try:
        counts = [len(_nonce_images(docker_client, nonce))]
        deadline = time.monotonic() + 120
        while (len(counts) < 3 or len(set(counts[-3:])) > 1) and time.monotonic() < deadline:
            time.sleep(2)
            counts.append(len(_nonce_images(docker_client, nonce)))
        assert len(set(counts[-3:])) == 1, counts  # the daemon stopped committing steps
        assert counts[-1] < steps, counts
        assert images_of(docker_client, nonce) == []  # and never made the final image
    finally:
        left = sorted(_nonce_images(docker_client, nonce),
                      key=lambda i: -len(i.attrs["Config"].get("Env") or []))
        for image in left:  # the newest step first: each is the parent of the next
            with contextlib.suppress(docker.errors.APIError):
                docker_client.images.remove(image.id, force=True)


def test_an_image_over_the_size_cap_is_refused_and_removed(
    base_image: BaseImage, docker_client: Any, write_bot: WriteBot, nonce: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bot = write_bot(HEAD + TAIL)
    monkeypatch.setenv("ARENA_MAX_IMAGE_MB", "1")  # the base alone is bigger
    with pytest.raises(ConfigError, match="over the cap of 1 MiB .ARENA_MAX_IMAGE_MB"):
        build_bot_image(bot, client=docker_client)
    assert images_of(docker_client, nonce) == []


def test_a_bad_time_limit_is_a_config_error(
    docker_client: Any, write_bot: WriteBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(BUILD_TIMEOUT_ENV, "soon")
    with pytest.raises(ConfigError, match=f"{BUILD_TIMEOUT_ENV}='soon': give a positive"):
        build_bot_image(write_bot(HEAD + TAIL), client=docker_client)


# --- the operator's view -------------------------------------------------------------------
def test_submit_refuses_a_run_line_with_one_line_and_exit_2(
    base_image: BaseImage, docker_client: Any, write_bot: WriteBot, nonce: str,
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from arena.bots.home import HOME_ENV
    from arena.cli.main import app

    monkeypatch.setenv(HOME_ENV, str(tmp_path / "home"))
    bot = write_bot(HEAD + "RUN sleep infinity\n" + TAIL)
    started = time.monotonic()
    out = CliRunner().invoke(app, ["submit", str(bot), "--name", "runner", "--version", "1"])
    assert time.monotonic() - started < 60
    assert out.exit_code == 2, out.output
    said = "".join(out.output.split())  # the console wraps long lines, even inside words
    assert said.count("error:") == 1 and "Dockerfileline3:RUN:notallowed" in said, out.output
    assert "Traceback" not in out.output
    assert images_of(docker_client, nonce) == []
