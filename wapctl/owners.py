"""Who is who among the documents read: objects by UID, and the workload that owns each pod.

Events name a preemptor only by UID (``Preempted by pod <UID>``) and a victim by name and UID;
this index answers both from the raw documents (``metadata.uid``, ``ownerReferences``,
labels), which ``wapctl.model`` does not keep. A pod's *owner* is the workload a user would
name: its pod group when it belongs to one (``spec.schedulingGroup.podGroupName`` or
``spec.workloadRef``), else the JobSet of its ``jobset.sigs.k8s.io/jobset-name`` label, else
its controller (``ownerReferences`` with ``controller: true``), followed one step up when that
controller's own object was read (ReplicaSet -> Deployment, Job -> CronJob or JobSet), else
the pod itself. Nothing here prints.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

JOBSET_LABEL = "jobset.sigs.k8s.io/jobset-name"


@dataclass(frozen=True, slots=True)
class Owner:
    kind: str
    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class Known:
    """An object read, by UID: enough to name it and its owner."""

    kind: str
    namespace: str
    name: str
    uid: str
    controller: tuple[str, str, str] | None  # (kind, name, uid) of its controller reference
    group: str | None  # a pod's pod group name (v1alpha2 schedulingGroup / workloadRef)
    jobset: str | None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


def _text(obj: dict[str, Any], field: str) -> str:
    value = obj.get(field)
    return value if type(value) is str else ""


def _controller(meta: dict[str, Any]) -> tuple[str, str, str] | None:
    refs = meta.get("ownerReferences")
    if type(refs) is not list:
        return None
    for ref in refs:
        if type(ref) is dict and ref.get("controller") is True:
            kind, name, uid = ref.get("kind"), ref.get("name"), ref.get("uid")
            if type(kind) is str and type(name) is str:
                return kind, name, uid if type(uid) is str else ""
    return None


def _group_name(spec: Any) -> str | None:
    if type(spec) is not dict:
        return None
    sg = spec.get("schedulingGroup")
    if type(sg) is dict and type(sg.get("podGroupName")) is str:
        return str(sg["podGroupName"])
    ref = spec.get("workloadRef")
    if type(ref) is dict and type(ref.get("podGroup")) is str:
        return str(ref["podGroup"])
    return None


class ObjectIndex:
    """Objects by UID and pods by ``namespace/name``, from one or more document lists (the
    first list that has a UID or a pod wins: the current objects before ``--before``'s)."""

    def __init__(self, *document_lists: Iterable[Any]) -> None:
        self.by_uid: dict[str, Known] = {}
        self.pods: dict[str, Known] = {}
        for documents in document_lists:
            for doc in documents:
                self._add(doc.obj)

    def _add(self, obj: dict[str, Any]) -> None:
        kind, meta = obj.get("kind"), obj.get("metadata")
        if type(kind) is not str or type(meta) is not dict or kind == "Event":
            return
        name, uid = meta.get("name"), meta.get("uid")
        if type(name) is not str:
            return
        ns = _text(meta, "namespace")
        labels: dict[str, Any] = meta["labels"] if type(meta.get("labels")) is dict else {}
        jobset = labels.get(JOBSET_LABEL)
        known = Known(kind=kind, namespace=ns, name=name, uid=uid if type(uid) is str else "",
                      controller=_controller(meta),
                      group=_group_name(obj.get("spec")) if kind == "Pod" else None,
                      jobset=jobset if type(jobset) is str else None)
        if known.uid:
            self.by_uid.setdefault(known.uid, known)
        if kind == "Pod":
            self.pods.setdefault(known.key, known)

    def pod(self, namespace: str, name: str, uid: str | None = None) -> Known | None:
        """The pod ``namespace/name`` read (the one with ``uid`` when given: a pod re-created
        under the same name is another pod)."""
        if uid:
            hit = self.by_uid.get(uid)
            return hit if hit is not None and hit.kind == "Pod" else None
        return self.pods.get(f"{namespace}/{name}")

    def owner(self, pod: Known) -> Owner:
        """The workload owning ``pod`` (see the module docstring)."""
        if pod.group is not None:
            return Owner("PodGroup", pod.namespace, pod.group)
        if pod.jobset is not None:
            return Owner("JobSet", pod.namespace, pod.jobset)
        if pod.controller is None:
            return Owner("Pod", pod.namespace, pod.name)
        kind, name, uid = pod.controller
        parent = self.by_uid.get(uid) if uid else None
        if parent is not None and parent.controller is not None:
            if parent.jobset is not None:
                return Owner("JobSet", pod.namespace, parent.jobset)
            return Owner(parent.controller[0], pod.namespace, parent.controller[1])
        return Owner(kind, pod.namespace, name)

    def members(self, namespace: str, group: str) -> list[str]:
        """The pods read that belong to the pod group ``namespace/group``, by name."""
        return sorted(k.name for k in self.pods.values()
                      if k.namespace == namespace and k.group == group)
