"""The .proto files generate for other languages without edits: protoc with the include root
`-I proto` (the imports are "arena/v1/<game>.proto"), and the file-level options pin each
language's package (docs/bots.md, "Generating code"). Java and C# are built into protoc; Go uses
protoc-gen-go and protoc-gen-go-grpc (Debian's protoc-gen-go, protoc-gen-go-grpc packages)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
PROTO = ROOT / "proto"
SOURCES = sorted(str(p.relative_to(PROTO)) for p in (PROTO / "arena" / "v1").glob("*.proto"))
MINIMUM_PROTOC = (3, 15)
"""proto3 `optional` (haggis.proto) needs protoc 3.15 or newer."""


def _need(*tools: str) -> None:
    absent = [tool for tool in tools if shutil.which(tool) is None]
    if not absent:
        return
    reason = f"generating code needs {', '.join(absent)} (scripts/setup.sh --test installs it)"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def _protoc(*args: str) -> None:
    done = subprocess.run(["protoc", "-I", str(PROTO), *args, *SOURCES], cwd=PROTO,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr


def test_protoc_is_new_enough_for_proto3_optional() -> None:
    _need("protoc")
    version = subprocess.run(["protoc", "--version"], capture_output=True, text=True,
                             check=True).stdout
    found = re.search(r"(\d+)\.(\d+)", version)
    assert found is not None and (int(found[1]), int(found[2])) >= MINIMUM_PROTOC, version


@pytest.mark.unit
def test_every_proto_pins_the_languages_packages() -> None:
    for source in SOURCES:
        text = (PROTO / source).read_text(encoding="utf-8")
        for option in ('go_package = "arena/v1;arenav1"', 'java_package = "arena.v1"',
                       "java_multiple_files = true", 'csharp_namespace = "Arena.V1"'):
            assert f"option {option};" in text, (source, option)


def test_java_and_csharp_generate(tmp_path: Path) -> None:
    _need("protoc")
    java, csharp = tmp_path / "java", tmp_path / "cs"
    java.mkdir()
    csharp.mkdir()
    _protoc(f"--java_out={java}", f"--csharp_out={csharp}")
    message = (java / "arena" / "v1" / "BotMessage.java").read_text(encoding="utf-8")
    assert "package arena.v1;" in message
    assert (java / "arena" / "v1" / "HaggisProto.java").is_file()
    assert "namespace Arena.V1 {" in (csharp / "Bot.cs").read_text(encoding="utf-8")


def test_go_generates_one_package(tmp_path: Path) -> None:
    _need("protoc", "protoc-gen-go", "protoc-gen-go-grpc")
    _protoc(f"--go_out={tmp_path}", "--go_opt=paths=source_relative",
            f"--go-grpc_out={tmp_path}", "--go-grpc_opt=paths=source_relative")
    files = sorted(p.name for p in (tmp_path / "arena" / "v1").glob("*.go"))
    assert files == ["admin.pb.go", "admin_grpc.pb.go", "bot.pb.go", "bot_grpc.pb.go",
                     "competition.pb.go", "competition_grpc.pb.go", "haggis.pb.go",
                     "lost_cities.pb.go", "portas.pb.go"]
    for name in files:
        text = (tmp_path / "arena" / "v1" / name).read_text(encoding="utf-8")
        assert "\npackage arenav1\n" in text
    assert "func NewBotServiceClient(" in (tmp_path / "arena/v1/bot_grpc.pb.go").read_text()
