"""The Docker fixtures of the sandbox tests (a real engine, the local base image: they fail,
never skip, under ARENA_REQUIRE_DOCKER=1)."""

from __future__ import annotations

from tests.sandbox.conftest import base_image, docker_client, docker_sandbox

__all__ = ["base_image", "docker_client", "docker_sandbox"]
