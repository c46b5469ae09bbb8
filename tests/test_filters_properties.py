"""ConstraintState against a brute-force oracle on tiny random clusters (hypothesis).

The oracle reads the definitions directly from the pods present, with no counters: the
incremental state must give the same answer after any sequence of adds and removes.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.builders import node, pod, req, taint
from tests.constraint_builders import aff, constrained, sel, spread
from wapctl.filters import ConstraintState
from wapctl.filters import interpod_affinity as ipa
from wapctl.filters import node_ports as np_
from wapctl.filters import topology_spread as ts
from wapctl.filters.selectors import namespace_labels, selector_matches, term_matches
from wapctl.model import Node, Pod

KEYS = ("host", "zone")
NAMESPACES = {"a": {"team": "x"}, "b": {"team": "y"}}


def _oracle_affinity(p: Pod, n: Node, placed: list[tuple[Pod, Node]]) -> str | None:
    def ns_of(q: Pod):
        return namespace_labels(NAMESPACES, q.namespace)

    def same(t_key: str, m: Node) -> bool:
        return t_key in m.labels and t_key in n.labels and m.labels[t_key] == n.labels[t_key]

    if p.affinity_terms:
        if any(t.topology_key not in n.labels for t in p.affinity_terms):
            return ipa.REASON_AFFINITY
        all_match = [(q, m) for q, m in placed
                     if all(term_matches(t, q.namespace, q.labels, ns_of(q))
                            for t in p.affinity_terms)]
        ok = all(any(same(t.topology_key, m) for _, m in all_match) for t in p.affinity_terms)
        if not ok:
            none_counted = not any(t.topology_key in m.labels
                                   for _, m in all_match for t in p.affinity_terms)
            self_match = all(term_matches(t, p.namespace, p.labels, ns_of(p))
                             for t in p.affinity_terms)
            if not (none_counted and self_match):
                return ipa.REASON_AFFINITY
    for t in p.anti_affinity_terms:
        if any(term_matches(t, q.namespace, q.labels, ns_of(q)) and same(t.topology_key, m)
               for q, m in placed):
            return ipa.REASON_ANTI_AFFINITY
    for q, m in placed:
        for t in q.anti_affinity_terms:
            if term_matches(t, p.namespace, p.labels, ns_of(p)) and same(t.topology_key, m):
                return ipa.REASON_EXISTING_ANTI_AFFINITY
    return None


def _oracle_spread(p: Pod, n: Node, nodes: list[Node],
                   placed: list[tuple[Pod, Node]]) -> str | None:
    cons = p.spread_constraints
    for c in cons:
        if c.topology_key not in n.labels:
            return ts.REASON_MISSING_LABEL
        eligible = [m for m in nodes if all(x.topology_key in m.labels for x in cons)
                    and ts.included(c, p, m)]
        domains = {m.labels[c.topology_key] for m in eligible}
        names = {m.name for m in eligible}

        def counted(q: Pod, m: Node, c=c, names=names) -> bool:
            s = c.selector
            return (m.name in names and q.namespace == p.namespace and not q.terminating
                    and s is not None and bool(s.match_labels or s.match_expressions)
                    and selector_matches(s, q.labels))

        count = {d: sum(1 for q, m in placed if counted(q, m) and m.labels[c.topology_key] == d)
                 for d in domains}
        low = min(count.values()) if len(domains) >= c.min_domains else 0
        own = 1 if selector_matches(c.selector, p.labels) else 0
        if count.get(n.labels[c.topology_key], 0) + own - low > c.max_skew:
            return ts.REASON_CONSTRAINTS
    return None


def _oracle(p: Pod, n: Node, nodes: list[Node], placed: list[tuple[Pod, Node]]) -> str | None:
    on_node = [q for q, m in placed if m.name == n.name]
    for hp in p.host_ports:
        for q in on_node:
            for used in q.host_ports:
                if used.protocol == hp.protocol and used.port == hp.port and (
                        hp.ip == "0.0.0.0" or used.ip in (hp.ip, "0.0.0.0")):
                    return np_.REASON
    return _oracle_spread(p, n, nodes, placed) or _oracle_affinity(p, n, placed)


# ---- strategies ----------------------------------------------------------------------------

labels_st = st.dictionaries(st.sampled_from(["app", "tier"]), st.sampled_from(["web", "db"]),
                            max_size=2)
selector_st = st.one_of(
    st.none(),
    st.builds(lambda m: sel(m), labels_st),
    st.builds(lambda k: sel(None, req(k, "Exists")), st.sampled_from(["app", "tier"])),
    st.builds(lambda k, v: sel(None, req(k, "NotIn", v)), st.sampled_from(["app", "tier"]),
              st.sampled_from(["web", "db"])),
)


@st.composite
def term_st(draw, own: str):
    key = draw(st.sampled_from((*KEYS, "rack")))
    kind = draw(st.integers(0, 5))
    if kind >= 3:
        return aff(key, draw(selector_st), own=own)
    if kind == 1:
        return aff(key, draw(selector_st), namespaces=[draw(st.sampled_from(["a", "b"]))])
    if kind == 2:
        return aff(key, draw(selector_st), ns_selector=sel({"team": draw(st.sampled_from("xy"))}))
    return aff(key, draw(selector_st), ns_selector=sel())


@st.composite
def pod_st(draw, name: str):
    ns = draw(st.sampled_from(["a", "a", "b"]))
    p = pod(name, ns=ns, labels=draw(labels_st), terminating=draw(st.booleans()) and
            draw(st.booleans()), selector=draw(st.sampled_from([None, {"zone": "z1"}])))
    return constrained(
        p,
        affinity=draw(st.lists(term_st(ns), max_size=2)) if draw(st.booleans()) else (),
        anti=draw(st.lists(term_st(ns), max_size=2)) if draw(st.integers(0, 2)) == 0 else (),
        spread=draw(st.lists(st.builds(
            spread, st.integers(1, 2), st.sampled_from(KEYS), selector_st,
            min_domains=st.integers(1, 4), affinity_policy=st.sampled_from(["Honor", "Ignore"]),
            taints_policy=st.sampled_from(["Honor", "Ignore"])), max_size=2)),
        ports=draw(st.lists(st.sampled_from(["TCP/0.0.0.0/80", "TCP/10.0.0.1/80",
                                             "UDP/0.0.0.0/80", "TCP/10.0.0.2/80"]),
                            max_size=2, unique=True)),
    )


@st.composite
def cluster_st(draw):
    nodes = []
    for i in range(draw(st.integers(1, 4))):
        labels = {"host": f"n{i}"}
        if draw(st.integers(0, 4)):
            labels["zone"] = draw(st.sampled_from(["z1", "z2"]))
        taints = [taint("t")] if draw(st.integers(0, 4)) == 0 else []
        nodes.append(node(f"n{i}", labels=labels, taints=taints))
    pods = [draw(pod_st(f"p{i}")) for i in range(draw(st.integers(0, 6)))]
    ops = draw(st.lists(st.tuples(st.integers(0, max(len(pods) - 1, 0)),
                                  st.integers(0, len(nodes) - 1)), max_size=10))
    queries = [draw(pod_st(f"q{i}")) for i in range(2)]
    return nodes, pods, ops, queries


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cluster_st())
def test_state_matches_oracle_after_adds_and_removes(cluster) -> None:
    """After each add / remove / move, ConstraintState.reason equals the brute-force oracle
    for every query pod and node (spread, affinity and port counters kept incrementally)."""
    nodes, pods, ops, queries = cluster
    by_name = {n.name: n for n in nodes}
    state = ConstraintState(nodes, NAMESPACES)
    where: dict[str, str] = {}
    for q in queries:  # build counters early so that they are updated, not rebuilt
        state.reason(q, nodes[0].name)
    for i, j in ops:
        if not pods:
            break
        p = pods[i]
        if where.get(p.key) == nodes[j].name:
            state.remove(p, nodes[j].name)
            del where[p.key]
        else:
            state.add(p, nodes[j].name)
            where[p.key] = nodes[j].name
        placed = [(q, by_name[m]) for q, m in state.present()]
        for q in queries:
            for n in nodes:
                assert state.reason(q, n.name) == _oracle(q, n, nodes, placed), (q, n)


@settings(max_examples=60, deadline=None)
@given(cluster_st())
def test_one_shot_check_matches_oracle(cluster) -> None:
    """The pure filters.check over explicit pods equals the oracle."""
    from wapctl.filters import check

    nodes, pods, ops, queries = cluster
    placed = [(p, nodes[j]) for (i, j), p in zip(ops, pods, strict=False)]
    for q in queries:
        for n in nodes:
            assert check(q, n, nodes, placed, NAMESPACES) == _oracle(q, n, nodes, placed)


def test_counters_rebuilt_after_eviction_agree() -> None:
    """More query shapes than counters kept: an evicted shape is rebuilt from the present pods
    and answers as before."""
    from wapctl.filters import state as state_mod

    nodes = [node("n0", labels={"host": "n0", "zone": "z1"}),
             node("n1", labels={"host": "n1", "zone": "z2"})]
    s = ConstraintState(nodes)
    web = pod("web", node="n0", labels={"app": "web"})
    s.add(web, "n0")
    # distinct namespace lists make distinct counters (labels alone would share one)
    shapes = [constrained(pod(f"q{i}"), anti=[aff("host", sel({"app": "web"}),
                                                  namespaces=["default", f"x{i}"])])
              for i in range(state_mod.KEEP + 3)]
    first = [s.reason(q, "n0") for q in shapes]
    s.remove(web, "n0")
    s.add(web, "n1")
    assert first == [ipa.REASON_ANTI_AFFINITY] * len(shapes)
    assert [s.reason(q, "n0") for q in shapes] == [None] * len(shapes)
    assert [s.reason(q, "n1") for q in shapes] == [ipa.REASON_ANTI_AFFINITY] * len(shapes)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cluster_st())
def test_irrelevant_pods_never_change_an_answer(cluster) -> None:
    """When ConstraintState.relevant(q, p) is False, adding p anywhere leaves every answer for q
    unchanged; when constrains(q) is False, q fits every node (the engine's fast paths)."""
    nodes, pods, ops, queries = cluster
    state = ConstraintState(nodes, NAMESPACES)
    half = len(pods) // 2
    for (_, j), p in zip(ops, pods[:half], strict=False):
        state.add(p, nodes[j].name)
    for q in queries:
        if not state.constrains(q):
            assert all(state.reason(q, n.name) is None for n in nodes)
        for p in pods[half:]:
            if state.relevant(q, p):
                continue
            before = [state.reason(q, n.name) for n in nodes]
            for n in nodes:
                state.add(p, n.name)
                assert [state.reason(q, m.name) for m in nodes] == before
                state.remove(p, n.name)
