"""Charts as inline SVG (no script, no library): an interval chart, a line chart, and the
colour scale of a heat map. Pure: numbers in, markup out."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.render.html.markup import attrs, text

PALETTE = ("#2458c6", "#c2410c", "#15803d", "#9333ea", "#b91c1c", "#0e7490", "#a16207",
           "#be185d", "#4d7c0f", "#1e3a8a")
"""Series colours, in order."""


@dataclass(frozen=True)
class Interval:
    """One row of an interval chart: a label, a point and its interval."""

    label: str
    """What the row is (a bot's name)."""
    low: float
    """The interval's lower end."""
    value: float
    """The point (drawn as a dot)."""
    high: float
    """The interval's upper end."""


def ticks(low: float, high: float, count: int = 6, *, integer: bool = False) -> list[float]:
    """Round tick values covering [low, high] (about ``count`` of them; whole numbers only
    with ``integer``)."""
    if high <= low:
        high = low + 1
    raw = (high - low) / max(count - 1, 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    steps = (1, 2, 5, 10) if integer else (1, 2, 2.5, 5, 10)
    step = next(m * magnitude for m in steps if m * magnitude >= raw)
    if integer:
        step = max(1, round(step))
    first = math.floor(low / step) * step
    values = []
    value = first
    while value <= high + step * 1e-9:
        values.append(round(value, 10))
        value += step
    if values[-1] < high:
        values.append(round(value, 10))
    return values


def _scale(value: float, low: float, high: float, start: float, end: float) -> float:
    return start + (value - low) / (high - low) * (end - start) if high > low else start


def _svg(width: int, height: int, label: str, body: list[str]) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg"{attrs({"viewBox": f"0 0 {width} {height}"})}'
            f' width="{width}" height="{height}" role="img"{attrs({"aria-label": label})}>'
            + "".join(body) + "</svg>")


def _line(x1: float, y1: float, x2: float, y2: float, colour: str, width: float = 1,
          extra: str = "") -> str:
    return (f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
            f'stroke="{colour}" stroke-width="{width}"{extra}/>')


def _text(x: float, y: float, value: object, anchor: str = "start", extra: str = "") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{extra}>{text(value)}</text>'


def interval_chart(rows: Sequence[Interval], *, title: str, width: int = 640) -> str:
    """Each row's interval as a bar with a dot at its value, on one shared axis."""
    left, right, row_h, top = 150, 20, 26, 10
    height = top + row_h * len(rows) + 34
    low = min((r.low for r in rows), default=0.0)
    high = max((r.high for r in rows), default=1.0)
    marks = ticks(low, high)
    lo, hi = marks[0], marks[-1]

    def x(value: float) -> float:
        return _scale(value, lo, hi, left, width - right)

    body = [f"<title>{text(title)}</title>"]
    axis_y = top + row_h * len(rows) + 4
    for mark in marks:
        body.append(_line(x(mark), top, x(mark), axis_y, "#d5dae2"))
        body.append(_text(x(mark), axis_y + 14, f"{mark:g}", "middle"))
    for i, row in enumerate(rows):
        y = top + row_h * i + row_h / 2
        body.append(_text(left - 8, y + 4, row.label, "end", ' class="label"'))
        body.append(_line(x(row.low), y, x(row.high), y, PALETTE[i % len(PALETTE)], 6))
        body.append(f'<circle cx="{x(row.value):.1f}" cy="{y:.1f}" r="5" fill="#1d2430">'
                    f"<title>{text(row.label)}: {row.value:.0f} "
                    f"[{row.low:.0f} .. {row.high:.0f}]</title></circle>")
    return _svg(width, height, title, body)


@dataclass(frozen=True)
class _Plot:
    """A plot area: the ticks of both axes, and the pixels they span inside the margins."""

    xs: list[float]
    """The x axis's ticks (the first and the last are its ends)."""
    ys: list[float]
    """The y axis's ticks."""
    width: int
    """The whole chart's width."""
    height: int
    """The whole chart's height."""
    left: int = 56
    """The margin left of the plot (the y axis's numbers)."""
    right: int = 150
    """The margin right of the plot (a legend or labels)."""
    top: int = 12
    """The margin above the plot."""
    bottom: int = 40
    """The margin below the plot (the x axis's numbers and label)."""

    def x(self, value: float) -> float:
        """Where ``value`` lands across."""
        return _scale(value, self.xs[0], self.xs[-1], self.left, self.width - self.right)

    def y(self, value: float) -> float:
        """Where ``value`` lands down (higher values higher up)."""
        return _scale(value, self.ys[0], self.ys[-1], self.height - self.bottom, self.top)

    def axes(self, x_label: str, y_label: str) -> list[str]:
        """Horizontal grid lines at the y ticks, the x axis with its ticks, both labels."""
        left, right, bottom = self.left, self.width - self.right, self.height - self.bottom
        middle = self.top + (bottom - self.top) / 2
        body = []
        for mark in self.ys:
            body.append(_line(left, self.y(mark), right, self.y(mark), "#e4e8ee"))
            body.append(_text(left - 6, self.y(mark) + 4, f"{mark:g}", "end"))
        for mark in self.xs:
            body.append(_line(self.x(mark), bottom, self.x(mark), bottom + 4, "#5b6575"))
            body.append(_text(self.x(mark), bottom + 16, f"{mark:g}", "middle"))
        body.append(_line(left, bottom, right, bottom, "#5b6575"))
        body.append(_text((left + right) / 2, self.height - 6, x_label, "middle"))
        body.append(_text(12, middle, y_label, "middle",
                          f' transform="rotate(-90 12 {middle:.1f})"'))
        return body

    def polyline(self, points: Sequence[tuple[float, float]]) -> str:
        """The ``points`` attribute's value for these data points."""
        return " ".join(f"{self.x(a):.1f},{self.y(b):.1f}" for a, b in points)


def line_chart(series: Mapping[str, Sequence[tuple[float, float]]], *, title: str,
               x_label: str, y_label: str, width: int = 760, height: int = 300) -> str:
    """One polyline per series (points ``(x, y)``), with axes and a legend."""
    points = [p for values in series.values() for p in values]
    whole = all(float(p[0]).is_integer() for p in points)
    xs = ticks(min((p[0] for p in points), default=0.0), max((p[0] for p in points), default=1.0),
               integer=whole)
    ys = ticks(min((p[1] for p in points), default=0.0), max((p[1] for p in points), default=1.0))
    plot = _Plot(xs, ys, width, height)
    body = [f"<title>{text(title)}</title>", *plot.axes(x_label, y_label)]
    for i, (name, values) in enumerate(series.items()):
        colour = PALETTE[i % len(PALETTE)]
        body.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" '
                    f'points="{plot.polyline(values)}"><title>{text(name)}</title></polyline>')
        legend_y = plot.top + 16 * i + 8
        body.append(_line(width - plot.right + 12, legend_y, width - plot.right + 30, legend_y,
                          colour, 3))
        body.append(_text(width - plot.right + 36, legend_y + 4, name))
    return _svg(width, height, title, body)


H1_COLOUR = "#15803d"
"""The upper bound's colour (and its region's tint): accepting H1."""
H0_COLOUR = "#b91c1c"
"""The lower bound's colour (and its region's tint): accepting H0."""
PATH_COLOUR = "#2458c6"
"""The colour of the LLR path."""


def llr_chart(path: Sequence[float], bounds: tuple[float, float], *, title: str,
              x_label: str = "complete pairs", y_label: str = "LLR", width: int = 760,
              height: int = 300) -> str:
    """An SPRT test's LLR path between its two bounds, like fishtest's graph.

    ``path[i]`` is the LLR after ``i + 1`` pairs; the line starts at 0 with no pair. The upper
    bound's line (at or above it H1 is accepted) and the lower bound's (at or below it, H0)
    span the plot, the regions beyond them lightly tinted, each labelled on the right. The
    path's polyline carries ``data-llr-path``, the bound lines ``data-bound="H1"`` / ``"H0"``."""
    lower, upper = bounds
    points = [(0.0, 0.0), *((float(i), value) for i, value in enumerate(path, start=1))]
    plot = _Plot(ticks(0.0, float(max(len(path), 1)), integer=True),
                 ticks(min([lower, *path]), max([upper, *path])), width, height, right=120)
    left, right = plot.left, width - plot.right
    body = [f"<title>{text(title)}</title>"]
    for edge, bound, colour in ((plot.ys[-1], upper, H1_COLOUR), (plot.ys[0], lower, H0_COLOUR)):
        top, bottom = sorted((plot.y(edge), plot.y(bound)))
        body.append(f'<rect x="{left}" y="{top:.1f}" width="{right - left}" '
                    f'height="{bottom - top:.1f}" fill="{colour}" fill-opacity="0.07"/>')
    body.extend(plot.axes(x_label, y_label))
    body.append(_line(left, plot.y(0.0), right, plot.y(0.0), "#8a93a3", 1,
                      ' stroke-dasharray="2 3"'))
    for key, bound, colour in (("H1", upper, H1_COLOUR), ("H0", lower, H0_COLOUR)):
        body.append(_line(left, plot.y(bound), right, plot.y(bound), colour, 2,
                          f' stroke-dasharray="7 4" data-bound="{key}"'))
        body.append(_text(right + 8, plot.y(bound) + 4, f"{key} {bound:+.2f}", "start",
                          f' style="fill:{colour}"'))
    last_x, last_y = points[-1]
    body.append(f'<polyline fill="none" stroke="{PATH_COLOUR}" stroke-width="2" '
                f'stroke-linejoin="round" data-llr-path="" points="{plot.polyline(points)}">'
                f"<title>LLR after each complete pair</title></polyline>")
    body.append(f'<circle cx="{plot.x(last_x):.1f}" cy="{plot.y(last_y):.1f}" r="3.5" '
                f'fill="{PATH_COLOUR}"><title>after {last_x:g} pairs: LLR {last_y:+.2f}'
                "</title></circle>")
    return _svg(width, height, title, body)


def heat_colour(rate: float) -> str:
    """A background colour for a score rate in [0, 1]: red (0) through white to green (1)."""
    rate = min(max(rate, 0.0), 1.0)
    if rate < 0.5:
        t = rate / 0.5
        red, green, blue = 230 + 25 * t, 120 + 135 * t, 110 + 145 * t
    else:
        t = (rate - 0.5) / 0.5
        red, green, blue = 255 - 145 * t, 255 - 50 * t, 255 - 140 * t
    return f"rgb({red:.0f},{green:.0f},{blue:.0f})"


# --- a knockout's bracket --------------------------------------------------------------------
@dataclass(frozen=True)
class BracketSeat:
    """One side of a tie in a bracket chart."""

    label: str
    """The player as shown (``(1) alpha``), ``bye`` or ``?`` (not known yet)."""
    score: str
    """Its score over the tie's encounters (``1.5``), "" before any."""
    won: bool
    """It went through."""


@dataclass(frozen=True)
class BracketBox:
    """One tie of a bracket chart."""

    round: int
    """0 for the first round."""
    slot: int
    """Top to bottom within the round; slots ``2s`` and ``2s + 1`` feed slot ``s`` of the next
    round."""
    seats: tuple[BracketSeat, BracketSeat]
    note: str
    """One short line under the players: how it was decided, or what it waits for."""
    detail: str
    """The tooltip: every encounter's score."""


BRACKET_COLUMN = 230
"""A round's width in a bracket chart."""
_LABEL_CHARS = 26
"""The longest label drawn in a bracket box (a longer one ends in … and shows in full in the
tooltip)."""


_NOTE_CHARS = 34
"""The longest note drawn under a bracket box's players."""


def _clip(label: str, most: int = _LABEL_CHARS) -> str:
    return label if len(label) <= most else label[:most - 1] + "…"


def bracket_chart(rounds: Sequence[str], boxes: Sequence[BracketBox], *, title: str,
                  champion: str | None = None) -> str:
    """A single-elimination bracket: one column per round (``rounds`` are their names), each
    tie a box with its two players and scores (the one who went through in bold), a line
    under them (``note``) and a tooltip (``detail``); lines join each tie to the tie it feeds,
    and the champion stands right of the final. Boxes carry ``data-tie="round-slot"``."""
    gap, box_w, box_h, unit, top, left = 34, BRACKET_COLUMN - 34, 50, 62, 30, 10
    first = max((b.slot for b in boxes if b.round == 0), default=0) + 1
    width = left + BRACKET_COLUMN * len(rounds) + (190 if champion is not None else 10)
    height = top + unit * max(first, 1) + 10

    def x(round_: int) -> float:
        return left + round_ * BRACKET_COLUMN

    def middle(box: BracketBox) -> float:
        return top + (box.slot + 0.5) * unit * float(2 ** box.round)

    body = [f"<title>{text(title)}</title>"]
    for index, name in enumerate(rounds):
        body.append(_text(x(index) + box_w / 2, 16, name, "middle", ' font-weight="bold"'))
    for box in boxes:
        body.extend(_bracket_box(box, x(box.round), middle(box) - box_h / 2, box_w, box_h))
        if box.round + 1 < len(rounds):
            y, parent_y = middle(box), top + (box.slot // 2 + 0.5) * unit * 2.0 ** (box.round + 1)
            elbow = x(box.round) + box_w + gap / 2
            body.append(f'<polyline fill="none" stroke="#8a93a3" stroke-width="1" points="'
                        f'{x(box.round) + box_w:.1f},{y:.1f} {elbow:.1f},{y:.1f} '
                        f'{elbow:.1f},{parent_y:.1f} {x(box.round + 1):.1f},{parent_y:.1f}"/>')
    if champion is not None and rounds:
        y = top + unit * 2 ** (len(rounds) - 1) / 2
        body.append(_line(x(len(rounds) - 1) + box_w, y, x(len(rounds)), y, "#8a93a3"))
        body.append(_text(x(len(rounds)) + 4, y + 4, f"champion: {_clip(champion)}", "start",
                          ' font-weight="bold" data-champion=""'))
    return _svg(width, height, title, body)


def _bracket_box(box: BracketBox, x0: float, y0: float, width: float, height: float
                 ) -> list[str]:
    body = [f'<g data-tie="{box.round}-{box.slot}"><title>{text(box.detail)}</title>',
            f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{width:.1f}" height="{height:.1f}" '
            'rx="4" fill="#ffffff" stroke="#b6bfcc"/>']
    for row, seat in enumerate(box.seats):
        y = y0 + 15 + 15 * row
        weight = ' font-weight="bold"' if seat.won else ""
        body.append(_text(x0 + 6, y, _clip(seat.label), "start", weight))
        body.append(_text(x0 + width - 6, y, seat.score, "end", weight))
    body.append(_text(x0 + 6, y0 + height - 5, _clip(box.note, _NOTE_CHARS), "start",
                      ' style="fill:#5b6575"'))
    body.append("</g>")
    return body
