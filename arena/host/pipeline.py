"""The submission pipeline: what happens to a contestant's upload between its last byte and the
ladder.

``upload`` receives the payload into ``<uploads>/<id>/payload`` (cut at the competition's
byte quota: REFUSED; a client gone half-way or bytes that are not the announced ones: CANCELLED,
nothing kept) -> UPLOADED. ``process`` then:

1. opens it under the trust boundary's rules (:mod:`arena.host.uploads`): a directory's tar
   unpacked into ``<uploads>/<id>/bot``, an image's ``docker save`` stream loaded without its
   tags; learns the bot's name and game (the submission's, else bot.toml's); refuses a name
   the house's bots play under or that another contestant owns (before anything is built) and
   a new name past the active-bots quota;
2. builds a directory's image as ``arena submit`` does (offline, the canonical Dockerfile, the
   image policy, bot.toml's command) -> BUILT, version ``s<id>``;
3. plays two validation matches in the Docker sandbox with the ladder's options and time
   control: the candidate against itself (``s<id>-self``) and against the game's reference bot
   (``s<id>-reference``, the candidate in seat 0), logs under ``<state_dir>/logs/validation/``
   -> VALIDATED;
4. enters it in the catalogue (``home = competition.home``) and tags its image -> ENTERED: the
   server hands it to the game's continuous ladder (an ``Entered`` event). The name is claimed
   for the contestant (``arena.host.names.claim_name``, the only place a name is claimed) in
   the transaction that records ENTERED, inside the catalogue's own write transaction: a
   submission refused, failed or cancelled at any stage claims no name.

Before each costly stage (the build, the validation matches, the entry) the contestant is
checked again (``Accounts.active``): a contestant revoked meanwhile has the submission
CANCELLED there (nothing more built, played or entered; not counted); the entry checks it in
its own transaction.

A refusal (the bot's fault: REFUSED, counted) says why in ``message`` and gives in ``detail``
the build's error, or the validation match's termination and detail and the bot's own output
tail (the seat log beside the match log), bounded plain text. The server's faults (no Docker
engine, no base image, a void match, a full disk) are FAILED and not counted.

Every step can be taken again: ``recover`` (at the server's start) cancels what was still
being received (files removed) and names what was uploaded, built or validated, for ``process``
to take up again (an image still on the engine is not built again; a validated one is entered;
a build lost meanwhile is done again and its validation with it). The payload stays in
``<uploads>/<id>/payload`` until the submission ends or is entered, then is removed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection

from arena.bots import catalogue
from arena.bots.images.build import FLAVORS, build_bot_image, docker_client, find_base_image
from arena.bots.images.tags import keep_bot_image
from arena.bots.manifest import MANIFEST, load_bot_dir
from arena.bots.names import check_name, name_key, shown
from arena.bots.submit import image_refusal
from arena.cluster.shipping import image_present
from arena.errors import ConfigError
from arena.host.accounts import Accounts
from arena.host.config import Competition, ladder_config
from arena.host.errors import Failed, Refused, Revoked
from arena.host.names import claim_name, name_refusal
from arena.host.submissions import (
    BUILT,
    CANCELLED,
    ENTERED,
    FAILED,
    IN_PIPELINE,
    RECEIVING,
    REFUSED,
    UPLOADED,
    VALIDATED,
    StageEvent,
    SubmissionBook,
    SubmissionRow,
    bounded,
)
from arena.host.uploads import (
    BOT_SUBDIR,
    PAYLOAD,
    UploadTooLarge,
    load_image,
    receive,
    remove_tree,
    unpack_bot,
)
from arena.ladder.config import LadderConfig
from arena.ladder.runner import resolve_run_clock
from arena.model import BotSpec, MatchResult, Termination, plain_text
from arena.record.log import seat_log_path
from arena.referee.match import play_match
from arena.referee.service import line_up
from arena.sandbox.docker import DockerSandbox

log = logging.getLogger(__name__)

VALIDATION_DIR = "validation"
"""The validation matches' logs: ``<state_dir>/logs/validation/``."""
OUTPUT_TAIL_CHARS = 3000
"""How much of a bot's own output a refusal quotes (the end of it)."""
CANDIDATE_SEAT = 0
"""The candidate's seat in its match against the reference bot."""
_SID_DIR = re.compile(r"[0-9]+")

EventSink = Callable[[StageEvent], None]
"""Told of every stage a submission reaches (the server's followers, metrics, logs)."""


@dataclass(frozen=True)
class Candidate:
    """A submission opened and named: what is built, validated and entered."""

    name: str
    """The bot name it is entered under (the spelling its owner registered)."""
    game: str
    """The game it plays."""
    directory: Path | None
    """The unpacked bot directory, or None for an image."""
    manifest: BotSpec | None
    """Its bot.toml, if it has one."""
    image: str = ""
    """The image id (a loaded image's at once, a directory's once built)."""


def version_of(sid: int) -> str:
    """The catalogue version of submission ``sid``: ``s<id>``."""
    return f"s{sid}"


def validation_ids(sid: int) -> tuple[str, str]:
    """The match ids of submission ``sid``'s validation matches: against itself, against the
    reference bot."""
    return f"s{sid}-self", f"s{sid}-reference"


def validation_log(competition: Competition, match_id: str) -> Path:
    """Where the log of a validation match is (its seat logs beside it)."""
    return competition.logs_dir / VALIDATION_DIR / f"{match_id}.jsonl"


class Pipeline:
    """Takes submissions from their upload to the catalogue (see the module doc). Blocking:
    the server runs it in a worker thread, one submission at a time."""

    def __init__(self, competition: Competition, accounts: Accounts, book: SubmissionBook, *,
                 client: Any = None, on_event: EventSink | None = None) -> None:
        """``client``: a Docker SDK client (default: one from the environment, on first use);
        ``on_event``: told of every stage reached."""
        self.competition = competition
        self.accounts = accounts
        self.book = book
        self._client = client
        self._had: set[str] = set()
        """The submission in hand's images that this pipeline did not see it make: the engine
        had them before its build or load (a cached build of a directory another bot shares,
        the house bot's copied; an upload of an image already there), or a restart found them
        built. A refusal never removes them: they may be another bot's too (one submission at
        a time: emptied as each begins)."""
        self.on_event = on_event
        self._sandbox: Any = None
        self._ladders: dict[str, LadderConfig] = {}
        self._house: dict[str, frozenset[str]] = {}
        self._named_as: dict[int, tuple[str, str]] = {}
        """The name and game of each submission in process, once known."""

    @property
    def client(self) -> Any:
        """The Docker SDK client (``SandboxError`` when no engine answers)."""
        if self._client is None:
            self._client = docker_client(timeout=600)
        return self._client

    def workdir(self, sid: int) -> Path:
        """Submission ``sid``'s private directory under ``uploads/``."""
        return self.competition.uploads / str(sid)

    def payload(self, sid: int) -> Path:
        """Where submission ``sid``'s upload is kept until it ends."""
        return self.workdir(sid) / PAYLOAD

    # --- stages ----------------------------------------------------------------------------
    def _advance(self, sid: int, stage: str, message: str, detail: str = "",
                 **changes: Any) -> StageEvent:
        return self._announce(self.book.advance(sid, stage, message, detail, **changes))

    def _announce(self, event: StageEvent) -> StageEvent:
        """Log a recorded move, tell the listener, and clear what an ended or entered
        submission leaves under ``uploads/``."""
        sid, stage = event.submission_id, event.stage
        log.info("submission=%d stage=%s name=%s version=%s message=%r", sid, stage,
                 event.name, event.version, event.message)
        if self.on_event is not None:
            try:
                self.on_event(event)
            except Exception:  # a listener's failure is not the submission's
                log.exception("a listener of submission %d failed", sid)
        if event.final or stage == ENTERED:
            remove_tree(self.workdir(sid))
        return event

    def _row(self, sid: int) -> SubmissionRow:
        row = self.book.get(sid)
        if row is None:
            raise ValueError(f"no submission {sid}")
        return row

    def _last(self, sid: int) -> StageEvent:
        return self.book.events(sid)[-1]

    # --- receiving -------------------------------------------------------------------------
    def upload(self, sid: int, chunks: Iterable[bytes]) -> StageEvent:
        """Receive submission ``sid``'s payload (a RECEIVING row) from ``chunks`` into
        :meth:`payload`: UPLOADED; REFUSED when it passes the competition's byte quota (cut
        there); CANCELLED when the chunks stop with an error (a client gone) or the bytes are
        not the announced size and SHA-256. Nothing is kept unless UPLOADED."""
        row = self._row(sid)
        quotas = self.competition.quotas
        limit = quotas.max_image_upload_bytes if row.kind == "image" else \
            quotas.max_upload_bytes
        if limit <= 0:
            return self._advance(sid, REFUSED, "the competition takes no image submissions: "
                                 "submit the bot directory")
        try:
            got = receive(chunks, self.payload(sid), limit)
        except UploadTooLarge as exc:
            remove_tree(self.workdir(sid))
            return self._advance(sid, REFUSED, str(exc))
        except Exception as exc:  # noqa: BLE001 — the client's stream broke: nothing kept
            remove_tree(self.workdir(sid))
            return self._advance(sid, CANCELLED, "the upload stopped half-way: nothing was "
                                 "kept (send it again)", plain_text(str(exc))[:200])
        if (row.size and got.size != row.size) or (row.sha256 and got.sha256 != row.sha256):
            remove_tree(self.workdir(sid))
            return self._advance(sid, CANCELLED, f"the upload ({got.size} bytes) is not the "
                                 f"{row.size} bytes announced, or their SHA-256 differs: "
                                 "nothing was kept (send it again)")
        return self._advance(sid, UPLOADED, f"uploaded {got.size} bytes", size=got.size,
                             sha256=got.sha256)

    def drop(self, sid: int, message: str) -> StageEvent:
        """CANCELLED with ``message`` (its files removed), for a submission the pipeline has not
        taken: the API's own check of the caller's token after the upload."""
        remove_tree(self.workdir(sid))
        return self._advance(sid, CANCELLED, message)

    # --- processing ------------------------------------------------------------------------
    def process(self, sid: int, payload: Path) -> StageEvent:
        """Take submission ``sid`` (uploaded to ``payload``) from where it is to ENTERED, or
        REFUSED or FAILED (see the module doc); its last event. A submission that has ended or
        was entered is left as it is."""
        row = self._row(sid)
        if row.final or row.stage not in IN_PIPELINE:
            return self._last(sid)
        self._had.clear()
        if row.stage == RECEIVING:
            self._advance(sid, UPLOADED, f"uploaded {payload.stat().st_size} bytes")
        try:
            return self._run(self._row(sid), payload)
        except (Refused, Revoked) as exc:
            self._discard(self._row(sid).image)
            return self._end(sid, REFUSED if isinstance(exc, Refused) else CANCELLED,
                             exc.message, exc.detail)
        except Failed as exc:
            return self._end(sid, FAILED, exc.message, exc.detail)
        except Exception as exc:  # noqa: BLE001 — the engine, the disk, a bug: not the bot's
            log.warning("submission %d failed", sid, exc_info=True)
            return self._end(sid, FAILED, "the server failed (not counted against your quota): "
                             "try again later", str(exc))
        finally:
            self._named_as.pop(sid, None)

    def _end(self, sid: int, stage: str, message: str, detail: str) -> StageEvent:
        """REFUSED or FAILED, with the bot's name and game once known, and no path of the
        server's in the words (a refusal quoting a file names it inside the bot directory)."""
        name, game = self._named_as.get(sid, (None, None))
        return self._advance(sid, stage, self._scrub(sid, message), self._scrub(sid, detail),
                             name=name, game=game)

    def _scrub(self, sid: int, text: str) -> str:
        for path, shown_as in ((self.workdir(sid) / BOT_SUBDIR, ""),
                               (self.workdir(sid), "upload"),
                               (self.competition.state_dir, "<server>")):
            text = text.replace(f"{path}/", f"{shown_as}/" if shown_as else "")
            text = text.replace(str(path), shown_as or "the bot directory")
        return text

    def _run(self, row: SubmissionRow, payload: Path) -> StageEvent:
        candidate = self._reuse(row) if row.stage in (BUILT, VALIDATED) else None
        validated = row.stage == VALIDATED and candidate is not None
        if candidate is None:  # not built yet, or its image was lost meanwhile
            self._check_active(row.contestant)
            candidate = self._built(row, payload)
            validated = row.stage == VALIDATED and candidate.image == row.image
            if row.stage != VALIDATED:
                self._advance(row.id, BUILT, f"built image {candidate.image[:19]}",
                              version=version_of(row.id), name=candidate.name,
                              game=candidate.game, image=candidate.image)
        if not validated:
            self._check_active(row.contestant)
            self._validate(row.id, candidate)
        return self._enter(row, candidate)

    def _check_active(self, contestant: str) -> None:
        """``Revoked`` unless the contestant's token is still valid."""
        if not self.accounts.active(contestant):
            raise Revoked()

    def _images(self) -> set[str]:
        """The ids of the images the engine has now (one call; empty when it does not
        answer)."""
        try:
            return {str(i) for i in self.client.api.images(quiet=True, all=True)}
        except Exception:  # noqa: BLE001 — the engine away: the build or load will say so
            return set()

    def _note_had(self, image: str, before: set[str]) -> None:
        if image in before or f"sha256:{image.removeprefix('sha256:')}" in before:
            self._had.add(image)

    def _discard(self, image: str, tag: str = "") -> None:
        """Remove a refused bot's image and ``tag`` (the entry's, undone) — only what this
        submission made. Removing an image's last tag removes the image, so an image of
        ``_had`` loses ``tag`` only while another tag keeps it (left, the tag keeps the image
        for whoever shares it; ``arena images prune`` removes it once nothing pins the
        image); an image is removed by id only when no tag keeps it (another bot's, the
        base's), nothing uses it and this submission made it."""
        if not image:
            return
        with contextlib.suppress(Exception):  # gone already, in use, the engine away
            tags = set(self.client.images.get(image).tags)
            shared = image in self._had
            if tag and (not shared or tags - {tag}):
                self.client.images.remove(tag)
                tags.discard(tag)
            if not shared and not tags:
                self.client.images.remove(image)

    def _reuse(self, row: SubmissionRow) -> Candidate | None:
        """The candidate of a built submission whose image the engine still has, else None."""
        if not row.image or not image_present(self.client, row.image):
            return None
        self._had.add(row.image)  # made before the restart, or by another bot: never removed
        return Candidate(row.name, row.game, None, None, row.image)

    # --- opening and building --------------------------------------------------------------
    def _built(self, row: SubmissionRow, payload: Path) -> Candidate:
        """Open the payload, name the bot (ownership and quotas) and build its image."""
        if not payload.is_file():
            raise Failed("the upload was lost on the server (not counted): send it again")
        if row.kind == "image":  # named by the submission: checked before it is loaded
            candidate = self._named(row, None, None)
            self._check_engine()
            quota = self.competition.quotas.max_image_upload_bytes  # counts unpacked layers
            before = self._images()
            image = self._refusing(lambda: load_image(payload, self.client, quota))
            self._note_had(image, before)
            return Candidate(candidate.name, candidate.game, None, None, image)
        directory = self.workdir(row.id) / BOT_SUBDIR
        remove_tree(directory)  # an earlier attempt's
        self._refusing(lambda: unpack_bot(payload, directory))
        manifest = self._refusing(lambda: load_bot_dir(directory)) \
            if (directory / MANIFEST).is_file() else None
        candidate = self._named(row, directory, manifest)
        return Candidate(candidate.name, candidate.game, directory, manifest,
                         self._build(directory, manifest))

    @staticmethod
    def _refusing(step: Callable[[], Any]) -> Any:
        """Run a step on the contestant's bytes: its ``ConfigError`` is a refusal."""
        try:
            return step()
        except ConfigError as exc:
            raise Refused(_first_line(str(exc)), plain_text(str(exc))) from None

    def _named(self, row: SubmissionRow, directory: Path | None,
               manifest: BotSpec | None) -> Candidate:
        """The bot's name and game, checked: a hosted game, bot.toml's game if it has one, a
        name that is not the house's and not another contestant's, within the active bots."""
        if manifest is not None and row.game and manifest.game != row.game:
            raise Refused(f"the bot's bot.toml plays {shown(manifest.game)}, not the "
                          f"submission's game {shown(row.game)}")
        game = row.game or (manifest.game if manifest else "")
        if not game:
            if len(self.competition.games) != 1:
                raise Refused("say which game the bot plays (the competition hosts "
                              f"{', '.join(g.game for g in self.competition.games)})")
            game = self.competition.games[0].game
        settings = self._refusing(lambda: self.competition.game(game))
        name = row.name or (manifest.name if manifest else "")
        if not name:
            raise Refused("the submission has no bot name: give one (an image has no bot.toml "
                          "to read it from)")
        self._refusing(lambda: check_name("the bot name", name, "submission"))
        owned = next((b for b in self.accounts.bots_of(row.contestant)
                      if name_key(b) == name_key(name)), name)  # the spelling registered
        taken = name_refusal(self.accounts, self.house_names(settings.game), owned,
                              row.contestant)  # claimed only once entered: see _enter
        if taken is not None:
            raise Refused(taken)
        problem = self.book.active_problem(row.contestant, self.competition.quotas, owned)
        if problem is not None:
            raise Refused(problem)
        self._named_as[row.id] = (owned, game)
        self._refusing(lambda: catalogue.check_new(owned, version_of(row.id), named=True,
                                                   home=self.competition.home))
        return Candidate(owned, game, directory, manifest)

    def house_names(self, game: str) -> frozenset[str]:
        """The name keys of the house's bots and the reference bot of a game (as the
        competition file names them and as their bot.toml do; read once)."""
        if game not in self._house:
            settings = self.competition.game(game)
            dirs = {*settings.house_dirs, settings.reference_dir}
            self._house[game] = frozenset({name_key(load_bot_dir(d).name) for d in dirs}
                                          | {name_key(d.name) for d in dirs})
        return self._house[game]

    def _check_engine(self) -> None:
        """``Failed`` unless a Docker engine answers."""
        try:
            self.client.ping()
        except Exception as exc:  # noqa: BLE001 — SandboxError, requests' errors
            raise Failed("the server's Docker engine does not answer (not counted): try again "
                         "later", plain_text(str(exc))) from None

    def _build(self, directory: Path, manifest: BotSpec | None) -> str:
        """Build the directory's image as ``arena submit`` does; its id."""
        self._check_engine()
        flavor = manifest.base if manifest else "python"
        if find_base_image(FLAVORS[flavor].tag, self.client) is None:
            raise Failed(f"the server has no {flavor} base image (not counted): the operator "
                         f"must build it (`arena images build-base --flavor {flavor}`)")
        before = self._images()
        image = self._refusing(lambda: build_bot_image(directory, flavor_name=flavor,
                                                        client=self.client))
        self._note_had(str(image.image_id), before)
        attrs = self.client.images.get(image.image_id).attrs
        problem = image_refusal(attrs, manifest)
        if problem is not None:
            raise Refused(f"refused: {_first_line(problem)}", problem)
        return str(image.image_id)

    # --- validating ------------------------------------------------------------------------
    def _ladder(self, game: str) -> LadderConfig:
        """The game's ladder (its options and time control are the validation's)."""
        if game not in self._ladders:
            self._ladders[game] = ladder_config(self.competition, game)
        return self._ladders[game]

    def _docker(self) -> Any:
        if self._sandbox is None:
            self._sandbox = DockerSandbox(client=self.client)
        return self._sandbox

    def _validate(self, sid: int, candidate: Candidate) -> None:
        """Play the two validation matches; VALIDATED, or ``Refused``/``Failed``."""
        results = self._play(sid, candidate)
        self._judge(results[0], (0, 1))  # both seats are the candidate's
        self._judge(results[1], (CANDIDATE_SEAT,))
        self._advance(sid, VALIDATED, "validated: it played against itself "
                      f"({_score(results[0])}) and against the reference bot "
                      f"({_score(results[1])})", match_ids=validation_ids(sid),
                      image=candidate.image)

    def _play(self, sid: int, candidate: Candidate) -> tuple[MatchResult, MatchResult]:
        ladder = self._ladder(candidate.game)
        bot = BotSpec(candidate.name, candidate.game, image=candidate.image,
                      version=version_of(sid), digest=candidate.image)
        reference = load_bot_dir(self.competition.game(candidate.game).reference_dir)
        lineup = line_up([bot, reference], sandbox=self._docker())
        ladder, _ = resolve_run_clock(ladder, lineup)  # the clock its ladder matches play on
        self_id, reference_id = validation_ids(sid)
        specs = (lineup.match((0, 0), options=ladder.options, match_id=self_id,
                              time_control=ladder.time_control),
                 lineup.match((0, 1), options=ladder.options, match_id=reference_id,
                              time_control=ladder.time_control))
        log_dir = self.competition.logs_dir / VALIDATION_DIR

        async def both() -> tuple[MatchResult, MatchResult]:
            first, second = await asyncio.gather(
                *(play_match(spec, sandbox=lineup.sandbox, log_dir=log_dir) for spec in specs))
            return first, second

        return asyncio.run(both())

    def _judge(self, result: MatchResult, seats: tuple[int, ...]) -> None:
        """``Failed`` for a void match, ``Refused`` for a fault of the candidate (one of
        ``seats``); a fault of the reference bot alone is not the candidate's."""
        if result.termination.is_void:
            raise Failed(f"the validation match {result.match_id} could not be played (the "
                         f"arena's fault, not counted: {result.termination}): try again later",
                         plain_text(result.detail))
        if result.termination is Termination.NORMAL:
            return
        faulty = result.faulty_seat
        if faulty is not None and faulty not in seats:
            return
        seat = faulty if faulty is not None else seats[0]
        raise Refused(f"the bot failed its validation match {result.match_id}: "
                      f"{result.termination}", _fault_detail(result, seat))

    # --- entering --------------------------------------------------------------------------
    def _enter(self, row: SubmissionRow, candidate: Candidate) -> StageEvent:
        """Enter the validated bot in the catalogue (again after a restart: the same entry is
        kept) and tag its image: ENTERED, recorded with the name's claim and a last check of
        the contestant (``Revoked``; ``Refused`` if the name became another's) in one
        transaction inside the catalogue's: either both are written or neither."""
        sid, name = row.id, candidate.name
        version = version_of(sid)
        home = self.competition.home
        ladder = self.competition.ladder_name(candidate.game)
        message = f"entered: {name}@{version} plays in the ladder {ladder}"

        def claim(conn: Connection) -> None:
            if not self.accounts.active(row.contestant, conn):
                raise Revoked()
            claim_name(self.accounts, name, row.contestant, conn)

        found = catalogue.find(name, version, home=home)
        if found is not None and found.image == candidate.image:  # entered before a restart
            return self._advance(sid, ENTERED, message, within=claim)
        tag = ""
        try:
            with catalogue.adding(name, version, candidate.game, candidate.image,
                                  candidate.image, replace=found is not None, named=True,
                                  home=home):
                tag = keep_bot_image(candidate.image, name, version, self.client)
                event = self.book.advance(sid, ENTERED, message, within=claim)
        except ConfigError as exc:  # the catalogue's refusal (nothing written)
            raise Refused(_first_line(str(exc)), plain_text(str(exc))) from None
        except (Refused, Revoked):
            self._discard(candidate.image, tag)
            raise
        return self._announce(event)

    # --- restarts --------------------------------------------------------------------------
    def recover(self) -> list[int]:
        """At the server's start, before it serves: cancel the submissions still RECEIVING
        (their files removed), remove what ``uploads/`` holds of no submission in the pipeline,
        and return the ids of those UPLOADED, BUILT or VALIDATED, oldest first: the caller
        gives each to :meth:`process` again (with :meth:`payload`), as it would a new one."""
        again: list[int] = []
        for row in self.book.unfinished():
            if row.stage == RECEIVING:
                remove_tree(self.workdir(row.id))
                self._advance(row.id, CANCELLED, "the upload was cut off by a server restart: "
                              "nothing was kept (not counted; send it again)")
            elif row.stage in IN_PIPELINE:
                again.append(row.id)
        self._sweep()
        return again

    def _sweep(self) -> None:
        """Remove the directories of ``uploads/`` that belong to no submission in the
        pipeline."""
        uploads = self.competition.uploads
        if not uploads.is_dir():
            return
        live = {str(row.id) for row in self.book.unfinished() if row.stage in IN_PIPELINE}
        for entry in uploads.iterdir():
            if not (_SID_DIR.fullmatch(entry.name) and entry.name in live):
                with contextlib.suppress(OSError):
                    remove_tree(entry)


def _first_line(text: str) -> str:
    return plain_text(text).strip().splitlines()[0] if text.strip() else "refused"


def _score(result: MatchResult) -> str:
    return f"{result.totals[0]}:{result.totals[1]}"


def _fault_detail(result: MatchResult, seat: int) -> str:
    """The validation match's termination and detail, and the end of the bot's own output."""
    lines = [f"match {result.match_id}: {result.termination} by seat {seat}",
             plain_text(result.detail)]
    tail = _output_tail(result, seat)
    if tail:
        lines += [f"--- the bot's output (seat {seat}), last lines ---", tail]
    return bounded("\n".join(lines))


def _output_tail(result: MatchResult, seat: int) -> str:
    """The end of a seat's output, from the seat log the referee keeps beside the match log."""
    if not result.log:
        return ""
    path = seat_log_path(Path(result.log), seat)
    try:
        with path.open("rb") as file:
            file.seek(0, 2)
            size = file.tell()
            file.seek(max(0, size - OUTPUT_TAIL_CHARS * 4))
            text = file.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    return plain_text(text)[-OUTPUT_TAIL_CHARS:]
