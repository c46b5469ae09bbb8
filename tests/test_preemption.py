"""Hand-worked plans: each case is small enough to check by reading it.

The cases are rows of tables, as kube-scheduler's table-driven tests are (``TestSelectCandidate``,
``TestDryRunPreemption`` in default_preemption_test.go): a row names the cluster, the preemptor
and what the plan must say, and one loop per topic plans it and compares. A row's ``why`` is the
hand-worked reasoning; each ``want`` field left ``None`` is one the row does not assert.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import pytest
from builders import (
    basic,
    gang,
    member,
    node,
    pdb,
    pod,
    snapshot,
    taint,
    toleration,
)
from constraint_builders import HOSTNAME, aff, constrained, sel
from msgspec.structs import replace  # Pods are msgspec Structs

from wapctl.model import NEVER, Snapshot
from wapctl.models import get_model
from wapctl.preemption import Placement, Plan, TerminatingPod, Victim, lowest_level, plan
from wapctl.preemption.node_choice import node_criteria
from wapctl.preemptor import select_preemptor

KEP = "kep-5710"  # the rows pin the KEP-5710 model (SPEC §3) unless they name another
MODELS = ("kep-5710", "1.36", "upstream")

MIN_PRIORITY = -(2**31)


@dataclass(frozen=True)
class Case:
    """One hand-worked plan: the cluster, the preemptor, and what the plan must say."""

    name: str
    why: str  # the hand-worked reasoning
    snapshot: Snapshot
    preemptor: str  # a pod key, or a workload key when kind is "workload"
    kind: Literal["pod", "workload"] = "pod"
    model: str = KEP
    # ---- want (None: not asserted by this row) ----
    plan: Plan | None = None  # the whole Plan; its preemptor is taken from the result
    status: str | None = None
    reason: str | None = None  # the exact reason
    reason_ends: str | None = None  # how the reason ends
    victims: list[str] | None = None  # victim pod names, in the plan's order
    sorted_victims: list[str] | None = None  # victim pod names, sorted
    victim_records: tuple[Victim, ...] | None = None  # Plan.victims itself
    placements: dict[str, str] | None = None  # pod name -> node
    terminating: tuple[TerminatingPod, ...] | None = None
    unplaced: tuple[str, ...] | None = None
    unplaced_count: int | None = None
    needed: int | None = None  # the preemptor's pods still needed
    pdb_flags: list[bool] | None = None  # Victim.pdb_violation, in the plan's order
    victim_pods: int | None = None
    victim_units: int | None = None
    max_victim_priority: int | None = None
    pdb_violations: int | None = None
    nodes_touched: int | None = None


def victims(p: Plan) -> list[str]:
    return [v.pod.split("/", 1)[1] for v in p.victims]


def placements(p: Plan) -> dict[str, str]:
    return {pl.pod.split("/", 1)[1]: pl.node for pl in p.placements}


# how each want field is read off a plan (the whole Plan and reason_ends are compared apart)
GOT: dict[str, Callable[[Plan], Any]] = {
    "status": lambda p: p.status,
    "reason": lambda p: p.reason,
    "victims": victims,
    "sorted_victims": lambda p: sorted(victims(p)),
    "victim_records": lambda p: p.victims,
    "placements": placements,
    "terminating": lambda p: p.terminating,
    "unplaced": lambda p: p.unplaced,
    "unplaced_count": lambda p: len(p.unplaced),
    "needed": lambda p: p.preemptor.needed,
    "pdb_flags": lambda p: [v.pdb_violation for v in p.victims],
    "victim_pods": lambda p: p.victim_pods,
    "victim_units": lambda p: p.victim_units,
    "max_victim_priority": lambda p: p.max_victim_priority,
    "pdb_violations": lambda p: p.pdb_violations,
    "nodes_touched": lambda p: p.nodes_touched,
}


def plan_case(case: Case) -> Plan:
    key = {case.kind: case.preemptor}
    return plan(case.snapshot, select_preemptor(case.snapshot, **key), model=get_model(case.model))


def check(case: Case) -> None:
    """Plan the row and compare every field it asserts (all of them in one comparison)."""
    result = plan_case(case)
    want = {f: getattr(case, f) for f in GOT if getattr(case, f) is not None}
    assert want or case.plan is not None or case.reason_ends, f"row {case.name} asserts nothing"
    if case.plan is not None:
        assert dataclasses.replace(case.plan, preemptor=result.preemptor) == result
    if case.reason_ends is not None:
        assert result.reason.endswith(case.reason_ends), result.reason
    assert want == {f: GOT[f](result) for f in want}


def rows(*cases: Case) -> list[Case]:
    return list(cases)


def ids(case: Case) -> str:
    return case.name


# ---- snapshots shared by several rows -------------------------------------------------------


def _two_nodes(n1_pods, n2_pods, pdbs=()) -> Snapshot:
    pods = [pod(f"n1-{k}", node="n1", **kw) for k, kw in enumerate(n1_pods)]
    pods += [pod(f"n2-{k}", node="n2", **kw) for k, kw in enumerate(n2_pods)]
    pods.append(pod("p", cpu="3", prio=100))
    return snapshot(nodes=[node("n1", cpu="4"), node("n2", cpu="4")], pods=pods, pdbs=pdbs)


def _tie_break_snapshot(need_cpu: str) -> Snapshot:
    workload = basic("web", prio=10)
    whole = gang("batch", min_count=1, mode="PodGroup", prio=10)
    preemptor = gang("train", min_count=1, prio=100)
    return snapshot(
        nodes=[node("n1", cpu="6")],
        pods=[pod("standalone", node="n1", cpu="2", prio=10, start=1.0),
              member(workload, "workload-pod", node="n1", cpu="2", start=2.0),
              member(whole, "gang-pod", node="n1", cpu="2", start=3.0),
              member(preemptor, "w0", cpu=need_cpu)],
        groups=[workload, whole, preemptor],
    )


def _pdb_snapshot(pdbs) -> Snapshot:
    return snapshot(
        nodes=[node("n1", cpu="4")],
        pods=[pod("protected", node="n1", cpu="2", prio=10, start=200.0, labels={"app": "db"}),
              pod("other", node="n1", cpu="2", prio=10, start=100.0, labels={"app": "web"}),
              pod("p", cpu="2", prio=100)],
        pdbs=pdbs,
    )


def _budget_snapshot(allowed: int, disrupted=()) -> Snapshot:
    return snapshot(
        nodes=[node("n1", cpu="4")],
        pods=[pod("first", node="n1", cpu="2", prio=10, start=100.0, labels={"app": "db"}),
              pod("second", node="n1", cpu="2", prio=10, start=200.0, labels={"app": "db"}),
              pod("p", cpu="4", prio=100)],
        pdbs=[pdb("db", match={"app": "db"}, allowed=allowed, disrupted=disrupted)],
    )


# pod groups (frozen, so rows may share them)
TRAIN_2 = gang("train", min_count=2, prio=100)
TRAIN_3 = gang("train", min_count=3, prio=100)
TRAIN_500 = gang("train", min_count=2, prio=500)
TRAIN_ONE = gang("train", min_count=1, prio=100)
WHOLE_A = gang("a", min_count=2, prio=10, mode="PodGroup")
WHOLE_B = gang("b", min_count=2, prio=10, mode="PodGroup")


# ---- single pod -----------------------------------------------------------------------------

NODE_CHOICE_WHY = (
    "Candidate nodes are compared as upstream pickOneNodeForPreemption, criterion by criterion "
    "(the fewest-victims case ties the offset priority sum, as upstream sums priority + 2^31 "
    "per victim). n1 wins ties by name, so n2 proves a criterion.")

SINGLE_POD = rows(
    Case(
        name="single-pod-preempts-the-lowest-priority-pod",
        why="The pod goes where the victim has the lowest priority, and only that victim goes.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="4"), node("n2", cpu="4")],
            pods=[pod("a", node="n1", cpu="3", prio=10), pod("b", node="n2", cpu="3", prio=20),
                  pod("p", cpu="2", prio=100)],
        ),
        preemptor="default/p",
        plan=Plan(
            preemptor=None,  # type: ignore[arg-type]  # filled in from the result
            status="RequiresPreemption",
            reason="pod default/p fits on node n1 after preempting 1 pod in 1 unit "
                   "(highest victim priority 10).",
            placements=(Placement("default/p", "n1"),),
            victims=(Victim("default/a", "n1", 10, "Pod", "default/a", False),),
            terminating=(),
            unplaced=(),
        ),
    ),
    Case(
        name="single-pod-reprieves-victims-it-does-not-need",
        why="Of two low pods on the chosen node only as many as needed are preempted.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="4")],
            pods=[pod("a", node="n1", cpu="2", prio=10, start=100.0),
                  pod("b", node="n1", cpu="2", prio=10, start=200.0),
                  pod("p", cpu="2", prio=100)],
        ),
        preemptor="default/p",
        victims=["b"],
    ),
    Case(
        name="single-pod-node-choice-fewest-pdb-violations",
        why=NODE_CHOICE_WHY,
        snapshot=_two_nodes([{"cpu": "4", "prio": 10, "labels": {"app": "db"}}],
                            [{"cpu": "4", "prio": 10}],
                            [pdb("db", match={"app": "db"}, allowed=0)]),
        preemptor="default/p",
        placements={"p": "n2"},
    ),
    Case(
        name="single-pod-node-choice-lowest-highest-victim-priority",
        why=NODE_CHOICE_WHY,
        snapshot=_two_nodes([{"cpu": "4", "prio": 20}], [{"cpu": "4", "prio": 10}]),
        preemptor="default/p",
        placements={"p": "n2"},
    ),
    Case(
        name="single-pod-node-choice-smallest-priority-sum",
        why=NODE_CHOICE_WHY,
        snapshot=_two_nodes([{"cpu": "2", "prio": 10}, {"cpu": "2", "prio": 10}],
                            [{"cpu": "2", "prio": 10}, {"cpu": "2", "prio": 5}]),
        preemptor="default/p",
        placements={"p": "n2"},
    ),
    Case(
        name="single-pod-node-choice-fewest-victims",
        why=NODE_CHOICE_WHY,
        snapshot=_two_nodes([{"cpu": "2", "prio": 10}, {"cpu": "2", "prio": MIN_PRIORITY}],
                            [{"cpu": "4", "prio": 10}]),
        preemptor="default/p",
        placements={"p": "n2"},
    ),
    Case(
        name="single-pod-node-choice-latest-start-of-highest-priority-victims",
        why=NODE_CHOICE_WHY,
        snapshot=_two_nodes([{"cpu": "4", "prio": 10, "start": 100.0}],
                            [{"cpu": "4", "prio": 10, "start": 200.0}]),
        preemptor="default/p",
        placements={"p": "n2"},
    ),
    Case(
        name="single-pod-node-choice-missing-start-time-counts-as-latest",
        why=NODE_CHOICE_WHY,
        snapshot=_two_nodes([{"cpu": "4", "prio": 10, "start": 100.0}],
                            [{"cpu": "4", "prio": 10}]),
        preemptor="default/p",
        placements={"p": "n2"},
    ),
    Case(
        name="single-pod-node-choice-first-node-by-name",
        why=NODE_CHOICE_WHY,
        snapshot=_two_nodes([{"cpu": "4", "prio": 10}], [{"cpu": "4", "prio": 10}]),
        preemptor="default/p",
        placements={"p": "n1"},
    ),
    Case(
        name="pdb-violation-count-outranks-priority",
        why="A node whose victim violates a PDB loses even to a node with a higher-priority "
            "victim.",
        snapshot=_two_nodes([{"cpu": "4", "prio": 10, "labels": {"app": "db"}}],
                            [{"cpu": "4", "prio": 50}],
                            [pdb("db", match={"app": "db"}, allowed=0)]),
        preemptor="default/p",
        placements={"p": "n2"},
        victims=["n2-0"],
    ),
    Case(
        name="single-pod-uses-a-node-its-victims-free-even-if-others-are-filtered",
        why="Static filters (taints here) exclude nodes before any victim search.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="4", taints=[taint("gpu", "yes")]), node("n2", cpu="4")],
            pods=[pod("a", node="n1", cpu="4", prio=0), pod("b", node="n2", cpu="4", prio=50),
                  pod("p", cpu="4", prio=100)],
        ),
        preemptor="default/p",
        placements={"p": "n2"},
        victims=["b"],
    ),
    Case(
        name="fewer-pdb-violations-beat-a-lower-victim-priority",
        why="KEP model. n-a (2 cpu): va (prio 0, app=db, its PDB allows 0); n-b (2 cpu): vb "
            "(prio 5, no PDB). p (prio 100) needs 2 cpu. pickOneNodeForPreemption's first "
            "criterion is the fewest PDB violations: n-b (0) beats n-a (1) although n-a's "
            "victim has the lower priority. The search visits n-a first (lower level); a best "
            "with a violation must not prune n-b.",
        snapshot=snapshot(
            nodes=[node("n-a", cpu="2"), node("n-b", cpu="2")],
            pods=[pod("va", node="n-a", cpu="2", prio=0, labels={"app": "db"}),
                  pod("vb", node="n-b", cpu="2", prio=5), pod("p", cpu="2", prio=100)],
            pdbs=[pdb("db", match={"app": "db"}, allowed=0)],
        ),
        preemptor="default/p",
        victims=["vb"],
        placements={"p": "n-b"},
    ),
    Case(
        name="one-victim-beats-two-of-the-same-priority-whatever-their-start",
        why="KEP model. n-a (2 cpu): a1, a2 (prio 10, 1 cpu each, started late); n-b (2 cpu): "
            "b1 (prio 10, 2 cpu, started early). p (prio 100) needs 2 cpu. Same violations (0) "
            "and highest priority (10); the smaller priority sum (one victim) wins before the "
            "start time is looked at: n-b. n-a is scored first (name order); its two-victim "
            "score must not prune n-b for starting earlier.",
        snapshot=snapshot(
            nodes=[node("n-a", cpu="2"), node("n-b", cpu="2")],
            pods=[pod("a1", node="n-a", cpu="1", prio=10, start=500),
                  pod("a2", node="n-a", cpu="1", prio=10, start=500),
                  pod("b1", node="n-b", cpu="2", prio=10, start=1), pod("p", cpu="2", prio=100)],
        ),
        preemptor="default/p",
        victims=["b1"],
        placements={"p": "n-b"},
    ),
)


@pytest.mark.parametrize("case", SINGLE_POD, ids=ids)
def test_single_pod(case: Case):
    check(case)


# ---- gangs and pod groups -------------------------------------------------------------------

BATCH_WHOLE_2 = gang("batch", min_count=2, mode="PodGroup", prio=10)
BIG = gang("big", min_count=1, mode="PodGroup", prio=10)
SMALL = gang("small", min_count=1, mode="PodGroup", prio=10)
G_WHOLE_10 = gang("g", min_count=1, mode="PodGroup", prio=10)
G_WHOLE_5 = gang("g", min_count=1, mode="PodGroup", prio=5)
TRAIN_GPU = gang("train", min_count=2, prio=1000)
TRAIN_OWN = gang("train", min_count=3, prio=100, preempt_prio=10)
TRAIN_4 = gang("train", min_count=4, prio=100)
WEB = basic("web", prio=100)

TIE_BREAK_WHY = (
    "At equal priority a standalone pod is preempted first, then a workload's pod, then a "
    "whole gang, even though the gang started last.")

STEP_BACK_WHY = (
    "n1 (8 cpu) is full: v0 (prio 10, 1 cpu), v1 (20, 1 cpu), v2 (30, 2 cpu), v3 (40, 4 cpu). "
    "The gang needs 4 cpu (big: 2 cpu; small: 2 cpu and 1Gi, another shape). KEP level "
    "search: levels 10 and 20 free 1 and 2 cpu (too little), 40 frees 8 (enough), then 30 (a "
    "step back: v3 returns) frees 4: the lowest level is 30. Reprieve v2, v1, v0 (most "
    "important first): each back leaves under 4 cpu, so all three go and v3 stays. Upstream "
    "models remove every unit and reprieve from v3: v3 back leaves exactly 4 cpu (fits), then "
    "none of the others fit. The same victims either way.")
STEP_BACK_SNAPSHOT = snapshot(
    nodes=[node("n1", cpu="8", mem="16Gi")],
    pods=[pod("v0", node="n1", cpu="1", prio=10, start=1),
          pod("v1", node="n1", cpu="1", prio=20, start=1),
          pod("v2", node="n1", cpu="2", prio=30, start=1),
          pod("v3", node="n1", cpu="4", prio=40, start=1),
          member(TRAIN_2, "big", cpu="2"), member(TRAIN_2, "small", cpu="2", mem="1Gi")],
    groups=[TRAIN_2],
)

GANG_FITS_NOW_WHY = (
    "Gang train (minCount 2) on an empty 8-cpu node. With no member running, both pending pods "
    "are needed and fit: \"2 of 2 ... (2 needed)\". With two members already running the "
    "minCount is met: the one pending pod is extra, and the reason says so.")

GANGS = rows(
    Case(
        name="gang-takes-victims-on-several-nodes",
        why="A gang's domain is the whole cluster: it preempts on as many nodes as it needs.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="4"), node("n2", cpu="4"), node("n3", cpu="4")],
            pods=[pod("a", node="n1", cpu="4", prio=10), pod("b", node="n2", cpu="4", prio=20),
                  pod("c", node="n3", cpu="4", prio=500),
                  member(TRAIN_2, "w0", cpu="4"), member(TRAIN_2, "w1", cpu="4")],
            groups=[TRAIN_2],
        ),
        preemptor="default/train", kind="workload",
        status="RequiresPreemption",
        placements={"w0": "n1", "w1": "n2"},
        victims=["a", "b"],
        nodes_touched=2,
    ),
    Case(
        name="podgroup-mode-unit-is-preempted-whole",
        why="A PodGroup-mode group is one victim unit: all its pods go, even if one would do.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="4"), node("n2", cpu="4"), node("n3", cpu="4")],
            pods=[member(BATCH_WHOLE_2, "g0", node="n1", cpu="4"),
                  member(BATCH_WHOLE_2, "g1", node="n2", cpu="4"),
                  pod("solo", node="n3", cpu="4", prio=20), pod("p", cpu="4", prio=100)],
            groups=[BATCH_WHOLE_2],
        ),
        preemptor="default/p",
        placements={"p": "n1"},
        victim_records=(
            Victim("default/g0", "n1", 10, "PodGroup", "default/batch/main", False),
            Victim("default/g1", "n2", 10, "PodGroup", "default/batch/main", False),
        ),
        victim_units=1,
        nodes_touched=2,
    ),
    Case(
        name="equal-priority-tie-break-standalone-then-workload-pod-then-gang-one-unit",
        why=TIE_BREAK_WHY,
        snapshot=_tie_break_snapshot("2"),
        preemptor="default/train", kind="workload",
        victims=["standalone"],
    ),
    Case(
        name="equal-priority-tie-break-standalone-then-workload-pod-then-gang-two-units",
        why=TIE_BREAK_WHY,
        snapshot=_tie_break_snapshot("4"),
        preemptor="default/train", kind="workload",
        victims=["standalone", "workload-pod"],
    ),
    Case(
        name="equal-priority-tie-break-standalone-then-workload-pod-then-gang-all-units",
        why=TIE_BREAK_WHY,
        snapshot=_tie_break_snapshot("6"),
        preemptor="default/train", kind="workload",
        victims=["gang-pod", "standalone", "workload-pod"],
    ),
    Case(
        name="between-groups-the-smaller-group-is-preempted-first",
        why="At equal priority the group with more pods is more important.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="8")],
            pods=[member(BIG, "b0", node="n1", cpu="1", start=9.0),
                  member(BIG, "b1", node="n1", cpu="1", start=9.0),
                  member(SMALL, "s0", node="n1", cpu="2", start=1.0),
                  pod("p", cpu="6", prio=100)],
            groups=[BIG, SMALL],
        ),
        preemptor="default/p",
        victims=["s0"],
    ),
    Case(
        name="gang-with-bound-pods-needs-fewer",
        why="Bound members count toward minCount: 1 bound of minCount 3 leaves 2 to place.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="4"), node("n2", cpu="4")],
            pods=[member(TRAIN_3, "w0", node="n1", cpu="4"), member(TRAIN_3, "w1", cpu="2"),
                  member(TRAIN_3, "w2", cpu="2"), pod("low", node="n2", cpu="4", prio=0)],
            groups=[TRAIN_3],
        ),
        preemptor="default/train", kind="workload",
        needed=2,
        status="RequiresPreemption",
        victims=["low"],
        placements={"w1": "n2", "w2": "n2"},
    ),
    Case(
        name="gang-remainder-is-placed-without-extra-victims",
        why="Pods beyond minCount go where room is left; none of them causes another "
            "preemption.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="8"), node("n2", cpu="8"), node("n3", cpu="8"),
                   node("n4", cpu="8")],
            pods=[pod("low1", node="n1", cpu="8", prio=10, start=100.0),
                  pod("half2", node="n2", cpu="4", prio=500),
                  pod("half3", node="n3", cpu="4", prio=500),
                  pod("low4", node="n4", cpu="8", prio=10, start=300.0)]
            + [member(TRAIN_3, f"w{k}", cpu="4") for k in range(5)],
            groups=[TRAIN_3],
        ),
        preemptor="default/train", kind="workload",
        victims=["low4"],
        placements={"w0": "n2", "w1": "n3", "w2": "n4", "w3": "n4"},
        unplaced=("default/w4",),
    ),
    Case(
        name="gang-of-several-shapes-uses-greedy-placement",
        why="A gang whose pods differ in size is placed greedily, largest need still "
            "satisfied.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="4"), node("n2", cpu="2")],
            pods=[pod("a", node="n1", cpu="4", prio=10), pod("b", node="n2", cpu="2", prio=10),
                  member(TRAIN_2, "big", cpu="4"), member(TRAIN_2, "small", cpu="2")],
            groups=[TRAIN_2],
        ),
        preemptor="default/train", kind="workload",
        victims=["a", "b"],
        placements={"big": "n1", "small": "n2"},
    ),
    *(Case(
        name=f"gang-of-several-shapes-when-the-level-search-steps-back-{model}",
        why=STEP_BACK_WHY,
        snapshot=STEP_BACK_SNAPSHOT,
        preemptor="default/train", kind="workload",
        model=model,
        victims=["v0", "v1", "v2"],
        placements={"big": "n1", "small": "n1"},
    ) for model in MODELS),
    Case(
        name="a-whole-group-frees-one-pod-slot-per-member-on-an-over-full-node",
        why="n1 allows 2 pods but runs 4 (its allocatable pods lowered after they started): "
            "g-0 and g-1 of a PodGroup-mode group g (prio 10, one unit) and s1, s2 (prio 20). "
            "p (prio 1000) needs a slot: at most 1 other pod may stay. Level 10 (g out) leaves "
            "2 pods: too many. Level 20 (all out), then reprieve most important first: s1 back "
            "(1 pod, fits), s2 back (2: no), g back (3: no). Victims g-0, g-1, s2.",
        snapshot=snapshot(
            nodes=[node("n1", pods=2)],
            pods=[member(G_WHOLE_10, "g-0", node="n1", cpu="100m", start=1),
                  member(G_WHOLE_10, "g-1", node="n1", cpu="100m", start=1),
                  pod("s1", node="n1", cpu="100m", prio=20, start=1),
                  pod("s2", node="n1", cpu="100m", prio=20, start=2),
                  pod("p", cpu="100m", prio=1000)],
            groups=[G_WHOLE_10],
        ),
        preemptor="default/p",
        sorted_victims=["g-0", "g-1", "s2"],
        placements={"p": "n1"},
    ),
    Case(
        name="a-whole-group-frees-exactly-its-pods-requests",
        why="KEP model. n1 (4 cpu) is full: g-0, g-1 of a PodGroup-mode group g (prio 5, 1 cpu "
            "each) and s (prio 10, 2 cpu). p (prio 1000) asks for 2001m. Level 5 (g out) frees "
            "2000m: 1m short (fitsRequest: requested + request <= allocatable); level 10 frees "
            "4000m. Putting s back leaves 2000m, putting g back too: no. Victims g-0, g-1 and "
            "s.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="4")],
            pods=[member(G_WHOLE_5, "g-0", node="n1", cpu="1", start=1),
                  member(G_WHOLE_5, "g-1", node="n1", cpu="1", start=1),
                  pod("s", node="n1", cpu="2", prio=10, start=1),
                  pod("p", cpu="2001m", prio=1000)],
            groups=[G_WHOLE_5],
        ),
        preemptor="default/p",
        sorted_victims=["g-0", "g-1", "s"],
        placements={"p": "n1"},
    ),
    Case(
        name="a-gang-that-fits-now-says-how-many-of-its-pods-fit-fresh",
        why=GANG_FITS_NOW_WHY,
        snapshot=snapshot(nodes=[node("n1", cpu="8")], groups=[TRAIN_2],
                          pods=[member(TRAIN_2, f"t{i}", cpu="1") for i in range(2)]),
        preemptor="default/train", kind="workload",
        status="Schedulable",
        reason_ends=": 2 of 2 pending pods fit without preemption (2 needed).",
    ),
    Case(
        name="a-gang-that-fits-now-says-how-many-of-its-pods-fit-grown",
        why=GANG_FITS_NOW_WHY,
        snapshot=snapshot(nodes=[node("n1", cpu="8")], groups=[TRAIN_2],
                          pods=[member(TRAIN_2, "t0", cpu="1", node="n1"),
                                member(TRAIN_2, "t1", cpu="1", node="n1"),
                                member(TRAIN_2, "t2", cpu="1")]),
        preemptor="default/train", kind="workload",
        status="Schedulable",
        reason_ends=" already has its minCount of pods running; 1 of 1 pending pods also fit "
                    "without preemption.",
    ),
    Case(
        name="a-node-without-the-extended-resource-takes-no-copy",
        why="KEP model, gang of 2 pods asking 1 GPU each. n1 has 1 GPU, held by v (prio 10); "
            "n2 has none (its allocatable lists no nvidia.com/gpu: fitsRequest compares with "
            "0). Even with v gone only one member fits: Unschedulable, v untouched.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="8", extra={"nvidia.com/gpu": 1}), node("n2", cpu="8")],
            pods=[pod("v", node="n1", cpu="1", prio=10, extra={"nvidia.com/gpu": 1}),
                  *(member(TRAIN_GPU, f"t{i}", cpu="1", extra={"nvidia.com/gpu": 1})
                    for i in range(2))],
            groups=[TRAIN_GPU],
        ),
        preemptor="default/train", kind="workload",
        status="Unschedulable",
        victims=[],
    ),
    Case(
        name="gang-never-preempts-its-own-group",
        why="Bound pods of the preemptor's own group are not victims, even with a lower "
            "preemption priority than the group's scheduling priority.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="4")],
            pods=[member(TRAIN_OWN, "w0", node="n1", cpu="4"), member(TRAIN_OWN, "w1", cpu="4"),
                  member(TRAIN_OWN, "w2", cpu="4")],
            groups=[TRAIN_OWN],
        ),
        preemptor="default/train", kind="workload",
        status="Unschedulable",
        victims=[],
    ),
    Case(
        name="gang-with-too-few-pending-pods-is-unschedulable",
        why="A gang that cannot reach minCount with its pending pods is unschedulable at once.",
        snapshot=snapshot(nodes=[node("n1", cpu="64")],
                          pods=[member(TRAIN_4, f"w{k}", cpu="1") for k in range(3)],
                          groups=[TRAIN_4]),
        preemptor="default/train", kind="workload",
        status="Unschedulable",
        reason="pod group default/train/main needs 4 more pod(s) to reach minCount 4 but only "
               "3 are pending.",
    ),
    Case(
        name="gang-unschedulable-even-with-every-victim-gone",
        why="If removing every lower-priority unit is not enough, nothing is preempted.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="4"), node("n2", cpu="4")],
            pods=[pod("low", node="n1", cpu="4", prio=10)]
            + [member(TRAIN_3, f"w{k}", cpu="4") for k in range(3)],
            groups=[TRAIN_3],
        ),
        preemptor="default/train", kind="workload",
        status="Unschedulable",
        victim_records=(),
        unplaced_count=3,
    ),
    Case(
        name="basic-group-named-as-workload-places-every-pending-pod",
        why="--workload on a basic group plans all its pending pods together.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="4"), node("n2", cpu="4")],
            pods=[pod("low", node="n2", cpu="4", prio=0), member(WEB, "w0", cpu="4"),
                  member(WEB, "w1", cpu="4")],
            groups=[WEB],
        ),
        preemptor="default/web/main", kind="workload",
        needed=2,
        placements={"w0": "n1", "w1": "n2"},
        victims=["low"],
    ),
    Case(
        name="upstream-domain-reprieves-every-candidate",
        why="(found by review; the plan raised ValueError.) Upstream model, terminating pods "
            "hold their room. n0 (4 cpu): t0, t1 terminating (1 cpu, prio 1); n1 (6 cpu): "
            "high (1 cpu, prio 1000), low (2 cpu, prio 100). Gang of 2, prio 500: m0 2 cpu, m1 "
            "3 cpu. Now: m0 scores higher on n1 (3 of 6 free against 2 of 4), then m1 fits "
            "nowhere. selectVictimsOnDomain removes low, t0, t1: m0 ties n0/n1 (both half "
            "used after it), n0 by name; m1 on n1. Putting back low (n1: 1+2+3 = 6), t0 and "
            "t1 (n0: 2+1+1 = 4) keeps that placement: no victim, the pods are nominated there.",
        snapshot=snapshot(
            nodes=[node("n0", cpu="4"), node("n1", cpu="6")],
            pods=[pod("t0", node="n0", cpu="1", prio=1, terminating=True),
                  pod("t1", node="n0", cpu="1", prio=1, terminating=True),
                  pod("high", node="n1", cpu="1", prio=1000),
                  pod("low", node="n1", cpu="2", prio=100),
                  member(TRAIN_500, "m0", cpu="2"), member(TRAIN_500, "m1", cpu="3")],
            groups=[TRAIN_500],
        ),
        preemptor="default/train", kind="workload", model="upstream",
        status="Schedulable",
        reason="pod group default/train/main: 2 of 2 pending pods (2 needed) fit on 2 nodes "
               "without victims. The scheduling cycle placed fewer; its preemption finds this "
               "placement, puts every candidate back and nominates the pods there, deleting "
               "nothing.",
        placements={"m0": "n0", "m1": "n1"},
        victim_records=(),
        terminating=(),
    ),
)


@pytest.mark.parametrize("case", GANGS, ids=ids)
def test_gangs_and_pod_groups(case: Case):
    check(case)


def test_a_reprieve_keeps_a_gang_of_several_shapes_within_the_nodes_pod_limit():
    """KEP model, so a gang whose pods differ in size is placed greedily. n1 (8 cpu, at most 3
    pods) runs v0 and v1 (prio 10, 1 cpu each; v0 started first). The gang train (prio 100,
    minCount 2) has big (2 cpu) and small (1 cpu): 4 cpu fit easily, but only 1 pod slot is
    free. Level 10 (both out): big and small on n1. Reprieve, most important first: v0 back
    gives 1 + 2 = 3 pods (fits); v1 back would give 4 > 3 pods while cpu (2 + 3 = 5 of 8) still
    fits, so v1 stays the victim and both gang pods go to n1."""
    snap = snapshot(
        nodes=[node("n1", cpu="8", pods=3)],
        pods=[pod("v0", node="n1", cpu="1", prio=10, start=1.0),
              pod("v1", node="n1", cpu="1", prio=10, start=2.0),
              member(TRAIN_2, "big", cpu="2"), member(TRAIN_2, "small", cpu="1")],
        groups=[TRAIN_2],
    )
    result = plan(snap, select_preemptor(snap, workload="default/train"), model=get_model(KEP))
    assert (result.status, victims(result), placements(result)) == (
        "RequiresPreemption", ["v1"], {"big": "n1", "small": "n1"})


def test_a_reprieved_group_is_checked_on_every_node_it_shares_with_a_gang_of_several_shapes():
    """A user relies on a victim group that spans a node the gang cannot use still being
    checked on the node it shares with the gang. KEP model, so the gang train (prio 100,
    minCount 2: big 2 cpu, small 1 cpu) is placed greedily. n1 (4 cpu) has a taint train does
    not tolerate; n2 (3 cpu) is the only node it can use. Group g (PodGroup mode, prio 10, one
    unit) runs g-0 on n1 and g-1 on n2 (1 cpu each). Level 10 (g out): big and small fill n2
    (2 + 1 = 3 of 3 cpu). Reprieve: g back puts g-1 on n2, 1 + 3 = 4 > 3 cpu, so g stays the
    victim -- both its pods, g-0 too, as the group goes whole -- and both gang pods go to n2."""
    g = gang("g", min_count=1, mode="PodGroup", prio=10)
    snap = snapshot(
        nodes=[node("n1", cpu="4", taints=[taint("gpu", "yes")]), node("n2", cpu="3")],
        pods=[member(g, "g-0", node="n1", cpu="1"), member(g, "g-1", node="n2", cpu="1"),
              member(TRAIN_2, "big", cpu="2"), member(TRAIN_2, "small", cpu="1")],
        groups=[g, TRAIN_2],
    )
    result = plan(snap, select_preemptor(snap, workload="default/train"), model=get_model(KEP))
    assert (result.status, victims(result), placements(result), result.unplaced) == (
        "RequiresPreemption", ["g-0", "g-1"], {"big": "n2", "small": "n2"}, ())


# ---- PDBs -----------------------------------------------------------------------------------

PDB_REPRIEVE_WHY = (
    "Without a PDB the later-started pod goes; a pod whose eviction would violate a PDB is "
    "tried for reprieve before the others.")
PDB_BUDGET_WHY = (
    "disruptionsAllowed is spent by victims from most to least important; pods listed in "
    "disruptedPods spend nothing; a pod taking the budget below zero is a violation.")
BATCH_WHOLE_1 = gang("batch", min_count=1, mode="PodGroup", prio=10)

PDBS = rows(
    *(Case(
        name=f"pdb-protected-pod-is-reprieved-first-{label}",
        why=PDB_REPRIEVE_WHY,
        snapshot=_pdb_snapshot(pdbs),
        preemptor="default/p",
        victims=expected,
    ) for label, pdbs, expected in [
        ("no-pdb", [], ["protected"]),
        ("violating-reprieved-first", [pdb("db", match={"app": "db"}, allowed=0)], ["other"]),
        ("budget-left-no-violation", [pdb("db", match={"app": "db"}, allowed=1)],
         ["protected"]),
        ("pdb-in-other-namespace", [pdb("db", ns="other-ns", match={"app": "db"}, allowed=0)],
         ["protected"]),
        ("empty-selector-matches-nothing", [pdb("all", allowed=0)], ["protected"]),
    ]),
    *(Case(
        name=f"pdb-budget-is-spent-in-importance-order-{label}",
        why=PDB_BUDGET_WHY,
        snapshot=_budget_snapshot(allowed, disrupted),
        preemptor="default/p",
        pdb_flags=expected,
        pdb_violations=sum(expected),
    ) for label, allowed, disrupted, expected in [
        ("no-budget", 0, (), [True, True]),
        ("budget-spent-by-the-more-important", 1, (), [False, True]),
        ("enough-budget", 2, (), [False, False]),
        ("disrupted-pod-skipped", 1, ("first",), [False, False]),
    ]),
    Case(
        name="podgroup-unit-violates-if-any-pod-does",
        why="A whole-group unit with one PDB-protected pod is reprieved first, as a unit.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="4")],
            pods=[member(BATCH_WHOLE_1, "g0", node="n1", cpu="1", labels={"app": "db"}),
                  member(BATCH_WHOLE_1, "g1", node="n1", cpu="1"),
                  pod("solo", node="n1", cpu="2", prio=10, labels={"app": "web"}),
                  pod("p", cpu="2", prio=100)],
            groups=[BATCH_WHOLE_1],
            pdbs=[pdb("db", match={"app": "db"}, allowed=0)],
        ),
        preemptor="default/p",
        victims=["solo"],
    ),
    Case(
        name="plan-summary-properties",
        why="Plan exposes the SPEC §4 summary figures.",
        snapshot=_budget_snapshot(0),
        preemptor="default/p",
        victim_pods=2,
        victim_units=2,
        max_victim_priority=10,
        pdb_violations=2,
        nodes_touched=1,
    ),
)


@pytest.mark.parametrize("case", PDBS, ids=ids)
def test_pdbs(case: Case):
    check(case)


# ---- terminating pods and nominations -------------------------------------------------------

WAITING_WHY = (
    "The same cluster with leaving marked DisruptionTarget / PreemptionByScheduler: now its "
    "termination is the preemption already triggered. With two terminating pods, one of them "
    "only deleted, the reason says they are terminating, not that a preemption suffices.")
NOMINATED_RESERVE_WHY = (
    "A pending pod nominated to a node holds room there against preemptors of lower or equal "
    "priority, not against higher ones.")

TERMINATING = rows(
    Case(
        name="terminating-pods-mean-waiting-for-termination",
        # leaving was deleted, not preempted (no DisruptionTarget condition): the reason must
        # not claim a preemption was triggered (issue 26)
        why="Room that terminating pods will free is used; no cheap new victim is taken "
            "instead.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="4"), node("n2", cpu="4")],
            pods=[pod("leaving", node="n2", cpu="4", prio=10, terminating=True),
                  pod("cheap", node="n1", cpu="4", prio=0), pod("p", cpu="4", prio=100)],
        ),
        preemptor="default/p",
        status="WaitingForTermination",
        placements={"p": "n2"},
        victim_records=(),
        terminating=(TerminatingPod("default/leaving", "n2"),),
        reason="pod default/p fits on node n2 once 1 terminating pod finishes; it is already "
               "terminating, no new victims.",
    ),
    Case(
        name="waiting-says-preemption-was-triggered-only-for-pods-preempted-by-the-scheduler"
             "-one-preempted",
        why=WAITING_WHY,
        snapshot=snapshot(
            nodes=[node("n1", cpu="4"), node("n2", cpu="4")],
            pods=[replace(pod("leaving", node="n2", cpu="4", prio=10, terminating=True),
                          preempted_by_scheduler=True),
                  pod("cheap", node="n1", cpu="4", prio=0), pod("p", cpu="4", prio=100)],
        ),
        preemptor="default/p",
        reason="pod default/p fits on node n2 once 1 terminating pod finishes; the preemption "
               "already triggered suffices, no new victims.",
    ),
    Case(
        name="waiting-says-preemption-was-triggered-only-for-pods-preempted-by-the-scheduler"
             "-one-only-deleted",
        why=WAITING_WHY,
        snapshot=snapshot(
            nodes=[node("n1", cpu="4"), node("n2", cpu="4")],
            pods=[replace(pod("a", node="n2", cpu="2", prio=10, terminating=True),
                          preempted_by_scheduler=True),
                  pod("b", node="n2", cpu="2", prio=10, terminating=True),
                  pod("cheap", node="n1", cpu="4", prio=0), pod("p", cpu="4", prio=100)],
        ),
        preemptor="default/p",
        reason="pod default/p fits on node n2 once 2 terminating pods finish; they are already "
               "terminating, no new victims.",
    ),
    Case(
        name="terminating-pods-are-free-space-never-victims",
        why="When terminating pods are not enough, the new victims come on top of them.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="4")],
            pods=[pod("leaving", node="n1", cpu="2", prio=10, terminating=True),
                  pod("low", node="n1", cpu="2", prio=20), pod("p", cpu="4", prio=100)],
        ),
        preemptor="default/p",
        victims=["low"],
        terminating=(TerminatingPod("default/leaving", "n1"),),
    ),
    Case(
        name="nominated-node-is-kept-while-waiting",
        why="A preemptor nominated to a node keeps it when the placement still works there, "
            "even if another node (first by name) would work too.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="4"), node("n2", cpu="4")],
            pods=[pod("t1", node="n1", cpu="4", prio=10, terminating=True),
                  pod("t2", node="n2", cpu="4", prio=10, terminating=True),
                  pod("p", cpu="4", prio=100, nominated="n2")],
        ),
        preemptor="default/p",
        status="WaitingForTermination",
        placements={"p": "n2"},
        terminating=(TerminatingPod("default/t2", "n2"),),
    ),
    Case(
        name="gang-keeps-its-nominated-nodes",
        why="Each gang pod goes back to its own nominated node when it still fits there.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="4"), node("n2", cpu="4"), node("n3", cpu="4")],
            pods=[pod("t2", node="n2", cpu="4", prio=10, terminating=True),
                  pod("t3", node="n3", cpu="4", prio=10, terminating=True),
                  pod("busy", node="n1", cpu="4", prio=0),
                  member(TRAIN_2, "w0", cpu="4", nominated="n3"),
                  member(TRAIN_2, "w1", cpu="4", nominated="n2")],
            groups=[TRAIN_2],
        ),
        preemptor="default/train", kind="workload",
        status="WaitingForTermination",
        placements={"w0": "n3", "w1": "n2"},
        victim_records=(),
    ),
    Case(
        name="stale-nomination-falls-back-to-other-nodes",
        why="A nominated node that no longer fits is not forced: the pod goes elsewhere.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="4"), node("n2", cpu="4")],
            pods=[pod("big", node="n2", cpu="4", prio=500),
                  pod("p", cpu="4", prio=100, nominated="n2")],
        ),
        preemptor="default/p",
        status="Schedulable",
        placements={"p": "n1"},
    ),
    *(Case(
        name=f"nominated-pods-of-other-preemptors-reserve-room-{label}",
        why=NOMINATED_RESERVE_WHY,
        snapshot=snapshot(
            nodes=[node("n1", cpu="4"), node("n2", cpu="4")],
            pods=[pod("other", cpu="4", prio=other_priority, nominated="n1", created=0.0),
                  pod("low", node="n2", cpu="4", prio=10), pod("p", cpu="4", prio=100)],
        ),
        preemptor="default/p",
        status=status,
        placements={"p": where},
    ) for label, other_priority, status, where in [
        ("higher-reserves", 200, "RequiresPreemption", "n2"),
        ("equal-reserves", 100, "RequiresPreemption", "n2"),
        ("lower-does-not-reserve", 50, "Schedulable", "n1"),
    ]),
)


@pytest.mark.parametrize("case", TERMINATING, ids=ids)
def test_terminating_pods_and_nominations(case: Case):
    check(case)


# ---- priorities and policies ----------------------------------------------------------------

PROTECTED_WHY = (
    "A workload scheduled at 100 but protected at 1000 (the KEP rule preemption >= scheduling) "
    "is not preempted by a preemptor between the two values.")
CHECKPOINTING = gang("checkpointing", min_count=1, prio=100, preempt_prio=1000)
CHEAP = gang("a", min_count=1, prio=1000, preempt_prio=10)

PRIORITIES = rows(
    Case(
        name="never-policy-is-unschedulable-without-victims",
        why="preemptionPolicy Never: the preemptor waits and preempts nothing.",
        snapshot=snapshot(nodes=[node("n1", cpu="4")],
                          pods=[pod("low", node="n1", cpu="4", prio=0),
                                pod("p", cpu="2", prio=100, policy=NEVER)]),
        preemptor="default/p",
        status="Unschedulable",
        victim_records=(),
        reason="pod default/p does not fit and its preemptionPolicy is Never: it waits for free "
               "space and preempts nothing.",
    ),
    *(Case(
        name=f"preemption-priority-protects-above-scheduling-priority-{label}",
        why=PROTECTED_WHY,
        snapshot=snapshot(
            nodes=[node("n1", cpu="4")],
            pods=[member(CHECKPOINTING, "w0", node="n1", cpu="4"),
                  pod("p", cpu="4", prio=preemptor_priority)],
            groups=[CHECKPOINTING],
        ),
        preemptor="default/p",
        status=status,
        victims=expected,
    ) for label, preemptor_priority, status, expected in [
        ("between-the-two-values", 500, "Unschedulable", []),
        ("equal-to-preemption-priority", 1000, "Unschedulable", []),
        ("above-both", 2000, "RequiresPreemption", ["w0"]),
    ]),
    Case(
        name="low-preemption-priority-makes-a-workload-an-easy-victim",
        why="The KEP's cycle half: high scheduling, low preemption priority is preempted by a "
            "medium preemptor.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="4")],
            pods=[member(CHEAP, "a0", node="n1", cpu="4"), pod("b", cpu="4", prio=500)],
            groups=[CHEAP],
        ),
        preemptor="default/b",
        victims=["a0"],
    ),
    Case(
        name="equal-priority-is-never-a-victim",
        why="Only strictly lower priorities are victims.",
        snapshot=snapshot(nodes=[node("n1", cpu="4")],
                          pods=[pod("peer", node="n1", cpu="4", prio=100),
                                pod("p", cpu="4", prio=100)]),
        preemptor="default/p",
        status="Unschedulable",
        victim_records=(),
    ),
)


@pytest.mark.parametrize("case", PRIORITIES, ids=ids)
def test_priorities_and_policies(case: Case):
    check(case)


# ---- statuses, filters and resources --------------------------------------------------------

EXTENDED_WHY = "A GPU request or a full pod-slot budget needs victims just like CPU."
EXTENDED_SNAPSHOT = snapshot(
    nodes=[node("gpu", cpu="64", pods=1, extra={"nvidia.com/gpu": 2}),
           node("slots", cpu="64", pods=1)],
    pods=[pod("g", node="gpu", cpu="1", prio=50, extra={"nvidia.com/gpu": 2}),
          pod("s", node="slots", cpu="1", prio=10),
          pod("p", cpu="1", prio=100, extra={"nvidia.com/gpu": 1}),
          pod("q", cpu="1", prio=100)],
)
SINGLE_GPU_WHY = (
    "n1 has 1 GPU (nvidia.com/gpu: 1), used by trainer (prio 10). infer (prio 1000) asks for "
    "that one GPU: it does not fit now (1 + 1 > 1, NodeResourcesFit fitsRequest); removing "
    "trainer frees it. An extended resource is counted in whole units, so a request of 1 is the "
    "smallest there is and must be accounted like any other.")
SINGLE_GPU_SNAPSHOT = snapshot(
    nodes=[node("n1", cpu="8", extra={"nvidia.com/gpu": 1})],
    pods=[pod("trainer", node="n1", cpu="1", prio=10, extra={"nvidia.com/gpu": 1}),
          pod("infer", cpu="1", prio=1000, extra={"nvidia.com/gpu": 1})],
)

STATUSES = rows(
    Case(
        name="fits-now-is-schedulable-without-victims",
        why="A pod with room is Schedulable; nothing is preempted.",
        snapshot=snapshot(nodes=[node("n1", cpu="4")],
                          pods=[pod("low", node="n1", cpu="2", prio=0),
                                pod("p", cpu="2", prio=100)]),
        preemptor="default/p",
        status="Schedulable",
        reason="pod default/p fits on node n1 without preemption.",
        placements={"p": "n1"},
        victim_records=(),
    ),
    Case(
        name="unschedulable-reason-summarises-the-filters",
        why="When no node can take the pod, the reason counts the filters that rejected nodes.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="4", taints=[taint("gpu", "yes")]),
                   node("n2", cpu="4", unschedulable=True), node("n3", cpu="1")],
            pods=[pod("low", node="n3", cpu="1", prio=0), pod("p", cpu="4", prio=100)],
        ),
        preemptor="default/p",
        status="Unschedulable",
        reason="pod default/p does not fit on any node even after preempting every "
               "lower-priority unit (0/3 nodes are available: 1 node(s) had untolerated taint "
               "{gpu: yes}, 1 node(s) were unschedulable, 1 node(s) without enough room).",
    ),
    Case(
        name="unschedulable-reasons-are-in-byte-order-as-upstream-sorts-them",
        why="Upstream FitError.Error (pkg/scheduler/framework/types.go) joins the \"N reason\" "
            "strings after sort.Strings: byte order of the whole string, count first -- so "
            "\"10 ...\" comes before \"2 ...\", and neither the largest count nor the reason's "
            "name leads. Worked by hand: 2 cordoned nodes, 10 nodes too small even when emptied "
            "(1 cpu each for a 4-cpu pod), 1 node with an untolerated taint.",
        snapshot=snapshot(
            nodes=([node(f"c{i}", cpu="4", unschedulable=True) for i in range(2)]
                   + [node(f"s{i:02}", cpu="1") for i in range(10)]
                   + [node("t", cpu="4", taints=[taint("gpu", "yes")])]),
            pods=[pod("p", cpu="4", prio=100)],
        ),
        preemptor="default/p",
        status="Unschedulable",
        reason_ends="(0/13 nodes are available: 1 node(s) had untolerated taint {gpu: yes}, "
                    "10 node(s) without enough room, 2 node(s) were unschedulable).",
    ),
    Case(
        name="tolerations-open-tainted-nodes",
        why="A pod tolerating a taint may use (and preempt on) that node.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="4", taints=[taint("gpu", "yes")])],
            pods=[pod("low", node="n1", cpu="4", prio=0),
                  pod("p", cpu="4", prio=100, tolerations=[toleration("gpu", "Exists")])],
        ),
        preemptor="default/p",
        victims=["low"],
    ),
    Case(
        name="extended-resources-and-pod-slots-count-gpu",
        why=EXTENDED_WHY,
        snapshot=EXTENDED_SNAPSHOT,
        preemptor="default/p",
        victims=["g"],
    ),
    Case(
        name="extended-resources-and-pod-slots-count-pod-slots",
        why=EXTENDED_WHY,
        snapshot=EXTENDED_SNAPSHOT,
        preemptor="default/q",
        victims=["s"],
    ),
    *(Case(
        name=f"a-single-gpu-taken-by-another-pod-must-be-preempted-{model}",
        why=SINGLE_GPU_WHY,
        snapshot=SINGLE_GPU_SNAPSHOT,
        preemptor="default/infer",
        model=model,
        status="RequiresPreemption",
        victims=["trainer"],
        placements={"infer": "n1"},
    ) for model in MODELS),
    *(Case(
        name=f"{model}-a-pod-that-fits-nowhere-does-not-stop-the-placement",
        why="n1 (4 cpu) is empty. A gang of one (minCount 1) has two pending pods: m0 needs a "
            "pod labelled app=db on its node (required pod affinity), and there is none; m1 "
            "has no constraint. Placing m0 fails on every node; m1 is still placed: 1 of 2 "
            "fit, 1 needed, without preemption (the scored placement of 1.36 and upstream, "
            "the greedy one of the KEP model).",
        snapshot=snapshot(
            nodes=[node("n1", cpu="4", labels={HOSTNAME: "n1"})],
            pods=[constrained(member(TRAIN_ONE, "m0", cpu="1"),
                              affinity=[aff(HOSTNAME, sel({"app": "db"}))]),
                  member(TRAIN_ONE, "m1", cpu="1")],
            groups=[TRAIN_ONE],
        ),
        preemptor="default/train", kind="workload", model=model,
        status="Schedulable",
        reason="pod group default/train/main: 1 of 2 pending pods fit without preemption "
               "(1 needed).",
        placements={"m1": "n1"},
        victim_records=(),
    ) for model in MODELS),
    *(Case(
        name=f"{model}-a-whole-group-without-start-times-ranks-as-started-last",
        why="n1 (8 cpu) is full: PodGroup-mode groups a and b (prio 10, 2 pods of 2 cpu "
            "each); b's pods started at 100, a's have no status.startTime. p (2 cpu, prio "
            "100) needs one group's room. Both units are alike but for the start: a unit with "
            "no start counts as started last (upstream: GetPodStartTime falls back to now), "
            "so b is more important, goes back first, and a is the victim.",
        snapshot=snapshot(
            nodes=[node("n1", cpu="8")],
            pods=[member(WHOLE_A, "a-0", cpu="2", node="n1"),
                  member(WHOLE_A, "a-1", cpu="2", node="n1"),
                  member(WHOLE_B, "b-0", cpu="2", node="n1", start=100.0),
                  member(WHOLE_B, "b-1", cpu="2", node="n1", start=100.0),
                  pod("p", cpu="2", prio=100)],
            groups=[WHOLE_A, WHOLE_B],
        ),
        preemptor="default/p", model=model,
        status="RequiresPreemption",
        victims=["a-0", "a-1"],
    ) for model in ("upstream", "kep-5710")),
)


@pytest.mark.parametrize("case", STATUSES, ids=ids)
def test_statuses_filters_and_resources(case: Case):
    check(case)


def test_row_names_are_unique():
    """Every row is reported (and selectable with -k) by its own name."""
    names = [c.name for c in (*SINGLE_POD, *GANGS, *PDBS, *TERMINATING, *PRIORITIES, *STATUSES)]
    assert len(names) == len(set(names))


# ---- whole plans compared with each other, and the snapshot ---------------------------------


def test_plan_is_deterministic():
    """The same input gives an equal plan."""
    snap = _tie_break_snapshot("4")
    first = plan(snap, select_preemptor(snap, workload="default/train"), model=get_model(KEP))
    again = plan(snap, select_preemptor(snap, workload="default/train"), model=get_model(KEP))
    assert first == again


def test_plan_does_not_modify_the_snapshot():
    """plan() is pure: the snapshot's objects are unchanged afterwards."""
    snap = _budget_snapshot(1)
    before = repr(snap)
    plan(snap, select_preemptor(snap, pod="default/p"), model=get_model(KEP))
    assert before == repr(snap)


# ---- the level search -----------------------------------------------------------------------


@pytest.mark.parametrize("count", range(1, 12))
def test_lowest_level_finds_the_first_feasible_level_of_a_monotone_check(count):
    """For every threshold (and for none) the probe-then-bisect search returns what a linear
    scan would, never probing above 2 x answer - 1."""
    for threshold in range(count + 1):
        probed: list[int] = []

        def feasible(k: int, threshold=threshold, probed=probed) -> bool:
            probed.append(k)
            return k >= threshold

        expected = threshold if threshold < count else None
        found = lowest_level(count, feasible)
        assert (expected, True) == (found, max(probed) <= min(count - 1, max(2 * threshold - 1, 0)))


# ---- what a plan says when it cannot be made --------------------------------------------------


@pytest.mark.parametrize("model", MODELS)
def test_a_cluster_without_nodes_says_so(model):
    """No node at all: the reason's node summary says the cluster has none (not "0/0 nodes
    are available: " with an empty list of reasons)."""
    snap = snapshot(pods=[pod("p", prio=10)])
    result = plan(snap, select_preemptor(snap, pod="default/p"), model=get_model(model))
    assert result.reason == ("pod default/p does not fit and no running pod has a preemption "
                             "priority below 10 (the cluster has no nodes).")


def test_an_accounting_of_another_cluster_is_refused():
    """plan(state=...) with an Accounting built for other nodes would plan against the wrong
    cluster: it is refused, naming why."""
    from wapctl.fit import Accounting

    snap = snapshot(nodes=[node("n1")], pods=[pod("p", prio=10)])
    other = snapshot(nodes=[node("n2")])
    with pytest.raises(ValueError) as info:
        plan(snap, select_preemptor(snap, pod="default/p"), model=get_model(KEP),
             state=Accounting(other))
    assert str(info.value) == "the Accounting was built for a snapshot with other nodes"


def test_node_criteria_counts_each_pdb_violating_victim_once():
    """``explain``'s node choice shows the "fewest PDB violations" criterion as the number of a
    node's victim pods that take a PodDisruptionBudget below zero (upstream
    ``pickOneNodeForPreemption`` counts each such victim once): a node with victims a, b, c of
    which a and c violate shows 2, and a node with no violating victim shows 0."""
    a, b, c = (pod(name, node="n1", prio=10) for name in ("a", "b", "c"))
    rows = dict(node_criteria("n1", [(a, 10), (b, 10), (c, 10)], {a.key, c.key}))
    assert rows["fewest PDB violations"] == 2
    assert rows["fewest victims"] == 3
    assert dict(node_criteria("n1", [(b, 10)]))["fewest PDB violations"] == 0


# ---- gangs under pod-dependent filters that a removal can break ------------------------------

# A one-shape gang under pod-dependent filters may be searched by resources only first
# (evaluator.plan_group_counted); these rows are what the filter-aware search (SPEC §3 steps
# 5-6; upstream reschedules the gang with every filter) answers where that shortcut once gave
# another answer: required pod affinity makes removing pods hurt, and a tie the resources
# allow the filters may rule out.


@pytest.mark.parametrize("model", ["kep-5710", "1.36", "upstream"])
def test_a_gang_with_affinity_to_a_lower_priority_pod_does_not_preempt_around_it(model):
    """A user relies on a plan that preempts only where the scheduler would (Kubernetes' "Pod
    Priority and Preemption" limitation: a pending pod with inter-pod affinity to lower-priority
    pods cannot have them preempted, so the scheduler preempts nothing for it there).

    n1 (2 cpu) runs db (app=db) and filler, 1 cpu each, both priority 10: one level. Gang train
    (minCount 1, priority 100) has m0 (1 cpu) with required pod affinity to app=db on its host.
    Every unit of priority <= 10 removed (the only level; 1.36 and upstream remove every
    lower-priority unit) takes db away, so no node passes m0's affinity: Unschedulable, no
    victims. Preempting filler alone would place m0 by resources, but no search reaches it."""
    snap = snapshot(
        nodes=[node("n1", cpu="2", labels={HOSTNAME: "n1"})],
        pods=[pod("db", cpu="1", prio=10, node="n1", labels={"app": "db"}),
              pod("filler", cpu="1", prio=10, node="n1"),
              constrained(member(TRAIN_ONE, "m0", cpu="1"),
                          affinity=[aff(HOSTNAME, sel({"app": "db"}))])],
        groups=[TRAIN_ONE])
    result = plan(snap, select_preemptor(snap, workload="default/train"), model=get_model(model))
    assert (result.status, result.reason, result.victims, result.placements) == (
        "Unschedulable",
        "pod group default/train/main needs 1 pod(s) placed but at most 0 fit even after "
        "preempting every lower-priority unit (0/1 nodes are available: 1 node(s) didn't match "
        "pod affinity rules).", (), ())


def test_a_victim_every_reprieve_order_keeps_is_no_tie_under_anti_affinity():
    """A user reads ``ties`` as "the scheduler may pick other victims here" (samples replays
    them): a tie no order of the reprieve can reach is a false alarm.

    1.36. n1 (2 cpu) runs b and z (app=x), 1 cpu each, priority 10, alike but for the name.
    Gang train (minCount 1, priority 100) has m0 (1 cpu) with required anti-affinity to app=x
    on its host. Both removed, the reprieve puts back one then the other, rescheduling m0 each
    time: z back puts an app=x pod on m0's only node (rejected, z stays a victim), b back
    leaves 1 cpu for m0 (kept). Whichever goes first, z is the victim: m0 on n1, no tie."""
    snap = snapshot(
        nodes=[node("n1", cpu="2", labels={HOSTNAME: "n1"})],
        pods=[pod("b", cpu="1", prio=10, node="n1"),
              pod("z", cpu="1", prio=10, node="n1", labels={"app": "x"}),
              constrained(member(TRAIN_ONE, "m0", cpu="1"),
                          anti=[aff(HOSTNAME, sel({"app": "x"}))])],
        groups=[TRAIN_ONE])
    result = plan(snap, select_preemptor(snap, workload="default/train"), model=get_model("1.36"))
    assert (result.status, victims(result), placements(result), result.ties) == (
        "RequiresPreemption", ["z"], {"m0": "n1"}, ())


def test_upstream_gang_reprieve_asks_the_fixed_pods_filters_for_each_unit_put_back():
    """A user relies on the upstream model's pod-group plan deleting exactly the pods
    Kubernetes' selectVictimsOnDomain deletes: a unit put back stays only if every gang pod
    still passes the filters (here InterPodAffinity) where the scheduling run put it.

    n1 (3 cpu) runs filler (2 cpu) and y (1 cpu, app=x); n2 (2 cpu) runs z (1 cpu, app=x) and
    high (1 cpu, priority 1000); filler, y and z have priority 10. Gang train (minCount 1,
    priority 100) has m0 (2 cpu) with required anti-affinity to app=x on its host. Every
    lower-priority unit removed, m0 fits only on n1 (3 cpu free; n2 has 1). Reprieve, each
    unit alone against that placement: filler back needs 2 + 2 > 3 cpu (victim); y back fits
    by cpu (3 of 3) but puts an app=x pod on m0's host (victim); z back on n2 leaves m0's
    host without app=x and n2 has no gang pod: it stays. Victims filler and y, m0 on n1."""
    snap = snapshot(
        nodes=[node("n1", cpu="3", labels={HOSTNAME: "n1"}),
               node("n2", cpu="2", labels={HOSTNAME: "n2"})],
        pods=[pod("filler", cpu="2", prio=10, node="n1"),
              pod("y", cpu="1", prio=10, node="n1", labels={"app": "x"}),
              pod("z", cpu="1", prio=10, node="n2", labels={"app": "x"}),
              pod("high", cpu="1", prio=1000, node="n2"),
              constrained(member(TRAIN_ONE, "m0", cpu="2"),
                          anti=[aff(HOSTNAME, sel({"app": "x"}))])],
        groups=[TRAIN_ONE])
    result = plan(snap, select_preemptor(snap, workload="default/train"),
                  model=get_model("upstream"))
    assert (result.status, sorted(victims(result)), placements(result)) == (
        "RequiresPreemption", ["filler", "y"], {"m0": "n1"})
