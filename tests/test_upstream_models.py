"""Hand-worked cases of the 1.36 / upstream models (docs/SPEC.md §0), one behaviour each."""

from __future__ import annotations

from dataclasses import replace

import pytest
from builders import basic, gang, member, node, pod, snapshot, taint
from constraint_builders import constrained
from msgspec.structs import replace as struct_replace

from wapctl.models import get_model
from wapctl.preemption import plan
from wapctl.preemptor import select_preemptor

M136 = get_model("1.36")
UPSTREAM = get_model("upstream")


def _outcome(result):
    return (result.status, sorted(v.pod for v in result.victims),
            sorted((p.pod, p.node) for p in result.placements),
            sorted(t.pod for t in result.terminating))


def test_terminating_pod_holds_then_a_victim_besides():
    """n1 (4 cpu): t terminating (2 cpu, prio 1), v running (2 cpu, prio 1); a gang of 2 x 2 cpu.
    t still holds its 2 cpu and, being in n1's NodeInfo below the gang's priority, is a potential
    victim (1.36 default_preemption.go SelectVictimsOnNode / upstream types.go
    getCrossNodesVictims take every lower-priority pod of the node; only PodEligibleToPreemptOthers
    looks at termination, and t has no DisruptionTarget condition). Removing t and v frees 4 cpu:
    both pods fit; neither comes back (each would leave 2 cpu for 4): the chosen victims are
    {t, v}. Acting on them, upstream's prepareCandidate deletes nothing already being deleted:
    the plan deletes v only and lists t as terminating (waited for, not deleted again)."""
    g = gang("train", min_count=2, prio=100)
    snap = snapshot(nodes=[node("n1", cpu="4")], groups=[g], pods=[
        pod("t", cpu="2", prio=1, node="n1", terminating=True),
        pod("v", cpu="2", prio=1, node="n1"),
        member(g, "w-0", cpu="2"), member(g, "w-1", cpu="2")])
    pre = select_preemptor(snap, workload="default/train")
    assert ("RequiresPreemption", ["default/v"],
            [("default/w-0", "n1"), ("default/w-1", "n1")], ["default/t"]) == _outcome(
        plan(snap, pre, model=M136))


def test_basic_group_places_as_many_as_fit():
    """A basic group of 3 x 2 cpu on one 4-cpu node: upstream places the two that fit."""
    b = basic("web", prio=10)
    snap = snapshot(nodes=[node("n1", cpu="4")], groups=[b], pods=[
        member(b, f"r-{k}", cpu="2") for k in range(3)])
    pre = select_preemptor(snap, workload="default/web")
    result = plan(snap, pre, model=M136)
    assert ("Schedulable", [], [("default/r-0", "n1"), ("default/r-1", "n1")], []) == \
        _outcome(result)
    assert ("default/r-2",) == result.unplaced
    assert "Unschedulable" == plan(snap, pre, model=get_model("kep-5710")).status


def test_scored_placement_spreads_a_gang():
    """Two empty 8-cpu nodes, a gang of 2 x 2 cpu: LeastAllocated sends the second pod to the
    emptier node (the KEP model's greedy fills n1 first)."""
    g = gang("train", min_count=2, prio=100)
    snap = snapshot(nodes=[node("n1", cpu="8"), node("n2", cpu="8")], groups=[g], pods=[
        member(g, "w-0", cpu="2"), member(g, "w-1", cpu="2")])
    pre = select_preemptor(snap, workload="default/train")
    result = plan(snap, pre, model=M136)
    assert [("default/w-0", "n1"), ("default/w-1", "n2")] == _outcome(result)[2]
    assert [("default/w-0", "n1"), ("default/w-1", "n1")] == _outcome(
        plan(snap, pre, model=get_model("kep-5710")))[2]
    # the first pod's node was a tie between two equal nodes: reported
    assert [("node for pod default/w-0", ("n1",), ("n2",), 2)] == [
        (t.decision, t.chosen, t.alternatives, t.count) for t in result.ties]


@pytest.mark.parametrize("ports", [(), ("TCP//8080",)], ids=["no constraint", "host port"])
def test_ties_are_listed_in_the_order_upstream_decides(ports: tuple[str, ...]) -> None:
    """Three 2-cpu nodes, each full with one pod of priority 0 (a on n1, b on n2, c on n3, all
    started together: equal importance); a gang of 2 x 2 cpu at 100 (one shape). 1.36: all
    three removed, the gang fits; reprieved by name: a goes back (n2, n3 still take the two
    pods), b cannot (only n3 left), nor c: victims {b, c}. Another order among the equals
    spares b or c and preempts a: the first tie. Then the pods are scheduled on the room made:
    w-0 on n2 or n3, equal scores, n2 by name: the second tie (w-1 has only n3). The ties are
    listed in that order (the table prints the first five): the victims', then the node's --
    also when the members ask for a host port (no other pod has one, so the answer is the
    same), which plans by per-node counts first (the order was the other way round there)."""
    g = gang("train", min_count=2, prio=100)
    snap = snapshot(nodes=[node(f"n{k}", cpu="2") for k in (1, 2, 3)], groups=[g], pods=[
        pod("a", cpu="2", node="n1", start=1.0), pod("b", cpu="2", node="n2", start=1.0),
        pod("c", cpu="2", node="n3", start=1.0),
        constrained(member(g, "w-0", cpu="2"), ports=ports),
        constrained(member(g, "w-1", cpu="2"), ports=ports)])
    result = plan(snap, select_preemptor(snap, workload="default/train"), model=M136)
    assert ("RequiresPreemption", ["default/b", "default/c"],
            [("default/w-0", "n2"), ("default/w-1", "n3")], []) == _outcome(result)
    assert [("victims among units of equal importance", ("default/b", "default/c"),
             ("default/a",), 3),
            ("node for pod default/w-0", ("n2",), ("n3",), 2)] == [
        (t.decision, t.chosen, t.alternatives, t.count) for t in result.ties]


def test_group_is_never_when_a_member_is():
    """1.36 newPodGroupPreemptor: one member with preemptionPolicy Never makes the group Never;
    upstream with PodGroupPreemptionPolicy=true reads the group's own policy instead."""
    g = gang("train", min_count=1, prio=100)
    snap = snapshot(nodes=[node("n1", cpu="2")], groups=[g], pods=[
        pod("v", cpu="2", prio=1, node="n1"),
        member(g, "w-0", cpu="2", policy="Never")])
    pre = select_preemptor(snap, workload="default/train")
    assert "Unschedulable" == plan(snap, pre, model=M136).status
    gated = get_model("upstream", {"PodGroupPreemptionPolicy": True})
    assert ("RequiresPreemption", ["default/v"]) == _outcome(plan(snap, pre, model=gated))[:2]


def test_nominated_preemptor_waits_only_for_a_preemption_victim():
    """A lower-priority pod terminating on the nominated node blocks new preemption only if it
    carries DisruptionTarget/PreemptionByScheduler (upstream podTerminatingByPreemption).
    Unmarked, t (prio 50) is a potential victim like any pod of n1, but n2's v (prio 1) is the
    better candidate (lower highest victim priority): victim v on n2."""
    t = pod("t", cpu="2", prio=50, node="n1", terminating=True)
    snap = snapshot(nodes=[node("n1", cpu="2"), node("n2", cpu="2")], pods=[
        t, pod("v", cpu="2", prio=1, node="n2"),
        pod("p", cpu="2", prio=100, nominated="n1")])
    pre = select_preemptor(snap, pod="default/p")
    assert ("RequiresPreemption", ["default/v"], [("default/p", "n2")], []) == _outcome(
        plan(snap, pre, model=M136))
    marked = replace(snap, pods={**snap.pods,
                                 t.key: struct_replace(t, preempted_by_scheduler=True)})
    assert ("WaitingForTermination", [], [("default/p", "n1")], ["default/t"]) == _outcome(
        plan(marked, pre, model=M136))


def test_empty_pdb_selector_and_unlabeled_pods_per_version():
    """A PDB with an empty (non-nil) selector: 1.36 matches nothing (selector.Empty(), and no
    unlabeled pod matches); newest util.go FilterVictimsWithPDBViolation selects every pod of
    the namespace, an unlabeled one too, so the victim violates it."""
    from builders import pdb

    snap = snapshot(nodes=[node("n1", cpu="2")], pdbs=[pdb("all", allowed=0)], pods=[
        pod("v", cpu="2", prio=1, node="n1"), pod("p", cpu="2", prio=100)])
    pre = select_preemptor(snap, pod="default/p")
    assert [("default/v", False)] == [(v.pod, v.pdb_violation)
                                      for v in plan(snap, pre, model=M136).victims]
    assert [("default/v", True)] == [(v.pod, v.pdb_violation)
                                     for v in plan(snap, pre, model=UPSTREAM).victims]


def test_136_single_pod_path_spends_every_matching_pdb():
    """1.36 filterPodsWithPDBViolation keeps decrementing every PDB a violating pod matches:
    a (first, more important) violates PDB x and also spends PDB y, so b, covered by y only
    (allowed 1), violates too; the KEP model stops at a's first violated PDB and b does not."""
    from builders import pdb

    snap = snapshot(nodes=[node("n1", cpu="4")], pdbs=[
        pdb("x", match={"x": "1"}, allowed=0), pdb("y", match={"y": "1"}, allowed=1)], pods=[
        pod("a", cpu="2", prio=1, node="n1", start=1.0, labels={"x": "1", "y": "1"}),
        pod("b", cpu="2", prio=1, node="n1", start=2.0, labels={"y": "1"}),
        pod("p", cpu="4", prio=100)])
    pre = select_preemptor(snap, pod="default/p")
    assert [("default/a", True), ("default/b", True)] == [
        (v.pod, v.pdb_violation) for v in plan(snap, pre, model=M136).victims]
    assert [("default/a", True), ("default/b", False)] == [
        (v.pod, v.pdb_violation) for v in plan(snap, pre, model=get_model("kep-5710")).victims]


def test_podgroup_preemption_policy_gate_reads_the_group_not_its_pods():
    """Gate off (1.36, upstream default): members' own policies decide, the PodGroup's declared
    Never is not read; gate on: the PodGroup's declared policy only (manager.go
    getPreemptionPolicy)."""
    g = struct_replace(gang("train", min_count=1, prio=100, policy="Never"),
                       declared_preemption_policy="Never")
    snap = snapshot(nodes=[node("n1", cpu="2")], groups=[g], pods=[
        pod("v", cpu="2", prio=1, node="n1"),
        struct_replace(member(g, "w-0", cpu="2"), own_preemption_policy="PreemptLowerPriority")])
    pre = select_preemptor(snap, workload="default/train")
    assert "RequiresPreemption" == plan(snap, pre, model=M136).status
    assert "RequiresPreemption" == plan(snap, pre, model=UPSTREAM).status
    gated = get_model("upstream", {"PodGroupPreemptionPolicy": True})
    assert "Unschedulable" == plan(snap, pre, model=gated).status


def test_a_pod_group_waits_for_its_nominated_node_in_upstream_only():
    """Gang of 2 (2 cpu each, prio 1000), member t0 nominated to n1, where old (prio 10, 2 cpu)
    is terminating by preemption; n2 (4 cpu) holds v (prio 20, 4 cpu). Nothing more fits now
    (old still holds n1's other half). Upstream's pod-group preemptor is not eligible while a
    lower-priority pod terminates by preemption on a nominated node: it waits for old. 1.36's
    preemptorEligibleToPreemptOthers for a pod group checks the preemption policy only, so it
    preempts: every lower unit out (old and v), v (more important) back first — both members
    fit n1 — then old back leaves one member without room: the chosen victim is old, already
    terminating, which prepareCandidate does not delete again: no new victim, the gang waits for
    old on n1 (WaitingForTermination, both members placed on n1)."""
    old = struct_replace(pod("old", cpu="2", prio=10, node="n1", terminating=True),
                         preempted_by_scheduler=True)
    g = gang("train", min_count=2, prio=1000)
    snap = snapshot(nodes=[node("n1", cpu="4"), node("n2", cpu="4")], groups=[g], pods=[
        old, pod("v", cpu="4", prio=20, node="n2"),
        member(g, "t0", cpu="2", nominated="n1"), member(g, "t1", cpu="2")])
    pre = select_preemptor(snap, workload="default/train")
    assert ("WaitingForTermination", [], [("default/t0", "n1")], ["default/old"]) == _outcome(
        plan(snap, pre, model=UPSTREAM))
    assert ("WaitingForTermination", [], [("default/t0", "n1"), ("default/t1", "n1")],
            ["default/old"]) == _outcome(plan(snap, pre, model=M136))


def test_a_terminating_pod_of_equal_priority_does_not_block():
    """PodEligibleToPreemptOthers waits only for a pod of *lower* priority terminating by
    preemption on the nominated node. t (prio 100, like p) terminates by preemption on n1,
    where p is nominated: p is still eligible; t (not below p) is no victim, so p preempts v
    (prio 1) on n2."""
    t = struct_replace(pod("t", cpu="2", prio=100, node="n1", terminating=True),
                       preempted_by_scheduler=True)
    snap = snapshot(nodes=[node("n1", cpu="2"), node("n2", cpu="2")], pods=[
        t, pod("v", cpu="2", prio=1, node="n2"),
        pod("p", cpu="2", prio=100, nominated="n1")])
    pre = select_preemptor(snap, pod="default/p")
    for model in (M136, UPSTREAM):
        assert ("RequiresPreemption", ["default/v"], [("default/p", "n2")], []) == _outcome(
            plan(snap, pre, model=model))


def test_a_basic_group_places_the_pods_that_fit():
    """1.36: a Basic pod group schedules pod by pod, so it is Schedulable once one pod fits
    (the engine's needed = 1 for Basic). big (16 cpu) fits no node, small (1 cpu) fits n1:
    Schedulable with small placed, big left unplaced — big fitting nowhere must not stop
    the placement of the pods after it."""
    g = basic("jobs", prio=100)
    snap = snapshot(nodes=[node("n1", cpu="4")], groups=[g], pods=[
        member(g, "a-big", cpu="16"), member(g, "b-small", cpu="1")])
    result = plan(snap, select_preemptor(snap, workload="default/jobs"), model=M136)
    assert ("Schedulable", [("default/b-small", "n1")], ("default/a-big",)) == (
        result.status, [(p.pod, p.node) for p in result.placements], result.unplaced)


def test_upstream_tries_a_tenth_of_a_large_cluster_rounded_down():
    """1,005 equal nodes, each full with one equal victim; p needs a node's room.
    calculateNumCandidates (preemption.go): numNodes * minCandidateNodesPercentage(10) / 100
    in integers = 100, at least minCandidateNodesAbsolute (100): upstream tries 100 candidates,
    a random choice among all 1,005 nodes where preemption works."""
    n = 1005
    snap = snapshot(
        nodes=[node(f"n{i:04d}", cpu="2") for i in range(n)],
        pods=[*(pod(f"v{i:04d}", cpu="2", prio=10, node=f"n{i:04d}", start=1) for i in range(n)),
              pod("p", cpu="2", prio=100)])
    result = plan(snap, select_preemptor(snap, pod="default/p"), model=M136)
    assert [("default/p", "n0000")] == [(p.pod, p.node) for p in result.placements]
    assert ("candidate nodes (upstream tries 100 of the 1005 where preemption works, from a "
            "random start)", 1005) in [(t.decision, t.count) for t in result.ties]


def test_136_pod_group_path_stops_spending_at_a_units_first_violation():
    """1.36, a gang preemptor: victims are spent by podgrouppreemption's
    filterVictimsWithPDBViolation, which leaves a victim unit at its first pod that violates a
    PDB (the engine's PdbRules.stop_unit). g (PodGroup mode, prio 10) runs a and b (app=g) on
    n1; PDB all-g (allowed 0) selects both. The gang (2 x 2 cpu) needs all of n1: g goes
    whole; a takes the PDB to -1 (violates), b is not looked at (flag off). The single-pod
    path (filterPodsWithPDBViolation) would mark b too."""
    from builders import pdb

    g = gang("g", min_count=1, mode="PodGroup", prio=10)
    train = gang("train", min_count=2, prio=1000)
    snap = snapshot(
        nodes=[node("n1", cpu="4")], groups=[g, train],
        pdbs=[pdb("all-g", match={"app": "g"}, allowed=0)],
        pods=[member(g, "a", node="n1", cpu="2", labels={"app": "g"}),
              member(g, "b", node="n1", cpu="2", labels={"app": "g"}),
              *(member(train, f"t{i}", cpu="2") for i in range(2))])
    result = plan(snap, select_preemptor(snap, workload="default/train"), model=M136)
    assert [("default/a", True), ("default/b", False)] == [
        (v.pod, v.pdb_violation) for v in result.victims]


def test_a_pod_without_cpu_request_is_scored_by_the_nodes_cpu_too():
    """1.36 / upstream place by the default scores. p asks for memory only; n1 and n2 are
    alike but for cpu: busy uses 3 of n1's 4 cpu, idle none of n2's. NodeResourcesFit
    (LeastAllocated) and BalancedAllocation score cpu as well, counting a pod without a cpu
    request as the non-zero default (schedutil.GetNonzeroRequests): n2 scores higher, no tie."""
    snap = snapshot(nodes=[node("n1", cpu="4", mem="8Gi"), node("n2", cpu="4", mem="8Gi")],
                    pods=[pod("busy", cpu="3", mem="1Gi", node="n1", prio=10),
                          pod("idle", cpu=None, mem="1Gi", node="n2", prio=10),
                          pod("p", cpu=None, mem="1Gi", prio=100)])
    pre = select_preemptor(snap, pod="default/p")
    for model in (M136, UPSTREAM):
        result = plan(snap, pre, model=model)
        assert ("Schedulable", [("default/p", "n2")], ()) == (
            result.status, [(p.pod, p.node) for p in result.placements], result.ties)


def _nominated_where_old_terminates(n1, p_cpu="2"):
    """old (prio 10, 2 cpu) terminates by preemption on ``n1``, where p (prio 100) is
    nominated; n2 (4 cpu) is full with v (prio 1, 4 cpu)."""
    old = struct_replace(pod("old", cpu="2", prio=10, node="n1", terminating=True),
                         preempted_by_scheduler=True)
    snap = snapshot(nodes=[n1, node("n2", cpu="4")], pods=[
        old, pod("v", cpu="4", prio=1, node="n2"),
        pod("p", cpu=p_cpu, prio=100, nominated="n1")])
    return snap, select_preemptor(snap, pod="default/p")


WAITS_FOR_OLD = ("WaitingForTermination", [], [("default/p", "n1")], ["default/old"])
PREEMPTS_V = ("RequiresPreemption", ["default/v"], [("default/p", "n2")], [])


@pytest.mark.parametrize(("label", "n1", "p_cpu", "want"), [
    # n1 (2 cpu, held by old) as when p was nominated there: it waits for old (the control)
    ("nothing-changed", node("n1", cpu="2"), "2", WAITS_FOR_OLD),
    # tainted NoSchedule since, not tolerated: TaintToleration is UnschedulableAndUnresolvable
    ("tainted-since", node("n1", cpu="2", taints=[taint("maint", "yes")]), "2", PREEMPTS_V),
    # cordoned since: NodeUnschedulable, UnschedulableAndUnresolvable
    ("cordoned-since", node("n1", cpu="2", unschedulable=True), "2", PREEMPTS_V),
    # p asks 4 cpu of a node with 2 allocatable: fit.go marks it Unresolvable (4 > 2); n2,
    # emptied of v, takes it
    ("too-small-even-empty", node("n1", cpu="2"), "4", PREEMPTS_V),
    # room for p's 2 cpu but one pod slot, taken by old: "Too many pods" is plain
    # Unschedulable, so p waits for old
    ("no-pod-slot-left", node("n1", cpu="4", pods=1), "2", WAITS_FOR_OLD),
])
def test_a_pod_nominated_where_it_can_no_longer_fit_preempts_again(label, n1, p_cpu, want):
    """Upstream PodEligibleToPreemptOthers (default_preemption.go, 1.36 and newest): a pod
    nominated to a node where a lower-priority pod terminates by preemption waits for it --
    unless the filters now answer UnschedulableAndUnresolvable for that node ("If the pod's
    nominated node is considered as UnschedulableAndUnresolvable by the filters, then the pod
    should be considered for preempting again"); then it preempts elsewhere: v on n2."""
    snap, pre = _nominated_where_old_terminates(n1, p_cpu)
    for model in (M136, UPSTREAM):
        assert want == _outcome(plan(snap, pre, model=model)), (label, model.name)


def test_the_waiting_reason_says_terminates_for_one_pod():
    snap, pre = _nominated_where_old_terminates(node("n1", cpu="2"))
    assert plan(snap, pre, model=M136).reason == (
        "pod default/p is nominated to n1 where 1 lower-priority pod still terminates by "
        "preemption; the scheduler starts no new preemption and waits for it.")


def _full_nodes(n, *, guarded, tainted=0):
    """``n`` 4-cpu nodes n0000.., each full with one victim (prio 10, 4 cpu); the first
    ``guarded`` victims are labelled app=guarded (a PDB with no disruption allowed covers
    them), the rest app=free; ``tainted`` more nodes, empty, carry a taint p does not
    tolerate; p (prio 100) needs 4 cpu."""
    from builders import pdb

    nodes = [node(f"n{i:04d}", cpu="4") for i in range(n)]
    nodes += [node(f"t{i:04d}", cpu="4", taints=[taint("gpu", "yes")]) for i in range(tainted)]
    victims = [pod(f"v{i:04d}", cpu="4", prio=10, node=f"n{i:04d}", start=1,
                   labels={"app": "guarded" if i < guarded else "free"}) for i in range(n)]
    snap = snapshot(nodes=nodes, pods=[*victims, pod("p", cpu="4", prio=100)],
                    pdbs=[pdb("guard", match={"app": "guarded"}, allowed=0)])
    return snap, select_preemptor(snap, pod="default/p")


def _candidate_note(result):
    return [(t.decision, t.count) for t in result.ties if t.decision.startswith("candidate")]


def test_upstream_counts_its_sample_among_the_nodes_where_preemption_might_help():
    """700 full nodes where p can preempt and 400 tainted ones it does not tolerate (1,100
    nodes). nodesWherePreemptionMightHelp leaves out the 400 (TaintToleration answers
    UnschedulableAndUnresolvable), so calculateNumCandidates(700) = max(700 * 10 / 100, 100) =
    100 -- not 110, a tenth of all 1,100."""
    snap, pre = _full_nodes(700, guarded=0, tainted=400)
    assert [("candidate nodes (upstream tries 100 of the 700 where preemption works, from a "
             "random start)", 700)] == _candidate_note(plan(snap, pre, model=M136))


def test_a_search_for_a_node_violating_no_pdb_goes_on_past_the_sample():
    """150 full nodes; the victims of the first 149 are all covered by a PDB allowing no
    disruption, only v0149 is free. DryRunPreemption (preemption.go) keeps at most 100
    candidates of each kind but stops only once one of them violates no PDB ("nvcSize > 0 &&
    nvcSize+vcSize >= numCandidates"), so from any random start it reaches n0149, which wins on
    fewest PDB violations: every sample preempts v0149, and the plan claims no random choice of
    candidates."""
    from wapctl.samples import sample_plans

    snap, pre = _full_nodes(150, guarded=149)
    result = plan(snap, pre, model=M136)
    assert ["default/v0149"] == [v.pod for v in result.victims]
    assert [] == _candidate_note(result)
    report = sample_plans(snap, pre, model=M136, samples=12)
    assert (("default/v0149",), ()) == (report.always, report.sometimes)


def test_with_every_candidate_violating_a_pdb_upstream_keeps_a_random_hundred():
    """150 full nodes, every victim covered by the PDB: the search never stops early, and each
    candidate list keeps the first 100 it is given, from a random start -- which 100 is a
    random choice (every node ties on every criterion but the name, so any may win)."""
    snap, pre = _full_nodes(150, guarded=150)
    assert [("candidate nodes (upstream keeps 100 of the 150 where preemption works, from a "
             "random start)", 150)] == _candidate_note(plan(snap, pre, model=M136))


def test_with_some_candidates_violating_a_pdb_the_sample_may_grow():
    """150 full nodes, 140 victims covered by the PDB, 10 free: upstream stops at 100
    candidates once one is free -- further if its first 100 from the random start are all
    covered -- and which free node it finds first is random."""
    snap, pre = _full_nodes(150, guarded=140)
    assert [("candidate nodes (upstream tries 100 of the 150 where preemption works, from a "
             "random start, more until one violates no PDB)", 150)] == _candidate_note(
        plan(snap, pre, model=M136))


def _diverging(own, mode="Pod", group=1000):
    """g (a pod group at priority ``group``, disruptionMode ``mode``) runs g-0 on n1 (4 cpu),
    a pod carrying its own priority ``own`` (a PriorityDivergence the real 1.36.2 scheduler
    binds: fixtures/exports/k8s-1.36/admission); p (500, standalone) needs all of n1."""
    g = gang("g", min_count=1, mode=mode, prio=group)
    g0 = struct_replace(member(g, "g-0", cpu="4", node="n1"), own_priority=own)
    snap = snapshot(nodes=[node("n1", cpu="4")], groups=[g], pods=[
        g0, pod("p", cpu="4", prio=500)])
    return snap, select_preemptor(snap, pod="default/p")


@pytest.mark.parametrize(("own", "mode", "group", "m136", "newest"), [
    # 1.36 compares corev1helpers.PodPriority -- spec.priority, 100 < 500 -- where newer
    # upstream ranks a member by its group's 1000 (util.go getPodPriority)
    (100, "Pod", 1000, ["default/g-0"], []),
    # and the other way round: its own 2000 protects it in 1.36, its group's 100 does not
    (2000, "Pod", 100, [], ["default/g-0"]),
    # a single pod's 1.36 path takes PodGroup-mode members pod by pod too (SelectVictimsOnNode
    # over nodeInfo.GetPods()); newer upstream removes the group whole, at the group's 1000
    (100, "PodGroup", 1000, ["default/g-0"], []),
])
def test_136_ranks_a_pod_alone_by_its_own_priority(own, mode, group, m136, newest):
    snap, pre = _diverging(own, mode, group)
    assert m136 == _outcome(plan(snap, pre, model=M136))[1]
    assert newest == _outcome(plan(snap, pre, model=UPSTREAM))[1]


def test_136_gang_path_ranks_pod_mode_members_alone_and_podgroup_units_by_the_group():
    """A gang preemptor (2 x 2 cpu, priority 500) in 1.36 (types.go
    newDomainForWorkloadPreemption, v1alpha2): a Pod-mode member is a victim at
    PodPriority(pod) -- its own 100 -- while a PodGroup-mode group is one victim at
    PodGroupPriority -- 1000, so never below 500."""
    train = gang("train", min_count=2, prio=500)
    for mode, want in (("Pod", ["default/g-0"]), ("PodGroup", [])):
        g = gang("g", min_count=1, mode=mode, prio=1000)
        snap = snapshot(nodes=[node("n1", cpu="4")], groups=[g, train], pods=[
            struct_replace(member(g, "g-0", cpu="4", node="n1"), own_priority=100),
            member(train, "t-0", cpu="2"), member(train, "t-1", cpu="2")])
        pre = select_preemptor(snap, workload="default/train")
        assert want == _outcome(plan(snap, pre, model=M136))[1], mode


def test_samples_pass_over_a_node_too_small_for_the_preemptor():
    """n1 (1 cpu) runs a (prio 1), n2 (4 cpu) runs b (prio 1); p (prio 100) asks 2 cpu. n1 has
    a victim but can never take p (fit.go: Unresolvable, 2 > 1), so it is no potential node:
    every sample preempts b on n2, as the deterministic plan does (--samples once crashed
    with a KeyError on such a node)."""
    from wapctl.samples import sample_plans

    snap = snapshot(nodes=[node("n1", cpu="1"), node("n2", cpu="4")], pods=[
        pod("a", cpu="1", prio=1, node="n1"), pod("b", cpu="4", prio=1, node="n2"),
        pod("p", cpu="2", prio=100)])
    pre = select_preemptor(snap, pod="default/p")
    assert ["default/b"] == _outcome(plan(snap, pre, model=M136))[1]
    report = sample_plans(snap, pre, model=M136, samples=3)
    assert (("default/b",), ()) == (report.always, report.sometimes)
