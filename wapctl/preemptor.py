"""Pending preemptors: what the scheduling queue would try next, and in which order.

A preemptor is one pending pod, or the pending pods of a gang pod group scheduled together
(KEP-4671). Pods of a ``Basic`` group are scheduled one by one, so in the queue each is its own
Pod preemptor; naming such a group as a workload plans all its pending pods as one unit.

Errors are domain errors (``UsageError``) that name the pod or workload, never a CLI flag, and
suggest close names (``did you mean``) for unknown ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from wapctl.errors import NothingPending, UsageError, did_you_mean
from wapctl.model import (
    NOMINATED,
    RUNNING,
    LabelSelector,
    Pod,
    PodGroup,
    PreemptionPolicy,
    Snapshot,
)

PreemptorKind = Literal["Pod", "PodGroup"]


@dataclass(frozen=True, slots=True)
class Preemptor:
    """What the plan algorithm places.

    ``needed`` is how many of ``pods`` must be placed: 1 for a pod; for a gang its ``minCount``
    minus the group's bound, non-terminating pods (never below 0); for a basic group named
    explicitly, all of its pending pods.
    """

    kind: PreemptorKind
    namespace: str
    name: str  # pod name, or workload name
    pod_group: str | None  # group name for a PodGroup preemptor
    group_key: str | None  # "ns/workload/group" when the pod(s) belong to a group
    priority: int  # scheduling priority
    preemption_policy: PreemptionPolicy
    min_count: int | None  # the gang's declared minCount
    pods: tuple[Pod, ...]  # pending pods, sorted by key
    needed: int

    @property
    def key(self) -> str:
        """``ns/name`` for a pod, ``ns/workload/group`` for a pod group."""
        if self.kind == "Pod":
            return f"{self.namespace}/{self.name}"
        return self.group_key or f"{self.namespace}/{self.name}"

    @property
    def creation_time(self) -> float | None:
        times = [p.creation_time for p in self.pods if p.creation_time is not None]
        return min(times) if times else None

    def describe(self) -> str:
        """A short human name: ``pod ns/name`` or ``pod group ns/workload/group``."""
        return f"pod {self.key}" if self.kind == "Pod" else f"pod group {self.key}"


def _pod_preemptor(pod: Pod) -> Preemptor:
    return Preemptor(
        kind="Pod",
        namespace=pod.namespace,
        name=pod.name,
        pod_group=None,
        group_key=pod.group_key,
        priority=pod.priority,
        preemption_policy=pod.preemption_policy,
        min_count=None,
        pods=(pod,),
        needed=1,
    )


def bound_members(snapshot: Snapshot) -> dict[str, int]:
    """Per group key, how many of its pods are bound and still running (count toward minCount)."""
    counts: dict[str, int] = {}
    for p in snapshot.pods.values():  # ``Pod.running``, inlined: this runs once per pod
        gk = p.group_key
        if gk is not None and p.state == RUNNING:
            counts[gk] = counts.get(gk, 0) + 1
    return counts


def _group_preemptor(
    snapshot: Snapshot, group: PodGroup, pods: list[Pod], bound: dict[str, int] | None = None
) -> Preemptor:
    pods_t = tuple(sorted(pods, key=lambda p: p.key))
    if group.policy == "Gang":
        if bound is None:
            bound = bound_members(snapshot)
        declared = group.min_count if group.min_count is not None else len(pods_t)
        needed = max(0, declared - bound.get(group.key, 0))
        min_count = group.min_count
    else:
        needed = len(pods_t)
        min_count = None
    return Preemptor(
        kind="PodGroup",
        namespace=group.namespace,
        name=group.workload,
        pod_group=group.name,
        group_key=group.key,
        priority=group.priority,
        preemption_policy=group.preemption_policy,
        min_count=min_count,
        pods=pods_t,
        needed=needed,
    )


def _queue_key(p: Preemptor) -> tuple[int, bool, float, str]:
    t = p.creation_time
    return (-p.priority, t is None, t or 0.0, p.key)


def pending_preemptors(
    snapshot: Snapshot, namespace: str | None = None, selector: LabelSelector | None = None
) -> list[Preemptor]:
    """Every pending preemptor in scheduler queue order: priority desc, creation time, key.

    ``selector`` (kubectl ``-l`` semantics, ``wapctl.selector``) keeps the preemptors with at
    least one pending pod whose labels match it; a gang keeps all its pending pods."""
    singles: list[Preemptor] = []
    gangs: dict[str, list[Pod]] = {}
    for pod in snapshot.pods.values():
        # ``Pod.pending``, inlined (most pods are bound: the first test sends them on)
        if pod.state > NOMINATED or pod.gated:
            continue
        if namespace is not None and pod.namespace != namespace:
            continue
        group = snapshot.pod_groups.get(pod.group_key) if pod.group_key else None
        if group is not None and group.policy == "Gang":
            gangs.setdefault(group.key, []).append(pod)
        else:
            singles.append(_pod_preemptor(pod))
    bound = bound_members(snapshot) if gangs else {}
    result = singles + [
        _group_preemptor(snapshot, snapshot.pod_groups[k], pods, bound)
        for k, pods in gangs.items()
    ]
    if selector is not None:
        from wapctl.selector import matches

        result = [p for p in result if any(matches(selector, pod.labels) for pod in p.pods)]
    result.sort(key=_queue_key)
    return result


def _split(text: str, what: str, parts: tuple[int, ...], hint: str = "") -> list[str]:
    pieces = text.split("/")
    if len(pieces) not in parts or not all(pieces):
        shapes = " or ".join({2: "NAMESPACE/NAME", 3: "NAMESPACE/NAME/GROUP"}[n] for n in parts)
        raise UsageError(f"{what} {text!r}: expected {shapes}{hint}")
    return pieces


def _suggest(name: str, ns: str, near: Iterable[str], keys: Iterable[str]) -> str:
    """`` (did you mean ...?)``: ``NS/name`` for every other namespace holding exactly this name
    (``keys``: every ``NS/NAME`` of the kind), then the names of ``near`` (in ``ns``) close to
    it."""
    exact = sorted({k for k in keys if k.partition("/")[2] == name and not k.startswith(ns + "/")})
    return did_you_mean(name, near, prefix=f"{ns}/", first=exact)


def _pending_first(snapshot: Snapshot, ns: str) -> list[str]:
    """Pod names to suggest from: the namespace's pending pods, else every pod there."""
    same = [p for p in snapshot.pods.values() if p.namespace == ns]
    pending = [p.name for p in same if p.pending]
    return pending or [p.name for p in same]


def _select_pod(snapshot: Snapshot, text: str, namespace: str | None) -> Preemptor:
    if "/" not in text:
        text = f"{namespace or 'default'}/{text}"
    ns, _name = _split(text, "pod", (2,))
    if namespace is not None and ns != namespace:
        raise UsageError(f"pod {text} is not in namespace {namespace}")
    pod = snapshot.pods.get(text)
    if pod is None:
        hint = _suggest(_name, ns, _pending_first(snapshot, ns), snapshot.pods)
        raise UsageError(f"pod {text} is not in the snapshot{hint}")
    if not pod.pending:
        if pod.finished:
            state = f"it has finished ({pod.phase})"
        elif pod.terminating:
            state = "it is terminating"
        elif pod.gated:
            state = "it has scheduling gates (spec.schedulingGates), so the scheduler skips it"
        else:
            state = f"it is bound to node {pod.node_name}"
        raise UsageError(f"pod {text} is not pending: {state}")
    group = snapshot.pod_groups.get(pod.group_key) if pod.group_key else None
    if group is not None and group.policy == "Gang":
        # A gang member is never scheduled alone: plan its whole gang.
        return _group_for(snapshot, group)
    return _pod_preemptor(pod)


def _group_for(snapshot: Snapshot, group: PodGroup) -> Preemptor:
    pods: list[Pod] = []
    bound = 0
    for p in snapshot.pods.values():
        if p.group_key == group.key:
            if p.pending:
                pods.append(p)
            elif p.running:
                bound += 1
    if not pods:
        raise UsageError(f"pod group {group.key} has no pending pods")
    return _group_preemptor(snapshot, group, pods, {group.key: bound})


def _workload_keys(snapshot: Snapshot) -> set[str]:
    """``NS/NAME`` of every Workload, declared or named by a PodGroup."""
    return set(snapshot.workloads) | {f"{g.namespace}/{g.workload}"
                                      for g in snapshot.pod_groups.values()}


def _select_workload(snapshot: Snapshot, text: str, namespace: str | None) -> Preemptor:
    bare = "/" not in text  # a bare NAME: say which namespaces hold one
    pieces = _split(text, "workload", (2, 3),
                    _suggest(text, "", (), _workload_keys(snapshot)) if bare else "")
    ns, name = pieces[0], pieces[1]
    if namespace is not None and ns != namespace:
        raise UsageError(f"workload {text} is not in namespace {namespace}")
    wl_key = f"{ns}/{name}"
    groups = [g for g in snapshot.pod_groups.values() if g.namespace == ns and g.workload == name]
    if wl_key not in snapshot.workloads and not groups:
        known = {w.name for w in snapshot.workloads.values() if w.namespace == ns} | {
            g.workload for g in snapshot.pod_groups.values() if g.namespace == ns}
        raise UsageError(f"workload {wl_key} is not in the snapshot"
                         f"{_suggest(name, ns, sorted(known), _workload_keys(snapshot))}")
    if len(pieces) == 3:
        group = snapshot.pod_groups.get(text)
        if group is None:
            names = sorted(g.name for g in groups)
            hint = did_you_mean(pieces[2], names) or f" (it has: {', '.join(names) or 'none'})"
            raise UsageError(f"workload {wl_key} has no pod group {pieces[2]!r}{hint}")
        return _group_for(snapshot, group)
    if len(groups) == 1:
        return _group_for(snapshot, groups[0])
    keys = {g.key for g in groups}
    pending = sorted({p.group_key for p in snapshot.pods.values()
                      if p.pending and p.group_key in keys})
    if len(pending) == 1:
        return _group_for(snapshot, snapshot.pod_groups[pending[0]])
    if not pending:
        raise UsageError(f"workload {wl_key} has no pending pods")
    listed = ", ".join(snapshot.pod_groups[k].name for k in pending)
    raise UsageError(f"workload {wl_key} has several pod groups with pending pods ({listed}): "
                     f"name one as {wl_key}/GROUP")


def select_preemptor(
    snapshot: Snapshot,
    *,
    pod: str | None = None,
    workload: str | None = None,
    namespace: str | None = None,
    selector: LabelSelector | None = None,
) -> Preemptor:
    """The preemptor named on the command line, or the head of the queue (narrowed to
    ``namespace`` and ``selector``)."""
    if pod is not None and workload is not None:
        raise UsageError("name a pod or a workload to plan for, not both")
    if pod is not None:
        return _select_pod(snapshot, pod, namespace)
    if workload is not None:
        return _select_workload(snapshot, workload, namespace)
    queue = pending_preemptors(snapshot, namespace, selector)
    if not queue:
        where = f" in namespace {namespace}" if namespace is not None else ""
        if selector is not None:
            where += " matching the label selector"
        raise NothingPending(f"no pending pod or pod group{where}: nothing to plan")
    return queue[0]


def whole_group_of(snapshot: Snapshot, preemptor: Preemptor) -> Preemptor | None:
    """For a single pod of a pod group (basic included), its whole group as the preemptor:
    with GenericWorkload the scheduler runs a group's pods through the pod group cycle, and a
    member does not preempt on its own. None for a standalone pod."""
    if preemptor.kind != "Pod" or preemptor.group_key is None:
        return None
    group = snapshot.pod_groups.get(preemptor.group_key)
    return _group_for(snapshot, group) if group is not None else None


# Public names for building preemptors outside the queue (``simulate`` replays the queue).
pod_preemptor = _pod_preemptor
group_preemptor = _group_preemptor
queue_key = _queue_key
