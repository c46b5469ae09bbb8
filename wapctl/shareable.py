"""Strip a cluster object down to the fields wapctl reads, so a snapshot is safe to share.

``wapctl snapshot`` keeps, per kind, only what the loader (``wapctl.ingest``) and the scheduling
filters read, plus names and identities: no container ``env``/``envFrom``/``command``/``args``,
no images, volumes, service accounts or pull secrets, no ``metadata.annotations`` (so no
``kubectl.kubernetes.io/last-applied-configuration``, which repeats the whole manifest with its
env values), no ``managedFields``, no node addresses or images. ``--full`` keeps everything.

``KEEP`` says what stays: ``True`` keeps a field whole, a mapping keeps those keys of a mapping
(or of each mapping in a list). A kind not named here is kept whole (snapshot lists only the seven
kinds below). ``tests/test_snapshot_sharing.py`` checks that every fixture and the recorded
cluster plan, check and simulate identically before and after stripping; a field the loader
starts reading must be added here (that test fails until it is).

Pure data in, new data out: the input is not modified.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Spec = Mapping[str, Any]

METADATA: Spec = {
    "name": True,
    "namespace": True,
    "uid": True,
    "labels": True,
    "creationTimestamp": True,
    "deletionTimestamp": True,
    "deletionGracePeriodSeconds": True,
    "ownerReferences": True,
}
CONTAINER: Spec = {"name": True, "resources": True, "restartPolicy": True, "ports": True}
CONTAINER_STATUS: Spec = {"name": True, "resources": {"requests": True},
                          "allocatedResources": True}
POD: Spec = {
    "metadata": METADATA,
    "spec": {
        "nodeName": True,
        "schedulerName": True,
        "priority": True,
        "priorityClassName": True,
        "preemptionPolicy": True,
        "containers": CONTAINER,
        "initContainers": CONTAINER,
        "overhead": True,
        "runtimeClassName": True,
        "nodeSelector": True,
        "affinity": True,
        "tolerations": True,
        "topologySpreadConstraints": True,
        "schedulingGates": True,
        "schedulingGroup": True,
        "workloadRef": True,
        "resources": True,  # pod-level resources
        "hostNetwork": True,
    },
    "status": {
        "phase": True,
        "startTime": True,
        "nominatedNodeName": True,
        "qosClass": True,
        "conditions": {"type": True, "status": True, "reason": True},
        # in-place resize: what a running container holds (wapctl.ingest.resize)
        "containerStatuses": CONTAINER_STATUS,
        "initContainerStatuses": CONTAINER_STATUS,
    },
}
NODE: Spec = {
    "metadata": METADATA,
    "spec": {"taints": True, "unschedulable": True},
    "status": {
        "capacity": True,
        "allocatable": True,
        "conditions": {"type": True, "status": True, "reason": True},
    },
}
KEEP: Mapping[str, Spec] = {
    "Namespace": {"metadata": {"name": True, "uid": True, "labels": True}},
    "Pod": POD,
    "Node": NODE,
    "PriorityClass": {"metadata": METADATA, "value": True, "globalDefault": True,
                      "preemptionPolicy": True, "description": True},
    "PodDisruptionBudget": {"metadata": METADATA, "spec": True, "status": True},
    "Workload": {"metadata": METADATA, "spec": True},
    "PodGroup": {"metadata": METADATA, "spec": True, "status": True},
}
DROPPED = ("env and envFrom", "commands and args", "images", "volumes",
           "metadata.annotations (incl. last-applied-configuration)", "managedFields",
           "service accounts and pull secrets", "node addresses and images")


def _keep(value: Any, spec: Any) -> Any:
    if spec is True:
        return value
    if isinstance(value, list):
        return [_keep(item, spec) for item in value]
    if not isinstance(value, dict):
        return value  # a wrong type stays, for the loader to report where it is
    return {key: _keep(item, spec[key]) for key, item in value.items() if key in spec}


def shareable(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with only the fields wapctl reads (apiVersion and kind always kept)."""
    spec = KEEP.get(str(obj.get("kind")))
    if spec is None:
        return obj
    out: dict[str, Any] = {key: obj[key] for key in ("apiVersion", "kind") if key in obj}
    out.update(_keep({k: v for k, v in obj.items() if k not in ("apiVersion", "kind")}, spec))
    return out
