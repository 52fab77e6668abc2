"""Round summaries (log format 3): every game's ``round_summary`` accounts for the round's
scores, the referee logs it with the round's end, replay checks it against the engine, and logs
of earlier formats (no summary) still replay."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest

from arena.errors import ReplayMismatchError
from arena.games import game_ids, get_game
from arena.games.haggis import CARD_POINTS, parse_card
from arena.model import LOG_FORMAT, BotSpec, MatchSpec, RoundEndEvent, TimeControl
from arena.record.log import read_events
from arena.record.replay import replay_log
from arena.referee.local import LocalPlayer
from arena.referee.match import Match

pytestmark = pytest.mark.unit


def _random_rounds(game_id: str, seed: int) -> list[tuple[tuple[int, int], dict[str, Any]]]:
    """(scores, summary) of every round of a match of uniformly random legal actions."""
    game = get_game(game_id)
    rng = random.Random(seed)
    state = game.new_match(seed)
    out = []
    while game.to_move(state) is not None:
        before = len(game.finished_rounds(state))
        state = game.apply(state, rng.choice(list(game.legal_actions(state))))
        finished = game.finished_rounds(state)
        if len(finished) > before:
            out.append((finished[before], game.round_summary(state, before)))
    # a summary stays the same when asked later in the match (replay asks at the round's end)
    for index, (_, summary) in enumerate(out):
        assert game.round_summary(state, index) == summary
    return out


@pytest.mark.parametrize("seed", range(6))
def test_lost_cities_expedition_scores_add_up(seed: int) -> None:
    for scores, summary in _random_rounds("lost-cities", seed):
        per_colour = summary["expedition_scores"]
        assert [len(p) for p in per_colour] == [5, 5]
        assert (sum(per_colour[0]), sum(per_colour[1])) == scores


@pytest.mark.integration
@pytest.mark.parametrize("seed", range(6))
def test_haggis_summary_explains_the_scores(seed: int) -> None:
    def points(texts: list[str]) -> int:
        return sum(CARD_POINTS[parse_card(t)] for t in texts)

    for scores, s in _random_rounds("haggis", seed):
        out, other = s["out"], 1 - s["out"]
        assert s["bet_points"] == sum(s["bets"]) and all(b in (0, 15, 30) for b in s["bets"])
        assert s["leftover_card_points"] == points(s["leftover"])
        assert s["leftover_count_points"] == 5 * len(s["leftover"])
        assert s["haggis_points"] == points(s["haggis"]) and len(s["haggis"]) == 8
        assert scores[out] == (s["captured_points"][out] + s["leftover_card_points"]
                               + s["leftover_count_points"] + s["haggis_points"]
                               + s["bet_points"])
        assert scores[other] == s["captured_points"][other]


@pytest.mark.parametrize("seed", range(10))
def test_portas_summary_says_why_a_game_ended(seed: int) -> None:
    ends = set()
    for scores, s in _random_rounds("portas", seed):
        ends.add(s["end"])
        gained = [0, 0]
        def total(cards: list[list[str]]) -> int:
            return sum(int(c) for row in cards for c in row)

        for chest in s["taken"]:
            assert total(chest["cards"]) == int(chest["chest"])
            gained[chest["taker"]] += total([chest["cards"][chest["taker"]]])
        assert tuple(gained) == scores
        values = [c["chest"] for c in s["taken"]] + [c["chest"] for c in s["open"]]
        assert len(values) == len(set(values)) <= 5
        if s["end"] == "all_chests_taken":
            assert len(s["taken"]) == 5 and not s["open"]
        else:
            assert s["end"] == "two_passes"
            assert all(total(c["cards"]) < int(c["chest"]) for c in s["open"])
    assert ends  # every game ends one of the two ways


def _logged_match(game_id: str, tmp_path: Path) -> Path:
    bots = (BotSpec("r1", game_id), BotSpec("r2", game_id))
    spec = MatchSpec(game_id, 3, bots, {}, TimeControl(), match_id=f"sum-{game_id}")
    rngs = (random.Random(1), random.Random(2))
    players = tuple(LocalPlayer(s, lambda d, r=rngs[s]: r.choice(d.legal_actions))
                    for s in (0, 1))
    asyncio.run(Match(spec, sandbox_name="in-process", log_dir=tmp_path).run(
        (players[0], players[1])))
    return tmp_path / f"sum-{game_id}.jsonl"


def _rewrite(path: Path, change: Any) -> Path:
    records = [json.loads(line) for line in path.read_text().splitlines()]
    for record in records:
        change(record)
    forged = path.with_name("forged.jsonl")
    forged.write_text("".join(json.dumps(r) + "\n" for r in records))
    return forged


@pytest.mark.integration
@pytest.mark.parametrize("game_id", game_ids())
def test_the_log_carries_the_summary_and_replay_checks_it(game_id: str, tmp_path: Path) -> None:
    path = _logged_match(game_id, tmp_path)
    events = list(read_events(path))
    assert events[0].type == "header" and events[0].log_format == LOG_FORMAT >= 3
    ends = [e for e in events if isinstance(e, RoundEndEvent)]
    assert ends and all(e.summary for e in ends)
    assert replay_log(path).finished

    def forge(record: dict[str, Any]) -> None:
        if record["type"] == "round_end" and record["round"] == 0:
            key = sorted(record["summary"])[0]
            record["summary"][key] = "forged"

    with pytest.raises(ReplayMismatchError, match="round 0 summary"):
        replay_log(_rewrite(path, forge))

    def drop(record: dict[str, Any]) -> None:
        if record["type"] == "round_end":
            del record["summary"]

    with pytest.raises(ReplayMismatchError, match="summary None"):
        replay_log(_rewrite(path, drop))


@pytest.mark.parametrize("game_id", game_ids())
def test_a_format_2_log_without_summaries_still_replays(game_id: str, tmp_path: Path) -> None:
    path = _logged_match(game_id, tmp_path)

    def downgrade(record: dict[str, Any]) -> None:
        if record["type"] == "header":
            record["log_format"] = 2
        record.pop("summary", None)

    report = replay_log(_rewrite(path, downgrade))
    assert report.finished and report.rounds
