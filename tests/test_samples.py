"""plan --samples: the spread of outcomes over seeded tie orders."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from wapctl.cli import app
from wapctl.load import build_snapshot, read_documents
from wapctl.models import get_model
from wapctl.preemptor import select_preemptor
from wapctl.samples import sample_plans

PLAN = Path(__file__).resolve().parent.parent / "fixtures" / "plan"


def _load(name: str):
    snap = build_snapshot(read_documents([str(PLAN / name)]))
    return snap, select_preemptor(snap, pod="default/urgent")


def test_equal_victims_vary_but_their_count_does_not():
    """tie-break.yaml under 1.36: the three pods are equal (priority, start), so whichever is
    tried first goes back and the other two are victims: always 2 victims, no pod always."""
    snap, pre = _load("tie-break.yaml")
    report = sample_plans(snap, pre, model=get_model("1.36"), samples=16)
    assert {2} == set(report.victim_counts)
    assert () == report.always
    assert {"default/gang-0", "default/solo", "default/wl-0"} == {p for p, _ in report.sometimes}
    assert 2 * 16 == sum(n for _, n in report.sometimes)


def test_the_kep_model_has_no_random_choice():
    """kep-5710 breaks ties by name: every sample is the plan itself."""
    snap, pre = _load("tie-break.yaml")
    report = sample_plans(snap, pre, model=get_model("kep-5710"), samples=4)
    assert ("default/solo", "default/wl-0") == report.always
    assert () == report.sometimes


def test_samples_in_json_are_deterministic_per_seed():
    """The same seed gives the same distribution; the section follows SPEC §4."""
    args = ["plan", str(PLAN / "podgroup-whole.yaml"), "--samples", "6", "-o", "json"]
    first = json.loads(CliRunner().invoke(app, args).stdout)["samples"]
    assert first == json.loads(CliRunner().invoke(app, args).stdout)["samples"]
    assert {"count", "seed", "statuses", "victimPods", "always", "sometimes"} == set(first)
    # either node may be chosen (both tie): one etl pod per sample, never both
    assert {"min": 1, "median": 1, "max": 1} == first["victimPods"]
    assert 6 == sum(row["samples"] for row in first["sometimes"])
