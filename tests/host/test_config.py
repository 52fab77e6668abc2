"""Competition files: every key, its default, one error naming the key for each bad value, and
the generated ladder file a continuous catalogue ladder that ``load_ladder`` reads."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.host.config import (
    MIB,
    VISIBILITIES,
    deals_note,
    host_port,
    ladder_file,
    load_competition,
)
from arena.ladder.config import load_ladder
from arena.ladder.schedules.schedule import CONTINUOUS
from tests.support.goofspiel import goofspiel
from tests.support.paths import ROOT, SAMPLE_BOTS

pytestmark = pytest.mark.unit

MINIMAL = '[competition]\nname = "spring"\n\n[games.lost-cities]\n'


def write(tmp_path: Path, text: str, name: str = "spring.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def refused(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as info:
        load_competition(write(tmp_path, text))
    message = str(info.value)
    assert "\n" not in message
    return message


def test_the_defaults(tmp_path: Path) -> None:
    c = load_competition(write(tmp_path, MINIMAL))
    assert c.name == "spring"
    assert c.path == tmp_path / "spring.toml"
    assert c.state_dir == tmp_path / "spring-state"
    assert c.database == f"sqlite:///{tmp_path / 'spring-state' / 'competition.sqlite3'}"
    assert c.listen == "127.0.0.1:7443"
    assert (c.tls_cert, c.tls_key) == (tmp_path / "certs/server.pem",
                                       tmp_path / "certs/server.key")
    assert c.metrics == "127.0.0.1:9464"
    assert c.site_dir == c.state_dir / "site" and c.site_refresh_s == 30
    assert c.sandbox == "docker" and c.logs == "own-seat"
    q = c.quotas
    assert (q.max_upload_bytes, q.max_image_upload_bytes) == (5 * MIB, 512 * MIB)
    assert (q.submissions_per_day, q.active_bots) == (5, 3)
    (g,) = c.games
    assert (g.game, g.reference, g.house, dict(g.ladder)) == ("lost-cities", "greedy",
                                                               ("greedy",), {})
    assert g.reference_dir == SAMPLE_BOTS / "lost-cities" / "greedy"
    assert (c.home, c.uploads, c.ladders, c.logs_dir) == tuple(
        c.state_dir / d for d in ("home", "uploads", "ladders", "logs"))
    assert c.game("lost-cities") is g


def test_every_key(tmp_path: Path) -> None:
    c = load_competition(write(tmp_path, """
[competition]
name = "big.one"
state_dir = "/srv/state"
database = "sqlite:///data/c.db"
sandbox = "process"
[server]
listen = "[::1]:0"
tls_cert = "/etc/arena/server.pem"
tls_key = "k.pem"
metrics = ""
[site]
dir = "www"
refresh_s = 2.5
[visibility]
logs = "public"
[quotas]
max_upload_mb = 0.5
max_image_upload_mb = 0
submissions_per_day = 20
active_bots = 1
[games.haggis]
reference = "random"
house = []
[games.lost-cities]
house = ["random", "strong"]
"""))
    assert c.state_dir == Path("/srv/state") and c.database == f"sqlite:///{tmp_path}/data/c.db"
    assert c.sandbox == "process" and c.listen == "[::1]:0" and c.metrics == ""
    assert c.tls_cert == Path("/etc/arena/server.pem") and c.tls_key == tmp_path / "k.pem"
    assert c.site_dir == tmp_path / "www" and c.site_refresh_s == 2.5 and c.logs == "public"
    assert c.quotas.max_upload_bytes == MIB // 2 and c.quotas.max_image_upload_bytes == 0
    assert [(g.game, g.reference, g.house) for g in c.games] == [
        ("haggis", "random", ()), ("lost-cities", "greedy", ("random", "strong"))]
    with pytest.raises(ConfigError, match="does not host the game 'portas'"):
        c.game("portas")


def test_a_postgresql_url_is_kept(tmp_path: Path) -> None:
    url = "postgresql+psycopg://arena:secret@127.0.0.1/spring"
    c = load_competition(write(tmp_path, MINIMAL.replace(
        '"spring"\n', f'"spring"\ndatabase = "{url}"\n')))
    assert c.database == url


@pytest.mark.parametrize("text, key, why", [
    ('[competition]\nname = "x"\n', "games", "is required"),
    ('[competition]\n[games.lost-cities]\n', "competition.name", "is required"),
    ('[competition]\nname = "a b"\n[games.lost-cities]\n', "competition.name", "identifier"),
    ('[competition]\nname = "x"\ncolour = 1\n[games.lost-cities]\n', "competition.colour",
     "unknown key"),
    ('[competition]\nname = "x"\n[games.lost-cities]\n[nonsense]\n', "nonsense",
     "unknown key"),
    ('quotas = 3\n[competition]\nname = "x"\n[games.lost-cities]\n', "quotas", "a table"),
    ('[competition]\nname = "x"\nsandbox = "auto"\n[games.lost-cities]\n',
     "competition.sandbox", "docker, process"),
    ('[competition]\nname = "x"\ndatabase = "::nope"\n[games.lost-cities]\n',
     "competition.database", "SQLAlchemy URL"),
    ('[competition]\nname = "x"\n[server]\nlisten = "7443"\n[games.lost-cities]\n',
     "server.listen", "HOST:PORT"),
    ('[competition]\nname = "x"\n[server]\nlisten = "h:99999"\n[games.lost-cities]\n',
     "server.listen", "HOST:PORT"),
    ('[competition]\nname = "x"\n[server]\nmetrics = "x"\n[games.lost-cities]\n',
     "server.metrics", '"" turns it off'),
    ('[competition]\nname = "x"\n[server]\ntls_cert = ""\n[games.lost-cities]\n',
     "server.tls_cert", "a path"),
    ('[competition]\nname = "x"\n[site]\nrefresh_s = 0\n[games.lost-cities]\n',
     "site.refresh_s", "above 0"),
    ('[competition]\nname = "x"\n[visibility]\nlogs = "all"\n[games.lost-cities]\n',
     "visibility.logs", ", ".join(VISIBILITIES)),
    ('[competition]\nname = "x"\n[quotas]\nsubmissions_per_day = 0\n[games.lost-cities]\n',
     "quotas.submissions_per_day", "positive integer"),
    ('[competition]\nname = "x"\n[quotas]\nactive_bots = "3"\n[games.lost-cities]\n',
     "quotas.active_bots", "an integer"),
    ('[competition]\nname = "x"\n[quotas]\nmax_upload_mb = 0\n[games.lost-cities]\n',
     "quotas.max_upload_mb", "above 0"),
    ('[competition]\nname = "x"\n[quotas]\nmax_image_upload_mb = -1\n[games.lost-cities]\n',
     "quotas.max_image_upload_mb", "0 or more"),
    ('[competition]\nname = "x"\n[games.chess]\n', "games.chess", "unknown game"),
    ('[competition]\nname = "x"\n[games]\nlost-cities = 1\n', "games.lost-cities", "a table"),
    ('[competition]\nname = "x"\n[games.lost-cities]\nreference = "../../etc"\n',
     "games.lost-cities.reference", "not a sample bot"),
    ('[competition]\nname = "x"\n[games.lost-cities]\nhouse = ["nobody"]\n',
     "games.lost-cities.house", "not a sample bot of lost-cities (known: cpp-greedy"),
    ('[competition]\nname = "x"\n[games.lost-cities]\nhouse = ["random", "random"]\n',
     "games.lost-cities.house", "twice"),
    ('[competition]\nname = "x"\n[games.lost-cities]\nowner = "me"\n',
     "games.lost-cities.owner", "unknown key"),
    ('[competition]\nname = "x"\n[games.lost-cities.ladder]\nentrants = []\n',
     "games.lost-cities.ladder.entrants", "set by the competition"),
    ('[competition]\nname = "x"\n[games.lost-cities.ladder]\ndatabase = "sqlite://"\n',
     "games.lost-cities.ladder.database", "set by the competition"),
    ('[competition]\nname = "x"\n[games.lost-cities.ladder.schedule]\ntype = "swiss"\n',
     "games.lost-cities.ladder.schedule.type", "set by the competition"),
    ('[competition]\nname = "x"\n[games.lost-cities.ladder.schedule]\ncatalogue = false\n',
     "games.lost-cities.ladder.schedule.catalogue", "set by the competition"),
    ('[competition]\nname = "x"\n[games.lost-cities.ladder.schedule]\ncycles = 2\n',
     "games.lost-cities.ladder.schedule.cycles", "belongs to a round-robin"),
    ('[competition]\nname = "x"\n[games.lost-cities.ladder.schedule]\nplacement = 0\n',
     "games.lost-cities.ladder.schedule.placement", "positive integer"),
    ('[competition]\nname = "x"\n[games.lost-cities.ladder]\nspeed = 1\n',
     "games.lost-cities.ladder.speed", "unknown key"),
    ('[competition]\nname = "x"\n[games.lost-cities.ladder]\nschedule = 1\n',
     "games.lost-cities.ladder.schedule", "must be a table"),
    ('[competition]\nname = "x"\n[games.lost-cities.ladder.time_control]\nmove_time_ms = 0\n',
     "games.lost-cities.ladder.time_control.move_time_ms", "ms"),
    ('[competition]\nname = "x"\n[games.lost-cities.ladder.options]\nrounds = "many"\n',
     "games.lost-cities.ladder.options.rounds", "rounds"),
])
def test_a_bad_key_is_one_error_naming_it(tmp_path: Path, text: str, key: str, why: str) -> None:
    message = refused(tmp_path, text)
    assert str(tmp_path / "spring.toml") in message
    assert f"key {key!r}" in message and why in message


def test_the_error_gives_the_line(tmp_path: Path) -> None:
    message = refused(tmp_path, MINIMAL + "[games.lost-cities.ladder.schedule]\n\nplacement = -4\n")
    assert "(line 7)" in message


def test_unreadable_and_invalid_toml(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the competition file"):
        load_competition(tmp_path / "missing.toml")
    assert "invalid TOML" in refused(tmp_path, "[competition\n")


def test_host_port() -> None:
    assert host_port("127.0.0.1:7443") == ("127.0.0.1", 7443)
    assert host_port("[::1]:0") == ("::1", 0)
    assert host_port("localhost:1") == ("localhost", 1)
    for bad in ("", ":1", "a:b", "a:1:2", "a:70000", "a b:1"):
        with pytest.raises(ConfigError):
            host_port(bad)


def test_the_ladder_file_is_a_continuous_catalogue_ladder(tmp_path: Path) -> None:
    c = load_competition(write(tmp_path, MINIMAL + """house = ["random", "greedy"]
[games.lost-cities.ladder]
seed = 7
concurrency = 2
[games.lost-cities.ladder.options]
rounds = 1
[games.lost-cities.ladder.schedule]
placement = 3
refresh_s = 2
[games.lost-cities.ladder.time_control]
move_time_ms = 500
[games.lost-cities.ladder.cluster]
scheduler = "tls://127.0.0.1:8786"
ca = "certs/ca.pem"
cert = "certs/head.pem"
key = "certs/head-key.pem"
"""))
    path = ladder_file(c, "lost-cities")
    assert path == c.ladders / "lost-cities.toml"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    ladder = load_ladder(path)
    assert ladder.name == "spring-lost-cities" and ladder.game == "lost-cities"
    assert ladder.schedule.kind == CONTINUOUS and ladder.schedule.catalogue
    assert (ladder.schedule.placement, ladder.schedule.refresh_s) == (3, 2.0)
    assert ladder.entrants == tuple(str(SAMPLE_BOTS / "lost-cities" / b)
                                    for b in ("random", "greedy"))
    assert ladder.database_url == c.database
    assert ladder.state_dir == c.ladders / "lost-cities"
    assert ladder.match_log_dir == c.logs_dir / "lost-cities"
    assert ladder.sandbox == "docker" and ladder.seed == 7 and ladder.concurrency == 2
    assert dict(ladder.options) == {"rounds": 1} and ladder.time_control.move_time_ms == 500
    assert ladder.cluster.tls is not None
    assert ladder.cluster.tls.ca == tmp_path / "certs" / "ca.pem"  # the competition file's


def test_the_ladder_file_is_written_only_when_it_changes(tmp_path: Path) -> None:
    source = write(tmp_path, MINIMAL)
    path = ladder_file(load_competition(source), "lost-cities")
    before = path.stat().st_mtime_ns
    os.utime(path, ns=(before - 10**9, before - 10**9))
    assert ladder_file(load_competition(source), "lost-cities") == path
    assert path.stat().st_mtime_ns == before - 10**9  # unchanged: not rewritten
    write(tmp_path, MINIMAL + "house = []\n")
    ladder_file(load_competition(source), "lost-cities")
    assert load_ladder(path).entrants == ()
    assert [p.name for p in path.parent.iterdir() if p.name.startswith(".")] == []
    with pytest.raises(ConfigError, match="does not host"):
        ladder_file(load_competition(source), "haggis")


def test_the_example_competition_loads(tmp_path: Path) -> None:
    c = load_competition(ROOT / "ladder" / "competition.toml")
    assert c.listen == "127.0.0.1:7443" and c.sandbox == "docker"
    assert [g.game for g in c.games] == ["lost-cities"]
    assert c.tls_cert == ROOT / "ladder" / "certs" / "server.pem"


def test_duplicate_deals_on_one_host_are_said_in_one_line(tmp_path: Path) -> None:
    """The legs of a duplicate deal on one host can still pass a few bits (inode numbers):
    a game that plays them without a cluster gets one line; independent deals, or duplicate
    deals on a cluster, none. The example competition (one host) plays independent deals."""
    default = load_competition(write(tmp_path, MINIMAL))
    note = deals_note(default, "lost-cities")
    assert note is not None and "\n" not in note
    assert "duplicate deals on one host" in note and "duplicate = false" in note
    independent = load_competition(write(
        tmp_path, MINIMAL + "[games.lost-cities.ladder]\nduplicate = false\n", "b.toml"))
    assert deals_note(independent, "lost-cities") is None
    clustered = load_competition(write(
        tmp_path, MINIMAL + '[games.lost-cities.ladder.cluster]\nscheduler = "tls://h:8786"\n'
        'ca = "certs/ca.pem"\ncert = "certs/head.pem"\nkey = "certs/head-key.pem"\n', "c.toml"))
    assert deals_note(clustered, "lost-cities") is None
    example = load_competition(ROOT / "ladder" / "competition.toml")
    assert deals_note(example, "lost-cities") is None
    assert load_ladder(ladder_file(example, "lost-cities")).duplicate is False


GOOFSPIEL = '[competition]\nname = "spring"\n\n[games.goofspiel]\n'


def test_a_game_packages_game_is_hosted_with_its_declared_reference_bot(tmp_path: Path) -> None:
    """A game package's game names its bots where the package ships them: by default the
    reference bot it declares (GamePlugin.reference_bot), validation opponent and house bot."""
    from arena.games import plugin

    goofspiel()
    declared = plugin("goofspiel").reference_bot_dir()
    assert declared is not None and (declared / "bot.toml").is_file()
    c = load_competition(write(tmp_path, GOOFSPIEL))
    (g,) = c.games
    assert (g.game, g.reference, g.house) == ("goofspiel", declared.name, (declared.name,))
    assert g.reference_dir == declared and g.house_dirs == (declared,)
    ladder = load_ladder(ladder_file(c, "goofspiel"))
    assert ladder.game == "goofspiel"
    assert list(ladder.entrants) == [str(declared)]
    message = refused(tmp_path, GOOFSPIEL + 'reference = "greedy"\n')
    assert "games.goofspiel.reference" in message
    assert f"'greedy' is not a bot of its package ({declared.parent})" in message
    assert "(known: random)" in message


def test_a_game_package_declaring_no_reference_bot_is_refused_in_one_line(
        tmp_path: Path) -> None:
    """Nothing could validate its submissions: `arena host` says what is missing and exits 2."""
    from dataclasses import replace

    from typer.testing import CliRunner

    from arena.cli.main import app
    from arena.games import plugin, registered

    goofspiel()
    with registered(replace(plugin("goofspiel"), reference_bot="")):
        message = refused(tmp_path, GOOFSPIEL)
        out = CliRunner().invoke(app, ["host", str(write(tmp_path, GOOFSPIEL))])
    assert "games.goofspiel" in message and "declares no reference bot" in message
    assert "GamePlugin.reference_bot" in message and "cannot be hosted" in message
    assert out.exit_code == 2, out.output
    assert "declares no reference bot" in " ".join(out.output.split())
