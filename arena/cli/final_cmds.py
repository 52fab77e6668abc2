"""`arena final COMPETITION [VERSION...]`: begin a competition's final tournament (the operator's
command; the running server plays it and publishes its results, ``arena.host.final``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import console, handle_errors, help_of
from arena.errors import ConfigError
from arena.host.config import load_competition
from arena.render.text import plain


def register(app: typer.Typer) -> None:
    """Add `final` to the root app."""
    app.command("final", help=help_of(final))(final)


@handle_errors
def final(
    competition: Annotated[Path, typer.Argument(help="The competition file (TOML).")],
    entrants: Annotated[list[str] | None, typer.Argument(
        help="The versions that play (NAME@VERSION, or a house bot's directory); default: "
             "what the game's ladder plays now (the house bots and every submitted bot's "
             "latest version).", show_default=False)] = None,
    game: Annotated[str | None, typer.Option(
        "--game", help="The game (needed when the competition hosts several).")] = None,
) -> None:
    """Begin the final tournament of a competition's game.

    The entrants are fixed (with top = N in the file's final table: the N the game's ladder
    rates highest), a fresh secret is drawn from which every deal of the final comes, and the
    commitment to it (its SHA-256, the entrants and the format, signed by the referee's key)
    is published on the competition's page before any match: final/GAME-commitment.json. The
    running server (`arena host`) then plays the final (a round robin, E duplicate encounters
    per pair) and publishes its signed results in final/GAME/ of the page, the secret
    revealed, for `arena verify`. Begun once: the same command again prints the final as it
    began. In a competition with a season the final begins with the season's final phase, among
    the selected versions: this command is refused while the season is open or frozen.
    """
    # start-up: the final's module (the runner, the referee) for this command only
    from arena.host.final import Final, default_entrants, ladder_ratings
    from arena.host.season import Phase, Season
    from arena.ladder.runner import signing_of
    from arena.ladder.store import LadderStore

    c = load_competition(competition)
    if c.season is not None:
        with LadderStore(c.database) as store:
            phase = Season(store.engine, c.season, c.selections).phase()
        if phase in (Phase.OPEN, Phase.FROZEN):
            raise ConfigError(
                f"{c.name} has a season, now {phase.value}: its final begins when the season "
                f"enters final (at its time in the file, or `arena phase final -c "
                f"{competition}` to start it now), among the selected versions")
    if game is None:
        if len(c.games) > 1:
            raise ConfigError("this competition hosts several games: say which (--game)")
        game = c.games[0].game
    with LadderStore(c.database) as store:
        signing = signing_of(c.signing_key, c.state_dir)
        tournament = Final(c, game, store, signing)
        begun = tournament.state()
        if begun is None:
            refs = list(entrants) if entrants else default_entrants(c, game, store)
            state = tournament.begin(refs, ladder_ratings(c, game, store))
        else:
            state = begun
    said = "began before" if begun is not None else "begins"
    console.print(plain(
        f"the final of {state.game} {said}: {len(state.entrants)} entrants "
        f"({', '.join(e.key for e in state.entrants)}), {state.format}, {state.encounters} "
        f"duplicate encounter(s) per pair; seeds committed to SHA-256 {state.commitment} "
        f"(published in {tournament.commitment_file})"), soft_wrap=True)
