"""Reading the repository's Markdown: fenced code blocks, the shell commands in them, the
`arena` command lines among those, relative links and the anchors GitHub makes of headings."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"

SHELL_LANGUAGES = ("bash", "sh", "shell", "console")
_FENCE = re.compile(r"^(```+|~~~+)\s*([\w+-]*)")
_OPERATORS = ("&&", "||", ";", "&", "|")


@dataclass(frozen=True)
class Block:
    """One fenced code block: its language, the line of its first line of code, its text."""

    path: Path
    language: str
    line: int
    text: str

    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


@dataclass(frozen=True)
class Command:
    """One simple command of a shell block (split at `&&`, `||`, `;`, `&` and `|`)."""

    block: Block
    line: int
    words: tuple[str, ...]

    def where(self) -> str:
        return f"{self.block.path.relative_to(ROOT)}:{self.line}"

    def arena_args(self) -> tuple[str, ...] | None:
        """The arguments of an `arena` command line (`arena`, `.venv/bin/arena` or `sudo arena`;
        redirections dropped), or None when the command runs another program."""
        words = list(self.words)
        while words and (words[0] in ("sudo", "exec", "time") or _is_assignment(words[0])):
            words.pop(0)
        if not words or not (words[0] == "arena" or words[0].endswith("/bin/arena")):
            return None
        args: list[str] = []
        skip = False
        for word in words[1:]:
            if skip:
                skip = False
            elif word in ("<", ">", ">>", "2>", "2>&1"):
                skip = word != "2>&1"
            elif word[:1] in "<>" or word.startswith("2>"):
                continue
            else:
                args.append(word)
        return tuple(args)


def _is_assignment(word: str) -> bool:
    return re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word) is not None


def blocks(path: Path) -> Iterator[Block]:
    """Every fenced code block of a Markdown file, in order."""
    fence = ""
    language = ""
    start = 0
    body: list[str] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = _FENCE.match(line)
        if not fence and match:
            fence, language, start, body = match.group(1), match.group(2).lower(), number + 1, []
        elif fence and line.strip() == fence:
            yield Block(path, language, start, "\n".join(body))
            fence = ""
        elif fence:
            body.append(line)


def commands(block: Block) -> Iterator[Command]:
    """The simple commands of a shell block, comments dropped, `\\` continuations joined."""
    lines = block.text.splitlines()
    index = 0
    while index < len(lines):
        number = block.line + index
        text = lines[index]
        while text.endswith("\\") and index + 1 < len(lines):
            index += 1
            text = text[:-1] + " " + lines[index]
        index += 1
        lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        words: list[str] = []
        for word in lexer:
            if word in _OPERATORS:
                if words:
                    yield Command(block, number, tuple(words))
                words = []
            else:
                words.append(word)
        if words:
            yield Command(block, number, tuple(words))


def shell_blocks(path: Path) -> list[Block]:
    return [block for block in blocks(path) if block.language in SHELL_LANGUAGES]


def markdown_files() -> list[Path]:
    """The project's Markdown: the README, docs/, and the READMEs beside the code."""
    skip = {".git", ".venv", "node_modules", "state", "build", "dist"}
    found = [path for path in ROOT.rglob("*.md")
             if not skip.intersection(path.relative_to(ROOT).parts)
             and not any(part.endswith(".egg-info") for part in path.parts)]
    return sorted(found)


_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[[^\]]*\]\(([^)\s]+)\)"
                   r"|<img [^>]*src=\"([^\"]+)\"")


def links(path: Path) -> Iterator[tuple[int, str]]:
    """Every link target of a Markdown file outside code, with its line."""
    in_code = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if _FENCE.match(line):
            in_code = not in_code
            continue
        if in_code:
            continue
        for match in _LINK.finditer(re.sub(r"`[^`]*`", "", line)):
            target = next(group for group in match.groups() if group)
            yield number, target


def anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"<[^>]+>", "", heading.strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors of a Markdown file's headings (a repeated heading gets `-1`, `-2`...)."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    in_code = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line):
            in_code = not in_code
            continue
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if in_code or not match:
            continue
        base = anchor(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found
