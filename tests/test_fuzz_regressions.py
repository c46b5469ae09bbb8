"""Inputs the fuzzer (tests/test_fuzz.py, tests/fuzz/run_fuzz.py) once crashed on, kept small
and literal, each with the answer worked out by hand."""

from __future__ import annotations

import io
import json

import pytest
from typer.testing import CliRunner

from wapctl import ingest, live, preemption, preemptor
from wapctl.cli import app
from wapctl.errors import ClusterError
from wapctl.models import get_model
from wapctl.render.plan import plan_to_dict


def _snapshot(text: str):
    return ingest.build_snapshot(ingest.read_documents(["-"], stdin=io.BytesIO(text.encode())))


MIXED_SHAPE_GANG = """\
# *c4 is one 4-cpu container list, anchored on a ConfigMap (an ignored kind) to keep lines short
apiVersion: v1
kind: List
items:
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: low}, value: 100}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: mid}, value: 500}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: shapes},
   data: {c4: &c4 [{name: c, resources: {requests: {cpu: "4"}}}]}}
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "8"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2}, status: {allocatable: {cpu: "8"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n3}, status: {allocatable: {cpu: "8"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: low-a, namespace: default},
   spec: {nodeName: n1, priorityClassName: low, containers: *c4},
   status: {phase: Running, startTime: "2026-01-01T10:00:00Z"}}
- {apiVersion: v1, kind: Pod, metadata: {name: mid-a, namespace: default},
   spec: {nodeName: n1, priorityClassName: mid, containers: *c4},
   status: {phase: Running, startTime: "2026-01-01T10:00:00Z"}}
- {apiVersion: v1, kind: Pod, metadata: {name: low-b, namespace: default},
   spec: {nodeName: n2, priorityClassName: low, containers: *c4},
   status: {phase: Running, startTime: "2026-01-01T10:01:00Z"}}
- {apiVersion: v1, kind: Pod, metadata: {name: mid-b, namespace: default},
   spec: {nodeName: n2, priorityClassName: mid, containers: *c4},
   status: {phase: Running, startTime: "2026-01-01T10:01:00Z"}}
- {apiVersion: v1, kind: Pod, metadata: {name: mid-c, namespace: default},
   spec: {nodeName: n3, priorityClassName: mid, containers: *c4},
   status: {phase: Running, startTime: "2026-01-01T10:02:00Z"}}
- {apiVersion: v1, kind: Pod, metadata: {name: mid-d, namespace: default},
   spec: {nodeName: n3, priorityClassName: mid, containers: *c4},
   status: {phase: Running, startTime: "2026-01-01T10:03:00Z"}}
- apiVersion: scheduling.k8s.io/v1alpha1
  kind: Workload
  metadata: {name: train, namespace: ml}
  spec: {priorityClassName: high, podGroups: [{name: workers, policy: {gang: {minCount: 3}}}]}
- {apiVersion: v1, kind: Pod, metadata: {name: train-0, namespace: ml},
   spec: {workloadRef: {name: train, podGroup: workers}, containers: *c4}}
- {apiVersion: v1, kind: Pod, metadata: {name: train-1, namespace: ml},
   spec: {workloadRef: {name: train, podGroup: workers}, containers: *c4}}
- {kind: Pod, metadata: {name: train-2, namespace: ml},
   spec: {workloadRef: {name: train, podGroup: workers}}}
"""


def test_gang_with_a_pod_that_requests_nothing():
    """A gang of two shapes (two 4-cpu pods and one with no containers, no apiVersion) plans:
    two 4-cpu slots are needed; removing the 100s frees n1 and n2, reprieve cannot put either
    back, and the empty pod goes first-fit to n1.

    Found by the fuzzer (fixture plan/gang-multi-node.yaml with two fields dropped) while
    preemption.py's multi-shape gang path was being reworked: ValueError "max() arg is an empty
    sequence" from the victim summary of a plan with no victims."""
    snap = _snapshot(MIXED_SHAPE_GANG)
    # the placement pinned below is the KEP model's greedy (first node by name)
    doc = plan_to_dict(preemption.plan(snap, preemptor.select_preemptor(snap),
                                       model=get_model("kep-5710")))
    assert ("RequiresPreemption",
            [("ml/train-0", "n1"), ("ml/train-1", "n2"), ("ml/train-2", "n1")],
            [("default/low-a", "n1"), ("default/low-b", "n2")]) == (
        doc["status"],
        [(p["pod"], p["node"]) for p in doc["placements"]],
        [(v["pod"], v["node"]) for v in doc["victims"]],
    )
    json.dumps(doc)


@pytest.mark.parametrize("timeout", ["nan", "inf", "1e12", "-1"])
def test_absurd_request_timeouts_are_usage_errors(tmp_path, timeout):
    """--request-timeout nan / inf / 1e12 / -1 is a usage error (exit 2, one line), before any
    request. Found by fuzzing the command-line options: nan gave "internal error: ValueError"
    and inf or 1e12 "internal error: OverflowError" (exit 70) from the HTTP stack."""
    result = CliRunner().invoke(app, ["validate", "--kubeconfig", str(tmp_path / "kc"),
                                      "--request-timeout", timeout], catch_exceptions=False)
    assert (2, 1) == (result.exit_code, len(result.stderr.splitlines()))
    assert result.stderr.startswith("error: --request-timeout must be from 0 to 1e+06 seconds")


@pytest.mark.parametrize("timeout", [0.0, 1e6])
def test_request_timeouts_at_the_bounds_are_accepted(tmp_path, timeout):
    """0 (wait forever) and the largest allowed timeout pass the check (here the missing
    kubeconfig is what fails, as a cluster error)."""
    with pytest.raises(ClusterError):
        live.fetch_documents(kubeconfig=str(tmp_path / "kc"), context=None,
                             request_timeout=timeout, page_size=500, progress=False)
