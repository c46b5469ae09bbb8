"""The plan algorithm (SPEC.md §3): where a preemptor goes, and whom it preempts.

One scheme serves pod and gang preemptors and pod and PodGroup victim units:

1. fits now -> Schedulable;
2. fits once terminating pods are gone (already-triggered preemptions are free space) ->
   WaitingForTermination, no new victims;
3. preemptionPolicy Never -> Unschedulable;
4. victim units: bound, running pods of lower *preemption* priority than the preemptor's
   *scheduling* priority; a ``PodGroup``-mode group is one unit (all its pods, every node);
5. binary search over the distinct unit priorities for the lowest X such that the preemptor
   fits with every unit of priority <= X removed (a single pod does this per node and then
   picks the node as kube-scheduler's ``pickOneNodeForPreemption`` does; a pod group uses the
   whole cluster as one domain);
6. reprieve as upstream ``SelectVictimsOnNode``: PDB-violating units first, then the others,
   each from most to least important; a unit goes back if the preemptor still fits.

Everything runs on incremental state (``fit.ClusterState``): removing or restoring a unit touches
only the nodes it has pods on, and a gang of identical pods is checked by a per-node count of
how many copies fit, kept up to date for the touched nodes only. A caller planning many times
on a slowly changing cluster (``simulate``) passes a ``fit.Accounting`` instead of having the
state rebuilt from every pod; the search then undoes its own changes (units removed, terminating
pods released, reservations added) before returning, also on an exception.

Decisions where SPEC.md is silent (upstream kube-scheduler followed where it decides):

- "The preemptor fits" means greedy placement (each pod: its nominated node if it still fits,
  else the first node by name) places ``needed`` pods. Exact for identical pods; for a gang of
  several shapes it is the scheduler's greedy, not a bin-packing optimum. Reprieve re-places
  (upstream's PodGroup evaluator instead re-checks the assignments found before reprieve).
- The level search probes levels 0, 1, 3, 7, ... then bisects: the same lowest level as any
  binary search when feasibility is monotone (always, except pathological multi-shape greedy).
- PDB marking follows upstream ``FilterVictimsWithPDBViolation``: each victim pod (units in
  importance order, a unit's pods by key) spends every matching PDB (PDB key order, pods in
  ``disruptedPods`` skipped) and stops at the first budget taken below zero; a pod without
  labels matches none. ``pdb_violation`` is that pod's own flag; a unit violates if any pod
  does; the node choice counts violating victim *pods* (upstream ``NumPDBViolations``).
- Node choice sums ``priority + 2^31`` per victim pod, as upstream; a pod without a start time
  counts as started last (upstream uses "now").
- Victim units exclude the preemptor's own pod group; pods bound to nodes missing from the
  snapshot hold nothing and are never victims.
- All terminating pods are free space regardless of their priority; ``terminating`` lists those
  on nodes the placement uses.
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from wapctl.fit import (
    Accounting,
    ClusterState,
    NodeState,
    RequestItems,
    StaticFitCache,
    label_selector_matches,
    request_items,
    shape_key,
)
from wapctl.gcpause import gc_paused
from wapctl.model import NEVER, PREEMPT_LOWER, Pod, PodDisruptionBudget, PodGroup, Snapshot
from wapctl.models import BehaviourModel, importance_kep, select_model
from wapctl.preemptor import Preemptor
from wapctl.scoring import ShapeScorer

PlanStatus = Literal["Schedulable", "WaitingForTermination", "RequiresPreemption", "Unschedulable"]
SCHEDULABLE: PlanStatus = "Schedulable"
WAITING: PlanStatus = "WaitingForTermination"
REQUIRES_PREEMPTION: PlanStatus = "RequiresPreemption"
UNSCHEDULABLE: PlanStatus = "Unschedulable"

UnitKind = Literal["Pod", "PodGroup"]

# Upstream sums victim priorities as int64 after adding MaxInt32+1 to each, so that negative
# priorities cannot make a node with more victims look cheaper.
_PRIORITY_OFFSET = 2**31
_INF = float("inf")


@dataclass(frozen=True, slots=True)
class Placement:
    pod: str  # "ns/name"
    node: str


@dataclass(frozen=True, slots=True)
class Victim:
    pod: str  # "ns/name"
    node: str
    priority: int  # the pod's preemption priority (its unit's)
    unit_kind: UnitKind
    unit_name: str  # "ns/name" for a pod unit, "ns/workload/group" for a PodGroup unit
    pdb_violation: bool  # this pod took a PodDisruptionBudget below zero (upstream marking)


@dataclass(frozen=True, slots=True)
class TerminatingPod:
    pod: str
    node: str


@dataclass(frozen=True, slots=True)
class Tie:
    """A choice upstream makes at random; the plan took ``chosen`` deterministically."""

    decision: str
    chosen: tuple[str, ...]
    alternatives: tuple[str, ...]  # the equal options not taken (possibly truncated)
    count: int = 0  # how many options were equal in all (0: chosen + alternatives)


@dataclass(frozen=True, slots=True)
class Plan:
    """The outcome for one preemptor. Lists are sorted by pod key."""

    preemptor: Preemptor
    status: PlanStatus
    reason: str
    placements: tuple[Placement, ...] = ()
    victims: tuple[Victim, ...] = ()
    terminating: tuple[TerminatingPod, ...] = ()  # on nodes the placement uses
    unplaced: tuple[str, ...] = ()  # preemptor pods left pending (gang remainder, or all)
    # the behaviour model the plan followed (not part of equality: plans compare by outcome)
    model: BehaviourModel | None = field(default=None, compare=False)
    ties: tuple[Tie, ...] = ()  # decisions upstream takes at random
    notes: tuple[str, ...] = ()  # remarks on how the preemptor was read

    @property
    def victim_pods(self) -> int:
        return len(self.victims)

    @property
    def victim_units(self) -> int:
        return len({(v.unit_kind, v.unit_name) for v in self.victims})

    @property
    def max_victim_priority(self) -> int | None:
        return max((v.priority for v in self.victims), default=None)

    @property
    def pdb_violations(self) -> int:
        return sum(1 for v in self.victims if v.pdb_violation)

    @property
    def nodes_touched(self) -> int:
        """Distinct nodes hosting victims."""
        return len({v.node for v in self.victims})


# ---- victim units -----------------------------------------------------------------------------


class _Unit:
    """A preemption unit: one pod, or every eligible pod of a ``PodGroup``-mode group."""

    __slots__ = ("_importance", "_on_node", "kind", "members", "name", "nodes", "priority",
                 "tier")

    def __init__(self, kind: UnitKind, name: str, priority: int,
                 members: Sequence[tuple[Pod, int]], tier: int, nodes: tuple[int, ...]) -> None:
        self.kind = kind
        self.name = name
        self.priority = priority
        self.members = members  # (pod, node index), sorted by pod key
        self.tier = tier  # 0 whole group, 1 pod of a workload, 2 standalone pod
        self.nodes = nodes  # distinct node indices, sorted
        self._importance: tuple[Callable[..., tuple], tuple] | None = None
        self._on_node: dict[int, tuple[dict[str, int], int]] | None = None

    @property
    def importance(self) -> tuple:
        """The KEP-5710 sort key, most important first (``models.importance_kep``)."""
        return self.importance_by(importance_kep)

    def importance_by(self, fn: Callable[..., tuple]) -> tuple:
        """Sort key of this unit under a model's importance function (most important first);
        the last element is the name, our stand-in for upstream's random order / UID."""
        cached = self._importance
        if cached is not None and cached[0] is fn:
            return cached[1]
        start = min((p.start_time for p, _ in self.members if p.start_time is not None),
                    default=_INF)
        key = fn(self.priority, self.kind == "PodGroup", self.tier < 2,
                 len(self.members), start, self.name)
        self._importance = (fn, key)
        return key

    def on_node(self, i: int) -> tuple[Mapping[str, int], int]:
        """The unit's summed requests and pod count on node ``i``."""
        if len(self.members) == 1:
            return self.members[0][0].requests, 1
        if self._on_node is None:
            agg: dict[int, tuple[dict[str, int], int]] = {}
            for pod, j in self.members:
                req, n = agg.get(j, ({}, 0))
                for r, q in pod.requests.items():
                    req[r] = req.get(r, 0) + q
                agg[j] = (req, n + 1)
            self._on_node = agg
        return self._on_node[i]


def _victim_units(snapshot: Snapshot, state: ClusterState, preemptor: Preemptor,
                  separate: bool = True, whole_groups: bool = True) -> list[_Unit]:
    """Step 4: every unit the preemptor may preempt. ``separate``: victims ranked by their
    preemption priority (KEP), else by their scheduling priority; ``whole_groups``:
    ``PodGroup``-mode groups are one unit, else each pod is its own."""
    own = preemptor.group_key
    limit = preemptor.priority
    groups = snapshot.pod_groups
    units: list[_Unit] = []
    whole: dict[str, list[tuple[Pod, int]]] = {}
    for pod, i in state.bound:  # bound, running, on a known node; sorted by key
        gk = pod.group_key
        if gk is not None:
            if gk == own:
                continue
            group = groups.get(gk)
            if whole_groups and group is not None and group.disruption_mode == "PodGroup":
                gp = group.preemption_priority if separate else group.priority
                if gp < limit:
                    whole.setdefault(gk, []).append((pod, i))
                continue
            pp = pod.preemption_priority if separate else pod.priority
            if pp < limit:
                units.append(_Unit("Pod", pod.key, pp, ((pod, i),), 1, (i,)))
        else:
            pp = pod.preemption_priority if separate else pod.priority
            if pp < limit:
                units.append(_Unit("Pod", pod.key, pp, ((pod, i),), 2, (i,)))
    for gk, members in whole.items():
        nodes = tuple(sorted({i for _, i in members}))
        g = groups[gk]
        units.append(_Unit("PodGroup", gk, g.preemption_priority if separate else g.priority,
                           members, 0, nodes))
    return units  # standalone units by pod key, then PodGroup units by group key


def _by_priority(units: list[_Unit]) -> list[_Unit]:
    """Units in (priority, name) order: the order of the level search (names are unique)."""
    units.sort(key=lambda u: (u.priority, u.name))
    return units


def _insert(keys: list[tuple[int, str]], units: list[_Unit], unit: _Unit) -> None:
    key = (unit.priority, unit.name)
    j = bisect_left(keys, key)
    keys.insert(j, key)
    units.insert(j, unit)


def _delete(keys: list[tuple[int, str]], units: list[_Unit], unit: _Unit) -> None:
    j = bisect_left(keys, (unit.priority, unit.name))
    del keys[j]
    del units[j]


class _UnitIndex:
    """Every victim-unit candidate of a kept ``fit.Accounting``, for the plans of any preemptor.

    What ``_victim_units`` derives from all running pods for one preemptor, kept for all of
    them: a unit per running pod outside ``PodGroup``-mode groups and a unit per such group
    (all its running pods), in (priority, name) order overall and per node. A preemptor's
    units are the prefix below its priority minus its own group's. The accounting tells it
    every running pod that leaves or joins; only the units of that pod change.
    """

    def __init__(self, accounting: Accounting, pod_groups: Mapping[str, PodGroup],
                 separate: bool = True, whole_groups: bool = True) -> None:
        self.pod_groups = pod_groups
        self.separate = separate
        self.whole_groups = whole_groups
        self.keys: list[tuple[int, str]] = []
        self.units: list[_Unit] = []
        self.node_keys: dict[int, list[tuple[int, str]]] = {}
        self.node_units: dict[int, list[_Unit]] = {}
        self.pod_units: dict[str, _Unit] = {}  # pod key -> its Pod unit
        self.members: dict[str, dict[str, tuple[Pod, int]]] = {}  # whole group -> running pods
        self.whole: dict[str, _Unit] = {}  # whole group -> its current PodGroup unit
        self.grouped: dict[str, int] = {}  # group key -> Pod units of its pods
        units: list[_Unit] = []
        for pod, i in accounting.bound_pods():
            gk = self._whole_group(pod)
            if gk is None:
                units.append(self._pod_unit(pod, i))
            else:
                self.members.setdefault(gk, {})[pod.key] = (pod, i)
        units.extend(self._group_unit(gk) for gk in self.members)
        self.units = _by_priority(units)
        self.keys = [(u.priority, u.name) for u in self.units]
        for u in self.units:
            for i in u.nodes:
                self.node_units.setdefault(i, []).append(u)
        self.node_keys = {i: [(u.priority, u.name) for u in local]
                          for i, local in self.node_units.items()}
        accounting.listen(self.changed)

    @classmethod
    def of(cls, accounting: Accounting, pod_groups: Mapping[str, PodGroup],
           separate: bool = True, whole_groups: bool = True) -> _UnitIndex:
        """The accounting's index (built at its first plan), for these pod groups and this way
        of forming units (one index per way)."""
        memo_key = (cls, separate, whole_groups)
        index = accounting.memo.get(memo_key)
        if isinstance(index, cls):
            if index.pod_groups is pod_groups or index.pod_groups == pod_groups:
                return index
            accounting.unlisten(index.changed)
        index = accounting.memo[memo_key] = cls(accounting, pod_groups, separate, whole_groups)
        return index

    def _whole_group(self, pod: Pod) -> str | None:
        gk = pod.group_key
        if gk is not None and self.whole_groups:
            group = self.pod_groups.get(gk)
            if group is not None and group.disruption_mode == "PodGroup":
                return gk
        return None

    def _pod_unit(self, pod: Pod, i: int) -> _Unit:
        unit = _Unit("Pod", pod.key, pod.preemption_priority if self.separate else pod.priority,
                     ((pod, i),), 2 if pod.group_key is None else 1, (i,))
        self.pod_units[pod.key] = unit
        if pod.group_key is not None:
            self.grouped[pod.group_key] = self.grouped.get(pod.group_key, 0) + 1
        return unit

    def _group_unit(self, gk: str) -> _Unit:
        running = self.members[gk]
        members = [running[k] for k in sorted(running)]
        group = self.pod_groups[gk]
        unit = _Unit("PodGroup", gk,
                     group.preemption_priority if self.separate else group.priority, members, 0,
                     tuple(sorted({i for _, i in members})))
        self.whole[gk] = unit
        return unit

    def _place(self, unit: _Unit) -> None:
        _insert(self.keys, self.units, unit)
        for i in unit.nodes:
            _insert(self.node_keys.setdefault(i, []), self.node_units.setdefault(i, []), unit)

    def _unplace(self, unit: _Unit) -> None:
        _delete(self.keys, self.units, unit)
        for i in unit.nodes:
            _delete(self.node_keys[i], self.node_units[i], unit)

    def changed(self, left: tuple[Pod, int] | None, joined: tuple[Pod, int] | None) -> None:
        for entry, joins in ((left, False), (joined, True)):
            if entry is None:
                continue
            pod, i = entry
            gk = self._whole_group(pod)
            if gk is None:
                if joins:
                    self._place(self._pod_unit(pod, i))
                else:
                    self._unplace(self.pod_units.pop(pod.key))
                    if pod.group_key is not None:
                        self.grouped[pod.group_key] -= 1
                continue
            old = self.whole.pop(gk, None)
            if old is not None:
                self._unplace(old)
            running = self.members.setdefault(gk, {})
            if joins:
                running[pod.key] = entry
            else:
                del running[pod.key]
            if running:
                self._place(self._group_unit(gk))
            else:
                del self.members[gk]

    def _mine(self, own: str | None) -> str | None:
        """The preemptor's own group if it has units here (they are never its victims)."""
        if own is not None and (self.grouped.get(own, 0) > 0 or own in self.whole):
            return own
        return None

    @staticmethod
    def _owned(unit: _Unit, own: str) -> bool:
        if unit.kind == "PodGroup":
            return unit.name == own
        return unit.members[0][0].group_key == own

    def below(self, limit: int, own: str | None) -> list[_Unit]:
        """The preemptor's victim units (those of ``_victim_units``), in (priority, name)
        order."""
        units = self.units[: bisect_left(self.keys, (limit, ""))]
        mine = self._mine(own)
        if mine is not None:
            units = [u for u in units if not self._owned(u, mine)]
        return units

    def per_node(self, limit: int, own: str | None) -> dict[int, list[_Unit]]:
        """``below`` per node it has pods on, each in (priority, name) order."""
        mine = self._mine(own)
        out: dict[int, list[_Unit]] = {}
        node_units = self.node_units
        for i, keys in self.node_keys.items():
            j = bisect_left(keys, (limit, ""))
            if j:
                local = node_units[i][:j]
                if mine is not None:
                    local = [u for u in local if not self._owned(u, mine)]
                    if not local:
                        continue
                out[i] = local
        return out


# ---- PodDisruptionBudgets ---------------------------------------------------------------------


class _Budgets:
    """Upstream ``filterPodsWithPDBViolation`` over units: budgets are spent in importance order;
    a pod that takes any budget below zero violates it, and so does its whole unit."""

    def __init__(self, pdbs: Sequence[PodDisruptionBudget]) -> None:
        self.pdbs = list(pdbs)  # sorted by key
        self.by_namespace: dict[str, list[int]] = {}
        # A PDB with matchLabels can only select pods carrying its first (key, value) pair:
        # index it there, so a pod only tries the PDBs its own labels point at.
        self.by_label: dict[tuple[str, str, str], list[int]] = {}
        self.unindexed: dict[str, list[int]] = {}
        for j, pdb in enumerate(self.pdbs):
            self.by_namespace.setdefault(pdb.namespace, []).append(j)
            selector = pdb.selector
            if selector is None or selector.empty:
                continue  # selects nothing
            if selector.match_labels:
                key, value = min(selector.match_labels.items())
                self.by_label.setdefault((pdb.namespace, key, value), []).append(j)
            else:
                self.unindexed.setdefault(pdb.namespace, []).append(j)
        self.source = pdbs
        # pod key -> (the labels answered for, matching PDB indices)
        self._matching: dict[str, tuple[Mapping[str, str], tuple[int, ...]]] = {}

    @classmethod
    def of(cls, pdbs: Sequence[PodDisruptionBudget],
           memo: dict[object, object] | None) -> _Budgets:
        """Budgets for these PDBs; with a memo (a kept accounting's) the per-pod matching is
        kept across plans as long as the PDBs are the same objects."""
        if memo is None:
            return cls(pdbs)
        kept = memo.get(cls)
        if not isinstance(kept, cls) or kept.source is not pdbs:
            kept = memo[cls] = cls(pdbs)
        return kept

    def matching(self, pod: Pod) -> tuple[int, ...]:
        """Indices (in PDB key order) of the PDBs selecting this pod."""
        cached = self._matching.get(pod.key)
        found = cached[1] if cached is not None and cached[0] is pod.labels else None
        if found is None:
            if not pod.labels:  # upstream: a pod without labels matches no PDB
                found = ()
            else:
                ns, by_label = pod.namespace, self.by_label
                candidates = list(self.unindexed.get(ns, ()))
                for key, value in pod.labels.items():
                    hit = by_label.get((ns, key, value))
                    if hit:
                        candidates.extend(hit)
                found = tuple(sorted(j for j in candidates
                                     if label_selector_matches(self.pdbs[j].selector,
                                                               pod.labels)))
            self._matching[pod.key] = (pod.labels, found)
        return found

    def violating_pods(self, units_in_order: Iterable[_Unit]) -> set[str]:
        violating: set[str] = set()
        if not self.pdbs:
            return violating
        allowed = [pdb.disruptions_allowed for pdb in self.pdbs]
        by_namespace = self.by_namespace
        for unit in units_in_order:
            for pod, _ in unit.members:
                if pod.namespace not in by_namespace:
                    continue
                for j in self.matching(pod):
                    if pod.name in self.pdbs[j].disrupted_pods:
                        continue  # already counted by the API server
                    allowed[j] -= 1
                    if allowed[j] < 0:
                        violating.add(pod.key)
                        break
        return violating


# ---- feasibility checks -----------------------------------------------------------------------


class _Feasibility(Protocol):
    """What the victim search asks of a domain: remove or restore a unit, and "does the
    preemptor fit now?" (``try_add`` restores a unit and keeps it only if it still fits)."""

    def remove(self, unit: _Unit) -> None: ...
    def add(self, unit: _Unit) -> None: ...
    def feasible(self) -> bool: ...
    def try_add(self, unit: _Unit) -> bool: ...


class _Placer:
    """Greedy placement of the preemptor's pods: each pod tries its nominated node first (if it
    still fits there), then the nodes in name order; pods that fit nowhere are skipped.

    Static predicates are evaluated once per (shape, node). Per shape, a cursor remembers the
    first node that may still have room: nodes before it had none and only fill up further during
    one placement run, so a run costs O(nodes + pods) rather than O(nodes x pods).
    """

    def __init__(self, state: ClusterState, pods: Sequence[Pod], cache: StaticFitCache) -> None:
        self.state = state
        self.pods = list(pods)
        shapes: dict[tuple, int] = {}
        self.shape_of: list[int] = []
        self.items: list[RequestItems] = []
        self.allowed: list[tuple[int, ...]] = []  # per shape: nodes passing static predicates
        self.allowed_set: list[frozenset[int]] = []
        self.nominated: list[int | None] = []
        nodes = state.nodes
        for pod in self.pods:
            key = shape_key(pod)
            s = shapes.get(key)
            if s is None:
                s = shapes[key] = len(self.items)
                ok, ok_set = cache.passing(pod, nodes, key[0])
                self.items.append(key[1])
                self.allowed.append(ok)
                self.allowed_set.append(ok_set)
            self.shape_of.append(s)
            nom = state.index.get(pod.nominated_node) if pod.nominated_node else None
            self.nominated.append(nom if nom is not None and nom in self.allowed_set[s] else None)
        # Nodes some preemptor pod may use: units elsewhere never change a placement.
        self.usable: frozenset[int] = frozenset().union(*self.allowed_set)

    @property
    def shapes(self) -> int:
        return len(self.items)

    def place(self, limit: int) -> list[tuple[Pod, int]]:
        """Place pods in order until ``limit`` are placed; the state is left unchanged."""
        return self.run(limit).placed

    def run(self, limit: int, resume: _Run | None = None, start: int = 0) -> _Run:
        """One greedy placement run, recorded so that a later run can resume from pod
        ``start`` of this one (``resume``) when nothing before that pod can change.

        The fit test and the bookkeeping are inlined (NodeState.fits / add_requests on the
        request items): this loop is what every greedy check of a multi-shape gang runs.
        """
        nodes = self.state.nodes
        added: list[tuple[NodeState, RequestItems]] = []
        if resume is None:
            start = 0
            cursor = [0] * len(self.items)
            placed: list[tuple[Pod, int]] = []
            index: list[int] = []
            cursors: list[tuple[int, ...]] = []
        else:  # replay the unchanged prefix, then decide from pod ``start`` on
            keep = bisect_left(resume.index, start)
            placed, index = resume.placed[:keep], resume.index[:keep]
            cursors = resume.cursors[:start]
            cursor = list(resume.cursors[start])
            for (_, i), k in zip(placed, index, strict=True):
                node, items = nodes[i], self.items[self.shape_of[k]]
                req = node.requested
                for r, q in items:
                    req[r] = req.get(r, 0) + q
                node.pod_count += 1
                added.append((node, items))

        def fits(node: NodeState, items: RequestItems) -> bool:
            if node.pod_count >= node.max_pods:
                return False
            req, alloc = node.requested, node.allocatable
            for r, q in items:
                if req.get(r, 0) + q > alloc.get(r, 0):
                    return False
            return True

        try:
            for k in range(start, len(self.pods)):
                if len(placed) >= limit:
                    break
                cursors.append(tuple(cursor))
                s = self.shape_of[k]
                items = self.items[s]
                target = self.nominated[k]
                if target is not None and not fits(nodes[target], items):
                    target = None
                if target is None:
                    ok = self.allowed[s]
                    c = cursor[s]
                    end = len(ok)
                    while c < end and not fits(nodes[ok[c]], items):
                        c += 1
                    cursor[s] = c
                    if c < end:
                        target = ok[c]
                if target is not None:
                    node = nodes[target]
                    req = node.requested
                    for r, q in items:
                        req[r] = req.get(r, 0) + q
                    node.pod_count += 1
                    added.append((node, items))
                    placed.append((self.pods[k], target))
                    index.append(k)
        finally:
            for node, items in added:
                req = node.requested
                for r, q in items:
                    req[r] -= q
                node.pod_count -= 1
        return _Run(placed, index, cursors)


class _Run:
    """A recorded greedy run: placements in pod order, the pod index of each, and the per-shape
    cursors as they were before each processed pod was decided."""

    __slots__ = ("cursors", "index", "on_node", "placed")

    def __init__(self, placed: list[tuple[Pod, int]], index: list[int],
                 cursors: list[tuple[int, ...]]) -> None:
        self.placed = placed
        self.index = index
        self.cursors = cursors
        self.on_node: dict[int, list[int]] = {}  # node -> pod indices placed there, in order
        for (_, i), k in zip(placed, index, strict=True):
            self.on_node.setdefault(i, []).append(k)


class _ClusterCheck:
    """Shared part of the whole-cluster checks: apply a unit to the cluster state, skipping
    units with no pod on a usable node (they cannot change any placement, and the placement
    never reads the nodes they are on)."""

    def __init__(self, state: ClusterState, placer: _Placer, needed: int) -> None:
        self.state = state
        self.placer = placer
        self.needed = needed
        self.usable = placer.usable
        # units removed from the state now, kept only when the state must be given back
        self.out: dict[_Unit, None] | None = {} if state.accounting is not None else None

    def relevant(self, unit: _Unit) -> bool:
        usable = self.usable
        for i in unit.nodes:
            if i in usable:
                return True
        return False

    def restore(self) -> None:
        """Put every unit still removed back into the state (a lent ``Accounting`` must be
        given back as it was)."""
        for unit in list(self.out or ()):
            self._apply(unit, False)

    def _apply(self, unit: _Unit, remove: bool) -> None:
        out = self.out
        if out is not None:
            if remove:
                out[unit] = None
            else:
                del out[unit]
        nodes, usable, sign = self.state.nodes, self.usable, -1 if remove else 1
        tracked = self.state.tracked
        for pod, i in unit.members:
            if i in usable:
                state = nodes[i]
                if tracked is None:
                    if remove:
                        state.remove(pod)
                    else:
                        state.add(pod)
                    continue
                requests, req = pod.requests, state.requested
                for r in tracked:
                    amount = requests.get(r)
                    if amount:
                        req[r] += sign * amount
                state.pod_count += sign


class _CountCheck(_ClusterCheck):
    """Gang of identical pods: it fits iff the per-node copy counts sum to ``needed``.

    Exact for one shape (nodes are independent), and kept up to date incrementally: a unit
    change recounts only the nodes that unit touches.
    """

    def __init__(self, state: ClusterState, placer: _Placer, needed: int) -> None:
        super().__init__(state, placer, needed)
        self.items = placer.items[0]
        self.copies: dict[int, int] = {}
        self.total = 0
        for i in placer.allowed[0]:
            c = state.nodes[i].copies(self.items, needed)
            self.copies[i] = c
            self.total += c

    def _change(self, unit: _Unit, remove: bool) -> None:
        if not self.relevant(unit):
            return
        self._apply(unit, remove)
        nodes, copies, items, needed = self.state.nodes, self.copies, self.items, self.needed
        for i in unit.nodes:
            old = copies.get(i)
            if old is not None:
                c = nodes[i].copies(items, needed)
                if c != old:
                    self.total += c - old
                    copies[i] = c

    def remove(self, unit: _Unit) -> None:
        self._change(unit, True)

    def add(self, unit: _Unit) -> None:
        self._change(unit, False)

    def feasible(self) -> bool:
        return self.total >= self.needed

    def try_add(self, unit: _Unit) -> bool:
        self._change(unit, False)
        if self.total >= self.needed:
            return True
        self._change(unit, True)
        return False


class _GreedyCheck(_ClusterCheck):
    """Pods of several shapes: it fits iff greedy placement places ``needed`` pods.

    A restored unit only makes its nodes fuller. If every pod the last placement put on those
    nodes still fits there, greedy placement would make exactly the same choices (nodes it
    skipped are no emptier, nodes it used still take their pods), so the answer stands without
    a new run. Otherwise the pods placed before the first one on those nodes still choose as
    before, with the same cursors, so the new run resumes from that pod.
    """

    def __init__(self, state: ClusterState, placer: _Placer, needed: int) -> None:
        super().__init__(state, placer, needed)
        self.known = False
        self.ok = False
        self.last: _Run | None = None  # the run behind ``ok`` when known

    def remove(self, unit: _Unit) -> None:
        if self.relevant(unit):
            self._apply(unit, True)
            self.known = False

    def add(self, unit: _Unit) -> None:
        if self.relevant(unit):
            self._apply(unit, False)
            self.known = False

    def _decide(self, run: _Run) -> bool:
        self.last = run
        self.ok = len(run.placed) >= self.needed
        self.known = True
        return self.ok

    def feasible(self) -> bool:
        if not self.known:
            return self._decide(self.placer.run(self.needed))
        return self.ok

    def _first_invalid(self, unit: _Unit, run: _Run) -> int | None:
        """The first pod of ``run`` on a node of ``unit`` that no longer fits there, as
        the pod index of the first pod ``run`` placed on that node; None if all still fit."""
        nodes, placer = self.state.nodes, self.placer
        first: int | None = None
        for i in unit.nodes:
            on_node = run.on_node.get(i)
            if not on_node or (first is not None and on_node[0] >= first):
                continue
            node = nodes[i]
            req, alloc = node.requested, node.allocatable
            extra: dict[str, int] = {}
            count = node.pod_count
            for k in on_node:  # as greedy added them: each on top of the ones before
                count += 1
                bad = count > node.max_pods
                for r, q in placer.items[placer.shape_of[k]]:
                    extra[r] = extra.get(r, 0) + q
                    if req.get(r, 0) + extra[r] > alloc.get(r, 0):
                        bad = True
                if bad:
                    first = on_node[0]
                    break
        return first

    def try_add(self, unit: _Unit) -> bool:
        if not self.relevant(unit):
            return self.feasible()
        before = (self.known, self.ok, self.last)
        self._apply(unit, False)
        run = self.last
        if before[0] and before[1] and run is not None:
            start = self._first_invalid(unit, run)
            if start is None:
                return True  # the same placement still works
            if self._decide(self.placer.run(self.needed, run, start)):
                return True
        elif self.feasible():
            return True
        self._apply(unit, True)
        self.known, self.ok, self.last = before
        return False


class _ScoredPlacer(_Placer):
    """The scheduler's own placement: each pod (in order) goes to its nominated node if it
    still fits there (upstream evaluates the nominated node first), else to the feasible node
    of the highest default score (``wapctl.scoring``); equal top scores are a random pick
    upstream, here the first node by name, recorded in ``ties``. Every pod that fits is placed,
    up to ``limit``.

    Per shape, the feasible nodes sit in buckets by score; placing a pod re-scores only the
    node it went to, so a run costs O(nodes x shapes + pods x (shapes + equal nodes)).
    """

    def __init__(self, state: ClusterState, pods: Sequence[Pod], cache: StaticFitCache) -> None:
        super().__init__(state, pods, cache)
        first: dict[int, Pod] = {}
        for k, s in enumerate(self.shape_of):
            first.setdefault(s, self.pods[k])
        self.scorers = [ShapeScorer(first[s], self.items[s], state.nodes, self.allowed[s])
                        for s in range(len(self.items))]
        self.ties: list[Tie] = []  # of the last run
        self.rng: random.Random | None = None  # set: equal top scores picked at random

    def run(self, limit: int, resume: _Run | None = None, start: int = 0) -> _Run:
        nodes, items_of, scorers = self.state.nodes, self.items, self.scorers
        shapes = len(items_of)
        buckets: list[dict[int, set[int]]] = [{} for _ in range(shapes)]
        where: list[dict[int, int]] = [{} for _ in range(shapes)]

        def refresh(s: int, i: int) -> None:
            old = where[s].pop(i, None)
            if old is not None:
                bucket = buckets[s][old]
                bucket.discard(i)
                if not bucket:
                    del buckets[s][old]
            node = nodes[i]
            if node.fits(items_of[s]):
                score = scorers[s].score(node, i)
                where[s][i] = score
                buckets[s].setdefault(score, set()).add(i)

        for s in range(shapes):
            for i in self.allowed[s]:
                refresh(s, i)
        added: list[tuple[NodeState, RequestItems]] = []
        placed: list[tuple[Pod, int]] = []
        index: list[int] = []
        ties: list[Tie] = []
        try:
            for k, pod in enumerate(self.pods):
                if len(placed) >= limit:
                    break
                s = self.shape_of[k]
                items = items_of[s]
                target = self.nominated[k]
                if target is not None and not nodes[target].fits(items):
                    target = None
                if target is None:
                    if not buckets[s]:
                        continue
                    bucket = buckets[s][max(buckets[s])]
                    if self.rng is not None and len(bucket) > 1:
                        target = self.rng.choice(tuple(bucket))
                    else:
                        target = min(bucket)
                    if len(bucket) > 1:
                        others = sorted(bucket)[:6]
                        ties.append(Tie(f"node for pod {pod.key}", (nodes[target].name,),
                                        tuple(nodes[i].name for i in others if i != target)[:5],
                                        len(bucket)))
                node = nodes[target]
                req = node.requested
                for r, q in items:
                    req[r] = req.get(r, 0) + q
                node.pod_count += 1
                added.append((node, items))
                placed.append((pod, target))
                index.append(k)
                for s2 in range(shapes):
                    if target in self.allowed_set[s2]:
                        refresh(s2, target)
        finally:
            for node, items in added:
                req = node.requested
                for r, q in items:
                    req[r] -= q
                node.pod_count -= 1
        self.ties = ties
        return _Run(placed, index, [])


class _FixedCheck(_ClusterCheck):
    """Upstream's reprieve against a fixed placement (``selectVictimsOnDomain``
    ``reprieveVictim``): the preemptor's pods stay where the scheduling run with every victim
    gone put them; a unit goes back only if every pod assigned to the nodes it touches still
    passes the filters there. This is the one place a reprieve asks "does this pod fit this
    node given the pods now present" (see the module docstring's filter hook)."""

    def __init__(self, state: ClusterState, placer: _Placer, needed: int) -> None:
        super().__init__(state, placer, needed)
        self.assigned: dict[int, tuple[dict[str, int], int]] = {}

    def fix(self, placed: Sequence[tuple[Pod, int]]) -> None:
        assigned: dict[int, tuple[dict[str, int], int]] = {}
        for pod, i in placed:
            req, n = assigned.get(i, ({}, 0))
            for r, q in request_items(pod.requests):
                req[r] = req.get(r, 0) + q
            assigned[i] = (req, n + 1)
        self.assigned = assigned

    def remove(self, unit: _Unit) -> None:
        if self.relevant(unit):
            self._apply(unit, True)

    def add(self, unit: _Unit) -> None:
        if self.relevant(unit):
            self._apply(unit, False)

    def _holds(self, where: Iterable[int]) -> bool:
        nodes, assigned = self.state.nodes, self.assigned
        for i in where:
            a = assigned.get(i)
            if a is None:
                continue
            req, n = a
            node = nodes[i]
            if node.pod_count + n > node.max_pods:
                return False
            used, alloc = node.requested, node.allocatable
            for r, q in req.items():
                if used.get(r, 0) + q > alloc.get(r, 0):
                    return False
        return True

    def feasible(self) -> bool:
        return self._holds(self.assigned)

    def try_add(self, unit: _Unit) -> bool:
        if not self.relevant(unit):
            return True
        self._apply(unit, False)
        if self._holds(unit.nodes):
            return True
        self._apply(unit, True)
        return False


class _NodeCheck:
    """A single pod in a one-node domain: local arithmetic on that node only, so a PodGroup
    unit spanning many nodes costs O(resources) here, not O(its pods)."""

    __slots__ = ("alloc", "count", "i", "items", "room", "used")

    def __init__(self, node: NodeState, i: int, items: RequestItems) -> None:
        self.i = i
        self.items = items
        self.alloc = [node.allocatable.get(r, 0) - q for r, q in items]
        self.used = [node.requested.get(r, 0) for r, _ in items]
        self.room = node.max_pods - 1
        self.count = node.pod_count

    def _shift(self, unit: _Unit, sign: int) -> None:
        requests, n = unit.on_node(self.i)
        used = self.used
        for k, (r, _) in enumerate(self.items):
            used[k] += sign * requests.get(r, 0)
        self.count += sign * n

    def remove(self, unit: _Unit) -> None:
        self._shift(unit, -1)

    def add(self, unit: _Unit) -> None:
        self._shift(unit, 1)

    def feasible(self) -> bool:
        if self.count > self.room:
            return False
        return all(u <= a for u, a in zip(self.used, self.alloc, strict=True))

    def try_add(self, unit: _Unit) -> bool:
        self._shift(unit, 1)
        if self.feasible():
            return True
        self._shift(unit, -1)
        return False


# ---- the victim search (steps 5 and 6) --------------------------------------------------------


class _Level:
    """Step 5 on one domain: the lowest priority level whose removal makes room.

    Levels are visited from the bottom with doubling steps (0, 1, 3, 7, ...), then bisected:
    for a monotone check this is the binary search of SPEC §3 and finds the same lowest level,
    but it only ever removes units up to about that level, not every unit first.
    """

    __slots__ = ("begin", "by_priority", "check", "end", "ends", "level", "removed")

    def __init__(self, units: Sequence[_Unit], check: _Feasibility,
                 presorted: bool = False, search: str = "binary") -> None:
        """``presorted``: ``units`` already are in (priority, name) order. ``search``:
        ``"binary"`` finds the lowest level (KEP-5710); ``"none"`` removes every unit at once
        (upstream: no search over priorities, every lower-priority unit removed)."""
        self.check = check
        self.by_priority = (units if presorted
                            else sorted(units, key=lambda u: (u.priority, u.name)))
        priorities = [u.priority for u in self.by_priority]
        levels = sorted(set(priorities))
        self.ends = [bisect_right(priorities, level) for level in levels]
        self.removed = 0
        self.level: int | None = None  # priority of the level found, None: nothing makes room
        self.begin = self.end = 0  # by_priority[begin:end]: the units of the level found
        if search == "none":
            found = (len(levels) - 1 if levels and self.feasible_at(len(levels) - 1)
                     else None)
        else:
            found = lowest_level(len(levels), self.feasible_at)
        if found is not None:
            self.move(self.ends[found])
            self.level, self.end = levels[found], self.ends[found]
            self.begin = self.ends[found - 1] if found else 0
        else:
            self.move(self.ends[-1])  # leave every unit removed (for the caller's message)

    def move(self, target: int) -> None:
        check, units = self.check, self.by_priority
        while self.removed < target:
            check.remove(units[self.removed])
            self.removed += 1
        while self.removed > target:
            self.removed -= 1
            check.add(units[self.removed])

    def feasible_at(self, k: int) -> bool:
        self.move(self.ends[k])
        return self.check.feasible()

    def reprieve(self, budgets: _Budgets,
                 importance: Callable[..., tuple] = importance_kep,
                 ties: list[Tie] | None = None,
                 rng: random.Random | None = None) -> tuple[list[_Unit], set[str]]:
        """Step 6 from the found level: the victim units (most important first) and the
        PDB-violating pod keys."""
        self.check.feasible()  # refresh a cached answer for the current (found) level
        return reprieve(self.by_priority[: self.end], self.check, budgets, importance, ties, rng)


def reprieve(units: Iterable[_Unit], check: _Feasibility, budgets: _Budgets,
             importance: Callable[..., tuple] = importance_kep,
             ties: list[Tie] | None = None,
             rng: random.Random | None = None) -> tuple[list[_Unit], set[str]]:
    """Upstream's reprieve (``SelectVictimsOnNode``, ``selectVictimsOnDomain``): units sorted
    most important first; PDB budgets spent in that order; the PDB-violating units tried
    first, then the others; a unit goes back if the preemptor still fits. Returns the victim
    units (most important first) and the PDB-violating pod keys. Units of equal importance
    (all but the name) whose fates differ are reported in ``ties``: upstream orders them at
    random. With ``rng`` those equal units are ordered at random instead of by name (one of
    the scheduler's possible outcomes)."""
    if rng is None:
        candidates = sorted(units, key=lambda u: u.importance_by(importance))
    else:
        shuffled = list(units)
        rng.shuffle(shuffled)
        rank = {u: k for k, u in enumerate(shuffled)}
        candidates = sorted(shuffled, key=lambda u: (*u.importance_by(importance)[:-1], rank[u]))
    violating = budgets.violating_pods(candidates)
    if violating:
        marked = [any(p.key in violating for p, _ in u.members) for u in candidates]
        order = ([u for u, m in zip(candidates, marked, strict=True) if m]
                 + [u for u, m in zip(candidates, marked, strict=True) if not m])
    else:
        order = candidates
    victims = [u for u in order if not check.try_add(u)]
    if ties is not None and victims and rng is None:
        _victim_ties(candidates, set(victims), importance, ties)
    order_of = {u: k for k, u in enumerate(candidates)}
    victims.sort(key=order_of.__getitem__)
    return victims, violating


def _victim_ties(candidates: list[_Unit], victims: set[_Unit],
                 importance: Callable[..., tuple], ties: list[Tie]) -> None:
    """Runs of equal importance (name aside) holding both victims and reprieved units."""
    run: list[_Unit] = []
    for u in [*candidates, None]:
        if u is not None and run and (u.importance_by(importance)[:-1]
                                      == run[0].importance_by(importance)[:-1]):
            run.append(u)
            continue
        if len(run) > 1:
            chosen = [x.name for x in run if x in victims]
            spared = [x.name for x in run if x not in victims]
            if chosen and spared:
                ties.append(Tie("victims among units of equal importance",
                                tuple(chosen), tuple(spared)))
        run = [u] if u is not None else []


def lowest_level(count: int, feasible: Callable[[int], bool]) -> int | None:
    """The lowest k in [0, count) with feasible(k), assuming monotonicity; None if even
    count-1 is infeasible. Probes 0, 1, 3, 7, ... then bisects (the order is part of the
    contract: the reference implementation probes the same levels)."""
    if count == 0:
        return None
    lo, k, step = 0, 0, 1
    while not feasible(k):
        if k == count - 1:
            return None
        lo = k + 1
        k = min(count - 1, k + step)
        step *= 2
    hi = k
    while lo < hi:
        mid = (lo + hi) // 2
        if feasible(mid):
            hi = mid
        else:
            lo = mid + 1
    return hi


# ---- plan -------------------------------------------------------------------------------------


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _victim_records(units: Iterable[_Unit], violating: set[str],
                    state: ClusterState) -> tuple[Victim, ...]:
    names = [s.name for s in state.nodes]
    records = [
        Victim(pod=p.key, node=names[i], priority=u.priority, unit_kind=u.kind,
               unit_name=u.name, pdb_violation=p.key in violating)
        for u in units
        for p, i in u.members
    ]
    records.sort(key=lambda v: v.pod)
    return tuple(records)


def _placements(placed: Iterable[tuple[Pod, int]], state: ClusterState) -> tuple[Placement, ...]:
    return tuple(sorted((Placement(p.key, state.nodes[i].name) for p, i in placed),
                        key=lambda pl: pl.pod))


def _terminating(state: ClusterState, used: Iterable[int]) -> tuple[TerminatingPod, ...]:
    used_set = set(used)
    return tuple(TerminatingPod(p.key, state.nodes[i].name)
                 for p, i in state.terminating if i in used_set)


def _unplaced(preemptor: Preemptor, placed: Iterable[tuple[Pod, int]]) -> tuple[str, ...]:
    done = {p.key for p, _ in placed}
    return tuple(p.key for p in preemptor.pods if p.key not in done)


def _filter_summary(state: ClusterState, pod: Pod, cache: StaticFitCache) -> str:
    """kube-scheduler style: how many nodes each static filter rejected."""
    counts: dict[str, int] = {}
    for ns in state.nodes:
        reason = cache.reason(pod, ns.node)
        if reason is not None:
            counts[reason] = counts.get(reason, 0) + 1
    passing = len(state.nodes) - sum(counts.values())
    parts = [f"{n} {r}" for r, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    if passing:
        parts.append(f"{passing} node(s) without enough room")
    if not parts:
        return "the cluster has no nodes"
    return f"0/{len(state.nodes)} nodes are available: " + ", ".join(parts)


def _summary_tail(victims: tuple[Victim, ...]) -> str:
    units = len({(v.unit_kind, v.unit_name) for v in victims})
    top = max(v.priority for v in victims)
    pdb = sum(1 for v in victims if v.pdb_violation)
    text = (f"preempting {_plural(len(victims), 'pod')} in {_plural(units, 'unit')} "
            f"(highest victim priority {top}")
    if pdb:
        text += f", {_plural(pdb, 'PodDisruptionBudget violation')}"
    return text + ")"


def _may_beat_one(units: Sequence[_Unit], start: int, level: int, best: tuple,
                  node: str) -> bool:
    """Whether ``units[start:]`` (in priority order) has a one-pod unit of priority ``level``
    that, as a node's only victim, would score below ``best`` (a one-victim-pod score of that
    level): it started later, or at the same time on a node whose name sorts first (no start
    time counts as started last, as in ``_node_score``)."""
    earliest, best_node = -best[4], best[5]
    for k in range(start, len(units)):
        u = units[k]
        if u.priority != level:
            break
        if len(u.members) == 1:
            t = u.members[0][0].start_time
            t = _INF if t is None else t
            if t > earliest or (t == earliest and node < best_node):
                return True
    return False


@dataclass(frozen=True, slots=True)
class _NodeCandidate:
    """What upstream's ``pickOneNodeForPreemption`` knows of one candidate node."""

    node: str
    victim_pods: tuple[tuple[Pod, int], ...]  # (pod, its unit's priority)
    violating: frozenset[str]

    @property
    def top(self) -> int:
        return max(prio for _, prio in self.victim_pods)


def _pdb_violations(c: _NodeCandidate) -> float:
    return sum(1 for p, _ in c.victim_pods if p.key in c.violating)


def _highest_priority(c: _NodeCandidate) -> float:
    return c.top


def _priority_sum(c: _NodeCandidate) -> float:
    # upstream adds MaxInt32+1 per victim so that negative priorities never favour more victims
    return sum(prio + _PRIORITY_OFFSET for _, prio in c.victim_pods)


def _victim_count(c: _NodeCandidate) -> float:
    return len(c.victim_pods)


def _latest_start(c: _NodeCandidate) -> float:
    top = c.top
    earliest = min((p.start_time if p.start_time is not None else _INF
                    for p, prio in c.victim_pods if prio == top), default=_INF)
    return -earliest  # later start of the highest-priority victims wins


# Upstream ``pickOneNodeForPreemption`` (preemption.go), in order; each a smaller-is-better key.
# The pruning in ``_Planner.plan_pod`` reads positions 0, 1, 3 and 4 of the resulting key.
NODE_CRITERIA: tuple[tuple[str, Callable[[_NodeCandidate], float]], ...] = (
    ("fewest PDB violations", _pdb_violations),
    ("lowest highest victim priority", _highest_priority),
    ("smallest sum of victim priorities", _priority_sum),
    ("fewest victims", _victim_count),
    ("latest start of the highest-priority victims", _latest_start),
)


def _node_score(victims: list[_Unit], violating: set[str], node: str) -> tuple:
    """``NODE_CRITERIA`` as one ascending sort key, then the node name (upstream picks at
    random among nodes equal on every criterion; reported as a tie)."""
    c = _NodeCandidate(node, tuple((p, u.priority) for u in victims for p, _ in u.members),
                       frozenset(violating))
    return (*(criterion(c) for _, criterion in NODE_CRITERIA), node)


class _Planner:
    """One plan run: the preemptor, its view of the cluster and the caches it shares.

    With an ``Accounting`` the view is lent from it (no rebuild) and ``close`` gives it back
    unchanged; without one the view is built from the snapshot and simply dropped.
    """

    def __init__(self, snapshot: Snapshot, preemptor: Preemptor, model: BehaviourModel,
                 accounting: Accounting | None = None,
                 rng: random.Random | None = None) -> None:
        self.snapshot = snapshot
        # upstream's random choices drawn from rng (models without ties ignore it)
        self.rng = rng if model.priority_search == "none" else None
        self.preemptor = preemptor
        self.model = model
        self.desc = preemptor.describe()
        self.ties: list[Tie] = []
        is_pod = preemptor.kind == "Pod"
        # Which units a victim search sees (models.py): whole PodGroup-mode groups for a group
        # preemptor always, for a single pod only where the model says so.
        self.whole_groups = not is_pod or model.pod_preemptor_takes_groups_whole
        self.importance = model.importance(not is_pod)
        # A basic group places as many pods as fit (upstream); the KEP model asks for all.
        self.needed = preemptor.needed
        if not is_pod and preemptor.min_count is None and model.name != "kep-5710":
            self.needed = min(1, len(preemptor.pods))
        self.policy = preemptor.preemption_policy
        if not is_pod and not model.group_policy_own:
            # 1.36 newPodGroupPreemptor: any member pod with Never makes the group Never.
            self.policy = (NEVER if any(p.preemption_policy == NEVER for p in preemptor.pods)
                           else PREEMPT_LOWER)
        exclude = {p.key for p in preemptor.pods}
        if accounting is None:
            tracked = {r for p in preemptor.pods for r, q in p.requests.items() if q > 0}
            if model.scored_placement:
                tracked |= {"cpu", "memory"}
            self.state = ClusterState(snapshot, reserve_priority=preemptor.priority,
                                      exclude=exclude, tracked=tracked)
            self.cache = StaticFitCache()
        else:
            self.state = ClusterState.over(accounting, reserve_priority=preemptor.priority,
                                           exclude=exclude)
            self.cache = accounting.cache
        self.accounting = accounting
        self.checks: list[_ClusterCheck] = []  # whole-cluster checks that change the state
        try:
            placer_cls = _ScoredPlacer if model.scored_placement else _Placer
            self.placer = placer_cls(self.state, preemptor.pods, self.cache)
            if isinstance(self.placer, _ScoredPlacer):
                self.placer.rng = self.rng
        except BaseException:
            self.state.restore()
            raise

    def close(self) -> None:
        """Undo every change the run made to a lent cluster state, and give it back (an owned
        one is simply dropped)."""
        if self.accounting is not None:
            for check in self.checks:
                check.restore()
            self.state.restore()

    def place(self, limit: int) -> list[tuple[Pod, int]]:
        """A placement run; the scheduler's random picks among equal nodes become ties."""
        placed = self.placer.place(limit)
        self.ties.extend(getattr(self.placer, "ties", ()))
        return placed

    def result(self, status: PlanStatus, reason: str,
               placed: Sequence[tuple[Pod, int]] = (), victims: tuple[Victim, ...] = (),
               terminating: tuple[TerminatingPod, ...] = ()) -> Plan:
        return Plan(preemptor=self.preemptor, status=status, reason=reason,
                    placements=_placements(placed, self.state), victims=victims,
                    terminating=terminating, unplaced=_unplaced(self.preemptor, placed),
                    model=self.model, ties=tuple(self.ties))

    def summary(self) -> str:
        return _filter_summary(self.state, self.preemptor.pods[0], self.cache)

    def run(self) -> Plan:
        preemptor, state = self.preemptor, self.state
        pods, needed, desc = preemptor.pods, self.needed, self.desc
        is_pod = preemptor.kind == "Pod"
        if needed > len(pods):
            return self.result(UNSCHEDULABLE,
                               f"{desc} needs {needed} more pod(s) to reach minCount "
                               f"{preemptor.min_count} but only {len(pods)} are pending.")

        # 1. Fits now (terminating pods still hold their resources).
        placed = self.place(len(pods))
        if len(placed) >= needed:
            if is_pod:
                reason = (f"{desc} fits on node {state.nodes[placed[0][1]].name} "
                          f"without preemption.")
            elif needed == 0:
                reason = (f"{desc} already has its minCount of pods running; {len(placed)} of "
                          f"{len(pods)} pending pods also fit without preemption.")
            else:
                reason = (f"{desc}: {len(placed)} of {len(pods)} pending pods fit without "
                          f"preemption ({needed} needed).")
            return self.result(SCHEDULABLE, reason, placed)
        self.ties.clear()  # only the ties of the placement reported count

        if self.model.terminating_free:
            # 2. (KEP) Terminating pods are free space: fits once they are gone -> wait.
            waiting = self.waiting(hold=False)  # and they stay free for the victim search
            if waiting is not None:
                return waiting
        else:
            # 2. (upstream) A preemptor nominated where lower-priority pods still terminate by
            # preemption starts no new preemption (PodEligibleToPreemptOthers).
            blocked = self.blocked_by_termination()
            if blocked is not None:
                return blocked

        # 3. preemptionPolicy Never.
        if self.policy == NEVER:
            waiting = None if self.model.terminating_free else self.waiting()
            if waiting is not None:
                return waiting
            return self.result(UNSCHEDULABLE,
                               f"{desc} does not fit and its preemptionPolicy is Never: it waits "
                               f"for free space and preempts nothing.")

        # 4. Victim units.
        units = self.victim_units()
        if not units:
            found = None
        else:
            budgets = _Budgets.of(self.snapshot.pdbs,
                                  self.accounting.memo if self.accounting is not None else None)
            found = self.plan_pod(units, budgets) if is_pod else self.plan_group(units, budgets)
            if found.status != UNSCHEDULABLE:
                return found
        if not self.model.terminating_free:
            # Terminating pods hold their resources upstream; with no victims that make room,
            # the preemptor is placed once they are gone.
            for check in self.checks:
                check.restore()
            self.checks.clear()
            self.ties.clear()
            waiting = self.waiting()
            if waiting is not None:
                return waiting
        if found is not None:
            return found
        return self.result(UNSCHEDULABLE,
                           f"{desc} does not fit and no running pod has a preemption "
                           f"priority below {preemptor.priority} ({self.summary()}).")

    def waiting(self, hold: bool = True) -> Plan | None:
        """WaitingForTermination if the preemptor fits once the terminating pods are gone;
        else None, the terminating pods holding their resources again if ``hold``."""
        state, pods, desc = self.state, self.preemptor.pods, self.desc
        state.release_terminating()
        placed = self.place(len(pods))
        if len(placed) < self.needed:
            if hold:
                state.hold_terminating()
            self.ties.clear()
            return None
        terminating = _terminating(state, (i for _, i in placed))
        where = (f"on node {state.nodes[placed[0][1]].name}" if self.preemptor.kind == "Pod"
                 else f"({len(placed)} of {len(pods)} pending pods placed)")
        n = len(terminating)
        waits = "1 terminating pod finishes" if n == 1 else f"{n} terminating pods finish"
        reason = (f"{desc} fits {where} once {waits}; the preemption already triggered "
                  f"suffices, no new victims.")
        return self.result(WAITING, reason, placed, terminating=terminating)

    def blocked_by_termination(self) -> Plan | None:
        """Upstream ``PodEligibleToPreemptOthers`` / the pod group's
        ``preemptorEligibleToPreemptOthers``: a preemptor with a pod nominated to a node where a
        pod of lower priority is terminating by preemption is not eligible to preempt; it waits
        for that node. "By preemption" needs the DisruptionTarget condition with reason
        PreemptionByScheduler where the model says so."""
        state, pre = self.state, self.preemptor
        nominated = {state.index[p.nominated_node] for p in pre.pods
                     if p.nominated_node is not None and p.nominated_node in state.index}
        if not nominated:
            return None
        needs = self.model.terminating_needs_condition
        blocking = [(p, i) for p, i in state.terminating
                    if i in nominated and p.priority < pre.priority
                    and (p.preempted_by_scheduler or not needs)]
        if not blocking:
            return None
        nodes = sorted({state.nodes[i].name for _, i in blocking})
        terminating = tuple(TerminatingPod(p.key, state.nodes[i].name) for p, i in blocking)
        reason = (f"{self.desc} is nominated to {', '.join(nodes)} where "
                  f"{_plural(len(blocking), 'lower-priority pod')} still terminate by "
                  f"preemption; the scheduler starts no new preemption and waits for "
                  f"{'them' if len(blocking) > 1 else 'it'}.")
        placed = [(p, state.index[p.nominated_node]) for p in pre.pods
                  if p.nominated_node is not None and p.nominated_node in state.index]
        return self.result(WAITING, reason, placed, terminating=terminating)

    def victim_units(self) -> list[_Unit]:
        """Step 4 in (priority, name) order: from the accounting's index if kept, else built."""
        pre, separate = self.preemptor, self.model.separate_preemption_priority
        if self.accounting is not None:
            return _UnitIndex.of(self.accounting, self.snapshot.pod_groups, separate,
                                 self.whole_groups).below(pre.priority, pre.group_key)
        return _by_priority(_victim_units(self.snapshot, self.state, pre, separate,
                                          self.whole_groups))

    def units_per_node(self, ordered: list[_Unit]) -> dict[int, list[_Unit]]:
        """The victim units on each node, each list in (priority, name) order."""
        pre = self.preemptor
        if self.accounting is not None:
            return _UnitIndex.of(self.accounting, self.snapshot.pod_groups,
                                 self.model.separate_preemption_priority,
                                 self.whole_groups).per_node(pre.priority, pre.group_key)
        per_node: dict[int, list[_Unit]] = {}
        for u in ordered:
            for i in u.nodes:
                per_node.setdefault(i, []).append(u)
        return per_node

    def plan_pod(self, units: list[_Unit], budgets: _Budgets) -> Plan:
        """Steps 5-6 with each node as its own domain, then upstream's node choice.

        ``units`` are in (priority, name) order. The winner is the node of the smallest score
        (``_node_score``: upstream ``pickOneNodeForPreemption``'s criteria in order).

        With the KEP's level search, nodes may be visited in any order as long as only nodes
        that provably score above the best so far are passed over. A node's score is at least
        (0 PDB violations, its level): its highest victim priority *is* its level, and its level
        is at least its lowest unit priority. Nodes are visited by that lower bound: with a
        violation-free best, a node whose bound exceeds the best's level cannot win (nor can
        any later one). When the best is one victim pod of level L, a node of level L beats it
        only with exactly one victim pod too — each further victim pod adds priority + 2^31 > 0
        to the priority sum (checked: no unit priority at or below -2^31) — that started later
        (or at the same time, on a node whose name sorts first). Upstream's models (no level
        search: every lower unit removed, then reprieve) score every candidate node, which also
        tells the equal ones (a random pick upstream).
        """
        state, model = self.state, self.model
        pod = self.preemptor.pods[0]
        items = request_items(pod.requests)
        per_node = self.units_per_node(units)
        allowed = self.placer.allowed_set[0]  # the nodes passing the static predicates
        nodes = state.nodes
        candidates: list[tuple[int, str, int, list[_Unit]]] = [
            (local[0].priority, nodes[i].name, i, local)
            for i, local in per_node.items() if i in allowed]
        candidates.sort(key=lambda t: (t[0], t[1]))
        binary = model.priority_search == "binary"
        rng = self.rng
        if rng is not None and candidates:
            # dryRunPreemption: nodes from a random offset, stopping after numCandidates
            # nodes where preemption works (here: in node order, rotated)
            offset = rng.randrange(len(nodes))
            candidates.sort(key=lambda t: (t[2] - offset) % len(nodes))
        sample = _candidate_sample(len(nodes)) if rng is not None else len(nodes) + 1
        prune = binary and units[0].priority > -_PRIORITY_OFFSET  # every victim pod adds > 0
        best: tuple | None = None
        chosen: tuple[int, list[_Unit], set[str]] | None = None
        scored: list[tuple] = []
        node_ties: list[Tie] = []
        for low, name, i, local in candidates:
            if binary and best is not None and best[0] == 0:
                if best[1] < low:
                    break
                if (prune and best[3] == 1 and best[1] == low
                        and not _may_beat_one(local, 0, low, best, name)):
                    continue
            search = _Level(local, _NodeCheck(state.nodes[i], i, items), presorted=True,
                            search=model.priority_search)
            level = search.level
            if level is None:
                continue
            if binary and best is not None and best[0] == 0:
                if best[1] < level:
                    continue
                if (prune and best[3] == 1 and best[1] == level
                        and not _may_beat_one(local, search.begin, level, best, name)):
                    continue
            local_ties: list[Tie] = []
            victims, violating = search.reprieve(budgets, self.importance, local_ties, rng)
            key = _node_score(victims, violating, name)
            if not binary:
                scored.append(key)
                if rng is not None:
                    key = (*key[:-1], rng.random(), name)  # the final pick at random
            if best is None or key < best:
                best, chosen, node_ties = key, (i, victims, violating), local_ties
            if len(scored) >= sample:
                break
        if chosen is None or best is None:
            return self.result(UNSCHEDULABLE,
                               f"{self.desc} does not fit on any node even after preempting "
                               f"every lower-priority unit ({self.summary()}).")
        i, victim_units, violating = chosen
        if scored and rng is None:
            equal = sorted(k[-1] for k in scored if k[:-1] == best[:-1])
            if len(equal) > 1:
                self.ties.append(Tie("node for the preemption (pickOneNodeForPreemption)",
                                     (best[-1],), tuple(n for n in equal if n != best[-1])[:5],
                                     len(equal)))
            sample = _candidate_sample(len(nodes))
            if len(scored) > sample:
                self.ties.append(Tie(f"candidate nodes (upstream tries {sample} of the "
                                     f"{len(scored)} where preemption works, from a random "
                                     f"start)", (best[-1],), (), len(scored)))
        self.ties.extend(node_ties)
        victims = _victim_records(victim_units, violating, state)
        reason = (f"{self.desc} fits on node {state.nodes[i].name} after "
                  f"{_summary_tail(victims)}.")
        return self.result(REQUIRES_PREEMPTION, reason, [(pod, i)], victims,
                           _terminating(state, [i]))

    def plan_group(self, units: list[_Unit], budgets: _Budgets) -> Plan:
        """Steps 5-6 with the whole cluster as the domain."""
        if self.model.priority_search == "none":
            return self.plan_group_upstream(units, budgets)
        preemptor, state, placer = self.preemptor, self.state, self.placer
        needed = self.needed
        check: _ClusterCheck
        if placer.shapes == 1:
            check = _CountCheck(state, placer, needed)
        else:
            check = _GreedyCheck(state, placer, needed)
        self.checks.append(check)
        search = _Level(units, check, presorted=True)
        if search.level is None:
            most = len(placer.place(len(preemptor.pods)))
            return self.result(UNSCHEDULABLE,
                               f"{self.desc} needs {needed} pod(s) placed but at most {most} fit "
                               f"even after preempting every lower-priority unit "
                               f"({self.summary()}).")
        victim_units, violating = search.reprieve(budgets, self.importance, self.ties)
        placed = self.place(len(preemptor.pods))
        return self.group_result(placed, victim_units, violating)

    def plan_group_upstream(self, units: list[_Unit], budgets: _Budgets) -> Plan:
        """Upstream ``selectVictimsOnDomain``: remove every lower-priority unit, run the
        scheduling cycle once (filters and default scores; every pod it places is kept), fix
        that placement, then reprieve unit by unit against it."""
        preemptor, state, placer = self.preemptor, self.state, self.placer
        check = _FixedCheck(state, placer, self.needed)
        self.checks.append(check)
        for unit in units:
            check.remove(unit)
        placed = self.place(len(preemptor.pods))
        if len(placed) < self.needed:
            return self.result(UNSCHEDULABLE,
                               f"{self.desc} needs {self.needed} pod(s) placed but at most "
                               f"{len(placed)} fit even after preempting every lower-priority "
                               f"unit ({self.summary()}).")
        check.fix(placed)
        victim_units, violating = reprieve(units, check, budgets, self.importance, self.ties,
                                           self.rng)
        return self.group_result(placed, victim_units, violating)

    def group_result(self, placed: list[tuple[Pod, int]], victim_units: list[_Unit],
                     violating: set[str]) -> Plan:
        pods = self.preemptor.pods
        victims = _victim_records(victim_units, violating, self.state)
        used = sorted({i for _, i in placed})
        reason = (f"{self.desc}: {len(placed)} of {len(pods)} pending pods "
                  f"({self.needed} needed) fit on {_plural(len(used), 'node')} after "
                  f"{_summary_tail(victims)}.")
        return self.result(REQUIRES_PREEMPTION, reason, placed, victims,
                           _terminating(self.state, used))


def _candidate_sample(nodes: int) -> int:
    """Upstream ``calculateNumCandidates``: max(10% of the nodes, 100), at most all nodes."""
    return min(nodes, max(nodes * 10 // 100, 100))


def plan(snapshot: Snapshot, preemptor: Preemptor, *, model: BehaviourModel | None = None,
         state: Accounting | None = None, rng: random.Random | None = None) -> Plan:
    """Plan one preemptor against a snapshot (pure: the snapshot is not modified).

    ``model`` is the scheduler behaviour to predict (``wapctl.models``); None picks it from the
    snapshot (``models.select_model``). ``state``, an ``fit.Accounting`` kept up to date with
    ``snapshot.pods`` (a queue replay updates it pod by pod), replaces the O(pods) rebuild of
    the cluster accounting; the plan is the same either way, and ``state`` is left exactly as
    it was found (its ``memo`` keeps the planner's victim-unit index from the first such plan
    on). The cyclic garbage collector is paused meanwhile (see ``wapctl.gcpause``).

    ``rng``: where the modelled scheduler decides at random (``Plan.ties``), draw from it
    instead of taking the first option by name — one of the outcomes the scheduler may reach
    (``wapctl.samples`` replays many). Ignored by models without random choices (kep-5710).
    """
    if state is not None and not state.matches(snapshot):
        raise ValueError("the Accounting was built for a snapshot with other nodes")
    if model is None:
        model = select_model(snapshot)
    with gc_paused():
        planner = _Planner(snapshot, preemptor, model, state, rng)
        try:
            return planner.run()
        finally:
            planner.close()
            del planner  # freed while the collector is still paused: it never scans it
