"""What a bot's Dockerfile may say (arena/bots/images/dockerfile.py), read the way Docker reads
it: every refusal names the line and says what to do; every trick that hides a refused
instruction or flag from a naive reader (continuations, comments inside them, case, quotes and
escapes in flag words, the JSON form) is seen; the Dockerfile the daemon gets is the arena's own.

The real engine's side (an ``ADD`` URL reaching no server, ``COPY --from`` copying nothing, the
built image holding exactly the bot's files, the wall-clock limit) is in
tests/sandbox/test_docker_build_attacks.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.bots.images import DockerfileError, canonical_dockerfile, check_dockerfile
from arena.bots.images.dockerfile import MAX_DOCKERFILE_BYTES, MAX_INSTRUCTIONS, parse_dockerfile

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
HEAD = "ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\n"
"""Two allowed lines; a refused line after them is line 3."""

REFUSED = [
    # (Dockerfile, line named, a fragment of the message)
    (HEAD + "RUN head -c 200G /dev/zero > /f\n", 3, "RUN: not allowed: the arena has no build"),
    (HEAD + "RUN sleep infinity\n", 3, "build or compile on your machine and COPY"),
    (HEAD + "run sleep infinity\n", 3, "RUN: not allowed"),
    (HEAD + "  Run ['sleep']\n", 3, "RUN: not allowed"),
    (HEAD + "ADD http://127.0.0.1:9/x /x\n", 3, "ADD: not allowed: ADD fetches URLs"),
    (HEAD + "add bot.tar.gz /bot\n", 3, "COPY the files of the bot directory instead"),
    (HEAD + "VOLUME /data\n", 3, "VOLUME: not allowed"),
    (HEAD + "EXPOSE 80\n", 3, "EXPOSE: not allowed"),
    (HEAD + "HEALTHCHECK CMD true\n", 3, "HEALTHCHECK: not allowed"),
    (HEAD + "ONBUILD COPY . /x\n", 3, "ONBUILD: not allowed"),
    (HEAD + "USER root\n", 3, "a bot never runs as root"),
    (HEAD + "USER 0:0\n", 3, "a bot never runs as root"),
    (HEAD + "USER 00\n", 3, "a bot never runs as root"),
    (HEAD + "ENV U=root\nUSER $U\n", 4, "name the user literally"),
    ("# syntax=docker/dockerfile:1\n" + HEAD, 1, "parser directive"),
    ("# escape=`\n" + HEAD, 1, "parser directive"),
    ("# A bot.\n#check=skip=all\n" + HEAD, 2, "parser directive"),
    ("ARG BASE_IMAGE\nFROM arena-bot/rival:2\n", 2, "'arena-bot/rival:2' is not allowed"),
    ("FROM some/missing:image\n", 1, "build FROM ${BASE_IMAGE}"),
    ("ARG BASE_IMAGE=x\nFROM ${BASE_IMAGE:-arena-bot/rival:2}\n", 2, "is not allowed"),
    ("FROM --platform=linux/arm64 scratch\n", 1, "takes no flags"),
    (HEAD.replace("}", "} AS check"), 2, "one stage, no stage name"),
    (HEAD + "FROM scratch\n", 3, "a second FROM (multi-stage build)"),
    ("FROM ${BASE_IMAGE}\n", 1, "needs `ARG BASE_IMAGE` on a line before it"),
    (HEAD + "COPY --from=arena-bot/rival:2 /bot /rival\n", 3, "--from is not allowed"),
    (HEAD + "copy --FROM=rival /bot /rival\n", 3, "COPY takes only --chown"),
    (HEAD + "COPY --fr\\\nom=rival /bot /rival\n", 3, "--from is not allowed"),
    (HEAD + "COPY \\\n# a comment inside the continuation\n  --from=rival /bot /x\n", 3,
     "--from is not allowed"),
    (HEAD + "COPY \\\n\n   \\\n--from=rival /bot /x\n", 3, "--from is not allowed"),
    (HEAD + 'COPY --fr"om"=rival /bot /rival\n', 3, "--from is not allowed"),
    (HEAD + "COPY --fr\\om=rival /bot /rival\n", 3, "--from is not allowed"),
    (HEAD + "COPY --chown=1:1 --from=rival /bot /rival\n", 3, "--from is not allowed"),
    (HEAD + 'COPY ["--from=rival", "/bot", "/rival"]\n', 3, "may not start with '-'"),
    (HEAD + "COPY -- --from=rival /bot /rival\n", 3, "no argument may start with '--'"),
    (HEAD + "CMD -- --flag\n", 3, "no argument may start with '--'"),
    (HEAD + "COPY a --from=rival /rival\n", 3, "may not start with '-'"),
    (HEAD + "COPY --chown=$(id) a /b\n", 3, "COPY takes only --chown"),
    (HEAD + "COPY <<EOF /x\nhello\nEOF\n", 3, "here-documents are not allowed"),
    (HEAD + "COPY bot.py\n", 3, "needs a source"),
    (HEAD + 'COPY ["a", "/b"] ["c"]\n', 3, "a JSON array of strings and nothing after it"),
    (HEAD + "WORKDIR --from=x /bot\n", 3, "takes no flags"),
    (HEAD + "FOO bar\n", 3, "not an instruction a bot's Dockerfile may use"),
    (HEAD + "COPY[\"a\",\"b\"]\n", 3, "is not an instruction"),
    ("ENV A=1\n" + HEAD, 1, "comes before FROM"),
    ("COPY . /bot\n" + HEAD, 1, "comes before FROM"),
    (HEAD + "CMD [\"python3\", 7]\n", 3, "a JSON array of strings"),
    (HEAD + "SHELL /bin/sh -c\n", 3, "takes a JSON array"),
    (HEAD + "LABEL a=b\x1b]52;c;SGVsbG8=\x07\n", 3, "control or invisible character (U+001B)"),
    (HEAD + "CMD [\"python3\", \"bot.py\u202e\"]\n", 3, "U+202E"),
    (HEAD + "COPY a\u00a0--from=x /b\n", 3, "U+00A0"),
    (HEAD + "CMD python3 bot.py \\\\", 3, "ends with a \\ but no line follows"),
    (HEAD + "WORKDIR\n", 3, "says nothing after the keyword"),
]


@pytest.mark.parametrize(("text", "line", "fragment"), REFUSED)
def test_refused_dockerfiles_name_the_line(text: str, line: int, fragment: str) -> None:
    with pytest.raises(DockerfileError) as raised:
        parse_dockerfile(text, "bots/x/Dockerfile")
    message = str(raised.value)
    assert message.startswith(f"bots/x/Dockerfile line {line}: "), message
    assert fragment in message, message
    assert "\n" not in message and "\x1b" not in message and "\u202e" not in message


def test_a_dockerfile_without_from_or_with_too_much_is_refused() -> None:
    with pytest.raises(DockerfileError, match="has no FROM"):
        parse_dockerfile("ARG BASE_IMAGE\n")
    many = HEAD + "".join(f"ENV V{i}=1\n" for i in range(MAX_INSTRUCTIONS))
    with pytest.raises(DockerfileError, match=f"more than {MAX_INSTRUCTIONS} instructions"):
        parse_dockerfile(many)


def test_the_daemon_gets_one_line_per_allowed_instruction() -> None:
    """Continuations joined, comments and blank lines dropped, keywords in capitals, JSON forms
    re-serialized, flags written from their checked values; reading it again gives itself."""
    text = (
        "\ufeff# A bot.\r\n"
        "arg BASE_IMAGE=unused\r\n"
        "\n"
        "from ${BASE_IMAGE}\n"
        "workdir /bot\n"
        "copy --chown=65534:65534 \\\n"
        "  # a comment inside the continuation\n"
        "  bot.py bot.toml \\\n"
        "  /bot/\n"
        'COPY ["data dir/", "/bot/data/"]\n'
        'env A="one two" B=3\n'
        "LABEL description=\"a bot\"\n"
        "USER 65534:65534\n"
        "STOPSIGNAL SIGTERM\n"
        'SHELL ["/bin/sh", "-c"]\n'
        "ENTRYPOINT   [ \"python3\" ]   \n"
        'CMD ["bot.py"]\n'
    )
    expected = (
        "ARG BASE_IMAGE=unused\n"
        "FROM ${BASE_IMAGE}\n"
        "WORKDIR /bot\n"
        "COPY --chown=65534:65534 bot.py bot.toml   /bot/\n"
        'COPY ["data dir/", "/bot/data/"]\n'
        'ENV A="one two" B=3\n'
        'LABEL description="a bot"\n'
        "USER 65534:65534\n"
        "STOPSIGNAL SIGTERM\n"
        'SHELL ["/bin/sh", "-c"]\n'
        'ENTRYPOINT ["python3"]\n'
        'CMD ["bot.py"]\n'
    )
    canonical = canonical_dockerfile(text)
    assert canonical == expected
    assert canonical_dockerfile(canonical) == canonical
    lines = [i.line for i in parse_dockerfile(text)]
    assert lines == [2, 4, 5, 6, 10, 11, 12, 13, 14, 15, 16, 17]


def test_from_scratch_and_both_spellings_of_the_base_are_allowed() -> None:
    assert canonical_dockerfile("FROM scratch\nCOPY cpp /bot/cpp\n").startswith("FROM scratch\n")
    assert "FROM $BASE_IMAGE\n" in canonical_dockerfile("ARG BASE_IMAGE\nFROM $BASE_IMAGE\n")


def test_every_sample_dockerfile_passes() -> None:
    dockerfiles = sorted(ROOT.glob("sample_bots/**/Dockerfile"))
    dockerfiles += sorted(ROOT.glob("tests/**/bots/*/Dockerfile"))
    assert len(dockerfiles) >= 21
    for dockerfile in dockerfiles:
        check_dockerfile(dockerfile.parent)


def test_check_dockerfile_reads_only_a_regular_file_of_bounded_size(tmp_path: Path) -> None:
    check_dockerfile(tmp_path)  # no Dockerfile: nothing to check
    secret = tmp_path / "secret"
    secret.write_text(HEAD)
    (tmp_path / "Dockerfile").symlink_to(secret)
    with pytest.raises(DockerfileError, match="not a link"):
        check_dockerfile(tmp_path)
    (tmp_path / "Dockerfile").unlink()
    os.mkfifo(tmp_path / "Dockerfile")
    with pytest.raises(DockerfileError, match="is not a regular file"):
        check_dockerfile(tmp_path)  # and does not block on the FIFO
    (tmp_path / "Dockerfile").unlink()
    (tmp_path / "Dockerfile").write_text(HEAD + "#" * MAX_DOCKERFILE_BYTES)
    with pytest.raises(DockerfileError, match="is over 64 KiB"):
        check_dockerfile(tmp_path)
    (tmp_path / "Dockerfile").write_bytes(HEAD.encode() + b"LABEL a=\xff\n")
    with pytest.raises(DockerfileError, match="is not UTF-8"):
        check_dockerfile(tmp_path)
    (tmp_path / "Dockerfile").write_text(HEAD + "RUN true\n")
    with pytest.raises(DockerfileError, match="Dockerfile line 3: RUN"):
        check_dockerfile(tmp_path)
