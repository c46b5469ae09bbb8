"""The engine's greedy placement with the pod-dependent filters against a naive placement
(hypothesis, tiny clusters): each pod in order goes to the first node by name (among those
passing the static predicates) where it fits by resources and by the brute-force
``filters.check`` over the pods placed so far."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.builders import node, pod, snapshot
from tests.constraint_builders import aff, constrained, sel, spread
from wapctl import filters as flt
from wapctl.filters.plan_view import PlanFilters
from wapctl.fit import ClusterState, StaticFitCache, check_resources, check_static, request_items
from wapctl.preemption.placement import Placer


@st.composite
def case(draw):
    nodes = [node(f"n{i}", cpu=str(draw(st.integers(1, 3))),
                  labels={"host": f"n{i}", "zone": f"z{draw(st.integers(0, 1))}"})
             for i in range(draw(st.integers(1, 6)))]
    bound = [pod(f"b{i}", node=draw(st.sampled_from(nodes)).name, cpu="1",
                 labels={"app": draw(st.sampled_from(["web", "db"]))})
             for i in range(draw(st.integers(0, 6)))]
    terms = draw(st.sampled_from(["anti-host", "anti-zone", "spread-zone", "spread-host",
                                  "affinity-zone", "none"]))
    pods = []
    for i in range(draw(st.integers(1, 8))):
        p = pod(f"p{i}", cpu=str(draw(st.integers(0, 2))), labels={"app": "web"})
        web = sel({"app": "web"})
        kind, _, key = terms.partition("-")
        if kind == "anti":
            p = constrained(p, anti=[aff(key, web)])
        elif kind == "spread":
            p = constrained(p, spread=[spread(draw(st.integers(1, 2)), key, web)])
        elif kind == "affinity":
            p = constrained(p, affinity=[aff(key, web)])
        pods.append(p)
    return nodes, bound, pods


def _naive(nodes, bound, pods):
    by_name = {n.name: n for n in nodes}
    placed = [(b, by_name[b.node_name]) for b in bound]
    used = {n.name: sum(b.requests.get("cpu", 0) for b in bound if b.node_name == n.name)
            for n in nodes}
    count = {n.name: sum(1 for b in bound if b.node_name == n.name) for n in nodes}
    out = []
    for p in pods:
        for n in sorted(nodes, key=lambda n: n.name):
            if check_static(p, n) is not None:
                continue
            if check_resources(request_items(p.requests), n.allocatable, {"cpu": used[n.name]},
                               count[n.name]) is not None:
                continue
            if flt.check(p, n, nodes, placed) is not None:
                continue
            placed.append((p, n))
            used[n.name] += p.requests.get("cpu", 0)
            count[n.name] += 1
            out.append((p.key, n.name))
            break
    return out


@settings(max_examples=200, deadline=None)
@given(case())
def test_filtered_greedy_placement_equals_the_naive_one(c) -> None:
    """Same pods on the same nodes, in the same order."""
    nodes, bound, pods = c
    snap = snapshot(nodes=nodes, pods=[*bound, *pods])
    state = ClusterState(snap, exclude={p.key for p in pods})
    placer = Placer(state, pods, StaticFitCache())
    filters = PlanFilters(snap, state, pods)
    placer.filters = filters if filters.active else None
    got = [(p.key, state.nodes[i].name) for p, i in placer.place(len(pods))]
    assert got == _naive(nodes, bound, pods)


def test_a_node_reached_past_full_ones_takes_the_next_pod_too() -> None:
    """n0 has room but a db pod there rejects the preemptor's anti-affinity, n1 is full, n2
    has room for both pods: the second pod, scanning past n0 and the full n1 again, still
    finds n2 (the run's skip over full nodes lands on n2, not past it)."""
    nodes = [node("n0", cpu="4", labels={"host": "n0"}), node("n1", cpu="1", labels={"host": "n1"}),
             node("n2", cpu="4", labels={"host": "n2"})]
    bound = [pod("db", node="n0", cpu="1", labels={"app": "db"}),
             pod("full", node="n1", cpu="1")]
    pods = [constrained(pod(f"p{i}", cpu="1"), anti=[aff("host", sel({"app": "db"}))])
            for i in range(2)]
    snap = snapshot(nodes=nodes, pods=[*bound, *pods])
    state = ClusterState(snap, exclude={p.key for p in pods})
    placer = Placer(state, pods, StaticFitCache())
    placer.filters = PlanFilters(snap, state, pods)
    got = [(p.key, state.nodes[i].name) for p, i in placer.place(len(pods))]
    assert got == [("default/p0", "n2"), ("default/p1", "n2")] == _naive(nodes, bound, pods)
