"""The contestant's client (``arena.host.client``) and its commands (``arena login``,
``standings``, ``matches``, ``submissions``, ``logs``, ``submit --server``, ``watch --server``)
against a real gRPC server with TLS on 127.0.0.1: a scripted ``CompetitionService`` that records
what reached it and answers what a test tells it to (the real server's end-to-end tests are in
test_remote_cli.py). Real certificates (two CAs), real sockets, a real Docker engine for images.

Attacks covered: a server with a certificate of another CA (an impostor at the address) never
receives the token; a symlink in a bot directory (a secret of the contestant's machine packed
into the upload) is refused before any connection; a profile file others can read is refused;
texts from the server (messages, build output, boards, bot output) reach the terminal without
escape sequences; a download cut half-way leaves no file."""

from __future__ import annotations

import hashlib
import io
import json
import os
import socket
import stat
import tarfile
import tempfile
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
import typer
from typer.testing import CliRunner

from arena.bots.files import bot_files
from arena.cli import bots_cmds, remote_cmds, results_cmds, watch_cmds
from arena.cluster.security import CertFiles, make_certs
from arena.errors import ConfigError
from arena.host import client as hc
from arena.v1 import competition_pb2 as pb
from arena.v1 import competition_pb2_grpc as pb_grpc
from tests.support.terminal import ESCAPES, UNSAFE, flat

pytestmark = pytest.mark.integration

TOKEN = "arena_0123456789ab_" + "s" * 43
runner = CliRunner(env={"COLUMNS": "400"})  # wide: rich wraps no message


def cli_app() -> typer.Typer:
    """A root app with the contestant's commands (as `arena` registers them)."""
    app = typer.Typer()
    for module in (remote_cmds, results_cmds, bots_cmds, watch_cmds):
        module.register(app)
    return app


# --- a scripted server -----------------------------------------------------------------------
@dataclass
class Scripted(pb_grpc.CompetitionServiceServicer):  # type: ignore[misc]
    """A CompetitionService that records each call (method, metadata) and answers from its
    script; ``refuse[method]`` aborts that method with (code, details)."""

    calls: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    refuse: dict[str, tuple[grpc.StatusCode, str]] = field(default_factory=dict)
    start: Any = None
    received: bytearray = field(default_factory=bytearray)
    cut_at: int | None = None
    events: list[Any] = field(default_factory=list)
    frames: list[Any] = field(default_factory=list)
    watched: list[Any] = field(default_factory=list)
    log_chunks: list[Any] = field(default_factory=list)
    log_breaks: bool = False

    def _enter(self, method: str, context: Any) -> None:
        self.calls.append((method, dict(context.invocation_metadata())))
        if method in self.refuse:
            context.abort(*self.refuse[method])

    def WhoAmI(self, request: Any, context: Any) -> Any:
        self._enter("WhoAmI", context)
        return pb.WhoAmIReply(
            contestant="alice", competition="cup",
            games=[pb.GameInfo(game="lost-cities", reference="greedy")],
            quotas=pb.Quotas(max_upload_bytes=5 << 20, submissions_per_day=5, active_bots=3,
                             used_today=1),
            logs="own-seat", bots=["alpha"])

    def Submit(self, request_iterator: Any, context: Any) -> Iterator[Any]:
        self._enter("Submit", context)
        for request in request_iterator:
            if request.HasField("start"):
                self.start = request.start
                continue
            self.received += request.chunk
            if self.cut_at is not None and len(self.received) > self.cut_at:
                context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                              f"the upload passed {self.cut_at} bytes (max_upload_mb)")
        yield from self.events

    def FollowSubmission(self, request: Any, context: Any) -> Iterator[Any]:
        self._enter("FollowSubmission", context)
        yield from self.events

    def ListSubmissions(self, request: Any, context: Any) -> Any:
        self._enter("ListSubmissions", context)
        return pb.SubmissionsReply(submissions=[pb.Submission(
            submission_id=3, game="lost-cities", name="alpha", version="s3",
            stage=pb.REFUSED, message="build failed\x1b[2J", size=2048, counted=True,
            match_ids=["s3-self"])])

    def Standings(self, request: Any, context: Any) -> Any:
        self._enter("Standings", context)
        rows = [pb.StandingRow(rank=1, name="alpha", version="s3", rating=1612.4, low=1580,
                               high=1644, matches=40, wins=30, draws=2, losses=8,
                               owner="alice", current=True),
                pb.StandingRow(rank=2, name="greedy" + ESCAPES, version="1", rating=1490,
                               low=1450, high=1530, matches=40, wins=8, draws=2, losses=30)]
        return pb.StandingsReply(games=[pb.GameStandings(
            game="lost-cities", ladder="cup-lost-cities", rows=rows, matches=40)])

    def ListMatches(self, request: Any, context: Any) -> Any:
        self._enter("ListMatches", context)
        row = pb.MatchRow(match_id="m-41", game="lost-cities", names=["alpha", "greedy"],
                          versions=["s3", "1"], points=[61, 20], winner=0,
                          termination="normal", finished_at="2025-01-02T03:04:05Z",
                          kind="ladder")
        return pb.MatchesReply(matches=[row], next="cursor-40")

    def WatchMatch(self, request: Any, context: Any) -> Iterator[Any]:
        self._enter("WatchMatch", context)
        self.watched.append(request)
        yield from self.frames

    def GetLog(self, request: Any, context: Any) -> Iterator[Any]:
        self._enter("GetLog", context)
        yield from self.log_chunks
        if self.log_breaks:
            context.abort(grpc.StatusCode.INTERNAL, "the log store went away")

    def GetBotOutput(self, request: Any, context: Any) -> Any:
        self._enter("GetBotOutput", context)
        return pb.BotOutputReply(seat=1, output="thinking\x1b]52;c;cHduZWQ=\x07 done\n")


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> tuple[CertFiles, CertFiles]:
    """The competition's CA with a certificate for 127.0.0.1, and another CA's."""
    root = tmp_path_factory.mktemp("certs")
    return (make_certs(root / "good", ["127.0.0.1"], ca_name="competition CA"),
            make_certs(root / "other", ["127.0.0.1"], ca_name="impostor CA"))


@pytest.fixture
def server(certs: tuple[CertFiles, CertFiles]) -> Iterator[tuple[Scripted, str]]:
    """The scripted service on 127.0.0.1 with the competition CA's certificate."""
    scripted = Scripted()
    grpc_server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    pb_grpc.add_CompetitionServiceServicer_to_server(scripted, grpc_server)
    host = certs[0].hosts["127.0.0.1"]
    port = grpc_server.add_secure_port("127.0.0.1:0", grpc.ssl_server_credentials(
        [(host.key.read_bytes(), host.cert.read_bytes())]))
    grpc_server.start()
    yield scripted, f"127.0.0.1:{port}"
    grpc_server.stop(None)


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A profile file of the test's own (not yet written), no server in the environment."""
    path = tmp_path / "home" / ".config" / "arena" / "client.toml"
    monkeypatch.setenv(hc.CONFIG_ENV, str(path))
    for name in (hc.SERVER_ENV, hc.CA_ENV, hc.TOKEN_ENV):
        monkeypatch.delenv(name, raising=False)
    return path


@pytest.fixture
def cup(config: Path, server: tuple[Scripted, str], certs: tuple[CertFiles, CertFiles]
        ) -> Scripted:
    """A saved profile ``cup`` for the scripted server, pinning the competition CA."""
    hc.save_profile(hc.Profile("cup", server[1], certs[0].ca.read_text(), TOKEN))
    return server[0]


def bot_dir(root: Path) -> Path:
    directory = root / "mybot"
    (directory / "lib").mkdir(parents=True)
    (directory / "bot.toml").write_text('name = "alpha"\ngame = "lost-cities"\n'
                                        'command = ["python", "bot.py"]\n')
    (directory / "bot.py").write_text("print('hi')\n")
    (directory / "lib" / "run.sh").write_text("#!/bin/sh\n")
    (directory / "lib" / "run.sh").chmod(0o755)
    (directory / ".git").mkdir()
    (directory / ".git" / "config").write_text("[core]\n")
    (directory / "__pycache__").mkdir()
    (directory / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0")
    (directory / ".env").write_text("SECRET=1\n")
    return directory


# --- profiles --------------------------------------------------------------------------------
@pytest.mark.unit
def test_profiles_are_private_atomic_and_round_trip(config: Path,
                                                    certs: tuple[CertFiles, CertFiles]) -> None:
    ca = certs[0].ca.read_text()
    first = hc.Profile("cup", "127.0.0.1:7443", ca, TOKEN)
    second = hc.Profile("league-2", "arena.example.org:443", ca, "arena_ffffffffffff_x-y")
    assert hc.save_profile(first) == config
    hc.save_profile(second)
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert stat.S_IMODE(config.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(config.parent.parent.stat().st_mode) == 0o700
    assert hc.read_profiles() == {"cup": first, "league-2": second}
    replaced = hc.Profile("cup", "127.0.0.1:7444", ca, TOKEN)
    hc.save_profile(replaced)
    assert hc.read_profiles()["cup"] == replaced
    assert sorted(p.name for p in config.parent.iterdir()) == ["client.toml"]  # no temp left


@pytest.mark.unit
def test_a_profile_file_others_can_read_is_refused(config: Path,
                                                   certs: tuple[CertFiles, CertFiles]) -> None:
    hc.save_profile(hc.Profile("cup", "127.0.0.1:7443", certs[0].ca.read_text(), TOKEN))
    config.chmod(0o644)
    with pytest.raises(ConfigError, match="chmod 600"):
        hc.read_profiles()
    out = runner.invoke(cli_app(), ["standings", "--server", "cup"])
    assert out.exit_code == 2, out.output
    assert f"run `chmod 600 {config}`" in flat(out.stderr)
    assert TOKEN not in out.output


@pytest.mark.unit
def test_a_malformed_profile_names_the_key(config: Path) -> None:
    config.parent.mkdir(parents=True)
    config.write_text('[servers.cup]\naddress = "127.0.0.1:7443"\nca = "x"\ntoken = "t"\n')
    config.chmod(0o600)
    with pytest.raises(ConfigError, match=r"\[servers.cup\] ca .*not a PEM certificate"):
        hc.read_profiles()
    config.write_text('[servers.cup]\naddress = "127.0.0.1:7443"\n')
    with pytest.raises(ConfigError, match=r"\[servers.cup\] ca: missing"):
        hc.read_profiles()


@pytest.mark.unit
def test_the_environment_overrides_or_replaces_a_profile(
        config: Path, certs: tuple[CertFiles, CertFiles]) -> None:
    good, other = certs[0].ca, certs[1].ca
    hc.save_profile(hc.Profile("cup", "127.0.0.1:7443", good.read_text(), TOKEN))
    assert hc.profile("cup", {}).address == "127.0.0.1:7443"
    overridden = hc.profile("cup", {hc.SERVER_ENV: "127.0.0.1:9000",
                                    hc.TOKEN_ENV: "arena_000000000000_ci\n"})
    assert (overridden.address, overridden.token) == ("127.0.0.1:9000", "arena_000000000000_ci")
    assert overridden.ca == good.read_text()
    env_only = hc.profile(None, {hc.SERVER_ENV: "127.0.0.1:9001", hc.CA_ENV: str(other),
                                 hc.TOKEN_ENV: TOKEN})
    assert (env_only.name, env_only.address, env_only.ca) == (
        hc.ENV_PROFILE, "127.0.0.1:9001", other.read_text())
    with pytest.raises(ConfigError, match=f"{hc.CA_ENV} and {hc.TOKEN_ENV} not"):
        hc.profile(None, {hc.SERVER_ENV: "127.0.0.1:9001"})
    with pytest.raises(ConfigError, match="arena login nope"):
        hc.profile("nope", {})
    with pytest.raises(ConfigError, match="name a server"):
        hc.profile(None, {})
    with pytest.raises(ConfigError, match="HOST:PORT"):
        hc.profile(None, {hc.SERVER_ENV: "127.0.0.1", hc.CA_ENV: str(good), hc.TOKEN_ENV: TOKEN})
    with pytest.raises(ConfigError, match="not a PEM certificate"):
        hc.profile("cup", {hc.CA_ENV: str(config)})


# --- payloads --------------------------------------------------------------------------------
@pytest.mark.unit
def test_the_directory_payload_is_exactly_the_files_the_arena_reads(tmp_path: Path) -> None:
    directory = bot_dir(tmp_path)
    expected = {f.rel: f for f in bot_files(directory)}
    with hc.payload(directory, "directory") as load:
        data = load.path.read_bytes()
        assert stat.S_IMODE(load.path.stat().st_mode) == 0o600
        assert (load.kind, load.size, load.sha256) == (
            "directory", len(data), hashlib.sha256(data).hexdigest())
    assert not load.path.exists()
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        members = {m.name: m for m in tar.getmembers()}
        files = {n: m for n, m in members.items() if m.isfile()}
        assert set(files) == set(expected) == {"bot.toml", "bot.py", "lib/run.sh"}
        assert {n for n, m in members.items() if m.isdir()} == {"lib"}
        assert files["lib/run.sh"].mode == 0o755 and files["bot.py"].mode == 0o644
        for name in files:
            extracted = tar.extractfile(files[name])
            assert extracted is not None
            assert extracted.read() == (directory / name).read_bytes()


def test_attack_a_symlink_in_the_bot_is_refused_before_any_connection(
        tmp_path: Path, config: Path, certs: tuple[CertFiles, CertFiles]) -> None:
    """A link to a secret of the contestant's machine (an SSH key, the profile file itself)
    would upload its bytes: refused, naming it, before the server is even connected."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.setblocking(False)
    address = f"127.0.0.1:{listener.getsockname()[1]}"
    hc.save_profile(hc.Profile("cup", address, certs[0].ca.read_text(), TOKEN))
    directory = bot_dir(tmp_path)
    (directory / "key.txt").symlink_to(config)
    before = set(Path(tempfile.gettempdir()).glob("arena-directory-*"))
    out = runner.invoke(cli_app(), ["submit", str(directory), "--server", "cup"])
    assert out.exit_code == 2, out.output
    assert f"{directory / 'key.txt'} is a symlink" in flat(out.stderr)
    with pytest.raises(BlockingIOError):
        listener.accept()  # nobody connected
    listener.close()
    assert set(Path(tempfile.gettempdir()).glob("arena-directory-*")) == before


def test_local_only_flags_and_missing_targets_are_refused(cup: Scripted, tmp_path: Path) -> None:
    app, directory = cli_app(), bot_dir(tmp_path)
    odd = bot_dir(tmp_path / "odd")
    (odd / "bot.toml").write_text('name = "alpha"\ngame = "go-fish"\n')
    cases = [
        (["submit", str(odd), "--server", "cup"], "'game' must be one of"),
        (["submit", str(directory), "--server", "cup", "--version", "2"], "--version is for"),
        (["submit", str(directory), "--server", "cup", "--replace"], "--replace is for"),
        (["submit", "--server", "cup"], "give a bot directory or --image TAG"),
        (["submit", "--server", "cup", "--image", "x:1"], "an image needs --name NAME"),
        (["submit", str(tmp_path), "--server", "cup"], "has no bot.toml"),
        (["watch", "some.jsonl", "--server", "cup", "--match", "m"], "drop the log"),
        (["watch", "--server", "cup"], "--server needs --match"),
        (["submit"], "give a bot directory or an image (TARGET or --image TAG"),  # local
        (["submit", str(directory), "--image", "x:1"], "one of them"),
    ]
    for args, says in cases:
        out = runner.invoke(app, args)
        assert out.exit_code == 2, (args, out.output)
        assert says in flat(out.stderr), (args, out.stderr)
    assert cup.calls == []


def _tiny_image(tmp_path: Path) -> tuple[Any, str]:
    from arena.bots.images import docker_client
    from tests.support.containers import require_docker

    require_docker()
    client = docker_client(timeout=300)
    context = io.BytesIO()
    with tarfile.open(fileobj=context, mode="w") as tar:
        for name, data in (("Dockerfile", b"FROM scratch\nCOPY hello.txt /hello.txt\n"),
                           ("hello.txt", b"hello\n")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    context.seek(0)
    tag = f"arena-test-h3/tiny:{os.getpid()}"
    client.images.build(fileobj=context, custom_context=True, tag=tag, rm=True)
    return client, tag


def test_an_image_is_sent_as_a_docker_save_stream(cup: Scripted, tmp_path: Path) -> None:
    client, tag = _tiny_image(tmp_path)
    cup.events = [pb.SubmissionEvent(submission_id=9, stage=pb.UPLOADED, message="uploaded"),
                  pb.SubmissionEvent(submission_id=9, stage=pb.ENTERED, name="tiny",
                                     version="s9", message="entered", final=True)]
    try:
        out = runner.invoke(cli_app(), ["submit", "--image", tag, "--name", "tiny",
                                        "--server", "cup"])
    finally:
        client.images.remove(tag, force=True)
        client.close()
    assert out.exit_code == 0, out.output
    start = cup.start
    assert (start.kind, start.name, start.game) == ("image", "tiny", "")
    assert start.size == len(cup.received)
    assert start.sha256 == hashlib.sha256(cup.received).hexdigest()
    with tarfile.open(fileobj=io.BytesIO(bytes(cup.received))) as tar:
        manifest = tar.extractfile("manifest.json")
        assert manifest is not None
        assert json.load(manifest)[0]["RepoTags"] == [tag]


# --- calls and their failures ----------------------------------------------------------------
def test_attack_a_server_of_another_ca_is_refused_and_never_sees_the_token(
        config: Path, server: tuple[Scripted, str], certs: tuple[CertFiles, CertFiles]) -> None:
    """Someone answering at the server's address with a certificate of any other CA (here a
    real one of its own) gets no call, so no token; the contestant is told why."""
    scripted, address = server
    hc.save_profile(hc.Profile("cup", address, certs[1].ca.read_text(), TOKEN))
    out = runner.invoke(cli_app(), ["standings", "--server", "cup"])
    assert out.exit_code == 2, out.output
    assert (f"the server's certificate at {address} is not signed by the CA you pinned"
            in flat(out.stderr))
    assert scripted.calls == []


def test_every_call_carries_the_token_as_a_bearer(cup: Scripted, tmp_path: Path) -> None:
    app = cli_app()
    for args in (["standings"], ["matches", "--mine"], ["submissions"],
                 ["logs", "--match", "m-41", "--bot-output"]):
        out = runner.invoke(app, [*args, "--server", "cup"])
        assert out.exit_code == 0, (args, out.output)
    assert [m for m, _ in cup.calls] == ["Standings", "ListMatches", "ListSubmissions",
                                         "WhoAmI", "GetBotOutput"]
    assert all(md.get("authorization") == f"Bearer {TOKEN}" for _, md in cup.calls)


@pytest.mark.parametrize(("code", "details", "says"), [
    (grpc.StatusCode.UNAUTHENTICATED, "", "refused the token: `arena login` again or ask the "
     "operator"),
    (grpc.StatusCode.PERMISSION_DENIED, "not yours", "not yours to see: not yours"),
    (grpc.StatusCode.RESOURCE_EXHAUSTED, "5 submissions in 24 hours: the next at 14:02",
     "refused by a limit of the competition: 5 submissions in 24 hours: the next at 14:02"),
    (grpc.StatusCode.INVALID_ARGUMENT, "no game go-fish\x1b[2J", "the server refused: no game "
     "go-fish[2J"),
    (grpc.StatusCode.INTERNAL, "boom", "failed (INTERNAL): boom"),
])
def test_refused_calls_are_one_line_and_exit_2(cup: Scripted, code: grpc.StatusCode,
                                               details: str, says: str) -> None:
    cup.refuse["Standings"] = (code, details)
    out = runner.invoke(cli_app(), ["standings", "--server", "cup"])
    assert out.exit_code == 2, out.output
    assert says in flat(out.stderr)
    assert out.stdout == ""
    assert not UNSAFE.search(out.output)


@pytest.mark.unit
def test_an_unreachable_server_says_so(config: Path, certs: tuple[CertFiles, CertFiles]) -> None:
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    address = f"127.0.0.1:{closed.getsockname()[1]}"
    closed.close()
    hc.save_profile(hc.Profile("cup", address, certs[0].ca.read_text(), TOKEN))
    out = runner.invoke(cli_app(), ["matches", "--server", "cup"])
    assert out.exit_code == 2, out.output
    assert f"cannot reach {address}: is the server running" in flat(out.stderr)


# --- login -----------------------------------------------------------------------------------
def test_login_checks_the_token_before_saving(config: Path, server: tuple[Scripted, str],
                                              certs: tuple[CertFiles, CertFiles]) -> None:
    scripted, address = server
    ca = str(certs[0].ca)
    args = ["login", "cup", "--address", address, "--ca", ca, "--token-stdin"]
    scripted.refuse["WhoAmI"] = (grpc.StatusCode.UNAUTHENTICATED, "")
    refused = runner.invoke(cli_app(), args, input=TOKEN + "\n")
    assert refused.exit_code == 2 and "refused the token" in flat(refused.stderr)
    assert not config.exists()
    del scripted.refuse["WhoAmI"]
    done = runner.invoke(cli_app(), args, input=TOKEN + "\n")
    assert done.exit_code == 0, done.output
    said = flat(done.stdout)
    assert f"logged in to cup at {address} as alice" in said
    assert "5 submissions a day (1 used" in said and "3 active bots" in said
    assert "own-seat" in said and "your bots: alpha" in said
    assert scripted.calls[-1] == ("WhoAmI", {**scripted.calls[-1][1],
                                             "authorization": f"Bearer {TOKEN}"})
    assert hc.read_profiles()["cup"] == hc.Profile("cup", address, certs[0].ca.read_text(),
                                                   TOKEN)
    assert TOKEN not in done.output
    bad = runner.invoke(cli_app(), [*args[:-1], "--token-stdin"], input="not a token!\n")
    assert bad.exit_code == 2 and "not an arena token" in flat(bad.stderr)


# --- submitting ------------------------------------------------------------------------------
def _stages(*events: tuple[int, str, dict[str, Any]]) -> list[Any]:
    return [pb.SubmissionEvent(submission_id=7, stage=stage, message=message, **extra)
            for stage, message, extra in events]


def test_submit_uploads_the_tar_and_shows_each_stage(cup: Scripted, tmp_path: Path) -> None:
    directory = bot_dir(tmp_path)
    cup.events = _stages(
        (pb.RECEIVING, "receiving", {}),
        (pb.UPLOADED, "uploaded 3 files", {}),
        (pb.BUILT, "built", {"version": "s7", "name": "alpha"}),
        (pb.VALIDATED, "validated", {"match_ids": ["s7-self", "s7-reference"]}),
        (pb.ENTERED, "entered the ladder", {"version": "s7", "name": "alpha"}),
        (pb.RATED, "first rated match", {"version": "s7", "name": "alpha",
                                         "match_ids": ["m-1"], "final": True}))
    out = runner.invoke(cli_app(), ["submit", str(directory), "--server", "cup"])
    assert out.exit_code == 0, out.output
    said = flat(out.stdout)
    for stage in ("uploaded", "built", "validated", "entered", "rated"):
        assert stage in said
    assert "(version s7)" in said and "matches s7-self, s7-reference" in said
    assert "rated: submission 7, alpha@s7 rated" in said
    assert (cup.start.kind, cup.start.name, cup.start.game) == ("directory", "alpha",
                                                                "lost-cities")  # bot.toml
    assert cup.start.size == len(cup.received)
    assert cup.start.sha256 == hashlib.sha256(cup.received).hexdigest()
    with tarfile.open(fileobj=io.BytesIO(bytes(cup.received))) as tar:
        assert {m.name for m in tar.getmembers() if m.isfile()} == {
            "bot.toml", "bot.py", "lib/run.sh"}


def test_a_refused_submission_says_why_and_exits_1(cup: Scripted, tmp_path: Path) -> None:
    cup.events = _stages(
        (pb.UPLOADED, "uploaded", {}),
        (pb.REFUSED, "the validation match against itself: illegal move",
         {"detail": "termination: illegal_move\nbot output:\nTraceback" + ESCAPES,
          "final": True, "name": "alpha"}))
    out = runner.invoke(cli_app(), ["submit", str(bot_dir(tmp_path)), "--server", "cup",
                                    "--game", "lost-cities", "--name", "alpha"])
    assert out.exit_code == 1, out.output
    said = flat(out.stdout)
    assert "refused: submission 7, alpha: the validation match against itself" in said
    assert "│ termination: illegal_move" in said and "│ Traceback" in said
    assert not UNSAFE.search(out.output)
    assert (cup.start.game, cup.start.name) == ("lost-cities", "alpha")


def test_an_upload_cut_at_the_quota_is_one_line(cup: Scripted, tmp_path: Path) -> None:
    directory = bot_dir(tmp_path)
    (directory / "weights.bin").write_bytes(os.urandom(3 << 20))
    cup.cut_at = 1 << 20
    out = runner.invoke(cli_app(), ["submit", str(directory), "--server", "cup"])
    assert out.exit_code == 2, out.output
    assert ("refused by a limit of the competition: the upload passed 1048576 bytes "
            "(max_upload_mb)") in flat(out.stderr)


def test_a_stream_ending_without_an_outcome_points_to_follow(cup: Scripted,
                                                            tmp_path: Path) -> None:
    cup.events = _stages((pb.UPLOADED, "uploaded", {}), (pb.BUILT, "built", {"version": "s7"}))
    out = runner.invoke(cli_app(), ["submit", str(bot_dir(tmp_path)), "--server", "cup"])
    assert out.exit_code == 1
    assert "arena submissions --server cup --follow 7" in flat(out.stderr)
    cup.events = _stages((pb.UPLOADED, "uploaded", {}), (pb.ENTERED, "entered", {}))
    entered = runner.invoke(cli_app(), ["submissions", "--server", "cup", "--follow", "7"])
    assert entered.exit_code == 0, entered.output
    assert "its first rated match is still to come" in flat(entered.stdout)


# --- results ---------------------------------------------------------------------------------
def test_standings_matches_and_submissions_are_plain_tables(cup: Scripted) -> None:
    app = cli_app()
    table = runner.invoke(app, ["standings", "--server", "cup"])
    assert table.exit_code == 0, table.output
    assert "1612" in table.stdout and "1580–1644" in table.stdout and "30/2/8" in table.stdout
    assert "house" in table.stdout and not UNSAFE.search(table.stdout)
    listed = runner.invoke(app, ["matches", "--server", "cup", "--bot", "alpha", "--limit", "5",
                                 "--page", "c-1"])
    assert listed.exit_code == 0, listed.output
    assert "alpha@s3" in listed.stdout and "61:20" in listed.stdout
    assert "older matches: add --page cursor-40" in flat(listed.stdout)
    subs = runner.invoke(app, ["submissions", "--server", "cup"])
    assert subs.exit_code == 0, subs.output
    assert "REFUSED" in subs.stdout and "1 of 5 submissions used" in flat(subs.stdout)
    assert not UNSAFE.search(subs.stdout)
    as_json = runner.invoke(app, ["standings", "--server", "cup", "--format", "json"])
    assert [json.loads(line)["rows"][0]["name"] for line in as_json.stdout.splitlines()] == \
        ["alpha"]  # a game a line
    matches = runner.invoke(app, ["matches", "--server", "cup", "--format", "json"])
    rows = [json.loads(line) for line in matches.stdout.splitlines()]  # a match a line
    assert rows and all(row["match_id"] for row in rows)
    assert "older matches: add --page cursor-40" in flat(matches.stderr)  # stdout: only matches
    listed = runner.invoke(app, ["submissions", "--server", "cup", "--format", "json"])
    assert [json.loads(line)["stage"] for line in listed.stdout.splitlines()] == ["REFUSED"]


def test_logs_are_written_whole_or_not_at_all(cup: Scripted, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    cup.log_chunks = [pb.LogChunk(data=b'{"type": "header"}\n', kind="seat-view"),
                      pb.LogChunk(data=b'{"type": "decision"}\n', kind="seat-view")]
    out = runner.invoke(cli_app(), ["logs", "--server", "cup", "--match", "m-41"])
    assert out.exit_code == 0, out.output
    written = tmp_path / "m-41.seat-view.jsonl"
    assert written.read_bytes() == b'{"type": "header"}\n{"type": "decision"}\n'
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    cup.log_breaks = True
    broken = runner.invoke(cli_app(), ["logs", "--server", "cup", "--match", "m-42", "-o",
                                       str(tmp_path / "x.jsonl")])
    assert broken.exit_code == 2 and "the log store went away" in flat(broken.stderr)
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["m-41.seat-view.jsonl"]
    hostile = runner.invoke(cli_app(), ["logs", "--server", "cup", "--match", "../../x"])
    assert hostile.exit_code == 2 and "give -o FILE" in flat(hostile.stderr)


def test_bot_output_and_watch_frames_are_plain(cup: Scripted,
                                               certs: tuple[CertFiles, CertFiles]) -> None:
    output = runner.invoke(cli_app(), ["logs", "--server", "cup", "--match", "m-41",
                                       "--bot-output"])
    assert output.exit_code == 0, output.output
    assert "seat 1" in output.stdout and "thinking" in output.stdout
    assert not UNSAFE.search(output.stdout)
    cup.frames = [pb.WatchFrame(board="first board", caption="seat 0 plays", seat=1),
                  pb.WatchFrame(board="last board" + ESCAPES, caption="match over: 61:20",
                                seat=1, final=True)]
    watched = runner.invoke(cli_app(), ["watch", "--server", "cup", "--match", "m-41",
                                        "--seat", "1", "--follow"])
    assert watched.exit_code == 0, watched.output
    assert "last board" in watched.stdout and "first board" not in watched.stdout
    assert "seat 1 view" in watched.stdout and "match over: 61:20" in watched.stdout
    assert not UNSAFE.search(watched.stdout)
    from_env = runner.invoke(cli_app(), ["watch", "--match", "m-42"], env={
        hc.SERVER_ENV: hc.read_profiles()["cup"].address, hc.CA_ENV: str(certs[0].ca),
        hc.TOKEN_ENV: TOKEN})
    assert from_env.exit_code == 0, from_env.output
    assert [(w.match_id, w.seat, w.follow) for w in cup.watched] == [("m-41", 1, True),
                                                                     ("m-42", -1, False)]


def test_a_refused_whole_board_suggests_a_seat(cup: Scripted) -> None:
    cup.refuse["WatchMatch"] = (grpc.StatusCode.PERMISSION_DENIED, "match m-41 is not yours")
    whole = runner.invoke(cli_app(), ["watch", "--server", "cup", "--match", "m-41"])
    assert whole.exit_code == 2
    assert "not yours to see: match m-41 is not yours" in flat(whole.stderr)
    assert "add --seat N" in flat(whole.stderr)
    seat = runner.invoke(cli_app(), ["watch", "--server", "cup", "--match", "m-41", "--seat", "0"])
    assert seat.exit_code == 2 and "add --seat N" not in flat(seat.stderr)


def test_submit_until_entered_stops_there(cup: Scripted, tmp_path: Path) -> None:
    cup.events = _stages((pb.UPLOADED, "uploaded", {}),
                         (pb.ENTERED, "entered", {"version": "s7", "name": "alpha"}),
                         (pb.RATED, "rated", {"final": True}))
    directory = bot_dir(tmp_path)
    out = runner.invoke(cli_app(), ["submit", str(directory), "--server", "cup", "--until",
                                    "entered"])
    assert out.exit_code == 0, out.output
    said = flat(out.stdout)
    assert "entered: submission 7, alpha@s7 entered the ladder" in said
    assert "rated: submission" not in said and "first rated match is still to come" in said
    bad = runner.invoke(cli_app(), ["submit", str(directory), "--server", "cup", "--until", "x"])
    assert bad.exit_code == 2 and "--until is 'entered' or 'rated'" in flat(bad.stderr)
