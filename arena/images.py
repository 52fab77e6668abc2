"""Container images without a registry: the Python bot base image and bot images.

The base image is built locally from a ``debootstrap --variant=minbase`` of Debian (the mirror is
read from this machine's apt sources), with the cp311 wheels of grpcio and protobuf (the versions
installed here) and a wheel of the arena package itself (the bot runtime: ``arena.sdk``,
``arena.games``, ``arena.wire``, ``arena.v1``), and imported with a deterministic tar: the same
inputs give the same layer digest. The image carries a label with the hash of its inputs, so an
unchanged base is reused instead of rebuilt.

Everything here needs root (debootstrap, chroot) and a Docker engine; blocking calls only, for
the CLI and for tests (the sandbox never builds base images by itself).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ConfigError, SandboxError

BASE_TAG = "arena/base:py311"
"""The local tag of the Python bot base image."""
SUITE = "bookworm"
"""The Debian release of the base image (its python3 is 3.11)."""
PACKAGES = ("python3-minimal", "libpython3.11-stdlib", "libstdc++6")
"""Packages added to the minbase variant (grpcio needs libstdc++)."""
INPUTS_LABEL = "arena.base.inputs"
"""Image label holding the hash of the base image's inputs."""
MIRROR_ENV = "ARENA_DEBIAN_MIRROR"
"""Overrides the Debian mirror read from the apt sources."""
SITE_PACKAGES = "usr/local/lib/python3.11/dist-packages"
APT_SOURCES = (Path("/etc/apt/sources.list"), Path("/etc/apt/sources.list.d"))
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
_WHEEL_PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64")


@dataclass(frozen=True)
class Flavor:
    """A kind of local base image: which Debian packages, and whether the arena's Python bot
    runtime (grpcio, protobuf, the SDK) is installed into it."""

    name: str
    tag: str
    packages: tuple[str, ...]
    python_runtime: bool
    command: str
    """The image's default command."""


FLAVORS = {
    "python": Flavor("python", BASE_TAG, PACKAGES, python_runtime=True, command="python3"),
    # Debian's Node.js (18 on bookworm): bots bring their own node_modules (see js-random).
    "node": Flavor("node", "arena/base:node", ("nodejs",), python_runtime=False, command="node"),
}
"""The base images ``arena images build-base --flavor`` builds; a bot picks one in bot.toml
(``base = "node"``; default ``python``)."""
DEFAULT_FLAVOR = "python"


def flavor(name: str) -> Flavor:
    """The flavor called ``name``; raises ``ConfigError`` naming the choices."""
    try:
        return FLAVORS[name]
    except KeyError:
        raise ConfigError(
            f"no base image flavor {name!r}: choose one of {', '.join(FLAVORS)}"
        ) from None


Progress = Callable[[str], None]
"""Receives a short description of each build step."""


@dataclass(frozen=True)
class BaseImage:
    """A built (or reused) base image."""

    tag: str
    image_id: str
    """``sha256:...``: reference the image by this id, not by the tag."""
    digest: str
    """Layer digest (the same for the same inputs)."""
    reused: bool
    """An existing image with the same inputs was reused."""


@dataclass(frozen=True)
class BotImage:
    """A bot image pinned by id and layer digest."""

    image_id: str
    digest: str


def _quiet(_: str) -> None:
    return None


# --- the Debian mirror --------------------------------------------------------------------
def debian_mirror(suite: str = SUITE, sources: Iterable[Path] = APT_SOURCES) -> str:
    """The first apt source URI serving ``suite`` (one-line or deb822 format).

    ``$ARENA_DEBIAN_MIRROR`` wins when set. Raises ``ConfigError`` when none is found.
    """
    override = os.environ.get(MIRROR_ENV)
    if override:
        return override
    for path in _source_files(sources):
        text = path.read_text(encoding="utf-8", errors="replace")
        parse = _deb822_mirrors if path.suffix == ".sources" else _one_line_mirrors
        for uri, suites in parse(text):
            if suite in suites and uri.startswith(("http://", "https://", "file:/")):
                return uri
    raise ConfigError(
        f"no Debian mirror for {suite!r} in the apt sources; set {MIRROR_ENV} to a Debian mirror"
    )


def _source_files(sources: Iterable[Path]) -> list[Path]:
    files: list[Path] = []
    for source in sources:
        if source.is_dir():
            files += sorted(p for p in source.iterdir() if p.suffix in (".list", ".sources"))
        elif source.is_file():
            files.append(source)
    return files


def _one_line_mirrors(text: str) -> list[tuple[str, tuple[str, ...]]]:
    found: list[tuple[str, tuple[str, ...]]] = []
    for line in text.splitlines():
        words = re.sub(r"\[[^\]]*\]", " ", line.split("#", 1)[0]).split()
        if len(words) >= 3 and words[0] == "deb":
            found.append((words[1], (words[2],)))
    return found


def _deb822_mirrors(text: str) -> list[tuple[str, tuple[str, ...]]]:
    found = []
    for stanza in re.split(r"\n\s*\n", text):
        fields: dict[str, str] = {}
        for line in stanza.splitlines():
            if line.startswith("#") or ":" not in line:
                continue
            key, _, value = line.partition(":")
            fields[key.strip().lower()] = value.strip()
        if "deb" not in fields.get("types", "").split():
            continue
        if fields.get("enabled", "yes").lower() == "no":
            continue
        suites = tuple(fields.get("suites", "").split())
        found += [(uri, suites) for uri in fields.get("uris", "").split()]
    return found


# --- inputs -------------------------------------------------------------------------------
def source_root() -> Path:
    """The arena source tree this module was loaded from (holds setup.py and proto/)."""
    root = Path(__file__).resolve().parent.parent
    if not (root / "setup.py").is_file() or not (root / "proto").is_dir():
        raise ConfigError(
            f"{root} is not an arena source tree (no setup.py/proto): build the base image from "
            "a checkout of the arena"
        )
    return root


def runtime_requirements() -> tuple[str, ...]:
    """The pinned bot runtime: the grpcio and protobuf versions installed here."""
    return tuple(f"{dist}=={importlib.metadata.version(dist)}" for dist in ("grpcio", "protobuf"))


def _run(cmd: list[str], what: str, env: dict[str, str] | None = None) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout)[-2000:]
        raise SandboxError(f"{what} failed (exit {proc.returncode}): {tail}")


def _download_wheels(dest: Path) -> None:
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:"]
    cmd += ["--python-version", "3.11", "--implementation", "cp", "--abi", "cp311"]
    for platform in _WHEEL_PLATFORMS:
        cmd += ["--platform", platform]
    _run([*cmd, "-d", str(dest), *runtime_requirements()], "downloading grpcio/protobuf wheels")


def _arena_wheel(dest: Path, work: Path) -> None:
    """``pip wheel --no-deps`` of a clean copy of the source tree (leaves the tree untouched)."""
    root = source_root()
    copy = work / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist")
    shutil.copytree(root / "arena", copy / "arena", ignore=ignore)
    shutil.copytree(root / "proto", copy / "proto", ignore=ignore)
    for name in ("setup.py", "pyproject.toml", "arena_protogen.py", "README.md"):
        if (root / name).is_file():
            shutil.copy2(root / name, copy / name)
    _run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(dest), str(copy)],
        "building the arena wheel",
    )


def prepare_wheels(dest: Path) -> Path:
    """Download the grpcio/protobuf wheels and build the arena wheel into ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    _download_wheels(dest)
    with tempfile.TemporaryDirectory(prefix="arena-wheel-") as tmp:
        _arena_wheel(dest, Path(tmp))
    return dest


def _wheel_hash(path: Path) -> str:
    """Hash of a wheel's member names and contents (not its zip timestamps)."""
    digest = hashlib.sha256()
    with zipfile.ZipFile(path) as wheel:
        for name in sorted(wheel.namelist()):
            digest.update(name.encode() + b"\0" + hashlib.sha256(wheel.read(name)).digest())
    return digest.hexdigest()


def _rootfs_key(mirror: str, packages: tuple[str, ...] = PACKAGES) -> str:
    text = "\n".join([SUITE, mirror, *packages, "strip-v1"])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def inputs_key(mirror: str, wheels: Iterable[Path], packages: tuple[str, ...] = PACKAGES) -> str:
    """The hash of everything that goes into a base image."""
    parts = [_rootfs_key(mirror, packages), "layout-v4"]
    parts += [f"{w.name.split('-')[0]}:{_wheel_hash(w)}" for w in sorted(wheels)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


# --- the root file system -----------------------------------------------------------------
def _cache_dir() -> Path:
    from arena.registry import arena_home

    return arena_home() / "cache"


def _require_root() -> None:
    if os.geteuid() != 0:
        raise ConfigError("building the base image needs root (debootstrap, chroot): use sudo")
    if shutil.which("debootstrap") is None:
        raise ConfigError(
            "debootstrap is missing: apt-get install debootstrap (or .ci/docker-setup.sh)"
        )


def _debootstrap(mirror: str, packages: tuple[str, ...], progress: Progress) -> Path:
    """A stripped minbase root file system, cached by (suite, mirror, packages)."""
    cached = _cache_dir() / f"rootfs-{_rootfs_key(mirror, packages)}"
    if (cached / "var/lib/dpkg/status").exists():
        return cached
    cached.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="rootfs-", dir=cached.parent))
    try:
        progress(f"debootstrap {SUITE} from {mirror} (about a minute)")
        cmd = ["debootstrap", "--variant=minbase", f"--include={','.join(packages)}"]
        _run([*cmd, SUITE, str(work), mirror], "debootstrap")
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


def _stage(rootfs: Path, wheels: list[Path], work: Path, progress: Progress) -> Path:
    stage = work / "stage"
    progress("copying the root file system")
    _run(["cp", "-a", f"{rootfs}/.", str(stage)], "copying the root file system")
    if not wheels:  # a base without the Python runtime
        return stage
    site = stage / SITE_PACKAGES
    site.mkdir(parents=True, exist_ok=True)
    progress("installing grpcio, protobuf and the arena runtime")
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index"]
    cmd += ["--no-compile", "--no-warn-script-location", "--target", str(site)]
    _run([*cmd, *map(str, wheels)], "installing wheels into the base image")
    shutil.rmtree(site / "bin", ignore_errors=True)
    for record in site.glob("*.dist-info/RECORD"):
        _drop_install_details(record)
    progress("compiling bytecode")
    compile_cmd = ["chroot", str(stage), "python3", "-m", "compileall", "-q"]
    compile_cmd += [
        "--invalidation-mode",
        "unchecked-hash",
        "/usr/lib/python3.11",
        f"/{SITE_PACKAGES}",
    ]
    # A fixed hash seed: frozenset constants are marshalled in iteration order.
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "PYTHONHASHSEED": "0", "LANG": "C.UTF-8"}
    _run(compile_cmd, "compiling bytecode in the base image", env=env)
    return stage


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
    _run(cmd, "tar of the root file system")


# --- Docker -------------------------------------------------------------------------------
def docker_client(timeout: int = 120) -> Any:
    """A Docker SDK client; raises ``SandboxError`` when no engine answers."""
    import docker

    try:
        client = docker.from_env(timeout=timeout)
        client.ping()
    except Exception as exc:  # docker raises DockerException, requests errors, OSError...
        raise SandboxError(f"no Docker engine answers: {exc} (see docs/containers.md)") from exc
    return client


def layer_digest(attrs: dict[str, Any]) -> str:
    """The layer digest of an image: its only layer's diff id, or a hash over all layers."""
    layers: list[str] = list(attrs.get("RootFS", {}).get("Layers") or [])
    if len(layers) == 1:
        return layers[0]
    return "sha256:" + hashlib.sha256("\n".join(layers).encode()).hexdigest()


def find_base_image(tag: str = BASE_TAG, client: Any = None) -> BaseImage | None:
    """The local base image with this tag, or None."""
    import docker.errors

    client = client or docker_client()
    try:
        image = client.images.get(tag)
    except docker.errors.ImageNotFound:
        return None
    return BaseImage(tag, image.id, layer_digest(image.attrs), reused=True)


def require_base_image(flavor_name: str = DEFAULT_FLAVOR, client: Any = None) -> BaseImage:
    """The local base image of a flavor; raises ``ConfigError`` saying how to build it."""
    kind = flavor(flavor_name)
    found = find_base_image(kind.tag, client)
    if found is None:
        option = "" if kind.name == DEFAULT_FLAVOR else f" --flavor {kind.name}"
        raise ConfigError(
            f"no local {kind.name} base image ({kind.tag}): run `arena images build-base{option}`"
        )
    return found


def _existing(client: Any, key: str) -> Any:
    """A base image (one layer: not an image built on it) with these inputs, or None."""
    images = client.images.list(filters={"label": f"{INPUTS_LABEL}={key}"})
    bases = [i for i in images if len(i.attrs.get("RootFS", {}).get("Layers") or []) == 1]
    return bases[0] if bases else None


def _remove_replaced(client: Any, old_id: str | None, new_id: str) -> None:
    """Remove the base image a rebuild replaced, unless something still uses it."""
    if old_id is None or old_id == new_id:
        return
    try:
        client.images.remove(old_id)
    except Exception:  # noqa: BLE001 — still tagged, used by a container or by bot images
        return


def build_base_image(
    *,
    flavor_name: str = DEFAULT_FLAVOR,
    tag: str | None = None,
    force: bool = False,
    progress: Progress = _quiet,
    client: Any = None,
    wheels_dir: Path | None = None,
) -> BaseImage:
    """Build a bot base image (or reuse one built from the same inputs): by default the Python
    one, tagged ``BASE_TAG``; ``flavor_name`` picks another of ``FLAVORS`` (its own tag unless
    ``tag`` is given).

    ``force`` rebuilds the image even when one with the same inputs exists (the cached
    debootstrap root file system is still reused). ``wheels_dir`` gives prepared wheels
    (see :func:`prepare_wheels`) instead of downloading and building them. Raises
    ``ConfigError`` (not root, no debootstrap, no mirror) or ``SandboxError`` (a build step
    or the engine failed).
    """
    kind = flavor(flavor_name)
    tag = tag or kind.tag
    _require_root()
    client = client or docker_client(timeout=600)
    mirror = debian_mirror()
    with tempfile.TemporaryDirectory(prefix="arena-base-") as tmp:
        work = Path(tmp)
        if kind.python_runtime and wheels_dir is None:
            progress("downloading grpcio and protobuf wheels, building the arena wheel")
            wheels_dir = prepare_wheels(work / "wheels")
        wheels = sorted(wheels_dir.glob("*.whl")) if kind.python_runtime and wheels_dir else []
        key = inputs_key(mirror, wheels, kind.packages)
        existing = None if force else _existing(client, key)
        if existing is not None:
            existing.tag(*tag.split(":", 1))
            return BaseImage(tag, existing.id, layer_digest(existing.attrs), reused=True)
        old = find_base_image(tag, client)
        rootfs = _debootstrap(mirror, kind.packages, progress)
        stage = _stage(rootfs, wheels, work, progress)
        progress("writing a deterministic tar and importing it")
        tar = work / "rootfs.tar"
        deterministic_tar(stage, tar)
        image = _import(client, tar, tag, key, kind.command)
    _remove_replaced(client, old.image_id if old else None, image.id)
    return BaseImage(tag, image.id, layer_digest(image.attrs), reused=False)


def _import(client: Any, tar: Path, tag: str, key: str, command: str) -> Any:
    repository, _, version = tag.partition(":")
    changes = [
        f"LABEL {INPUTS_LABEL}={key}",
        "ENV LANG=C.UTF-8 PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1",
        f'CMD ["{command}"]',
    ]
    try:
        client.api.import_image_from_file(
            str(tar), repository=repository, tag=version or "latest", changes=changes
        )
        return client.images.get(tag)
    except Exception as exc:
        raise SandboxError(f"docker import failed: {exc}") from exc


def build_bot_image(
    bot_dir: str | Path,
    *,
    base: str | None = None,
    tag: str | None = None,
    client: Any = None,
    flavor_name: str = DEFAULT_FLAVOR,
) -> BotImage:
    """Build ``bot_dir``'s Dockerfile on a local base image (no network) and pin it.

    ``base`` is an image id or tag passed as ``BASE_IMAGE`` (default: the local base image of
    ``flavor_name``, which must exist). Raises ``ConfigError`` when the directory has no
    Dockerfile or the build fails, ``SandboxError`` when the engine fails.
    """
    import docker.errors

    directory = Path(bot_dir).resolve()
    if not (directory / "Dockerfile").is_file():
        raise ConfigError(f"{directory} has no Dockerfile")
    client = client or docker_client(timeout=600)
    if base is None:
        base = require_base_image(flavor_name, client).image_id
    try:
        image, _ = client.images.build(
            path=str(directory),
            tag=tag,
            buildargs={"BASE_IMAGE": base},
            labels={INPUTS_LABEL: ""},  # a bot image is not a base image
            network_mode="none",
            pull=False,
            rm=True,
            forcerm=True,
        )
    except docker.errors.BuildError as exc:
        raise ConfigError(f"building {directory} failed: {exc.msg}") from exc
    except docker.errors.APIError as exc:
        raise SandboxError(f"docker build of {directory} failed: {exc}") from exc
    return BotImage(image.id, layer_digest(image.attrs))


def pin_image(reference: str, client: Any = None) -> BotImage:
    """An existing local image (tag or id) pinned by id and layer digest."""
    import docker.errors

    client = client or docker_client()
    try:
        image = client.images.get(reference)
    except docker.errors.ImageNotFound:
        raise ConfigError(f"no local image {reference!r} (and it is not a directory)") from None
    return BotImage(image.id, layer_digest(image.attrs))


# --- keeping and pruning ------------------------------------------------------------------
BOT_REPOSITORY = "arena-bot"
"""Repository of the tags that keep submitted bots' images (``arena-bot/NAME:VERSION``)."""


def bot_tag(name: str, version: str) -> str:
    """The Docker tag that keeps a submitted bot's image: ``arena-bot/NAME:VERSION``, with
    characters Docker does not accept in a repository or tag replaced."""
    repo = re.sub(r"[^a-z0-9._-]+", "-", name.lower()).strip("._-") or "bot"
    tag = re.sub(r"[^A-Za-z0-9_.-]+", "-", version).lstrip(".-")[:128] or "latest"
    return f"{BOT_REPOSITORY}/{repo}:{tag}"


def keep_bot_image(image_id: str, name: str, version: str, client: Any = None) -> str:
    """Tag a submitted bot's image so that ``docker image prune`` and ``arena images prune``
    leave it alone; returns the tag. Raises ``SandboxError`` when the engine fails."""
    client = client or docker_client()
    tag = bot_tag(name, version)
    repository, _, version_tag = tag.partition(":")
    try:
        client.images.get(image_id).tag(repository, version_tag)
    except Exception as exc:  # noqa: BLE001 — ImageNotFound, APIError
        raise SandboxError(f"cannot tag {image_id[:19]} as {tag}: {exc}") from exc
    return tag


@dataclass(frozen=True)
class PruneCandidate:
    """An image ``arena images prune`` looked at."""

    image_id: str
    kind: str
    """``bot build`` (built from a bot directory, not submitted) or ``old base``."""
    size: int
    """Bytes only this image holds (layers shared with other images not counted)."""
    removed: bool
    reason: str
    """Why it was kept, or empty when removed (or would be, in a dry run)."""


def prune_images(
    keep: Iterable[str], *, dry_run: bool = False, client: Any = None
) -> list[PruneCandidate]:
    """Remove the images the arena built and no longer needs.

    Candidates: bot images built from directories (``arena match``/ladders with Dockerfiles,
    labelled by :func:`build_bot_image`) that no submitted bot pins (``keep``: image ids) and
    that carry no tag outside ``arena-bot/``; and base images replaced by a newer build (the
    current one of each flavor stays). Images a container still uses, or that other images are built
    on, are kept with the reason. Images the arena did not build are never touched.
    """
    import docker.errors

    client = client or docker_client()
    pinned = set(keep)
    current = {b.image_id for k in FLAVORS.values() if (b := find_base_image(k.tag, client))}
    found: list[tuple[Any, str]] = []
    for image in client.images.list(filters={"label": INPUTS_LABEL}):
        labels = image.attrs.get("Config", {}).get("Labels") or {}
        one_layer = len(image.attrs.get("RootFS", {}).get("Layers") or []) == 1
        if labels.get(INPUTS_LABEL) == "":
            found.append((image, "bot build"))
        elif one_layer and image.id not in current:
            found.append((image, "old base"))
    used = {c.image.id for c in client.containers.list(all=True) if c.image is not None}
    unique = {i["Id"]: int(i["Size"]) - max(int(i["SharedSize"]), 0) for i in client.df()["Images"]}
    results: list[PruneCandidate] = []
    # Bot builds first: an old base is only removable once the builds on it are gone.
    for image, kind in sorted(found, key=lambda item: item[1] == "old base"):
        size = unique.get(image.id, 0)
        foreign = [t for t in image.tags if not t.startswith(f"{BOT_REPOSITORY}/")]
        reason = ""
        if image.id in pinned:
            reason = "a submitted bot"
        elif foreign:
            reason = f"tagged {foreign[0]}"
        elif image.id in used:
            reason = "used by a container"
        if reason or dry_run:
            results.append(PruneCandidate(image.id, kind, size, False, reason))
            continue
        try:
            for tag in image.tags:  # leftover arena-bot tags of a bot no longer registered
                client.images.remove(tag, noprune=True)
            client.images.remove(image.id, noprune=False)
        except docker.errors.ImageNotFound:
            pass
        except docker.errors.APIError as exc:
            explanation = getattr(exc, "explanation", None) or str(exc)
            results.append(PruneCandidate(image.id, kind, size, False, str(explanation)[:120]))
            continue
        results.append(PruneCandidate(image.id, kind, size, True, ""))
    return results
