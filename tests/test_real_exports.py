"""Real exports never abort (issue 15): what a real cluster legitimately holds loads and plans.

The recordings under fixtures/exports/k8s-1.36/ come from a real Kubernetes 1.36.2 API server
(see its README); fixtures/exports/kubectl-no-system-classes.yaml is a hand-made kubectl export
whose plan is worked out by hand in its header comment.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wapctl import ingest
from wapctl.cli import app
from wapctl.errors import InputError, Source
from wapctl.ingest import decode

ROOT = Path(__file__).resolve().parent.parent
EXPORTS = ROOT / "fixtures" / "exports"
RECORDED = sorted(
    p for p in (EXPORTS / "k8s-1.36").rglob("*")
    if p.suffix in (".json", ".yaml") and "admission" not in p.parts
)
WAPCTL = str(Path(sys.executable).with_name("wapctl"))


def run(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


def build(*docs, name="snap.yaml"):
    """A snapshot from in-memory documents (as if read from ``name``)."""
    return ingest.build_snapshot(
        ingest.Document(Source(name, i + 1), d) for i, d in enumerate(docs)
    )


def test_every_recording_is_there():
    """lists/*.json (12), kubectl/* (4) and wapctl/snapshot.yaml were copied."""
    assert 17 == len(RECORDED)


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: str(p.relative_to(EXPORTS)))
def test_each_recorded_file_alone_validates_and_plans(path: Path):
    """Each file on its own: validate exits 0; plan gives a document (placed, unschedulable
    — e.g. a list of pods with no nodes — or nothing pending), never an input error."""
    assert 0 == run("validate", path).exit_code
    result = run("plan", path, "-o", "json")
    assert result.exit_code in (0, 3), result.output
    if result.stdout:
        assert "PreemptionPlan" == json.loads(result.stdout)["kind"]
    else:
        assert "nothing to plan" in result.stderr


def test_raw_lists_together_plan_like_the_kubectl_export():
    """The raw API lists of one cluster (items without kind/apiVersion) form the same cluster
    as the kubectl export of it: the same plan document."""
    lists = EXPORTS / "k8s-1.36" / "lists"
    files = [lists / f"{k}.json" for k in ("nodes", "pods", "priorityclasses",
                                         "poddisruptionbudgets", "workloads", "podgroups")]
    raw = run("plan", *files, "-o", "json")
    export = run("plan", EXPORTS / "k8s-1.36" / "kubectl" / "get-all-wapctl-kinds.yaml",
                 "-o", "json")
    assert (0, json.loads(export.stdout)) == (raw.exit_code, json.loads(raw.stdout))


def test_hand_worked_kubectl_export_without_system_classes():
    """Through the real console script: RequiresPreemption, the one victim worked out in the
    fixture's header, and one warning for the deleted class (none for the system classes)."""
    proc = subprocess.run(
        [WAPCTL, "plan", str(EXPORTS / "kubectl-no-system-classes.yaml"), "-o", "json"],
        capture_output=True, text=True, timeout=60,
    )
    assert 0 == proc.returncode, proc.stderr
    doc = json.loads(proc.stdout)
    assert (
        "RequiresPreemption",
        [{"pod": "prod/checkout-7d9f8c6b5-x2m4q", "node": "worker-1"}],
        [("batch/etl-worker-0", "worker-1", 50)],
        [("MissingPriorityClass", "Pod batch/etl-worker-0", "spec.priorityClassName")],
    ) == (
        doc["status"],
        doc["placements"],
        [(v["pod"], v["node"], v["priority"]) for v in doc["victims"]],
        [(w["code"], w["object"], w["field"]) for w in doc["warnings"]],
    )
    assert "Planning for the highest-priority pending preemptor" in proc.stderr


def test_priority_divergence_is_a_warning_and_both_priorities_are_kept():
    """The recorded probe: PodGroups with priority 1000 whose pods carry 100. The real 1.36
    scheduler bound them (admission/probe-priority-mismatch-scheduler.log); wapctl loads them,
    warns once per group, and keeps both numbers on the pod."""
    adm = EXPORTS / "k8s-1.36" / "admission"
    lists = EXPORTS / "k8s-1.36" / "lists"
    docs = ingest.read_documents([str(adm / "probe-priority-mismatch-objects.json"),
                                str(adm / "probe-priority-mismatch-pods.json"),
                                str(lists / "priorityclasses.json")])
    snap = ingest.build_snapshot(docs)
    pod = snap.pods["probe/mismatch-basic"]
    assert (1000, 100) == (pod.priority, pod.own_priority)
    divergence = [w for w in snap.warnings if w.code == "PriorityDivergence"]
    assert [("PriorityDivergence", "PodGroup probe/mm-g"),
            ("PriorityDivergence", "PodGroup probe/mm-gang")] == [
        (w.code, w.object) for w in divergence]
    # the whole line a user reads, worked from the probe: group priority 1000, the pod's 100
    assert ("the PodGroup's priority is 1000 but its pods carry their own "
            "(probe/mismatch-basic 100): kube-scheduler 1.36 binds such pods; the KEP-5710 "
            "Beta scheduler refuses the group") == divergence[0].message
    # the probe's pods name the scheduler profile "probe-scheduler": said too (issue 13)
    assert [w.object for w in snap.warnings if w.code == "OtherScheduler"] == [
        "Pod probe/match-gang", "Pod probe/mismatch-basic", "Pod probe/mismatch-gang"]


# ---- the rules, one by one -------------------------------------------------------------------

def pod(name, ns="default", **spec):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
            "spec": {"containers": [{"name": "c"}], **spec}}


def pclass(name, value):
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name}, "value": value}


def test_builtin_system_classes_have_upstream_values():
    """pkg/apis/scheduling/helpers.go systemPriorityClasses: node-critical 2*10^9+1000,
    cluster-critical 2*10^9; a pod naming one without spec.priority resolves, silently."""
    snap = build(pod("a", priorityClassName="system-node-critical"),
                 pod("b", priorityClassName="system-cluster-critical"))
    assert (2_000_001_000, 2_000_000_000, ()) == (
        snap.pods["default/a"].priority, snap.pods["default/b"].priority, snap.warnings)
    assert {} == dict(snap.priority_classes)  # not invented into the snapshot itself


def test_missing_class_with_spec_priority_warns_once_per_class():
    snap = build(pod("b", priorityClassName="gone", priority=7),
                 pod("a", priorityClassName="gone", priority=7),
                 pod("c", priorityClassName="other", priority=9))
    assert (7, 9) == (snap.pods["default/a"].priority, snap.pods["default/c"].priority)
    assert [("MissingPriorityClass", "Pod default/a"),
            ("MissingPriorityClass", "Pod default/c")] == [(w.code, w.object)
                                                            for w in snap.warnings]
    assert "'gone'" in snap.warnings[0].message and "1 more object names it" in (
        snap.warnings[0].message)
    assert "snap.yaml" in (snap.warnings[0].source or "")


def test_missing_class_without_spec_priority_is_the_error():
    with pytest.raises(InputError) as info:
        build(pod("a", priorityClassName="gone"))
    assert "spec.priorityClassName" == info.value.field
    assert "kubectl get priorityclass gone -o yaml" in info.value.reason


def test_pod_of_a_missing_pod_group_is_planned_alone():
    """The kubectl recipe without the alpha kinds: the pod loads as a standalone pod."""
    snap = build(pclass("p", 5), pod("a", priorityClassName="p", priority=5,
                                     schedulingGroup={"podGroupName": "pg"}))
    assert None is snap.pods["default/a"].group_key
    assert [("MissingPodGroup", "Pod default/a", "spec.schedulingGroup.podGroupName")] == [
        (w.code, w.object, w.field) for w in snap.warnings]


def test_pods_of_one_missing_pod_group_warn_once_counting_the_others() -> None:
    """One MissingPodGroup warning per missing group, on its first pod by key, saying how many
    pods are planned standalone: a user reads the count to judge what the export left out.
    Hand-worked: c, a and b name PodGroup pg (missing), d names pg2 (missing): on Pod
    default/a, "this pod and 2 more" (c and b); on Pod default/d, "this pod" alone."""
    snap = build(pod("c", schedulingGroup={"podGroupName": "pg"}),
                 pod("a", schedulingGroup={"podGroupName": "pg"}),
                 pod("d", schedulingGroup={"podGroupName": "pg2"}),
                 pod("b", schedulingGroup={"podGroupName": "pg"}))
    prefix = "is not in the snapshot (an export without the Workload API kinds?): this pod"
    assert [
        ("MissingPodGroup", "Pod default/a",
         f"PodGroup default/pg {prefix} and 2 more are planned as standalone pods"),
        ("MissingPodGroup", "Pod default/d",
         f"PodGroup default/pg2 {prefix} is planned as a standalone pod"),
    ] == [(w.code, w.object, w.message) for w in snap.warnings]


def test_priority_divergence_lists_three_pods_then_counts_the_rest() -> None:
    """The PriorityDivergence warning names the first three diverging pods by key and counts
    the others as " +N more"; with exactly three there is nothing more to count, so no "+0
    more" (a user reads the count as pods the line does not show). Hand-worked: PodGroups
    three and four take class high (1000); three's pods c, a, b carry 300, 100, 200 and d
    carries 1000 (agrees, not listed); four's pods q, p, o, n carry 40, 30, 20, 10: the first
    three by key (n, o, p) are listed, q is the "+1 more". The warning's field is the
    PodGroup's ``spec.priority`` (the JSON output's "field", which a script filters on)."""
    def group(name: str) -> dict[str, object]:
        return {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
                "metadata": {"name": name, "namespace": "default"},
                "spec": {"podGroupTemplateRef": {"workload": {
                    "workloadName": "w", "podGroupTemplateName": "t"}},
                    "schedulingPolicy": {"basic": {}}, "priorityClassName": "high"}}

    def member(name: str, priority: int, pg: str) -> dict[str, object]:
        return pod(name, priority=priority, schedulingGroup={"podGroupName": pg})

    workload = {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "Workload",
                "metadata": {"name": "w", "namespace": "default"},
                "spec": {"podGroupTemplates": [
                    {"name": "t", "schedulingPolicy": {"basic": {}}}]}}
    snap = build(pclass("high", 1000), workload, group("three"), group("four"),
                 member("c", 300, "three"), member("a", 100, "three"),
                 member("b", 200, "three"), member("d", 1000, "three"),
                 member("q", 40, "four"), member("p", 30, "four"),
                 member("o", 20, "four"), member("n", 10, "four"))
    tail = "): kube-scheduler 1.36 binds such pods; the KEP-5710 Beta scheduler refuses the group"
    head = "the PodGroup's priority is 1000 but its pods carry their own ("
    assert [
        ("PodGroup default/four", "spec.priority",
         f"{head}default/n 10, default/o 20, default/p 30 +1 more{tail}"),
        ("PodGroup default/three", "spec.priority",
         f"{head}default/a 100, default/b 200, default/c 300{tail}"),
    ] == sorted(
        (w.object, w.field, w.message) for w in snap.warnings if w.code == "PriorityDivergence"
    )


def test_item_kinds_come_from_the_list_kind_and_input_is_not_modified():
    raw = {"kind": "PodList", "apiVersion": "v1", "metadata": {},
           "items": [{"metadata": {"name": "a", "namespace": "x"},
                      "spec": {"containers": [{"name": "c"}]}}]}
    before = copy.deepcopy(raw)
    out: list[ingest.Document] = []
    decode.flatten("raw.json", 1, raw, out)
    assert ("Pod", "v1") == (out[0].obj["kind"], out[0].obj["apiVersion"])
    assert before == raw
    assert ["x/a"] == list(ingest.build_snapshot(out).pods)


def test_items_of_a_plain_list_still_need_a_kind():
    with pytest.raises(InputError) as info:
        ingest.build_snapshot(_flat({"kind": "List", "items": [{"metadata": {"name": "a"}}]}))
    assert "kind" == info.value.field


def _flat(obj):
    out: list[ingest.Document] = []
    decode.flatten("l.yaml", 1, obj, out)
    return out


def test_nothing_pending_is_exit_0_with_a_clear_line(tmp_path):
    path = EXPORTS / "k8s-1.36" / "lists" / "nodes.json"
    proc = subprocess.run([WAPCTL, "plan", str(path)], capture_output=True, text=True,
                          timeout=60)
    assert (0, "no pending pod or pod group: nothing to plan\n", "") == (
        proc.returncode, proc.stdout, proc.stderr)
