"""Resolving a bot reference: a bot directory (holding ``bot.toml``) or a submitted bot from the
catalogue (``name`` or ``name@version``)."""

from __future__ import annotations

from pathlib import Path

from arena.bots import catalogue
from arena.bots.manifest import MANIFEST, load_bot_dir
from arena.errors import ConfigError
from arena.games import get_game
from arena.model import BotSpec


def resolve_bot(ref: str, *, base_dir: Path | None = None) -> BotSpec:
    """A bot directory (holding bot.toml) or a submitted bot (``name`` or ``name@version``).

    A relative directory is looked up under ``base_dir`` when one is given. Raises
    ``ConfigError`` when ``ref`` is neither."""
    candidate = Path(ref)
    if base_dir is not None and not candidate.is_absolute():
        candidate = base_dir / candidate
    if candidate.is_dir():
        return load_bot_dir(candidate)
    name, _, version = ref.partition("@")
    spec = catalogue.lookup(name, version or None)
    if spec is None:
        raise ConfigError(
            f"no bot {ref!r}: not a directory with a {MANIFEST}, and no submitted bot of that "
            "name (see `arena bots list`; submit one with `arena submit`)"
        )
    return spec


def resolve_match_bots(refs: tuple[str, str], game: str | None) -> tuple[str, BotSpec, BotSpec]:
    """Resolve both seats' bots and the game (default: the bots' own); ``ConfigError`` when a
    bot plays another game."""
    if game is not None:
        get_game(game)  # UnknownGameError names the known games
    bots = (resolve_bot(refs[0]), resolve_bot(refs[1]))
    game_id = game or bots[0].game
    for bot in bots:
        if bot.game != game_id:
            raise ConfigError(f"bot {bot.name} plays {bot.game}, not {game_id}")
    return game_id, bots[0], bots[1]
