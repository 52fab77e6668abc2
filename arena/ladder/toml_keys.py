"""Reading a TOML file's keys with errors that name the key and its line: one line, what to do
(the ladder file, ``arena.ladder.config``; the competition file, ``arena.host.config``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.errors import ConfigError


class TomlKeys:
    """A file's text (for line numbers), where it is (for messages) and the checks of its keys:
    ``get`` (a key of a type, with a default or required), ``unknown`` keys, ``positive``
    integers, a ``choice`` among values; every refusal is ``error``: ``ConfigError`` naming the
    key (``section.key``) and its line."""

    def __init__(self, text: str, where: str, source: Path | None) -> None:
        self.lines = text.splitlines()
        self.where = where
        self.base = source.parent if source is not None else Path(".")
        self.source = source
        self.top: Mapping[str, Any] = {}

    def line_of(self, section: str | None, key: str) -> int | None:
        """The 1-based line where ``key`` is set (in ``[section]`` or the top level)."""
        current: str | None = None
        header = re.compile(r"^\s*\[\s*([^\]]+?)\s*\]")
        assign = re.compile(rf"^\s*(\"{re.escape(key)}\"|{re.escape(key)})\s*=")
        for number, line in enumerate(self.lines, start=1):
            m = header.match(line)
            if m:
                current = m.group(1)
                if section is not None and current == section and key == "":
                    return number
                continue
            if current == section and assign.match(line):
                return number
        if section is not None:
            for number, line in enumerate(self.lines, start=1):
                m = header.match(line)
                if m and m.group(1) == section:
                    return number
        return None

    def error(self, section: str | None, key: str, message: str) -> ConfigError:
        name = f"{section}.{key}" if section else key
        line = self.line_of(section, key)
        at = f" (line {line})" if line is not None else ""
        return ConfigError(f"{self.where}: key {name!r}{at}: {message}")

    def get(self, table: Mapping[str, Any], section: str | None, key: str, kind: type,
            default: Any = None, required: bool = False) -> Any:
        if key not in table:
            if required:
                raise self.error(section, key, "is required")
            return default
        value = table[key]
        ok = isinstance(value, kind) and not (kind in (int, float) and isinstance(value, bool))
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value, ok = float(value), True
        if not ok:
            raise self.error(section, key, f"must be {_kind_name(kind)}, got {value!r}")
        return value

    def unknown(self, table: Mapping[str, Any], section: str | None, known: set[str]) -> None:
        for key in table:
            if key not in known:
                raise self.error(
                    section, key, f"unknown key (known: {', '.join(sorted(known))})"
                )

    def positive(self, table: Mapping[str, Any], section: str | None, key: str,
                 default: int) -> int:
        value: int = self.get(table, section, key, int, default)
        if value < 1:
            raise self.error(section, key, f"must be a positive integer, got {value}")
        return value

    def choice(self, table: Mapping[str, Any], key: str, choices: tuple[str, ...],
               default: str) -> str:
        value: str = self.get(table, None, key, str, default)
        if value not in choices:
            raise self.error(None, key, f"must be one of {', '.join(choices)}, got {value!r}")
        return value


def _kind_name(kind: type) -> str:
    return {
        str: "a string", int: "an integer", float: "a number", bool: "true or false",
        list: "a list", dict: "a table",
    }.get(kind, kind.__name__)
