"""The "who can preempt whom" priority graph, its cycles and the KEP-5710 rule violations.

Why a graph of *profiles*: whether X may preempt Y depends only on three numbers — X's
scheduling priority and preemption policy, Y's preemption priority. So every pod group and pod
with the same ``(scheduling, preemption, policy)`` behaves alike, and one vertex stands for all
of them. A 150k-pod cluster has a few dozen profiles; the graph stays tiny.

Vertices
    One per distinct :class:`Profile` present in the snapshot. Its *members* are

    - every PodGroup of every Workload (with or without pods: a Workload applied before its pods
      already takes part), named by its key ``ns/workload/group`` and listed with its Workload
      ``ns/name``;
    - every pod that stands on its own: not in a pod group (a *standalone* pod), or — rare — in a
      pod group but with a priority that differs from its group's. Finished pods
      (Succeeded/Failed) never preempt and are never preempted again, so they are left out.

    Pods of a pod group that share the group's profile are counted (``groupPods``), not listed:
    the group is the member.

    - every controller pod template (``Snapshot.templates``: a Deployment's, a JobSet replicated
      job's, a Workload's podGroupTemplate not yet instantiated, ...), named ``Kind ns/name`` or
      ``Kind ns/name/template``: manifests take part before any pod exists. A template whose pods
      join a pod group is in the group's unit; one naming an unknown PriorityClass has no
      profile and is a finding (``unknown-priority-class``) instead.

Models
    ``profile_of`` maps each member's profile as the snapshot gives it (KEP-5710: scheduling and
    preemption priority apart) to the profile a behaviour model sees — e.g. kube-scheduler 1.36,
    which has no separate preemption priority, sees ``Profile(s, s, policy)``. The default keeps
    it.

Edges
    ``X -> Y`` when a member of X may preempt a member of Y: X's policy is not ``Never`` and
    ``X.scheduling > Y.preemption`` (only *strictly* lower priority is a victim, as upstream).

Self-loops (decision)
    ``X -> X`` exists when ``X.scheduling > X.preemption`` *and* X holds at least two distinct
    *units* (a pod group, or a pod on its own). Then one can preempt the other and be preempted
    back: a real two-party cycle inside one profile. A pod group never preempts its own pods
    (the plan algorithm, like the scheduler's workload preemption, skips the preemptor's own
    group), so one pod group alone is no cycle — it still breaks the rule and is reported as a
    violation. Two pod groups of one Workload are two units: nothing stops one from preempting
    its sibling.

Cycles
    A cycle needs at least one rule-violating vertex: along ``X1 -> X2 -> ... -> X1`` we have
    ``s1 > p2 >= s2 > p3 >= ... > p1 >= s1`` otherwise. Elementary cycles come from
    :func:`networkx.simple_cycles`, bounded (see :func:`find_cycles`): the ``limit`` shortest are
    listed, at most ``count_limit`` are counted. Each is rotated to start at its smallest
    vertex; cycles sort by length, then by vertices.

Violations
    A Workload (per distinct profile of its pod groups) or a pod on its own whose preemption
    priority is below its scheduling priority — reported whether or not it closes a cycle yet
    (a ``Never`` class may break the cycle today; the rule is still broken).
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import networkx as nx


from wapctl import findings as f
from wapctl.errors import InputError, Source
from wapctl.gcpause import gc_paused
from wapctl.model import FINISHED, NEVER, PREEMPT_LOWER, Snapshot

DEFAULT_SAMPLE = 10  # members listed per vertex (and per list); the counts are always complete
DEFAULT_CYCLE_LIMIT = 100  # cycles kept in a report
DEFAULT_COUNT_LIMIT = 1_000  # cycles enumerated at most (the count is a lower bound beyond)
# Edges are at most profiles²; beyond this the snapshot has implausibly many distinct
# priorities (real clusters have tens of PriorityClasses) and we refuse rather than exhaust
# memory. ~1M edges is about 0.5 GB and a few seconds.
MAX_EDGES = 1_000_000


class Profile(NamedTuple):
    """A priority profile: what decides who may preempt whom. Orders by its fields (a tuple:
    cheap to hash and compare, which matters with 150k pods)."""

    scheduling: int
    preemption: int
    policy: str = PREEMPT_LOWER

    @property
    def id(self) -> str:
        """``scheduling/preemption``, with ``/Never`` appended for non-preempting profiles."""
        text = f"{self.scheduling}/{self.preemption}"
        return f"{text}/Never" if self.policy == NEVER else text

    @property
    def violates(self) -> bool:
        """KEP-5710 rule: preemption priority >= scheduling priority."""
        return self.preemption < self.scheduling

    def can_preempt(self, victim: Profile) -> bool:
        return self.policy != NEVER and self.scheduling > victim.preemption


@dataclass(frozen=True, slots=True)
class Vertex:
    """One profile and who holds it: sorted samples (at most ``sample_size`` each) and counts."""

    profile: Profile
    workloads: tuple[str, ...]  # Workload "ns/name" of the member pod groups
    pod_groups: tuple[str, ...]  # PodGroup keys "ns/workload/group"
    pods: tuple[str, ...]  # pods on their own, "ns/name"
    workload_count: int
    pod_group_count: int
    pod_count: int
    group_pod_count: int  # pods of the member pod groups (not listed)
    unit_count: int  # distinct pod groups + pods on their own (self-loops need two)
    namespaces: frozenset[str]
    source: Source | None  # where the first listed member (Workload, else pod, else template) is
    templates: tuple[str, ...] = ()  # controller pod templates, "Kind ns/name[/template]"
    template_count: int = 0




class Member(NamedTuple):
    """One member of the graph: a PodGroup, or a pod on its own. A tuple, like Profile: one is
    made per member (100k+ in a big cluster), and a tuple is made in half the time of a frozen
    dataclass."""

    kind: str  # "PodGroup" | "Pod" | "Template"
    name: str  # PodGroup key, pod "ns/name", or template key "Kind ns/name[/template]"
    unit: str  # its pod group key, or the pod key: who does not preempt itself
    workload: str | None  # Workload "ns/name" when the member belongs to one


@dataclass(frozen=True, slots=True)
class PriorityGraph:
    """The vertices (:class:`Profile`) and edges, what each vertex holds, and the networkx
    DiGraph of it, made when first asked for: importing networkx costs ~0.15 s of CPU, and a
    graph without cycles (most clusters) never needs it."""

    vertices: Mapping[Profile, Vertex]  # in profile order
    memberships: Mapping[tuple[str, str], Profile]  # (kind, name) -> its vertex
    members: Mapping[tuple[str, str], Member]
    edges: Sequence[tuple[Profile, Profile]]  # each once, in a fixed order
    _made: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def graph(self) -> nx.DiGraph[Profile]:
        """The networkx DiGraph: nodes in profile order, then the edges in order."""
        made = self._made.get("graph")
        if made is None:
            import networkx as nx  # imported here: the CLI should not pay for it on every command

            made = self._made["graph"] = nx.DiGraph()
            made.add_nodes_from(self.vertices)
            made.add_edges_from(self.edges)
        return made

    @property
    def edge_count(self) -> int:
        return len(self.edges)

    def cyclic_profiles(self) -> frozenset[Profile]:
        """Vertices on at least one cycle: in a strongly connected component of two or more,
        or with a self-loop. networkx is asked only when there is a cycle (``_acyclic``)."""
        made = self._made.get("cyclic")
        if made is None:
            out: set[Profile] = set()
            if not _acyclic(self.vertices, self.edges):
                import networkx as nx

                for component in nx.strongly_connected_components(self.graph):
                    if len(component) > 1:
                        out.update(component)
                out.update(v for v, _ in nx.selfloop_edges(self.graph))
            made = self._made["cyclic"] = frozenset(out)
        return made


def _acyclic(vertices: Iterable[Profile], edges: Iterable[tuple[Profile, Profile]]) -> bool:
    """Whether the graph has no cycle (a self-loop is one): a topological sort (Kahn's) gets
    through every vertex. Lets a graph without cycles, most clusters', skip networkx."""
    indegree = dict.fromkeys(vertices, 0)
    successors: dict[Profile, list[Profile]] = {v: [] for v in indegree}
    for source, target in edges:
        successors[source].append(target)
        indegree[target] += 1
    ready = [v for v, n in indegree.items() if n == 0]
    done = 0
    while ready:
        done += 1
        for w in successors[ready.pop()]:
            indegree[w] -= 1
            if indegree[w] == 0:
                ready.append(w)
    return done == len(indegree)


@dataclass(frozen=True, slots=True)
class Edge:
    """``source`` may preempt ``target``: ``source.scheduling > target.preemption``."""

    source: Profile
    target: Profile


@dataclass(frozen=True, slots=True)
class Cycle:
    """An elementary cycle, starting at its smallest vertex; ``edges`` close it in order."""

    vertices: tuple[Profile, ...]

    @property
    def edges(self) -> tuple[Edge, ...]:
        n = len(self.vertices)
        return tuple(Edge(self.vertices[i], self.vertices[(i + 1) % n]) for i in range(n))

    @property
    def sort_key(self) -> tuple[int, tuple[Profile, ...]]:
        return (len(self.vertices), self.vertices)


@dataclass(frozen=True, slots=True)
class Violation:
    """A Workload (one profile of its pod groups) or a pod on its own breaking the rule."""

    kind: str  # "Workload" | "Pod"
    name: str  # "ns/name"
    namespace: str
    profile: Profile
    pod_groups: tuple[str, ...]  # PodGroup keys of the Workload with this profile
    priority_class_name: str | None
    preemption_priority_class_name: str | None
    in_cycle: bool
    source: Source | None

    @property
    def sort_key(self) -> tuple[str, str, Profile]:
        return (self.kind, self.name, self.profile)


@dataclass(frozen=True, slots=True)
class CycleSearch:
    cycles: tuple[Cycle, ...]  # the ``limit`` smallest, sorted
    count: int  # cycles found (at most ``count_limit``)
    complete: bool  # False: enumeration stopped at ``count_limit``; ``count`` is a lower bound


@dataclass(frozen=True, slots=True)
class CycleReport:
    graph: PriorityGraph
    cycles: tuple[Cycle, ...]
    cycle_count: int
    cycle_count_complete: bool
    violations: tuple[Violation, ...]
    namespace: str | None = None
    findings: tuple[f.Finding, ...] = ()  # unknown classes, drift, Kueue (findings.py)
    scope: Scope | None = None  # --cluster: only what the manifests take part in is reported
    outside: tuple[int, int, int] = (0, 0, 0)  # (cycles, violations, findings) left out by scope
    exposures: tuple[Exposure, ...] = ()  # --cluster: running workloads the manifests can preempt

    @property
    def clean(self) -> bool:
        return self.cycle_count == 0 and not self.violations and not self.findings


@dataclass(frozen=True, slots=True)
class Scope:
    """Manifests checked against a cluster: what the manifests take part in. A member is in
    scope when it comes from a manifest document (``sources``) or names a PriorityClass the
    manifests define (``classes``: re-defining a class moves everything that names it)."""

    sources: frozenset[Source]
    classes: frozenset[str]

    def touches(self, source: Source | None, *classes: str | None) -> bool:
        return source in self.sources or any(c in self.classes for c in classes if c)


def in_scope(snapshot: Snapshot, scope: Scope, kind: str, name: str) -> bool:
    """Whether a graph member (``PriorityGraph.members`` key) comes from the manifests or names
    one of their classes."""
    if kind == "PodGroup":
        g = snapshot.pod_groups[name]
        wl = snapshot.workloads.get(f"{g.namespace}/{g.workload}")
        hit = scope.touches(g.source, g.priority_class_name, g.preemption_priority_class_name)
        return hit or (wl is not None and scope.touches(wl.source))
    if kind == "Pod":
        pod = snapshot.pods[name]
        return scope.touches(pod.source, pod.priority_class_name)
    t = snapshot.templates[name]
    return scope.touches(t.source, t.priority_class_name, t.preemption_priority_class_name)


def scope_profiles(snapshot: Snapshot, graph: PriorityGraph, scope: Scope) -> frozenset[Profile]:
    """The vertices holding at least one member in scope."""
    out = set()
    for (kind, name), profile in graph.memberships.items():
        if profile not in out and in_scope(snapshot, scope, kind, name):
            out.add(profile)
    return frozenset(out)


@dataclass(frozen=True, slots=True)
class Exposure:
    """What the manifests' members of one profile can preempt among the cluster's running
    workloads: the victims applying the manifests adds."""

    profile: Profile
    members: tuple[str, ...]  # the manifests' members of this profile (sorted sample)
    member_count: int
    victims: tuple[str, ...]  # running pod groups and pods of the cluster (sorted sample)
    victim_count: int


def exposures(
    snapshot: Snapshot, graph: PriorityGraph, scope: Scope, sample_size: int = DEFAULT_SAMPLE
) -> tuple[Exposure, ...]:
    """Per profile holding manifest members, the running cluster members it can preempt (a
    pod group counts when one of its pods runs). O(members + profiles²)."""
    running_groups = {p.group_key for p in snapshot.pods.values() if p.running and p.group_key}
    ours: dict[Profile, list[str]] = {}
    theirs: dict[Profile, list[str]] = {}
    for (kind, name), profile in graph.memberships.items():
        if in_scope(snapshot, scope, kind, name):
            ours.setdefault(profile, []).append(name)
        elif (kind == "Pod" and snapshot.pods[name].running) or (
            kind == "PodGroup" and name in running_groups
        ):
            theirs.setdefault(profile, []).append(name)
    out = []
    for profile in sorted(ours):
        victims = [n for v, names in theirs.items() if profile.can_preempt(v) for n in names]
        if victims:
            out.append(
                Exposure(
                    profile=profile,
                    members=_sample(ours[profile], sample_size),
                    member_count=len(ours[profile]),
                    victims=_sample(victims, sample_size),
                    victim_count=len(victims),
                )
            )
    return tuple(out)


# ---- building ------------------------------------------------------------------------------


@dataclass
class _Acc:
    workloads: set[str] = field(default_factory=set)
    pod_groups: list[str] = field(default_factory=list)
    pods: list[str] = field(default_factory=list)
    group_pods: int = 0
    units: set[str] = field(default_factory=set)
    namespaces: set[str] = field(default_factory=set)
    templates: list[str] = field(default_factory=list)


def _sample(names: Iterable[str], size: int) -> tuple[str, ...]:
    return tuple(heapq.nsmallest(size, names))


ProfileOf = Callable[[Profile], Profile]


def _same(profile: Profile) -> Profile:
    return profile


def without_preemption_priority(profile: Profile) -> Profile:
    """``profile_of`` for a model without a separate preemption priority (kube-scheduler 1.36,
    upstream): a member is a victim at its scheduling priority."""
    return Profile(profile.scheduling, profile.scheduling, profile.policy)


def build_graph(
    snapshot: Snapshot,
    *,
    sample_size: int = DEFAULT_SAMPLE,
    max_edges: int = MAX_EDGES,
    profile_of: ProfileOf | None = None,
) -> PriorityGraph:
    """The priority graph of a snapshot. O(pods + profiles·log + edges).

    ``profile_of``: the behaviour model's view of a member's profile (module docstring).
    Raises InputError when the graph would exceed ``max_edges`` edges.
    """
    with gc_paused():
        return _build_graph(snapshot, sample_size, max_edges, profile_of or _same)


def _build_graph(
    snapshot: Snapshot, sample_size: int, max_edges: int, profile_of: ProfileOf
) -> PriorityGraph:
    members = _Members(profile_of)
    members.add_groups(snapshot)
    members.add_pods(snapshot)
    members.add_templates(snapshot)
    vertices = members.vertices(snapshot, sample_size)
    return PriorityGraph(
        vertices, members.memberships, members.members, _edges(vertices, max_edges)
    )


class _Members:
    """The graph's members filed under their profiles, one kind of member at a time."""

    def __init__(self, profile_of: ProfileOf) -> None:
        self.profile_of = profile_of
        self.accs: dict[Profile, _Acc] = {}
        self.memberships: dict[tuple[str, str], Profile] = {}
        self.members: dict[tuple[str, str], Member] = {}
        self.group_profile: dict[str, Profile] = {}
        # One Profile per distinct (scheduling, preemption, policy) as the snapshot gives it: a
        # 150k-pod cluster has a few dozen, so the model's view is worked out once for each.
        self.seen: dict[tuple[int, int, str], Profile] = {}

    def profile_at(self, raw: tuple[int, int, str]) -> tuple[Profile, _Acc]:
        profile = self.seen.get(raw)
        if profile is None:
            profile = self.seen[raw] = self.profile_of(Profile(*raw))
        acc = self.accs.get(profile)
        if acc is None:
            acc = self.accs[profile] = _Acc()
        return profile, acc

    def add_groups(self, snapshot: Snapshot) -> None:
        for key, group in snapshot.pod_groups.items():
            profile, acc = self.profile_at(
                (group.priority, group.preemption_priority, group.preemption_policy)
            )
            self.group_profile[key] = profile
            workload = f"{group.namespace}/{group.workload}"
            acc.workloads.add(workload)
            acc.pod_groups.append(key)
            acc.units.add(key)
            acc.namespaces.add(group.namespace)
            self.memberships[("PodGroup", key)] = profile
            self.members[("PodGroup", key)] = Member("PodGroup", key, key, workload)

    def add_pods(self, snapshot: Snapshot) -> None:
        """Every unfinished pod; one counted in its group (same profile) is counted, not listed."""
        memberships, members, group_profile = self.memberships, self.members, self.group_profile
        counted: list[Profile] = []  # per pod counted in its group: the group's profile
        # The accumulator of the last profile: pods come in runs of one class (one controller's)
        last: tuple[tuple[int, int, str], Profile, _Acc] | None = None
        new_member = tuple.__new__  # Member(...) without NamedTuple's Python-level __new__
        workload: str | None
        for key, pod in snapshot.pods.items():
            if pod.state == FINISHED:  # pod.finished, without a property call per pod
                continue
            raw = (pod.priority, pod.preemption_priority, pod.preemption_policy)
            if last is not None and last[0] == raw:
                profile, acc = last[1], last[2]
            else:
                profile, acc = self.profile_at(raw)
                last = (raw, profile, acc)
            gk = pod.group_key
            if gk is None:  # the usual case: a pod on its own
                unit, workload = key, None
            else:
                gp = group_profile.get(gk)
                if gp is None:  # its pod group is not in the snapshot
                    unit, workload = key, None
                elif gp == profile:
                    counted.append(gp)  # the other usual case: counted, nothing allocated
                    continue
                else:
                    group = snapshot.pod_groups[gk]
                    unit, workload = group.key, f"{group.namespace}/{group.workload}"
            acc.pods.append(key)
            acc.units.add(unit)
            acc.namespaces.add(pod.namespace)
            memberships[("Pod", key)] = profile
            members[("Pod", key)] = new_member(Member, ("Pod", key, unit, workload))
        for profile, n in Counter(counted).items():
            self.accs[profile].group_pods = n

    def add_templates(self, snapshot: Snapshot) -> None:
        for key, t in snapshot.templates.items():
            if t.priority is None or t.preemption_priority is None:
                continue  # an unknown PriorityClass: a finding, no profile
            profile, acc = self.profile_at(
                (t.priority, t.preemption_priority, t.preemption_policy)
            )
            acc.templates.append(key)
            unit = t.group_key or key
            acc.units.add(unit)
            acc.namespaces.add(t.namespace)
            group = snapshot.pod_groups.get(t.group_key) if t.group_key else None
            workload = f"{group.namespace}/{group.workload}" if group is not None else None
            self.memberships[("Template", key)] = profile
            self.members[("Template", key)] = Member("Template", key, unit, workload)

    def vertices(self, snapshot: Snapshot, sample_size: int) -> dict[Profile, Vertex]:
        vertices: dict[Profile, Vertex] = {}
        for profile in sorted(self.accs):
            acc = self.accs[profile]
            workloads = _sample(acc.workloads, sample_size)
            pods = _sample(acc.pods, sample_size)
            vertices[profile] = Vertex(
                profile=profile,
                workloads=workloads,
                pod_groups=_sample(acc.pod_groups, sample_size),
                pods=pods,
                workload_count=len(acc.workloads),
                pod_group_count=len(acc.pod_groups),
                pod_count=len(acc.pods),
                group_pod_count=acc.group_pods,
                unit_count=len(acc.units),
                namespaces=frozenset(acc.namespaces),
                source=_vertex_source(snapshot, acc, workloads, pods),
                templates=_sample(acc.templates, sample_size),
                template_count=len(acc.templates),
            )
        return vertices


def _vertex_source(
    snapshot: Snapshot, acc: _Acc, workloads: tuple[str, ...], pods: tuple[str, ...]
) -> Source | None:
    """Where a profile is first written: its first Workload, else its first pod or template."""
    if workloads:
        wl = snapshot.workloads.get(workloads[0])
        return wl.source if wl is not None else None
    if pods:
        return snapshot.pods[pods[0]].source
    templates = _sample(acc.templates, 1)
    return snapshot.templates[templates[0]].source if templates else None


def _edges(vertices: Mapping[Profile, Vertex], max_edges: int) -> list[tuple[Profile, Profile]]:
    """Every edge, in a fixed order, without comparing every pair: the targets of
    X are the profiles whose preemption value is below X's scheduling value — a prefix of the
    profiles sorted by preemption value."""
    by_preemption = sorted(vertices, key=lambda p: (p.preemption, p))
    values = [p.preemption for p in by_preemption]
    spans = []
    total = 0
    for source in vertices:
        if source.policy == NEVER:
            continue
        end = bisect_left(values, source.scheduling)
        self_loop = source.violates and vertices[source].unit_count >= 2
        total += end - (1 if source.violates and not self_loop else 0)
        spans.append((source, end, self_loop))
    if total > max_edges:
        raise InputError(
            f"the priority graph would have {total} edges between {len(vertices)} distinct "
            f"priority profiles (limit {max_edges}); a snapshot this varied in priorities is "
            "not a real cluster's"
        )
    edges: list[tuple[Profile, Profile]] = []
    for source, end, self_loop in spans:
        edges.extend(
            (source, target) for target in by_preemption[:end] if target != source or self_loop
        )
    return edges


# ---- cycles and violations -------------------------------------------------------------------


def _rotate(vertices: list[Profile]) -> tuple[Profile, ...]:
    i = vertices.index(min(vertices))
    return tuple(vertices[i:] + vertices[:i])


def _enumerate(
    graph: nx.DiGraph[Profile], bound: int | None, budget: int, keep: Callable[[Cycle], bool] | None
) -> tuple[list[Cycle], bool]:
    """At most ``budget`` elementary cycles of length <= ``bound`` (rotated, filtered by
    ``keep``), and whether that was all of them."""
    import networkx as nx

    out: list[Cycle] = []
    for n, raw in enumerate(nx.simple_cycles(graph, length_bound=bound)):
        if n == budget:
            return out, False
        cycle = Cycle(_rotate(raw))
        if keep is None or keep(cycle):
            out.append(cycle)
    return out, True


def find_cycles(
    graph: PriorityGraph,
    *,
    limit: int = DEFAULT_CYCLE_LIMIT,
    count_limit: int = DEFAULT_COUNT_LIMIT,
    keep: Callable[[Cycle], bool] | None = None,
) -> CycleSearch:
    """The ``limit`` shortest elementary cycles and how many there are, bounded.

    Short cycles are the readable ones (the KEP's A/B cycle has two vertices), so the search
    deepens: all cycles of length <= 2, 4, 8, ... until ``limit`` are found or every length is
    covered. Each round enumerates at most ``count_limit`` cycles; the count is exact when the
    whole graph was enumerated within ``count_limit``, else a lower bound (``complete`` False).
    ``keep`` filters cycles (``--namespace``); filtered ones still use the budget, so time stays
    bounded either way. Only vertices of strongly connected components are searched.
    """
    cyclic = graph.cyclic_profiles()
    if not cyclic:
        return CycleSearch((), 0, True)
    sub = graph.graph.subgraph(cyclic)
    longest = len(cyclic)
    found: dict[tuple[Profile, ...], Cycle] = {}
    bound = 2
    while True:
        everything = bound >= longest
        batch, exhausted = _enumerate(sub, None if everything else bound, count_limit, keep)
        for cycle in batch:
            found.setdefault(cycle.vertices, cycle)
        if everything and exhausted:
            return CycleSearch(_smallest(found.values(), limit), len(found), True)
        if not exhausted or len(found) >= limit:
            break
        bound *= 2
    batch, complete = _enumerate(sub, None, count_limit, keep)
    count = len(batch) if complete else max(len(batch), len(found))
    return CycleSearch(_smallest(found.values(), limit), count, complete)


def _smallest(cycles: Iterable[Cycle], limit: int) -> tuple[Cycle, ...]:
    return tuple(heapq.nsmallest(limit, cycles, key=lambda c: c.sort_key))


def find_violations(snapshot: Snapshot, graph: PriorityGraph) -> tuple[Violation, ...]:
    """Rule violations, one per (Workload, profile) and per pod on its own; sorted."""
    violating = {p for p in graph.vertices if p.violates}
    if not violating:  # e.g. every cluster without KEP-5710 fields: no member to go through
        return ()
    cyclic = graph.cyclic_profiles()
    by_workload: dict[tuple[str, Profile], list[str]] = {}
    for key, group in snapshot.pod_groups.items():
        profile = graph.memberships[("PodGroup", key)]
        if profile in violating:
            by_workload.setdefault((f"{group.namespace}/{group.workload}", profile), []).append(key)
    out: list[Violation] = []
    for (workload_key, profile), groups in by_workload.items():
        first = snapshot.pod_groups[groups[0]]
        workload = snapshot.workloads.get(workload_key)
        out.append(
            Violation(
                kind="Workload",
                name=workload_key,
                namespace=first.namespace,
                profile=profile,
                pod_groups=tuple(sorted(groups)),
                priority_class_name=first.priority_class_name,
                preemption_priority_class_name=first.preemption_priority_class_name,
                in_cycle=profile in cyclic,
                source=(workload.source if workload is not None else None) or first.source,
            )
        )
    for (kind, key), profile in graph.memberships.items():
        if profile not in violating or kind not in ("Pod", "Template"):
            continue
        if kind == "Pod":
            pod = snapshot.pods[key]
            name, source, namespace = key, pod.source, pod.namespace
            shown, class_name, preemption_class = "Pod", pod.priority_class_name, None
        else:
            t = snapshot.templates[key]
            if t.group_key is not None:
                continue  # its pod group's Workload is the violation
            name, source, namespace = f"{t.namespace}/{t.name}", t.source, t.namespace
            shown, class_name = t.kind, t.priority_class_name
            preemption_class = t.preemption_priority_class_name
        out.append(
            Violation(
                kind=shown,
                name=name,
                namespace=namespace,
                profile=profile,
                pod_groups=(),
                priority_class_name=class_name,
                preemption_priority_class_name=preemption_class,
                in_cycle=profile in cyclic,
                source=source,
            )
        )
    return tuple(sorted(set(out), key=lambda v: v.sort_key))


def template_findings(snapshot: Snapshot) -> tuple[f.Finding, ...]:
    """A pod template naming a PriorityClass that does not exist (its pods would be rejected
    at admission, and nothing here can say what they would preempt)."""
    known = ", ".join(sorted(snapshot.priority_classes)) or "none"
    out = []
    for t in snapshot.templates.values():
        if t.unknown_class is None:
            continue
        out.append(
            f.Finding(
                rule=f.UNKNOWN_CLASS,
                object=t.key,
                namespace=t.namespace,
                message=f"{t.key}: its pod template names PriorityClass {t.unknown_class!r}, "
                "which no PriorityClass of the manifests (or of --cluster) defines; "
                "the API server would reject its pods",
                fix=f"create PriorityClass {t.unknown_class!r} or name an existing one "
                f"(known: {known})",
                source=t.source,
                field=f"{t.field}.priorityClassName",
                priority_class=t.unknown_class,
            )
        )
    return tuple(sorted(out, key=lambda x: x.sort_key))


def check(
    snapshot: Snapshot,
    *,
    namespace: str | None = None,
    limit: int = DEFAULT_CYCLE_LIMIT,
    count_limit: int = DEFAULT_COUNT_LIMIT,
    sample_size: int = DEFAULT_SAMPLE,
    max_edges: int = MAX_EDGES,
    profile_of: ProfileOf | None = None,
    findings: Iterable[f.Finding] = (),
    scope: Scope | None = None,
) -> CycleReport:
    """Everything ``check-cycles`` reports. With ``namespace``, only the cycles with a member in
    that namespace and the violations in it (the graph itself stays cluster-wide: priorities
    are). ``findings`` (drift, Kueue: ``drift.py``) are reported beside the unknown-class
    findings of the templates. With ``scope`` (manifests against a cluster) only the cycles
    through a vertex holding a member in scope, and the violations and findings of objects in
    scope, are reported; ``outside`` counts the rest."""
    graph = build_graph(
        snapshot, sample_size=sample_size, max_edges=max_edges, profile_of=profile_of
    )

    def in_namespace(cycle: Cycle) -> bool:
        return namespace is None or any(
            namespace in graph.vertices[v].namespaces for v in cycle.vertices
        )

    keep: Callable[[Cycle], bool] | None = None if namespace is None else in_namespace
    if scope is not None:
        touched = scope_profiles(snapshot, graph, scope)

        def keep(cycle: Cycle) -> bool:
            return in_namespace(cycle) and any(v in touched for v in cycle.vertices)

    search = find_cycles(graph, limit=limit, count_limit=count_limit, keep=keep)
    violations = find_violations(snapshot, graph)
    found = tuple(sorted({*template_findings(snapshot), *findings}, key=lambda x: x.sort_key))
    if namespace is not None:
        violations = tuple(v for v in violations if v.namespace == namespace)
        found = tuple(x for x in found if x.namespace in (None, namespace))
    outside = (0, 0, 0)
    if scope is not None:
        everything = find_cycles(
            graph,
            limit=1,
            count_limit=count_limit,
            keep=None if namespace is None else in_namespace,
        )
        kept_v = tuple(
            v for v in violations
            if scope.touches(v.source, v.priority_class_name, v.preemption_priority_class_name)
        )
        kept_f = tuple(x for x in found if scope.touches(x.source, x.priority_class))
        outside = (
            max(0, everything.count - search.count),
            len(violations) - len(kept_v),
            len(found) - len(kept_f),
        )
        violations, found = kept_v, kept_f
    exposed = exposures(snapshot, graph, scope, sample_size) if scope is not None else ()
    return CycleReport(
        graph=graph,
        cycles=search.cycles,
        cycle_count=search.count,
        cycle_count_complete=search.complete,
        violations=violations,
        namespace=namespace,
        findings=found,
        scope=scope,
        outside=outside,
        exposures=exposed,
    )
