"""HTML replays and the ladder report: size and speed, and the screenshots in docs/.

Plays real matches between the sample bots (process sandbox), writes their replay pages with
`arena watch LOG --html`, and opens each in headless Chromium (Debian's ``chromium``, no
network) to measure: the log and page sizes, the time to build the page, the time from opening
the file to the first frame shown (the page's own ``arena-ready`` mark), and the time one step
takes (the frame swapped in and laid out). Prints one JSON object.

    python benchmarks/html_replay.py                       # the figures
    python benchmarks/html_replay.py --screenshots docs    # and the screenshots in docs/

Matches: Lost Cities greedy vs strong (3 rounds); Haggis random vs greedy in a game to 10 000,
which ends at the 40-round cap (a long game); PORTAS greedy vs random (3 games). With
--screenshots it also runs the demo ladder for a few cycles and shoots its report.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.cli.watch_cmds import html_replay  # noqa: E402
from arena.model import TimeControl  # noqa: E402
from arena.record.log import read_events  # noqa: E402
from arena.referee.match import play_match  # noqa: E402
from arena.referee.service import prepare_match  # noqa: E402
from tests.support.browser import Browser, press  # noqa: E402

BOTS = ROOT / "sample_bots"
MATCHES = {
    "lost-cities": (BOTS / "lost-cities/greedy", BOTS / "lost-cities/strong", 7, {}),
    "haggis": (BOTS / "haggis/random", BOTS / "haggis/greedy", 4, {"target": 10_000}),
    "portas": (BOTS / "portas/greedy", BOTS / "portas/random", 3, {}),
}
STEP_JS = """(() => {
  const board = document.getElementById('board'), times = [];
  document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Home'}));
  for (let i = 0; i < %d; i++) {
    const t = performance.now();
    document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight'}));
    board.getBoundingClientRect();
    times.push(performance.now() - t);
  }
  return times;
})()"""


def play(game: str, log_dir: Path) -> Path:
    """One match between two sample bots; its log."""
    bot_a, bot_b, seed, options = MATCHES[game]
    spec, box = prepare_match((str(bot_a), str(bot_b)), sandbox="process", seed=seed,
                              options=options, time_control=TimeControl(1000, 0, 10_000))
    result = asyncio.run(play_match(spec, sandbox=box, log_dir=log_dir))
    assert result.log is not None
    return Path(result.log)


def measure(browser: Browser, log: Path, out: Path) -> dict[str, Any]:
    """Build the page, open it, step through it."""
    started = time.perf_counter()
    page = html_replay(read_events(log))
    build_s = time.perf_counter() - started
    out.write_text(page.html, encoding="utf-8")
    opened = [browser.open(out) for _ in range(3)]
    ready_ms = browser.eval("performance.getEntriesByName('arena-ready')[0].startTime")
    assert browser.requests() == [out.resolve().as_uri()], "the page fetched something"
    steps = browser.eval(STEP_JS % page.decisions)
    rounds = sum(1 for e in read_events(log) if e.type == "round_end")
    return {
        "decisions": page.decisions, "rounds": rounds,
        "log_kb": round(log.stat().st_size / 1024, 1),
        "page_kb": round(len(page.html.encode()) / 1024, 1),
        "build_s": round(build_s, 3),
        "open_to_first_frame_ms": round(ready_ms, 1),
        "open_wall_ms_median": round(1000 * statistics.median(opened), 1),
        "step_ms_median": round(statistics.median(steps), 2),
        "step_ms_max": round(max(steps), 2),
    }


def shoot_replays(browser: Browser, pages: dict[str, Path], docs: Path) -> None:
    """One screenshot per game, a little into the match (Haggis: in a seat's view)."""
    moves = {"lost-cities": 71, "haggis": 40, "portas": 33}
    for game, page in pages.items():
        browser.open(page)
        press(browser, "ArrowRight", moves[game])
        if game == "haggis":
            press(browser, "0")
        browser.screenshot(docs / f"replay-{game}.png")


def shoot_report(browser: Browser, work: Path, docs: Path) -> None:
    """The demo ladder, a few cycles in the process sandbox, and its report."""
    text = (ROOT / "ladder/demo.toml").read_text()
    text = text.replace('"../sample_bots/', f'"{BOTS}/')
    ladder = work / "demo.toml"
    ladder.write_text(text)
    arena = [sys.executable, "-m", "arena"]
    subprocess.run([*arena, "run-ladder", str(ladder), "--cycles", "6", "--sandbox", "process"],
                   check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    subprocess.run([*arena, "ladder", "report", str(ladder), "--out", str(work / "site")],
                   check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    browser.send("Emulation.setDeviceMetricsOverride", {
        "width": 1280, "height": 1700, "deviceScaleFactor": 1, "mobile": False})
    browser.open(work / "site/index.html", "true")
    browser.screenshot(docs / "report.png")  # the charts and the top of the match list


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--screenshots", type=Path, help="write the PNGs into this directory")
    args = parser.parse_args()
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        browser = Browser(1280, 900)
        try:
            pages = {}
            for game in MATCHES:
                log = play(game, work / "logs")
                pages[game] = work / f"{game}.html"
                figures[game] = measure(browser, log, pages[game])
            if args.screenshots is not None:
                args.screenshots.mkdir(parents=True, exist_ok=True)
                shoot_replays(browser, pages, args.screenshots)
                shoot_report(browser, work, args.screenshots)
        finally:
            browser.close()
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
