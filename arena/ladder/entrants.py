"""A ladder's entrants: a reference resolved to a runnable bot, and the entrants lined up by the
match service. Below the runner and the schedules, which both line entrants up (a continuous
ladder looks at its entrants again while it runs)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from arena.bots import resolve_bot
from arena.errors import ConfigError
from arena.ladder.config import LadderConfig
from arena.model import BotSpec
from arena.referee.service import Lineup, line_up

ResolveBot = Callable[[str, Path], BotSpec]
"""(entrant reference, ladder directory) → a runnable bot."""


def default_resolve(ref: str, base_dir: Path) -> BotSpec:
    """Resolve an entrant with ``arena.bots.resolve_bot``."""
    return resolve_bot(ref, base_dir=base_dir)


def line_up_entrants(config: LadderConfig, resolve: ResolveBot | None = None,
                     sandbox: str | None = None, check: bool = True) -> Lineup:
    """The ladder's entrants lined up by the match service (resolved, identified, checked in
    the sandbox, "auto" decided once for the run). Raises ``ConfigError`` for a bot of another
    game or two entrants with the same name."""
    resolve = resolve or default_resolve
    specs = [resolve(ref, config.base_dir) for ref in config.entrants]
    for ref, spec in zip(config.entrants, specs, strict=True):
        if spec.game != config.game:
            raise ConfigError(
                f"entrant {ref!r} plays {spec.game!r}, "
                f"but ladder {config.name!r} is {config.game!r}"
            )
    names = [s.name for s in specs]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup is not None:
        raise ConfigError(f"two entrants of ladder {config.name!r} are both named {dup!r}")
    return line_up(specs, game=config.game, sandbox=sandbox or config.sandbox, check=check)
