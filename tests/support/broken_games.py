"""Deliberately broken copies of the built-in Lost Cities, as plugins that are not installed (the
conformance gate's tests make each visible with ``arena.games.registered``).

Each copy is the real engine with one fault an adversarial (or careless) game author could ship:
an observation that leaks the opponent's hand, a deal that ignores the seed (drawn from the
process's randomness, or always the same), legal actions that disagree with ``is_legal`` or are
ordered by the process's string hashing, legal texts out of step with the legal list, a
``determinize`` that redraws nothing (so a leak test would prove nothing), a renderer that
raises. The codec, renderer and board are the built-in's.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from arena.games.lost_cities import GAME as LOST_CITIES
from arena.games.lost_cities.terminal import RENDERER as LOST_CITIES_RENDERER
from arena.games.plugin import GamePlugin


class Wrapped:
    """The real Lost Cities engine under another id; subclasses override one method. The
    optional ``legal_texts`` is not passed through: a copy whose ``legal_actions`` is broken
    would otherwise send the real list's texts (``WrongTexts`` breaks that one instead)."""

    def __init__(self, game_id: str) -> None:
        self.id = game_id

    def __getattr__(self, name: str) -> Any:
        if name == "legal_texts":
            raise AttributeError(name)
        return getattr(LOST_CITIES, name)


class Leaky(Wrapped):
    """Its observation hands the seat its opponent's lowest card, appended to its own hand."""

    def observation(self, state: Any, seat: int) -> Any:
        view = LOST_CITIES.observation(state, seat)
        opponent = state.hands[1 - seat]
        return replace(view, hand=view.hand + opponent[:1]) if opponent else view

    def determinize(self, view: Any, rng: random.Random) -> Any:
        if len(view.hand) > view.opponent_hand_size:  # strip the leaked card
            view = replace(view, hand=view.hand[:-1])
        return LOST_CITIES.determinize(view, rng)


class Seedless(Wrapped):
    """Its deal ignores the match seed: drawn from the process's own randomness."""

    def new_match(self, seed: int, options: Any = None) -> Any:
        return LOST_CITIES.new_match(random.randrange(2**32), options)


class OneDeal(Wrapped):
    """Its deal ignores the match seed: always the deal of seed 7."""

    def new_match(self, seed: int, options: Any = None) -> Any:
        return LOST_CITIES.new_match(7, options)


class Disagreeing(Wrapped):
    """``legal_actions`` leaves out the first action, which ``is_legal`` still accepts."""

    def legal_actions(self, state: Any) -> Any:
        return tuple(LOST_CITIES.legal_actions(state))[1:]


class WrongTexts(Wrapped):
    """Its optional ``legal_texts`` gives the legal list's texts in reverse order (a table kept
    out of step with the list): a bot answering the first text would play the last action."""

    def legal_texts(self, state: Any) -> tuple[str, ...]:
        return tuple(map(LOST_CITIES.format_action, LOST_CITIES.legal_actions(state)))[::-1]


class HashOrdered(Wrapped):
    """Its legal actions are ordered by ``hash()`` of their texts: the same in one process, not
    in another (string hashing is salted per process)."""

    def legal_actions(self, state: Any) -> Any:
        return tuple(sorted(LOST_CITIES.legal_actions(state),
                            key=lambda action: hash(LOST_CITIES.format_action(action))))


class Blind(Wrapped):
    """``determinize`` always draws with the same seed: redrawing never changes anything."""

    def determinize(self, view: Any, rng: random.Random) -> Any:
        return LOST_CITIES.determinize(view, random.Random(0))


class Exiting(Wrapped):
    """Its options check ends the process (``sys.exit``) instead of raising ``OptionsError``."""

    def new_match(self, seed: int, options: Any = None) -> Any:
        if options and "no_such_option_of_the_gate" in options:
            raise SystemExit("bye")
        return LOST_CITIES.new_match(seed, options)


class RaisingRenderer:
    """A terminal renderer that fails on every view."""

    game_id = "lost-cities"

    def render_state(self, state: Any) -> Any:
        return LOST_CITIES_RENDERER.render_state(state)

    def render_view(self, view: Any) -> Any:
        raise KeyError("no such card colour")


LEAKY = Leaky("leaky-lost-cities")
SEEDLESS = Seedless("seedless-lost-cities")
ONE_DEAL = OneDeal("one-deal-lost-cities")
DISAGREEING = Disagreeing("disagreeing-lost-cities")
WRONG_TEXTS = WrongTexts("wrong-texts-lost-cities")
BLIND = Blind("blind-lost-cities")
HASH_ORDERED = HashOrdered("hash-ordered-lost-cities")
EXITING = Exiting("exiting-lost-cities")
UNCHANGED = Wrapped("raising-lost-cities")
RAISING_RENDERER = RaisingRenderer()


def broken(game_id: str, engine: str, renderer: str = "arena.games.lost_cities.terminal:RENDERER"
           ) -> GamePlugin:
    """A plugin of this module's ``engine`` with the built-in's other parts."""
    return GamePlugin(id=game_id, engine=f"tests.support.broken_games:{engine}",
                      codec="arena.games.lost_cities.codec:CODEC", renderer=renderer,
                      board="arena.games.lost_cities.board:BOARD")


LEAKY_PLUGIN = broken("leaky-lost-cities", "LEAKY")
SEEDLESS_PLUGIN = broken("seedless-lost-cities", "SEEDLESS")
ONE_DEAL_PLUGIN = broken("one-deal-lost-cities", "ONE_DEAL")
DISAGREEING_PLUGIN = broken("disagreeing-lost-cities", "DISAGREEING")
WRONG_TEXTS_PLUGIN = broken("wrong-texts-lost-cities", "WRONG_TEXTS")
BLIND_PLUGIN = broken("blind-lost-cities", "BLIND")
HASH_ORDERED_PLUGIN = broken("hash-ordered-lost-cities", "HASH_ORDERED")
EXITING_PLUGIN = broken("exiting-lost-cities", "EXITING")
RAISING_PLUGIN = broken("raising-lost-cities", "UNCHANGED",
                        renderer="tests.support.broken_games:RAISING_RENDERER")


class HostileRenderer(RaisingRenderer):
    """A terminal renderer whose failure message is markup and terminal control sequences."""

    def render_view(self, view: Any) -> Any:
        raise ValueError("[bold red]owned[/] \x1b[2J\x1b]0;title\x07")


HOSTILE_RENDERER = HostileRenderer()
HOSTILE_ENGINE = Wrapped("hostile-lost-cities")
HOSTILE_PLUGIN = broken("hostile-lost-cities", "HOSTILE_ENGINE",
                        renderer="tests.support.broken_games:HOSTILE_RENDERER")
