"""The hand-worked inter-pod constraint fixtures in fixtures/constraints/: each YAML derives,
in its header comment, the preemption its constraint forces; this runs ``wapctl plan -o json``
on it (default model) and checks status, victims and placements against that derivation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wapctl.cli import app

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "constraints"

# name -> (status, victims, placements: pod -> node, or a set of acceptable node tuples)
EXPECTED = {
    "preemptor-anti-affinity": ("RequiresPreemption", ["default/web"], {"default/p": "node-a"}),
    "existing-anti-affinity": ("RequiresPreemption", ["default/guard"], {"default/p": "node-a"}),
    "topology-spread": ("RequiresPreemption", ["default/web-2"], {"default/p": "node-a"}),
    "host-port": ("RequiresPreemption", ["default/old"], {"default/p": "node-a"}),
    "host-port-address": ("Schedulable", [], {"default/p": "node-b"}),
    "pod-affinity": ("RequiresPreemption", ["default/filler"], {"default/p": "node-c"}),
    "gang-anti-affinity": ("RequiresPreemption", ["default/batch"], None),
}


def _plan(name: str, *extra: str) -> dict:
    result = CliRunner().invoke(app, ["plan", str(FIXTURES / f"{name}.yaml"), "-o", "json",
                                      *extra], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout[result.stdout.index("{"):])


def test_every_fixture_has_an_expectation() -> None:
    """No fixture without its derived answer, no answer without its fixture."""
    assert sorted(p.stem for p in FIXTURES.glob("*.yaml")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_constraint_forces_the_derived_preemption(name: str) -> None:
    """Status, victims and placements are the ones derived in the fixture's comment."""
    status, victims, placements = EXPECTED[name]
    plan = _plan(name)
    assert plan["status"] == status, plan["reason"]
    assert sorted(v["pod"] for v in plan["victims"]) == victims
    got = {p["pod"]: p["node"] for p in plan["placements"]}
    if placements is not None:
        assert got == placements
    else:  # the gang: one member per node, on n1 and n2
        assert sorted(got) == ["ml/train-0", "ml/train-1"]
        assert sorted(got.values()) == ["n1", "n2"]
