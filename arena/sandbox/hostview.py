"""What a bot in a container sees of the host: the Docker sandbox's share of
``arena.sandbox.confine`` (why each thing is hidden is said there).

* **Masked paths**: the engine's ``MaskedPaths`` (a list given replaces Docker's own, so those
  are kept, ``DOCKER_MASKED``): every host-wide top-level ``/proc`` entry and ``/sys``.
* **Synthetic /proc files**: ``meminfo``, ``stat``, ``loadavg`` and ``cpuinfo`` bind-mounted
  read-only from static files written once per sandbox (``ProcFiles``); runc allows binds onto
  exactly such files (the list LXCFS uses).
* **The seccomp profile**: Docker's default one, read at run time from Debian's
  ``golang-github-docker-docker-dev`` (the engine's own source; the engine cannot be asked for
  it), less what ``confine.DENIED`` names, with ``socket`` allowed for ``AF_UNIX`` only and
  ``fcntl`` for every command but ``confine.FCNTL_DENIED`` (``seccomp_profile``). Where the file
  is missing the engine's default profile applies, and ``seccomp_note`` says so in one line.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import json
import logging
import os
import shutil
import tempfile
import threading
import weakref
from pathlib import Path
from typing import Any

from arena.sandbox import confine

log = logging.getLogger(__name__)

PROFILE_ENV = "ARENA_DOCKER_SECCOMP_DEFAULT"
"""Names Docker's default seccomp profile (``profiles/seccomp/default.json`` of the engine's
version) where it is not at ``DEBIAN_PROFILE``."""
DEBIAN_PROFILE = Path("/usr/share/gocode/src/github.com/docker/docker/profiles/seccomp"
                      "/default.json")
"""Where Debian's ``golang-github-docker-docker-dev`` installs it (the same source version as
Debian's ``docker.io``)."""
FCNTL_ALLOWED = (0, 1, 2, 3, 4, 8, 9, 10, 11, 15, 16, 17, 1024, 1025, *range(1027, 1048))
"""``fcntl`` commands a container may use (every one Linux defines but ``FCNTL_DENIED``). Each
is matched whole (64 bits), so high bits the kernel would drop cannot smuggle a denied one."""
_ALLOW = "SCMP_ACT_ALLOW"
_warned = False
_warn_lock = threading.Lock()


def profile_path() -> Path:
    """Where Docker's default profile is read from (it may be missing)."""
    return Path(os.environ.get(PROFILE_ENV) or DEBIAN_PROFILE)


@functools.cache
def _profile(path: Path) -> tuple[str | None, str | None]:
    try:
        default = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, (f"Docker's default seccomp profile applies (it lets a container read "
                      f"host-wide counters through sysinfo): {path} is missing; install "
                      f"golang-github-docker-docker-dev, or name the profile in {PROFILE_ENV}")
    except (OSError, ValueError) as exc:
        return None, f"Docker's default seccomp profile applies: {path} cannot be read ({exc})"
    return json.dumps(restricted_profile(default), separators=(",", ":")), None


def seccomp_profile() -> str | None:
    """The arena's profile as the engine takes it (``seccomp=<json>``); None where Docker's
    default is not found (``seccomp_note`` says why)."""
    return _profile(profile_path())[0]


def seccomp_note() -> str | None:
    """One line where the containers run Docker's default profile instead of the arena's; None
    where the arena's applies."""
    return _profile(profile_path())[1]


def warn_once() -> None:
    """Log ``seccomp_note`` once per process (a ladder's log, a cluster worker's)."""
    global _warned
    note = seccomp_note()
    with _warn_lock:
        if note is None or _warned:
            return
        _warned = True
    log.warning("%s", note)


def restricted_profile(default: dict[str, Any]) -> dict[str, Any]:
    """Docker's default profile (its JSON) less ``confine.DENIED``, ``socket`` and ``fcntl``
    from every rule that allows them, with a rule allowing ``socket`` for ``AF_UNIX`` and one
    per ``FCNTL_ALLOWED`` command."""
    profile = copy.deepcopy(default)
    removed = {*confine.DENIED, "socket", "fcntl"}
    rules = []
    for rule in profile.get("syscalls", []):
        if rule.get("action") == _ALLOW:
            rule["names"] = [name for name in rule.get("names", []) if name not in removed]
            if not rule["names"]:
                continue
        rules.append(rule)
    rules.append({"names": ["socket"], "action": _ALLOW,
                  "args": [{"index": 0, "value": confine.AF_UNIX, "op": "SCMP_CMP_EQ"}]})
    rules += [{"names": ["fcntl"], "action": _ALLOW,
               "args": [{"index": 1, "value": command, "op": "SCMP_CMP_EQ"}]}
              for command in FCNTL_ALLOWED]
    profile["syscalls"] = rules
    return profile


def masked_paths(proc: str = "/proc") -> list[str]:
    """The container's ``MaskedPaths``: Docker's own, every host-wide top-level ``/proc`` entry
    of this machine (``confine.proc_masked``) and ``/sys``."""
    paths = [*confine.DOCKER_MASKED, *(f"/proc/{name}" for name, _ in confine.proc_masked(proc)),
             *confine.HIDDEN]
    return list(dict.fromkeys(paths))


class ProcFiles:
    """The synthetic ``/proc`` files of one memory size, in a private directory (0700; the
    engine binds them as root) removed when this object goes; written again if it vanished
    (a ``/tmp`` cleaner)."""

    def __init__(self, memory_mb: int) -> None:
        self.memory_mb = memory_mb
        self._lock = threading.Lock()
        self._dir: Path | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None

    def binds(self) -> dict[str, dict[str, str]]:
        """Bind mounts (``volumes`` of docker-py) of each file onto its ``/proc`` path."""
        directory = self._directory()
        return {str(directory / name): {"bind": f"/proc/{name}", "mode": "ro"}
                for name in confine.PROC_SYNTHETIC}

    def _directory(self) -> Path:
        with self._lock:
            if self._dir is not None and all((self._dir / n).is_file()
                                             for n in confine.PROC_SYNTHETIC):
                return self._dir
            self.close()
            directory = Path(tempfile.mkdtemp(prefix="arena-proc-"))
            for name, text in confine.synthetic_proc(self.memory_mb).items():
                (directory / name).write_text(text, encoding="utf-8")
                (directory / name).chmod(0o444)
            self._dir = directory
            self._finalizer = weakref.finalize(self, shutil.rmtree, directory, True)
            return directory

    def close(self) -> None:
        """Remove the files (idempotent)."""
        if self._finalizer is not None:
            with contextlib.suppress(OSError):
                self._finalizer()
            self._finalizer = None
        self._dir = None
