"""Tables people can copy (issue 15): long Kubernetes names are never cut off with an ellipsis
nor broken over lines (an operator must be able to tell, and paste, which pod or workload is
meant). In a pipe lines are as long as they need to be, as kubectl's are; at a terminal's
width see tests/test_cli_terminal.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from wapctl.cli import app

LONG_NS = "analytics-production-eu-west"
LONG_WORKLOAD = "data-pipeline-nightly-aggregation-workload"
LONG_VICTIM = "data-pipeline-nightly-aggregation-executor-7f9c8d-xk2lp"
LONG_NODE = "ip-10-0-123-45.eu-west-1.compute.internal"
LONG_PREEMPTOR = "checkout-service-api-5d8f7b9c4-qwert"

CLUSTER = f"""\
apiVersion: v1
kind: List
items:
- {{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {{name: low}}, value: 100}}
- {{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass,
   metadata: {{name: high-priority-production}}, value: 1000}}
- {{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {{name: mid}}, value: 500}}
- {{apiVersion: v1, kind: Node, metadata: {{name: {LONG_NODE}}},
   status: {{allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}}}}}
- apiVersion: scheduling.k8s.io/v1alpha1
  kind: Workload
  metadata: {{name: {LONG_WORKLOAD}, namespace: {LONG_NS}}}
  spec:
    priorityClassName: high-priority-production
    preemptionPriorityClassName: low
    podGroups:
    - {{name: spark-executors, policy: {{gang: {{minCount: 1}}}}, disruptionMode: PodGroup}}
- apiVersion: scheduling.k8s.io/v1alpha1
  kind: Workload
  metadata: {{name: checkout-service-api-frontend-workload, namespace: ecommerce-frontend}}
  spec:
    priorityClassName: mid
    podGroups:
    - {{name: replicas, policy: {{basic: {{}}}}}}
- {{apiVersion: v1, kind: Pod, metadata: {{name: {LONG_VICTIM}, namespace: {LONG_NS}}},
   spec: {{nodeName: {LONG_NODE}, workloadRef: {{name: {LONG_WORKLOAD}, podGroup: spark-executors}},
          containers: [{{name: c, resources: {{requests: {{cpu: "4"}}}}}}]}},
   status: {{phase: Running}}}}
- {{apiVersion: v1, kind: Pod, metadata: {{name: {LONG_PREEMPTOR}, namespace: ecommerce-frontend}},
   spec: {{workloadRef: {{name: checkout-service-api-frontend-workload, podGroup: replicas}},
          containers: [{{name: c, resources: {{requests: {{cpu: "2"}}}}}}]}}}}
"""


def run_table(tmp_path: Path, *args: str) -> str:
    snap = tmp_path / "cluster.yaml"
    snap.write_text(CLUSTER)
    change = tmp_path / "change.yaml"
    change.write_text("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
                      "metadata: {name: low}\nvalue: 2000\n")
    argv = [a.replace("SNAP", str(snap)).replace("CHANGE", str(change)) for a in args]
    result = CliRunner().invoke(app, [*argv, "--no-color"], catch_exceptions=False,
                                env={"COLUMNS": "80"})
    assert result.exit_code in (0, 1), result.output
    return result.stdout


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["plan", "SNAP"], [f"ecommerce-frontend/{LONG_PREEMPTOR}", f"{LONG_NS}/{LONG_VICTIM}",
                            LONG_NODE, f"{LONG_NS}/{LONG_WORKLOAD}/spark-executors"]),
        (["check-cycles", "SNAP"], [f"{LONG_NS}/{LONG_WORKLOAD}", "high-priority-production"]),
        (["audit", "SNAP", "--change", "CHANGE"], [f"{LONG_NS}/{LONG_WORKLOAD}"]),
    ],
    ids=["plan", "check-cycles", "audit"],
)
def test_long_names_are_whole_on_one_line_in_a_pipe(tmp_path, args, names):
    """Not on a terminal: no ellipsis, and every long name appears whole on one line
    (a deliberate change from wrapping at 80 columns, issue 15)."""
    out = run_table(tmp_path, *args)
    assert "…" not in out
    assert [] == [n for n in names if not any(n in line for line in out.splitlines())]


def test_cycle_violation_table_keeps_its_columns_at_80_columns(tmp_path):
    """A long workload name does not push the priority columns of the rule-violation table
    out of an 80-column terminal."""
    out = run_table(tmp_path, "check-cycles", "SNAP")
    header = next(line for line in out.splitlines() if line.strip().startswith("object"))
    assert ["object", "sched", "preempt", "classes", "on", "cycle", "where"] == header.split()


def test_terminating_table_title_is_not_wrapped():
    """The short terminating-pods table keeps its title on one line."""
    fixture = (Path(__file__).resolve().parent.parent / "fixtures" / "plan"
               / "terminating-by-preemption.yaml")  # waits under every model
    result = CliRunner().invoke(app, ["plan", str(fixture), "--no-color"],
                                catch_exceptions=False, env={"COLUMNS": "80"})
    assert "Waiting for terminating pods" in [line.strip() for line in result.stdout.splitlines()]


def test_vertex_and_cell_labels_name_three_members_then_count_the_rest() -> None:
    """Both labels list workloads first, then pods, then templates, up to three names, and
    "+N more" for the rest: 1 workload + 2 of 3 pods shown; 1 pod + 1 template left: +2."""
    from wapctl.audit import Cell
    from wapctl.graph import Profile, Vertex
    from wapctl.render.audit import cell_label
    from wapctl.render.cycles import vertex_label

    members = {"workloads": ("ml/train",), "pods": ("a/p1", "a/p2", "a/p3"),
               "templates": ("Deployment a/web",), "workload_count": 1, "pod_count": 3,
               "template_count": 1, "pod_groups": ("ml/train/g",), "pod_group_count": 1,
               "unit_count": 4}
    vertex = Vertex(profile=Profile(1000, 100), group_pod_count=2, namespaces=frozenset(),
                    source=None, **members)
    assert vertex_label(vertex) == "1000/100 [ml/train, a/p1, a/p2 +2 more]"
    cell = Cell(before=Profile(300, 600), after=Profile(1000, 600), **members)
    assert cell_label(cell) == "ml/train, a/p1, a/p2 +2 more (300/600 → 1000/600)"
    few = Cell(before=None, after=Profile(5, 5), workloads=(), pod_groups=(), pods=("a/p",),
               workload_count=0, pod_group_count=0, pod_count=1, unit_count=1)
    assert cell_label(few) == "a/p (new 5/5)"
