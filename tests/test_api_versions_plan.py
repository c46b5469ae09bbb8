"""Issue 9: the same cluster written in each Workload API shape gives byte-identical plans."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from wapctl.cli import app

API = Path(__file__).resolve().parent.parent / "fixtures" / "api-versions"


def test_plan_json_is_byte_identical_across_api_shapes():
    """v1alpha1, v1alpha2, v1alpha3 and v1beta1 snapshots of one cluster print the same plan
    JSON (issue 26: v1beta1 Workloads and PodGroups were ignored as unknown kinds, so its pods
    planned as standalone pods)."""
    outputs = {}
    for shape in ("v1alpha1", "v1alpha2", "v1alpha3", "v1beta1"):
        result = CliRunner().invoke(app, ["plan", str(API / f"{shape}.yaml"), "-o", "json"])
        assert 0 == result.exit_code, result.output
        outputs[shape] = result.stdout
    assert outputs["v1alpha1"] == outputs["v1alpha2"] == outputs["v1alpha3"]
    assert outputs["v1alpha2"] == outputs["v1beta1"]
    assert '"status": "RequiresPreemption"' in outputs["v1alpha1"]
