"""``audit``'s planning of both sides (``audit.plan_changes``) and the per-snapshot passes it
leans on: the same answers as the plain definitions, however they are computed."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from builders import basic, gang, member, node, pod, snapshot
from constraint_builders import aff, constrained, sel
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace as struct_replace
from test_fast_vs_reference import random_cluster
from test_preemption_state import accounting_state, plans_agree_and_leave_state

from wapctl.audit import PlanChange, plan_changes
from wapctl.fit import Accounting, ClusterState
from wapctl.model import Pod, Snapshot
from wapctl.models import BehaviourModel, get_model
from wapctl.preemption import Plan, plan
from wapctl.preemption.units import victim_units
from wapctl.preemptor import (
    _group_preemptor,
    _pod_preemptor,
    _queue_key,
    bound_members,
    pending_preemptors,
)

# ---- the queue: pending_preemptors / bound_members against the Pod properties -------------


def _queue_oracle(snap: Snapshot, namespace: str | None) -> list:
    """The queue from its definition: pods whose ``Pod.pending`` holds; gangs' pods together,
    ``needed`` from the pods whose ``Pod.running`` holds."""
    pending = [p for p in snap.pods.values() if p.pending
               and (namespace is None or p.namespace == namespace)]
    running: dict[str, int] = {}
    for p in snap.pods.values():
        if p.group_key is not None and p.running:
            running[p.group_key] = running.get(p.group_key, 0) + 1
    gangs: dict[str, list[Pod]] = {}
    out = []
    for p in pending:
        group = snap.pod_groups.get(p.group_key) if p.group_key else None
        if group is not None and group.policy == "Gang":
            gangs.setdefault(group.key, []).append(p)
        else:
            out.append(_pod_preemptor(p))
    out += [_group_preemptor(snap, snap.pod_groups[k], ps, running) for k, ps in gangs.items()]
    return sorted(out, key=_queue_key)


@st.composite
def pod_states(draw) -> Snapshot:
    """Pods in every state a pod can be in: bound or not, each phase, terminating, gated,
    nominated, in a gang, a basic group or none, in two namespaces."""
    groups = [gang("g", min_count=draw(st.integers(1, 4)), prio=draw(st.integers(0, 3))),
              basic("b", prio=draw(st.integers(0, 3))),
              gang("h", ns="other", min_count=2, prio=1)]
    pods = []
    for k in range(draw(st.integers(0, 12))):
        kw = {
            "node": draw(st.sampled_from([None, None, "n1"])),
            "terminating": draw(st.integers(0, 4)) == 0,
            "created": draw(st.sampled_from([None, 1.0, 2.0])),
            "nominated": draw(st.sampled_from([None, "n1"])),
        }
        phase = draw(st.sampled_from([None, "Pending", "Running", "Succeeded", "Failed",
                                      "Unknown"]))
        if phase is not None:
            kw["phase"] = phase
        where = draw(st.sampled_from([None, 0, 1, 2]))
        p = (pod(f"p{k}", draw(st.sampled_from(["default", "other"])),
                 prio=draw(st.integers(0, 3)), **kw)
             if where is None else member(groups[where], f"p{k}", **kw))
        if draw(st.integers(0, 5)) == 0:
            p = struct_replace(p, gated=True)
        pods.append(p)
    return snapshot(nodes=[node("n1")], pods=pods, groups=groups)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pod_states(), st.sampled_from([None, "default", "other"]))
def test_queue_is_the_one_the_pod_properties_define(snap, namespace):
    """``pending_preemptors`` and ``bound_members`` test the pod fields inline; they must
    agree with ``Pod.pending`` / ``Pod.running`` in every pod state."""
    assert _queue_oracle(snap, namespace) == pending_preemptors(snap, namespace)
    expected: dict[str, int] = {}
    for p in snap.pods.values():
        if p.group_key is not None and p.running:
            expected[p.group_key] = expected.get(p.group_key, 0) + 1
    assert expected == bound_members(snap)


# ---- the side after the change: an Accounting derived from the side before ----------------


def _reprioritised(snap: Snapshot, rng: random.Random, moved: float = 0.0) -> Snapshot:
    """``snap`` after a change as audit sees one: new Pod objects for about a third of the
    pods with another (scheduling and preemption) priority, some relabelled, their groups'
    priorities changed too, the PDBs read again (equal, new objects; sometimes one budget
    changed), the node mapping read again (equal). With ``moved``, that share of the pods
    also changes where it counts (bound elsewhere, unbound, finished, terminating, more
    requests) or goes away."""
    names = sorted(snap.nodes)
    pods: dict[str, Pod] = {}
    for key, p in snap.pods.items():
        if rng.random() < 0.35:
            value = rng.choice([0, 5, 50, 150, 500, 5000, 10**6])
            p = struct_replace(p, priority=value, preemption_priority=value + rng.choice([0, 0, 7]))
        if rng.random() < 0.1:  # relabelled: the PDBs matching it may change
            p = struct_replace(p, labels={"app": rng.choice(["web", "db", "batch"])})
        if rng.random() < moved:
            how = rng.randrange(6)
            if how == 5:
                continue
            cpu = p.requests.get("cpu", 0) + 1
            p = [struct_replace(p, node_name=rng.choice(names), phase="Running"),
                 struct_replace(p, node_name=None, phase="Pending"),
                 struct_replace(p, phase="Succeeded"),
                 struct_replace(p, terminating=not p.terminating),
                 struct_replace(p, requests={**p.requests, "cpu": cpu})][how]
        pods[key] = p
    groups = {k: struct_replace(g, priority=g.priority + 1) if rng.random() < 0.3 else g
              for k, g in snap.pod_groups.items()}
    pdbs = tuple(replace(b) for b in snap.pdbs)
    if pdbs and rng.random() < 0.3:
        pdbs = (replace(pdbs[0], disruptions_allowed=pdbs[0].disruptions_allowed + 1),
                *pdbs[1:])
    return replace(snap, pods=pods, pod_groups=groups, pdbs=pdbs, nodes=dict(snap.nodes))


def _with_anti_affinity(snap: Snapshot, rng: random.Random) -> Snapshot:
    """Some bound pods carry a required anti-affinity term (the accounting lists them)."""
    term = aff("kubernetes.io/hostname", sel({"app": "db"}))
    pods = {k: constrained(p, anti=[term]) if p.node_name and rng.random() < 0.1 else p
            for k, p in snap.pods.items()}
    return replace(snap, pods=pods)


@pytest.mark.parametrize("seed", range(8), ids=lambda s: f"seed-{s}")
def test_derived_accounting_is_the_fresh_one(seed):
    """Derived for a change that moves no pod, the accounting of the side after holds what a
    fresh one of that side holds (the same pod objects, node totals, lists), and the one it
    came from is left as it was."""
    rng = random.Random(seed)
    old = _with_anti_affinity(random_cluster(200 + seed), rng)
    new = _reprioritised(old, rng)
    acc = Accounting(old)
    kept = accounting_state(acc)
    derived = acc.derive(old, new)
    assert derived is not None
    fresh = Accounting(new)
    assert accounting_state(fresh) == accounting_state(derived)
    assert [(p.key, id(p), i) for p, i in fresh.anti_affinity_pods()] == \
        [(p.key, id(p), i) for p, i in derived.anti_affinity_pods()]
    assert any(p.anti_affinity_terms for p, _ in derived.anti_affinity_pods())
    assert kept == accounting_state(acc)
    plans_agree_and_leave_state(new, derived)


@pytest.mark.parametrize("seed", range(8), ids=lambda s: f"seed-{s}")
def test_a_change_that_moves_pods_is_derived_right_or_not_at_all(seed):
    """When pods move (bound elsewhere, unbound, finished, terminating, other requests, gone)
    no accounting is derived: the caller builds a fresh one."""
    rng = random.Random(seed)
    old = random_cluster(300 + seed)
    new = _reprioritised(old, rng, moved=0.02)
    assert Accounting(old).derive(old, new) is None


def test_derive_refuses_other_nodes_and_other_pods():
    """Hand-made: a node changed, a pod added, a pod's requests changed -- each refused; a
    priority change accepted, the pod swapped in."""
    v = pod("v", cpu="1", prio=1, node="n1")
    old = snapshot(nodes=[node("n1", cpu="2")], pods=[v, pod("p", cpu="2", prio=100)])
    acc = Accounting(old)
    assert acc.derive(old, replace(old, nodes={"n1": node("n1", cpu="3")})) is None
    assert acc.derive(old, replace(old, pods={**old.pods, "default/w": pod("w")})) is None
    more = struct_replace(v, requests={"cpu": 1001})
    assert acc.derive(old, replace(old, pods={**old.pods, v.key: more})) is None
    higher = struct_replace(v, priority=7, preemption_priority=7)
    derived = acc.derive(old, replace(old, pods={**old.pods, v.key: higher}))
    assert derived is not None and [(higher, 0)] == derived.bound_pods()
    assert [(v, 0)] == acc.bound_pods()
    derived.update(higher, None)  # each changes on its own: v leaves the derived one only
    assert ([], 0, {"cpu": 0}) == (derived.bound_pods(), derived.nodes[0].pod_count,
                                    derived.nodes[0].requested)
    assert ([(v, 0)], 1, {"cpu": 1000}) == (acc.bound_pods(), acc.nodes[0].pod_count,
                                           acc.nodes[0].requested)


def test_derived_accounting_plans_with_the_new_priorities_not_the_old_index():
    """An accounting derived for a priority change plans with the new priorities from its
    second plan on, when the victim-unit index comes into play: the index the old accounting
    kept (built at its second plan from the old pods) is not carried over. Hand-worked: v (1
    cpu of n1's 2) is below p (priority 100) before and is its victim; raised to 1000 it is no
    longer a candidate, and p (2 cpu) cannot fit: Unschedulable, as a plan without an
    accounting says."""
    v = pod("v", cpu="1", prio=1, node="n1")
    old = snapshot(nodes=[node("n1", cpu="2")], pods=[v, pod("p", cpu="2", prio=100)])
    acc = Accounting(old)
    (before,) = pending_preemptors(old)
    for _ in range(2):  # the second plan builds and keeps the old accounting's unit index
        assert ("RequiresPreemption", ["default/v"]) == _status_victims(
            plan(old, before, state=acc))
    higher = struct_replace(v, priority=1000, preemption_priority=1000)
    new = replace(old, pods={**old.pods, v.key: higher})
    derived = acc.derive(old, new)
    assert derived is not None
    (after,) = pending_preemptors(new)
    for _ in range(2):  # the second plan reads the derived accounting's unit index
        assert ("Unschedulable", []) == _status_victims(plan(new, after, state=derived))
    assert ("Unschedulable", []) == _status_victims(plan(new, after))


def _status_victims(p: Plan) -> tuple[str, list[str]]:
    return p.status, [victim.pod for victim in p.victims]


# ---- plan_changes: the plans of both sides, as planned one by one from scratch -------------


def _outcome(p: Plan | None) -> tuple | None:
    """What a change of plan is told by: the status and the victims, each with its node."""
    return None if p is None else (p.status, tuple((v.pod, v.node) for v in p.victims))


def _plan_changes_fresh(before: Snapshot, after: Snapshot, max_plans: int,
                        model: BehaviourModel) -> tuple:
    """``plan_changes`` by its definition: each preemptor of each side planned on its own,
    the cluster state rebuilt from the snapshot for every plan."""
    pb = {(p.kind, p.key): p for p in pending_preemptors(before)}
    queue = pending_preemptors(after)
    pa = {(p.kind, p.key): p for p in queue}
    order = [(p.kind, p.key) for p in queue] + sorted(k for k in pb if k not in pa)
    changed = []
    for kind, key in order[:max_plans]:
        b = plan(before, pb[kind, key], model=model) if (kind, key) in pb else None
        a = plan(after, pa[kind, key], model=model) if (kind, key) in pa else None
        if _outcome(b) != _outcome(a):
            changed.append(PlanChange(kind, key, b, a))
    return changed, len(order), min(len(order), max_plans)


@pytest.mark.parametrize("model", ["1.36", "kep-5710"])
@pytest.mark.parametrize("seed", range(6), ids=lambda s: f"seed-{s}")
def test_plan_changes_equals_planning_each_preemptor_from_scratch(seed, model):
    """Every side's plans share one accounting (the side after derived from the side before
    when no pod moved, rebuilt when some did): the changed plans, counts and every Plan are
    the ones planned from scratch, for priority-only changes and for changes moving pods."""
    rng = random.Random(seed)
    behaviour = get_model(model)
    before = _with_anti_affinity(random_cluster(400 + seed), rng)
    changed = 0
    for moved in (0.0, 0.02):
        after = _reprioritised(before, rng, moved)
        for max_plans in (2, 50):
            expected = _plan_changes_fresh(before, after, max_plans, behaviour)
            assert expected == plan_changes(before, after, max_plans=max_plans,
                                            model=behaviour)
        changed += len(expected[0])
    assert changed  # the changes do change plans


def test_plan_changes_plans_both_sides_with_the_model_of_the_snapshot_before():
    """``audit`` plans both sides with one behaviour model, chosen (when none is given) from
    the snapshot before: a change that only adds a KEP-only field elsewhere (an empty pod group
    in another namespace with a preemptionPriorityClassName) changes no plan, although the
    snapshot after alone would select the ``kep-5710`` model.

    Node n1 (2 CPU) holds t (priority 20, terminating, 1 CPU) and r (priority 0, 1 CPU); p
    (priority 10, 1 CPU) is pending. 1.36 (the default for the snapshot before, which has no
    KEP-only field): t still holds its CPU and is above p, so p fits by preempting r
    (RequiresPreemption, victim r on n1). kep-5710 would count t's CPU as free and have p wait
    for it (WaitingForTermination, no victims). Both sides with 1.36: the same plan, no change;
    the queue has the one preemptor p, planned."""
    pods = [pod("t", node="n1", prio=20, terminating=True), pod("r", node="n1"),
            pod("p", prio=10)]
    before = snapshot(nodes=[node("n1", cpu="2")], pods=pods)
    elsewhere = struct_replace(gang("other", ns="elsewhere"),
                               preemption_priority_class_name="batch-preempt")
    after = snapshot(nodes=[node("n1", cpu="2")], pods=pods, groups=[elsewhere])
    assert plan_changes(before, after, max_plans=10) == ([], 1, 1)
    # the side after, planned on its own model, would differ: the test pins a real choice
    (queued,) = pending_preemptors(before)
    assert _outcome(plan(before, queued, model=get_model("1.36"))) == (
        "RequiresPreemption", (("default/r", "n1"),))
    assert _outcome(plan(after, queued, model=get_model("kep-5710"))) == (
        "WaitingForTermination", ())


# ---- victim units, a priority level at a time ---------------------------------------------


def _units_oracle(snap: Snapshot, state: ClusterState, limit: int, own: str | None,
                  separate: bool, whole_groups: bool, terminating: bool) -> list[tuple]:
    """Step 4 by its definition: each running (and, with ``terminating``, terminating) pod
    outside the preemptor's group is its own unit, or, in a PodGroup-mode group when whole
    groups are taken, part of its group's one unit; those below the preemptor's priority, in
    (priority, name) order."""
    present = sorted([*state.bound, *(state.terminating if terminating else ())],
                     key=lambda t: t[0].key)
    units: dict[str, tuple] = {}
    for p, i in present:
        if p.group_key is not None and p.group_key == own:
            continue
        g = snap.pod_groups.get(p.group_key) if p.group_key else None
        if whole_groups and g is not None and g.disruption_mode == "PodGroup":
            prio = g.preemption_priority if separate else g.priority
            kind, name, tier = "PodGroup", g.key, 0
        else:
            prio = p.preemption_priority if separate else p.priority
            kind, name, tier = "Pod", p.key, 2 if p.group_key is None else 1
        _, _, _, _, members = units.setdefault(name, (prio, name, kind, tier, []))
        members.append((p.key, i))
    return sorted((prio, name, kind, tier, tuple(members), tuple(sorted({i for _, i in members})))
                  for prio, name, kind, tier, members in units.values() if prio < limit)


def _unit_rows(units) -> list[tuple]:
    return [(u.priority, u.name, u.kind, u.tier, tuple((p.key, i) for p, i in u.members),
             u.nodes) for u in units]


@pytest.mark.parametrize("seed", range(6), ids=lambda s: f"seed-{s}")
def test_victim_units_are_made_a_level_at_a_time_in_priority_name_order(seed):
    """``victim_units`` reads as the sorted list of the definition (every way of forming
    units, every preemptor priority), whichever part is read first; reading the first unit
    makes only the lowest level's units."""
    snap = random_cluster(500 + seed)
    state = ClusterState(snap)
    rng = random.Random(seed)
    for pre in pending_preemptors(snap):
        for limit in (pre.priority, 10**9, rng.choice([0, 150, 5000])):
            for separate, whole, terminating in ((True, True, False), (False, True, True),
                                                 (True, False, True)):
                probe = replace(pre, priority=limit)
                expected = _units_oracle(snap, state, limit, pre.group_key, separate, whole,
                                         terminating)
                lazy = victim_units(snap, state, probe, separate, whole, terminating)
                assert len(expected) == len(lazy)
                if expected:
                    assert _unit_rows([lazy[0]]) == expected[:1]
                    assert len(lazy._made) == lazy.ends[0] < len(expected) or \
                        len(lazy.levels) == 1
                    k = rng.randrange(len(expected))
                    assert _unit_rows([lazy[k], lazy[-1]]) == [expected[k], expected[-1]]
                    assert _unit_rows(lazy[: k + 1]) == expected[: k + 1]
                assert _unit_rows(lazy) == expected
                assert lazy.ends == [sum(1 for row in expected if row[0] <= p)
                                     for p in lazy.levels]
                assert lazy.levels == sorted({row[0] for row in expected})


def test_accounting_sums_each_resource_over_the_pods_requesting_it():
    """n1 holds a (1 cpu), b (2 cpu, 1 gpu) and c (500m cpu, with a "pods" request, which
    never counts as a resource); n2 holds d (3 gpu only). By hand: n1 cpu 3500m, gpu 1,
    3 pods; n2 gpu 3, 1 pod."""
    snap = snapshot(nodes=[node("n1"), node("n2")], pods=[
        pod("a", cpu="1", node="n1"),
        pod("b", cpu="2", extra={"nvidia.com/gpu": 1}, node="n1"),
        pod("c", cpu="500m", extra={"pods": 1}, node="n1"),
        pod("d", cpu=None, extra={"nvidia.com/gpu": 3}, node="n2")])
    acc = Accounting(snap)
    assert [({"cpu": 3500, "nvidia.com/gpu": 1}, 3), ({"nvidia.com/gpu": 3}, 1)] == [
        ({r: q for r, q in s.requested.items() if q}, s.pod_count) for s in acc.nodes]
