"""The game protocol: everything the referee, the wire layer and the tools know about a game.

A game is a pure object (standard library only: no I/O, no clocks, no global random) whose states
are immutable. One *match* of the arena is one state machine from ``new_match`` to ``outcome``;
the match consists of one or more *rounds* (Lost Cities: rounds; Haggis: rounds of a game to 250;
PORTAS: the games of a match). All chance happens when a round is dealt and is derived from the
match seed, so the seed plus the action texts replay a match exactly.

Contract (checked by ``tests/games/test_conformance.py`` for every registered game):

* ``to_move(s)`` is the seat (0 or 1) that must decide, ``None`` once the match is over.
* ``legal_actions(s)`` is non-empty while the match is running, sorted in a stable order,
  duplicate-free; ``is_legal(s, a)`` agrees with membership without listing everything.
* ``apply(s, a)`` returns a new state and raises ``IllegalActionError`` for an illegal action.
* ``parse_action(format_action(a)) == a`` for every legal action (the canonical grammar);
  ``parse_action`` raises ``InvalidActionError`` on text outside the grammar.
* ``observation(s, seat)`` is exactly what ``seat`` may know; changing anything hidden from the
  seat leaves it (and its wire encoding) unchanged. The views name what the games have alike
  alike (docs/bots.md, "What the views call things"): ``seat``, ``to_move``, ``round`` (from 0),
  ``rounds``, ``finished_rounds`` (the score pairs), ``history``, ``last_actions``.
* ``finished_rounds(s)`` grows by one entry (the round's score pair) when a round ends;
  ``deal_record(s)`` is the JSON-able full deal of the current round (omniscient, for logs);
  ``round_summary(s, r)`` is the JSON-able account of what decided finished round ``r`` beyond
  its scores (who went out, bets, why a game ended: ``docs/log-format.md``).
* ``outcome(s)`` is ``None`` until the match is over.
* ``explain_illegal(s, a)`` (optional; the referee finds it with ``getattr``): one short line
  saying why ``a`` is illegal in ``s``, naming nothing the mover may not know ("" for a legal
  action); the referee quotes it in the ``illegal_action`` result's detail.
* ``action_text_for(s, a, seat)`` (optional): the text of ``a`` (played in ``s``) as ``seat``
  sees it at that moment; seat views (``arena watch --seat``) show it for the other seat's
  moves. Without it every move is public (the built-in games); a game with simultaneous
  moves hides the first one (Goofspiel: ``bid ?``).
* ``legal_texts(s)`` (optional): ``format_action`` of each of ``legal_actions(s)``, in that
  order; an engine that keeps its legal lists in tables can keep their texts there too (the
  referee sends the texts with every decision: ``legal_texts_of``).
* ``playout(s, rng)`` (optional; searches find it with ``getattr``): the score pair of the
  running round of ``s`` once the game's own cheap default policy has played it to its end for
  both seats: what a search plays from the worlds it draws instead of uniformly random moves
  (``arena.sdk.ismcts``). It may read all of ``s`` (a search's world is drawn by
  ``determinize``) and should cost about as much as a few dozen ``apply``; Lost Cities has one.
* ``determinize(observation(s, seat), rng)`` (``s`` running) is a full state consistent with
  what ``seat`` observed: everything the seat cannot see (the opponent's hidden cards, the deck
  order, hidden treasures) redrawn from ``rng`` (OpenSpiel's ``resample_from_infostate``). The
  seat's observation of it is the one it was given, and play goes on from it with
  ``legal_actions`` and ``apply`` (the seat to move has the same legal actions there as in ``s``:
  they are sent to it, so they depend only on what it sees).

How every engine builds its states (one pattern for all games):

* ``_deal(seed, round_index)`` draws a round's chance outcome (the *deal*) from
  ``round_seed``; it is the only use of randomness in the rules.
* ``_start_round(..., deal)`` is the only place that constructs the engine's ``State``: a round
  as dealt. ``new_match`` is ``_start_round`` of round 0; ``apply`` calls it (with the next
  ``_deal``) when a round ends and the match goes on; ``determinize`` calls it with a deal drawn
  from what the seat cannot see and then sets the round's progress (the view's public fields).
* Every other change of a state is ``replace(state, **changes)`` (below), or, in an engine
  that keeps what changes every turn in private fields (Lost Cities, PORTAS: a search's hot
  path), a state ``apply`` builds from those fields; ``State(...)`` and ``dataclasses.replace``
  derive them afresh, so both ways give equal states.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

S = TypeVar("S")
A = TypeVar("A", bound=Hashable)
V = TypeVar("V")
T = TypeVar("T")

Options = Mapping[str, Any]
"""Rules options, e.g. ``{"rounds": 3, "starter_rule": "previous_round"}``. Values are
JSON scalars (int, str, bool)."""


@dataclass(frozen=True)
class GameResult:
    """How a match ended under the rules (faults are the referee's business, not the game's)."""

    winner: int | None
    """The winning seat, or None for a draw."""
    totals: tuple[int, int]
    """Each seat's final total (the sum of its round scores)."""
    rounds: tuple[tuple[int, int], ...]
    """The score pair of every finished round, in order."""


def legal_texts_of(game: Any, state: Any, legal: Sequence[Any]) -> tuple[str, ...]:
    """The texts of ``legal`` (``legal_actions(state)``, in order): the game's optional
    ``legal_texts(state)`` when it has one, else ``format_action`` of each."""
    texts = getattr(game, "legal_texts", None)
    if texts is None:
        return tuple(map(game.format_action, legal))
    return tuple(texts(state))


def totals_of(rounds: Sequence[tuple[int, int]]) -> tuple[int, int]:
    """Each seat's total over a sequence of round score pairs."""
    return (sum(r[0] for r in rounds), sum(r[1] for r in rounds))


def leader_of(totals: tuple[int, int]) -> int | None:
    """The seat with the higher total; None on equal totals."""
    return None if totals[0] == totals[1] else (0 if totals[0] > totals[1] else 1)


def result_of_rounds(rounds: tuple[tuple[int, int], ...]) -> GameResult:
    """The result of a match decided by the total of its rounds (higher total wins)."""
    totals = totals_of(rounds)
    return GameResult(leader_of(totals), totals, rounds)


@dataclass(frozen=True)
class OptionSpec:
    """One rules option a game accepts."""

    name: str
    default: int | str | bool
    choices: tuple[int | str | bool, ...] | None = None
    """The allowed values; None means any value of the default's type within min/max."""
    minimum: int | None = None
    maximum: int | None = None
    help: str = ""


@runtime_checkable
class Game(Protocol[S, A, V]):
    """The protocol every rules engine implements (see the module docstring for the contract)."""

    id: str
    """Registry id: ``lost-cities``, ``haggis``, ``portas``."""
    version: int
    """Rules version; bumped on any change that can alter a result."""
    title: str
    option_specs: tuple[OptionSpec, ...]

    def new_match(self, seed: int, options: Options | None = None) -> S:
        """Deal the first round of a match. Raises ``OptionsError`` on bad options."""
        ...

    def options_of(self, state: S) -> dict[str, Any]:
        """The complete, validated options the match runs with (defaults filled in)."""
        ...

    def to_move(self, state: S) -> int | None: ...

    def legal_actions(self, state: S) -> Sequence[A]: ...

    def is_legal(self, state: S, action: A) -> bool: ...

    def apply(self, state: S, action: A) -> S: ...

    def observation(self, state: S, seat: int) -> V: ...

    def outcome(self, state: S) -> GameResult | None: ...

    def parse_action(self, text: str) -> A: ...

    def format_action(self, action: A) -> str: ...

    def round_index(self, state: S) -> int:
        """0-based index of the round being played (== len(finished_rounds) while running)."""
        ...

    def finished_rounds(self, state: S) -> tuple[tuple[int, int], ...]: ...

    def deal_record(self, state: S) -> dict[str, Any]:
        """The full deal of the current round as JSON-able data (hidden cards included)."""
        ...

    def round_summary(self, state: S, round_index: int) -> dict[str, Any]:
        """What decided finished round ``round_index`` of this match (``state`` is the match's
        real state at or after that round's end), as JSON-able data: the facts behind the
        round's scores (docs/log-format.md, "Round summaries"). Logged with the round's end
        and checked by replay."""
        ...

    def determinize(self, observation: V, rng: random.Random) -> S:
        """A full state consistent with ``observation`` (of a running match): everything its
        seat cannot see is redrawn from ``rng`` (the seat's observation of the result is
        ``observation``), for bots that search and for the generic leak test."""
        ...


def replace(state: T, /, **changes: Any) -> T:
    """A copy of a state dataclass with some fields changed: a lean ``dataclasses.replace``
    (no ``__init__``, no re-validation) for the engines' frozen states, which keep their fields
    in the instance ``__dict__`` (no ``__slots__``), so a copy is one dict update."""
    new = object.__new__(type(state))
    fields = new.__dict__
    fields.update(state.__dict__)
    fields.update(changes)
    return new


def renamed(view: object, old: str, new: str) -> Any:
    """``view``'s attribute ``new`` read by its old name ``old``, kept one release when the views
    took one vocabulary (docs/bots.md, "What the views call things"): each read warns once with
    a ``DeprecationWarning`` that points at the reading line and names the new name."""
    warnings.warn(f"{type(view).__name__}.{old} is deprecated: read .{new}, the same value "
                  f"({old} goes in the next release)", DeprecationWarning, stacklevel=3)
    return getattr(view, new)


def validate_options(specs: Sequence[OptionSpec], given: Options | None) -> dict[str, Any]:
    """Fill defaults and check every value; raise ``OptionsError`` naming the bad key."""
    from arena.errors import OptionsError

    given = dict(given or {})
    known = {spec.name: spec for spec in specs}
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise OptionsError(
            f"unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(known)) or 'none'}"
        )
    result: dict[str, Any] = {}
    for spec in specs:
        value = given.get(spec.name, spec.default)
        value = _coerce(spec, value)
        result[spec.name] = value
    return result


def _coerce(spec: OptionSpec, value: Any) -> Any:
    from arena.errors import OptionsError

    kind = type(spec.default)
    if kind is bool:
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
            value = value.lower() in ("true", "1")
        if not isinstance(value, bool):
            raise OptionsError(f"option {spec.name} must be true or false, got {value!r}")
    elif kind is int:
        if isinstance(value, bool):
            raise OptionsError(f"option {spec.name} must be an integer, got {value!r}")
        try:
            value = int(value)
        except (TypeError, ValueError):
            raise OptionsError(f"option {spec.name} must be an integer, got {value!r}") from None
        if spec.minimum is not None and value < spec.minimum:
            raise OptionsError(f"option {spec.name} must be >= {spec.minimum}, got {value}")
        if spec.maximum is not None and value > spec.maximum:
            raise OptionsError(f"option {spec.name} must be <= {spec.maximum}, got {value}")
    else:
        value = str(value)
    if spec.choices is not None and value not in spec.choices:
        allowed = ", ".join(str(c) for c in spec.choices)
        raise OptionsError(f"option {spec.name} must be one of {allowed}, got {value!r}")
    return value


def round_seed(match_seed: int, round_index: int, salt: str) -> int:
    """A stable per-round seed derived from the match seed (no global random, no hash())."""
    import hashlib

    digest = hashlib.sha256(f"{salt}:{match_seed}:{round_index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")
