"""Findings that are not cycles or rule violations: what manifests and running clusters get
wrong about priorities. Each carries the object, where it is written (file, document, field)
and a one-line fix.

Rules (``RULES``: id -> short description; the SARIF rule list and docs/ci.md use them):

- ``preemption-cycle`` and ``priority-rule``: the cycles and KEP-5710 rule violations of
  ``graph.py`` (listed here so every finding kind has one id).
- ``unknown-priority-class``: a pod template names a PriorityClass that neither the manifests
  nor the cluster (``--cluster``) define; its pods would be rejected at admission.
- ``priority-drift``: a running pod (or a PodGroup) whose ``spec.priority`` differs from its
  PriorityClass's current value — the class was deleted and re-created with another value
  (PriorityClass values are immutable; kubernetes/kubernetes#99205), and running pods keep
  the value they were admitted with.
- ``podgroup-priority-divergence``: a pod's own priority differs from its pod group's, which
  wins (for v1alpha2+ the load also warns ``PriorityDivergence``: the 1.36 scheduler binds
  such pods; KEP-5710 Beta refuses the group).
- ``kueue-priority-divergence``: Kueue's WorkloadPriorityClass (label
  ``kueue.x-k8s.io/priority-class``) gives the workload another value than its pods'
  PriorityClass: Kueue queues and preempts by one number, kube-scheduler by the other.
- ``unknown-kueue-priority-class``: the label names a WorkloadPriorityClass that does not exist.
"""

from __future__ import annotations

from dataclasses import dataclass

from wapctl.errors import Source

CYCLE = "preemption-cycle"
RULE = "priority-rule"
UNKNOWN_CLASS = "unknown-priority-class"
DRIFT = "priority-drift"
GROUP_DIVERGENCE = "podgroup-priority-divergence"
KUEUE_DIVERGENCE = "kueue-priority-divergence"
UNKNOWN_KUEUE_CLASS = "unknown-kueue-priority-class"

RULES: dict[str, str] = {
    CYCLE: "Workloads can preempt each other in a cycle (KEP-5710)",
    RULE: "Preemption priority below scheduling priority (KEP-5710 rule)",
    UNKNOWN_CLASS: "Pod template names a PriorityClass that does not exist",
    DRIFT: "Running pod's priority differs from its PriorityClass's current value",
    GROUP_DIVERGENCE: "Pod's own priority differs from its pod group's",
    KUEUE_DIVERGENCE: "Kueue WorkloadPriorityClass differs from the pods' PriorityClass",
    UNKNOWN_KUEUE_CLASS: "Kueue priority-class label names no WorkloadPriorityClass",
}


@dataclass(frozen=True, slots=True)
class Finding:
    rule: str  # one of RULES
    object: str  # "Deployment web/api", "Pod prod/web-1"
    namespace: str | None
    message: str
    fix: str  # one line: what to change
    source: Source | None = None
    field: str | None = None  # the field path in the object, e.g. "spec.template.spec.priority"
    priority_class: str | None = None  # the PriorityClass it is about, if one

    @property
    def sort_key(self) -> tuple[str, str, str]:
        return (self.rule, self.object, self.message)
