"""The ladder's site kept up to date (``arena.site.refresh.refresh_site``): one shared player,
replay pages written once, only what changed written again, every file replaced whole, the
match list in pages; a public site without replays or bot output when the competition says so.

Real ladders (in-process players, real match logs, the real SQLite store), real files, a real
headless Chromium (no network) and a real ``kill -9``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.cli.watch_cmds import html_replay
from arena.ladder.config import LadderConfig, load_ladder
from arena.ladder.reports import HistoryPoint, crosstable_of, load_matches, standings_of
from arena.ladder.store import LadderStore
from arena.model import BotSpec
from arena.record.log import read_events
from arena.render.html.assets import PLAYER, SHARED
from arena.site.match_pages import list_page_path, replay_name
from arena.site.refresh import refresh_site as refresh
from arena.site.refresh import site_replay
from arena.site.report_page import HISTORY_POINTS, ReportData, history_stride, report_page
from tests.support.browser import Browser, press
from tests.support.fakes import stored
from tests.support.pages import (
    assert_fetches_only_the_site,
    assert_only_the_site,
    mini_ladder,
    page_data,
    play_result,
)

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
PAGE = 5
"""Matches a list page holds in these tests (the mini ladder's 12: pages of 5, 5 and 2)."""
runner = CliRunner()


def _ladder(tmp_path: Path) -> LadderConfig:
    return load_ladder(mini_ladder(tmp_path))


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> LadderConfig:
    """One mini ladder for the tests that only read it (each writes its site in a directory of
    its own); a test that adds matches or changes a log makes its own."""
    return _ladder(tmp_path_factory.mktemp("ladder"))


@pytest.fixture(scope="module")
def site(ladder: LadderConfig, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """That ladder's site (the default page size), written once for the tests that only read
    it; a test that changes its pages works on a copy."""
    out = tmp_path_factory.mktemp("site") / "site"
    refresh(ladder, out)
    return out


def _record(config: LadderConfig, k: int) -> str:
    """Play one more match of the ladder (its log where the ladder keeps them) and record it."""
    result = play_result(config.match_log_dir, "portas", 100 + k, names=("ann", "ben"),
                         match_id=f"mini-extra-{k}")
    specs = tuple(BotSpec(name, "portas", command=("true",), version="1", digest=f"test:{name}")
                  for name in result.bots)
    with LadderStore(config.database_url) as db:
        assert db.record_match(config.name, result, (specs[0], specs[1]),
                               encounter_id=f"extra-{k}", cycle=9, leg=0).applied
    return result.match_id


def _say_last_output(config: LadderConfig, match_id: str) -> str:
    """Give a match's recorded result a detail quoting a bot's last output (as a crash's
    does); the quoted line."""
    quoted = f"PLAN-OF-{match_id}"
    log = config.match_log_dir / f"{match_id}.jsonl"
    lines = []
    for line in log.read_text(encoding="utf-8").splitlines():
        data = json.loads(line)
        if data["type"] == "match_end":
            data["result"]["detail"] = f"bot crashed; last output: {quoted}"
        lines.append(json.dumps(data))
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return quoted


def _files(out: Path) -> dict[str, tuple[bytes, int, int]]:
    """Every file of the site but its records: path → (bytes, inode, modification time)."""
    found = {}
    for path in out.rglob("*"):
        rel = path.relative_to(out).as_posix()
        if path.is_file() and not rel.startswith(".site/"):
            info = path.stat()
            found[rel] = (path.read_bytes(), info.st_ino, info.st_mtime_ns)
    return found


def _stamps(out: Path, rels: list[str]) -> dict[str, tuple[int, int]]:
    """The inode and modification time of some files of the site (a file replaced has a new
    inode): a cheap poll, where reading the whole site a poll cost a CPU-second a run."""
    found = {}
    for rel in rels:
        info = (out / rel).stat()
        found[rel] = (info.st_ino, info.st_mtime_ns)
    return found


def _changed(before: dict[str, tuple[bytes, int, int]], after: dict[str, tuple[bytes, int, int]]
             ) -> set[str]:
    return {rel for rel in before.keys() | after.keys() if before.get(rel) != after.get(rel)}


def _readable(path: Path) -> str:
    """A file of the site as text, a replay page's packed data unpacked."""
    text = path.read_text(encoding="utf-8")
    if 'id="arena-data"' in text:
        text += json.dumps(page_data(text), ensure_ascii=False)
    return text


def _links(page: Path) -> list[str]:
    return re.findall(r'<a [^>]*?href="([^"]+)"', page.read_text(encoding="utf-8"))


def assert_whole_and_linked(out: Path) -> None:
    """Every page of the site is whole and every link in it resolves; no file half written."""
    assert not list(out.rglob("*.site-part"))
    for page in out.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert html.startswith("<!DOCTYPE html>") and html.endswith("</html>\n"), page
        for link in _links(page):
            assert (page.parent / link).is_file(), (page, link)
        assert_fetches_only_the_site(page, out)


# --- the shared viewer ---------------------------------------------------------------------------
def test_replay_pages_share_one_content_hashed_player(ladder: LadderConfig, site: Path) -> None:
    config, out = ladder, site
    for name, content in SHARED.items():
        digest = hashlib.sha256(content.encode()).hexdigest()[:16]
        assert (out / name).read_text(encoding="utf-8") == content and digest in name
    matches = load_matches(config)
    for m in matches:
        html = (out / "replays" / replay_name(m.match_id)).read_text(encoding="utf-8")
        assert PLAYER.strip()[:200] not in html and "<style>" not in html
        assert "<script>" not in html  # the data block is JSON, the player a linked file
        data = page_data(html)
        assert data["match_id"] == m.match_id
        others = [o.match_id for o in matches if o.match_id != m.match_id]
        unpacked = html + json.dumps(data)
        assert not any(other in unpacked for other in others)  # its own match's data only
        log = config.match_log_dir / f"{m.match_id}.jsonl"
        standalone = html_replay(read_events(log)).html
        assert page_data(standalone)["frames"] == data["frames"]  # the same frames, packed
        assert len(html.encode()) < len(standalone.encode()) / 3


def test_the_shared_viewer_plays_a_replay_in_chromium(browser: Browser, ladder: LadderConfig,
                                                      site: Path) -> None:
    config, out = ladder, site
    first = load_matches(config)[0]
    page = out / "replays" / replay_name(first.match_id)
    browser.open(page)
    assert_only_the_site(browser, out, page)
    assert len(browser.requests()) == 3  # the page, its style sheet, the player
    data = page_data(page.read_text(encoding="utf-8"))
    frames = len(data["frames"])
    assert browser.eval("document.body.dataset.frame") == "0"
    # the move list came packed with the frames: every move listed, a click jumps to it
    assert browser.eval("document.querySelectorAll('#moves li.move').length") \
        == data["decisions"] > 5
    browser.eval("document.querySelectorAll('#moves li.move')[4].click()")
    assert browser.eval("document.body.dataset.frame") == "5"
    press(browser, "Home")
    press(browser, "ArrowRight", 3)
    assert browser.eval("document.body.dataset.frame") == "3"
    press(browser, "End")
    assert browser.eval("document.body.dataset.frame") == str(frames - 1)
    assert browser.eval("document.querySelectorAll('[data-zone=result]').length") == 1
    assert browser.eval("getComputedStyle(document.querySelector('.player')).position") \
        == "sticky"  # the shared style sheet applies
    press(browser, " ")  # play from the start: the player's timer runs
    browser.wait_for("+document.body.dataset.frame >= 2", timeout_s=30)
    assert browser.violations() == []


def test_an_injected_inline_script_cannot_run_in_a_site_page(
        browser: Browser, ladder: LadderConfig, site: Path, tmp_path: Path) -> None:
    """Defence in depth: were a bug to let markup into a page, its policy runs no inline
    script and no inline handler (the site's own script is a file)."""
    config = ladder
    out = Path(shutil.copytree(site, tmp_path / "site"))  # its pages are changed below
    attack = ('<script>document.body.dataset.owned = "1"</script>'
              '<img src="data:," onerror="document.body.dataset.owned = \'2\'">')
    for page in (out / "index.html",
                 out / "replays" / replay_name(load_matches(config)[0].match_id),
                 out / list_page_path(1)):
        html = page.read_text(encoding="utf-8")
        page.write_text(html.replace("<body>", "<body>" + attack, 1), encoding="utf-8")
        browser.open(page, "document.body !== null")
        time.sleep(0.2)
        assert browser.eval("document.body.dataset.owned || ''") == "", page
        assert any(v.startswith("script-src") for v in browser.violations()), page


# --- incremental ---------------------------------------------------------------------------------
def test_a_second_refresh_with_nothing_new_writes_nothing(ladder: LadderConfig,
                                                          tmp_path: Path) -> None:
    config = ladder
    out = tmp_path / "site"
    first = refresh(config, out, page_size=PAGE)
    assert (first.written, first.unchanged, first.removed) == (12 + 3 + 1 + 2, 0, 0)
    assert first.replays == 12 and first.bytes_written == sum(
        p.stat().st_size for p in out.rglob("*") if p.is_file() and ".site" not in p.parts)
    (out / "notes.txt").write_text("the operator's own file")
    before = _files(out)
    again = refresh(config, out, page_size=PAGE)
    assert (again.written, again.bytes_written, again.removed) == (0, 0, 0)
    assert again.unchanged == first.written and again.replays == 12
    assert _files(out) == before  # not one file touched (same inode, same time)
    command = ["ladder", "report", str(config.source), "--out", str(tmp_path / "report")]
    said = [" ".join(runner.invoke(app, command).output.split()) for _ in range(2)]
    assert "site: 16 files written" in said[0] and "and 12 replays" in said[0]
    assert "site: 0 files written (0.0 MB), 16 up to date, 0 removed" in said[1]


def test_one_new_match_writes_its_page_the_index_and_one_list_page(tmp_path: Path) -> None:
    config = _ladder(tmp_path)
    out = tmp_path / "site"
    refresh(config, out, page_size=PAGE)
    before = _files(out)
    new = _record(config, 13)
    summary = refresh(config, out, page_size=PAGE)
    after = _files(out)
    page = f"replays/{replay_name(new)}"
    assert _changed(before, after) == {page, "index.html", list_page_path(3)}
    assert summary.written == 3 and summary.unchanged == 12 + 2 + 2
    assert summary.bytes_written == sum(len(after[rel][0]) for rel in _changed(before, after))
    assert f'href="{page}"' in after["index.html"][0].decode()
    assert f'href="../{page}"' in after[list_page_path(3)][0].decode()
    for k in (14, 15):  # page 3 full
        _record(config, k)
    refresh(config, out, page_size=PAGE)
    before = _files(out)
    new = _record(config, 16)  # the first match of page 4: page 3 gets its "newer" link
    assert refresh(config, out, page_size=PAGE).written == 4
    assert _changed(before, _files(out)) == {f"replays/{replay_name(new)}", "index.html",
                                             list_page_path(3), list_page_path(4)}
    assert_whole_and_linked(out)


def test_paging_links(browser: Browser, ladder: LadderConfig, tmp_path: Path) -> None:
    config = ladder
    out = tmp_path / "site"
    refresh(config, out, page_size=PAGE)
    matches = load_matches(config)

    def numbers(html: str) -> list[int]:
        table = re.search(r'<table class="grid" id="matches">(.*?)</table>', html, re.S)
        assert table is not None
        return [int(n) for n in re.findall(r'<tr(?: class="void")? data-match="[^"]+">'
                                           r'<td class="num">(\d+)</td>', table.group(1))]

    index = (out / "index.html").read_text(encoding="utf-8")
    assert numbers(index) == [12, 11, 10, 9, 8]  # the newest page, newest first
    pages = re.search(r'<p id="pages">(.*?)</p>', index, re.S)
    assert pages is not None
    assert re.findall(r'<a href="([^"]+)">([^<]+)</a>', pages.group(1)) == [
        (list_page_path(3), "11–12"), (list_page_path(2), "6–10"), (list_page_path(1), "1–5")]
    expected = {1: [5, 4, 3, 2, 1], 2: [10, 9, 8, 7, 6], 3: [12, 11]}
    for number, rows in expected.items():
        html = (out / list_page_path(number)).read_text(encoding="utf-8")
        assert numbers(html) == rows
        for n in rows:
            assert f'href="../replays/{replay_name(matches[n - 1].match_id)}"' in html
        nav = re.findall(r'<a (?:rel="(prev|next)" )?href="([^"]+)"',
                         re.search(r'<p class="meta" id="pager">(.*?)</p>', html, re.S)
                         .group(1))  # type: ignore[union-attr]
        want = [("", "../index.html")]
        want += [("prev", f"../{list_page_path(number - 1)}")] if number > 1 else []
        want += [("next", f"../{list_page_path(number + 1)}")] if number < 3 else []
        assert nav == want, number
    assert_whole_and_linked(out)
    # a reader pages back through the list in the browser
    browser.open(out / "index.html", "true")
    browser.events.clear()
    browser.eval("document.querySelector('#pages a[href$=\"page-0002.html\"]').click()")
    browser.wait_for("location.href.endsWith('page-0002.html')")
    assert_only_the_site(browser, out, out / list_page_path(2))
    browser.eval("document.querySelector('#pager a[rel=prev]').click()")
    browser.wait_for("location.href.endsWith('page-0001.html')")
    assert browser.eval("Array.from(document.querySelectorAll('#matches tr[data-match] td:"
                        "first-child')).map(td => +td.textContent)") == [5, 4, 3, 2, 1]
    browser.eval("document.querySelector('#matches a').click()")
    browser.wait_for("document.body.dataset.ready === '1'")
    assert browser.eval("document.title").startswith("PORTAS")


def test_an_interrupted_refresh_leaves_the_old_site_intact(tmp_path: Path) -> None:
    config = _ladder(tmp_path)
    out = tmp_path / "site"
    refresh(config, out, page_size=PAGE)
    new = [_record(config, k) for k in (13, 14, 15)]
    before = _files(out)
    built: list[Path] = []

    def cut_short(log: Path, detail: bool) -> str:
        if built:
            raise KeyboardInterrupt  # Ctrl-C, or the process dying, in the second replay
        built.append(log)
        return site_replay(log, detail)

    with pytest.raises(KeyboardInterrupt):
        refresh(config, out, page_size=PAGE, make_replay=cut_short)
    after = _files(out)
    assert _changed(before, after) == {f"replays/{replay_name(new[0])}"}  # not linked yet
    assert_whole_and_linked(out)
    summary = refresh(config, out, page_size=PAGE)  # the next refresh finishes the work
    assert summary.written == 2 + 1 + 1 and summary.replays == 15  # 2 replays, page 3, index
    assert_whole_and_linked(out)
    index = (out / "index.html").read_text(encoding="utf-8")
    assert all(f'href="replays/{replay_name(m)}"' in index for m in new)


SLOW_REFRESH = """
import sys, time
from pathlib import Path
from arena.ladder.config import load_ladder
from arena.site.refresh import refresh_site, site_replay

def slow(log, detail):
    time.sleep(0.5)
    return site_replay(log, detail)

refresh_site(load_ladder(sys.argv[1]), Path(sys.argv[2]), page_size=5, detail=False,
             make_replay=slow)
"""


def test_a_refresh_killed_mid_way_leaves_every_page_whole(tmp_path: Path) -> None:
    """kill -9 while a refresh rewrites every replay (the pages change: details left out):
    each file is its old or its new self, never half of one, every link still resolves, and
    the next refresh makes the site a fresh one would be."""
    config = _ladder(tmp_path)
    for m in load_matches(config):
        _say_last_output(config, m.match_id)
    out = tmp_path / "site"
    refresh(config, out, page_size=PAGE)
    before = _files(out)
    replays = sorted(rel for rel in before if rel.startswith("replays/"))
    process = subprocess.Popen([sys.executable, "-c", SLOW_REFRESH, str(config.source),
                                str(out)], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        deadline = time.monotonic() + 120
        stamps = {rel: before[rel][1:] for rel in replays}  # (inode, modification time)
        while _stamps(out, replays) == stamps:  # until a page is replaced whole
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    after = _files(out)
    fresh = tmp_path / "fresh"
    refresh(config, fresh, page_size=PAGE, detail=False)
    renewed = [rel for rel in replays if after[rel][0] == (fresh / rel).read_bytes()]
    kept = [rel for rel in replays if after[rel][0] == before[rel][0]]
    assert renewed and kept and sorted(renewed + kept) == replays  # cut mid-way, no half file
    assert after["index.html"] == before["index.html"]  # written last: not reached
    refresh(config, out, page_size=PAGE, detail=False)  # sweeps a file the kill cut short
    assert_whole_and_linked(out)
    assert {rel: data for rel, (data, _, _) in _files(out).items()} == \
        {rel: data for rel, (data, _, _) in _files(fresh).items()}


def test_two_refreshes_at_once_take_turns(ladder: LadderConfig, tmp_path: Path) -> None:
    config = ladder
    out = tmp_path / "site"
    errors: list[BaseException] = []

    def run() -> None:
        try:
            refresh(config, out, page_size=PAGE)
        except BaseException as exc:  # noqa: BLE001 — reported below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == [] and not any(t.is_alive() for t in threads)
    assert_whole_and_linked(out)
    assert refresh(config, out, page_size=PAGE).written == 0


# --- what a public site shows --------------------------------------------------------------------
def test_a_site_without_replays_holds_none_and_removes_those_written_before(
        ladder: LadderConfig, tmp_path: Path) -> None:
    """A competition whose logs are not public: its public page lists the matches but no
    replay, and a page written while replays were shown is taken down."""
    config = ladder
    out = tmp_path / "site"
    refresh(config, out, page_size=PAGE)
    assert len(list((out / "replays").iterdir())) == 12
    summary = refresh(config, out, page_size=PAGE, replays=False)
    assert list((out / "replays").iterdir()) == [] and summary.removed == 12
    assert summary.replays == 0
    for page in [out / "index.html", *(out / "matches").iterdir()]:
        html = page.read_text(encoding="utf-8")
        assert "replays/" not in html and "Replays are not public on this site." in html
    assert_whole_and_linked(out)
    record = [json.loads(line) for line in
              (out / ".site" / "replays.jsonl").read_text().splitlines()]
    assert not any("file" in entry for entry in record)


def test_a_site_can_leave_out_a_bots_last_output(tmp_path: Path) -> None:
    """A result's detail quotes a crashed bot's last output line: a public page leaves it out
    (``detail=False``); the operator's own report keeps it."""
    config = _ladder(tmp_path)
    victim = load_matches(config)[0]
    quoted = _say_last_output(config, victim.match_id)
    page = f"replays/{replay_name(victim.match_id)}"
    refresh(config, tmp_path / "own")
    assert quoted in _readable(tmp_path / "own" / page)
    refresh(config, tmp_path / "public", detail=False)
    public = tmp_path / "public"
    assert not any(quoted in _readable(p) for p in public.rglob("*") if p.is_file())


@pytest.mark.unit
def test_two_match_ids_never_share_a_replay_page() -> None:
    assert replay_name("mini-c0-e1-l0") == "mini-c0-e1-l0.html"  # a safe id keeps its name
    names = {replay_name(i) for i in ("a/b", "a_b", "a b", "a\\b", "..", ".hidden")}
    assert len(names) == 6
    assert all(re.fullmatch(r"[A-Za-z0-9_-][A-Za-z0-9._-]*\.html", n) for n in names)


# --- a long ladder's index -----------------------------------------------------------------------
@pytest.mark.unit
def test_a_long_history_is_drawn_at_a_bounded_number_of_steps() -> None:
    steps = 1000
    history = [HistoryPoint(step, f"e{step}", 0.0, player, 1500 + (step % 7) * (1 if k else -1),
                            30.0)
               for step in range(1, steps + 1) for k, player in enumerate(("ann", "ben"))]
    matches = [stored("m1", ("ann", "ben"), (30, 10), winner=0, encounter="e1", leg=0)]
    html = report_page(ReportData("long", "lost-cities", standings_of("long", matches),
                                  crosstable_of(matches), matches, history))
    stride = history_stride(steps)
    assert stride == 4 and steps / stride <= HISTORY_POINTS
    lines = re.findall(r'<polyline fill="none"[^>]*points="([^"]+)"', html)
    assert len(lines) == 2
    assert all(len(points.split()) == steps // stride for points in lines)
    assert "Drawn at every 4th encounter and the last." in html
    assert history_stride(HISTORY_POINTS) == 1


def test_the_site_is_readable_by_a_web_server_whatever_the_umask(ladder: LadderConfig,
                                                                 tmp_path: Path) -> None:
    """The competition server keeps its own files private (umask 077); the site it writes is
    for a web server that runs as another user."""
    config = ladder
    out = tmp_path / "site"
    out.mkdir()
    old = os.umask(0o077)
    try:
        refresh(config, out)
    finally:
        os.umask(old)
    for path in out.rglob("*"):
        if ".site" not in path.relative_to(out).parts:
            mode = path.stat().st_mode & 0o777
            assert mode == (0o755 if path.is_dir() else 0o644), (path, oct(mode))


def test_the_history_fitted_before_is_read_back_and_equals_a_fresh_fit(tmp_path: Path) -> None:
    from arena.ladder.reports import history_of
    from arena.site.refresh import _history

    config = _ladder(tmp_path)
    cache = tmp_path / "history.json"
    for k in range(13, 17):
        matches = load_matches(config)
        assert _history(config, matches, cache) == history_of(config, matches)
        _record(config, k)
    stale = json.loads(cache.read_text())
    cache.write_text(json.dumps({**stale, "last": "another", "points": [
        [p[0], p[1], p[2], p[3], 0.0, 0.0] for p in stale["points"]]}))  # another store's
    matches = load_matches(config)
    assert _history(config, matches, cache) == history_of(config, matches)
