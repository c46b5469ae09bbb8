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
how many copies fit, kept up to date for the touched nodes only.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from wapctl.fit import (
    ClusterState,
    NodeState,
    RequestItems,
    StaticFitCache,
    label_selector_matches,
    request_items,
    shape_key,
    static_key,
)
from wapctl.model import NEVER, Pod, PodDisruptionBudget, Snapshot
from wapctl.preemptor import Preemptor

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
class Plan:
    """The outcome for one preemptor. Lists are sorted by pod key."""

    preemptor: Preemptor
    status: PlanStatus
    reason: str
    placements: tuple[Placement, ...] = ()
    victims: tuple[Victim, ...] = ()
    terminating: tuple[TerminatingPod, ...] = ()  # on nodes the placement uses
    unplaced: tuple[str, ...] = ()  # preemptor pods left pending (gang remainder, or all)

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

    __slots__ = (
        "_importance",
        "_on_node",
        "kind",
        "members",
        "name",
        "nodes",
        "priority",
        "tier",
    )

    def __init__(self, kind: UnitKind, name: str, priority: int,
                 members: list[tuple[Pod, int]], tier: int) -> None:
        self.kind = kind
        self.name = name
        self.priority = priority
        self.members = members  # (pod, node index), sorted by pod key
        self.tier = tier  # 0 whole group, 1 pod of a workload, 2 standalone pod
        self.nodes = frozenset(i for _, i in members)
        self._importance: tuple | None = None
        self._on_node: dict[int, tuple[dict[str, int], int]] | None = None

    @property
    def importance(self) -> tuple:
        """Sort key, most important first: priority; whole group > workload pod > standalone
        pod; more pods first (groups); earlier start; name."""
        if self._importance is None:
            start = min((p.start_time for p, _ in self.members if p.start_time is not None),
                        default=_INF)
            size = len(self.members) if self.kind == "PodGroup" else 1
            self._importance = (-self.priority, self.tier, -size, start, self.name)
        return self._importance

    def on_node(self, i: int) -> tuple[dict[str, int] | object, int]:
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


def _victim_units(snapshot: Snapshot, state: ClusterState, preemptor: Preemptor) -> list[_Unit]:
    """Step 4: every unit the preemptor may preempt, sorted by name."""
    own = preemptor.group_key
    limit = preemptor.priority
    index = state.index
    groups = snapshot.pod_groups
    units: list[_Unit] = []
    whole: dict[str, list[tuple[Pod, int]]] = {}
    for pod in snapshot.pods.values():  # sorted by key
        if pod.node_name is None or pod.terminating or pod.finished:
            continue
        i = index.get(pod.node_name)
        if i is None:
            continue
        gk = pod.group_key
        if gk is not None:
            if gk == own:
                continue
            group = groups.get(gk)
            if group is not None and group.disruption_mode == "PodGroup":
                if group.preemption_priority < limit:
                    whole.setdefault(gk, []).append((pod, i))
                continue
        if pod.preemption_priority < limit:
            units.append(_Unit("Pod", pod.key, pod.preemption_priority, [(pod, i)],
                               1 if gk is not None else 2))
    for gk, members in whole.items():
        units.append(_Unit("PodGroup", gk, groups[gk].preemption_priority, members, 0))
    units.sort(key=lambda u: u.name)
    return units


# ---- PodDisruptionBudgets ---------------------------------------------------------------------


class _Budgets:
    """Upstream ``filterPodsWithPDBViolation`` over units: budgets are spent in importance order;
    a pod that takes any budget below zero violates it, and so does its whole unit."""

    def __init__(self, pdbs: Sequence[PodDisruptionBudget]) -> None:
        self.pdbs = list(pdbs)  # sorted by key
        self.by_namespace: dict[str, list[int]] = {}
        for j, pdb in enumerate(self.pdbs):
            self.by_namespace.setdefault(pdb.namespace, []).append(j)
        self._matching: dict[str, tuple[int, ...]] = {}

    def matching(self, pod: Pod) -> tuple[int, ...]:
        found = self._matching.get(pod.key)
        if found is None:
            if not pod.labels:  # upstream: a pod without labels matches no PDB
                found = ()
            else:
                found = tuple(j for j in self.by_namespace.get(pod.namespace, ())
                              if label_selector_matches(self.pdbs[j].selector, pod.labels))
            self._matching[pod.key] = found
        return found

    def violating_pods(self, units_in_order: Iterable[_Unit]) -> set[str]:
        violating: set[str] = set()
        if not self.pdbs:
            return violating
        allowed = [pdb.disruptions_allowed for pdb in self.pdbs]
        for unit in units_in_order:
            for pod, _ in unit.members:
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
        self.allowed: list[list[int]] = []  # per shape: node indices passing static predicates
        self.allowed_set: list[frozenset[int]] = []
        self.nominated: list[int | None] = []
        nodes = state.nodes
        for pod in self.pods:
            key = shape_key(pod)
            s = shapes.get(key)
            if s is None:
                s = shapes[key] = len(self.items)
                skey = static_key(pod)
                ok = [i for i, ns in enumerate(nodes) if cache.reason(pod, ns.node, skey) is None]
                self.items.append(key[1])
                self.allowed.append(ok)
                self.allowed_set.append(frozenset(ok))
            self.shape_of.append(s)
            nom = state.index.get(pod.nominated_node) if pod.nominated_node else None
            self.nominated.append(nom if nom is not None and nom in self.allowed_set[s] else None)

    @property
    def shapes(self) -> int:
        return len(self.items)

    def place(self, limit: int) -> list[tuple[Pod, int]]:
        """Place pods in order until ``limit`` are placed; the state is left unchanged."""
        nodes = self.state.nodes
        cursor = [0] * len(self.items)
        placed: list[tuple[Pod, int]] = []
        try:
            for k, pod in enumerate(self.pods):
                if len(placed) >= limit:
                    break
                s = self.shape_of[k]
                items = self.items[s]
                target = self.nominated[k]
                if target is not None and not nodes[target].fits(items):
                    target = None
                if target is None:
                    ok = self.allowed[s]
                    c = cursor[s]
                    while c < len(ok) and not nodes[ok[c]].fits(items):
                        c += 1
                    cursor[s] = c
                    if c < len(ok):
                        target = ok[c]
                if target is not None:
                    nodes[target].add(pod)
                    placed.append((pod, target))
        finally:
            for pod, i in placed:
                nodes[i].remove(pod)
        return placed


def _apply(state: ClusterState, unit: _Unit, remove: bool) -> None:
    nodes = state.nodes
    if remove:
        for pod, i in unit.members:
            nodes[i].remove(pod)
    else:
        for pod, i in unit.members:
            nodes[i].add(pod)


class _CountCheck:
    """Gang of identical pods: it fits iff the per-node copy counts sum to ``needed``.

    Exact for one shape (nodes are independent), and kept up to date incrementally: a unit
    change recounts only the nodes that unit touches.
    """

    def __init__(self, state: ClusterState, placer: _Placer, needed: int) -> None:
        self.state = state
        self.needed = needed
        self.items = placer.items[0]
        self.allowed = placer.allowed_set[0]
        self.copies: dict[int, int] = {}
        self.total = 0
        for i in placer.allowed[0]:
            c = state.nodes[i].copies(self.items, needed)
            self.copies[i] = c
            self.total += c

    def _recount(self, unit: _Unit) -> None:
        nodes, copies = self.state.nodes, self.copies
        for i in unit.nodes:
            if i in self.allowed:
                c = nodes[i].copies(self.items, self.needed)
                self.total += c - copies[i]
                copies[i] = c

    def remove(self, unit: _Unit) -> None:
        _apply(self.state, unit, True)
        self._recount(unit)

    def add(self, unit: _Unit) -> None:
        _apply(self.state, unit, False)
        self._recount(unit)

    def feasible(self) -> bool:
        return self.total >= self.needed

    def try_add(self, unit: _Unit) -> bool:
        self.add(unit)
        if self.total >= self.needed:
            return True
        self.remove(unit)
        return False


class _GreedyCheck:
    """Pods of several shapes: it fits iff greedy placement places ``needed`` pods.

    A unit put back only on nodes the last successful placement did not use cannot change that
    placement (those nodes only get fuller), so such a reprieve needs no new placement run.
    """

    def __init__(self, state: ClusterState, placer: _Placer, needed: int) -> None:
        self.state = state
        self.placer = placer
        self.needed = needed
        self.known = False
        self.ok = False
        self.used: frozenset[int] = frozenset()

    def remove(self, unit: _Unit) -> None:
        _apply(self.state, unit, True)
        self.known = False

    def add(self, unit: _Unit) -> None:
        _apply(self.state, unit, False)
        self.known = False

    def feasible(self) -> bool:
        if not self.known:
            placed = self.placer.place(self.needed)
            self.ok = len(placed) >= self.needed
            self.used = frozenset(i for _, i in placed)
            self.known = True
        return self.ok

    def try_add(self, unit: _Unit) -> bool:
        before = (self.known, self.ok, self.used)
        _apply(self.state, unit, False)
        if before[0] and before[1] and unit.nodes.isdisjoint(self.used):
            return True
        self.known = False
        if self.feasible():
            return True
        _apply(self.state, unit, True)
        self.known, self.ok, self.used = before
        return False


class _NodeCheck:
    """A single pod in a one-node domain: local arithmetic on that node only, so a PodGroup
    unit spanning many nodes costs O(resources) here, not O(its pods)."""

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
            used[k] += sign * requests.get(r, 0)  # type: ignore[attr-defined]
        self.count += sign * n

    def remove(self, unit: _Unit) -> None:
        self._shift(unit, -1)

    def add(self, unit: _Unit) -> None:
        self._shift(unit, 1)

    def feasible(self) -> bool:
        if self.count > self.room:
            return False
        return all(u <= a for u, a in zip(self.used, self.alloc))

    def try_add(self, unit: _Unit) -> bool:
        self._shift(unit, 1)
        if self.feasible():
            return True
        self._shift(unit, -1)
        return False


# ---- the victim search (steps 5 and 6) --------------------------------------------------------


def _search(units: Sequence[_Unit], check: _Feasibility,
            budgets: _Budgets) -> tuple[list[_Unit], set[str]] | None:
    """Lowest priority level that makes room, then reprieve. Returns the victim units (most
    important first) and the PDB-violating pod keys, or None (state left with every unit
    removed)."""
    if not units:
        return None
    by_priority = sorted(units, key=lambda u: (u.priority, u.name))
    priorities = [u.priority for u in by_priority]
    levels = sorted(set(priorities))
    ends = [bisect_right(priorities, level) for level in levels]
    removed = 0

    def remove_upto(target: int) -> None:
        nonlocal removed
        while removed < target:
            check.remove(by_priority[removed])
            removed += 1
        while removed > target:
            removed -= 1
            check.add(by_priority[removed])

    remove_upto(ends[-1])
    if not check.feasible():
        return None
    lo, hi = 0, len(levels) - 1  # invariant: level hi makes room
    while lo < hi:
        mid = (lo + hi) // 2
        remove_upto(ends[mid])
        if check.feasible():
            hi = mid
        else:
            lo = mid + 1
    remove_upto(ends[hi])
    check.feasible()  # the state at level hi makes room; refresh any cached answer

    candidates = sorted(by_priority[: ends[hi]], key=lambda u: u.importance)
    violating = budgets.violating_pods(candidates)
    first = [u for u in candidates if any(p.key in violating for p, _ in u.members)]
    rest = [u for u in candidates if not any(p.key in violating for p, _ in u.members)]
    victims = [u for u in first + rest if not check.try_add(u)]
    victims.sort(key=lambda u: u.importance)
    return victims, violating


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
    parts = [f"{n} {reason}" for reason, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    if passing:
        parts.append(f"{passing} node(s) lack room even without lower-priority pods")
    return f"0/{len(state.nodes)} nodes are available: " + ", ".join(parts) if parts else \
        "the cluster has no nodes"


def _summary_tail(victims: tuple[Victim, ...]) -> str:
    units = len({(v.unit_kind, v.unit_name) for v in victims})
    top = max(v.priority for v in victims)
    pdb = sum(1 for v in victims if v.pdb_violation)
    text = (f"preempting {_plural(len(victims), 'pod')} in {_plural(units, 'unit')} "
            f"(highest victim priority {top}")
    if pdb:
        text += f", {_plural(pdb, 'PodDisruptionBudget violation')}"
    return text + ")"


class _Planner:
    """One plan run: the preemptor, its view of the cluster and the caches it shares."""

    def __init__(self, snapshot: Snapshot, preemptor: Preemptor) -> None:
        self.snapshot = snapshot
        self.preemptor = preemptor
        self.desc = preemptor.describe()
        self.state = ClusterState(snapshot, reserve_priority=preemptor.priority,
                                  exclude={p.key for p in preemptor.pods})
        self.cache = StaticFitCache()
        self.placer = _Placer(self.state, preemptor.pods, self.cache)

    def result(self, status: PlanStatus, reason: str,
               placed: Sequence[tuple[Pod, int]] = (), victims: tuple[Victim, ...] = (),
               terminating: tuple[TerminatingPod, ...] = ()) -> Plan:
        return Plan(preemptor=self.preemptor, status=status, reason=reason,
                    placements=_placements(placed, self.state), victims=victims,
                    terminating=terminating, unplaced=_unplaced(self.preemptor, placed))

    def summary(self) -> str:
        return _filter_summary(self.state, self.preemptor.pods[0], self.cache)

    def run(self) -> Plan:
        preemptor, state, placer = self.preemptor, self.state, self.placer
        pods, needed, desc = preemptor.pods, preemptor.needed, self.desc
        is_pod = preemptor.kind == "Pod"
        if needed > len(pods):
            return self.result(UNSCHEDULABLE,
                               f"{desc} needs {needed} more pod(s) to reach minCount "
                               f"{preemptor.min_count} but only {len(pods)} are pending.")

        # 1. Fits now (terminating pods still hold their resources).
        placed = placer.place(len(pods))
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

        # 2. Terminating pods are free space: fits once they are gone -> wait, no new victims.
        state.release_terminating()
        placed = placer.place(len(pods))
        if len(placed) >= needed:
            terminating = _terminating(state, (i for _, i in placed))
            where = (f"on node {state.nodes[placed[0][1]].name}" if is_pod
                     else f"({len(placed)} of {len(pods)} pending pods placed)")
            reason = (f"{desc} fits {where} once "
                      f"{_plural(len(terminating), 'terminating pod')} finish; the preemption "
                      f"already triggered suffices, no new victims.")
            return self.result(WAITING, reason, placed, terminating=terminating)

        # 3. preemptionPolicy Never.
        if preemptor.preemption_policy == NEVER:
            return self.result(UNSCHEDULABLE,
                               f"{desc} does not fit and its preemptionPolicy is Never: it waits "
                               f"for free space and preempts nothing.")

        # 4. Victim units.
        units = _victim_units(self.snapshot, state, preemptor)
        if not units:
            return self.result(UNSCHEDULABLE,
                               f"{desc} does not fit and no running pod has a preemption "
                               f"priority below {preemptor.priority} ({self.summary()}).")
        budgets = _Budgets(self.snapshot.pdbs)
        return self.plan_pod(units, budgets) if is_pod else self.plan_group(units, budgets)

    def plan_pod(self, units: list[_Unit], budgets: _Budgets) -> Plan:
        """Steps 5-6 with each node as its own domain, then upstream's node choice."""
        state, cache = self.state, self.cache
        pod = self.preemptor.pods[0]
        items = request_items(pod.requests)
        per_node: dict[int, list[_Unit]] = {}
        for u in units:
            for i in u.nodes:
                per_node.setdefault(i, []).append(u)
        skey = static_key(pod)
        best: tuple | None = None
        chosen: tuple[int, list[_Unit], set[str]] | None = None
        for i in sorted(per_node):
            ns = state.nodes[i]
            if cache.reason(pod, ns.node, skey) is not None:
                continue
            found = _search(per_node[i], _NodeCheck(ns, i, items), budgets)
            if found is None:
                continue
            victims, violating = found
            key = _node_score(victims, violating, ns.name)
            if best is None or key < best:
                best, chosen = key, (i, victims, violating)
        if chosen is None:
            return self.result(UNSCHEDULABLE,
                               f"{self.desc} does not fit on any node even after preempting "
                               f"every lower-priority unit ({self.summary()}).")
        i, victim_units, violating = chosen
        victims = _victim_records(victim_units, violating, state)
        reason = (f"{self.desc} fits on node {state.nodes[i].name} after "
                  f"{_summary_tail(victims)}.")
        return self.result(REQUIRES_PREEMPTION, reason, [(pod, i)], victims,
                           _terminating(state, [i]))

    def plan_group(self, units: list[_Unit], budgets: _Budgets) -> Plan:
        """Steps 5-6 with the whole cluster as the domain."""
        preemptor, state, placer = self.preemptor, self.state, self.placer
        needed = preemptor.needed
        check: _Feasibility
        if placer.shapes == 1:
            check = _CountCheck(state, placer, needed)
        else:
            check = _GreedyCheck(state, placer, needed)
        found = _search(units, check, budgets)
        if found is None:
            most = len(placer.place(len(preemptor.pods)))
            return self.result(UNSCHEDULABLE,
                               f"{self.desc} needs {needed} pod(s) placed but at most {most} fit "
                               f"even after preempting every lower-priority unit "
                               f"({self.summary()}).")
        victim_units, violating = found
        placed = placer.place(len(preemptor.pods))
        victims = _victim_records(victim_units, violating, state)
        used = sorted({i for _, i in placed})
        reason = (f"{self.desc}: {len(placed)} of {len(preemptor.pods)} pending pods "
                  f"({needed} needed) fit on {_plural(len(used), 'node')} after "
                  f"{_summary_tail(victims)}.")
        return self.result(REQUIRES_PREEMPTION, reason, placed, victims,
                           _terminating(state, used))


def _node_score(victims: list[_Unit], violating: set[str], node: str) -> tuple:
    """Upstream pickOneNodeForPreemption criteria as one ascending sort key."""
    pods = [(p, u.priority) for u in victims for p, _ in u.members]
    top = max(u.priority for u in victims)
    earliest = min((p.start_time if p.start_time is not None else _INF
                    for p, prio in pods if prio == top), default=_INF)
    return (
        sum(1 for p, _ in pods if p.key in violating),  # fewest PDB violations
        top,  # lowest highest victim priority
        sum(prio + _PRIORITY_OFFSET for _, prio in pods),  # smallest sum of priorities
        len(pods),  # fewest victims
        -earliest,  # latest start time of the highest-priority victims
        node,  # then the first node by name (upstream picks at random)
    )


def plan(snapshot: Snapshot, preemptor: Preemptor) -> Plan:
    """Plan one preemptor against a snapshot (pure: the snapshot is not modified)."""
    return _Planner(snapshot, preemptor).run()
