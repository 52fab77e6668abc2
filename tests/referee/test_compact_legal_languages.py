"""The expansion code docs/protocol.md ("Legal actions") gives C++ and Node.js bot authors,
taken from the page as it is and run on the referee's bytes: the worst Haggis lead (19,026
actions) and a plain request expand to exactly the legal texts, in order."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from arena.v1 import bot_pb2
from arena.wire.legal import fill_legal_actions
from tests.support.compact_legal import worst_haggis_lead
from tests.support.cpp import prepare_cpp_bot
from tests.support.js import prepare_js_bot
from tests.support.paths import ROOT

pytestmark = pytest.mark.integration

PAGE = ROOT / "docs" / "protocol.md"
TIMEOUT_S = 600


def _snippet(language: str) -> str:
    """The page's code block in ``language`` (cpp, js) under "Legal actions"."""
    section = PAGE.read_text().split("## Legal actions", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(rf"```{language}\n(.*?)```", section, re.S)
    assert len(blocks) == 1, f"one {language} block under Legal actions"
    return "\n".join(line[2:] if line.startswith("  ") else line
                     for line in blocks[0].splitlines())


@pytest.fixture(scope="module")
def requests(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Path, list[str]]]:
    """Serialized RefereeMessages and the texts each must expand to."""
    where = tmp_path_factory.mktemp("requests")
    _, worst = worst_haggis_lead()
    cases = []
    for name, texts in (("worst", worst), ("plain", ["play Y4 deck", "discard Y4 R", "é"])):
        message = bot_pb2.RefereeMessage()
        fill_legal_actions(message.decision, texts)
        assert message.decision.HasField("legal_actions_compact") == (name == "worst")
        path = where / f"{name}.bin"
        path.write_bytes(message.SerializeToString())
        cases.append((path, texts))
    return cases


def _check(command: list[str], requests: list[tuple[Path, list[str]]], cwd: Path,
           env: dict[str, str] | None = None) -> None:
    for path, texts in requests:
        done = subprocess.run([*command, str(path)], cwd=cwd, capture_output=True, env=env,
                              timeout=TIMEOUT_S, check=False)
        assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
        assert done.stdout.decode().split("\n") == texts


CPP_MAIN = """
#include <fstream>
#include <iostream>
#include <sstream>
int main(int, char** argv) {
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  arena::v1::RefereeMessage message;
  if (!message.ParseFromString(bytes.str())) return 3;
  auto legal = LegalTexts(message.decision());
  for (size_t i = 0; i < legal.size(); ++i) std::cout << (i ? "\\n" : "") << legal[i];
}
"""


def test_the_cpp_expansion_of_the_protocol_page(
    requests: list[tuple[Path, list[str]]], tmp_path: Path
) -> None:
    # the arena.v1 messages as a C++ bot has them: generated from proto/ by protoc and compiled
    # by the C++ sample bot's build (shared with its tests; made once a run)
    gen = prepare_cpp_bot() / "gen"
    objects = sorted(p for p in gen.glob("arena/v1/*.pb.o") if ".grpc." not in p.name)
    assert [p.name for p in objects] == [f"{m}.pb.o" for m in
                                         ("bot", "haggis", "lost_cities", "portas")]
    source = tmp_path / "expand.cpp"
    source.write_text('#include <stdexcept>\n#include <string>\n#include <vector>\n'
                      '#include "arena/v1/bot.pb.h"\n' + _snippet("cpp") + CPP_MAIN)
    libs = subprocess.run(["pkg-config", "--libs", "protobuf"], capture_output=True, text=True,
                          check=True).stdout.split()
    built = subprocess.run(["g++", "-std=c++17", "-O0", f"-I{gen}", str(source),
                            *map(str, objects), *libs, "-lz", "-o", str(tmp_path / "expand")],
                           capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    assert built.returncode == 0, built.stderr[-3000:]
    _check([str(tmp_path / "expand")], requests, tmp_path)


JS_MAIN = """
const fs = require("node:fs");
const protoLoader = require("@grpc/proto-loader");
const definition = protoLoader.loadSync("arena/v1/bot.proto", {
  includeDirs: [process.argv[2]], keepCase: true, enums: String, longs: Number,
  defaults: true, oneofs: true,
});
const read = definition["arena.v1.BotService"].Play.responseDeserialize;
const message = read(fs.readFileSync(process.argv[3]));
process.stdout.write(legalTexts(message.decision).join("\\n"));
"""


def test_the_node_expansion_of_the_protocol_page(
    requests: list[tuple[Path, list[str]]], tmp_path: Path
) -> None:
    bot = prepare_js_bot()  # its node_modules hold @grpc/proto-loader, as a bot's would
    script = tmp_path / "expand.js"
    script.write_text(_snippet("js") + JS_MAIN)
    _check(["node", str(script), str(ROOT / "proto")], requests, tmp_path,
           env={**os.environ, "NODE_PATH": str(bot / "node_modules")})
