"""The style sheet and the player script: inline in a page on its own, or one shared file each
in a site (``SHARED``: named by their content's hash, so a browser that cached an older player
never mixes it with a newer page).

The player has no rules code: it shows the frames the rules engine computed (joined from the
page's fragment table), and moves between them. Pure constants.
"""

from __future__ import annotations

import hashlib

STYLE = r"""
:root { --ink: #1d2430; --muted: #5b6575; --line: #d5dae2; --paper: #f6f7f9; --panel: #fff;
  --accent: #2458c6; --good: #1f7a3d; --bad: #b3261e; --seat0: #0f6e8c; --seat1: #8a3ba6; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 "DejaVu Sans", "Helvetica Neue", Arial, sans-serif;
  color: var(--ink); background: var(--paper); }
header.top { padding: 12px 20px 6px; }
h1 { font-size: 20px; margin: 0 0 2px; }
h2 { font-size: 15px; margin: 14px 0 6px; }
.meta, .keys, .dim { color: var(--muted); }
.meta { margin: 0; font-size: 12.5px; }
.keys { margin: 4px 0 0; font-size: 12px; }
.note { margin: 8px 20px; padding: 8px 12px; border-radius: 6px; background: #fff4d6;
  border: 1px solid #e8c65a; }
.player { padding: 6px 20px 8px; background: var(--panel); border-top: 1px solid var(--line);
  border-bottom: 1px solid var(--line); position: sticky; top: 0; z-index: 2; }
.controls { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 10px; }
.controls button { font: inherit; min-width: 34px; padding: 3px 8px; border: 1px solid var(--line);
  border-radius: 5px; background: #eef1f6; cursor: pointer; }
.controls button:hover { background: #e0e6f0; }
.controls input[type=range] { flex: 1 1 220px; min-width: 160px; }
.controls select { font: inherit; }
#counter { min-width: 150px; font-variant-numeric: tabular-nums; }
.layout { display: grid; grid-template-columns: minmax(0, 1fr) 330px; gap: 16px;
  padding: 12px 20px 24px; align-items: start; }
@media (max-width: 900px) { .layout { grid-template-columns: 1fr; } }
.board, .side { background: var(--panel); border: 1px solid var(--line); border-radius: 8px;
  padding: 12px 14px; }
.side { max-height: calc(100vh - 150px); overflow: auto; position: sticky; top: 90px; }
.side h2 { margin-top: 0; }
.status { font-weight: bold; margin: 0 0 8px; }
.status .to-move { color: var(--accent); }
#moves { list-style: none; margin: 0; padding: 0; font-size: 12.5px; }
#moves li { padding: 1px 4px; border-radius: 4px; display: flex; gap: 6px; }
#moves li.move { cursor: pointer; }
#moves li.move:hover { background: #eef1f6; }
#moves li.current { background: #dce7ff; }
#moves .n { color: var(--muted); min-width: 2.6em; text-align: right; }
#moves .who { min-width: 4.5em; max-width: 7em; overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; }
#moves .act { flex: 1; word-break: break-word; }
#moves .ms { color: var(--muted); font-variant-numeric: tabular-nums; white-space: nowrap; }
#moves li.round { font-weight: bold; margin-top: 6px; cursor: pointer; }
#moves li.roundend { color: var(--good); }
#moves li.end { font-weight: bold; }
#moves li.end.bad, #moves li.fault .act { color: var(--bad); font-weight: bold; }
.s0 .who, .seat0 { color: var(--seat0); }
.s1 .who, .seat1 { color: var(--seat1); }
table.grid { border-collapse: collapse; margin: 6px 0; }
table.grid th, table.grid td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; }
table.grid td.num, table.grid th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.grid tr.total td { font-weight: bold; }
.scores { margin-top: 12px; }
.result { margin-top: 12px; padding: 10px 12px; border-radius: 6px; background: #eaf6ee;
  border: 1px solid #9ccfac; }
.result.forfeit, .result.void { background: #fdecea; border-color: #e6a49e; }
.result p { margin: 2px 0; }
.card { display: inline-flex; align-items: center; justify-content: center; min-width: 1.9em;
  height: 2.5em; padding: 0 3px; margin: 1px; border-radius: 4px; border: 1px solid #0003;
  font-weight: bold; vertical-align: middle; box-shadow: 0 1px 1px #0002; background: #fff; }
.card.back { background: repeating-linear-gradient(45deg, #3a4f7a, #3a4f7a 3px, #4d659a 3px,
  #4d659a 6px); color: #fff; }
.card.small { min-width: 1.6em; height: 2.1em; font-size: 12px; }
.lc-y { background: #f6d23c; } .lc-b { background: #5b9be6; color: #fff; }
.lc-w { background: #fbfbfb; } .lc-g { background: #4fae5c; color: #fff; }
.lc-r { background: #dd4b3e; color: #fff; }
.wager { font-style: italic; }
.lc-board { display: grid; grid-template-columns: 7em repeat(5, minmax(4.2em, 1fr)); gap: 4px 6px;
  align-items: start; }
.lc-board .label { font-weight: bold; align-self: center; }
.lc-board .cell { min-height: 2.8em; display: flex; flex-direction: column; align-items: center; }
.lc-board .cell .card { margin: -6px 0 0; }
.lc-board .cell .card:first-child { margin-top: 0; }
.lc-board .pts { font-size: 12px; color: var(--muted); }
.lc-board .pile { flex-direction: row; gap: 4px; justify-content: center;
  background: #eef1f6; border-radius: 6px; padding: 3px; }
.lc-board .colour { text-align: center; font-weight: bold; }
.hand { display: flex; flex-wrap: wrap; align-items: center; gap: 2px; margin: 4px 0; }
.hand .who { min-width: 9em; font-weight: bold; }
.zone { margin: 6px 0; }
.deck { font-weight: bold; }
.hg-r { background: #e15b4f; color: #fff; } .hg-g { background: #4fae5c; color: #fff; }
.hg-b { background: #5b8fe0; color: #fff; } .hg-y { background: #f0cf3a; }
.hg-w { background: #8e5bc2; color: #fff; }
.trick { background: #eef6ee; border: 1px dashed #9ccfac; border-radius: 8px; padding: 6px 10px;
  margin: 8px 0; min-height: 3em; }
.trick .play { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; }
.trick .play.top { font-weight: bold; }
.chests { display: flex; flex-wrap: wrap; gap: 10px; margin: 8px 0; }
.chest { border: 2px solid #b58a2a; background: #fff8e6; border-radius: 8px; padding: 6px 10px;
  min-width: 11em; }
.chest.taken { border-style: dashed; opacity: .75; }
.chest .value { font-size: 20px; font-weight: bold; }
.pt { background: #fff; } .pt-s0 { background: #cdeaf3; } .pt-s1 { background: #ecd6f3; }
.treasure { background: #f3d27a; }
svg text { font: 11px "DejaVu Sans", Arial, sans-serif; fill: var(--ink); }
.report { padding: 8px 20px 30px; max-width: 1200px; }
.report section { background: var(--panel); border: 1px solid var(--line); border-radius: 8px;
  padding: 10px 14px; margin: 12px 0; }
.heat td.cell { text-align: center; min-width: 6em; }
.chart { overflow-x: auto; }
.decision { font-weight: bold; font-size: 15px; }
.decision[data-outcome=H1] { color: var(--good); } .decision[data-outcome=H0] { color: var(--bad); }
a { color: var(--accent); }
"""
"""The page style (shared by replays and ladder reports)."""

PLAYER = r"""
(function () {
  "use strict";
  function unpack(block, done) {
    if (block.getAttribute("data-encoding") !== "gzip+base64")
      return done(JSON.parse(block.textContent));
    var raw = atob(block.textContent), bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    new Response(stream).text().then(function (text) { done(JSON.parse(text)); });
  }
  unpack(document.getElementById("arena-data"), play);
  function play(data) {
    if (typeof data.moves === "string") document.getElementById("moves").innerHTML = data.moves;
    var T = data.t, frames = data.frames, starts = data.rounds, memo = {};
    function html(i) {
      var entry = T[i];
      if (typeof entry === "string") return entry;
      var done = memo[i];
      if (done === undefined) {
        done = "";
        for (var k = 0; k < entry.length; k++) done += html(entry[k]);
        memo[i] = done;
      }
      return done;
    }
    function $(id) { return document.getElementById(id); }
    var board = $("board"), pos = $("pos"), counter = $("counter"), playButton = $("play");
    var viewSelect = $("view"), roundSelect = $("round"), speedSelect = $("speed");
    var listed = document.querySelectorAll("#moves [data-frame]");
    var rows = {};
    for (var r = 0; r < listed.length; r++) {
      var f = +listed[r].getAttribute("data-frame");
      if (listed[r].className.indexOf("move") >= 0 || rows[f] === undefined) rows[f] = listed[r];
    }
    var last = frames.length - 1, frame = -1, view = 0, timer = null, marked = null;
    function roundOf(f) {
      var found = 0;
      for (var k = 0; k < starts.length; k++) if (starts[k] <= f) found = k;
      return found;
    }
    function label(f) {
      if (f === 0) return "start";
      if (data.ended && f === last) return "end (" + data.decisions + " moves)";
      return "move " + f + " / " + data.decisions;
    }
    function show(f, keepScroll) {
      f = Math.max(0, Math.min(last, f));
      var changed = f !== frame;
      frame = f;
      board.innerHTML = html(frames[f][view]);
      pos.value = f;
      counter.textContent = label(f);
      roundSelect.value = String(roundOf(f));
      document.body.setAttribute("data-frame", String(f));
      document.body.setAttribute("data-view", viewSelect.value);
      if (marked) marked.classList.remove("current");
      marked = rows[f] || null;
      if (marked) {
        marked.classList.add("current");
        if (changed && !keepScroll) marked.scrollIntoView({ block: "nearest" });
      }
      if (f === last) stop();
    }
    function stop() {
      if (timer !== null) { clearInterval(timer); timer = null; }
      playButton.textContent = "\u25B6";
      playButton.setAttribute("aria-label", "play");
    }
    function start() {
      if (frame === last) show(0);
      stop();
      timer = setInterval(function () { show(frame + 1); }, 1000 / +speedSelect.value);
      playButton.textContent = "\u25AE\u25AE";
      playButton.setAttribute("aria-label", "pause");
    }
    function toggle() { if (timer === null) start(); else stop(); }
    function setView(v) {
      v = Math.max(0, Math.min(viewSelect.options.length - 1, v));
      view = v;
      viewSelect.selectedIndex = v;
      show(frame, true);
    }
    function viewNamed(name) {
      for (var k = 0; k < viewSelect.options.length; k++)
        if (viewSelect.options[k].getAttribute("data-key") === name) return setView(k);
    }
    function jumpRound(delta) {
      var target = roundOf(frame) + delta;
      if (delta < 0 && starts[roundOf(frame)] < frame) target = roundOf(frame);
      if (target >= 0 && target < starts.length) show(starts[target]);
    }
    function speed(delta) {
      var k = Math.max(0, Math.min(speedSelect.options.length - 1,
                                   speedSelect.selectedIndex + delta));
      speedSelect.selectedIndex = k;
      if (timer !== null) start();
    }
    $("first").onclick = function () { stop(); show(0); };
    $("back").onclick = function () { stop(); show(frame - 1); };
    $("fwd").onclick = function () { stop(); show(frame + 1); };
    $("last").onclick = function () { stop(); show(last); };
    playButton.onclick = toggle;
    pos.max = String(last);
    pos.oninput = function () { stop(); show(+pos.value); };
    viewSelect.onchange = function () { setView(viewSelect.selectedIndex); };
    roundSelect.onchange = function () { stop(); show(starts[+roundSelect.value]); };
    speedSelect.onchange = function () { if (timer !== null) start(); };
    document.getElementById("moves").onclick = function (event) {
      var item = event.target.closest("[data-frame]");
      if (item) { stop(); show(+item.getAttribute("data-frame"), true); }
    };
    var keys = {
      ArrowRight: function () { stop(); show(frame + 1); },
      ArrowLeft: function () { stop(); show(frame - 1); },
      ArrowUp: function () { stop(); jumpRound(-1); },
      ArrowDown: function () { stop(); jumpRound(1); },
      Home: function () { stop(); show(0); },
      End: function () { stop(); show(last); },
      " ": toggle,
      "+": function () { speed(1); },
      "=": function () { speed(1); },
      "-": function () { speed(-1); },
      o: function () { viewNamed("all"); },
      "0": function () { viewNamed("0"); },
      "1": function () { viewNamed("1"); },
      v: function () { setView((view + 1) % viewSelect.options.length); }
    };
    document.addEventListener("keydown", function (event) {
      var tag = event.target && event.target.tagName;
      if (tag === "SELECT" || tag === "INPUT" || event.ctrlKey || event.metaKey || event.altKey)
        return;
      var action = keys[event.key];
      if (action) { event.preventDefault(); action(); }
    });
    show(0);
    document.body.setAttribute("data-ready", "1");
    if (window.performance && performance.mark) performance.mark("arena-ready");
  }
})();
"""
"""The replay player (plain ES5 with ``closest``/``classList``: no library, no build step). A
site's page packs its data (gzip, base64: ``page.packed_script``), unpacked here with the
browser's ``DecompressionStream``, its move list in the data too."""


ASSET_DIR = "assets"
"""Where a site keeps its shared files, inside the site."""


def _named(stem: str, content: str, suffix: str) -> str:
    digest = hashlib.sha256(content.encode("utf-8")).hexdigest()[:16]
    return f"{ASSET_DIR}/{stem}-{digest}{suffix}"


SHARED: dict[str, str] = {
    _named("arena", STYLE, ".css"): STYLE,
    _named("viewer", PLAYER, ".js"): PLAYER,
}
"""A site's shared files: path inside the site → content."""
_NAMES = {content: name for name, content in SHARED.items()}


def shared_name(content: str) -> str:
    """The path inside a site of the shared file holding ``content`` (``STYLE`` or
    ``PLAYER``)."""
    return _NAMES[content]
