"""`arena submit`, `arena bots list`, `arena images ...`: container bots. Each command parses its
arguments, makes one call into ``arena.bots`` and renders the outcome; `arena submit --server`
hands over to ``arena.cli.remote_cmds`` (a competition server's submission)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from arena.bots import catalogue
from arena.bots.home import arena_home
from arena.bots.images.build import build_base_image
from arena.bots.images.build import flavor as check_flavor
from arena.bots.images.prune import prune_images
from arena.bots.images.wheels import prepare_wheels
from arena.cli.common import (
    OutputFormat,
    console,
    err_console,
    handle_errors,
    print_json_lines,
)
from arena.cli.remote_cmds import remote_requested, submit_remote
from arena.errors import ConfigError
from arena.model import BotSpec, MatchResult
from arena.referee.service import line_up
from arena.render.catalogue import bots_table, images_table, size_text
from arena.render.text import plain

if TYPE_CHECKING:
    from arena.bots.images.tools import Progress

bots_app = typer.Typer(help="Submitted (container) bots.", no_args_is_help=True)
images_app = typer.Typer(help="Container images for bots.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    """Add `submit`, `bots list` and `images build-base` to the root app."""
    app.command("submit")(submit)
    app.add_typer(bots_app, name="bots")
    app.add_typer(images_app, name="images")


@contextlib.contextmanager
def _progress(first: str) -> Iterator[Progress]:
    """A spinner showing the current step, and each step printed with the time it started."""
    started = time.monotonic()
    with console.status(plain(first)) as status:

        def progress(step: str) -> None:
            line = plain(step)
            console.print(Text.assemble(f"  {time.monotonic() - started:5.1f}s ", line))
            status.update(line)

        yield progress


def _play_smoke_match(bot: BotSpec) -> MatchResult:
    """The smoke match of a submitted bot (seat 0) against the game's random sample bot,
    prepared by the match service and played in a fresh Docker sandbox; its log goes to
    ``$ARENA_HOME/submissions``."""
    # start-up: `arena` imports these for this command only (the match loop, Docker)
    from arena.bots.submit import smoke_opponent
    from arena.referee.match import play_match
    from arena.sandbox.docker import DockerSandbox

    lineup = line_up([bot, smoke_opponent(bot.game)], sandbox=DockerSandbox())
    spec = lineup.match()
    log_dir = arena_home() / "submissions"
    return asyncio.run(play_match(spec, sandbox=lineup.sandbox, log_dir=log_dir))


@handle_errors
def submit(
    target: Annotated[
        str | None, typer.Argument(help="A bot directory with a Dockerfile, or a local image.")
    ] = None,
    name: Annotated[
        str | None, typer.Option(help="Name to submit under (default: bot.toml's).")
    ] = None,
    version: Annotated[
        str | None, typer.Option(help="Version (default: bot.toml's, else a timestamp; a "
                                 "server assigns its own).")
    ] = None,
    game: Annotated[str | None, typer.Option(help="Game id (needed for an image).")] = None,
    replace: Annotated[
        bool, typer.Option("--replace", help="Replace the catalogued bot of the same name and "
                           "version (refused without it).")
    ] = False,
    image: Annotated[
        str | None, typer.Option("--image", help="A local image (tag or id) instead of a "
                                 "directory; sent to a server as a `docker save` stream.")
    ] = None,
    server: Annotated[
        str | None, typer.Option("--server", help="Submit to a competition server (a profile "
                                 "of `arena login`; ARENA_SERVER set: the environment's) "
                                 "instead of the local catalogue.")
    ] = None,
    until: Annotated[
        str, typer.Option("--until", help="With --server: follow the submission until it is "
                          "'rated' (its first rated match) or only until it is 'entered' in "
                          "the ladder.")
    ] = "rated",
) -> None:
    """Build (or take) a bot image, pin it, play a smoke match against the random sample bot in
    the Docker sandbox, and add the bot to the catalogue if it played a legal match.

    A name is letters and digits with '.', '_' or '-' between them (at most 64, unique ignoring
    case); an existing name and version is replaced only with --replace.

    With --server NAME (or ARENA_SERVER set) the bot goes to a competition server instead: the
    directory's files (or the image) are uploaded, and the server builds, validates and enters
    it as your new version; each stage is shown as it happens. Exit 0 entered or rated, 1
    refused or failed (the server says why), 2 a refused call."""
    if remote_requested(server):
        for flag, given in (("--version", version is not None), ("--replace", replace)):
            if given:
                raise ConfigError(f"{flag} is for the local catalogue: a competition server "
                                  "assigns each submission its own version (drop it)")
        submit_remote(target, image=image, server=server, game=game, name=name, until=until)
        return
    if (target is None) == (image is None):
        raise ConfigError("give a bot directory or an image (TARGET or --image TAG, one of "
                          "them)")
    source = target if target is not None else str(image)
    # start-up: `arena` imports it for this command only
    from arena.bots.submit import submit_bot

    with _progress(f"submitting {source}") as progress:
        done = submit_bot(source, smoke_match=_play_smoke_match, name=name, version=version,
                          game=game, replace=replace, progress=progress)
    saved, smoke = done.bot, done.smoke
    verb = "replaced" if done.replaced else "submitted"
    was = f" (was image {done.replaced.image[:19]})" if done.replaced else ""
    console.print(Text.assemble(
        (verb, "green"),
        plain(f" {saved.name}@{saved.version}{was} ({saved.game}) image {saved.image[:19]} "
              f"({done.tag}); smoke match {smoke.totals[0]}:{smoke.totals[1]}. Use it as "),
        plain(saved.name, "bold"), " in `arena match`.",
    ))


@bots_app.command("list")
@handle_errors
def list_bots(
    output: Annotated[
        OutputFormat, typer.Option("--format", help="human or json.")
    ] = OutputFormat.human,
) -> None:
    """Show every submitted bot and version in the catalogue."""
    bots = catalogue.list_bots()
    if output is OutputFormat.json:
        print_json_lines(b.__dict__ for b in bots)
        return
    console.print(bots_table(bots))


def _build_base(force: bool, flavor: str = "python") -> None:
    started = time.monotonic()
    with _progress(f"building the {flavor} base image") as progress:
        base = build_base_image(flavor_name=flavor, force=force, progress=progress)
    verb = "reused" if base.reused else "built"
    console.print(
        f"[green]{verb}[/] {base.tag} id {base.image_id[:19]} layer {base.digest[:19]} "
        f"in {time.monotonic() - started:.1f}s",
        highlight=False,
    )


@images_app.command("build-base")
@handle_errors
def build_base(
    force: Annotated[
        bool, typer.Option(help="Rebuild even when the inputs are unchanged.")
    ] = False,
    flavor: Annotated[
        str, typer.Option(help="python (the arena's Python runtime and SDK), lab (the same "
                          "with numpy and OpenSpiel: `base = \"lab\"`) or node (Node.js, for "
                          "bots in JavaScript: `base = \"node\"` in their bot.toml).")
    ] = "python",
) -> None:
    """Build a bot base image locally (debootstrap of Debian, no container registry; needs root).

    Reused while its inputs (Debian mirror, packages, the arena runtime) are unchanged."""
    check_flavor(flavor)
    _build_base(force, flavor)


@images_app.command("wheels")
@handle_errors
def wheels(
    dest: Annotated[Path, typer.Argument(help="Where to put the wheels, e.g. mybot/wheels.")],
) -> None:
    """Put the bot runtime's wheels (arena, grpcio, protobuf for CPython 3.11) into DEST.

    For bot images you build yourself FROM a plain Python image, where your own `docker
    build` installs them (a `RUN pip install` the arena refuses in a bot's Dockerfile); then
    submit that image (`arena submit IMAGE --game GAME --name NAME`). The arena's own bases
    (`arena images build-base`) already have the runtime.
    """
    with err_console.status("building the arena wheel and fetching grpcio/protobuf…"):
        out = prepare_wheels(dest)
    for wheel in sorted(out.glob("*.whl")):
        console.print(str(wheel), highlight=False)


@images_app.command("prune")
@handle_errors
def prune(
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Only list what would be removed.")
    ] = False,
) -> None:
    """Remove bot images the arena built from directories and no submitted bot uses, and base
    images a newer build replaced. Submitted bots, the current base image, images in use and
    images the arena did not build are kept."""
    keep = {bot.image for bot in catalogue.list_bots()}
    with console.status("looking for images to prune"):
        results = prune_images(keep, dry_run=dry_run)
    console.print(images_table(results, dry_run))
    gone = [r for r in results if r.removed or (dry_run and not r.reason)]
    verb = "would remove" if dry_run else "removed"
    freed = size_text(sum(r.size for r in gone))
    console.print(
        f"{verb} {len(gone)} of {len(results)} arena images ({freed} of their own)",
        highlight=False,
    )


