"""Watch streams: one feed per view however many watch it, rendered only as far as its readers,
and paced so that no audience can take the host from the matches (real logged matches)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from arena.host.feeds import CHUNK, LOOKAHEAD, LOWEST_NICE, Feeds, Pacer, draw
from arena.host.views import seat_view_lines
from arena.record.log import read_events
from tests.support.pages import logged_match

pytestmark = pytest.mark.integration


def test_watchers_of_one_view_share_one_feed_rendered_as_far_as_they_read(
        tmp_path: Path) -> None:
    path = logged_match("lost-cities", tmp_path)
    total = sum(1 for _ in read_events(path))
    assert total > 2 * (LOOKAHEAD + CHUNK)
    feeds = Feeds(nice=0)  # the lowest priority would wait for a busy machine's spare CPU
    try:
        _shared_and_lazy(feeds, path, total)
    finally:
        feeds.close()


def test_the_drawing_process_runs_at_the_priority_it_is_given() -> None:
    for nice in (LOWEST_NICE, 5):
        feeds = Feeds(nice=nice)
        try:
            # os.nice adds to the nice value the process inherits (the test's own)
            drawn_at = feeds._pool.submit(os.nice, 0).result(timeout=120)
            assert drawn_at == min(LOWEST_NICE, os.nice(0) + nice)
        finally:
            feeds.close()
    with pytest.raises(ValueError, match="not within 0-19"):
        Feeds(nice=20)


def test_the_drawing_process_ends_with_a_server_killed_with_sigkill() -> None:
    """A server killed with -9 closes nothing: its drawing process (a session of its own,
    blocked on the pool's queue) used to live on for good."""
    code = ("import os, sys\nfrom arena.host.feeds import Feeds\nfeeds = Feeds(nice=0)\n"
            "print(feeds._pool.submit(os.getpid).result(timeout=120), flush=True)\n"
            "sys.stdin.read()\n")
    server = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        drawing = int(server.stdout.readline())
        assert Path(f"/proc/{drawing}").exists()
    finally:
        server.kill()
        server.wait(timeout=30)
    deadline = time.monotonic() + 60
    while Path(f"/proc/{drawing}").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not Path(f"/proc/{drawing}").exists(), "the drawing process outlived its server"


def test_closing_does_not_wait_for_the_frames_being_drawn() -> None:
    """The server's exit used to wait for the drawing process to finish its chunk (11-34 s on a
    busy machine at the lowest priority); closing ends it at once."""
    feeds = Feeds(nice=0)
    busy = feeds._pool.submit(time.sleep, 120)  # stands for a long chunk of frames
    workers = list(feeds._pool._processes.values())  # type: ignore[attr-defined]
    assert len(workers) == 1 and not busy.done()
    pid, started = workers[0].pid, time.monotonic()
    feeds.close()
    while _running(pid) and time.monotonic() - started < 30:
        time.sleep(0.05)  # (the executor's thread reaps it: Process.join here would race that)
    assert not _running(pid), "the drawing process outlived close()"


def _running(pid: int | None) -> bool:
    """Whether process ``pid`` still runs (a zombie waiting to be reaped has ended)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return False
    return fields[0] != "Z"


def _shared_and_lazy(feeds: Feeds, path: Path, total: int) -> None:
    feed = feeds.feed("m", path, 0, follow=False)
    assert feeds.feed("m", path, 0, follow=False) is feed
    assert feeds.feed("m", path, 1, follow=False) is not feed
    time.sleep(1.0)
    assert len(feed.frames) < 1 + LOOKAHEAD + CHUNK  # nobody has read: it waits
    frames = list(feed.read(lambda: True))
    assert len(frames) == total and frames[-1].final
    again = list(feeds.feed("m", path, 0, follow=False).read(lambda: True))
    assert again == frames  # the second watcher gets the same frames, rendered once


def test_the_pacer_never_sends_faster_than_allowed() -> None:
    pacer = Pacer(per_stream=40.0, total=60.0)
    sent: dict[int, list[float]] = {n: [] for n in range(3)}
    began = time.monotonic()

    def stream(number: int) -> None:
        last = 0.0
        while time.monotonic() - began < 1.0:
            last = pacer.wait(last, lambda: True)
            sent[number].append(last)

    threads = [threading.Thread(target=stream, args=(n,)) for n in sent]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    every = sorted(t for times in sent.values() for t in times)
    # the server's budget: one frame every 1/60 s, at most a frame of slack at each end
    assert len(every) <= 60 * (every[-1] - every[0]) + 2
    for times in sent.values():  # a stream's own budget: one frame every 1/40 s
        gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
        assert min(gaps) >= 1 / 40 - 1e-6
    gone = time.monotonic()
    assert pacer.wait(gone + 100, lambda: False) == 0.0  # a stream gone stops waiting
    assert time.monotonic() - gone < 5


def test_a_feed_of_records_only_draws_no_board(tmp_path: Path) -> None:
    """What the watch app asks for (WatchRequest.records): the captions of a feed of boards,
    no board drawn, a record instead; one seat's records are its seat view's lines."""
    path = logged_match("lost-cities", tmp_path)
    total = sum(1 for _ in read_events(path))
    start = total - CHUNK // 2
    drawn, ended = draw(str(path), 1, start, follow=False)
    bare, bare_ended = draw(str(path), 1, start, follow=False, boards=False)
    assert ended and bare_ended and len(bare) == len(drawn) == total - start
    assert all(frame.board for frame in drawn) and not any(frame.board for frame in bare)
    assert [(f.caption, f.final) for f in bare] == [(f.caption, f.final) for f in drawn]
    assert not any(frame.record for frame in drawn)
    lines = b"".join(seat_view_lines(read_events(path), 1)).decode().splitlines()
    assert [f.record for f in bare if f.record] == lines[-len([f for f in bare if f.record]):]
