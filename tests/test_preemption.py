"""Hand-worked plans: each case is small enough to check by reading it."""

from __future__ import annotations

import pytest
from builders import (
    basic,
    gang,
    member,
    node,
    pdb,
    pod,
    snapshot,
    taint,
    toleration,
)
from msgspec.structs import replace  # Pods are msgspec Structs

from wapctl.model import NEVER, Snapshot
from wapctl.models import get_model
from wapctl.preemption import Placement, Plan, TerminatingPod, Victim, lowest_level, plan
from wapctl.preemptor import select_preemptor

KEP = get_model("kep-5710")  # these tests pin the KEP-5710 model (SPEC §3)

MIN_PRIORITY = -(2**31)


def plan_for(snap: Snapshot, pod_key: str | None = None, workload: str | None = None) -> Plan:
    return plan(snap, select_preemptor(snap, pod=pod_key, workload=workload), model=KEP)


def victims(p: Plan) -> list[str]:
    return [v.pod.split("/", 1)[1] for v in p.victims]


def placements(p: Plan) -> dict[str, str]:
    return {pl.pod.split("/", 1)[1]: pl.node for pl in p.placements}


# ---- single pod ---------------------------------------------------------------------------


def test_single_pod_preempts_the_lowest_priority_pod():
    """The pod goes where the victim has the lowest priority, and only that victim goes."""
    snap = snapshot(
        nodes=[node("n1", cpu="4"), node("n2", cpu="4")],
        pods=[pod("a", node="n1", cpu="3", prio=10), pod("b", node="n2", cpu="3", prio=20),
              pod("p", cpu="2", prio=100)],
    )
    result = plan_for(snap, "default/p")
    expected = Plan(
        preemptor=result.preemptor,
        status="RequiresPreemption",
        reason="pod default/p fits on node n1 after preempting 1 pod in 1 unit "
               "(highest victim priority 10).",
        placements=(Placement("default/p", "n1"),),
        victims=(Victim("default/a", "n1", 10, "Pod", "default/a", False),),
        terminating=(),
        unplaced=(),
    )
    assert expected == result


def test_single_pod_reprieves_victims_it_does_not_need():
    """Of two low pods on the chosen node only as many as needed are preempted."""
    snap = snapshot(
        nodes=[node("n1", cpu="4")],
        pods=[pod("a", node="n1", cpu="2", prio=10, start=100.0),
              pod("b", node="n1", cpu="2", prio=10, start=200.0),
              pod("p", cpu="2", prio=100)],
    )
    assert ["b"] == victims(plan_for(snap, "default/p"))


def _two_nodes(n1_pods, n2_pods, pdbs=()) -> Snapshot:
    pods = [pod(f"n1-{k}", node="n1", **kw) for k, kw in enumerate(n1_pods)]
    pods += [pod(f"n2-{k}", node="n2", **kw) for k, kw in enumerate(n2_pods)]
    pods.append(pod("p", cpu="3", prio=100))
    return snapshot(nodes=[node("n1", cpu="4"), node("n2", cpu="4")], pods=pods, pdbs=pdbs)


NODE_CHOICE_CASES = [
    # (n1 pods, n2 pods, pdbs, expected node); n1 wins ties by name, so n2 proves a criterion.
    pytest.param([{"cpu": "4", "prio": 10, "labels": {"app": "db"}}], [{"cpu": "4", "prio": 10}],
                 [pdb("db", match={"app": "db"}, allowed=0)], "n2", id="fewest-pdb-violations"),
    pytest.param([{"cpu": "4", "prio": 20}], [{"cpu": "4", "prio": 10}], [], "n2",
                 id="lowest-highest-victim-priority"),
    pytest.param([{"cpu": "2", "prio": 10}, {"cpu": "2", "prio": 10}],
                 [{"cpu": "2", "prio": 10}, {"cpu": "2", "prio": 5}], [], "n2",
                 id="smallest-priority-sum"),
    pytest.param([{"cpu": "2", "prio": 10}, {"cpu": "2", "prio": MIN_PRIORITY}],
                 [{"cpu": "4", "prio": 10}], [], "n2", id="fewest-victims"),
    pytest.param([{"cpu": "4", "prio": 10, "start": 100.0}],
                 [{"cpu": "4", "prio": 10, "start": 200.0}],
                 [], "n2", id="latest-start-of-highest-priority-victims"),
    pytest.param([{"cpu": "4", "prio": 10, "start": 100.0}], [{"cpu": "4", "prio": 10}], [], "n2",
                 id="missing-start-time-counts-as-latest"),
    pytest.param([{"cpu": "4", "prio": 10}], [{"cpu": "4", "prio": 10}], [], "n1",
                 id="first-node-by-name"),
]


@pytest.mark.parametrize(("n1_pods", "n2_pods", "pdbs", "expected"), NODE_CHOICE_CASES)
def test_single_pod_node_choice(n1_pods, n2_pods, pdbs, expected):
    """Candidate nodes are compared as upstream pickOneNodeForPreemption, criterion by
    criterion (the fewest-victims case ties the offset priority sum, as upstream sums
    priority + 2^31 per victim)."""
    result = plan_for(_two_nodes(n1_pods, n2_pods, pdbs), "default/p")
    assert [expected] == list(placements(result).values())


def test_pdb_violation_count_outranks_priority():
    """A node whose victim violates a PDB loses even to a node with a higher-priority victim."""
    snap = _two_nodes([{"cpu": "4", "prio": 10, "labels": {"app": "db"}}],
                      [{"cpu": "4", "prio": 50}], [pdb("db", match={"app": "db"}, allowed=0)])
    assert ({"p": "n2"}, ["n2-0"]) == (placements(plan_for(snap, "default/p")),
                                      victims(plan_for(snap, "default/p")))


def test_single_pod_uses_a_node_its_victims_free_even_if_others_are_filtered():
    """Static filters (taints here) exclude nodes before any victim search."""
    snap = snapshot(
        nodes=[node("n1", cpu="4", taints=[taint("gpu", "yes")]), node("n2", cpu="4")],
        pods=[pod("a", node="n1", cpu="4", prio=0), pod("b", node="n2", cpu="4", prio=50),
              pod("p", cpu="4", prio=100)],
    )
    result = plan_for(snap, "default/p")
    assert ({"p": "n2"}, ["b"]) == (placements(result), victims(result))


# ---- gangs --------------------------------------------------------------------------------


def test_gang_takes_victims_on_several_nodes():
    """A gang's domain is the whole cluster: it preempts on as many nodes as it needs."""
    train = gang("train", min_count=2, prio=100)
    snap = snapshot(
        nodes=[node("n1", cpu="4"), node("n2", cpu="4"), node("n3", cpu="4")],
        pods=[pod("a", node="n1", cpu="4", prio=10), pod("b", node="n2", cpu="4", prio=20),
              pod("c", node="n3", cpu="4", prio=500),
              member(train, "w0", cpu="4"), member(train, "w1", cpu="4")],
        groups=[train],
    )
    result = plan_for(snap, workload="default/train")
    assert ("RequiresPreemption", {"w0": "n1", "w1": "n2"}, ["a", "b"], 2) == (
        result.status, placements(result), victims(result), result.nodes_touched)


def test_podgroup_mode_unit_is_preempted_whole():
    """A PodGroup-mode group is one victim unit: all its pods go, even if one would do."""
    victim = gang("batch", min_count=2, mode="PodGroup", prio=10)
    snap = snapshot(
        nodes=[node("n1", cpu="4"), node("n2", cpu="4"), node("n3", cpu="4")],
        pods=[member(victim, "g0", node="n1", cpu="4"), member(victim, "g1", node="n2", cpu="4"),
              pod("solo", node="n3", cpu="4", prio=20), pod("p", cpu="4", prio=100)],
        groups=[victim],
    )
    result = plan_for(snap, "default/p")
    expected_victims = (
        Victim("default/g0", "n1", 10, "PodGroup", "default/batch/main", False),
        Victim("default/g1", "n2", 10, "PodGroup", "default/batch/main", False),
    )
    assert ({"p": "n1"}, expected_victims, 1, 2) == (
        placements(result), result.victims, result.victim_units, result.nodes_touched)


def _tie_break_snapshot(need_cpu: str) -> Snapshot:
    workload = basic("web", prio=10)
    whole = gang("batch", min_count=1, mode="PodGroup", prio=10)
    preemptor = gang("train", min_count=1, prio=100)
    return snapshot(
        nodes=[node("n1", cpu="6")],
        pods=[pod("standalone", node="n1", cpu="2", prio=10, start=1.0),
              member(workload, "workload-pod", node="n1", cpu="2", start=2.0),
              member(whole, "gang-pod", node="n1", cpu="2", start=3.0),
              member(preemptor, "w0", cpu=need_cpu)],
        groups=[workload, whole, preemptor],
    )


@pytest.mark.parametrize(
    ("need_cpu", "expected"),
    [("2", ["standalone"]), ("4", ["standalone", "workload-pod"]),
     ("6", ["gang-pod", "standalone", "workload-pod"])],
    ids=["one-unit", "two-units", "all-units"],
)
def test_equal_priority_tie_break_standalone_then_workload_pod_then_gang(need_cpu, expected):
    """At equal priority a standalone pod is preempted first, then a workload's pod, then a
    whole gang, even though the gang started last."""
    assert expected == victims(plan_for(_tie_break_snapshot(need_cpu), workload="default/train"))


def test_between_groups_the_smaller_group_is_preempted_first():
    """At equal priority the group with more pods is more important."""
    big = gang("big", min_count=1, mode="PodGroup", prio=10)
    small = gang("small", min_count=1, mode="PodGroup", prio=10)
    snap = snapshot(
        nodes=[node("n1", cpu="8")],
        pods=[member(big, "b0", node="n1", cpu="1", start=9.0),
              member(big, "b1", node="n1", cpu="1", start=9.0),
              member(small, "s0", node="n1", cpu="2", start=1.0), pod("p", cpu="6", prio=100)],
        groups=[big, small],
    )
    assert ["s0"] == victims(plan_for(snap, "default/p"))


def test_gang_with_bound_pods_needs_fewer():
    """Bound members count toward minCount: 1 bound of minCount 3 leaves 2 to place."""
    train = gang("train", min_count=3, prio=100)
    snap = snapshot(
        nodes=[node("n1", cpu="4"), node("n2", cpu="4")],
        pods=[member(train, "w0", node="n1", cpu="4"), member(train, "w1", cpu="2"),
              member(train, "w2", cpu="2"), pod("low", node="n2", cpu="4", prio=0)],
        groups=[train],
    )
    result = plan_for(snap, workload="default/train")
    assert (2, "RequiresPreemption", ["low"], {"w1": "n2", "w2": "n2"}) == (
        result.preemptor.needed, result.status, victims(result), placements(result))


def test_gang_remainder_is_placed_without_extra_victims():
    """Pods beyond minCount go where room is left; none of them causes another preemption."""
    train = gang("train", min_count=3, prio=100)
    snap = snapshot(
        nodes=[node("n1", cpu="8"), node("n2", cpu="8"), node("n3", cpu="8"),
               node("n4", cpu="8")],
        pods=[pod("low1", node="n1", cpu="8", prio=10, start=100.0),
              pod("half2", node="n2", cpu="4", prio=500),
              pod("half3", node="n3", cpu="4", prio=500),
              pod("low4", node="n4", cpu="8", prio=10, start=300.0)]
        + [member(train, f"w{k}", cpu="4") for k in range(5)],
        groups=[train],
    )
    result = plan_for(snap, workload="default/train")
    assert (["low4"], {"w0": "n2", "w1": "n3", "w2": "n4", "w3": "n4"}, ("default/w4",)) == (
        victims(result), placements(result), result.unplaced)


def test_gang_of_several_shapes_uses_greedy_placement():
    """A gang whose pods differ in size is placed greedily, largest need still satisfied."""
    train = gang("train", min_count=2, prio=100)
    snap = snapshot(
        nodes=[node("n1", cpu="4"), node("n2", cpu="2")],
        pods=[pod("a", node="n1", cpu="4", prio=10), pod("b", node="n2", cpu="2", prio=10),
              member(train, "big", cpu="4"), member(train, "small", cpu="2")],
        groups=[train],
    )
    result = plan_for(snap, workload="default/train")
    assert (["a", "b"], {"big": "n1", "small": "n2"}) == (victims(result), placements(result))


@pytest.mark.parametrize("model", ["kep-5710", "1.36", "upstream"])
def test_gang_of_several_shapes_when_the_level_search_steps_back(model):
    """n1 (8 cpu) is full: v0 (prio 10, 1 cpu), v1 (20, 1 cpu), v2 (30, 2 cpu), v3 (40, 4 cpu).
    The gang needs 4 cpu (big: 2 cpu; small: 2 cpu and 1Gi, another shape). KEP level search:
    levels 10 and 20 free 1 and 2 cpu (too little), 40 frees 8 (enough), then 30 (a step back:
    v3 returns) frees 4: the lowest level is 30. Reprieve v2, v1, v0 (most important first):
    each back leaves under 4 cpu, so all three go and v3 stays. Upstream models remove every
    unit and reprieve from v3: v3 back leaves exactly 4 cpu (fits), then none of the others
    fit. The same victims either way."""
    train = gang("train", min_count=2, prio=100)
    snap = snapshot(
        nodes=[node("n1", cpu="8", mem="16Gi")],
        pods=[pod("v0", node="n1", cpu="1", prio=10, start=1),
              pod("v1", node="n1", cpu="1", prio=20, start=1),
              pod("v2", node="n1", cpu="2", prio=30, start=1),
              pod("v3", node="n1", cpu="4", prio=40, start=1),
              member(train, "big", cpu="2"), member(train, "small", cpu="2", mem="1Gi")],
        groups=[train],
    )
    result = plan(snap, select_preemptor(snap, workload="default/train"),
                  model=get_model(model))
    assert (["v0", "v1", "v2"], {"big": "n1", "small": "n1"}) == (
        victims(result), placements(result))


def test_a_whole_group_frees_one_pod_slot_per_member_on_an_over_full_node():
    """n1 allows 2 pods but runs 4 (its allocatable pods lowered after they started): g-0 and
    g-1 of a PodGroup-mode group g (prio 10, one unit) and s1, s2 (prio 20). p (prio 1000)
    needs a slot: at most 1 other pod may stay. Level 10 (g out) leaves 2 pods: too many.
    Level 20 (all out), then reprieve most important first: s1 back (1 pod, fits), s2 back
    (2: no), g back (3: no). Victims g-0, g-1, s2."""
    g = gang("g", min_count=1, mode="PodGroup", prio=10)
    snap = snapshot(
        nodes=[node("n1", pods=2)],
        pods=[member(g, "g-0", node="n1", cpu="100m", start=1),
              member(g, "g-1", node="n1", cpu="100m", start=1),
              pod("s1", node="n1", cpu="100m", prio=20, start=1),
              pod("s2", node="n1", cpu="100m", prio=20, start=2),
              pod("p", cpu="100m", prio=1000)],
        groups=[g],
    )
    result = plan_for(snap, pod_key="default/p")
    assert (["g-0", "g-1", "s2"], {"p": "n1"}) == (sorted(victims(result)), placements(result))


@pytest.mark.parametrize("model", ["kep-5710", "1.36", "upstream"])
def test_a_single_gpu_taken_by_another_pod_must_be_preempted(model):
    """n1 has 1 GPU (nvidia.com/gpu: 1), used by trainer (prio 10). infer (prio 1000) asks
    for that one GPU: it does not fit now (1 + 1 > 1, NodeResourcesFit fitsRequest); removing
    trainer frees it. An extended resource is counted in whole units, so a request of 1 is
    the smallest there is and must be accounted like any other."""
    snap = snapshot(
        nodes=[node("n1", cpu="8", extra={"nvidia.com/gpu": 1})],
        pods=[pod("trainer", node="n1", cpu="1", prio=10, extra={"nvidia.com/gpu": 1}),
              pod("infer", cpu="1", prio=1000, extra={"nvidia.com/gpu": 1})],
    )
    result = plan(snap, select_preemptor(snap, pod="default/infer"), model=get_model(model))
    assert ("RequiresPreemption", ["trainer"], {"infer": "n1"}) == (
        result.status, victims(result), placements(result))


def test_fewer_pdb_violations_beat_a_lower_victim_priority():
    """KEP model. n-a (2 cpu): va (prio 0, app=db, its PDB allows 0); n-b (2 cpu): vb (prio 5,
    no PDB). p (prio 100) needs 2 cpu. pickOneNodeForPreemption's first criterion is the
    fewest PDB violations: n-b (0) beats n-a (1) although n-a's victim has the lower
    priority. The search visits n-a first (lower level); a best with a violation must not
    prune n-b."""
    snap = snapshot(
        nodes=[node("n-a", cpu="2"), node("n-b", cpu="2")],
        pods=[pod("va", node="n-a", cpu="2", prio=0, labels={"app": "db"}),
              pod("vb", node="n-b", cpu="2", prio=5), pod("p", cpu="2", prio=100)],
        pdbs=[pdb("db", match={"app": "db"}, allowed=0)],
    )
    result = plan_for(snap, pod_key="default/p")
    assert (["vb"], {"p": "n-b"}) == (victims(result), placements(result))


def test_a_whole_group_frees_exactly_its_pods_requests():
    """KEP model. n1 (4 cpu) is full: g-0, g-1 of a PodGroup-mode group g (prio 5, 1 cpu
    each) and s (prio 10, 2 cpu). p (prio 1000) asks for 2001m. Level 5 (g out) frees 2000m:
    1m short (fitsRequest: requested + request <= allocatable); level 10 frees 4000m. Putting
    s back leaves 2000m, putting g back too: no. Victims g-0, g-1 and s."""
    g = gang("g", min_count=1, mode="PodGroup", prio=5)
    snap = snapshot(
        nodes=[node("n1", cpu="4")],
        pods=[member(g, "g-0", node="n1", cpu="1", start=1),
              member(g, "g-1", node="n1", cpu="1", start=1),
              pod("s", node="n1", cpu="2", prio=10, start=1), pod("p", cpu="2001m", prio=1000)],
        groups=[g],
    )
    result = plan_for(snap, pod_key="default/p")
    assert (["g-0", "g-1", "s"], {"p": "n1"}) == (sorted(victims(result)), placements(result))


def test_one_victim_beats_two_of_the_same_priority_whatever_their_start():
    """KEP model. n-a (2 cpu): a1, a2 (prio 10, 1 cpu each, started late); n-b (2 cpu): b1
    (prio 10, 2 cpu, started early). p (prio 100) needs 2 cpu. Same violations (0) and
    highest priority (10); the smaller priority sum (one victim) wins before the start time
    is looked at: n-b. n-a is scored first (name order); its two-victim score must not prune
    n-b for starting earlier."""
    snap = snapshot(
        nodes=[node("n-a", cpu="2"), node("n-b", cpu="2")],
        pods=[pod("a1", node="n-a", cpu="1", prio=10, start=500),
              pod("a2", node="n-a", cpu="1", prio=10, start=500),
              pod("b1", node="n-b", cpu="2", prio=10, start=1), pod("p", cpu="2", prio=100)],
    )
    result = plan_for(snap, pod_key="default/p")
    assert (["b1"], {"p": "n-b"}) == (victims(result), placements(result))


def test_a_gang_that_fits_now_says_how_many_of_its_pods_fit():
    """Gang train (minCount 2) on an empty 8-cpu node. With no member running, both pending
    pods are needed and fit: "2 of 2 ... (2 needed)". With two members already running the
    minCount is met: the one pending pod is extra, and the reason says so."""
    train = gang("train", min_count=2, prio=100)
    fresh = snapshot(nodes=[node("n1", cpu="8")], groups=[train],
                     pods=[member(train, f"t{i}", cpu="1") for i in range(2)])
    result = plan_for(fresh, workload="default/train")
    assert "Schedulable" == result.status
    assert result.reason.endswith(": 2 of 2 pending pods fit without preemption (2 needed).")
    grown = snapshot(nodes=[node("n1", cpu="8")], groups=[train],
                     pods=[member(train, "t0", cpu="1", node="n1"),
                           member(train, "t1", cpu="1", node="n1"),
                           member(train, "t2", cpu="1")])
    result = plan_for(grown, workload="default/train")
    assert "Schedulable" == result.status
    assert result.reason.endswith(" already has its minCount of pods running; 1 of 1 pending "
                                  "pods also fit without preemption.")


def test_a_node_without_the_extended_resource_takes_no_copy():
    """KEP model, gang of 2 pods asking 1 GPU each. n1 has 1 GPU, held by v (prio 10); n2 has
    none (its allocatable lists no nvidia.com/gpu: fitsRequest compares with 0). Even with v
    gone only one member fits: Unschedulable, v untouched."""
    train = gang("train", min_count=2, prio=1000)
    snap = snapshot(
        nodes=[node("n1", cpu="8", extra={"nvidia.com/gpu": 1}), node("n2", cpu="8")],
        pods=[pod("v", node="n1", cpu="1", prio=10, extra={"nvidia.com/gpu": 1}),
              *(member(train, f"t{i}", cpu="1", extra={"nvidia.com/gpu": 1})
                for i in range(2))],
        groups=[train],
    )
    result = plan_for(snap, workload="default/train")
    assert ("Unschedulable", []) == (result.status, victims(result))


def test_gang_never_preempts_its_own_group():
    """Bound pods of the preemptor's own group are not victims, even with a lower preemption
    priority than the group's scheduling priority."""
    train = gang("train", min_count=3, prio=100, preempt_prio=10)
    snap = snapshot(
        nodes=[node("n1", cpu="4")],
        pods=[member(train, "w0", node="n1", cpu="4"), member(train, "w1", cpu="4"),
              member(train, "w2", cpu="4")],
        groups=[train],
    )
    result = plan_for(snap, workload="default/train")
    assert ("Unschedulable", []) == (result.status, victims(result))


def test_gang_with_too_few_pending_pods_is_unschedulable():
    """A gang that cannot reach minCount with its pending pods is unschedulable at once."""
    train = gang("train", min_count=4, prio=100)
    snap = snapshot(nodes=[node("n1", cpu="64")],
                    pods=[member(train, f"w{k}", cpu="1") for k in range(3)], groups=[train])
    result = plan_for(snap, workload="default/train")
    assert ("Unschedulable", ("pod group default/train/main needs 4 more pod(s) to reach "
            "minCount 4 but only 3 are pending.")) == (result.status, result.reason)


def test_gang_unschedulable_even_with_every_victim_gone():
    """If removing every lower-priority unit is not enough, nothing is preempted."""
    train = gang("train", min_count=3, prio=100)
    snap = snapshot(
        nodes=[node("n1", cpu="4"), node("n2", cpu="4")],
        pods=[pod("low", node="n1", cpu="4", prio=10)]
        + [member(train, f"w{k}", cpu="4") for k in range(3)],
        groups=[train],
    )
    result = plan_for(snap, workload="default/train")
    assert ("Unschedulable", (), 3) == (result.status, result.victims, len(result.unplaced))


def test_basic_group_named_as_workload_places_every_pending_pod():
    """--workload on a basic group plans all its pending pods together."""
    web = basic("web", prio=100)
    snap = snapshot(
        nodes=[node("n1", cpu="4"), node("n2", cpu="4")],
        pods=[pod("low", node="n2", cpu="4", prio=0), member(web, "w0", cpu="4"),
              member(web, "w1", cpu="4")],
        groups=[web],
    )
    result = plan_for(snap, workload="default/web/main")
    assert (2, {"w0": "n1", "w1": "n2"}, ["low"]) == (
        result.preemptor.needed, placements(result), victims(result))


# ---- PDBs ---------------------------------------------------------------------------------


def _pdb_snapshot(pdbs) -> Snapshot:
    return snapshot(
        nodes=[node("n1", cpu="4")],
        pods=[pod("protected", node="n1", cpu="2", prio=10, start=200.0, labels={"app": "db"}),
              pod("other", node="n1", cpu="2", prio=10, start=100.0, labels={"app": "web"}),
              pod("p", cpu="2", prio=100)],
        pdbs=pdbs,
    )


@pytest.mark.parametrize(
    ("pdbs", "expected"),
    [([], ["protected"]), ([pdb("db", match={"app": "db"}, allowed=0)], ["other"]),
     ([pdb("db", match={"app": "db"}, allowed=1)], ["protected"]),
     ([pdb("db", ns="other-ns", match={"app": "db"}, allowed=0)], ["protected"]),
     ([pdb("all", allowed=0)], ["protected"])],
    ids=["no-pdb", "violating-reprieved-first", "budget-left-no-violation",
         "pdb-in-other-namespace", "empty-selector-matches-nothing"],
)
def test_pdb_protected_pod_is_reprieved_first(pdbs, expected):
    """Without a PDB the later-started pod goes; a pod whose eviction would violate a PDB is
    tried for reprieve before the others."""
    assert expected == victims(plan_for(_pdb_snapshot(pdbs), "default/p"))


def _budget_snapshot(allowed: int, disrupted=()) -> Snapshot:
    return snapshot(
        nodes=[node("n1", cpu="4")],
        pods=[pod("first", node="n1", cpu="2", prio=10, start=100.0, labels={"app": "db"}),
              pod("second", node="n1", cpu="2", prio=10, start=200.0, labels={"app": "db"}),
              pod("p", cpu="4", prio=100)],
        pdbs=[pdb("db", match={"app": "db"}, allowed=allowed, disrupted=disrupted)],
    )


@pytest.mark.parametrize(
    ("allowed", "disrupted", "expected"),
    [(0, (), [True, True]), (1, (), [False, True]), (2, (), [False, False]),
     (1, ("first",), [False, False])],
    ids=["no-budget", "budget-spent-by-the-more-important", "enough-budget",
         "disrupted-pod-skipped"],
)
def test_pdb_budget_is_spent_in_importance_order(allowed, disrupted, expected):
    """disruptionsAllowed is spent by victims from most to least important; pods listed in
    disruptedPods spend nothing; a pod taking the budget below zero is a violation."""
    result = plan_for(_budget_snapshot(allowed, disrupted), "default/p")
    assert (expected, sum(expected)) == ([v.pdb_violation for v in result.victims],
                                         result.pdb_violations)


def test_podgroup_unit_violates_if_any_pod_does():
    """A whole-group unit with one PDB-protected pod is reprieved first, as a unit."""
    whole = gang("batch", min_count=1, mode="PodGroup", prio=10)
    snap = snapshot(
        nodes=[node("n1", cpu="4")],
        pods=[member(whole, "g0", node="n1", cpu="1", labels={"app": "db"}),
              member(whole, "g1", node="n1", cpu="1"),
              pod("solo", node="n1", cpu="2", prio=10, labels={"app": "web"}),
              pod("p", cpu="2", prio=100)],
        groups=[whole],
        pdbs=[pdb("db", match={"app": "db"}, allowed=0)],
    )
    assert ["solo"] == victims(plan_for(snap, "default/p"))


# ---- statuses -----------------------------------------------------------------------------


def test_fits_now_is_schedulable_without_victims():
    """A pod with room is Schedulable; nothing is preempted."""
    snap = snapshot(nodes=[node("n1", cpu="4")],
                    pods=[pod("low", node="n1", cpu="2", prio=0), pod("p", cpu="2", prio=100)])
    result = plan_for(snap, "default/p")
    assert ("Schedulable", "pod default/p fits on node n1 without preemption.", {"p": "n1"},
            ()) == (result.status, result.reason, placements(result), result.victims)


def test_never_policy_is_unschedulable_without_victims():
    """preemptionPolicy Never: the preemptor waits and preempts nothing."""
    snap = snapshot(nodes=[node("n1", cpu="4")],
                    pods=[pod("low", node="n1", cpu="4", prio=0),
                          pod("p", cpu="2", prio=100, policy=NEVER)])
    result = plan_for(snap, "default/p")
    assert ("Unschedulable", (), ("pod default/p does not fit and its preemptionPolicy is Never: "
            "it waits for free space and preempts nothing.")) == (
        result.status, result.victims, result.reason)


def test_terminating_pods_mean_waiting_for_termination():
    """Room that terminating pods will free is used; no cheap new victim is taken instead."""
    snap = snapshot(
        nodes=[node("n1", cpu="4"), node("n2", cpu="4")],
        pods=[pod("leaving", node="n2", cpu="4", prio=10, terminating=True),
              pod("cheap", node="n1", cpu="4", prio=0), pod("p", cpu="4", prio=100)],
    )
    result = plan_for(snap, "default/p")
    # leaving was deleted, not preempted (no DisruptionTarget condition): the reason must not
    # claim a preemption was triggered (issue 26)
    assert ("WaitingForTermination", {"p": "n2"}, (), (TerminatingPod("default/leaving", "n2"),),
            "pod default/p fits on node n2 once 1 terminating pod finishes; it is already "
            "terminating, no new victims.") == (
        result.status, placements(result), result.victims, result.terminating, result.reason)


def test_waiting_says_preemption_was_triggered_only_for_pods_preempted_by_the_scheduler():
    """The same cluster with leaving marked DisruptionTarget / PreemptionByScheduler: now its
    termination is the preemption already triggered. With two terminating pods, one of them
    only deleted, the reason says they are terminating, not that a preemption suffices."""
    leaving = replace(pod("leaving", node="n2", cpu="4", prio=10, terminating=True),
                      preempted_by_scheduler=True)
    snap = snapshot(nodes=[node("n1", cpu="4"), node("n2", cpu="4")],
                    pods=[leaving, pod("cheap", node="n1", cpu="4", prio=0),
                          pod("p", cpu="4", prio=100)])
    assert ("pod default/p fits on node n2 once 1 terminating pod finishes; the preemption "
            "already triggered suffices, no new victims.") == plan_for(snap, "default/p").reason
    halves = [replace(pod("a", node="n2", cpu="2", prio=10, terminating=True),
                      preempted_by_scheduler=True),
              pod("b", node="n2", cpu="2", prio=10, terminating=True)]
    snap = snapshot(nodes=[node("n1", cpu="4"), node("n2", cpu="4")],
                    pods=[*halves, pod("cheap", node="n1", cpu="4", prio=0),
                          pod("p", cpu="4", prio=100)])
    assert ("pod default/p fits on node n2 once 2 terminating pods finish; they are already "
            "terminating, no new victims.") == plan_for(snap, "default/p").reason


def test_terminating_pods_are_free_space_never_victims():
    """When terminating pods are not enough, the new victims come on top of them."""
    snap = snapshot(
        nodes=[node("n1", cpu="4")],
        pods=[pod("leaving", node="n1", cpu="2", prio=10, terminating=True),
              pod("low", node="n1", cpu="2", prio=20), pod("p", cpu="4", prio=100)],
    )
    result = plan_for(snap, "default/p")
    assert (["low"], (TerminatingPod("default/leaving", "n1"),)) == (victims(result),
                                                                    result.terminating)


def test_nominated_node_is_kept_while_waiting():
    """A preemptor nominated to a node keeps it when the placement still works there, even if
    another node (first by name) would work too."""
    snap = snapshot(
        nodes=[node("n1", cpu="4"), node("n2", cpu="4")],
        pods=[pod("t1", node="n1", cpu="4", prio=10, terminating=True),
              pod("t2", node="n2", cpu="4", prio=10, terminating=True),
              pod("p", cpu="4", prio=100, nominated="n2")],
    )
    result = plan_for(snap, "default/p")
    assert ("WaitingForTermination", {"p": "n2"}, (TerminatingPod("default/t2", "n2"),)) == (
        result.status, placements(result), result.terminating)


def test_gang_keeps_its_nominated_nodes():
    """Each gang pod goes back to its own nominated node when it still fits there."""
    train = gang("train", min_count=2, prio=100)
    snap = snapshot(
        nodes=[node("n1", cpu="4"), node("n2", cpu="4"), node("n3", cpu="4")],
        pods=[pod("t2", node="n2", cpu="4", prio=10, terminating=True),
              pod("t3", node="n3", cpu="4", prio=10, terminating=True),
              pod("busy", node="n1", cpu="4", prio=0),
              member(train, "w0", cpu="4", nominated="n3"),
              member(train, "w1", cpu="4", nominated="n2")],
        groups=[train],
    )
    result = plan_for(snap, workload="default/train")
    assert ("WaitingForTermination", {"w0": "n3", "w1": "n2"}, ()) == (
        result.status, placements(result), result.victims)


def test_stale_nomination_falls_back_to_other_nodes():
    """A nominated node that no longer fits is not forced: the pod goes elsewhere."""
    snap = snapshot(
        nodes=[node("n1", cpu="4"), node("n2", cpu="4")],
        pods=[pod("big", node="n2", cpu="4", prio=500), pod("p", cpu="4", prio=100,
                                                            nominated="n2")],
    )
    assert ("Schedulable", {"p": "n1"}) == (plan_for(snap, "default/p").status,
                                           placements(plan_for(snap, "default/p")))


@pytest.mark.parametrize(
    ("other_priority", "expected_status", "expected_node"),
    [(200, "RequiresPreemption", "n2"), (100, "RequiresPreemption", "n2"),
     (50, "Schedulable", "n1")],
    ids=["higher-reserves", "equal-reserves", "lower-does-not-reserve"],
)
def test_nominated_pods_of_other_preemptors_reserve_room(other_priority, expected_status,
                                                         expected_node):
    """A pending pod nominated to a node holds room there against preemptors of lower or equal
    priority, not against higher ones."""
    snap = snapshot(
        nodes=[node("n1", cpu="4"), node("n2", cpu="4")],
        pods=[pod("other", cpu="4", prio=other_priority, nominated="n1", created=0.0),
              pod("low", node="n2", cpu="4", prio=10), pod("p", cpu="4", prio=100)],
    )
    result = plan_for(snap, "default/p")
    assert (expected_status, {"p": expected_node}) == (result.status, placements(result))


@pytest.mark.parametrize(
    ("preemptor_priority", "expected_status", "expected_victims"),
    [(500, "Unschedulable", []), (1000, "Unschedulable", []),
     (2000, "RequiresPreemption", ["w0"])],
    ids=["between-the-two-values", "equal-to-preemption-priority", "above-both"],
)
def test_preemption_priority_protects_above_scheduling_priority(
        preemptor_priority, expected_status, expected_victims):
    """A workload scheduled at 100 but protected at 1000 (the KEP rule preemption >=
    scheduling) is not preempted by a preemptor between the two values."""
    protected = gang("checkpointing", min_count=1, prio=100, preempt_prio=1000)
    snap = snapshot(
        nodes=[node("n1", cpu="4")],
        pods=[member(protected, "w0", node="n1", cpu="4"),
              pod("p", cpu="4", prio=preemptor_priority)],
        groups=[protected],
    )
    result = plan_for(snap, "default/p")
    assert (expected_status, expected_victims) == (result.status, victims(result))


def test_low_preemption_priority_makes_a_workload_an_easy_victim():
    """The KEP's cycle half: high scheduling, low preemption priority is preempted by a
    medium preemptor."""
    cheap = gang("a", min_count=1, prio=1000, preempt_prio=10)
    snap = snapshot(
        nodes=[node("n1", cpu="4")],
        pods=[member(cheap, "a0", node="n1", cpu="4"), pod("b", cpu="4", prio=500)],
        groups=[cheap],
    )
    assert ["a0"] == victims(plan_for(snap, "default/b"))


def test_equal_priority_is_never_a_victim():
    """Only strictly lower priorities are victims."""
    snap = snapshot(nodes=[node("n1", cpu="4")],
                    pods=[pod("peer", node="n1", cpu="4", prio=100), pod("p", cpu="4", prio=100)])
    result = plan_for(snap, "default/p")
    assert ("Unschedulable", ()) == (result.status, result.victims)


def test_unschedulable_reason_summarises_the_filters():
    """When no node can take the pod, the reason counts the filters that rejected nodes."""
    snap = snapshot(
        nodes=[node("n1", cpu="4", taints=[taint("gpu", "yes")]),
               node("n2", cpu="4", unschedulable=True), node("n3", cpu="1")],
        pods=[pod("low", node="n3", cpu="1", prio=0), pod("p", cpu="4", prio=100)],
    )
    result = plan_for(snap, "default/p")
    assert ("Unschedulable", ("pod default/p does not fit on any node even after preempting "
            "every lower-priority unit (0/3 nodes are available: 1 node(s) had untolerated "
            "taint {gpu: yes}, 1 node(s) were unschedulable, 1 node(s) without enough room).")) == (
        result.status, result.reason)


def test_unschedulable_reasons_are_in_byte_order_as_upstream_sorts_them():
    """Upstream FitError.Error (pkg/scheduler/framework/types.go) joins the "N reason" strings
    after sort.Strings: byte order of the whole string, count first -- so "10 ..." comes before
    "2 ...", and neither the largest count nor the reason's name leads. Worked by hand: 2
    cordoned nodes, 10 nodes too small even when emptied (1 cpu each for a 4-cpu pod), 1 node
    with an untolerated taint."""
    nodes = ([node(f"c{i}", cpu="4", unschedulable=True) for i in range(2)]
             + [node(f"s{i:02}", cpu="1") for i in range(10)]
             + [node("t", cpu="4", taints=[taint("gpu", "yes")])])
    snap = snapshot(nodes=nodes, pods=[pod("p", cpu="4", prio=100)])
    result = plan_for(snap, "default/p")
    assert "Unschedulable" == result.status
    assert result.reason.endswith(
        "(0/13 nodes are available: 1 node(s) had untolerated taint {gpu: yes}, "
        "10 node(s) without enough room, 2 node(s) were unschedulable).")


def test_tolerations_open_tainted_nodes():
    """A pod tolerating a taint may use (and preempt on) that node."""
    snap = snapshot(
        nodes=[node("n1", cpu="4", taints=[taint("gpu", "yes")])],
        pods=[pod("low", node="n1", cpu="4", prio=0),
              pod("p", cpu="4", prio=100, tolerations=[toleration("gpu", "Exists")])],
    )
    assert ["low"] == victims(plan_for(snap, "default/p"))


def test_extended_resources_and_pod_slots_count():
    """A GPU request or a full pod-slot budget needs victims just like CPU."""
    snap = snapshot(
        nodes=[node("gpu", cpu="64", pods=1, extra={"nvidia.com/gpu": 2}),
               node("slots", cpu="64", pods=1)],
        pods=[pod("g", node="gpu", cpu="1", prio=50, extra={"nvidia.com/gpu": 2}),
              pod("s", node="slots", cpu="1", prio=10),
              pod("p", cpu="1", prio=100, extra={"nvidia.com/gpu": 1}),
              pod("q", cpu="1", prio=100)],
    )
    assert (["g"], ["s"]) == (victims(plan_for(snap, "default/p")),
                              victims(plan_for(snap, "default/q")))


def test_plan_summary_properties():
    """Plan exposes the SPEC §4 summary figures."""
    snap = _budget_snapshot(0)
    result = plan_for(snap, "default/p")
    assert (2, 2, 10, 2, 1) == (result.victim_pods, result.victim_units,
                                result.max_victim_priority, result.pdb_violations,
                                result.nodes_touched)


def test_plan_is_deterministic():
    """The same input gives an equal plan."""
    snap = _tie_break_snapshot("4")
    assert plan_for(snap, workload="default/train") == plan_for(snap, workload="default/train")


def test_plan_does_not_modify_the_snapshot():
    """plan() is pure: the snapshot's objects are unchanged afterwards."""
    snap = _budget_snapshot(1)
    before = repr(snap)
    plan_for(snap, "default/p")
    assert before == repr(snap)


# ---- the level search ---------------------------------------------------------------------


@pytest.mark.parametrize("count", range(1, 12))
def test_lowest_level_finds_the_first_feasible_level_of_a_monotone_check(count):
    """For every threshold (and for none) the probe-then-bisect search returns what a linear
    scan would, never probing above 2 x answer - 1."""
    for threshold in range(count + 1):
        probed: list[int] = []

        def feasible(k: int, threshold=threshold, probed=probed) -> bool:
            probed.append(k)
            return k >= threshold

        expected = threshold if threshold < count else None
        found = lowest_level(count, feasible)
        assert (expected, True) == (found, max(probed) <= min(count - 1, max(2 * threshold - 1, 0)))
