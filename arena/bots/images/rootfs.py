"""The base image's root file system: a ``debootstrap --variant=minbase`` of Debian, stripped
(docs, locales, caches, logs, bytecode, shadow dates) and cached under ``$ARENA_HOME/cache``;
staged with the runtime wheels and precompiled bytecode; written as a deterministic tar.

Needs root (debootstrap, chroot); blocking calls only.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from arena.bots.home import arena_home
from arena.bots.images.tools import Progress, run_tool
from arena.errors import ConfigError

SUITE = "bookworm"
"""The Debian release of the base image (its python3 is 3.11)."""
PACKAGES = ("python3-minimal", "libpython3.11-stdlib", "libstdc++6")
"""Packages added to the minbase variant (grpcio needs libstdc++)."""
SITE_PACKAGES = "usr/local/lib/python3.11/dist-packages"
"""Where the runtime wheels are installed in the root file system."""
_STRIP = (
    "usr/share/doc",
    "usr/share/man",
    "usr/share/info",
    "usr/share/locale",
    "usr/share/lintian",
    "usr/share/linda",
    "var/lib/apt/lists",
    "var/cache/apt",
    "var/cache/debconf",
    "var/cache/ldconfig",
    "var/log",
)
_STRIP_GLOBS = ("etc/*-", "var/lib/dpkg/*-old", "etc/machine-id")


def rootfs_key(mirror: str, packages: tuple[str, ...] = PACKAGES) -> str:
    """The hash of a stripped root file system's inputs (suite, mirror, packages, recipe)."""
    text = "\n".join([SUITE, mirror, *packages, "strip-v1"])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _cache_dir() -> Path:
    return arena_home() / "cache"


def require_root() -> None:
    """Raise ``ConfigError`` unless this process can debootstrap (root, debootstrap found)."""
    if os.geteuid() != 0:
        raise ConfigError("building the base image needs root (debootstrap, chroot): use sudo")
    if shutil.which("debootstrap") is None:
        raise ConfigError(
            "debootstrap is missing: apt-get install debootstrap (or .ci/docker-setup.sh)"
        )


def debootstrap(mirror: str, packages: tuple[str, ...], progress: Progress) -> Path:
    """A stripped minbase root file system, cached by (suite, mirror, packages)."""
    cached = _cache_dir() / f"rootfs-{rootfs_key(mirror, packages)}"
    if (cached / "var/lib/dpkg/status").exists():
        return cached
    cached.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="rootfs-", dir=cached.parent))
    try:
        progress(f"debootstrap {SUITE} from {mirror} (about a minute)")
        cmd = ["debootstrap", "--variant=minbase", f"--include={','.join(packages)}"]
        run_tool([*cmd, SUITE, str(work), mirror], "debootstrap")
        _strip(work)
        shutil.rmtree(cached, ignore_errors=True)
        work.rename(cached)
    finally:
        _unmount_all(work)
        shutil.rmtree(work, ignore_errors=True)
    return cached


def _unmount_all(root: Path) -> None:
    for sub in ("proc", "sys", "dev/pts"):
        target = root / sub
        if target.is_dir() and os.path.ismount(target):
            subprocess.run(["umount", "-l", str(target)], capture_output=True)


def _strip(root: Path) -> None:
    """Remove docs, locales, caches, logs and every bytecode file; blank the shadow dates."""
    for rel in _STRIP:
        target = root / rel
        if target.is_dir():
            shutil.rmtree(target)
            target.mkdir()
    for pattern in _STRIP_GLOBS:
        for path in root.glob(pattern):
            path.unlink()
    for cache in list(root.rglob("__pycache__")):
        shutil.rmtree(cache)
    for name in ("etc/shadow", "etc/gshadow"):
        _blank_dates(root / name)


def _blank_dates(path: Path) -> None:
    if not path.is_file() or path.name != "shadow":
        return
    lines = []
    for line in path.read_text().splitlines():
        fields = line.split(":")
        if len(fields) > 2:
            fields[2] = ""
        lines.append(":".join(fields))
    path.write_text("\n".join(lines) + "\n")


def stage(rootfs: Path, wheels: list[Path], work: Path, progress: Progress) -> Path:
    """A copy of ``rootfs`` under ``work`` with ``wheels`` installed and all Python bytecode
    compiled reproducibly (none of that without wheels)."""
    staged = work / "stage"
    progress("copying the root file system")
    run_tool(["cp", "-a", f"{rootfs}/.", str(staged)], "copying the root file system")
    if not wheels:  # a base without the Python runtime
        return staged
    site = staged / SITE_PACKAGES
    site.mkdir(parents=True, exist_ok=True)
    progress("installing grpcio, protobuf and the arena runtime")
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index"]
    cmd += ["--no-compile", "--no-warn-script-location", "--target", str(site)]
    run_tool([*cmd, *map(str, wheels)], "installing wheels into the base image")
    shutil.rmtree(site / "bin", ignore_errors=True)
    for record in site.glob("*.dist-info/RECORD"):
        _drop_install_details(record)
    progress("compiling bytecode")
    # -f: the interpreter running compileall imports part of the standard library first and,
    # unless told not to, leaves mtime-stamped bytecode for it that compileall would keep; the
    # tar's mtime 0 makes that bytecode stale, and every bot start compiled those 29 modules
    # again (44 ms of CPU per start, measured). PYTHONDONTWRITEBYTECODE stops the stray writes.
    compile_cmd = ["chroot", str(staged), "python3", "-m", "compileall", "-q", "-f"]
    compile_cmd += [
        "--invalidation-mode",
        "unchecked-hash",
        "/usr/lib/python3.11",
        f"/{SITE_PACKAGES}",
    ]
    # A fixed hash seed: frozenset constants are marshalled in iteration order.
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "PYTHONHASHSEED": "0", "LANG": "C.UTF-8",
           "PYTHONDONTWRITEBYTECODE": "1"}
    run_tool(compile_cmd, "compiling bytecode in the base image", env=env)
    return staged


def _drop_install_details(record: Path) -> None:
    """Remove pip's per-install files and their RECORD lines: ``direct_url.json`` and
    ``REQUESTED`` (they name the temporary wheel path) and the console scripts outside the
    package directory (removed; their shebang names the interpreter that ran pip)."""
    dropped = ("direct_url.json", "REQUESTED")
    for name in dropped:
        (record.parent / name).unlink(missing_ok=True)

    def kept_line(line: str) -> bool:
        path = line.split(",", 1)[0]
        return not path.startswith("../") and path.rsplit("/", 1)[-1] not in dropped

    lines = record.read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if kept_line(line)]
    record.write_text("\n".join(kept) + "\n", encoding="utf-8")


def deterministic_tar(root: Path, out: Path) -> None:
    """Write ``root`` as a reproducible tar (sorted names, mtime 0, numeric owner 0)."""
    cmd = ["tar", "--sort=name", "--mtime=@0", "--owner=0", "--group=0", "--numeric-owner"]
    cmd += ["--format=gnu", "-C", str(root), "-cf", str(out), "."]
    run_tool(cmd, "tar of the root file system")
