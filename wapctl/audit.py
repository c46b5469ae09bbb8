"""What a proposed priority change does, before it is applied: ``wapctl audit``.

The change is applied to the snapshot's *documents*, not to the model: change files hold
ordinary manifests (PriorityClass, Workload, PodGroup — any kind the loader reads) that replace
the snapshot's object of the same API group, kind, namespace and name or are added when there is
none; ``--delete KIND/NAME`` / ``--delete KIND/NAMESPACE/NAME`` removes one. The result goes
through ``ingest.build_snapshot`` like any snapshot, so priority resolution and every validation
(a deleted PriorityClass still referenced, a Workload deleted under its pods) are the loader's.

Then both snapshots are compared:

- **Preemption edges, per member.** Members (pod groups, pods on their own) are split into
  *cells* by (profile before, profile after); for each pair of cells whose "may preempt"
  relation changed we report an added or removed edge with the cells' members. Comparing
  members, not profile vertices, keeps the answer to "who can now preempt whom": raising a class
  from 500 to 600 adds the edges to members between 500 and 600, it does not "remove and re-add"
  everything the class's workloads could already preempt.
- **Lost protection:** members (present before and after) that someone can now preempt who
  could not before.
- **Cycles introduced / fixed.** A cycle is identified by the members on it (per vertex), not
  by the numbers: moving a class value along an existing cycle between the same parties neither
  introduces nor fixes it; a new party joining a cycle's profile does introduce one.
- **Violations introduced / fixed**, by object (Workload or pod).
- **Pods that keep the old value** (``drift.kept_old_values``): PriorityClass values are
  immutable, so changing one means deleting and re-creating it; running pods that name it keep
  the priority they were admitted with. Information, not a reason to exit 1. (The graph and
  plans above take a pod's ``spec.priority`` when written, else its class's new value.)
- **Plans that change:** the pending preemptors (``preemptor.pending_preemptors``) of both
  snapshots, planned with ``preemption.plan`` on each — at most ``max_plans`` of them, in
  queue order of the changed snapshot — reported when status or victims differ. When nothing a
  plan reads changed (``same_for_planning``) no plan can differ, and none is worked out.

- **References left dangling** (``dangling_references``): a ``MissingPriorityClass``,
  ``MissingWorkload`` or ``MissingPodGroup`` load warning of the changed snapshot that the
  original did not have — a deleted class that pods still name (they keep their priority, but
  the API server rejects any pod naming a missing class, so their controllers cannot recreate
  them), a deleted Workload or PodGroup that pods still join. A deletion the changed snapshot
  cannot load at all (a Workload naming the deleted class, with no number standing in) is an
  input error (exit 2) instead.

The change is *risky* (exit 1) when it introduces a cycle, a violation or a dangling reference.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from wapctl import drift, ingest, preemption, preemptor
from wapctl import graph as g
from wapctl.errors import InputError, Source, UsageError, did_you_mean
from wapctl.findings import Finding
from wapctl.fit import Accounting
from wapctl.gcpause import gc_paused
from wapctl.model import LoadWarning, Snapshot
from wapctl.models import BehaviourModel, select_model

DEFAULT_MAX_PLANS = 50
DEFAULT_LIST_LIMIT = 100  # edge changes, lost-protection entries, cycles listed per list

# The API group the loader reads each kind from (it defaults a missing apiVersion the same way).
KIND_GROUPS = {
    "PriorityClass": "scheduling.k8s.io",
    "Workload": "scheduling.k8s.io",
    "PodGroup": "scheduling.k8s.io",
    "Pod": "",
    "Node": "",
    "PodDisruptionBudget": "policy",
    # controllers whose pod templates the loader reads (templates.KINDS)
    "Deployment": "apps",
    "ReplicaSet": "apps",
    "StatefulSet": "apps",
    "DaemonSet": "apps",
    "ReplicationController": "",
    "PodTemplate": "",
    "Job": "batch",
    "CronJob": "batch",
    "JobSet": "jobset.x-k8s.io",
    "LeaderWorkerSet": "leaderworkerset.x-k8s.io",
}
CLUSTER_SCOPED = frozenset({"PriorityClass", "Node"})


class ObjectRef(NamedTuple):
    """Identity of a Kubernetes object: API group (not version), kind, namespace, name."""

    group: str
    kind: str
    namespace: str  # "" for cluster-scoped kinds
    name: str

    @property
    def spec(self) -> str:
        """The ``--delete`` spelling: ``Kind/name`` or ``Kind/namespace/name``."""
        if self.kind in CLUSTER_SCOPED:
            return f"{self.kind}/{self.name}"
        return f"{self.kind}/{self.namespace}/{self.name}"


def object_ref(obj: Any) -> ObjectRef | None:
    """The identity of a document's object, or None when it has none (the loader will say
    what is wrong with it)."""
    if type(obj) is not dict:
        return None
    kind, api, meta = obj.get("kind"), obj.get("apiVersion"), obj.get("metadata")
    if type(kind) is not str or type(meta) is not dict:
        return None
    name = meta.get("name")
    if type(name) is not str or not name:
        return None
    if api is None:
        group = KIND_GROUPS.get(kind, "")
    elif type(api) is str:
        group = api.rpartition("/")[0] if "/" in api else ""
    else:
        return None
    if kind in CLUSTER_SCOPED:
        return ObjectRef(group, kind, "", name)
    namespace = meta.get("namespace") or "default"
    if type(namespace) is not str:
        return None
    return ObjectRef(group, kind, namespace, name)


def parse_deletion(text: str) -> ObjectRef:
    """``PriorityClass/name``, ``Workload/ns/name``, ``PodGroup/ns/name`` (or any kind the
    loader reads: Pod, Node, PodDisruptionBudget)."""
    kind, _, rest = text.partition("/")
    if kind not in KIND_GROUPS:
        raise UsageError(
            f"deletion {text}: unknown kind {kind!r} (one of {', '.join(sorted(KIND_GROUPS))})"
        )
    parts = rest.split("/") if rest else []
    want = 1 if kind in CLUSTER_SCOPED else 2
    if len(parts) != want or not all(parts):
        shape = f"{kind}/NAME" if want == 1 else f"{kind}/NAMESPACE/NAME"
        raise UsageError(f"deletion {text}: expected {shape}")
    namespace, name = ("", parts[0]) if want == 1 else (parts[0], parts[1])
    return ObjectRef(KIND_GROUPS[kind], kind, namespace, name)


@dataclass(frozen=True, slots=True)
class ChangeItem:
    action: str  # added | changed | unchanged | deleted
    ref: ObjectRef
    source: Source | None  # where the new version comes from (None for a deletion)


def _index(base: Sequence[ingest.Document], names: set[str] | None) -> dict[ObjectRef, int]:
    """Position of the first document of each object in ``base``; with ``names``, of the
    objects with one of those names only."""
    index: dict[ObjectRef, int] = {}
    for i, doc in enumerate(base):
        obj = doc.obj
        if names is not None:
            meta = obj.get("metadata") if type(obj) is dict else None
            name = meta.get("name") if type(meta) is dict else None
            if type(name) is not str or name not in names:
                continue
        ref = object_ref(obj)
        if ref is not None:
            index.setdefault(ref, i)
    return index


def apply_change(
    base: Sequence[ingest.Document],
    change: Sequence[ingest.Document],
    deletions: Iterable[ObjectRef] = (),
) -> tuple[list[ingest.Document], tuple[ChangeItem, ...]]:
    """The snapshot documents with the change applied, and what was done (sorted by kind,
    namespace, name). Never modifies its input."""
    deleted = dict.fromkeys(deletions)
    change_refs = [object_ref(doc.obj) for doc in change]
    # Only base documents named like a changed or deleted object can be one of them: the rest
    # (all but a few of a big snapshot's) are passed over without working out their identity.
    names = {ref.name for ref in (*change_refs, *deleted) if ref is not None}
    index = _index(base, names)
    replaced: dict[int, ingest.Document] = {}
    added: list[ingest.Document] = []
    seen: dict[ObjectRef, Source] = {}
    items: list[ChangeItem] = []
    for doc, ref in zip(change, change_refs, strict=True):
        if ref is None:
            added.append(doc)  # build_snapshot rejects it with the loader's message
            continue
        if ref in seen:
            raise InputError(
                f"{ref.spec} appears twice in the change files (first at {seen[ref].describe()})",
                doc.source,
            )
        seen[ref] = doc.source
        if ref in deleted:
            raise UsageError(f"{ref.spec} is both in the change files and deleted")
        if ref in index:
            replaced[index[ref]] = doc
            same = base[index[ref]].obj == doc.obj
            items.append(ChangeItem("unchanged" if same else "changed", ref, doc.source))
        else:
            added.append(doc)
            items.append(ChangeItem("added", ref, doc.source))
    removed = set()
    for ref in deleted:
        if ref not in index:
            near = [r.name for r in _index(base, None)
                    if r.kind == ref.kind and r.namespace == ref.namespace]
            prefix = f"{ref.kind}/{ref.namespace + '/' if ref.namespace else ''}"
            raise UsageError(f"deletion {ref.spec}: no such object in the snapshot"
                             f"{did_you_mean(ref.name, near, prefix=prefix)}")
        removed.add(index[ref])
        items.append(ChangeItem("deleted", ref, None))
    out = [replaced.get(i, doc) for i, doc in enumerate(base) if i not in removed]
    out.extend(added)
    items.sort(key=lambda it: (it.ref.kind, it.ref.namespace, it.ref.name, it.ref.group))
    return out, tuple(items)


# ---- comparing the two snapshots ----------------------------------------------------------------

_ABSENT = g.Profile(-(2**63), -(2**63), "")  # sorts before every real profile


@dataclass(frozen=True, slots=True)
class Cell:
    """Members with the same profile before and the same profile after (None: absent)."""

    before: g.Profile | None
    after: g.Profile | None
    workloads: tuple[str, ...]  # sorted samples
    pod_groups: tuple[str, ...]
    pods: tuple[str, ...]
    workload_count: int
    pod_group_count: int
    pod_count: int
    unit_count: int
    templates: tuple[str, ...] = ()  # controllers' pod templates, "Kind ns/name[/template]"
    template_count: int = 0

    @property
    def sort_key(self) -> tuple[Any, ...]:
        first = (self.pod_groups or self.pods or self.templates or ("",))[0]
        return (self.before or _ABSENT, self.after or _ABSENT, first)


@dataclass(frozen=True, slots=True)
class EdgeChange:
    change: str  # added | removed
    preemptor: Cell
    victim: Cell


@dataclass(frozen=True, slots=True)
class LostProtection:
    victim: Cell
    new_preemptors: tuple[Cell, ...]  # sorted


@dataclass(frozen=True, slots=True)
class PlanChange:
    kind: str  # Pod | PodGroup
    key: str
    before: preemption.Plan | None  # None: not pending in that snapshot
    after: preemption.Plan | None


@dataclass(frozen=True, slots=True)
class AuditReport:
    changes: tuple[ChangeItem, ...]  # objects of the kinds the loader reads
    changes_ignored: int  # other kinds in the change files (applied, but the loader skips them)
    before: Snapshot
    after: Snapshot
    graph_before: g.PriorityGraph
    graph_after: g.PriorityGraph
    edges_added: tuple[EdgeChange, ...]  # at most ``limit``
    edges_removed: tuple[EdgeChange, ...]
    edges_added_count: int
    edges_removed_count: int
    lost_protection: tuple[LostProtection, ...]
    lost_protection_count: int
    cycles_before: g.CycleSearch
    cycles_after: g.CycleSearch
    cycles_introduced: tuple[g.Cycle, ...]  # cycles of graph_after
    cycles_fixed: tuple[g.Cycle, ...]  # cycles of graph_before
    violations_before: tuple[g.Violation, ...]
    violations_after: tuple[g.Violation, ...]
    violations_introduced: tuple[g.Violation, ...]
    violations_fixed: tuple[g.Violation, ...]
    plans: tuple[PlanChange, ...]  # only those that changed
    preemptors_pending: int  # distinct pending preemptors in either snapshot
    preemptors_planned: int
    cycles_introduced_count: int
    cycles_fixed_count: int
    limit: int = DEFAULT_LIST_LIMIT
    model: BehaviourModel | None = None  # the behaviour model both sides were planned with
    kept_old_values: tuple[Finding, ...] = ()  # running pods keeping a changed class's old value
    dangling: tuple[LoadWarning, ...] = ()  # references the change leaves dangling
    # the profile edges (preemptor, victim) that carry the edges added (after the change) and
    # removed (before it): every one of them, not only the first ``limit``
    profile_edges_added: frozenset[tuple[g.Profile, g.Profile]] = frozenset()
    profile_edges_removed: frozenset[tuple[g.Profile, g.Profile]] = frozenset()

    @property
    def cycle_comparison_complete(self) -> bool:
        return self.cycles_before.complete and self.cycles_after.complete

    @property
    def risky(self) -> bool:
        return bool(self.cycles_introduced_count or self.violations_introduced or self.dangling)


# Load warnings that mean an object names another that does not exist
DANGLING_CODES = frozenset({"MissingPriorityClass", "MissingWorkload", "MissingPodGroup"})


def dangling_references(before: Snapshot, after: Snapshot) -> tuple[LoadWarning, ...]:
    """The changed snapshot's warnings of a reference to a missing object that the original
    did not have: what the change leaves dangling."""
    known = {(w.code, w.object, w.field) for w in before.warnings}
    return tuple(w for w in after.warnings
                 if w.code in DANGLING_CODES and (w.code, w.object, w.field) not in known)


def _first(names: Iterable[str], n: int) -> tuple[str, ...]:
    """The ``n`` smallest names, sorted (a sorted list's ``[:n]``, without sorting them all)."""
    return tuple(heapq.nsmallest(n, names)) if n >= 0 else tuple(sorted(names)[:n])


def _cell(
    b: g.Profile | None, a: g.Profile | None, members: Sequence[g.Member], sample: int
) -> Cell:
    workloads = {m.workload for m in members if m.kind == "PodGroup"}
    pod_groups = [m.name for m in members if m.kind == "PodGroup"]
    pods = [m.name for m in members if m.kind == "Pod"]
    templates = [m.name for m in members if m.kind == "Template"]
    return Cell(
        before=b,
        after=a,
        workloads=_first(workloads, sample),  # type: ignore[arg-type]
        pod_groups=_first(pod_groups, sample),
        pods=_first(pods, sample),
        workload_count=len(workloads),
        pod_group_count=len(pod_groups),
        pod_count=len(pods),
        unit_count=len({m.unit for m in members}),
        templates=_first(templates, sample),
        template_count=len(templates),
    )


def _vertex_cell(v: g.Vertex, sample: int) -> Cell | None:
    """The cell of the members that keep profile ``v.profile``, when they are all of the
    vertex's members (after the change): its samples, when they hold the ``sample`` smallest
    names; None when they do not."""
    lists = ((v.workloads, v.workload_count), (v.pod_groups, v.pod_group_count),
             (v.pods, v.pod_count), (v.templates, v.template_count))
    if sample < 0 or any(len(names) < min(count, sample) for names, count in lists):
        return None
    return Cell(
        before=v.profile,
        after=v.profile,
        workloads=v.workloads[:sample],
        pod_groups=v.pod_groups[:sample],
        pods=v.pods[:sample],
        workload_count=v.workload_count,
        pod_group_count=v.pod_group_count,
        pod_count=v.pod_count,
        unit_count=v.unit_count,
        templates=v.templates[:sample],
        template_count=v.template_count,
    )


def cells(before: g.PriorityGraph, after: g.PriorityGraph, sample: int) -> list[Cell]:
    """Members split by (profile before, profile after), sorted. A member is taken as the
    graph after the change has it (before, for a deleted one).

    Most members keep their profile: the cell of a profile that no member moved into is the
    whole vertex after the change (its counts and samples are the graph's), so only the members
    that moved, and those of the profiles they moved into, are gone through one by one."""
    bm, am = before.memberships, after.memberships
    moved: dict[tuple[g.Profile | None, g.Profile | None], list[tuple[str, str]]] = {}
    if bm != am:  # the usual change moves no member at all (a dict comparison, in C)
        staying = 0
        for key, b in bm.items():
            a = am.get(key)
            if a != b:
                moved.setdefault((b, a), []).append(key)
            else:
                staying += 1
        if staying + sum(len(keys) for (_, a), keys in moved.items() if a is not None) < len(am):
            for key, a in am.items():
                if key not in bm:
                    moved.setdefault((None, a), []).append(key)
    cells = []
    rework: set[g.Profile] = {a for _, a in moved if a is not None}
    for profile, vertex in after.vertices.items():
        if profile not in rework:
            cell = _vertex_cell(vertex, sample)
            if cell is None:
                rework.add(profile)
            else:
                cells.append(cell)
    if rework:
        for key, a in am.items():
            if a in rework and bm.get(key) == a:
                moved.setdefault((a, a), []).append(key)
    for (was, now), keys in moved.items():
        members = [after.members.get(key) or before.members[key] for key in keys]
        cells.append(_cell(was, now, members, sample))
    cells.sort(key=lambda c: c.sort_key)
    return cells


def _may(x: g.Profile | None, y: g.Profile | None, same_cell: bool, units: int) -> bool:
    if x is None or y is None:
        return False
    if same_cell and units < 2:
        return False
    return x.can_preempt(y)


def edge_changes(cells: Sequence[Cell]) -> tuple[list[EdgeChange], list[EdgeChange]]:
    """Every pair of cells whose relation changed (added, removed), sorted. Only pairs with a
    moved (changed, added or deleted) cell can change, so that is what is compared."""
    moved = [i for i, c in enumerate(cells) if c.before != c.after]
    pairs = {(i, j) for i in moved for j in range(len(cells))}
    pairs |= {(j, i) for i in moved for j in range(len(cells))}
    added: list[EdgeChange] = []
    removed: list[EdgeChange] = []
    for i, j in sorted(pairs):
        x, y = cells[i], cells[j]
        same = i == j
        was = _may(x.before, y.before, same, x.unit_count)
        now = _may(x.after, y.after, same, x.unit_count)
        if now and not was:
            added.append(EdgeChange("added", x, y))
        elif was and not now:
            removed.append(EdgeChange("removed", x, y))
    return added, removed


def profile_edges(
    edges: Iterable[EdgeChange], side: str
) -> frozenset[tuple[g.Profile, g.Profile]]:
    """The (preemptor, victim) profile pairs that ``edges`` join on ``side`` ("before" for
    removed edges, "after" for added ones): the graph's edges that carry them."""
    pairs = set()
    for e in edges:
        x, y = ((e.preemptor.after, e.victim.after) if side == "after"
                else (e.preemptor.before, e.victim.before))
        if x is not None and y is not None:
            pairs.add((x, y))
    return frozenset(pairs)


def lost_protection(added: Sequence[EdgeChange]) -> list[LostProtection]:
    """Victims present before and after that someone can now preempt who could not before."""
    by_victim: dict[tuple[Any, ...], tuple[Cell, list[Cell]]] = {}
    for e in added:
        if e.victim.before is None or e.victim.after is None:
            continue
        by_victim.setdefault(e.victim.sort_key, (e.victim, []))[1].append(e.preemptor)
    return [
        LostProtection(victim, tuple(sorted(preemptors, key=lambda c: c.sort_key)))
        for _, (victim, preemptors) in sorted(by_victim.items())
    ]


def _vertex_units(
    graph: g.PriorityGraph, profiles: Iterable[g.Profile]
) -> dict[g.Profile, frozenset[str]]:
    """The members of each of ``profiles``, as ``kind:name``."""
    acc: dict[g.Profile, set[str]] = {p: set() for p in profiles}
    for (kind, name), profile in graph.memberships.items():
        names = acc.get(profile)
        if names is not None:
            names.add(f"{kind}:{name}")
    return {p: frozenset(s) for p, s in acc.items()}


def _cycle_identity(
    units: Mapping[g.Profile, frozenset[str]], cycle: g.Cycle
) -> tuple[frozenset[str], ...]:
    """The members on a cycle, per vertex, rotated to start at the vertex holding the smallest
    member name: the same parties on the same cycle give the same identity, whatever the
    numbers."""
    sets = [units[v] for v in cycle.vertices]
    firsts = [min(s) for s in sets]
    i = firsts.index(min(firsts))
    return tuple(sets[i:] + sets[:i])


def diff_cycles(
    before: g.PriorityGraph, cb: g.CycleSearch, after: g.PriorityGraph, ca: g.CycleSearch
) -> tuple[list[g.Cycle], list[g.Cycle]]:
    """(introduced, fixed). Each side's members are gathered for the vertices on its cycles
    only, and not at all when there are no cycles on one side (then every cycle of the other
    is introduced or fixed)."""
    if not cb.cycles or not ca.cycles:
        return list(ca.cycles), list(cb.cycles)
    ub = _vertex_units(before, {v for c in cb.cycles for v in c.vertices})
    ua = _vertex_units(after, {v for c in ca.cycles for v in c.vertices})
    ids_before = {_cycle_identity(ub, c) for c in cb.cycles}
    ids_after = {_cycle_identity(ua, c) for c in ca.cycles}
    introduced = [c for c in ca.cycles if _cycle_identity(ua, c) not in ids_before]
    fixed = [c for c in cb.cycles if _cycle_identity(ub, c) not in ids_after]
    return introduced, fixed


def _plan_key(p: preemption.Plan | None) -> tuple[Any, ...] | None:
    if p is None:
        return None
    return (p.status, tuple((v.pod, v.node) for v in p.victims))


def same_for_planning(before: Snapshot, after: Snapshot) -> bool:
    """Whether no plan can tell the two snapshots apart: ``preemption.plan`` reads (in
    wapctl.preemption, wapctl.filters and wapctl.fit) only the nodes, pods, PodDisruptionBudgets,
    Workloads, pod groups and namespaces of a snapshot, and these are equal (the queue,
    ``preemptor.pending_preemptors``, reads only the pods and pod groups). (Pods a change
    leaves alone are the same objects after it: the comparison is cheap.)"""
    return (
        before.pods == after.pods
        and before.nodes == after.nodes
        and before.pdbs == after.pdbs
        and before.pod_groups == after.pod_groups
        and before.workloads == after.workloads
        and before.namespaces == after.namespaces
    )


def same_for_graph(before: Snapshot, after: Snapshot) -> bool:
    """Whether the priority graphs of the two snapshots are the same: ``graph.build_graph``
    (and ``find_violations`` over its graph) reads only the pods, pod groups, Workloads and
    templates of a snapshot, and these are equal."""
    return (
        before.pods == after.pods
        and before.pod_groups == after.pod_groups
        and before.workloads == after.workloads
        and before.templates == after.templates
    )


def plan_changes(
    before: Snapshot, after: Snapshot, *, max_plans: int, namespace: str | None = None,
    model: BehaviourModel | None = None,
) -> tuple[list[PlanChange], int, int]:
    """(changed plans, pending preemptors in either snapshot, how many were planned), both
    sides planned with one behaviour model (None: chosen from the snapshot before).

    When nothing a plan reads changed (``same_for_planning``: e.g. a change that only adds a
    PriorityClass), the queue and each preemptor's plan are the same on both sides
    (``preemption.plan`` is pure and deterministic): no plan can change, and none is worked
    out."""
    queue_before = preemptor.pending_preemptors(before, namespace)
    if same_for_planning(before, after):
        return [], len(queue_before), min(len(queue_before), max_plans)
    if model is None:
        model = select_model(before)
    queue = preemptor.pending_preemptors(after, namespace)
    pb = {(p.kind, p.key): p for p in queue_before}
    pa = {(p.kind, p.key): p for p in queue}
    order = [(p.kind, p.key) for p in queue] + sorted(k for k in pb if k not in pa)
    changed = []
    states = _SideStates(before, after)
    with gc_paused():
        for kind, key in order[:max_plans]:
            b = pb.get((kind, key))
            a = pa.get((kind, key))
            plan_b = (preemption.plan(before, b, model=model, state=states.before())
                      if b is not None else None)
            plan_a = (preemption.plan(after, a, model=model, state=states.after())
                      if a is not None else None)
            if _plan_key(plan_b) != _plan_key(plan_a):
                changed.append(PlanChange(kind, key, plan_b, plan_a))
    return changed, len(order), min(len(order), max_plans)


class _SideStates:
    """One ``fit.Accounting`` per side, shared by all of that side's plans (``preemption.plan``
    gives the same plan with it as without, and leaves it as it found it), each built when a
    plan first needs it. The side after the change is derived from the side before when the
    change moves no pod (``Accounting.derive``: e.g. a PriorityClass value changed), instead
    of being summed from every pod again (when the side before has an accounting already).
    """

    def __init__(self, before: Snapshot, after: Snapshot) -> None:
        self.snapshots = (before, after)
        self._before: Accounting | None = None
        self._after: Accounting | None = None

    def before(self) -> Accounting:
        if self._before is None:
            self._before = Accounting(self.snapshots[0])
        return self._before

    def after(self) -> Accounting:
        if self._after is None:
            before, after = self.snapshots
            kept = self._before
            derived = kept.derive(before, after) if kept is not None else None
            self._after = derived if derived is not None else Accounting(after)
        return self._after


def audit(
    base: Sequence[ingest.Document],
    change: Sequence[ingest.Document],
    deletions: Iterable[ObjectRef] = (),
    *,
    max_plans: int = DEFAULT_MAX_PLANS,
    limit: int = DEFAULT_LIST_LIMIT,
    namespace: str | None = None,
    sample_size: int = g.DEFAULT_SAMPLE,
    model: str | None = None,
    feature_gates: Mapping[str, bool] | None = None,
) -> AuditReport:
    """Apply the change to the snapshot documents and compare (module docstring)."""
    cache = ingest.BuildCache()  # the pods the change leaves alone are read once
    before = ingest.build_snapshot(base, reuse=cache)
    documents, items = apply_change(base, change, deletions)
    try:
        after = ingest.build_snapshot(documents, reuse=cache)
    except InputError as exc:
        raise InputError(f"with the change applied: {exc}") from None
    del cache
    gb = g.build_graph(before, sample_size=sample_size)
    # e.g. a change that only adds a PriorityClass nothing names yet: one graph for both sides
    same = same_for_graph(before, after)
    ga = gb if same else g.build_graph(after, sample_size=sample_size)

    split = cells(gb, ga, sample_size)
    added, removed = edge_changes(split)
    lost = lost_protection(added)

    # Every cycle (up to the count limit) on both sides, so the comparison sees them all.
    budget = max(g.DEFAULT_COUNT_LIMIT, limit)
    cb = g.find_cycles(gb, limit=budget, count_limit=budget)
    ca = cb if same else g.find_cycles(ga, limit=budget, count_limit=budget)
    introduced, fixed = diff_cycles(gb, cb, ga, ca)

    vb = g.find_violations(before, gb)
    va = vb if same else g.find_violations(after, ga)
    names_b = {(v.kind, v.name) for v in vb}
    names_a = {(v.kind, v.name) for v in va}

    behaviour = select_model(before, model, feature_gates)
    plans, pending, planned = plan_changes(before, after, max_plans=max_plans, namespace=namespace,
                                           model=behaviour)
    read = tuple(i for i in items if KIND_GROUPS.get(i.ref.kind) == i.ref.group)
    return AuditReport(
        changes=read,
        changes_ignored=len(items) - len(read),
        before=before,
        after=after,
        graph_before=gb,
        graph_after=ga,
        edges_added=tuple(added[:limit]),
        edges_removed=tuple(removed[:limit]),
        edges_added_count=len(added),
        edges_removed_count=len(removed),
        lost_protection=tuple(lost[:limit]),
        lost_protection_count=len(lost),
        cycles_before=cb,
        cycles_after=ca,
        cycles_introduced=tuple(introduced[:limit]),
        cycles_fixed=tuple(fixed[:limit]),
        violations_before=vb,
        violations_after=va,
        violations_introduced=tuple(v for v in va if (v.kind, v.name) not in names_b),
        violations_fixed=tuple(v for v in vb if (v.kind, v.name) not in names_a),
        plans=tuple(plans),
        preemptors_pending=pending,
        preemptors_planned=planned,
        cycles_introduced_count=len(introduced),
        cycles_fixed_count=len(fixed),
        limit=limit,
        model=behaviour,
        kept_old_values=drift.kept_old_values(before, after, documents),
        dangling=dangling_references(before, after),
        profile_edges_added=profile_edges(added, "after"),
        profile_edges_removed=profile_edges(removed, "before"),
    )
