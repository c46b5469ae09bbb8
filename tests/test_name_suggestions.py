"""A --pod or --workload name that exists only in another namespace is suggested as NS/NAME,
every namespace that holds it, as a typo is (issue 26 point 7)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from wapctl.cli import app

EXPORT = str(Path(__file__).resolve().parent.parent
             / "fixtures" / "exports" / "k8s-1.36" / "wapctl" / "snapshot.yaml")

_TWO = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", pods: "9"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: api-0, namespace: blue},
   spec: {containers: [{name: c}]}, status: {phase: Pending}}
- {apiVersion: v1, kind: Pod, metadata: {name: api-0, namespace: green},
   spec: {containers: [{name: c}]}, status: {phase: Pending}}
- {apiVersion: v1, kind: Pod, metadata: {name: api-1, namespace: default},
   spec: {containers: [{name: c}]}, status: {phase: Pending}}
"""


def _error(*args: str) -> str:
    result = CliRunner().invoke(app, ["plan", *args])
    assert 2 == result.exit_code, result.output
    lines = result.stderr.splitlines()
    assert 1 == len(lines)
    return lines[0]


def test_the_readme_example_pod_is_suggested_in_its_namespace() -> None:
    """README's `--pod web-7c9d8b5f4-pend7` on the shared 1.36 export: the pod is in prod, the
    bare name looks in default."""
    assert ("error: pod default/web-7c9d8b5f4-pend7 is not in the snapshot "
            "(did you mean prod/web-7c9d8b5f4-pend7?)"
            == _error(EXPORT, "--pod", "web-7c9d8b5f4-pend7"))


def test_a_wrong_namespace_is_suggested_the_right_one() -> None:
    assert ("error: pod batch/web-7c9d8b5f4-pend7 is not in the snapshot "
            "(did you mean prod/web-7c9d8b5f4-pend7?)"
            == _error(EXPORT, "--pod", "batch/web-7c9d8b5f4-pend7"))


def test_every_namespace_holding_the_name_comes_first_then_close_names(tmp_path: Path) -> None:
    """api-0 is in blue and green, not in default; default's api-1 is one letter away."""
    path = tmp_path / "two.yaml"
    path.write_text(_TWO)
    assert ("error: pod default/api-0 is not in the snapshot "
            "(did you mean blue/api-0, green/api-0, default/api-1?)"
            == _error(str(path), "--pod", "api-0"))


def test_a_bare_workload_name_is_suggested_with_its_namespace() -> None:
    """--workload needs NAMESPACE/NAME; the export's train-llm Workload is in ml."""
    assert ("error: workload 'train-llm': expected NAMESPACE/NAME or NAMESPACE/NAME/GROUP "
            "(did you mean ml/train-llm?)" == _error(EXPORT, "--workload", "train-llm"))
    assert ("error: workload prod/train-llm is not in the snapshot (did you mean ml/train-llm?)"
            == _error(EXPORT, "--workload", "prod/train-llm"))
