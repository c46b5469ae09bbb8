"""Node choice of a single-pod preemptor when many nodes tie on the lowest level: the nodes
passed over (they cannot beat a one-victim best: no level search or no reprieve for them) never
change which node wins."""

from __future__ import annotations

import pytest
from builders import gang, member, node, pdb, pod, snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference_plan import fast_as_reference, reference_plan

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
