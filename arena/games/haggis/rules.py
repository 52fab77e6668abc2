"""Haggis for two players: a pure rules engine (standard library only).

The rules as the arena plays them are in ``docs/games/haggis.md``. A match is a game to
``target`` points (250 by default, 350 for a long game) made of rounds; a round is dealt from
``round_seed(seed, round, "haggis")``.

The engine is three pure modules; this one is the public face and re-exports the other two's
public names (see ``__all__``):

- ``cards``: card ids (number cards 0..35, then J, Q, K = 36, 37, 38), hand masks, card
  text and card points;
- ``combos``: combinations (``Combo``: a reading plus the mask of its physical cards),
  their validity, ``beats``, their text, and the enumeration of what a hand can play;
- ``haggis`` (here): actions and their text, states, views, scoring and the game (``GAME``).

Action text grammar (canonical; ``parse_action`` accepts nothing else)::

    action := "pass" [" bet " ("0" | "15" | "30")]
            | combo  [" bet " ("15" | "30")]
    combo  := "set " RANK ": " cards                 a set of rank RANK (J/Q/K: a single face card)
            | "run " RANK "-" RANK "x" W ": " cards  ranks a..b, W cards per rank (W = 1..4)
            | "bomb " BOMB ": " cards                BOMB: rainbow JQ JK QK JQK suited (low → high)
    cards  := card (" " card)*   number cards by rank then suit R G B Y, then J, Q, K
    card   := RANK SUIT          a number card: 2R .. 10Y
            | WILD ["=" RANK]    J/Q/K; "=RANK" when it stands for a lower rank (always in sets)

Examples: ``set 5: 5R 5G J=5``, ``set K: K``, ``run 2-5x1: 2G 5G J=3 K=4``,
``run 10-Jx2: 10R 10G J Q=J``, ``bomb JQ: J Q``, ``bomb rainbow: 3R 5G 7B 9Y``,
``pass bet 15``, ``run 3-4x2: 3R 3G J=4 Q=4 bet 30``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from arena.errors import IllegalActionError, InvalidActionError
from arena.games.api import (
    GameResult,
    Options,
    OptionSpec,
    leader_of,
    replace,
    round_seed,
    validate_options,
)
from arena.games.haggis.cards import (
    CARD_POINTS,
    JACK,
    KING,
    NUMBER_MASK,
    QUEEN,
    SUITS,
    WILD_MASK,
    WILDS,
    card_rank,
    card_suit,
    card_text,
    cards_of,
    mask_of,
    number_card,
    parse_card,
    points_of,
)
from arena.games.haggis.combos import (
    BOMB,
    BOMB_JK,
    BOMB_JQ,
    BOMB_JQK,
    BOMB_NAMES,
    BOMB_QK,
    KIND_NAMES,
    RAINBOW,
    RUN,
    SET,
    SUITED,
    Combo,
    beats,
    bomb_combos,
    combo_error,
    follow_combos,
    format_combo,
    lead_combos,
    parse_combo,
    remember,
    run_combos,
    set_combos,
    wild_readings,
)
from arena.games.haggis.combos import clear_caches as _clear_combo_caches

__all__ = [
    # cards (cards.py)
    "CARD_POINTS",
    "JACK",
    "KING",
    "NUMBER_MASK",
    "QUEEN",
    "SUITS",
    "WILDS",
    "WILD_MASK",
    "card_rank",
    "card_suit",
    "card_text",
    "cards_of",
    "mask_of",
    "number_card",
    "parse_card",
    "points_of",
    # combinations (combos.py)
    "BOMB",
    "BOMB_JK",
    "BOMB_JQ",
    "BOMB_JQK",
    "BOMB_NAMES",
    "BOMB_QK",
    "KIND_NAMES",
    "RAINBOW",
    "RUN",
    "SET",
    "SUITED",
    "Combo",
    "beats",
    "bomb_combos",
    "combo_error",
    "follow_combos",
    "format_combo",
    "lead_combos",
    "run_combos",
    "set_combos",
    "wild_readings",
    # actions, states, the game (here)
    "BETS",
    "GAME",
    "HAND_SIZE",
    "MAX_ROUNDS",
    "PASS",
    "Action",
    "HaggisGame",
    "clear_caches",
    "LastActions",
    "NO_LAST_ACTIONS",
    "RoundSummary",
    "State",
    "View",
    "determinize",
    "format_action",
    "game_over",
    "next_leader",
    "parse_action",
]

MAX_ROUNDS = 40
"""The hard cap on rounds (docs/games/haggis.md, "The match")."""
BETS = (0, 15, 30)
HAND_SIZE = 14
"""Number cards dealt to each player (plus their J, Q, K)."""


# --- actions ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Action:
    """A decision: a pass (``combo is None``) or a play, optionally declaring a bet."""

    combo: Combo | None = None
    bet: int | None = None
    """The bet declared with this decision (0/15/30 on a pass, 15/30 on a play), or None."""


PASS = Action()


def format_action(action: Action) -> str:
    """Canonical text of an action (see the module docstring)."""
    text = "pass" if action.combo is None else format_combo(action.combo)
    return text if action.bet is None else f"{text} bet {action.bet}"


def parse_action(text: str) -> Action:
    """Parse the canonical text of an action; raises ``InvalidActionError``."""
    if not isinstance(text, str):
        raise InvalidActionError(f"an action is text, got {type(text).__name__}")
    body, bet = text, None
    if " bet " in text:
        body, _, bet_text = text.rpartition(" bet ")
        if bet_text not in ("0", "15", "30"):
            raise InvalidActionError(f"bet must be 0, 15 or 30 in {text!r}")
        bet = int(bet_text)
    if body == "pass":
        return Action(None, bet)
    if bet == 0:
        raise InvalidActionError("a play declares no bet by itself: write no bet instead of bet 0")
    combo = parse_combo(body)
    action = Action(combo, bet)
    canonical = format_action(action)
    if canonical != text:
        raise InvalidActionError(f"not canonical: {text!r}; write {canonical!r}")
    return action


# --- states, views ----------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundSummary:
    """The public result of a finished round."""

    scores: tuple[int, int]
    """What each seat scored in the round."""
    out: int
    """The seat that went out."""
    bets: tuple[int, int]
    """Each seat's final bet (0, 15 or 30)."""
    leftover: tuple[int, ...]
    """The cards left in the other seat's hand (revealed at the round's end)."""
    haggis: tuple[int, ...]
    """The Haggis (revealed at the round's end)."""


Deal = tuple[int, int, int]
"""A round's deal: both hand masks (face cards included) and the Haggis mask."""
LastActions = tuple[Action | None, Action | None]
"""Each seat's most recent decision in the current round, None before its first."""
NO_LAST_ACTIONS: LastActions = (None, None)


@dataclass(frozen=True)
class State:
    """A full (omniscient) match state. Treat as opaque; use the game's methods."""

    seed: int
    target: int
    round: int
    """0-based index of the round being played (the last round once the match is over)."""
    hands: tuple[int, int]
    """Hand masks (number and face cards)."""
    haggis: int
    bets: tuple[int | None, int | None]
    """Declared bets; None = not declared yet (counts as 0)."""
    played: tuple[bool, bool]
    """Whether each seat has played a card this round (then it can no longer bet)."""
    to_move: int | None
    leader: int
    """The seat that led the current trick."""
    trick: tuple[tuple[int, Combo], ...]
    """The plays of the current trick, (seat, combo), oldest first."""
    captured: tuple[tuple[int, ...], tuple[int, ...]]
    """The cards each seat captured this round (sorted)."""
    history: tuple[tuple[int, int, Action], ...]
    """(round, seat, action) of every decision of the match."""
    summaries: tuple[RoundSummary, ...]
    totals: tuple[int, int]
    deal: Deal
    """The round's deal: both hand masks and the Haggis mask."""
    last_actions: LastActions
    """Each seat's most recent decision in the current round (public), None before its first."""
    result: GameResult | None = None


@dataclass(frozen=True)
class View:
    """What one seat may know (docs/games/haggis.md, "What a bot sees")."""

    seat: int
    round: int
    """The round being played, from 0 (the last one once the match is over)."""
    target: int
    """The score that ends the match (option ``target``): a Haggis match has no fixed number of
    rounds, so its view has no ``rounds``."""
    to_move: int | None
    leader: int
    """The seat that led the current trick."""
    hand: tuple[int, ...]
    """Own cards (ids, ascending), face cards included."""
    face_cards: tuple[tuple[int, ...], tuple[int, ...]]
    """Both seats' unplayed face cards (public)."""
    hand_sizes: tuple[int, int]
    bets: tuple[int | None, int | None]
    """Declared bets; None = not declared yet."""
    played: tuple[bool, bool]
    """Whether each seat has played a card this round (then it can no longer bet)."""
    trick: tuple[tuple[int, Combo], ...]
    """The current trick's plays (seat, combo), oldest first; empty when a lead is due."""
    captured: tuple[tuple[int, ...], tuple[int, ...]]
    """Cards each seat captured this round."""
    history: tuple[tuple[int, int, Action], ...]
    """(round, seat, action) of every decision of the match (public)."""
    summaries: tuple[RoundSummary, ...]
    """Every finished round (scores, who went out, bets, the revealed leftover hand and Haggis)."""
    totals: tuple[int, int]
    last_actions: LastActions = NO_LAST_ACTIONS
    """Each seat's most recent decision in the current round (a pass or a play, with the bet
    it declared), None before its first; all public."""

    @property
    def finished_rounds(self) -> tuple[tuple[int, int], ...]:
        """Score pairs (seat 0, seat 1) of the finished rounds (their ``summaries``' scores)."""
        return tuple(summary.scores for summary in self.summaries)


# --- the game --------------------------------------------------------------------------------


def _deal(seed: int, round_index: int) -> Deal:
    """The deal of a round of the match with this seed."""
    rng = random.Random(round_seed(seed, round_index, "haggis"))
    deck = list(range(36))
    rng.shuffle(deck)
    return (
        mask_of(deck[:HAND_SIZE]) | WILD_MASK,
        mask_of(deck[HAND_SIZE : 2 * HAND_SIZE]) | WILD_MASK,
        mask_of(deck[2 * HAND_SIZE :]),
    )


def _start_round(
    seed: int,
    target: int,
    index: int,
    leader: int,
    history: tuple[tuple[int, int, Action], ...],
    summaries: tuple[RoundSummary, ...],
    totals: tuple[int, int],
    deal: Deal,
) -> State:
    """Round ``index`` as dealt (``deal``), ``leader`` to lead; the only ``State(...)``."""
    return State(
        seed=seed,
        target=target,
        round=index,
        hands=(deal[0], deal[1]),
        haggis=deal[2],
        bets=(None, None),
        played=(False, False),
        to_move=leader,
        leader=leader,
        trick=(),
        captured=((), ()),
        history=history,
        summaries=summaries,
        totals=totals,
        deal=deal,
        last_actions=NO_LAST_ACTIONS,
    )


def _pair(pair: tuple[Any, Any], seat: int, value: Any) -> tuple[Any, Any]:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def _trick_cards(trick: tuple[tuple[int, Combo], ...]) -> tuple[int, ...]:
    """Every card of the trick (both players' face cards share ids, so no mask union)."""
    out: tuple[int, ...] = ()
    for _, combo in trick:
        out += cards_of(combo.mask)
    return out


def _take_trick(state: State, winner: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The captured piles after the trick goes to ``winner`` (to the other seat on a bomb)."""
    receiver = 1 - winner if state.trick[-1][1].kind == BOMB else winner
    pile = tuple(sorted(state.captured[receiver] + _trick_cards(state.trick)))
    return _pair(state.captured, receiver, pile)


_new = object.__new__
_set_combo = Action.__dict__["combo"].__set__
_set_bet = Action.__dict__["bet"].__set__
_BETTING_PASSES = (PASS, *(Action(None, bet) for bet in BETS))


def _legal_list(hand: int, top: Combo | None, can_bet: bool) -> tuple[Action, ...]:
    """``legal_actions`` of a mover holding ``hand`` (a lead when ``top`` is None). The
    actions are made without the frozen ``__init__``'s checks (same slots, equality and hash:
    the slots' setters called directly), inline: a list can hold 19,026 of them."""
    if top is None:
        combos = lead_combos(hand)
        out: list[Action] = []
    else:
        combos = follow_combos(hand, top)
        out = list(_BETTING_PASSES if can_bet else (PASS,))
    append = out.append
    bets = (None, 15, 30) if can_bet else (None,)
    for combo in combos:
        for bet in bets:
            action = _new(Action)
            _set_combo(action, combo)
            _set_bet(action, bet)
            append(action)
    return tuple(out)


_LEGAL: dict[tuple[int, Combo | None, bool], tuple[Action, ...]] = {}
"""(hand, top of the trick, may bet) -> the legal list, the most recent last (bounded)."""
_LEGAL_CACHE_SIZE = 16
"""Legal lists kept: what a referee or a searching bot asks again soon (the worst list holds
19,026 actions, so the bound caps memory too)."""
_TEXTS: dict[tuple[int, Combo | None, bool], tuple[str, ...]] = {}
"""The same keys -> the legal list's texts (``legal_texts``: the referee sends them with every
decision), bounded the same way."""


def _legal_key(state: State) -> tuple[int, Combo | None, bool] | None:
    """What the legal list depends on (the mover's hand, the top of the trick, whether it may
    still bet); None once the match is over."""
    seat = state.to_move
    if seat is None:
        return None
    top = state.trick[-1][1] if state.trick else None
    return (state.hands[seat], top, state.bets[seat] is None and not state.played[seat])


def clear_caches() -> None:
    """Forget every cached enumeration and legal list (a benchmark measures a cold
    ``legal_actions`` with it; nothing else needs it: the caches are bounded)."""
    _LEGAL.clear()
    _TEXTS.clear()
    _clear_combo_caches()


class HaggisGame:
    """Haggis for two players as a ``Game`` (see arena/games/api.py)."""

    id = "haggis"
    version = 1
    title = "Haggis (two players)"
    option_specs: tuple[OptionSpec, ...] = (
        OptionSpec(
            "target",
            250,
            minimum=1,
            maximum=10_000,
            help="points that end the game (250 short game, 350 long game)",
        ),
    )

    # -- set-up --
    def new_match(self, seed: int, options: Options | None = None) -> State:
        """Deal round 1 (seat 0 leads, seat 1 deals). Raises ``OptionsError``."""
        opts = validate_options(self.option_specs, options)
        seed = int(seed)
        return _start_round(seed, opts["target"], 0, 0, (), (), (0, 0), _deal(seed, 0))

    def options_of(self, state: State) -> dict[str, Any]:
        return {"target": state.target}

    # -- queries --
    def to_move(self, state: State) -> int | None:
        return state.to_move

    def legal_actions(self, state: State) -> tuple[Action, ...]:
        """Every legal action: passes first (bets 0/15/30 after the plain one), then plays in
        the order of (kind, low, high, width, cards), each followed by its bets 15 and 30.

        The list depends only on the mover's hand, the top of the trick and whether the mover
        may still bet; the last few lists are kept (``_LEGAL``), so asking again is free."""
        key = _legal_key(state)
        if key is None:
            return ()
        found = _LEGAL.get(key)
        if found is None:
            found = _legal_list(*key)
            remember(_LEGAL, key, found, _LEGAL_CACHE_SIZE)
        return found

    def legal_texts(self, state: State) -> tuple[str, ...]:
        """The texts of ``legal_actions(state)``, in order, kept beside the list (``_TEXTS``):
        formatting the worst lead's 19,026 actions costs more than enumerating them again."""
        key = _legal_key(state)
        if key is None:
            return ()
        texts = _TEXTS.get(key)
        if texts is None:
            texts = tuple(map(format_action, self.legal_actions(state)))
            remember(_TEXTS, key, texts, _LEGAL_CACHE_SIZE)
        return texts

    def is_legal(self, state: State, action: Action) -> bool:
        return self._illegal_reason(state, action) is None

    def explain_illegal(self, state: State, action: Action) -> str:
        """Why ``action`` is illegal in ``state`` (one short sentence about the mover's own
        cards, its bet, or the public trick); "" for a legal action."""
        return self._illegal_reason(state, action) or ""

    def _illegal_reason(self, state: State, action: Action) -> str | None:
        seat = state.to_move
        if seat is None:
            return "the match is over"
        if not isinstance(action, Action):
            return "not a Haggis action"
        combo, bet = action.combo, action.bet
        if bet is not None:
            if bet not in BETS or type(bet) is not int or (combo is not None and bet == 0):
                return "a bet is 0, 15 or 30 (a play carries 15 or 30)"
            if state.bets[seat] is not None or state.played[seat]:
                return "you can bet only once, before your first card play"
        if combo is None:
            return None if state.trick else "the leader must play a combination"
        if not isinstance(combo, Combo):
            return "not a combination"
        error = combo_error(combo)
        if error is not None:
            return error
        if combo.mask & ~state.hands[seat]:
            return "you do not hold those cards"
        if state.trick and not beats(combo, state.trick[-1][1]):
            return "does not beat the current combination (same kind and shape, higher; or a bomb)"
        return None

    # -- transitions --
    def apply(self, state: State, action: Action) -> State:
        """The state after ``action``; raises ``IllegalActionError``."""
        reason = self._illegal_reason(state, action)
        if reason is not None:
            text = format_action(action) if isinstance(action, Action) else repr(action)
            raise IllegalActionError(f"illegal action {text!r}: {reason}")
        return self._apply(state, action)

    def _apply(self, state: State, action: Action) -> State:
        seat = state.to_move
        assert seat is not None
        bets = state.bets if action.bet is None else _pair(state.bets, seat, action.bet)
        history = state.history + ((state.round, seat, action),)
        lasts = _pair(state.last_actions, seat, action)
        combo = action.combo
        if combo is None:
            winner = state.trick[-1][0]
            return replace(
                state,
                bets=bets,
                history=history,
                last_actions=lasts,
                captured=_take_trick(state, winner),
                trick=(),
                leader=winner,
                to_move=winner,
            )
        if bets[seat] is None:
            bets = _pair(bets, seat, 0)
        hand = state.hands[seat] & ~combo.mask
        state = replace(
            state,
            bets=bets,
            history=history,
            last_actions=lasts,
            hands=_pair(state.hands, seat, hand),
            played=_pair(state.played, seat, True),
            trick=state.trick + ((seat, combo),),
            to_move=1 - seat,
        )
        return self._end_round(state, seat) if hand == 0 else state

    def _end_round(self, state: State, out: int) -> State:
        other = 1 - out
        captured = _take_trick(state, out)
        left = cards_of(state.hands[other])
        haggis = cards_of(state.haggis)
        bets = (state.bets[0] or 0, state.bets[1] or 0)
        won = points_of(captured[out]) + points_of(left) + points_of(haggis)
        score_out = won + 5 * len(left) + bets[0] + bets[1]
        scores = _pair((0, 0), out, score_out)
        scores = _pair(scores, other, points_of(captured[other]))
        totals = (state.totals[0] + scores[0], state.totals[1] + scores[1])
        summary = RoundSummary(scores, out, bets, left, haggis)
        ended = replace(
            state,
            captured=captured,
            trick=(),
            to_move=None,
            summaries=state.summaries + (summary,),
            totals=totals,
        )
        finished = state.round + 1
        if game_over(totals, state.target, finished):
            rounds = tuple(s.scores for s in ended.summaries)
            return replace(ended, result=GameResult(leader_of(totals), totals, rounds))
        leader = next_leader(totals, out)
        deal = _deal(state.seed, finished)
        return _start_round(
            state.seed, state.target, finished, leader, ended.history, ended.summaries, totals, deal
        )

    # -- observations and records --
    def observation(self, state: State, seat: int) -> View:
        hands = state.hands
        return View(
            seat=seat,
            round=state.round,
            target=state.target,
            to_move=state.to_move,
            leader=state.leader,
            hand=cards_of(hands[seat]),
            face_cards=(cards_of(hands[0] & WILD_MASK), cards_of(hands[1] & WILD_MASK)),
            hand_sizes=(hands[0].bit_count(), hands[1].bit_count()),
            bets=state.bets,
            played=state.played,
            trick=state.trick,
            captured=state.captured,
            history=state.history,
            summaries=state.summaries,
            totals=state.totals,
            last_actions=state.last_actions,
        )

    def outcome(self, state: State) -> GameResult | None:
        return state.result

    def parse_action(self, text: str) -> Action:
        return parse_action(text)

    def format_action(self, action: Action) -> str:
        return format_action(action)

    def round_index(self, state: State) -> int:
        return state.round

    def finished_rounds(self, state: State) -> tuple[tuple[int, int], ...]:
        return tuple(s.scores for s in state.summaries)

    def deal_record(self, state: State) -> dict[str, Any]:
        """The round's deal: both 17-card hands and the Haggis (card texts), and the leader."""
        hand0, hand1, haggis = state.deal
        return {
            "round": state.round,
            "hands": [[card_text(c) for c in cards_of(h)] for h in (hand0, hand1)],
            "haggis": [card_text(c) for c in cards_of(haggis)],
        }

    def round_summary(self, state: State, round_index: int) -> dict[str, Any]:
        """What decided a finished round: who went out, both bets (all paid to the seat that
        went out), the other seat's leftover cards (their card points and 5 per card go to the
        seat that went out), the Haggis, and each seat's points from captured tricks. For the
        seat that went out, captured + leftover card points + leftover count points + Haggis
        points + bet points is its round score; the other seat scores its captured points."""
        summary = state.summaries[round_index]
        out, bets = summary.out, summary.bets
        left, haggis = summary.leftover, summary.haggis
        paid = points_of(left) + 5 * len(left) + points_of(haggis) + bets[0] + bets[1]
        captured = _pair(summary.scores, out, summary.scores[out] - paid)
        return {
            "out": out,
            "bets": list(bets),
            "bet_points": bets[0] + bets[1],
            "leftover": [card_text(c) for c in left],
            "leftover_card_points": points_of(left),
            "leftover_count_points": 5 * len(left),
            "haggis": [card_text(c) for c in haggis],
            "haggis_points": points_of(haggis),
            "captured_points": list(captured),
        }

    def determinize(self, view: View, rng: random.Random) -> State:
        """A full state consistent with ``view``: the unseen number cards (the opponent's and the
        Haggis) dealt at random. The seed of later rounds is drawn from ``rng`` too."""
        opp = 1 - view.seat
        own = mask_of(view.hand)
        seen = own
        for pile in view.captured:
            seen |= mask_of(c for c in pile if c < 36)
        for _, combo in view.trick:
            seen |= combo.mask & NUMBER_MASK
        unseen = [c for c in range(36) if not seen >> c & 1]
        rng.shuffle(unseen)
        n_opp = view.hand_sizes[opp] - len(view.face_cards[opp])
        opp_hand = mask_of(unseen[:n_opp]) | mask_of(view.face_cards[opp])
        haggis = mask_of(unseen[n_opp:])
        hands = _pair((own, own), opp, opp_hand)
        dealt = _start_round(
            rng.getrandbits(63),
            view.target,
            view.round,
            view.leader,
            view.history,
            view.summaries,
            view.totals,
            (hands[0], hands[1], haggis),
        )
        return replace(
            dealt,
            bets=view.bets,
            played=view.played,
            to_move=view.to_move,
            trick=view.trick,
            captured=view.captured,
            last_actions=view.last_actions,
            result=_result_of(view) if view.to_move is None else None,
        )


def game_over(totals: tuple[int, int], target: int, rounds_played: int) -> bool:
    """After a round: someone reached ``target`` and one player alone leads, or the round cap."""
    decided = max(totals) >= target and totals[0] != totals[1]
    return decided or rounds_played >= MAX_ROUNDS


def next_leader(totals: tuple[int, int], out: int) -> int:
    """Who leads the next round: the lower running total; on a tie, the seat that did not go
    out first in the previous round (``out`` went out)."""
    if totals[0] != totals[1]:
        return 0 if totals[0] < totals[1] else 1
    return 1 - out


def _result_of(view: View) -> GameResult:
    return GameResult(leader_of(view.totals), view.totals, tuple(s.scores for s in view.summaries))


GAME = HaggisGame()
"""The registered Haggis game."""

determinize = GAME.determinize
"""``GAME.determinize(view, rng)``: a full state consistent with ``view`` (for bots that search)."""
