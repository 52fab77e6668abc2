"""Sandboxes run bots: ``process`` (local development, not a security boundary) and ``docker``
(hardened containers). ``get_sandbox("auto")`` picks Docker when an engine answers."""

from __future__ import annotations

import functools
import logging

from arena.errors import ConfigError
from arena.sandbox.api import Sandbox

SANDBOX_NAMES = ("process", "docker", "auto")
log = logging.getLogger(__name__)


def get_sandbox(name: str) -> Sandbox:
    """The sandbox called ``name``; "auto" falls back to the process sandbox with a warning.

    One instance per name and process: the Docker sandbox keeps its client, the base image and
    the bot images it built, so a ladder does not rebuild them for every match."""
    if name == "auto":
        from arena.sandbox.docker import docker_available

        if docker_available():
            return get_sandbox("docker")
        log.warning(
            "no Docker engine answers: using the process sandbox, which is NOT a security "
            "boundary (start dockerd, see docs/containers.md)"
        )
        return get_sandbox("process")
    return _sandbox(name)


@functools.cache
def _sandbox(name: str) -> Sandbox:
    if name == "process":
        from arena.sandbox.process import ProcessSandbox

        return ProcessSandbox()
    if name == "docker":
        from arena.sandbox.docker import DockerSandbox

        return DockerSandbox()
    raise ConfigError(f"unknown sandbox {name!r}; choose one of {', '.join(SANDBOX_NAMES)}")
