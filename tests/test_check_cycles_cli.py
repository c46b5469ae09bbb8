"""`wapctl check-cycles` through Typer's CliRunner: exit codes, the CycleReport document, the
GitHub annotation format, the table, and determinism across document order and file format."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from wapctl.cli import app

ROOT = Path(__file__).resolve().parent.parent
CYCLES = ROOT / "fixtures" / "cycles"
KEP_AB = CYCLES / "kep-ab.yaml"


def run(*args: object, input: str | None = None) -> Any:
    return CliRunner().invoke(
        app, [str(a) for a in args], input=input, env={"COLUMNS": "100"}, catch_exceptions=False
    )


def report(*args: object) -> dict[str, Any]:
    result = run("check-cycles", *args, "-o", "json")
    return json.loads(result.stdout)


def vertex(
    profile: str,
    workloads: list[str],
    groups: list[str],
    pods: list[str] = (),  # type: ignore[assignment]
    group_pods: int = 0,
    policy: str = "PreemptLowerPriority",
) -> dict[str, Any]:
    sched, preempt = (int(x) for x in profile.split("/")[:2])
    return {
        "profile": profile,
        "schedulingPriority": sched,
        "preemptionPriority": preempt,
        "preemptionPolicy": policy,
        "workloads": workloads,
        "podGroups": groups,
        "pods": list(pods),
        "templates": [],
        "counts": {
            "workloads": len(workloads),
            "podGroups": len(groups),
            "pods": len(pods),
            "groupPods": group_pods,
            "templates": 0,
        },
    }


def edge(a: str, b: str) -> dict[str, Any]:
    return {
        "from": a,
        "to": b,
        "preemptorPriority": int(a.split("/")[0]),
        "victimPriority": int(b.split("/")[1]),
    }


RULE = "KEP-5710 requires preemption priority >= scheduling priority"
TRAINING_VIOLATION = {
    "kind": "Workload",
    "name": "ml/training",
    "namespace": "ml",
    "profile": "1000/100",
    "schedulingPriority": 1000,
    "preemptionPriority": 100,
    "preemptionPolicy": "PreemptLowerPriority",
    "priorityClassName": "high",
    "preemptionPriorityClassName": "low",
    "podGroups": ["ml/training/workers"],
    "inCycle": True,
    "message": "Workload ml/training: preemption priority 100 (class low) is below its "
    f"scheduling priority 1000 (class high); {RULE}; it is on a preemption cycle",
    "fix": "raise ml/training's preemption priority to >= 1000 (a preemptionPriorityClassName "
    "of value >= 1000, or none), or lower its scheduling priority to <= 100",
}
TRAINING_FIX = "raise the preemption priority of ml/training to >= 1000"


def summary(**kw: Any) -> dict[str, Any]:
    base = {
        "profiles": 2,
        "edges": 2,
        "cycles": 1,
        "cyclesListed": 1,
        "cyclesCountComplete": True,
        "profilesInCycles": 2,
        "violations": 1,
        "findings": 0,
        "workloads": 2,
        "podGroups": 2,
        "pods": 0,
        "templates": 0,
        "namespace": None,
        "outsideManifests": None,
    }
    return base | kw


# ---- exit codes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fixture", "code"),
    [
        ("kep-ab.yaml", 1),
        ("kep-ab-fixed.yaml", 0),
        ("never-breaks-cycle.yaml", 1),
        ("standalone-pod-cycle.yaml", 1),
        ("three-way-cycle.yaml", 1),
    ],
    ids=["kep-ab", "fixed", "never", "standalone-pod", "three-way"],
)
def test_exit_codes_of_the_fixtures(fixture: str, code: int) -> None:
    """Exit 0 with neither cycles nor violations, 1 with either, in every output format."""
    for fmt in ("table", "json", "yaml"):
        assert code == run("check-cycles", CYCLES / fixture, "-o", fmt).exit_code
    assert code == run("check-cycles", CYCLES / fixture, "--format", "github").exit_code


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.yaml"], "error: missing.yaml: no such file or directory\n"),
        (
            [KEP_AB, "--format", "github", "-o", "json"],
            "error: --format github replaces the table; do not combine it with -o json|yaml\n",
        ),
        (
            [KEP_AB, CYCLES / "never-breaks-cycle.yaml"],
            (
                # both files open with comments; their first objects start at lines 15 and 16
                f"error: {CYCLES / 'never-breaks-cycle.yaml'}:15, document 1, "
                "field metadata.name: "
                f"duplicate PriorityClass low (first defined at {KEP_AB}, document 1, line 16)\n"
            ),
        ),
    ],
    ids=["missing-file", "github-with-json", "duplicate-across-files"],
)
def test_input_errors_exit_2_with_one_line(args: list[object], message: str) -> None:
    """Bad input or a bad option combination exits 2 with one clean line on stderr."""
    result = run("check-cycles", *args)
    assert (2, "", message) == (result.exit_code, result.stdout, result.stderr)


def test_malformed_yaml_exits_2(tmp_path: Path) -> None:
    """A malformed snapshot gets the loader's clean error, exit 2, no traceback."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: Workload\nmetadata: {name: [unclosed\n")
    result = run("check-cycles", bad)
    assert 2 == result.exit_code
    assert result.stderr.startswith(f"error: {bad}") and "Traceback" not in result.stderr


def test_max_cycles_must_be_positive() -> None:
    """--max-cycles 0 is a usage error (exit 2)."""
    assert 2 == run("check-cycles", KEP_AB, "--max-cycles", "0").exit_code


# ---- the document ------------------------------------------------------------------------------


# the behaviour model: a Workload with preemptionPriorityClassName selects kep-5710 (SPEC §0)
KEP_MODEL = {"name": "kep-5710",
             "reason": "Workload ml/training sets preemptionPriorityClassName (a KEP-5710-only "
                       "field)"}
DEFAULT_MODEL = {"name": "1.36", "reason": "no server version known; default model 1.36"}


def test_kep_ab_document() -> None:
    """The KEP's A/B example: one two-profile cycle and A's violation, complete document."""
    expected = {
        "apiVersion": "wapctl/v1",
        "kind": "CycleReport",
        "cycles": [
            {
                "length": 2,
                "members": [
                    vertex("500/500", ["batch/report"], ["batch/report/main"], group_pods=1),
                    vertex("1000/100", ["ml/training"], ["ml/training/workers"], group_pods=2),
                ],
                "edges": [edge("500/500", "1000/100"), edge("1000/100", "500/500")],
                "fix": TRAINING_FIX,
            }
        ],
        "violations": [TRAINING_VIOLATION],
        "findings": [],
        "newVictims": [],
        "summary": summary(),
        "warnings": [],
        "model": KEP_MODEL,
    }
    assert expected == report(KEP_AB)


def test_kep_ab_fixed_document() -> None:
    """The fixed A/B example: one edge, nothing to report."""
    expected = {
        "apiVersion": "wapctl/v1",
        "kind": "CycleReport",
        "cycles": [],
        "violations": [],
        "findings": [],
        "newVictims": [],
        "summary": summary(edges=1, cycles=0, cyclesListed=0, profilesInCycles=0, violations=0),
        "warnings": [],
        "model": DEFAULT_MODEL,
    }
    assert expected == report(CYCLES / "kep-ab-fixed.yaml")


def test_never_breaks_the_cycle_but_the_violation_stays() -> None:
    """With a Never scheduling class A cannot preempt back: no cycle, the violation remains."""
    expected = {
        "apiVersion": "wapctl/v1",
        "kind": "CycleReport",
        "cycles": [],
        "violations": [
            TRAINING_VIOLATION
            | {
                "profile": "1000/100/Never",
                "preemptionPolicy": "Never",
                "priorityClassName": "high-nonpreempting",
                "inCycle": False,
                "message": "Workload ml/training: preemption priority 100 (class low) is below "
                f"its scheduling priority 1000 (class high-nonpreempting); {RULE}; its "
                "preemptionPolicy is Never, so it closes no cycle today",
            }
        ],
        "findings": [],
        "newVictims": [],
        "summary": summary(edges=1, cycles=0, cyclesListed=0, profilesInCycles=0),
        "warnings": [],
        "model": KEP_MODEL,
    }
    assert expected == report(CYCLES / "never-breaks-cycle.yaml")


def test_scheduler_models_see_no_preemption_priority() -> None:
    """Under --model 1.36 (no preemptionPriorityClassName upstream) the KEP's A/B cycle and
    its violation do not exist: A preempts B, B never preempts A."""
    doc = report(KEP_AB, "--model", "1.36")
    assert ([], [], {"name": "1.36", "reason": "--model 1.36"}) == (
        doc["cycles"], doc["violations"], doc["model"])


def test_standalone_pod_closes_a_cycle() -> None:
    """A pod without a Workload is a member of its own profile and closes the cycle."""
    doc = report(CYCLES / "standalone-pod-cycle.yaml")
    expected_cycles = [
        {
            "length": 2,
            "members": [
                vertex("500/500", [], [], pods=["web/frontend-0"]),
                vertex("1000/100", ["ml/training"], ["ml/training/workers"]),
            ],
            "edges": [edge("500/500", "1000/100"), edge("1000/100", "500/500")],
            "fix": TRAINING_FIX,
        }
    ]
    expected = (expected_cycles, [TRAINING_VIOLATION], summary(workloads=1, podGroups=1, pods=1))
    assert expected == (doc["cycles"], doc["violations"], doc["summary"])


def test_three_way_cycle() -> None:
    """Three profiles: the two 2-cycles through A and the 3-cycle, shortest first."""
    doc = report(CYCLES / "three-way-cycle.yaml")
    paths = [[m["profile"] for m in c["members"]] for c in doc["cycles"]]
    edges = [[(e["from"], e["to"]) for e in c["edges"]] for c in doc["cycles"]]
    expected = (
        [["300/300", "1000/100"], ["500/500", "1000/100"], ["300/300", "1000/100", "500/500"]],
        [("300/300", "1000/100"), ("1000/100", "500/500"), ("500/500", "300/300")],
        ["ml/training"],
        summary(
            profiles=3,
            edges=5,
            cycles=3,
            cyclesListed=3,
            profilesInCycles=3,
            workloads=3,
            podGroups=3,
        ),
    )
    actual = (paths, edges[2], [v["name"] for v in doc["violations"]], doc["summary"])
    assert expected == actual


def test_max_cycles_bounds_the_list_not_the_count() -> None:
    """--max-cycles 1 lists the shortest cycle only and still counts all three."""
    doc = report(CYCLES / "three-way-cycle.yaml", "--max-cycles", "1")
    expected = ([["300/300", "1000/100"]], 3, 1)
    actual = (
        [[m["profile"] for m in c["members"]] for c in doc["cycles"]],
        doc["summary"]["cycles"],
        doc["summary"]["cyclesListed"],
    )
    assert expected == actual


@pytest.mark.parametrize(
    ("namespace", "code", "cycles", "violations"),
    [("batch", 1, 1, 0), ("ml", 1, 1, 1), ("other", 0, 0, 0)],
    ids=["cycle-member", "violator", "uninvolved"],
)
def test_namespace_filter(namespace: str, code: int, cycles: int, violations: int) -> None:
    """-n keeps the cycles touching the namespace and its own violations."""
    result = run("check-cycles", KEP_AB, "-n", namespace, "-o", "json")
    s = json.loads(result.stdout)["summary"]
    assert (code, cycles, violations, namespace) == (
        result.exit_code,
        s["cycles"],
        s["violations"],
        s["namespace"],
    )


def test_yaml_output_is_the_same_document() -> None:
    """-o yaml prints the same document as -o json."""
    result = run("check-cycles", KEP_AB, "-o", "yaml")
    assert report(KEP_AB) == yaml.safe_load(result.stdout)


# ---- determinism ---------------------------------------------------------------------------------


def _documents(path: Path) -> list[Any]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]


@pytest.mark.parametrize(
    "fixture", ["kep-ab.yaml", "standalone-pod-cycle.yaml", "three-way-cycle.yaml"]
)
def test_same_objects_in_another_order_and_format_give_identical_json(
    tmp_path: Path, fixture: str
) -> None:
    """Reversed document order, split over files, or JSON instead of YAML: byte-identical."""
    docs = _documents(CYCLES / fixture)
    reversed_file = tmp_path / "reversed.yaml"
    reversed_file.write_text(yaml.safe_dump_all(list(reversed(docs))))
    split = tmp_path / "split"
    split.mkdir()
    for i, doc in enumerate(docs):
        (split / f"{len(docs) - i:02d}.json").write_text(json.dumps(doc))
    as_list = tmp_path / "list.json"
    as_list.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": docs[::-1]}))
    outputs = {
        run("check-cycles", p, "-o", "json").stdout
        for p in (CYCLES / fixture, reversed_file, split, as_list)
    }
    assert 1 == len(outputs)


# ---- GitHub annotations ------------------------------------------------------------------


def test_github_annotations_name_the_file() -> None:
    """--format github prints one ::error per cycle and per violation, at the Workload's file
    and line (document 4, Workload ml/training, starts at line 32 after its comment line)."""
    result = run("check-cycles", KEP_AB, "--format", "github")
    expected = [
        (
            # line 37: ml/training's spec.preemptionPriorityClassName in kep-ab.yaml
            f"::error file={KEP_AB},line=37,title=KEP-5710 preemption cycle::preemption cycle of 2 "
            "profiles: 500/500 [batch/report] → 1000/100 [ml/training] → 500/500: each can preempt "
            "the next, so they can preempt each other forever"
        ),
        (
            f"::error file={KEP_AB},line=37,title=KEP-5710 priority rule::Workload ml/training: "
            "preemption priority 100 (class low) is below its scheduling priority 1000 (class "
            f"high); {RULE}; it is on a preemption cycle"
        ),
        "wapctl check-cycles: 1 cycle, 1 rule violation",
    ]
    assert (1, expected) == (result.exit_code, result.stdout.splitlines())


def test_github_cycle_is_annotated_at_the_rule_breakers_file(tmp_path: Path) -> None:
    """A cycle spanning files is annotated where its rule-breaking Workload is defined."""
    docs = _documents(KEP_AB)
    breaker = [d for d in docs if d["metadata"]["name"] == "training" and d["kind"] == "Workload"]
    others = [d for d in docs if d not in breaker]
    (tmp_path / "a-others.yaml").write_text(yaml.safe_dump_all(others))
    (tmp_path / "b-training.yaml").write_text(yaml.safe_dump_all(breaker))
    lines = run("check-cycles", tmp_path, "--format", "github").stdout.splitlines()
    heads = [line.split("::")[1] for line in lines[:-1]]
    file = tmp_path / "b-training.yaml"
    # safe_dump sorts keys: apiVersion, kind, metadata (2 lines), spec, then podGroups (4 lines
    # and policy), preemptionPriorityClassName on line 12
    expected = [
        f"error file={file},line=12,title=KEP-5710 preemption cycle",
        f"error file={file},line=12,title=KEP-5710 priority rule",
    ]
    assert expected == heads


POD_BREAKER = """\
apiVersion: v1
kind: List
items:
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: low}, value: 100}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: medium}, value: 500}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000}
- apiVersion: scheduling.k8s.io/v1alpha1
  kind: Workload
  metadata: {name: w, namespace: ml}
  spec:
    preemptionPriorityClassName: low
    podGroups: [{name: main, policy: {basic: {}}}]
- apiVersion: v1
  kind: Pod
  metadata: {name: p1, namespace: ml}
  spec:
    priorityClassName: high
    workloadRef: {name: w, podGroup: main}
    containers: [{name: c, image: i}]
- apiVersion: v1
  kind: Pod
  metadata: {name: p2, namespace: ml}
  spec:
    priorityClassName: medium
    workloadRef: {name: w, podGroup: main}
    containers: [{name: c, image: i}]
- apiVersion: v1
  kind: Pod
  metadata: {name: q, namespace: web}
  spec:
    priorityClassName: medium
    containers: [{name: c, image: i}]
"""


def test_github_cycle_whose_rule_breaker_is_a_pod_is_annotated_at_the_pod(tmp_path: Path) -> None:
    """The v1alpha1 Workload ml/w names no scheduling class: its group schedules at its pods'
    lowest priority, 500 (p2, medium), and is a victim at 100 (low): 500/100. Its pod p1 (high)
    schedules at 1000 with the group's preemption priority 100: profile 1000/100, whose only
    member is the pod ml/p1 (no Workload listed). The standalone pod web/q is 500/500. The cycle
    500/500 [web/q] -> 1000/100 [ml/p1] has one rule breaker, 1000/100: it is annotated at p1's
    spec.priorityClassName, line 17 of the file."""
    snap = tmp_path / "snap.yaml"
    snap.write_text(POD_BREAKER)
    lines = run("check-cycles", snap, "--format", "github").stdout.splitlines()
    cycle = "500/500 [web/q] → 1000/100 [ml/p1] → 500/500:"
    heads = [line.split("::")[1] for line in lines if cycle in line]
    assert [f"error file={snap},line=17,title=KEP-5710 preemption cycle"] == heads


def test_github_annotations_from_stdin_have_no_file() -> None:
    """Objects read from stdin carry no file= property; the message says <stdin>."""
    result = run("check-cycles", "-", "--format", "github", input=KEP_AB.read_text())
    first = result.stdout.splitlines()[0]
    assert first.startswith("::error title=KEP-5710 preemption cycle::") and first.endswith(
        "(<stdin>:32, document 4)"  # stdin's lines are known too
    )


def test_github_clean_run_prints_only_the_summary() -> None:
    """A clean snapshot prints no annotation, one summary line, and exits 0."""
    result = run("check-cycles", CYCLES / "kep-ab-fixed.yaml", "--format", "github")
    expected = (0, "wapctl check-cycles: no preemption cycles, no rule violations\n")
    assert expected == (result.exit_code, result.stdout)


def test_github_escapes_properties_and_data() -> None:
    """Commas and colons in a path, and % or newlines in text, are escaped as GitHub wants."""
    from wapctl.errors import Source
    from wapctl.render.cycles import annotation

    line = annotation("error", "a:b", "50% done\nnext", Source("dir,x/a:b.yaml", 2))
    assert "::error file=dir%2Cx/a%3Ab.yaml,title=a%3Ab::50%25 done%0Anext (document 2)" == line


# ---- the table -----------------------------------------------------------------------------------


def test_table_kep_ab() -> None:
    """The table lists the cycle with its members, the violation with its file, the verdict."""
    result = run("check-cycles", KEP_AB, "--no-color")
    lines = [line.rstrip() for line in result.stdout.splitlines()]
    expected = [
        (
            "Priority graph: 2 profiles, 2 preemption edges; 2 workloads, 2 pod groups, "
            "0 standalone pods"
        ),
        "Preemption cycles (1)",
        "",
        "  #   cycle: profile (scheduling/preemption) [members] → ...",
        " " + "─" * 63,
        "  1   500/500 [batch/report] → 1000/100 [ml/training] → 500/500",
        "",
        "Rule violations: preemption priority below scheduling priority (1)",
    ]
    assert (1, expected) == (result.exit_code, lines[: len(expected)])
    assert "FAIL: 1 cycle, 1 rule violation" == lines[-1]
    assert "Workload ml/training" in result.stdout and "high / low" in result.stdout


def test_table_clean() -> None:
    """A clean snapshot prints the graph size and OK."""
    result = run("check-cycles", CYCLES / "kep-ab-fixed.yaml", "--no-color")
    expected = (
        "Priority graph: 2 profiles, 1 preemption edge; 2 workloads, 2 pod groups, "
        "0 standalone pods\nOK: no preemption cycles, no rule violations\n"
    )
    assert (0, expected) == (result.exit_code, result.stdout)
