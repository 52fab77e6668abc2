"""The actions' checks: ``grammar`` (text round trip, canonical text, garbage refused,
``legal_texts``) and ``is-legal`` (``is_legal`` against ``legal_actions``, ``apply`` refusing
illegal actions and leaving its input alone)."""

from __future__ import annotations

import random
from typing import Any

from arena.errors import IllegalActionError, InvalidActionError
from arena.games.api import Game
from arena.gate.report import CheckFailed, canonical_json
from arena.gate.subject import SAMPLED_ACTIONS, Step, Subject, points, sampled
from arena.wire import observation_bytes

OTHER_ACTIONS = 16
"""Actions legal elsewhere in the checked matches, tried on each position (``is-legal``)."""
GARBAGE = ("", " ", "xyzzy", "\x00\x01\x02", "9" * 5000, "pass pass pass pass", "\n", "{}")
"""Texts outside any sensible grammar: ``parse_action`` refuses them (``InvalidActionError``)
or reads them as a canonical action."""


def check_grammar(subject: Subject) -> str:
    """Every (sampled) legal action's text parses back to it and is canonical; garbage is
    refused."""
    game = subject.game
    rng = random.Random(7)
    checked = 0
    texts = getattr(game, "legal_texts", None)
    for playout in subject.playouts():
        for number, step in enumerate(playout.steps, start=1):
            where = subject.at(playout.seed, number)
            for action in sampled(step.legal, SAMPLED_ACTIONS, rng):
                _round_trip(game, action, where)
                checked += 1
            if texts is not None:
                _same_texts(game, tuple(texts(step.state)), step.legal, where)
    for text in GARBAGE:
        subject.where = f"parse_action({text[:20]!r})"
        try:
            action = game.parse_action(text)
        except InvalidActionError:
            continue
        if game.format_action(action) != text:
            raise CheckFailed(f"parse_action({text[:20]!r}) reads {game.format_action(action)!r}"
                              ": text outside the grammar must raise InvalidActionError")
    said = "; legal_texts agrees with format_action" if texts is not None else ""
    return f"{checked} legal actions: text round trip, canonical{said}; garbage text refused"


def _same_texts(game: Game[Any, Any, Any], texts: tuple[Any, ...], legal: tuple[Any, ...],
                where: str) -> None:
    """A game's ``legal_texts`` must be ``format_action`` of each legal action, in order."""
    for index, action in enumerate(legal):
        text = game.format_action(action)
        if index >= len(texts) or texts[index] != text:
            shown = repr(texts[index])[:40] if index < len(texts) else "nothing"
            raise CheckFailed(f"{where}: legal_texts gives {shown} where legal action "
                              f"{index} formats as {text!r}")
    if len(texts) != len(legal):
        raise CheckFailed(f"{where}: legal_texts gives {len(texts)} texts for {len(legal)} "
                          "legal actions")


def _round_trip(game: Game[Any, Any, Any], action: Any, where: str) -> None:
    text = game.format_action(action)
    if not isinstance(text, str) or not text or "\n" in text:
        raise CheckFailed(f"{where}: format_action gives {text!r} (one non-empty line wanted)")
    try:
        back = game.parse_action(text)
    except InvalidActionError as exc:
        raise CheckFailed(f"{where}: the legal action {text!r} does not parse: {exc}") from None
    if back != action:
        raise CheckFailed(f"{where}: {text!r} parses to {back!r}, not the legal action "
                          f"{action!r}")
    if game.format_action(back) != text:
        raise CheckFailed(f"{where}: {text!r} is not canonical: it formats back as "
                          f"{game.format_action(back)!r}")


def check_is_legal(subject: Subject) -> str:
    """``is_legal`` agrees with ``legal_actions`` (legal and illegal actions), ``apply``
    refuses illegal actions and leaves its input alone."""
    game = subject.game
    rng = random.Random(11)
    universe = _universe(subject, rng)
    legal_checked = illegal_checked = 0
    for playout in subject.playouts():
        sampled_points = {number for number, _ in points(playout)}
        for number, step in enumerate(playout.steps, start=1):
            where = subject.at(playout.seed, number)
            for action in sampled(step.legal, SAMPLED_ACTIONS, rng):
                if not game.is_legal(step.state, action):
                    raise CheckFailed(f"{where}: is_legal refuses the legal action "
                                      f"{game.format_action(action)!r}")
                legal_checked += 1
            others = rng.sample(universe, min(OTHER_ACTIONS, len(universe)))
            illegal_checked += _check_illegal(game, step, others, where)
            _check_apply_pure(game, step, where, number in sampled_points)
    if illegal_checked == 0:
        raise CheckFailed("no action of another position was ever illegal: is_legal was not "
                          "tested on an illegal action")
    return (f"is_legal accepts {legal_checked} legal actions and refuses {illegal_checked} "
            "actions of other positions (apply refuses them too); apply leaves its input "
            "unchanged")


def _universe(subject: Subject, rng: random.Random) -> list[Any]:
    """Actions legal somewhere in the checked matches (sampled per position), each once."""
    seen: dict[Any, None] = {}
    for playout in subject.playouts():
        for step in playout.steps:
            seen.update(dict.fromkeys(sampled(step.legal, SAMPLED_ACTIONS, rng)))
    return list(seen)


def _check_illegal(game: Game[Any, Any, Any], step: Step, others: list[Any], where: str) -> int:
    """Actions of other positions that are not legal here: is_legal refuses them, apply
    raises ``IllegalActionError`` (tried on the first few), ``explain_illegal`` (if the game
    has it) gives a reason."""
    legal = set(step.legal)
    explain = getattr(game, "explain_illegal", None)
    checked = 0
    for action in others:
        if action in legal:
            continue
        text = game.format_action(action)
        if game.is_legal(step.state, action):
            raise CheckFailed(f"{where}: is_legal accepts {text!r}, which legal_actions does "
                              "not offer")
        if checked < 3:
            try:
                game.apply(step.state, action)
            except IllegalActionError:
                pass
            else:
                raise CheckFailed(f"{where}: apply accepts the illegal action {text!r} (it must "
                                  "raise IllegalActionError)")
            if explain is not None and not str(explain(step.state, action) or "").strip():
                raise CheckFailed(f"{where}: explain_illegal gives no reason for {text!r}")
        checked += 1
    return checked


def _check_apply_pure(game: Game[Any, Any, Any], step: Step, where: str, bytes_too: bool
                      ) -> None:
    """``apply`` leaves its input as it was: both seats' views (their bytes too at sampled
    points: a view could share a list the state mutates), the deal and the seat to move."""
    def looks(state: Any) -> list[Any]:
        views = [game.observation(state, s) for s in (0, 1)]
        data = [observation_bytes(game.id, v) for v in views] if bytes_too else []
        return [*views, *data, canonical_json(game.deal_record(state)), game.to_move(state)]

    before = looks(step.state)
    game.apply(step.state, step.action)
    if looks(step.state) != before:
        raise CheckFailed(f"{where}: apply({game.format_action(step.action)!r}) changed the "
                          "state it was given")
