"""The operator's commands through the CLI (typer's runner, a real SQLite database, real
certificates and a real TLS gRPC server on 127.0.0.1): `arena contestants ...` and
`arena host-certs`."""

from __future__ import annotations

import sqlite3
import stat
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path

import grpc
import pytest
import typer
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from typer.testing import CliRunner

from arena.cli import host_admin_cmds
from arena.host.accounts import Accounts
from arena.host.certs import make_server_certs, server_cert_problem
from arena.host.config import load_competition

pytestmark = pytest.mark.unit

runner = CliRunner(env={"COLUMNS": "200"})  # a message's path is never cut by a wrap


def admin_app() -> typer.Typer:
    app = typer.Typer(rich_markup_mode="rich")

    @app.callback()
    def root() -> None:
        """Test root."""

    host_admin_cmds.register(app)
    return app


APP = admin_app()


@pytest.fixture
def competition(tmp_path: Path) -> Path:
    path = tmp_path / "spring.toml"
    path.write_text('[competition]\nname = "spring"\n[games.lost-cities]\n', encoding="utf-8")
    return path


def run(*args: str | Path, code: int = 0) -> tuple[str, str]:
    result = runner.invoke(APP, [str(a) for a in args])
    assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
    return result.stdout, result.stderr


def accounts_of(competition: Path) -> Accounts:
    return Accounts.open(load_competition(competition).database)


def one_line_error(stderr: str, *words: str) -> None:
    flat = " ".join(stderr.split())  # one message (the test console wraps it at 80 columns)
    assert flat.startswith("error:") and flat.count("error:") == 1, stderr
    assert all(w in flat for w in words), flat


@pytest.mark.integration
def test_add_prints_the_token_once_and_keeps_only_its_hash(competition: Path) -> None:
    out, err = run("contestants", "add", "alice", "-c", competition)
    (token,) = out.split()
    assert token.startswith("arena_") and out == token + "\n"
    flat = " ".join(err.split())
    assert "shown only this once" in flat and "arena login spring --address 127.0.0.1:7443" \
        in flat
    assert accounts_of(competition).authenticate(token) == "alice"
    state = load_competition(competition).state_dir
    data = b"".join(p.read_bytes() for p in state.glob("competition.sqlite3*"))
    assert token.split("_", 2)[2].encode() not in data
    out, _ = run("contestants", "list", "-c", competition)
    assert "alice" in out and token not in out


@pytest.mark.integration
def test_list_revoke_reissue_assign(competition: Path) -> None:
    first, _ = run("contestants", "add", "alice", "-c", competition)
    run("contestants", "add", "bob", "-c", competition)
    run("contestants", "assign", "Lancer", "bob", "-c", competition)
    out, _ = run("contestants", "assign", "lancer", "alice", "-c", competition)
    assert "was bob's" in out
    out, _ = run("contestants", "revoke", "alice", "-c", competition)
    assert accounts_of(competition).authenticate(first.strip()) is None
    out, _ = run("contestants", "list", "-c", competition)
    alice_row = next(line for line in out.splitlines() if "alice" in line)
    assert "lancer" in alice_row and alice_row.count("20") >= 2  # added and revoked dates
    bob_row = next(line for line in out.splitlines() if "bob" in line)
    assert "Lancer" not in bob_row
    new, _ = run("contestants", "reissue", "alice", "-c", competition)
    assert accounts_of(competition).authenticate(new.strip()) == "alice"


def test_the_competition_may_come_from_the_environment(competition: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_COMPETITION", str(competition))
    run("contestants", "add", "carol")
    assert [c.name for c in accounts_of(competition).list()] == ["carol"]


@pytest.mark.integration
@pytest.mark.parametrize("args, words", [
    (("contestants", "add", "alice"), ("already exists",)),
    (("contestants", "add", "Alice"), ("already exists",)),
    (("contestants", "add", "bad name"), ("contestant name", "'bad name'")),
    (("contestants", "add", "\x1b[31mred"), ("contestant name",)),
    (("contestants", "revoke", "nobody"), ("no contestant named 'nobody'",)),
    (("contestants", "reissue", "nobody"), ("no contestant named 'nobody'",)),
    (("contestants", "assign", "bot", "nobody"), ("no contestant named 'nobody'",)),
    (("contestants", "assign", "bad bot", "alice"), ("bot name",)),
])
def test_bad_input_is_one_line_exit_2(competition: Path, args: tuple[str, ...],
                                      words: tuple[str, ...]) -> None:
    run("contestants", "add", "alice", "-c", competition)
    _, err = run(*args, "-c", competition, code=2)
    one_line_error(err, *words)
    assert "\x1b" not in err
    assert [c.name for c in accounts_of(competition).list()] == ["alice"]


def test_a_bad_competition_file_is_one_line_and_nothing_written(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[competition]\nname = "x"\n[quotas]\nactive_bots = 0\n[games.lost-cities]\n',
                   encoding="utf-8")
    _, err = run("contestants", "add", "alice", "-c", bad, code=2)
    one_line_error(err, "quotas.active_bots", "positive integer")
    _, err = run("contestants", "list", "-c", tmp_path / "missing.toml", code=2)
    assert "missing.toml" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]


def test_the_commands_work_while_the_server_reads(competition: Path) -> None:
    run("contestants", "add", "alice", "-c", competition)
    url = load_competition(competition).database
    reader = sqlite3.connect(url.removeprefix("sqlite:///"), timeout=1)
    try:
        reader.execute("BEGIN")  # a long read transaction, as a server's would be
        assert reader.execute("SELECT count(*) FROM competition_contestants").fetchone() == (1,)
        run("contestants", "add", "bob", "-c", competition)  # WAL: the writer does not wait
        run("contestants", "revoke", "alice", "-c", competition)
    finally:
        reader.close()
    assert [c.name for c in accounts_of(competition).list()] == ["alice", "bob"]


# --- certificates ---------------------------------------------------------------------------
def test_host_certs_writes_a_ca_and_a_server_certificate(tmp_path: Path) -> None:
    out, _ = run("host-certs", tmp_path / "certs", "--host", "127.0.0.1", "--host", "localhost")
    files = {p.name: stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "certs").iterdir()}
    assert set(files) == {"ca.pem", "ca.key", "server.pem", "server.key"}
    assert files["ca.key"] == 0o600 and files["server.key"] == 0o600
    assert "ca.pem" in "".join(out.split())  # a long temporary path may fold at the width
    cert, key = tmp_path / "certs" / "server.pem", tmp_path / "certs" / "server.key"
    for host in ("127.0.0.1", "localhost"):
        assert server_cert_problem(cert, key, host) is None
    problem = server_cert_problem(cert, key, "example.org")
    assert problem is not None and "does not name 'example.org'" in problem


def test_host_certs_never_overwrites_unless_forced(tmp_path: Path) -> None:
    run("host-certs", tmp_path, "--host", "127.0.0.1")
    before = (tmp_path / "ca.pem").read_bytes()
    _, err = run("host-certs", tmp_path, "--host", "127.0.0.1", code=2)
    one_line_error(err, "already holds", "ca.pem", "--force")
    assert (tmp_path / "ca.pem").read_bytes() == before
    run("host-certs", tmp_path, "--host", "127.0.0.1", "--force")
    assert (tmp_path / "ca.pem").read_bytes() != before


@pytest.mark.parametrize("hosts, words", [
    ((), ("at least one host",)),
    (("a b",), ("not a host name",)),
    (("/etc",), ("not a host name",)),
    (("x", "x"), ("named twice",)),
])
def test_host_certs_bad_hosts(tmp_path: Path, hosts: tuple[str, ...],
                              words: tuple[str, ...]) -> None:
    args = [a for h in hosts for a in ("--host", h)]
    _, err = run("host-certs", tmp_path / "certs", *args, code=2)
    one_line_error(err, *words)
    assert not (tmp_path / "certs").exists()


def test_server_cert_problems(tmp_path: Path) -> None:
    one = make_server_certs(tmp_path / "one", ["127.0.0.1"])
    two = make_server_certs(tmp_path / "two", ["127.0.0.1"])
    mixed = server_cert_problem(one.cert, two.key, "127.0.0.1")
    assert mixed is not None and "is not the key of" in mixed
    missing = server_cert_problem(tmp_path / "none.pem", one.key, "127.0.0.1")
    assert missing is not None and "arena host-certs" in missing
    one.key.chmod(0o644)
    readable = server_cert_problem(one.cert, one.key, "127.0.0.1")
    assert readable is not None and "chmod 600" in readable


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """A real gRPC server (the health service) on 127.0.0.1 with the made certificates."""
    paths = make_server_certs(tmp_path / "certs", ["127.0.0.1", "localhost"])
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    health_pb2_grpc.add_HealthServicer_to_server(health.HealthServicer(), server)
    credentials = grpc.ssl_server_credentials([(paths.key.read_bytes(),
                                                paths.cert.read_bytes())])
    port = server.add_secure_port("127.0.0.1:0", credentials)
    server.start()
    try:
        yield port, paths.ca
    finally:
        server.stop(grace=None)


def check(target: str, ca: Path, override: str | None = None) -> grpc.StatusCode:
    credentials = grpc.ssl_channel_credentials(root_certificates=ca.read_bytes())
    options = [("grpc.ssl_target_name_override", override)] if override else []
    with grpc.secure_channel(target, credentials, options=options) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            stub.Check(health_pb2.HealthCheckRequest(), timeout=30)
        except grpc.RpcError as exc:
            return exc.code()  # type: ignore[no-any-return, attr-defined]
    return grpc.StatusCode.OK


@pytest.mark.integration
def test_a_pinned_client_connects_by_ip_and_name(tls_server: tuple[int, Path]) -> None:
    port, ca = tls_server
    assert check(f"127.0.0.1:{port}", ca) == grpc.StatusCode.OK
    assert check(f"localhost:{port}", ca) == grpc.StatusCode.OK


@pytest.mark.integration
def test_attack_a_client_of_another_ca_or_name_is_refused(tls_server: tuple[int, Path],
                                                           tmp_path: Path) -> None:
    port, _ = tls_server
    other = make_server_certs(tmp_path / "other", ["127.0.0.1"])
    assert check(f"127.0.0.1:{port}", other.ca) == grpc.StatusCode.UNAVAILABLE
    _, ca = tls_server
    assert check(f"127.0.0.1:{port}", ca, override="example.org") == grpc.StatusCode.UNAVAILABLE
