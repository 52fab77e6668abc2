"""Sandboxes run bots: ``process`` (local development, not a security boundary) and ``docker``
(hardened containers). ``get_sandbox("auto")`` picks Docker when an engine answers."""

from __future__ import annotations

import functools

from arena.errors import ConfigError
from arena.sandbox.api import Sandbox

SANDBOX_NAMES = ("process", "docker", "auto")


def get_sandbox(name: str) -> Sandbox:
    """The sandbox called ``name``; "auto" is Docker when an engine answers, else the process
    sandbox (commands that fall back say so: ``arena.cli.common.announce_sandbox``).

    One instance per name and process: the Docker sandbox keeps its client, the base image and
    the bot images it built, so a ladder does not rebuild them for every match."""
    if name == "auto":
        # the Docker client (~0.9 s to import) only to decide "auto": the CLI starts without it
        from arena.sandbox.docker import docker_available

        if docker_available():
            return get_sandbox("docker")
        return get_sandbox("process")
    return _sandbox(name)


@functools.cache
def _sandbox(name: str) -> Sandbox:
    if name == "process":
        # each sandbox's module only when it is asked for (the CLI imports this package)
        from arena.sandbox.process import ProcessSandbox

        return ProcessSandbox()
    if name == "docker":
        # the Docker sandbox (~0.9 s to import) only when asked for: the CLI starts without it
        from arena.sandbox.docker import DockerSandbox

        return DockerSandbox()
    raise ConfigError(f"unknown sandbox {name!r}; choose one of {', '.join(SANDBOX_NAMES)}")
