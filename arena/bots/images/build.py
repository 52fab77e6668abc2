"""Building and pinning images on the engine: the base image flavors, importing a base image
from its root file system (reused when its inputs are unchanged), building a bot directory's
Dockerfile on a base, pinning an image by id and layer digest (the tags that keep submitted
bots' images: :mod:`~arena.bots.images.tags`).

A bot directory's build is bounded: the daemon gets the arena's own context (the bot's files,
:mod:`~arena.bots.images.context`) and the Dockerfile the arena writes once the author's passes
the allow-list (:mod:`~arena.bots.images.dockerfile`: no ``RUN``, no ``ADD``, no other image),
with no network, a memory cap and a wall-clock limit (``ARENA_BUILD_TIMEOUT_S``); the image
must then pass :func:`~arena.bots.images.policy.image_problem` (no volume, no port, no root
user, within ``ARENA_MAX_IMAGE_MB``). So a build's disk use is bounded by the base and the bot
directory's cap (``ARENA_MAX_BOT_DIR_MB``).

The Docker SDK is imported only when an engine is used. Blocking calls only.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from arena.bots.files import bot_files
from arena.bots.images.context import CONTEXT_DOCKERFILE, write_build_context
from arena.bots.images.dockerfile import BASE_ARG, DOCKERFILE, canonical_dockerfile, read_dockerfile
from arena.bots.images.mirror import debian_mirror
from arena.bots.images.policy import image_problem
from arena.bots.images.rootfs import (
    PACKAGES,
    debootstrap,
    deterministic_tar,
    require_root,
    rootfs_key,
    stage,
)
from arena.bots.images.tools import Progress, quiet
from arena.bots.images.wheels import prepare_wheels, wheel_hash
from arena.errors import ArenaError, ConfigError, SandboxError
from arena.model import plain_text

BASE_TAG = "arena/base:py311"
"""The local tag of the Python bot base image."""
INPUTS_LABEL = "arena.base.inputs"
"""Image label holding the hash of the base image's inputs."""


@dataclass(frozen=True)
class Flavor:
    """A kind of local base image: which Debian packages, and whether the arena's Python bot
    runtime (grpcio, protobuf, the SDK) is installed into it."""

    name: str
    """The name a bot.toml gives as ``base``."""
    tag: str
    """The local tag of the image."""
    packages: tuple[str, ...]
    """Debian packages added to the minbase variant."""
    python_runtime: bool
    """Whether the runtime wheels are installed."""
    command: str
    """The image's default command."""
    libraries: tuple[str, ...] = ()
    """Python distributions added to the runtime, at the versions installed here (their cp311
    wheels are downloaded on the host, never inside a build)."""


LAB_LIBRARIES = ("numpy", "open_spiel", "absl-py")
"""The lab flavor's libraries: numpy and OpenSpiel, and absl (OpenSpiel's algorithms log through
it). Not OpenSpiel's scipy and ml-collections (its MCTS and ISMCTS import neither, and scipy
alone is 113 MB), nor PettingZoo (a trained policy runs through ``arena.lab.adapter.run_policy``,
which needs numpy only)."""

FLAVORS = {
    "python": Flavor("python", BASE_TAG, PACKAGES, python_runtime=True, command="python3"),
    # Debian's Node.js (18 on bookworm): bots bring their own node_modules (see js-random).
    "node": Flavor("node", "arena/base:node", ("nodejs",), python_runtime=False, command="node"),
    # The Python base plus the lab's libraries (docs/lab.md): OpenSpiel bots in containers.
    "lab": Flavor("lab", "arena/base:py311-lab", PACKAGES, python_runtime=True,
                  command="python3", libraries=LAB_LIBRARIES),
}
"""The base images ``arena images build-base --flavor`` builds; a bot picks one in bot.toml
(``base = "node"``; default ``python``)."""
DEFAULT_FLAVOR = "python"
"""The flavor of a bot whose bot.toml names none."""


def flavor(name: str) -> Flavor:
    """The flavor called ``name``; raises ``ConfigError`` naming the choices."""
    try:
        return FLAVORS[name]
    except KeyError:
        raise ConfigError(
            f"no base image flavor {name!r}: choose one of {', '.join(FLAVORS)}"
        ) from None


@dataclass(frozen=True)
class BaseImage:
    """A built (or reused) base image."""

    tag: str
    """The tag it was built or found under."""
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
    """``sha256:...`` of the image."""
    digest: str
    """Its layer digest (see :func:`layer_digest`)."""


def inputs_key(mirror: str, wheels: Iterable[Path], packages: tuple[str, ...] = PACKAGES) -> str:
    """The hash of everything that goes into a base image."""
    parts = [rootfs_key(mirror, packages), "layout-v5"]
    parts += [f"{w.name.split('-')[0]}:{wheel_hash(w)}" for w in sorted(wheels)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


# --- the engine ---------------------------------------------------------------------------
def docker_client(timeout: int = 120) -> Any:
    """A Docker SDK client; raises ``SandboxError`` when no engine answers."""
    # docker (~0.9 s to import) once an engine is used: the CLI, importing this, goes without
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


# --- base images --------------------------------------------------------------------------
def base_problem(attrs: dict[str, Any]) -> str | None:
    """Why an image (its ``docker image inspect`` attributes) is not a base image the arena
    built, or None: a base carries the hash of its inputs in :data:`INPUTS_LABEL` (a bot image
    the arena builds carries it empty, and the image policy refuses a submitted image carrying
    it) and is one imported layer."""
    labels = (attrs.get("Config") or {}).get("Labels") or {}
    layers = (attrs.get("RootFS") or {}).get("Layers") or []
    if not labels.get(INPUTS_LABEL):
        return f"it carries no hash of a base image's inputs (label {INPUTS_LABEL})"
    if len(layers) != 1:
        return f"it has {len(layers)} layers, a base image one"
    return None


def _tagged(tag: str, client: Any) -> Any:
    """The image the engine has under ``tag``, or None."""
    # docker (~0.9 s to import) once an engine is used: the CLI, importing this, goes without
    import docker.errors

    try:
        return client.images.get(tag)
    except docker.errors.ImageNotFound:
        return None


def find_base_image(tag: str = BASE_TAG, client: Any = None) -> BaseImage | None:
    """The local base image with this tag, by id, or None. A tag is a name anything on the
    engine can be given: the image it names is used only if it is a base image the arena
    built (:func:`base_problem`), else ``ConfigError`` saying so and how to mend it."""
    client = client or docker_client()
    image = _tagged(tag, client)
    if image is None:
        return None
    problem = base_problem(image.attrs)
    if problem is not None:
        raise ConfigError(f"the image tagged {tag} ({image.id[:19]}) is not a base image the "
                          f"arena built: {problem}; rebuild it (`arena images build-base`)")
    return BaseImage(tag, image.id, layer_digest(image.attrs), reused=True)


def require_base_image(flavor_name: str = DEFAULT_FLAVOR, client: Any = None) -> BaseImage:
    """The local base image of a flavor (checked: :func:`find_base_image`); raises
    ``ConfigError`` saying how to build it."""
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
    progress: Progress = quiet,
    client: Any = None,
    wheels_dir: Path | None = None,
) -> BaseImage:
    """Build a bot base image (or reuse one built from the same inputs): by default the Python
    one, tagged ``BASE_TAG``; ``flavor_name`` picks another of ``FLAVORS`` (its own tag unless
    ``tag`` is given).

    ``force`` rebuilds the image even when one with the same inputs exists (the cached
    debootstrap root file system is still reused). ``wheels_dir`` gives prepared wheels
    (see :func:`~arena.bots.images.wheels.prepare_wheels`) instead of downloading and building
    them. Raises ``ConfigError`` (not root, no debootstrap, no mirror) or ``SandboxError`` (a
    build step or the engine failed).
    """
    kind = flavor(flavor_name)
    tag = tag or kind.tag
    require_root()
    client = client or docker_client(timeout=600)
    mirror = debian_mirror()
    with tempfile.TemporaryDirectory(prefix="arena-base-") as tmp:
        work = Path(tmp)
        if kind.python_runtime and wheels_dir is None:
            more = f", {', '.join(kind.libraries)}" if kind.libraries else ""
            progress(f"packing the installed game packages, downloading grpcio, protobuf{more} "
                     "wheels, building the arena wheel")
            wheels_dir = prepare_wheels(work / "wheels", kind.libraries)
        wheels = sorted(wheels_dir.glob("*.whl")) if kind.python_runtime and wheels_dir else []
        key = inputs_key(mirror, wheels, kind.packages)
        existing = None if force else _existing(client, key)
        if existing is not None:
            existing.tag(*tag.split(":", 1))
            return BaseImage(tag, existing.id, layer_digest(existing.attrs), reused=True)
        old = _tagged(tag, client)
        rootfs = debootstrap(mirror, kind.packages, progress)
        staged = stage(rootfs, wheels, work, progress)
        progress("writing a deterministic tar and importing it")
        tar = work / "rootfs.tar"
        deterministic_tar(staged, tar)
        image = import_rootfs(client, tar, tag, key, kind.command)
    replaced = old.id if old is not None and base_problem(old.attrs) is None else None
    _remove_replaced(client, replaced, image.id)  # (an image that is no base is not ours)
    return BaseImage(tag, image.id, layer_digest(image.attrs), reused=False)


def import_rootfs(client: Any, tar: Path, tag: str, key: str, command: str) -> Any:
    """Import a root file system tar as image ``tag`` labelled with its inputs ``key``; returns
    the SDK's image. Raises ``SandboxError`` when the engine fails."""
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


# --- bot images ---------------------------------------------------------------------------
BUILD_TIMEOUT_ENV = "ARENA_BUILD_TIMEOUT_S"
"""Environment variable: the wall-clock limit of one bot image build, in seconds."""
DEFAULT_BUILD_TIMEOUT_S = 300.0
"""The default wall-clock limit of a bot image build."""
BUILD_MEMORY_MB = 512
"""The memory (and memory + swap) cap of whatever the daemon runs for a bot image build."""


def build_timeout() -> float:
    """The build limit (``ARENA_BUILD_TIMEOUT_S`` or the default), in seconds; ``ConfigError``
    for a value that is not a positive number."""
    raw = os.environ.get(BUILD_TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_BUILD_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise ConfigError(f"{BUILD_TIMEOUT_ENV}={raw!r}: give a positive number of seconds")
    return value


def build_bot_image(
    bot_dir: str | Path,
    *,
    base: str | None = None,
    tag: str | None = None,
    client: Any = None,
    flavor_name: str = DEFAULT_FLAVOR,
) -> BotImage:
    """Build ``bot_dir``'s Dockerfile on a local base image (no network) and pin it.

    The daemon gets the arena's own build context (:mod:`~arena.bots.images.context`: the
    directory's bot files, the set its identity hashes) and the Dockerfile the arena writes from
    the author's once it passes :mod:`~arena.bots.images.dockerfile`'s allow-list. The build
    runs with no network, a memory cap (:data:`BUILD_MEMORY_MB`) and a wall-clock limit
    (:func:`build_timeout`), and the image must pass
    :func:`~arena.bots.images.policy.image_problem` (else it is removed).

    ``base`` is an image id or tag passed as ``BASE_IMAGE`` (default: the local base image of
    ``flavor_name``, which must exist). Raises ``ConfigError`` when the directory has no
    Dockerfile, holds a file the arena does not read, its Dockerfile is refused, or the build
    fails or runs out of time; ``SandboxError`` when the engine fails.
    """
    directory = Path(bot_dir).resolve()
    files = bot_files(directory)
    dockerfile = next((f for f in files if f.parts == (DOCKERFILE,)), None)
    if dockerfile is None:
        raise ConfigError(f"{plain_text(str(directory))} has no {DOCKERFILE}")
    text = canonical_dockerfile(read_dockerfile(Path(dockerfile.path)), dockerfile.path)
    limit = build_timeout()
    client = client or docker_client(timeout=600)
    if base is None:
        base = require_base_image(flavor_name, client).image_id
    with tempfile.TemporaryFile(prefix="arena-context-") as context:
        write_build_context(files, text, context)
        context.seek(0)
        image_id = _BuildRequest(client, directory, limit).run(context, base, tag)
    return _checked(client, image_id, directory)


def _checked(client: Any, image_id: str, directory: Path) -> BotImage:
    """The built image pinned, or ``ConfigError`` (the image removed) when it may not be a
    bot's."""
    try:
        attrs = client.images.get(image_id).attrs
    except Exception as exc:  # noqa: BLE001 — ImageNotFound, APIError, connection errors
        raise SandboxError(f"the Docker engine lost the image it built: {exc}") from exc
    problem = image_problem(attrs)
    if problem is not None:
        with contextlib.suppress(Exception):  # tagged elsewhere or in use: leave it
            client.images.remove(image_id)
        raise ConfigError(f"the image of {plain_text(str(directory))} is refused: {problem}")
    return BotImage(image_id, layer_digest(attrs))


class _BuildRequest:
    """One ``POST /build`` of a bot image, given up (the connection closed, which cancels the
    daemon's build) when its wall-clock limit passes."""

    def __init__(self, client: Any, directory: Path, limit: float) -> None:
        self.api = client.api
        self.shown = plain_text(str(directory))
        self.limit = limit
        self.deadline = time.monotonic() + limit

    def params(self, base: str, tag: str | None) -> dict[str, str]:
        """The build's query: the arena's Dockerfile, no network, no pull, the memory cap."""
        memory = str(BUILD_MEMORY_MB << 20)
        params = {
            "dockerfile": CONTEXT_DOCKERFILE,
            "buildargs": json.dumps({BASE_ARG: base}),
            "labels": json.dumps({INPUTS_LABEL: ""}),  # a bot image is not a base image
            "networkmode": "none",
            "rm": "1",
            "forcerm": "1",
            "memory": memory,
            "memswap": memory,
        }
        return params | ({"t": tag} if tag else {})

    def run(self, context: BinaryIO, base: str, tag: str | None) -> str:
        """Send the context and follow the build; the new image's id."""
        url = f"{self.api.base_url}/v{self.api.api_version}/build"
        try:
            response = self.api.post(
                url, params=self.params(base, tag), data=context, stream=True,
                headers={"Content-Type": "application/x-tar"}, timeout=self.limit)
        except Exception as exc:  # noqa: BLE001 — requests' timeouts and connection errors
            raise self._failure(exc) from exc
        try:
            return self._follow(response)
        finally:
            response.close()  # always: a build given up is cancelled when its client goes

    def _follow(self, response: Any) -> str:
        if response.status_code != 200:
            message = _api_message(response)
            if response.status_code < 500:
                raise ConfigError(f"building {self.shown} failed: {message}")
            raise SandboxError(f"docker build of {self.shown} failed: {message}")
        image_id = ""
        sock = getattr(response.raw.connection, "sock", None)  # each read waits until the limit
        lines = response.iter_lines()
        while True:
            try:
                if sock is not None:
                    sock.settimeout(self._remaining())
                line = next(lines, None)
            except Exception as exc:  # noqa: BLE001 — a read timeout, a closed connection
                raise self._failure(exc) from exc
            if line is None:
                break
            image_id = self._event(line) or image_id
        if not image_id:
            raise SandboxError(f"docker build of {self.shown} ended without an image")
        return image_id

    def _event(self, line: bytes) -> str:
        """One progress message of the daemon: the image id it names, or ``""``."""
        try:
            event = json.loads(line)
        except ValueError:
            return ""
        if not isinstance(event, dict):
            return ""
        if "error" in event:
            raise ConfigError(f"building {self.shown} failed: {_one_line(str(event['error']))}")
        return str((event.get("aux") or {}).get("ID") or "")

    def _remaining(self) -> float:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        return remaining

    def _failure(self, exc: Exception) -> ArenaError:
        if time.monotonic() >= self.deadline or isinstance(exc, TimeoutError):
            return ConfigError(
                f"building {self.shown} took over {self.limit:g} s and was cancelled "
                f"({BUILD_TIMEOUT_ENV}): a bot image only packs files, so make the bot "
                "directory smaller (or raise the limit)")
        return SandboxError(f"docker build of {self.shown} failed: {exc}")


def _api_message(response: Any) -> str:
    """The daemon's error message of a failed request, as plain text."""
    try:
        message = str(response.json().get("message") or "")
    except ValueError:
        message = response.text
    return _one_line(message) or f"HTTP {response.status_code}"


def _one_line(text: str) -> str:
    """What the daemon said, as one line of plain text (it quotes the bot's files and lines)."""
    return " ".join(plain_text(text).split())


def pin_image(reference: str, client: Any = None) -> BotImage:
    """An existing local image (tag or id) pinned by id and layer digest."""
    # docker (~0.9 s to import) once an engine is used: the CLI, importing this, goes without
    import docker.errors

    client = client or docker_client()
    try:
        image = client.images.get(reference)
    except docker.errors.ImageNotFound:
        raise ConfigError(f"no local image {reference!r} (and it is not a directory)") from None
    return BotImage(image.id, layer_digest(image.attrs))
