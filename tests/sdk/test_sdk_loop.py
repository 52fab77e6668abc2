"""Issue 25 point 3: the SDK reads and writes its stream on an event loop in the bot's main
thread (``arena.sdk.client``), and a policy is still called with no loop running: a policy that
runs asyncio itself, a bot that calls ``run`` from inside its own event loop, and a policy that
raises all behave as with the synchronous client. Real bot processes, the real referee."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arena.bots import load_bot_dir
from arena.model import MatchSpec, Termination, TimeControl
from arena.referee.match import play_match

pytestmark = pytest.mark.integration

ASYNCIO_POLICY = '''
import asyncio
from arena.sdk import run


async def pick(decision):
    await asyncio.sleep(0)
    return decision.legal_texts[-1]


def decide(decision):
    return asyncio.run(pick(decision))  # refused where a loop is running


if __name__ == "__main__":
    run(decide, name="asyncio-policy")
'''

RUN_INSIDE_A_LOOP = '''
import asyncio
from arena.sdk import run


async def main():
    run(lambda decision: decision.legal_texts[0], name="inside-a-loop")


if __name__ == "__main__":
    asyncio.run(main())
'''

RAISES = '''
from arena.sdk import run


def decide(decision):
    raise ValueError("the policy gave up on purpose")


if __name__ == "__main__":
    run(decide, name="raises")
'''


def _bot(root: Path, name: str, source: str) -> Path:
    directory = root / name
    directory.mkdir()
    (directory / "bot.py").write_text(source)
    (directory / "bot.toml").write_text(f'name = "{name}"\ngame = "lost-cities"\n')
    return directory


def _play(tmp_path: Path, first: str, second: str) -> tuple[Termination, int | None, str]:
    bots = (load_bot_dir(_bot(tmp_path, "a", first)), load_bot_dir(_bot(tmp_path, "b", second)))
    spec = MatchSpec("lost-cities", 5, bots, {"rounds": 1}, TimeControl(5000, 0, 20_000))
    result = asyncio.run(play_match(spec, sandbox="process", log_dir=tmp_path / "logs"))
    return result.termination, result.faulty_seat, result.detail


def test_policies_that_use_asyncio_play_a_whole_match(tmp_path: Path) -> None:
    termination, _, detail = _play(tmp_path, ASYNCIO_POLICY, RUN_INSIDE_A_LOOP)
    assert termination is Termination.NORMAL, detail


def test_a_policy_that_raises_crashes_its_bot_with_the_error(tmp_path: Path) -> None:
    termination, faulty, detail = _play(tmp_path, RUN_INSIDE_A_LOOP, RAISES)
    assert (termination, faulty) == (Termination.CRASH, 1), detail
    assert "ValueError: the policy gave up on purpose" in detail
