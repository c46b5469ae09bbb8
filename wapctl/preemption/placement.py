"""Placement of the preemptor's pods: ``Placer`` (greedy: nominated node first, then the
first node by name) and ``ScoredPlacer`` (the scheduler's default scores), each a recorded
``GreedyRun`` the feasibility checks (``feasibility``) re-check and resume."""
from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence

from wapctl.filters.plan_view import PlanFilters
from wapctl.fit import (
    ClusterState,
    NodeState,
    RequestItems,
    StaticFitCache,
    shape_key,
)
from wapctl.model import Pod
from wapctl.preemption.result import (
    Tie,
)
from wapctl.scoring import ShapeScorer


def _undo_run(added: Iterable[tuple[NodeState, RequestItems]],
              placed: Iterable[tuple[Pod, int]], filters: PlanFilters | None) -> None:
    """Take back what a placement run put into the plan's view: the pods' requests on their
    nodes and, with the pod-dependent filters active, the pods themselves."""
    for node, items in added:
        node.give_back(items)
    if filters is not None:
        for pod, i in placed:
            filters.unplace(pod, i)


class Placer:
    """Greedy placement of the preemptor's pods: each pod tries its nominated node first (if it
    still fits there), then the nodes in name order; pods that fit nowhere are skipped.

    Static predicates are evaluated once per (shape, node). Per shape, a cursor remembers the
    first node that may still have room: nodes before it had none and only fill up further during
    one placement run, so a run costs O(nodes + pods) rather than O(nodes x pods).
    """

    def __init__(self, state: ClusterState, pods: Sequence[Pod], cache: StaticFitCache) -> None:
        self.state = state
        self.pods = list(pods)
        shapes: dict[tuple[object, ...], int] = {}
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

    def run(self, limit: int, resume: GreedyRun | None = None, start: int = 0) -> GreedyRun:
        """One greedy placement run, recorded so that a later run can resume from pod
        ``start`` of this one (``resume``) when nothing before that pod can change.

        The fit test and the bookkeeping work on request items (``NodeState.fits`` /
        ``take``): this loop is what every greedy check of a multi-shape gang runs.
        """
        nodes, own = self.state.nodes, self.state.own
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
                node, items = own(i), self.items[self.shape_of[k]]
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
                    node = own(target)
                    node.take(items)
                    added.append((node, items))
                    placed.append((pod, target))
                    index.append(k)
                    if filters is not None:
                        filters.place(pod, target)
        finally:
            _undo_run(added, placed, filters)
        return GreedyRun(placed, index, cursors)


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


class GreedyRun:
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



class ScoredPlacer(Placer):
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

    def run(self, limit: int, resume: GreedyRun | None = None, start: int = 0) -> GreedyRun:
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
                node = self.state.own(target)
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
        return GreedyRun(placed, index, [])

