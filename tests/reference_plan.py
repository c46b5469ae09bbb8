"""A deliberately simple re-implementation of the plan algorithm (SPEC.md §3), for tests.

Nothing incremental: every feasibility check recomputes node usage from the snapshot's pods
and places the preemptor's pods greedily from scratch. It is slow and obviously follows the
spec; ``tests/test_fast_vs_reference.py`` asserts that ``wapctl.preemption.plan`` gives the
same answer. Only the pure static predicates of ``wapctl.fit`` are shared.
"""

from __future__ import annotations

from dataclasses import dataclass

from wapctl.fit import check_static, label_selector_matches
from wapctl.model import Pod, Snapshot
from wapctl.preemptor import Preemptor

OFFSET = 2**31
INF = float("inf")


@dataclass(frozen=True)
class RefUnit:
    kind: str
    name: str
    priority: int
    pods: tuple[Pod, ...]  # sorted by key
    tier: int

    def importance(self) -> tuple:
        starts = [p.start_time for p in self.pods if p.start_time is not None]
        size = len(self.pods) if self.kind == "PodGroup" else 1
        return (-self.priority, self.tier, -size, min(starts) if starts else INF, self.name)


@dataclass(frozen=True)
class RefPlan:
    status: str
    placements: tuple[tuple[str, str], ...]  # (pod, node) sorted
    victims: tuple[tuple[str, str, int, str, str, bool], ...]  # sorted by pod
    terminating: tuple[tuple[str, str], ...]
    unplaced: tuple[str, ...]


def _requests(pod: Pod) -> dict[str, int]:
    return {r: q for r, q in pod.requests.items() if r != "pods"}


def usage(snapshot: Snapshot, preemptor: Preemptor, removed: set[str], with_terminating: bool
          ) -> dict[str, tuple[dict[str, int], int]]:
    """Requested totals and pod count per node, from scratch."""
    own = {p.key for p in preemptor.pods}
    out: dict[str, tuple[dict[str, int], int]] = {n: ({}, 0) for n in snapshot.nodes}
    for pod in snapshot.pods.values():
        if pod.finished:
            continue
        if pod.node_name is not None:
            if pod.node_name not in out or pod.key in removed:
                continue
            if pod.terminating and not with_terminating:
                continue
            where = pod.node_name
        elif (not pod.terminating and pod.nominated_node in out and pod.key not in own
              and pod.priority >= preemptor.priority):
            where = pod.nominated_node
        else:
            continue
        req, count = out[where]
        for r, q in _requests(pod).items():
            req[r] = req.get(r, 0) + q
        out[where] = (req, count + 1)
    return out


def fits_on(snapshot: Snapshot, pod: Pod, node: str, req: dict[str, int], count: int) -> bool:
    n = snapshot.nodes[node]
    if check_static(pod, n) is not None:
        return False
    if count + 1 > n.allocatable.get("pods", 0):
        return False
    return all(req.get(r, 0) + q <= n.allocatable.get(r, 0)
               for r, q in _requests(pod).items() if q > 0)


def greedy(snapshot: Snapshot, preemptor: Preemptor, used: dict[str, tuple[dict[str, int], int]],
           limit: int, nodes: list[str] | None = None) -> list[tuple[str, str]]:
    """Each pod: nominated node if it fits there, else the first node by name that fits."""
    used = {n: (dict(r), c) for n, (r, c) in used.items()}
    order = sorted(snapshot.nodes) if nodes is None else nodes
    placed: list[tuple[str, str]] = []
    for pod in preemptor.pods:
        if len(placed) >= limit:
            break
        candidates = list(order)
        if pod.nominated_node in snapshot.nodes and (nodes is None or pod.nominated_node in nodes):
            candidates = [pod.nominated_node, *candidates]
        for n in candidates:
            req, count = used[n]
            if fits_on(snapshot, pod, n, req, count):
                for r, q in _requests(pod).items():
                    req[r] = req.get(r, 0) + q
                used[n] = (req, count + 1)
                placed.append((pod.key, n))
                break
    return placed


def victim_units(snapshot: Snapshot, preemptor: Preemptor) -> list[RefUnit]:
    groups: dict[str, list[Pod]] = {}
    units = []
    for pod in snapshot.pods.values():
        if pod.node_name not in snapshot.nodes or pod.terminating or pod.finished:
            continue
        if pod.group_key is not None and pod.group_key == preemptor.group_key:
            continue
        group = snapshot.pod_groups.get(pod.group_key) if pod.group_key else None
        if group is not None and group.disruption_mode == "PodGroup":
            if group.preemption_priority < preemptor.priority:
                groups.setdefault(group.key, []).append(pod)
        elif pod.preemption_priority < preemptor.priority:
            units.append(RefUnit("Pod", pod.key, pod.preemption_priority, (pod,),
                                 1 if pod.group_key else 2))
    for key, pods in groups.items():
        units.append(RefUnit("PodGroup", key, snapshot.pod_groups[key].preemption_priority,
                             tuple(sorted(pods, key=lambda p: p.key)), 0))
    return units


def violating_pods(snapshot: Snapshot, ordered: list[RefUnit]) -> set[str]:
    allowed = {pdb.key: pdb.disruptions_allowed for pdb in snapshot.pdbs}
    bad: set[str] = set()
    for unit in ordered:
        for pod in unit.pods:
            if not pod.labels:
                continue
            for pdb in snapshot.pdbs:
                if pdb.namespace != pod.namespace:
                    continue
                if not label_selector_matches(pdb.selector, pod.labels):
                    continue
                if pod.name in pdb.disrupted_pods:
                    continue
                allowed[pdb.key] -= 1
                if allowed[pdb.key] < 0:
                    bad.add(pod.key)
                    break
    return bad


def search(snapshot, preemptor, units, feasible):
    """Binary search over unit priorities, then reprieve; ``feasible(removed_units)``."""
    if not units:
        return None
    levels = sorted({u.priority for u in units})

    def removed_at(level):
        return [u for u in units if u.priority <= level]

    # SPEC §3 binary search for the lowest level whose removal makes room. The probe order
    # (0, 1, 3, 7, ... then bisection) matches wapctl's, so even a non-monotone greedy check
    # (pods of several shapes) gives both the same level; for monotone checks any binary
    # search finds the same answer.
    lo, k, step = 0, 0, 1
    while not feasible(removed_at(levels[k])):
        if k == len(levels) - 1:
            return None
        lo = k + 1
        k = min(len(levels) - 1, k + step)
        step *= 2
    hi = k
    while lo < hi:
        mid = (lo + hi) // 2
        if feasible(removed_at(levels[mid])):
            hi = mid
        else:
            lo = mid + 1
    candidates = sorted(removed_at(levels[hi]), key=RefUnit.importance)
    bad = violating_pods(snapshot, candidates)
    first = [u for u in candidates if any(p.key in bad for p in u.pods)]
    rest = [u for u in candidates if u not in first]
    victims = list(candidates)
    for u in first + rest:
        trial = [v for v in victims if v is not u]
        if feasible(trial):
            victims = trial
    return victims, bad


def _pods_of(units):
    return {p.key for u in units for p in u.pods}


def reference_plan(snapshot: Snapshot, preemptor: Preemptor) -> RefPlan:
    pods = preemptor.pods
    needed = preemptor.needed
    terminating = [(p.key, p.node_name) for p in snapshot.pods.values()
                   if p.terminating and not p.finished and p.node_name in snapshot.nodes]

    def done(status, placed=(), victims=(), bad=frozenset(), term=()):
        records = tuple(sorted(
            (p.key, p.node_name, u.priority, u.kind, u.name, p.key in bad)
            for u in victims for p in u.pods))
        placed_keys = {k for k, _ in placed}
        return RefPlan(status, tuple(sorted(placed)), records, tuple(term),
                       tuple(p.key for p in pods if p.key not in placed_keys))

    if needed > len(pods):
        return done("Unschedulable")
    placed = greedy(snapshot, preemptor, usage(snapshot, preemptor, set(), True), len(pods))
    if len(placed) >= needed:
        return done("Schedulable", placed)
    base = usage(snapshot, preemptor, set(), False)
    placed = greedy(snapshot, preemptor, base, len(pods))
    if len(placed) >= needed:
        nodes = {n for _, n in placed}
        return done("WaitingForTermination", placed,
                    term=[t for t in terminating if t[1] in nodes])
    if preemptor.preemption_policy == "Never":
        return done("Unschedulable")
    units = victim_units(snapshot, preemptor)

    if preemptor.kind == "PodGroup":
        def feasible(removed):
            used = usage(snapshot, preemptor, _pods_of(removed), False)
            return len(greedy(snapshot, preemptor, used, needed)) >= needed

        found = search(snapshot, preemptor, units, feasible)
        if found is None:
            return done("Unschedulable")
        victims, bad = found
        used = usage(snapshot, preemptor, _pods_of(victims), False)
        placed = greedy(snapshot, preemptor, used, len(pods))
        nodes = {n for _, n in placed}
        return done("RequiresPreemption", placed, victims, bad,
                    [t for t in terminating if t[1] in nodes])

    pod = pods[0]
    best = None
    for name in sorted(snapshot.nodes):
        local = [u for u in units if any(p.node_name == name for p in u.pods)]

        def feasible(removed, name=name):
            used = usage(snapshot, preemptor, _pods_of(removed), False)
            return bool(greedy(snapshot, preemptor, used, 1, nodes=[name]))

        if not local or check_static(pod, snapshot.nodes[name]) is not None:
            continue
        found = search(snapshot, preemptor, local, feasible)
        if found is None:
            continue
        victims, bad = found
        vp = [(p, u.priority) for u in victims for p in u.pods]
        top = max(u.priority for u in victims)
        earliest = min((p.start_time if p.start_time is not None else INF
                        for p, pr in vp if pr == top), default=INF)
        key = (sum(1 for p, _ in vp if p.key in bad), top, sum(pr + OFFSET for _, pr in vp),
               len(vp), -earliest, name)
        if best is None or key < best[0]:
            best = (key, name, victims, bad)
    if best is None:
        return done("Unschedulable")
    _, name, victims, bad = best
    return done("RequiresPreemption", [(pod.key, name)], victims, bad,
                [t for t in terminating if t[1] == name])


def fast_as_reference(plan) -> RefPlan:
    """A ``wapctl.preemption.Plan`` in the reference's shape, for comparison."""
    return RefPlan(
        plan.status,
        tuple((p.pod, p.node) for p in plan.placements),
        tuple((v.pod, v.node, v.priority, v.unit_kind, v.unit_name, v.pdb_violation)
              for v in plan.victims),
        tuple((t.pod, t.node) for t in plan.terminating),
        plan.unplaced,
    )
