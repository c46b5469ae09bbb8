"""plan() on a kept ``fit.Accounting`` (``state=``): the same Plan as a rebuild from the
snapshot, and the accounting left exactly as it was found, also after pod updates."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from builders import basic, gang, member, node, pdb, pod, snapshot
from hypothesis import HealthCheck, given, settings
from msgspec.structs import replace as struct_replace
from test_fast_vs_reference import random_cluster
from test_preemption_properties import clusters

from wapctl.fit import Accounting
from wapctl.model import Pod, Snapshot
from wapctl.models import get_model
from wapctl.preemption import plan, units
from wapctl.preemptor import pending_preemptors

KEP = get_model("kep-5710")


def accounting_state(acc: Accounting) -> tuple:
    """Everything an Accounting holds, comparable: per node the non-zero requested amounts and
    the pod count, the bound / terminating / nominated pods with their node index. (A resource
    taken off may stay in ``requested`` as an explicit 0: the same amount.)"""
    nodes = tuple((s.name, tuple(sorted((r, q) for r, q in s.requested.items() if q)),
                   s.pod_count) for s in acc.nodes)
    return (nodes,
            tuple((p.key, id(p), i) for p, i in acc.bound_pods()),
            tuple(sorted((k, id(p), i) for k, (p, i) in acc.terminating.items())),
            tuple(sorted((k, id(p), i) for k, (p, i) in acc.nominated.items())))


def accounting_content(acc: Accounting) -> tuple:
    """As ``accounting_state`` but by pod value, to compare with a fresh Accounting."""
    state = accounting_state(acc)
    return (state[0], tuple(p.key for p, _ in acc.bound_pods()),
            tuple(sorted((k, p, i) for k, (p, i) in acc.terminating.items())),
            tuple(sorted((k, p, i) for k, (p, i) in acc.nominated.items())))


def plans_agree_and_leave_state(snap: Snapshot, acc: Accounting) -> None:
    """For every pending preemptor: the plan with an Accounting equals the rebuilt one, and
    the accounting is unchanged."""
    for pre in pending_preemptors(snap):
        before = accounting_state(acc)
        assert plan(snap, pre) == plan(snap, pre, state=acc), pre.key
        assert before == accounting_state(acc), pre.key


@pytest.mark.parametrize("seed", range(12), ids=lambda s: f"seed-{s}")
def test_plan_on_accounting_equals_rebuild_on_medium_clusters(seed):
    """On the medium random clusters of the reference test (every status, gangs of one and
    several shapes, PDBs, nominations, terminating pods) the plan with an Accounting is the
    same Plan."""
    snap = random_cluster(seed, multi_shape=None if seed < 8 else True)
    plans_agree_and_leave_state(snap, Accounting(snap))


@pytest.mark.parametrize("model", ["1.36", "kep-5710"])
def test_a_deleted_pending_pod_reserves_nothing_on_its_nominated_node(model):
    """ghost (prio 1000, 4 cpu) is pending, nominated to n1 and being deleted: a pod on its
    way out is not scheduled, so it reserves nothing (ClusterState skips a terminating pending
    pod). p (prio 500, 2 cpu) fits n1 now — with an Accounting as without it."""
    snap = snapshot(nodes=[node("n1", cpu="4")], pods=[
        pod("ghost", cpu="4", prio=1000, nominated="n1", terminating=True),
        pod("p", cpu="2", prio=500)])
    [pre] = pending_preemptors(snap)  # the ghost, being deleted, is not one
    for acc in (None, Accounting(snap)):
        result = plan(snap, pre, model=get_model(model), state=acc)
        assert ("Schedulable", ["n1"]) == (result.status, [p.node for p in result.placements])


@pytest.mark.parametrize("kind", ["pod", "gang"])
@pytest.mark.parametrize("model", ["1.36", "kep-5710"])
def test_a_pod_of_the_preemptors_own_priority_is_no_victim_in_any_namespace(model, kind):
    """n1 (3 cpu): peer (2 cpu, prio 100, namespace 0-batch: DNS labels may start with a
    digit) and low (1 cpu, prio 10); p (2 cpu, prio 100, alone or a gang of one) needs
    peer's room, and low's alone is not enough. Preemption takes only lower priorities:
    Unschedulable, with an Accounting as without, also at its second plan (the first builds
    its units from the running pods; the victim index, cut at the preemptor's priority,
    serves from the second on)."""
    g = gang("train", min_count=1, prio=100)
    p = member(g, "p", cpu="2") if kind == "gang" else pod("p", cpu="2", prio=100)
    snap = snapshot(nodes=[node("n1", cpu="3")], groups=[g] if kind == "gang" else [],
                    pods=[pod("peer", "0-batch", cpu="2", prio=100, node="n1"),
                          pod("low", cpu="1", prio=10, node="n1"), p])
    [pre] = pending_preemptors(snap)
    acc = Accounting(snap)
    for state in (None, acc, acc):
        result = plan(snap, pre, model=get_model(model), state=state)
        assert ("Unschedulable", ()) == (result.status, result.victims)


@pytest.mark.parametrize(("model", "kind"), [("upstream", "pod"), ("upstream", "gang"),
                                           ("1.36", "gang")])
def test_a_terminating_member_of_a_low_group_stays_a_victim_on_a_kept_accounting(model, kind):
    """A pod whose own priority is above the preemptor's but whose PodGroup's is below
    (PriorityDivergence) is judged by its group, also when terminating and also at the second
    plan on a kept Accounting (whose victim index holds running pods only). As the reader
    builds a v1alpha1 Workload without a class (each pod keeps its own priority, the group
    takes the lowest): n1 (4 cpu): the PodGroup-mode group etl (prio 10) = {a: terminating,
    2 cpu, prio and preemption prio 100; b: running, 2 cpu, prio 10}; n2 (4 cpu): c (4 cpu,
    prio 20). p (4 cpu, prio 50): a pod (upstream lets it take a PodGroup-mode group whole) or
    a gang of one (whole in 1.36 too). Upstream models hold a terminating pod's room and take
    it as a victim: the etl unit (10 < 50) frees 4 cpu on n1, c frees n2's; n1's highest
    victim (10) is below n2's (20), and for the gang c (20) is put back first while p still
    fits on n1, then etl back would leave p nowhere: p -> n1, victim b, a waited for (already
    terminating). Leaving a out of the unit (its own 100 >= 50) frees only 2 cpu on n1 and
    would preempt c on n2 instead."""
    etl = gang("etl", min_count=2, mode="PodGroup", prio=10)
    job = gang("job", min_count=1, prio=50)
    p = member(job, "p", cpu="4") if kind == "gang" else pod("p", cpu="4", prio=50)
    snap = snapshot(nodes=[node("n1", cpu="4"), node("n2", cpu="4")],
                    groups=[etl, job] if kind == "gang" else [etl],
                    pods=[member(etl, "a", cpu="2", prio=100, preempt_prio=100, node="n1",
                                 terminating=True),
                          member(etl, "b", cpu="2", node="n1"),
                          pod("c", cpu="4", prio=20, node="n2"), p])
    [pre] = pending_preemptors(snap)
    acc = Accounting(snap)
    for state in (None, acc, acc):  # the second plan on acc serves from its victim index
        result = plan(snap, pre, model=get_model(model), state=state)
        assert ("RequiresPreemption", ["default/b"], ["default/a"], ["n1"]) == (
            result.status, [v.pod for v in result.victims],
            [t.pod for t in result.terminating], [q.node for q in result.placements])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters())
def test_plan_on_accounting_equals_rebuild_on_tiny_clusters(case):
    """On the tiny clusters of the property tests the plan with an Accounting is the same Plan."""
    snap, _ = case
    plans_agree_and_leave_state(snap, Accounting(snap))


def _mutate(snap: Snapshot, rng: random.Random) -> tuple[Snapshot, list[tuple[Pod | None,
                                                                            Pod | None]]]:
    """A few pod changes as a replay makes them: bind, nominate, terminate, remove, recreate."""
    pods = dict(snap.pods)
    names = sorted(snap.nodes)
    changes: list[tuple[Pod | None, Pod | None]] = []
    for key in rng.sample(sorted(pods), min(12, len(pods))):
        old = pods[key]
        if old.node_name is None and not old.terminating:
            new = rng.choice([
                struct_replace(old, node_name=rng.choice(names), phase="Running",
                               nominated_node=None),
                struct_replace(old, nominated_node=rng.choice([None, *names])),
            ])
        elif not old.terminating:
            new = rng.choice([struct_replace(old, terminating=True), None])
        else:
            new = rng.choice([None, struct_replace(old, node_name=None, phase="Pending",
                                                   terminating=False, nominated_node=None)])
        if new is None:
            del pods[key]
        else:
            pods[key] = new
        changes.append((old, new))
    return replace(snap, pods=dict(sorted(pods.items()))), changes


@pytest.mark.parametrize("seed", range(6), ids=lambda s: f"seed-{s}")
def test_updated_accounting_equals_a_fresh_one_and_plans_the_same(seed):
    """After rounds of pod changes told to update(), the accounting holds what a fresh one
    built from the changed snapshot holds, and plans on it equal rebuilt plans."""
    rng = random.Random(seed)
    snap = random_cluster(100 + seed)
    acc = Accounting(snap)
    for _ in range(3):
        snap, changes = _mutate(snap, rng)
        for old, new in changes:
            acc.update(old, new)
        assert accounting_content(Accounting(snap)) == accounting_content(acc)
        plans_agree_and_leave_state(snap, acc)


def _gang_case() -> Snapshot:
    """n1 holds old-0 and a terminating pod, n2 holds old-1 and a reservation of a higher
    nominated pod; old is one PodGroup unit behind a PDB with no disruptions left. The gang
    new (2 x 2 cpu) fits only on n1 once old is gone: it preempts both pods of old."""
    old = gang("old", min_count=1, mode="PodGroup", prio=10)
    new = gang("new", min_count=2, prio=100)
    return snapshot(
        nodes=[node("n1", cpu="4"), node("n2", cpu="4")], groups=[old, new],
        pdbs=[pdb("old", match={"app": "old"}, allowed=0)],
        pods=[member(old, "old-0", cpu="2", node="n1", labels={"app": "old"}),
              member(old, "old-1", cpu="2", node="n2", labels={"app": "old"}),
              pod("going", cpu="2", node="n1", terminating=True),
              pod("held", cpu="1", prio=500, nominated="n2"),
              member(new, "new-0", cpu="2"), member(new, "new-1", cpu="2")])


def test_a_failing_plan_still_gives_the_accounting_back(monkeypatch):
    """An exception in the middle of the victim search (a unit removed, terminating pods
    released, a reservation added) leaves the accounting as it was."""
    snap = _gang_case()
    acc = Accounting(snap)
    before = accounting_state(acc)

    def boom(self, fn):
        raise RuntimeError("boom")

    monkeypatch.setattr(units.Unit, "importance_by", boom)
    pre = next(p for p in pending_preemptors(snap) if p.kind == "PodGroup")
    with pytest.raises(RuntimeError, match="boom"):
        plan(snap, pre, state=acc)
    assert before == accounting_state(acc)


@pytest.mark.parametrize("seed", range(6), ids=lambda s: f"seed-{s}")
def test_a_plan_never_writes_to_the_accountings_node_states(monkeypatch, seed):
    """A plan's view copies a node's state before writing to it: not even for a moment (a
    placement run taken back, a unit removed and put back) does a plan change the node
    states the accounting holds, in any model, with pod-dependent filters or without."""
    from constraint_builders import HOSTNAME, aff, constrained, sel

    from wapctl.fit import NodeState

    rng = random.Random(seed)
    base = random_cluster(500 + seed, multi_shape=None if seed < 3 else True)
    anti = aff(HOSTNAME, sel({"app": "x"}))
    snap = replace(base, pods={k: constrained(p, anti=[anti]) if rng.random() < 0.3 else p
                               for k, p in base.pods.items()})
    acc = Accounting(snap)
    held = {id(s) for s in acc.nodes}
    writes: list[str] = []
    for name in ("add_requests", "remove_requests", "take", "give_back"):
        def guard(self, *args, _name=name, _write=getattr(NodeState, name)):
            if id(self) in held:
                writes.append(f"{_name} on {self.name}")
            return _write(self, *args)
        monkeypatch.setattr(NodeState, name, guard)
    planned = 0
    for model in ("upstream", "1.36", "kep-5710"):
        for pre in pending_preemptors(snap):
            plan(snap, pre, model=get_model(model), state=acc)
            planned += 1
    assert (planned > 0, writes) == (True, [])


def test_accounting_of_an_equal_snapshot_is_accepted():
    """The same cluster read twice gives equal, not identical, snapshots: an Accounting built
    from one plans the other, as without it."""
    def build():
        return snapshot(nodes=[node("n1", cpu="2")], pods=[
            pod("v", cpu="2", prio=1, node="n1"), pod("p", cpu="2", prio=100)])
    first, again = build(), build()
    assert first.nodes is not again.nodes
    [pre] = pending_preemptors(again)
    assert plan(again, pre) == plan(again, pre, state=Accounting(first))


def test_accounting_of_other_nodes_is_refused():
    """An Accounting built for a snapshot with other nodes is a caller error, and says so."""
    snap = snapshot(nodes=[node("n1")], pods=[pod("p", prio=1)])
    other = Accounting(snapshot(nodes=[node("n2")]))
    with pytest.raises(ValueError, match="built for a snapshot with other nodes"):
        plan(snap, pending_preemptors(snap)[0], state=other)


def test_pdb_marking_and_reservations_match_on_a_hand_made_cluster():
    """The gang case by hand: both pods of old are victims and violate the PDB, the gang goes
    to n1; the plan with an Accounting is the rebuilt one and leaves the accounting as it was."""
    snap = _gang_case()
    acc = Accounting(snap)
    before = accounting_state(acc)
    pre = next(p for p in pending_preemptors(snap) if p.kind == "PodGroup")
    expected = plan(snap, pre, model=KEP)  # the KEP model's greedy placement: first by name
    assert ("RequiresPreemption", [("default/old-0", True), ("default/old-1", True)],
            [("default/new-0", "n1"), ("default/new-1", "n1")]) == (
        expected.status, [(v.pod, v.pdb_violation) for v in expected.victims],
        [(pl.pod, pl.node) for pl in expected.placements])
    assert expected == plan(snap, pre, state=acc, model=KEP)
    assert before == accounting_state(acc)


# ---- the victim-unit index kept with an accounting --------------------------------------------


def _units(units) -> list[tuple]:
    return [(u.kind, u.name, u.priority, tuple(p.key for p, _ in u.members), u.tier, u.nodes)
            for u in units]


def index_content(index: units.UnitIndex) -> tuple:
    return (_units(index.units),
            {i: _units(local) for i, local in index.node_units.items() if local})


def assert_index_answers_as_built(snap: Snapshot, acc: Accounting) -> None:
    """For every pending preemptor (and at every priority) the index gives exactly the units
    ``victim_units`` builds from a fresh ClusterState, in (priority, name) order, per node
    too."""
    from wapctl.fit import ClusterState

    index = units.UnitIndex.of(acc, snap.pod_groups)
    state = ClusterState(snap)
    for pre in pending_preemptors(snap):
        for limit in sorted({pre.priority, -1, 0, 10**9, *(p.preemption_priority
                                                            for p in snap.pods.values())}):
            probe = replace(pre, priority=limit)
            built = list(units.victim_units(snap, state, probe))  # in (priority, name) order
            assert _units(built) == _units(index.below(limit, pre.group_key)), (pre.key, limit)
            per_node: dict[int, list] = {}
            for u in built:
                for i in u.nodes:
                    per_node.setdefault(i, []).append(u)
            assert {i: _units(v) for i, v in per_node.items()} == {
                i: _units(v) for i, v in index.per_node(limit, pre.group_key).items()}


@pytest.mark.parametrize("seed", range(6), ids=lambda s: f"seed-{s}")
def test_unit_index_follows_updates_and_answers_as_built(seed):
    """The index kept through rounds of pod changes holds what one built afresh holds, and
    answers every preemptor's victim units as victim_units does (own group left out)."""
    rng = random.Random(seed)
    snap = random_cluster(200 + seed)
    acc = Accounting(snap)
    index = units.UnitIndex.of(acc, snap.pod_groups)
    assert_index_answers_as_built(snap, acc)
    for _ in range(3):
        snap, changes = _mutate(snap, rng)
        for old, new in changes:
            acc.update(old, new)
        assert index is units.UnitIndex.of(acc, snap.pod_groups)
        assert index_content(units.UnitIndex(Accounting(snap), snap.pod_groups)) == \
            index_content(index)
        assert_index_answers_as_built(snap, acc)


def test_unit_index_leaves_out_the_own_group_in_every_mode():
    """A pod of a basic group, a gang and a PodGroup-mode gang never get their own group's
    running pods as victims; other groups' pods stay."""
    svc = basic("svc", prio=500, preempt_prio=10)
    job = gang("job", min_count=3, prio=500, preempt_prio=10)
    whole = gang("whole", min_count=3, mode="PodGroup", prio=500, preempt_prio=10)
    snap = snapshot(nodes=[node("n1", cpu="8")], groups=[svc, job, whole], pods=[
        *(member(g, f"{g.workload}-{k}", node="n1") for g in (svc, job, whole) for k in (0, 1)),
        *(member(g, f"{g.workload}-new", cpu="8") for g in (svc, job, whole))])
    acc = Accounting(snap)
    index = units.UnitIndex.of(acc, snap.pod_groups)
    names = {pre.key: [u.name for u in index.below(pre.priority, pre.group_key)]
             for pre in pending_preemptors(snap)}
    assert {
        "default/svc-new": ["default/job-0", "default/job-1", "default/whole/main"],
        "default/job/main": ["default/svc-0", "default/svc-1", "default/whole/main"],
        "default/whole/main": ["default/job-0", "default/job-1", "default/svc-0",
                               "default/svc-1"],
    } == names
    assert_index_answers_as_built(snap, acc)


def test_unit_index_is_rebuilt_for_other_pod_groups():
    """Equal pod groups reuse the index; other ones get a new index, and the old one stops
    listening to the accounting."""
    snap = _gang_case()
    acc = Accounting(snap)
    first = units.UnitIndex.of(acc, snap.pod_groups)
    assert first is units.UnitIndex.of(acc, dict(snap.pod_groups))
    other = units.UnitIndex.of(acc, {})
    assert other is not first
    assert ["default/old-0", "default/old-1"] == [u.name for u in other.units]
    acc.update(snap.pods["default/old-0"], None)
    assert ["default/old-1"] == [u.name for u in other.units]
    assert ["default/old/main"] == [u.name for u in first.units]  # no longer told


def _whole_group_cluster(rng: random.Random) -> Snapshot:
    """Three PodGroup-mode gangs of 6 pods spread over 8 nodes (some pending), a Pod-mode
    gang and standalone pods: the units a gang preempted or bound pod by pod changes."""
    nodes = [node(f"n{k}", cpu="64") for k in range(8)]
    groups = [gang(f"whole-{g}", min_count=2, mode="PodGroup", prio=10 * g,
                   preempt_prio=5 * g) for g in range(3)]
    loose = gang("loose", min_count=2, prio=15)
    pods = [member(g, f"{g.workload}-{k}", node=rng.choice([None, *(n.name for n in nodes)]))
            for g in (*groups, loose) for k in range(6)]
    pods += [pod(f"solo-{k}", prio=rng.randrange(40), node=rng.choice(nodes).name)
             for k in range(6)]
    return snapshot(nodes=nodes, groups=[*groups, loose], pods=pods)


@pytest.mark.parametrize("seed", range(8), ids=lambda s: f"seed-{s}")
def test_unit_index_after_batches_of_whole_group_changes_equals_a_fresh_one(seed):
    """The index rebuilds a whole group's unit once per batch of its pods' changes (before
    the next question), not per pod. After batches that bind, terminate, remove and recreate
    several pods of the same groups (questions asked between some changes of a batch, too),
    it holds what an index built afresh holds and answers as victim_units builds."""
    rng = random.Random(seed)
    snap = _whole_group_cluster(rng)
    acc = Accounting(snap)
    index = units.UnitIndex.of(acc, snap.pod_groups)
    names = sorted(snap.nodes)
    for _ in range(6):
        pods = dict(snap.pods)
        workloads = rng.sample(["whole-0", "whole-1", "whole-2", "loose", "solo"], 2)
        keys = [k for k in sorted(pods) if any(f"/{w}-" in k for w in workloads)]
        for key in rng.sample(keys, rng.randrange(1, len(keys) + 1)):
            old = pods[key]
            if old.node_name is None:
                new = struct_replace(old, node_name=rng.choice(names), phase="Running")
            elif not old.terminating:
                new = rng.choice([struct_replace(old, terminating=True), None])
            else:
                new = rng.choice([None, struct_replace(old, node_name=None, phase="Pending",
                                                       terminating=False)])
            if new is None:
                del pods[key]
            else:
                pods[key] = new
            acc.update(old, new)
            if rng.random() < 0.2:  # a question in the middle of the batch
                index.below(10**9, None)
        snap = replace(snap, pods=dict(sorted(pods.items())))
        fresh = units.UnitIndex(Accounting(snap), snap.pod_groups)
        assert index_content(fresh) == index_content(index)
        assert {g: sorted(m) for g, m in fresh.members.items()} == \
            {g: sorted(m) for g, m in index.members.items()}
        assert sorted(fresh.whole) == sorted(index.whole)
        assert_index_answers_as_built(snap, acc)


@pytest.mark.parametrize("seed", range(4), ids=lambda s: f"seed-{s}")
def test_kept_anti_affinity_pods_equal_the_filtered_running_pods(seed):
    """The accounting keeps the running pods with required anti-affinity terms (the only ones
    a plan's filters look at for an unconstrained preemptor) as pods come and go: always the
    running pods filtered, in pod-key order, as a fresh accounting and a ClusterState built
    from the snapshot list them; plans on it still equal rebuilt plans."""
    from constraint_builders import HOSTNAME, aff, constrained, sel

    from wapctl.fit import ClusterState

    rng = random.Random(seed)
    base = random_cluster(300 + seed)
    anti = aff(HOSTNAME, sel({"app": "x"}))
    snap = replace(base, pods={k: constrained(p, anti=[anti]) if rng.random() < 0.5 else p
                               for k, p in base.pods.items()})
    acc = Accounting(snap)
    for _ in range(4):
        filtered = [t for t in acc.bound_pods() if t[0].anti_affinity_terms]
        assert filtered == acc.anti_affinity_pods()
        assert [(p.key, i) for p, i in ClusterState(snap).bound_with_anti_affinity()] == \
            [(p.key, i) for p, i in Accounting(snap).anti_affinity_pods()] == \
            [(p.key, i) for p, i in filtered]
        view = ClusterState.over(acc)
        assert view.bound_with_anti_affinity() == filtered
        plans_agree_and_leave_state(snap, acc)
        snap, changes = _mutate(snap, rng)
        for old, new in changes:
            acc.update(old, new)


@pytest.mark.parametrize("seed", range(4), ids=lambda s: f"seed-{s}")
def test_an_accounting_built_at_once_equals_one_told_every_pod(seed):
    """Building from a snapshot (one inlined pass) gives what an accounting of no pods told
    every pod through update() holds: per-node totals and counts, the bound, terminating and
    nominated pods with their node, the anti-affinity list; a pod given twice is refused."""
    snap = random_cluster(700 + seed)
    told = Accounting(replace(snap, pods={}))
    for p in snap.pods.values():
        told.update(None, p)
    built = Accounting(snap)
    assert accounting_content(told) == accounting_content(built)
    assert told.anti_affinity_pods() == built.anti_affinity_pods()
    twice = next(p for p in snap.pods.values() if p.node_name is not None)
    with pytest.raises(ValueError, match=f"pod {twice.key} is already accounted"):
        Accounting(replace(snap, pods={**snap.pods, "again": twice}))
    # the same key in two slots: running, and as a pending pod nominated to the same node
    nominated = struct_replace(twice, node_name=None, phase="Pending",
                               nominated_node=twice.node_name)
    with pytest.raises(ValueError, match=f"pod {twice.key} is already accounted"):
        Accounting(replace(snap, pods={**snap.pods, "again": nominated}))
    with pytest.raises(ValueError, match=f"pod {twice.key} is already accounted"):
        gone = struct_replace(twice, terminating=True)
        Accounting(replace(snap, pods={**snap.pods, "again": gone}))
