"""What a bot's Dockerfile may say, and the Dockerfile the arena builds instead of the author's.

A Dockerfile is the author's: everything it says runs in the Docker daemon, as root, on the host
that builds it. So the arena reads it (:func:`parse_dockerfile`, the way Docker reads it: keywords
in any case, ``\\`` line continuations, comment lines also inside a continuation, blank lines,
JSON and shell forms, ``--flag`` words with quotes and escapes) and allows only instructions that
describe an image, never ones that reach something:

* ``ARG`` (the arena passes ``BASE_IMAGE``, the local base image of bot.toml's ``base``, by id);
* exactly one ``FROM``, of ``${BASE_IMAGE}`` (or ``$BASE_IMAGE``) or ``scratch``: no other image
  (a missing one would be pulled, an existing one may be another author's submitted bot), no
  flags, no stage name, no second stage;
* ``COPY`` of paths of the bot directory: no ``--from`` (how ``COPY --from=arena-bot/rival:2``
  would copy another author's code), no here-document; ``--chown`` and ``--chmod`` are fine;
* ``WORKDIR``, ``ENV``, ``LABEL``, ``USER`` (not root), ``CMD``, ``ENTRYPOINT``, ``STOPSIGNAL``,
  ``SHELL``, ``MAINTAINER``.

Refused, each with one line naming the Dockerfile's line and what to do instead: ``RUN`` (the
arena has no build step; a ``RUN`` runs as root in a build container that can fill the disk or
never end), ``ADD`` (the daemon fetches URLs from the host's network and unpacks archives),
``VOLUME``, ``EXPOSE``, ``HEALTHCHECK``, ``ONBUILD``, parser directives (``# syntax=``,
``# escape=``: they change how the file is read, or pull a front end) and anything unknown.

The daemon never reads the author's file: the build gets :func:`canonical_dockerfile`, each
allowed instruction written again on one line from what was parsed here (flags re-emitted from
their checked values, JSON forms re-serialized), so nothing the daemon's parser would read
differently from this one reaches it. Pure, apart from reading the file.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ConfigError
from arena.model import plain_text

DOCKERFILE = "Dockerfile"
"""The name of a bot directory's Dockerfile."""
MAX_DOCKERFILE_BYTES = 64 * 1024
"""The largest Dockerfile read (a bot's packs files: it needs a few lines)."""
MAX_INSTRUCTIONS = 100
"""The most instructions a bot's Dockerfile may hold (the daemon commits one image each)."""
BASE_ARG = "BASE_IMAGE"
"""The build argument through which the arena passes the local base image (by id)."""

_BASES = ("${BASE_IMAGE}", "$BASE_IMAGE")
_DIRECTIVE = re.compile(r"#[ \t]*[A-Za-z][A-Za-z0-9]*[ \t]*=", re.ASCII)
_CONTINUATION = re.compile(r"\\[ \t]*$")
_KEYWORD = re.compile(r"[A-Za-z]+", re.ASCII)
_ARG_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)
_FLAG_VALUES = {"chown": re.compile(r"[A-Za-z0-9_.:-]+", re.ASCII),
                "chmod": re.compile(r"[0-7]{3,4}", re.ASCII)}
_NUMBER = re.compile(r"[+-]?[0-9]+", re.ASCII)
_QUOTE_LIMIT = 60

_REFUSED = {
    "RUN": "the arena has no build step (a RUN runs as root in the daemon's build container): "
           "build or compile on your machine and COPY the result in",
    "ADD": "ADD fetches URLs through the host's network and unpacks archives: COPY the files "
           "of the bot directory instead",
    "VOLUME": "a bot's container has a read-only root and a small /tmp, no volumes: remove it",
    "EXPOSE": "a bot has no network, only its seat's socket: remove it",
    "HEALTHCHECK": "the arena watches its bots itself: remove it",
    "ONBUILD": "a bot image is not a base for other builds: remove it",
}
_DESCRIBING = ("WORKDIR", "ENV", "LABEL", "STOPSIGNAL", "MAINTAINER")
_COMMANDS = ("CMD", "ENTRYPOINT")


class DockerfileError(ConfigError):
    """A bot's Dockerfile says something the arena does not build (the message names the line
    and what to do instead)."""


@dataclass(frozen=True)
class Instruction:
    """One allowed instruction of a bot's Dockerfile."""

    line: int
    """The line of the author's file it starts on (1-based)."""
    keyword: str
    """Its keyword, upper case (``COPY``)."""
    text: str
    """The instruction as the arena writes it for the daemon: one line."""


# --- reading the file like Docker -----------------------------------------------------------
def read_dockerfile(path: Path) -> str:
    """The text of a bot's Dockerfile, read without following a link. Raises
    :class:`DockerfileError` for a file that is not a regular one, is too big or not UTF-8."""
    shown = plain_text(str(path))
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise DockerfileError(f"cannot read {shown}: {exc.strerror or exc} (it must be a "
                              "regular file of the bot directory, not a link)") from None
    with open(fd, "rb") as stream:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise DockerfileError(f"{shown} is not a regular file: write the Dockerfile itself")
        data = stream.read(MAX_DOCKERFILE_BYTES + 1)
    if len(data) > MAX_DOCKERFILE_BYTES:
        raise DockerfileError(f"{shown} is over {MAX_DOCKERFILE_BYTES // 1024} KiB: a bot's "
                              "Dockerfile only packs files (see docs/bots.md)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DockerfileError(f"{shown} is not UTF-8 text (byte {exc.start}): save it as "
                              "UTF-8") from None


def _physical_lines(text: str, source: str) -> list[str]:
    """The lines as Docker scans them (a byte-order mark and each line's ``\\r`` dropped),
    refusing any character a terminal or a parser could read two ways."""
    lines = [line.removesuffix("\r") for line in text.removeprefix("\ufeff").split("\n")]
    for number, line in enumerate(lines, 1):
        odd = next((c for c in line if c != "\t" and not c.isprintable()), None)
        if odd is not None:
            raise DockerfileError(
                f"{source} line {number}: a control or invisible character (U+{ord(odd):04X}): "
                "a Dockerfile holds printable text, spaces and tabs only")
    return lines


def _check_directives(lines: list[str], source: str) -> None:
    """Refuse parser directives: a ``# name=value`` line in the comments at the top."""
    for number, line in enumerate(lines, 1):
        stripped = line.lstrip(" \t")
        if not stripped.startswith("#"):
            return
        if _DIRECTIVE.match(stripped):
            raise DockerfileError(
                f"{source} line {number}: a parser directive ({_quote(stripped)}) changes how "
                "the file is read or pulls a front end: remove it (or put a word before the =)")


def _is_comment(line: str) -> bool:
    return line.lstrip(" \t").startswith("#")


def _trim_continuation(line: str) -> tuple[str, bool]:
    """The line without its continuation ``\\``, and whether the instruction ends here."""
    match = _CONTINUATION.search(line)
    return (line[:match.start()], False) if match else (line, True)


def _logical_lines(lines: list[str]) -> list[tuple[int, str]]:
    """(first line number, text) of each instruction, continuations joined as Docker joins
    them: comment and blank lines inside a continuation are skipped, not joined."""
    found: list[tuple[int, str]] = []
    index = 0
    while index < len(lines):
        start, raw = index + 1, lines[index].lstrip(" \t")
        index += 1
        if raw.startswith("#"):
            continue
        text, ended = _trim_continuation(raw)
        if ended and not text:
            continue
        while not ended and index < len(lines):
            raw = lines[index]
            index += 1
            if _is_comment(raw) or not raw.strip(" \t"):
                continue
            more, ended = _trim_continuation(raw)
            text += more
        found.append((start, text))
    return found


def _builder_flags(rest: str) -> tuple[str, list[str]]:
    """Docker's ``--flag`` words at the start of an instruction's arguments (quotes removed,
    ``\\`` escapes applied) and the arguments after them."""
    words: list[str] = []
    pos = 0
    while True:
        while pos < len(rest) and rest[pos] in " \t":
            pos += 1
        if not rest.startswith("--", pos):
            return rest[pos:], words
        word, pos = _flag_word(rest, pos)
        if word == "--":
            return rest[pos:], words
        words.append(word)


def _flag_word(rest: str, pos: int) -> tuple[str, int]:
    """One ``--flag`` word starting at ``pos`` and where it ends."""
    word: list[str] = []
    quote = ""
    while pos < len(rest):
        char = rest[pos]
        if not quote and char in " \t":
            break
        if char == quote:
            quote = ""
        elif not quote and char in "'\"":
            quote = char
        else:
            if char == "\\":
                pos += 1
                if pos == len(rest):
                    break
                char = rest[pos]
            word.append(char)
        pos += 1
    return "".join(word), pos


# --- the allow-list -----------------------------------------------------------------------
@dataclass(frozen=True)
class _Line:
    """One logical line being checked: where it is and its parts."""

    source: str
    number: int
    keyword: str
    flags: list[str]
    rest: str

    def refuse(self, why: str) -> DockerfileError:
        return DockerfileError(f"{self.source} line {self.number}: {self.keyword}: {why}")

    def emit(self, rest: str, flags: tuple[str, ...] = ()) -> Instruction:
        return Instruction(self.number, self.keyword, " ".join((self.keyword, *flags, rest)))


def _quote(text: str) -> str:
    text = plain_text(text)
    return repr(text if len(text) <= _QUOTE_LIMIT else text[:_QUOTE_LIMIT] + "…")


def _split(line: str, number: int, source: str) -> _Line:
    text = line.strip(" \t")
    head = text.replace("\t", " ").partition(" ")[0]
    if not _KEYWORD.fullmatch(head):
        raise DockerfileError(f"{source} line {number}: {_quote(head)} is not an instruction a "
                              "bot's Dockerfile may use (see docs/bots.md)")
    if text.endswith("\\"):
        raise DockerfileError(f"{source} line {number}: ends with a \\ but no line follows: "
                              "remove the \\")
    rest, flags = _builder_flags(text[len(head):])
    rest = rest.strip(" \t")
    if rest.startswith("--"):  # after a `--` word: written again, it would read as a flag
        raise DockerfileError(f"{source} line {number}: {head.upper()}: {_quote(rest)}: no "
                              "argument may start with '--' (flags come first)")
    return _Line(source, number, head.upper(), flags, rest)


def _json_list(line: _Line) -> list[str] | None:
    """The JSON (exec) form's list of strings, None for the shell form; a text starting with
    ``[`` must be exactly a JSON array of strings."""
    if not line.rest.startswith("["):
        return None
    try:
        value, end = json.JSONDecoder().raw_decode(line.rest)
    except ValueError:
        value, end = None, 0
    if (not isinstance(value, list) or not all(isinstance(v, str) for v in value)
            or line.rest[end:].strip(" \t")):
        raise line.refuse("a text starting with [ must be a JSON array of strings and nothing "
                          'after it (["python3", "bot.py"]): fix the brackets or quotes')
    return value


def _no_flags(line: _Line) -> None:
    if line.flags:
        raise line.refuse(f"takes no flags ({_quote(line.flags[0])}): remove it")


def _check_from(line: _Line, args: set[str]) -> Instruction:
    _no_flags(line)
    words = line.rest.split()
    if len(words) > 1:
        raise line.refuse("a bot's image has one stage, no stage name: FROM ${BASE_IMAGE} (or "
                          "scratch), build anything else on your machine and COPY it in")
    if not words or words[0] not in (*_BASES, "scratch"):
        shown = _quote(words[0]) if words else "nothing"
        raise line.refuse(f"{shown} is not allowed: build FROM ${{BASE_IMAGE}} (the local base "
                          "image of bot.toml's base, which the arena passes) or FROM scratch")
    if words[0] in _BASES and BASE_ARG not in args:
        raise line.refuse(f"FROM ${{{BASE_ARG}}} needs `ARG {BASE_ARG}` on a line before it")
    return line.emit(words[0])


def _copy_flags(line: _Line) -> tuple[str, ...]:
    flags = []
    for word in line.flags:
        name, equals, value = word[2:].partition("=")
        allowed = _FLAG_VALUES.get(name)
        if name == "from":
            raise line.refuse("--from is not allowed (it copies from another image, such as "
                              "another bot's): COPY the files of the bot directory")
        if allowed is None or not equals or not allowed.fullmatch(value):
            raise line.refuse(f"{_quote(word)} is not allowed: COPY takes only "
                              "--chown=USER[:GROUP] and --chmod=OCTAL")
        flags.append(f"--{name}={value}")
    return tuple(flags)


def _check_copy(line: _Line) -> Instruction:
    flags = _copy_flags(line)
    listed = _json_list(line)
    paths = listed if listed is not None else line.rest.split()
    if "<<" in line.rest:
        raise line.refuse("here-documents are not allowed: put the text in a file of the bot "
                          "directory and COPY it")
    if len(paths) < 2:
        raise line.refuse("needs a source in the bot directory and a destination")
    dashed = next((p for p in paths if p.startswith("-")), None)
    if dashed is not None:
        raise line.refuse(f"{_quote(dashed)}: a path may not start with '-' (flags come first, "
                          "and only --chown and --chmod)")
    return line.emit(json.dumps(listed) if listed is not None else line.rest, flags)


def _check_user(line: _Line) -> Instruction:
    user = line.rest.split(":", 1)[0]
    if "$" in line.rest:
        raise line.refuse("name the user literally (no variables): USER 65534:65534")
    if user == "root" or (_NUMBER.fullmatch(user) and int(user) == 0):
        raise line.refuse("a bot never runs as root (the arena runs it as 65534:65534): "
                          "USER 65534:65534, or no USER line")
    return line.emit(line.rest)


def _check_arg(line: _Line) -> Instruction:
    name = line.rest.split("=", 1)[0]
    if not _ARG_NAME.fullmatch(name):
        raise line.refuse(f"{_quote(line.rest)} is not NAME or NAME=default")
    return line.emit(line.rest)


def _check_other(line: _Line) -> Instruction:
    _no_flags(line)
    listed = _json_list(line) if line.keyword in (*_COMMANDS, "SHELL") else None
    if line.keyword == "SHELL" and listed is None:
        raise line.refuse('takes a JSON array: SHELL ["/bin/sh", "-c"]')
    if listed is not None:
        return line.emit(json.dumps(listed))
    return line.emit(line.rest)


def _check(line: _Line, args: set[str], seen_from: bool) -> Instruction:
    """The instruction as the arena writes it, or :class:`DockerfileError`."""
    keyword = line.keyword
    if keyword == "FROM":
        if seen_from:
            raise line.refuse("a second FROM (multi-stage build): a bot's image has one stage; "
                              "build anything else on your machine and COPY it in")
        return _check_from(line, args)
    if keyword in _REFUSED:
        raise line.refuse(f"not allowed: {_REFUSED[keyword]}")
    if not line.rest:
        raise line.refuse("says nothing after the keyword")
    if keyword == "ARG":
        _no_flags(line)
        return _check_arg(line)
    if not seen_from:
        raise line.refuse("comes before FROM (only ARG may)")
    if keyword == "COPY":
        return _check_copy(line)
    if keyword == "USER":
        _no_flags(line)
        return _check_user(line)
    if keyword in (*_DESCRIBING, *_COMMANDS, "SHELL"):
        return _check_other(line)
    raise line.refuse("not an instruction a bot's Dockerfile may use: ARG, FROM, COPY, WORKDIR, "
                      "ENV, LABEL, USER, CMD, ENTRYPOINT, STOPSIGNAL, SHELL, MAINTAINER")


def parse_dockerfile(text: str, source: str = DOCKERFILE) -> list[Instruction]:
    """The instructions of a bot's Dockerfile, each checked against the allow-list (see the
    module doc). Raises :class:`DockerfileError` naming ``source`` and the first refused line."""
    source = plain_text(source)
    lines = _physical_lines(text, source)
    _check_directives(lines, source)
    found: list[Instruction] = []
    args: set[str] = set()
    for number, logical in _logical_lines(lines):
        if len(found) == MAX_INSTRUCTIONS:
            raise DockerfileError(f"{source} line {number}: more than {MAX_INSTRUCTIONS} "
                                  "instructions: a bot's Dockerfile only packs files")
        line = _split(logical, number, source)
        instruction = _check(line, args, any(i.keyword == "FROM" for i in found))
        if line.keyword == "ARG":
            args.add(line.rest.split("=", 1)[0])
        found.append(instruction)
    if not any(i.keyword == "FROM" for i in found):
        raise DockerfileError(f"{source} has no FROM: begin with ARG {BASE_ARG} and "
                              f"FROM ${{{BASE_ARG}}} (or FROM scratch)")
    return found


def canonical_dockerfile(text: str, source: str = DOCKERFILE) -> str:
    """The Dockerfile the arena gives the daemon for a bot's: its allowed instructions, one a
    line, nothing else. Raises :class:`DockerfileError` as :func:`parse_dockerfile`."""
    return "".join(f"{i.text}\n" for i in parse_dockerfile(text, source))


def check_dockerfile(directory: Path) -> None:
    """Raise :class:`DockerfileError` (a ``ConfigError``) unless the bot directory's Dockerfile
    says only what the arena builds; a directory without a Dockerfile passes."""
    path = Path(directory) / DOCKERFILE
    try:
        os.lstat(path)
    except FileNotFoundError:
        return
    parse_dockerfile(read_dockerfile(path), str(path))
