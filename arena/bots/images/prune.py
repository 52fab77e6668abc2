"""``arena images prune``: removing the images the arena built and no longer needs (bot images
built from directories that no submitted bot pins, and base images a newer build replaced)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from arena.bots.images.build import (
    FLAVORS,
    INPUTS_LABEL,
    docker_client,
    find_base_image,
)
from arena.bots.images.tags import BOT_REPOSITORY


@dataclass(frozen=True)
class PruneCandidate:
    """An image ``arena images prune`` looked at."""

    image_id: str
    """``sha256:...`` of the image."""
    kind: str
    """``bot build`` (built from a bot directory, not submitted) or ``old base``."""
    size: int
    """Bytes only this image holds (layers shared with other images not counted)."""
    removed: bool
    """Whether it was removed."""
    reason: str
    """Why it was kept, or empty when removed (or would be, in a dry run)."""


def prune_images(
    keep: Iterable[str], *, dry_run: bool = False, client: Any = None
) -> list[PruneCandidate]:
    """Remove the images the arena built and no longer needs.

    Candidates: bot images built from directories (``arena match``/ladders with Dockerfiles,
    labelled by :func:`~arena.bots.images.build.build_bot_image`) that no submitted bot pins
    (``keep``: image ids) and that carry no tag outside ``arena-bot/``; and base images replaced
    by a newer build (the current one of each flavor stays). Images a container still uses, or
    that other images are built on, are kept with the reason. Images the arena did not build are
    never touched.
    """
    # docker (~0.9 s to import) once an engine is used: the CLI, importing this, goes without
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
    # sparse: the list's own fields, no inspect per container (one removed meanwhile, by a
    # match ending or another referee's janitor, would fail it with NotFound)
    used = {c.attrs.get("ImageID") for c in client.containers.list(all=True, sparse=True)}
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
            for tag in image.tags:  # leftover arena-bot tags of a bot no longer submitted
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
