"""Issue 25 point 7: the ``match_end`` hook gets ``detail`` and ``faulty_seat`` (as MatchEnd
carries them), and a hook written before they were passed (three arguments) is called exactly
as before. Real bot processes over the real protocol, and the call rules on their own."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from arena.bots import load_bot_dir
from arena.model import MatchSpec, Termination, TimeControl
from arena.referee.match import play_match
from arena.sdk.policy import PolicyCalls

pytestmark = pytest.mark.unit

NEW_HOOK = '''
import sys
from arena.sdk import run


class Bot:
    def decide(self, decision):
        return decision.legal_texts[0]

    def match_end(self, result, termination, totals, detail, faulty_seat):
        print(f"new hook: {result} {termination} faulty={faulty_seat} detail={detail}",
              file=sys.stderr, flush=True)


if __name__ == "__main__":
    run(Bot(), name="new-hook")
'''

OLD_HOOK = '''
import sys
from arena.games import get_game
from arena.sdk import run


class Bot:
    """Answers a move that parses but is not legal: the match ends with seat 1 at fault."""

    def decide(self, decision):
        game = get_game(decision.match.game)
        for colour in "YBWGR":
            for rank in range(10, 1, -1):
                text = f"discard {colour}{rank} deck"
                game.parse_action(text)
                if text not in decision.legal_texts:
                    return text
        raise SystemExit("no illegal action found")

    def match_end(self, result, termination, totals):
        print(f"old hook: {result} {termination} {list(totals)}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    run(Bot(), name="old-hook")
'''


def _bot(root: Path, name: str, source: str) -> Path:
    directory = root / name
    directory.mkdir()
    (directory / "bot.py").write_text(source)
    (directory / "bot.toml").write_text(f'name = "{name}"\ngame = "lost-cities"\n')
    return directory


@pytest.mark.integration
def test_hooks_old_and_new_over_the_protocol(tmp_path: Path) -> None:
    bots = (load_bot_dir(_bot(tmp_path, "new-hook", NEW_HOOK)),
            load_bot_dir(_bot(tmp_path, "old-hook", OLD_HOOK)))
    spec = MatchSpec("lost-cities", 3, bots, {"rounds": 1}, TimeControl(2000, 0, 10_000))
    result = asyncio.run(play_match(spec, sandbox="process", log_dir=tmp_path / "logs"))
    assert result.termination is Termination.ILLEGAL_ACTION and result.faulty_seat == 1
    logs = tmp_path / "logs"
    new = next(logs.glob("*.seat0.log")).read_text()
    old = next(logs.glob("*.seat1.log")).read_text()
    assert ("new hook: MATCH_RESULT_WIN TERMINATION_ILLEGAL_ACTION faulty=1 detail=illegal "
            "action 'discard ") in new, new
    assert result.detail.splitlines()[0] in new
    assert "old hook: MATCH_RESULT_LOSS TERMINATION_ILLEGAL_ACTION [0, 0]" in old, old
    assert "Traceback" not in old + new


class _Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []


class _Old(_Recorder):
    def match_end(self, result: str, termination: str, totals: tuple[int, ...]) -> None:
        self.calls.append((result, termination, totals))


class _Named(_Recorder):
    def match_end(self, result: str, termination: str, totals: tuple[int, ...], *,
                  faulty_seat: int | None = None) -> None:
        self.calls.append((result, faulty_seat))


class _Keywords(_Recorder):
    def match_end(self, *args: Any, **kwargs: Any) -> None:
        self.calls.append((*args, kwargs))


def test_each_hook_gets_what_it_names() -> None:
    end = ("MATCH_RESULT_WIN", "TERMINATION_CRASH", (3, 0))
    old, named, keywords = _Old(), _Named(), _Keywords()
    for policy in (old, named, keywords):
        PolicyCalls(policy).match_end(*end, detail="exited with status 3", faulty_seat=1)
    assert old.calls == [end]
    assert named.calls == [("MATCH_RESULT_WIN", 1)]
    assert keywords.calls == [(*end, {"detail": "exited with status 3", "faulty_seat": 1})]
    PolicyCalls(lambda decision: None).match_end(*end)  # a bare function has no hooks


class _Illegal(_Keywords):
    """Answers with an action of no game: an in-process seat's fault."""

    def __call__(self, decision: Any) -> Any:
        return "not an action"


class _First(_Keywords):
    """Plays the first legal action."""

    def __call__(self, decision: Any) -> Any:
        return decision.legal_actions[0]


def test_an_in_process_seat_gets_detail_and_faulty_seat() -> None:
    """In-process seats (play_local, ladders' local players) are told what a bot is told."""
    import asyncio

    from arena.referee.local import local_match

    first, second = _First(), _Illegal()
    result = asyncio.run(local_match("lost-cities", (first, second), 3))
    assert result.faulty_seat == 1
    for recorder in (first, second):
        (*_, extra), = recorder.calls
        assert extra["faulty_seat"] == 1 and "not an action" in extra["detail"]
