"""Hostile Lost Cities bot ``never_connect``: starts and never connects to its socket.

Part of the arena's hostile-bot suite: the referee must give up at the startup deadline.
"""

from __future__ import annotations

import time

if __name__ == "__main__":
    time.sleep(3600)
