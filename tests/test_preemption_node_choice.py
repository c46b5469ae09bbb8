"""Node choice of a single-pod preemptor when many nodes tie on the lowest level: the nodes
passed over (they cannot beat a one-victim best: no level search or no reprieve for them) never
change which node wins."""

from __future__ import annotations

import pytest
from builders import gang, member, node, pdb, pod, snapshot
from constraint_builders import ZONE, constrained, sel, spread
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference_plan import fast_as_reference, reference_plan

from wapctl.model import Pod, Snapshot
from wapctl.models import get_model
from wapctl.preemption import plan
from wapctl.preemptor import pending_preemptors

KEP = get_model("kep-5710")  # these tests pin the KEP-5710 model (SPEC §3)

LOW = -(2**32)  # below -2^31: its pods lower the priority sum (the skip must not apply)


def _chosen(snap) -> tuple[str, tuple[str, ...]]:
    result = plan(snap, pending_preemptors(snap)[0], model=KEP)
    assert "RequiresPreemption" == result.status
    return result.placements[0].node, tuple(v.pod for v in result.victims)


NODE_CHOICE_CASES = [
    # (victims as (node, pod, priority, start), expected node, victims)
    ([("n1", "a", 10, 5.0), ("n2", "b", 10, 3.0), ("n3", "c", 10, 7.0)],
     "n3", ("default/c",)),  # latest start wins; n2 (earlier) is skipped, n3 is not
    ([("n1", "a", 10, 5.0), ("n2", "b", 10, 5.0)],
     "n1", ("default/a",)),  # equal start: the first name
    ([("n1", "a", 10, 5.0), ("n2", "b", 10, None)],
     "n2", ("default/b",)),  # no start time counts as started last
    ([("n1", "a", 10, None), ("n2", "b", 10, None)],
     "n1", ("default/a",)),
    ([("n1", "a", 10, 5.0), ("n2", "b", 5, 1.0)],
     "n2", ("default/b",)),  # a lower level wins whatever the start
]


@pytest.mark.parametrize(("victims", "node_name", "expected"), NODE_CHOICE_CASES,
                         ids=["later-start", "equal-start", "no-start", "both-no-start",
                              "lower-level"])
def test_one_victim_per_node_picks_the_upstream_node(victims, node_name, expected):
    """Full 2-cpu nodes with one 2-cpu victim each: lowest priority, then latest start, then
    name — nodes skipped for their earlier victims never win."""
    snap = snapshot(nodes=[node(n, cpu="2") for n in sorted({v[0] for v in victims})],
                    pods=[pod(name, cpu="2", prio=prio, node=n, start=start)
                          for n, name, prio, start in victims]
                    + [pod("new", cpu="2", prio=100, created=1)])
    assert (node_name, expected) == _chosen(snap)


def test_two_later_victims_lose_to_one_earlier_victim():
    """n2's victims started later but are two pods: the one-pod n1 wins (priority sum)."""
    snap = snapshot(nodes=[node("n1", cpu="2"), node("n2", cpu="2")], pods=[
        pod("a", cpu="2", prio=10, node="n1", start=1.0),
        pod("b", cpu="1", prio=10, node="n2", start=9.0),
        pod("c", cpu="1", prio=10, node="n2", start=9.0),
        pod("new", cpu="2", prio=100, created=1)])
    assert ("n1", ("default/a",)) == _chosen(snap)


def test_victim_priorities_below_minus_2_to_31_lower_the_sum_and_are_not_skipped():
    """A victim of priority -2^32 adds a negative term to the priority sum: n2's two victims
    (the top one started earlier than n1's) beat n1's single victim, as upstream's int64 sum
    says, so n2 must not be skipped."""
    snap = snapshot(nodes=[node("n1", cpu="2"), node("n2", cpu="2")], pods=[
        pod("a", cpu="2", prio=-10, node="n1", start=5.0),
        pod("b", cpu="1", prio=-10, node="n2", start=1.0),
        pod("c", cpu="1", prio=LOW, node="n2", start=1.0),
        pod("new", cpu="2", prio=0, created=1)])
    assert ("n2", ("default/b", "default/c")) == _chosen(snap)
    assert reference_plan(snap, pending_preemptors(snap)[0]) == fast_as_reference(
        plan(snap, pending_preemptors(snap)[0], model=KEP))


def test_equal_start_prefers_the_first_name_whatever_the_visiting_order():
    """n2 is searched first (its lowest unit priority, 5, is below n1's 10) and ends with one
    victim of priority 10 started at 5; n1's only victim is of the same priority and start,
    so n1 wins on its name, as when every node is scored."""
    snap = snapshot(nodes=[node("n1", cpu="2"), node("n2", cpu="3")], pods=[
        pod("a", cpu="2", prio=10, node="n1", start=5.0),
        pod("b", cpu="2", prio=10, node="n2", start=5.0),
        pod("small", cpu="1", prio=5, node="n2", start=1.0),
        pod("new", cpu="2", prio=100, created=1)])
    assert ("n1", ("default/a",)) == _chosen(snap)
    pre = pending_preemptors(snap)[0]
    assert reference_plan(snap, pre) == fast_as_reference(plan(snap, pre, model=KEP))


def test_a_one_pod_group_unit_counts_as_one_victim_pod():
    """A PodGroup-mode group with a single bound pod that started later beats a pod unit."""
    whole = gang("solo", min_count=1, mode="PodGroup", prio=10)
    snap = snapshot(nodes=[node("n1", cpu="2"), node("n2", cpu="2")], groups=[whole], pods=[
        pod("a", cpu="2", prio=10, node="n1", start=5.0),
        member(whole, "solo-0", cpu="2", node="n2", start=8.0),
        pod("new", cpu="2", prio=100, created=1)])
    assert ("n2", ("default/solo-0",)) == _chosen(snap)


@st.composite
def tied_clusters(draw):
    """2-12 full 4-cpu nodes, each with 2-4 running pods of few priorities (sometimes
    extreme) and start times (often equal, sometimes none), a few PodGroup-mode pods spread
    over nodes and a PDB; one pending pod of 1-3 cpu."""
    prios = draw(st.sampled_from([(10, 20), (10, 10, 20), (LOW, 10), (-(2**31), 10)]))
    whole = gang("w", min_count=1, mode="PodGroup", prio=draw(st.sampled_from(prios)))
    nodes, pods = [], []
    for i in range(draw(st.integers(2, 12))):
        name = f"n{i:02d}"
        nodes.append(node(name, cpu="4", pods=draw(st.sampled_from([3, 110]))))
        room = 4
        for k in range(4):
            cpu = draw(st.integers(1, min(room, 2)))
            room -= cpu
            kw = {"cpu": str(cpu), "node": name,
                  "start": draw(st.sampled_from([None, 1.0, 2.0, 2.0, 3.0])),
                  "labels": {"app": draw(st.sampled_from(["x", "y"]))}}
            if draw(st.integers(0, 5)) == 0:
                pods.append(member(whole, f"w-{i}-{k}", **kw))
            else:
                pods.append(pod(f"p{i}-{k}", prio=draw(st.sampled_from(prios)), **kw))
            if room <= 0:
                break
    pods.append(pod("new", cpu=str(draw(st.integers(1, 3))), prio=100, created=1))
    return snapshot(nodes=nodes, pods=pods, groups=[whole],
                    pdbs=[pdb("x", match={"app": "x"}, allowed=draw(st.integers(0, 3)))])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_clusters())
def test_node_choice_equals_reference_on_tied_clusters(snap):
    """On clusters full of same-level ties the plan equals the score-every-node reference."""
    pre = pending_preemptors(snap)[0]
    assert reference_plan(snap, pre) == fast_as_reference(plan(snap, pre, model=KEP))


# ---- a node whose victims end below its level (topology spread, a PDB-violating group) ----


def _below_its_level(node_a: list[Pod], cpu_a: str) -> Snapshot:
    """Node b (zone za, 2.2 cpu, full) holds z (priority 0, 2 cpu), y (10, 100m, app=s) and a
    pod of the PodGroup-mode group x (0, 100m, app=s; two more 1-cpu pods fill node c in zone
    zb; a PDB with no disruptions left covers x). The pending pod p (2 cpu, priority 100,
    app=s) spreads over zones with maxSkew 1 on app=s (2 such pods in each zone now); node a
    (zone za, ``cpu_a``, full of ``node_a``) is the other candidate, searched before b.

    On b the level search finds level 10: with x and z gone p has room, but zone zb drops to 0
    app=s pods while za keeps y (skew 1 + 1 - 0 = 2); with y gone too it fits. The reprieve
    tries the PDB-violating x first (back: y and z gone leave za 1, zb 2, and 2.1 cpu free),
    then y (back: za 2, zb 2, 2 cpu free), then z (back: no room): b's only victim is z, of
    priority 0 -- below b's level 10."""
    x = gang("x", min_count=3, mode="PodGroup", prio=0)
    s = {"app": "s"}
    xs = {"app": "s", "grp": "x"}
    return snapshot(
        nodes=[node("a", cpu=cpu_a, labels={ZONE: "za"}),
               node("b", cpu="2200m", labels={ZONE: "za"}),
               node("c", cpu="2", labels={ZONE: "zb"})],
        groups=[x], pdbs=[pdb("x", match={"grp": "x"}, allowed=0)],
        pods=[*node_a,
              member(x, "x-b", cpu="100m", node="b", start=1.0, labels=xs),
              pod("y", cpu="100m", prio=10, node="b", start=5.0, labels=s),
              pod("z", cpu="2", prio=0, node="b", start=1.0),
              member(x, "x-c1", cpu="1", node="c", start=1.0, labels=xs),
              member(x, "x-c2", cpu="1", node="c", start=1.0, labels=xs),
              constrained(pod("p", cpu="2", prio=100, created=1, labels=s),
                          spread=[spread(1, ZONE, sel(s))])])


def test_a_node_whose_victims_end_below_its_level_still_wins_over_a_higher_best() -> None:
    """Node a's two victims (w0 at 0, w5 at 5, both needed) score highest priority 5; node b's
    level is 10 but its only victim is z, of priority 0 (see ``_below_its_level``), so b wins
    on the lowest highest victim priority: a user relies on the cheapest node being chosen
    whatever order the nodes are searched in."""
    snap = _below_its_level([pod("w0", cpu="1", prio=0, node="a", start=1.0),
                             pod("w5", cpu="1", prio=5, node="a", start=1.0)], "2")
    assert ("b", ("default/z",)) == _chosen(snap)


def test_a_node_whose_victims_end_below_its_level_beats_a_one_victim_best() -> None:
    """Node a's only victim is w10 (priority 10, started at 5; w0 goes back); node b's level is
    10 too and its level-10 pod y started at the same time on a later name, so y alone could
    not beat w10 -- but b's only victim is z, of priority 0 (see ``_below_its_level``), and b
    wins on the lowest highest victim priority."""
    snap = _below_its_level([pod("w0", cpu="500m", prio=0, node="a", start=5.0),
                             pod("w10", cpu="2", prio=10, node="a", start=5.0)], "2500m")
    assert ("b", ("default/z",)) == _chosen(snap)
