"""Behaviour models: default selection, server versions, feature gates, importance rules."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from builders import node, pod, snapshot
from typer.testing import CliRunner

from wapctl import models
from wapctl.cli import app
from wapctl.ingest import build_snapshot, read_documents

PLAN = Path(__file__).resolve().parent.parent / "fixtures" / "plan"


def test_default_is_136_without_version_or_kep_fields():
    """No server version and no KEP-only field: the released 1.36 scheduler."""
    snap = snapshot(nodes=[node("n1")], pods=[pod("p", prio=1)])
    chosen = models.select_model(snap)
    assert ("1.36", "no server version known; default model 1.36") == (chosen.name,
                                                                         chosen.reason)


def test_kep_only_field_selects_kep_model():
    """A Workload with preemptionPriorityClassName only exists in the KEP design."""
    snap = build_snapshot(read_documents([str(PLAN / "preemption-priority.yaml")]))
    chosen = models.select_model(snap)
    assert "kep-5710" == chosen.name
    assert "preemptionPriorityClassName" in chosen.reason


@pytest.mark.parametrize(("version", "name"), [("v1.36.2", "1.36"), ("v1.37.0-alpha.1", "upstream"),
                                               ("v1.35.4", "1.36"), ("garbage", "1.36")])
def test_server_version_selects_the_model(version, name):
    """The cluster's version decides before any field of the input does."""
    assert name == models.model_for_server_version(version)[0]

    class WithVersion:  # a snapshot that uses a KEP-only field and knows its server version
        server_version = version
        workloads = build_snapshot(read_documents([str(PLAN / "preemption-priority.yaml")])
                                   ).workloads
        pod_groups: dict = {}  # noqa: RUF012 - a read-only stand-in

    assert name == models.select_model(WithVersion()).name  # type: ignore[arg-type]


def test_explicit_name_wins():
    snap = build_snapshot(read_documents([str(PLAN / "preemption-priority.yaml")]))
    assert "upstream" == models.select_model(snap, "upstream").name


def test_feature_gates_are_checked_per_model():
    """PodGroupPreemptionPolicy exists upstream only; the workload gates must stay on."""
    assert models.get_model("upstream", {"PodGroupPreemptionPolicy": True}).group_policy_own
    assert not models.get_model("upstream").group_policy_own
    with pytest.raises(models.ModelError, match=r"not known to model 1\.36"):
        models.get_model("1.36", {"PodGroupPreemptionPolicy": True})
    with pytest.raises(models.ModelError, match="not modelled"):
        models.get_model("1.36", {"WorkloadAwarePreemption": False})
    assert {"A": True, "B": False} == models.parse_feature_gates("A=true, B=False")
    with pytest.raises(models.ModelError):
        models.parse_feature_gates("A")


def test_importance_rules_differ_as_upstream_code_does():
    """Equal priority: 1.36 single pod by start only; 1.36 gang puts grouped pods first;
    upstream puts group victims (and pods of a group) first; KEP puts groups, then workload
    pods, then pods."""
    older_solo = (100, False, False, 1, 1.0, "a-solo")
    newer_member = (100, False, True, 1, 2.0, "b-member")
    assert models.importance_136_pod(*older_solo) < models.importance_136_pod(*newer_member)
    assert models.importance_136_group(*newer_member) < models.importance_136_group(*older_solo)
    # upstream types any pod with a schedulingGroup as a group victim (NewPodVictim)
    assert models.importance_upstream(*newer_member) < models.importance_upstream(*older_solo)
    assert models.importance_kep(*newer_member) < models.importance_kep(*older_solo)
    unit = (100, True, True, 3, math.inf, "c-group")
    assert models.importance_upstream(*unit) < models.importance_upstream(*older_solo)


def test_version_command_names_the_upstream_commit():
    result = CliRunner().invoke(app, ["version"])
    assert 0 == result.exit_code
    assert f"model upstream: kubernetes/kubernetes {models.UPSTREAM_COMMIT}" in result.stdout


def test_pod_of_a_group_plans_its_group_and_says_so():
    """--pod naming a gang member plans the whole group, and the plan says why."""
    import json
    result = CliRunner().invoke(app, ["plan", str(PLAN / "gang-pdb-first.yaml"), "--pod",
                                      "ml/train-0", "-o", "json"])
    doc = json.loads(result.stdout)
    assert "PodGroup" == doc["preemptor"]["kind"]
    assert ["pod ml/train-0 is a member of pod group ml/train/workers: group members do not "
            "preempt one by one, so the plan is for the whole group"] == doc["notes"]
