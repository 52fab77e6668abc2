"""`arena submit`, `arena bots list`, `arena images build-base`: container bots."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from arena.cli.common import OutputFormat, console, err_console, handle_errors, print_json
from arena.errors import ConfigError
from arena.model import BotSpec, MatchResult, MatchSpec, Termination

bots_app = typer.Typer(help="Submitted (container) bots.", no_args_is_help=True)
images_app = typer.Typer(help="Container images for bots.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    """Add `submit`, `bots list` and `images build-base` to the root app."""
    app.command("submit")(submit)
    app.add_typer(bots_app, name="bots")
    app.add_typer(images_app, name="images")


def _sample_random(game: str) -> Path:
    from arena.images import source_root

    path = source_root() / "sample_bots" / game / "random"
    if not (path / "bot.toml").is_file():
        raise ConfigError(f"no sample bot {path} to run the smoke match against")
    return path


def _build_or_pin(target: str, game: str | None) -> tuple[str, str, str, str, str]:
    """(image id, digest, game, default name, default version) of a directory or an image."""
    from arena.images import FLAVORS, build_bot_image, find_base_image, pin_image

    directory = Path(target)
    if directory.is_dir():
        from arena.bots import load_bot_dir

        manifest = load_bot_dir(directory) if (directory / "bot.toml").is_file() else None
        bot_game = game or (manifest.game if manifest else None)
        if bot_game is None:
            raise ConfigError(f"{directory} has no bot.toml: give --game")
        flavor = manifest.base if manifest else "python"
        if find_base_image(FLAVORS[flavor].tag) is None:
            _build_base(force=False, flavor=flavor)
        with console.status(f"building the image of {directory}"):
            image = build_bot_image(directory, flavor_name=flavor)
        name = manifest.name if manifest else directory.name
        return image.image_id, image.digest, bot_game, name, manifest.version if manifest else ""
    if game is None:
        raise ConfigError(f"{target!r} is not a directory: give --game for an image")
    image = pin_image(target)
    return image.image_id, image.digest, game, target.split(":")[0].rsplit("/")[-1], ""


def _smoke_match(bot: BotSpec) -> MatchResult:
    from arena.bots import load_bot_dir
    from arena.referee.match import play_match
    from arena.registry import arena_home
    from arena.sandbox.docker import DockerSandbox

    opponent = load_bot_dir(_sample_random(bot.game))
    spec = MatchSpec(bot.game, int(time.time()) % 1_000_000, (bot, opponent))
    log_dir = arena_home() / "submissions"
    with console.status(f"smoke match: {bot.name} vs {opponent.name} in containers"):
        return asyncio.run(play_match(spec, sandbox=DockerSandbox(), log_dir=log_dir))


@handle_errors
def submit(
    target: Annotated[
        str, typer.Argument(help="A bot directory with a Dockerfile, or a local image.")
    ],
    name: Annotated[
        str | None, typer.Option(help="Name to submit under (default: bot.toml's).")
    ] = None,
    version: Annotated[
        str | None, typer.Option(help="Version (default: bot.toml's, else a timestamp).")
    ] = None,
    game: Annotated[str | None, typer.Option(help="Game id (needed for an image).")] = None,
) -> None:
    """Build (or take) a bot image, pin it, play a smoke match against the random sample bot in
    the Docker sandbox, and register the bot if it played a legal match."""
    from arena import registry

    image_id, digest, bot_game, default_name, default_version = _build_or_pin(target, game)
    bot_name = name or default_name
    bot_version = version or default_version or time.strftime("%Y%m%d%H%M%S")
    bot = BotSpec(bot_name, bot_game, image=image_id, version=bot_version, digest=digest)
    result = _smoke_match(bot)
    if result.termination is Termination.INTERNAL:
        raise ConfigError(f"the smoke match could not be played (arena failure): {result.detail}")
    if result.termination is not Termination.NORMAL and result.faulty_seat != 1:
        raise ConfigError(
            f"refused: {bot_name} could not play a legal match ({result.termination}: "
            f"{result.detail}); log: {result.log}"
        )
    from arena.images import keep_bot_image

    tag = keep_bot_image(image_id, bot_name, bot_version)  # `docker image prune` must spare it
    saved = registry.register(bot_name, bot_version, bot_game, image_id, digest)
    console.print(
        f"[green]submitted[/] {saved.name}@{saved.version} ({saved.game}) image "
        f"{saved.image[:19]} ({tag}) digest {saved.digest[:19]}; smoke match {result.totals[0]}:"
        f"{result.totals[1]}. Use it as [bold]{saved.name}[/] in `arena match`.",
        highlight=False,
    )


@bots_app.command("list")
@handle_errors
def list_bots(
    output: Annotated[
        OutputFormat, typer.Option("--format", help="human or json.")
    ] = OutputFormat.human,
) -> None:
    """Show every submitted bot and version."""
    from arena import registry

    bots = registry.list_bots()
    if output is OutputFormat.json:
        print_json([b.__dict__ for b in bots])
        return
    table = Table(title="submitted bots")
    for column in ("name", "version", "game", "image", "digest", "submitted"):
        table.add_column(column)
    for bot in bots:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(bot.created))
        table.add_row(bot.name, bot.version, bot.game, bot.image[:19], bot.digest[:19], when)
    console.print(table)


def _build_base(force: bool, flavor: str = "python") -> None:
    from arena.images import build_base_image

    started = time.monotonic()
    with console.status(f"building the {flavor} base image") as status:

        def progress(step: str) -> None:
            console.print(f"  {time.monotonic() - started:5.1f}s {step}", highlight=False)
            status.update(step)

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
        str, typer.Option(help="python (the arena's Python runtime and SDK) or node (Node.js, "
                          "for bots in JavaScript: `base = \"node\"` in their bot.toml).")
    ] = "python",
) -> None:
    """Build a bot base image locally (debootstrap of Debian, no registry; needs root).

    Reused while its inputs (Debian mirror, packages, the arena runtime) are unchanged."""
    from arena.images import flavor as check_flavor

    check_flavor(flavor)
    _build_base(force, flavor)


@images_app.command("wheels")
@handle_errors
def wheels(
    dest: Annotated[Path, typer.Argument(help="Where to put the wheels, e.g. mybot/wheels.")],
) -> None:
    """Put the bot runtime's wheels (arena, grpcio, protobuf for CPython 3.11) into DEST.

    For bot images built FROM a public Python image (the sample Dockerfiles' default): copy
    them into the bot directory as `wheels/` and the Dockerfile installs them offline. Images
    built on `arena images build-base` already have the runtime and skip that step.
    """
    from arena.images import prepare_wheels

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
    from arena import registry
    from arena.images import prune_images

    keep = {bot.image for bot in registry.list_bots()}
    with console.status("looking for images to prune"):
        results = prune_images(keep, dry_run=dry_run)
    table = Table(title="arena images" + (" (dry run)" if dry_run else ""))
    for column in ("image", "kind", "own size", "outcome"):
        table.add_column(column, justify="right" if column == "own size" else "left")
    for item in results:
        if item.reason:
            outcome = f"kept: {item.reason}"
        else:
            outcome = "would be removed" if dry_run else "[green]removed[/]"
        table.add_row(item.image_id[7:19], item.kind, _size(item.size), outcome)
    console.print(table)
    gone = [r for r in results if r.removed or (dry_run and not r.reason)]
    verb = "would remove" if dry_run else "removed"
    freed = _size(sum(r.size for r in gone))
    console.print(
        f"{verb} {len(gone)} of {len(results)} arena images ({freed} of their own)",
        highlight=False,
    )


def _size(n: int) -> str:
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n / 1024:.1f} KiB"
