"""Fit predicates, one concern at a time, and the incremental accounting."""

from __future__ import annotations

from dataclasses import replace

import pytest
from builders import node, pod, req, snapshot, taint, term, toleration
from hypothesis import given
from hypothesis import strategies as st
from msgspec.structs import replace as struct_replace

from wapctl.fit import (
    REASON_NODE_AFFINITY,
    REASON_NODE_NAME,
    REASON_TOO_MANY_PODS,
    REASON_UNSCHEDULABLE,
    Accounting,
    ClusterState,
    NodeState,
    StaticFitCache,
    check_node_affinity,
    check_node_name,
    check_node_selector,
    check_node_unschedulable,
    check_resources,
    check_static,
    check_taints,
    fits,
    label_selector_matches,
    request_items,
    shape_key,
    tolerates,
)
from wapctl.model import LabelSelector, Node, Pod

# ---- tolerations ------------------------------------------------------------------------------

TOLERATION_CASES = [
    # (toleration, taint, tolerated)
    (toleration("k", "Equal", "v"), taint("k", "v"), True),
    (toleration("k", "Equal", "v"), taint("k", "w"), False),
    (toleration("k", "", "v"), taint("k", "v"), True),
    (toleration("k", "Exists"), taint("k", "anything"), True),
    (toleration("k", "Exists"), taint("other", "x"), False),
    (toleration("", "Exists"), taint("any-key", "x", "NoExecute"), True),
    (toleration("k", "Exists", effect="NoSchedule"), taint("k", "", "NoExecute"), False),
    (toleration("k", "Exists", effect="NoExecute"), taint("k", "", "NoExecute"), True),
    (toleration("k", "Equal", "v", effect=""), taint("k", "v", "NoExecute"), True),
    (toleration("k", "Gt", "1"), taint("k", "5"), False),
]


@pytest.mark.parametrize(
    ("tol", "tnt", "expected"),
    TOLERATION_CASES,
    ids=["equal", "equal-other-value", "empty-operator-is-equal", "exists-any-value",
         "exists-other-key", "empty-key-exists-all", "effect-mismatch", "effect-match",
         "empty-effect-all", "unknown-operator"],
)
def test_tolerates(tol, tnt, expected):
    """Toleration matching follows v1.Toleration.ToleratesTaint."""
    assert expected == tolerates(tol, tnt)


# ---- static predicates ------------------------------------------------------------------------

TAINT_CASES = [
    # (node taints, pod tolerations, expected reason)
    ((), (), None),
    ((taint("gpu", "yes"),), (), "node(s) had untolerated taint {gpu: yes}"),
    ((taint("gpu", "yes", "NoExecute"),), (), "node(s) had untolerated taint {gpu: yes}"),
    ((taint("gpu", "yes", "PreferNoSchedule"),), (), None),
    ((taint("gpu", "yes"),), (toleration("gpu", "Equal", "yes"),), None),
    ((taint("a"), taint("b")), (toleration("a", "Exists"),), "node(s) had untolerated taint {b: }"),
    ((taint("a"), taint("b", effect="NoExecute")), (toleration("", "Exists"),), None),
]


@pytest.mark.parametrize(
    ("taints", "tols", "expected"),
    TAINT_CASES,
    ids=["no-taints", "noschedule-untolerated", "noexecute-untolerated", "prefer-ignored",
         "tolerated", "second-taint-untolerated", "tolerate-everything"],
)
def test_check_taints(taints, tols, expected):
    """NoSchedule and NoExecute taints must be tolerated; PreferNoSchedule is ignored."""
    assert expected == check_taints(pod("p", tolerations=tols), node("n", taints=taints))


UNSCHEDULABLE_CASES = [
    (False, (), None),
    (True, (), REASON_UNSCHEDULABLE),
    (True, (toleration("node.kubernetes.io/unschedulable", "Exists", effect="NoSchedule"),), None),
    (True, (toleration("", "Exists"),), None),
    (True, (toleration("node.kubernetes.io/unschedulable", "Exists", effect="NoExecute"),),
     REASON_UNSCHEDULABLE),
]


@pytest.mark.parametrize(
    ("cordoned", "tols", "expected"),
    UNSCHEDULABLE_CASES,
    ids=["schedulable-node", "cordoned", "tolerates-unschedulable-taint", "tolerates-all",
         "wrong-effect"],
)
def test_check_node_unschedulable(cordoned, tols, expected):
    """A cordoned node takes only pods tolerating node.kubernetes.io/unschedulable:NoSchedule."""
    result = check_node_unschedulable(pod("p", tolerations=tols), node("n", unschedulable=cordoned))
    assert expected == result


def _with_node_name(name: str | None) -> Pod:
    p = pod("p")
    return struct_replace(p, node_name=name)


@pytest.mark.parametrize(
    ("pinned", "expected"),
    [(None, None), ("n", None), ("other", REASON_NODE_NAME)],
    ids=["not-pinned", "pinned-here", "pinned-elsewhere"],
)
def test_check_node_name(pinned, expected):
    """spec.nodeName pins a pod to that one node."""
    assert expected == check_node_name(_with_node_name(pinned), node("n"))


SELECTOR_CASES = [
    ({}, {"zone": "a"}, None),
    ({"zone": "a"}, {"zone": "a", "x": "y"}, None),
    ({"zone": "a"}, {"zone": "b"}, REASON_NODE_AFFINITY),
    ({"zone": "a"}, {}, REASON_NODE_AFFINITY),
    ({"zone": "a", "disk": "ssd"}, {"zone": "a"}, REASON_NODE_AFFINITY),
]


@pytest.mark.parametrize(
    ("selector", "labels", "expected"),
    SELECTOR_CASES,
    ids=["empty-selector", "match", "wrong-value", "missing-label", "all-must-match"],
)
def test_check_node_selector(selector, labels, expected):
    """nodeSelector: every label present with that exact value."""
    assert expected == check_node_selector(pod("p", selector=selector), node("n", labels=labels))


LABELS = {"zone": "a", "cores": "16", "gen": "x7", "offset": "-200"}

EXPRESSION_CASES = [
    (req("zone", "In", "a", "b"), True),
    (req("zone", "In", "b"), False),
    (req("missing", "In", "a"), False),
    (req("zone", "NotIn", "b"), True),
    (req("zone", "NotIn", "a"), False),
    (req("missing", "NotIn", "a"), True),
    (req("zone", "Exists"), True),
    (req("missing", "Exists"), False),
    (req("zone", "DoesNotExist"), False),
    (req("missing", "DoesNotExist"), True),
    (req("cores", "Gt", "8"), True),
    (req("cores", "Gt", "16"), False),
    (req("cores", "Lt", "32"), True),
    (req("cores", "Lt", "16"), False),
    (req("gen", "Gt", "1"), False),
    (req("missing", "Gt", "1"), False),
    (req("cores", "Gt", "eight"), False),
    (req("cores", "Gt", "1", "2"), False),
    (req("zone", "In"), False),
    (req("zone", "Exists", "a"), False),
    (req("zone", "Near", "a"), False),
    # strconv.ParseInt(s, 10, 64): negative numbers compare, int64's bounds hold
    (req("offset", "Gt", "-300"), True),
    (req("offset", "Lt", "-100"), True),
    (req("offset", "Lt", "-300"), False),
    (req("offset", "Gt", "-9223372036854775808"), True),
    (req("cores", "Lt", "9223372036854775808"), False),
    # one below int64's minimum does not parse: the requirement is invalid and never matches
    # (offset -200 would be Gt it)
    (req("offset", "Gt", "-9223372036854775809"), False),
]


@pytest.mark.parametrize(
    ("expression", "expected"),
    EXPRESSION_CASES,
    ids=["in", "in-miss", "in-missing-label", "notin", "notin-hit", "notin-missing-label",
         "exists", "exists-missing", "doesnotexist-present", "doesnotexist",
         "gt", "gt-equal", "lt", "lt-equal", "gt-non-integer-label", "gt-missing-label",
         "gt-invalid-value", "gt-two-values", "in-no-values", "exists-with-values",
         "unknown-operator", "gt-negative", "lt-negative", "lt-negative-miss",
         "gt-int64-min", "lt-beyond-int64", "gt-below-int64-min"],
)
def test_node_affinity_expressions(expression, expected):
    """Each node-selector operator, including invalid requirements (which never match)."""
    p = pod("p", affinity=[term(expression)])
    result = check_node_affinity(p, node("n", labels=LABELS)) is None
    assert expected == result


BIG_LABELS = {"memory-gib": "512", "serial": "9223372036854775807"}


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        (req("memory-gib", "Gt", "256"), True),
        (req("memory-gib", "Lt", "1024"), True),
        (req("memory-gib", "Gt", "512"), False),
        (req("memory-gib", "Lt", "9223372036854775807"), True),
        (req("serial", "Gt", "0"), True),
        (req("serial", "Lt", "9223372036854775807"), False),
    ],
    ids=["gt-below", "lt-above", "gt-equal", "lt-int64-max", "int64-max-label-gt",
         "int64-max-label-lt-itself"],
)
def test_node_affinity_gt_lt_compare_large_integers(expression, expected):
    """Gt / Lt compare any int64 (strconv.ParseInt(s, 10, 64)), not just small numbers: a user
    pins pods to nodes labelled memory-gib=512 with ``Gt 256`` (512 > 256) or ``Lt 1024``, and
    both the bound and the label may be as large as int64's maximum, 9223372036854775807
    (512 < it; it > 0; it is not below itself)."""
    p = pod("p", affinity=[term(expression)])
    assert expected == (check_node_affinity(p, node("n", labels=BIG_LABELS)) is None)


TERM_CASES = [
    (None, None),
    ([], REASON_NODE_AFFINITY),
    ([term()], REASON_NODE_AFFINITY),
    ([term(req("zone", "In", "b")), term(req("zone", "In", "a"))], None),
    ([term(req("zone", "In", "a"), req("cores", "Gt", "32"))], REASON_NODE_AFFINITY),
    ([term(fields=[req("metadata.name", "In", "n")])], None),
    ([term(fields=[req("metadata.name", "In", "other")])], REASON_NODE_AFFINITY),
    ([term(fields=[req("metadata.name", "NotIn", "other")])], None),
    ([term(fields=[req("metadata.name", "In", "n", "m")])], REASON_NODE_AFFINITY),
    ([term(fields=[req("metadata.name", "Exists")])], REASON_NODE_AFFINITY),
    ([term(req("zone", "In", "a"), fields=[req("metadata.name", "In", "other")])],
     REASON_NODE_AFFINITY),
]


@pytest.mark.parametrize(
    ("terms", "expected"),
    TERM_CASES,
    ids=["no-affinity", "empty-term-list", "empty-term", "terms-ored", "expressions-anded",
         "field-in", "field-in-miss", "field-notin", "field-two-values", "field-exists",
         "expression-and-field-anded"],
)
def test_check_node_affinity_terms(terms, expected):
    """Terms are ORed, expressions ANDed; an empty term list or empty term matches nothing."""
    assert expected == check_node_affinity(pod("p", affinity=terms), node("n", labels=LABELS))


def test_check_static_reports_first_failing_filter_in_upstream_order():
    """The unschedulable filter runs before taints and affinity, as in the default profile."""
    n = node("n", unschedulable=True, taints=[taint("a")], labels={})
    assert REASON_UNSCHEDULABLE == check_static(pod("p", selector={"x": "y"}), n)


# ---- resources --------------------------------------------------------------------------------

RESOURCE_CASES = [
    # (pod requests, node allocatable (+pods), requested on node, pod count, expected)
    ({"cpu": 1000}, {"cpu": 2000, "pods": 10}, {"cpu": 1000}, 1, None),
    ({"cpu": 1001}, {"cpu": 2000, "pods": 10}, {"cpu": 1000}, 1, "Insufficient cpu"),
    ({"memory": 5}, {"memory": 4, "pods": 10}, {}, 0, "Insufficient memory"),
    ({"nvidia.com/gpu": 1}, {"cpu": 2000, "pods": 10}, {}, 0, "Insufficient nvidia.com/gpu"),
    ({"nvidia.com/gpu": 2}, {"nvidia.com/gpu": 2, "pods": 10}, {}, 0, None),
    ({"ephemeral-storage": 3}, {"ephemeral-storage": 2, "pods": 10}, {}, 0,
     "Insufficient ephemeral-storage"),
    ({"cpu": 1}, {"cpu": 2000, "pods": 3}, {}, 3, REASON_TOO_MANY_PODS),
    ({"cpu": 1}, {"cpu": 2000}, {}, 0, REASON_TOO_MANY_PODS),
    ({}, {"cpu": 1000, "pods": 10}, {"cpu": 5000}, 1, None),
    ({"cpu": 0, "memory": 1}, {"memory": 1, "pods": 10}, {"cpu": 99}, 0, None),
]


@pytest.mark.parametrize(
    ("requests", "allocatable", "requested", "count", "expected"),
    RESOURCE_CASES,
    ids=["fits-exactly", "one-milli-over", "memory", "missing-extended-is-zero",
         "extended-fits", "ephemeral-storage", "too-many-pods", "no-pods-allocatable",
         "best-effort-ignores-overcommit", "zero-request-not-checked"],
)
def test_check_resources(requests, allocatable, requested, count, expected):
    """requested + pod <= allocatable for every requested resource, plus one more pod slot."""
    assert expected == check_resources(request_items(requests), allocatable, requested, count)


def test_node_state_add_remove_round_trips():
    """add then remove restores requested totals and the pod count."""
    state = NodeState(node("n", cpu="4", mem="4Gi"))
    p = pod("p", cpu="1500m", mem="1Gi", extra={"nvidia.com/gpu": 1})
    state.add(p)
    assert ({"cpu": 1500, "memory": 2**30, "nvidia.com/gpu": 1}, 1) == (state.requested,
                                                                       state.pod_count)
    state.remove(p)
    assert ({"cpu": 0, "memory": 0, "nvidia.com/gpu": 0}, 0) == (state.requested,
                                                                state.pod_count)


@pytest.mark.parametrize(
    ("requests", "limit", "expected"),
    [({"cpu": 1000}, 99, 3), ({"cpu": 1000, "memory": 2**30}, 99, 2), ({"cpu": 1000}, 2, 2),
     ({}, 99, 5), ({"cpu": 5000}, 99, 0)],
    ids=["cpu-bound", "memory-bound", "capped", "pod-slots-bound", "does-not-fit"],
)
def test_node_state_copies(requests, limit, expected):
    """copies() counts how many more identical pods fit, bounded by every resource and slots."""
    state = NodeState(node("n", cpu="4", mem="3Gi", pods=6))
    state.add(pod("x", cpu="1", mem="1Gi"))
    assert expected == state.copies(request_items(requests), limit)


def test_fits_combines_static_and_resources():
    """fits() reports a static reason before a resource one."""
    state = NodeState(node("n", cpu="1", taints=[taint("a", "b")]))
    assert ("node(s) had untolerated taint {a: b}", "Insufficient cpu") == (
        fits(pod("p", cpu="2"), state),
        fits(pod("p", cpu="2", tolerations=[toleration("a", "Exists")]), state),
    )


# ---- cluster state ----------------------------------------------------------------------------


def _cluster():
    return snapshot(
        nodes=[node("n1", cpu="8"), node("n2", cpu="8")],
        pods=[
            pod("run", node="n1", cpu="1"),
            pod("done", node="n1", cpu="4", phase="Succeeded"),
            pod("term", node="n1", cpu="2", terminating=True),
            pod("elsewhere", node="gone", cpu="1"),
            pod("nom-high", cpu="3", prio=100, nominated="n2"),
            pod("nom-low", cpu="1", prio=10, nominated="n2"),
            pod("me", cpu="1", prio=50, nominated="n2"),
        ],
    )


def test_cluster_state_counts_bound_terminating_and_high_nominated_pods():
    """Bound and terminating pods hold room; finished pods do not; nominated pods of priority
    >= the preemptor reserve room on their node, except the preemptor's own pods."""
    state = ClusterState(_cluster(), reserve_priority=50, exclude={"default/me"})
    got = [(s.name, s.requested.get("cpu", 0), s.pod_count) for s in state.nodes]
    assert [("n1", 3000, 2), ("n2", 3000, 1)] == got


def test_cluster_state_release_terminating_frees_room():
    """Releasing terminating pods returns their resources."""
    state = ClusterState(_cluster(), reserve_priority=50, exclude={"default/me"})
    state.release_terminating()
    assert (1000, 1) == (state.nodes[0].requested["cpu"], state.nodes[0].pod_count)


def test_cluster_state_without_reserve_priority_ignores_nominations():
    """Without a preemptor priority no nominated pod reserves room."""
    state = ClusterState(_cluster())
    assert 0 == state.nodes[1].pod_count


# ---- shapes, cache, PDB selectors -------------------------------------------------------------


def test_shape_key_ignores_name_and_nomination():
    """Pods differing only in name and nominated node share a shape."""
    assert shape_key(pod("a", cpu="1", nominated="n1")) == shape_key(pod("b", cpu="1"))


def test_static_fit_cache_evaluates_once_per_shape_and_node():
    """A cached answer is reused for another pod of the same static shape."""
    cache = StaticFitCache()
    n = node("n", taints=[taint("a")])
    first = cache.reason(pod("a"), n)
    second = cache.reason(pod("b"), n)
    assert (first, 1) == (second, len(cache._answers))


SELECTOR_MATCH_CASES = [
    (None, {"app": "x"}, False),
    (LabelSelector(), {"app": "x"}, False),
    (LabelSelector(match_labels={"app": "x"}), {"app": "x", "tier": "db"}, True),
    (LabelSelector(match_labels={"app": "x"}), {"app": "y"}, False),
    (LabelSelector(match_expressions=(req("app", "In", "x", "y"),)), {"app": "y"}, True),
    (LabelSelector(match_expressions=(req("app", "NotIn", "x"),)), {"app": "y"}, True),
    (LabelSelector(match_expressions=(req("app", "Exists"),)), {"tier": "db"}, False),
    (LabelSelector(match_expressions=(req("app", "DoesNotExist"),)), {"tier": "db"}, True),
    (LabelSelector(match_expressions=(req("n", "Gt", "1"),)), {"n": "5"}, False),
]


@pytest.mark.parametrize(
    ("selector", "labels", "expected"),
    SELECTOR_MATCH_CASES,
    ids=["none", "empty", "labels", "labels-miss", "in", "notin", "exists-miss",
         "doesnotexist", "gt-not-a-label-selector-operator"],
)
def test_label_selector_matches(selector, labels, expected):
    """PDB label selectors: None or empty select nothing; In/NotIn/Exists/DoesNotExist only."""
    assert expected == label_selector_matches(selector, labels)


# ---- accounting kept across plans -------------------------------------------------------------


def _counts(state) -> list[tuple[str, int, int]]:
    return [(s.name, s.requested.get("cpu", 0), s.pod_count) for s in state.nodes]


def _keys(pairs) -> list[str]:
    return [p.key for p, _ in pairs]


def test_view_over_accounting_equals_the_rebuilt_state():
    """A view copied from an Accounting counts, lists and reserves exactly as a ClusterState
    built from the snapshot: bound and terminating pods, high nominations, not the own pod."""
    snap = _cluster()
    built = ClusterState(snap, reserve_priority=50, exclude={"default/me"})
    view = ClusterState.over(Accounting(snap), reserve_priority=50, exclude={"default/me"})
    assert [("n1", 3000, 2), ("n2", 3000, 1)] == _counts(view)
    assert (_keys(built.bound), _keys(built.terminating), _keys(built.reserved)) == (
        _keys(view.bound), _keys(view.terminating), _keys(view.reserved))
    assert (["default/run"], ["default/term"], ["default/nom-high"]) == (
        _keys(view.bound), _keys(view.terminating), _keys(view.reserved))


def test_a_view_changes_only_its_own_copy_of_the_accounting():
    """Releasing terminating pods and reserving room change the plan's view only: the
    accounting, and a second view taken meanwhile, hold bound and terminating pods only."""
    acc = Accounting(_cluster())
    view = ClusterState.over(acc, reserve_priority=0)
    view.release_terminating()
    view.own(0).remove_requests({"cpu": 1000})
    assert [("n1", 0, 0), ("n2", 5000, 3)] == _counts(view)
    assert [("n1", 3000, 2), ("n2", 0, 0)] == _counts(acc) == _counts(ClusterState.over(acc))


def test_update_moves_a_pod_between_pending_bound_terminating_and_gone():
    """update(old, new) follows one pod: a nominated pod binds, starts terminating, leaves."""
    snap = _cluster()
    acc = Accounting(snap)
    low = snap.pods["default/nom-low"]
    running = struct_replace(low, node_name="n1", nominated_node=None, phase="Running")
    acc.update(low, running)
    assert ([("n1", 4000, 3), ("n2", 0, 0)], ["default/nom-low", "default/run"],
            ["default/me", "default/nom-high"]) == (
        _counts(acc), _keys(acc.bound_pods()), sorted(acc.nominated))
    going = struct_replace(running, terminating=True)
    acc.update(running, going)
    assert (["default/run"], ["default/nom-low", "default/term"]) == (
        _keys(acc.bound_pods()), sorted(acc.terminating))
    acc.update(going, None)
    assert ([("n1", 3000, 2), ("n2", 0, 0)], ["default/term"]) == (
        _counts(acc), sorted(acc.terminating))


def test_an_accounting_takes_updates_after_a_view():
    """Nothing is lent: after a view (a plan) the accounting takes updates and the next view
    sees them; a node the earlier view wrote to (n2, a reservation) is that view's own copy.
    (A view reads the nodes it has not written to from the accounting: update it between
    plans, not during one, as plan() and the replay do.)"""
    snap = _cluster()
    acc = Accounting(snap)
    mine = {"default/me"}
    view = ClusterState.over(acc, reserve_priority=50, exclude=mine)
    acc.update(None, pod("new", node="n2", cpu="2"))
    assert [("n1", 3000, 2), ("n2", 2000, 1)] == _counts(acc)
    assert [("n1", 3000, 2), ("n2", 5000, 2)] == _counts(
        ClusterState.over(acc, reserve_priority=50, exclude=mine))
    assert [("n1", 3000, 2), ("n2", 3000, 1)] == _counts(view)


def test_update_takes_an_equal_copy_of_the_pod_it_holds_but_not_another_version():
    """A replay may hand back an equal copy of the pod it accounted (read again): accepted. A
    different version under the same key (other requests) is not the pod it holds: refused."""
    acc = Accounting(_cluster())
    [(held, _)] = [t for t in acc.bound_pods() if t[0].key == "default/run"]
    with pytest.raises(ValueError, match="pod default/run is not accounted as given"):
        acc.update(struct_replace(held, requests={**held.requests,
                                                  "cpu": held.requests["cpu"] + 1}), None)
    acc.update(struct_replace(held), None)
    assert "default/run" not in {p.key for p, _ in acc.bound_pods()}


def test_update_with_a_pod_it_does_not_hold_raises():
    """Removing a pod the accounting does not hold (or adding one twice) is a caller bug; the
    error names the pod (a replay out of step says which pod it lost track of)."""
    acc = Accounting(_cluster())
    with pytest.raises(ValueError, match="pod default/stranger is not accounted"):
        acc.update(pod("stranger", node="n1"), None)
    with pytest.raises(ValueError, match="pod default/run is already accounted"):
        acc.update(None, pod("run", node="n2"))


def test_pods_that_hold_nothing_are_not_accounted():
    """Finished pods, pods on unknown nodes, unbound terminating and un-nominated pending
    pods are ignored in both directions."""
    acc = Accounting(_cluster())
    for p in (pod("x", node="n1", phase="Failed"), pod("y", node="gone"),
              pod("z", terminating=True, nominated="n1"), pod("w"), pod("v", nominated="gone")):
        acc.update(None, p)
        acc.update(p, None)
    assert [("n1", 3000, 2), ("n2", 0, 0)] == _counts(acc)


def test_static_fit_cache_passing_lists_nodes_once_per_static_key():
    """passing() gives the node indices that pass the static predicates, computed once."""
    state = ClusterState(snapshot(nodes=[node("a"), node("b", taints=[taint("t")]), node("c")]))
    cache = StaticFitCache()
    first = cache.passing(pod("p"), state.nodes)
    assert ((0, 2), frozenset({0, 2})) == first
    assert first is cache.passing(pod("q"), state.nodes)


@pytest.mark.parametrize("cpu_used", [0, 2999, 3000, 3001, 4000])
@pytest.mark.parametrize("pods_used", [0, 2, 3])
def test_node_state_fits_agrees_with_check(cpu_used: int, pods_used: int) -> None:
    """NodeState.fits (the engine's yes/no) and NodeState.check (the reason) agree at and around
    every limit: a 4-CPU, 3-pod node asked for 1 CPU fits iff cpu_used <= 3000m and fewer than
    3 pods run; a resource the node lacks (example.com/gpu) never fits."""
    state = NodeState(node("n", cpu="4", pods=3))
    state.add_requests({"cpu": cpu_used}, pods=pods_used)
    one_cpu = request_items({"cpu": 1000})
    expected = cpu_used <= 3000 and pods_used < 3
    assert expected == state.fits(one_cpu) == (state.check(one_cpu) is None)
    gpu = request_items({"example.com/gpu": 1})
    assert state.fits(gpu) is False
    assert state.check(gpu) is not None


def test_a_node_without_pods_allocatable_takes_no_pod() -> None:
    """status.allocatable without "pods" allows 0 pods (upstream NodeInfo's
    allowedPodNumber): fits, check and copies all say no, for an empty node."""
    bare = Node(name="n", labels={}, allocatable={"cpu": 4000})
    state = NodeState(bare)
    one_cpu = request_items({"cpu": 1000})
    assert (False, REASON_TOO_MANY_PODS, 0) == (
        state.fits(one_cpu), state.check(one_cpu), state.copies(one_cpu, 5))


# ---- ClusterState from a snapshot against a plain recount ----------------------------------

_NODES = ("n1", "n2", "n3")


@st.composite
def _pods(draw):
    out = []
    for k in range(draw(st.integers(0, 12))):
        where = draw(st.sampled_from([*_NODES, "gone", None]))
        out.append(pod(
            # a resource left out (None) as well as zero: a node's pods may not all request it
            f"p{draw(st.integers(0, 99)):02d}-{k}",
            cpu=draw(st.one_of(st.none(), st.integers(0, 3))),
            mem=draw(st.one_of(st.none(), st.integers(0, 2))), node=where,
            phase=draw(st.sampled_from([None, "Succeeded", "Failed"])) if where else None,
            terminating=draw(st.booleans()), prio=draw(st.integers(0, 3)),
            nominated=draw(st.sampled_from([*_NODES, "gone", None])) if where is None else None))
    return out


@given(pods=_pods(), order=st.randoms(use_true_random=False),
       reserve=st.one_of(st.none(), st.integers(0, 3)),
       tracked=st.sampled_from([None, {"cpu"}, {"cpu", "memory"}, {"memory", "pods"}]),
       excluded=st.integers(0, 3))
def test_cluster_state_equals_a_plain_recount(pods, order, reserve, tracked, excluded) -> None:
    """Whatever order a snapshot's pods come in: bound, terminating and reserving pods sorted
    by key (as a view over an accounting lists them), and every node's sums (of the tracked
    resources) and pod count as counted pod by pod from the held pods."""
    base = snapshot(nodes=[node(n, cpu="8") for n in _NODES], pods=pods)
    items = list(base.pods.items())
    order.shuffle(items)
    snap = replace(base, pods=dict(items))
    exclude = {p.key for p in pods[:excluded]}
    state = ClusterState(snap, reserve_priority=reserve, exclude=exclude, tracked=tracked)

    live = [p for p in snap.pods.values() if p.phase not in ("Succeeded", "Failed")]
    bound = sorted((p for p in live if p.node_name in _NODES and not p.terminating),
                   key=lambda p: p.key)
    terminating = sorted((p for p in live if p.node_name in _NODES and p.terminating),
                         key=lambda p: p.key)
    reserved = sorted((p for p in live if p.node_name is None and reserve is not None
                       and not p.terminating and p.nominated_node in _NODES
                       and p.priority >= reserve and p.key not in exclude),
                      key=lambda p: p.key)
    assert _keys(state.bound) == [p.key for p in bound]
    assert _keys(state.terminating) == [p.key for p in terminating]
    assert _keys(state.reserved) == [p.key for p in reserved]
    for s in state.nodes:
        held = [p for p in [*bound, *terminating] if p.node_name == s.name]
        held += [p for p in reserved if p.nominated_node == s.name]
        sums: dict[str, int] = {}
        for p in held:
            for r, q in p.requests.items():
                if r != "pods" and (tracked is None or r in tracked):
                    sums[r] = sums.get(r, 0) + q
        assert s.pod_count == len(held)
        assert {r: q for r, q in s.requested.items() if q} == {r: q for r, q in sums.items() if q}
