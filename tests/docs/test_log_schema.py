"""The match log's JSON Schema (docs/schema/match-log.schema.json) holds for real logs: matches
of all three games played in-process, and real subprocess matches that end in forfeits (an
illegal action, an unparseable one, a crash: no answer). Each record validates against the
schema, each deal, summary and options object against its game's definitions, the schema
rejects what is not a log record, and docs/log-format.md names every field the schema has."""

from __future__ import annotations

import asyncio
import copy
import json
import random
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from arena.games import game_ids
from arena.model import LOG_FORMAT, BotSpec, MatchSpec, TimeControl
from arena.referee.local import LocalPlayer
from arena.referee.match import Match
from tests.support.matches import run_match
from tests.support.paths import RANDOM_BOT, TEST_BOTS

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_PATH = ROOT / "docs" / "schema" / "match-log.schema.json"
DOC_PATH = ROOT / "docs" / "log-format.md"
SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
RECORDS = Draft202012Validator(SCHEMA)


@pytest.fixture
def socket_root() -> Iterator[Path]:
    """A short directory for the seats' sockets (a socket path must fit in 108 bytes)."""
    root = Path(tempfile.mkdtemp(prefix="t", dir="/tmp"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _game_validator(game: str, part: str) -> Draft202012Validator:
    """A validator of one game's ``deal``, ``summary`` or ``options`` (a plugin game's: the
    schema's generic object; its package documents the shape)."""
    ref = (f"#/$defs/games/{game}/{part}" if game in SCHEMA["$defs"]["games"]
           else "#/$defs/plugin_game")
    return Draft202012Validator({"$defs": SCHEMA["$defs"], "$ref": ref})


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _check_log(path: Path) -> list[dict[str, Any]]:
    """Validate every record of a log, game-specific parts included; return the records."""
    records = _records(path)
    game = records[0]["game"]
    for number, record in enumerate(records, start=1):
        errors = sorted(RECORDS.iter_errors(record), key=str)
        assert not errors, f"{path.name}:{number}: {errors[0].message[:300]}"
        kind = record["type"]
        if kind == "header":
            assert not list(_game_validator(game, "options").iter_errors(record["options"]))
        elif kind == "deal":
            assert not list(_game_validator(game, "deal").iter_errors(record["deal"]))
        elif kind == "round_end":
            assert not list(_game_validator(game, "summary").iter_errors(record["summary"]))
        elif kind == "match_end":
            assert not list(_game_validator(game, "options").iter_errors(
                record["result"]["options"]))
    assert records[0]["type"] == "header" and records[0]["log_format"] == LOG_FORMAT
    assert records[-1]["type"] == "match_end"
    return records


def _local_log(game: str, seed: int, log_dir: Path) -> Path:
    bots = (BotSpec("r0", game, version="1", digest="dir:sha256:00"), BotSpec("r1", game))
    spec = MatchSpec(game, seed, bots, {}, TimeControl(), match_id=f"schema-{game}-{seed}")
    rngs = (random.Random(seed), random.Random(seed + 1))
    players = tuple(LocalPlayer(s, lambda d, r=rngs[s]: r.choice(d.legal_actions))
                    for s in (0, 1))
    asyncio.run(Match(spec, sandbox_name="in-process", log_dir=log_dir).run(
        (players[0], players[1])))
    return log_dir / f"schema-{game}-{seed}.jsonl"


@pytest.mark.integration
@pytest.mark.parametrize("game", game_ids())
@pytest.mark.parametrize("seed", [1, 2])
def test_logs_of_every_game_validate(game: str, seed: int, tmp_path: Path) -> None:
    records = _check_log(_local_log(game, seed, tmp_path))
    kinds = {r["type"] for r in records}
    assert kinds == {"header", "deal", "decision", "round_end", "match_end"}
    assert all("summary" in r for r in records if r["type"] == "round_end")


@pytest.mark.integration
@pytest.mark.parametrize(
    ("bot", "fault", "answered"),
    [("illegal", "illegal_action", True), ("garbage", "invalid_action", True),
     ("crash", "crash", False)],
)
def test_a_subprocess_forfeit_validates(bot: str, fault: str, answered: bool, log_dir: Path,
                                        socket_root: Path) -> None:
    result = run_match(TEST_BOTS / bot, RANDOM_BOT, log_dir, socket_root, seed=5,
                       options={"rounds": 1})
    assert str(result.termination) == fault and result.faulty_seat == 0
    records = _check_log(Path(result.log or ""))
    last = [r for r in records if r["type"] == "decision"][-1]
    assert last["fault"] == fault and last["seat"] == 0
    assert (last["action"] is not None) == answered
    assert records[0]["sandbox"] == "process"
    assert records[-1]["result"]["termination"] == fault


def _broken(records: list[dict[str, Any]], kind: str, change: Any) -> dict[str, Any]:
    record = copy.deepcopy(next(r for r in records if r["type"] == kind))
    change(record)
    return record


@pytest.mark.parametrize(
    ("game", "kind", "change"),
    [
        ("lost-cities", "deal", lambda r: r["deal"]["deck"].pop()),
        ("lost-cities", "deal", lambda r: r["deal"]["hands"][0].__setitem__(0, "R11")),
        ("haggis", "deal", lambda r: r["deal"]["hands"][1].pop()),
        ("portas", "deal", lambda r: r["deal"]["treasures"].__setitem__(0, "16")),
        ("haggis", "round_end", lambda r: r["summary"]["bets"].__setitem__(0, 20)),
        ("portas", "round_end", lambda r: r["summary"].__setitem__("end", "timeout")),
        ("lost-cities", "round_end", lambda r: r["summary"].__setitem__("extra", 1)),
        ("lost-cities", "decision", lambda r: r.__setitem__("action", None)),
        ("lost-cities", "decision", lambda r: r.__setitem__("fault", "normal")),
        ("lost-cities", "decision", lambda r: r.pop("ms")),
        ("lost-cities", "header", lambda r: r["bots"].pop()),
        ("haggis", "header", lambda r: r["options"].__setitem__("target", "250")),
        ("portas", "match_end", lambda r: r["result"].__setitem__("winner", 2)),
        ("portas", "match_end", lambda r: r["result"].__setitem__("termination", "draw")),
    ],
)
def test_the_schema_rejects_what_is_not_a_record(game: str, kind: str, change: Any,
                                                 tmp_path: Path) -> None:
    records = _records(_local_log(game, 3, tmp_path))
    record = _broken(records, kind, change)
    whole = list(RECORDS.iter_errors(record))
    part = {"deal": "deal", "round_end": "summary", "header": "options"}.get(kind)
    specific = [] if part is None else list(_game_validator(game, part).iter_errors(
        record["deal" if part == "deal" else part]))
    assert whole or specific, record


def test_an_unknown_record_type_is_rejected() -> None:
    assert list(RECORDS.iter_errors({"type": "gossip"}))
    assert list(RECORDS.iter_errors([1, 2]))


def _property_names(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "properties":
                yield from value
            yield from _property_names(value)
    elif isinstance(node, list):
        for item in node:
            yield from _property_names(item)


def test_the_page_names_every_field_of_the_schema() -> None:
    Draft202012Validator.check_schema(SCHEMA)
    page = DOC_PATH.read_text(encoding="utf-8")
    missing = sorted({name for name in _property_names(SCHEMA) if f"`{name}`" not in page})
    assert not missing, f"docs/log-format.md does not describe: {', '.join(missing)}"
    assert "schema/match-log.schema.json" in page


@pytest.mark.parametrize("human_time", [None, TimeControl(move_time_ms=30_000)])
def test_the_log_of_a_match_a_person_played_holds(human_time: TimeControl | None,
                                                  tmp_path: Path) -> None:
    """`arena play`'s header names the person's seat and clock (``humans``)."""
    from arena.model import HumanSeat
    from arena.referee.human import HumanPlayer, Prompt

    class FirstLegal:
        def started(self, start: Any) -> None: ...
        async def choose(self, prompt: Prompt) -> str:
            return prompt.legal_texts[0]
        def timed_out(self, detail: str) -> None: ...
        def round_ended(self, *args: Any) -> None: ...
        def finished(self, result: Any) -> None: ...

    spec = MatchSpec("portas", 3, (BotSpec("human:ada", "portas"), BotSpec("b", "portas")),
                     {"games": 1}, TimeControl(), match_id="human-log",
                     humans=(HumanSeat(0, human_time),))
    match = Match(spec, sandbox_name="in-process", log_dir=tmp_path)
    asyncio.run(match.run((HumanPlayer(0, FirstLegal()),
                           LocalPlayer(1, lambda d: d.legal_texts[0]))))
    header = _check_log(tmp_path / "human-log.jsonl")[0]
    assert header["humans"] == [{"seat": 0, "time_control": None if human_time is None
                                 else human_time.to_json()}]
