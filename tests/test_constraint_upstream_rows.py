"""Upstream DefaultPreemption test rows whose preemption a pod-dependent filter decides, run
through wapctl's planner (model 1.36).

Rows from pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go
(kubernetes/kubernetes, as stored in the search index; the conformance corpus cites the
v1.36.2 copy in openshift/microshift 8e16b12fda5b1dccc41a6de48b3e356cc7d5048b):

- TestDryRunPreemption "pod with anti-affinity is preempted";
- TestDryRunPreemption "preemption to resolve pod topology spread filter failure";
- TestPreempt "preemption for topology spread constraints".

Translation: nodes have veryLargeRes (500m cpu, 500 memory, 32 pods) and the labels the rows
give (the test's "hostname" / "zone" keys, node names split on "/"); priorities low=0, mid=100,
high=1000; smallRes 100m / 100. Upstream picks among equal candidate nodes at random, so where
two nodes tie every tied answer is accepted.
"""

from __future__ import annotations

from tests.builders import node, pod, req, snapshot
from tests.constraint_builders import aff, constrained, sel, spread
from wapctl.models import get_model
from wapctl.preemption import plan
from wapctl.preemptor import select_preemptor

LOW, MID, HIGH = 0, 100, 1000
FOO = sel(None, req("foo", "Exists"))


def _node(spec: str):
    """"node-a/zone1" -> node node-a labelled hostname=node-a, zone=zone1 (as TestPreempt)."""
    parts = spec.split("/")
    labels = dict(zip(("hostname", "zone", "region"), parts, strict=False))
    return node(parts[0], cpu="500m", mem=500, pods=32, labels=labels)


def _answer(snap, name="default/p"):
    result = plan(snap, select_preemptor(snap, pod=name), model=get_model("1.36"))
    return (result.status, sorted(v.pod for v in result.victims),
            {p.pod: p.node for p in result.placements})


def _anti_affinity_row(p2_cpu: str):
    return snapshot(
        nodes=[_node("node1"), _node("node2")],
        pods=[
            constrained(pod("p1.1", node="node1", cpu="100m", mem=100, prio=LOW,
                            labels={"foo": ""}, start=1),
                        anti=[aff("hostname", FOO)]),
            pod("p1.2", node="node1", cpu="100m", mem=100, prio=MID, start=1),
            pod("p1.3", node="node1", cpu="100m", mem=100, prio=HIGH, start=1),
            pod("p2", node="node2", cpu=p2_cpu, mem=100, prio=HIGH, start=1),
            pod("p", cpu="100m", mem=100, prio=HIGH, labels={"foo": ""}),
        ])


def test_dry_run_pod_with_anti_affinity_is_preempted() -> None:
    """The dry run's only candidate is node1 with [p1.1]: p1.1's anti-affinity (foo Exists, by
    hostname) rejects p there; removing it resolves that and p1.2 is reprieved. The dry run
    skips the scheduling attempt; a plan makes it first, so node2 is filled here (p2 takes all
    500m) to reach the preemption: node1, victims [p1.1]."""
    assert _answer(_anti_affinity_row("500m")) == (
        "RequiresPreemption", ["default/p1.1"], {"default/p": "node1"})


def test_anti_affinity_row_as_given_schedules_on_node2() -> None:
    """With the row's own p2 (100m) node2 has room and no anti-affinity: the scheduler places
    p there before any preemption."""
    assert _answer(_anti_affinity_row("100m")) == ("Schedulable", [], {"default/p": "node2"})


def _spread_pod():
    return constrained(pod("p", cpu=None, prio=HIGH, labels={"foo": ""}),
                       spread=[spread(1, "zone", FOO), spread(1, "hostname", FOO)])


def test_dry_run_preemption_to_resolve_topology_spread_failure() -> None:
    """zone1 holds 3 foo pods (node-a: a1 mid, a2 low; node-b: b1 low), zone2 2 (high): p must
    go to zone1 with one fewer there. node-a: [pod-a2]; node-b: [pod-b1]; equal candidates."""
    snap = snapshot(
        nodes=[_node("node-a/zone1"), _node("node-b/zone1"), _node("node-x/zone2")],
        pods=[
            pod("pod-a1", node="node-a", cpu=None, prio=MID, labels={"foo": ""}, start=1),
            pod("pod-a2", node="node-a", cpu=None, prio=LOW, labels={"foo": ""}, start=1),
            pod("pod-b1", node="node-b", cpu=None, prio=LOW, labels={"foo": ""}, start=1),
            pod("pod-x1", node="node-x", cpu=None, prio=HIGH, labels={"foo": ""}, start=1),
            pod("pod-x2", node="node-x", cpu=None, prio=HIGH, labels={"foo": ""}, start=1),
            _spread_pod(),
        ])
    assert _answer(snap) in [
        ("RequiresPreemption", ["default/pod-a2"], {"default/p": "node-a"}),
        ("RequiresPreemption", ["default/pod-b1"], {"default/p": "node-b"}),
    ]


def test_preempt_for_topology_spread_constraints() -> None:
    """zone1 3 foo pods (node-a: 2 high, node-b: 1 low), zone2 2 high: p fits nowhere (zone
    skew on zone1, hostname skew on node-x). Only p-b1 is below p: removing it gives zone1 2,
    node-b 0 -> fits. Upstream: nominated node-b, victims [p-b1]."""
    snap = snapshot(
        nodes=[_node("node-a/zone1"), _node("node-b/zone1"), _node("node-x/zone2")],
        pods=[
            pod("p-a1", node="node-a", cpu=None, prio=HIGH, labels={"foo": ""}),
            pod("p-a2", node="node-a", cpu=None, prio=HIGH, labels={"foo": ""}),
            pod("p-b1", node="node-b", cpu=None, prio=LOW, labels={"foo": ""}),
            pod("p-x1", node="node-x", cpu=None, prio=HIGH, labels={"foo": ""}),
            pod("p-x2", node="node-x", cpu=None, prio=HIGH, labels={"foo": ""}),
            _spread_pod(),
        ])
    assert _answer(snap) == ("RequiresPreemption", ["default/p-b1"], {"default/p": "node-b"})
