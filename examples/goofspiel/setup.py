"""Build hook: generate ``arena_goofspiel/goofspiel_pb2.py`` from the package's .proto.

Generated code is never committed (see .gitignore): every install (``pip install
./examples/goofspiel``) compiles ``arena_goofspiel/proto/goofspiel/v1/goofspiel.proto`` with the
pinned grpcio-tools. The module is placed at the package's top (``arena_goofspiel.goofspiel_pb2``)
while the .proto keeps its canonical path (``goofspiel/v1/goofspiel.proto``, package
``goofspiel.v1``) for bots in other languages.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

PACKAGE = Path(__file__).resolve().parent / "arena_goofspiel"
PROTO_ROOT = PACKAGE / "proto"
PROTO = "goofspiel/v1/goofspiel.proto"


def generate_protos() -> None:
    """Compile the .proto into ``arena_goofspiel/goofspiel_pb2.py`` (and its ``.pyi``)."""
    import grpc_tools
    from grpc_tools import protoc

    include = Path(grpc_tools.__file__).parent / "_proto"
    with tempfile.TemporaryDirectory(prefix="goofspiel-proto-") as tmp:
        args = ["protoc", f"-I{PROTO_ROOT}", f"-I{include}", f"--python_out={tmp}",
                f"--pyi_out={tmp}", PROTO]
        code = protoc.main(args)
        if code != 0:
            raise SystemExit(f"protoc failed with exit code {code}")
        for suffix in (".py", ".pyi"):
            generated = Path(tmp) / PROTO.replace(".proto", f"_pb2{suffix}")
            shutil.copyfile(generated, PACKAGE / f"goofspiel_pb2{suffix}")


class BuildPyWithProtos(build_py):
    """``build_py`` that generates the protobuf module first."""

    def run(self) -> None:
        generate_protos()
        super().run()


setup(cmdclass={"build_py": BuildPyWithProtos})
