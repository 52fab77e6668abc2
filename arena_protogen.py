"""Generate arena/v1 from proto/arena/v1 with grpc_tools.protoc (build-time helper).

Used by setup.py at build time and by ``python arena_protogen.py`` in a source checkout.
"""

from __future__ import annotations

import sys
from pathlib import Path


def generate(root: Path) -> list[Path]:
    """Compile every .proto under root/proto/arena/v1 into root/arena/v1 (and copy the sources
    there, shipped as package data); return the generated modules."""
    import grpc_tools
    from grpc_tools import protoc

    proto_root = root / "proto"
    sources = sorted((proto_root / "arena" / "v1").glob("*.proto"))
    if not sources:
        raise SystemExit(f"no .proto files under {proto_root}")
    include = Path(grpc_tools.__file__).parent / "_proto"
    args = [
        "protoc",
        f"-I{proto_root}",
        f"-I{include}",
        f"--python_out={root}",
        f"--pyi_out={root}",
        f"--grpc_python_out={root}",
        *[str(s.relative_to(proto_root)) for s in sources],
    ]
    code = protoc.main(args)
    if code != 0:
        raise SystemExit(f"protoc failed with exit code {code}")
    out = root / "arena" / "v1"
    for source in sources:  # shipped beside the code: a game's plugin names its .proto
        (out / source.name).write_bytes(source.read_bytes())
    return sorted(out.glob("*_pb2*.py*"))


if __name__ == "__main__":
    for path in generate(Path(__file__).resolve().parent):
        print(path)
    sys.exit(0)
