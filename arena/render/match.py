"""Pure rendering of results, reports and watch frames (data in, rich renderables out).

Every recorded string (a bot's name, a match id, a detail, an answer, a path) is shown through
``arena.render.text.plain``: as literal text, never markup, with no control characters."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from arena.model import (
    DecisionEvent,
    HeaderEvent,
    MatchEndEvent,
    MatchEvent,
    MatchResult,
    RoundEndEvent,
)
from arena.render.tables import Col, Look, fitted_table
from arena.render.text import Fitted, plain

if TYPE_CHECKING:
    from arena.record.replay import ReplayReport
    from arena.record.signing import LogSignature
    from arena.stats.resources import BotStats, Spread


def _winner_text(bots: Sequence[str], winner: int | None, void: bool) -> Text:
    if void:
        return Text("void (not rated)", style="bold yellow")
    if winner is None:
        return Text("draw", style="bold")
    return plain(f"{bots[winner]} (seat {winner})", style="bold green")


def render_match_result(result: MatchResult) -> RenderableType:
    """A summary: per-round scores, totals, winner and termination."""
    table = Table(title=plain(f"{result.game} · match {result.match_id} · seed {result.seed}"))
    table.add_column("round", justify="right")
    table.add_column(plain(f"{result.bots[0]} (seat 0)"), justify="right")
    table.add_column(plain(f"{result.bots[1]} (seat 1)"), justify="right")
    for index, (a, b) in enumerate(result.rounds, start=1):
        table.add_row(str(index), str(a), str(b))
    table.add_row("total", str(result.totals[0]), str(result.totals[1]), style="bold")
    lines = Text.assemble(
        ("winner: ", "dim"), _winner_text(result.bots, result.winner, result.void), "\n",
        ("termination: ", "dim"),
        (str(result.termination), "green" if str(result.termination) == "normal" else "red"),
    )
    if result.faulty_seat is not None:
        lines.append_text(plain(f"  (seat {result.faulty_seat}: "
                                f"{result.bots[result.faulty_seat]})"))
    if result.detail:
        lines.append_text(plain(f"\ndetail: {result.detail.splitlines()[0][:600]}", "dim"))
    lines.append(f"\n{result.decisions} decisions in {result.duration_s:.2f} s", style="dim")
    if result.log:
        lines.append_text(plain(f"\nlog: {result.log}", "dim"))
    return Group(table, lines)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _spread(spread: Spread | None, with_max: bool = True) -> str:
    """``median / p95 / max`` in ms (``-`` when nothing was recorded)."""
    if spread is None:
        return "-"
    figures = (spread.median, spread.p95, spread.max) if with_max else (spread.median,
                                                                        spread.p95)
    return " / ".join(_ms(v) for v in figures)


def _memory(value: int | None) -> str:
    return "-" if value is None else f"{value / 2**20:.1f} MiB"


def _bank(stats: BotStats) -> str:
    if stats.bank_left_ms is None:
        return "-"
    return f"{_ms(stats.bank_left_ms)} left · {_ms(stats.bank_drawn_ms)} drawn"


def render_bot_stats(stats: Sequence[BotStats], title: str = "resource statistics"
                     ) -> Fitted:
    """Per-bot resource statistics (``arena.stats.resources``): decisions, CPU and wall time per
    decision (median / p95 / max, ms), the gap wall − CPU (median / p95: what the host cost
    it), start-up time (median), peak memory and the time bank (the least left, drawn in
    total). "-": not recorded (a log before format 5, or no CPU meter). The bot is never cut;
    at 80 columns the clock, the bank, the start-up, the gap and the wall time go first."""
    several = any(s.matches > 1 for s in stats)
    columns = [Col("bot", keep=True), Col("matches", "right"), Col("moves", "right"),
               Col("CPU ms", "right"), Col("wall ms", "right", drop=5),
               Col("gap ms", "right", drop=4), Col("start ms", "right", drop=3),
               Col("peak mem", "right", drop=6), Col("bank ms", "right", drop=2)]
    if not several:
        del columns[1]
    kinds = {" · ".join(x for x in (s.clock, s.meter) if x) or "-" for s in stats}
    shared = len(kinds) == 1
    if not shared:
        columns.append(Col("clock · meter", drop=1))
    rows = []
    for s in stats:
        row: list[str | Text] = [
            plain(s.bot), str(s.matches), str(s.decisions), _spread(s.cpu_ms),
            _spread(s.wall_ms), _spread(s.gap_ms, with_max=False),
            _ms(None if s.startup_ms is None else s.startup_ms.median),
            _memory(s.peak_memory_bytes), _bank(s)]
        if not several:
            del row[1]
        if not shared:
            row.append(plain(" · ".join(x for x in (s.clock, s.meter) if x) or "-"))
        rows.append(row)
    caption = ("CPU, wall: median / p95 / max ms a decision; gap: wall − CPU (what the host "
               "cost), median / p95")
    if shared and kinds != {"-"}:
        caption += f"; clock · meter: {next(iter(kinds))}"
    return fitted_table(columns, rows, look=Look(plain(title),
                                                 plain(caption + "; - : not recorded")))


def render_replay_report(report: ReplayReport, signature: LogSignature | None = None
                         ) -> RenderableType:
    """What `arena replay` verified, step by step: the signature (``signature``: the log's
    ``LogSignature`` or None), the seed, the rules."""
    if signature is None:
        signed = Text("unsigned", style="yellow")
    elif signature.verified:
        signed = plain(f"verified (key {signature.key_id})", style="bold green")
    else:
        signed = plain(f"signed by key {signature.key_id}, not checked (give --key PUB)",
                       style="yellow")
    status = "finished" if report.finished else "still running (verified so far)"
    text = Text.assemble(
        ("signature: ", "dim"), signed, "\n", ("seed: ", "dim"), plain(str(report.seed)), "\n",
        ("rules: ", "dim"), ("✓ ", "bold green"),
        plain(f"{report.match_id}: {report.decisions} decisions and {len(report.rounds)} round "
              f"score(s) agree with the {report.game} rules engine; match {status}."),
    )
    if report.result:
        text.append(f"\nresult: totals {list(report.result.totals)}, winner "
                    f"{report.result.winner}, termination {report.result.termination}")
    return text


def render_moves(events: Sequence[MatchEvent], bots: Sequence[str], limit: int = 12
                 ) -> RenderableType:
    """The last decisions, newest last."""
    table = Table(title="moves", expand=True, show_edge=False)
    table.add_column("#", justify="right", style="dim")
    table.add_column("bot")
    table.add_column("action")
    table.add_column("ms", justify="right", style="dim")
    decisions = [e for e in events if isinstance(e, DecisionEvent)]
    for event in decisions[-limit:]:
        action = plain(event.action or "(no answer)")
        if event.fault is not None:
            action = Text.assemble(action, (f"  {event.fault}: forfeit", "bold red"))
        table.add_row(str(event.n), plain(bots[event.seat]), action, f"{event.ms:.1f}")
    return table


def render_scores(events: Sequence[MatchEvent], bots: Sequence[str]) -> RenderableType:
    table = Table(title="round scores", show_edge=False)
    table.add_column("round", justify="right")
    table.add_column(plain(bots[0]), justify="right")
    table.add_column(plain(bots[1]), justify="right")
    totals = (0, 0)
    for event in events:
        if isinstance(event, RoundEndEvent):
            scores, totals = event.scores, event.totals
            table.add_row(str(event.round + 1), str(scores[0]), str(scores[1]))
    table.add_row("total", str(totals[0]), str(totals[1]), style="bold")
    return table


def render_frame(
    board: RenderableType, events: Sequence[MatchEvent], header: HeaderEvent,
    seat: int | None,
) -> RenderableType:
    """One screen of `arena watch`: the board, the latest moves, the scores, the ending."""
    bots = header.bot_names
    title = f"{header.game} · {bots[0]} vs {bots[1]} · "
    if seat is None:  # the seed determines every deal: only the omniscient view shows it
        seed = "seed committed" if header.seed is None else f"seed {header.seed}"
        title += f"{seed} · omniscient view"
    else:
        title += f"seat {seat} view ({bots[seat]})"
    parts: list[RenderableType] = [board]
    grid = Table.grid(expand=True, padding=(0, 2))
    grid.add_column(ratio=3)
    grid.add_column(ratio=2)
    grid.add_row(render_moves(events, bots), render_scores(events, bots))
    parts.append(grid)
    end = next((e for e in events if isinstance(e, MatchEndEvent)), None)
    if end is not None:
        result = end.result
        parts.append(Text.assemble(("match over: ", "bold"),
                                   _winner_text(bots, result.winner, result.void),
                                   f" · totals {list(result.totals)} · {result.termination}"))
        if result.detail:  # why a match ended early: an illegal action's reason, a crash, ...
            parts.append(plain(result.detail.splitlines()[0][:300], "dim"))
    return Panel(Group(*parts), title=plain(title), title_align="left")
