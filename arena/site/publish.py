"""A ladder's results published so that anyone can check them offline: ``publish`` writes the
directory (`arena ladder publish`), ``verify_publication`` checks one (`arena verify`).

The published directory:

- ``logs/<match_id>.jsonl``: the log of every rated and void match of the ladder's store, signed
  (``arena.record.signing``). A log the ladder signed is copied as it is; an unsigned finished
  log (a ladder from before signing) is signed now, in the copy, with the ladder's key (the
  ladder's own file is left as it was recorded).
- ``manifest.json``: the ladder, its game, the key id, when it was made, every match in the
  store's order (its id, log path and the SHA-256 of the log file, rated or void, the bots,
  their versions and code identities, the ladder slot: encounter, cycle and leg, the winner,
  the totals, the termination), the ratings' inputs (the prior, whether versions are rated,
  the live Elo's K and start, the matches the cluster gave up on) and the standings exactly as
  `arena ladder standings --format json` gives them, plus the fit's ratings unrounded.
- ``manifest.sig``: the signature of manifest.json's bytes in the ``manifest`` domain (so no log
  signature can pass for it) and the key id.
- ``referee.pub``: the public key, a convenience only: a verifier passes a key it got from
  somewhere it trusts (``--key``), never the one beside what it checks.
- ``index.html`` and the rest of the ladder's site (``arena.site.refresh``), the index opening
  with a banner: the key id, when and by which arena the directory was verified, and the
  command that verifies it.

The directory is made beside its place and verified before it replaces what was there (a
publication refused half-way leaves nothing behind).

What ``verify_publication`` checks: manifest.sig against the trusted keys; for every listed match,
its log (present, a regular file, the listed hash, its own signature by a trusted key, the
header's match id and ladder slot those of the manifest's row, a replay under the rules with the
seed's reveal against its commitment, the result the row's); no log in ``logs/`` that the
manifest does not list; then the standings recomputed from the logs alone (each match rebuilt
from its log: the result, the header's slot, versions and code identities, in the manifest's
order) and compared with the manifest's, every number within 1e-6. What it cannot check: the
count of matches the cluster gave up on (they have no log), the slot of a log older than format
4 (its header has none: the row's is taken, and counted), and a match the publisher listed
without a log (``--allow-missing``: taken from its row, and listed as not verifiable).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import math
import re
import secrets
import shutil
import stat
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena import __version__
from arena.errors import ArenaError, ConfigError, SignatureError
from arena.ladder.config import LadderConfig
from arena.ladder.reports import (
    Standings,
    iso_time,
    open_store,
    rates_versions,
    records_of,
    standings_of,
)
from arena.ladder.runner import ladder_signing
from arena.ladder.store import StoredMatch
from arena.model import HeaderEvent, MatchResult, Termination, has_human, plain_text
from arena.record.log import read_events
from arena.record.replay import replay_log
from arena.record.signing import (
    ALGORITHM,
    PublicKey,
    Signer,
    TrustedKeys,
    check_log_signature,
    parse_log_signature,
    sign_bytes,
    sign_log,
    verify_bytes,
)
from arena.render.html.published import with_banner
from arena.site.final import FINAL_KIND, by_entry, check_final, final_places, withdrawn_keys
from arena.site.refresh import log_of, refresh_site, write_public
from arena.stats.rating import live_elo

FORMAT = 1
"""The version of the manifest's layout."""
KIND = "arena-ladder-results"
"""The manifest's ``kind``: what the file is (a final's: ``arena.site.final.FINAL_KIND``)."""
ENTRY = "entry"
"""``ratings.rated_by`` of a final: every entrant (a version) a player of its own."""
DOMAIN = "manifest"
"""The signature domain of manifest.json."""
MANIFEST = "manifest.json"
SIGNATURE = "manifest.sig"
PUBLIC_KEY = "referee.pub"
LOGS = "logs"
INDEX = "index.html"
TOLERANCE = 1e-6
"""How far a recomputed number may be from the manifest's."""
_PUBLISHED = (MANIFEST, SIGNATURE, PUBLIC_KEY, LOGS)
"""What a publication holds besides its site."""
_SAFE_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")
"""A match id that is a file name as it is (the referee names its log ``<match_id>.jsonl``)."""

Progress = Callable[[int, int], None]
"""Called with (logs checked, logs to check) while a publication is verified."""


# --- what publish and verify say ----------------------------------------------------------------
@dataclass(frozen=True)
class Verification:
    """What ``verify_publication`` found."""

    directory: Path
    ladder: str
    """The ladder the manifest names."""
    key_id: str
    """The key that signed the manifest (as manifest.sig names it)."""
    matches: int
    """Matches the manifest lists."""
    logs: int
    """Logs checked."""
    missing: tuple[str, ...] = ()
    """Matches the publisher listed without a log (not verifiable: taken from their rows)."""
    unslotted: int = 0
    """Logs without a ladder slot (format < 4): their rows' slots were taken."""
    differences: tuple[str, ...] = ()
    """Everything that does not hold, one line each (none: the directory verifies)."""
    final: str = ""
    """For a final's results: what its own checks covered, in words ("" : not a final)."""

    @property
    def ok(self) -> bool:
        """Whether the directory verifies."""
        return not self.differences


@dataclass(frozen=True)
class Publication:
    """What ``publish`` wrote."""

    directory: Path
    key_id: str
    public_key: Path
    """The published public key (``referee.pub`` in the directory)."""
    matches: int
    """Matches listed (rated and void)."""
    signed_now: tuple[str, ...]
    """Matches whose unsigned log was signed by this publication."""
    missing: tuple[str, ...]
    """Matches listed without a log (``allow_missing``)."""
    verification: Verification


# --- publish --------------------------------------------------------------------------------
def publish(config: LadderConfig, out: Path, *, allow_missing: bool = False,
            trusted: Iterable[PublicKey] = (), progress: Progress | None = None,
            now: float | None = None, final: Mapping[str, Any] | None = None,
            site: Callable[[Path, dict[str, Any]], None] | None = None) -> Publication:
    """Publish the ladder's results in ``out`` (see the module doc), verified before they
    replace what was there. ``trusted``: public keys of earlier keys of the ladder (a log the
    ladder signed with a rotated key is copied as it is and must verify). ``final``: the
    ladder is a final tournament and this its manifest's ``final`` section
    (``arena.site.final``: every version rated apart, the places added); ``site``: writes the
    directory's pages from the manifest instead of the ladder's site. ``ConfigError`` (one
    line, nothing written) when the ladder has no results, a log is missing or unfinished and
    ``allow_missing`` is not set, ``out`` holds something else than a publication, or the
    publication does not verify."""
    _check_out(out)
    signer = ladder_signing(config).signer
    with open_store(config) as db:
        matches = db.matches(config.name)
        live = db.live_elo(config.name)
        given_up = len(db.void_attempts(config.name))
    staging = out.parent / f".{out.name}.publishing-{secrets.token_hex(4)}"
    try:
        _seed_site(out, staging)
        logs = _copy_logs(config, matches, staging / LOGS, signer, allow_missing)
        if final is None:
            standings = standings_of(config.name, matches, prior=config.rating.prior,
                                     live=live, given_up=given_up,
                                     versions=rates_versions(config))
        else:
            standings = by_entry(config.name, matches, config.rating.prior,
                                 withdrawn_keys(final))
        manifest = _manifest(config, matches, logs, standings, signer.key_id, given_up,
                             time.time() if now is None else now)
        if final is not None:
            manifest["kind"] = FINAL_KIND
            manifest["ratings"]["rated_by"] = ENTRY
            places = final_places(standings, str(final["tie_break"]))
            manifest["final"] = {**final, "places": [p.to_json() for p in places]}
        _write_signed(staging, manifest, signer)
        keys = TrustedKeys([signer.public, *trusted])
        report = verify_publication(staging, keys, progress=progress)
        if not report.ok:
            raise ConfigError(f"the publication of {config.name!r} does not verify: "
                              f"{report.differences[0]}"
                              + _more(len(report.differences) - 1))
        if site is None:
            refresh_site(config, staging)
        else:
            site(staging, manifest)
        _add_banner(staging / INDEX, signer.key_id, report)
        _swap(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return Publication(out, signer.key_id, out / PUBLIC_KEY, len(matches),
                       tuple(m for m, kind in logs.items() if kind == _SIGNED_NOW),
                       tuple(m for m, kind in logs.items() if kind == _MISSING),
                       _moved(report, out))


_COPIED, _SIGNED_NOW, _MISSING = "copied", "signed now", "missing"
"""What happened to a match's log in a publication."""


def _check_out(out: Path) -> None:
    """``out`` is new, empty, or an earlier publication (replaced whole)."""
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise ConfigError(f"{out} is not a directory: choose where to publish with --out DIR")
    if out.is_dir() and any(out.iterdir()) and not (out / MANIFEST).is_file():
        raise ConfigError(f"{out} holds other files and no published ladder: publish into a new "
                          f"or empty directory (an earlier publication is replaced whole)")


def _seed_site(out: Path, staging: Path) -> None:
    """The new directory, holding the site of an earlier publication in ``out`` if there is one
    (the site refresh then writes only what changed)."""
    if (out / MANIFEST).is_file():
        shutil.copytree(out, staging, symlinks=True,
                        ignore=lambda folder, names: [n for n in names if Path(folder) == out
                                                      and n in _PUBLISHED])
    else:
        staging.mkdir(parents=True)
    staging.chmod(0o755)


def _copy_logs(config: LadderConfig, matches: Sequence[StoredMatch], logs: Path,
               signer: Signer, allow_missing: bool) -> dict[str, str]:
    """Every match's log copied into ``logs``, signed; match id → what was done."""
    logs.mkdir()
    logs.chmod(0o755)
    done: dict[str, str] = {}
    for m in matches:
        if not _SAFE_ID.fullmatch(m.match_id):
            raise ConfigError(f"match id {plain_text(m.match_id)!r} is not a file name: it "
                              "cannot be published")
        source = log_of(config, m)
        problem = "its log is missing" if source is None else None
        target = logs / f"{m.match_id}.jsonl"
        if source is not None:
            data = source.read_bytes()
            write_public(target, data)
            problem, done[m.match_id] = _signed(target, data, signer)
        if problem is not None:
            if not allow_missing:
                raise ConfigError(f"match {m.match_id}: {problem} (looked for "
                                  f"{source or config.match_log_dir / target.name}): publish "
                                  "with --allow-missing to list it as missing")
            target.unlink(missing_ok=True)
            done[m.match_id] = _MISSING
    return done


def _signed(target: Path, data: bytes, signer: Signer) -> tuple[str | None, str]:
    """Sign the copy ``target`` (holding ``data``) if it is unsigned: (why it cannot be
    published or None, what was done)."""
    try:
        if parse_log_signature(data) is not None:
            return None, _COPIED
        sign_log(target, signer)
    except SignatureError as exc:
        return str(exc), _MISSING
    return None, _SIGNED_NOW


def _manifest(config: LadderConfig, matches: Sequence[StoredMatch], logs: Mapping[str, str],
              standings: Standings, key_id: str, given_up: int, now: float) -> dict[str, Any]:
    """The manifest's data (see the module doc)."""
    return {
        "format": FORMAT, "kind": KIND, "ladder": config.name, "game": config.game,
        "key_id": key_id, "generated_at": iso_time(now), "arena_version": __version__,
        "ratings": {"prior": config.rating.prior, "rated_by": _rated_by(config),
                    "elo_k": config.rating.elo_k, "elo_start": config.rating.start,
                    "given_up_matches": given_up},
        "matches": [_row(m, logs[m.match_id] != _MISSING) for m in matches],
        "standings": standings.to_json(),
        "fit": _fit_json(standings),
    }


def _rated_by(config: LadderConfig) -> str:
    return "version" if rates_versions(config) else "name"


def _row(m: StoredMatch, has_log: bool) -> dict[str, Any]:
    """A match as the manifest lists it."""
    log = f"{LOGS}/{m.match_id}.jsonl"
    return {
        "match_id": m.match_id, "log": log if has_log else None,
        "sha256": None, "rated": not m.void, "void": m.void, "bots": list(m.bots),
        "versions": list(m.versions), "identities": list(m.identities),
        "encounter_id": m.encounter_id, "cycle": m.cycle, "leg": m.leg, "winner": m.winner,
        "totals": list(m.totals), "termination": str(m.termination),
    }


def _fit_json(standings: Standings) -> list[dict[str, Any]]:
    """Every rated player's official rating and interval, unrounded."""
    return [{"player": r.name, "rating": r.rating, "ci95": r.ci95, "games": r.games}
            for r in standings.fit.ratings]


def _write_signed(directory: Path, manifest: dict[str, Any], signer: Signer) -> None:
    """manifest.json (each listed log's hash filled in), manifest.sig and referee.pub."""
    for row in manifest["matches"]:
        if row["log"] is not None:
            row["sha256"] = hashlib.sha256((directory / row["log"]).read_bytes()).hexdigest()
    data = manifest_bytes(manifest)
    signature = sign_bytes(signer, DOMAIN, data)
    write_public(directory / MANIFEST, data)
    write_public(directory / SIGNATURE, (json.dumps({
        "algorithm": ALGORITHM, "domain": DOMAIN, "key_id": signer.key_id,
        "signature": base64.b64encode(signature).decode()}, indent=1) + "\n").encode())
    write_public(directory / PUBLIC_KEY, signer.public.pem())


def manifest_bytes(manifest: Mapping[str, Any]) -> bytes:
    """manifest.json's bytes: readable, one line per match (its matches listed last)."""
    head = json.dumps({k: v for k, v in manifest.items() if k != "matches"}, indent=1,
                      ensure_ascii=False)
    rows = ",\n".join("  " + json.dumps(row, ensure_ascii=False) for row in manifest["matches"])
    return (head.removesuffix("\n}") + ',\n "matches": [\n' + rows + "\n ]\n}\n"
            ).encode("utf-8")


def _add_banner(index: Path, key_id: str, report: Verification) -> None:
    page = index.read_text(encoding="utf-8")
    write_public(index, with_banner(page, key_id=key_id, verified_at=iso_time(time.time()),
                                    arena_version=__version__, matches=report.matches,
                                    command=verify_command(Path("."))).encode("utf-8"))


def verify_command(directory: Path, key: Path | str = "REFEREE.pub") -> str:
    """The command that verifies a publication with the public key ``key`` (one the reader
    trusts)."""
    return f"arena verify {directory} --key {key}"


def _swap(staging: Path, out: Path) -> None:
    """``staging`` in the place of ``out`` (an earlier publication there is removed)."""
    old = out.parent / f".{out.name}.old-{secrets.token_hex(4)}"
    if out.exists():
        out.rename(old)
    try:
        staging.rename(out)
    except OSError:
        if old.exists():
            old.rename(out)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _moved(report: Verification, out: Path) -> Verification:
    return Verification(out, report.ladder, report.key_id, report.matches, report.logs,
                        report.missing, report.unslotted, report.differences, report.final)


def _more(count: int) -> str:
    return f" (and {count} more difference{'s' if count > 1 else ''}: `arena verify` lists " \
           "them)" if count else ""


# --- verify ---------------------------------------------------------------------------------
def verify_publication(directory: Path, trusted: TrustedKeys, *,
                       progress: Progress | None = None) -> Verification:
    """Check a published directory (see the module doc) against the ``trusted`` keys; every
    difference found is one line of the answer. ``ConfigError`` when ``directory`` is no
    publication at all (not a directory, no manifest.json or manifest.sig)."""
    if not directory.is_dir():
        raise ConfigError(f"{directory} is not a directory: pass the directory `arena ladder "
                          "publish --out` wrote")
    for name in (MANIFEST, SIGNATURE):
        if not (directory / name).is_file():
            raise ConfigError(f"{directory} holds no {name}: not a published ladder (`arena "
                              "ladder publish --out DIR` writes one)")
    check = _Check(directory)
    data = (directory / MANIFEST).read_bytes()
    check.key_id = check.signature(data, trusted)
    manifest = check.manifest(data)
    if manifest is None:
        return check.report()
    rows = manifest["matches"]
    for done, row in enumerate(rows, start=1):
        check.match(row, trusted)
        if progress is not None:
            progress(done, len(rows))
    check.unlisted({row["match_id"] for row in rows})
    check.standings(manifest)
    if manifest["kind"] == FINAL_KIND:
        check.final(manifest, trusted)
    return check.report()


@dataclass
class _Check:
    """One verification: what was found so far."""

    directory: Path
    key_id: str = ""
    ladder: str = ""
    listed: int = 0
    logs: int = 0
    unslotted: int = 0
    missing: list[str] = field(default_factory=list)
    found: list[StoredMatch] = field(default_factory=list)
    """Each listed match as its log (or, without one, its row) says, in the manifest's order."""
    standings_found: Standings | None = None
    """The standings recomputed from the logs (once they are)."""
    final_said: str = ""
    """What a final's checks covered (``Verification.final``)."""
    differences: list[str] = field(default_factory=list)

    def report(self) -> Verification:
        return Verification(self.directory, self.ladder, self.key_id, self.listed, self.logs,
                            tuple(self.missing), self.unslotted, tuple(self.differences),
                            self.final_said)

    def differ(self, line: str) -> None:
        self.differences.append(plain_text(line))

    def signature(self, data: bytes, trusted: TrustedKeys) -> str:
        """Check manifest.sig over ``data``; the key id it names."""
        try:
            record = json.loads((self.directory / SIGNATURE).read_bytes())
            key_id, signature = record["key_id"], base64.b64decode(record["signature"],
                                                                   validate=True)
            if record.get("algorithm") != ALGORITHM or not isinstance(key_id, str):
                raise TypeError
        except (OSError, ValueError, KeyError, TypeError, binascii.Error):
            self.differ(f"{SIGNATURE}: not a signature record")
            return ""
        try:
            verify_bytes(trusted, key_id, DOMAIN, data, signature)
        except SignatureError as exc:
            self.differ(f"{SIGNATURE}: {exc}")
        return key_id

    def manifest(self, data: bytes) -> dict[str, Any] | None:
        """The manifest's data when it has the layout of one (else a difference)."""
        try:
            manifest = json.loads(data)
            if not (isinstance(manifest, dict) and manifest.get("kind") in (KIND, FINAL_KIND)
                    and manifest.get("format") == FORMAT):
                raise ValueError("not a results manifest of format 1")
            self.ladder = _str(manifest["ladder"])
            if manifest.get("key_id") != self.key_id:
                self.differ(f"{MANIFEST}: it names key {manifest.get('key_id')}, but "
                            f"{SIGNATURE} key {self.key_id}")
            rows = manifest["matches"]
            if not isinstance(rows, list) or not all(_row_ok(r) for r in rows):
                raise ValueError("a malformed match row")
            _ratings_inputs(manifest)
        except (ValueError, KeyError, TypeError) as exc:
            self.differ(f"{MANIFEST}: not a results manifest ({exc})")
            return None
        self.listed = len(rows)
        ids = [r["match_id"] for r in rows]
        for match_id in sorted({i for i in ids if ids.count(i) > 1}):
            self.differ(f"match {match_id}: listed more than once")
        return manifest

    def match(self, row: dict[str, Any], trusted: TrustedKeys) -> None:
        """Check one listed match and keep it as its log says."""
        match_id = row["match_id"]
        if row["log"] is None:
            self.missing.append(match_id)
            self.found.append(_from_row(row))
            return
        path = self.directory / LOGS / f"{match_id}.jsonl"
        if not _SAFE_ID.fullmatch(match_id) or row["log"] != f"{LOGS}/{match_id}.jsonl":
            self.differ(f"match {match_id}: its log is listed as {row['log']!r}, not "
                        f"{LOGS}/<match id>.jsonl")
            return
        problems = _log_problems(path, row, self.ladder, trusted)
        if isinstance(problems, list):
            self.differences += [plain_text(f"match {match_id}: {p}") for p in problems]
            return
        self.logs += 1
        stored, slotted = problems
        self.unslotted += not slotted
        self.found.append(stored)

    def unlisted(self, listed: set[str]) -> None:
        """Every file in logs/ is a listed match's log."""
        folder = self.directory / LOGS
        names = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
        for name in names:
            if name.removesuffix(".jsonl") not in listed or not name.endswith(".jsonl"):
                self.differ(f"{LOGS}/{name}: a file the manifest does not list")

    def standings(self, manifest: dict[str, Any]) -> None:
        """The standings recomputed from the logs, against the manifest's."""
        if len(self.found) != self.listed:
            self.differ("standings: not recomputed (some listed matches did not verify)")
            return
        inputs = manifest["ratings"]
        versions = inputs["rated_by"] == "version"
        live = None if versions else live_elo(records_of(self.found), k=inputs["elo_k"],
                                              start=inputs["elo_start"])
        try:
            if inputs["rated_by"] == ENTRY:
                section = manifest.get("final")
                out = withdrawn_keys(section) if isinstance(section, dict) else set()
                standings = by_entry(self.ladder, self.found, inputs["prior"], out)
            else:
                standings = standings_of(self.ladder, self.found, prior=inputs["prior"],
                                         live=live, given_up=inputs["given_up_matches"],
                                         versions=versions)
        except (ValueError, ArithmeticError) as exc:
            self.differ(f"standings: cannot be recomputed from the logs ({exc})")
            return
        for line in _compare("standings", manifest.get("standings"), standings.to_json()):
            self.differ(line)
        for line in _compare("fit", manifest.get("fit"), _fit_json(standings)):
            self.differ(line)
        self.standings_found = standings

    def final(self, manifest: dict[str, Any], trusted: TrustedKeys) -> None:
        """A final's own claims (``arena.site.final.check_final``) and its places, recomputed
        with its tie rule from the standings the logs give."""
        for line in check_final(manifest, self.found, trusted):
            self.differ(line)
        section = manifest.get("final")
        if self.standings_found is None or not isinstance(section, dict):
            return
        try:
            found = [p.to_json() for p in final_places(self.standings_found,
                                                        str(section.get("tie_break")))]
        except ValueError as exc:
            self.differ(f"final.places: cannot be recomputed ({exc})")
            return
        for line in _compare("final.places", section.get("places"), found):
            self.differ(line)
        complete = "every scheduled match listed" if section.get("complete") else \
            "closed before its end, as it says"
        self.final_said = (f"the seed commitment signed before its first match and the secret "
                           f"revealed agree, every deal is the secret's and every match the "
                           f"schedule's ({complete}); the places under its tie rule "
                           f"({section.get('tie_break')}) recomputed from the logs agree")


def _log_problems(path: Path, row: dict[str, Any], ladder: str, trusted: TrustedKeys
                  ) -> list[str] | tuple[StoredMatch, bool]:
    """What is wrong with a listed log, or the match it holds and whether its header has a
    ladder slot."""
    try:
        info = path.lstat()
    except OSError:
        return ["its log is missing"]
    if not stat.S_ISREG(info.st_mode):
        return ["its log is not a regular file"]
    if hashlib.sha256(path.read_bytes()).hexdigest() != row["sha256"]:
        return ["its log's SHA-256 is not the manifest's (the log or the manifest was changed)"]
    try:
        if check_log_signature(path, trusted) is None:
            return ["its log is unsigned"]
    except SignatureError as exc:
        return [f"its log's signature: {exc}"]
    try:
        header = next(iter(read_events(path)), None)
        report = replay_log(path)
    except ArenaError as exc:
        return [f"its log does not replay: {exc}"]
    if not isinstance(header, HeaderEvent) or report.result is None:
        return ["its log is not a finished match log"]
    if header.humans or has_human(header.bot_names):
        return ["its log is of a match a person played (`arena play`), which no ladder rates"]
    problems = _header_problems(header, row, ladder) + _result_problems(report.result, row)
    if problems:
        return problems
    return _from_log(header, report.result, row, str(path)), header.slot is not None


def _header_problems(header: HeaderEvent, row: dict[str, Any], ladder: str) -> list[str]:
    problems = []
    if header.match_id != row["match_id"]:
        problems.append(f"its log is of match {header.match_id!r}")
    slot = header.slot
    if slot is not None:
        found = (slot.name, slot.encounter_id, slot.cycle, slot.leg)
        listed = (ladder, row["encounter_id"], row["cycle"], row["leg"])
        if found != listed:
            problems.append(f"its log was played in ladder {slot.name!r}, encounter "
                            f"{slot.encounter_id!r}, cycle {slot.cycle}, leg {slot.leg}; the "
                            f"manifest lists it in ladder {ladder!r}, encounter "
                            f"{row['encounter_id']!r}, cycle {row['cycle']}, leg {row['leg']}")
    seats = [(b.version, b.digest) for b in header.bots]
    if seats != list(zip(row["versions"], row["identities"], strict=True)):
        problems.append("its log's bot versions or code identities are not the manifest's")
    return problems


def _result_problems(result: MatchResult, row: dict[str, Any]) -> list[str]:
    found = {"bots": list(result.bots), "winner": result.winner,
             "totals": list(result.totals), "termination": str(result.termination),
             "void": result.void, "rated": not result.void}
    return [f"its log's {key} is {value!r}, the manifest says {row[key]!r}"
            for key, value in found.items() if row[key] != value]


def _from_log(header: HeaderEvent, result: MatchResult, row: dict[str, Any], log: str
              ) -> StoredMatch:
    """The match as its log says (the slot: the header's, else the row's)."""
    slot = header.slot
    where = (row["encounter_id"], row["cycle"], row["leg"]) if slot is None else \
        (slot.encounter_id, slot.cycle, slot.leg)
    return StoredMatch(
        match_id=header.match_id, encounter_id=where[0], cycle=where[1], leg=where[2],
        game=result.game, game_version=result.game_version, seed=result.seed,
        bots=result.bots, winner=result.winner, termination=result.termination,
        faulty_seat=result.faulty_seat, void=result.void, detail=result.detail,
        rounds=result.rounds, totals=result.totals, log_path=log,
        duration_s=result.duration_s, finished_at=0.0,
        versions=(header.bots[0].version, header.bots[1].version),
        identities=(header.bots[0].digest, header.bots[1].digest),
    )


def _from_row(row: dict[str, Any]) -> StoredMatch:
    """A match listed without a log, as its row says."""
    return StoredMatch(
        match_id=row["match_id"], encounter_id=row["encounter_id"], cycle=row["cycle"],
        leg=row["leg"], game="", game_version=0, seed=0, bots=_pair(row["bots"]),
        winner=row["winner"], termination=Termination(row["termination"]), faulty_seat=None,
        void=row["void"], detail="", rounds=(), totals=_pair(row["totals"]), log_path=None,
        duration_s=0.0, finished_at=0.0, versions=_pair(row["versions"]),
        identities=_pair(row["identities"]),
    )


def _pair(value: Sequence[Any]) -> tuple[Any, Any]:
    return value[0], value[1]


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{value!r} is not text")
    return value


_ROW_TYPES: dict[str, tuple[type, ...]] = {
    "match_id": (str,), "log": (str, type(None)), "sha256": (str, type(None)),
    "rated": (bool,), "void": (bool,), "bots": (list,), "versions": (list,),
    "identities": (list,), "encounter_id": (str,), "cycle": (int,), "leg": (int,),
    "winner": (int, type(None)), "totals": (list,), "termination": (str,),
}
"""A manifest row's keys and their JSON types."""


def _row_ok(row: Any) -> bool:
    """Whether ``row`` has every key of a match row, of its type."""
    if not isinstance(row, dict) or not all(
            isinstance(row.get(key, ...), types) for key, types in _ROW_TYPES.items()):
        return False
    pairs = (row["bots"], row["versions"], row["identities"], row["totals"])
    return all(len(p) == 2 for p in pairs) and row["termination"] in set(Termination)


def _ratings_inputs(manifest: dict[str, Any]) -> None:
    inputs = manifest["ratings"]
    for key in ("prior", "elo_k", "elo_start"):
        if not isinstance(inputs[key], int | float) or isinstance(inputs[key], bool):
            raise TypeError(f"ratings.{key} is not a number")
    if inputs["rated_by"] not in ("name", "version", ENTRY) or not isinstance(
            inputs["given_up_matches"], int):
        raise TypeError("malformed ratings inputs")


def _compare(where: str, listed: Any, found: Any) -> Iterable[str]:
    """Every place where the manifest's ``listed`` data differs from the recomputed ``found``
    (numbers: by more than ``TOLERANCE``)."""
    if isinstance(found, dict) and isinstance(listed, dict):
        for key in sorted(set(found) | set(listed), key=str):
            yield from _compare(f"{where}.{key}", listed.get(key), found.get(key))
    elif isinstance(found, list) and isinstance(listed, list) and len(found) == len(listed):
        for n, (a, b) in enumerate(zip(listed, found, strict=True)):
            yield from _compare(f"{where}[{n}]", a, b)
    elif not _same(listed, found):
        yield f"{where}: the manifest says {_shown(listed)}, the logs give {_shown(found)}"


def _same(a: Any, b: Any) -> bool:
    numbers = (int, float)
    if isinstance(a, numbers) and isinstance(b, numbers) and not isinstance(a, bool) \
            and not isinstance(b, bool):
        return math.isclose(a, b, rel_tol=0.0, abs_tol=TOLERANCE)
    return type(a) is type(b) and bool(a == b)


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."



