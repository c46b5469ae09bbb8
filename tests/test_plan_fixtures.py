"""The hand-worked plan fixtures in fixtures/plan/: each YAML explains its answer in a comment;
the matching *.expected.json is that answer written out by hand (SPEC.md §4).

``NAME.expected.json`` is the answer under the model chosen by default (its ``model`` field says
which and why); ``NAME.MODEL.expected.json`` the answer under ``--model MODEL`` where that
model decides otherwise (the YAML comment derives each)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wapctl.cli import app

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "plan"
CASES = sorted(p.stem for p in FIXTURES.glob("*.yaml"))
EXIT = {"never": 3}
MODEL_CASES = sorted(
    tuple(p.name[: -len(".expected.json")].split(".", 1))  # type: ignore[misc]
    for p in FIXTURES.glob("*.*.expected.json"))


def run(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def test_every_fixture_has_an_expected_answer():
    """Each plan fixture ships a hand-written expected document, and there are fixtures."""
    assert len(CASES) >= 8
    missing = [c for c in CASES if not (FIXTURES / f"{c}.expected.json").exists()]
    assert [] == missing


@pytest.mark.parametrize("case", CASES)
def test_plan_json_matches_the_hand_worked_answer(case: str):
    """`plan -o json` on the fixture prints exactly the expected document, with its exit code."""
    expected = json.loads((FIXTURES / f"{case}.expected.json").read_text())
    result = run("plan", str(FIXTURES / f"{case}.yaml"), "-o", "json")
    assert EXIT.get(case, 0) == result.exit_code, result.output
    assert expected == json.loads(result.stdout)


def test_models_that_differ_have_their_own_answers():
    """The behaviours issue 12 measured (A-D) each have a fixture answered per model."""
    assert {("podgroup-whole", "upstream"), ("preemption-priority", "1.36"),
            ("gang-pdb-first", "kep-5710"), ("start-time-order", "kep-5710"),
            ("terminating", "kep-5710")} <= set(MODEL_CASES)


@pytest.mark.parametrize(("case", "model"), MODEL_CASES, ids=[f"{c}-{m}" for c, m in MODEL_CASES])
def test_plan_json_per_model(case: str, model: str):
    """`plan --model M -o json` prints the hand-worked answer for that model."""
    expected = json.loads((FIXTURES / f"{case}.{model}.expected.json").read_text())
    result = run("plan", str(FIXTURES / f"{case}.yaml"), "--model", model, "-o", "json")
    assert EXIT.get(case, 0) == result.exit_code, result.output
    assert expected == json.loads(result.stdout)
    assert {"name": model, "reason": f"--model {model}"} == expected["model"]


@pytest.mark.parametrize("case", CASES)
def test_plan_yaml_is_the_same_document(case: str):
    """`-o yaml` prints the same document as `-o json`."""
    import yaml

    as_json = json.loads(run("plan", str(FIXTURES / f"{case}.yaml"), "-o", "json").stdout)
    as_yaml = yaml.safe_load(run("plan", str(FIXTURES / f"{case}.yaml"), "-o", "yaml").stdout)
    assert as_json == as_yaml


@pytest.mark.parametrize("case", CASES)
def test_plan_json_is_byte_identical_across_runs(case: str):
    """The same input gives byte-identical JSON (SPEC.md §3.7)."""
    first = run("plan", str(FIXTURES / f"{case}.yaml"), "-o", "json").stdout
    second = run("plan", str(FIXTURES / f"{case}.yaml"), "-o", "json").stdout
    assert first == second
