"""Container images without a container registry: the local bot base images and bot images.

The Python base image is built locally from a ``debootstrap --variant=minbase`` of Debian (the
mirror is read from this machine's apt sources: :mod:`~arena.bots.images.mirror`), with the
cp311 wheels of grpcio and protobuf (the versions installed here), a wheel of the arena
package itself (the bot runtime: ``arena.sdk``, ``arena.games``, ``arena.wire``, ``arena.v1``)
and one of every installed game distribution that is not built in (a plugin game's bots run on
the stock base; :mod:`~arena.bots.images.wheels`), stripped and imported with a deterministic tar
(:mod:`~arena.bots.images.rootfs`): the same inputs give the same layer digest. The image
carries a label with the hash of its inputs, so an unchanged base is reused instead of rebuilt
(:mod:`~arena.bots.images.build`, which also builds, pins and keeps bot images: from the
arena's own build context, :mod:`~arena.bots.images.context`, and a Dockerfile that passed
:mod:`~arena.bots.images.dockerfile`'s allow-list).
:mod:`~arena.bots.images.prune` removes the builds no longer needed.

Everything here needs a Docker engine, and building a base image needs root (debootstrap,
chroot); blocking calls only, for the CLI and for tests (the sandbox never builds base images by
itself). Importing this package does not import the Docker SDK.
"""

from __future__ import annotations

from arena.bots.images.build import (
    BASE_TAG,
    BUILD_TIMEOUT_ENV,
    DEFAULT_BUILD_TIMEOUT_S,
    DEFAULT_FLAVOR,
    FLAVORS,
    INPUTS_LABEL,
    BaseImage,
    BotImage,
    Flavor,
    base_problem,
    build_base_image,
    build_bot_image,
    build_timeout,
    docker_client,
    find_base_image,
    flavor,
    inputs_key,
    layer_digest,
    pin_image,
    require_base_image,
)
from arena.bots.images.dockerfile import (
    DockerfileError,
    canonical_dockerfile,
    check_dockerfile,
    parse_dockerfile,
)
from arena.bots.images.mirror import MIRROR_ENV, debian_mirror
from arena.bots.images.prune import PruneCandidate, prune_images
from arena.bots.images.rootfs import PACKAGES, SITE_PACKAGES, SUITE, deterministic_tar
from arena.bots.images.tags import BOT_REPOSITORY, bot_tag, keep_bot_image
from arena.bots.images.tools import Progress
from arena.bots.images.wheels import (
    installed_wheel,
    plugin_wheels,
    prepare_wheels,
    runtime_requirements,
    source_root,
)

__all__ = [
    "BASE_TAG",
    "BOT_REPOSITORY",
    "BUILD_TIMEOUT_ENV",
    "DEFAULT_BUILD_TIMEOUT_S",
    "DEFAULT_FLAVOR",
    "FLAVORS",
    "INPUTS_LABEL",
    "MIRROR_ENV",
    "PACKAGES",
    "SITE_PACKAGES",
    "SUITE",
    "BaseImage",
    "BotImage",
    "DockerfileError",
    "Flavor",
    "Progress",
    "PruneCandidate",
    "base_problem",
    "bot_tag",
    "build_base_image",
    "build_bot_image",
    "build_timeout",
    "canonical_dockerfile",
    "check_dockerfile",
    "debian_mirror",
    "deterministic_tar",
    "docker_client",
    "find_base_image",
    "flavor",
    "inputs_key",
    "installed_wheel",
    "keep_bot_image",
    "layer_digest",
    "parse_dockerfile",
    "pin_image",
    "plugin_wheels",
    "prepare_wheels",
    "prune_images",
    "require_base_image",
    "runtime_requirements",
    "source_root",
]
