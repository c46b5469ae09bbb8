"""Replay the scheduling queue with delayed preemption (KEP-5710) on top of ``preemption.plan``.

A single plan answers "what happens next"; a replay answers "where does this end": victims are
recreated by their controllers, come back to the queue and may preempt their preemptors back —
the KEP-5710 ping-pong of a workload whose preemption priority is below its scheduling one.

Pure and deterministic: no I/O, no wall clock, no randomness. The clock is the step number.

The queue
    Units are what the scheduler pops: a pending pod, or a gang pod group (all its pending pods),
    exactly as :func:`wapctl.preemptor.pending_preemptors` selects them, in scheduler order
    (priority desc, then creation time, then key). ``namespace`` limits the queue to that
    namespace, also for recreated pods; victims stay cluster-wide.

One step (step numbers start at 1)
    1. Terminating pods whose grace period is over finish: they leave the cluster.
    2. The head of the queue is planned on the current state and the plan applied:

       - ``Schedulable`` -> action ``Bound``: the placed pods get the node, phase Running, a start
         time of now; their nominations are cleared.
       - ``RequiresPreemption``: the victims become terminating, marked DisruptionTarget /
         PreemptionByScheduler as the scheduler marks them (delayed preemption actuates only
         once the whole gang has a placement, which a plan always gives); the preemptor's pods
         are nominated to their placement nodes and the unit goes straight back to the queue
         (sanposhiho/wojtek-t in the KEP review: return immediately, retry while the victims
         terminate, treat triggered preemptions as free space). A pod the upstream models
         choose again while it still terminates is no new victim (``preemption.outcome``, as
         upstream ``prepareCandidate`` skips it): it keeps its finish time, and a plan whose
         chosen victims all are terminating already is ``WaitingForTermination``.
       - ``WaitingForTermination``: nominations kept (set to the plan's nodes); the unit is parked
         until every terminating pod the plan relies on has finished — no busy loop.
       - ``Unschedulable``: nominations cleared (as upstream clears them when PostFilter finds
         nothing); the unit is parked until something could help it (see *Waking*).

       With no unit to pop, the step only lets every terminating pod finish (action
       ``Finished``): nothing else could happen before they do.
    3. Pods that finished in this step are recreated (unless ``requeue=False``): same name, same
       spec, no node, no nomination, created now; they join the queue at the end of the step —
       a controller recreates a pod after the scheduler has moved the waiting preemptor, so the
       preemptor takes the space it freed before its victim can compete for it. A
       ``PodGroup``-mode group preempted as a unit terminates, finishes and returns whole.

    So a victim preempted in step *k* is terminating through step *k + 1* (the preemptor's retry
    sees it as free space: ``WaitingForTermination``, no new victims) and finishes at the start of
    step *k + 2*. Pods already terminating in the snapshot finish at the start of step 2.

Identity
    A recreated pod keeps its name, so it is the same pod to the state comparison and the cycle
    search. A *member* of the preemption relation is a pod group (``ns/workload/group``) for pods
    that belong to one — whatever the unit it was preempted as — else the pod (``ns/name``):
    the pods of one group share its priorities and are recreated into it.

Time stamps
    The logical clock maps step *n* to ``T + n`` seconds, where *T* is the latest creation or
    start time in the snapshot: a pod recreated or bound in the replay is younger than every pod
    in it, as it would be (``T = 0`` without time stamps).

Waking (why parked units cannot miss a chance)
    The plan already counts terminating pods as free space, so a pod *finishing* never helps an
    ``Unschedulable`` unit. What can help it:

    - a pod that was no candidate victim starting to terminate (its preemption priority >= the
      unit's priority, it belongs to the unit's own pod group, or the unit never preempts);
    - a nomination that reserved room against the unit being released (the nominated pod's
      priority >= the unit's);
    - a nominated pod that reserved room against the unit binding there while the unit may
      preempt it (pending pods are no victims; only a pod breaking the KEP-5710 rule can both
      reserve against a unit and be its victim).

    A unit whose step changed nothing (a gang that already has its minCount and whose extra pods
    do not fit now) is parked and woken by a termination, a release or any pod finishing. A unit
    whose pending pods change (a gang member recreated) is woken. The tests check after every
    step, on random clusters, that a fresh plan of each parked unit agrees it cannot move.

Cycles (the replay stops at the first)
    - ``MutualPreemption``: the observed relation "a pod of member X preempted a pod of member
      Y" closes a directed cycle — in the simplest case the same pair in both directions (B
      preempted A, then A preempted B). Each edge X -> Y needs X's scheduling priority above
      Y's preemption priority and X not ``Never``, so such a cycle is always a cycle of the
      static priority graph (``wapctl.graph``) and needs a member breaking the KEP-5710 rule.
    - ``RepeatedState``: the whole state at the end of a step equals the state at the end of an
      earlier step — every pod on the same node (or pending, or terminating with the same time
      left), the same nominations, every unit queued or parked as before. The comparison uses a
      128-bit multiset hash updated only for what changed. Time stamps are not part of the state:
      two states that differ only in the age order of equal-priority pods count as the same.
      This also catches the *preempt-and-steal* livelock, which is no static cycle: Y
      (scheduling 1000, preemption 100, even ``Never``) is preempted by X (500); another pod
      of Y, ahead of X in the queue, takes the room X freed (X's nomination does not reserve
      room against a higher priority, as upstream); X preempts again, forever. It needs a
      member breaking the KEP-5710 rule too (Y), which ``check-cycles`` reports as a violation.

When a static cycle does not show up live
    ``wapctl.graph`` reports what priorities *allow*; the replay shows what *happens* from this
    snapshot. A static cycle stays silent when there is no capacity contention (everything
    fits), when the profiles involved have no running or pending pods (a Workload applied without
    pods), when a ``Never`` policy or a node constraint (selector, taint, affinity) keeps the
    pods apart, when ``requeue=False`` (victims never come back), when a higher-priority
    preemptor takes the space first, or when ``max_steps`` ends the replay before the cycle
    closes. Conversely a ``MutualPreemption`` cycle is always a static cycle (a pod group never
    preempts its own pods, which is why ``wapctl.graph`` needs two units for a self-loop), and a
    ``RepeatedState`` cycle always has a rule-violating member (tests/test_simulate.py checks
    both on random clusters), but may be no static cycle (preempt-and-steal, above).

Termination
    Every step either changes the state or parks a unit, so at most ``max_steps`` steps run. The
    result is exactly one of: ``converged`` (no unit queued and nothing terminating: no further
    step can change anything), a ``cycle``, or ``hit_step_limit``.

Cost per step: one ``plan`` on a ``fit.Accounting`` kept up to date with every pod write (no
rebuild from the whole snapshot, no copy of the pod mapping; the plan's own victim search still
looks at every candidate victim when the preemptor does not fit), plus work proportional to what
the step changed.
"""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from itertools import pairwise
from types import MappingProxyType
from typing import Final, Literal

from msgspec.structs import replace as struct_replace

from wapctl.fit import Accounting
from wapctl.model import NEVER, Pod, Snapshot
from wapctl.models import BehaviourModel, as_seen_by, select_model
from wapctl.preemption import (
    REQUIRES_PREEMPTION,
    SCHEDULABLE,
    UNSCHEDULABLE,
    WAITING,
    Placement,
    Plan,
    TerminatingPod,
    Victim,
    plan,
)
from wapctl.preemptor import (
    Preemptor,
    bound_members,
    group_preemptor,
    pending_preemptors,
    pod_preemptor,
    queue_key,
)

DEFAULT_MAX_STEPS = 1000

BOUND: Final = "Bound"
FINISHED: Final = "Finished"
Action = Literal[
    "Bound", "RequiresPreemption", "WaitingForTermination", "Unschedulable", "Finished"
]
CycleKind = Literal["MutualPreemption", "RepeatedState"]
UnitState = Literal["Queued", "Parked", "Waiting"]

_MASK = (1 << 128) - 1
_ABSENT = ("<absent>",)


# ---- results ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UnitRef:
    """A queue unit: a pod (``ns/name``) or a gang pod group (``ns/workload/group``)."""

    kind: Literal["Pod", "PodGroup"]
    name: str
    priority: int


@dataclass(frozen=True, slots=True)
class PodOnNode:
    pod: str
    node: str


@dataclass(frozen=True, slots=True)
class Step:
    """What one step did. Lists are sorted by pod key."""

    number: int
    action: Action
    preemptor: UnitRef | None  # None for a ``Finished``-only step
    reason: str
    placements: tuple[Placement, ...] = ()  # bound (Bound) or nominated (other actions)
    victims: tuple[Victim, ...] = ()  # made terminating in this step
    waiting_for: tuple[TerminatingPod, ...] = ()  # terminating pods the plan waits for
    finished: tuple[PodOnNode, ...] = ()  # terminating pods that finished in this step
    requeued: tuple[str, ...] = ()  # finished pods recreated as pending at the end of the step

    @property
    def nodes(self) -> tuple[str, ...]:
        """The distinct nodes of the preemptor's placements."""
        return tuple(sorted({p.node for p in self.placements}))


@dataclass(frozen=True, slots=True)
class CycleMember:
    """A pod group or a pod on its own, and the pods of it that took part in the cycle."""

    kind: Literal["Pod", "PodGroup"]
    name: str  # pod "ns/name" or PodGroup "ns/workload/group"
    workload: str | None  # Workload "ns/name"
    priority: int  # scheduling priority
    preemption_priority: int
    pods: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RelationEdge:
    """A pod of ``source`` preempted a pod of ``target`` in ``step`` (the latest such step)."""

    source: str
    target: str
    step: int


@dataclass(frozen=True, slots=True)
class Cycle:
    kind: CycleKind
    members: tuple[CycleMember, ...]  # in cycle order (MutualPreemption) or by name
    steps: tuple[int, ...]  # the steps that formed it, ascending
    edges: tuple[RelationEdge, ...] = ()  # MutualPreemption: the edges closing it, in order
    repeats_step: int | None = None  # RepeatedState: the step whose end state came back


@dataclass(frozen=True, slots=True)
class Leftover:
    """A unit still in the queue at the end, with what its last plan said."""

    unit: UnitRef
    pods: int  # pending pods in it
    state: UnitState  # Queued (would be tried next), Parked, Waiting (for terminations)
    last_status: str | None  # None: never tried
    last_reason: str | None


@dataclass(frozen=True, slots=True)
class FinalState:
    step: int  # the last step run (0: none)
    bound: int  # bound, running pods
    pending: int
    terminating: int
    completed: int  # Succeeded/Failed
    removed: int  # finished and not recreated (requeue=False)
    preemptors: tuple[Leftover, ...]  # in queue order


@dataclass(frozen=True, slots=True)
class SimulationResult:
    steps: tuple[Step, ...]
    converged: bool
    cycle: Cycle | None
    hit_step_limit: bool
    max_steps: int
    requeue: bool
    namespace: str | None
    final: FinalState
    snapshot: Snapshot  # the state after the last step


# ---- helpers ---------------------------------------------------------------------------------


def _digest(item: tuple[object, ...]) -> int:
    """A stable (not salted per process) 128-bit hash."""
    return _digest_text(repr(item))


def _digest_text(text: str) -> int:
    """``_digest`` of the item whose ``repr`` is ``text``."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=16).digest(), "big")


def _pod_state(pod: Pod | None) -> tuple[object, ...]:
    """What of a pod the state comparison sees (terminating pods are hashed with their time
    left, separately)."""
    if pod is None:
        return _ABSENT
    return (pod.key, pod.node_name, pod.terminating, pod.nominated_node, pod.phase)


class _Unit:
    """A queue unit and where it is: Queued, parked Unschedulable / Idle, or Waiting."""

    __slots__ = ("_pods_text", "group", "hashed", "key", "kind", "last_reason", "last_status",
                 "own_group", "pods", "policy", "priority", "queue_key", "state", "version",
                 "waiting_on")

    def __init__(self, key: str, kind: str, priority: int, policy: str,
                 group: str | None, own_group: str | None) -> None:
        self.key = key
        self.kind = kind  # "Pod" | "PodGroup"
        self.priority = priority
        self.policy = policy
        self.group = group  # group key for a gang unit
        self.own_group = own_group  # the pods' pod group: never victims of this unit
        self.pods: set[str] = set()
        self.state = "New"  # New | Queued | Unschedulable | Idle | Waiting
        self.version = 0
        self.waiting_on: frozenset[str] = frozenset()
        self.last_status: str | None = None
        self.last_reason: str | None = None
        # kept until ``pods`` changes (``pods_changed``): the scheduler-queue key, the text of
        # the sorted pod keys in the digest
        self.queue_key: tuple[object, ...] | None = None
        self._pods_text: str | None = None
        self.hashed = 0  # the digest this unit adds to the state hash now

    def pods_changed(self) -> None:
        self.queue_key = None
        self._pods_text = None

    def ref(self) -> UnitRef:
        return UnitRef(self.kind, self.key, self.priority)  # type: ignore[arg-type]

    def public_state(self) -> UnitState:
        if self.state == "Waiting":
            return "Waiting"
        return "Queued" if self.state == "Queued" else "Parked"

    def digest(self) -> int:
        """``_digest(("unit", key, state, sorted waiting_on, sorted pods))``, the text of the
        sorted pods kept (a gang's can be long)."""
        pods = self._pods_text
        if pods is None:
            pods = self._pods_text = repr(tuple(sorted(self.pods)))
        text = (f"('unit', {self.key!r}, {self.state!r}, {tuple(sorted(self.waiting_on))!r}, "
                f"{pods})")
        return _digest_text(text)


class _Replay:
    """The mutable replay state. Everything it hands out (snapshots, steps) is immutable.

    ``incremental`` (the default) keeps one ``fit.Accounting`` updated with every pod write and
    plans on it, so a step costs what it changes plus the plan's own search; without it every
    plan gets a fresh snapshot (a copy of the pod mapping) and rebuilds the accounting from it.
    Both give the same steps (tests/test_simulate_incremental.py).
    """

    def __init__(self, snapshot: Snapshot, *, requeue: bool, namespace: str | None,
                 incremental: bool = True, model: BehaviourModel | None = None) -> None:
        self.base = snapshot
        self.model = model if model is not None else select_model(snapshot)
        self.requeue = requeue
        self.namespace = namespace
        self.pods: dict[str, Pod] = dict(sorted(snapshot.pods.items()))
        self.shared = False  # self.pods is referenced by a Snapshot: copy before writing
        self.accounting: Accounting | None = Accounting(snapshot) if incremental else None
        times = [t for p in self.pods.values() for t in (p.creation_time, p.start_time)
                 if t is not None]
        self.t0 = max(times, default=0.0)
        self.step = 0
        self.group_bound: dict[str, int] = bound_members(snapshot)
        # terminating pod -> the step at whose start it finishes
        self.finish_at: dict[str, int] = {k: 2 for k, p in self.pods.items()
                                          if p.terminating and not p.finished}
        self.removed = 0
        # the queue
        self.units: dict[str, _Unit] = {}
        self.heap: list[tuple[tuple[object, ...], int, str]] = []
        self.parked_unsched: dict[str, _Unit] = {}
        self.parked_idle: dict[str, _Unit] = {}
        self.waiters: dict[str, set[str]] = {}  # terminating pod -> units waiting for it
        # the state hash: sum over pods written so far of h(now) - h(at the start), plus the
        # units, plus the terminating pods with their time left (recomputed: they are few)
        self.pod_hash = 0
        self.unit_hash = 0
        self.seen_states: dict[int, int] = {}
        # the observed preemption relation: source member -> target member -> latest step
        self.relation: dict[str, dict[str, int]] = {}
        # per step: (source member, target member, victim pod) of each preemption
        self.step_edges: dict[int, list[tuple[str, str, str]]] = {}
        self.steps: list[Step] = []
        for pre in pending_preemptors(snapshot, namespace):
            unit = _Unit(pre.key, pre.kind, pre.priority, pre.preemption_policy,
                         pre.group_key if pre.kind == "PodGroup" else None, pre.group_key)
            unit.pods.update(p.key for p in pre.pods)
            self.units[unit.key] = unit
            self._set_state(unit, "Queued")

    # ---- pods and snapshots --------------------------------------------------------------

    def clock(self, step: int) -> float:
        return self.t0 + step

    def snapshot(self) -> Snapshot:
        self.shared = True
        return replace(self.base, pods=self.pods)

    def _plan(self, pre: Preemptor) -> Plan:
        if self.accounting is None:
            return plan(self.snapshot(), pre, model=self.model)
        # The plan reads pods only through the accounting; the read-only view of the live
        # mapping is for the snapshot's other parts and is not kept, so nothing is copied.
        return plan(replace(self.base, pods=MappingProxyType(self.pods)), pre, model=self.model,
                    state=self.accounting)

    def _set_pod(self, key: str, pod: Pod | None) -> None:
        """Write (or, with None, remove) a pod; keeps the per-group bound counts (they decide a
        gang's target) and the state hash."""
        if self.shared:
            self.pods = dict(self.pods)
            self.shared = False
        old = self.pods.get(key)
        group = (old.group_key if old is not None else None) or (
            pod.group_key if pod is not None else None)
        if group is not None:
            delta = int(_counts_bound(pod)) - int(_counts_bound(old))
            if delta:
                self.group_bound[group] = self.group_bound.get(group, 0) + delta
        self.pod_hash = (self.pod_hash - _digest(_pod_state(old)) + _digest(_pod_state(pod))) \
            & _MASK
        if self.accounting is not None:
            self.accounting.update(old, pod)
        if pod is None:
            del self.pods[key]
        else:
            self.pods[key] = pod  # an existing key keeps its (sorted) position

    def _member(self, pod_key: str) -> str:
        """The relation member of a pod: its pod group, else the pod."""
        pod = self.pods.get(pod_key) or self.base.pods[pod_key]
        return pod.group_key or pod.key

    # ---- units ---------------------------------------------------------------------------

    def _preemptor(self, unit: _Unit) -> Preemptor:
        pods = [self.pods[k] for k in sorted(unit.pods)]
        if unit.kind == "Pod":
            return pod_preemptor(pods[0])
        group = self.base.pod_groups[unit.group]  # type: ignore[index]
        return group_preemptor(self.base, group, pods, self.group_bound)

    def _set_state(self, unit: _Unit, state: str, waiting_on: frozenset[str] = frozenset(),
                   pods: Iterable[str] = (), placed: Iterable[str] = ()) -> None:
        """Move a unit, adding pending ``pods`` to it and taking ``placed`` ones out;
        ``Gone`` drops it."""
        if unit.state != "New":
            self.unit_hash = (self.unit_hash - unit.hashed) & _MASK
        self.parked_unsched.pop(unit.key, None)
        self.parked_idle.pop(unit.key, None)
        for pod in unit.waiting_on:
            waiting = self.waiters.get(pod)
            if waiting is not None:
                waiting.discard(unit.key)
                if not waiting:
                    del self.waiters[pod]
        if pods or placed:
            unit.pods.update(pods)
            unit.pods.difference_update(placed)
            unit.pods_changed()
        unit.state = state
        unit.waiting_on = waiting_on
        unit.version += 1  # every heap entry of it is stale now
        if state == "Gone":
            del self.units[unit.key]
            return
        if state == "Queued":
            heapq.heappush(self.heap, (self._queue_key(unit), unit.version, unit.key))
        elif state == "Unschedulable":
            self.parked_unsched[unit.key] = unit
        elif state == "Idle":
            self.parked_idle[unit.key] = unit
        elif state == "Waiting":
            for pod in waiting_on:
                self.waiters.setdefault(pod, set()).add(unit.key)
        unit.hashed = unit.digest()
        self.unit_hash = (self.unit_hash + unit.hashed) & _MASK

    def _queue_key(self, unit: _Unit) -> tuple[object, ...]:
        """``queue_key`` of the unit's preemptor: it reads the unit's priority and key and its
        pods' creation times, which change only with its pods (a recreated pod joins through
        ``_set_state``), so it is kept until they change."""
        key = unit.queue_key
        if key is None:
            key = unit.queue_key = queue_key(self._preemptor(unit))
        return key

    def _head(self) -> _Unit | None:
        """The next unit the scheduler would pop (stale heap entries are dropped)."""
        heap = self.heap
        while heap:
            _, version, key = heap[0]
            unit = self.units.get(key)
            if unit is not None and unit.version == version:
                return unit
            heapq.heappop(heap)
        return None

    def _wake(self, unit: _Unit) -> None:
        if unit.state != "Queued":
            self._set_state(unit, "Queued")

    # ---- events that may help parked units (module docstring, *Waking*) ------------------

    def _on_terminating(self, pod: Pod) -> None:
        """``pod`` starts terminating: free space for every unit that could not have taken it
        as a victim (it never preempts, the pod is not of lower priority, or of its own
        group)."""
        for unit in list(self.parked_unsched.values()):
            if (unit.policy == NEVER or pod.preemption_priority >= unit.priority
                    or (pod.group_key is not None and pod.group_key == unit.own_group)):
                self._wake(unit)
        self._wake_idle()

    def _on_bound(self, was: Pod) -> None:
        """``was``, a nominated pending pod, now runs on its node: units it reserved room
        against (priority >= theirs) may now preempt it, if its preemption priority is below
        theirs. (A pod binding where it reserved nothing takes room that was free.)"""
        if was.nominated_node is None:
            return
        for unit in list(self.parked_unsched.values()):
            if (unit.policy != NEVER and was.priority >= unit.priority
                    and was.preemption_priority < unit.priority
                    and (was.group_key is None or was.group_key != unit.own_group)):
                self._wake(unit)

    def _on_release(self, pod: Pod) -> None:
        """``pod``'s nomination is gone: it no longer reserves room against lower priorities."""
        for unit in list(self.parked_unsched.values()):
            if pod.priority >= unit.priority:
                self._wake(unit)
        self._wake_idle()

    def _wake_idle(self) -> None:
        for unit in list(self.parked_idle.values()):
            self._wake(unit)

    def _nominate(self, pod_key: str, node: str | None) -> None:
        pod = self.pods[pod_key]
        if pod.nominated_node == node:
            return
        if pod.nominated_node is not None:
            self._on_release(pod)
        self._set_pod(pod_key, struct_replace(pod, nominated_node=node))

    # ---- one step ------------------------------------------------------------------------

    def _finish(self, everything: bool) -> list[PodOnNode]:
        """Terminating pods whose time is up (or all of them) leave the cluster."""
        due = sorted(k for k, at in self.finish_at.items() if everything or at <= self.step)
        out = []
        waiting: set[str] = set()  # units waiting for one of them
        for key in due:
            del self.finish_at[key]
            out.append(PodOnNode(key, self.pods[key].node_name or ""))
            self._set_pod(key, None)
            waiting.update(self.waiters.get(key, ()))
        # each unit moves once, by all the pods it waited for that finished (one by one, a
        # gang waiting for N pods would be moved and hashed N times)
        gone = frozenset(due)
        for unit_key in sorted(waiting):
            unit = self.units[unit_key]
            left = unit.waiting_on - gone
            if left:
                self._set_state(unit, "Waiting", left)
            else:
                self._set_state(unit, "Queued")
        if out:
            self._wake_idle()
        return out

    def _requeue(self, finished: Iterable[PodOnNode], original: dict[str, Pod]) -> list[str]:
        """Recreate finished pods as pending pods of their workload, and queue them."""
        out: list[str] = []
        if not self.requeue:
            self.removed += sum(1 for _ in finished)
            return out
        now = self.clock(self.step)
        for item in finished:
            new = struct_replace(original[item.pod], node_name=None, phase="Pending",
                                 terminating=False, nominated_node=None, creation_time=now,
                                 start_time=None)
            self._set_pod(item.pod, new)
            out.append(item.pod)
            if self.namespace is not None and new.namespace != self.namespace:
                continue
            group = self.base.pod_groups.get(new.group_key) if new.group_key else None
            if group is not None and group.policy == "Gang":
                unit = self.units.get(group.key)
                if unit is None:
                    unit = self.units[group.key] = _Unit(
                        group.key, "PodGroup", group.priority, group.preemption_policy, group.key,
                        group.key)
            else:
                unit = self.units[new.key] = _Unit(new.key, "Pod", new.priority,
                                                   new.preemption_policy, None, new.group_key)
            # a unit whose pending pods change is queued (again: its creation time may move)
            self._set_state(unit, "Queued", pods=(new.key,))
        return out

    def run_step(self) -> Step:
        self.step += 1
        n = self.step
        original = {k: self.pods[k] for k in self.finish_at}
        finished = self._finish(everything=False)
        unit = self._head()
        if unit is None:
            finished += self._finish(everything=True)
            finished.sort(key=lambda f: f.pod)
            requeued = self._requeue(finished, original)
            return Step(n, FINISHED, None,
                        f"No preemptor can be tried; {len(finished)} terminating pod(s) "
                        f"finished.", finished=tuple(finished), requeued=tuple(requeued))
        step = self._apply(unit, tuple(finished))
        requeued = self._requeue(finished, original)
        return replace(step, requeued=tuple(requeued))

    def _apply(self, unit: _Unit, finished: tuple[PodOnNode, ...]) -> Step:
        n = self.step
        pre = self._preemptor(unit)
        result = self._plan(pre)
        unit.last_status, unit.last_reason = result.status, result.reason
        ref = unit.ref()
        placed = {p.pod: p.node for p in result.placements}

        if result.status == SCHEDULABLE:
            now = self.clock(n)
            for key, node in sorted(placed.items()):
                pod = self.pods[key]
                if pod.nominated_node is not None and pod.nominated_node != node:
                    self._on_release(pod)
                bound = struct_replace(pod, node_name=node, phase="Running", start_time=now,
                                       nominated_node=None)
                self._set_pod(key, bound)
                self._on_bound(pod)
            for key in result.unplaced:
                self._nominate(key, None)
            # a gang's extra pods that do not fit now wait for a change
            self._set_state(unit, "Idle" if unit.pods - placed.keys() else "Gone",
                            placed=placed)
            return Step(n, BOUND, ref, result.reason, result.placements, finished=finished)

        if result.status == REQUIRES_PREEMPTION:
            source = self._member(pre.pods[0].key)
            edges = self.step_edges.setdefault(n, [])
            for victim in result.victims:  # never a terminating pod (preemption.outcome)
                pod = self.pods[victim.pod]
                target = self._member(victim.pod)
                edges.append((source, target, victim.pod))
                if target != source:
                    self.relation.setdefault(source, {})[target] = n
                # the scheduler marks its victims DisruptionTarget / PreemptionByScheduler
                self._set_pod(victim.pod, struct_replace(pod, terminating=True,
                                                         preempted_by_scheduler=True))
                self.finish_at[victim.pod] = n + 2
                self._on_terminating(pod)
            self._nominate_all(pre, placed)
            self._set_state(unit, "Queued")  # straight back: retry while the victims go
            return Step(n, REQUIRES_PREEMPTION, ref, result.reason, result.placements,
                        result.victims, result.terminating, finished)

        if result.status == WAITING:
            self._nominate_all(pre, placed)
            waiting = frozenset(t.pod for t in result.terminating if t.pod in self.finish_at)
            self._set_state(unit, "Waiting" if waiting else "Idle", waiting)
            return Step(n, WAITING, ref, result.reason, result.placements,
                        waiting_for=result.terminating, finished=finished)

        assert result.status == UNSCHEDULABLE, result.status
        for pod in pre.pods:
            self._nominate(pod.key, None)
        self._set_state(unit, "Unschedulable")
        return Step(n, UNSCHEDULABLE, ref, result.reason, finished=finished)

    def _nominate_all(self, pre: Preemptor, placed: dict[str, str]) -> None:
        for pod in pre.pods:
            self._nominate(pod.key, placed.get(pod.key))

    # ---- cycles --------------------------------------------------------------------------

    def _relation_cycle(self, n: int) -> Cycle | None:
        """Does an edge added in step ``n`` close a directed cycle of the relation?"""
        for source, target in sorted({(s, t) for s, t, _ in self.step_edges.get(n, ())}):
            if source == target:
                continue
            path = self._path(target, source)
            if path is not None:
                return self._mutual_cycle([source, *path])
        return None

    def _path(self, start: str, goal: str) -> list[str] | None:
        """Shortest relation path start -> ... -> goal (BFS, neighbours in name order)."""
        parent: dict[str, str | None] = {start: None}
        frontier = [start]
        while frontier:
            nxt = []
            for node in frontier:
                for succ in sorted(self.relation.get(node, ())):
                    if succ in parent:
                        continue
                    parent[succ] = node
                    if succ == goal:
                        path = [succ]
                        cur: str | None = node
                        while cur is not None:
                            path.append(cur)
                            cur = parent[cur]
                        return path[::-1]
                    nxt.append(succ)
            frontier = nxt
        return None

    def _mutual_cycle(self, walk: list[str]) -> Cycle:
        """``walk`` = [source, target, ..., source]; the cycle starts at its oldest edge."""
        names = walk[:-1]
        edges = [RelationEdge(a, b, self.relation[a][b]) for a, b in pairwise(walk)]
        first = min(range(len(edges)), key=lambda i: (edges[i].step, i))
        edges = edges[first:] + edges[:first]
        names = names[first:] + names[:first]
        pods: dict[str, set[str]] = {name: set() for name in names}
        for edge in edges:
            for source, target, victim in self.step_edges[edge.step]:
                if source == edge.source and target == edge.target:
                    pods[target].add(victim)
            pods[edge.source].update(p.pod for p in self.steps[edge.step - 1].placements)
        members = tuple(self._cycle_member(name, pods[name]) for name in names)
        return Cycle("MutualPreemption", members, tuple(sorted({e.step for e in edges})),
                     tuple(edges))

    def _cycle_member(self, name: str, pods: set[str]) -> CycleMember:
        group = self.base.pod_groups.get(name)
        if group is not None:
            return CycleMember("PodGroup", name, f"{group.namespace}/{group.workload}",
                               group.priority, group.preemption_priority, tuple(sorted(pods)))
        pod = self.pods.get(name) or self.base.pods[name]
        return CycleMember("Pod", name, None, pod.priority, pod.preemption_priority,
                           tuple(sorted(pods)))

    def state_hash(self) -> int:
        h = (self.pod_hash + self.unit_hash) & _MASK
        for key, at in self.finish_at.items():
            h = (h + _digest(("terminating", key, at - self.step))) & _MASK
        return h

    def _state_cycle(self, earlier: int) -> Cycle:
        loop = self.steps[earlier:]
        names: dict[str, set[str]] = {}
        for record in loop:
            for source, target, victim in self.step_edges.get(record.number, ()):
                names.setdefault(source, set()).update(p.pod for p in record.placements)
                names.setdefault(target, set()).add(victim)
        if not names:  # no preemption in the loop: name its preemptors
            for record in loop:
                if record.preemptor is not None:
                    ref = record.preemptor
                    name = ref.name if ref.kind == "PodGroup" else self._member(ref.name)
                    names.setdefault(name, set()).update(p.pod for p in record.placements)
        members = tuple(self._cycle_member(name, names[name]) for name in sorted(names))
        return Cycle("RepeatedState", members, tuple(r.number for r in loop),
                     repeats_step=earlier)

    # ---- driving -------------------------------------------------------------------------

    def quiet(self) -> bool:
        """Nothing queued and nothing terminating: no further step can change anything."""
        return not self.finish_at and self._head() is None

    def check_cycles(self, step: Step) -> Cycle | None:
        cycle = self._relation_cycle(step.number)
        if cycle is not None:
            return cycle
        h = self.state_hash()
        earlier = self.seen_states.get(h)
        if earlier is not None:
            return self._state_cycle(earlier)
        self.seen_states[h] = step.number
        return None

    def final(self) -> FinalState:
        bound = pending = terminating = completed = 0
        for pod in self.pods.values():
            if pod.finished:
                completed += 1
            elif pod.terminating:
                terminating += 1
            elif pod.bound:
                bound += 1
            else:
                pending += 1
        order = sorted(self.units.values(), key=self._queue_key)
        left = tuple(Leftover(u.ref(), len(u.pods), u.public_state(), u.last_status,
                              u.last_reason) for u in order)
        return FinalState(self.step, bound, pending, terminating, completed, self.removed, left)


def _counts_bound(pod: Pod | None) -> bool:
    """Bound and running: counts toward its gang's minCount."""
    return pod is not None and pod.running


def simulate(
    snapshot: Snapshot,
    *,
    max_steps: int = DEFAULT_MAX_STEPS,
    requeue: bool = True,
    namespace: str | None = None,
    on_step: Callable[[Step], None] | None = None,
    model: BehaviourModel | None = None,
    _incremental: bool = True,
) -> SimulationResult:
    """Replay the queue from ``snapshot`` until it converges, cycles or runs ``max_steps`` steps
    (see the module docstring). ``on_step`` is called after every step (progress display).
    ``_incremental=False`` (tests only) rebuilds the cluster accounting for every plan."""
    if max_steps < 0:
        raise ValueError("max_steps must be >= 0")
    if model is None:
        model = select_model(snapshot)
    # the replay's own bookkeeping reads victim priorities as the model does
    snapshot = as_seen_by(snapshot, model)
    replay = _Replay(snapshot, requeue=requeue, namespace=namespace, incremental=_incremental,
                     model=model)
    replay.seen_states[replay.state_hash()] = 0
    cycle: Cycle | None = None
    converged = hit_limit = False
    while True:
        if replay.quiet():
            converged = True
            break
        if replay.step >= max_steps:
            hit_limit = True
            break
        step = replay.run_step()
        replay.steps.append(step)
        if on_step is not None:
            on_step(step)
        cycle = replay.check_cycles(step)
        if cycle is not None:
            break
    return SimulationResult(
        steps=tuple(replay.steps),
        converged=converged,
        cycle=cycle,
        hit_step_limit=hit_limit,
        max_steps=max_steps,
        requeue=requeue,
        namespace=namespace,
        final=replay.final(),
        snapshot=replay.snapshot(),
    )
