"""audit's "Running pods that keep the old priority": a short row per pod, each reason once.

Issue 26 point 9: each row used to carry the whole 260-500 character reason, the same for every
pod of a class re-created alike. The table now numbers each reason and writes it once under the
table; the JSON keeps every finding's whole message.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from wapctl.cli import app

_POD = """\
- apiVersion: v1
  kind: Pod
  metadata: {name: %s, namespace: %s}
  spec:
    nodeName: n1
    priorityClassName: %s
    priority: %d
    containers: [{name: c, resources: {requests: {cpu: "1"}}}]
  status: {phase: Running}
"""
CLUSTER = """\
apiVersion: v1
kind: List
items:
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: low}, value: 100}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: medium}, value: 500}
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "8", pods: "110"}}}
""" + "".join(_POD % (f"report-{i}", "batch", "medium", 500) for i in range(3)) + (
    _POD % ("frontend-0", "web", "low", 100))
CHANGE = """\
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: medium}, value: 800}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: low}, value: 50}
"""
# medium 500 -> 800: the three reports keep 500; pods created now with medium schedule at 800 >
# 500; no running preemptor has a priority from 501 to 800, so nothing else is said.
MEDIUM = ("PriorityClass 'medium' goes from 500 to 800, and a running pod keeps the value it was "
          "admitted with; pods created now with class 'medium' schedule at 800 and can preempt "
          "it (800 > 500), although they share its class")
# low 100 -> 50: frontend-0 keeps 100 > 50; no pod has a preemption priority from 50 to 99.
LOW = ("PriorityClass 'low' goes from 100 to 50, and a running pod keeps the value it was "
       "admitted with; it can preempt pods created now with class 'low' (100 > 50), although "
       "they share its class")


def _audit(tmp_path: Path, *args: str) -> str:
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "change.yaml").write_text("apiVersion: v1\nkind: List\nitems:\n" + CHANGE)
    result = CliRunner().invoke(app, ["audit", str(tmp_path / "cluster.yaml"), "--change",
                                      str(tmp_path / "change.yaml"), *args])
    assert 0 == result.exit_code, result.output
    return result.stdout


def test_each_reason_is_written_once_and_rows_point_at_it(tmp_path: Path) -> None:
    lines = [line.rstrip() for line in _audit(tmp_path).splitlines()]
    start = lines.index("Running pods that keep the old priority (4)")
    rows = [line.split() for line in lines[start + 1:] if line.strip().startswith("Pod ")]
    assert [["Pod", "batch/report-0", "priority", "500", "[1]"],
            ["Pod", "batch/report-1", "priority", "500", "[1]"],
            ["Pod", "batch/report-2", "priority", "500", "[1]"],
            ["Pod", "web/frontend-0", "priority", "100", "[2]"]] == rows
    assert 1 == sum(MEDIUM in line for line in lines)
    assert f"[1] {MEDIUM}" in lines
    assert f"[2] {LOW}" in lines
    assert all(len(line) < 90 for line in lines[start:start + 9])  # the table itself is short


def test_the_json_keeps_every_whole_message(tmp_path: Path) -> None:
    doc = json.loads(_audit(tmp_path, "-o", "json"))
    assert [f"Pod batch/report-{i} keeps priority 500: {MEDIUM}" for i in range(3)] + [
        f"Pod web/frontend-0 keeps priority 100: {LOW}"] == [
        x["message"] for x in doc["keptOldPriority"]]


def test_only_running_pods_are_listed_as_keeping_the_old_value(tmp_path: Path) -> None:
    """The section lists *running* pods (drift.kept_old_values): a pod waiting for a node, one
    that has finished and one being deleted also name `medium` at 500, but none of them holds a
    node at that value, so a user reading "Running pods that keep the old priority" sees only
    report-0. Hand-worked: medium 500 -> 800, report-0 Running on n1 keeps 500; queued-0
    (Pending, no node), done-0 (Succeeded on n1) and leaving-0 (Running on n1 with a
    deletionTimestamp) are left out."""
    others = (
        "- apiVersion: v1\n  kind: Pod\n  metadata: {name: queued-0, namespace: batch}\n"
        "  spec: {priorityClassName: medium, priority: 500, containers: [{name: c}]}\n"
        "  status: {phase: Pending}\n"
        "- apiVersion: v1\n  kind: Pod\n  metadata: {name: done-0, namespace: batch}\n"
        "  spec: {nodeName: n1, priorityClassName: medium, priority: 500,\n"
        "         containers: [{name: c}]}\n"
        "  status: {phase: Succeeded}\n"
        "- apiVersion: v1\n  kind: Pod\n  metadata: {name: leaving-0, namespace: batch,\n"
        "    deletionTimestamp: '2026-01-01T00:00:00Z'}\n"
        "  spec: {nodeName: n1, priorityClassName: medium, priority: 500,\n"
        "         containers: [{name: c}]}\n"
        "  status: {phase: Running}\n"
    )
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(CLUSTER.split("- apiVersion: v1\n  kind: Pod")[0]
                       + _POD % ("report-0", "batch", "medium", 500) + others)
    change = tmp_path / "change.yaml"
    change.write_text("{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, "
                      "metadata: {name: medium}, value: 800}\n")
    result = CliRunner().invoke(app, ["audit", str(cluster), "--change", str(change),
                                      "-o", "json"])
    assert 0 == result.exit_code, result.output
    doc = json.loads(result.stdout)
    assert (["Pod batch/report-0"], 1) == (
        [x["object"] for x in doc["keptOldPriority"]], doc["summary"]["keptOldPriority"])
