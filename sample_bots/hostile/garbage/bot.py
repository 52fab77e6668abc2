"""Hostile Lost Cities bot ``garbage``: writes garbage bytes to its socket instead of gRPC.

Part of the arena's hostile-bot suite: the referee must reset that connection and carry on.
"""

from __future__ import annotations

import os
import random
import socket
import time

if __name__ == "__main__":
    path = os.environ["ARENA_SOCKET"].removeprefix("unix://")
    rng = random.Random(7)
    for _ in range(20):
        try:
            conn = socket.socket(socket.AF_UNIX)
            conn.connect(path)
            conn.sendall(bytes(rng.randrange(256) for _ in range(4096)))
            conn.close()
        except OSError as exc:
            print(f"[hostile] garbage: {type(exc).__name__}", flush=True)
        time.sleep(0.05)
    time.sleep(3600)
