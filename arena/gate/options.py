"""``options``: defaults complete and stable; unknown keys and values out of range or outside
the choices refused."""

from __future__ import annotations

from typing import Any

from arena.errors import OptionsError
from arena.gate.report import CheckFailed
from arena.gate.subject import Subject


def check_options(subject: Subject) -> str:
    """Defaults complete and stable; unknown keys and bad values refused."""
    game = subject.game
    defaults = game.options_of(game.new_match(1))
    names = {spec.name for spec in game.option_specs}
    if set(defaults) != names:
        raise CheckFailed(f"options_of gives {sorted(defaults)}, the specs name {sorted(names)}")
    if game.options_of(game.new_match(1, defaults)) != defaults:
        raise CheckFailed("the defaults, given back to new_match, are not the options played")
    bad: list[tuple[str, dict[str, Any]]] = [("an unknown option",
                                              {"no_such_option_of_the_gate": 1})]
    for spec in game.option_specs:
        if spec.minimum is not None:
            bad.append((f"{spec.name} below its minimum", {spec.name: spec.minimum - 1}))
        if spec.maximum is not None:
            bad.append((f"{spec.name} above its maximum", {spec.name: spec.maximum + 1}))
        if spec.choices is not None and isinstance(spec.default, str):
            bad.append((f"{spec.name} outside its choices", {spec.name: "no-such-choice"}))
    for what, options in bad:
        subject.where = f"options {options}"
        try:
            game.new_match(1, options)
        except OptionsError:
            continue
        raise CheckFailed(f"new_match accepts {what} ({options}): it must raise OptionsError")
    return f"{len(names)} options: defaults complete; {len(bad)} bad option sets refused"
