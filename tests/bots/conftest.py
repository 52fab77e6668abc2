"""The Docker fixtures of the sandbox tests (a real engine, the local base image), for the
submission workflow's tests."""

from __future__ import annotations

from tests.sandbox.conftest import base_image, docker_client

__all__ = ["base_image", "docker_client"]
