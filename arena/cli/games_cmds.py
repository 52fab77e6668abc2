"""`arena games list` (the installed games, where each comes from, its gate status) and `arena
games check DIST_OR_MODULE` (the conformance gate on a game: ``arena.gate``).

The commands parse their arguments, call into ``arena.games`` and ``arena.gate`` and
print. Everything a game package controls (its title, an exception's message in a check's
detail) is printed as plain text, never markup. A locator that names no game is one line and
exit 2; a game that fails the gate exits 1 after its report.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli.common import (
    OutputFormat,
    console,
    err_console,
    handle_errors,
    notice,
    print_json,
    print_json_lines,
)
from arena.errors import UnknownGameError
from arena.games import load_plugin, plugin, plugin_problems, plugins
from arena.render.games import games_table, gate_table
from arena.render.text import plain

games_app = typer.Typer(help="Game packages: list the installed games, run the conformance "
                             "gate on one.", no_args_is_help=True)

def register(app: typer.Typer) -> None:
    """Add the `games` group to the root app."""
    app.add_typer(games_app, name="games")


@games_app.command("list")
@handle_errors
def games_list(
    output: Annotated[OutputFormat, typer.Option("--format", help="human or json.")] =
    OutputFormat.human,
) -> None:
    """The installed games: id, title, rules version, the distribution that registered each
    (and its version), where its code lives and whether it passed the conformance gate
    (`arena games check ID` runs it; ladders run it once per version of a game); where a game
    package's .proto is (for typed bots). Entry points that are not games are listed below,
    one line each."""
    rows = [_row(found) for found in plugins()]
    problems = plugin_problems()
    if output is OutputFormat.json:  # a game a line; what is not a game on stderr, as below
        print_json_lines(rows)
        for problem in problems:
            err_console.print(notice("not a game", "yellow", problem))
        return
    console.print(games_table(rows))
    for row in rows:
        if row["proto"] and row["distribution"] != "arena":
            console.print(plain(f"{row['id']}'s messages (for typed bots): {row['proto']}"),
                          soft_wrap=True)
    for problem in problems:
        err_console.print(notice("not a game", "yellow", problem))


def _row(found: Any) -> dict[str, Any]:
    """What `list` shows of one plugin (an engine that cannot be loaded says so as its
    title)."""
    # start-up: `arena` imports it for this command only (the gate)
    from arena.gate import gate_status, package_root

    try:
        engine = found.load("engine")
        title, version = str(engine.title), str(engine.version)
    except Exception as exc:  # noqa: BLE001 — a broken package is a row, not a crash
        title, version = f"cannot load its engine: {type(exc).__name__}: {exc}", "?"
    report = gate_status(found)
    gate = "not run" if report is None else ("passed" if report.passed else "FAILED")
    source = package_root(found.engine)
    return {"id": found.id, "title": title, "version": version,
            "distribution": found.distribution or "(not installed)",
            "dist_version": found.dist_version, "entry_point": found.entry_point,
            "source": "" if source is None else _shown_path(source), "gate": gate,
            "failed": [] if report is None else list(report.failed),
            "proto": _proto_path(found)}


def _proto_path(found: Any) -> str:
    """Where the game's shipped ``.proto`` is ("" when it ships none, or it is missing)."""
    if not found.proto:
        return ""
    package, _, path = found.proto.partition(":")
    try:
        shipped = resources.files(package).joinpath(path)
    except (ImportError, TypeError, ValueError):
        return ""
    return _shown_path(Path(str(shipped))) if shipped.is_file() else ""


@games_app.command("check")
@handle_errors
def games_check(
    locator: Annotated[str, typer.Argument(
        metavar="DIST_OR_MODULE",
        help="An installed game id or distribution (arena-goofspiel), a module whose PLUGIN is "
             "a GamePlugin (arena_goofspiel), or module:attr.")],
    matches: Annotated[int, typer.Option(min=1, max=50, help="Seeded random matches each check "
                                         "plays through.")] = 3,
    output: Annotated[OutputFormat, typer.Option("--format", help="human or json.")] =
    OutputFormat.human,
) -> None:
    """Run the conformance gate on a game package (installed or not): determinism, the action
    grammar, random playouts that end, is_legal, replay of its logs, the codec round trip, the
    leak test, options, renderers. Prints one row per check (the first failure of each, with
    the seed and decision to reproduce it); exit 1 when a check fails. The verdict is kept for
    ladders and `arena games list` (per version of the package)."""
    # start-up: `arena` imports it for this command only (the gate and the match loop)
    from arena.gate import run_gate, save_report

    found = _as_installed(load_plugin(locator))
    if output is OutputFormat.human:
        err_console.print(plain(f"checking {found.id} ({_origin(found)}): {matches} matches"))
    report = run_gate(found, matches=matches)
    save_report(report)
    if output is OutputFormat.json:
        print_json({**report.to_json(), "distribution": found.distribution,
                    "dist_version": found.dist_version, "entry_point": found.entry_point})
    else:
        console.print(gate_table(report, found.id))
    if not report.passed:
        raise typer.Exit(1)


def _shown_path(path: Path) -> str:
    """``path``, relative to the working directory when it is inside it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _as_installed(found: Any) -> Any:
    """The installed plugin when ``found`` (say, a package's ``PLUGIN`` named by its module) is
    the installed game itself: its verdict is then the one ladders and `list` look up."""
    try:
        installed = plugin(found.id)
    except UnknownGameError:
        return found
    parts = ("engine", "codec", "renderer", "board", "proto", "observation_type", "action_type")
    same = all(getattr(installed, part) == getattr(found, part) for part in parts)
    return installed if same else found


def _origin(found: Any) -> str:
    if found.distribution:
        return f"{found.distribution} {found.dist_version}".strip()
    return f"{found.engine}, not installed"
