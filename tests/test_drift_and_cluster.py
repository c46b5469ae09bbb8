"""Drift (pods keeping an old class value), pod-group divergence, Kueue priorities, manifests
checked against a cluster (--cluster), and audit of a class re-creation. Each fixture under
fixtures/manifests/ explains its hand-worked answer in its header."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from wapctl import drift, ingest
from wapctl.cli import app
from wapctl.errors import Source

ROOT = Path(__file__).resolve().parent.parent
MANIFESTS = ROOT / "fixtures" / "manifests"
CLUSTER = MANIFESTS / "cluster.yaml"


def run(*args: object, input: str | None = None) -> Any:
    return CliRunner().invoke(
        app, [str(a) for a in args], input=input, env={"COLUMNS": "100"}, catch_exceptions=False
    )


def check_json(*args: object) -> tuple[int, dict[str, Any]]:
    result = run("check-cycles", *args, "-o", "json")
    return result.exit_code, json.loads(result.stdout)


def _class(name: str, value: int) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name}, "value": value}


def _running(name: str, cls: str, priority: int | None = None) -> dict[str, Any]:
    """A pod of class ``cls`` running on node x (admitted at ``priority`` when given)."""
    spec: dict[str, Any] = {"nodeName": "x", "priorityClassName": cls}
    if priority is not None:
        spec["priority"] = priority
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "n"},
            "spec": spec, "status": {"phase": "Running"}}


def _only_finding(objs: list[dict[str, Any]]) -> str:
    """The message of the one drift finding in ``objs`` (documents 1, 2, ... of file t)."""
    docs = [ingest.Document(Source("t", i + 1), o) for i, o in enumerate(objs)]
    [x] = drift.find(docs, ingest.build_snapshot(docs))
    return x.message


def test_drift_fixture_findings() -> None:
    """drift.yaml: three priority-drift findings and one pod-group divergence, exit 1."""
    code, doc = check_json(MANIFESTS / "drift.yaml")
    got = [(x["rule"], x["object"], x["field"]) for x in doc["findings"]]
    expected = [
        ("podgroup-priority-divergence", "Pod ops/agent-0", "spec.priority"),
        ("priority-drift", "Pod batch/etl-0", "spec.priority"),
        ("priority-drift", "Pod ml/trainer-0", "spec.priority"),
        ("priority-drift", "PodGroup ml/trainer-g", "spec.priority"),
    ]
    assert (1, expected, 0, 0) == (
        code, got, doc["summary"]["cycles"], doc["summary"]["violations"]
    )
    etl = doc["findings"][1]
    assert etl["message"] == (
        "Pod batch/etl-0 runs with priority 500, but PriorityClass 'batch' is now 1000 "
        "(re-created with another value; a pod keeps the value it was admitted with); pods "
        "created now with class 'batch' schedule at 1000 and can preempt it (1000 > 500), "
        "although they share its class; 1 other (Pod batch/etl-1) with a priority from 501 to "
        "1000 can preempt it now, which its class's value would not allow"
    )
    assert etl["fix"].startswith("recreate the pod (e.g. roll out its controller)")


def test_drift_downwards_says_the_pod_preempts_its_own_class() -> None:
    """A class lowered under running pods: they can preempt new pods of their own class."""
    docs = [
        ingest.Document(Source("t", 1), {"apiVersion": "scheduling.k8s.io/v1",
                      "kind": "PriorityClass", "metadata": {"name": "c"}, "value": 100}),
        ingest.Document(Source("t", 2), {"apiVersion": "v1", "kind": "Pod",
                      "metadata": {"name": "p", "namespace": "n"},
                      "spec": {"nodeName": "x", "priorityClassName": "c", "priority": 900},
                      "status": {"phase": "Running"}}),
    ]
    [x] = drift.find(docs, ingest.build_snapshot(docs))
    assert x.message.endswith(
        "it can preempt pods created now with class 'c' (900 > 100), although they share its "
        "class"
    )


def test_drift_names_who_else_it_lets_preempt() -> None:
    """Hand-worked: class c re-created 900 -> 100 under running pod p (spec.priority 900).
    q (class d=500, preemption 500) is in [100, 900): p can preempt it now, which p at its
    class's value (100) could not; r (class e=950) is not. Lowered the other way (p at 100,
    class now 900), q (500) in (100, 900] can preempt p now; a Never pod cannot."""

    def case(admitted: int, current: int) -> str:
        never = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "s", "namespace": "n"},
                 "spec": {"priorityClassName": "d", "preemptionPolicy": "Never"}}
        message = _only_finding([_class("c", current), _class("d", 500), _class("e", 950),
                                 _running("p", "c", admitted), _running("q", "d"),
                                 _running("r", "e"), never])
        return message.split("although they share its class; ")[1]

    assert ("it can preempt 2 others (Pod n/q, Pod n/s) with a preemption priority from 100 "
            "to 899, which its class's value would not allow") == case(900, 100)
    assert ("1 other (Pod n/q) with a priority from 101 to 900 can preempt it now, which its "
            "class's value would not allow") == case(100, 900)


def test_drift_upwards_names_preemptors_up_to_the_class_s_new_value_and_no_higher() -> None:
    """Hand-worked: class c re-created 100 -> 900 under running pod p (spec.priority 100).
    Pods of priority 101..900 can preempt p now but could not preempt it at c's value (900):
    t (class c, admitted at 900) is one of them. u (class f = 901) could preempt p at either
    value, so the finding must not name it: a user reads the list as exactly those the drift
    lets preempt p."""
    message = _only_finding([_class("c", 900), _class("f", 901), _running("p", "c", 100),
                             _running("t", "c", 900), _running("u", "f")])
    assert message.endswith(
        "although they share its class; 1 other (Pod n/t) with a priority from 101 to 900 can "
        "preempt it now, which its class's value would not allow"
    )


def test_drift_counts_the_others_it_does_not_name() -> None:
    """Hand-worked: class c re-created 100 -> 200 under running pod p (spec.priority 100).
    Five running pods q0..q4 of class d = 101 (the lowest priority above p's 100) can preempt
    p now, which they could not at c's value (200). The finding names the first three and
    says how many it leaves out (5 - 3 = 2): a user reads the count as the size of the
    problem."""
    message = _only_finding([_class("c", 200), _class("d", 101), _running("p", "c", 100),
                             *(_running(f"q{i}", "d") for i in range(5))])
    assert message.endswith(
        "although they share its class; 5 others (Pod n/q0, Pod n/q1, Pod n/q2 and 2 more) "
        "with a priority from 101 to 200 can preempt it now, which its class's value would "
        "not allow"
    )


def test_a_never_pod_group_s_drift_names_no_victims() -> None:
    """A PodGroup's drift finding tells the user whom the group can now preempt; a group whose
    own preemptionPolicy is Never preempts no one, so it must not name victims. Hand-worked:
    class c re-created 900 -> 100; PodGroup n/pg (v1alpha3, spec.priority 900, class c) keeps
    900. Pod n/q (class d=500, preemption 500) is in [100, 900): a preempting group could
    preempt it now, which its class's value (100) would not allow; with preemptionPolicy Never
    it preempts no one: the message says it is scheduled ahead of them and names no victim
    (it said "it can preempt pods created now with class 'c'" before). The same group without
    Never names q (the policy is read from the group in its own namespace n)."""

    def case(**own: str) -> str:
        objs = [
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
             "metadata": {"name": "c"}, "value": 100},
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
             "metadata": {"name": "d"}, "value": 500},
            {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "Workload",
             "metadata": {"name": "w", "namespace": "n"},
             "spec": {"podGroupTemplates": [{"name": "t",
                                             "schedulingPolicy": {"gang": {"minCount": 1}}}]}},
            {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "PodGroup",
             "metadata": {"name": "pg", "namespace": "n"},
             "spec": {"workloadRef": {"workloadName": "w", "templateName": "t"},
                      "priorityClassName": "c", "priority": 900, **own}},
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "q", "namespace": "n"},
             "spec": {"nodeName": "x", "priorityClassName": "d"}, "status": {"phase": "Running"}},
        ]
        docs = [ingest.Document(Source("t", i + 1), o) for i, o in enumerate(objs)]
        [x] = [x for x in drift.find(docs, ingest.build_snapshot(docs))
               if x.object == "PodGroup n/pg"]
        return x.message

    head = ("PodGroup n/pg has priority 900, but PriorityClass 'c' is now 100 (re-created with "
            "another value; the group and its pods keep the old value); ")
    assert head + ("it is scheduled ahead of pods created now with class 'c' (900 > 100), "
                   "although they share its class; its preemptionPolicy Never keeps it from "
                   "preempting them") == case(preemptionPolicy="Never")
    assert head + ("it can preempt pods created now with class 'c' (900 > 100), although they "
                   "share its class; it can preempt 1 other (Pod n/q) with a preemption "
                   "priority from 100 to 899, which its class's value would not allow") == case()


def test_a_pod_group_s_drift_reads_its_own_policy_not_a_namesake_s() -> None:
    """The victims a drifted PodGroup's finding names depend on that group's own
    preemptionPolicy: not on another group of its namespace, nor on a group of the same name
    in another namespace. Hand-worked: class c re-created 900 -> 100; PodGroup n/pg (v1alpha3,
    spec.priority 900, class c, preempting) keeps 900, so it can preempt Pod n/q (class d:
    500, in [100, 900)). Read before it, PodGroups n/other and m/pg are Never (and drift
    not: no class, priority 0), and so is the v1alpha1 Workload n/old's embedded group pg
    (class nv, Never: a group named pg in namespace n, but no PodGroup object); were any taken
    for n/pg, its finding would say it preempts no one."""
    def group(ns: str, name: str, **spec: Any) -> dict[str, Any]:
        return {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "PodGroup",
                "metadata": {"name": name, "namespace": ns},
                "spec": {"workloadRef": {"workloadName": "w", "templateName": "t"}, **spec}}

    def workload(ns: str) -> dict[str, Any]:
        return {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "Workload",
                "metadata": {"name": "w", "namespace": ns},
                "spec": {"podGroupTemplates": [{"name": "t",
                                                "schedulingPolicy": {"gang": {"minCount": 1}}}]}}

    objs = [
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "c"}, "value": 100},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "d"}, "value": 500},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "nv"}, "value": 10, "preemptionPolicy": "Never"},
        {"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
         "metadata": {"name": "old", "namespace": "n"},
         "spec": {"priorityClassName": "nv", "podGroups": [{"name": "pg",
                                                            "policy": {"basic": {}}}]}},
        workload("n"),
        workload("m"),
        group("m", "pg", preemptionPolicy="Never"),
        group("n", "other", preemptionPolicy="Never"),
        group("n", "pg", priorityClassName="c", priority=900),
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "q", "namespace": "n"},
         "spec": {"nodeName": "x", "priorityClassName": "d"}, "status": {"phase": "Running"}},
    ]
    docs = [ingest.Document(Source("t", i + 1), o) for i, o in enumerate(objs)]
    assert [
        ("PodGroup n/pg", "PodGroup n/pg has priority 900, but PriorityClass 'c' is now 100 "
         "(re-created with another value; the group and its pods keep the old value); it can "
         "preempt pods created now with class 'c' (900 > 100), although they share its class; "
         "it can preempt 1 other (Pod n/q) with a preemption priority from 100 to 899, which "
         "its class's value would not allow"),
    ] == [(x.object, x.message) for x in drift.find(docs, ingest.build_snapshot(docs))]


def test_finished_pods_do_not_drift() -> None:
    """A Succeeded pod with an old spec.priority preempts nothing and is never a victim."""
    docs = [
        ingest.Document(Source("t", 1), {"apiVersion": "scheduling.k8s.io/v1",
                      "kind": "PriorityClass", "metadata": {"name": "c"}, "value": 100}),
        ingest.Document(Source("t", 2), {"apiVersion": "v1", "kind": "Pod",
                      "metadata": {"name": "p", "namespace": "n"},
                      "spec": {"priorityClassName": "c", "priority": 900},
                      "status": {"phase": "Succeeded"}}),
    ]
    assert () == drift.find(docs, ingest.build_snapshot(docs))


def test_kueue_fixture_findings() -> None:
    """kueue-jobs.yaml: sweep's WorkloadPriorityClass (1000) diverges from its pods' class
    (100); eval names a WorkloadPriorityClass that does not exist; train agrees."""
    code, doc = check_json(MANIFESTS / "kueue-jobs.yaml")
    got = [(x["rule"], x["object"]) for x in doc["findings"]]
    assert (1, [("kueue-priority-divergence", "Job team-b/sweep"),
                ("unknown-kueue-priority-class", "Job team-c/eval")]) == (code, got)


def test_kueue_label_is_annotated_on_its_line() -> None:
    """The Kueue finding points at the label's own line (53: the block-style label of sweep)."""
    lines = run("check-cycles", MANIFESTS / "kueue-jobs.yaml", "--format", "github").stdout
    first = lines.splitlines()[0]
    assert first.startswith(f"::error file={MANIFESTS / 'kueue-jobs.yaml'},line=53,")
    text = (MANIFESTS / "kueue-jobs.yaml").read_text().splitlines()
    assert "kueue.x-k8s.io/priority-class: prod-wpc" == text[52].strip()


def test_kueue_labels_without_kueue_objects_are_not_checked() -> None:
    """Without any WorkloadPriorityClass in the input the label cannot be judged: no finding."""
    text = (MANIFESTS / "kueue-jobs.yaml").read_text()
    docs = [d for d in text.split("\n---\n") if "kind: WorkloadPriorityClass" not in d]
    result = run("check-cycles", "-", "-o", "json", input="\n---\n".join(docs))
    assert (0, []) == (result.exit_code, json.loads(result.stdout)["findings"])


def test_kueue_findings_on_pod_templates_carry_the_controller_s_namespace() -> None:
    """Deployments of namespace prod whose pod templates carry the Kueue label: api names
    batch-wpc (1000) while its pods get priority 0 (no class, no globalDefault), web names a
    WorkloadPriorityClass that does not exist. Both findings are in namespace prod, the
    controller's own, which a user filters and groups findings by in the JSON report."""
    text = (
        "apiVersion: kueue.x-k8s.io/v1beta1\nkind: WorkloadPriorityClass\n"
        "metadata: {name: batch-wpc}\nvalue: 1000\n"
        + "".join(
            "---\napiVersion: apps/v1\nkind: Deployment\n"
            f"metadata: {{name: {name}, namespace: prod}}\nspec:\n  template:\n"
            f"    metadata: {{labels: {{kueue.x-k8s.io/priority-class: {wpc}}}}}\n"
            "    spec: {}\n"
            for name, wpc in (("api", "batch-wpc"), ("web", "gone"))
        )
    )
    result = run("check-cycles", "-", "-o", "json", input=text)
    got = [(x["rule"], x["object"], x["namespace"])
           for x in json.loads(result.stdout)["findings"]]
    assert (1, [("kueue-priority-divergence", "Deployment prod/api", "prod"),
                ("unknown-kueue-priority-class", "Deployment prod/web", "prod")]) == (
        result.exit_code, got)


# ---- --cluster ----------------------------------------------------------------------------------


def test_manifests_against_a_cluster_find_the_cycle_with_running_workloads() -> None:
    """new-training.yaml + cluster.yaml (hand-worked in new-training.yaml): the running
    batch/report-0 and the new training preempt each other."""
    code, doc = check_json(MANIFESTS / "new-training.yaml", "--cluster", CLUSTER)
    [cycle] = doc["cycles"]
    members = [(m["profile"], m["workloads"], m["pods"], m["templates"]) for m in cycle["members"]]
    expected = [
        ("500/500", [], ["batch/report-0"], []),
        ("1000/100", ["ml/training"], [], ["JobSet ml/training/workers"]),
    ]
    s = doc["summary"]
    assert (1, expected, 3, 4, ["ml/training"]) == (
        code, members, s["profiles"], s["edges"], [v["name"] for v in doc["violations"]]
    )
    assert {"cycles": 0, "violations": 0, "findings": 0} == s["outsideManifests"]
    # the new victims (hand-worked in new-training.yaml): the training (1000/100) can preempt
    # both running pods, batch/report-0 (500) and web/frontend-0 (100)
    assert [
        {
            "profile": "1000/100",
            "schedulingPriority": 1000,
            "preemptionPriority": 100,
            "preemptionPolicy": "PreemptLowerPriority",
            "members": ["JobSet ml/training/workers", "ml/training/workers"],
            "victims": ["batch/report-0", "web/frontend-0"],
            "counts": {"members": 2, "victims": 2},
        }
    ] == doc["newVictims"]


def test_manifests_alone_lack_the_clusters_classes() -> None:
    """Without --cluster the Workload names classes nothing defines: exit 2, one line."""
    result = run("check-cycles", MANIFESTS / "new-training.yaml")
    assert 2 == result.exit_code and "PriorityClass 'high' does not exist" in result.stderr


def test_cluster_problems_the_manifests_do_not_touch_are_left_out(tmp_path: Path) -> None:
    """The cluster's own drift is counted in outsideManifests, not reported; harmless
    manifests pass (exit 0)."""
    harmless = tmp_path / "web.yaml"
    harmless.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api, namespace: web}\n"
        "spec:\n  template:\n    spec:\n      priorityClassName: low\n"
    )
    code, doc = check_json(harmless, "--cluster", MANIFESTS / "drift.yaml")
    assert (0, [], {"cycles": 0, "violations": 0, "findings": 4}) == (
        code, doc["findings"], doc["summary"]["outsideManifests"]
    )


def test_a_cycle_of_the_cluster_alone_is_counted_outside(tmp_path: Path) -> None:
    """kep-ab.yaml (the KEP's A/B ping-pong, one cycle) as the cluster; the manifests add a
    Deployment at low that takes part in no cycle: the cluster's cycle is not reported, it
    is counted in outsideManifests, and the manifests pass."""
    harmless = tmp_path / "web.yaml"
    harmless.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api, namespace: web}\n"
        "spec:\n  template:\n    spec:\n      priorityClassName: low\n"
    )
    code, doc = check_json(harmless, "--cluster", ROOT / "fixtures" / "cycles" / "kep-ab.yaml")
    assert (0, []) == (code, doc["cycles"])
    assert 1 == doc["summary"]["outsideManifests"]["cycles"]


@pytest.mark.parametrize(("namespace", "outside"), [("web", 0), ("ml", 1)])
def test_namespace_limits_the_clusters_cycles_counted_outside(
    tmp_path: Path, namespace: str, outside: int
) -> None:
    """As above, with --namespace: the cluster's one cycle runs through ml/training and
    batch/report, so it is counted outside the manifests for -n ml (or batch), and for -n web
    it is no cycle of the namespace at all: 0, not 1."""
    harmless = tmp_path / "web.yaml"
    harmless.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api, namespace: web}\n"
        "spec:\n  template:\n    spec:\n      priorityClassName: low\n"
    )
    kep_ab = ROOT / "fixtures" / "cycles" / "kep-ab.yaml"
    code, doc = check_json(harmless, "--cluster", kep_ab, "-n", namespace)
    assert (0, [], outside) == (code, doc["cycles"], doc["summary"]["outsideManifests"]["cycles"])


SCOPE_CLUSTER = """\
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: low}
value: 100
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
---
apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata: {name: train, namespace: batch}
spec:
  priorityClassName: low
  podGroups:
  - name: workers
    policy: {gang: {minCount: 1}}
---
apiVersion: v1
kind: Pod
metadata: {name: train-0, namespace: batch}
spec:
  nodeName: n1
  priorityClassName: low
  workloadRef: {name: train, podGroup: workers}
  containers: [{name: c, image: i}]
status: {phase: Running, startTime: "2026-01-10T08:00:05Z"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: web}
spec:
  template:
    spec: {priorityClassName: high, containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Pod
metadata: {name: api-0, namespace: web}
spec:
  nodeName: n1
  priorityClassName: high
  containers: [{name: c, image: i}]
status: {phase: Running, startTime: "2026-01-10T08:00:05Z"}
"""


def test_a_redefined_class_brings_its_cluster_members_and_their_running_victims(
        tmp_path: Path) -> None:
    """The cluster: batch/train (a Workload at low=100, one pod running), Deployment web/api
    and its running pod web/api-0 at high=1000. The manifests re-create PriorityClass high
    (same value): everything naming high is in scope (re-defining a class moves it), so the
    template and the pod are manifest members, and what they can preempt is the running pod
    group batch/train/workers (a group counts when one of its pods runs)."""
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(SCOPE_CLUSTER, encoding="utf-8")
    manifests = tmp_path / "high.yaml"
    manifests.write_text("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
                         "metadata: {name: high}\nvalue: 1000\n", encoding="utf-8")
    _, doc = check_json(manifests, "--cluster", cluster)
    assert [("1000/1000", ["Deployment web/api", "web/api-0"], ["batch/train/workers"])] == [
        (e["profile"], e["members"], e["victims"]) for e in doc["newVictims"]]


def test_namespace_filter_keeps_a_cycle_of_templates_in_that_namespace() -> None:
    """chart-cycle.yaml's one cycle runs through templates of namespaces web, batch and ml
    (its 500/500 vertex holds only templates): --namespace web keeps it, --namespace other
    has none."""
    chart = MANIFESTS / "chart-cycle.yaml"
    assert 1 == len(check_json(chart, "--namespace", "web")[1]["cycles"])
    assert 0 == len(check_json(chart, "--namespace", "other")[1]["cycles"])


def test_unknown_class_resolved_by_the_cluster(tmp_path: Path) -> None:
    """A template's class missing from the manifests but defined in the cluster is fine."""
    dep = tmp_path / "d.yaml"
    dep.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api, namespace: web}\n"
        "spec:\n  template:\n    spec:\n      priorityClassName: medium\n"
    )
    assert 1 == run("check-cycles", dep).exit_code
    code, doc = check_json(dep, "--cluster", CLUSTER)
    assert (0, []) == (code, doc["findings"])


def test_unknown_class_of_a_manifest_template_is_reported_against_the_cluster(
        tmp_path: Path) -> None:
    """A manifest's Deployment naming a class neither the manifests nor the cluster define
    (cluster.yaml has low, medium, high) is the manifest's own finding: --cluster reports it
    (exit 1) and does not count it among the findings outside the manifests, although its
    class is not one the manifests define."""
    dep = tmp_path / "d.yaml"
    dep.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api, namespace: web}\n"
        "spec:\n  template:\n    spec:\n      priorityClassName: nope\n"
    )
    code, doc = check_json(dep, "--cluster", CLUSTER)
    assert (1, [("unknown-priority-class", "Deployment web/api",
                 "spec.template.spec.priorityClassName")], 0) == (
        code, [(x["rule"], x["object"], x["field"]) for x in doc["findings"]],
        doc["summary"]["outsideManifests"]["findings"])


def test_a_manifest_class_recreation_shows_drift_of_running_pods(tmp_path: Path) -> None:
    """Manifests that re-define a class the cluster's pods use: their drift is in scope."""
    code, doc = check_json(MANIFESTS / "recreate-medium.yaml", "--cluster", CLUSTER)
    assert (1, [("priority-drift", "Pod batch/report-0")]) == (
        code, [(x["rule"], x["object"]) for x in doc["findings"]]
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--cluster", CLUSTER], "--cluster needs manifests to check against it (give files or -)"),
        ([MANIFESTS / "new-training.yaml", "--cluster", CLUSTER, "--context", "x"],
         "give --cluster SNAPSHOT or --kubeconfig/--context, not both"),
        (["-", "--cluster", "-"], "stdin (-) can hold the manifests or the cluster, not both"),
    ],
    ids=["no-manifests", "cluster-and-context", "stdin-twice"],
)
def test_cluster_usage_errors(args: list[object], message: str) -> None:
    """Contradicting sources are usage errors (exit 2, one line)."""
    result = run("check-cycles", *args, input="")
    assert (2, f"error: {message}\n") == (result.exit_code, result.stderr)


# ---- audit of a class re-creation -----------------------------------------------------------


def test_audit_of_a_class_recreation_lists_pods_keeping_the_old_value() -> None:
    """recreate-medium.yaml on cluster.yaml: report-0 keeps 500; exit 0 (information). Each
    entry is a finding of check-cycles' priority-drift rule, named so in the JSON."""
    result = run("audit", CLUSTER, "--change", MANIFESTS / "recreate-medium.yaml", "-o", "json")
    doc = json.loads(result.stdout)
    kept = [(x["rule"], x["object"], x["namespace"], x["field"]) for x in doc["keptOldPriority"]]
    assert (0, [("priority-drift", "Pod batch/report-0", "batch", "spec.priority")], 1) == (
        result.exit_code, kept, doc["summary"]["keptOldPriority"]
    )


def test_audit_pod_without_spec_priority_keeps_the_value_before() -> None:
    """A running pod without spec.priority was still admitted at the class's old value."""
    text = CLUSTER.read_text().replace("    priority: 500\n", "")
    result = run("audit", "-", "--change", MANIFESTS / "recreate-medium.yaml", "-o", "json",
                 input=text)
    [x] = json.loads(result.stdout)["keptOldPriority"]
    assert ("Pod batch/report-0", "spec.priorityClassName") == (x["object"], x["field"])
    assert x["message"].startswith("Pod batch/report-0 keeps priority 500: PriorityClass 'medium'")


@pytest.mark.parametrize(
    ("written", "kept"),
    [
        (300, ["Pod batch/report-0 keeps priority 300: PriorityClass 'medium' goes from 500 "
               "to 800"]),
        (800, []),
    ],
    ids=["admitted-before-an-earlier-recreation", "already-at-the-new-value"],
)
def test_audit_takes_a_pod_s_written_spec_priority_as_admitted(
    written: int, kept: list[str]
) -> None:
    """A running pod keeps the spec.priority it was written with, not necessarily the class's
    value before the change: report-0 written at 300 (admitted under an older `medium`) keeps
    300; written at 800 it already has the value `medium` is re-created with, and is not
    listed."""
    text = CLUSTER.read_text().replace("    priority: 500\n", f"    priority: {written}\n")
    result = run("audit", "-", "--change", MANIFESTS / "recreate-medium.yaml", "-o", "json",
                 input=text)
    doc = json.loads(result.stdout)
    assert (0, kept) == (
        result.exit_code, [x["message"].partition(",")[0] for x in doc["keptOldPriority"]]
    )


def test_audit_of_a_class_recreation_reads_core_pods_only() -> None:
    """A custom resource of kind Pod (example.com/v1) with report-0's name and class is no
    pod: report-0 is listed once."""
    foreign = ("- {apiVersion: example.com/v1, kind: Pod, metadata: {name: report-0, "
               "namespace: batch}, spec: {priorityClassName: medium}}\n")
    result = run("audit", "-", "--change", MANIFESTS / "recreate-medium.yaml", "-o", "json",
                 input=CLUSTER.read_text() + foreign)
    kept = [(x["object"], x["field"]) for x in json.loads(result.stdout)["keptOldPriority"]]
    assert (0, [("Pod batch/report-0", "spec.priority")]) == (result.exit_code, kept)


def test_new_victims_only_with_a_cluster() -> None:
    """Without --cluster there is no 'running cluster' to be a victim: newVictims is []."""
    _, doc = check_json(MANIFESTS / "chart-cycle.yaml")
    assert [] == doc["newVictims"]


def test_pending_cluster_pods_are_not_new_victims(tmp_path: Path) -> None:
    """Only running pods are victims: the same cluster with report-0 pending lists only
    web/frontend-0."""
    pending = tmp_path / "cluster.yaml"
    pending.write_text(CLUSTER.read_text().replace(
        "  metadata: {name: report-0, namespace: batch}\n  spec:\n    nodeName: n1\n",
        "  metadata: {name: report-0, namespace: batch}\n  spec:\n",
    ))
    _, doc = check_json(MANIFESTS / "new-training.yaml", "--cluster", pending)
    assert [["web/frontend-0"]] == [e["victims"] for e in doc["newVictims"]]


def test_manifests_against_a_live_cluster(apiserver: Any, tmp_path: Path) -> None:
    """Manifests with --kubeconfig read the cluster live (GET only) and report exactly what
    --cluster with a file of the same objects reports."""
    import yaml

    objects = yaml.safe_load(CLUSTER.read_text())["items"]
    fake = apiserver(objects)
    kc = fake.write_kubeconfig(tmp_path / "kc")
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    live = run("check-cycles", MANIFESTS / "new-training.yaml", "--kubeconfig", kc, "-o", "json")
    from_file = run("check-cycles", MANIFESTS / "new-training.yaml", "--cluster", snap,
                    "-o", "json")
    assert (1, from_file.stdout) == (live.exit_code, live.stdout)
    assert 1 == json.loads(live.stdout)["summary"]["cycles"]
    assert {"GET"} == fake.methods()


def test_table_shows_the_first_50_findings_and_counts_the_rest(tmp_path: Path) -> None:
    """A re-created class under 60 running pods: 60 drift findings; the table lists 50 (and 50
    fixes) and says how many more -o json lists, which has all 60."""
    import yaml

    objs = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
             "metadata": {"name": "c"}, "value": 200}]
    objs += [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i:02}", "namespace": "n"},
              "spec": {"nodeName": "x", "priorityClassName": "c", "priority": 100},
              "status": {"phase": "Running"}} for i in range(60)]
    path = tmp_path / "many.yaml"
    path.write_text(yaml.safe_dump_all(objs))
    wide = CliRunner().invoke(app, ["check-cycles", str(path), "--no-color"],
                              env={"COLUMNS": "300"})
    lines = wide.stdout.splitlines()
    more = "... and 10 more findings (-o json or -o sarif lists all)"
    assert (1, 2) == (wide.exit_code, lines.count(more))
    assert 50 == sum(1 for line in lines if line.strip().startswith("- Pod n/p"))
    assert 60 == len(check_json(path)[1]["findings"])


# ---- a cluster group in scope through its preemption class only (issue 30) -----------------

_PREEMPTION_CLASS_CLUSTER = """\
apiVersion: v1
kind: List
items:
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: low}, value: 100}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: cheap}, value: 50}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: protect}, value: 200}
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "8", pods: "9"}}}
- apiVersion: scheduling.k8s.io/v1alpha1
  kind: Workload
  metadata: {name: train, namespace: batch}
  spec:
    priorityClassName: low
    preemptionPriorityClassName: protect
    podGroups:
    - name: workers
      policy: {gang: {minCount: 1}}
- apiVersion: v1
  kind: Pod
  metadata: {name: cheap-0, namespace: web}
  spec:
    nodeName: n1
    priorityClassName: cheap
    priority: 50
    containers: [{name: c, resources: {requests: {cpu: "1"}}}]
  status: {phase: Running}
"""

# the same cluster with the Workload as v1alpha2 and no PodGroup yet: its template
_PREEMPTION_CLASS_TEMPLATE_CLUSTER = _PREEMPTION_CLASS_CLUSTER.replace(
    "scheduling.k8s.io/v1alpha1", "scheduling.k8s.io/v1alpha2").replace(
    "    podGroups:\n    - name: workers\n      policy:",
    "    podGroupTemplates:\n    - name: workers\n      schedulingPolicy:")


def _recreate_protect(tmp_path: Path, cluster_text: str, value: int) -> tuple[int, Any]:
    """check-cycles --cluster (``cluster_text``) on manifests re-creating PriorityClass
    protect with ``value``: (exit code, JSON document)."""
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(cluster_text)
    change = tmp_path / "recreate-protect.yaml"
    change.write_text("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
                      f"metadata: {{name: protect}}\nvalue: {value}\n")
    return check_json(change, "--cluster", cluster)


@pytest.mark.parametrize(("text", "member"), [
    (_PREEMPTION_CLASS_CLUSTER, "batch/train/workers"),
    (_PREEMPTION_CLASS_TEMPLATE_CLUSTER, "Workload batch/train/workers"),
], ids=["v1alpha1-group", "v1alpha2-template"])
def test_a_cluster_group_naming_a_recreated_class_only_for_preemption_is_in_scope(
        tmp_path: Path, text: str, member: str) -> None:
    """The manifests re-create PriorityClass protect (200 -> 1000). The cluster's Workload
    batch/train names it only as preemptionPriorityClassName (its scheduling class low and
    the Workload itself are the cluster's), so only that name puts batch/train/workers in the
    manifests' scope: a v1alpha1 group, or a v1alpha2 template no PodGroup instantiates yet.
    Its profile is low/protect = 100/1000; the running web/cheap-0 is 50/50 and 100 > 50: a
    new victim. No cycle (50 < 1000) and no violation (1000 >= 100): exit 0. (Issue 30: with
    the group's preemption class ignored in graph.in_scope, newVictims is empty; the
    template's was ignored until a sample's survivor led to it.)"""
    code, doc = _recreate_protect(tmp_path, text, 1000)
    assert 0 == code
    assert [("100/1000", [member], ["web/cheap-0"])] == [
        (x["profile"], x["members"], x["victims"]) for x in doc["newVictims"]]
    table = run("check-cycles", tmp_path / "recreate-protect.yaml", "--cluster",
                tmp_path / "cluster.yaml").stdout
    assert f"100/1000 [{member}]   web/cheap-0" in table


def test_a_cluster_violation_naming_a_recreated_class_only_for_preemption_is_reported(
        tmp_path: Path) -> None:
    """The manifests re-create PriorityClass protect (200 -> 50). The cluster's Workload
    batch/train names it only as preemptionPriorityClassName (scheduling class low = 100), so
    its pod group now preempts at 50 < 100: a KEP-5710 violation the manifests cause. Its
    preemption class alone puts it in scope: it is reported (exit 1), not counted outside.
    No cycle: 100/50 holds one unit and web/cheap-0 (50/50) cannot preempt back (50 > 50
    is false)."""
    code, doc = _recreate_protect(tmp_path, _PREEMPTION_CLASS_CLUSTER, 50)
    assert (1, 0, 1, 0) == (code, doc["summary"]["cycles"], doc["summary"]["violations"],
                            doc["summary"]["outsideManifests"]["violations"])
    [v] = doc["violations"]
    assert ("low", "protect") == (v["priorityClassName"], v["preemptionPriorityClassName"])


def test_a_pod_naming_another_class_than_its_group_s_points_at_its_class_field() -> None:
    """A pod of a v1alpha1 Workload's group (class high = 2000) that names class low (10) and
    writes no spec.priority: its own priority comes from the class, so the
    podgroup-priority-divergence finding points at spec.priorityClassName, the field to
    change (with spec.priority written, at spec.priority: test_drift_fixture_findings)."""
    text = """\
apiVersion: v1
kind: List
items:
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: low}, value: 10}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 2000}
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "8", pods: "9"}}}
- apiVersion: scheduling.k8s.io/v1alpha1
  kind: Workload
  metadata: {name: agent, namespace: ops}
  spec:
    priorityClassName: high
    podGroups:
    - name: main
      policy: {basic: {}}
- apiVersion: v1
  kind: Pod
  metadata: {name: agent-0, namespace: ops}
  spec:
    nodeName: n1
    workloadRef: {name: agent, podGroup: main}
    priorityClassName: low
    containers: [{name: c, resources: {requests: {cpu: "1"}}}]
  status: {phase: Running}
"""
    result = run("check-cycles", "-", "-o", "json", input=text)
    doc = json.loads(result.stdout)
    assert (1, [("podgroup-priority-divergence", "Pod ops/agent-0", "spec.priorityClassName")]
            ) == (result.exit_code, [(x["rule"], x["object"], x["field"]) for x in doc["findings"]])


@pytest.mark.parametrize(
    ("body", "line"),
    [
        ("metadata: {}\nvalue: 5\n",
         "error: {f}:1, document 1, field metadata.name: missing (required)\n"),
        ("metadata: {name: ''}\nvalue: 5\n",
         "error: {f}:1, document 1, field metadata.name: missing (required)\n"),
        ("metadata: {name: w}\nvalue: high\n",
         "error: WorkloadPriorityClass w ({f}:1, document 1, field value): must be an integer, "
         "not a string\n"),
        ("metadata: {name: w}\nvalue: true\n",
         "error: WorkloadPriorityClass w ({f}:1, document 1, field value): must be an integer, "
         "not a boolean\n"),
        ("metadata: {name: 5}\nvalue: 5\n",
         "error: {f}:1, document 1, field metadata.name: must be a string, not a number\n"),
        ("metadata: {name: w}\n",
         "error: WorkloadPriorityClass w ({f}:1, document 1, field value): missing (required)\n"),
        ("metadata: {name: w}\nvalue: 1.5\n",
         "error: WorkloadPriorityClass w ({f}:1, document 1, field value): must be an integer, "
         "not a decimal number\n"),
        # Kueue's WorkloadPriorityClass.value is an int32, as a PriorityClass's
        ("metadata: {name: w}\nvalue: 3000000000\n",
         "error: WorkloadPriorityClass w ({f}:1, document 1, field value): 3000000000 is out of "
         "range: a priority is a 32-bit integer (-2147483648 to 2147483647)\n"),
        ("metadata: [w]\nvalue: 5\n",
         "error: {f}:1, document 1, field metadata: must be a mapping, not a list\n"),
    ],
    ids=["no-name", "empty-name", "value-string", "value-boolean", "name-number",
         "no-value", "value-decimal", "value-over-int32", "metadata-list"],
)
def test_a_malformed_kueue_class_is_one_line(tmp_path: Path, body: str, line: str) -> None:
    """A Kueue WorkloadPriorityClass without a name or with a value that is no integer: exit 2,
    the line names the class (when it has a name), the file and the field."""
    path = tmp_path / "wpc.yaml"
    path.write_text("apiVersion: kueue.x-k8s.io/v1beta1\nkind: WorkloadPriorityClass\n" + body)
    result = run("check-cycles", path)
    assert (2, line.replace("{f}", str(path))) == (result.exit_code, result.stderr)


HIGH = ("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\n"
        "value: 1000\n---\n")


def test_drift_of_a_pod_written_without_a_namespace(tmp_path: Path) -> None:
    """A manifest pod without metadata.namespace lives in "default", as the API server puts it:
    its spec.priority 500 under class high (now 1000) is drift on Pod default/p."""
    path = tmp_path / "p.yaml"
    path.write_text(HIGH + "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
                    "  priorityClassName: high\n  priority: 500\n  containers: [{name: c}]\n")
    code, doc = check_json(path)
    assert (1, [("priority-drift", "Pod default/p", "default", "spec.priority")]) == (
        code, [(x["rule"], x["object"], x["namespace"], x["field"]) for x in doc["findings"]])


def test_kueue_label_of_a_pod_is_checked(tmp_path: Path) -> None:
    """Pods, not only templates, carry the Kueue label: p names wpc (1000) but schedules at
    class low's 100, a divergence; q names a WorkloadPriorityClass that does not exist."""
    path = tmp_path / "k.yaml"
    pods = "".join(
        f"---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: t\n"
        f"  labels: {{kueue.x-k8s.io/priority-class: {wpc}}}\n"
        "spec: {priorityClassName: low, containers: [{name: c}]}\n"
        for name, wpc in (("p", "wpc"), ("q", "nope")))
    path.write_text(
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: low}\n"
        "value: 100\n---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: WorkloadPriorityClass\n"
        "metadata: {name: wpc}\nvalue: 1000\n" + pods)
    code, doc = check_json(path)
    assert (1, [("kueue-priority-divergence", "Pod t/p"),
                ("unknown-kueue-priority-class", "Pod t/q")]) == (
        code, [(x["rule"], x["object"]) for x in doc["findings"]])


def test_kueue_label_of_a_pod_without_kueue_objects_is_not_checked(tmp_path: Path) -> None:
    """A pod labelled with a Kueue class, and no WorkloadPriorityClass anywhere in the input:
    the label cannot be judged (the classes live in the cluster), so no finding, exit 0."""
    path = tmp_path / "k.yaml"
    path.write_text(
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: low}\n"
        "value: 100\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: t\n"
        "  labels: {kueue.x-k8s.io/priority-class: wpc}\n"
        "spec: {priorityClassName: low, containers: [{name: c}]}\n")
    code, doc = check_json(path)
    assert (0, []) == (code, doc["findings"])


def test_kueue_divergence_message_whole(tmp_path: Path) -> None:
    """The kueue-priority-divergence finding, whole: a user relies on its message naming both
    numbers and who uses each (Kueue's WorkloadPriorityClass wpc 1000 for queueing, the pods'
    100 of class low for kube-scheduler's preemption) and its fix naming the value to set."""
    path = tmp_path / "k.yaml"
    path.write_text(
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: low}\n"
        "value: 100\n---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: WorkloadPriorityClass\n"
        "metadata: {name: wpc}\nvalue: 1000\n---\napiVersion: v1\nkind: Pod\nmetadata:\n"
        "  name: p\n  namespace: t\n  labels: {kueue.x-k8s.io/priority-class: wpc}\n"
        "spec: {priorityClassName: low, containers: [{name: c}]}\n")
    code, doc = check_json(path)
    assert (1, [(
        "kueue-priority-divergence",
        "Pod t/p: Kueue's WorkloadPriorityClass 'wpc' gives it 1000 (Kueue queues and preempts "
        "workloads by it), but its pods' priority is 100 (class low) (kube-scheduler preempts "
        "pods by it): the two disagree on who may preempt whom",
        "give WorkloadPriorityClass 'wpc' the value 100, or label it with a "
        "WorkloadPriorityClass of value 100",
    )]) == (code, [(x["rule"], x["message"], x["fix"]) for x in doc["findings"]])


def _docs(*objs: dict[str, Any]) -> list[ingest.Document]:
    return [ingest.Document(Source("t", i + 1), o) for i, o in enumerate(objs)]


_LOW = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
        "metadata": {"name": "low"}, "value": 100}
_KUEUE_FIELD = 'metadata.labels["kueue.x-k8s.io/priority-class"]'


def _wpc(name: str, value: int) -> dict[str, Any]:
    return {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "WorkloadPriorityClass",
            "metadata": {"name": name}, "value": value}


def _labelled_pod(name: str, wpc: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "t",
                         "labels": {"kueue.x-k8s.io/priority-class": wpc}},
            "spec": {"containers": [{"name": "c"}], **spec}}


def test_unknown_kueue_class_finding_whole() -> None:
    """The unknown-kueue-priority-class finding, whole: a user relies on its message listing
    every WorkloadPriorityClass the input knows (sorted, comma-separated: a, wpc), its fix
    naming the class to create, and its field pointing at the label (that is the line CI
    annotates). Hand-worked: Pod t/q is labelled nope; the input has WorkloadPriorityClasses
    wpc and a, so Kueue will not admit q."""
    docs = _docs(_LOW, _wpc("wpc", 1000), _wpc("a", 5),
                 _labelled_pod("q", "nope", priorityClassName="low"))
    assert [(
        "unknown-kueue-priority-class", "Pod t/q", "t",
        "Pod t/q: label kueue.x-k8s.io/priority-class=nope names no WorkloadPriorityClass "
        "(known: a, wpc); Kueue will not admit it",
        _KUEUE_FIELD,
        "create WorkloadPriorityClass 'nope' or name an existing one",
        Source("t", 4),
    )] == [(x.rule, x.object, x.namespace, x.message, x.field, x.fix, x.source)
           for x in drift.find(docs, ingest.build_snapshot(docs))]


def test_kueue_divergence_of_a_pod_without_a_class_names_no_class() -> None:
    """A pod labelled with a WorkloadPriorityClass but naming no PriorityClass schedules at 0
    (no globalDefault class): the kueue-priority-divergence message says "its pods' priority
    is 0" and names no class (not "(class None)"). Hand-worked: wpc is 1000, p's priority 0."""
    docs = _docs(_wpc("wpc", 1000), _labelled_pod("p", "wpc"))
    assert [(
        "kueue-priority-divergence", "Pod t/p", "t",
        "Pod t/p: Kueue's WorkloadPriorityClass 'wpc' gives it 1000 (Kueue queues and preempts "
        "workloads by it), but its pods' priority is 0 (kube-scheduler preempts pods by it): "
        "the two disagree on who may preempt whom",
        _KUEUE_FIELD,
        "give WorkloadPriorityClass 'wpc' the value 0, or label it with a "
        "WorkloadPriorityClass of value 0",
    )] == [(x.rule, x.object, x.namespace, x.message, x.field, x.fix)
           for x in drift.find(docs, ingest.build_snapshot(docs))]


def _workload_and_group(name: str, **spec: Any) -> list[dict[str, Any]]:
    return [
        {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "Workload",
         "metadata": {"name": f"w-{name}", "namespace": "n"},
         "spec": {"podGroupTemplates": [{"name": "t",
                                         "schedulingPolicy": {"gang": {"minCount": 1}}}]}},
        {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "PodGroup",
         "metadata": {"name": name, "namespace": "n"},
         "spec": {"workloadRef": {"workloadName": f"w-{name}", "templateName": "t"}, **spec}},
    ]


def test_pod_group_drift_finding_whole_and_only_for_drifted_groups() -> None:
    """The priority-drift finding of a PodGroup, whole (namespace, field, fix), and only for a
    group whose spec.priority differs from its class's current value. Hand-worked: class c
    re-created 900 -> 100. PodGroup n/pg (class c, priority 900) drifted: its fix says to
    recreate it so it takes 100 or give c back 900; no pod or template exists, so the message
    names no one else. n/same (class c, priority 100) agrees; n/unset (class c, no
    spec.priority: nothing written to compare) and n/classless (priority 900, no class) have
    nothing to drift from: no finding for them."""
    docs = _docs(
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "c"}, "value": 100},
        *_workload_and_group("pg", priorityClassName="c", priority=900),
        *_workload_and_group("same", priorityClassName="c", priority=100),
        *_workload_and_group("unset", priorityClassName="c"),
        *_workload_and_group("classless", priority=900),
    )
    assert [(
        "priority-drift", "PodGroup n/pg", "n",
        "PodGroup n/pg has priority 900, but PriorityClass 'c' is now 100 (re-created with "
        "another value; the group and its pods keep the old value); it can preempt pods "
        "created now with class 'c' (900 > 100), although they share its class",
        "spec.priority",
        "recreate the PodGroup (and its pods) so it takes 100, or give class 'c' back its "
        "value 900",
        Source("t", 3),
    )] == [(x.rule, x.object, x.namespace, x.message, x.field, x.fix, x.source)
           for x in drift.find(docs, ingest.build_snapshot(docs))]


def test_findings_of_cluster_objects_naming_a_redefined_class_are_in_scope(
        tmp_path: Path) -> None:
    """Manifests that re-define a class bring every cluster object naming it into scope, and
    so their findings: a drifted PodGroup n/pg of class c (priority 900, c now 100) and a
    Pod t/p of class c whose WorkloadPriorityClass wpc (1000) disagrees with its 100. Both
    come from the cluster file, so only their class puts them in scope: they are reported
    (exit 1), and none is counted outside the manifests."""
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "c"}, "value": 100},
        *_workload_and_group("pg", priorityClassName="c", priority=900),
        _wpc("wpc", 1000),
        _labelled_pod("p", "wpc", priorityClassName="c"),
    ]}), encoding="utf-8")
    manifests = tmp_path / "c.yaml"
    manifests.write_text("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
                         "metadata: {name: c}\nvalue: 100\n", encoding="utf-8")
    code, doc = check_json(manifests, "--cluster", cluster)
    assert (1, [("kueue-priority-divergence", "Pod t/p"), ("priority-drift", "PodGroup n/pg")],
            0) == (code, [(x["rule"], x["object"]) for x in doc["findings"]],
                   doc["summary"]["outsideManifests"]["findings"])


# ---- which cluster members the manifests bring into scope, and which are victims --------------

# v1alpha2: the Workload batch/train (template workers, class low = 100) and its PodGroup
# object batch/workers (a separate document), one pod of it running; web/cheap-0 (50) runs too
_V1ALPHA2_CLUSTER = """\
apiVersion: v1
kind: List
items:
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: low}, value: 100}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: cheap}, value: 50}
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "8", pods: "9"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: cheap-0, namespace: web}
  spec:
    nodeName: n1
    priorityClassName: cheap
    containers: [{name: c, resources: {requests: {cpu: "1"}}}]
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: train-0, namespace: batch}
  spec:
    nodeName: n1
    priorityClassName: low
    schedulingGroup: {podGroupName: workers}
    containers: [{name: c, resources: {requests: {cpu: "1"}}}]
  status: {phase: Running}
"""

_V1ALPHA2_WORKLOAD = """\
apiVersion: scheduling.k8s.io/v1alpha2
kind: Workload
metadata: {name: train, namespace: batch}
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy: {gang: {minCount: 1}}
    priorityClassName: low
"""

_V1ALPHA2_POD_GROUP = """\
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: workers, namespace: batch}
spec:
  podGroupTemplateRef:
    workload: {workloadName: train, podGroupTemplateName: workers}
  schedulingPolicy: {gang: {minCount: 1}}
  priorityClassName: low
  priority: 100
"""


@pytest.mark.parametrize(("in_cluster", "in_manifests"), [
    (_V1ALPHA2_POD_GROUP, _V1ALPHA2_WORKLOAD),
    (_V1ALPHA2_WORKLOAD, _V1ALPHA2_POD_GROUP),
], ids=["manifests-hold-the-workload", "manifests-hold-the-pod-group"])
def test_a_v1alpha2_pod_group_is_in_scope_through_its_own_or_its_workload_s_document(
        tmp_path: Path, in_cluster: str, in_manifests: str) -> None:
    """A v1alpha2 pod group is two documents, the Workload and the PodGroup object; the
    manifests holding either one of them bring the group batch/train/workers into scope
    (its class low is the cluster's, so nothing else does). Its profile is 100/100 and the
    running web/cheap-0 is 50/50: a new victim of the manifests (100 > 50). Exit 0: no cycle,
    no violation."""
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(_V1ALPHA2_CLUSTER + "---\n" + in_cluster, encoding="utf-8")
    manifests = tmp_path / "manifests.yaml"
    manifests.write_text(in_manifests, encoding="utf-8")
    code, doc = check_json(manifests, "--cluster", cluster)
    assert (0, [("100/100", ["batch/train/workers"], ["web/cheap-0"])]) == (code, [
        (e["profile"], e["members"], e["victims"]) for e in doc["newVictims"]])


def test_a_redefined_scheduling_class_brings_a_cluster_pod_group_into_scope(
        tmp_path: Path) -> None:
    """The manifests re-create PriorityClass low (same value, 100). The cluster's v1alpha1
    Workload batch/train names low as its scheduling class (and protect = 200 for preemption):
    re-defining low moves the group, so batch/train/workers (100/200) is the manifests'
    member and the running web/cheap-0 (50/50) its new victim (100 > 50). (The preemption
    class alone bringing it in: issue 30's test above.)"""
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(_PREEMPTION_CLASS_CLUSTER, encoding="utf-8")
    manifests = tmp_path / "low.yaml"
    manifests.write_text("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
                         "metadata: {name: low}\nvalue: 100\n", encoding="utf-8")
    _, doc = check_json(manifests, "--cluster", cluster)
    assert [("100/200", ["batch/train/workers"], ["web/cheap-0"])] == [
        (e["profile"], e["members"], e["victims"]) for e in doc["newVictims"]]


def test_a_manifest_pod_of_a_cluster_class_is_the_manifests_member(tmp_path: Path) -> None:
    """SCOPE_CLUSTER with manifests holding a bare (pending) Pod web/new-0 of the cluster's
    class high = 1000: it comes from the manifests, so it is in scope although its class is
    not theirs, and it can preempt the running group batch/train/workers (100); web/api-0
    (1000) is not lower. The cluster's Deployment web/api shares the profile but is not
    listed: it is not the manifests'."""
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(SCOPE_CLUSTER, encoding="utf-8")
    manifests = tmp_path / "pod.yaml"
    manifests.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: new-0, namespace: web}\n"
                         "spec:\n  priorityClassName: high\n  containers: [{name: c, image: i}]\n",
                         encoding="utf-8")
    _, doc = check_json(manifests, "--cluster", cluster)
    assert [("1000/1000", ["web/new-0"], ["batch/train/workers"])] == [
        (e["profile"], e["members"], e["victims"]) for e in doc["newVictims"]]


def test_a_cluster_pod_group_with_no_running_pod_is_no_new_victim(tmp_path: Path) -> None:
    """SCOPE_CLUSTER with the pod group batch/train/workers's only pod pending, and a running
    pod batch/solo-0 of class low (100): the manifests re-create high, so Deployment web/api
    and web/api-0 (1000/1000) are theirs, and of the lower running workloads only
    batch/solo-0 is a victim. A group counts when one of its pods runs; a pending pod does
    not make it one (nothing of it runs to be preempted)."""
    pending = SCOPE_CLUSTER.replace(
        "metadata: {name: train-0, namespace: batch}\nspec:\n  nodeName: n1\n",
        "metadata: {name: train-0, namespace: batch}\nspec:\n",
    ).replace("workloadRef: {name: train, podGroup: workers}\n  containers: [{name: c, image: i}]\n"
              "status: {phase: Running, startTime: \"2026-01-10T08:00:05Z\"}\n",
              "workloadRef: {name: train, podGroup: workers}\n  containers: [{name: c, image: i}]\n"
              "status: {phase: Pending}\n")
    assert pending.count("status: {phase: Pending}") == 1
    solo = ("---\napiVersion: v1\nkind: Pod\nmetadata: {name: solo-0, namespace: batch}\n"
            "spec:\n  nodeName: n1\n  priorityClassName: low\n  containers: [{name: c, image: i}]\n"
            "status: {phase: Running}\n")
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(pending + solo, encoding="utf-8")
    manifests = tmp_path / "high.yaml"
    manifests.write_text("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
                         "metadata: {name: high}\nvalue: 1000\n", encoding="utf-8")
    _, doc = check_json(manifests, "--cluster", cluster)
    assert [("1000/1000", ["Deployment web/api", "web/api-0"], ["batch/solo-0"])] == [
        (e["profile"], e["members"], e["victims"]) for e in doc["newVictims"]]
