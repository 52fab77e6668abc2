"""What a seat sees: ``codec-round-trip`` (observations and actions through the arena.v1
envelope), ``leak`` (a redraw of what a seat cannot see changes nothing it sees) and
``renderers`` (the terminal renderer and the HTML board draw states and views)."""

from __future__ import annotations

import io
import random

from rich.console import Console

from arena.gate.report import CheckFailed, canonical_json
from arena.gate.subject import SAMPLED_ACTIONS, Subject, points, sampled
from arena.render import renderer_for
from arena.render.html import board_for
from arena.render.html.markup import render
from arena.v1 import bot_pb2
from arena.wire import (
    ObservationDecoder,
    ObservationEncoder,
    decode_action,
    decode_observation,
    encode_action,
    encode_observation,
    observation_bytes,
)

NAMES = ("seat 0", "seat 1")
"""The names boards are drawn with."""


def check_codec(subject: Subject) -> str:
    """Observations and actions through the arena.v1 envelope and its bytes, and back."""
    game, game_id = subject.game, subject.game_id
    rng = random.Random(13)
    views = actions = 0
    for playout in subject.playouts():
        coders = [(ObservationEncoder(game_id), ObservationDecoder(game_id)) for _ in (0, 1)]
        for number, step in enumerate(playout.steps, start=1):
            where = subject.at(playout.seed, number)
            view = game.observation(step.state, step.seat)
            encoder, decoder = coders[step.seat]
            message = bot_pb2.Observation()
            encoder.encode_into(message, view)
            wire = bot_pb2.Observation.FromString(message.SerializeToString())
            if decoder.decode(wire) != view:
                raise CheckFailed(f"{where}: seat {step.seat}'s observation, encoded and "
                                  "decoded as the referee and the SDK do, is not the same view")
            views += 1
        for number, step in points(playout):
            where = subject.at(playout.seed, number)
            for seat in (0, 1):
                view = game.observation(step.state, seat)
                data = encode_observation(game_id, view).SerializeToString()
                if decode_observation(game_id, bot_pb2.Observation.FromString(data)) != view:
                    raise CheckFailed(f"{where}: seat {seat}'s observation does not survive "
                                      "the codec")
            for action in sampled(step.legal, SAMPLED_ACTIONS, rng):
                data = encode_action(game_id, action).SerializeToString()
                if decode_action(game_id, bot_pb2.Action.FromString(data)) != action:
                    raise CheckFailed(f"{where}: the typed action "
                                      f"{game.format_action(action)!r} does not survive the "
                                      "codec")
                actions += 1
    return f"{views} observations and {actions} typed actions through the envelope and back"


def check_leak(subject: Subject) -> str:
    """A seat's observation bytes and legal actions do not move when what it cannot see is
    redrawn; and the redraw changes something."""
    game, game_id = subject.game, subject.game_id
    rng = random.Random(17)
    compared = varied = sampled_views = 0
    for playout in subject.playouts():
        for number, step in points(playout):
            where = subject.at(playout.seed, number)
            for seat in (0, 1):
                view = game.observation(step.state, seat)
                seen = observation_bytes(game_id, view)
                deals = set()
                for _ in range(3):
                    twin = game.determinize(view, rng)
                    if observation_bytes(game_id, game.observation(twin, seat)) != seen:
                        raise CheckFailed(
                            f"{where}: seat {seat}'s observation bytes change when what it "
                            "cannot see is redrawn (determinize): the observation leaks hidden "
                            "information")
                    if seat == step.seat and tuple(game.legal_actions(twin)) != step.legal:
                        raise CheckFailed(
                            f"{where}: seat {seat}'s legal actions change when what it cannot "
                            "see is redrawn: they leak hidden information")
                    deals.add(canonical_json(game.deal_record(twin)))
                    compared += 1
                sampled_views += 1
                varied += len(deals) > 1
                if number == 1 and len(deals) == 1:
                    raise CheckFailed(
                        f"{where}: determinize redraws nothing at the start of a match (three "
                        "draws, one deal): the leak test would prove nothing")
    if varied * 2 <= sampled_views:
        raise CheckFailed(f"determinize redrew the hidden part at only {varied} of "
                          f"{sampled_views} sampled positions: the leak test would prove little")
    return (f"{compared} redraws of what a seat cannot see: its observation bytes and legal "
            f"actions unchanged; the deal varied at {varied} of {sampled_views} positions")


def check_renderers(subject: Subject) -> str:
    """The terminal renderer and the HTML board draw states and views."""
    game, game_id = subject.game, subject.game_id
    renderer, board = renderer_for(game_id), board_for(game_id)
    drawn = 0
    for playout in subject.playouts():
        states = [(n, s.state) for n, s in points(playout)[::5]]
        for number, state in [*states, (len(playout.steps) + 1, playout.final)]:
            where = subject.at(playout.seed, number)
            for what, drawing in (("state", renderer.render_state(state)),
                                  *((f"seat {s}'s view",
                                     renderer.render_view(game.observation(state, s)))
                                    for s in (0, 1))):
                console = Console(file=io.StringIO(), width=100, color_system=None)
                console.print(drawing)
                if not console.file.getvalue().strip():  # type: ignore[attr-defined]
                    raise CheckFailed(f"{where}: the terminal renderer draws the {what} empty")
            for what, html in (("state", board.state(state, NAMES)),
                               *((f"seat {s}'s view", board.view(game.observation(state, s),
                                                                 NAMES)) for s in (0, 1))):
                if not render(html).strip():
                    raise CheckFailed(f"{where}: the HTML board draws the {what} empty")
            drawn += 1
    return f"{drawn} positions drawn by the terminal renderer and the HTML board"
