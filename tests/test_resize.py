"""A running pod's requests during an in-place resize, as the 1.36 scheduler counts them.

Upstream: the scheduler's NodeInfo counts ``resourcehelper.PodRequests(pod,
{UseStatusResources: true})`` (InPlacePodVerticalScaling is GA); k8s.io/component-helpers
``resource/helpers.go`` at tag v0.36.2 (kubernetes/component-helpers commit
d4b52afdf6f1f74272a04be7f4658c1e0dccb430), ``AggregateContainerRequests`` ->
``determineEffectiveRequests``. Rows marked "upstream row" are the cases of
``TestPodResourceRequests`` / ``TestAggregateContainerRequestsAndLimits`` in
``resource/helpers_test.go`` at that same tag and commit, named by their description; every
answer is worked out by hand below. Each snapshot is read from YAML (PyYAML / rapidyaml) and
from JSON (the fast reader, ``wapctl.ingest.json_reader``): both must count alike.

The plan-level cases (the review's Infeasible fixture, a resize down in progress) are
fixtures/plan/resize-infeasible.yaml and resize-down.yaml, answered in their comments
(tests/test_plan_fixtures.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from wapctl import ingest

FORMS = ["yaml", "json"]


def container(name: str, cpu: str | None = None, **extra: Any) -> dict[str, Any]:
    req = {"cpu": cpu} if cpu is not None else {}
    return {"name": name, "resources": {"requests": req}, **extra}


def status(name: str, actual: dict[str, str] | None = None,
           allocated: dict[str, str] | None = None, *, resources: bool = True) -> dict[str, Any]:
    """A container status; ``resources`` False leaves ``resources`` out (cs.Resources nil)."""
    out: dict[str, Any] = {"name": name, "ready": True, "restartCount": 0, "image": "busybox",
                           "imageID": "", "state": {"running": {}}}
    if resources:
        out["resources"] = {"requests": actual} if actual is not None else {}
    if allocated is not None:
        out["allocatedResources"] = allocated
    return out


INFEASIBLE = [{"type": "PodResizePending", "status": "True", "reason": "Infeasible",
               "message": "Node didn't have enough capacity"}]
DEFERRED = [{"type": "PodResizePending", "status": "True", "reason": "Deferred"}]


def running(containers: list[Any], statuses: list[Any] | None = None, *,
            inits: list[Any] | None = None, init_statuses: list[Any] | None = None,
            conditions: list[Any] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"nodeName": "n1", "containers": containers}
    if inits is not None:
        spec["initContainers"] = inits
    st: dict[str, Any] = {"phase": "Running", "startTime": "2026-01-01T09:00:00Z"}
    if conditions is not None:
        st["conditions"] = [{"type": "Ready", "status": "True"}, *conditions]
    if statuses is not None:
        st["containerStatuses"] = statuses
    if init_statuses is not None:
        st["initContainerStatuses"] = init_statuses
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "d"},
            "spec": spec, "status": st}


def requests(tmp_path: Path, form: str, pod: dict[str, Any]) -> dict[str, int]:
    doc = {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
         "status": {"allocatable": {"cpu": "64", "memory": "64Gi", "pods": "110"}}}, pod]}
    path = tmp_path / f"snap.{form}"
    path.write_text(yaml.safe_dump(doc) if form == "yaml" else json.dumps(doc))
    snap = ingest.build_snapshot(ingest.read_documents([str(path)]))
    return dict(snap.pods["d/p"].requests)


CASES = [
    # (id, pod, expected requests) -- cpu in millicores, memory and storage in bytes
    # upstream row "resized, infeasible": spec 4, status 2, Infeasible -> max(2) = 2
    ("infeasible", running([container("c", "4")], [status("c", {"cpu": "2"})],
                           conditions=INFEASIBLE), {"cpu": 2000}),
    # upstream row "resized, infeasible & in-progress": spec 6, allocated 4, status 2,
    # Infeasible -> max(2, 4) = 4 (the spec's 6 is not counted)
    ("infeasible-in-progress",
     running([container("c", "6")], [status("c", {"cpu": "2"}, {"cpu": "4"})],
             conditions=INFEASIBLE), {"cpu": 4000}),
    # upstream row "resized, no resize status": spec 4, status 2 -> max(4, 2) = 4
    ("no-resize-status", running([container("c", "4")], [status("c", {"cpu": "2"})]),
     {"cpu": 4000}),
    # the reason decides, not the type alone: Deferred -> max(spec 4, status 2) = 4
    ("deferred", running([container("c", "4")], [status("c", {"cpu": "2"})],
                         conditions=DEFERRED), {"cpu": 4000}),
    # upstream row "resized: per-resource 3-way maximum": spec / allocated / status =
    # cpu 30m / 20m / 10m, memory 20M / 10M / 30M, ephemeral-storage 10G / 30G / 20G
    ("three-way-maximum",
     running([{"name": "c", "resources": {"requests": {
         "cpu": "30m", "memory": "20M", "ephemeral-storage": "10G"}}}],
         [status("c", {"cpu": "10m", "memory": "30M", "ephemeral-storage": "20G"},
                 {"cpu": "20m", "memory": "10M", "ephemeral-storage": "30G"})]),
     {"cpu": 30, "memory": 30 * 10**6, "ephemeral-storage": 30 * 10**9}),
    # upstream row (TestAggregateContainerRequestsAndLimits) "regularcontainers with empty
    # requests, but status with non-empty requests": spec none, status 2 -> 2
    ("empty-spec-status-set", running([{"name": "c"}], [status("c", {"cpu": "2"})]),
     {"cpu": 2000}),
    # a normal running pod: status and allocation equal spec -> spec (3 cpu, 1Gi)
    ("status-equals-spec",
     running([{"name": "c", "resources": {"requests": {"cpu": "3", "memory": "1Gi"}}}],
             [status("c", {"cpu": "3", "memory": "1Gi"}, {"cpu": "3", "memory": "1Gi"})]),
     {"cpu": 3000, "memory": 2**30}),
    # no ``resources`` in the status (cs.Resources == nil): allocatedResources alone is not
    # read -> spec 1
    ("allocated-without-resources",
     running([container("c", "1")], [status("c", None, {"cpu": "5"}, resources=False)]),
     {"cpu": 1000}),
    # statuses are matched by name: the status of "other" is not c's -> spec 1
    ("matched-by-name", running([container("c", "1")], [status("other", {"cpu": "5"})]),
     {"cpu": 1000}),
    # two containers, only b's status differs: a 1 + max(b spec 1, status 3) = 4
    ("per-container",
     running([container("a", "1"), container("b", "1")],
             [status("a", {"cpu": "1"}, {"cpu": "1"}), status("b", {"cpu": "3"}, {"cpu": "1"})]),
     {"cpu": 4000}),
    # Infeasible with a limits-only container: its spec (requests defaulted from limits, 2) is
    # not counted; allocated 1 -> 1
    ("infeasible-limits-only",
     running([{"name": "c", "resources": {"limits": {"cpu": "2"}}}],
             [status("c", {}, {"cpu": "1"})], conditions=INFEASIBLE), {"cpu": 1000}),
]

INIT_CASES = [
    # upstream row "resized, restartable init container, infeasible": sidecar spec 4, status
    # 2, Infeasible -> 2
    ("sidecar-infeasible",
     running([], inits=[container("s", "4", restartPolicy="Always")],
             init_statuses=[status("s", {"cpu": "2"})], conditions=INFEASIBLE), {"cpu": 2000}),
    # upstream row "resized, restartable init container, no resize status": spec 4, status 2
    # -> 4
    ("sidecar-no-resize-status",
     running([], inits=[container("s", "4", restartPolicy="Always")],
             init_statuses=[status("s", {"cpu": "2"})]), {"cpu": 4000}),
    # upstream row (TestAggregateContainerRequestsAndLimits) "always-restart init containers
    # with empty requests, but status with non-empty requests" -> 2
    ("sidecar-empty-spec",
     running([], inits=[{"name": "s", "restartPolicy": "Always"}],
             init_statuses=[status("s", {"cpu": "2"})]), {"cpu": 2000}),
    # sidecar s (spec 1, status 2: counts 2), then regular init "setup" (spec 2; its status
    # says 5 but a regular init container's status is not read upstream), main (1):
    # sum = main 1 + s 2 = 3; setup runs beside s: 2 + 2 = 4; pod = max(3, 4) = 4
    ("sidecar-then-regular-init",
     running([container("main", "1")], [status("main", {"cpu": "1"}, {"cpu": "1"})],
             inits=[container("s", "1", restartPolicy="Always"), container("setup", "2")],
             init_statuses=[status("s", {"cpu": "2"}, {"cpu": "1"}),
                            status("setup", {"cpu": "5"}, {"cpu": "5"})]), {"cpu": 4000}),
]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(("case", "pod", "want"), CASES, ids=[c[0] for c in CASES])
def test_container_requests_follow_the_status(tmp_path: Path, form: str, case: str,
                                              pod: dict[str, Any], want: dict[str, int]) -> None:
    assert want == requests(tmp_path, form, pod)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(("case", "pod", "want"), INIT_CASES, ids=[c[0] for c in INIT_CASES])
def test_init_containers_read_only_a_sidecars_status(tmp_path: Path, form: str, case: str,
                                                     pod: dict[str, Any],
                                                     want: dict[str, int]) -> None:
    assert want == requests(tmp_path, form, pod)


@pytest.mark.parametrize("form", FORMS)
def test_the_first_pod_resize_pending_condition_decides(tmp_path: Path, form: str) -> None:
    """``IsPodResizeInfeasible`` returns at the first PodResizePending condition: Deferred
    first, Infeasible second -> not Infeasible: max(spec 4, status 2) = 4."""
    pod = running([container("c", "4")], [status("c", {"cpu": "2"})],
                  conditions=[*DEFERRED, *INFEASIBLE])
    assert {"cpu": 4000} == requests(tmp_path, form, pod)


@pytest.mark.parametrize("form", FORMS)
def test_a_pending_pod_without_statuses_counts_its_spec(tmp_path: Path, form: str) -> None:
    """A pending preemptor has no container statuses: its spec, even with the condition."""
    pod = running([container("c", "4")], conditions=INFEASIBLE)
    del pod["spec"]["nodeName"]
    pod["status"]["phase"] = "Pending"
    assert {"cpu": 4000} == requests(tmp_path, form, pod)
