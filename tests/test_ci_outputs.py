"""check-cycles' CI and picture outputs: SARIF 2.1.0 (validated against OASIS's schema), DOT and
Mermaid (golden files), and the options around them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from wapctl import findings
from wapctl.cli import app

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
GOLDEN = DATA / "golden"
# OASIS sarif-spec, sarif-2.1/schema/sarif-schema-2.1.0.json at commit
# e0583813964ec43cea53b6b531b402866095ed1f (the 2.1.0 errata01 schema, JSON Schema draft-04).
SCHEMA = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())
CHART = "fixtures/manifests/chart-cycle.yaml"  # relative: golden URIs are relative paths


def run(*args: object, input: str | None = None) -> Any:
    return CliRunner().invoke(
        app, [str(a) for a in args], input=input, env={"COLUMNS": "100"}, catch_exceptions=False
    )


def sarif(*args: object, input: str | None = None) -> tuple[int, dict[str, Any]]:
    result = run("check-cycles", *args, "-o", "sarif", input=input)
    return result.exit_code, json.loads(result.stdout)


def validate(log: dict[str, Any]) -> None:
    jsonschema.Draft4Validator(SCHEMA).validate(log)


@pytest.mark.parametrize(
    "fixture",
    [
        "fixtures/manifests/chart-cycle.yaml",
        "fixtures/manifests/chart-fixed.yaml",
        "fixtures/manifests/unknown-class.yaml",
        "fixtures/manifests/kueue-jobs.yaml",
        "fixtures/manifests/drift.yaml",
        "fixtures/cycles/three-way-cycle.yaml",
    ],
)
def test_sarif_validates_against_the_2_1_0_schema(
    fixture: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every fixture's SARIF log is valid SARIF 2.1.0; exit codes are check-cycles' own; every
    result points at its file and a line."""
    monkeypatch.chdir(ROOT)
    code, log = sarif(fixture)
    validate(log)
    assert code == (0 if fixture.endswith("fixed.yaml") else 1)
    for result in log["runs"][0]["results"]:
        physical = result["locations"][0]["physicalLocation"]
        assert fixture == physical["artifactLocation"]["uri"]
        assert physical["region"]["startLine"] >= 1


def test_sarif_from_stdin_validates_and_has_no_file() -> None:
    """Objects from stdin have logical locations only (no file to point at)."""
    code, log = sarif("-", input=(ROOT / CHART).read_text())
    assert 1 == code
    validate(log)
    locations = [r.get("locations", []) for r in log["runs"][0]["results"]]
    assert all("physicalLocation" not in loc for locs in locations for loc in locs)


def test_sarif_has_one_rule_per_finding_kind() -> None:
    """The driver lists every finding kind once, in findings.RULES order (ruleIndex)."""
    _, log = sarif(ROOT / CHART)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert list(findings.RULES) == [r["id"] for r in rules]
    for result in log["runs"][0]["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]


def test_sarif_golden(monkeypatch: pytest.MonkeyPatch) -> None:
    """chart-cycle.yaml's SARIF log: its cycle and violation (hand-worked in the fixture),
    both at line 88, ml/training's preemptionPriorityClassName."""
    monkeypatch.chdir(ROOT)
    result = run("check-cycles", CHART, "-o", "sarif")
    assert (GOLDEN / "chart-cycle.sarif.json").read_text() == result.stdout
    assert "  preemptionPriorityClassName: low" == (ROOT / CHART).read_text().splitlines()[87]


@pytest.mark.parametrize(("fmt", "golden"), [("dot", "chart-cycle.dot"),
                                             ("mermaid", "chart-cycle.mmd")])
def test_picture_golden(fmt: str, golden: str) -> None:
    """The chart's graph as DOT and Mermaid. Checked by hand against the fixture: p0 100/100
    [CronJob], p1 500/500 [Deployment, JobSet report], p2 1000/100 [ml/training, JobSet
    training]; 4 edges p1->p0, p1->p2, p2->p0, p2->p1; p1 and p2 on the cycle (red), the
    cycle's edges p1->p2 and p2->p1 red, p2 breaks the rule (dashed)."""
    result = run("check-cycles", ROOT / CHART, "-o", fmt)
    assert (1, (GOLDEN / golden).read_text()) == (result.exit_code, result.stdout)


def test_clean_picture_has_no_highlight() -> None:
    """The fixed chart: three nodes, three grey edges, nothing red."""
    text = run("check-cycles", ROOT / "fixtures/manifests/chart-fixed.yaml", "-o", "dot").stdout
    nodes = [line for line in text.splitlines() if "[label=" in line and "->" not in line]
    assert (3, 0, 3) == (len(nodes), text.count("color=red"), text.count("color=gray50"))


def test_never_profile_is_grey_in_mermaid() -> None:
    """A Never profile gets the 'never' class."""
    text = run("check-cycles", ROOT / "fixtures/cycles/never-breaks-cycle.yaml",
               "-o", "mermaid").stdout
    assert "classDef never color:#666" in text
    assert any(line.strip().startswith("class ") and line.endswith(" never")
               for line in text.splitlines())


@pytest.mark.parametrize("fmt", ["sarif", "dot", "mermaid"])
def test_github_format_with_another_output_is_a_usage_error(fmt: str) -> None:
    """--format github replaces the table: combining it with -o sarif|dot|mermaid exits 2."""
    result = run("check-cycles", ROOT / CHART, "--format", "github", "-o", fmt)
    assert (2, f"error: --format github replaces the table; do not combine it with -o {fmt}\n") \
        == (result.exit_code, result.stderr)
