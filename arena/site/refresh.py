"""A ladder's static site, kept up to date: ``refresh_site`` writes what changed since the last
refresh, each file replaced whole.

The site (any static web server can serve it; it also opens from a disk, offline):

- ``index.html``: the report (``arena.site.report_page``) with the newest matches;
- ``matches/page-NNNN.html``: every match, ``page_size`` a page (``arena.site.match_pages``);
- ``replays/<match>.html``: one replay page per match, holding only that match's data;
- ``assets/arena-<hash>.css``, ``assets/viewer-<hash>.js``: the style and the replay player,
  one copy for the whole site, named by their content's hash;
- ``.site/``: the refresh's own records (not pages): ``manifest.json`` (every page and shared
  file written, with its hash and size), ``replays.jsonl`` (each match's replay page, or why it
  has none), ``lock``.

Incremental: a match's replay page never changes once written (the match is recorded, its log
final), so it is built once: a refresh builds the pages of new matches only (a known page is
checked by its size, a known problem retried only when the log changed). A list page is
rendered again only when what it shows changed (a new match on it, a page after it); the index
is rendered every time and written only when its bytes changed. A new release of the player
changes the shared files' names, and the replay pages are rebuilt once to link the new ones.

Atomic: every file is written to a temporary file in its own directory, flushed to the disk
and renamed over the old one, so a web server serves an old file or a new one, never half of
one. The order keeps every link working at every moment: shared files, then replay pages, then
list pages, then the index; files no longer part of the site are removed last. A refresh cut
short (killed, a full disk) leaves the site as it was, or with some new files that the old
pages do not link yet; the next refresh finishes the work. One refresh at a time per site (a
lock).
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import functools
import hashlib
import json
import os
import secrets
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.ladder.config import LadderConfig
from arena.ladder.reports import (
    HistoryPoint,
    crosstable_of,
    history_of,
    open_store,
    rates_versions,
    standings_of,
    versions_of,
)
from arena.ladder.schedules.registry import schedule_status
from arena.ladder.store import LadderStore, StoredMatch
from arena.model import MatchEvent
from arena.record.log import read_events
from arena.record.replay import replay_events
from arena.render.html import SiteLinks, replay_page
from arena.render.html.assets import SHARED
from arena.site.match_pages import (
    PAGE_SIZE,
    REPLAY_DIR,
    MatchLinks,
    list_page,
    list_page_path,
    page_count,
    page_key,
    replay_name,
)
from arena.site.report_page import ReportData, history_stride, report_page, sprt_report
from arena.stats.resources import BotStats, ladder_stats

STATE_DIR = ".site"
"""The refresh's own records, inside the site."""
FORMAT = 1
"""The version of the site's layout and records (another: everything is rebuilt)."""
MISSING = "its log is missing"
"""Why a match whose log is gone has no replay."""
RECORD_BATCH = 100
"""Replay records are appended this many at a time (a refresh cut short loses at most these)."""
STATS_MATCHES = 200
"""The report's resource statistics are read from the logs of this many newest matches (a
refresh stays quick as the ladder grows)."""
_PART = ".site-part"
"""The suffix of a file being written."""

ReplayMaker = Callable[[Path, bool], str]
"""A match log and whether the page may show the result's detail → the match's replay page
as the site's ``replays/`` holds it (raises ``ArenaError`` or ``ValueError`` for a log it
cannot replay)."""


def site_replay(log: Path, detail: bool) -> str:
    """The replay page of a match log for the site: the frames rebuilt by the rules engine (the
    log verified as it is read), linking the site's shared player and style."""
    steps = ((step.event, step.state) for step in replay_events(read_events(log)))
    return replay_page(steps, site=SiteLinks("../"), detail=detail).html


@dataclass(frozen=True)
class SiteSummary:
    """What a refresh did."""

    index: Path
    """The index page."""
    replays: int
    """Matches with a replay page (written now or before)."""
    problems: dict[str, str]
    """match id → why it has no replay page."""
    written: int
    """Files written by this refresh (pages and shared files)."""
    unchanged: int
    """Files of the site found up to date (not written again)."""
    removed: int
    """Files removed: no longer part of the site."""
    bytes_written: int
    """The bytes of the files written."""
    seconds: float
    """How long the refresh took."""


def refresh_site(config: LadderConfig, out: Path, *, store: LadderStore | None = None,
                 page_size: int = PAGE_SIZE, replays: bool = True, detail: bool = True,
                 make_replay: ReplayMaker = site_replay,
                 view: Callable[[list[StoredMatch]], list[StoredMatch]] | None = None
                 ) -> SiteSummary:
    """Bring the site of a ladder in ``out`` (created) up to date with its store: write what
    changed since the last refresh (see the module doc). ``store``: an open store to read
    (else the ladder's own, ``ConfigError`` when it has no results yet). ``replays``: False
    writes no replay page (a competition whose logs are not public). ``detail``: False leaves
    the results' details out of the replay pages (they may quote a bot's last output line).
    ``view``: the matches the site shows, from the store's (the competition server's
    moderation: voided matches and a disqualified contestant's marked void, reruns in place).
    Raises ``OSError`` when the site cannot be written."""
    started = time.perf_counter()
    with open_store(config, store) as db:  # no results yet: refused before anything is made
        out.mkdir(parents=True, exist_ok=True)
        with _locked(out):
            return _refresh(config, out, db, started, _Options(page_size, replays, detail,
                                                                make_replay, view))


@dataclass(frozen=True)
class _Options:
    page_size: int
    replays: bool
    detail: bool
    make_replay: ReplayMaker
    view: Callable[[list[StoredMatch]], list[StoredMatch]] | None = None


def _refresh(config: LadderConfig, out: Path, db: LadderStore, started: float,
             options: _Options) -> SiteSummary:
    """One refresh, under the site's lock."""
    page_size = options.page_size
    matches = db.matches(config.name)
    if options.view is not None:
        matches = options.view(matches)
    live = db.live_elo(config.name)
    given_up = db.void_attempts(config.name)
    status = schedule_status(config, db)
    site = _Site(out, _generation(page_size, options.replays, options.detail))
    for name, content in SHARED.items():
        site.put(name, content)
    links = site.replays(config, matches, options.make_replay, options.detail) \
        if options.replays else MatchLinks(hidden=True)
    for number in range(1, page_count(len(matches), page_size) + 1):
        site.page(list_page_path(number), page_key(matches, number, links, page_size),
                  functools.partial(list_page, config.name, config.game, matches, number, links,
                                    page_size))
    prior, versions = config.rating.prior, rates_versions(config)
    data = ReportData(config.name, config.game,
                      standings_of(config.name, matches, prior=prior, live=live,
                                   given_up=len(given_up), versions=versions),
                      crosstable_of(matches, prior=prior, versions=versions), matches,
                      _history(config, matches, out / STATE_DIR / "history.json"),
                      links.replays, links.problems,
                      sprt_report(config, matches, given_up), given_up, status,
                      versions_of(matches, prior=prior) if versions else (), page_size,
                      links.hidden)
    stats, over = logged_stats(config, matches, STATS_MATCHES)
    data = dataclasses.replace(data, bot_stats=stats, stats_over=over)
    site.put("index.html", report_page(data))
    removed = site.finish(set(links.replays.values()), {m.match_id for m in matches})
    return SiteSummary(out / "index.html", len(links.replays), dict(links.problems),
                       site.written, site.unchanged, removed, site.bytes_written,
                       time.perf_counter() - started)


def _history(config: LadderConfig, matches: list[StoredMatch], path: Path
             ) -> list[HistoryPoint]:
    """The rating history the index draws: every k-th step (k: ``history_stride`` of the
    matches, a bound on the steps) and the last. A step's fit depends only on the matches
    before it, so the steps fitted by an earlier refresh are read back (``path``) while the
    store holds the same matches first; only the new ones are fitted."""
    stride = history_stride(len(matches))
    key = [FORMAT, config.name, config.rating.prior, rates_versions(config), config.duplicate]
    cache = _read_json(path)
    count = cache.get("matches", 0)
    known: dict[int, list[HistoryPoint]] = {}
    if cache.get("key") == key and 0 < count <= len(matches) and \
            matches[count - 1].match_id == cache.get("last"):
        for row in cache.get("points", []):
            point = HistoryPoint(*row)
            if point.step % stride == 0:
                known.setdefault(point.step, []).append(point)
    fresh = history_of(config, matches,
                       fit=lambda step: step % stride == 0 and step not in known)
    points = sorted([p for group in known.values() for p in group]
                    + [p for p in fresh if p.step not in known], key=lambda p: p.step)
    kept = [list(dataclasses.astuple(p)) for p in points if p.step % stride == 0]
    if matches:
        write_public(path, json.dumps({"key": key, "matches": len(matches),
                                       "last": matches[-1].match_id, "points": kept}).encode())
    return points


def _generation(page_size: int, replays: bool, detail: bool) -> str:
    """What every page depends on besides its data: the layout, the shared files' names, the
    options. Pages of another generation are made again."""
    key = json.dumps([FORMAT, sorted(SHARED), page_size, replays, detail])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


@contextlib.contextmanager
def _locked(out: Path) -> Iterator[None]:
    """One refresh of a site at a time (another waits for it)."""
    state = out / STATE_DIR
    state.mkdir(exist_ok=True)
    with open(state / "lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def write_public(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically (a temporary file in the same directory,
    flushed to the disk, then renamed over it), readable by everyone whatever the umask (a
    page of a site: a web server running as another user serves it)."""
    if not path.parent.is_dir():
        path.parent.mkdir(parents=True)
        path.parent.chmod(0o755)
    part = path.with_name(f".{path.name}.{secrets.token_hex(4)}{_PART}")
    try:
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.fchmod(fd, 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(part, path)
    except BaseException:
        with contextlib.suppress(OSError):
            part.unlink()
        raise


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _stamp(log: Path | None) -> list[Any] | None:
    """What tells a changed log: its path, size and modification time (None: no log)."""
    if log is None:
        return None
    try:
        info = log.stat()
    except OSError:
        return None
    return [str(log), info.st_size, info.st_mtime_ns]


def logged_stats(config: LadderConfig, matches: Sequence[StoredMatch],
                 newest: int | None = None) -> tuple[list[BotStats], int]:
    """Each bot's resource statistics (``arena.stats.resources``) over the logs of ``matches``
    (the ``newest`` of them; None: all), and how many logs were read (a missing or unreadable
    log is left out)."""
    chosen = matches if newest is None else matches[-newest:] if newest else []
    read: list[list[MatchEvent]] = []
    for m in chosen:
        path = log_of(config, m)
        if path is None:
            continue
        try:
            read.append(list(read_events(path)))
        except (ArenaError, OSError, ValueError):
            continue
    try:
        return ladder_stats(read), len(read)
    except ValueError:
        return [], 0


def log_of(config: LadderConfig, m: StoredMatch) -> Path | None:
    """Where the log of ``m`` is: its recorded path, else its name in the log directory; None
    if neither is a file."""
    candidates = [Path(m.log_path)] if m.log_path else []
    candidates.append(config.match_log_dir / f"{m.match_id}.jsonl")
    return next((p for p in candidates if p.is_file()), None)


@dataclass
class _Site:
    """One refresh of a site: the records of the last one, what this one writes."""

    out: Path
    generation: str
    written: int = 0
    unchanged: int = 0
    bytes_written: int = 0
    files: dict[str, list[Any]] = field(default_factory=dict)
    """The manifest being made: path → [sha256, size] of every page and shared file."""
    keys: dict[str, str] = field(default_factory=dict)
    """The manifest being made: list page → the hash of what it shows."""
    record: dict[str, dict[str, Any]] = field(default_factory=dict)
    """match id → its replay record (the last one: ``replays.jsonl``)."""
    record_lines: int = 0
    pending: list[dict[str, Any]] = field(default_factory=list)
    """Replay records not appended yet."""
    old_files: dict[str, list[Any]] = field(default_factory=dict)
    old_keys: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._sweep()
        manifest = _read_json(self.state / "manifest.json")
        if manifest.get("format") == FORMAT and manifest.get("generation") == self.generation:
            self.old_keys = dict(manifest.get("keys", {}))
        if manifest.get("format") == FORMAT:
            self.old_files = dict(manifest.get("files", {}))
        self.record, self.record_lines = _read_record(self.state / "replays.jsonl")

    @property
    def state(self) -> Path:
        """The refresh's own records."""
        return self.out / STATE_DIR

    def _sweep(self) -> None:
        """Remove the temporary files of a refresh that was cut short."""
        for folder in (self.out, *(p for p in self.out.iterdir() if p.is_dir())):
            for part in folder.glob(f".*{_PART}"):
                with contextlib.suppress(OSError):
                    part.unlink()

    # --- pages ---------------------------------------------------------------------------------
    def _fresh(self, rel: str, sha: str | None = None) -> bool:
        """Whether the site's file ``rel`` is as the last refresh wrote it (and, given ``sha``,
        holds those bytes)."""
        known = self.old_files.get(rel)
        if known is None or (sha is not None and known[0] != sha):
            return False
        try:
            return bool((self.out / rel).stat().st_size == known[1])
        except OSError:
            return False

    def put(self, rel: str, text: str) -> str:
        """Make ``rel`` hold ``text``, writing it only if it does not already; its hash."""
        data = text.encode("utf-8")
        sha = _sha(data)
        self.files[rel] = [sha, len(data)]
        path = self.out / rel
        if self._fresh(rel, sha) or _holds(path, sha):
            self.unchanged += 1
            return sha
        write_public(path, data)
        self.written += 1
        self.bytes_written += len(data)
        return sha

    def page(self, rel: str, key: object, render: Callable[[], str]) -> None:
        """A list page: rendered and put only when what it shows (``key``) changed."""
        digest = hashlib.sha256(json.dumps(key).encode("utf-8")).hexdigest()
        self.keys[rel] = digest
        if self.old_keys.get(rel) == digest and self._fresh(rel):
            self.files[rel] = self.old_files[rel]
            self.unchanged += 1
            return
        self.put(rel, render())

    # --- replays -------------------------------------------------------------------------------
    def replays(self, config: LadderConfig, matches: list[StoredMatch], make: ReplayMaker,
                detail: bool) -> MatchLinks:
        """Each match's replay page (built only for a match without one yet) or problem."""
        links: dict[str, str] = {}
        problems: dict[str, str] = {}
        for m in matches:
            rel = f"{REPLAY_DIR}/{replay_name(m.match_id)}"
            entry = self.record.get(m.match_id, {})
            if entry.get("generation") == self.generation and self._page_there(rel, entry):
                self.unchanged += 1
                links[m.match_id] = rel
                continue
            log = log_of(config, m)
            if "problem" in entry and entry.get("stamp") == _stamp(log):
                problems[m.match_id] = entry["problem"]
                continue
            entry = self._replay(m.match_id, rel, log, make, detail)
            if "problem" in entry:
                problems[m.match_id] = entry["problem"]
            else:
                links[m.match_id] = rel
        self._append()
        return MatchLinks(links, problems)

    def _page_there(self, rel: str, entry: Mapping[str, Any]) -> bool:
        if entry.get("file") != rel:
            return False
        try:
            return bool((self.out / rel).stat().st_size == entry.get("size"))
        except OSError:
            return False

    def _replay(self, match_id: str, rel: str, log: Path | None, make: ReplayMaker,
                detail: bool) -> dict[str, Any]:
        """Build one match's replay page and record it (or why there is none)."""
        entry: dict[str, Any] = {"match": match_id}
        if log is None:
            entry.update(problem=MISSING, stamp=None)
        else:
            try:
                page = make(log, detail)
            except (ArenaError, ValueError, OSError) as exc:
                entry.update(problem=f"its log cannot be replayed: {exc}", stamp=_stamp(log))
            else:
                data = page.encode("utf-8")
                if not _holds(self.out / rel, _sha(data)):
                    write_public(self.out / rel, data)
                    self.written += 1
                    self.bytes_written += len(data)
                else:
                    self.unchanged += 1
                entry.update(file=rel, size=len(data), sha256=_sha(data),
                             generation=self.generation)
        self.record[match_id] = entry
        self.pending.append(entry)
        if len(self.pending) >= RECORD_BATCH:
            self._append()
        return entry

    def _append(self) -> None:
        """Append the pending replay records to ``replays.jsonl`` (flushed to the disk)."""
        if not self.pending:
            return
        lines = "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in self.pending)
        with open(self.state / "replays.jsonl", "a", encoding="utf-8") as handle:
            handle.write(lines)
            handle.flush()
            os.fsync(handle.fileno())
        self.record_lines += len(self.pending)
        self.pending.clear()

    # --- the end -------------------------------------------------------------------------------
    def finish(self, replays: set[str], matches: set[str]) -> int:
        """Write the manifest, remove what is no longer part of the site (pages and shared
        files not written now, replay pages but ``replays``) and the records of matches not in
        ``matches``; the files removed."""
        manifest = {"format": FORMAT, "generation": self.generation, "files": self.files,
                    "keys": self.keys}
        write_public(self.state / "manifest.json",
                     json.dumps(manifest, separators=(",", ":"), sort_keys=True).encode())
        recorded = {e["file"] for e in self.record.values() if "file" in e}
        stale = (set(self.old_files) | recorded) - set(self.files) - replays
        removed = 0
        for rel in sorted(stale):
            with contextlib.suppress(FileNotFoundError):
                (self.out / rel).unlink()
                removed += 1
        gone = [match for match, e in self.record.items()
                if match not in matches or ("file" in e and e["file"] not in replays)]
        for match in gone:  # a match no longer in the store, or replays no longer shown
            del self.record[match]
        self._compact(force=bool(gone))
        _sync_dirs(self.out)
        return removed

    def _compact(self, *, force: bool) -> None:
        """Rewrite ``replays.jsonl`` with one line a match once it holds many more (or records
        left out)."""
        if not force and self.record_lines <= 2 * len(self.record) + RECORD_BATCH:
            return
        lines = "".join(json.dumps(e, separators=(",", ":")) + "\n"
                        for e in self.record.values())
        write_public(self.state / "replays.jsonl", lines.encode("utf-8"))
        self.record_lines = len(self.record)


def _holds(path: Path, sha: str) -> bool:
    """Whether ``path`` exists with the content of hash ``sha``."""
    try:
        return _sha(path.read_bytes()) == sha
    except OSError:
        return False


def _read_json(path: Path) -> dict[str, Any]:
    """A JSON object from a file; empty when there is none or it cannot be read."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _read_record(path: Path) -> tuple[dict[str, dict[str, Any]], int]:
    """The last record of each match in ``replays.jsonl`` (a torn line is skipped), and the
    lines read."""
    record: dict[str, dict[str, Any]] = {}
    lines = 0
    with contextlib.suppress(FileNotFoundError):
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                lines += 1
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if isinstance(entry, dict) and isinstance(entry.get("match"), str):
                    record[entry["match"]] = entry
    return record, lines


def _sync_dirs(out: Path) -> None:
    """Flush the site's directories (their renames) to the disk."""
    for folder in (out, *(p for p in out.iterdir() if p.is_dir())):
        with contextlib.suppress(OSError):
            fd = os.open(folder, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
