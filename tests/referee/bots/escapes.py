"""A hostile Lost Cities bot that tries to drive the operator's terminal (argv[1] picks how).

It plays legally until its third decision, then:

* ``crash``: writes terminal escape sequences to stdout and stderr (an OSC 52 clipboard write,
  a title change, clear-screen and cursor moves, a C1 CSI, a bidi override) ending in a fake
  result line, and exits with status 3: the referee quotes that last line in the crash detail;
* ``answer``: answers with an action text made of the same sequences (an invalid action, whose
  raw text the log keeps);
* ``hidden``: answers with a legal action's text with controls inside it (BEL, a C1 CSI, a bidi
  override): invalid as sent, a legal action once the controls are dropped.

It uses the SDK: what it attacks is what the arena records and shows, not the protocol.
"""

from __future__ import annotations

import itertools
import os
import sys

from arena.sdk import run
from arena.sdk.decision import Decision

MODE = sys.argv[1]
TRIGGER = 3
ESCAPES = ("\x1b]52;c;cHduZWQ=\x07"  # OSC 52: write "pwned" to the clipboard
           "\x1b]0;arena: you won\x07"  # OSC 0: the window title
           "\x1b[2J\x1b[1;1H\x1b[5A"  # clear the screen, cursor home, cursor up
           "\x9b2J"  # C1 CSI: clear the screen again
           "\u202e")  # a bidi override: what follows shows reversed
FAKE = "winner: escape_crash (seat 0)"
"""What the sequences would put on a cleared screen."""


ASKED = itertools.count(1)
"""Numbers our decisions."""


def decide(decision: Decision) -> str:
    """Legal until the trigger, then the attack of ``MODE``."""
    first = decision.legal_texts[0]
    if next(ASKED) < TRIGGER:
        return first
    if MODE == "crash":
        for fd in (1, 2):  # stdout, stderr: as UTF-8 whatever the locale
            os.write(fd, f"{ESCAPES}{FAKE}\n".encode())
        os._exit(3)
    if MODE == "answer":
        return f"{ESCAPES}{FAKE}"
    return f"{first[:1]}\x07\x9b\u202e{first[1:]}"


if __name__ == "__main__":
    run(decide, name=f"escape_{MODE}")
