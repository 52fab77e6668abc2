"""Goofspiel: the pure rules engine (standard library and ``arena.games.api`` only).

The rules as the arena plays them are in this package's README. Each seat holds the bid cards
1..13; a shuffled prize deck of 13 cards (values 1..13) is turned up one card at a time. For
each prize both seats bid one card secretly (seat 0 decides first, seat 1 second without seeing
seat 0's card); the higher bid wins the prize's value, equal bids win nothing (the prize is
discarded); both bid cards are then shown and discarded. A round is the 13 prizes; a match is
``rounds`` rounds (option, default 3) decided by the total.

Hidden information: the order of the prizes not yet turned up, and seat 0's bid while seat 1
decides. The history records a turn only once both bids are in (``Turn``), so a bid never
reaches the opponent before the opponent's own bid.

Action grammar (canonical, strict): ``bid <n>`` with ``n`` in 1..13 written without leading
zeros, e.g. ``bid 7``; the legal actions are the seat's remaining cards, ascending.
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
    renamed,
    replace,
    result_of_rounds,
    round_seed,
    validate_options,
)

CARDS: tuple[int, ...] = tuple(range(1, 14))
"""The 13 card values: every seat's bid cards, and the prizes."""
SALT = "goofspiel"
"""Mixed into ``round_seed`` (so a Goofspiel deal differs from another game's of one seed)."""

Cards = tuple[int, ...]
Pair = tuple[Cards, Cards]


@dataclass(frozen=True, slots=True)
class Turn:
    """One resolved prize: the public record of a turn (both bids shown)."""

    round: int
    """0-based index of the round it was played in."""
    prize: int
    """The prize's value (1..13)."""
    bids: tuple[int, int]
    """The bid of seat 0 and of seat 1."""

    @property
    def winner(self) -> int | None:
        """The seat that won the prize; None when the bids were equal (prize discarded)."""
        first, second = self.bids
        return None if first == second else (0 if first > second else 1)


@dataclass(frozen=True, slots=True)
class Bid:
    """Bid the card of value ``card`` for the prize turned up."""

    card: int

    def __str__(self) -> str:
        return f"bid {self.card}"


Action = Bid
BIDS: dict[int, Bid] = {card: Bid(card) for card in CARDS}
"""The bid of every card value (the only ``Bid`` values the engine makes)."""
_BID_TEXT: dict[str, Bid] = {str(bid): bid for bid in BIDS.values()}


@dataclass(frozen=True)
class State:
    """The full (omniscient) state of a Goofspiel match."""

    seed: int
    """The match seed (each round's prize order is drawn from it)."""
    rounds: int
    """Rounds in the match (option)."""
    round: int
    """0-based index of the round being played (the last one once the match is over)."""
    finished: tuple[tuple[int, int], ...]
    """Score pairs of the finished rounds."""
    mover: int | None
    """The seat to bid; None once the match is over."""
    hands: Pair
    """Each seat's cards not yet shown, ascending (a pending bid is still in its hand)."""
    prizes: Cards
    """The prizes not yet resolved, in order: ``prizes[0]`` is the one turned up (hidden order
    after it)."""
    pending: int | None
    """Seat 0's bid while seat 1 decides (hidden from seat 1); None otherwise."""
    scores: tuple[int, int]
    """Prize points of the current round."""
    history: tuple[Turn, ...]
    """Every resolved turn of the match, in order."""
    deal: Cards
    """This round's prize order as dealt."""


@dataclass(frozen=True, slots=True)
class View:
    """What one seat may know: everything but the order of the prizes to come and the
    opponent's pending bid."""

    seat: int
    """The seat this view belongs to."""
    rounds: int
    """Rounds in the match."""
    round: int
    """The round being played, from 0 (the last one once the match is over)."""
    to_move: int | None
    """The seat to bid; None once the match is over."""
    prize: int | None
    """The prize turned up (None once the match is over)."""
    unseen_prizes: Cards
    """The values of the prizes still face down, ascending (their order is hidden)."""
    hands: Pair
    """Each seat's cards not yet shown, ascending (public: 1..13 minus the shown bids)."""
    bid: int | None
    """This seat's own bid for the current prize while the opponent decides, else None."""
    opponent_bid: bool
    """Whether the opponent has bid for the current prize (its card stays hidden)."""
    scores: tuple[int, int]
    """Prize points of the current round."""
    finished_rounds: tuple[tuple[int, int], ...]
    """Score pairs (seat 0, seat 1) of the finished rounds."""
    history: tuple[Turn, ...]
    """Every resolved turn of the match, in order."""

    @property
    def finished(self) -> tuple[tuple[int, int], ...]:
        """Deprecated, read :attr:`finished_rounds` (the old name, kept one release)."""
        result: tuple[tuple[int, int], ...] = renamed(self, "finished", "finished_rounds")
        return result


def _without(cards: Cards, card: int) -> Cards:
    i = cards.index(card)
    return cards[:i] + cards[i + 1 :]


class GoofspielGame:
    """The Goofspiel rules engine (implements ``arena.games.api.Game``)."""

    id = "goofspiel"
    version = 1
    title = "Goofspiel"
    option_specs: tuple[OptionSpec, ...] = (
        OptionSpec("rounds", 3, minimum=1, maximum=9,
                   help="rounds per match (13 prizes each); the total decides"),
    )

    # match set-up
    def new_match(self, seed: int, options: Options | None = None) -> State:
        """Deal the first round. Raises ``OptionsError`` on bad options."""
        opts = validate_options(self.option_specs, options)
        return _start_round(seed, opts["rounds"], 0, (), (), _deal(seed, 0))

    def options_of(self, state: State) -> dict[str, Any]:
        """The validated options of the match."""
        return {"rounds": state.rounds}

    # queries
    def to_move(self, state: State) -> int | None:
        """The seat to bid, None once the match is over."""
        return state.mover

    def legal_actions(self, state: State) -> tuple[Action, ...]:
        """A bid of every card the mover still holds, ascending; () once the match is over."""
        if state.mover is None:
            return ()
        return tuple(BIDS[card] for card in state.hands[state.mover])

    def is_legal(self, state: State, action: Action) -> bool:
        """Whether ``action`` is legal now (no enumeration)."""
        return (state.mover is not None and isinstance(action, Bid)
                and action.card in state.hands[state.mover])

    def explain_illegal(self, state: State, action: Action) -> str:
        """Why ``action`` is not legal in ``state``: one short sentence, nothing hidden ("" for
        a legal action)."""
        if state.mover is None:
            return "the match is over"
        if not isinstance(action, Bid) or action.card not in BIDS:
            return "not a Goofspiel bid (expected 'bid <n>' with n in 1..13)"
        if action.card not in state.hands[state.mover]:
            return f"card {action.card} was already bid this round"
        return ""

    def action_text_for(self, state: State, action: Action, seat: int) -> str:
        """``action`` (played in ``state``) as ``seat`` sees it then: seat 0's bid is hidden
        from seat 1 (``bid ?``) until seat 1 has bid too; everything else is public."""
        if state.mover == 0 and seat == 1:
            return "bid ?"
        return _text(action)

    def action_space(self, options: Options | None = None) -> tuple[Action, ...]:
        """Every action the game can make, in a fixed order: the 13 bids, ascending (the lab's
        fixed action encoding, the arena's docs/lab.md)."""
        return tuple(BIDS.values())

    # transitions
    def apply(self, state: State, action: Action) -> State:
        """The state after ``action``; raises ``IllegalActionError`` if it is not legal."""
        if not self.is_legal(state, action):
            raise IllegalActionError(f"{_text(action)}: {self.explain_illegal(state, action)}")
        if state.mover == 0:
            return replace(state, mover=1, pending=action.card)
        assert state.pending is not None
        return self._resolve(state, (state.pending, action.card))

    def _resolve(self, state: State, bids: tuple[int, int]) -> State:
        """Both bids are in: award (or discard) the prize, show and discard the bids."""
        turn = Turn(state.round, state.prizes[0], bids)
        winner = turn.winner
        scores = state.scores
        if winner is not None:
            scores = ((scores[0] + turn.prize, scores[1]) if winner == 0
                      else (scores[0], scores[1] + turn.prize))
        hands = (_without(state.hands[0], bids[0]), _without(state.hands[1], bids[1]))
        history = state.history + (turn,)
        prizes = state.prizes[1:]
        if prizes:
            return replace(state, mover=0, hands=hands, prizes=prizes, pending=None,
                           scores=scores, history=history)
        finished = state.finished + (scores,)
        if len(finished) < state.rounds:
            index = state.round + 1
            return _start_round(state.seed, state.rounds, index, finished, history,
                                _deal(state.seed, index))
        return replace(state, mover=None, hands=hands, prizes=prizes, pending=None,
                       scores=scores, finished=finished, history=history)

    def observation(self, state: State, seat: int) -> View:
        """Everything ``seat`` may know: never the prize order, never the opponent's pending
        bid (only that there is one)."""
        own = state.pending if seat == 0 else None
        return View(
            seat=seat,
            rounds=state.rounds,
            round=state.round,
            to_move=state.mover,
            prize=state.prizes[0] if state.mover is not None else None,
            unseen_prizes=tuple(sorted(state.prizes[1:])),
            hands=state.hands,
            bid=own,
            opponent_bid=seat == 1 and state.pending is not None,
            scores=state.scores,
            finished_rounds=state.finished,
            history=state.history,
        )

    def outcome(self, state: State) -> GameResult | None:
        """The result once the match is over (higher total wins; equal totals draw)."""
        if state.mover is not None:
            return None
        return result_of_rounds(state.finished)

    # grammar
    def parse_action(self, text: str) -> Action:
        """Parse ``bid <n>`` (n in 1..13); raises ``InvalidActionError`` otherwise."""
        bid = _BID_TEXT.get(text)
        if bid is None:
            raise InvalidActionError(
                f"bad Goofspiel action {text!r}: expected 'bid <n>' with n in 1..13 (e.g. "
                "'bid 7')")
        return bid

    def format_action(self, action: Action) -> str:
        """The canonical text of an action."""
        return _text(action)

    # the referee's hooks
    def round_index(self, state: State) -> int:
        """0-based index of the round being played."""
        return state.round

    def finished_rounds(self, state: State) -> tuple[tuple[int, int], ...]:
        """The score pairs of the finished rounds."""
        return state.finished

    def deal_record(self, state: State) -> dict[str, Any]:
        """The current round's prize order (as turned up), card values as texts."""
        return {"round": state.round, "prizes": [str(p) for p in state.deal]}

    def round_summary(self, state: State, round_index: int) -> dict[str, Any]:
        """What decided finished round ``round_index``: the prizes each seat won (in the
        order they were turned up) and the prizes discarded on equal bids (texts)."""
        won: tuple[list[str], list[str]] = ([], [])
        discarded: list[str] = []
        for turn in state.history:
            if turn.round == round_index:
                winner = turn.winner
                (discarded if winner is None else won[winner]).append(str(turn.prize))
        return {"won": [won[0], won[1]], "discarded": discarded}

    def determinize(self, view: View, rng: random.Random) -> State:
        """A full state consistent with ``view``: the face-down prizes shuffled and, when
        seat 1 decides after seat 0 bid, seat 0's bid drawn from seat 0's cards.

        The match seed is unknown to a seat, so later rounds are dealt from a seed drawn from
        ``rng``."""
        if view.to_move is None or view.prize is None:
            raise ValueError("determinize needs the view of a running match")
        rest = list(view.unseen_prizes)
        rng.shuffle(rest)
        played = tuple(t.prize for t in view.history if t.round == view.round)
        prizes = (view.prize, *rest)
        dealt = _start_round(rng.getrandbits(63), view.rounds, view.round, view.finished_rounds,
                             view.history, played + prizes)
        pending = view.bid
        if view.opponent_bid:
            pending = rng.choice(view.hands[0])
        return replace(dealt, mover=view.to_move, hands=view.hands, prizes=prizes,
                       pending=pending, scores=view.scores)


def _text(action: object) -> str:
    if isinstance(action, Bid) and action.card in BIDS:
        return str(action)
    raise InvalidActionError(f"not a Goofspiel action: {action!r}")


def _deal(seed: int, index: int) -> Cards:
    """The prize order of round ``index`` of the match with this seed."""
    prizes = list(CARDS)
    random.Random(round_seed(seed, index, SALT)).shuffle(prizes)
    return tuple(prizes)


def _start_round(seed: int, rounds: int, index: int, finished: tuple[tuple[int, int], ...],
                 history: tuple[Turn, ...], deal: Cards) -> State:
    """Round ``index`` as dealt (``deal``: the prize order), seat 0 to bid; the only
    ``State(...)``."""
    return State(
        seed=seed,
        rounds=rounds,
        round=index,
        finished=finished,
        mover=0,
        hands=(CARDS, CARDS),
        prizes=deal,
        pending=None,
        scores=(0, 0),
        history=history,
        deal=deal,
    )


GAME = GoofspielGame()
"""The Goofspiel engine (the plugin's ``engine``)."""

determinize = GAME.determinize
"""``GAME.determinize(view, rng)``: a full state consistent with ``view`` (for bots that
search)."""
