"""The plan algorithm: where a preemptor goes, and whom it preempts — for the behaviour model
asked for (``wapctl.models``; docs/SPEC.md §0 is the table of what differs).

Upstream models (``1.36``, ``upstream``), after upstream ``SelectVictimsOnNode`` (one pod, one
node at a time) and ``selectVictimsOnDomain`` (a pod group, the whole cluster):

1. fits now -> Schedulable (placed as the scheduler would: filters, then default scores);
2. a pod nominated where a lower-priority pod terminates by preemption -> WaitingForTermination
   (``PodEligibleToPreemptOthers``); terminating pods otherwise hold their resources and are
   potential victims like any pod on their node;
3. preemptionPolicy Never -> no preemption;
4. every unit below the preemptor's priority removed at once; the preemptor scheduled once;
   that placement fixed; then each unit put back (PDB-violating first, most important first)
   if the placement still holds. A single pod's node is chosen by ``NODE_CRITERIA``.

The KEP-5710 model (SPEC.md §3) instead treats terminating pods as free space and searches the
lowest priority level whose removal makes room before reprieving.

The package, in the order of the algorithm:

- ``units``: victim units (a pod, or a ``PodGroup``-mode group on every node) and their index
  kept with a ``fit.Accounting``;
- ``budgets``: PodDisruptionBudgets spent in importance order;
- this module: placement and feasibility (``_Placer`` greedy, ``_ScoredPlacer`` the scheduler's
  scoring, the checks ``_CountCheck`` / ``_GreedyCheck`` / ``_FixedCheck`` / ``_NodeCheck``) and the
  planner (``_Planner``, ``plan``). Placement moves to its own module once the pod-dependent
  filters have landed on it;
- ``search``: the KEP's level search and upstream's reprieve;
- ``node_choice``: ``pickOneNodeForPreemption``'s criteria, one named function each;
- ``outcome``: what the chosen victims become (deleted, or already terminating and waited for);
- ``result``: ``Plan`` and its parts.

The filter hook. Every "does this pod fit this node" question goes through the placement layer:
``_Placer.run`` / ``_ScoredPlacer.run`` (a pod placed with the pods now present: victims removed
or reprieved, and the group's own pods placed before it) and the checks' ``try_add`` (a unit put
back: does every pod placed on the nodes it touches still fit?). Resource fit and the static
predicates are answered there today; a pod-dependent filter (inter-pod affinity, topology spread,
host ports) plugs in at exactly those two places — consulted per (pod, node) after the resource
fit, told about every pod placed, removed or restored — and may be skipped when no pod in the
snapshot carries such a constraint.

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
- KEP model: all terminating pods are free space regardless of their priority. Upstream models:
  a terminating pod holds its resources and, below the preemptor's priority, is a potential
  victim like any pod of its NodeInfo (once ``PodEligibleToPreemptOthers`` lets the preemptor
  preempt). A chosen victim that is already terminating is not deleted again (upstream
  ``prepareCandidate``): it is listed under ``terminating``, not ``victims`` (``outcome``).
"""
from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence

from wapctl.filters.plan_view import PlanFilters
from wapctl.fit import (
    Accounting,
    ClusterState,
    NodeState,
    RequestItems,
    StaticFitCache,
    request_items,
    shape_key,
    static_key,
)
from wapctl.gcpause import gc_paused
from wapctl.model import NEVER, PREEMPT_LOWER, Pod, Snapshot
from wapctl.models import BehaviourModel, select_model
from wapctl.preemption.budgets import PdbRules, _Budgets
from wapctl.preemption.node_choice import (
    _PRIORITY_OFFSET,
    NODE_CRITERIA,
    _may_beat_one,
    _node_score,
)
from wapctl.preemption.outcome import actuate
from wapctl.preemption.outcome import plural as _plural
from wapctl.preemption.outcome import terminating_on as _terminating
from wapctl.preemption.outcome import victim_records as _victim_records
from wapctl.preemption.result import (
    REQUIRES_PREEMPTION,
    SCHEDULABLE,
    UNSCHEDULABLE,
    WAITING,
    Placement,
    Plan,
    PlanStatus,
    TerminatingPod,
    Tie,
    Victim,
    waiting_reason,
)
from wapctl.preemption.search import _Feasibility, _Level, lowest_level, node_ties, reprieve  # noqa: F401
from wapctl.preemption.units import (
    UnitKind,
    _Unit,
    _UnitIndex,
    _victim_units,
)
from wapctl.preemptor import Preemptor
from wapctl.scoring import ShapeScorer

__all__ = [
    "NODE_CRITERIA",
    "REQUIRES_PREEMPTION",
    "SCHEDULABLE",
    "UNSCHEDULABLE",
    "WAITING",
    "Placement",
    "Plan",
    "PlanStatus",
    "TerminatingPod",
    "Tie",
    "UnitKind",
    "Victim",
    "lowest_level",
    "plan",
    "reprieve",
]


# ---- feasibility checks -----------------------------------------------------------------------


def _undo_run(added: Iterable[tuple[NodeState, RequestItems]],
              placed: Iterable[tuple[Pod, int]], filters: PlanFilters | None) -> None:
    """Take back what a placement run lent the shared state: the pods' requests on their
    nodes and, with the pod-dependent filters active, the pods themselves."""
    for node, items in added:
        node.give_back(items)
    if filters is not None:
        for pod, i in placed:
            filters.unplace(pod, i)


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
        self.filters: PlanFilters | None = None  # the pod-dependent filters, when active

    @property
    def shapes(self) -> int:
        return len(self.items)

    def place(self, limit: int) -> list[tuple[Pod, int]]:
        """Place pods in order until ``limit`` are placed; the state is left unchanged."""
        return self.run(limit).placed

    def run(self, limit: int, resume: _Run | None = None, start: int = 0) -> _Run:
        """One greedy placement run, recorded so that a later run can resume from pod
        ``start`` of this one (``resume``) when nothing before that pod can change.

        The fit test and the bookkeeping work on request items (``NodeState.fits`` /
        ``take``): this loop is what every greedy check of a multi-shape gang runs.
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
                node.take(items)
                added.append((node, items))

        fits = NodeState.fits  # a local name: asked once per node scanned
        filters = self.filters
        jumps: list[dict[int, int]] = [{} for _ in self.items]
        if filters is not None:  # the placed pods so far count for the next pods' filters
            for pod, i in placed:
                filters.place(pod, i)
        try:
            for k in range(start, len(self.pods)):
                if len(placed) >= limit:
                    break
                cursors.append(tuple(cursor))
                s = self.shape_of[k]
                items = self.items[s]
                pod = self.pods[k]
                target = self.nominated[k]
                if target is not None and not (fits(nodes[target], items) and (
                        filters is None or filters.fits(pod, target))):
                    target = None
                if target is None:
                    ok = self.allowed[s]
                    c = cursor[s]
                    end = len(ok)
                    while c < end and not fits(nodes[ok[c]], items):
                        c += 1
                    cursor[s] = c  # only nodes without room are passed for good
                    if filters is not None:
                        c = self._filtered(pod, ok, c, items, jumps[s], fits)
                    if c < end:
                        target = ok[c]
                if target is not None:
                    node = nodes[target]
                    node.take(items)
                    added.append((node, items))
                    placed.append((pod, target))
                    index.append(k)
                    if filters is not None:
                        filters.place(pod, target)
        finally:
            _undo_run(added, placed, filters)
        return _Run(placed, index, cursors)


    def _filtered(self, pod: Pod, ok: tuple[int, ...], c: int, items: RequestItems,
                  jump: dict[int, int], fits: Callable[[NodeState, RequestItems], bool]) -> int:
        """The first position from ``c`` in ``ok`` whose node has room and passes the
        pod-dependent filters (``len(ok)`` if none). Nodes without room stay without room for
        the rest of the run, so ``jump`` (kept per shape for the run) skips runs of them."""
        nodes, filters, end = self.state.nodes, self.filters, len(ok)
        assert filters is not None
        chain: list[int] = []
        while c < end:
            nxt = jump.get(c)
            if nxt is not None:
                chain.append(c)
                c = nxt
                continue
            i = ok[c]
            if not fits(nodes[i], items):
                chain.append(c)
                c += 1
                continue
            for q in chain:  # every full position on the way leads here now
                jump[q] = c
            chain = []
            if filters.fits(pod, i):
                return c
            c += 1
        for q in chain:
            jump[q] = end
        return end


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
        filters = self.placer.filters
        return filters is not None and filters.touches(unit.members)

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
        filters = self.placer.filters
        if filters is not None:
            (filters.remove if remove else filters.add)(unit.members)
        nodes, usable = self.state.nodes, self.usable
        for pod, i in unit.members:
            if i in usable:
                state = nodes[i]
                (state.remove_requests if remove else state.add_requests)(pod.requests)


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
        usable = self.usable
        for i in unit.nodes:  # ``relevant``, inlined: the level search and reprieve ask it
            if i in usable:
                break
        else:
            filters = self.placer.filters
            if filters is None or not filters.touches(unit.members):
                return
        self._apply(unit, remove)
        self._recount(unit.nodes)

    def _recount(self, touched: Iterable[int]) -> None:
        nodes, copies, items, needed = self.state.nodes, self.copies, self.items, self.needed
        for i in touched:
            old = copies.get(i)
            if old is not None:
                c = nodes[i].copies(items, needed)
                if c != old:
                    self.total += c - old
                    copies[i] = c

    def remove(self, unit: _Unit) -> None:
        self._change(unit, True)

    def remove_all(self, units: Sequence[_Unit]) -> None:
        """``remove`` of each unit in order, the copies of each touched node counted once at
        the end (the level search removes a whole level at a time)."""
        touched: set[int] = set()
        usable, out, nodes = self.usable, self.out, self.state.nodes
        filters = self.placer.filters
        for unit in units:
            members = unit.members
            if len(members) == 1 and filters is None:  # ``_apply`` of a one-pod unit, inlined
                pod, i = members[0]
                if i not in usable:
                    continue  # not relevant
                if out is not None:
                    out[unit] = None
                nodes[i].remove_requests(pod.requests)
                touched.add(i)
            elif self.relevant(unit):
                self._apply(unit, True)
                touched.update(unit.nodes)
        self._recount(sorted(touched))

    def add(self, unit: _Unit) -> None:
        self._change(unit, False)

    def feasible(self) -> bool:
        return self.total >= self.needed

    def try_add(self, unit: _Unit) -> bool:
        members = unit.members
        if len(members) == 1 and self.placer.filters is None and members[0][1] in self.copies:
            return self._try_add_pod(unit, *members[0])
        self._change(unit, False)
        if self.total >= self.needed:
            return True
        self._change(unit, True)
        return False

    def _try_add_pod(self, unit: _Unit, pod: Pod, i: int) -> bool:
        """``try_add`` of a one-pod unit on a counted node, without pod-dependent filters (the
        reprieve's usual case), in one go: the pod's requests put back on its node, its
        copies counted again, all taken back if the gang no longer fits."""
        old = self.copies[i]  # a counted node: usable, so the unit was removed from it
        node = self.state.nodes[i]
        node.add_requests(pod.requests)
        c = node.copies(self.items, self.needed)
        if self.total + c - old >= self.needed:
            self.total += c - old
            self.copies[i] = c
            if self.out is not None:
                del self.out[unit]
            return True
        node.remove_requests(pod.requests)
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
        filters = self.filters
        try:
            for k, pod in enumerate(self.pods):
                if len(placed) >= limit:
                    break
                s = self.shape_of[k]
                items = items_of[s]
                target = self.nominated[k]
                if target is not None and not (nodes[target].fits(items) and (
                        filters is None or filters.fits(pod, target))):
                    target = None
                if target is None:
                    if not buckets[s]:
                        continue
                    if filters is None:
                        bucket = buckets[s][max(buckets[s])]
                    else:  # the best score among the nodes passing the pod-dependent filters
                        bucket = set()
                        for score in sorted(buckets[s], reverse=True):
                            bucket = {i for i in buckets[s][score] if filters.fits(pod, i)}
                            if bucket:
                                break
                        if not bucket:
                            continue
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
                node.take(items)
                added.append((node, items))
                placed.append((pod, target))
                index.append(k)
                if filters is not None:
                    filters.place(pod, target)
                for s2 in range(shapes):
                    if target in self.allowed_set[s2]:
                        refresh(s2, target)
        finally:
            _undo_run(added, placed, filters)
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
        self.out = {}  # always kept: a failed search is undone before the fallback
        self.assigned: dict[int, tuple[dict[str, int], int]] = {}
        self.placed: list[tuple[Pod, int]] = []

    def restore(self) -> None:
        self.fix([])
        super().restore()

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
        return self._holds(self.assigned) and self._filters_hold()

    def try_add(self, unit: _Unit) -> bool:
        if not self.relevant(unit):
            return True
        self._apply(unit, False)
        filters = self.placer.filters
        if self._holds(unit.nodes) and (
                filters is None or not filters.touches(unit.members) or self._filters_hold()):
            return True
        self._apply(unit, True)
        return False


class _RescheduleCheck(_ClusterCheck):
    """Pods of several shapes placed by the scheduler's scoring: feasible iff a fresh scheduling
    run places ``needed`` pods (1.36 runs the pod group's scheduling again for every unit put
    back); no shortcut, as a scored placement may change with any node's load."""

    def __init__(self, state: ClusterState, placer: _Placer, needed: int) -> None:
        super().__init__(state, placer, needed)
        self.known = False
        self.ok = False

    def remove(self, unit: _Unit) -> None:
        if self.relevant(unit):
            self._apply(unit, True)
            self.known = False

    def add(self, unit: _Unit) -> None:
        if self.relevant(unit):
            self._apply(unit, False)
            self.known = False

    def feasible(self) -> bool:
        if not self.known:
            self.ok = len(self.placer.run(self.needed).placed) >= self.needed
            self.known = True
        return self.ok

    def try_add(self, unit: _Unit) -> bool:
        if not self.relevant(unit):
            return self.feasible()
        self.add(unit)
        if self.feasible():
            return True
        self.remove(unit)
        self.known, self.ok = True, True  # the state before: feasible
        return False


class _NodeCheck:
    """A single pod in a one-node domain: local arithmetic on that node only, so a PodGroup
    unit spanning many nodes costs O(resources) here, not O(its pods)."""

    __slots__ = ("alloc", "count", "filters", "i", "items", "out", "pod", "room", "used")

    def __init__(self, node: NodeState, i: int, items: RequestItems,
                 filters: PlanFilters | None = None, pod: Pod | None = None) -> None:
        self.i = i
        self.items = items
        self.filters = filters  # with the pod they ask about; ``restore`` undoes their moves
        self.pod = pod
        self.out: dict[_Unit, None] = {}
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
        filters = self.filters
        if filters is not None and filters.touches(unit.members):
            if sign < 0:
                filters.remove(unit.members)
                self.out[unit] = None
            else:
                filters.add(unit.members)
                del self.out[unit]

    def restore(self) -> None:
        """Give the filters back every unit this check still has out."""
        if self.filters is not None:
            for unit in self.out:
                self.filters.add(unit.members)
            self.out = {}

    def remove(self, unit: _Unit) -> None:
        self._shift(unit, -1)

    def add(self, unit: _Unit) -> None:
        self._shift(unit, 1)

    def feasible(self) -> bool:
        if self.count > self.room:
            return False
        if not all(u <= a for u, a in zip(self.used, self.alloc, strict=True)):
            return False
        return self.filters is None or self.filters.fits(self.pod, self.i)  # type: ignore[arg-type]

    def try_add(self, unit: _Unit) -> bool:
        self._shift(unit, 1)
        if self.feasible():
            return True
        self._shift(unit, -1)
        return False


# ---- plan -------------------------------------------------------------------------------------


def _placements(placed: Iterable[tuple[Pod, int]], state: ClusterState) -> tuple[Placement, ...]:
    return tuple(sorted((Placement(p.key, state.nodes[i].name) for p, i in placed),
                        key=lambda pl: pl.pod))


def _unplaced(preemptor: Preemptor, placed: Iterable[tuple[Pod, int]]) -> tuple[str, ...]:
    done = {p.key for p, _ in placed}
    return tuple(p.key for p in preemptor.pods if p.key not in done)


def _filter_summary(state: ClusterState, pod: Pod, cache: StaticFitCache,
                    filters: PlanFilters | None = None) -> str:
    """kube-scheduler style: how many nodes each static filter rejected (and, on nodes with
    room, each pod-dependent one), the "N reason" strings in byte order as upstream's
    ``FitError.Error`` sorts them (``sort.Strings`` in framework/types.go)."""
    nodes = state.nodes
    key = static_key(pod)
    counts = dict(cache.rejected(pod, nodes, key))  # the static filters' answers are kept
    if filters is not None:  # the pod-dependent ones, on the nodes with room
        items = request_items(pod.requests)
        for i in cache.passing(pod, nodes, key)[0]:
            if nodes[i].fits(items):
                reason = filters.reason(pod, i)
                if reason is not None:
                    counts[reason] = counts.get(reason, 0) + 1
    passing = len(state.nodes) - sum(counts.values())
    parts = [f"{n} {r}" for r, n in counts.items()]
    if passing:
        parts.append(f"{passing} node(s) without enough room")
    parts.sort()
    if not parts:
        return "the cluster has no nodes"
    return f"0/{len(state.nodes)} nodes are available: " + ", ".join(parts)


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
        self.ties: list[Tie] = []  # tie_list: the same, where the model has random choices
        self.tie_list = self.ties if model.priority_search == "none" else None
        is_pod = preemptor.kind == "Pod"
        # Which units a victim search sees (models.py): whole PodGroup-mode groups for a group
        # preemptor always, for a single pod only where the model says so.
        self.whole_groups = not is_pod or model.pod_preemptor_takes_groups_whole
        self.importance = model.importance(not is_pod)
        # A basic group places as many pods as fit (upstream); the KEP model asks for all.
        self.needed = preemptor.needed
        group = snapshot.pod_groups.get(preemptor.group_key or "") if not is_pod else None
        if group is not None and group.policy == "Basic" and model.name != "kep-5710":
            self.needed = min(1, len(preemptor.pods))
        self.policy = preemptor.preemption_policy
        if not is_pod and model.name != "kep-5710":
            if model.group_policy_own and group is not None:
                # PodGroupPreemptionPolicy: the PodGroup's own policy only
                # (manager.go getPreemptionPolicy)
                self.policy = group.declared_preemption_policy or PREEMPT_LOWER
            else:
                # 1.36 newPodGroupPreemptor / gate off: any member pod whose own policy is
                # Never makes the group Never; the PodGroup's policy is not read
                self.policy = (NEVER if any((p.own_preemption_policy or p.preemption_policy)
                                            == NEVER for p in preemptor.pods)
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
        # The accounting's victim-unit index pays from its second plan on: a single plan builds
        # its units from the running pods for less than the index costs to build.
        self.indexed = False
        if accounting is not None:
            plans = accounting.memo.get(_PLANS, 0)
            accounting.memo[_PLANS] = plans + 1  # type: ignore[operator]
            self.indexed = plans > 0
        self.checks: list[_ClusterCheck] = []  # whole-cluster checks that change the state
        try:
            placer_cls = _ScoredPlacer if model.scored_placement else _Placer
            self.placer = placer_cls(self.state, preemptor.pods, self.cache)
            if isinstance(self.placer, _ScoredPlacer):
                self.placer.rng = self.rng
            filters = PlanFilters(snapshot, self.state, preemptor.pods)
            self.filters = filters if filters.active else None
            self.placer.filters = self.filters
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
        return _filter_summary(self.state, self.preemptor.pods[0], self.cache, self.filters)

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
            budgets = self.budgets()
            found = self.plan_pod(units, budgets) if is_pod else self.plan_group(units, budgets)
            if found.status != UNSCHEDULABLE:
                return found
        if not self.model.terminating_free and state.terminating:
            # Terminating pods hold their resources upstream, and the lower-priority ones were
            # potential victims above. With no victims that make room while they hold (the
            # terminating pods of equal or higher priority stand in the way), the preemptor
            # fits once they are gone (no new victims), or with them gone and victims besides.
            # Upstream would answer Unschedulable now and retry once they are gone.
            for check in self.checks:
                check.restore()
            self.checks.clear()
            self.ties.clear()
            waiting = self.waiting(hold=False)
            if waiting is not None:
                return waiting
            units = self.victim_units()  # the terminating pods are gone: no victims now
            if units:
                budgets = self.budgets()
                again = (self.plan_pod(units, budgets) if is_pod
                         else self.plan_group(units, budgets))
                if again.status != UNSCHEDULABLE:
                    return again
        if found is not None:
            return found
        return self.result(UNSCHEDULABLE,
                           f"{desc} does not fit and no running pod has a preemption "
                           f"priority below {preemptor.priority} ({self.summary()}).")

    def budgets(self) -> _Budgets:
        """The PDB budgets as this model matches and spends them (kept with an accounting)."""
        rules = PdbRules(*self.model.pdb_rules(self.preemptor.kind == "PodGroup"))
        memo = self.accounting.memo if self.accounting is not None else None
        return _Budgets.of(self.snapshot.pdbs, memo, rules)

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
        used = {i for _, i in placed}
        where = (f"on node {state.nodes[placed[0][1]].name}" if self.preemptor.kind == "Pod"
                 else f"({len(placed)} of {len(pods)} pending pods placed)")
        reason = waiting_reason(desc, where, [p.preempted_by_scheduler
                                              for p, i in state.terminating if i in used])
        return self.result(WAITING, reason, placed, terminating=_terminating(state, used))

    def blocked_by_termination(self) -> Plan | None:
        """Upstream ``PodEligibleToPreemptOthers`` / the pod group's
        ``preemptorEligibleToPreemptOthers``: a preemptor with a pod nominated to a node where a
        pod of lower priority is terminating by preemption is not eligible to preempt; it waits
        for that node. "By preemption" needs the DisruptionTarget condition with reason
        PreemptionByScheduler where the model says so."""
        state, pre = self.state, self.preemptor
        if pre.kind == "PodGroup" and not self.model.group_waits_for_termination:
            return None  # 1.36 preemptorEligibleToPreemptOthers: preemptionPolicy only
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

    def victim_units(self) -> Sequence[_Unit]:
        """Step 4 in (priority, name) order: from the accounting's index if kept, else built."""
        pre, separate = self.preemptor, self.model.separate_preemption_priority
        if self.accounting is not None and self.indexed and not self.terminating_victims():
            return _UnitIndex.of(self.accounting, self.snapshot.pod_groups, separate,
                                 self.whole_groups).below(pre.priority, pre.group_key)
        return _victim_units(self.snapshot, self.state, pre, separate, self.whole_groups,
                             self.terminating_victims())

    def terminating_victims(self) -> bool:
        """Upstream models: a terminating pod still holding its resources is a potential victim
        (1.36 default_preemption.go SelectVictimsOnNode takes every lower-priority pod of the
        NodeInfo; upstream types.go getCrossNodesVictims iterates node.GetPods()). The KEP
        model counts them as free space instead. The kept index has running pods only, so
        when a terminating pod may be a victim (its own or its group's priority below the
        preemptor's) the units are built from the state."""
        state = self.state
        if self.model.terminating_free or state.released or not state.terminating:
            return False
        limit, own, groups = self.preemptor.priority, self.preemptor.group_key, \
            self.snapshot.pod_groups
        for pod, _ in state.terminating:
            gk = pod.group_key
            if gk is not None and gk == own:
                continue
            group = groups.get(gk) if gk is not None else None
            low = min(pod.priority, pod.preemption_priority)
            if group is not None:
                low = min(low, group.priority, group.preemption_priority)
            if low < limit:
                return True
        return False

    def units_per_node(self, ordered: Sequence[_Unit]) -> dict[int, list[_Unit]]:
        """The victim units on each node, each list in (priority, name) order."""
        pre = self.preemptor
        if self.accounting is not None and self.indexed and not self.terminating_victims():
            return _UnitIndex.of(self.accounting, self.snapshot.pod_groups,
                                 self.model.separate_preemption_priority,
                                 self.whole_groups).per_node(pre.priority, pre.group_key)
        per_node: dict[int, list[_Unit]] = {}
        for u in ordered:
            for i in u.nodes:
                per_node.setdefault(i, []).append(u)
        return per_node

    def plan_pod(self, units: Sequence[_Unit], budgets: _Budgets) -> Plan:
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
        filters = self.filters
        candidates: list[tuple[int, str, int, list[_Unit]]] = [
            (local[0].priority, nodes[i].name, i, local)
            for i, local in per_node.items() if i in allowed
            and (filters is None or not filters.unresolvable(pod, i))]
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
        chosen: tuple[int, list[_Unit], set[str], list[_Unit]] | None = None
        scored: list[tuple] = []
        for low, name, i, local in candidates:
            if binary and best is not None and best[0] == 0:
                if best[1] < low:
                    break
                if (prune and best[3] == 1 and best[1] == low
                        and not _may_beat_one(local, 0, low, best, name)):
                    continue
            node_check = _NodeCheck(state.nodes[i], i, items, filters, pod)
            try:  # the filters are shared by every node's search: give each one back
                search = _Level(local, node_check, presorted=True,
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
                victims, violating = search.reprieve(budgets, self.importance, None, rng)
            finally:
                node_check.restore()
            key = _node_score(victims, violating, name)
            if not binary:
                scored.append(key)
                if rng is not None:
                    key = (*key[:-1], rng.random(), name)  # the final pick at random
            if best is None or key < best:
                best, chosen = key, (i, victims, violating, local)
            if len(scored) >= sample:
                break
        if chosen is None or best is None:
            return self.result(UNSCHEDULABLE,
                               f"{self.desc} does not fit on any node even after preempting "
                               f"every lower-priority unit ({self.summary()}).")
        i, victim_units, violating, local = chosen
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
        if rng is None and self.tie_list is not None:  # the winner's reprieve, tie-checked
            node_ties(local, _NodeCheck(state.nodes[i], i, items, filters, pod), budgets,
                      self.importance, self.ties)
        chosen_victims = _victim_records(victim_units, violating, state)
        status, reason, victims, terminating = actuate(
            state, chosen_victims, [i], f"{self.desc} fits on node {state.nodes[i].name}")
        return self.result(status, reason, [(pod, i)], victims, terminating)

    def plan_group(self, units: Sequence[_Unit], budgets: _Budgets) -> Plan:
        """Steps 5-6 with the whole cluster as the domain."""
        if self.model.group_reprieve == "fixed":
            return self.plan_group_upstream(units, budgets)
        preemptor, state, placer = self.preemptor, self.state, self.placer
        needed = self.needed
        check: _ClusterCheck
        if placer.shapes == 1 and self.filters is not None:
            counted = self.plan_group_counted(units, budgets)
            if counted is not None:
                return counted
        if placer.shapes == 1 and self.filters is None:
            check = _CountCheck(state, placer, needed)
        elif isinstance(placer, _ScoredPlacer):
            check = _RescheduleCheck(state, placer, needed)
        else:
            check = _GreedyCheck(state, placer, needed)
        if not self.model.terminating_free:
            check.out = {}  # kept: a failed search is undone before the terminating fallback
        self.checks.append(check)
        # 1.36: every unit removed, the group scheduled again for each unit put back
        # (selectVictimsOnDomain's reprieveVictim calls podGroupSchedulingFunc); KEP: the
        # lowest level first
        search = _Level(units, check, presorted=True, search=self.model.priority_search)
        if search.level is None:
            most = len(placer.place(len(preemptor.pods)))
            return self.result(UNSCHEDULABLE,
                               f"{self.desc} needs {needed} pod(s) placed but at most {most} fit "
                               f"even after preempting every lower-priority unit "
                               f"({self.summary()}).")
        victim_units, violating = search.reprieve(budgets, self.importance, self.tie_list, self.rng)
        placed = self.place(len(preemptor.pods))
        return self.group_result(placed, victim_units, violating)

    def plan_group_counted(self, units: Sequence[_Unit], budgets: _Budgets) -> Plan | None:
        """One shape under pod-dependent filters: search and reprieve by per-node copy counts
        (resources only), then place with the filters and those victims. Where placing works
        this is the answer of the filter-aware search too (a set that passes the filters passes
        the counts, and feasibility is taken as monotone, as the level search does); else
        None, with everything given back, and the caller searches with the filters."""
        placer, state, filters = self.placer, self.state, self.filters
        assert filters is not None
        placer.filters = None  # the count check moves units in the state only
        check = _CountCheck(state, placer, self.needed)
        if not self.model.terminating_free:
            check.out = {}  # kept: a failed search is undone before the terminating fallback
        try:
            search = _Level(units, check, presorted=True, search=self.model.priority_search)
            ties: list[Tie] | None = [] if self.tie_list is not None else None
            if search.level is None:  # every unit out: no level makes room even by counts
                victim_units, violating = [], set()
                removed = list(search.by_priority[: search.removed])
            else:
                victim_units, violating = search.reprieve(budgets, self.importance, ties, self.rng)
                removed = list(victim_units)
        finally:
            placer.filters = filters
        for u in removed:
            filters.remove(u.members)
        known_ties = len(self.ties)
        placed = self.place(len(self.preemptor.pods)) if search.level is not None else []
        if len(placed) >= self.needed:
            self.checks.append(check)
            self.ties.extend(ties or ())
            return self.group_result(placed, victim_units, violating)
        del self.ties[known_ties:]
        for u in removed:
            filters.add(u.members)
        placer.filters = None
        try:
            for u in removed:
                check.add(u)
        finally:
            placer.filters = filters
        return None

    def plan_group_upstream(self, units: Sequence[_Unit], budgets: _Budgets) -> Plan:
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
        victim_units, violating = reprieve(units, check, budgets, self.importance, self.tie_list,
                                           self.rng)
        return self.group_result(placed, victim_units, violating)

    def group_result(self, placed: list[tuple[Pod, int]], victim_units: list[_Unit],
                     violating: set[str]) -> Plan:
        pods = self.preemptor.pods
        chosen = _victim_records(victim_units, violating, self.state)
        used = sorted({i for _, i in placed})
        status, reason, victims, terminating = actuate(
            self.state, chosen, used, f"{self.desc}: {len(placed)} of {len(pods)} pending pods "
            f"({self.needed} needed) fit on {_plural(len(used), 'node')}")
        return self.result(status, reason, placed, victims, terminating)


_PLANS = "plans"  # Accounting.memo key: how many plans have borrowed it


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
    it was found (its ``memo`` counts the plans and keeps the planner's victim-unit index from
    the second such plan on). The cyclic garbage collector is paused meanwhile (see
    ``wapctl.gcpause``).

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
