"""A small headless-Chromium driver over the DevTools protocol on a pipe (no port, no package).

Chromium (Debian's ``chromium``) runs with ``--remote-debugging-pipe``: it reads commands on
file descriptor 3 and writes answers and events on 4, one JSON message each, NUL-terminated.
Every request any page makes is recorded from the Network domain, and the browser gets a proxy
that does not exist, so nothing could leave the machine even if a page tried.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
    "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
)
"""How the browser runs: headless, as root (no sandbox), no network of its own."""


WATCH_POLICY = """window.__arenaViolations = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__arenaViolations.push(e.violatedDirective + " " + e.blockedURI);
});"""
"""Run in every page before its own scripts: records what its security policy refused."""


class BrowserError(RuntimeError):
    """The browser did not answer as expected."""


def chromium_path() -> str | None:
    """Debian's chromium on the PATH, if installed."""
    return shutil.which("chromium")


class Browser:
    """One headless Chromium with one page, driven over the DevTools pipe."""

    def __init__(self, width: int = 1280, height: int = 900, timeout_s: float = 30.0) -> None:
        executable = chromium_path()
        if executable is None:
            raise BrowserError("chromium is not installed")
        self.timeout_s = timeout_s
        self.profile = tempfile.mkdtemp(prefix="arena-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # the pipe ends the browser keeps must be its fds 3 and 4: bash maps them at exec
        child_r, child_w = _high(to_browser_r), _high(from_browser_w)
        script = f'exec "$@" 3<&{child_r} 4>&{child_w} {child_r}<&- {child_w}>&-'
        command = [executable, *FLAGS, f"--user-data-dir={self.profile}",
                   f"--window-size={width},{height}", "--remote-debugging-pipe", "about:blank"]
        self.process = subprocess.Popen(
            ["bash", "-c", script, "bash", *command], pass_fds=(child_r, child_w),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        os.close(child_r)
        os.close(child_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.session = ""
        self._attach(width, height)

    # --- protocol ------------------------------------------------------------------------------
    def send(self, method: str, params: dict[str, Any] | None = None, *,
             session: bool = True) -> dict[str, Any]:
        """Send one command and wait for its answer (events meanwhile go to ``events``)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout_s
        while True:
            answer = self._receive(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                result: dict[str, Any] = answer.get("result", {})
                return result
            self.events.append(answer)

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_browser], [], [], left)[0]:
                raise BrowserError("the browser did not answer in time")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise BrowserError("the browser closed its pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def _attach(self, width: int, height: int) -> None:
        targets = self.send("Target.getTargets", session=False)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.send("Target.attachToTarget", {"targetId": page["targetId"],
                                                           "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Network"):
            self.send(f"{domain}.enable")
        self.send("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH_POLICY})
        self.send("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    # --- pages ---------------------------------------------------------------------------------
    def open(self, path: Path, ready: str = "document.body.dataset.ready === '1'") -> float:
        """Load a file and wait until ``ready`` holds; the seconds from navigation to ready."""
        self.events.clear()
        started = time.perf_counter()
        self.send("Page.navigate", {"url": path.resolve().as_uri()})
        self.wait_for(ready)
        return time.perf_counter() - started

    def wait_for(self, condition: str, timeout_s: float | None = None) -> None:
        """Poll a JavaScript condition until it is true."""
        deadline = time.monotonic() + (timeout_s or self.timeout_s)
        while not self._holds(condition):
            if time.monotonic() > deadline:
                raise BrowserError(f"timed out waiting for {condition}")
            time.sleep(0.01)

    def _holds(self, condition: str) -> bool:
        """Whether the condition holds once the document is loaded (false while the page is
        navigating away: a click on a link)."""
        try:
            return bool(self.eval(f"!!(document.readyState === 'complete' && ({condition}))"))
        except BrowserError as exc:
            if "navigated" in str(exc) or "context" in str(exc):
                return False
            raise

    def eval(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-able)."""
        answer = self.send("Runtime.evaluate", {"expression": expression,
                                                "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in answer:
            raise BrowserError(f"{expression}: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    def key(self, key: str, code: str | None = None, key_code: int = 0) -> None:
        """Press and release one key (``ArrowRight``, ``Home``, `` ``, ``0`` …)."""
        params = {"key": key, "code": code or key, "windowsVirtualKeyCode": key_code,
                  "nativeVirtualKeyCode": key_code}
        if len(key) == 1:
            params["text"] = key
        self.send("Input.dispatchKeyEvent", {"type": "keyDown", **params})
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", **params})

    def screenshot(self, path: Path, full_page: bool = False) -> Path:
        """A PNG of the page (the viewport, or the whole page)."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
            size = self.send("Page.getLayoutMetrics")["cssContentSize"]
            params["clip"] = {"x": 0, "y": 0, "width": size["width"],
                              "height": size["height"], "scale": 1}
        data = self.send("Page.captureScreenshot", params)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def violations(self) -> list[str]:
        """What the page's content security policy refused since it was opened (the directive
        and the address of each refusal)."""
        found: list[str] = self.eval("window.__arenaViolations || []")
        return found

    def requests(self) -> list[str]:
        """The URL of every request the browser saw since the last ``open``."""
        return [e["params"]["request"]["url"] for e in self.events
                if e.get("method") == "Network.requestWillBeSent"]

    def close(self) -> None:
        """End the browser (its whole process group) and remove its profile."""
        try:
            self.send("Browser.close", session=False)
        except (BrowserError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)
            self.process.wait()
        for fd in (self._to_browser, self._from_browser):
            os.close(fd)
        shutil.rmtree(self.profile, ignore_errors=True)


KEY_CODES = {"ArrowLeft": 37, "ArrowUp": 38, "ArrowRight": 39, "ArrowDown": 40, "Home": 36,
             "End": 35, " ": 32}


def press(browser: Browser, key: str, times: int = 1) -> None:
    """Press a named key (with its key code) ``times`` times."""
    code = {" ": "Space"}.get(key, key if len(key) > 1 else f"Key{key.upper()}")
    if key.isdigit():
        code = f"Digit{key}"
    for _ in range(times):
        browser.key(key, code, KEY_CODES.get(key, ord(key.upper()) if len(key) == 1 else 0))


def _high(fd: int) -> int:
    """``fd`` moved to a number of 10 or more (never the 3 or 4 it will become)."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return moved


@contextmanager
def browser(width: int = 1280, height: int = 900) -> Iterator[Browser]:
    """A browser for the duration of a ``with`` block."""
    instance = Browser(width, height)
    try:
        yield instance
    finally:
        instance.close()


REQUIRE_ENV = "ARENA_REQUIRE_CHROMIUM"


def require_chromium() -> str:
    """Chromium's path; skip without it (fail instead under ARENA_REQUIRE_CHROMIUM=1)."""
    path = chromium_path()
    if path is not None:
        return path
    message = "chromium is not installed (bash .ci/chromium-setup.sh)"
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{message}, and {REQUIRE_ENV}=1", pytrace=False)
    pytest.skip(message)
