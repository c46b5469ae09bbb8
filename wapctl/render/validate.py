"""`wapctl validate`: what a snapshot holds, per kind, and which Workload API shape it used.

The document (``-o json``; ``-o yaml`` is the same document)::

    {"apiVersion": "wapctl/v1", "kind": "ValidationReport", "valid": true,
     "counts": {"Node": 3, "Pod": 11, "PriorityClass": 3, "PodDisruptionBudget": 0,
                "Workload": 3, "PodGroup": 3},
     "pods": {"bound": 8, "pending": 3, "terminating": 0, "finished": 0, "gated": 0},
     "ignoredKinds": {"ConfigMap": 2},
     "podTemplates": {"Deployment": 1, "JobSet": 2},   # controllers' pod templates, by kind
     "apiShapes": [{"kind": "Workload|PodGroup", "name": "ns/name or ns/workload/group",
                    "apiVersion": "scheduling.k8s.io/v1alpha2"}]}

``counts.PodGroup`` counts pod groups however declared (inside a v1alpha1 Workload or as
PodGroup objects). ``pods.gated`` counts unbound pods with scheduling gates (not pending for
the scheduler). An invalid snapshot prints no document: one error line and exit code 2.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from wapctl.model import Snapshot
from wapctl.render.warnings import warnings_to_list


def validation_to_dict(snapshot: Snapshot) -> dict[str, Any]:
    pods = snapshot.pods.values()
    counts = {
        "Node": len(snapshot.nodes),
        "Pod": len(snapshot.pods),
        "PriorityClass": len(snapshot.priority_classes),
        "PodDisruptionBudget": len(snapshot.pdbs),
        "Workload": len(snapshot.workloads),
        "PodGroup": len(snapshot.pod_groups),
    }
    pod_states = {
        "bound": sum(1 for p in pods if p.running),
        "pending": sum(1 for p in pods if p.pending),
        "terminating": sum(1 for p in pods if p.terminating),
        "finished": sum(1 for p in pods if p.finished),
        "gated": sum(1 for p in pods if p.gated and not p.bound and not p.finished),
    }
    shapes = [
        {"kind": "Workload", "name": w.key, "apiVersion": w.api_version}
        for w in snapshot.workloads.values()
    ] + [
        {"kind": "PodGroup", "name": g.key, "apiVersion": g.api_version}
        for g in snapshot.pod_groups.values()
    ]
    return {
        "apiVersion": "wapctl/v1",
        "kind": "ValidationReport",
        "valid": True,
        "counts": counts,
        "pods": pod_states,
        "ignoredKinds": dict(sorted(snapshot.ignored_kinds.items())),
        "podTemplates": dict(sorted(Counter(t.kind for t in snapshot.templates.values()).items())),
        "apiShapes": shapes,
        "warnings": warnings_to_list(snapshot.warnings),
    }


def render_validation(doc: dict[str, Any], console: Console) -> None:
    table = Table(title="Snapshot", box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("kind")
    table.add_column("count", justify="right")
    for kind, n in doc["counts"].items():
        table.add_row(kind, str(n))
    for kind, n in doc.get("podTemplates", {}).items():
        table.add_row(f"{kind} pod templates", str(n))
    for kind, n in doc["ignoredKinds"].items():
        table.add_row(f"{kind} (ignored)", str(n), style="dim")
    console.print(table)
    states = ", ".join(f"{n} {state}" for state, n in doc["pods"].items())
    console.print(f"Pods: {states}")
    if doc["warnings"]:  # each was printed above; here how many of each kind
        codes = Counter(w["code"] for w in doc["warnings"])
        console.print(f"Warnings: {len(doc['warnings'])} ("
                      + ", ".join(f"{code} {n}" for code, n in sorted(codes.items())) + ")")
    if doc["apiShapes"]:
        by_version = Counter((s["kind"], s["apiVersion"]) for s in doc["apiShapes"])
        shapes = Table(title="Workload API shapes", box=box.SIMPLE_HEAD, title_justify="left")
        shapes.add_column("kind")
        shapes.add_column("apiVersion")
        shapes.add_column("count", justify="right")
        for (kind, version), n in sorted(by_version.items()):
            shapes.add_row(kind, version, str(n))
        console.print(shapes)
        if len(doc["apiShapes"]) <= 20:
            for s in doc["apiShapes"]:
                console.print(f"  {s['kind']} {s['name']}: {s['apiVersion']}")
    console.print("[green]valid[/]")
