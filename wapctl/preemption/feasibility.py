"""Feasibility checks: does the preemptor still fit with this victim unit put back? The
whole-cluster checks (``CountCheck``, ``GreedyCheck``, ``FixedCheck``, ``RescheduleCheck``)
for a pod group and ``NodeCheck`` for a single pod on one node; each answers ``remove`` /
``add`` / ``feasible`` / ``try_add`` for the level search and the reprieve (``search``)."""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from wapctl.filters.plan_view import PlanFilters
from wapctl.fit import (
    ClusterState,
    NodeState,
    RequestItems,
    request_items,
)
from wapctl.model import Pod
from wapctl.preemption.placement import GreedyRun, Placer
from wapctl.preemption.units import (
    Unit,
)


class ClusterCheck:
    """Shared part of the whole-cluster checks: apply a unit to the cluster state, skipping
    units with no pod on a usable node (they cannot change any placement, and the placement
    never reads the nodes they are on)."""

    def __init__(self, state: ClusterState, placer: Placer, needed: int) -> None:
        self.state = state
        self.placer = placer
        self.needed = needed
        self.usable = placer.usable

    def relevant(self, unit: Unit) -> bool:
        usable = self.usable
        for i in unit.nodes:
            if i in usable:
                return True
        filters = self.placer.filters
        return filters is not None and filters.touches(unit.members)

    def _apply(self, unit: Unit, remove: bool) -> None:
        filters = self.placer.filters
        if filters is not None:
            (filters.remove if remove else filters.add)(unit.members)
        own, usable = self.state.own, self.usable
        for pod, i in unit.members:
            if i in usable:
                state = own(i)
                (state.remove_requests if remove else state.add_requests)(pod.requests)


class CountCheck(ClusterCheck):
    """Gang of identical pods: it fits iff the per-node copy counts sum to ``needed``.

    Exact for one shape (nodes are independent), and kept up to date incrementally: a unit
    change recounts only the nodes that unit touches. Counts resources only: the placer's
    pod-dependent filters are off while it runs (``Evaluator.plan_group`` uses it without
    them, ``plan_group_counted`` turns them off first), so only units with a pod on a usable
    node matter.
    """

    def __init__(self, state: ClusterState, placer: Placer, needed: int) -> None:
        super().__init__(state, placer, needed)
        self.items = placer.items[0]
        self.copies: dict[int, int] = {}
        self.total = 0
        for i in placer.allowed[0]:
            c = state.nodes[i].copies(self.items, needed)
            self.copies[i] = c
            self.total += c

    def _change(self, unit: Unit, remove: bool) -> None:
        usable = self.usable
        for i in unit.nodes:  # ``relevant``, inlined: the level search and reprieve ask it
            if i in usable:
                self._apply(unit, remove)
                self._recount(unit.nodes)
                return

    def _recount(self, touched: Iterable[int]) -> None:
        nodes, copies, items, needed = self.state.nodes, self.copies, self.items, self.needed
        for i in touched:
            old = copies.get(i)
            if old is not None:
                c = nodes[i].copies(items, needed)
                if c != old:
                    self.total += c - old
                    copies[i] = c

    def remove(self, unit: Unit) -> None:
        self._change(unit, True)

    def remove_all(self, units: Sequence[Unit]) -> None:
        """``remove`` of each unit in order, the copies of each touched node counted once at
        the end (the level search removes a whole level at a time)."""
        touched: set[int] = set()
        usable, own = self.usable, self.state.own
        for unit in units:
            members = unit.members
            if len(members) == 1:  # ``_apply`` of a one-pod unit, inlined
                pod, i = members[0]
                if i not in usable:
                    continue  # not relevant
                own(i).remove_requests(pod.requests)
                touched.add(i)
            elif self.relevant(unit):
                self._apply(unit, True)
                touched.update(unit.nodes)
        self._recount(sorted(touched))

    def add(self, unit: Unit) -> None:
        self._change(unit, False)

    def feasible(self) -> bool:
        return self.total >= self.needed

    def try_add(self, unit: Unit) -> bool:
        members = unit.members
        if len(members) == 1 and members[0][1] in self.copies:
            return self._try_add_pod(unit, *members[0])
        self._change(unit, False)
        if self.total >= self.needed:
            return True
        self._change(unit, True)
        return False

    def _try_add_pod(self, unit: Unit, pod: Pod, i: int) -> bool:
        """``try_add`` of a one-pod unit on a counted node (the reprieve's usual case), in one
        go: the pod's requests put back on its node, its
        copies counted again, all taken back if the gang no longer fits."""
        old = self.copies[i]  # a counted node: usable, so the unit was removed from it
        node = self.state.own(i)
        node.add_requests(pod.requests)
        c = node.copies(self.items, self.needed)
        if self.total + c - old >= self.needed:
            self.total += c - old
            self.copies[i] = c
            return True
        node.remove_requests(pod.requests)
        return False


class GreedyCheck(ClusterCheck):
    """Pods of several shapes: it fits iff greedy placement places ``needed`` pods.

    A unit put back only makes its nodes fuller. If every pod the last placement put on those
    nodes still fits there, greedy placement would make exactly the same choices (nodes it
    skipped are no emptier, nodes it used still take their pods), so the answer stands without
    a new run. Otherwise the pods placed before the first one on those nodes still choose as
    before, with the same cursors, so the new run resumes from that pod.
    """

    def __init__(self, state: ClusterState, placer: Placer, needed: int) -> None:
        super().__init__(state, placer, needed)
        self.known = False
        self.ok = False
        self.last: GreedyRun | None = None  # the run behind ``ok`` when known

    def remove(self, unit: Unit) -> None:
        if self.relevant(unit):
            self._apply(unit, True)
            self.known = False

    def add(self, unit: Unit) -> None:
        if self.relevant(unit):
            self._apply(unit, False)
            self.known = False

    def _decide(self, run: GreedyRun) -> bool:
        self.last = run
        self.ok = len(run.placed) >= self.needed
        self.known = True
        return self.ok

    def feasible(self) -> bool:
        if not self.known:
            return self._decide(self.placer.run(self.needed))
        return self.ok

    def _first_invalid(self, unit: Unit, run: GreedyRun) -> int | None:
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

    def try_add(self, unit: Unit) -> bool:
        if not self.relevant(unit):
            return self.feasible()
        before = (self.known, self.ok, self.last)
        self._apply(unit, False)
        run = self.last
        filters = self.placer.filters
        if filters is not None and filters.touches(unit.members):
            self.known = False  # no resume: the unit may change a filter's answer anywhere
            if self.feasible():
                return True
        elif before[0] and before[1] and run is not None:
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



class FixedCheck(ClusterCheck):
    """Upstream's reprieve against a fixed placement (``selectVictimsOnDomain``
    ``reprieveVictim``): the preemptor's pods stay where the scheduling run with every victim
    gone put them; a unit goes back only if every pod assigned to the nodes it touches still
    passes the filters there. This is the one place a reprieve asks "does this pod fit this
    node given the pods now present" (see the module docstring's filter hook)."""

    def __init__(self, state: ClusterState, placer: Placer, needed: int) -> None:
        super().__init__(state, placer, needed)
        self.assigned: dict[int, tuple[dict[str, int], int]] = {}
        self.placed: list[tuple[Pod, int]] = []

    def _filters_hold(self) -> bool:
        """Every fixed pod still passes the pod-dependent filters where it was put, with the
        other fixed pods present (each is taken out while it is asked about)."""
        filters = self.placer.filters
        if filters is None:
            return True
        for pod, i in self.placed:
            filters.unplace(pod, i)
            ok = filters.fits(pod, i)
            filters.place(pod, i)
            if not ok:
                return False
        return True

    def fix(self, placed: Sequence[tuple[Pod, int]]) -> None:
        filters = self.placer.filters
        if filters is not None:  # the placement stays while units are reprieved
            for pod, i in self.placed:
                filters.unplace(pod, i)
            for pod, i in placed:
                filters.place(pod, i)
        self.placed = list(placed)
        assigned: dict[int, tuple[dict[str, int], int]] = {}
        for pod, i in placed:
            req, n = assigned.get(i, ({}, 0))
            for r, q in request_items(pod.requests):
                req[r] = req.get(r, 0) + q
            assigned[i] = (req, n + 1)
        self.assigned = assigned

    def remove(self, unit: Unit) -> None:
        if self.relevant(unit):
            self._apply(unit, True)

    def add(self, unit: Unit) -> None:
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
        return self._holds(self.assigned) and self._filters_hold()

    def try_add(self, unit: Unit) -> bool:
        if not self.relevant(unit):
            return True
        self._apply(unit, False)
        filters = self.placer.filters
        if self._holds(unit.nodes) and (
                filters is None or not filters.touches(unit.members) or self._filters_hold()):
            return True
        self._apply(unit, True)
        return False


class RescheduleCheck(ClusterCheck):
    """Pods of several shapes placed by the scheduler's scoring: feasible iff a fresh scheduling
    run places ``needed`` pods (1.36 runs the pod group's scheduling again for every unit put
    back); no shortcut, as a scored placement may change with any node's load."""

    def __init__(self, state: ClusterState, placer: Placer, needed: int) -> None:
        super().__init__(state, placer, needed)
        self.known = False
        self.ok = False

    def remove(self, unit: Unit) -> None:
        if self.relevant(unit):
            self._apply(unit, True)
            self.known = False

    def add(self, unit: Unit) -> None:
        if self.relevant(unit):
            self._apply(unit, False)
            self.known = False

    def feasible(self) -> bool:
        if not self.known:
            self.ok = len(self.placer.run(self.needed).placed) >= self.needed
            self.known = True
        return self.ok

    def try_add(self, unit: Unit) -> bool:
        if not self.relevant(unit):
            return self.feasible()
        self.add(unit)
        if self.feasible():
            return True
        self.remove(unit)
        self.known, self.ok = True, True  # the state before: feasible
        return False


class NodeCheck:
    """A single pod in a one-node domain: local arithmetic on that node only, so a PodGroup
    unit spanning many nodes costs O(resources) here, not O(its pods). The node's state is
    read once and never written.

    The plan's pod-dependent filters are shared by every candidate node's dry run (upstream
    clones the cycle state per node instead): use the check as a context manager, and the
    units it has out on leaving the block go back to the filters, on an exception too."""

    __slots__ = ("alloc", "count", "filters", "i", "items", "out", "pod", "room", "used")

    def __init__(self, node: NodeState, i: int, items: RequestItems,
                 filters: PlanFilters | None = None, pod: Pod | None = None) -> None:
        self.i = i
        self.items = items
        self.filters = filters  # with the pod they ask about
        self.pod = pod
        self.out: dict[Unit, None] = {}  # units whose pods the filters hold as gone
        self.alloc = [node.allocatable.get(r, 0) - q for r, q in items]
        self.used = [node.requested.get(r, 0) for r, _ in items]
        self.room = node.max_pods - 1
        self.count = node.pod_count

    def __enter__(self) -> NodeCheck:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.filters is not None:
            for unit in self.out:
                self.filters.add(unit.members)
            self.out = {}

    def _shift(self, unit: Unit, sign: int) -> None:
        requests, n = unit.on_node(self.i)
        used = self.used
        for k, (r, _) in enumerate(self.items):
            used[k] += sign * requests.get(r, 0)
        self.count += sign * n
        filters = self.filters
        if filters is not None and filters.touches(unit.members):
            if sign < 0:
                filters.remove(unit.members)
                self.out[unit] = None
            else:
                filters.add(unit.members)
                del self.out[unit]

    def remove(self, unit: Unit) -> None:
        self._shift(unit, -1)

    def add(self, unit: Unit) -> None:
        self._shift(unit, 1)

    def feasible(self) -> bool:
        if self.count > self.room:
            return False
        if not all(u <= a for u, a in zip(self.used, self.alloc, strict=True)):
            return False
        return self.filters is None or self.filters.fits(self.pod, self.i)  # type: ignore[arg-type]

    def try_add(self, unit: Unit) -> bool:
        self._shift(unit, 1)
        if self.feasible():
            return True
        self._shift(unit, -1)
        return False
