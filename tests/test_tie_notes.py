"""Tie notes are printed only where another order among equal victims changes the victims.

Upstream tries a node's lower-priority pods most important first (priority, then start time);
between pods equal on both, its order is the one its node cache lists them in, which no
snapshot records. wapctl takes them by name and reports a tie, but only where it replayed
another order among them and saw other victims.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wapctl.cli import app

_HEAD = """\
apiVersion: v1
kind: List
items:
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000}
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  status: {allocatable: {cpu: "%s", memory: 8Gi, pods: "110"}}
"""
_POD = """\
- apiVersion: v1
  kind: Pod
  metadata: {name: %s, namespace: default}
  spec:
    nodeName: n1
    containers: [{name: c,%s resources: {requests: {cpu: "1"}}}]
  status: {phase: Running, startTime: "2026-01-01T10:00:00Z"}
"""
_PORT = " ports: [{containerPort: 80, hostPort: 8080}],"
_PENDING = """\
- apiVersion: v1
  kind: Pod
  metadata: {name: p, namespace: default}
  spec:
    priorityClassName: high
    containers: [{name: c,%s resources: {requests: {cpu: "1"}}}]
  status: {phase: Pending}
"""


def _cluster(tmp_path: Path, cpu: int, pods: dict[str, bool], pending_port: bool) -> str:
    """One node of ``cpu`` cores; ``pods``: name -> holds host port 8080 (each 1 cpu,
    priority 0, the same start time: all of equal importance); the pending pod ``p`` (1 cpu,
    priority 1000), with host port 8080 if ``pending_port``."""
    text = _HEAD % cpu + "".join(_POD % (n, _PORT if port else "") for n, port in pods.items())
    text += _PENDING % (_PORT if pending_port else "")
    path = tmp_path / "cluster.yaml"
    path.write_text(text)
    return str(path)


def _plan(path: str, *args: str) -> tuple[dict, str]:
    runner = CliRunner()
    doc = runner.invoke(app, ["plan", path, "--pod", "default/p", "-o", "json", *args])
    table = runner.invoke(app, ["plan", path, "--pod", "default/p", *args])
    assert doc.exit_code == 0, doc.output
    assert table.exit_code == 0, table.output
    return json.loads(doc.stdout), table.stdout


@pytest.mark.parametrize("model", ["1.36", "upstream"])
def test_the_only_pod_that_blocks_is_no_tie(tmp_path: Path, model: str) -> None:
    """Issue 26 point 4. n1 (4 cpu): web-1 holds host port 8080, batch-1 does not; p wants
    8080. Every pod removed, p fits; whichever of the two is tried first, batch-1 goes back
    (2 cpu used, no port clash) and web-1 cannot (the port): web-1 is the victim in every
    order, so no tie is printed, and --samples agrees (web-1 always, nothing sometimes)."""
    path = _cluster(tmp_path, 4, {"web-1": True, "batch-1": False}, pending_port=True)
    doc, table = _plan(path, "--model", model)
    assert ["default/web-1"] == [v["pod"] for v in doc["victims"]]
    assert [] == doc["ties"]
    assert "Random upstream" not in table
    sampled, _ = _plan(path, "--model", model, "--samples", "16")
    assert ["default/web-1"] == sampled["samples"]["always"]
    assert [] == sampled["samples"]["sometimes"]


@pytest.mark.parametrize("model", ["1.36", "upstream"])
def test_equal_pods_that_could_swap_are_a_tie(tmp_path: Path, model: str) -> None:
    """n1 (2 cpu): a-1, a-2 (1 cpu each, no port); p (1 cpu) needs one of them gone. By name
    a-1 goes back first (1 cpu used) and a-2 cannot (3 > 2): victim a-2. With a-2 tried first,
    a-1 is the victim: another order changes the victim, so the tie is printed, and --samples
    sees both."""
    path = _cluster(tmp_path, 2, {"a-1": False, "a-2": False}, pending_port=False)
    doc, table = _plan(path, "--model", model)
    assert ["default/a-2"] == [v["pod"] for v in doc["victims"]]
    assert [{"decision": "victims among units of equal importance", "chosen": ["default/a-2"],
             "alternatives": ["default/a-1"], "equal": 2}] == doc["ties"]
    assert "Random upstream: default/a-2 preempted rather than default/a-1" in table
    sampled, _ = _plan(path, "--model", model, "--samples", "16")
    assert {"default/a-1", "default/a-2"} == {r["pod"] for r in sampled["samples"]["sometimes"]}


def test_a_blocking_pod_among_swappable_ones_is_left_out_of_the_tie(tmp_path: Path) -> None:
    """n1 (2 cpu): b-1, b-2 (1 cpu), web-1 (1 cpu, port 8080); p (1 cpu, port 8080). By name:
    b-1 back (2 cpu with p), b-2 no (3 > 2), web-1 no (3 > 2, and the port): victims b-2,
    web-1. Tried first, b-2 goes back and b-1 is the victim instead: a tie between b-2 and
    b-1. Tried first, web-1 still cannot go back (the port): it goes in every order, so the
    tie does not name it."""
    path = _cluster(tmp_path, 2, {"b-1": False, "b-2": False, "web-1": True}, pending_port=True)
    doc, table = _plan(path, "--model", "1.36")
    assert ["default/b-2", "default/web-1"] == [v["pod"] for v in doc["victims"]]
    assert [{"decision": "victims among units of equal importance", "chosen": ["default/b-2"],
             "alternatives": ["default/b-1"], "equal": 3}] == doc["ties"]
    assert "default/b-2 preempted rather than default/b-1" in table


def test_the_kep_model_reports_no_victim_tie(tmp_path: Path) -> None:
    """docs/SPEC.md: kep-5710 has no random choice (its victim order ends with the name), so
    even two swappable pods are no tie there."""
    path = _cluster(tmp_path, 2, {"a-1": False, "a-2": False}, pending_port=False)
    doc, table = _plan(path, "--model", "kep-5710")
    assert ["default/a-2"] == [v["pod"] for v in doc["victims"]]
    assert [] == doc["ties"]
    assert "Random upstream" not in table
