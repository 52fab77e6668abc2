"""What a bot's name and version may be: identifiers, the one definition used by ``bot.toml``,
``arena submit --name/--version`` and the catalogue.

A name is Docker's repository-path component, compared ignoring case: letters and digits, with
single ``.`` or ``_``, a double ``__`` or a run of ``-`` between them (``my-bot``, ``greedy_2``,
``v1.strong``), at most :data:`NAME_MAX` characters. A version is a Docker tag: a letter, digit
or ``_``, then those and ``.``/``-``, at most :data:`VERSION_MAX` characters. So the tag that
keeps a submitted bot's image, ``arena-bot/<name lowercased>:<version>``
(:func:`arena.bots.images.tags.bot_tag`), is the name and version themselves: two names that
differ only in case share a tag and cannot both be catalogued, and nothing else is collapsed.
Nothing in a name is markup, an escape sequence or a look-alike letter from another script.

Catalogue rows written before these rules may hold other names (a space, a ``[``): they still
list, resolve and run; only what is written anew is checked.
"""

from __future__ import annotations

import re

from arena.errors import ConfigError
from arena.model import plain_text

NAME_MAX = 64
"""The longest bot name."""
VERSION_MAX = 64
"""The longest bot version."""
_NAME = re.compile(r"[A-Za-z0-9]+(?:(?:[._]|__|-+)[A-Za-z0-9]+)*")
_VERSION = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
NAME_RULE = (f"a bot name is letters and digits with single '.', '_', '__' or '-'s between them "
             f"(e.g. my-bot_2), at most {NAME_MAX} characters, unique ignoring case")
"""The name alphabet in words (quoted by every refusal)."""
VERSION_RULE = (f"a bot version is letters, digits, '_', '.' and '-', not starting with '.' or "
                f"'-' (e.g. 1.2-rc1), at most {VERSION_MAX} characters")
"""The version alphabet in words (quoted by every refusal)."""
_SHOWN_CHARS = 40


def name_problem(value: str) -> str | None:
    """Why ``value`` is not a bot name (see the module docstring), or None."""
    return _problem(value, _NAME, NAME_MAX)


def version_problem(value: str) -> str | None:
    """Why ``value`` is not a bot version (see the module docstring), or None."""
    return _problem(value, _VERSION, VERSION_MAX)


def _problem(value: str, pattern: re.Pattern[str], longest: int) -> str | None:
    if not value:
        return "is empty"
    if len(value) > longest:
        return f"is {len(value)} characters long (at most {longest})"
    if pattern.fullmatch(value) is None:
        return "holds characters or separators it may not"
    return None


def shown(value: str) -> str:
    """``value`` as a refusal quotes it: control characters dropped, at most 40 characters,
    in quotes (a bot author controls it)."""
    text = plain_text(value)
    return repr(text[:_SHOWN_CHARS]) + ("…" if len(text) > _SHOWN_CHARS else "")


def check_name(what: str, value: str, where: str) -> str:
    """``value`` if it is a bot name, else ``ConfigError``: one line naming ``where`` (a file, a
    command), ``what`` (the key or flag), the value and the alphabet."""
    return _check(what, value, where, name_problem(value), NAME_RULE)


def check_version(what: str, value: str, where: str) -> str:
    """``value`` if it is a bot version, else ``ConfigError`` (as :func:`check_name`)."""
    return _check(what, value, where, version_problem(value), VERSION_RULE)


def _check(what: str, value: str, where: str, problem: str | None, rule: str) -> str:
    if problem is not None:
        raise ConfigError(f"{where}: {what} {shown(value)} {problem}: {rule}")
    return value


def name_key(name: str) -> str:
    """What two names must not share to both be catalogued: the repository part of the tag that
    keeps the image. For a bot name that is the name lowercased; a legacy catalogue name (written
    before the alphabet) maps as its tag did then (runs of other characters to one ``-``), so a
    new name cannot take over an old name's tag either."""
    return re.sub(r"[^a-z0-9._-]+", "-", name.lower()).strip("._-") or "bot"


def version_key(version: str) -> str:
    """The tag part of a version: the version itself for a bot version; a legacy catalogue
    version maps as its tag did then."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", version).lstrip(".-")[:128] or "latest"
