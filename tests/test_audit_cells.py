"""audit's member-level comparison: the cells (members by profile before/after), the edge
changes and lost protection between them, and the cycles introduced or fixed — worked out by
hand on a small change, and against a brute-force oracle (every member grouped and sorted) on
random ones."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from wapctl import audit
from wapctl import graph as g
from wapctl.errors import Source
from wapctl.ingest import Document, build_snapshot

CLASSES = {"low": 100, "mid": 500, "high": 1000, "top": 2000}


def pclass(name: str, value: int) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name}, "value": value}


def workload(ns: str, name: str, pcn: str, ppcn: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"priorityClassName": pcn,
                            "podGroups": [{"name": "main", "policy": {"basic": {}}}]}
    if ppcn:
        spec["preemptionPriorityClassName"] = ppcn
    return {"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
            "metadata": {"name": name, "namespace": ns}, "spec": spec}


def pod(ns: str, name: str, pcn: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
            "spec": {"priorityClassName": pcn,
                     "containers": [{"name": "c", "image": "i",
                                     "resources": {"requests": {"cpu": "1"}}}]},
            "status": {"phase": "Pending"}}


def docs(objs: list[dict[str, Any]], file: str = "snap.yaml") -> list[Document]:
    return [Document(Source(file, i), o) for i, o in enumerate(objs, 1)]


def cell_view(c: audit.Cell) -> tuple[Any, ...]:
    return (c.before and c.before.id, c.after and c.after.id, c.workloads, c.pod_groups, c.pods,
            c.workload_count, c.pod_group_count, c.pod_count, c.unit_count)


def test_cells_edges_and_lost_protection_worked_by_hand() -> None:
    """Before: ml/a high (1000), batch/b mid (500) with the standalone pod web/p (mid),
    batch/c and web/d low (100). The change moves batch/c to high (into a profile ml/a keeps),
    deletes web/d and adds new/e at low.

    Cells, sorted by (before, after) with "absent" first: e (-, 100), d (100, -),
    c (100, 1000), {b, p} (500, 500) — a profile nobody moved into —, a (1000, 1000).
    "May preempt" is scheduling > preemption (one cell preempting itself needs 2 units):
    before a -> b, c, d; {b, p} -> c, d. After a -> {b, p}, e; c -> {b, p}, e; {b, p} -> e.
    Only pairs with a moved cell (e, d, c) can change:
    added c -> e, c -> {b, p}, {b, p} -> e, a -> e (in cell order: c, then b, then a);
    removed {b, p} -> d, {b, p} -> c, a -> d, a -> c. Lost protection: only {b, p} (present
    on both sides) gains a preemptor, c; e is new, so it had no protection to lose."""
    base = docs([pclass(n, v) for n, v in CLASSES.items()] + [
        workload("ml", "a", "high"), workload("batch", "b", "mid"), pod("web", "p", "mid"),
        workload("batch", "c", "low"), workload("web", "d", "low")])
    change = docs([workload("batch", "c", "high"), workload("new", "e", "low")], "change.yaml")
    r = audit.audit(base, change, [audit.parse_deletion("Workload/web/d")], max_plans=0)

    e = (None, "100/100", ("new/e",), ("new/e/main",), (), 1, 1, 0, 1)
    d = ("100/100", None, ("web/d",), ("web/d/main",), (), 1, 1, 0, 1)
    c = ("100/100", "1000/1000", ("batch/c",), ("batch/c/main",), (), 1, 1, 0, 1)
    bp = ("500/500", "500/500", ("batch/b",), ("batch/b/main",), ("web/p",), 1, 1, 1, 2)
    a = ("1000/1000", "1000/1000", ("ml/a",), ("ml/a/main",), (), 1, 1, 0, 1)
    cells = audit.cells(r.graph_before, r.graph_after, g.DEFAULT_SAMPLE)
    assert [e, d, c, bp, a] == [cell_view(x) for x in cells]
    assert [(c, e), (c, bp), (bp, e), (a, e)] == [
        (cell_view(x.preemptor), cell_view(x.victim)) for x in r.edges_added]
    assert [(bp, d), (bp, c), (a, d), (a, c)] == [
        (cell_view(x.preemptor), cell_view(x.victim)) for x in r.edges_removed]
    assert [(bp, [c])] == [
        (cell_view(lp.victim), [cell_view(x) for x in lp.new_preemptors])
        for lp in r.lost_protection]


# ---- against the oracle: every member grouped by (before, after), sorted --------------------


def oracle_cells(before: g.PriorityGraph, after: g.PriorityGraph, sample: int) -> list[Any]:
    groups: dict[tuple[Any, Any], list[g.Member]] = {}
    for key in sorted(before.memberships.keys() | after.memberships.keys()):
        member = after.members.get(key) or before.members[key]
        groups.setdefault((before.memberships.get(key), after.memberships.get(key)),
                          []).append(member)
    out = []
    for (b, a), members in groups.items():
        workloads = sorted({m.workload for m in members if m.kind == "PodGroup"})
        names = {kind: [m.name for m in members if m.kind == kind]
                 for kind in ("PodGroup", "Pod", "Template")}
        out.append(audit.Cell(
            b, a, tuple(workloads[:sample]), tuple(names["PodGroup"][:sample]),  # type: ignore[arg-type]
            tuple(names["Pod"][:sample]), len(workloads), len(names["PodGroup"]),
            len(names["Pod"]), len({m.unit for m in members}),
            tuple(names["Template"][:sample]), len(names["Template"])))
    return sorted(out, key=lambda c: c.sort_key)


def oracle_diff_cycles(
    before: g.PriorityGraph, cb: g.CycleSearch, after: g.PriorityGraph, ca: g.CycleSearch
) -> tuple[list[g.Cycle], list[g.Cycle]]:
    def units(graph: g.PriorityGraph) -> Mapping[g.Profile, frozenset[str]]:
        acc: dict[g.Profile, set[str]] = {}
        for (kind, name), profile in graph.memberships.items():
            acc.setdefault(profile, set()).add(f"{kind}:{name}")
        return {p: frozenset(s) for p, s in acc.items()}

    def identity(units: Mapping[g.Profile, frozenset[str]], cycle: g.Cycle) -> frozenset[Any]:
        """The cycle's members per vertex, in cycle order, whatever vertex it starts at: the
        set of all its rotations."""
        sets = tuple(units[v] for v in cycle.vertices)
        return frozenset(sets[i:] + sets[:i] for i in range(len(sets)))

    ub, ua = units(before), units(after)
    ids_b = {identity(ub, c) for c in cb.cycles}
    ids_a = {identity(ua, c) for c in ca.cycles}
    return ([c for c in ca.cycles if identity(ua, c) not in ids_b],
            [c for c in cb.cycles if identity(ub, c) not in ids_a])


# A member: None (absent), or (scheduling class, preemption class or None) for a Workload;
# standalone pods take the first class only. After the change a member mostly keeps its state
# (most members of a real change do), else takes any.
CLASS = st.sampled_from(sorted(CLASSES))
STATE = st.none() | st.tuples(CLASS, st.none() | CLASS)
MEMBER = st.tuples(STATE, st.sampled_from(["same", "same", "other"]), STATE).map(
    lambda t: (t[0], t[0] if t[1] == "same" else t[2]))


def objects(states: list[Any], pod_states: list[Any]) -> list[dict[str, Any]]:
    out = [pclass(n, v) for n, v in CLASSES.items()]
    for i, s in enumerate(states):
        if s is not None:
            out.append(workload(f"ns{i % 3}", f"w{i}", s[0], s[1]))
    for i, s in enumerate(pod_states):
        if s is not None:
            out.append(pod(f"ns{i % 2}", f"p{i}", s[0]))
    return out


@settings(max_examples=60, deadline=None)
@given(
    st.lists(MEMBER, min_size=2, max_size=10),
    st.lists(MEMBER, max_size=5),
    st.sampled_from([0, 1, 2, 10]),
    st.sampled_from([1, 2, 10]),
)
def test_cells_and_cycle_diff_match_the_oracle(
    workloads: list[tuple[Any, Any]], pods: list[tuple[Any, Any]], sample: int, built: int
) -> None:
    """Whatever moves, appears or disappears, and whatever sample size the graphs were built
    with, the cells and the cycles introduced/fixed are the oracle's."""
    before = build_snapshot(docs(objects([w[0] for w in workloads], [p[0] for p in pods])))
    after = build_snapshot(docs(objects([w[1] for w in workloads], [p[1] for p in pods])))
    gb = g.build_graph(before, sample_size=built)
    ga = g.build_graph(after, sample_size=built)
    assert oracle_cells(gb, ga, sample) == audit.cells(gb, ga, sample)
    cb = g.find_cycles(gb)
    ca = g.find_cycles(ga)
    assert oracle_diff_cycles(gb, cb, ga, ca) == audit.diff_cycles(gb, cb, ga, ca)
