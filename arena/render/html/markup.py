"""HTML built as trees of fragments, and a table that stores every distinct fragment once.

A replay page holds hundreds of frames, and consecutive frames differ in a few places (a card
moved, a score changed). Each frame is built here as a tree (``Node``: a tuple of children,
each a ready HTML string or another node); ``FragmentTable`` interns the trees bottom-up, so a
subtree that several frames (or several views of one frame) share is stored once and a frame
costs only its new parts. The page's player joins a frame's fragments back into HTML. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape

Node = tuple["Markup", ...]
"""A fragment made of other fragments, joined in order."""
Markup = str | Node
"""An HTML string (already escaped) or a node."""


def text(value: object) -> str:
    """``value`` as HTML text (escaped)."""
    return escape(str(value), quote=True)


def attrs(values: Mapping[str, object | None]) -> str:
    """`` name="value"`` for each attribute (escaped); None leaves an attribute out. Names with
    an underscore are written with a hyphen (``data_card`` → ``data-card``)."""
    return "".join(f' {name.replace("_", "-")}="{text(value)}"'
                   for name, value in values.items() if value is not None)


def el(tag: str, cls: str | None = None, *children: Markup, **attributes: object | None
       ) -> Node:
    """An element: ``<tag class=cls attributes>children</tag>`` as a node."""
    opening = f"<{tag}{attrs({'class': cls, **attributes})}>"
    return (opening, *children, f"</{tag}>")


def leaf(tag: str, cls: str | None, content: object, **attributes: object | None) -> str:
    """A small element with text content as one HTML string (a leaf of the tree)."""
    return f"<{tag}{attrs({'class': cls, **attributes})}>{text(content)}</{tag}>"


def join(children: Iterable[Markup]) -> Node:
    """Children side by side, as one node."""
    return tuple(children)


def render(markup: Markup) -> str:
    """The HTML of a fragment tree."""
    if isinstance(markup, str):
        return markup
    return "".join(render(child) for child in markup)


class FragmentTable:
    """Interns fragment trees: every distinct string and every distinct node gets one index.

    ``entries`` is what the page embeds: a string entry is HTML; a list entry is the indexes of
    its children, joined in order.
    """

    def __init__(self) -> None:
        self.entries: list[str | list[int]] = []
        self._strings: dict[str, int] = {}
        self._nodes: dict[tuple[int, ...], int] = {}

    def add(self, markup: Markup) -> int:
        """The index of ``markup`` (stored on first sight)."""
        if isinstance(markup, str):
            index = self._strings.get(markup)
            if index is None:
                index = self._strings[markup] = len(self.entries)
                self.entries.append(markup)
            return index
        key = tuple(self.add(child) for child in _flat(markup))
        if len(key) == 1:
            return key[0]
        index = self._nodes.get(key)
        if index is None:
            index = self._nodes[key] = len(self.entries)
            self.entries.append(list(key))
        return index

    def html(self, index: int) -> str:
        """The HTML of an entry (what the page's player builds from it)."""
        entry = self.entries[index]
        if isinstance(entry, str):
            return entry
        return "".join(self.html(child) for child in entry)


def _flat(node: Node) -> list[Markup]:
    """The children, empty ones dropped and nested plain groups (tuples that are not elements:
    no opening tag first) spliced in, so that a node's entry lists real parts only."""
    out: list[Markup] = []
    for child in node:
        if not child:
            continue
        if isinstance(child, tuple) and not (isinstance(child[0], str)
                                             and child[0].startswith("<")):
            out.extend(_flat(child))
        else:
            out.append(child)
    return out
