"""A hostile twin for the deal-epoch tests (``tests/sandbox/test_epochs.py``).

Played from both seats of one deal, one leg after the other. In leg 0 (seat 0) it pulls into the
page cache one page of ``pad.bin`` (a file of its own directory, made by the test) per card code
in its hand; in leg 1 (seat 1) it times a read of each of those pages (a cached page comes back
at once) and so reads leg 0's hand, which is now the opponent's. Either way it prints
what it sent or read and ends its leg at once (a crash forfeit: the test only reads its output).
With ``relay.txt`` in its directory it is the relay instead (``relay``).
"""

from __future__ import annotations

import os
import sys
import time

from arena.games.lost_cities import CARDS
from arena.sdk import run

PAD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pad.bin")
STRIDE = 64 * 1024
"""Bytes between the pages of two card codes (beyond the kernel's read-ahead)."""
CODES = 50


def _pages(code: int) -> tuple[int, int]:
    """The two offsets that carry a card code (two: a read delayed by the scheduler is never
    taken for a cached page twice)."""
    return code * STRIDE, code * STRIDE + STRIDE // 2


def send(hand: tuple[int, ...]) -> None:
    fd = os.open(PAD, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)  # one page per read, no read-ahead
    codes = sorted(set(int(card) for card in hand))
    for code in codes:
        for offset in _pages(code):
            os.pread(fd, 1, offset)
    os.close(fd)
    print("twin-sent:", " ".join(sorted(str(CARDS[c]) for c in codes)))


def _timed(fd: int, offset: int) -> int:
    start = time.perf_counter_ns()
    os.pread(fd, 1, offset)
    return time.perf_counter_ns() - start


def receive() -> None:
    """Time one-byte reads: a page in the page cache comes back in a few microseconds, one on
    disk in tens (``mincore`` would say it outright, but the kernel answers it only for files
    the caller may write). The scale is taken on pages no card uses: read once (on disk) and
    again (cached)."""
    cached = read_hand()
    if cached is None:
        print("twin-no-scale")
        return
    print("twin-read:", " ".join(sorted(str(CARDS[c]) for c in cached)))


def read_hand() -> list[int] | None:
    """The card codes whose pages are cached, or None without a usable scale."""
    fd = os.open(PAD, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
    spare = [CODES * STRIDE + n * STRIDE for n in range(4)]
    cold = min(_timed(fd, offset) for offset in spare)
    warm = min(_timed(fd, offset) for offset in spare)
    if cold < 4 * warm:
        os.close(fd)
        return None
    threshold = (cold * warm) ** 0.5
    cached = [code for code in range(CODES)
              if min(_timed(fd, offset) for offset in _pages(code)) < threshold]
    os.close(fd)
    return cached


def relay(decision) -> None:  # noqa: ANN001 — a test bot
    """A third instance of the twin, in a match of its own beside leg 0: it reads leg 0's hand
    once leg 0 has left it (``RELAY_READ_S`` after its own start), then keeps those pages in
    the cache (``relay.txt`` in its directory says how long), answering its own decisions."""
    global _relayed
    now = time.monotonic()
    if _relayed is None and now - _started >= RELAY_READ_S:
        _relayed = read_hand() or []
        print("twin-relayed:", " ".join(sorted(str(CARDS[c]) for c in _relayed)), flush=True)
    if _relayed:
        fd = os.open(PAD, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
        until = now + 0.3
        while time.monotonic() < until:
            for code in _relayed:
                for offset in _pages(code):
                    os.pread(fd, 1, offset)
            time.sleep(0.01)
        os.close(fd)
    else:
        time.sleep(0.3)


RELAY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "relay.txt")
RELAY_READ_S = 3.0
_started = time.monotonic()
_relayed: list[int] | None = None


def choose(decision):  # noqa: ANN001, ANN201 — a test bot
    if os.path.exists(RELAY):
        relay(decision)
        return decision.legal_actions[0]
    if decision.seat == 0:
        send(tuple(decision.observation.hand))
    else:
        receive()
    sys.stdout.flush()
    os._exit(3)


if __name__ == "__main__":
    run(choose, name="twin-pagecache")
