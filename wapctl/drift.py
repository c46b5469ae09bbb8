"""Priorities that drifted from their classes, and Kueue priorities that diverge from them.

Kubernetes resolves a pod's PriorityClass once, at admission: the Priority admission plugin
writes the class's value into ``spec.priority`` and nothing updates it afterwards. PriorityClass
values are immutable, so teams delete and re-create a class to change its value, and the pods
already running keep the old number (kubernetes/kubernetes#99205). kube-scheduler then compares
``spec.priority``, not the class. The same holds for a v1alpha2/3 ``PodGroup``'s
``spec.priority``. Kueue, for its part, queues and preempts workloads by the
WorkloadPriorityClass named in the ``kueue.x-k8s.io/priority-class`` label (objects of
``kueue.x-k8s.io/v1beta1``), which can say something else than the pods' PriorityClass.

:func:`find` reads the documents (for ``spec.priority`` as written, which the model resolves
away) and the snapshot, and returns findings (``findings.py``):

- ``priority-drift`` — a pod (not finished) or a PodGroup object whose ``spec.priority`` differs
  from the current value of the class it names, with what that lets preempt what;
- ``podgroup-priority-divergence`` — a pod of a pod group whose own priority
  (``spec.priority``, else its class) differs from the group's (a v1alpha1 Workload's class, a
  v1alpha2+ PodGroup's priority), which wins (for v1alpha2+ the load also warns
  ``PriorityDivergence``: the 1.36 scheduler binds such pods, KEP-5710 Beta refuses the group);
- ``kueue-priority-divergence`` — a pod or pod template labelled with a WorkloadPriorityClass
  whose value differs from the priority kube-scheduler gives its pods;
- ``unknown-kueue-priority-class`` — the label names no WorkloadPriorityClass of the input.

Kueue findings need the WorkloadPriorityClass objects in the input (or in ``--cluster``): a
label is checked only when some WorkloadPriorityClass is present, so manifests that do not
carry Kueue's objects are not flagged for naming them.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable
from typing import Any

from wapctl import findings as f
from wapctl.errors import InputError, Source
from wapctl.ingest import Document, fields
from wapctl.model import FINISHED, NEVER, Snapshot
from wapctl.workload_api import V1ALPHA1

KUEUE_GROUP = "kueue.x-k8s.io"
KUEUE_LABEL = "kueue.x-k8s.io/priority-class"
_LABEL_FIELD = f'metadata.labels["{KUEUE_LABEL}"]'


def _group_of(api: Any) -> str | None:
    if type(api) is not str:
        return None
    return api.rpartition("/")[0] if "/" in api else ""


def kueue_classes(documents: Iterable[Document]) -> dict[str, tuple[int, Source]]:
    """WorkloadPriorityClass name -> (value, source)."""
    out: dict[str, tuple[int, Source]] = {}
    for source, obj in documents:
        if obj.get("kind") != "WorkloadPriorityClass" or _group_of(obj.get("apiVersion")) != (
            KUEUE_GROUP
        ):
            continue
        meta = fields.mapping(obj.get("metadata"), source, "metadata")
        name = fields.req_str(meta.get("name"), source, "metadata.name")
        try:  # Kueue's WorkloadPriorityClass.value is a required int32, as a PriorityClass's
            value = fields.opt_int(obj.get("value"), source, "value")
            if value is None:
                raise InputError("missing (required)", source, "value")
            fields.check_int32(value, source, "value")
        except InputError as exc:
            raise exc.about(f"WorkloadPriorityClass {name}") from None
        out[name] = (value, source)
    return out


def find(documents: Iterable[Document], snapshot: Snapshot) -> tuple[f.Finding, ...]:
    """Every drift and divergence finding of the input (module docstring), sorted."""
    documents = list(documents)
    wpcs = kueue_classes(documents)
    reach = _lazy_reach(snapshot)
    out: list[f.Finding] = []
    for source, obj in documents:
        kind = obj.get("kind")
        group = _group_of(obj.get("apiVersion"))
        if kind == "Pod" and group in ("", None):
            out.extend(_pod(obj, source, snapshot, wpcs, reach))
        elif kind == "PodGroup" and group == "scheduling.k8s.io":
            out.extend(_pod_group(obj, source, snapshot, reach))
    if wpcs:
        for t in snapshot.templates.values():
            name = t.labels.get(KUEUE_LABEL)
            if name is not None and t.priority is not None:
                out.extend(
                    _kueue(t.key, t.namespace, name, t.priority, t.priority_class_name,
                           wpcs, t.source, _LABEL_FIELD)
                )
    return tuple(sorted(set(out), key=lambda x: x.sort_key))


def _names(obj: dict[str, Any]) -> tuple[str, str]:
    meta = obj.get("metadata") or {}
    return str(meta.get("namespace") or "default"), str(meta.get("name"))


def _lazy_reach(snapshot: Snapshot) -> Callable[[], Reach]:
    """The snapshot's Reach, built on first use (most inputs have no drift at all)."""
    built: list[Reach] = []

    def get() -> Reach:
        if not built:
            built.append(Reach(snapshot))
        return built[0]

    return get


def _pod(
    obj: dict[str, Any],
    source: Source,
    snapshot: Snapshot,
    wpcs: dict[str, tuple[int, Source]],
    reach: Callable[[], Reach],
) -> list[f.Finding]:
    ns, name = _names(obj)
    key = f"{ns}/{name}"
    pod = snapshot.pods.get(key)
    if pod is None or pod.finished:
        return []
    spec = obj.get("spec") or {}
    number = spec.get("priority")
    pcn = spec.get("priorityClassName") or None
    pc = snapshot.priority_classes.get(pcn) if type(pcn) is str else None
    out = []
    state = "runs" if pod.running else "waits"
    if pc is not None and type(number) is int and number != pc.value:
        out.append(
            f.Finding(
                rule=f.DRIFT,
                object=f"Pod {key}",
                namespace=ns,
                message=f"Pod {key} {state} with priority {number}, but PriorityClass "
                f"{pc.name!r} is now {pc.value} (re-created with another value; a pod keeps "
                "the value it was admitted with); "
                + reach().consequence(number, pc.value, pc.name, pod.preemption_policy),
                fix=f"recreate the pod (e.g. roll out its controller) so it is admitted at "
                f"{pc.value}, or give class {pc.name!r} back its value {number}",
                source=source,
                field="spec.priority",
                priority_class=pc.name,
            )
        )
    group = snapshot.pod_groups.get(pod.group_key) if pod.group_key else None
    own = number if type(number) is int else (pc.value if pc is not None else None)
    if (
        group is not None
        and group.priority_class_name is not None
        and own is not None
        and own != group.priority
    ):
        out.append(
            f.Finding(
                rule=f.GROUP_DIVERGENCE,
                object=f"Pod {key}",
                namespace=ns,
                message=f"Pod {key} says priority {own} but its pod group {group.key} has "
                f"{group.priority} (class {group.priority_class_name}), which wins: the pod "
                f"schedules and is preempted at {group.priority}, not at {own}",
                fix=f"give the pod the group's class {group.priority_class_name!r} (or none)",
                source=source,
                field="spec.priority" if type(number) is int else "spec.priorityClassName",
                priority_class=group.priority_class_name,
            )
        )
    labels = (obj.get("metadata") or {}).get("labels") or {}
    wname = labels.get(KUEUE_LABEL) if type(labels) is dict else None
    if wpcs and type(wname) is str:
        out.extend(
            _kueue(f"Pod {key}", ns, wname, pod.priority, pod.priority_class_name, wpcs, source,
                   _LABEL_FIELD)
        )
    return out


class Reach:
    """Who else the drift concerns: the snapshot's pods (not finished) and pod templates, by
    scheduling priority (those that preempt) and by preemption priority. Built once, answered
    by bisection, so many drifted pods cost O(n log n) in all."""

    def __init__(self, snapshot: Snapshot) -> None:
        # value -> pod keys, by scheduling priority (pods that preempt) and by preemption
        # priority (this loop runs once per pod: no string, no tuple per pod)
        preempting: dict[int, list[str]] = {}
        preemptible: dict[int, list[str]] = {}
        for pod in snapshot.pods.values():
            if pod.state == FINISHED:
                continue
            key = pod.key
            if pod.preemption_policy != NEVER:
                keys = preempting.get(pod.priority)
                if keys is None:
                    keys = preempting[pod.priority] = []
                keys.append(key)
            keys = preemptible.get(pod.preemption_priority)
            if keys is None:
                keys = preemptible[pod.preemption_priority] = []
            keys.append(key)
        templates: list[tuple[int, str]] = []
        template_victims: list[tuple[int, str]] = []
        for t in snapshot.templates.values():
            if t.priority is None or t.preemption_priority is None:
                continue
            if t.preemption_policy != NEVER:
                templates.append((t.priority, t.key))
            template_victims.append((t.preemption_priority, t.key))
        self.preemptors = _Ladder(preempting, templates)
        self.victims = _Ladder(preemptible, template_victims)
        # the pods of one re-created class drift alike: one text per (admitted, current,
        # class, policy)
        self._texts: dict[tuple[int, int, str, str], str] = {}

    def consequence(self, admitted: int, current: int, cls: str, policy: str) -> str:
        """What the drift lets preempt what: the pods of its own class, and everyone whose
        relation to it differs from what its class's value would give."""
        key = (admitted, current, cls, policy)
        text = self._texts.get(key)
        if text is None:
            text = self._texts[key] = self._consequence(admitted, current, cls, policy)
        return text

    def _consequence(self, admitted: int, current: int, cls: str, policy: str) -> str:
        if current > admitted:
            text = (
                f"pods created now with class {cls!r} schedule at {current} and can preempt it "
                f"({current} > {admitted}), although they share its class"
            )
            # preemptors p with admitted < p <= current: can preempt it now, not at `current`
            newly = self.preemptors.between(admitted + 1, current + 1, _EXAMPLES)
            if newly[0]:
                text += (
                    f"; {_count(*newly)} with a priority from {admitted + 1} to {current} can "
                    "preempt it now, which its class's value would not allow"
                )
            return text
        if policy == NEVER:  # it outranks them in the queue, but preempts no one
            return (
                f"it is scheduled ahead of pods created now with class {cls!r} ({admitted} > "
                f"{current}), although they share its class; its preemptionPolicy Never keeps "
                "it from preempting them"
            )
        text = (
            f"it can preempt pods created now with class {cls!r} ({admitted} > {current}), "
            "although they share its class"
        )
        # victims v with current <= v < admitted: it can preempt them now, not at `current`
        newly = self.victims.between(current, admitted, _EXAMPLES)
        if newly[0]:
            text += (
                f"; it can preempt {_count(*newly)} with a preemption priority from "
                f"{current} to {admitted - 1}, which its class's value would not allow"
            )
        return text


_EXAMPLES = 3


class _Ladder:
    """Named members by value, for ``Reach``: how many have a value in [lo, hi), and the first
    few names in (value, name) order. Pods are kept by key, named ``Pod <key>`` only when their
    value's names are first asked for, and each value's names are sorted then (a 150k-pod
    cluster has a few dozen values)."""

    __slots__ = ("_below", "_named", "_pods", "_templates", "_values")

    def __init__(self, pods: dict[int, list[str]], templates: list[tuple[int, str]]) -> None:
        self._pods = pods  # value -> pod keys
        self._templates: dict[int, list[str]] = {}  # value -> template names
        for value, name in templates:
            self._templates.setdefault(value, []).append(name)
        self._values = sorted({*pods, *self._templates})
        self._below: list[int] = []  # members with a value below _values[i] (and all, last)
        total = 0
        for v in self._values:
            self._below.append(total)
            total += len(pods.get(v, ())) + len(self._templates.get(v, ()))
        self._below.append(total)
        self._named: dict[int, list[str]] = {}

    def _names(self, value: int) -> list[str]:
        named = self._named.get(value)
        if named is None:
            named = self._named[value] = sorted([*(f"Pod {k}" for k in self._pods.get(value, ())),
                                                 *self._templates.get(value, ())])
        return named

    def between(self, lo: int, hi: int, limit: int) -> tuple[int, list[str]]:
        """How many have a value v, lo <= v < hi, and the first ``limit`` names in (value,
        name) order: O(log n) but for the names (a drift finding per pod of a big re-created
        class must not cost a pass over everyone)."""
        values, below = self._values, self._below
        start, end = bisect_left(values, lo), bisect_left(values, hi)
        names: list[str] = []
        for i in range(start, end):
            if len(names) >= limit:
                break
            names.extend(self._names(values[i])[: limit - len(names)])
        return below[end] - below[start], names


def _count(total: int, names: list[str]) -> str:
    more = f" and {total - len(names)} more" if total > len(names) else ""
    return f"{total} other{'s' if total != 1 else ''} ({', '.join(names)}{more})"


def _pod_group(
    obj: dict[str, Any], source: Source, snapshot: Snapshot, reach: Callable[[], Reach]
) -> list[f.Finding]:
    ns, name = _names(obj)
    spec = obj.get("spec") or {}
    number = spec.get("priority")
    pcn = spec.get("priorityClassName") or None
    pc = snapshot.priority_classes.get(pcn) if type(pcn) is str else None
    if pc is None or type(number) is not int or number == pc.value:
        return []
    return [
        f.Finding(
            rule=f.DRIFT,
            object=f"PodGroup {ns}/{name}",
            namespace=ns,
            message=f"PodGroup {ns}/{name} has priority {number}, but PriorityClass {pc.name!r} "
            f"is now {pc.value} (re-created with another value; the group and its pods keep "
            "the old value); "
            + reach().consequence(number, pc.value, pc.name, _group_policy(snapshot, ns, name)),
            fix=f"recreate the PodGroup (and its pods) so it takes {pc.value}, or give class "
            f"{pc.name!r} back its value {number}",
            source=source,
            field="spec.priority",
            priority_class=pc.name,
        )
    ]


def _kueue(
    obj: str,
    namespace: str,
    wname: str,
    priority: int,
    pcn: str | None,
    wpcs: dict[str, tuple[int, Source]],
    source: Source | None,
    field: str,
) -> list[f.Finding]:
    cls = f" (class {pcn})" if pcn else ""
    if wname not in wpcs:
        return [
            f.Finding(
                rule=f.UNKNOWN_KUEUE_CLASS,
                object=obj,
                namespace=namespace,
                message=f"{obj}: label {KUEUE_LABEL}={wname} names no WorkloadPriorityClass "
                f"(known: {', '.join(sorted(wpcs))}); Kueue will not admit it",
                fix=f"create WorkloadPriorityClass {wname!r} or name an existing one",
                source=source,
                field=field,
            )
        ]
    value, _ = wpcs[wname]
    if value == priority:
        return []
    return [
        f.Finding(
            rule=f.KUEUE_DIVERGENCE,
            object=obj,
            namespace=namespace,
            message=f"{obj}: Kueue's WorkloadPriorityClass {wname!r} gives it {value} (Kueue "
            f"queues and preempts workloads by it), but its pods' priority is {priority}{cls} "
            "(kube-scheduler preempts pods by it): the two disagree on who may preempt whom",
            fix=f"give WorkloadPriorityClass {wname!r} the value {priority}, or label it with a "
            f"WorkloadPriorityClass of value {priority}",
            source=source,
            field=field,
            priority_class=pcn,
        )
    ]


def kept_old_values(
    before: Snapshot, after: Snapshot, after_documents: Iterable[Document]
) -> tuple[f.Finding, ...]:
    """``audit`` of a class change (a re-creation with another value): the running pods that
    name a class whose value changes and keep the value they were admitted with —
    ``spec.priority`` as written, else the class's value before the change."""
    changed = {
        name: (pc.value, after.priority_classes[name].value)
        for name, pc in before.priority_classes.items()
        if name in after.priority_classes and after.priority_classes[name].value != pc.value
    }
    if not changed:
        return ()
    out = []
    reach = _lazy_reach(after)
    for source, obj in after_documents:
        spec: Any = obj.get("spec")
        # the class first: most documents name none that changes (PodGroups name classes
        # too: the kind is checked next)
        pcn = spec.get("priorityClassName") if type(spec) is dict else None
        if type(pcn) is not str or pcn not in changed:
            continue
        if obj.get("kind") != "Pod" or _group_of(obj.get("apiVersion")) not in ("", None):
            continue
        ns, name = _names(obj)
        pod = after.pods.get(f"{ns}/{name}")
        if pod is None or not pod.running:
            continue
        old, new = changed[pcn]
        number = spec.get("priority")
        admitted = number if type(number) is int else old
        if admitted == new:
            continue
        out.append(
            f.Finding(
                rule=f.DRIFT,
                object=f"Pod {pod.key}",
                namespace=ns,
                message=f"Pod {pod.key} keeps priority {admitted}: PriorityClass {pcn!r} goes "
                f"from {old} to {new}, and a running pod keeps the value it was admitted with; "
                + reach().consequence(admitted, new, pcn, pod.preemption_policy),
                fix=f"roll out the pod's controller after re-creating {pcn!r} so it is admitted "
                f"at {new}",
                source=source,
                field="spec.priority" if type(number) is int else "spec.priorityClassName",
                priority_class=pcn,
            )
        )
    return tuple(sorted(out, key=lambda x: x.sort_key))


def _group_policy(snapshot: Snapshot, namespace: str, name: str) -> str:
    """The preemption policy of the PodGroup object ``namespace/name`` (a v1alpha1
    Workload's groups are no PodGroup objects: one may share the name)."""
    for g in snapshot.pod_groups.values():
        if g.namespace == namespace and g.name == name and g.api_version != V1ALPHA1:
            return g.preemption_policy
    return "PreemptLowerPriority"
