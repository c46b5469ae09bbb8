"""Behaviours that surviving mutants of the core showed no test pinned (issue 17).

Each test states the hand-worked answer and where the rule comes from. They go through the
public entry points only (``wapctl plan -o json``, ``check-cycles -o json``,
``wapctl.graph.build_graph``), so they survive rewrites of the engine's internals.

Upstream: kubernetes/kubernetes pkg/scheduler/framework/preemption/preemption.go
(``pickOneNodeForPreemption``, ``filterPodsWithPDBViolation``) and
pkg/scheduler/framework/plugins/noderesources/fit.go (``fitsRequest``: a request fits when
``requested + request <= allocatable``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from wapctl import graph, ingest
from wapctl.cli import app
from wapctl.errors import InputError

CLASSES = [
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": n},
     "value": v} for n, v in (("low", 100), ("mid", 200), ("medium", 500), ("high", 1000))
]


def node(name: str, cpu: str = "4") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": {"cpu": cpu, "memory": "16Gi", "pods": "110"}}}


def pod(name: str, cpu: str, cls: str, *, node_name: str | None = None,
        start: str = "2026-01-01T09:00:00Z", labels: dict[str, str] | None = None,
        ns: str = "default", **spec: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": ns}
    if labels is not None:
        meta["labels"] = labels
    body: dict[str, Any] = {"priorityClassName": cls, "containers": [
        {"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}], **spec}
    if node_name is None:
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": body,
                "status": {"phase": "Pending"}}
    body["nodeName"] = node_name
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": body,
            "status": {"phase": "Running", "startTime": start}}


def pdb(name: str, allowed: int, selector: dict[str, Any], ns: str = "default") -> dict[str, Any]:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"minAvailable": 1, "selector": selector},
            "status": {"disruptionsAllowed": allowed}}


def plan(tmp_path: Path, objects: list[dict[str, Any]], preemptor: str,
         model: str | None = None) -> dict[str, Any]:
    snap = tmp_path / "snap.yaml"
    snap.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List",
                                    "items": CLASSES + objects}), encoding="utf-8")
    extra = ["--model", model] if model else []
    result = CliRunner().invoke(app, ["plan", str(snap), "--pod", preemptor, "-o", "json",
                                      *extra])
    assert result.exit_code in (0, 3), result.output
    return json.loads(result.stdout)


def victims(doc: dict[str, Any]) -> list[tuple[str, str, bool]]:
    return [(v["pod"], v["node"], v["pdbViolation"]) for v in doc["victims"]]


# ---- the single-pod node search -----------------------------------------------------------------


@pytest.mark.parametrize("model", [None, "kep-5710"])
@pytest.mark.parametrize("later", ["a", "b"])
def test_node_choice_by_latest_start_with_lower_units_reprieved(tmp_path, later, model):
    """Two nodes alike but for the start time of their one victim; each also holds a smaller,
    lower-priority pod that the reprieve gives back.

    Each node (4 cpu): low-N (priority 100, 1 cpu) and mid-N (priority 200, 3 cpu). urgent
    (priority 1000) needs 3 cpu. Removing the 100s frees 1 cpu (not enough); removing up to
    200 frees 4; reprieve (most important first) cannot give mid back (1 free), gives low back
    (3 free). So each node's victims are exactly {mid-N}: same PDB violations (0), highest
    victim priority (200), priority sum and count (1); upstream pickOneNodeForPreemption then
    takes the node whose highest-priority victims started latest. The nodes sort by their
    lowest unit (100) and name, so node a is scored first: node b must still be scored after
    its level search even though a is a one-victim best (the level search's units of level
    200 start after the reprieved 100s). Only the KEP model's level search prunes nodes;
    the default model (upstream, no level search) scores every node, so both are asked."""
    starts = {"a": "2026-01-01T09:00:00Z", "b": "2026-01-01T09:00:00Z"}
    starts[later] = "2026-01-01T10:00:00Z"
    objects = [node("a"), node("b")]
    for n in ("a", "b"):
        objects += [pod(f"low-{n}", "1", "low", node_name=n, start="2026-01-01T08:00:00Z"),
                    pod(f"mid-{n}", "3", "mid", node_name=n, start=starts[n])]
    objects.append(pod("urgent", "3", "high"))
    doc = plan(tmp_path, objects, "default/urgent", model)
    assert "RequiresPreemption" == doc["status"]
    assert [("default/urgent", later)] == [(p["pod"], p["node"]) for p in doc["placements"]]
    assert [(f"default/mid-{later}", later, False)] == victims(doc)


# ---- PDBs --------------------------------------------------------------------------------------


@pytest.mark.parametrize("order", [("a-loose", "b-strict"), ("a-strict", "b-loose")],
                         ids=["loose-first", "strict-first"])
def test_a_pod_matched_by_two_pdbs_violates_if_either_has_no_disruption_left(tmp_path, order):
    """filterPodsWithPDBViolation decrements every matching PDB and marks the pod violating
    when any of them goes below zero — whichever order the PDBs come in. The pod matches
    `loose` (1 allowed) and `strict` (0 allowed): preempting it violates `strict`."""
    loose = next(n for n in order if n.endswith("loose"))
    strict = next(n for n in order if n.endswith("strict"))
    objects = [node("n1"),
               pod("web", "4", "low", node_name="n1", labels={"app": "web", "tier": "front"}),
               pdb(loose, 1, {"matchLabels": {"app": "web"}}),
               pdb(strict, 0, {"matchLabels": {"tier": "front"}}),
               pod("urgent", "4", "high")]
    doc = plan(tmp_path, objects, "default/urgent")
    assert [("default/web", "n1", True)] == victims(doc)
    assert 1 == doc["summary"]["pdbViolations"]


def test_a_pod_matched_by_two_pdbs_with_room_in_both_violates_none(tmp_path):
    """Both PDBs allow one disruption: the pod uses one of each, no violation."""
    objects = [node("n1"),
               pod("web", "4", "low", node_name="n1", labels={"app": "web", "tier": "front"}),
               pdb("a", 1, {"matchLabels": {"app": "web"}}),
               pdb("b", 1, {"matchLabels": {"tier": "front"}}),
               pod("urgent", "4", "high")]
    assert [("default/web", "n1", False)] == victims(plan(tmp_path, objects, "default/urgent"))


@pytest.mark.parametrize("model", ["1.36", "upstream", "kep-5710"])
def test_a_pdb_that_already_counts_the_pod_is_skipped_not_the_others(tmp_path, model):
    """web matches a-seen (0 allowed, web already in its status.disruptedPods: the API server
    counted that eviction) and b-strict (0 allowed). filterPodsWithPDBViolation skips a PDB
    listing the pod in DisruptedPods and goes on to the next one: b-strict goes below zero,
    so preempting web violates a budget."""
    seen = pdb("a-seen", 0, {"matchLabels": {"app": "web"}})
    seen["status"]["disruptedPods"] = {"web": "2026-01-01T09:00:00Z"}
    objects = [node("n1"), pod("web", "4", "low", node_name="n1", labels={"app": "web"}),
               seen, pdb("b-strict", 0, {"matchLabels": {"app": "web"}}),
               pod("urgent", "4", "high")]
    assert [("default/web", "n1", True)] == victims(plan(tmp_path, objects, "default/urgent",
                                                         model))


@pytest.mark.parametrize("selector", ["nil", "empty"])
@pytest.mark.parametrize("model", ["1.36", "upstream", "kep-5710"])
def test_a_pdb_without_selector_selects_nothing_and_hides_no_other(tmp_path, model, selector):
    """a-first has no spec.selector (nil: LabelSelectorAsSelector gives labels.Nothing(), in
    every version) or an empty one (1.36 skips selector.Empty(); newest upstream selects the
    namespace) and 0 allowed. b-strict (0 allowed) selects web: preempting web violates
    b-strict in every case — a-first must not hide the PDBs after it."""
    first = pdb("a-first", 0, {})
    if selector == "nil":
        del first["spec"]["selector"]
    objects = [node("n1"), pod("web", "4", "low", node_name="n1", labels={"app": "web"}),
               first, pdb("b-strict", 0, {"matchLabels": {"app": "web"}}),
               pod("urgent", "4", "high")]
    doc = plan(tmp_path, objects, "default/urgent", model)
    assert [("default/web", "n1", True)] == victims(doc)
    assert 1 == doc["summary"]["pdbViolations"]


@pytest.mark.parametrize(("model", "low_front_violates"),
                         [("1.36", True), ("upstream", False), ("kep-5710", False)])
def test_a_violating_pod_and_its_other_pdbs(tmp_path, model, low_front_violates):
    """mid-web (priority 200, app=web, tier=front) matches a-strict (0 allowed) and b-shared
    (1 allowed); low-front (priority 100, tier=front) matches b-shared only. Both must go
    (4 cpu needed, 2 + 2 on the node); taken most important first, mid-web drives a-strict
    to -1: a violation under every model. Then the versions differ (the engine's
    budgets.PdbRules): 1.36's filterPodsWithPDBViolation decrements every matching PDB (no early
    exit), so b-shared is spent too and low-front violates; newest upstream's podIsViolating
    returns at the first PDB below zero, b-shared keeps 1 and low-front does not violate."""
    objects = [node("n1"),
               pod("mid-web", "2", "mid", node_name="n1",
                   labels={"app": "web", "tier": "front"}),
               pod("low-front", "2", "low", node_name="n1", labels={"tier": "front"}),
               pdb("a-strict", 0, {"matchLabels": {"app": "web"}}),
               pdb("b-shared", 1, {"matchLabels": {"tier": "front"}}),
               pod("urgent", "4", "high")]
    doc = plan(tmp_path, objects, "default/urgent", model)
    assert {("default/mid-web", "n1", True),
            ("default/low-front", "n1", low_front_violates)} == set(victims(doc))


@pytest.mark.parametrize("expression", [
    {"key": "app", "operator": "DoesNotExist"},
    {"key": "app", "operator": "NotIn", "values": ["web"]},
], ids=["DoesNotExist", "NotIn"])
@pytest.mark.parametrize("labels", [None, {"team": "x"}], ids=["no-labels", "other-labels"])
@pytest.mark.parametrize("model", ["1.36", "upstream", "kep-5710"])
def test_negative_selectors_and_a_pod_without_labels(tmp_path, expression, labels, model):
    """Such a selector matches an empty label set. 1.36 (and kep-5710, which follows it here)
    only looks at PDBs for pods that have labels (filterPodsWithPDBViolation:
    `if len(pod.Labels) != 0`): a pod without labels violates nothing. Newest upstream matches
    unlabeled pods too (the engine's budgets.PdbRules, "newest util.go"). The same pod with an
    unrelated label violates the PDB (0 allowed) under every model."""
    objects = [node("n1"), pod("batch", "4", "low", node_name="n1", labels=labels),
               pdb("guard", 0, {"matchExpressions": [expression]}),
               pod("urgent", "4", "high")]
    doc = plan(tmp_path, objects, "default/urgent", model)
    violates = labels is not None or model == "upstream"
    assert [("default/batch", "n1", violates)] == victims(doc)


@pytest.mark.parametrize(("expression", "labels", "violates"), [
    ({"key": "app", "operator": "Exists"}, {"app": "web"}, True),
    ({"key": "app", "operator": "Exists"}, {"team": "x"}, False),
    ({"key": "app", "operator": "In", "values": ["web", "api"]}, {"app": "web"}, True),
    ({"key": "app", "operator": "In", "values": ["web", "api"]}, {"app": "db"}, False),
], ids=["Exists-match", "Exists-other", "In-match", "In-other"])
def test_expression_selectors_pick_the_pods_they_name(tmp_path, expression, labels, violates):
    """metav1.LabelSelector requirements (labels.Requirement.Matches): Exists matches a pod
    carrying the key, In one whose value is listed. The PDB allows 0 disruptions, so the one
    victim violates it exactly when the selector matches it."""
    objects = [node("n1"), pod("batch", "4", "low", node_name="n1", labels=labels),
               pdb("guard", 0, {"matchExpressions": [expression]}),
               pod("urgent", "4", "high")]
    assert [("default/batch", "n1", violates)] == victims(
        plan(tmp_path, objects, "default/urgent"))


# ---- exact fits with fractional CPU ------------------------------------------------------------


@pytest.mark.parametrize(("allocatable", "used", "wanted", "fits"), [
    ("1.5", "0.5", "1", True),        # 500m + 1000m = 1500m: exactly full
    ("1.5", "0.5", "1001m", False),   # 1m over
    ("1500m", "0.25", "1.25", True),  # decimal and milli spellings mix
    ("0.1", "0", "100m", True),
    ("2.001", "1", "1.001", True),
])
def test_exact_fit_needs_no_preemption(tmp_path, allocatable, used, wanted, fits):
    """fitsRequest: requested + request <= allocatable, in millicores. An exact fit needs no
    victim; one millicore more needs the running (lower-priority) pod preempted."""
    objects = [node("n1", allocatable), pod("urgent", wanted, "high")]
    if used != "0":
        objects.append(pod("bystander", used, "low", node_name="n1"))
    doc = plan(tmp_path, objects, "default/urgent")
    if fits:
        assert [] == doc["victims"]
        assert "RequiresPreemption" != doc["status"]
    else:
        assert [("default/bystander", "n1", False)] == victims(doc)


def test_exact_fit_after_preemption_keeps_the_reprieved_pod(tmp_path):
    """n1 has 1.5 cpu: low (100, 1 cpu) and mid (200, 0.5 cpu). urgent needs 1 cpu. Removing
    the 100s frees exactly 1 cpu: enough (<=), so mid is never a victim."""
    objects = [node("n1", "1.5"), pod("low", "1", "low", node_name="n1"),
               pod("mid", "0.5", "mid", node_name="n1"), pod("urgent", "1", "high")]
    assert [("default/low", "n1", False)] == victims(plan(tmp_path, objects, "default/urgent"))


# ---- the priority graph ------------------------------------------------------------------------

NEVER_MEMBER = """
apiVersion: v1
kind: List
items:
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: low}, value: 100}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: medium}, value: 500}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000}
- apiVersion: scheduling.k8s.io/v1alpha1
  kind: Workload
  metadata: {name: training, namespace: ml}
  spec:
    priorityClassName: high
    preemptionPriorityClassName: low
    podGroups: [{name: workers, policy: {gang: {minCount: 2}}}]
- apiVersion: scheduling.k8s.io/v1alpha1
  kind: Workload
  metadata: {name: report, namespace: batch}
  spec:
    priorityClassName: medium
    podGroups: [{name: main, policy: {basic: {}}}]
- apiVersion: v1
  kind: Pod
  metadata: {name: w-0, namespace: ml}
  spec: {workloadRef: {name: training, podGroup: workers}, containers: [{name: c, image: x}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: w-1, namespace: ml}
  spec: {workloadRef: {name: training, podGroup: workers}, POLICY containers: [{name: c, image: x}]}
"""


def _cycles(tmp_path: Path, never: bool, model: str) -> dict[str, Any]:
    text = NEVER_MEMBER.replace("POLICY", "preemptionPolicy: Never," if never else "")
    snap = tmp_path / "cluster.yaml"
    snap.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(app, ["check-cycles", str(snap), "-o", "json", "--model", model])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize(("model", "edges", "cycles"),
                         [("1.36", 1, 0), ("upstream", 1, 0), ("kep-5710", 4, 1)])
def test_a_never_member_inside_a_group_in_the_graph(tmp_path, model, edges, cycles):
    """ml/training (Workload: schedules at 1000, counts 100 as a victim under KEP-5710) has two
    pods; batch/report is 500/500. Without a Never member there are two profiles.

    One member pod whose own policy is Never makes the group Never (a unit preempts as one),
    while the other member keeps its own PreemptLowerPriority policy and so stands apart as its
    own vertex (the engine's per-version group policy: 1.36 reads the member pods' own
    policies): three profiles under every model. 1.36 and upstream have no separate preemption
    priority: the member (1000) may preempt report (500), one edge, no cycle. Under kep-5710
    report (500) may also preempt the member and the group (victim priority 100): the member
    and report form a cycle (4 edges), and the Workload's violation carries the Never
    profile."""
    assert 2 == _cycles(tmp_path, never=False, model=model)["summary"]["profiles"]
    doc = _cycles(tmp_path, never=True, model=model)
    assert (3, edges, cycles) == (doc["summary"]["profiles"], doc["summary"]["edges"],
                                  doc["summary"]["cycles"])
    if model == "kep-5710":
        assert ("Workload", "ml/training", "1000/100/Never") in [
            (v["kind"], v["name"], v["profile"]) for v in doc["violations"]]


EDGES = """
apiVersion: v1
kind: List
items:
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: p50}, value: 50}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: p100}, value: 100}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: p500}, value: 500}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: p1000}, value: 1000}
- apiVersion: scheduling.k8s.io/v1alpha1
  kind: Workload
  metadata: {name: w, namespace: ns}
  spec:
    priorityClassName: p500
    preemptionPriorityClassName: p50
    podGroups: [{name: g, policy: {basic: {}}}]
- apiVersion: v1
  kind: Pod
  metadata: {name: a, namespace: ns}
  spec: {priorityClassName: p100, containers: [{name: c, image: x}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: b, namespace: ns}
  spec: {priorityClassName: p1000, containers: [{name: c, image: x}]}
"""


def test_edge_count_limit_is_exact(tmp_path):
    """Profiles (scheduling/preemption): W 500/50 (violating, one unit: no self-loop),
    a 100/100, b 1000/1000. Edges X -> Y when X.scheduling > Y.preemption, X not Never, no
    self-loop for a single unit: b->W, b->a (2); a->W (1); W->a (W->W needs two units) (1).
    Four edges: a limit of 4 builds them, a limit of 3 is refused naming the count."""
    path = tmp_path / "edges.yaml"
    path.write_text(EDGES, encoding="utf-8")
    snap = ingest.build_snapshot(ingest.read_documents([str(path)]))
    built = graph.build_graph(snap, max_edges=4)
    assert 4 == built.graph.number_of_edges()
    with pytest.raises(InputError, match=r"would have 4 edges between 3 distinct priority "
                                         r"profiles \(limit 3\); a snapshot this varied in "
                                         r"priorities is not a real cluster's$"):
        graph.build_graph(snap, max_edges=3)


# ---- found by the mutation run (tests/mutation/README.md) ----------------------------------------


@pytest.mark.parametrize(("pods", "fits"), [("2", True), ("1", False)])
def test_pod_count_limit_is_exact(tmp_path, pods, fits):
    """fitsRequest counts the pod itself: len(pods) + 1 > allocatable pods is too many. With
    one pod running, a node for 2 pods takes the preemptor as it is; a node for 1 needs the
    running (lower-priority) pod preempted."""
    objects = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
                "status": {"allocatable": {"cpu": "8", "memory": "16Gi", "pods": pods}}},
               pod("small", "100m", "low", node_name="n1"), pod("urgent", "100m", "high")]
    doc = plan(tmp_path, objects, "default/urgent")
    assert ([] if fits else [("default/small", "n1", False)]) == victims(doc)


def _complete_graph_snapshot(tmp_path: Path) -> Any:
    """Four Workloads, each scheduling at 1000+i and preempted at 10+i: every scheduling value
    exceeds every preemption value, so the priority graph is the complete digraph on 4
    vertices (one unit each: no self-loops). Its elementary cycles: C(4,2)*1! + C(4,3)*2! +
    C(4,4)*3! = 6 + 8 + 6 = 20. W0, W1 live in namespace a, W2, W3 in b; the cycles with no
    vertex in a are those inside {W2, W3}: one."""
    items: list[dict[str, Any]] = []
    for i in range(4):
        items += [
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
             "metadata": {"name": f"s{i}"}, "value": 1000 + i},
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
             "metadata": {"name": f"p{i}"}, "value": 10 + i},
            {"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
             "metadata": {"name": f"w{i}", "namespace": "a" if i < 2 else "b"},
             "spec": {"priorityClassName": f"s{i}", "preemptionPriorityClassName": f"p{i}",
                      "podGroups": [{"name": "g", "policy": {"basic": {}}}]}},
        ]
    path = tmp_path / "complete.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    return ingest.build_snapshot(ingest.read_documents([str(path)]))


def test_cycle_count_is_exact_when_the_whole_graph_fits_the_budget(tmp_path):
    """limit 3 lists the three smallest (2-cycles); the count is all 20, complete; filtered
    to namespace a it is 19 (the cycles the filter drops are not counted either)."""
    snap = _complete_graph_snapshot(tmp_path)
    report = graph.check(snap, limit=3)
    assert (3, 20, True) == (len(report.cycles), report.cycle_count,
                             report.cycle_count_complete)
    assert all(2 == len(c.vertices) for c in report.cycles)
    report = graph.check(snap, limit=3, namespace="a")
    assert (19, True) == (report.cycle_count, report.cycle_count_complete)


def test_cycle_count_stops_at_the_count_limit(tmp_path):
    """With count_limit 5 no round may enumerate more than 5 cycles: the first round (length
    <= 2, six cycles) stops at 5, and the count is the lower bound 5, not complete."""
    snap = _complete_graph_snapshot(tmp_path)
    report = graph.check(snap, limit=3, count_limit=5)
    assert (5, False) == (report.cycle_count, report.cycle_count_complete)
    # the listed ones come from the first, length <= 2 round: the shortest
    assert [2, 2, 2] == [len(c.vertices) for c in report.cycles]


@pytest.mark.parametrize(("operator", "value", "node_name"), [
    ("Gt", "0", "plus"), ("Lt", "0", "minus"), ("Lt", "-1", "minus"), ("Gt", "+7", "plus"),
])
def test_gt_lt_read_signed_label_values(tmp_path, operator, value, node_name):
    """Node affinity Gt/Lt parse both sides as strconv.ParseInt does: an optional + or -
    sign, then digits (k8s.io/apimachinery labels selector; upstream
    nodeaffinity.NewNodeSelector). Node plus has cores=+8, node minus cores=-2; only one
    satisfies each requirement, and the pod (no preemption needed) goes there."""
    nodes = []
    for name, cores in (("minus", "-2"), ("plus", "+8")):
        n = node(name)
        n["metadata"]["labels"] = {"cores": cores}
        nodes.append(n)
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "cores", "operator": operator, "values": [value]}]}]}}}
    doc = plan(tmp_path, [*nodes, pod("urgent", "1", "high", affinity=affinity)],
               "default/urgent")
    assert [("default/urgent", node_name)] == [(p["pod"], p["node"]) for p in doc["placements"]]
    assert [] == doc["victims"]


def _cluster(tmp_path: Path, items: list[dict[str, Any]]) -> Any:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    return ingest.build_snapshot(ingest.read_documents([str(path)]))


@pytest.mark.parametrize("policy", ["Never", "PreemptLowerPriority"])
@pytest.mark.parametrize("profile_of", [None, graph.without_preemption_priority],
                         ids=["kep-5710", "1.36"])
def test_a_standalone_never_pod_has_no_edges(tmp_path, policy, profile_of):
    """A pod on its own keeps its own policy in the graph: at 1000 with Never it preempts
    nobody (0 edges); with PreemptLowerPriority it may preempt the 100 pod (1 edge). The
    same under a model without a separate preemption priority (its profile keeps the
    policy)."""
    items = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
              "metadata": {"name": "top"}, "value": 1000, "preemptionPolicy": policy},
             CLASSES[0], pod("boss", "1", "top"), pod("worker", "1", "low")]
    kwargs = {} if profile_of is None else {"profile_of": profile_of}
    built = graph.build_graph(_cluster(tmp_path, items), **kwargs)
    assert (0 if policy == "Never" else 1) == built.graph.number_of_edges()


def test_namespace_filter_keeps_a_cycle_through_a_pod_of_that_namespace(tmp_path):
    """ml/train (Workload, 1000 scheduling / 100 preemption) and the standalone pod
    batch/report (500): train preempts report (1000 > 500), report preempts train (500 > 100):
    one cycle. Filtered to batch it is kept: the pod's namespace is on it."""
    items = [*CLASSES,
             {"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
              "metadata": {"name": "train", "namespace": "ml"},
              "spec": {"priorityClassName": "high", "preemptionPriorityClassName": "low",
                       "podGroups": [{"name": "g", "policy": {"basic": {}}}]}},
             pod("report", "1", "medium", ns="batch")]
    snap = _cluster(tmp_path, items)
    assert 1 == graph.check(snap).cycle_count
    assert 1 == graph.check(snap, namespace="batch").cycle_count
    assert 0 == graph.check(snap, namespace="other").cycle_count


def test_check_resources_takes_the_last_pod_slot():
    """fit.check_resources: with 2 of 3 pod slots used, one more pod fits (2 + 1 <= 3); with 3
    used it does not (the CLI path counts slots elsewhere: test_pod_count_limit_is_exact)."""
    from wapctl.fit import REASON_TOO_MANY_PODS, check_resources, request_items

    slots = {"cpu": 2000, "pods": 3}
    assert check_resources(request_items({"cpu": 1}), slots, {}, 2) is None
    assert REASON_TOO_MANY_PODS == check_resources(request_items({"cpu": 1}), slots, {}, 3)


def test_more_candidate_nodes_than_upstream_tries_is_reported(tmp_path):
    """120 equal nodes (2 cpu), each full with one equal victim (priority 100, same start);
    urgent (priority 1000) needs 2 cpu. Preemption works on every node. Upstream's
    dryRunPreemption stops after calculateNumCandidates(120) = max(10% of 120, 100) = 100
    candidates from a random start (preemption.go, minCandidateNodesPercentage 10,
    minCandidateNodesAbsolute 100), so which 100 is a random choice among all 120: the plan
    reports it as a tie over 120 options, besides the tie of equal node scores."""
    objects = [node(f"n{i:03d}", cpu="2") for i in range(120)]
    objects += [pod(f"v{i:03d}", "2", "low", node_name=f"n{i:03d}") for i in range(120)]
    objects.append(pod("urgent", "2", "high"))
    doc = plan(tmp_path, objects, "default/urgent", "1.36")
    assert [("default/urgent", "n000")] == [(p["pod"], p["node"]) for p in doc["placements"]]
    ties = {t["decision"]: t["equal"] for t in doc["ties"]}
    assert 120 == ties["candidate nodes (upstream tries 100 of the 120 where preemption works, "
                       "from a random start)"]
    assert 120 == ties["node for the preemption (pickOneNodeForPreemption)"]
