"""The one cross-object step of reading pods: which pod group a pod joins and what priorities
it ends up with (``wapctl.priority``), with the warnings that gathers (missing classes and
groups, priorities diverging from their group's)."""

from __future__ import annotations

from itertools import repeat
from typing import Any

import msgspec

from wapctl import priority as prio
from wapctl.errors import InputError, Source
from wapctl.ingest import fields
from wapctl.ingest.cache import BuildCache
from wapctl.ingest.fields import enum as _enum
from wapctl.ingest.fields import mapping as _mapping
from wapctl.ingest.fields import opt_str as _opt_str
from wapctl.ingest.fields import req_str as _req_str
from wapctl.ingest.fields import type_error as _type_error
from wapctl.ingest.priority_class import POLICIES, ClassBook
from wapctl.ingest.workload import GroupDraft, WorkloadDraft
from wapctl.model import NEVER, PREEMPT_LOWER, LoadWarning, Pod, PriorityClass
from wapctl.workload_api import V1ALPHA1


class PodContext:
    """What pod parsing needs from the rest of the snapshot."""

    __slots__ = (
        "again", "classes", "default", "divergent", "gkey", "missing_groups", "pod_groups",
        "resolved", "reuse", "warnings", "workloads",
    )

    def __init__(
        self,
        classes: ClassBook,
        default: PriorityClass | None,
        workloads: dict[str, WorkloadDraft],
        pod_groups: dict[str, GroupDraft],
        reuse: BuildCache | None = None,
    ):
        self.reuse = reuse
        self.classes = classes
        self.default = default
        self.workloads = workloads
        self.pod_groups = pod_groups  # v1alpha2/3 by "ns/podgroup-name"
        self.warnings: list[LoadWarning] = []  # Snapshot.warnings, unsorted
        # pod group label -> [(pod key, source)]: pods of a group the snapshot lacks
        self.missing_groups: dict[str, list[tuple[str, Source, str]]] = {}
        # pod group key -> [(pod key, own priority, source)]: pods disagreeing with their group
        self.divergent: dict[str, list[tuple[str, int, Source]]] = {}
        # (spec.priority, class name, spec.preemptionPolicy, group key) -> resolve_pod's answer
        self.resolved: dict[tuple[Any, ...], prio.PodPriority] = {}
        # priority_ref -> pod_priority's answer for a pod read again, None where pods with
        # that ref must each be resolved (see pod_again)
        self.again: dict[tuple[Any, ...], Any] = {}
        # of the pod resolved last: what pods resolving alike in every build share (see
        # Memory.members), None for a pod to resolve on its own (a group it names is missing)
        self.gkey: tuple[Any, ...] | None = None

    def missing_group(self, label: str, pod: str, source: Source, field: str) -> None:
        self.missing_groups.setdefault(label, []).append((pod, source, field))

    def finish(self, groups: dict[str, GroupDraft]) -> list[LoadWarning]:
        """The warnings gathered while reading pods, one per class, missing group or group."""
        out = list(self.warnings) + self.classes.warnings()
        for label, pods in self.missing_groups.items():
            pod, source, field = min(pods)
            who = ("this pod is planned as a standalone pod" if len(pods) == 1 else
                   f"this pod and {len(pods) - 1} more are planned as standalone pods")
            out.append(LoadWarning(
                "MissingPodGroup", f"Pod {pod}", field,
                f"{label} is not in the snapshot (an export without the Workload API kinds?): "
                f"{who}",
                source,
            ))
        for key, members in self.divergent.items():
            g = groups[key]
            members.sort()
            pod, _, source = members[0]
            own = ", ".join(f"{p} {n}" for p, n, _ in members[:3])
            more = f" +{len(members) - 3} more" if len(members) > 3 else ""
            out.append(LoadWarning(
                "PriorityDivergence", f"PodGroup {g.namespace}/{g.name}", "spec.priority",
                f"the PodGroup's priority is {g.priority.priority} but its pods carry their own "
                f"({own}{more}): kube-scheduler 1.36 binds such pods; the KEP-5710 Beta "
                "scheduler refuses the group",
                source,
            ))
        return out


def _pod_group_of(
    spec: dict[str, Any], ns: str, pod: str, source: Source, ctx: PodContext
) -> GroupDraft | None:
    wref = spec.get("workloadRef")
    sg = spec.get("schedulingGroup")
    if wref is not None and sg is not None:
        raise InputError(
            "set spec.workloadRef (v1alpha1) or spec.schedulingGroup (v1alpha2+), not both",
            source,
            "spec.schedulingGroup",
        )
    if sg is not None:
        sg = _mapping(sg, source, "spec.schedulingGroup")
        pg_name = _opt_str(sg.get("podGroupName"), source, "spec.schedulingGroup.podGroupName")
        if pg_name is None:
            return None
        group = ctx.pod_groups.get(f"{ns}/{pg_name}")
        if group is None:
            ctx.missing_group(f"PodGroup {ns}/{pg_name}", pod, source,
                              "spec.schedulingGroup.podGroupName")
        return group
    if wref is None:
        return None
    wref = _mapping(wref, source, "spec.workloadRef")
    wname = _req_str(wref.get("name"), source, "spec.workloadRef.name")
    gname = _req_str(wref.get("podGroup"), source, "spec.workloadRef.podGroup")
    wl = ctx.workloads.get(f"{ns}/{wname}")
    if wl is None:
        ctx.missing_group(f"Workload {ns}/{wname}", pod, source, "spec.workloadRef.name")
        return None
    if wl.api_version != V1ALPHA1:
        raise InputError(
            f"Workload {ns}/{wname} is {wl.api_version}: its pods join a PodGroup through "
            "spec.schedulingGroup.podGroupName",
            source,
            "spec.workloadRef",
        )
    group = wl.groups.get(gname)
    if group is None:
        raise InputError(
            f"Workload {ns}/{wname} has no pod group {gname!r}"
            f" (it has: {', '.join(sorted(wl.groups)) or 'none'})",
            source,
            "spec.workloadRef.podGroup",
        )
    return group


def priority_ref(spec: dict[str, Any], ns: str) -> tuple[Any, ...]:
    """What ``pod_priority`` reads of a pod that an earlier build read without error (so every
    field here has its checked type): spec.priority, the class and policy it names, its group
    reference."""
    group: tuple[Any, ...] | None = None
    sg = spec.get("schedulingGroup")
    if sg is not None:
        group = ("PodGroup", ns, sg.get("podGroupName"))
    else:
        wref = spec.get("workloadRef")
        if wref is not None:
            group = ("Workload", ns, wref.get("name"), wref.get("podGroup"))
    return (spec.get("priority"), spec.get("priorityClassName") or None,
            spec.get("preemptionPolicy") or None, group)


def resolves_quietly(
    names_group: bool, pcn: Any, pp: prio.PodPriority, group: GroupDraft | None,
    ctx: PodContext,
) -> bool:
    """Whether ``pod_priority`` noted nothing about the pod itself -- a missing class or group,
    a priority diverging from its group's -- beyond joining the group: then every pod with the
    same ``priority_ref`` resolves alike in this build. (``names_group``: the pod names a pod
    group, ``priority_ref(...)[3] is not None``.)"""
    if pcn and ctx.classes.get(pcn) is None:
        return False
    if names_group and group is None:
        return False
    return not (
        group is not None
        and group.api_version != V1ALPHA1
        and pp.own_priority is not None
        and pp.own_priority != group.priority.priority
    )


def pod_priority(
    spec: dict[str, Any], ns: str, key: str, source: Source, ctx: PodContext
) -> tuple[Any, prio.PodPriority, GroupDraft | None]:
    """(spec.priorityClassName, the resolved priorities, the pod group) of a pod; notes the
    pod as a member of its group, and a priority diverging from the group's."""
    named = "workloadRef" in spec or "schedulingGroup" in spec
    group = _pod_group_of(spec, ns, key, source, ctx) if named else None

    spec_priority = spec.get("priority")
    if spec_priority is not None:
        if type(spec_priority) is not int:
            raise _type_error(spec_priority, "an integer", source, "spec.priority")
        fields.check_int32(spec_priority, source, "spec.priority")
    pcn = spec.get("priorityClassName")
    pc = None
    if pcn:
        if type(pcn) is not str:
            raise _type_error(pcn, "a string", source, "spec.priorityClassName")
        # Admission wrote spec.priority from the class: a class deleted since (or left out of
        # the export) is a warning, as the scheduler only reads spec.priority.
        pc = ctx.classes.get(pcn) or ctx.classes.resolve(
            pcn, spec_priority, f"Pod {key}", source, "spec.priorityClassName")
    policy = spec.get("preemptionPolicy") or None
    if policy is not None and policy not in POLICIES:
        _enum(policy, POLICIES, source, "spec.preemptionPolicy")
    # the same few (number, class, policy, group) combinations repeat across a cluster's pods;
    # within one build each class name and group key stands for one object
    resolved_key = (spec_priority, pc.name if pc is not None else None, policy,
                    group.key if group is not None else None)
    pp = ctx.resolved.get(resolved_key)
    if pp is None:
        pp = ctx.resolved[resolved_key] = prio.resolve_pod(
            spec_priority=spec_priority,
            priority_class=pc,
            spec_policy=policy,
            default=ctx.default,
            group=group.priority if group is not None else None,
        )
    if group is not None:
        if (
            group.api_version != V1ALPHA1
            and pp.own_priority is not None
            and pp.own_priority != group.priority.priority
        ):
            ctx.divergent.setdefault(group.key, []).append((key, pp.own_priority, source))
        join(group, pp)
    # Pods naming the same number, class, policy and group (the group object stands for the
    # reference naming it) resolve alike in every build. A pod read again keys its set by its
    # priority_ref instead (pod_again): two keys may split one such set in two, which only
    # shares less, never wrongly.
    ctx.gkey = (None if named and group is None else
                (spec_priority, pcn or None, policy, group))
    return pcn, pp, group


def join(group: GroupDraft, pp: prio.PodPriority, count: int = 1) -> None:
    """``count`` members with these priorities join ``group`` (its values,
    ``prio.group_values``)."""
    if count == 1:
        group.members.append(pp.priority)
    else:
        group.members.extend(repeat(pp.priority, count))
    if pp.own_never:
        group.member_never = True


# The fields of a Pod that pod_priority decides, in the order resolved_fields gives them.
RESOLVED_FIELDS = ("priority", "preemption_priority", "preemption_policy", "own_preemption_policy",
             "priority_class_name", "group_key", "own_priority")


def with_resolved(pod: Pod, resolved: tuple[Any, ...]) -> Pod:
    """A copy of ``pod`` holding ``resolved`` (as ``resolved_fields`` gives them) in its
    ``RESOLVED_FIELDS`` fields."""
    priority, preemption, policy, own_policy, pcn, group_key, own_priority = resolved
    return msgspec.structs.replace(
        pod, priority=priority, preemption_priority=preemption, preemption_policy=policy,
        own_preemption_policy=own_policy, priority_class_name=pcn, group_key=group_key,
        own_priority=own_priority)


def resolved_fields(pcn: Any, pp: prio.PodPriority, group: GroupDraft | None) -> tuple[Any, ...]:
    """What a pod with these answers of ``pod_priority`` holds in the ``RESOLVED_FIELDS`` fields."""
    return (pp.priority, pp.preemption_priority, pp.preemption_policy,
            NEVER if pp.own_never else PREEMPT_LOWER, pcn or None,
            group.key if group is not None else None, pp.own_priority)
