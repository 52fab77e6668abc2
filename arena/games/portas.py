"""PORTAS: the pure rules engine (standard library only).

The rules as the arena plays them are in ``docs/games/portas.md``. Each player owns a 14-card
port deck (1 1 1 2 2 2 3 3 4 4 5 5 6 6); hands of 4 cards are public. Two of the five treasures
(11..15) lie open as chests; a player puts one hand card on an open chest without exceeding its
value, and the player whose card makes a chest's contents equal its value scores their own cards
on it. A match is ``games`` games (option: 1 or 3); the arena protocol calls them rounds.

Action grammar (canonical, strict):

* ``<card>@<chest>`` — put port card ``<card>`` (1..6) on the open chest of value ``<chest>``
  (11..15), e.g. ``3@14``. Chests are named by their printed value (values are unique).
* ``pass`` — legal only when no hand card fits any open chest (no voluntary pass, arena rule);
  then it is the only legal action. The referee never passes for a bot.

Refill happens at the start of the mover's turn and is applied by ``apply`` as soon as the turn
passes, so in every state the mover's hand is already refilled (the other seat usually holds 3).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from arena.errors import IllegalActionError, InvalidActionError
from arena.games.api import (
    GameResult,
    Options,
    OptionSpec,
    replace,
    result_of_rounds,
    round_seed,
    validate_options,
)

PORT_DECK: tuple[int, ...] = (1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6)
"""Every player's 14 port cards (sum 45)."""
TREASURES: tuple[int, ...] = (11, 12, 13, 14, 15)
"""The five treasure values (sum 65)."""
HAND_SIZE = 4
SALT = "portas"

Cards = tuple[int, ...]
Pair = tuple[Cards, Cards]
HistoryEntry = tuple[int, int, str]
"""(game index, seat, action text)."""
Deal = tuple[Cards, Cards, Cards]
"""A game's deal: the port decks of seat 0 and seat 1 (top first), the treasure order."""


# --- values ------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Play:
    """Put port card ``card`` on the open chest whose printed value is ``chest``."""

    card: int
    chest: int

    def __str__(self) -> str:
        return f"{self.card}@{self.chest}"


@dataclass(frozen=True, slots=True)
class Pass:
    """The forced pass (legal only when no hand card fits any open chest)."""

    def __str__(self) -> str:
        return "pass"


Action = Play | Pass
PASS = Pass()
_PLAYS: dict[tuple[int, int], Play] = {(c, t): Play(c, t) for c in range(1, 7) for t in TREASURES}
_PLAY_TEXT: dict[str, Play] = {str(p): p for p in _PLAYS.values()}
_GRID: list[list[Play | None]] = [[_PLAYS.get((c, t)) for t in range(16)] for c in range(7)]
"""_GRID[card][chest]: the canonical ``Play`` (None off the board): a list lookup, no hashing."""
_GRID_TEXT: list[list[str]] = [[f"{c}@{t}" for t in range(16)] for c in range(7)]
"""_GRID_TEXT[card][chest]: the play's text as the history records it."""
LastActions = tuple[Action | None, Action | None]
"""Each seat's most recent action in the current game, None before its first."""
NO_LAST_ACTIONS: LastActions = (None, None)


@dataclass(frozen=True, slots=True)
class Chest:
    """An open (or emptied) treasure chest and the port cards each seat put on it."""

    value: int
    """The printed treasure value (11..15)."""
    cards: Pair
    """The cards of seat 0 and of seat 1 on the chest, in the order they were played."""
    placed: int = 0
    """The sum of all cards on the chest (always <= value)."""

    @property
    def remaining(self) -> int:
        """How much is still in the chest."""
        return self.value - self.placed


_new = object.__new__
_SET_CHEST = tuple(Chest.__dict__[name].__set__ for name in ("value", "cards", "placed"))


def _chest(value: int, cards: Pair, placed: int) -> Chest:
    """``Chest(value, cards, placed)`` without the frozen ``__init__``'s checks (same slots,
    equality and hash)."""
    chest = _new(Chest)
    set_value, set_cards, set_placed = _SET_CHEST
    set_value(chest, value)
    set_cards(chest, cards)
    set_placed(chest, placed)
    return chest


@dataclass(frozen=True, slots=True)
class Taken:
    """A chest emptied during the current game."""

    chest: Chest
    taker: int
    """The seat that played the last card and scored its own cards on it."""


@dataclass(frozen=True)
class State:
    """The full (omniscient) state of a PORTAS match."""

    seed: int
    games: int
    round: int
    """0-based index of the game being played (the last one once the match is over)."""
    finished: tuple[tuple[int, int], ...]
    mover: int | None
    """The seat to move; None once the match is over."""
    hands: Pair
    """Both hands, sorted ascending (public)."""
    decks: Pair
    """Both port decks, next draw first (hidden order)."""
    chests: tuple[Chest, ...]
    """The open chests, sorted by value."""
    hidden: Cards
    """The hidden treasures, next reveal first (hidden order)."""
    taken: tuple[Taken, ...]
    scores: tuple[int, int]
    """Scores of the current game."""
    passes: int
    """Passes in a row (2 ends the game)."""
    history: tuple[HistoryEntry, ...]
    deal: Deal
    """This game's full deal: deck of seat 0, deck of seat 1 (top first), treasure order."""
    last_actions: LastActions
    """Each seat's most recent action in the current game (public), None before its first."""


@dataclass(frozen=True, slots=True)
class View:
    """What one seat may know: everything except the order of the decks and hidden treasures."""

    seat: int
    games: int
    round: int
    """0-based index of the current game of the match."""
    to_move: int | None
    hands: Pair
    """Both hands (public), sorted ascending, seat order."""
    deck_sizes: tuple[int, int]
    chests: tuple[Chest, ...]
    """The open chests, sorted by value, with each seat's cards on them."""
    hidden_values: Cards
    """The values not yet revealed, sorted (public knowledge; their order is not)."""
    taken: tuple[Taken, ...]
    """The chests emptied this game, in order."""
    scores: tuple[int, int]
    finished: tuple[tuple[int, int], ...]
    """Score pairs of the finished games."""
    passes: int
    history: tuple[HistoryEntry, ...]
    """Every action of the match: (game index, seat, action text)."""
    last_actions: LastActions = NO_LAST_ACTIONS
    """Each seat's most recent action in the current game (a play or the forced pass), None
    before its first; all public."""

    @property
    def hidden_count(self) -> int:
        """How many treasures are still hidden."""
        return len(self.hidden_values)


# --- helpers -----------------------------------------------------------------------------
def _fits(hand: Cards, chests: tuple[Chest, ...]) -> bool:
    if not hand:
        return False
    low = hand[0]
    return any(low <= ch.value - ch.placed for ch in chests)


def _refill(hand: Cards, deck: Cards) -> tuple[Cards, Cards]:
    need = HAND_SIZE - len(hand)
    if need <= 0 or not deck:
        return hand, deck
    return tuple(sorted(hand + deck[:need])), deck[need:]


def _remove(hand: Cards, card: int) -> Cards:
    i = hand.index(card)
    return hand[:i] + hand[i + 1 :]


def _set(pair: Pair, seat: int, value: Cards) -> Pair:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def unseen_deck(view: View, seat: int) -> Cards:
    """The multiset of cards still in ``seat``'s deck (sorted): derivable from public data."""
    counts = Counter(PORT_DECK)
    counts.subtract(view.hands[seat])
    for chest in view.chests:
        counts.subtract(chest.cards[seat])
    for taken in view.taken:
        counts.subtract(taken.chest.cards[seat])
    return tuple(sorted(counts.elements()))


def starter(games_scores: tuple[tuple[int, int], ...]) -> int:
    """The seat that starts the next game given the finished games (docs/games/portas.md,
    "The match")."""
    index = len(games_scores)
    if index == 0:
        return 0
    if index == 1:
        return 1
    t0 = sum(s[0] for s in games_scores)
    t1 = sum(s[1] for s in games_scores)
    return 1 if t1 < t0 else 0


# --- the game ----------------------------------------------------------------------------
class PortasGame:
    """The PORTAS rules engine (implements ``arena.games.api.Game``)."""

    id = "portas"
    version = 1
    title = "PORTAS"
    option_specs: tuple[OptionSpec, ...] = (
        OptionSpec(
            "games",
            3,
            choices=(1, 3),
            help="games per match: 3 (arena match) or 1 (the printed single game)",
        ),
    )

    # match set-up
    def new_match(self, seed: int, options: Options | None = None) -> State:
        """Deal the first game. Raises ``OptionsError`` on bad options."""
        opts = validate_options(self.option_specs, options)
        return _start_round(seed, opts["games"], 0, (), (), _deal(seed, 0))

    def options_of(self, state: State) -> dict[str, Any]:
        """The validated options of the match."""
        return {"games": state.games}

    # queries
    def to_move(self, state: State) -> int | None:
        """The seat to move, None once the match is over."""
        return state.mover

    def legal_actions(self, state: State) -> tuple[Action, ...]:
        """Plays sorted by (card, chest); ``pass`` alone when nothing fits; () when over."""
        mover = state.mover
        if mover is None:
            return ()
        plays = []
        last = 0
        chests = state.chests
        for card in state.hands[mover]:  # sorted
            if card != last:
                last = card
                row = _GRID[card]
                for ch in chests:
                    if card <= ch.value - ch.placed:
                        plays.append(row[ch.value])
        return tuple(plays) if plays else (PASS,)  # type: ignore[arg-type]

    def is_legal(self, state: State, action: Action) -> bool:
        """Whether ``action`` is legal now (no enumeration)."""
        if state.mover is None:
            return False
        hand = state.hands[state.mover]
        if isinstance(action, Play):
            if action.card not in hand:
                return False
            for ch in state.chests:
                if ch.value == action.chest:
                    return ch.placed + action.card <= ch.value
            return False
        if isinstance(action, Pass):
            return not _fits(hand, state.chests)
        return False

    def explain_illegal(self, state: State, action: Action) -> str:
        """Why ``action`` is illegal in ``state`` (one short sentence about the public table:
        hands, open chests); "" for a legal action."""
        if state.mover is None:
            return "the match is over"
        if self.is_legal(state, action):
            return ""
        hand = state.hands[state.mover]
        if isinstance(action, Pass):
            fits = next(a for a in self.legal_actions(state) if isinstance(a, Play))
            return f"pass only when no hand card fits an open chest, and {fits} fits"
        if not isinstance(action, Play):
            return f"not a PORTAS action: {action!r}"
        if action.card not in hand:
            return f"no {action.card} in your hand"
        chest = next((ch for ch in state.chests if ch.value == action.chest), None)
        if chest is None:
            opened = ", ".join(str(ch.value) for ch in state.chests) or "none"
            return f"chest {action.chest} is not open: the open chests are {opened}"
        return f"{action.card} does not fit chest {chest.value}: {chest.remaining} left in it"

    def apply(self, state: State, action: Action) -> State:
        """The state after ``action``; raises ``IllegalActionError`` if it is not legal."""
        seat = state.mover
        if type(action) is Play and seat is not None and action.card in state.hands[seat]:
            for index, chest in enumerate(state.chests):  # the checks of is_legal, inline
                if chest.value == action.chest:
                    if chest.placed + action.card <= chest.value:
                        return self._play(state, action, index)
                    break
        if not self.is_legal(state, action):
            raise IllegalActionError(
                f"{_text(action)} is not legal now: {self.explain_illegal(state, action)}; "
                "legal: "
                f"{' '.join(self.format_action(a) for a in self.legal_actions(state)) or 'none'}"
            )
        if isinstance(action, Play):
            index = next(i for i, ch in enumerate(state.chests) if ch.value == action.chest)
            return self._play(state, action, index)
        return self._pass(state)

    def _play(self, state: State, action: Play, index: int) -> State:
        """``action`` (legal) on the open chest ``state.chests[index]``: a copy of the state's
        fields with the changed ones set (what ``replace`` does, written out: this is most of
        a playout's time)."""
        seat = state.mover
        assert seat is not None
        card, value = action.card, action.chest
        old = state.__dict__
        hands = old["hands"]
        hand = hands[seat]
        at = hand.index(card)
        hand = hand[:at] + hand[at + 1 :]
        history = old["history"] + ((old["round"], seat, _GRID_TEXT[card][value]),)
        lasts = old["last_actions"]
        lasts = (action, lasts[1]) if seat == 0 else (lasts[0], action)
        chests = old["chests"]
        chest = chests[index]
        cards = chest.cards
        cards = (cards[0] + (card,), cards[1]) if seat == 0 else (cards[0], cards[1] + (card,))
        placed = chest.placed + card
        nxt = 1 - seat
        if placed < value:
            chests = (*chests[:index], _chest(value, cards, placed), *chests[index + 1 :])
            new = _new(State)
            fields = new.__dict__
            fields.update(old)
        else:
            scores, hidden, taken = state.scores, state.hidden, state.taken
            gain = sum(cards[seat])
            scores = (scores[0] + gain, scores[1]) if seat == 0 else (scores[0], scores[1] + gain)
            taken = taken + (Taken(_chest(value, cards, placed), seat),)
            chests = chests[:index] + chests[index + 1 :]
            if hidden:
                chests = tuple(sorted((*chests, _chest(hidden[0], ((), ()), 0)),
                                      key=_chest_value))
                hidden = hidden[1:]
            if len(taken) == len(TREASURES):
                return self._end_round(state, _set(hands, seat, hand), chests, hidden, taken,
                                       scores, history, lasts)
            new = replace(state, hidden=hidden, taken=taken, scores=scores)
            fields = new.__dict__
        other = hands[nxt]
        deck = old["decks"][nxt]
        if len(other) < HAND_SIZE and deck:
            other, deck = _refill(other, deck)
            decks = old["decks"]
            fields["decks"] = (deck, decks[1]) if nxt == 0 else (decks[0], deck)
        fields["hands"] = (hand, other) if seat == 0 else (other, hand)
        fields["mover"] = nxt
        fields["chests"] = chests
        fields["passes"] = 0
        fields["history"] = history
        fields["last_actions"] = lasts
        return new

    def _pass(self, state: State) -> State:
        seat = state.mover
        assert seat is not None
        history = state.history + ((state.round, seat, "pass"),)
        lasts = _last(state.last_actions, seat, PASS)
        if state.passes + 1 >= 2:
            return self._end_round(
                state, state.hands, state.chests, state.hidden, state.taken, state.scores, history,
                lasts,
            )
        nxt = 1 - seat
        hand, deck = _refill(state.hands[nxt], state.decks[nxt])
        return replace(
            state,
            mover=nxt,
            hands=_set(state.hands, nxt, hand),
            decks=_set(state.decks, nxt, deck),
            passes=state.passes + 1,
            history=history,
            last_actions=lasts,
        )

    def _end_round(
        self,
        state: State,
        hands: Pair,
        chests: tuple[Chest, ...],
        hidden: Cards,
        taken: tuple[Taken, ...],
        scores: tuple[int, int],
        history: tuple[HistoryEntry, ...],
        last_actions: LastActions,
    ) -> State:
        finished = state.finished + (scores,)
        if len(finished) < state.games:
            index = state.round + 1
            deal = _deal(state.seed, index)
            return _start_round(state.seed, state.games, index, finished, history, deal)
        return replace(
            state,
            mover=None,
            hands=hands,
            chests=chests,
            hidden=hidden,
            taken=taken,
            scores=scores,
            finished=finished,
            history=history,
            last_actions=last_actions,
        )

    def observation(self, state: State, seat: int) -> View:
        """Everything ``seat`` may know (all public: only deck and treasure order are hidden)."""
        return View(
            seat=seat,
            games=state.games,
            round=state.round,
            to_move=state.mover,
            hands=state.hands,
            deck_sizes=(len(state.decks[0]), len(state.decks[1])),
            chests=state.chests,
            hidden_values=tuple(sorted(state.hidden)),
            taken=state.taken,
            scores=state.scores,
            finished=state.finished,
            passes=state.passes,
            history=state.history,
            last_actions=state.last_actions,
        )

    def outcome(self, state: State) -> GameResult | None:
        """The result once the match is over (higher total wins; equal totals draw)."""
        if state.mover is not None:
            return None
        return result_of_rounds(state.finished)

    # grammar
    def parse_action(self, text: str) -> Action:
        """Parse ``<card>@<chest>`` or ``pass``; raises ``InvalidActionError`` otherwise."""
        if text == "pass":
            return PASS
        play = _PLAY_TEXT.get(text)
        if play is None:
            raise InvalidActionError(
                f"bad PORTAS action {text!r}: expected '<card>@<chest>' with card 1..6 and "
                "chest 11..15 (e.g. '3@14'), or 'pass'"
            )
        return play

    def format_action(self, action: Action) -> str:
        """The canonical text of an action."""
        return _text(action)

    def round_index(self, state: State) -> int:
        """0-based index of the game being played."""
        return state.round

    def finished_rounds(self, state: State) -> tuple[tuple[int, int], ...]:
        """The score pairs of the finished games."""
        return state.finished

    def deal_record(self, state: State) -> dict[str, Any]:
        """The current game's deal: both decks (top first) and the treasure order."""
        deck0, deck1, treasures = state.deal
        return {
            "game": state.round,
            "decks": [[str(c) for c in deck0], [str(c) for c in deck1]],
            "treasures": [str(t) for t in treasures],
        }

    def round_summary(self, state: State, round_index: int) -> dict[str, Any]:
        """Why a finished game ended and where its points came from: ``end`` is
        ``all_chests_taken`` (the fifth chest was emptied) or ``two_passes`` (two passes in a
        row); ``taken`` lists the emptied chests in order (value, taker, each seat's cards on
        it: the taker scores its own cards); ``open`` lists the chests still open at the end
        (the cards on them score nothing). Chest values and cards are texts, as in the deal.
        The game is played again from its deal (the seed's) up to its last action."""
        actions = [(seat, text) for game, seat, text in state.history if game == round_index]
        before = _start_round(
            state.seed, state.games, round_index, state.finished[:round_index],
            tuple(h for h in state.history if h[0] < round_index), _deal(state.seed, round_index),
        )
        for _, text in actions[:-1]:
            before = self.apply(before, self.parse_action(text))
        last_seat, last = actions[-1]
        taken = [(t.chest, t.taker) for t in before.taken]
        chests = list(before.chests)
        if last != "pass":
            play = _PLAY_TEXT[last]
            chest = next(c for c in chests if c.value == play.chest)
            chests.remove(chest)
            cards = _set(chest.cards, last_seat, chest.cards[last_seat] + (play.card,))
            taken.append((Chest(chest.value, cards, chest.value), last_seat))
        return {
            "end": "two_passes" if last == "pass" else "all_chests_taken",
            "taken": [{"chest": str(c.value), "taker": taker, "cards": _texts(c.cards)}
                      for c, taker in taken],
            "open": [{"chest": str(c.value), "cards": _texts(c.cards)} for c in chests],
        }

    def determinize(self, view: View, rng: random.Random) -> State:
        """A full state consistent with ``view``: unseen deck cards and hidden treasures shuffled.

        The match seed is unknown to a seat, so later games are dealt from a seed drawn from
        ``rng``."""
        decks: list[Cards] = []
        for seat in (0, 1):
            rest = list(unseen_deck(view, seat))
            rng.shuffle(rest)
            decks.append(tuple(rest))
        hidden = list(view.hidden_values)
        rng.shuffle(hidden)
        deal = (
            view.hands[0] + decks[0],
            view.hands[1] + decks[1],
            tuple(t.chest.value for t in view.taken)
            + tuple(c.value for c in view.chests)
            + tuple(hidden),
        )
        dealt = _start_round(
            rng.getrandbits(63), view.games, view.round, view.finished, view.history, deal
        )
        return replace(
            dealt,
            mover=view.to_move,
            hands=view.hands,
            decks=(decks[0], decks[1]),
            chests=view.chests,
            hidden=tuple(hidden),
            taken=view.taken,
            scores=view.scores,
            passes=view.passes,
            last_actions=view.last_actions,
        )


def _chest_value(chest: Chest) -> int:
    return chest.value


def _last(lasts: LastActions, seat: int, action: Action) -> LastActions:
    """``lasts`` with ``seat``'s most recent action set to ``action``."""
    return (action, lasts[1]) if seat == 0 else (lasts[0], action)


def _texts(cards: Pair) -> list[list[str]]:
    """Both seats' cards on a chest as card texts (a log writes every card as text)."""
    return [[str(c) for c in cards[0]], [str(c) for c in cards[1]]]


def _text(action: object) -> str:
    if isinstance(action, Play) and (action.card, action.chest) in _PLAYS:
        return str(action)
    if isinstance(action, Pass):
        return "pass"
    raise InvalidActionError(f"not a PORTAS action: {action!r}")


def _deal(seed: int, index: int) -> Deal:
    """The deal of game ``index`` of the match with this seed."""
    rng = random.Random(round_seed(seed, index, SALT))
    deck0 = list(PORT_DECK)
    rng.shuffle(deck0)
    deck1 = list(PORT_DECK)
    rng.shuffle(deck1)
    treasures = list(TREASURES)
    rng.shuffle(treasures)
    return tuple(deck0), tuple(deck1), tuple(treasures)


def _start_round(
    seed: int,
    games: int,
    index: int,
    finished: tuple[tuple[int, int], ...],
    history: tuple[HistoryEntry, ...],
    deal: Deal,
) -> State:
    """Game ``index`` as dealt (``deal``), the starter to move; the only ``State(...)``."""
    deck0, deck1, treasures = deal
    chests = tuple(sorted((Chest(t, ((), ())) for t in treasures[:2]), key=lambda c: c.value))
    return State(
        seed=seed,
        games=games,
        round=index,
        finished=finished,
        mover=starter(finished),
        hands=(tuple(sorted(deck0[:HAND_SIZE])), tuple(sorted(deck1[:HAND_SIZE]))),
        decks=(deck0[HAND_SIZE:], deck1[HAND_SIZE:]),
        chests=chests,
        hidden=treasures[2:],
        taken=(),
        scores=(0, 0),
        passes=0,
        history=history,
        deal=deal,
        last_actions=NO_LAST_ACTIONS,
    )


GAME = PortasGame()
"""The registered PORTAS engine."""

determinize = GAME.determinize
"""``GAME.determinize(view, rng)``: a full state consistent with ``view`` (for bots that search)."""
