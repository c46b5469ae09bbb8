"""PodTopologySpread, DoNotSchedule constraints (wapctl.filters.topology_spread)."""

from __future__ import annotations

import pytest

from tests.builders import node, pod, req, taint, term, toleration
from tests.constraint_builders import constrained, sel, spread
from wapctl.filters import topology_spread as ts
from wapctl.filters.topology_spread import REASON_CONSTRAINTS, REASON_MISSING_LABEL, SpreadCounts

FOO = sel(None, req("foo", "Exists"))
BAR = sel(None, req("bar", "Exists"))


def _nodes(*spec: tuple[str, str]):
    """Upstream's nodes: name and zone label, plus node=<name>."""
    return [node(n, labels={"zone": z, "node": n}) for n, z in spec]


FOUR = _nodes(("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2"), ("node-y", "zone2"))


def _existing(*spec: str, ns: str = "default", label: str = "foo"):
    """Pods "p-a1@node-a" style: name@node, each labelled ``label``."""
    out = []
    for s in spec:
        name, where = s.split("@")
        out.append(pod(name, ns=ns, node=where, labels={label: ""}))
    return out


def _counts(p, nodes, existing) -> SpreadCounts:
    by_name = {n.name: n for n in nodes}
    counts = SpreadCounts(p, nodes)
    for e in existing:
        counts.update(e, by_name[e.node_name], 1)
    return counts


# ---- upstream TestPreFilterState: the counters -------------------------------------------
# Rows of TestPreFilterState, pkg/scheduler/framework/plugins/podtopologyspread/
# filtering_test.go (kubernetes/kubernetes e7827879dbc282e7f5103451dc63169e964b6bb7):
# (name, pod, nodes, existing pods, TpPairToMatchNum per constraint, global minimum).

PREFILTER_ROWS = [
    ("clean cluster with one spreadConstraint",
     constrained(pod("p", labels={"foo": ""}), spread=[spread(5, "zone", sel({"foo": "bar"}))]),
     FOUR, [], [{"zone1": 0, "zone2": 0}], [0]),
    ("normal case with one spreadConstraint",
     constrained(pod("p", labels={"foo": ""}), spread=[spread(1, "zone", FOO)]),
     FOUR, _existing("p-a1@node-a", "p-a2@node-a", "p-b1@node-b", "p-y1@node-y", "p-y2@node-y"),
     [{"zone1": 3, "zone2": 2}], [2]),
    ("normal case with null label selector",
     constrained(pod("p", labels={"foo": ""}), spread=[spread(1, "zone", None)]),
     FOUR, _existing("p-a1@node-a", "p-a2@node-a", "p-b1@node-b", "p-y1@node-y", "p-y2@node-y"),
     [{"zone1": 0, "zone2": 0}], [0]),
    ("normal case with one spreadConstraint, on a 3-zone cluster",
     constrained(pod("p", labels={"foo": ""}), spread=[spread(1, "zone", FOO)]),
     FOUR + _nodes(("node-o", "zone3"), ("node-p", "zone3")),
     _existing("p-a1@node-a", "p-a2@node-a", "p-b1@node-b", "p-y1@node-y", "p-y2@node-y"),
     [{"zone1": 3, "zone2": 2, "zone3": 0}], [0]),
    ("namespace mismatch doesn't count",
     constrained(pod("p", labels={"foo": ""}), spread=[spread(1, "zone", FOO)]),
     FOUR, _existing("p-a1@node-a", "p-b1@node-b", "p-y2@node-y")
     + _existing("p-a2@node-a", ns="ns1") + _existing("p-y1@node-y", ns="ns2"),
     [{"zone1": 2, "zone2": 1}], [1]),
    ("normal case with two spreadConstraints",
     constrained(pod("p", labels={"foo": ""}),
                 spread=[spread(1, "zone", FOO), spread(1, "node", FOO)]),
     FOUR, _existing("p-a1@node-a", "p-a2@node-a", "p-b1@node-b", "p-y1@node-y", "p-y2@node-y",
                     "p-y3@node-y", "p-y4@node-y"),
     [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4}], [3, 0]),
]


@pytest.mark.parametrize(("name", "p", "nodes", "existing", "counts", "minimum"),
                         PREFILTER_ROWS, ids=[r[0] for r in PREFILTER_ROWS])
def test_upstream_prefilter_state(name, p, nodes, existing, counts, minimum) -> None:
    """Matching pods per domain and the global minimum, as upstream's PreFilter computes."""
    state = _counts(p, nodes, existing)
    assert state.counts == counts
    assert state.minimum == minimum


# ---- upstream TestSingleConstraint: fits per node ----------------------------------------
# Rows of TestSingleConstraint in the same file (names as at e7827879dbc2; the table is older):
# (name, pod, nodes, existing pods, nodes that fit).

P_FOO = constrained(pod("p", labels={"foo": ""}), spread=[spread(1, "zone", FOO)])
P_NODE = constrained(pod("p", labels={"foo": ""}), spread=[spread(1, "node", FOO)])
SIX = ("p-a1@node-a", "p-a2@node-a", "p-b1@node-b", "p-y1@node-y", "p-y2@node-y", "p-y3@node-y")

SINGLE_ROWS = [
    ("no existing pods", P_FOO, FOUR, [], {"node-a", "node-b", "node-x", "node-y"}),
    ("no existing pods, incoming pod doesn't match itself",
     constrained(pod("p", labels={"foo": ""}), spread=[spread(1, "zone", BAR)]),
     FOUR, [], {"node-a", "node-b", "node-x", "node-y"}),
    ("existing pods with mis-matched namespace doesn't count", P_FOO, FOUR,
     _existing("p-a1@node-a", ns="ns1") + _existing("p-b1@node-a", ns="ns2")
     + _existing("p-x1@node-x", "p-y1@node-y"), {"node-a", "node-b"}),
    ("pods spread across zones as 3/3, all nodes fit", P_FOO, FOUR, _existing(*SIX),
     {"node-a", "node-b", "node-x", "node-y"}),
    ("pods spread across zones as 1/2 due to absence of label 'zone' on node-b", P_FOO,
     [FOUR[0], node("node-b", labels={"zon": "zone1", "node": "node-b"}), *FOUR[2:]],
     _existing("p-a1@node-a", "p-b1@node-b", "p-x1@node-x", "p-y1@node-y"), {"node-a"}),
    ("pods spread across nodes as 2/1/0/3, only node-x fits", P_NODE, FOUR, _existing(*SIX),
     {"node-x"}),
    ("pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
     constrained(pod("p", labels={"foo": ""}), spread=[spread(2, "node", FOO)]), FOUR,
     _existing(*SIX), {"node-b", "node-x"}),
    ("pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
     constrained(pod("p", labels={"bar": ""}), spread=[spread(1, "node", FOO)]), FOUR,
     _existing(*SIX), {"node-b", "node-x"}),
    ("incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
     constrained(pod("p", labels={"foo": ""}, affinity=[term(req("node", "In", "node-a",
                                                                  "node-y"))]),
                 spread=[spread(1, "node", FOO)]), FOUR, _existing(*SIX),
     {"node-a", "node-b", "node-x"}),
]


@pytest.mark.parametrize(("name", "p", "nodes", "existing", "fit"), SINGLE_ROWS,
                         ids=[r[0] for r in SINGLE_ROWS])
def test_upstream_single_constraint(name, p, nodes, existing, fit) -> None:
    """Which nodes pass the Filter (upstream's unit test runs no NodeAffinity filter, so
    nodes outside the pod's node affinity may still pass this one)."""
    state = _counts(p, nodes, existing)
    assert {n.name for n in nodes if state.reason(n) is None} == fit


# ---- hand-worked --------------------------------------------------------------------------


def test_missing_label_is_unresolvable() -> None:
    """A node without the topology key fails with the missing-label reason, which preemption
    treats as unresolvable."""
    bare = node("bare", labels={})
    assert ts.check(P_FOO, bare, [bare], []) == REASON_MISSING_LABEL
    assert REASON_MISSING_LABEL in ts.UNRESOLVABLE
    assert REASON_CONSTRAINTS not in ts.UNRESOLVABLE


def test_min_domains_makes_global_minimum_zero() -> None:
    """Zones z1:1, z2:1 pods; minDomains 3 > 2 domains, so the global minimum is 0 and a new
    matching pod anywhere has skew 1 + 1 - 0 = 2 > maxSkew 1: nothing fits. With minDomains 2
    the minimum is 1 and skew 1 + 1 - 1 = 1: everything fits."""
    nodes = FOUR
    existing = _existing("e1@node-a", "e2@node-x")
    three = constrained(pod("p", labels={"foo": ""}),
                        spread=[spread(1, "zone", FOO, min_domains=3)])
    two = constrained(pod("p", labels={"foo": ""}), spread=[spread(1, "zone", FOO, min_domains=2)])
    assert {ts.check(three, n, nodes, [(e, nodes[0] if e.node_name == "node-a" else nodes[2])
                                       for e in existing]) for n in nodes} == {REASON_CONSTRAINTS}
    assert {ts.check(two, n, nodes, [(e, nodes[0] if e.node_name == "node-a" else nodes[2])
                                     for e in existing]) for n in nodes} == {None}


def test_node_taints_policy_honor_drops_tainted_domains() -> None:
    """zone2's only node is tainted. Ignore (default): zone2 is a domain with 0 pods, so a pod
    on zone1 (1 pod there) has skew 1 + 1 - 0 = 2 > 1. Honor: zone2 is not a domain, the
    minimum is zone1's 1, and skew 1 + 1 - 1 = 1 fits."""
    a = node("a", labels={"zone": "z1"})
    t = node("t", labels={"zone": "z2"}, taints=[taint("dedicated", "x")])
    existing = pod("e", node="a", labels={"foo": ""})
    ignore = constrained(pod("p", labels={"foo": ""}), spread=[spread(1, "zone", FOO)])
    honor = constrained(pod("p", labels={"foo": ""}),
                        spread=[spread(1, "zone", FOO, taints_policy="Honor")])
    assert ts.check(ignore, a, [a, t], [(existing, a)]) == REASON_CONSTRAINTS
    assert ts.check(honor, a, [a, t], [(existing, a)]) is None
    tolerating = constrained(pod("p", labels={"foo": ""}, tolerations=[toleration("dedicated",
                                                                                   value="x")]),
                             spread=[spread(1, "zone", FOO, taints_policy="Honor")])
    assert ts.check(tolerating, a, [a, t], [(existing, a)]) == REASON_CONSTRAINTS


def test_node_affinity_policy_ignore_counts_every_node() -> None:
    """The pod may only go to zone z1 (nodeSelector). Honor (default): z2 is no domain, skew on
    a is 1 + 1 - 1 = 1. Ignore: z2 counts with 0 pods, skew 2 > 1."""
    a = node("a", labels={"zone": "z1"})
    b = node("b", labels={"zone": "z2"})
    existing = pod("e", node="a", labels={"foo": ""})
    honor = constrained(pod("p", labels={"foo": ""}, selector={"zone": "z1"}),
                        spread=[spread(1, "zone", FOO)])
    ignore = constrained(pod("p", labels={"foo": ""}, selector={"zone": "z1"}),
                         spread=[spread(1, "zone", FOO, affinity_policy="Ignore")])
    assert ts.check(honor, a, [a, b], [(existing, a)]) is None
    assert ts.check(ignore, a, [a, b], [(existing, a)]) == REASON_CONSTRAINTS


def test_empty_selector_counts_nothing_but_matches_itself() -> None:
    """countPodsMatchSelector counts 0 for an empty selector while the pod matches itself:
    skew is always 0 + 1 - 0 = 1, so maxSkew 1 always fits."""
    p = constrained(pod("p"), spread=[spread(1, "zone", sel())])
    crowd = [(pod(f"e{i}", node="node-a"), FOUR[0]) for i in range(5)]
    assert ts.check(p, FOUR[0], FOUR, crowd) is None


def test_terminating_pods_do_not_count() -> None:
    """Pods being deleted are bypassed (upstream #87621)."""
    gone = pod("e", node="node-a", labels={"foo": ""}, terminating=True)
    assert ts.check(P_NODE, FOUR[0], FOUR, [(gone, FOUR[0])]) is None


def test_minimum_follows_removals_and_additions() -> None:
    """Counts 2/1/0/3 by node: minimum 0; adding a pod on node-x makes it 1; removing one from
    node-b makes it 0 again (updateMin's two cases)."""
    existing = _existing(*SIX)
    state = _counts(P_NODE, FOUR, existing)
    assert state.minimum == [0]
    extra = pod("p-x1", node="node-x", labels={"foo": ""})
    state.update(extra, FOUR[2], 1)
    assert state.minimum == [1]
    state.update(existing[2], FOUR[1], -1)  # p-b1 leaves node-b
    assert state.minimum == [0]
    assert state.counts == [{"node-a": 2, "node-b": 0, "node-x": 1, "node-y": 3}]
