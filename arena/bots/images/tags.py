"""The tags that keep submitted bots' images on the engine (``arena-bot/NAME:VERSION``): what
``docker image prune`` and ``arena images prune`` leave alone."""

from __future__ import annotations

from typing import Any

from arena.bots.images.build import docker_client
from arena.bots.names import check_name, check_version, name_key, version_key
from arena.errors import SandboxError

BOT_REPOSITORY = "arena-bot"
"""Repository of the tags that keep submitted bots' images (``arena-bot/NAME:VERSION``)."""


def bot_tag(name: str, version: str) -> str:
    """The Docker tag that keeps a submitted bot's image: exactly ``arena-bot/NAME:VERSION``
    with the name lowercased (one tag per name ignoring case, per version). ``ConfigError``
    for a name or version outside the alphabets of :mod:`arena.bots.names`."""
    check_name("bot name", name, "tag")
    check_version("bot version", version, "tag")
    return f"{BOT_REPOSITORY}/{name_key(name)}:{version_key(version)}"


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
