"""Behaviour found missing in review: scheduling gates and pod-level resources."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.test_load import build, container, node, pclass, pod
from wapctl.cli import app
from wapctl.errors import UsageError
from wapctl.preemptor import pending_preemptors, select_preemptor


def test_pod_level_requests_replace_the_container_aggregate(tmp_path: Path):
    """spec.resources.requests (PodLevelResources) override the containers' cpu and memory."""
    p = pod("p", containers=[container(cpu="1", memory="1Gi")])
    p["spec"]["resources"] = {"requests": {"cpu": "3"}}
    snap = build(tmp_path, p)
    assert 3000 == snap.pods["default/p"].requests["cpu"]
    assert 1024**3 == snap.pods["default/p"].requests["memory"]


def test_pod_level_limits_default_the_requests(tmp_path: Path):
    """Pod-level limits without requests count as requests, as the API server defaults them."""
    p = pod("p", containers=[container(cpu="1", memory="1Gi")])
    p["spec"]["resources"] = {"limits": {"memory": "4Gi"}}
    snap = build(tmp_path, p)
    assert 4 * 1024**3 == snap.pods["default/p"].requests["memory"]
    assert 1000 == snap.pods["default/p"].requests["cpu"]


def test_pod_level_overhead_is_still_added(tmp_path: Path):
    """spec.overhead comes on top of pod-level requests."""
    p = pod("p", containers=[container(cpu="1", memory="1Gi")])
    p["spec"]["resources"] = {"requests": {"cpu": "2"}}
    p["spec"]["overhead"] = {"cpu": "250m"}
    assert 2250 == build(tmp_path, p).pods["default/p"].requests["cpu"]


def _gated_cluster(tmp_path: Path):
    full = pod("low", containers=[container(cpu="4")], nodeName="n1", priorityClassName="low")
    gated = pod("gated", containers=[container(cpu="1")], priorityClassName="high",
                schedulingGates=[{"name": "kueue.x-k8s.io/admission"}])
    waiting = pod("waiting", containers=[container(cpu="1")], priorityClassName="mid")
    return build(tmp_path, pclass("low", 100), pclass("mid", 500), pclass("high", 1000),
                 node("n1", cpu="4"), full, gated, waiting)


def test_gated_pods_are_not_preemptors(tmp_path: Path):
    """A pod with scheduling gates is skipped by the queue: the scheduler does not try it."""
    snap = _gated_cluster(tmp_path)
    assert snap.pods["default/gated"].gated
    assert ["default/waiting"] == [p.pods[0].key for p in pending_preemptors(snap)]


def test_naming_a_gated_pod_is_a_usage_error(tmp_path: Path):
    """--pod naming a gated pod says why it cannot be planned."""
    snap = _gated_cluster(tmp_path)
    with pytest.raises(UsageError, match="scheduling gates"):
        select_preemptor(snap, pod="default/gated")


def test_scheduling_gates_must_be_a_list(tmp_path: Path):
    """A malformed spec.schedulingGates is an input error naming the field."""
    from wapctl.errors import InputError

    p = pod("p", containers=[container()], schedulingGates="kueue")
    with pytest.raises(InputError, match=r"spec\.schedulingGates"):
        build(tmp_path, p)


def test_plan_skips_gated_pods_when_choosing_the_preemptor(tmp_path: Path):
    """Without --pod, plan chooses the highest-priority pod the scheduler would try."""
    _gated_cluster(tmp_path)  # build() writes the snapshot as a YAML file in tmp_path
    path = next(tmp_path.glob("*.yaml"))
    result = CliRunner().invoke(app, ["plan", str(path), "-o", "json"])
    assert 0 == result.exit_code, result.output
    doc = json.loads(result.stdout)
    assert "waiting" == doc["preemptor"]["name"]
    assert [{"pod": "default/low", "node": "n1", "priority": 100,
             "unit": {"kind": "Pod", "name": "default/low"}, "pdbViolation": False}] == (
        doc["victims"])


@pytest.mark.parametrize(
    ("docs", "field"),
    [
        ([pclass("huge", 2**31)], "value"),
        ([pclass("tiny", -(2**31) - 1)], "value"),
        ([pod("p", priority=99999999999)], "spec.priority"),
    ],
    ids=["class-above-int32", "class-below-int32", "pod-priority-above-int32"],
)
def test_priorities_outside_int32_are_input_errors(tmp_path: Path, docs, field):
    """Priorities are 32-bit integers in the API; a larger value is refused, naming the field."""
    from wapctl.errors import InputError

    with pytest.raises(InputError, match="out of range") as exc:
        build(tmp_path, *docs)
    assert field == exc.value.field


def test_int32_bounds_themselves_are_fine(tmp_path: Path):
    """The extreme int32 values are valid priorities."""
    snap = build(tmp_path, pclass("top", 2**31 - 1), pclass("bottom", -(2**31)))
    assert 2**31 - 1 == snap.priority_classes["top"].value
    assert -(2**31) == snap.priority_classes["bottom"].value


def test_exists_toleration_with_a_value_is_an_input_error(tmp_path: Path):
    """An Exists toleration must not carry a value (API validation), so it is refused."""
    from wapctl.errors import InputError

    p = pod("p", containers=[container()],
            tolerations=[{"key": "gpu", "operator": "Exists", "value": "yes"}])
    with pytest.raises(InputError, match="operator is Exists") as exc:
        build(tmp_path, p)
    assert "spec.tolerations[0].value" == exc.value.field
