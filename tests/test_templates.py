"""Controllers' pod templates as members of the priority graph (templates.py, graph.py): every
controller kind, priorities as for a pod, pod-group membership, unknown classes as findings,
and the KEP ping-pong written as two JobSets."""

from __future__ import annotations

import datetime
import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from wapctl import graph, ingest
from wapctl.cli import app
from wapctl.errors import InputError, Source
from wapctl.graph import Profile
from wapctl.workload_api import V1ALPHA2

ROOT = Path(__file__).resolve().parent.parent
MANIFESTS = ROOT / "fixtures" / "manifests"

# two classes, low (100) and high (1000): the documents on lines 1-9
LOW_AND_HIGH = """\
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
"""

CLASSES = "\n" + LOW_AND_HIGH + """\
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: polite}
value: 700
preemptionPolicy: Never
"""

POD_SPEC = {"priorityClassName": "high", "containers": [{"name": "c", "image": "i"}]}


def snapshot(*objects: dict[str, Any], classes: str = CLASSES) -> Any:
    docs = [d for d in yaml.safe_load_all(classes) if d] + list(objects)
    return ingest.build_snapshot(
        ingest.Document(Source("t.yaml", i + 1), d) for i, d in enumerate(docs)
    )


def pod_template(spec: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"metadata": {"labels": {"app": "x"}}, "spec": spec or POD_SPEC}


def run(*args: object, input: str | None = None) -> Any:
    return CliRunner().invoke(
        app, [str(a) for a in args], input=input, env={"COLUMNS": "100"}, catch_exceptions=False
    )


# Each controller kind with its pod template where the upstream API puts it (apps/v1,
# batch/v1 types.go; jobset.x-k8s.io/v1alpha2 ReplicatedJob.Template is a JobTemplateSpec;
# leaderworkerset.x-k8s.io/v1 LeaderWorkerTemplate{LeaderTemplate *PodTemplateSpec,
# WorkerTemplate PodTemplateSpec}).
KIND_CASES = [
    ("apps/v1", "Deployment", {"spec": {"template": pod_template()}},
     ["Deployment ns/x"], "spec.template.spec"),
    ("apps/v1", "ReplicaSet", {"spec": {"template": pod_template()}},
     ["ReplicaSet ns/x"], "spec.template.spec"),
    ("apps/v1", "StatefulSet", {"spec": {"template": pod_template()}},
     ["StatefulSet ns/x"], "spec.template.spec"),
    ("apps/v1", "DaemonSet", {"spec": {"template": pod_template()}},
     ["DaemonSet ns/x"], "spec.template.spec"),
    ("v1", "ReplicationController", {"spec": {"template": pod_template()}},
     ["ReplicationController ns/x"], "spec.template.spec"),
    ("batch/v1", "Job", {"spec": {"template": pod_template()}},
     ["Job ns/x"], "spec.template.spec"),
    ("batch/v1", "CronJob", {"spec": {"jobTemplate": {"spec": {"template": pod_template()}}}},
     ["CronJob ns/x"], "spec.jobTemplate.spec.template.spec"),
    ("v1", "PodTemplate", {"template": pod_template()}, ["PodTemplate ns/x"], "template.spec"),
    (
        "jobset.x-k8s.io/v1alpha2",
        "JobSet",
        {"spec": {"replicatedJobs": [
            {"name": "driver", "template": {"spec": {"template": pod_template()}}},
            {"name": "workers", "template": {"spec": {"template": pod_template()}}},
        ]}},
        ["JobSet ns/x/driver", "JobSet ns/x/workers"],
        "spec.replicatedJobs[1].template.spec.template.spec",
    ),
    (
        "leaderworkerset.x-k8s.io/v1",
        "LeaderWorkerSet",
        {"spec": {"leaderWorkerTemplate": {"leaderTemplate": pod_template(),
                                           "workerTemplate": pod_template()}}},
        ["LeaderWorkerSet ns/x/leader", "LeaderWorkerSet ns/x/worker"],
        "spec.leaderWorkerTemplate.workerTemplate.spec",
    ),
]


@pytest.mark.parametrize(
    ("api", "kind", "body", "keys", "last_field"), KIND_CASES, ids=[c[1] for c in KIND_CASES]
)
def test_every_controller_kind_gives_its_templates(
    api: str, kind: str, body: dict[str, Any], keys: list[str], last_field: str
) -> None:
    """Each kind's pod templates become members with the class's priority (high: 1000/1000)."""
    obj = {"apiVersion": api, "kind": kind, "metadata": {"name": "x", "namespace": "ns"}, **body}
    snap = snapshot(obj)
    t = snap.templates
    assert keys == list(t)
    assert last_field == t[keys[-1]].field
    assert {(1000, 1000, "PreemptLowerPriority")} == {
        (x.priority, x.preemption_priority, x.preemption_policy) for x in t.values()
    }
    g = graph.build_graph(snap)
    assert {Profile(1000, 1000): tuple(keys)} == {p: v.templates for p, v in g.vertices.items()}
    assert kind not in snap.ignored_kinds


def test_lws_without_leader_template_has_only_the_worker() -> None:
    """A LeaderWorkerSet without leaderTemplate: its leader uses the worker template."""
    obj = {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
           "metadata": {"name": "x", "namespace": "ns"},
           "spec": {"leaderWorkerTemplate": {"workerTemplate": pod_template()}}}
    assert ["LeaderWorkerSet ns/x/worker"] == list(snapshot(obj).templates)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"priorityClassName": "low"}, (100, 100, "PreemptLowerPriority")),
        # spec.priority wins over the class, as for a pod (admission fills it from the class)
        ({"priorityClassName": "low", "priority": 42}, (42, 42, "PreemptLowerPriority")),
        # the class's preemptionPolicy Never, and the template's own
        ({"priorityClassName": "polite"}, (700, 700, "Never")),
        ({"priorityClassName": "high", "preemptionPolicy": "Never"}, (1000, 1000, "Never")),
        # no class: the globalDefault, else 0
        ({}, (0, 0, "PreemptLowerPriority")),
    ],
    ids=["class", "spec-priority", "class-never", "own-never", "nothing"],
)
def test_template_priorities_follow_the_pod_rules(
    spec: dict[str, Any], expected: tuple[int, int, str]
) -> None:
    """A template resolves like a pod: spec.priority, else class, else default, else 0."""
    obj = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "n"},
           "spec": {"template": {"spec": spec}}}
    t = snapshot(obj).templates["Job n/j"]
    assert expected == (t.priority, t.preemption_priority, t.preemption_policy)


def test_global_default_class_applies_to_templates() -> None:
    """A template without a class takes the globalDefault class's value."""
    classes = CLASSES + "---\n" + (
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: d}\n"
        "value: 300\nglobalDefault: true\n"
    )
    obj = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "n"},
           "spec": {"template": {"spec": {}}}}
    assert 300 == snapshot(obj, classes=classes).templates["Job n/j"].priority


def test_template_joining_a_pod_group_takes_the_groups_profile() -> None:
    """spec.workloadRef to a v1alpha1 Workload: the group's 1000/100 wins over the own class,
    and the template is in the group's unit (so one group alone makes no self-loop)."""
    wl = {"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
          "metadata": {"name": "w", "namespace": "n"},
          "spec": {"priorityClassName": "high", "preemptionPriorityClassName": "low",
                   "podGroups": [{"name": "g", "policy": {"gang": {"minCount": 2}}}]}}
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "n"},
           "spec": {"template": {"spec": {"priorityClassName": "low",
                                          "workloadRef": {"name": "w", "podGroup": "g"}}}}}
    snap = snapshot(wl, job)
    t = snap.templates["Job n/j"]
    assert (1000, 100, "n/w/g") == (t.priority, t.preemption_priority, t.group_key)
    g = graph.build_graph(snap)
    assert [] == list(g.graph.edges)  # one unit: no self-loop
    report = graph.check(snap)
    assert ["n/w"] == [v.name for v in report.violations]  # the Workload, not the Job


def with_global_default(extra: str) -> str:
    """CLASSES and a globalDefault class d (300), ``extra`` its further YAML lines."""
    return CLASSES + "---\n" + (
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: d}\n"
        "value: 300\nglobalDefault: true\n" + extra
    )


def template_workload(fields: dict[str, Any]) -> dict[str, Any]:
    """A v1alpha2 Workload n/w without a class: one gang template a (minCount 2) with
    ``fields`` added."""
    return {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "Workload",
            "metadata": {"name": "w", "namespace": "n"},
            "spec": {"podGroupTemplates": [
                {"name": "a", "schedulingPolicy": {"gang": {"minCount": 2}}, **fields}]}}


def test_uninstantiated_pod_group_templates_take_the_global_default() -> None:
    """A v1alpha2 Workload with no class, whose podGroupTemplate names none either: the pod
    group it becomes is given the globalDefault class at admission (d: 300, Never), as a
    PodGroup object setting nothing would be."""
    classes = with_global_default("preemptionPolicy: Never\n")
    wl = template_workload({})
    t = snapshot(wl, classes=classes).templates["Workload n/w/a"]
    assert ("d", 300, 300, "Never") == (
        t.priority_class_name, t.priority, t.preemption_priority, t.preemption_policy)


def test_uninstantiated_pod_group_template_keeps_its_own_priority_number() -> None:
    """A podGroupTemplate that sets its own ``priority`` number (no class) becomes pod groups
    of that priority: the number wins over the globalDefault class, which only fills in a
    template that sets neither a class nor a number. Hand-worked: template a says priority
    500 and preemptionPriorityClassName low (100), the globalDefault d is 300: a's pod groups
    schedule at 500, not 300, and preempt at 100, so the KEP-5710 rule (preemption priority
    >= scheduling priority) is broken, 100 < 500, and check-cycles names 500 (no class) and
    the Workload's place on stdin: the fifth document (low, high, polite, d, then it), on line
    24."""
    classes = with_global_default("")
    wl = template_workload({"priority": 500, "preemptionPriorityClassName": "low"})
    t = snapshot(wl, classes=classes).templates["Workload n/w/a"]
    assert (None, 500, 100) == (t.priority_class_name, t.priority, t.preemption_priority)
    result = run("check-cycles", "-", "--format", "github",
                 input=classes + "---\n" + yaml.safe_dump(wl))
    first, summary = result.stdout.splitlines()
    assert (1, "Workload n/w: preemption priority 100 (class low) is below its scheduling "
            "priority 500; KEP-5710 requires preemption priority >= scheduling priority; it "
            "closes no cycle yet (<stdin>:24, document 5)",
            "wapctl check-cycles: 0 cycles, 1 rule violation") == (
        result.exit_code, first.split("::")[-1], summary)


def test_uninstantiated_pod_group_templates_say_where_they_are_written() -> None:
    """The snapshot's members for a Workload's podGroupTemplates that no PodGroup instantiates
    yet tell a program reading the snapshot where each template is written in the Workload,
    as a controller's template does (``field``): the template's place in the list, whatever
    its name -- b is written first ([0]), a second ([1])."""
    wl = {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "Workload",
          "metadata": {"name": "w", "namespace": "n"},
          "spec": {"priorityClassName": "high", "podGroupTemplates": [
              {"name": "b", "schedulingPolicy": {"basic": {}}},
              {"name": "a", "schedulingPolicy": {"gang": {"minCount": 2}}},
          ]}}
    got = {k: t.field for k, t in snapshot(wl).templates.items()}
    assert {"Workload n/w/a": "spec.podGroupTemplates[1]",
            "Workload n/w/b": "spec.podGroupTemplates[0]"} == got


def test_uninstantiated_pod_group_templates_are_members() -> None:
    """A v1alpha2 Workload without PodGroup objects yet: each podGroupTemplate is a member with
    the template's class, else the Workload's; the rule applies to it."""
    wl = {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "Workload",
          "metadata": {"name": "w", "namespace": "n"},
          "spec": {"priorityClassName": "high", "preemptionPriorityClassName": "low",
                   "podGroupTemplates": [
                       {"name": "a", "schedulingPolicy": {"gang": {"minCount": 2}}},
                       {"name": "b", "schedulingPolicy": {"basic": {}},
                        "priorityClassName": "low"},
                   ]}}
    snap = snapshot(wl)
    got = {k: (t.priority, t.preemption_priority) for k, t in snap.templates.items()}
    assert {"Workload n/w/a": (1000, 100), "Workload n/w/b": (100, 100)} == got
    report = graph.check(snap)
    # a (1000/100) can preempt b (100/100)? 1000 > 100 yes; b -> a? 100 > 100 no: no cycle
    assert (0, ["n/w"]) == (report.cycle_count, [v.name for v in report.violations])


WORKLOAD_TEMPLATE_ONLY = LOW_AND_HIGH + """\
apiVersion: scheduling.k8s.io/v1alpha2
kind: Workload
metadata: {name: w, namespace: n}
spec:
  priorityClassName: high
  preemptionPriorityClassName: low
  podGroupTemplates:
  - name: a
    schedulingPolicy: {gang: {minCount: 2}}
"""


# the Workload's template instantiated by a PodGroup (a fourth document, after line 19)
WORKLOAD_AND_POD_GROUP = WORKLOAD_TEMPLATE_ONLY + """\
---
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: a, namespace: n}
spec:
  podGroupTemplateRef:
    workload: {workloadName: w, podGroupTemplateName: a}
  schedulingPolicy:
    gang: {minCount: 2}
"""


@pytest.mark.parametrize("text", [WORKLOAD_TEMPLATE_ONLY, WORKLOAD_AND_POD_GROUP],
                         ids=["template-only", "with-its-pod-group"])
def test_a_workload_violation_names_its_workloads_file_and_line(
    tmp_path: Path, text: str
) -> None:
    """A v1alpha2 Workload breaks the rule (high 1000 scheduling, low 100 preemption) through
    its template, whether or not a PodGroup instantiates it yet: the CI annotation is the
    same, on the Workload's file at its ``preemptionPriorityClassName`` (the field to change;
    not the PodGroup's document) and naming both classes: the third document starts on line
    11, ``preemptionPriorityClassName: low`` is line 16."""
    path = tmp_path / "wl.yaml"
    path.write_text(text)
    result = run("check-cycles", path, "--format", "github")
    assert (1, [
        f"::error file={path},line=16,title=KEP-5710 priority rule::Workload n/w: preemption "
        "priority 100 (class low) is below its scheduling priority 1000 (class high); KEP-5710 "
        "requires preemption priority >= scheduling priority; it closes no cycle yet",
        "wapctl check-cycles: 0 cycles, 1 rule violation",
    ]) == (result.exit_code, result.stdout.splitlines())


def test_uninstantiated_pod_group_template_keeps_its_own_preemption_policy() -> None:
    """v1alpha3 lets a podGroupTemplate set preemptionPolicy: a template written Never becomes
    pod groups that never preempt, even under a PreemptLowerPriority class. Hand-worked: a
    (class high, 1000/1000, Never) and b (class low, 100/100): 1000 > 100, but a is Never, so
    a -> b is no edge; b -> a fails 100 > 1000: no edge at all. check-cycles reports 2
    profiles and 0 edges."""
    wl = {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "Workload",
          "metadata": {"name": "w", "namespace": "n"},
          "spec": {"podGroupTemplates": [
              {"name": "a", "schedulingPolicy": {"gang": {"minCount": 2}},
               "priorityClassName": "high", "preemptionPolicy": "Never"},
              {"name": "b", "schedulingPolicy": {"basic": {}}, "priorityClassName": "low"},
          ]}}
    snap = snapshot(wl)
    got = {k: (t.priority, t.preemption_priority, t.preemption_policy)
           for k, t in snap.templates.items()}
    assert {"Workload n/w/a": (1000, 1000, "Never"),
            "Workload n/w/b": (100, 100, "PreemptLowerPriority")} == got
    text = CLASSES + "---\n" + yaml.safe_dump(wl)
    result = run("check-cycles", "-", "-o", "json", input=text)
    s = json.loads(result.stdout)["summary"]
    assert (0, 2, 0) == (result.exit_code, s["profiles"], s["edges"])


def test_unknown_class_is_a_finding_not_an_input_error() -> None:
    """A template naming a missing class is kept without a profile and reported."""
    obj = {"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": "d", "namespace": "n"},
           "spec": {"template": {"spec": {"priorityClassName": "nope"}}}}
    snap = snapshot(obj)
    t = snap.templates["Deployment n/d"]
    assert ("nope", None) == (t.unknown_class, t.priority)
    report = graph.check(snap)
    assert (False, 0) == (report.clean, len(report.graph.vertices))
    [finding] = report.findings
    assert ("unknown-priority-class", "Deployment n/d",
            "spec.template.spec.priorityClassName") == (finding.rule, finding.object, finding.field)
    assert "create PriorityClass 'nope' or name an existing one (known: high, low, polite)" == (
        finding.fix
    )


def test_unknown_class_finding_message_says_the_api_server_rejects_the_pods() -> None:
    """The user reads the finding's message to learn why a template naming a missing class
    matters: its pods would be rejected at admission. The whole message is pinned, through
    graph.check and through check-cycles' JSON output (same text)."""
    obj = {"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": "d", "namespace": "n"},
           "spec": {"template": {"spec": {"priorityClassName": "nope"}}}}
    expected = (
        "Deployment n/d: its pod template names PriorityClass 'nope', which no PriorityClass of "
        "the manifests (or of --cluster) defines; the API server would reject its pods"
    )
    [finding] = graph.check(snapshot(obj)).findings
    assert expected == finding.message
    text = CLASSES + "---\n" + yaml.safe_dump(obj)
    result = run("check-cycles", "-", "-o", "json", input=text)
    assert (1, [("unknown-priority-class", expected)]) == (
        result.exit_code,
        [(x["rule"], x["message"]) for x in json.loads(result.stdout)["findings"]],
    )


def test_an_unknown_class_hides_no_other_template() -> None:
    """Deployment n/a names a missing class, n/b names high: b is still a member (its own
    vertex, 1000/1000), and only a is a finding."""
    bad = {"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": "a", "namespace": "n"},
           "spec": {"template": {"spec": {"priorityClassName": "nope"}}}}
    good = {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "b", "namespace": "n"}, "spec": {"template": pod_template()}}
    report = graph.check(snapshot(bad, good))
    assert [Profile(1000, 1000)] == list(report.graph.vertices)
    assert ["Deployment n/a"] == [x.object for x in report.findings]


def test_a_known_class_template_sorting_first_hides_no_unknown_class_after_it() -> None:
    """Every template naming a missing class is reported, wherever it sorts among templates
    whose classes exist: Deployments n/a and n/c name high (one vertex, 1000/1000), n/b and
    n/d name the missing classes 'nope' and 'gone'. A user relies on the findings (what
    check-cycles reports) naming both b and d, the templates after a good one included."""
    objs = [{"apiVersion": "apps/v1", "kind": "Deployment",
             "metadata": {"name": name, "namespace": "n"},
             "spec": {"template": {"spec": {"priorityClassName": cls}}}}
            for name, cls in (("a", "high"), ("b", "nope"), ("c", "high"), ("d", "gone"))]
    report = graph.check(snapshot(*objs))
    assert [Profile(1000, 1000)] == list(report.graph.vertices)
    assert [("unknown-priority-class", "Deployment n/b", "nope"),
            ("unknown-priority-class", "Deployment n/d", "gone")] == [
        (x.rule, x.object, x.priority_class) for x in report.findings]


def test_every_unknown_class_template_is_a_finding_in_order() -> None:
    """Two Deployments naming missing classes: two findings, by object."""
    objs = [{"apiVersion": "apps/v1", "kind": "Deployment",
             "metadata": {"name": name, "namespace": "n"},
             "spec": {"template": {"spec": {"priorityClassName": cls}}}}
            for name, cls in (("b", "gone"), ("a", "nope"))]
    findings = graph.check(snapshot(*objs)).findings
    assert [("Deployment n/a", "'nope'"), ("Deployment n/b", "'gone'")] == [
        (x.object, x.fix.split()[2]) for x in findings]


def test_unknown_class_finding_with_no_class_known_and_per_namespace() -> None:
    """With no PriorityClass at all the fix says so ("known: none"); the finding belongs to
    the template's namespace: ``--namespace n`` keeps it, ``--namespace other`` drops it."""
    obj = {"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": "d", "namespace": "n"},
           "spec": {"template": {"spec": {"priorityClassName": "nope"}}}}
    snap = snapshot(obj, classes="")
    [finding] = graph.check(snap).findings
    assert "create PriorityClass 'nope' or name an existing one (known: none)" == finding.fix
    assert ["Deployment n/d"] == [x.object for x in graph.check(snap, namespace="n").findings]
    assert () == graph.check(snap, namespace="other").findings


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"spec": {"template": "oops"}}, "spec.template"),
        ({"spec": {"template": {"spec": {"priority": "9"}}}}, "spec.template.spec.priority"),
        ({"spec": {"template": {"spec": {"preemptionPolicy": "Sometimes"}}}},
         "spec.template.spec.preemptionPolicy"),
    ],
    ids=["template-not-mapping", "priority-not-int", "bad-policy"],
)
def test_malformed_templates_are_input_errors(body: dict[str, Any], field: str) -> None:
    """Malformed template fields are InputErrors naming the field."""
    obj = {"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": "d", "namespace": "n"}, **body}
    with pytest.raises(InputError) as err:
        snapshot(obj)
    assert field == err.value.field


def test_duplicate_controllers_are_refused_per_kind() -> None:
    """The same Deployment twice is a duplicate; a Job of the same name is not."""
    dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x",
           "namespace": "n"}, "spec": {"template": pod_template()}}
    job = dep | {"apiVersion": "batch/v1", "kind": "Job"}
    assert 2 == len(snapshot(dep, job).templates)
    with pytest.raises(InputError, match="duplicate object Deployment n/x"):
        snapshot(dep, dep)


def test_a_model_without_preemption_priority_sees_no_cycle() -> None:
    """profile_of plugs a behaviour model in: kube-scheduler 1.36 has no separate preemption
    priority, so the chart's 1000/100 is 1000/1000 there and the ping-pong disappears."""
    docs = ingest.read_documents([str(MANIFESTS / "chart-cycle.yaml")])
    snap = ingest.build_snapshot(docs)
    assert 1 == graph.check(snap).cycle_count
    as_136 = graph.check(snap, profile_of=graph.without_preemption_priority)
    assert (0, ()) == (as_136.cycle_count, as_136.violations)


# ---- the chart fixtures through the CLI ------------------------------------------------------


def test_jobset_ping_pong_is_found() -> None:
    """chart-cycle.yaml (hand-worked in its header): the KEP ping-pong as two JobSets."""
    result = run("check-cycles", MANIFESTS / "chart-cycle.yaml", "-o", "json")
    doc = json.loads(result.stdout)
    [cycle] = doc["cycles"]
    members = [(m["profile"], m["workloads"], m["templates"]) for m in cycle["members"]]
    expected = [
        ("500/500", [], ["Deployment web/frontend", "JobSet batch/report/main"]),
        ("1000/100", ["ml/training"], ["JobSet ml/training/workers"]),
    ]
    assert (1, expected) == (result.exit_code, members)
    assert (3, 4, 1, 4) == tuple(
        doc["summary"][k] for k in ("profiles", "edges", "violations", "templates")
    )
    assert "raise the preemption priority of ml/training (and 1 more member of 1000/100) to " \
        ">= 1000" == cycle["fix"]


def test_chart_fixed_is_clean() -> None:
    """chart-fixed.yaml: 3 profiles, 3 edges, nothing to report, exit 0."""
    result = run("check-cycles", MANIFESTS / "chart-fixed.yaml", "-o", "json")
    s = json.loads(result.stdout)["summary"]
    assert (0, 3, 3, 0, 0, 0) == (
        result.exit_code, s["profiles"], s["edges"], s["cycles"], s["violations"], s["findings"]
    )


def test_unknown_class_fails_with_file_and_line() -> None:
    """The issue's first 'done when': a Deployment with an unknown class fails the check with
    its file and line (line 20 is the template's priorityClassName, see the fixture)."""
    path = MANIFESTS / "unknown-class.yaml"
    result = run("check-cycles", path, "--format", "github")
    first = result.stdout.splitlines()[0]
    assert 1 == result.exit_code
    assert first.startswith(
        f"::error file={path},line=20,title=Pod template names a PriorityClass that does not "
        "exist::Deployment shop/checkout: its pod template names PriorityClass 'hihg'"
    )
    wide = CliRunner().invoke(app, ["check-cycles", str(path), "--no-color"],
                              env={"COLUMNS": "400"})
    assert f"{path}:20" in wide.stdout


TEMPLATES_ONLY = LOW_AND_HIGH + """\
apiVersion: batch/v1
kind: Job
metadata: {name: report, namespace: shop}
spec:
  template:
    spec:
      priorityClassName: low
      restartPolicy: Never
      containers: [{name: c, image: i}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    spec:
      priorityClassName: low
      containers: [{name: c, image: i}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
spec:
  template:
    spec:
      priorityClassName: high
      containers: [{name: c, image: i}]
"""


def test_a_template_only_profile_is_located_at_its_first_template(tmp_path: Path) -> None:
    """A chart with no Workload and no pod: each profile of the graph is made only of pod
    templates, and the HTML graph's tooltip still says where the profile is written (its
    first member, by name, at the line its object starts). Hand-worked: Job shop/report
    (line 11) and Deployment shop/web (line 21) are low, 100/100; Deployment shop/api (line
    30) is high, 1000/1000. The first member of 100/100 is "Deployment shop/web" (before
    "Job shop/report"), at line 21; of 1000/1000, Deployment shop/api at line 30.
    (No cycle can be annotated at a template-only profile: an ungrouped template is never a
    rule breaker, so the HTML graph is where such a profile's file and line show.)"""
    path = tmp_path / "chart.yaml"
    path.write_text(TEMPLATES_ONLY)
    page = run("check-cycles", path, "-o", "html").stdout
    tips = [html.unescape(t) for t in re.findall(r"<title>(profile .*?)</title>", page, re.S)]
    assert [
        "profile 100/100 (scheduling 100, preemption 100, PreemptLowerPriority)\n"
        "members: Deployment shop/web, Job shop/report\n"
        f"first member at {path}:21",
        "profile 1000/1000 (scheduling 1000, preemption 1000, PreemptLowerPriority)\n"
        "members: Deployment shop/api\n"
        f"first member at {path}:30",
    ] == sorted(tips)


def test_helm_template_through_stdin() -> None:
    """`helm template ... | wapctl check-cycles -` reads the rendered chart from stdin."""
    text = (MANIFESTS / "chart-cycle.yaml").read_text()
    assert 1 == run("check-cycles", "-", input=text).exit_code
    fixed = (MANIFESTS / "chart-fixed.yaml").read_text()
    assert 0 == run("check-cycles", "-", input=fixed).exit_code


def test_table_explains_the_notation_and_fixes_each_finding() -> None:
    """The table ends with one fix per finding (the cycle's breaker and the violation, derived
    in chart-cycle.yaml's header) and says what 500/500 and the arrow mean."""
    result = run("check-cycles", MANIFESTS / "chart-cycle.yaml", "--no-color")
    lines = [line.rstrip() for line in result.stdout.splitlines()]
    start = lines.index("How to fix:")
    expected = [  # not on a terminal, lines are as long as they need to be (issue 15)
        "How to fix:",
        "  - cycle 1: raise the preemption priority of ml/training (and 1 more member of "
        "1000/100) to >= 1000",
        "  - Workload ml/training: raise ml/training's preemption priority to >= 1000 (a "
        "preemptionPriorityClassName of value >= 1000, or none), or lower its scheduling "
        "priority to <= 100",
    ]
    assert expected == lines[start : start + 3]
    legend = " ".join(lines[start + 3 : -1])
    assert legend.startswith("How to read: a profile is written scheduling/preemption — "
                             "1000/100 schedules (preempts others) at")
    assert "X → Y: members of X can preempt members of Y" in legend
    assert ("Priority graph: 3 profiles, 4 preemption edges; 1 workload, 1 pod group, "
            "0 standalone pods, 4 pod templates") == lines[0]
    assert "FAIL: 1 cycle, 1 rule violation" == lines[-1]


def test_validate_counts_pod_templates_by_kind() -> None:
    """validate lists what it reads: the chart has a CronJob, a Deployment and two JobSet
    templates (one per replicated job, one job in each JobSet)."""
    result = run("validate", MANIFESTS / "chart-cycle.yaml", "-o", "json")
    doc = json.loads(result.stdout)
    assert (0, {"CronJob": 1, "Deployment": 1, "JobSet": 2}, {}) == (
        result.exit_code, doc["podTemplates"], doc["ignoredKinds"]
    )


# ---- property: a template resolves exactly as the pod it will create ------------------------



@st.composite
def class_set_and_spec(draw: st.DrawFn) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    n = draw(st.integers(1, 4))
    values = draw(st.lists(st.integers(-10, 10), min_size=n, max_size=n))
    default = draw(st.one_of(st.none(), st.integers(0, n - 1)))
    classes = []
    for i, v in enumerate(values):
        c: dict[str, Any] = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                             "metadata": {"name": f"c{i}"}, "value": v}
        if i == default:
            c["globalDefault"] = True
        if draw(st.booleans()):
            c["preemptionPolicy"] = "Never"
        classes.append(c)
    spec: dict[str, Any] = {}
    if draw(st.booleans()):
        spec["priorityClassName"] = f"c{draw(st.integers(0, n - 1))}"
    if draw(st.booleans()):
        spec["priority"] = draw(st.integers(-10, 10))
    policy = draw(st.sampled_from([None, "Never", "PreemptLowerPriority"]))
    if policy is not None:
        spec["preemptionPolicy"] = policy
    return classes, spec


@settings(max_examples=60, deadline=None)
@given(class_set_and_spec())
def test_template_profile_equals_the_pods(
    case: tuple[list[dict[str, Any]], dict[str, Any]],
) -> None:
    """Oracle: the loader's pod resolution. A Job's template and a pod with the same spec get
    the same (scheduling, preemption, policy)."""
    classes, spec = case
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "n"},
           "spec": {"template": {"spec": dict(spec)}}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "n"},
           "spec": dict(spec)}
    docs = [ingest.Document(Source("t", i + 1), d) for i, d in enumerate([*classes, job, pod])]
    snap = ingest.build_snapshot(docs)
    t = snap.templates["Job n/j"]
    p = snap.pods["n/p"]
    assert (p.priority, p.preemption_priority, p.preemption_policy) == (
        t.priority, t.preemption_priority, t.preemption_policy
    )


def test_template_joining_a_pod_group_object_by_scheduling_group() -> None:
    """spec.schedulingGroup.podGroupName names a v1alpha2 PodGroup object (pg-1 of Workload w,
    class high over its template's low): a Job template naming it takes the group's 1000/1000
    and its key, not its own class low (100)."""
    wl = {"apiVersion": V1ALPHA2, "kind": "Workload",
          "metadata": {"name": "w", "namespace": "n"},
          "spec": {"podGroupTemplates": [
              {"name": "t", "schedulingPolicy": {"gang": {"minCount": 2}},
               "priorityClassName": "low"}]}}
    group = {"apiVersion": V1ALPHA2, "kind": "PodGroup",
             "metadata": {"name": "pg-1", "namespace": "n"},
             "spec": {"podGroupTemplateRef": {"workload": {"workloadName": "w",
                                                           "podGroupTemplateName": "t"}},
                      "priorityClassName": "high"}}
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "n"},
           "spec": {"template": {"spec": {"priorityClassName": "low",
                                          "schedulingGroup": {"podGroupName": "pg-1"}}}}}
    t = snapshot(wl, group, job).templates["Job n/j"]
    assert (1000, 1000, "n/w/pg-1") == (t.priority, t.preemption_priority, t.group_key)


def test_a_group_template_with_an_unknown_class_and_a_number_is_still_a_finding() -> None:
    """A template in a pod group naming a missing class but giving spec.priority: it takes the
    group's priorities (the number is not needed) and the missing class is still reported."""
    wl = {"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
          "metadata": {"name": "w", "namespace": "n"},
          "spec": {"priorityClassName": "high",
                   "podGroups": [{"name": "g", "policy": {"gang": {"minCount": 2}}}]}}
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "n"},
           "spec": {"template": {"spec": {"priorityClassName": "nope", "priority": 5,
                                          "workloadRef": {"name": "w", "podGroup": "g"}}}}}
    t = snapshot(wl, job).templates["Job n/j"]
    assert (1000, "n/w/g", "nope") == (t.priority, t.group_key, t.unknown_class)
    alone = {**job, "metadata": {"name": "k", "namespace": "n"},
             "spec": {"template": {"spec": {"priorityClassName": "nope", "priority": 5}}}}
    t = snapshot(alone).templates["Job n/k"]
    assert (5, None, "nope") == (t.priority, t.group_key, t.unknown_class)


@pytest.mark.parametrize(
    ("spec", "line"),
    [
        ({"priorityClassName": 5}, "field spec.template.spec.priorityClassName): must be a "
                                   "string, not a number"),
        ({"priorityClassName": ["a"]}, "field spec.template.spec.priorityClassName): must be a "
                                       "string, not a list"),
        ({"priorityClassName": True}, "field spec.template.spec.priorityClassName): must be a "
                                      "string, not a boolean"),
        # an unquoted YAML date is a date
        ({"priorityClassName": datetime.date(2026, 1, 1)},
         "field spec.template.spec.priorityClassName): must be a string, not a date"),
        # the same words as a pod's own spec.priority
        ({"priority": "9"}, "field spec.template.spec.priority): must be an integer, not a "
                            "string"),
        ({"priority": 2**31}, "field spec.template.spec.priority): 2147483648 is out of range: a "
                              "priority is a 32-bit integer (-2147483648 to 2147483647)"),
        ({"priority": True}, "field spec.template.spec.priority): must be an integer, not a "
                             "boolean"),
        ({"preemptionPolicy": "Sometimes"},
         "field spec.template.spec.preemptionPolicy): unknown value 'Sometimes' (expected one "
         "of: PreemptLowerPriority, Never)"),
    ],
    ids=["class-number", "class-list", "class-boolean", "class-date", "priority-string",
         "priority-over-int32", "priority-boolean", "bad-policy"],
)
def test_a_malformed_template_field_is_one_line_naming_object_file_and_field(
    spec: dict[str, Any], line: str
) -> None:
    """The whole error line: the object, the document of t.yaml it is in, the field, and what
    is wrong with it."""
    obj = {"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": "d", "namespace": "n"}, "spec": {"template": {"spec": spec}}}
    with pytest.raises(InputError) as err:
        snapshot(obj)
    assert f"Deployment n/d (t.yaml, document 4, {line}" == str(err.value)


@pytest.mark.parametrize(
    ("obj", "line"),
    [
        ({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
          "metadata": {"name": "j", "namespace": "n"}, "spec": {"replicatedJobs": "w"}},
         "JobSet n/j (t.yaml, document 4, field spec.replicatedJobs): must be a list, not a "
         "string"),
        ({"apiVersion": "apps/v1", "kind": "Deployment",
          "metadata": {"name": "d", "namespace": "n"},
          "spec": {"template": {"metadata": {"labels": ["app"]}, "spec": {}}}},
         "Deployment n/d (t.yaml, document 4, field spec.template.metadata.labels): must be a "
         "mapping, not a list"),
        ({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
          "metadata": {"name": "j", "namespace": "n"},
          "spec": {"replicatedJobs": [{"replicas": 1, "template": {}}]}},
         "JobSet n/j (t.yaml, document 4, field spec.replicatedJobs[0].name): missing "
         "(required)"),
        ({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
          "metadata": {"name": "j", "namespace": "n"},
          "spec": {"replicatedJobs": [{"name": "", "replicas": 1, "template": {}}]}},
         "JobSet n/j (t.yaml, document 4, field spec.replicatedJobs[0].name): missing "
         "(required)"),
        ({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
          "metadata": {"name": "j", "namespace": "n"}, "spec": ["w"]},
         "JobSet n/j (t.yaml, document 4, field spec): must be a mapping, not a list"),
        # a step in the middle of the template's path (spec.jobTemplate.spec.template)
        ({"apiVersion": "batch/v1", "kind": "CronJob",
          "metadata": {"name": "c", "namespace": "n"}, "spec": {"jobTemplate": 5}},
         "CronJob n/c (t.yaml, document 4, field spec.jobTemplate): must be a mapping, not a "
         "number"),
        ({"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
          "metadata": {"name": "l", "namespace": "n"}, "spec": ["w"]},
         "LeaderWorkerSet n/l (t.yaml, document 4, field spec): must be a mapping, not a list"),
        ({"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
          "metadata": {"name": "l", "namespace": "n"}, "spec": {"leaderWorkerTemplate": "w"}},
         "LeaderWorkerSet n/l (t.yaml, document 4, field spec.leaderWorkerTemplate): must be a "
         "mapping, not a string"),
    ],
    ids=["replicated-jobs-not-a-list", "template-labels-not-a-mapping",
         "replicated-job-without-name", "replicated-job-with-empty-name",
         "jobset-spec-not-a-mapping", "cronjob-job-template-not-a-mapping",
         "lws-spec-not-a-mapping", "lws-leader-worker-template-not-a-mapping"],
)
def test_a_malformed_controller_field_is_one_line_naming_it(obj: dict[str, Any],
                                                            line: str) -> None:
    """A JobSet's or LeaderWorkerSet's spec that is no mapping, a LeaderWorkerSet's
    spec.leaderWorkerTemplate that is no mapping, a JobSet's spec.replicatedJobs that is no list, a
    replicated job with no name or an empty one (the JobSet API requires one: it names the
    template, "JobSet ns/name/job"), a template's labels that are no mapping, a CronJob's
    jobTemplate that is no mapping (the step where the template's path breaks): one error line
    naming the object, its document (4: after the three classes), the field's whole path, and
    what is wrong."""
    with pytest.raises(InputError) as err:
        snapshot(obj)
    assert line == str(err.value)
