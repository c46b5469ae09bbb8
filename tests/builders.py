"""Terse builders for model objects, for tests.

They construct the ``wapctl.model`` objects directly (no loader involved), with defaults that
keep hand-worked cases short::

    snap = snapshot(
        nodes=[node("n1", cpu="4", mem="8Gi")],
        pods=[pod("low", node="n1", cpu="3", prio=10), pod("high", cpu="2", prio=100)],
    )

Quantities accept ints (cores for ``cpu``, bytes for ``mem``) or strings with the usual suffixes
(``500m``, ``2``, ``1.5``, ``512Mi``, ``8Gi``, ``1G``). Other helpers may add builders at the end.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from wapctl.model import (
    NEVER,
    PREEMPT_LOWER,
    LabelSelector,
    Node,
    NodeSelectorTerm,
    Pod,
    PodDisruptionBudget,
    PodGroup,
    PreemptionPolicy,
    PriorityClass,
    SelectorRequirement,
    Snapshot,
    Taint,
    Toleration,
    Workload,
)

__all__ = [
    "NEVER",
    "PREEMPT_LOWER",
    "basic",
    "cpu",
    "drawn_group",
    "gang",
    "mem",
    "member",
    "node",
    "pdb",
    "pod",
    "prio_class",
    "req",
    "snapshot",
    "taint",
    "term",
    "toleration",
]

_SUFFIX = {
    "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
    "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000),
    "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
}


def _amount(text: str | float) -> Fraction:
    if isinstance(text, (int, float)):
        return Fraction(text)
    for suffix in sorted(_SUFFIX, key=len, reverse=True):
        if text.endswith(suffix):
            return Fraction(text[: -len(suffix)]) * _SUFFIX[suffix]
    return Fraction(text)


def cpu(value: str | float) -> int:
    """CPU in millicores (rounded up, as MilliValue does): cpu("500m") == 500, cpu(2) == 2000."""
    return math.ceil(_amount(value) * 1000)


def mem(value: str | float) -> int:
    """Bytes (rounded up): mem("1Gi") == 2**30; also for ephemeral-storage and counts."""
    return math.ceil(_amount(value))


def _resources(cpu_q, mem_q, extra: Mapping[str, int | str] | None) -> dict[str, int]:
    out: dict[str, int] = {}
    if cpu_q is not None:
        out["cpu"] = cpu(cpu_q)
    if mem_q is not None:
        out["memory"] = mem(mem_q)
    for name, amount in (extra or {}).items():
        out[name] = cpu(amount) if name == "cpu" else mem(amount)
    return out


# ---- scheduling constraints ---------------------------------------------------------------


def taint(key: str, value: str = "", effect: str = "NoSchedule") -> Taint:
    return Taint(key=key, value=value, effect=effect)


def toleration(key: str = "", operator: str = "Equal", value: str = "",
               effect: str = "") -> Toleration:
    return Toleration(key=key, operator=operator, value=value, effect=effect)


def req(key: str, operator: str, *values: str) -> SelectorRequirement:
    """A selector requirement: req("zone", "In", "a", "b")."""
    return SelectorRequirement(key=key, operator=operator, values=tuple(values))


def term(*expressions: SelectorRequirement,
         fields: Sequence[SelectorRequirement] = ()) -> NodeSelectorTerm:
    return NodeSelectorTerm(match_expressions=tuple(expressions), match_fields=tuple(fields))


# ---- objects ------------------------------------------------------------------------------


def node(name: str, cpu: str | int = "4", mem: str | int = "8Gi", pods: int = 110, *,
         labels: Mapping[str, str] | None = None, taints: Iterable[Taint] = (),
         unschedulable: bool = False, extra: Mapping[str, int | str] | None = None) -> Node:
    """A node; ``extra`` adds allocatable resources such as {"nvidia.com/gpu": 8}."""
    allocatable = _resources(cpu, mem, extra)
    allocatable["pods"] = pods
    return Node(name=name, labels=dict(labels or {}), allocatable=allocatable,
                taints=tuple(taints), unschedulable=unschedulable)


def pod(name: str, ns: str = "default", *, cpu: str | int | None = "1",
        mem: str | int | None = None, extra: Mapping[str, int | str] | None = None,
        prio: int = 0, preempt_prio: int | None = None,
        policy: PreemptionPolicy = PREEMPT_LOWER, node: str | None = None,
        phase: str | None = None, terminating: bool = False, nominated: str | None = None,
        group: PodGroup | str | None = None, start: float | None = None,
        created: float | None = None, labels: Mapping[str, str] | None = None,
        selector: Mapping[str, str] | None = None,
        affinity: Sequence[NodeSelectorTerm] | None = None,
        tolerations: Iterable[Toleration] = (), priority_class: str | None = None) -> Pod:
    """A pod; bound (phase Running) when ``node`` is given, else Pending.

    ``group`` takes a PodGroup (its namespace and priorities then become the pod's defaults
    unless given) or a group key string.
    """
    group_key = None
    if isinstance(group, PodGroup):
        group_key = group.key
        ns = group.namespace
    elif isinstance(group, str):
        group_key = group
    return Pod(
        namespace=ns,
        name=name,
        key=f"{ns}/{name}",
        requests=_resources(cpu, mem, extra),
        priority=prio,
        preemption_priority=prio if preempt_prio is None else preempt_prio,
        preemption_policy=policy,
        priority_class_name=priority_class,
        node_name=node,
        phase=phase if phase is not None else ("Running" if node else "Pending"),
        terminating=terminating,
        nominated_node=nominated,
        group_key=group_key,
        creation_time=created,
        start_time=start,
        labels=dict(labels or {}),
        node_selector=dict(selector or {}),
        required_affinity=tuple(affinity) if affinity is not None else None,
        tolerations=tuple(tolerations),
    )


def member(group: PodGroup, name: str, **kwargs) -> Pod:
    """A pod of ``group`` with the group's scheduling / preemption priority and policy."""
    kwargs.setdefault("prio", group.priority)
    kwargs.setdefault("preempt_prio", group.preemption_priority)
    kwargs.setdefault("policy", group.preemption_policy)
    return pod(name, group=group, **kwargs)


def prio_class(name: str, value: int, *, default: bool = False,
               policy: PreemptionPolicy = PREEMPT_LOWER) -> PriorityClass:
    return PriorityClass(name=name, value=value, global_default=default, preemption_policy=policy)


def pdb(name: str, ns: str = "default", *, match: Mapping[str, str] | None = None,
        exprs: Sequence[SelectorRequirement] = (), allowed: int = 0,
        disrupted: Iterable[str] = ()) -> PodDisruptionBudget:
    """A PDB selecting ``match`` labels (and ``exprs``); ``allowed`` = status.disruptionsAllowed."""
    selector = LabelSelector(match_labels=dict(match or {}), match_expressions=tuple(exprs))
    return PodDisruptionBudget(namespace=ns, name=name, selector=selector,
                               disruptions_allowed=allowed, disrupted_pods=frozenset(disrupted))


def gang(workload: str, group: str = "main", ns: str = "default", *, min_count: int = 2,
         mode: str = "Pod", prio: int = 0, preempt_prio: int | None = None,
         policy: PreemptionPolicy = PREEMPT_LOWER) -> PodGroup:
    """A gang pod group; ``mode`` is its disruptionMode ("Pod" or "PodGroup")."""
    return PodGroup(
        namespace=ns, workload=workload, name=group, key=f"{ns}/{workload}/{group}",
        policy="Gang", min_count=min_count, disruption_mode=mode,  # type: ignore[arg-type]
        priority=prio, preemption_priority=prio if preempt_prio is None else preempt_prio,
        preemption_policy=policy,
    )


def basic(workload: str, group: str = "main", ns: str = "default", *, prio: int = 0,
          preempt_prio: int | None = None, policy: PreemptionPolicy = PREEMPT_LOWER) -> PodGroup:
    """A basic pod group (pods scheduled one by one, preempted one by one)."""
    return PodGroup(
        namespace=ns, workload=workload, name=group, key=f"{ns}/{workload}/{group}",
        policy="Basic", min_count=None, disruption_mode="Pod",
        priority=prio, preemption_priority=prio if preempt_prio is None else preempt_prio,
        preemption_policy=policy,
    )


def drawn_group(draw: Any, workload: str, kind: str, size: int, *, prio: int,
                preempt_prio: int, policy: PreemptionPolicy) -> PodGroup | None:
    """For hypothesis strategies: the pod group of a drawn workload of ``kind`` ("basic";
    "gang" or "whole", disruptionMode Pod or PodGroup, minCount drawn from 1 to ``size``;
    "standalone" has none)."""
    if kind == "basic":
        return basic(workload, prio=prio, preempt_prio=preempt_prio, policy=policy)
    if kind in ("gang", "whole"):
        return gang(workload, min_count=draw(st.integers(1, size)), prio=prio,
                    preempt_prio=preempt_prio, policy=policy,
                    mode="PodGroup" if kind == "whole" else "Pod")
    return None


def snapshot(*, nodes: Iterable[Node] = (), pods: Iterable[Pod] = (),
             classes: Iterable[PriorityClass] = (), pdbs: Iterable[PodDisruptionBudget] = (),
             groups: Iterable[PodGroup] = (), workloads: Iterable[Workload] | None = None
             ) -> Snapshot:
    """A snapshot with sorted mappings; Workloads are derived from ``groups`` unless given."""
    groups = list(groups)
    if workloads is None:
        by_key: dict[str, list[PodGroup]] = {}
        for g in groups:
            by_key.setdefault(f"{g.namespace}/{g.workload}", []).append(g)
        workloads = [
            Workload(namespace=gs[0].namespace, name=gs[0].workload, key=k,
                     api_version=gs[0].api_version, group_names=tuple(g.name for g in gs))
            for k, gs in by_key.items()
        ]
    return Snapshot(
        nodes={n.name: n for n in sorted(nodes, key=lambda n: n.name)},
        pods={p.key: p for p in sorted(pods, key=lambda p: p.key)},
        priority_classes={c.name: c for c in sorted(classes, key=lambda c: c.name)},
        pdbs=tuple(sorted(pdbs, key=lambda b: b.key)),
        workloads={w.key: w for w in sorted(workloads, key=lambda w: w.key)},
        pod_groups={g.key: g for g in sorted(groups, key=lambda g: g.key)},
    )
