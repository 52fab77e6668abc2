"""`arena sprt llr`, the SPRT calculator, run in-process with typer's runner."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.stats.sprt import EloModel, Pentanomial, SprtParams, evaluate

pytestmark = pytest.mark.unit

runner = CliRunner()
JSON_FIELDS = {"model", "elo0", "elo1", "alpha", "beta", "pentanomial", "pairs", "llr",
               "lower_bound", "upper_bound", "decision", "score", "elo", "elo_ci95", "los",
               "variance_ratio", "variance_note", "variance_reduction", "variance_ratio_range",
               "draw_pairs"}


def test_json_has_every_field_and_the_module_values() -> None:
    out = runner.invoke(app, ["sprt", "llr", "--pentanomial", "2,5,20,30,43", "--elo0", "0",
                              "--elo1", "100", "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert set(data) == JSON_FIELDS
    assert data["decision"] == "H1" and data["model"] == "logistic"
    assert data["pentanomial"] == [2, 5, 20, 30, 43] and data["pairs"] == 100
    assert data["llr"] == pytest.approx(21.858, abs=1e-3)
    assert data["lower_bound"] == pytest.approx(math.log(0.05 / 0.95))
    assert data["upper_bound"] == pytest.approx(math.log(0.95 / 0.05))
    low, high = data["elo_ci95"]
    assert low < data["elo"] < high and data["los"] > 0.999
    expected = evaluate(Pentanomial((2, 5, 20, 30, 43)), SprtParams(0.0, 100.0)).to_json()
    assert data == expected


def test_json_normalized_vector_with_negative_bound() -> None:
    # fastchess app/tests/sprt_test.cpp, "normalized pentanomial 2"
    out = runner.invoke(app, ["sprt", "llr", "--pentanomial", "127,4883,10712,5150,104",
                              "--elo0", "-1.75", "--elo1", "0.25", "--model", "normalized",
                              "--alpha", "0.05", "--beta", "0.05", "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["model"] == EloModel.normalized
    assert data["llr"] == pytest.approx(3.01, rel=0.01)
    assert data["decision"] == "H1"


def test_json_continue_and_h0() -> None:
    base = ["sprt", "llr", "--elo0", "0", "--elo1", "100", "--format", "json"]
    going_on = runner.invoke(app, [*base, "--pentanomial", "1,2,3,2,1"])
    assert going_on.exit_code == 0, going_on.output
    assert json.loads(going_on.stdout)["decision"] == "continue"
    failed = runner.invoke(app, [*base, "--pentanomial", "43,30,20,5,2"])
    assert failed.exit_code == 0, failed.output
    assert json.loads(failed.stdout)["decision"] == "H0"


def test_draw_pairs_change_only_the_variance_ratio() -> None:
    base = ["sprt", "llr", "--pentanomial", "3,10,20,12,5", "--elo0", "0", "--elo1", "50",
            "--format", "json"]
    plain = json.loads(runner.invoke(app, base).stdout)
    drawn = json.loads(runner.invoke(app, [*base, "--draw-pairs", "20"]).stdout)
    assert drawn["llr"] == plain["llr"] and drawn["elo"] == plain["elo"]
    assert drawn["variance_ratio"] > plain["variance_ratio"]
    assert drawn["variance_ratio"] == pytest.approx(plain["variance_ratio_range"][1])
    assert drawn["draw_pairs"] == 20


def test_human_table() -> None:
    out = runner.invoke(app, ["sprt", "llr", "--pentanomial", "2,5,20,30,43", "--elo0", "0",
                              "--elo1", "100"])
    assert out.exit_code == 0, out.output
    for text in ("LLR", "21.86", "-2.94", "2.94", "H1 accepted", "at least 100 Elo", "LOS",
                 "95%", "variance"):
        assert text in out.stdout, text
    normalized = runner.invoke(app, ["sprt", "llr", "--pentanomial", "43,30,20,5,2",
                                     "--elo0", "0", "--elo1", "100", "--model", "normalized"])
    assert normalized.exit_code == 0, normalized.output
    assert "nElo" in normalized.stdout and "H0 accepted" in normalized.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["--pentanomial", "1,2,3,4,5", "--elo0", "5", "--elo1", "5"], "elo0 must be less"),
    (["--pentanomial", "1,2,3,4,5", "--elo0", "5", "--elo1", "0"], "elo0 must be less"),
    (["--pentanomial", "1,2,3,4,5", "--elo0", "0", "--elo1", "5", "--alpha", "0.5"], "alpha"),
    (["--pentanomial", "1,2,3,4,5", "--elo0", "0", "--elo1", "5", "--beta", "0"], "beta"),
    (["--pentanomial", "1,2,3,4", "--elo0", "0", "--elo1", "5"], "five non-negative"),
    (["--pentanomial", "1,2,-3,4,5", "--elo0", "0", "--elo1", "5"], "five non-negative"),
    (["--pentanomial", "1,2,x,4,5", "--elo0", "0", "--elo1", "5"], "five non-negative"),
    (["--pentanomial", "0,0,0,0,0", "--elo0", "0", "--elo1", "5"], "all zero"),
    (["--pentanomial", "1,2,3,4,5", "--elo0", "0", "--elo1", "5", "--draw-pairs", "4"],
     "draw pairs"),
])
def test_bad_input_is_one_clear_error(args: list[str], message: str) -> None:
    out = runner.invoke(app, ["sprt", "llr", *args, "--format", "json"])
    assert out.exit_code == 2
    assert out.stdout == ""
    assert message in out.output
    assert out.output.count("error:") == 1


def test_malformed_numbers_and_missing_options_exit_2() -> None:
    bad_alpha = runner.invoke(app, ["sprt", "llr", "--pentanomial", "1,2,3,4,5", "--elo0", "0",
                                    "--elo1", "5", "--alpha", "lots"])
    assert bad_alpha.exit_code == 2
    missing = runner.invoke(app, ["sprt", "llr", "--pentanomial", "1,2,3,4,5", "--elo0", "0"])
    assert missing.exit_code == 2
    assert "--elo1" in missing.output
