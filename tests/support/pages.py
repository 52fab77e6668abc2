"""Real match logs for the page tests, and the engine's state behind every frame of a replay."""

from __future__ import annotations

import asyncio
import base64
import gzip
import importlib.util
import json
import random
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.games.lost_cities import State as LostCitiesState
from arena.ladder.config import load_ladder
from arena.ladder.runner import SECRET_FILE, run_ladder
from arena.model import (
    BotSpec,
    DecisionEvent,
    HeaderEvent,
    MatchEndEvent,
    MatchResult,
    MatchSpec,
    TimeControl,
)
from arena.record.log import read_events
from arena.record.replay import replay_events
from arena.referee.local import LocalPlayer
from arena.referee.match import Match
from arena.render.html.assets import SHARED
from arena.sprt.run import SprtSummary, run_sprt
from tests.support.browser import Browser

Policy = Callable[[Any], Any]
ROOT = Path(__file__).resolve().parents[2]
TIME_CONTROL = TimeControl(move_time_ms=5000, startup_ms=1000)
"""Generous: the tests' matches are decided by their policies, not by the clock."""


def random_policy(seed: int) -> Policy:
    """A seeded uniformly random player."""
    rng = random.Random(seed)
    return lambda decision: rng.choice(decision.legal_actions)


def play_result(log_dir: Path, game: str, seed: int, *, names: tuple[str, str] = ("alice", "bob"),
                match_id: str | None = None) -> MatchResult:
    """Play one match in-process between seeded random players; its result (the log written
    by the real match loop in ``log_dir``)."""
    bots = (BotSpec(names[0], game), BotSpec(names[1], game))
    spec = MatchSpec(game, seed, bots, {}, TIME_CONTROL, match_id=match_id or f"{game}-{seed}")
    match = Match(spec, sandbox_name="in-process", log_dir=log_dir)
    players = (LocalPlayer(0, random_policy(seed)), LocalPlayer(1, random_policy(seed + 1)))
    return asyncio.run(match.run(players))


def play_logged(log_dir: Path, game: str, seed: int, *, options: dict[str, Any] | None = None,
                policies: tuple[Policy, Policy] | None = None,
                names: tuple[str, str] = ("alice", "bob"), match_id: str | None = None,
                time_control: TimeControl = TIME_CONTROL,
                ) -> Path:
    """Play one match in-process and return its log (written by the real match loop)."""
    policies = policies or (random_policy(seed), random_policy(seed + 1))
    bots = (BotSpec(names[0], game), BotSpec(names[1], game))
    match_id = match_id or f"{game}-{seed}"
    spec = MatchSpec(game, seed, bots, dict(options or {}), time_control, match_id=match_id)
    match = Match(spec, sandbox_name="in-process", log_dir=log_dir)
    asyncio.run(match.run((LocalPlayer(0, policies[0]), LocalPlayer(1, policies[1]))))
    return log_dir / f"{match_id}.jsonl"


def frame_states(log: Path) -> list[Any]:
    """The engine's state behind each frame of the log's replay page: the start, after every
    decision, and the match end."""
    states = []
    for step in replay_events(read_events(log)):
        if isinstance(step.event, HeaderEvent | DecisionEvent | MatchEndEvent):
            states.append(step.state)
    return states


def page_data(html: str) -> dict[str, Any]:
    """The data block of a replay page: inline JSON, or packed (gzip, base64) in a site's."""
    found = re.search(r'<script type="application/json" id="arena-data">(.*?)</script>', html,
                      re.S)
    if found is not None:
        data: dict[str, Any] = json.loads(found.group(1))
        return data
    packed = re.search(r'<script type="application/octet-stream" id="arena-data" '
                       r'data-encoding="gzip\+base64">([A-Za-z0-9+/=]*)</script>', html)
    assert packed is not None, "the page has no data block"
    data = json.loads(gzip.decompress(base64.b64decode(packed.group(1))))
    return data


def frame_html(data: dict[str, Any], frame: int, view: int) -> str:
    """A frame's HTML joined from the page's fragment table (what the player does)."""
    table = data["t"]

    def join(index: int) -> str:
        entry = table[index]
        return entry if isinstance(entry, str) else "".join(join(i) for i in entry)

    return join(data["frames"][frame][view])


def cards_in(html: str) -> Counter[str]:
    """The ``data-card`` values in some HTML (a multiset)."""
    return Counter(re.findall(r'data-card="([^"]+)"', html))


def mini_ladder(tmp_path: Path) -> Path:
    """A small real PORTAS ladder (3 bots, 2 cycles: 12 matches): in-process random players,
    real match logs, the real store."""
    path = tmp_path / "mini.toml"
    path.write_text('name = "mini"\ngame = "portas"\nentrants = ["ann", "ben", "cy"]\n'
                    "seed = 11\n[schedule]\ncycles = 2\n")
    config = load_ladder(path)

    async def play(spec: MatchSpec, *, sandbox: str = "process", log_dir: Path,
                   on_event: Any = None) -> MatchResult:
        match = Match(spec, sandbox_name="in-process", log_dir=log_dir)
        seed = spec.seed % 1000
        return await match.run((LocalPlayer(0, random_policy(seed)),
                                LocalPlayer(1, random_policy(seed + 1))))

    def resolve(ref: str, base_dir: Path) -> BotSpec:
        return BotSpec(name=ref, game="portas", command=("true",), version="1",
                       digest=f"test:{ref}")

    asyncio.run(run_ladder(config, play=play, resolve=resolve))
    return path


def sample_policy(game: str, name: str) -> Policy:
    """The ``choose`` policy of a sample bot, loaded from its directory."""
    path = ROOT / "sample_bots" / game / name / "bot.py"
    spec = importlib.util.spec_from_file_location(f"{game}_{name}_bot".replace("-", "_"), path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    policy: Policy = module.choose
    return policy


def mini_sprt(tmp_path: Path, *, elo1: int = 100, max_pairs: int = 40) -> tuple[Path, SprtSummary]:
    """A small real SPRT test on Lost Cities: the sample ``greedy`` bot (candidate) against a
    random player, in-process, one match at a time, with a fixed deal secret; real match logs,
    the real store. Greedy wins about every match, so H1 ([0, ``elo1``]) is accepted."""
    path = tmp_path / "sprt.toml"
    path.write_text('name = "duel"\ngame = "lost-cities"\n[sprt]\ncandidate = "greedy"\n'
                    f'baseline = "random"\nelo0 = 0\nelo1 = {elo1}\nmax_pairs = {max_pairs}\n')
    config = load_ladder(path)
    config.state_dir.mkdir(parents=True, exist_ok=True)
    (config.state_dir / SECRET_FILE).write_text("5eed" * 8)
    greedy = sample_policy("lost-cities", "greedy")

    async def play(spec: MatchSpec, *, sandbox: str = "process", log_dir: Path,
                   on_event: Any = None) -> MatchResult:
        match = Match(spec, sandbox_name="in-process", log_dir=log_dir)
        seats = [greedy if bot.name == "greedy" else random_policy(spec.seed % 1000)
                 for bot in spec.bots]
        return await match.run((LocalPlayer(0, seats[0]), LocalPlayer(1, seats[1])))

    def resolve(ref: str, base_dir: Path) -> BotSpec:
        return BotSpec(name=ref, game="lost-cities", command=("true",), version="1",
                       digest=f"test:{ref}")

    summary = asyncio.run(run_sprt(config, play=play, resolve=resolve, concurrency=1))
    return path, summary


def site_policy(html: str) -> str:
    """A page's content security policy."""
    found = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert found is not None, "the page has no policy"
    return found.group(1)


def assert_fetches_only_the_site(page: Path, site: Path) -> None:
    """The page fetches nothing but the site's shared files (its style sheet, the player): no
    address elsewhere, no inline script, each reference resolving inside ``site/assets`` to a
    file that exists; its policy forbids everything else."""
    html = page.read_text(encoding="utf-8")
    for fetch in ("url(", "@import", "https://", "<iframe", "<img", "<script>"):
        assert fetch not in html, fetch
    for ref in re.findall(r'<(?:link|script|img|iframe|source|embed|object)\b[^>]*?'
                          r'\b(?:href|src|data)="([^"]*)"', html):
        target = (page.parent / ref).resolve()
        assert target.parent == (site / "assets").resolve() and target.is_file(), ref
    policy = site_policy(html)
    assert policy.startswith("default-src 'none'; style-src 'self'"), policy
    assert "connect-src" not in policy and "*" not in policy, policy
    scripts = re.search(r"script-src ([^;]+)", policy)
    assert scripts is None or scripts.group(1) == "'self'", policy


def assert_only_the_site(browser: Browser, site: Path, page: Path) -> None:
    """The page opened in ``browser`` fetched itself and the site's shared files only, and its
    policy refused nothing."""
    shared = {(site / name).resolve().as_uri() for name in SHARED}
    fetched = browser.requests()
    assert fetched[0] == page.resolve().as_uri() and set(fetched[1:]) <= shared, fetched
    assert browser.violations() == []


def write_shared(site: Path) -> None:
    """The site's shared files (style sheet, player), for a page written on its own."""
    for name, content in SHARED.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(content, encoding="utf-8")


def logged_match(game_id: str, tmp_path: Path, seed: int = 8_765_432_109_876) -> Path:
    bots = (BotSpec("r1", game_id), BotSpec("r2", game_id))
    spec = MatchSpec(game_id, seed, bots, {}, TimeControl(), match_id=f"view-{game_id}")
    rngs = (random.Random(seed), random.Random(seed + 1))
    players = tuple(LocalPlayer(s, lambda d, r=rngs[s]: r.choice(d.legal_actions))
                    for s in (0, 1))
    asyncio.run(Match(spec, sandbox_name="in-process", log_dir=tmp_path)
                .run((players[0], players[1])))
    return tmp_path / f"view-{game_id}.jsonl"


def lost_cities_visible(state: LostCitiesState, seat: int) -> Counter[str]:
    """Every card ``seat`` can see: its own hand, both expeditions, all discard piles (computed
    from the full state, not from the observation the page was drawn from)."""
    seen = Counter(str(c) for c in state.hands[seat])
    for cards in (*state.expeditions[0], *state.expeditions[1], *state.piles):
        seen.update(str(c) for c in cards)
    return seen
