"""Every installed game as an OpenSpiel game (docs/lab.md, "OpenSpiel").

Importing this module registers one python game per installed game (the registry's plugins, the
built-ins and any package's), named ``arena_<id>`` with ``-`` as ``_``::

    import pyspiel
    import arena.lab.openspiel  # registers arena_lost_cities, arena_haggis, ...
    game = pyspiel.load_game("arena_lost_cities(rounds=1)")

Nothing here knows a game: every fact comes through the game protocol and the hooks the engine
declares (:mod:`arena.lab.encoding`).

- **Chance.** A match's chance is its seed (every deal of every round is drawn from it, arena
  /games/api.py): the first :data:`CHANCE_NODES` nodes are chance nodes of 16 equally likely
  outcomes, the seed's hex digits, most significant first (16 outcomes, not 256: a caller draws
  from the list of outcomes at each, benchmarks/README.md). A fixed chance sequence is a duplicate
  deal, and arena seed ``s`` is the sequence :func:`chance_of_seed` ``(s)``.
- **Players** are the seats; ``current_player`` is the engine's ``to_move``.
- **Actions** are :class:`~arena.lab.encoding.ActionEncoding` ids (fixed when the engine
  declares ``action_space``, else indices into the ordered legal list; parameter
  ``max_actions`` sizes that list's encoding).
- **Observation string**: the seat's view as text; **observation tensor**: the view's hashed
  features (:func:`~arena.lab.encoding.features`). Only the seat's own observation is read.
- **Information state string** (perfect recall): the seat's view as text, then a digest of
  every distinct view the seat has had since the deal, in order.
- **Returns** (terminal): each seat's total minus the other's (parameter ``returns=margin``,
  the default) or +1/0/-1 by the match's result (``returns=win``); every rules option of the
  game is a parameter too.
- **Resampling**: ``state.resample_from_infostate(player, sampler)`` is a state drawn by the
  engine's ``determinize`` from the player's observation (OpenSpiel's ISMCTS calls it; its bot
  can also take :func:`resampler` through ``set_resampler``). The state it gives has no
  history (its past is not known to the player), the player's information state is the one it
  was given, and the other seat's starts at the resample.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np
import pyspiel

from arena.errors import OptionsError
from arena.games.registry import get_game, plugins
from arena.lab.encoding import FEATURES, ActionEncoding, Featurizer, text_of

CHANCE_NODES = 16
"""The chance nodes of a match: the 64-bit seed, one hex digit (4 bits) each, most significant
first."""
MAX_MARGIN = 10_000.0
"""The bound OpenSpiel is told for a ``margin`` return (a loose one: no game declares its own)."""
MAX_GAME_LENGTH = 100_000
"""The longest match OpenSpiel is told of (a loose bound, chance nodes included)."""
RETURNS = ("margin", "win")
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_DIGITS = tuple(range(16))
_new = object.__new__
"""A slotted object without an ``__init__`` (:func:`_node`)."""
_OUTCOMES = tuple((digit, 1.0 / 16) for digit in _DIGITS)


def short_name(game_id: str) -> str:
    """The OpenSpiel name of an arena game: ``lost-cities`` -> ``arena_lost_cities``."""
    return "arena_" + game_id.replace("-", "_")


def chance_of_seed(seed: int) -> list[int]:
    """The chance outcomes that deal the match of arena seed ``seed`` (0 <= seed < 2**64)."""
    if not 0 <= seed < 1 << (4 * CHANCE_NODES):
        raise ValueError(f"an arena seed is 0 .. 2**64 - 1, not {seed}")
    return [(seed >> (4 * (CHANCE_NODES - 1 - i))) & 0xF for i in range(CHANCE_NODES)]


def seed_of_chance(outcomes: list[int] | tuple[int, ...]) -> int:
    """The arena seed of a full sequence of chance outcomes."""
    seed = 0
    for digit in outcomes:
        seed = (seed << 4) | digit
    return seed


_Past: TypeAlias = list[Any]
"""What led to a point of a match, kept for its recall (perfect recall) and its pickling: the
record before, and the step from it (a chance outcome or the engine's action), as a list
``[parent, action, digits, state, recall]`` indexed by the names below (a list, not a slotted
object: a step makes one, and a list display costs a third of a call to a class with a Python
``__init__``, benchmarks/README.md). It keeps the engine's state only where it must (at a
resample's start) or where a recall was asked for, so the states a playout passes through are
freed as it goes (a python game that kept every state since the deal spent a third of a Lost
Cities playout in the garbage collector): a recall that needs states no record kept replays them
from the nearest kept one (``ArenaGame.recall``)."""
PARENT = 0
"""The record before (None at a record's first point)."""
ACTION = 1
"""The engine's action of this step (None for a chance outcome and at the start)."""
DIGITS = 2
"""The seed digits dealt so far, for a chance outcome's step (else None)."""
STATE = 3
"""The engine's state here, when kept: a resample's start, a point whose recall was asked for
(None otherwise, and before the deal)."""
RECALL = 4
"""seat -> (digest of its view here, digest of its distinct views so far, view text), once
asked for (else None)."""


def _past(parent: _Past | None, action: Any, digits: tuple[int, ...] | None,
          state: Any = None, recall: dict[int, tuple[bytes, bytes, str]] | None = None
          ) -> _Past:
    """A record (:data:`_Past`)."""
    return [parent, action, digits, state, recall]


class _Node:
    """One point of a match as a value (immutable: copies share it): the seed digits dealt so
    far, the arena state once all are, what led here (:data:`_Past`), whose move it is
    (``mover``, OpenSpiel's current player: :func:`_mover`), and the engine's legal actions and
    their ids once asked for (``legal``, ``ids``; else None). A state (:class:`ArenaState`)
    keeps these fields in its own slots, where a step reads and writes them; it hands out a
    node where a point travels (OpenSpiel's clone and serialization copy ``__dict__``, which is
    ``{"_node": node}``; pickling; a replay) and takes one back. Made by :func:`_node`, not by
    calling the class: a call to a class with a Python ``__init__`` costs ~180 ns in Python
    3.11."""

    __slots__ = ("game", "seed_digits", "state", "past", "mover", "legal", "ids")
    game: ArenaGame
    seed_digits: tuple[int, ...]
    state: Any
    past: _Past
    mover: int
    legal: Any
    ids: Sequence[int] | None

    def __deepcopy__(self, memo: dict[int, Any]) -> _Node:
        return self

    def __copy__(self) -> _Node:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (OpenSpiel serializes a python state's attributes) as the game's name and
        parameters, the seed digits and the action texts since the deal; rebuilt by replay.
        A resampled state (no seed) pickles its arena state instead."""
        texts: list[str] = []
        past = self.past
        while past[PARENT] is not None and past[ACTION] is not None:
            texts.append(self.game.engine.format_action(past[ACTION]))
            past = past[PARENT]
        if past[PARENT] is None and past[STATE] is not None:  # a resample's
            return (_restore, (self.game.name, self.game.params, self.state,
                               self.past[RECALL] or {}))
        texts.reverse()
        return (_replay, (self.game.name, self.game.params, self.seed_digits, tuple(texts)))


def _node(game: ArenaGame, seed_digits: tuple[int, ...], state: Any, past: _Past,
          mover: int) -> _Node:
    """A node (:class:`_Node`) with no legal actions asked for yet."""
    node = _new(_Node)
    node.game = game
    node.seed_digits = seed_digits
    node.state = state
    node.past = past
    node.mover = mover
    node.legal = node.ids = None
    return node


def _mover(game: ArenaGame, state: Any) -> int:
    """OpenSpiel's current player at the arena state ``state`` (None: the deal)."""
    if state is None:
        return _CHANCE
    seat: int | None = game.engine.to_move(state)
    return _TERMINAL if seat is None else seat


def _game_named(name: str, params: dict[str, Any]) -> ArenaGame:
    game: ArenaGame = pyspiel.load_game(name, params)
    return game


def _replay(name: str, params: dict[str, Any], seed_digits: tuple[int, ...],
            texts: tuple[str, ...]) -> _Node:
    game = _game_named(name, params)
    dealing = game.new_initial_state()
    for digit in seed_digits:  # the deal as a step deals it (no history kept: only the node)
        dealing._apply_action(digit)
    node = dealing._node
    for text in texts:
        node = game.move(node, game.engine.parse_action(text))
    return node


def _restore(name: str, params: dict[str, Any], state: Any,
             recall: dict[int, tuple[bytes, bytes, str]]) -> _Node:
    game = _game_named(name, params)
    return _node(game, (), state, _past(None, None, None, state, dict(recall)),
                 _mover(game, state))


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


class ArenaGame(pyspiel.Game):  # type: ignore[misc]
    """One arena game as an OpenSpiel game (module docstring)."""

    GAME_ID = ""
    """The arena game (set on each game's subclass)."""
    GAME_TYPE: Any = None
    """Its ``pyspiel.GameType``."""

    __slots__ = ("engine", "name", "params", "returns_type", "options", "encoding", "root",
                 "_apply", "_to_move", "_legal", "_actions", "_size", "_ranges")
    """Slots, as ArenaState's (a step reads five of them)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        game_type = self.GAME_TYPE
        self.engine = get_game(self.GAME_ID)
        self.name = game_type.short_name
        self.params = params
        self.returns_type = str(params.get("returns", "margin"))
        if self.returns_type not in RETURNS:
            raise OptionsError(f"option returns must be one of {', '.join(RETURNS)}, "
                               f"got {self.returns_type!r}")
        names = {spec.name for spec in self.engine.option_specs}
        self.options = {name: value for name, value in params.items() if name in names}
        self.engine.new_match(0, self.options)  # bad options fail here, with the engine's words
        self.encoding = ActionEncoding(self.engine, self.options,
                                       int(params.get("max_actions", 0)))
        bound = 1.0 if self.returns_type == "win" else MAX_MARGIN
        info = pyspiel.GameInfo(
            num_distinct_actions=self.encoding.size, max_chance_outcomes=len(_DIGITS),
            num_players=2, min_utility=-bound, max_utility=bound, utility_sum=0.0,
            max_game_length=MAX_GAME_LENGTH)
        super().__init__(game_type, info, params)
        self.root = _node(self, (), None, _past(None, None, None), _CHANCE)
        """The match before its deal (every initial state's node: a node never changes)."""
        # what a step asks for, looked up once (ArenaState._apply_action, legal_actions)
        self._apply = self.engine.apply
        self._to_move = self.engine.to_move
        self._legal = self.engine.legal_actions
        self._actions = self.encoding.actions
        self._size = self.encoding.size
        self._ranges: dict[int, tuple[int, ...]] = {}
        """The legal-index encoding's ids of a state with n legal actions: n -> 0 .. n - 1."""

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its name and parameters (its class is made at registration, so pickle
        cannot find it by name), as OpenSpiel's own games are."""
        return (_game_named, (self.name, self.params))

    def new_initial_state(self) -> ArenaState:
        """The match before its deal (the first chance node)."""
        return ArenaState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        """The observer OpenSpiel asks for: a seat's observation (string and tensor) or, with
        ``perfect_recall``, its information state (string only)."""
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        if iig_obs_type is not None and (
                not iig_obs_type.public_info
                or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError("only a seat's own observation is available (public and "
                             "single-player private information)")
        return _Observer(self, recall)

    def move(self, node: _Node, action: Any) -> _Node:
        """The node after a seat's action (the engine's)."""
        state = self._apply(node.state, action)
        seat = self._to_move(state)
        return _node(self, node.seed_digits, state, _past(node.past, action, None),
                     _TERMINAL if seat is None else seat)

    def recall(self, node: _Node, seat: int) -> tuple[bytes, bytes, str]:
        """The seat's recall at ``node``: computed from the nearest point that knows it, the
        states between there and here replayed from the nearest kept one when more than
        ``node``'s own is needed; ``node``'s state is kept with its record for the next."""
        chain: list[_Past] = []
        at: _Past | None = node.past
        while at is not None and (at[RECALL] is None or seat not in at[RECALL]):
            chain.append(at)
            at = at[PARENT]
        known = at[RECALL][seat] if at is not None and at[RECALL] is not None else (b"", b"", "")
        states = [node.state] if len(chain) == 1 else self._replayed(node.past, len(chain))
        for step, state in zip(reversed(chain), reversed(states), strict=True):
            if state is not None:
                text = text_of(self.engine.observation(state, seat))
                view = _digest(text.encode())
                known = (view, known[1] if view == known[0] else _digest(known[1] + view), text)
            if step[RECALL] is None:
                step[RECALL] = {}
            step[RECALL][seat] = known
        node.past[STATE] = node.state
        return known

    def _replayed(self, past: _Past, count: int) -> list[Any]:
        """The engine's states at ``past`` and the ``count - 1`` points before it (latest
        first), replayed from the nearest point at or before the earliest of them whose state
        is known: kept, or the deal's (the seed's), or none yet (before the deal)."""
        path: list[_Past] = []
        at = past
        while True:
            if len(path) >= count - 1:
                if at[STATE] is not None or at[PARENT] is None:
                    state = at[STATE]
                    break
                if at[DIGITS] is not None:
                    state = (self.engine.new_match(seed_of_chance(at[DIGITS]), self.options)
                             if len(at[DIGITS]) == CHANCE_NODES else None)
                    break
            path.append(at)
            assert at[PARENT] is not None  # a record's first point is a base
            at = at[PARENT]
        states = [state]
        for step in reversed(path):
            if step[DIGITS] is None:
                state = self._apply(state, step[ACTION])
            elif len(step[DIGITS]) == CHANCE_NODES:
                state = self.engine.new_match(seed_of_chance(step[DIGITS]), self.options)
            states.append(state)
        return states[::-1][:count]


class ArenaState(pyspiel.State):  # type: ignore[misc]
    """A point of an arena match in OpenSpiel (module docstring)."""

    # the point's fields (a _Node's) in slots of the state itself, where a step reads and
    # writes them, not in a node a step makes: a node a step cost PORTAS' playouts 10-16% over
    # the least any python game does (benchmarks/README.md, "fifth pass"). No instance dict:
    # pyspiel's State has none, and a dict on a pybind11 object is one Python 3.11 does not
    # specialize. OpenSpiel's clone, serialization and pickling go through ``__dict__``,
    # ``{"_node": node}`` (below): a clone makes one node and unpacks it (~0.8 us more).
    __slots__ = ("_game", "_digits", "_state", "_past", "_mover", "_legal", "_ids")
    _game: ArenaGame
    _digits: tuple[int, ...]
    _state: Any
    _past: _Past
    _mover: int
    _legal: Any
    _ids: Sequence[int] | None

    def __init__(self, game: ArenaGame) -> None:
        super().__init__(game)
        self._node = game.root

    @property
    def _node(self) -> _Node:
        """The point as a value (:class:`_Node`): what a copy of this state starts from."""
        node = _node(self._game, self._digits, self._state, self._past, self._mover)
        node.legal = self._legal
        node.ids = self._ids
        return node

    @_node.setter
    def _node(self, node: _Node) -> None:
        self._game = node.game
        self._digits = node.seed_digits
        self._state = node.state
        self._past = node.past
        self._mover = node.mover
        self._legal = node.legal
        self._ids = node.ids

    @property
    def __dict__(self) -> dict[str, Any]:  # what OpenSpiel copies
        return {"_node": self._node}

    @__dict__.setter
    def __dict__(self, attributes: dict[str, Any]) -> None:
        self._node = attributes["_node"]

    # the arena's own view of the state
    @property
    def arena_state(self) -> Any:
        """The engine's state (None while the seed is being dealt)."""
        return self._state

    def current_player(self) -> int:
        return self._mover

    def _legal_ids(self) -> Sequence[int]:
        """The mover's legal ids at a player node (kept until the next step, never handed
        out)."""
        game = self._game
        legal = self._legal
        if legal is None:
            legal = self._legal = game._legal(self._state)
        ids: Sequence[int] | None
        if game._actions is None and len(legal) <= game._size:
            ids = game._ranges.get(len(legal))
            if ids is None:
                ids = game._ranges[len(legal)] = tuple(range(len(legal)))
        else:  # a fixed encoding's, or the legal-index encoding's error
            ids = game.encoding.legal_ids(self._state, legal)
        self._ids = ids
        return ids

    # OpenSpiel's C++ State answers these by calling back into Python up to five times (is
    # terminal? is chance? current player? _legal_actions...): a python caller (OpenSpiel's
    # python algorithms, an agent loop) gets the same answers here without the crossings; C++
    # callers still take the C++ path, which ends in _legal_actions
    def legal_actions(self, player: int | None = None) -> list[int]:
        """OpenSpiel's ``legal_actions``: the mover's ids (ascending), the chance outcomes at a
        chance node, none at the end or for a seat not to move."""
        mover = self._mover
        if mover >= 0 and (player is None or player == mover):
            ids = self._ids
            if ids is None:  # the legal-index encoding's ids, inline (else _legal_ids)
                game = self._game
                legal = self._legal
                if legal is None:
                    legal = self._legal = game._legal(self._state)
                if game._actions is None and len(legal) <= game._size:
                    ids = self._ids = game._ranges.get(len(legal))
                if ids is None:
                    ids = self._legal_ids()
            return list(ids)
        if mover == _TERMINAL:
            return []
        if mover == _CHANCE:
            return list(_DIGITS)
        if player is not None and player < 0:
            return list(pyspiel.State.legal_actions(self, player))  # OpenSpiel's own error
        return []

    def is_chance_node(self) -> bool:
        return self._mover == _CHANCE

    def is_player_node(self) -> bool:
        return self._mover >= 0

    def _legal_actions(self, player: int) -> list[int]:
        ids = self._ids
        return list(self._legal_ids() if ids is None else ids)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(_OUTCOMES)

    def _apply_action(self, action: int) -> None:
        # one call a step (OpenSpiel's C++ apply_action, after current_player): the engine's
        # action of the id, inline (ActionEncoding.action says why an id names none), and the
        # step's record (as _past makes it)
        game = self._game
        state = self._state
        if state is None:  # a seed digit
            if not 0 <= action < 16:
                raise ValueError(f"a chance outcome is a hex digit, 0 .. 15, not {action}")
            digits = self._digits + (int(action),)
            self._digits = digits
            self._past = [self._past, None, digits, None, None]
            if len(digits) == CHANCE_NODES:
                state = self._state = game.engine.new_match(seed_of_chance(digits),
                                                            game.options)
                seat = game._to_move(state)
                self._mover = _TERMINAL if seat is None else seat
            return
        actions = game._actions
        if actions is None:
            legal = self._legal
            if legal is None:
                legal = game._legal(state)
            if not 0 <= action < len(legal):
                game.encoding.action(state, int(action), legal)  # raises, in its words
            chosen = legal[action]
        else:
            if not 0 <= action < len(actions):
                game.encoding.action(state, int(action))
            chosen = actions[action]
        after = self._state = game._apply(state, chosen)
        seat = game._to_move(after)
        self._past = [self._past, chosen, None, None, None]
        self._mover = _TERMINAL if seat is None else seat
        self._legal = self._ids = None

    def _action_to_string(self, player: int, action: int) -> str:
        state = self._state
        if player == _CHANCE or state is None:
            return f"seed digit {len(self._digits)}: {action}"
        encoding = self._game.encoding
        if encoding.fixed or self._mover != player:
            return encoding.text(state, int(action))
        if self._legal is None:
            self._legal = self._game._legal(state)
        return encoding.text(state, int(action), self._legal)

    def is_terminal(self) -> bool:
        return self._mover == _TERMINAL

    def returns(self) -> list[float]:
        state = self._state
        result = None if state is None else self._game.engine.outcome(state)
        if result is None:
            return [0.0, 0.0]
        if self._game.returns_type == "win":
            if result.winner is None:
                return [0.0, 0.0]
            return [1.0, -1.0] if result.winner == 0 else [-1.0, 1.0]
        margin = float(result.totals[0] - result.totals[1])
        return [margin, -margin]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> ArenaState:
        """A state the player cannot tell from this one, drawn by the engine's
        ``determinize`` (module docstring); ``probability_sampler()`` seeds the draw."""
        return _resample(self, player_id, random.Random(int(probability_sampler() * 2 ** 53)))

    def __str__(self) -> str:
        if self._state is None:
            return f"dealing: seed digits {list(self._digits)}"
        return repr(self._state)


def _resample(state: ArenaState, seat: int, rng: random.Random) -> ArenaState:
    node = state._node
    game = node.game
    if node.state is None or node.mover == _TERMINAL:
        raise ValueError("resample_from_infostate needs a running match (after the deal)")
    return _world(game, game.engine.observation(node.state, seat), seat, rng,
                  game.recall(node, seat))


def _world(game: ArenaGame, observation: Any, seat: int, rng: random.Random,
           own: tuple[bytes, bytes, str] | None) -> ArenaState:
    """A state drawn by the engine's ``determinize`` of ``observation`` (the seat's), with no
    history; the seat's recall is ``own`` (its view alone when None), the other seat's starts
    here."""
    dealt = game.engine.determinize(observation, rng)
    new = game.new_initial_state()
    recall: dict[int, tuple[bytes, bytes, str]] = {}
    for player in (seat, 1 - seat):
        if player == seat and own is not None:
            recall[seat] = own
            continue
        text = text_of(game.engine.observation(dealt, player))
        view = _digest(text.encode())
        recall[player] = (view, _digest(b"resampled" + view), text)
    fresh = _node(game, (), dealt, _past(None, None, None, dealt, recall), _mover(game, dealt))
    new._node = fresh
    return new


def state_from_observation(game: ArenaGame, observation: Any, seat: int,
                           rng: random.Random) -> ArenaState:
    """A state of ``game`` the seat cannot tell from the real one, built from its observation
    alone (the engine's ``determinize``; no hidden information is read): what a bot that lives
    outside the match (arena.lab.adapter) searches from. It has no history, like a resample."""
    return _world(game, observation, seat, rng, None)


def resampler(state: ArenaState, player: int) -> ArenaState:
    """A resampler for ``ISMCTSBot.set_resampler``: ``state.resample_from_infostate`` with a
    draw from Python's ``random`` (seed it for a reproducible search)."""
    return _resample(state, player, random.Random(random.getrandbits(64)))


class _Observer:
    """OpenSpiel's python observer: ``tensor`` and ``dict`` for the observation, ``None`` and
    ``{}`` for the information state (a string only)."""

    def __init__(self, game: ArenaGame, recall: bool) -> None:
        self.game = game
        self.perfect_recall = recall
        self.tensor = None if recall else np.zeros(FEATURES, np.float32)
        self.dict = {} if self.tensor is None else {"observation": self.tensor}
        self._featurizers = (Featurizer(FEATURES), Featurizer(FEATURES))

    def set_from(self, state: ArenaState, player: int) -> None:
        if self.tensor is None:
            return
        if state._state is None:
            self.tensor.fill(0.0)
        else:
            self._featurizers[player](self.game.engine.observation(state._state, player),
                                      self.tensor)

    def string_from(self, state: ArenaState, player: int) -> str:
        if state._state is None:
            return f"dealing ({len(state._digits)} of {CHANCE_NODES} seed digits)"
        if not self.perfect_recall:
            return text_of(self.game.engine.observation(state._state, player))
        view, seen, text = self.game.recall(state._node, player)
        return f"{text}\nrecall {seen.hex()}"


def _register() -> tuple[str, ...]:
    names: list[str] = []
    for plugin in plugins():
        try:
            engine = get_game(plugin.id)
        except Exception:  # noqa: BLE001 — `arena games list` says why a game cannot load
            continue
        spec: dict[str, Any] = {option.name: option.default for option in engine.option_specs}
        spec["returns"] = "margin"
        spec["max_actions"] = 0
        name = short_name(plugin.id)
        game_type = pyspiel.GameType(
            short_name=name,
            long_name=f"Arena {engine.title}",
            dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
            chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
            information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
            utility=pyspiel.GameType.Utility.ZERO_SUM,
            reward_model=pyspiel.GameType.RewardModel.TERMINAL,
            max_num_players=2,
            min_num_players=2,
            provides_information_state_string=True,
            provides_information_state_tensor=False,
            provides_observation_string=True,
            provides_observation_tensor=True,
            parameter_specification=spec,
        )

        # a class per game, as OpenSpiel's own python games register: a function held only by
        # OpenSpiel's registry would be freed after the interpreter, at exit (a fatal error)
        creator = type(f"ArenaGame_{name}", (ArenaGame,), {"GAME_ID": plugin.id,
                                                            "GAME_TYPE": game_type,
                                                            "__slots__": ()})
        pyspiel.register_game(game_type, creator)
        names.append(name)
    return tuple(names)


REGISTERED: tuple[str, ...] = _register()
"""The OpenSpiel names registered by importing this module, in the registry's order."""
