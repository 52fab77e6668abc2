"""Running the external tools of an image build (pip, debootstrap, cp, tar, chroot): one
blocking subprocess per step, a failure reported as ``SandboxError`` with the tool's output."""

from __future__ import annotations

import subprocess
from collections.abc import Callable

from arena.errors import SandboxError

Progress = Callable[[str], None]
"""Receives a short description of each build step."""


def quiet(_: str) -> None:
    """A :data:`Progress` that shows nothing."""
    return None


def run_tool(cmd: list[str], what: str, env: dict[str, str] | None = None) -> None:
    """Run ``cmd``; raise ``SandboxError`` naming ``what`` failed, with the end of its output."""
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout)[-2000:]
        raise SandboxError(f"{what} failed (exit {proc.returncode}): {tail}")
