"""Haggis sample bot: a greedy heuristic.

* Going out first is what scores (5 per card left with the opponent, their hand's points and the
  Haggis), so it leads the combination that sheds the most cards for the least: many cards, low
  ranks, no wild cards, never a bomb unless it ends the round.
* Following, it beats with the cheapest combination without wild cards or bombs; it spends wild
  cards and bombs only when the opponent is close to going out (or to go out itself).
* It bets 15 with a strong hand (bombs and face cards to take back the lead), never otherwise.
"""

from __future__ import annotations

from typing import Any

from arena.games import haggis as h
from arena.sdk.decision import Decision

DANGER = 5
"""The opponent is close to going out at this many cards or fewer."""


def _wilds(combo: h.Combo) -> int:
    return (combo.mask & h.WILD_MASK).bit_count()


def _lead_value(combo: h.Combo, hand_size: int) -> float:
    """Higher is better: shed many cards, keep wild cards, bombs and high ranks."""
    if combo.size == hand_size:
        return 1000.0
    value = 3.0 * combo.size - 5.0 * _wilds(combo) - 0.3 * combo.high
    if combo.kind == h.BOMB:
        value -= 40.0
    return value


def _follow_cost(combo: h.Combo) -> float:
    """Lower is cheaper: prefer no wild cards, no bombs, low ranks."""
    return 10.0 * _wilds(combo) + (30.0 if combo.kind == h.BOMB else 0.0) + combo.high


def _strong(view: h.View) -> bool:
    """A hand worth a bet: a number bomb or several high cards besides the face cards."""
    hand = h.mask_of(view.hand)
    if h.bomb_combos(hand & h.NUMBER_MASK):
        return True
    high = sum(1 for c in view.hand if 9 <= h.card_rank(c) <= 10)
    return high >= 6


def choose(decision: Decision) -> Any:
    """The greedy choice among ``decision.legal_actions``."""
    view: h.View = decision.observation
    seat = decision.seat
    plays = [a for a in decision.legal_actions if a.combo is not None and a.bet is None]
    can_bet = view.bets[seat] is None and not view.played[seat]
    bet = 15 if can_bet and _strong(view) else None
    hand_size = len(view.hand)
    opp_size = view.hand_sizes[1 - seat]
    going_out = [a for a in plays if a.combo is not None and a.combo.size == hand_size]
    if going_out:
        return _with_bet(going_out[0], bet)
    if not view.trick:
        best = max(plays, key=lambda a: _lead_value(_combo(a), hand_size))
        return _with_bet(best, bet)
    cheap = [a for a in plays if _wilds(_combo(a)) == 0 and _combo(a).kind != h.BOMB]
    if opp_size <= DANGER:
        cheap = plays
    if cheap:
        return _with_bet(min(cheap, key=lambda a: _follow_cost(_combo(a))), bet)
    return h.Action(None, 0 if can_bet and bet is None and opp_size <= DANGER else bet)


def _combo(action: h.Action) -> h.Combo:
    assert action.combo is not None
    return action.combo


def _with_bet(action: h.Action, bet: int | None) -> h.Action:
    return action if bet is None else h.Action(action.combo, bet)


if __name__ == "__main__":
    from arena.sdk import run

    run(choose, name="greedy")
