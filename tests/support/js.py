"""Preparing the JavaScript sample bot (sample_bots/lost-cities/js-random) for a test: `npm ci`
when its node_modules are missing, and a fresh copy of the repository's .proto files."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
JS_BOT = ROOT / "sample_bots" / "lost-cities" / "js-random"
NPM_TIMEOUT_S = 300


def _missing(reason: str) -> None:
    """Skip on a developer machine without Node.js; CI must have it, so fail there."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set: the JavaScript bot test must run)")
    pytest.skip(reason)


def _run(command: list[str]) -> None:
    done = subprocess.run(
        command, cwd=JS_BOT, capture_output=True, text=True, timeout=NPM_TIMEOUT_S, check=False
    )
    if done.returncode != 0:
        pytest.fail(f"{' '.join(command)} failed in {JS_BOT}:\n{done.stdout}\n{done.stderr}")


def prepare_js_bot() -> Path:
    """The bot directory with its dependencies installed and the .proto files synced."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        _missing("node and npm are needed to run the JavaScript sample bot")
    assert node is not None and npm is not None
    if not (JS_BOT / "node_modules" / "@grpc" / "grpc-js").is_dir():
        _run([npm, "ci", "--no-audit", "--no-fund"])
    # Always refresh the copy of the repository's proto/ that the bot loads (cheap).
    _run([node, "sync-proto.js"])
    for name in ("bot.proto", "lost_cities.proto"):
        copied = JS_BOT / "proto" / "arena" / "v1" / name
        source = ROOT / "proto" / "arena" / "v1" / name
        assert copied.read_bytes() == source.read_bytes()
    return JS_BOT
