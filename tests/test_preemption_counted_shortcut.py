"""The resources-only gang search (``Evaluator.plan_group_counted``) answers as the
filter-aware search does.

A one-shape gang (every pending pod with one ``fit.shape_key``) under pod-dependent filters
(inter-pod affinity / anti-affinity, topology spread, host ports) may be planned by the
shortcut: search and reprieve by per-node copy counts, then place with the filters. It is kept
only where removing pods never fails the filters (``PlanFilters.monotone``) and its reprieve
saw no tie; anywhere else the filter-aware search (GreedyCheck for kep-5710, RescheduleCheck
for 1.36: SPEC §3 steps 5-6, upstream rescheduling the gang with every filter) decides.

The property: the same gang made two-shape by a difference no filter, fit check or score
reads (one member tolerates a taint no node has, or selects a label every node has) always
takes the filter-aware search, and the plans must be equal (status, reason, victims,
placements, ties). The upstream model is left out: its pod group takes
``select_victims_on_domain`` (``group_reprieve == "fixed"``), not the shortcut.

A gang whose required pod affinity selects its own pods is a case of its own (below): the
shortcut once kept a unit there that the filter-aware reprieve cannot.
"""

from __future__ import annotations

import msgspec
import pytest
from builders import gang, member, node, pdb, pod, snapshot, toleration
from constraint_builders import HOSTNAME, ZONE, aff, constrained, sel, spread
from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from wapctl.model import Node, Pod, PodGroup, Snapshot
from wapctl.models import get_model
from wapctl.preemption import Evaluator, Plan, plan
from wapctl.preemptor import select_preemptor

MODELS = ("kep-5710", "1.36")
WORKLOAD = "default/train"
POOL = "wapctl.test/pool"  # every node has it: a nodeSelector on it rejects no node
NO_SUCH_TAINT = "wapctl.test/no-such-taint"  # no node has it: tolerating it changes nothing
APPS = ("db", "web", "train")  # "train" is the gang's own label: its terms may match itself
KINDS = ("anti", "anti", "affinity", "affinity", "spread", "spread", "ports", "none")
TRAIN_ONE = gang("train", min_count=1, prio=100)
TRAIN_TWO = gang("train", min_count=2, prio=100)


def _brief(p: Pod) -> str:
    """A pod in one line, with only the fields these cases set."""
    parts = [p.name, f"cpu={p.requests['cpu'] // 1000}", f"prio={p.priority}"]
    parts += [f"node={p.node_name}"] if p.node_name else []
    parts += [f"labels={p.labels}"] if p.labels else []
    parts += [f"start={p.start_time}"] if p.start_time is not None else []
    parts += [f"selector={p.node_selector}"] if p.node_selector else []
    parts += [f"tolerates={[t.key for t in p.tolerations]}"] if p.tolerations else []
    for name, terms in (("affinity", p.affinity_terms), ("anti", p.anti_affinity_terms)):
        parts += [f"{name}=({t.topology_key}, {t.selector and t.selector.match_labels})"
                  for t in terms]
    parts += [f"spread=({c.max_skew}, {c.topology_key}, {c.selector and c.selector.match_labels})"
              for c in p.spread_constraints]
    parts += [f"ports={[h.port for h in p.host_ports]}"] if p.host_ports else []
    return " ".join(parts)


class Case:
    """A cluster with gang ``train`` pending, as one shape and as two harmless shapes."""

    def __init__(self, one_shape: Snapshot, two_shapes: Snapshot, kind: str) -> None:
        self.one_shape = one_shape
        self.two_shapes = two_shapes
        self.kind = kind  # the gang's pod-dependent constraint, one of KINDS

    def __repr__(self) -> str:  # what a counterexample shows: the pods in one line each
        snap = self.one_shape
        lines = [f"{n.name} cpu={n.allocatable['cpu'] // 1000} zone={n.labels[ZONE]}"
                 for n in snap.nodes.values()]
        lines += [f"minCount={g.min_count}" for g in snap.pod_groups.values()]
        lines += [f"pdb {b.name} allowed={b.disruptions_allowed}" for b in snap.pdbs]
        lines += [_brief(p) for p in snap.pods.values()]
        lines += [f"two shapes: {_brief(p)}" for k, p in self.two_shapes.pods.items()
                  if p != snap.pods[k]]
        return "Case(\n  " + "\n  ".join(lines) + ")"


def constraint(kind: str, key: str, app: str, skew: int) -> dict[str, object]:
    """``constrained`` keyword arguments for one pod-dependent constraint of the gang."""
    if kind == "anti":
        return {"anti": [aff(key, sel({"app": app}))]}
    if kind == "affinity":
        return {"affinity": [aff(key, sel({"app": app}))]}
    if kind == "spread":
        return {"spread": [spread(skew, key, sel({"app": app}))]}
    if kind == "ports":
        return {"ports": ["TCP//8080"]}
    return {}


@st.composite
def cases(draw, own_affinity: bool = False) -> Case:
    """Gang train (2-4 pods of one shape, minCount 1 to all) on 1-4 mostly full nodes.
    ``own_affinity``: the gang's constraint is a required pod affinity to its own label
    (``app=train``); else any of KINDS, an affinity then to a label of the running pods."""
    zones = draw(st.sampled_from([("a",), ("a", "b")]))
    nodes = [node(f"n{i}", cpu=draw(st.sampled_from([2, 3, 4])),
                  labels={HOSTNAME: f"n{i}", ZONE: zones[i % len(zones)], POOL: "all"})
             for i in range(draw(st.integers(1, 4)))]
    running: list[Pod] = []
    for n in nodes:  # mostly full: the gang has to preempt
        free = n.allocatable["cpu"] // 1000 - draw(st.sampled_from([0, 0, 0, 1]))
        while free > 0:
            cpu = draw(st.sampled_from([1, 1, 2] if free > 1 else [1]))
            free -= cpu
            p = pod(f"v{len(running)}", cpu=cpu, node=n.name,
                    prio=draw(st.sampled_from([0, 10, 10, 10, 20, 200])),
                    labels={"app": draw(st.sampled_from(APPS[:2]))},
                    start=draw(st.sampled_from([None, None, None, 1.0])))
            extra = draw(st.sampled_from(["", "", "", "ports", "anti"]))
            if extra == "ports":
                p = constrained(p, ports=["TCP//8080"])
            elif extra == "anti":  # a running pod that keeps the gang off its host
                p = constrained(p, anti=[aff(HOSTNAME, sel({"app": "train"}))])
            running.append(p)
    kind = "affinity" if own_affinity else draw(st.sampled_from(KINDS))
    app = draw(st.sampled_from(APPS if kind != "affinity" else APPS[:2]))
    app = "train" if own_affinity else app
    terms = constraint(kind, draw(st.sampled_from([HOSTNAME, ZONE])), app,
                       draw(st.integers(1, 2)))
    size = draw(st.integers(2, 4))  # one pending pod is one shape: nothing to compare
    train = gang("train", min_count=draw(st.integers(1, size)), prio=100)
    cpu = draw(st.integers(1, 2))
    members = [constrained(member(train, f"m{k}", cpu=cpu, labels={"app": "train"}), **terms)
               for k in range(size)]
    odd = draw(st.integers(0, size - 1))  # the member made a shape of its own
    if draw(st.booleans()):
        split = msgspec.structs.replace(
            members[odd], tolerations=(toleration(NO_SUCH_TAINT, "Exists"),))
    else:
        split = msgspec.structs.replace(members[odd], node_selector={POOL: "all"})
    pdbs = [pdb("p-db", match={"app": "db"}, allowed=draw(st.integers(0, 1)))
            if draw(st.integers(0, 3)) == 0 else None]
    common = {"nodes": nodes, "groups": [train], "pdbs": [b for b in pdbs if b is not None]}
    return Case(snapshot(pods=[*running, *members], **common),
                snapshot(pods=[*running, *members[:odd], split, *members[odd + 1:]], **common),
                kind)


def shapes(snap: Snapshot, model: str) -> tuple[int, bool | None]:
    """How many shapes the planner sees in the gang, and whether its filters are monotone
    (None: no pod-dependent filter is active)."""
    planner = Evaluator(snap, select_preemptor(snap, workload=WORKLOAD), get_model(model))
    filters = planner.filters
    return planner.placer.shapes, None if filters is None else filters.monotone


def planned(snap: Snapshot, model: str) -> Plan:
    return plan(snap, select_preemptor(snap, workload=WORKLOAD), model=get_model(model))


def outcome(p: Plan) -> tuple[object, ...]:
    """What a user reads off the plan, by pod name (the two snapshots name the same pods)."""
    return (p.status, p.reason, [v.pod for v in p.victims], p.placements, p.terminating,
            p.unplaced, p.ties)


def same_plans(case: Case) -> None:
    """The property, for both models: the one-shape gang's plan is the two-shape one's."""
    for model in MODELS:
        one, monotone = shapes(case.one_shape, model)
        two, _ = shapes(case.two_shapes, model)
        # The split is real for the planner: one shape may take the shortcut, two never do.
        assert (one, two) == (1, 2)
        reference, got = planned(case.two_shapes, model), planned(case.one_shape, model)
        path = {None: "no pod-dependent filter", True: "shortcut tried"}.get(
            monotone, "filter-aware search only")
        event(f"{model}: {case.kind}, {got.status}, {path}")
        assert outcome(reference) == outcome(got)


def gang_case(nodes: list[Node], running: list[Pod], members: list[Pod], train: PodGroup,
              kind: str) -> Case:
    """An explicit Case: ``members`` of ``train``; in the two-shape variant the first member
    selects the pool label."""
    split = msgspec.structs.replace(members[0], node_selector={POOL: "all"})
    return Case(snapshot(nodes=nodes, pods=[*running, *members], groups=[train]),
                snapshot(nodes=nodes, pods=[*running, split, *members[1:]], groups=[train]),
                kind)


def labelled(name: str, cpu: int, zone: str = "a") -> Node:
    return node(name, cpu=cpu, labels={HOSTNAME: name, ZONE: zone, POOL: "all"})


# commit 991e27f, the first fix: required affinity to a lower-priority pod is not monotone
# (the shortcut preempted filler where every search with the filters finds nothing)
AFFINITY_TO_A_VICTIM = gang_case(
    [labelled("n1", 2)],
    [pod("db", prio=10, node="n1", labels={"app": "db"}), pod("filler", prio=10, node="n1")],
    [constrained(member(TRAIN_ONE, f"m{k}"), affinity=[aff(HOSTNAME, sel({"app": "db"}))])
     for k in range(2)], TRAIN_ONE, "affinity")

# commit 991e27f, the second fix: the resources-only tie replays report a tie (b for z) the
# anti-affinity rules out (1.36)
TIE_THE_FILTERS_RULE_OUT = gang_case(
    [labelled("n1", 2)],
    [pod("b", prio=10, node="n1"), pod("z", prio=10, node="n1", labels={"app": "x"})],
    [constrained(member(TRAIN_ONE, f"m{k}"), anti=[aff(HOSTNAME, sel({"app": "x"}))])
     for k in range(2)], TRAIN_ONE, "anti")


@settings(max_examples=150, deadline=None)
@given(cases())
@example(AFFINITY_TO_A_VICTIM)
@example(TIE_THE_FILTERS_RULE_OUT)
def test_the_counted_shortcut_gives_the_filter_aware_answer(case: Case):
    """A one-shape gang's plan equals the plan of the same gang split into two shapes that no
    filter tells apart (the latter never takes the shortcut), for both models that have it:
    every kind of constraint but a required affinity of the gang to itself (below)."""
    same_plans(case)


# ---- a gang with required affinity to itself -----------------------------------------------

# A preemptor pod's affinity that selects the gang's own pods makes its own earlier placements
# what the later pods need: a unit put back can lure the first pod to a node where the rest
# cannot follow, and another unit back lets them all fit again. Feasibility is not monotone,
# so ``PlanFilters.monotone`` is False and the shortcut is not taken (it once was: the counted
# reprieve kept a unit the filter-aware reprieve cannot).
#
# n0 (4 cpu, zone b) runs x (1 cpu, priority 10) and w (3 cpu, priority 0, started); n1 and n2
# (2 cpu, zone a) are free but for z (1 cpu, priority 0) on n2. Gang train, minCount 2, two
# 2-cpu pods with required affinity to app=train (their own label) on the zone. Every unit
# removed, the reprieve puts x back first (highest priority): n0 has 3 cpu free, the most
# (1.36 scores it strictly highest; kep-5710 places by name), m0 goes there and m1 finds no
# zone-b node with room: x stays a victim. w back keeps n0 full, m0/m1 go to n1/n2: kept; z
# back leaves zone a one 2-cpu node: victim. Kubernetes (1.36 reschedules the gang for every
# unit put back) preempts x and z; the kep-5710 filter-aware search, at level 0 (w, z out)
# placing m0 on n0 too, goes to level 10 and answers the same. The shortcut counts copies
# (x back: n0, n1, n2 one each) and keeps x: victims z only.
LURED_TO_THE_WRONG_ZONE = gang_case(
    [labelled("n0", 4, "b"), labelled("n1", 2), labelled("n2", 2)],
    [pod("x", node="n0", prio=10), pod("w", cpu=3, node="n0", start=1.0),
     pod("z", node="n2")],
    [constrained(member(TRAIN_TWO, f"m{k}", cpu=2, labels={"app": "train"}),
                 affinity=[aff(ZONE, sel({"app": "train"}))]) for k in range(2)],
    TRAIN_TWO, "affinity")


@pytest.mark.parametrize("model", MODELS)
def test_a_gang_with_affinity_to_itself_keeps_no_unit_that_lures_it_away(model):
    """A user relies on the victims being the ones the scheduler would take (above)."""
    result = planned(LURED_TO_THE_WRONG_ZONE.one_shape, model)
    assert (result.status, [v.pod for v in result.victims],
            {pl.pod: pl.node for pl in result.placements}) == (
        "RequiresPreemption", ["default/x", "default/z"],
        {"default/m0": "n1", "default/m1": "n2"})


@settings(max_examples=100, deadline=None)
@given(cases(own_affinity=True))
@example(LURED_TO_THE_WRONG_ZONE)
def test_the_counted_shortcut_gives_the_filter_aware_answer_under_affinity_to_itself(
        case: Case):
    """The property where the gang's required affinity selects the gang itself."""
    same_plans(case)
