"""`wapctl audit`: applying a change to snapshot documents, the member-level edge diff, cycles
and violations introduced or fixed, plans that change — core functions and the CLI."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from wapctl import audit
from wapctl.audit import ObjectRef
from wapctl.cli import app
from wapctl.errors import InputError, Source, UsageError
from wapctl.ingest import Document

ROOT = Path(__file__).resolve().parent.parent
CYCLES = ROOT / "fixtures" / "cycles"
AUDIT = CYCLES / "audit"
CLUSTER = AUDIT / "cluster.yaml"
MANIFESTS = ROOT / "fixtures" / "manifests"


# The audit cluster's Workload sets preemptionPriorityClassName: the KEP model plans both sides.
AUDIT_MODEL = {"name": "kep-5710", "reason": "Workload ml/training sets "
               "preemptionPriorityClassName (a KEP-5710-only field)"}

def run(*args: object, input: str | None = None) -> Any:
    return CliRunner().invoke(
        app, [str(a) for a in args], input=input, env={"COLUMNS": "120"}, catch_exceptions=False
    )


def audit_json(*args: object) -> tuple[int, dict[str, Any]]:
    result = run("audit", *args, "-o", "json")
    return result.exit_code, json.loads(result.stdout)


# ---- tiny document builders ------------------------------------------------------------------


def doc(obj: dict[str, Any], file: str = "snap.yaml", n: int = 1) -> Document:
    return Document(Source(file, n), obj)


def pclass(name: str, value: int, **extra: Any) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        **extra,
    }


def workload(ns: str, name: str, pcn: str, ppcn: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "priorityClassName": pcn,
        "podGroups": [{"name": "main", "policy": {"basic": {}}}],
    }
    if ppcn:
        spec["preemptionPriorityClassName"] = ppcn
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha1",
        "kind": "Workload",
        "metadata": {"name": name, "namespace": ns},
        "spec": spec,
    }


def docs(*objs: dict[str, Any]) -> list[Document]:
    return [doc(o, n=i) for i, o in enumerate(objs, 1)]


# ---- object identity and --delete ----------------------------------------------------------


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (pclass("low", 1), ObjectRef("scheduling.k8s.io", "PriorityClass", "", "low")),
        (
            workload("ml", "a", "low"),
            ObjectRef("scheduling.k8s.io", "Workload", "ml", "a"),
        ),
        (
            {
                "apiVersion": "scheduling.k8s.io/v1alpha2",
                "kind": "Workload",
                "metadata": {"name": "a", "namespace": "ml"},
            },
            ObjectRef("scheduling.k8s.io", "Workload", "ml", "a"),
        ),
        (
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}},
            ObjectRef("", "Pod", "default", "p"),
        ),
        (
            {"kind": "PriorityClass", "metadata": {"name": "x"}},
            ObjectRef("scheduling.k8s.io", "PriorityClass", "", "x"),
        ),
        ({"kind": "Pod", "metadata": {}}, None),
        (["not", "a", "mapping"], None),
        # the group is the apiVersion's, whatever kind the loader reads under that name
        (
            {
                "apiVersion": "example.com/v1",
                "kind": "Workload",
                "metadata": {"name": "a", "namespace": "ml"},
            },
            ObjectRef("example.com", "Workload", "ml", "a"),
        ),
        # a kind the loader does not read, without apiVersion: the core group "", as for v1
        (
            {"kind": "Service", "metadata": {"name": "web", "namespace": "ml"}},
            ObjectRef("", "Service", "ml", "web"),
        ),
    ],
    ids=[
        "class",
        "workload",
        "other-version-same-identity",
        "default-namespace",
        "no-apiVersion",
        "no-name",
        "not-a-mapping",
        "another-group",
        "unknown-kind-no-apiVersion",
    ],
)
def test_object_ref(obj: Any, expected: ObjectRef | None) -> None:
    """Identity is API group (not version), kind, namespace (default "default"), name."""
    assert expected == audit.object_ref(obj)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("PriorityClass/low", ObjectRef("scheduling.k8s.io", "PriorityClass", "", "low")),
        ("Workload/ml/a", ObjectRef("scheduling.k8s.io", "Workload", "ml", "a")),
        ("PodGroup/ml/g", ObjectRef("scheduling.k8s.io", "PodGroup", "ml", "g")),
        ("Pod/web/p", ObjectRef("", "Pod", "web", "p")),
    ],
    ids=["class", "workload", "podgroup", "pod"],
)
def test_parse_deletion(text: str, expected: ObjectRef) -> None:
    """--delete names cluster-scoped kinds as Kind/name, namespaced ones as Kind/ns/name."""
    assert expected == audit.parse_deletion(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Workload/a", "deletion Workload/a: expected Workload/NAMESPACE/NAME"),
        ("PriorityClass/ns/x", "deletion PriorityClass/ns/x: expected PriorityClass/NAME"),
        ("Workload/ml/", "deletion Workload/ml/: expected Workload/NAMESPACE/NAME"),
        (
            "Service/ml/a",
            (  # controllers are read since pod templates are (deliberate change)
                "deletion Service/ml/a: unknown kind 'Service' (one of CronJob, DaemonSet, "
                "Deployment, Job, JobSet, LeaderWorkerSet, Node, Pod, PodDisruptionBudget, "
                "PodGroup, PodTemplate, PriorityClass, ReplicaSet, ReplicationController, "
                "StatefulSet, Workload)"
            ),
        ),
    ],
    ids=["workload-without-namespace", "class-with-namespace", "empty-name", "unknown-kind"],
)
def test_parse_deletion_rejects(text: str, message: str) -> None:
    """A malformed --delete is a usage error naming the expected shape."""
    with pytest.raises(UsageError) as exc:
        audit.parse_deletion(text)
    assert message == str(exc.value)


# ---- apply_change ----------------------------------------------------------------------------


BASE = docs(pclass("low", 100), pclass("high", 1000), workload("ml", "a", "high"))


def test_apply_change_replaces_adds_and_deletes() -> None:
    """A change replaces by identity in place, adds new objects at the end, drops deletions."""
    change = [doc(pclass("high", 2000), "change.yaml"), doc(pclass("mid", 500), "change.yaml", 2)]
    out, items = audit.apply_change(BASE, change, [audit.parse_deletion("PriorityClass/low")])
    expected_docs = [change[0], BASE[2], change[1]]
    expected_items = [
        ("changed", "PriorityClass/high"),
        ("deleted", "PriorityClass/low"),
        ("added", "PriorityClass/mid"),
    ]
    assert (expected_docs, expected_items) == (out, [(i.action, i.ref.spec) for i in items])


def test_apply_change_leaves_its_input_alone() -> None:
    """Nothing given to apply_change is modified."""
    base, change = copy.deepcopy(BASE), [doc(pclass("high", 2000), "change.yaml")]
    saved = copy.deepcopy((base, change))
    audit.apply_change(base, change, [audit.parse_deletion("PriorityClass/low")])
    assert saved == (base, change)


def test_apply_change_same_object_is_unchanged() -> None:
    """An identical object in the change files is reported as unchanged."""
    _, items = audit.apply_change(BASE, [doc(pclass("low", 100), "change.yaml")])
    assert [("unchanged", "PriorityClass/low")] == [(i.action, i.ref.spec) for i in items]


def test_apply_change_another_group_is_another_object() -> None:
    """A PriorityClass of another API group named like the snapshot's `high` is a different
    object: added at the end (the loader will skip it), the scheduling.k8s.io one kept."""
    other = {**pclass("high", 1), "apiVersion": "example.com/v1"}
    change = [doc(other, "change.yaml")]
    out, items = audit.apply_change(BASE, change)
    expected_items = [("added", "example.com", "PriorityClass/high")]
    assert ([*BASE, change[0]], expected_items) == (
        out, [(i.action, i.ref.group, i.ref.spec) for i in items])


def test_apply_change_rejects_duplicates_in_the_change() -> None:
    """The same object twice in the change files is an input error naming both places."""
    change = [doc(pclass("x", 1), "a.yaml"), doc(pclass("x", 2), "b.yaml", 3)]
    with pytest.raises(InputError) as exc:
        audit.apply_change(BASE, change)
    expected = "b.yaml, document 3: PriorityClass/x appears twice in the change files (first at "
    assert str(exc.value).startswith(expected)


@pytest.mark.parametrize(
    ("change", "deletion", "message"),
    [
        ([], "PriorityClass/nope", "deletion PriorityClass/nope: no such object in the snapshot"),
        (
            [doc(pclass("low", 5), "c.yaml")],
            "PriorityClass/low",
            "PriorityClass/low is both in the change files and deleted",
        ),
    ],
    ids=["unknown", "changed-and-deleted"],
)
def test_apply_change_usage_errors(change: list[Document], deletion: str, message: str) -> None:
    """Deleting what is not there, or changing and deleting one object, is a usage error."""
    with pytest.raises(UsageError) as exc:
        audit.apply_change(BASE, change, [audit.parse_deletion(deletion)])
    assert message == str(exc.value)


# ---- the comparison, on small in-memory snapshots ------------------------------------------


def small(*, medium: int = 500, a_preempt: str | None = "low", extra: tuple = ()) -> list[Document]:
    """The KEP A/B pair: ml/a schedules `high` (1000) and preempts as `a_preempt`; batch/b is
    `medium`."""
    return docs(
        pclass("low", 100),
        pclass("medium", medium),
        pclass("high", 1000),
        workload("ml", "a", "high", a_preempt),
        workload("batch", "b", "medium"),
        *extra,
    )


def test_fixing_the_rule_fixes_cycle_and_violation() -> None:
    """Raising A's preemption class to its scheduling class removes the cycle and the violation."""
    r = audit.audit(small(), [doc(workload("ml", "a", "high"), "fix.yaml")])
    expected = (False, 0, 1, [], ["ml/a"], 1, 0)
    actual = (
        r.risky,
        r.cycles_introduced_count,
        r.cycles_fixed_count,
        [v.name for v in r.violations_introduced],
        [v.name for v in r.violations_fixed],
        r.edges_removed_count,  # B can no longer preempt A
        r.edges_added_count,
    )
    assert expected == actual


def test_moving_a_value_along_an_existing_cycle_is_not_a_new_cycle() -> None:
    """The same parties on a cycle are the same cycle whatever the numbers: not risky."""
    r = audit.audit(small(), [doc(pclass("medium", 600), "c.yaml")])
    expected = (False, 0, 0, 1, 1)
    actual = (
        r.risky,
        r.cycles_introduced_count,
        r.cycles_fixed_count,
        r.cycles_before.count,
        r.cycles_after.count,
    )
    assert expected == actual


def test_a_cycle_starting_at_another_vertex_is_the_same_cycle() -> None:
    """A cycle is listed from its smallest vertex; a change that makes another vertex the
    smallest lists the same parties in another rotation, still the same cycle. ml/a schedules
    at 1000 and preempts at 100; batch/b schedules at `medium` and preempts at 50 (`lowest`).
    Each preempts the other while 1000 > 50 and medium > 100: with medium 500 the cycle starts
    at B's vertex 500/50, with medium 1500 at A's 1000/100."""
    before = docs(pclass("lowest", 50), pclass("low", 100), pclass("medium", 500),
                  pclass("high", 1000), workload("ml", "a", "high", "low"),
                  workload("batch", "b", "medium", "lowest"))
    r = audit.audit(before, [doc(pclass("medium", 1500), "c.yaml")])
    starts = tuple(c.vertices[0].id for c in (*r.cycles_before.cycles, *r.cycles_after.cycles))
    expected = (("500/50", "1000/100"), False, 0, 0)
    assert expected == (starts, r.risky, r.cycles_introduced_count, r.cycles_fixed_count)


def test_a_new_party_on_a_cycle_is_a_new_cycle() -> None:
    """A new Workload joining a profile on a cycle introduces a cycle (it takes part now)."""
    r = audit.audit(small(), [doc(workload("batch", "c", "medium"), "c.yaml")])
    assert (True, 1, 1, []) == (
        r.risky,
        r.cycles_introduced_count,
        r.cycles_fixed_count,  # the old A/B-only cycle is gone: B's vertex now holds C too
        [v.name for v in r.violations_introduced],
    )


def test_both_graphs_list_sample_size_members_per_vertex() -> None:
    """With sample_size=1 the graph after the change lists one name per vertex, as the graph
    before does; the counts stay whole. Adding batch/c at `medium` puts it in B's vertex
    (500/500) with batch/b, on the new A/B/C cycle: the smallest name, batch/b, is listed, and
    2 Workloads are counted. A's vertex (1000/100) holds ml/a alone."""
    r = audit.audit(small(), [doc(workload("batch", "c", "medium"), "c.yaml")], sample_size=1)
    [cycle] = r.cycles_introduced
    on_cycle = sorted(
        (r.graph_after.vertices[v].workloads, r.graph_after.vertices[v].workload_count)
        for v in cycle.vertices
    )
    before = sorted((v.workloads, v.workload_count) for v in r.graph_before.vertices.values())
    assert ([(("batch/b",), 2), (("ml/a",), 1)], [(("batch/b",), 1), (("ml/a",), 1)]) == (
        on_cycle,
        before,
    )


def test_edges_are_diffed_per_member_not_per_profile() -> None:
    """Raising B's class from 500 to 1500 reports exactly the pairs whose relation changed."""
    r = audit.audit(small(a_preempt=None, medium=500), [doc(pclass("medium", 1500), "c.yaml")])
    # Before: A(1000/1000) -> B(500/500). After: B(1500/1500) -> A(1000/1000); A no longer -> B.
    added = [(e.preemptor.workloads, e.victim.workloads) for e in r.edges_added]
    removed = [(e.preemptor.workloads, e.victim.workloads) for e in r.edges_removed]
    lost = [lp.victim.workloads for lp in r.lost_protection]
    assert ([(("batch/b",), ("ml/a",))], [(("ml/a",), ("batch/b",))], [("ml/a",)]) == (
        added,
        removed,
        lost,
    )


def test_each_edge_change_says_whether_it_was_added_or_removed() -> None:
    """A caller of audit() reading an EdgeChange on its own (without knowing which list held it)
    relies on its ``change`` to say "added" or "removed". Raising B's class from 500 to 1500
    (A at 1000/1000): B (1500) may now preempt A (1000), an added edge; A (1000) may no longer
    preempt B (1500), a removed edge."""
    r = audit.audit(small(a_preempt=None, medium=500), [doc(pclass("medium", 1500), "c.yaml")])
    added = [(e.change, e.preemptor.workloads, e.victim.workloads) for e in r.edges_added]
    removed = [(e.change, e.preemptor.workloads, e.victim.workloads) for e in r.edges_removed]
    assert ([("added", ("batch/b",), ("ml/a",))], [("removed", ("ml/a",), ("batch/b",))]) == (
        added,
        removed,
    )


def test_added_and_deleted_members() -> None:
    """A new Workload brings new edges; a deleted one takes its edges away."""
    r = audit.audit(
        small(a_preempt=None),
        [doc(workload("web", "c", "low"), "c.yaml")],
        [audit.parse_deletion("Workload/batch/b")],
    )
    added = sorted((e.preemptor.workloads, e.victim.workloads) for e in r.edges_added)
    removed = sorted((e.preemptor.workloads, e.victim.workloads) for e in r.edges_removed)
    # A(1000/1000) may preempt the new C(100/100); deleted B(500/500) no longer is A's victim.
    assert ([(("ml/a",), ("web/c",))], [(("ml/a",), ("batch/b",))]) == (added, removed)


# ---- the CLI -----------------------------------------------------------------------------------


def cell(
    before: str | None, after: str | None, *, workload: str | None = None, pod: str | None = None
) -> dict[str, Any]:
    return {
        "profileBefore": before,
        "profileAfter": after,
        "workloads": [workload] if workload else [],
        "podGroups": [f"{workload}/{'workers' if workload == 'ml/training' else 'main'}"]
        if workload
        else [],
        "pods": [pod] if pod else [],
        "templates": [],
        "counts": {
            "workloads": int(bool(workload)),
            "podGroups": int(bool(workload)),
            "pods": int(bool(pod)),
            "templates": 0,
        },
    }


def class_fields(value: int) -> dict[str, Any]:
    return {"value": value, "preemptionPolicy": "PreemptLowerPriority", "globalDefault": False}


REPORT_BEFORE = cell("700/700", "700/700", workload="batch/report")
REPORT_RAISED = cell("700/700", "800/800", workload="batch/report")
FRONTEND = cell("750/750", "750/750", pod="web/frontend-0")
TRAINING_RAISED = cell("300/600", "1000/600", workload="ml/training")


def summary(**kw: Any) -> dict[str, Any]:
    base = {
        "changes": 1,
        "changesIgnored": 0,
        "edgesAdded": 0,
        "edgesRemoved": 0,
        "lostProtection": 0,
        "cyclesBefore": 0,
        "cyclesAfter": 0,
        "cyclesIntroduced": 0,
        "cyclesFixed": 0,
        "cycleCountComplete": True,
        "violationsBefore": 0,
        "violationsAfter": 0,
        "violationsIntroduced": 0,
        "violationsFixed": 0,
        "preemptorsPending": 1,
        "preemptorsPlanned": 1,
        "plansTruncated": False,
        "plansChanged": 0,
        "keptOldPriority": 0,
        "danglingReferences": 0,
        "listLimit": 100,
    }
    return base | kw


def test_raise_train_introduces_cycles_and_a_violation() -> None:
    """Raising `train` to 1000 breaks the rule for ml/training and closes three cycles: exit 1."""
    code, d = audit_json(CLUSTER, "--change", AUDIT / "raise-train.yaml")
    cycles = [[m["profile"] for m in c["members"]] for c in d["cycles"]["introduced"]]
    d["cycles"]["introduced"] = cycles
    violation = d["violations"]["introduced"][0]
    expected = {
        "apiVersion": "wapctl/v1",
        "kind": "AuditReport",
        "risky": True,
        "changes": [
            {
                "action": "changed",
                "kind": "PriorityClass",
                "namespace": None,
                "name": "train",
                "before": class_fields(300),
                "after": class_fields(1000),
            }
        ],
        "edges": {
            "added": [
                {"preemptor": TRAINING_RAISED, "victim": REPORT_BEFORE},
                {"preemptor": TRAINING_RAISED, "victim": FRONTEND},
            ],
            "removed": [],
        },
        "lostProtection": [
            {"victim": REPORT_BEFORE, "newPreemptors": [TRAINING_RAISED]},
            {"victim": FRONTEND, "newPreemptors": [TRAINING_RAISED]},
        ],
        "cycles": {
            "introduced": [
                ["700/700", "1000/600"],
                ["750/750", "1000/600"],
                ["700/700", "1000/600", "750/750"],
            ],
            "fixed": [],
        },
        "violations": {"introduced": [violation], "fixed": []},
        "plans": [],
        "keptOldPriority": [],
        "danglingReferences": [],
        "summary": summary(
            edgesAdded=2,
            lostProtection=2,
            cyclesAfter=3,
            cyclesIntroduced=3,
            violationsAfter=1,
            violationsIntroduced=1,
        ),
        "warnings": [],
        "model": AUDIT_MODEL,
    }
    assert (1, expected) == (code, d)
    assert ("ml/training", "1000/600", "train", "train-protect", True) == (
        violation["name"],
        violation["profile"],
        violation["priorityClassName"],
        violation["preemptionPriorityClassName"],
        violation["inCycle"],
    )


def test_raise_medium_is_harmless_but_changes_a_plan() -> None:
    """Raising `medium` to 800 adds no cycle (exit 0) but report-0 now preempts the frontend."""
    code, d = audit_json(CLUSTER, "--change", AUDIT / "raise-medium.yaml")
    reasons = [d["plans"][0][side].pop("reason") for side in ("before", "after")]
    expected = {
        "apiVersion": "wapctl/v1",
        "kind": "AuditReport",
        "risky": False,
        "changes": [
            {
                "action": "changed",
                "kind": "PriorityClass",
                "namespace": None,
                "name": "medium",
                "before": class_fields(700),
                "after": class_fields(800),
            }
        ],
        "edges": {
            "added": [{"preemptor": REPORT_RAISED, "victim": FRONTEND}],
            "removed": [{"preemptor": FRONTEND, "victim": REPORT_RAISED}],
        },
        "lostProtection": [{"victim": FRONTEND, "newPreemptors": [REPORT_RAISED]}],
        "cycles": {"introduced": [], "fixed": []},
        "violations": {"introduced": [], "fixed": []},
        "plans": [
            {
                "preemptor": {"kind": "Pod", "name": "batch/report-0"},
                "before": {
                    "status": "RequiresPreemption",
                    "victims": [
                        {"pod": "ml/training-0", "node": "node-a"},
                        {"pod": "ml/training-1", "node": "node-a"},
                    ],
                    "victimCount": 2,
                },
                "after": {
                    "status": "RequiresPreemption",
                    "victims": [{"pod": "web/frontend-0", "node": "node-b"}],
                    "victimCount": 1,
                },
            }
        ],
        "keptOldPriority": [],
        "danglingReferences": [],
        "summary": summary(edgesAdded=1, edgesRemoved=1, lostProtection=1, plansChanged=1),
        "warnings": [],
        "model": AUDIT_MODEL,
    }
    assert (0, expected) == (code, d)
    assert "node-a" in reasons[0] and "node-b" in reasons[1]


def test_audit_the_kep_fix() -> None:
    """Auditing kep-ab.yaml with kep-ab-fixed.yaml as the change: cycle and violation fixed."""
    code, d = audit_json(CYCLES / "kep-ab.yaml", "--change", CYCLES / "kep-ab-fixed.yaml")
    actions = sorted((c["action"], c["kind"], c["name"]) for c in d["changes"])
    expected_actions = [
        ("changed", "Workload", "training"),
        *sorted(
            ("unchanged", kind, name)
            for kind, name in [
                ("PriorityClass", "medium"),
                ("PriorityClass", "high"),
                ("Workload", "report"),
                ("Node", "node-a"),
                ("Pod", "training-0"),
                ("Pod", "training-1"),
                ("Pod", "report-0"),
            ]
        ),
    ]
    s = d["summary"]
    assert (0, sorted(expected_actions), 1, 1, 1) == (
        code,
        actions,
        s["changes"],
        s["cyclesFixed"],
        s["violationsFixed"],
    )


def test_delete_an_unused_class() -> None:
    """--delete of an unreferenced PriorityClass works without --change: exit 0."""
    code, d = audit_json(CLUSTER, "--delete", "PriorityClass/legacy")
    expected = [
        {
            "action": "deleted",
            "kind": "PriorityClass",
            "namespace": None,
            "name": "legacy",
            "before": class_fields(10),
            "after": None,
        }
    ]
    assert (0, expected, summary()) == (code, d["changes"], d["summary"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            [CLUSTER, "--delete", "PriorityClass/train-protect"],
            "error: with the change applied: ",
        ),
        ([CLUSTER], "error: nothing to audit: give --change FILE and/or --delete KIND/NAME"),
        ([CLUSTER, "--delete", "Workload/x"], "error: deletion Workload/x: expected "),
        ([CLUSTER, "--delete", "Workload/ml/nope"], "error: deletion Workload/ml/nope: no such"),
        ([CLUSTER, "--change", "missing.yaml"], "error: missing.yaml: no such file"),
        ([CLUSTER, "--change", "-", "-"], "error: stdin (-) can be the snapshot or a change"),
    ],
    ids=[
        "class-still-referenced",
        "nothing",
        "bad-delete",
        "unknown-delete",
        "missing-change",
        "stdin-twice",
    ],
)
def test_input_errors_exit_2(args: list[object], message: str) -> None:
    """Bad input exits 2 with one clean line; a deletion the loader rejects says so."""
    result = run("audit", *args)
    assert (2, "", True, 1) == (
        result.exit_code,
        result.stdout,
        result.stderr.startswith(message),
        len(result.stderr.splitlines()),
    )


@pytest.mark.parametrize(
    ("metadata", "problem"),
    [
        ("", "field metadata.name): missing (required)"),
        ("metadata: x\n", "field metadata): must be a mapping, not a string"),
    ],
    ids=["no-metadata", "metadata-a-string"],
)
def test_a_change_object_without_a_name_is_the_loaders_error(
    tmp_path: Path, metadata: str, problem: str
) -> None:
    """A change document that names no object (no metadata, or metadata that is no mapping)
    cannot replace anything: it is built with the rest, and the loader's own line says what
    is wrong with it, in the change file -- exit 2, no traceback."""
    change = tmp_path / "change.yaml"
    change.write_text(f"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n{metadata}"
                      "value: 5\n")
    result = run("audit", CLUSTER, "--change", change)
    assert (2, "", f"error: with the change applied: PriorityClass ({change}:1, document 1, "
                   f"{problem}\n") == (result.exit_code, result.stdout, result.stderr)


def test_deleting_a_class_running_pods_still_name_is_risky() -> None:
    """Issue 26: fixtures/manifests/cluster.yaml's batch/report-0 names class `medium` and
    carries spec.priority 500. Deleting `medium` loads (the pod keeps 500), but the API server
    would reject any re-created pod naming it: a dangling reference, so the change is risky
    (exit 1, as docs/ci.md says) and the reference is listed. Nothing else names `medium`,
    and no cycle or violation appears (the graph keeps 500/500 -> 100/100)."""
    code, d = audit_json(MANIFESTS / "cluster.yaml", "--delete", "PriorityClass/medium")
    refs = [(w["code"], w["object"], w["field"]) for w in d["danglingReferences"]]
    assert (1, True, [("MissingPriorityClass", "Pod batch/report-0", "spec.priorityClassName")],
            1, 0, 0) == (code, d["risky"], refs, d["summary"]["danglingReferences"],
                         d["summary"]["cyclesIntroduced"], d["summary"]["violationsIntroduced"])
    table = run("audit", MANIFESTS / "cluster.yaml", "--delete", "PriorityClass/medium")
    assert (1, "RISKY: leaves 1 reference(s) dangling") == (
        table.exit_code, table.stdout.strip().splitlines()[-1])
    assert "References the change leaves dangling (1)" in table.stdout


def test_a_reference_already_dangling_is_not_the_change_s_doing() -> None:
    """A snapshot whose pod already names a missing class (the export left it out): deleting
    another, unused class leaves nothing new dangling: exit 0, the warning stays a warning."""
    code, d = audit_json(ROOT / "fixtures" / "exports" / "kubectl-no-system-classes.yaml",
                         "--change", AUDIT / "raise-medium.yaml")
    assert (0, [], True) == (code, d["danglingReferences"], any(
        w["code"] == "MissingPriorityClass" for w in d["warnings"]))


def test_deleting_a_referenced_class_names_the_referencing_object() -> None:
    """The loader's message for a class still referenced comes through, naming the Workload."""
    result = run("audit", CLUSTER, "--delete", "PriorityClass/train-protect")
    assert "train-protect" in result.stderr and str(CLUSTER) in result.stderr


def test_max_plans_truncates() -> None:
    """--max-plans 0 plans nothing and says the list is truncated."""
    code, d = audit_json(CLUSTER, "--change", AUDIT / "raise-medium.yaml", "--max-plans", "0")
    s = d["summary"]
    assert (0, [], 0, 1, True) == (
        code,
        d["plans"],
        s["preemptorsPlanned"],
        s["preemptorsPending"],
        s["plansTruncated"],
    )


def test_other_kinds_in_the_change_are_counted_not_listed(tmp_path: Path) -> None:
    """A Service among the changed manifests is not listed, only counted as ignored. (It was a
    Deployment before pod templates were read: deliberate change.)"""
    change = tmp_path / "change.yaml"
    deployment = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}}
    change.write_text(
        yaml.safe_dump_all([deployment, yaml.safe_load((AUDIT / "raise-medium.yaml").read_text())])
    )
    code, d = audit_json(CLUSTER, "--change", change)
    expected = (0, [("changed", "PriorityClass", "medium")], 1, 1)
    actual = (
        code,
        [(c["action"], c["kind"], c["name"]) for c in d["changes"]],
        d["summary"]["changes"],
        d["summary"]["changesIgnored"],
    )
    assert expected == actual


def test_change_from_stdin() -> None:
    """The change may come from stdin."""
    result = run(
        "audit",
        CLUSTER,
        "--change",
        "-",
        "-o",
        "json",
        input=(AUDIT / "raise-train.yaml").read_text(),
    )
    assert (1, True) == (result.exit_code, json.loads(result.stdout)["risky"])


def test_a_class_exported_with_annotations_is_unchanged(tmp_path: Path) -> None:
    """A user exports a PriorityClass with `kubectl get pc low -o json`, which adds annotations
    (kubectl's last-applied-configuration), and audits it against a JSON List snapshot holding
    the same class without them. wapctl reads no annotation of a class, so nothing changed:
    the class is listed as unchanged, the summary counts 0 changes, exit 0."""
    snapshot = tmp_path / "snap.json"
    snapshot.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                    "items": [pclass("low", 1000)]}))
    annotated = pclass("low", 1000)
    annotated["metadata"]["annotations"] = {
        "kubectl.kubernetes.io/last-applied-configuration": json.dumps(pclass("low", 1000))}
    change = tmp_path / "low.json"
    change.write_text(json.dumps(annotated))
    code, d = audit_json(snapshot, "--change", change)
    assert (0, [("unchanged", "PriorityClass", "low")], 0) == (
        code, [(c["action"], c["kind"], c["name"]) for c in d["changes"]], d["summary"]["changes"])


def test_same_objects_in_another_order_give_identical_json(tmp_path: Path) -> None:
    """Snapshot and change split and ordered differently: byte-identical JSON."""
    items = yaml.safe_load(CLUSTER.read_text())["items"]
    split = tmp_path / "snap"
    split.mkdir()
    for i, obj in enumerate(reversed(items)):
        (split / f"{i:02d}.json").write_text(json.dumps(obj))
    change = tmp_path / "change.json"
    change.write_text(json.dumps(yaml.safe_load((AUDIT / "raise-medium.yaml").read_text())))
    one = run("audit", CLUSTER, "--change", AUDIT / "raise-medium.yaml", "-o", "json").stdout
    two = run("audit", split, "--change", change, "-o", "json").stdout
    assert one == two


def test_yaml_output_is_the_same_document() -> None:
    """-o yaml prints the same document as -o json."""
    args = ("audit", CLUSTER, "--change", AUDIT / "raise-train.yaml")
    as_json = json.loads(run(*args, "-o", "json").stdout)
    assert as_json == yaml.safe_load(run(*args, "-o", "yaml").stdout)


def test_table_shows_the_story() -> None:
    """The table names the change, the new edges, the plan change and the verdict."""
    result = run("audit", CLUSTER, "--change", AUDIT / "raise-medium.yaml", "--no-color")
    out = result.stdout
    expected = [
        "PriorityClass/medium   value 700 → 800",
        "batch/report (700/700 → 800/800)   web/frontend-0 (750/750)",
        "RequiresPreemption: ml/training-0, ml/training-1   RequiresPreemption: web/frontend-0",
        "OK: introduces no preemption cycle and no rule violation",
    ]
    assert (0, []) == (result.exit_code, [line for line in expected if line not in out])


def test_table_risky_verdict() -> None:
    """A risky change ends with the RISKY verdict and exit 1."""
    result = run("audit", CLUSTER, "--change", AUDIT / "raise-train.yaml", "--no-color")
    last = result.stdout.rstrip().splitlines()[-1]
    assert (1, "RISKY: introduces 3 cycle(s) and 1 rule violation(s)") == (result.exit_code, last)


def test_a_deployment_in_the_change_takes_part(tmp_path: Path) -> None:
    """A Deployment's pod template is a member: adding one whose class is above a running
    pod's lists it and its new edge to the victim (cluster.yaml of fixtures/cycles/audit:
    web/frontend-0 runs at 750/750; a template of class `train` (300) cannot preempt it, one
    of a 1000 class can)."""
    change = tmp_path / "change.yaml"
    change.write_text(yaml.safe_dump_all([
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "top"}, "value": 1000},
        {"apiVersion": "apps/v1", "kind": "Deployment",
         "metadata": {"name": "api", "namespace": "web"},
         "spec": {"template": {"spec": {"priorityClassName": "top"}}}},
    ]))
    code, d = audit_json(CLUSTER, "--change", change)
    assert ("added", "Deployment", "api") in [
        (c["action"], c["kind"], c["name"]) for c in d["changes"]
    ]
    preemptors = [e["preemptor"] for e in d["edges"]["added"]]
    assert any(p["templates"] == ["Deployment web/api"] for p in preemptors)
    victims = {v for e in d["edges"]["added"] for v in e["victim"]["pods"]}
    assert "web/frontend-0" in victims and 0 == code


@pytest.mark.parametrize(
    ("deletion", "line"),
    [
        ("Workload/ml/trainin", "error: deletion Workload/ml/trainin: no such object in the "
                                "snapshot (did you mean Workload/ml/training?)\n"),
        # ml/training is close in name but in another namespace: not a suggestion
        ("Workload/batch/trainin",
         "error: deletion Workload/batch/trainin: no such object in the snapshot\n"),
    ],
    ids=["same-namespace", "other-namespace"],
)
def test_an_unknown_deletion_suggests_names_of_its_kind_and_namespace(
    deletion: str, line: str
) -> None:
    """A mistyped --delete suggests the close names of the same kind in the same namespace."""
    result = run("audit", CLUSTER, "--delete", deletion)
    assert (2, "", line) == (result.exit_code, result.stdout, result.stderr)


def test_an_unchanged_vertex_lists_its_templates(tmp_path: Path) -> None:
    """A vertex no member moves into keeps its whole cell, pod templates included: with a
    Deployment of class `batch` (750) beside web/frontend-0 (750/750), raising `medium` to 800
    adds batch/report's edge to that cell and removes the cell's edge to report; the cell names
    the pod and the template (cluster.yaml of fixtures/cycles/audit)."""
    dep = tmp_path / "deployment.yaml"
    dep.write_text(yaml.safe_dump({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "api", "namespace": "web"},
        "spec": {"template": {"spec": {"priorityClassName": "batch",
                                       "containers": [{"name": "api", "image": "api"}]}}}}))
    code, d = audit_json(CLUSTER, dep, "--change", AUDIT / "raise-medium.yaml")
    web = {"profileBefore": "750/750", "profileAfter": "750/750", "workloads": [],
           "podGroups": [], "pods": ["web/frontend-0"], "templates": ["Deployment web/api"],
           "counts": {"workloads": 0, "podGroups": 0, "pods": 1, "templates": 1}}
    assert (0, {"added": [{"preemptor": REPORT_RAISED, "victim": web}],
                "removed": [{"preemptor": web, "victim": REPORT_RAISED}]},
            [{"victim": web, "newPreemptors": [REPORT_RAISED]}]) == (
        code, d["edges"], d["lostProtection"])


def test_an_object_of_another_kind_twice_in_the_change_is_refused(tmp_path: Path) -> None:
    """Identity is the API group: a Service written once with `apiVersion: v1` and once
    without apiVersion is the same object (core group "") twice, an input error (exit 2)."""
    change = tmp_path / "change.yaml"
    change.write_text("apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: ml}\n"
                      "---\nkind: Service\nmetadata: {name: web, namespace: ml}\n")
    result = run("audit", CLUSTER, "--change", change)
    assert (2, "") == (result.exit_code, result.stdout)
    assert (f"error: {change}:5, document 2: Service/ml/web appears twice in the change "
            f"files (first at {change}:1, document 1)\n") == result.stderr


NAMESPACED_QUEUE = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: node-a},
   status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: node-b},
   status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: a, namespace: ml}
  spec: {containers: [{name: a, image: a, resources: {requests: {cpu: "1"}}}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: b, namespace: web}
  spec: {containers: [{name: b, image: b, resources: {requests: {cpu: "1"}}}]}
"""


@pytest.mark.parametrize(
    "change",
    [["--change", "unused-class"], ["--delete", "Node/node-b"]],
    ids=["nothing-a-plan-reads", "a-node-deleted"],
)
def test_namespace_counts_and_plans_only_that_namespace_s_queue(
    tmp_path: Path, change: list[str]
) -> None:
    """--namespace NS plans, counts and lists only NS's pending preemptors, on both sides:
    with one pending pod in `ml` and one in `web` (each fits on either empty node), auditing
    with -n ml reports one pending preemptor, one planned, no plan change -- whether the
    change leaves everything a plan reads alone (a new PriorityClass nothing names) or not
    (an empty node deleted: ml/a still fits on node-a). Without -n both pods count."""
    snap = tmp_path / "snap.yaml"
    snap.write_text(NAMESPACED_QUEUE)
    unused = tmp_path / "unused.yaml"
    unused.write_text(yaml.safe_dump(pclass("unused", 5)))
    args = [str(unused) if a == "unused-class" else a for a in change]
    rows = []
    for ns in (["-n", "ml"], []):
        code, d = audit_json(snap, *args, *ns)
        s = d["summary"]
        rows.append((code, d["plans"], s["preemptorsPending"], s["preemptorsPlanned"],
                     s["plansTruncated"]))
    assert [(0, [], 1, 1, False), (0, [], 2, 2, False)] == rows


def test_audit_feature_gates_are_checked_against_the_chosen_model() -> None:
    """``--feature-gates`` reaches the model the audit plans with: the audit cluster selects
    kep-5710 (its Workload sets preemptionPriorityClassName), which has no
    PodGroupPreemptionPolicy gate, so asking for it is a usage error naming the model's gates
    rather than being silently ignored; with ``--model upstream`` the same gate is accepted."""
    change = AUDIT / "raise-medium.yaml"
    result = run("audit", CLUSTER, "--change", change,
                 "--feature-gates", "PodGroupPreemptionPolicy=true")
    assert (2, "error: feature gate PodGroupPreemptionPolicy is not known to model kep-5710 "
               "(known: GangScheduling, GenericWorkload, WorkloadAwarePreemption)\n") == (
        result.exit_code, result.stderr)
    code, out = audit_json(CLUSTER, "--change", change, "--model", "upstream",
                           "--feature-gates", "PodGroupPreemptionPolicy=true")
    assert (0, "upstream") == (code, out["model"]["name"])


@pytest.mark.parametrize(("risky", "counts", "expected"), [
    (True, (2, 0, 0), "introduces 2 cycle(s)"),
    (True, (0, 1, 0), "introduces 1 rule violation(s)"),
    (True, (0, 0, 3), "leaves 3 reference(s) dangling"),
    (True, (1, 2, 3), "introduces 1 cycle(s) and 2 rule violation(s); leaves 3 reference(s) "
                      "dangling"),
    (False, (0, 0, 0), "introduces no preemption cycle and no rule violation"),
])
def test_verdict_names_only_the_reasons_that_hold(
    risky: bool, counts: tuple[int, int, int], expected: str
) -> None:
    """The verdict (the table's last line, the html badge) names each count above zero, no
    zero count."""
    from wapctl.render.audit import verdict

    keys = ("cyclesIntroduced", "violationsIntroduced", "danglingReferences")
    assert expected == verdict(risky, dict(zip(keys, counts, strict=True)))
