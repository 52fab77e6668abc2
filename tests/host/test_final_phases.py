"""The final tournament driven by a real `arena host` beyond `arena final`: the season's phases
(`arena phase final` begins it, played but unpublished; `arena phase closed` publishes it), and
the Docker sandbox a real competition uses. The rest: tests/host/test_final.py."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from arena.host.config import load_competition
from arena.record.signing import load_trusted
from arena.site.publish import MANIFEST, verify_publication
from tests.support.competition import make_server
from tests.support.finals import ENTRANTS, arena, recorded, wait

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(900)]


def test_the_seasons_final_phase_begins_the_final_and_closed_publishes_it(
        tmp_path: Path) -> None:
    """With a season: `arena phase final` begins the final among the selected versions (here
    none: `[final] house = true` puts the house bots in), the server plays it but publishes
    nothing while the phase is final; `arena phase closed` publishes it, and it verifies."""
    server = make_server(tmp_path / "season", sandbox="process")
    text = server.file.read_text().replace('house = ["random"]', 'house = ["random", "greedy"]')
    text = text.replace("duplicate = true\n", "duplicate = false\n")  # one match a pair
    server.file.write_text(text + "\n[season]\n\n[final]\nencounters = 1\nhouse = true\n")
    c = load_competition(server.file)
    out = c.site_dir / "final" / "lost-cities"
    server.start()
    try:
        moved = arena("phase", "final", "--competition", str(server.file))
        assert moved.returncode == 0, moved.stdout + moved.stderr
        wait("the final's commitment", (c.site_dir / "final" /
                                         "lost-cities-commitment.json").is_file, server)
        wait("the final played", lambda: len(recorded(server)) == 1, server)
        time.sleep(3 * 1.0)  # three turns of the final thread (FINAL_POLL_S): still unpublished
        assert not (out / MANIFEST).exists()
        closed = arena("phase", "closed", "--competition", str(server.file))
        assert closed.returncode == 0, closed.stdout + closed.stderr
        wait("the final published", lambda: (out / MANIFEST).is_file(), server)
    finally:
        server.end()
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["final"]["complete"] is True
    assert [f"{e['name']}@{e['version']}" for e in manifest["final"]["entrants"]] == \
        ["random@1", "greedy@1"]
    report = verify_publication(out, load_trusted([c.state_dir / "keys" / "referee.pub"]))
    assert report.ok, report.differences


@pytest.mark.docker
def test_a_final_in_containers_publishes_results_that_verify(tmp_path: Path) -> None:
    """The same final in the Docker sandbox a real competition uses (two house bots, one
    encounter): played in containers, published, verified."""
    from tests.support.containers import require_docker

    require_docker()
    server = make_server(tmp_path / "docker", sandbox="docker")
    server.file.write_text(server.file.read_text() + "\n[final]\nencounters = 1\n")
    c = load_competition(server.file)
    server.start()
    try:
        begun = arena("final", str(server.file), *ENTRANTS[:2])
        assert begun.returncode == 0, begun.stdout + begun.stderr
        out = c.site_dir / "final" / "lost-cities"
        wait("the final published", lambda: (out / MANIFEST).is_file(), server)
    finally:
        server.end()
    manifest = json.loads((out / MANIFEST).read_text())
    assert len(manifest["matches"]) == 2 and manifest["final"]["complete"] is True
    assert all(not row["void"] for row in manifest["matches"])
    report = verify_publication(out, load_trusted([c.state_dir / "keys" / "referee.pub"]))
    assert report.ok, report.differences


def test_the_seasons_final_leaves_out_a_disqualified_contestants_versions(
        tmp_path: Path) -> None:
    """A disqualified contestant's version (here the house bot greedy, assigned to alice) is
    not among the final's entrants when the season's final begins: the others play it."""
    from typer.testing import CliRunner

    from arena.cli.main import app
    from arena.host.server import CompetitionServer

    server = make_server(tmp_path / "dq", sandbox="process")
    text = server.file.read_text().replace('house = ["random"]',
                                           'house = ["random", "greedy", "strong"]')
    server.file.write_text(text + "\n[season]\n\n[final]\nencounters = 1\nhouse = true\n")
    runner = CliRunner(env={"COLUMNS": "400"})
    for args in (["contestants", "assign", "greedy", "alice"],
                 ["contestants", "disqualify", "alice", "--why", "shared a hand"]):
        said = runner.invoke(app, [*args, "--competition", str(server.file)])
        assert said.exit_code == 0, said.output
    c = load_competition(server.file)
    host = CompetitionServer(c)
    host._apply_audit()
    assert [Path(ref).name for ref in host.final_entrants("lost-cities")] == ["random", "strong"]
    host.begin_final("lost-cities")
    state = host.finals["lost-cities"].state()
    assert state is not None and [e.key for e in state.entrants] == ["random@1", "strong@1"]
