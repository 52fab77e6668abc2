"""The bot runtime as wheels: the cp311 wheels of grpcio and protobuf (the versions installed
here), a wheel of the arena package itself: built from the source tree when the arena runs
from a checkout, else packed from the installed distribution's own files (an ordinary
``pip install arena-….whl``: its RECORD lists them, generated protobuf modules included), and
a wheel of every installed game distribution that is not built in (``arena.games.plugins()``:
packed the same way, so a bot of that game runs on the stock base image). The Python base image
installs them; ``arena images wheels`` puts them next to a bot built on a plain Python image."""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import json
import re
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

from arena.bots.images.tools import run_tool
from arena.errors import ConfigError
from arena.games import plugins

_WHEEL_PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64")


def is_source_tree(root: Path) -> bool:
    """Whether ``root`` is an arena checkout (holds setup.py and proto/)."""
    return (root / "setup.py").is_file() and (root / "proto").is_dir()


def source_root() -> Path:
    """The arena source tree this module was loaded from (holds setup.py and proto/)."""
    root = Path(__file__).resolve().parents[3]
    if not is_source_tree(root):
        raise ConfigError(
            f"{root} is not an arena source tree (no setup.py/proto): this needs a checkout of "
            "the arena"
        )
    return root


def runtime_requirements() -> tuple[str, ...]:
    """The pinned bot runtime: the grpcio and protobuf versions installed here."""
    return tuple(f"{dist}=={importlib.metadata.version(dist)}" for dist in ("grpcio", "protobuf"))


def library_requirements(libraries: tuple[str, ...]) -> tuple[str, ...]:
    """``dist==version`` of each library at the version installed here; ``ConfigError`` naming
    the ones that are not installed (a base image packs what the arena here runs with)."""
    pinned, missing = [], []
    for dist in libraries:
        try:
            pinned.append(f"{dist}=={importlib.metadata.version(dist)}")
        except importlib.metadata.PackageNotFoundError:
            missing.append(dist)
    if missing:
        raise ConfigError(f"this base image packs the versions of {', '.join(libraries)} "
                          f"installed here, and {', '.join(missing)} is not installed: "
                          "pip install 'arena[lab]' (or the missing ones), then build it again")
    return tuple(pinned)


def _pip_download(dest: Path, requirements: tuple[str, ...], what: str, *extra: str) -> None:
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:", *extra]
    cmd += ["--python-version", "3.11", "--implementation", "cp", "--abi", "cp311"]
    for platform in _WHEEL_PLATFORMS:
        cmd += ["--platform", platform]
    run_tool([*cmd, "-d", str(dest), *requirements], f"downloading {what} wheels")


def _download_wheels(dest: Path, libraries: tuple[str, ...] = ()) -> None:
    _pip_download(dest, runtime_requirements(), "grpcio/protobuf")
    if libraries:  # exactly these (their own requirements are the flavor's choice)
        _pip_download(dest, library_requirements(libraries), ", ".join(libraries), "--no-deps")


def _arena_wheel(dest: Path, work: Path) -> None:
    """The arena wheel: from the source tree when there is one, else from the installed
    distribution."""
    if is_source_tree(Path(__file__).resolve().parents[3]):
        source_wheel(dest, work)
    else:
        installed_wheel(dest)


_NOT_PACKED = {"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"}
"""dist-info files an installer writes: not part of the wheel."""


def installed_wheel(dest: Path, name: str = "arena") -> Path:
    """A wheel of the installed distribution ``name`` packed from the files its RECORD lists
    (byte-compiled files, installer records and files outside the package, e.g. scripts, left
    out; RECORD written anew). Raises ``ConfigError`` when it is not installed from a wheel (an
    editable install records no package files: use its source tree, or install it without
    ``-e``)."""
    try:
        dist = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        raise ConfigError(f"the {name} distribution is not installed") from None
    stem = f"{_wheel_name(name)}-{dist.version}"
    info = f"{stem}.dist-info"
    members: list[tuple[str, Path]] = []
    for file in dist.files or []:
        parts = file.parts
        if (parts[0] == ".." or "__pycache__" in parts or file.suffix == ".pyc"
                or (parts[0].endswith(".dist-info") and file.name in _NOT_PACKED)):
            continue
        arcname = str(file) if not parts[0].endswith(".dist-info") else f"{info}/{file.name}"
        members.append((arcname, Path(str(file.locate()))))
    if _editable(dist):
        raise ConfigError(f"the installed {name} is an editable install (pip install -e): "
                          f"{_editable_fix(name)}")
    if not any(_is_package_init(arc) for arc, _ in members):
        raise ConfigError(f"the installed {name} lists no package files (an editable install?): "
                          f"{_editable_fix(name)}")
    dest.mkdir(parents=True, exist_ok=True)
    wheel = dest / f"{stem}-py3-none-any.whl"
    record: list[str] = []
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for arcname, path in sorted(members):
            data = path.read_bytes()
            archive.writestr(_entry(arcname), data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            record.append(f"{arcname},sha256={digest.decode()},{len(data)}")
        record.append(f"{info}/RECORD,,")
        archive.writestr(_entry(f"{info}/RECORD"), "\n".join(record) + "\n")
    return wheel


def _wheel_name(name: str) -> str:
    """A distribution's name as wheel and dist-info file names spell it (``arena_goofspiel``)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def _is_package_init(arcname: str) -> bool:
    """Whether a wheel member is a package's ``__init__.py`` (not a dist-info file, not a
    top-level module such as an editable install's finder)."""
    head, _, tail = arcname.partition("/")
    return tail.endswith("__init__.py") and not head.endswith(".dist-info")


def _editable(dist: importlib.metadata.Distribution) -> bool:
    """Whether pip recorded ``dist`` as an editable install (PEP 610's ``direct_url.json``)."""
    try:
        recorded = json.loads(dist.read_text("direct_url.json") or "{}")
    except ValueError:
        return False
    return isinstance(recorded, dict) and bool((recorded.get("dir_info") or {}).get("editable"))


def _editable_fix(name: str) -> str:
    """What to do about an installed distribution the base image cannot pack."""
    if name == "arena":
        return "build the base image from its source tree"
    return (f"install {name} without -e (`pip install <its directory>`: the base image packs "
            "the installed files), then build the base image again")


def plugin_wheels(dest: Path) -> list[Path]:
    """A wheel of every installed game distribution that is not built in, packed from its
    installed files (:func:`installed_wheel`; ``ConfigError`` for an editable install)."""
    names = sorted({p.distribution for p in plugins() if p.distribution and not p.builtin})
    return [installed_wheel(dest, name) for name in names]


def _entry(arcname: str) -> zipfile.ZipInfo:
    """A zip entry with a fixed time and mode (the same files give the same bytes)."""
    entry = zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0))
    entry.external_attr = 0o644 << 16
    entry.compress_type = zipfile.ZIP_DEFLATED
    return entry


def source_wheel(dest: Path, work: Path) -> None:
    """``pip wheel --no-deps`` of a clean copy of the source tree (leaves the tree untouched)."""
    root = source_root()
    copy = work / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist")
    shutil.copytree(root / "arena", copy / "arena", ignore=ignore)
    shutil.copytree(root / "proto", copy / "proto", ignore=ignore)
    for name in ("setup.py", "pyproject.toml", "arena_protogen.py", "README.md"):
        if (root / name).is_file():
            shutil.copy2(root / name, copy / name)
    run_tool(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(dest), str(copy)],
        "building the arena wheel",
    )


def prepare_wheels(dest: Path, libraries: tuple[str, ...] = ()) -> Path:
    """Download the grpcio/protobuf wheels (and those of ``libraries``, a flavor's, at the
    versions installed here), build the arena wheel and pack the installed game plugins' wheels
    into ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    plugin_wheels(dest)  # first: an editable game install is refused before any download
    if libraries:
        library_requirements(libraries)  # one line naming a missing one, before any download
    _download_wheels(dest, libraries)
    with tempfile.TemporaryDirectory(prefix="arena-wheel-") as tmp:
        _arena_wheel(dest, Path(tmp))
    return dest


def wheel_hash(path: Path) -> str:
    """Hash of a wheel's member names and contents (not its zip timestamps)."""
    digest = hashlib.sha256()
    with zipfile.ZipFile(path) as wheel:
        for name in sorted(wheel.namelist()):
            digest.update(name.encode() + b"\0" + hashlib.sha256(wheel.read(name)).digest())
    return digest.hexdigest()
