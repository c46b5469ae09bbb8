"""The priority graph: vertices, edges, self-loops, cycles and rule violations, hand-worked."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wapctl import graph as g
from wapctl.errors import InputError, Source
from wapctl.graph import Profile
from wapctl.model import (
    NEVER,
    PREEMPT_LOWER,
    Pod,
    PodGroup,
    Snapshot,
    Workload,
)

# ---- tiny model builders (local: the graph needs only priorities and membership) ------------


def group(
    wl: str,
    sched: int,
    preempt: int | None = None,
    *,
    name: str = "main",
    ns: str = "default",
    policy: str = PREEMPT_LOWER,
    pcn: str | None = None,
    ppcn: str | None = None,
) -> PodGroup:
    return PodGroup(
        namespace=ns,
        workload=wl,
        name=name,
        key=f"{ns}/{wl}/{name}",
        policy="Basic",
        min_count=None,
        disruption_mode="Pod",
        priority=sched,
        preemption_priority=sched if preempt is None else preempt,
        preemption_policy=policy,  # type: ignore[arg-type]
        priority_class_name=pcn,
        preemption_priority_class_name=ppcn,
        source=Source(f"{wl}.yaml", 1),
    )


def pod(
    name: str,
    sched: int,
    preempt: int | None = None,
    *,
    ns: str = "default",
    policy: str = PREEMPT_LOWER,
    of: PodGroup | None = None,
    phase: str = "Running",
) -> Pod:
    return Pod(
        namespace=ns,
        name=name,
        key=f"{ns}/{name}",
        requests={"cpu": 100},
        priority=sched,
        preemption_priority=sched if preempt is None else preempt,
        preemption_policy=policy,  # type: ignore[arg-type]
        node_name="n1",
        phase=phase,
        group_key=of.key if of is not None else None,
        source=Source("pods.yaml", 1),
    )


def snapshot(groups: tuple[PodGroup, ...] = (), pods: tuple[Pod, ...] = ()) -> Snapshot:
    workloads: dict[str, Workload] = {}
    for grp in groups:
        key = f"{grp.namespace}/{grp.workload}"
        names = (*workloads[key].group_names, grp.name) if key in workloads else (grp.name,)
        workloads[key] = Workload(
            grp.namespace, grp.workload, key, grp.api_version, names, source=grp.source
        )
    return Snapshot(
        nodes={},
        pods={p.key: p for p in sorted(pods, key=lambda p: p.key)},
        priority_classes={},
        pdbs=(),
        workloads=dict(sorted(workloads.items())),
        pod_groups={x.key: x for x in sorted(groups, key=lambda x: x.key)},
    )


def P(sched: int, preempt: int, policy: str = PREEMPT_LOWER) -> Profile:
    return Profile(sched, preempt, policy)


def edges(snap: Snapshot) -> list[tuple[str, str]]:
    built = g.build_graph(snap)
    return sorted((a.id, b.id) for a, b in built.graph.edges)


def cycles(snap: Snapshot, **kw: int) -> list[list[str]]:
    report = g.check(snap, **kw)
    return [[v.id for v in c.vertices] for c in report.cycles]


# ---- profiles ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preemptor", "victim", "expected"),
    [
        (P(1000, 1000), P(500, 500), True),
        (P(500, 500), P(1000, 1000), False),
        (P(500, 500), P(500, 500), False),  # equal priority is never a victim
        (P(500, 500), P(1000, 499), True),  # the victim's *preemption* value counts
        (P(1000, 5000), P(10, 999), True),  # the preemptor's *scheduling* value counts
        (P(1000, 1000, NEVER), P(1, 1), False),
    ],
    ids=["higher", "lower", "equal", "victim-preemption", "preemptor-scheduling", "never"],
)
def test_can_preempt(preemptor: Profile, victim: Profile, expected: bool) -> None:
    """X may preempt Y exactly when X is not Never and X.scheduling > Y.preemption."""
    assert expected == preemptor.can_preempt(victim)


@pytest.mark.parametrize(
    ("profile", "expected"),
    [(P(1000, 100), "1000/100"), (P(5, 5, NEVER), "5/5/Never"), (P(-3, 0), "-3/0")],
    ids=["plain", "never", "negative"],
)
def test_profile_id(profile: Profile, expected: str) -> None:
    """A profile is named scheduling/preemption, with /Never for non-preempting ones."""
    assert expected == profile.id


# ---- edges ------------------------------------------------------------------------------

A_BAD = group("a", 1000, 100, pcn="high", ppcn="low")
B_MID = group("b", 500)
A_FIXED = group("a", 1000, 1000, pcn="high", ppcn="high")
A_NEVER = group("a", 1000, 100, policy=NEVER, pcn="high-never", ppcn="low")
H_MID = group("h", 500)

EDGE_CASES = [
    ("kep-ab", snapshot((A_BAD, B_MID)), [("1000/100", "500/500"), ("500/500", "1000/100")]),
    ("kep-ab-fixed", snapshot((A_FIXED, B_MID)), [("1000/1000", "500/500")]),
    ("never-breaks", snapshot((A_NEVER, B_MID)), [("500/500", "1000/100/Never")]),
    (
        "standalone-pod",
        snapshot((A_BAD,), (pod("web", 500),)),
        [("1000/100", "500/500"), ("500/500", "1000/100")],
    ),
    (
        "two-workloads-self-loop",
        snapshot((A_BAD, group("c", 1000, 100))),
        [("1000/100", "1000/100")],
    ),
    (
        "one-workload-two-groups-self-loop",
        snapshot((A_BAD, group("a", 1000, 100, name="second"))),
        [("1000/100", "1000/100")],
    ),
    ("one-group-no-self-loop", snapshot((A_BAD,)), []),
    (
        # Two pods of group h whose own priority differs from h's: one unit, no self-loop.
        "deviating-pods-of-one-group-no-self-loop",
        snapshot((H_MID,), (pod("h-0", 1000, 100, of=H_MID), pod("h-1", 1000, 100, of=H_MID))),
        [("1000/100", "500/500"), ("500/500", "1000/100")],
    ),
    ("same-values-no-edge", snapshot((B_MID, group("c", 500))), []),
]


@pytest.mark.parametrize(
    ("snap", "expected"), [c[1:] for c in EDGE_CASES], ids=[c[0] for c in EDGE_CASES]
)
def test_edges(snap: Snapshot, expected: list[tuple[str, str]]) -> None:
    """Edges follow scheduling > preemption, skip Never sources, self-loop only across units."""
    assert expected == edges(snap)


def test_edge_limit() -> None:
    """A graph over the edge limit is refused with a clean InputError, not built."""
    snap = snapshot(tuple(group(f"w{i}", 100 + i) for i in range(5)))  # 4+3+2+1 = 10 edges
    assert 10 == g.build_graph(snap, max_edges=10).edge_count
    with pytest.raises(InputError, match="would have 10 edges between 5 distinct"):
        g.build_graph(snap, max_edges=9)


# ---- vertices and members -----------------------------------------------------------------


def test_vertex_members_and_counts() -> None:
    """Group pods sharing the group's profile are counted, a deviating one is a member itself,
    finished pods are left out, standalone pods are members."""
    grp = group("train", 700, 900, ns="ml")
    snap = snapshot(
        (grp,),
        (
            pod("train-0", 700, 900, ns="ml", of=grp),
            pod("train-1", 700, 900, ns="ml", of=grp),
            pod("train-odd", 300, ns="ml", of=grp),
            pod("done", 700, 900, ns="ml", phase="Succeeded"),
            pod("web", 700, 900),
        ),
    )
    built = g.build_graph(snap)
    assert [P(300, 300), P(700, 900)] == list(built.vertices)
    v = built.vertices[P(700, 900)]
    expected = (("ml/train",), ("ml/train/main",), ("default/web",), 1, 1, 1, 2, 2)
    actual = (
        v.workloads,
        v.pod_groups,
        v.pods,
        v.workload_count,
        v.pod_group_count,
        v.pod_count,
        v.group_pod_count,
        v.unit_count,
    )
    assert expected == actual
    odd = built.vertices[P(300, 300)]
    assert (("ml/train-odd",), 1, 0) == (odd.pods, odd.unit_count, odd.group_pod_count)
    assert "ml/train/main" == built.members[("Pod", "ml/train-odd")].unit


def test_sample_is_bounded_and_sorted() -> None:
    """A vertex lists the smallest names only, but counts all of them."""
    snap = snapshot(tuple(group(f"w{i:02d}", 100) for i in range(15)))
    v = g.build_graph(snap, sample_size=3).vertices[P(100, 100)]
    expected = (("default/w00", "default/w01", "default/w02"), 15, 15)
    assert expected == (v.workloads, v.workload_count, v.pod_group_count)


def test_new_victims_are_sampled_like_the_vertices() -> None:
    """Manifests (groups a and b at 1000, from a.yaml and b.yaml) against running pods v1-v3
    at 100: check(sample_size=1) lists one member and one victim of the exposure, the
    smallest names, and counts all of them (2 members, 3 victims) -- as it does a vertex."""
    snap = snapshot(
        (group("a", 1000), group("b", 1000)),
        (pod("v1", 100), pod("v2", 100), pod("v3", 100)),
    )
    scope = g.Scope(frozenset({Source("a.yaml", 1), Source("b.yaml", 1)}), frozenset())
    [e] = g.check(snap, sample_size=1, scope=scope).exposures
    expected = ("1000/1000", ("default/a/main",), 2, ("default/v1",), 3)
    assert expected == (e.profile.id, e.members, e.member_count, e.victims, e.victim_count)


# ---- cycles -------------------------------------------------------------------------------

C_LOW = group("c", 300)

CYCLE_CASES = [
    ("kep-ab", snapshot((A_BAD, B_MID)), [["500/500", "1000/100"]]),
    ("kep-ab-fixed", snapshot((A_FIXED, B_MID)), []),
    ("never-breaks", snapshot((A_NEVER, B_MID)), []),
    ("standalone-pod", snapshot((A_BAD,), (pod("web", 500),)), [["500/500", "1000/100"]]),
    (
        # A(1000/100) -> B(500/500) -> C(300/300) -> A, plus the two 2-cycles through A.
        "three-vertices",
        snapshot((A_BAD, B_MID, C_LOW)),
        [["300/300", "1000/100"], ["500/500", "1000/100"], ["300/300", "1000/100", "500/500"]],
    ),
    ("self-loop", snapshot((A_BAD, group("z", 1000, 100))), [["1000/100"]]),
    ("violation-alone", snapshot((A_BAD,)), []),
]


@pytest.mark.parametrize(
    ("snap", "expected"), [c[1:] for c in CYCLE_CASES], ids=[c[0] for c in CYCLE_CASES]
)
def test_cycles(snap: Snapshot, expected: list[list[str]]) -> None:
    """Elementary cycles start at their smallest vertex and sort by length, then vertices."""
    assert expected == cycles(snap)


def test_cycle_edges_close_the_cycle() -> None:
    """A cycle's edges go from each vertex to the next and back to the first."""
    report = g.check(snapshot((A_BAD, B_MID, C_LOW)))
    three = report.cycles[-1]
    expected = [("300/300", "1000/100"), ("1000/100", "500/500"), ("500/500", "300/300")]
    assert expected == [(e.source.id, e.target.id) for e in three.edges]


# Five single-unit violators s=1000+i, p=i: every s exceeds every p, so the graph is the
# complete digraph on 5 vertices without self-loops: C(5,2)*1! + C(5,3)*2! + C(5,4)*3! + 4! =
# 10 + 20 + 30 + 24 = 84 elementary cycles.
DENSE = snapshot(tuple(group(f"w{i}", 1000 + i, i) for i in range(5)))


def test_cycles_bounded_complete_count() -> None:
    """With room to count them all, the count is exact and the smallest cycles are kept."""
    report = g.check(DENSE, limit=3, count_limit=100)
    expected = (84, True, [["1000/0", "1001/1"], ["1000/0", "1002/2"], ["1000/0", "1003/3"]])
    actual = (
        report.cycle_count,
        report.cycle_count_complete,
        [[v.id for v in c.vertices] for c in report.cycles],
    )
    assert expected == actual


def test_cycles_bounded_incomplete_count() -> None:
    """Enumeration stops at count_limit and says the count is a lower bound."""
    report = g.check(DENSE, limit=3, count_limit=50)
    assert (50, False, 3) == (report.cycle_count, report.cycle_count_complete, len(report.cycles))


def test_cycles_limit_met_by_the_short_round_counts_up_to_count_limit() -> None:
    """The first round (length <= 2) finds DENSE's C(5,2) = 10 two-cycles, all of them and
    exactly ``limit``: the search deepens no further, lists those ten, and counts with one
    unbounded enumeration that stops at count_limit 20. The user reads "20+ cycles": the
    count stops at count_limit, not at whatever the deeper rounds happened to gather."""
    report = g.check(DENSE, limit=10, count_limit=20)
    pairs = [[f"{1000 + i}/{i}", f"{1000 + j}/{j}"] for i in range(5) for j in range(i + 1, 5)]
    assert (20, False, pairs) == (
        report.cycle_count,
        report.cycle_count_complete,
        [[v.id for v in c.vertices] for c in report.cycles],
    )


# ---- violations ---------------------------------------------------------------------------


def violation_rows(snap: Snapshot, **kw: str) -> list[tuple[str, str, str, tuple[str, ...], bool]]:
    report = g.check(snap, **kw)  # type: ignore[arg-type]
    return [(v.kind, v.name, v.profile.id, v.pod_groups, v.in_cycle) for v in report.violations]


VIOLATION_CASES = [
    (
        "kep-ab",
        snapshot((A_BAD, B_MID)),
        [("Workload", "default/a", "1000/100", ("default/a/main",), True)],
    ),
    ("kep-ab-fixed", snapshot((A_FIXED, B_MID)), []),
    (
        "never-still-reported",
        snapshot((A_NEVER, B_MID)),
        [("Workload", "default/a", "1000/100/Never", ("default/a/main",), False)],
    ),
    (
        "alone-no-cycle-yet",
        snapshot((A_BAD,)),
        [("Workload", "default/a", "1000/100", ("default/a/main",), False)],
    ),
    (
        # Two sibling groups preempt each other (a self-loop): on a cycle.
        "one-per-workload",
        snapshot((A_BAD, group("a", 1000, 100, name="second"))),
        [("Workload", "default/a", "1000/100", ("default/a/main", "default/a/second"), True)],
    ),
    (
        # The loader never makes one, but the model allows it. odd (900/10) and fine (100/100)
        # preempt each other: 900 > 100 and 100 > 10.
        "standalone-pod",
        snapshot((), (pod("odd", 900, 10), pod("fine", 100))),
        [("Pod", "default/odd", "900/10", (), True)],
    ),
]


@pytest.mark.parametrize(
    ("snap", "expected"), [c[1:] for c in VIOLATION_CASES], ids=[c[0] for c in VIOLATION_CASES]
)
def test_violations(
    snap: Snapshot, expected: list[tuple[str, str, str, tuple[str, ...], bool]]
) -> None:
    """Every rule breaker is reported, on a cycle or not, one entry per Workload profile."""
    assert expected == violation_rows(snap)


def test_violation_carries_classes_and_source() -> None:
    """A violation names the classes that caused it and the Workload's file."""
    (v,) = g.check(snapshot((A_BAD, B_MID))).violations
    assert ("high", "low", Source("a.yaml", 1)) == (
        v.priority_class_name,
        v.preemption_priority_class_name,
        v.source,
    )


def test_namespace_filter() -> None:
    """--namespace keeps the cycles touching it and its own violations; the graph is global."""
    snap = snapshot(
        (
            group("a", 1000, 100, ns="team-a"),
            group("b", 500, ns="team-b"),
            group("x", 50, 10, ns="team-x"),
        )
    )
    report = g.check(snap, namespace="team-b")
    expected = ([["500/500", "1000/100"]], [], 1)
    assert expected == (
        [[v.id for v in c.vertices] for c in report.cycles],
        [v.name for v in report.violations],
        report.cycle_count,
    )
    assert ["team-x/x"] == [v.name for v in g.check(snap, namespace="team-x").violations]


def test_clean() -> None:
    """A report is clean when it has neither cycles nor violations."""
    assert (True, False) == (
        g.check(snapshot((A_FIXED, B_MID))).clean,
        g.check(snapshot((A_NEVER, B_MID))).clean,
    )


# ---- property: the profile graph agrees with the member-level brute force ------------------------


MEMBER = st.tuples(
    st.sampled_from([100, 300, 500, 1000]),
    st.sampled_from([100, 300, 500, 1000]),
    st.sampled_from([PREEMPT_LOWER, PREEMPT_LOWER, NEVER]),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(MEMBER, min_size=1, max_size=7))
def test_profile_graph_matches_member_brute_force(specs: list[tuple[int, int, str]]) -> None:
    """Edges, cyclic profiles and violations agree with the pod-group-level relation."""
    groups = tuple(group(f"w{i}", s, p, policy=pol) for i, (s, p, pol) in enumerate(specs))
    snap = snapshot(groups)
    report = g.check(snap, limit=1000, count_limit=100_000)
    profile = {x.key: P(x.priority, x.preemption_priority, x.preemption_policy) for x in groups}
    members = nx.DiGraph()
    members.add_nodes_from(profile)
    members.add_edges_from(
        (a, b) for a in profile for b in profile if a != b and profile[a].can_preempt(profile[b])
    )
    expected_edges = {(profile[a], profile[b]) for a, b in members.edges}
    on_member_cycle = {v for c in nx.simple_cycles(members) for v in c}
    expected = (
        expected_edges,
        {profile[k] for k in on_member_cycle},
        sorted(f"default/w{i}" for i, (s, p, _) in enumerate(specs) if p < s),
        True,
        len(list(nx.simple_cycles(report.graph.graph))),
    )
    actual = (
        set(report.graph.graph.edges),
        set(report.graph.cyclic_profiles()),
        sorted(v.name for v in report.violations),
        all(any(v.violates for v in c.vertices) for c in report.cycles),
        report.cycle_count,
    )
    assert expected == actual
