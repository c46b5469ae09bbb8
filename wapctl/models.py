"""Behaviour models: which kube-scheduler ``plan`` predicts.

One engine (``wapctl.preemption``) serves every model; a ``BehaviourModel`` is the data and the
few small strategy functions where the versions differ (docs/SPEC.md §0 has the table, each
cell citing the upstream file and function):

- ``1.36`` — the released kube-scheduler 1.36 with the WorkloadAwarePreemption alpha
  (``scheduling.k8s.io/v1alpha2``): no search over priorities (every lower-priority unit is
  removed, the preemptor scheduled, then units reprieved one by one — a pod group scheduled
  again for each), victims of a single-pod preemptor chosen pod by pod, terminating pods keep
  their resources, a group is ``Never`` when any member pod is, 1.36's PDB matching.
- ``upstream`` — the newest upstream code read (``UPSTREAM_COMMIT``): as 1.36, but a pod
  group's placement is fixed before the reprieve, ``MoreImportantVictim`` (group victims above
  pods, more pods, earlier start, UID), a ``PodGroup``-mode victim's pods removed on every node
  also for a single-pod preemptor, ``util.go``'s PDB matching, and the
  ``PodGroupPreemptionPolicy`` feature gate.
- ``kep-5710`` — the KEP's design text as a what-if: PDB reprieval then a binary search across
  priorities, a separate preemption priority, terminating pods as free space, whole groups
  above pods.

Choosing the model (``select_model``): an explicit name, else the cluster's server version, else
``kep-5710`` when the input uses a field only the KEP design has, else ``1.36``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from wapctl.errors import UsageError

if TYPE_CHECKING:
    from wapctl.model import Pod, PodGroup, Snapshot

ModelName = Literal["1.36", "upstream", "kep-5710"]
MODEL_NAMES: tuple[str, ...] = ("1.36", "upstream", "kep-5710")
DEFAULT_MODEL = "1.36"

# The kubernetes/kubernetes commit the ``upstream`` model follows (newest stored versions read:
# pkg/scheduler/framework/preemption/podgrouppreemption.go, util.go, manager/manager.go).
UPSTREAM_COMMIT = "1b8666f4541a6f9a438ed100f0b6203647c63fd3"
# What ``1.36`` follows: the release-1.36 sources (scheduling/v1alpha2 imports), as vendored in
# the measured kube-scheduler v1.36.2 (gitCommit 98b35193b2ac).
RELEASE_136 = "v1.36.2"

# Feature gates each model knows, with their default (kube-scheduler spelling).
_GATES: dict[str, dict[str, bool]] = {
    "1.36": {"GenericWorkload": True, "GangScheduling": True, "WorkloadAwarePreemption": True},
    "upstream": {"GenericWorkload": True, "GangScheduling": True,
                 "WorkloadAwarePreemption": True, "PodGroupPreemptionPolicy": False},
    "kep-5710": {"GenericWorkload": True, "GangScheduling": True,
                 "WorkloadAwarePreemption": True},
}
# Gates that must stay on: wapctl models workload-aware preemption only.
_REQUIRED_ON = ("GenericWorkload", "GangScheduling", "WorkloadAwarePreemption")


class ModelError(UsageError):
    """An unknown model name or feature gate."""


# ---- victim importance (sort keys: ascending = most important first) -----------------------
#
# A unit is described to these functions by plain values so that they stay small and testable:
# priority, is_group_unit (a PodGroup-mode unit), in_group (its pod(s) have a scheduling group),
# size (pods), start (earliest start time, inf when not started) and name (our deterministic
# stand-in for upstream's random order / UID).

ImportanceKey = tuple[Any, ...]


def importance_kep(priority: int, is_group_unit: bool, in_group: bool, size: int,
                   start: float, name: str) -> ImportanceKey:
    """KEP-5710 text (SPEC §3 step 6): whole group > pod of a workload > standalone pod; between
    groups more pods first; then the earlier start; then name."""
    tier = 0 if is_group_unit else (1 if in_group else 2)
    return (-priority, tier, -(size if is_group_unit else 1), start, name)


def importance_136_pod(priority: int, is_group_unit: bool, in_group: bool, size: int,
                       start: float, name: str) -> ImportanceKey:
    """1.36 DefaultPreemption ``SelectVictimsOnNode`` (``util.MoreImportantPod``): priority,
    then the earlier start; group membership ignored. Remaining ties are random upstream."""
    return (-priority, start, name)


def importance_136_group(priority: int, is_group_unit: bool, in_group: bool, size: int,
                         start: float, name: str) -> ImportanceKey:
    """1.36 ``podgrouppreemption.go`` ``moreImportantVictim``: priority; a unit whose pod has a
    ``schedulingGroup`` (``victim.IsPodGroup``) above a standalone pod; two standalone pods by
    start; two group units by more pods, then the earlier start. The rest is random upstream."""
    if not in_group:
        return (-priority, 1, 0, start, name)
    return (-priority, 0, -size, start, name)


def importance_upstream(priority: int, is_group_unit: bool, in_group: bool, size: int,
                        start: float, name: str) -> ImportanceKey:
    """Newest upstream ``util.go`` ``MoreImportantVictim``: priority; a group victim above a
    Pod (``victimRank``: ``types.go`` ``NewPodVictim`` types any pod with a
    ``spec.schedulingGroup`` as a PodGroup victim, so a member of a ``Pod``-mode group ranks
    with the groups); more pods; earlier start; UID (here: name)."""
    return (-priority, 0 if (is_group_unit or in_group) else 1, -size, start, name)


# ---- the model ------------------------------------------------------------------------------


@dataclass(frozen=True)
class BehaviourModel:
    """What differs between scheduler versions; everything else is one engine."""

    name: str
    follows: str  # the code or text this model follows
    priority_search: Literal["none", "binary"]  # none: remove all, schedule once, reprieve
    separate_preemption_priority: bool  # victims ranked by preemptionPriorityClassName (KEP)
    pod_preemptor_takes_groups_whole: bool  # a single-pod preemptor removes PodGroup units whole
    terminating_free: bool  # terminating pods are free space (KEP); else they hold resources
    terminating_needs_condition: bool  # "by preemption" = DisruptionTarget/PreemptionByScheduler
    scored_placement: bool  # placement = filters + default scoring; else first node by name
    # a pod group's reprieve: "reschedule" runs the group's scheduling again for every unit put
    # back (1.36, and the KEP model's re-placing); "fixed" re-checks the placement found with
    # every victim gone (newer upstream ``reprieveVictim`` with its ``validAssignment``)
    group_reprieve: Literal["reschedule", "fixed"]
    # a pod group nominated where a lower-priority pod terminates by preemption waits (newer
    # upstream ``isOngoingPreemption``); 1.36's group path only checks preemptionPolicy
    group_waits_for_termination: bool
    # importance functions for the victims of a single-pod and of a pod group preemptor
    importance_pod: Callable[..., ImportanceKey]
    importance_group: Callable[..., ImportanceKey]
    group_policy_own: bool  # the PodGroup's own preemptionPolicy (gate); else any Never member
    # a Basic pod group places as many pods as fit (upstream); else it asks for all (KEP text)
    basic_group_places_what_fits: bool
    # a pod group's preemptionPolicy as upstream derives it (``group_policy_own`` says from
    # what); else the preemptor's own policy (KEP text)
    group_policy_upstream: bool
    # a pending pod of a pod group, named alone (--pod, explain), is planned as its whole group
    # (upstream schedules the group); else as the pod alone (KEP text)
    pod_plans_its_group: bool
    # a pod that is a victim on its own (not inside a whole PodGroup unit) is ranked by its
    # own priority: 1.36 compares corev1helpers.PodPriority (spec.priority) on the single-pod
    # path and for Pod-mode members of the group path (types.go newDomainForWorkloadPreemption);
    # newer upstream (util.go getPodPriority) and the KEP rank a member by its group
    pod_priority_own: bool = False
    feature_gates: Mapping[str, bool] = field(default_factory=dict)
    reason: str = ""  # why this model was chosen

    def pdb_rules(self, group_preemptor: bool) -> tuple[bool, bool, bool, bool]:
        """(empty_selects_all, unlabeled_match, spend_all, stop_unit) for
        ``preemption.budgets.PdbRules``: 1.36 ``filterPodsWithPDBViolation`` (single pod) and
        ``filterVictimsWithPDBViolation`` (pod group); newest ``util.go``
        ``FilterVictimsWithPDBViolation``; the KEP model as before."""
        if self.name == "1.36":
            return (False, False, not group_preemptor, group_preemptor)
        if self.name == "upstream":
            return (True, True, False, False)
        return (False, False, False, False)

    def victim_priority(self, pod: Pod) -> int:
        """The priority a running pod has as a victim on its own (``pod_rank``)."""
        return pod_rank(pod, self.separate_preemption_priority, self.pod_priority_own)

    def group_victim_priority(self, group: PodGroup) -> int:
        return group.preemption_priority if self.separate_preemption_priority else group.priority

    def importance(self, group_preemptor: bool) -> Callable[..., ImportanceKey]:
        return self.importance_group if group_preemptor else self.importance_pod

    def chosen(self, reason: str) -> BehaviourModel:
        return replace(self, reason=reason)

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "reason": self.reason}


def pod_rank(pod: Pod, separate: bool, own: bool) -> int:
    """The priority a running pod has as a victim on its own: its preemption priority
    (``separate``: the KEP), else its own number where ``own`` (1.36 reads the pod's
    spec.priority even when its pod group says otherwise), else its scheduling priority (its
    pod group's, when it has one)."""
    if separate:
        return pod.preemption_priority
    if own and pod.own_priority is not None:
        return pod.own_priority
    return pod.priority


def _base(name: str) -> BehaviourModel:
    if name == "1.36":
        return BehaviourModel(
            name="1.36", follows=f"kube-scheduler {RELEASE_136} (release-1.36)",
            priority_search="none", separate_preemption_priority=False,
            pod_preemptor_takes_groups_whole=False, terminating_free=False,
            terminating_needs_condition=True, scored_placement=True,
            group_reprieve="reschedule", group_waits_for_termination=False,
            importance_pod=importance_136_pod, importance_group=importance_136_group,
            group_policy_own=False,
            basic_group_places_what_fits=True, group_policy_upstream=True,
            pod_plans_its_group=True, pod_priority_own=True)
    if name == "upstream":
        return BehaviourModel(
            name="upstream", follows=f"kubernetes/kubernetes {UPSTREAM_COMMIT}",
            priority_search="none", separate_preemption_priority=False,
            pod_preemptor_takes_groups_whole=True, terminating_free=False,
            terminating_needs_condition=True, scored_placement=True,
            group_reprieve="fixed", group_waits_for_termination=True,
            importance_pod=importance_upstream, importance_group=importance_upstream,
            group_policy_own=False,
            basic_group_places_what_fits=True, group_policy_upstream=True,
            pod_plans_its_group=True)
    if name == "kep-5710":
        return BehaviourModel(
            name="kep-5710", follows="KEP-5710 design text",
            priority_search="binary", separate_preemption_priority=True,
            pod_preemptor_takes_groups_whole=True, terminating_free=True,
            terminating_needs_condition=False, scored_placement=False,
            group_reprieve="reschedule", group_waits_for_termination=True,
            importance_pod=importance_kep, importance_group=importance_kep,
            group_policy_own=True,
            basic_group_places_what_fits=False, group_policy_upstream=False,
            pod_plans_its_group=False)
    raise ModelError(f"unknown model {name!r} (known: {', '.join(MODEL_NAMES)})")


def get_model(name: str, feature_gates: Mapping[str, bool] | None = None) -> BehaviourModel:
    """The model called ``name`` with these feature gates set (kube-scheduler spelling)."""
    model = _base(name)
    known = _GATES[model.name]
    gates = dict(known)
    for gate, value in (feature_gates or {}).items():
        if gate not in known:
            raise ModelError(f"feature gate {gate} is not known to model {model.name} "
                             f"(known: {', '.join(sorted(known))})")
        if gate in _REQUIRED_ON and not value:
            raise ModelError(f"feature gate {gate}=false is not modelled: wapctl plans "
                             f"workload-aware preemption only")
        gates[gate] = bool(value)
    own = model.group_policy_own or gates.get("PodGroupPreemptionPolicy", False)
    return replace(model, feature_gates=gates, group_policy_own=own)


def parse_feature_gates(text: str | None) -> dict[str, bool]:
    """``Name=true,Other=false`` as kube-scheduler's ``--feature-gates`` takes it."""
    gates: dict[str, bool] = {}
    if not text:
        return gates
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        name, sep, value = part.partition("=")
        value = value.strip().lower()
        if not sep or not name.strip() or value not in ("true", "false"):
            raise ModelError(f"feature gate {part!r}: expected Name=true or Name=false")
        gates[name.strip()] = value == "true"
    return gates


_VERSION = re.compile(r"^v?(\d+)\.(\d+)")


def model_for_server_version(version: str) -> tuple[str, str]:
    """(model name, reason) for a kube-apiserver version such as ``v1.36.2``."""
    m = _VERSION.match(version.strip())
    if m is None:
        return DEFAULT_MODEL, (f"server version {version!r} not understood; "
                               f"default model {DEFAULT_MODEL}")
    major, minor = int(m.group(1)), int(m.group(2))
    if (major, minor) == (1, 36):
        return "1.36", f"server version {version}"
    if (major, minor) > (1, 36):
        return "upstream", f"server version {version} is newer than 1.36"
    return "1.36", (f"server version {version} predates workload-aware preemption; "
                    f"modelled as 1.36")


def uses_kep_only_fields(snapshot: Snapshot) -> str | None:
    """The first object using a field only KEP-5710's design text has, or None."""
    for wl in snapshot.workloads.values():
        if wl.preemption_priority_class_name:
            return f"Workload {wl.key} sets preemptionPriorityClassName"
    for group in snapshot.pod_groups.values():
        if group.preemption_priority_class_name:
            return f"pod group {group.key} sets preemptionPriorityClassName"
    return None


def select_model(snapshot: Snapshot, name: str | None = None,
                 feature_gates: Mapping[str, bool] | None = None) -> BehaviourModel:
    """The model for this snapshot: ``name`` > the server version > KEP-only fields > 1.36."""
    if name:
        return get_model(name, feature_gates).chosen("chosen explicitly")
    version = getattr(snapshot, "server_version", None)
    if version:
        chosen, reason = model_for_server_version(str(version))
        return get_model(chosen, feature_gates).chosen(reason)
    kep = uses_kep_only_fields(snapshot)
    if kep is not None:
        return get_model("kep-5710", feature_gates).chosen(f"{kep} (a KEP-5710-only field)")
    return get_model(DEFAULT_MODEL, feature_gates).chosen(
        f"no server version known; default model {DEFAULT_MODEL}")


def as_seen_by(snapshot: Snapshot, model: BehaviourModel) -> Snapshot:
    """The snapshot with victim priorities as ``model`` reads them: without a separate
    preemption priority (the scheduler models) every pod and pod group is a victim at its
    scheduling priority. For checks that read ``preemption_priority`` directly (the priority
    graph of ``check-cycles``)."""
    if model.separate_preemption_priority:
        return snapshot
    from types import MappingProxyType

    from msgspec.structs import replace as struct_replace

    pods = {k: (p if p.preemption_priority == p.priority
                else struct_replace(p, preemption_priority=p.priority))
            for k, p in snapshot.pods.items()}
    groups = {k: (g if g.preemption_priority == g.priority
                  else struct_replace(g, preemption_priority=g.priority))
              for k, g in snapshot.pod_groups.items()}
    return replace(snapshot, pods=MappingProxyType(pods), pod_groups=MappingProxyType(groups))


__all__ = [
    "DEFAULT_MODEL",
    "MODEL_NAMES",
    "UPSTREAM_COMMIT",
    "BehaviourModel",
    "ModelError",
    "as_seen_by",
    "get_model",
    "model_for_server_version",
    "parse_feature_gates",
    "select_model",
    "uses_kep_only_fields",
]

