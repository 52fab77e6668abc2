"""Build hook: generate the arena.v1 protobuf/gRPC modules from proto/ at build time.

Generated code is never committed (see .gitignore); every install (``pip install .`` or
``pip install -e .``) regenerates it from ``proto/arena/v1/*.proto`` with the pinned
grpcio-tools, so it cannot drift from the schema.
"""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import Command, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


def generate_protos() -> None:
    sys.path.insert(0, str(ROOT))
    from arena_protogen import generate  # type: ignore[import-not-found]

    generate(ROOT)


class GenerateProtos(Command):
    description = "generate arena/v1/*_pb2.py from proto/arena/v1/*.proto"
    user_options: list[tuple[str, str | None, str]] = []

    def initialize_options(self) -> None:
        pass

    def finalize_options(self) -> None:
        pass

    def run(self) -> None:
        generate_protos()


class BuildPyWithProtos(build_py):
    def run(self) -> None:
        generate_protos()
        super().run()


setup(cmdclass={"build_py": BuildPyWithProtos, "generate_protos": GenerateProtos})
