"""``-o name``: one ``kind/NAMESPACE/NAME`` per line (cluster-scoped: ``kind/NAME``), what a
report is about, for ``xargs``. Kinds are lower case, as kubectl prints them.

- plan: the victims (``pod/NS/NAME``), sorted;
- simulate: every pod preempted during the replay, sorted, once each;
- check-cycles: the rule violators and the named members of the cycles (``workload/NS/NAME``,
  ``podgroup/NS/WORKLOAD/GROUP``, ``pod/NS/NAME``), sorted, once each;
- audit: the changed or deleted objects;
- validate: every object the snapshot holds.
"""

from __future__ import annotations

from typing import Any

from wapctl.model import Snapshot


def plan_names(doc: dict[str, Any]) -> list[str]:
    return [f"pod/{v['pod']}" for v in doc["victims"]]


def simulation_names(doc: dict[str, Any]) -> list[str]:
    return sorted({f"pod/{v['pod']}" for s in doc["steps"] for v in s["victims"]})


def cycle_names(doc: dict[str, Any]) -> list[str]:
    names = {f"{v['kind'].lower()}/{v['name']}" for v in doc["violations"]}
    for cycle in doc["cycles"]:
        for m in cycle["members"]:
            names.update(f"workload/{n}" for n in m["workloads"])
            names.update(f"pod/{n}" for n in m["pods"])
    return sorted(names)


def audit_names(doc: dict[str, Any]) -> list[str]:
    out = []
    for c in doc["changes"]:
        if c["action"] == "unchanged":
            continue
        ns = f"{c['namespace']}/" if c["namespace"] else ""
        out.append(f"{c['kind'].lower()}/{ns}{c['name']}")
    return out


def snapshot_names(snapshot: Snapshot) -> list[str]:
    return (
        [f"node/{n}" for n in snapshot.nodes]
        + [f"pod/{k}" for k in snapshot.pods]
        + [f"priorityclass/{n}" for n in snapshot.priority_classes]
        + [f"poddisruptionbudget/{p.key}" for p in snapshot.pdbs]
        + [f"workload/{k}" for k in snapshot.workloads]
        + [f"podgroup/{k}" for k in snapshot.pod_groups]
    )
