"""The "0/N nodes are available: ..." summary of an Unschedulable plan: the static filters'
counts are kept per pod shape (``StaticFitCache.rejected``) and only the nodes passing them are
asked the room and pod-dependent questions; the text is what the node-by-node count gives."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from constraint_builders import aff, constrained, sel
from msgspec.structs import replace as struct_replace
from test_fast_vs_reference import random_cluster

from wapctl.fit import Accounting, ClusterState, check_static, request_items
from wapctl.models import get_model
from wapctl.preemption import Evaluator
from wapctl.preemptor import pending_preemptors, pod_preemptor


def node_by_node(state: ClusterState, pod, filters) -> str:
    """The oracle: every node asked every filter in upstream's order (static ones, then room,
    then the pod-dependent ones on nodes with room), counted per reason, the "N reason"
    parts sorted by bytes (upstream ``FitError.Error``)."""
    counts: dict[str, int] = {}
    items = request_items(pod.requests)
    for i, ns in enumerate(state.nodes):
        reason = check_static(pod, ns.node)
        if reason is None and filters is not None and ns.check(items) is None:
            reason = filters.reason(pod, i)
        if reason is not None:
            counts[reason] = counts.get(reason, 0) + 1
    room = len(state.nodes) - sum(counts.values())
    parts = sorted([f"{n} {r}" for r, n in counts.items()]
                   + ([f"{room} node(s) without enough room"] if room else []))
    return f"0/{len(state.nodes)} nodes are available: " + ", ".join(parts)


@pytest.mark.parametrize("seed", range(6), ids=lambda s: f"seed-{s}")
def test_summary_equals_the_node_by_node_count(seed):
    """On random clusters (taints, cordoned nodes, selectors, node affinity, running pods with
    anti-affinity) every pending pod's summary, planned on a kept accounting (the kept counts
    shared by every pod of one shape, asked twice) and on a rebuilt state, is the node-by-node
    count."""
    rng = random.Random(seed)
    base = random_cluster(400 + seed)
    # (random_cluster's nodes are labelled "zone" and "cores", no hostname)
    terms = [aff("zone", sel({"app": "web"})), aff("zone", sel({"app": "db"})),
             aff("cores", sel())]
    pods = {}
    for k, p in base.pods.items():
        if p.node_name is not None:
            if rng.random() < 0.4:
                continue  # room on more nodes, so the pod-dependent filters get asked
            if rng.random() < 0.3:
                p = constrained(p, anti=[rng.choice(terms)])
        else:  # pending: labels other pods' terms select, some with a term of their own
            p = struct_replace(p, labels={"app": rng.choice(["web", "db", "batch"])})
            if rng.random() < 0.2:
                p = constrained(p, anti=[terms[0]])
        pods[k] = p
    snap = replace(base, pods=pods)
    acc = Accounting(snap)
    model = get_model("kep-5710")
    seen: set[str] = set()
    for pre in pending_preemptors(snap):
        for pod in pre.pods:
            single = pod_preemptor(pod)
            for kept in (acc, None):
                planner = Evaluator(snap, single, model, kept)
                want = node_by_node(planner.state, pod, planner.filters)
                assert want == planner.summary() == planner.summary(), pod.key
                seen.update(part.split(" ", 1)[1] for part in want.split(": ", 1)[1]
                            .split(", "))
    # the static filters, the room check and a pod-dependent filter all took part
    assert {"node(s) didn't match pod anti-affinity rules",
            "node(s) didn't satisfy existing pods anti-affinity rules",
            "node(s) without enough room", "node(s) had untolerated taint {gpu: yes}"} <= seen, seen
