"""The `arena` command: the root only wires the command groups together."""

from __future__ import annotations

import typer

from arena.cli.root import MODULES, new_app, plain_help, register

app = new_app()


def _register() -> None:
    for module in MODULES:
        register(app, module)


PANELS: dict[str, tuple[str, ...]] = {
    "Play, watch, submit": ("match", "play", "watch", "replay", "submit", "run-ladder", "lab"),
    "Results: a ladder's (its file), a competition's (--server)": ("standings", "matches",
                                                                   "verify"),
    "Ladders (their operators)": ("ladder", "sprt", "cluster", "worker", "keys", "serve"),
    "A competition (its contestants)": ("login", "submissions", "select", "logs", "challenge"),
    "A competition (its operator)": ("host", "host-certs", "contestants", "phase", "final"),
    "Bots, images, games": ("games", "bots", "images"),
}
"""`arena --help` by audience: the mission's verbs first, then each audience's commands (every
command is in exactly one panel: tests/cli/test_help.py)."""


def _arrange(root: typer.Typer) -> None:
    """Put each command in its panel, in the order of ``PANELS``, and give every command (in
    groups too) its docstring as help with the source's line breaks taken out."""
    order = {name: i for i, name in enumerate(n for names in PANELS.values() for n in names)}
    panel_of = {name: panel for panel, names in PANELS.items() for name in names}
    root.registered_commands.sort(key=lambda c: order.get(c.name or "", len(order)))
    root.registered_groups.sort(key=lambda g: order.get(g.name or "", len(order)))
    for command in root.registered_commands:
        command.rich_help_panel = panel_of.get(command.name or "")
    for group in root.registered_groups:
        group.rich_help_panel = panel_of.get(group.name or "")
    plain_help(root)


_register()
_arrange(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
