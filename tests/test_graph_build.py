"""build_graph's vertices and members against a brute force: every member's profile worked out
on its own, grouped, sorted and sampled — whatever the pods' order, groups and phases."""

from __future__ import annotations

from collections import Counter
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from wapctl import graph as g
from wapctl.errors import Source
from wapctl.graph import Profile
from wapctl.model import NEVER, PREEMPT_LOWER, Pod, PodGroup, Snapshot, Workload

VALUES = st.sampled_from([100, 500, 1000])
POLICY = st.sampled_from([PREEMPT_LOWER, PREEMPT_LOWER, NEVER])


def oracle(snap: Snapshot, sample: int, profile_of: g.ProfileOf) -> tuple[Any, ...]:
    held: dict[Profile, list[tuple[str, str, str, str | None, str]]] = {}
    of_group: dict[str, Profile] = {}
    for key, grp in snap.pod_groups.items():
        p = profile_of(Profile(grp.priority, grp.preemption_priority, grp.preemption_policy))
        of_group[key] = p
        wl = f"{grp.namespace}/{grp.workload}"
        held.setdefault(p, []).append(("PodGroup", key, key, wl, grp.namespace))
    counted: Counter[Profile] = Counter()
    for pod in snap.pods.values():
        if pod.phase in ("Succeeded", "Failed"):
            continue
        p = profile_of(Profile(pod.priority, pod.preemption_priority, pod.preemption_policy))
        grp = snap.pod_groups.get(pod.group_key) if pod.group_key else None
        if grp is not None and of_group[grp.key] == p:
            counted[p] += 1
            continue
        unit, wl = (grp.key, f"{grp.namespace}/{grp.workload}") if grp else (pod.key, None)
        held.setdefault(p, []).append(("Pod", pod.key, unit, wl, pod.namespace))
    vertices = {}
    for p in sorted(held):
        ms = held[p]
        workloads = sorted({m[3] for m in ms if m[0] == "PodGroup"})
        groups = sorted(m[1] for m in ms if m[0] == "PodGroup")
        pods = sorted(m[1] for m in ms if m[0] == "Pod")
        source = (snap.workloads[workloads[0]].source if workloads
                  else snap.pods[pods[0]].source)
        vertices[p] = g.Vertex(
            p, tuple(workloads[:sample]), tuple(groups[:sample]), tuple(pods[:sample]),
            len(workloads), len(groups), len(pods), counted[p], len({m[2] for m in ms}),
            frozenset(m[4] for m in ms), source)
    memberships = {(m[0], m[1]): p for p, ms in held.items() for m in ms}
    members = {(m[0], m[1]): g.Member(m[0], m[1], m[2], m[3]) for ms in held.values() for m in ms}
    return vertices, memberships, members


GROUP = st.tuples(VALUES, VALUES, POLICY)
# ((scheduling, preemption, policy) or None: its group's, as most group pods have; group index
# or None, phase); an index past the groups names a pod group that is not in the snapshot (the
# loader never makes one; the model allows it)
POD = st.tuples(st.none() | GROUP, st.none() | st.integers(0, 3),
                st.sampled_from(["Running", "Running", "Pending", "Succeeded", "Failed"]))


@settings(max_examples=80, deadline=None)
@given(
    st.lists(GROUP, max_size=3),
    st.lists(POD, min_size=1, max_size=14),
    st.sampled_from([1, 2, 10]),
    st.booleans(),
    st.randoms(use_true_random=False),
)
def test_build_graph_matches_brute_force(
    groups: list[tuple[int, int, str]], pods: list[tuple[Any, ...]], sample: int,
    kep: bool, rnd: Any,
) -> None:
    """Vertices (samples, counts, units, namespaces, source), memberships and members are the
    brute force's, with or without a separate preemption priority (the 1.36 view)."""
    pgs = [PodGroup(namespace=f"ns{i % 2}", workload=f"w{i}", name="main",
                    key=f"ns{i % 2}/w{i}/main", policy="Basic", min_count=None,
                    disruption_mode="Pod", priority=s, preemption_priority=p,
                    preemption_policy=pol, source=Source(f"w{i}.yaml", 1))  # type: ignore[arg-type]
           for i, (s, p, pol) in enumerate(groups)]
    members = []
    for i, (own, gi, phase) in enumerate(pods):
        key = None if gi is None else (pgs[gi].key if gi < len(pgs) else f"ns0/gone{gi}/main")
        s, p, pol = own or (groups[gi] if gi is not None and gi < len(groups)
                            else (500, 500, PREEMPT_LOWER))
        members.append(Pod(namespace=f"ns{i % 3}", name=f"p{i}", key=f"ns{i % 3}/p{i}",
                           requests={}, priority=s, preemption_priority=p,
                           preemption_policy=pol, phase=phase, group_key=key,  # type: ignore[arg-type]
                           source=Source("pods.yaml", i + 1)))
    rnd.shuffle(members)  # any order of the snapshot's pods
    workloads = {f"{x.namespace}/{x.workload}": Workload(
        x.namespace, x.workload, f"{x.namespace}/{x.workload}", x.api_version, (x.name,),
        source=x.source) for x in pgs}
    snap = Snapshot(nodes={}, pods={p.key: p for p in members}, priority_classes={}, pdbs=(),
                    workloads=workloads, pod_groups={x.key: x for x in pgs})
    profile_of = g.without_preemption_priority if not kep else None
    built = g.build_graph(snap, sample_size=sample, profile_of=profile_of)
    assert oracle(snap, sample, profile_of or (lambda p: p)) == (
        dict(built.vertices), dict(built.memberships), dict(built.members))


# ---- vertices on cycles, against networkx ---------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 9).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=30))))
def test_cyclic_profiles_match_networkx(graph: tuple[int, list[tuple[int, int]]]) -> None:
    """Any directed graph (self-loops, parallel edges, several components): the vertices on a
    cycle are those of networkx's strongly connected components of two or more and its
    self-loops; a graph networkx.is_directed_acyclic_graph calls acyclic is answered without
    asking networkx."""
    import networkx as nx

    n, pairs = graph
    vertices = [Profile(i, i) for i in range(n)]
    edges = [(vertices[a], vertices[b]) for a, b in pairs]
    reference = nx.DiGraph()
    reference.add_nodes_from(vertices)
    reference.add_edges_from(edges)
    expected = {v for c in nx.strongly_connected_components(reference) if len(c) > 1 for v in c}
    expected |= {v for v, _ in nx.selfloop_edges(reference)}
    built = g.PriorityGraph(dict.fromkeys(vertices), {}, {}, edges)  # type: ignore[arg-type]
    if nx.is_directed_acyclic_graph(reference):  # networkx is not asked at all
        with mock.patch.object(nx, "strongly_connected_components", side_effect=AssertionError), \
                mock.patch.object(nx, "selfloop_edges", side_effect=AssertionError):
            assert frozenset() == built.cyclic_profiles()
    assert expected == built.cyclic_profiles()


def test_no_networkx_for_a_graph_without_cycles() -> None:
    """Building a graph without cycles and searching it does not import networkx (~0.15 s of
    CPU at every check-cycles and audit); a subprocess, as the import is process-wide."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from wapctl import graph as g\n"
        "from wapctl.model import PodGroup, Snapshot\n"
        "def grp(wl, s):\n"
        "    return PodGroup(namespace='ns', workload=wl, name='main', key=f'ns/{wl}/main',\n"
        "                    policy='Basic', min_count=None, disruption_mode='Pod', priority=s,\n"
        "                    preemption_priority=s, preemption_policy='PreemptLowerPriority')\n"
        "groups = {x.key: x for x in (grp('a', 100), grp('b', 500))}\n"
        "snap = Snapshot(nodes={}, pods={}, priority_classes={}, pdbs=(), workloads={},\n"
        "                pod_groups=groups)\n"
        "report = g.check(snap)\n"
        "print(report.cycle_count, report.graph.edge_count, 'networkx' in sys.modules)\n"
        "report.graph.graph\n"
        "print('networkx' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # 500 may preempt 100, not the reverse: one edge, no cycle; the DiGraph is made on demand
    assert "0 1 False\nTrue\n" == out.stdout
