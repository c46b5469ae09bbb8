"""``-o name``: what a report is about, one object a line, as arguments kubectl takes:
``-n NAMESPACE kind/NAME`` for a namespaced object, ``kind/NAME`` for a cluster-scoped one.
Kinds are as kubectl's own ``-o name`` prints them: lower case, with the API group for the
kinds outside the core group (``workload.scheduling.k8s.io/NAME``: Kueue has a ``workloads``
resource too). Each line split at blanks (as ``xargs -L1`` does) is valid kubectl arguments::

    wapctl plan snapshot.yaml -o name | xargs -L1 kubectl get

- plan: the victims (``-n NS pod/NAME``), sorted;
- simulate: every pod preempted during the replay, sorted, once each;
- check-cycles: the rule violators and the named members of the cycles, sorted, once each;
- audit: the changed or deleted objects;
- validate: every object the snapshot holds (a ``scheduling.k8s.io/v1alpha1`` pod group is
  part of its Workload, not an object of its own: its Workload's line stands for it).
"""

from __future__ import annotations

from typing import Any

from wapctl.model import Snapshot

# kubectl's -o name prefix of each kind wapctl names (kinds outside this map: lower case)
_KINDS = {
    "Pod": "pod",
    "Node": "node",
    "PriorityClass": "priorityclass.scheduling.k8s.io",
    "PodDisruptionBudget": "poddisruptionbudget.policy",
    "Workload": "workload.scheduling.k8s.io",
    "PodGroup": "podgroup.scheduling.k8s.io",
}


def name_line(kind: str, key: str) -> str:
    """One object as kubectl arguments: ``key`` is ``NAMESPACE/NAME``, or ``NAME`` for a
    cluster-scoped object."""
    resource = _KINDS.get(kind, kind.lower())
    namespace, _, name = key.rpartition("/")
    return f"-n {namespace} {resource}/{name}" if namespace else f"{resource}/{name}"


def plan_names(doc: dict[str, Any]) -> list[str]:
    return [name_line("Pod", v["pod"]) for v in doc["victims"]]


def simulation_names(doc: dict[str, Any]) -> list[str]:
    return sorted({name_line("Pod", v["pod"]) for s in doc["steps"] for v in s["victims"]})


def cycle_names(doc: dict[str, Any]) -> list[str]:
    names = {name_line(v["kind"], v["name"]) for v in doc["violations"]}
    for cycle in doc["cycles"]:
        for m in cycle["members"]:
            names.update(name_line("Workload", n) for n in m["workloads"])
            names.update(name_line("Pod", n) for n in m["pods"])
    return sorted(names)


def audit_names(doc: dict[str, Any]) -> list[str]:
    out = []
    for c in doc["changes"]:
        if c["action"] == "unchanged":
            continue
        ns = f"{c['namespace']}/" if c["namespace"] else ""
        out.append(name_line(c["kind"], f"{ns}{c['name']}"))
    return out


def snapshot_names(snapshot: Snapshot) -> list[str]:
    return (
        [name_line("Node", n) for n in snapshot.nodes]
        + [name_line("Pod", k) for k in snapshot.pods]
        + [name_line("PriorityClass", n) for n in snapshot.priority_classes]
        + [name_line("PodDisruptionBudget", p.key) for p in snapshot.pdbs]
        + [name_line("Workload", k) for k in snapshot.workloads]
        + [name_line("PodGroup", f"{g.namespace}/{g.name}") for g in snapshot.pod_groups.values()
           if g.api_version != "scheduling.k8s.io/v1alpha1"]
    )
