"""A person's seat (`arena play`, issue 35 point 2) on the real match loop, in-process: a
refused answer is asked again with the engine's reason (never forfeited), the person's clock is
their own (none by default) and the log says so and replays, quitting cancels the match, and no
ladder ever records the match."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from arena.errors import ReplayMismatchError
from arena.games import get_game
from arena.ladder.store import LadderStore, StoreError
from arena.model import (
    BotSpec,
    HeaderEvent,
    HumanSeat,
    MatchResult,
    MatchSpec,
    Termination,
    TimeControl,
    has_human,
)
from arena.record.clock import Clock, seat_clocks
from arena.record.log import read_events
from arena.record.replay import replay_log
from arena.referee.human import HumanPlayer, Prompt, Quit, human_name
from arena.referee.local import LocalPlayer
from arena.referee.match import Match
from arena.wire.conversation import SeatStart
from tests.support.fakes import fake_result

pytestmark = pytest.mark.unit


class Scripted:
    """A ``HumanSide`` that gives the scripted answers first, then the first legal action."""

    def __init__(self, answers: list[str] = (), quit_at: int | None = None) -> None:  # type: ignore[assignment]
        self.answers = list(answers)
        self.quit_at = quit_at
        self.prompts: list[Prompt] = []
        self.rounds: list[tuple[int, tuple[int, int], tuple[int, int]]] = []
        self.result: MatchResult | None = None
        self.start: SeatStart | None = None

    def started(self, start: SeatStart) -> None:
        self.start = start

    async def choose(self, prompt: Prompt) -> str:
        self.prompts.append(prompt)
        if self.quit_at is not None and prompt.decision >= self.quit_at:
            raise Quit
        return self.answers.pop(0) if self.answers else prompt.legal_texts[0]

    def timed_out(self, detail: str) -> None:
        raise AssertionError("untimed")

    def round_ended(self, round_index: int, scores: tuple[int, int],
                    totals: tuple[int, int]) -> None:
        self.rounds.append((round_index, scores, totals))

    def finished(self, result: MatchResult) -> None:
        self.result = result


def _first_legal(decision: Any) -> Any:
    return decision.legal_texts[0]


def _play(side: Scripted, log_dir: Path, *, seat: int = 0, game: str = "lost-cities",
          seed: int = 7, options: dict[str, Any] | None = None) -> tuple[MatchResult, Match]:
    human = BotSpec(human_name("ada"), game)
    bot = BotSpec("first", game)
    spec = MatchSpec(game, seed, (human, bot) if seat == 0 else (bot, human),
                     options if options is not None else {"rounds": 1},
                     TimeControl(move_time_ms=1000), match_id=f"play-{game}-{seed}",
                     humans=(HumanSeat(seat, None),))
    match = Match(spec, sandbox_name="in-process", log_dir=log_dir)
    person = HumanPlayer(seat, side)
    players = (person, LocalPlayer(1, _first_legal)) if seat == 0 else (
        LocalPlayer(0, _first_legal), person)

    async def run() -> MatchResult:
        try:
            return await match.run(players)
        except asyncio.CancelledError:
            assert person.quit and match.result is not None
            return match.result

    return asyncio.run(run()), match


def test_a_refused_answer_is_asked_again_with_the_engines_reason(tmp_path: Path) -> None:
    side = Scripted(["", "play Z9 deck", "play R5 deck"])
    result, _ = _play(side, tmp_path)
    first = side.prompts[:4]
    assert [p.decision for p in first] == [1, 1, 1, 1]  # the same decision, asked four times
    assert first[0].refused == ""
    assert "type an action" in first[1].refused
    assert "'play Z9 deck' is not a lost-cities action" in first[2].refused
    hand = first[0].observation.hand
    assert "R5" not in {str(c) for c in hand}, "the test needs a card not in the hand"
    assert first[3].refused == "'play R5 deck' is not legal now: R5 is not in your hand"
    assert result.termination is Termination.NORMAL and result.bots[0] == "human:ada"
    assert side.result == result and side.rounds and side.start is not None
    replay_log(Path(result.log or ""))  # the log verifies like any other


def test_a_legal_action_in_another_spelling_is_taken(tmp_path: Path) -> None:
    game = get_game("lost-cities")
    state = game.new_match(7, {"rounds": 1})
    legal = game.format_action(game.legal_actions(state)[0])
    side = Scripted([f"  {legal.upper().replace(' ', '   ')} "])
    result, _ = _play(side, tmp_path)
    assert side.prompts[1].decision == 3  # taken at once (any case, any spacing): the next
    assert result.termination is Termination.NORMAL


def test_the_person_has_no_clock_and_the_log_says_so(tmp_path: Path) -> None:
    result, _ = _play(Scripted(), tmp_path, seat=1)
    path = Path(result.log or "")
    header = next(iter(read_events(path)))
    assert isinstance(header, HeaderEvent)
    assert header.humans == (HumanSeat(1, None),) and has_human(header.bot_names)
    # the person's decisions may take any time: make one take 50 s in the log, and it replays;
    # the same figure on the bot's decision is a timeout the replay finds
    lines = path.read_text().splitlines()
    records = [json.loads(line) for line in lines]
    human_at = next(i for i, r in enumerate(records) if r["type"] == "decision" and r["seat"] == 1)
    bot_at = next(i for i, r in enumerate(records) if r["type"] == "decision" and r["seat"] == 0)
    slow = tmp_path / "slow-human.jsonl"
    records[human_at]["ms"] = 50_000.0
    slow.write_text("".join(json.dumps(r) + "\n" for r in records))
    replay_log(slow)
    records[human_at]["ms"] = 1.0
    records[bot_at]["ms"] = 50_000.0
    slow.write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(ReplayMismatchError, match="seat 0's allowance"):
        replay_log(slow)


def test_seat_clocks() -> None:
    tc = TimeControl(move_time_ms=200, time_bank_ms=100)
    bot, person = seat_clocks(tc, (HumanSeat(1, None),))
    assert bot == Clock.of(tc) and person.untimed
    assert person.verdict(10**9, None) is None and person.charge(10**9) is None
    own = TimeControl(move_time_ms=5000)
    assert seat_clocks(tc, (HumanSeat(0, own),))[0] == Clock.of(own)


def test_quitting_cancels_the_match_and_the_log_still_replays(tmp_path: Path) -> None:
    result, _ = _play(Scripted(quit_at=3), tmp_path)
    assert result.termination is Termination.CANCELLED and result.void
    replay_log(Path(result.log or ""))


def test_human_names() -> None:
    assert human_name("ada") == "human:ada"
    assert human_name("a b/c\x1b[1m") == "human:abc1m"
    assert human_name("   ") == "human:player"
    assert len(human_name("x" * 200)) <= 64


def test_no_ladder_records_a_match_a_person_played(tmp_path: Path) -> None:
    a = BotSpec("alpha", "lost-cities", digest="sha256:aaa", version="1")
    person = BotSpec(human_name("ada"), "lost-cities")
    result = fake_result(MatchSpec("lost-cities", 1, (person, a), match_id="m-human"))
    store = LadderStore(f"sqlite:///{tmp_path / 'ladder.db'}")
    try:
        with pytest.raises(StoreError, match="human seat"):
            store.record_match("lad", result, (person, a))
        assert store.matches("lad") == []
        ok = fake_result(MatchSpec("lost-cities", 1, (a, a), match_id="m-bots"))
        assert store.record_match("lad", ok, (a, a)).applied
    finally:
        store.close()
