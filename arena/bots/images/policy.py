"""What a bot's image may be: the checks every submitted image and every image built from a bot
directory pass before it is kept or run.

An image declaring ``VOLUME`` would get a fresh writable host directory per container (past the
read-only root, and left behind), ``EXPOSE`` asks for a network the arena never gives, a
``USER`` of root asks for what the arena never grants (it always runs bots as 65534), and a huge
image fills the disks of the head and of every worker it is shipped to; an image carrying the
arena's own labels could pass for one of its base images. Pure: it reads the
engine's ``docker image inspect`` attributes.
"""

from __future__ import annotations

import os
from typing import Any

from arena.errors import ConfigError

MAX_IMAGE_MB_ENV = "ARENA_MAX_IMAGE_MB"
"""Environment variable: the largest bot image accepted, in MiB (its whole size on the engine,
base layers included)."""
DEFAULT_MAX_IMAGE_MB = 1024
"""The default cap on a bot image's size."""
_ROOT_USERS = ("0", "root")
ARENA_LABEL_PREFIX = "arena."
"""Image labels the arena sets itself: a bot image may carry none but the empty
:data:`BOT_BUILD_LABEL`, or it could pass for a base image (a base is found by the hash of its
inputs in that label) and be built on by every bot."""
BOT_BUILD_LABEL = "arena.base.inputs"
"""``arena.bots.images.build.INPUTS_LABEL``: empty on the bot images the arena builds."""


def max_image_bytes() -> int:
    """The image size cap (``ARENA_MAX_IMAGE_MB`` or the default); ``ConfigError`` for a value
    that is not a positive whole number."""
    raw = os.environ.get(MAX_IMAGE_MB_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_IMAGE_MB << 20
    if not raw.isdigit() or int(raw) <= 0:
        raise ConfigError(f"{MAX_IMAGE_MB_ENV}={raw!r}: give a positive whole number")
    return int(raw) << 20


def image_problem(attrs: dict[str, Any], max_bytes: int | None = None) -> str | None:
    """Why an image (its ``docker image inspect`` attributes) may not be a bot's, in words that
    say what to change; None when it may."""
    config = attrs.get("Config") or {}
    volumes = sorted(config.get("Volumes") or {})
    if volumes:
        return (f"the image declares VOLUME {', '.join(volumes)}: a bot's container has a "
                "read-only root and a small /tmp, no volumes (remove the VOLUME line)")
    ports = sorted(config.get("ExposedPorts") or {})
    if ports:
        return (f"the image declares EXPOSE {', '.join(ports)}: a bot has no network, only its "
                "seat's socket (remove the EXPOSE line)")
    user = str(config.get("User") or "")
    if user.split(":", 1)[0] in _ROOT_USERS:
        return (f"the image's USER is {user!r} (root): bots run as 65534:65534 (remove the USER "
                "line or name an unprivileged user)")
    labels = config.get("Labels") or {}
    claimed = sorted(k for k, v in labels.items() if k.startswith(ARENA_LABEL_PREFIX)
                     and (k, v) != (BOT_BUILD_LABEL, ""))
    if claimed:
        return (f"the image carries the arena's own label {claimed[0]!r}: the arena uses its "
                "labels to tell its base images from bot images (remove the LABEL)")
    cap = max_image_bytes() if max_bytes is None else max_bytes
    size = int(attrs.get("Size") or 0)
    if size > cap:
        return (f"the image is {size / 2**20:.0f} MiB, over the cap of {cap >> 20} MiB "
                f"({MAX_IMAGE_MB_ENV}): leave out what the bot does not need")
    return None
