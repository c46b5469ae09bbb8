"""Issue 26 points 1-3: every line about victims is true (through the CLI).

1. A victim upstream chooses that is already terminating is no new victim: ``prepareCandidate``
   (preemption.go / executor.go) deletes nothing whose deletionTimestamp is set. The plan waits
   for it (``terminating``), never lists it under ``victims`` / ``-o name`` / the summary.
2. ``-o wide``: each node's free figures come once from the planner's accounting and the plan's
   own lists (a pod in two lists leaves once); the victims' PDB column means "violated" in every
   form, the matching budgets have their own column.
3. ``simulate``: each victim is printed with its own node; a pod still terminating from an earlier
   step is never preempted again.

Every expected value is worked out by hand in the comment next to it (or in the fixture's header).
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from wapctl.cli import app

ROOT = Path(__file__).resolve().parent.parent
SECOND = ROOT / "fixtures" / "plan" / "terminating-second-preemptor.yaml"
EXPORT = ROOT / "fixtures" / "exports" / "k8s-1.36" / "kubectl" / "get-all-wapctl-kinds.yaml"
GANG_RETRY = ROOT / "fixtures" / "simulate" / "gang-retry-terminating.yaml"


def run(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


def squeezed(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.splitlines()]


# ---- 1. an already-terminating victim ----------------------------------------------------------

def test_terminating_victim_is_waited_for_not_preempted_again():
    """The fixture's header works it out: upstream's only candidate is n2 with victims {filler},
    filler is already terminating, so nothing is deleted: WaitingForTermination on n2, no
    victims, filler under terminating — in JSON, the table and -o name alike."""
    doc = json.loads(run("plan", SECOND, "-o", "json").stdout)
    assert ("WaitingForTermination", [], [{"pod": "default/filler", "node": "n2"}],
            [{"pod": "default/second", "node": "n2"}], 0) == (
        doc["status"], doc["victims"], doc["terminating"], doc["placements"],
        doc["summary"]["victimPods"])
    table = run("plan", SECOND)
    lines = squeezed(table.stdout)
    assert "Victims" not in lines  # no victims table: the terminating pod is shown apart
    assert "default/filler n2" in lines  # under "Waiting for terminating pods"
    assert "preempting" not in table.stdout  # the verdict preempts nothing
    names = run("plan", SECOND, "-o", "name")
    assert (0, "") == (names.exit_code, names.stdout)  # nothing to delete


_GOING = ', deletionTimestamp: "2026-01-01T11:00:00Z"'


def _one_node(cpu: str, low_pods: list[tuple[str, bool]], wanted: str) -> str:
    """A List: classes low=1 and high=100, node n1 with ``cpu`` cpu, a 2-cpu low pod on n1
    for each (name, terminating), and the pending high pod p asking ``wanted`` cpu."""
    pods = "".join(f"""\
- apiVersion: v1
  kind: Pod
  metadata: {{name: {name}, namespace: default{_GOING if going else ""}}}
  spec: {{nodeName: n1, priorityClassName: low,
         containers: [{{name: c, resources: {{requests: {{cpu: "2"}}}}}}]}}
  status: {{phase: Running, startTime: "2026-01-01T09:00:00Z"}}
""" for name, going in low_pods)
    return f"""\
apiVersion: v1
kind: List
items:
- {{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {{name: low}}, value: 1}}
- {{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {{name: high}}, value: 100}}
- apiVersion: v1
  kind: Node
  metadata: {{name: n1}}
  status: {{allocatable: {{cpu: "{cpu}", pods: "110"}}}}
{pods}- apiVersion: v1
  kind: Pod
  metadata: {{name: p, namespace: default}}
  spec: {{priorityClassName: high,
         containers: [{{name: c, resources: {{requests: {{cpu: "{wanted}"}}}}}}]}}
  status: {{phase: Pending}}
"""


def test_new_victims_besides_a_terminating_one_are_counted_alone(tmp_path: Path):
    """n1 (4 cpu): t terminating (2 cpu, low=1), v running (2 cpu, low=1); pending p (4 cpu,
    high=100). Upstream (1.36, the default model): both lower pods removed, p fits; putting back
    either leaves 2 cpu for 4: the chosen victims are {t, v}; t is already going, so only v is
    deleted: RequiresPreemption, victims [v], terminating [t], and the verdict counts 1 pod."""
    snap = tmp_path / "mixed.yaml"
    snap.write_text(_one_node("4", [("t", True), ("v", False)], "4"))
    doc = json.loads(run("plan", snap, "-o", "json").stdout)
    assert ("RequiresPreemption", ["default/v"], ["default/t"], 1) == (
        doc["status"], [v["pod"] for v in doc["victims"]],
        [t["pod"] for t in doc["terminating"]], doc["summary"]["victimPods"])
    # the verdict counts v alone and says in the singular that the one other chosen victim, t,
    # is already going
    assert ("pod default/p fits on node n1 after preempting 1 pod in 1 unit (highest victim "
            "priority 1); 1 more chosen victim is already terminating and not deleted again."
            ) == doc["reason"]
    assert "-n default pod/v\n" == run("plan", snap, "-o", "name").stdout


def test_two_terminating_chosen_victims_are_counted_in_the_plural(tmp_path: Path):
    """As above with n1 at 6 cpu and two terminating pods: t1, t2 (2 cpu each, low=1) and v
    running (2 cpu, low=1); pending p (6 cpu, high=100). Only with all three gone does p fit
    (6 of 6), and putting back any one leaves 4: the chosen victims are {t1, t2, v}; t1 and t2
    are already going, so v alone is deleted and the verdict says, in the plural, that the two
    others are already terminating."""
    snap = tmp_path / "two.yaml"
    snap.write_text(_one_node("6", [("t1", True), ("t2", True), ("v", False)], "6"))
    doc = json.loads(run("plan", snap, "-o", "json").stdout)
    assert ("RequiresPreemption", ["default/v"], ["default/t1", "default/t2"]) == (
        doc["status"], [v["pod"] for v in doc["victims"]],
        [t["pod"] for t in doc["terminating"]])
    assert ("pod default/p fits on node n1 after preempting 1 pod in 1 unit (highest victim "
            "priority 1); 2 more chosen victims are already terminating and not deleted again."
            ) == doc["reason"]


def test_terminating_member_of_a_low_group_is_a_victim_with_its_group(tmp_path: Path):
    """A v1alpha1 Workload without a class: each pod keeps its own priority and the group takes
    the lowest of them (priority.group_values). n1 (4 cpu): the PodGroup-mode group
    batch/etl/workers = {a: terminating, 2 cpu, own priority mid=100; b: running, 2 cpu,
    low=10}, so the group is 10; n2 (4 cpu): c running, 4 cpu, p20=20. Pending p (4 cpu,
    p50=50), model upstream (a pod preemptor takes such a group whole; terminating pods hold
    their resources and may be victims). The group (10 < 50) is one victim unit holding a too,
    though a's own 100 is above p's 50: on n1 it frees all 4 cpu, on n2 c does; n1's highest
    victim (10) is below n2's (20): p -> n1, victims [b], a listed under terminating (already
    going). Judging a by its own priority alone would leave it out of the unit (b alone frees 2
    cpu of 4 on n1) and preempt c on n2 instead."""
    snap = tmp_path / "group.yaml"
    snap.write_text("""\
apiVersion: v1
kind: List
items:
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: low}, value: 10}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: p50}, value: 50}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: mid}, value: 100}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: p20}, value: 20}
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2}, status: {allocatable: {cpu: "4", pods: "110"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: c, namespace: default}
  spec: {nodeName: n2, priorityClassName: p20,
         containers: [{name: c, resources: {requests: {cpu: "4"}}}]}
  status: {phase: Running, startTime: "2026-01-01T09:00:00Z"}
- apiVersion: scheduling.k8s.io/v1alpha1
  kind: Workload
  metadata: {name: etl, namespace: batch}
  spec:
    podGroups:
    - {name: workers, policy: {gang: {minCount: 2}}, disruptionMode: PodGroup}
- apiVersion: v1
  kind: Pod
  metadata: {name: a, namespace: batch, deletionTimestamp: "2026-01-01T11:00:00Z"}
  spec: {nodeName: n1, priorityClassName: mid, workloadRef: {name: etl, podGroup: workers},
         containers: [{name: c, resources: {requests: {cpu: "2"}}}]}
  status: {phase: Running, startTime: "2026-01-01T09:00:00Z"}
- apiVersion: v1
  kind: Pod
  metadata: {name: b, namespace: batch}
  spec: {nodeName: n1, priorityClassName: low, workloadRef: {name: etl, podGroup: workers},
         containers: [{name: c, resources: {requests: {cpu: "2"}}}]}
  status: {phase: Running, startTime: "2026-01-01T09:00:00Z"}
- apiVersion: v1
  kind: Pod
  metadata: {name: p, namespace: default}
  spec: {priorityClassName: p50, containers: [{name: c, resources: {requests: {cpu: "4"}}}]}
  status: {phase: Pending}
""")
    doc = json.loads(run("plan", snap, "--model", "upstream", "-o", "json").stdout)
    assert ("RequiresPreemption", [("batch/b", "n1")], [("batch/a", "n1")],
            [("default/p", "n1")]) == (
        doc["status"], [(v["pod"], v["node"]) for v in doc["victims"]],
        [(t["pod"], t["node"]) for t in doc["terminating"]],
        [(q["pod"], q["node"]) for q in doc["placements"]])
    assert doc["reason"].endswith("1 more chosen victim is already terminating and not deleted "
                                  "again.")


# ---- 2. -o wide: every figure once ----------------------------------------------------------

def test_wide_counts_a_terminating_victim_once():
    """n2 (4 cpu) holds filler (4 cpu, terminating): 0 free before; filler leaves once (+4) and
    second arrives (-2): 2 after — not 6 (filler's 4 counted as victim and as terminating)."""
    lines = squeezed(run("plan", SECOND, "-o", "wide").stdout)
    assert "n2 0 -> 2 109 -> 109" in lines


def test_wide_on_the_recorded_export_adds_up_by_hand():
    """node-c: allocatable 15890m cpu, 62Gi, 110 pods; its 8 pods request 2 (report-old9z,
    terminating) + 2 (report-w1x5r) + 0.25 (debug-shell) + 2 + 2 (train-llm-2, -3) + 0.1
    (node-exporter) + 2 (api) + 1 (web-zt6c4) = 11.35 cpu: 4540m free before. The plan waits for
    old9z (it is the victim upstream picks there, already terminating): +2000m; web-pend7 comes:
    -5000m: 1540m after. Memory: 62Gi - 30.43Gi = 31.6Gi, +4Gi -4Gi: 31.6Gi. Pods: 102, 102."""
    result = run("plan", EXPORT, "--pod", "prod/web-7c9d8b5f4-pend7", "-o", "wide")
    lines = squeezed(result.stdout)
    assert "node-c 4540m -> 1540m 31.6Gi -> 31.6Gi 102 -> 102" in lines
    assert "batch/report-29401120-old9z node-c" in lines  # waited for, shown apart


def test_wide_counts_room_reserved_for_a_nominated_pod(tmp_path: Path):
    """The fixture with first raised to 700 (= second's priority): upstream adds first (2 cpu,
    nominated to n2) before filtering, so the planner counts it on n2: 4 - 4 - 2 = -2 before;
    filler leaves (+4), second comes (-2): 0 after; 110 - 2 = 108 pod slots, 108 after. The
    reservation is named under the table."""
    snap = tmp_path / "reserved.yaml"
    snap.write_text(SECOND.read_text().replace(
        "metadata: {name: early}, value: 600", "metadata: {name: early}, value: 700"))
    result = run("plan", snap, "--pod", "default/second", "-o", "wide")
    lines = squeezed(result.stdout)
    assert "n2 -2 -> 0 108 -> 108" in lines, result.stdout
    assert any(line.startswith("Reserved on n2") and line.endswith("default/first")
               for line in lines)


PDB_SNAPSHOT = """\
apiVersion: v1
kind: List
items:
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: low}, value: 100}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000}
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", pods: "110"}}}
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: web, namespace: default}
  spec: {minAvailable: 0, selector: {matchLabels: {app: web}}}
  status: {disruptionsAllowed: 1, currentHealthy: 1, desiredHealthy: 0, expectedPods: 1}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-0, namespace: default, labels: {app: web}}
  spec: {nodeName: n1, priorityClassName: low,
         containers: [{name: c, resources: {requests: {cpu: "4"}}}]}
  status: {phase: Running, startTime: "2026-01-01T09:00:00Z"}
- apiVersion: v1
  kind: Pod
  metadata: {name: urgent, namespace: default}
  spec: {priorityClassName: high, containers: [{name: c, resources: {requests: {cpu: "2"}}}]}
  status: {phase: Pending}
"""


def test_pdb_column_says_the_same_in_table_and_wide(tmp_path: Path):
    """web-0 (the only victim) matches PDB default/web, which allows 1 disruption: 1 -> 0, not
    violated. Both forms say "no" under "PDB violated"; -o wide names the matching budget in a
    column of its own."""
    snap = tmp_path / "pdb.yaml"
    snap.write_text(PDB_SNAPSHOT)
    plain, wide = squeezed(run("plan", snap).stdout), squeezed(run("plan", snap, "-o",
                                                                  "wide").stdout)
    assert "pod node priority PDB violated" in plain
    assert "default/web-0 n1 100 no" in plain
    assert "pod node priority PDB violated PDBs matching" in wide
    assert "default/web-0 n1 100 no default/web" in wide


# ---- 3. simulate ----------------------------------------------------------------------------

def test_simulate_never_preempts_a_terminating_pod_again():
    """The fixture's header: step 1 preempts a-low and b-low, step 2 waits for them (nothing new
    deleted), step 3 binds the gang."""
    doc = json.loads(run("simulate", GANG_RETRY, "--model", "1.36", "--no-requeue",
                         "-o", "json").stdout)
    steps = [(s["step"], s["action"], [(v["pod"], v["node"]) for v in s["victims"]],
              [(w["pod"], w["node"]) for w in s["waitingFor"]]) for s in doc["steps"]]
    assert [
        (1, "RequiresPreemption", [("default/a-low", "n2"), ("default/b-low", "n1")], []),
        (2, "WaitingForTermination", [], [("default/a-low", "n2"), ("default/b-low", "n1")]),
        (3, "Bound", [], []),
    ] == steps
    assert ["-n default pod/a-low", "-n default pod/b-low"] == run(
        "simulate", GANG_RETRY, "--model", "1.36", "--no-requeue", "-o", "name"
    ).stdout.splitlines()


def test_simulate_table_pairs_each_victim_with_its_own_node():
    """a-low runs on n2 and b-low on n1, the gang is placed on n1 and n2: each victim is printed
    with its node, the placement nodes in a column of their own (one cell, not one per line)."""
    lines = squeezed(run("simulate", GANG_RETRY, "--model", "1.36", "--no-requeue").stdout)
    assert "1 ml/train/workers n1, n2 RequiresPreemption default/a-low on n2" in lines
    assert "default/b-low on n1" in lines
    assert "3 - - Finished default/a-low on n2" in lines
