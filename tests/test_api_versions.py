"""The same cluster in the v1alpha1, v1alpha2, v1alpha3 and v1beta1 Workload API shapes (issues 9,
26)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import msgspec
import pytest

from wapctl import ingest
from wapctl.errors import InputError
from wapctl.model import Snapshot
from wapctl.workload_api import V1ALPHA1, V1ALPHA2, V1ALPHA3, V1BETA1

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "api-versions"
SHAPES = {
    "v1alpha1": V1ALPHA1,
    "v1alpha2": V1ALPHA2,
    "v1alpha3": V1ALPHA3,
    "v1beta1": V1BETA1,
}


def _load(shape: str) -> Snapshot:
    return ingest.build_snapshot(ingest.read_documents([str(FIXTURES / f"{shape}.yaml")]))


def _strip(obj: Any) -> Any:
    changes: dict[str, Any] = {"source": None}
    if hasattr(obj, "api_version"):
        changes["api_version"] = None
    if isinstance(obj, msgspec.Struct):  # Pod, PodGroup, Workload
        return msgspec.structs.replace(obj, **changes)
    return dataclasses.replace(obj, **changes)


def _normalised(snap: Snapshot) -> Snapshot:
    """The snapshot without what legitimately differs: sources and API versions."""

    def each(mapping: Any) -> dict[str, Any]:
        return {k: _strip(v) for k, v in mapping.items()}

    return dataclasses.replace(
        snap,
        nodes=each(snap.nodes),
        pods=each(snap.pods),
        priority_classes=each(snap.priority_classes),
        pdbs=tuple(_strip(p) for p in snap.pdbs),
        workloads=each(snap.workloads),
        pod_groups=each(snap.pod_groups),
    )


@pytest.mark.parametrize("shape", ["v1alpha2", "v1alpha3", "v1beta1"])
def test_shapes_give_equal_snapshots(shape: str) -> None:
    """v1alpha2, v1alpha3 and v1beta1 fixtures load to the v1alpha1 snapshot, except api_version."""
    assert _normalised(_load("v1alpha1")) == _normalised(_load(shape))


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_api_version_records_the_shape(shape: str) -> None:
    """Every Workload and pod group remembers which API shape declared it."""
    snap = _load(shape)
    assert {SHAPES[shape]} == {w.api_version for w in snap.workloads.values()}
    assert {SHAPES[shape]} == {g.api_version for g in snap.pod_groups.values()}


def test_fixture_cluster_as_described() -> None:
    """The fixture holds the cluster its comments describe (hand-checked values)."""
    snap = _load("v1alpha1")
    assert ["node-a", "node-b", "node-c"] == list(snap.nodes)
    groups = {
        k: (g.policy, g.min_count, g.disruption_mode, g.priority, g.preemption_priority)
        for k, g in snap.pod_groups.items()
    }
    assert {
        "ml/batch/batchers": ("Gang", 4, "Pod", 500, 500),
        "ml/inference/servers": ("Gang", 3, "Pod", 1000, 1000),
        "ml/training/trainers": ("Gang", 4, "PodGroup", 100, 100),
    } == groups
    members = {k: (p.group_key, p.node_name, p.requests["cpu"]) for k, p in snap.pods.items()}
    assert ("ml/training/trainers", "node-a", 1000) == members["ml/trainer-0"]
    assert ("ml/batch/batchers", "node-c", 2000) == members["ml/batch-3"]
    assert ("ml/inference/servers", None, 2000) == members["ml/server-2"]
    used = {n: 0 for n in snap.nodes}
    for p in snap.pods.values():
        if p.node_name:
            used[p.node_name] += p.requests["cpu"]
    assert {"node-a": 4000, "node-b": 4000, "node-c": 4000} == used  # every node is full


def test_each_shape_mixed_in_one_snapshot(tmp_path: Path) -> None:
    """Workloads of different shapes can sit side by side in one snapshot."""
    text = (FIXTURES / "v1alpha2.yaml").read_text(encoding="utf-8")
    extra = tmp_path / "extra.yaml"
    extra.write_text(
        "apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\n"
        "metadata: {name: legacy, namespace: ml}\n"
        "spec: {podGroups: [{name: g, policy: {basic: {}}}]}\n",
        encoding="utf-8",
    )
    base = tmp_path / "base.yaml"
    base.write_text(text, encoding="utf-8")
    snap = ingest.build_snapshot(ingest.read_documents([str(base), str(extra)]))
    assert V1ALPHA1 == snap.pod_groups["ml/legacy/g"].api_version
    assert V1ALPHA2 == snap.pod_groups["ml/training/trainers"].api_version


def test_v1beta1_reads_disruption_mode_as_the_union(tmp_path: Path) -> None:
    """v1beta1 writes disruptionMode as the {single: {}} | {all: {}} union (upstream
    staging/src/k8s.io/api/scheduling/v1beta1/types.go at 01d0b7277d40): the v1alpha2 string
    form is refused, naming the version and the field."""
    text = (FIXTURES / "v1beta1.yaml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("disruptionMode: {all: {}}", "disruptionMode: PodGroup", 1),
                   encoding="utf-8")
    with pytest.raises(InputError) as err:
        ingest.build_snapshot(ingest.read_documents([str(bad)]))
    assert "Workload ml/training" in str(err.value)
    assert "spec.podGroupTemplates[0].disruptionMode" in str(err.value)
    assert "must be {single: {}} or {all: {}} in scheduling.k8s.io/v1beta1, not 'PodGroup'" in (
        str(err.value))
