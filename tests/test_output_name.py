"""``-o name`` prints kubectl arguments: each line, split at blanks as ``xargs -L1`` splits it,
is ``-n NAMESPACE kind/NAME`` (namespaced) or ``kind/NAME`` (cluster-scoped), so the recipe
``wapctl ... -o name | xargs -L1 kubectl delete`` works (issue 26 point 9: ``pod/NS/NAME``, which
kubectl cannot take, is gone).

The lines go through the real ``xargs -L1``, which runs a small Python program in kubectl's
place that records the arguments it was given.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PLAN = ROOT / "fixtures" / "plan"
CYCLES = ROOT / "fixtures" / "cycles"
_RECORD = "import json, sys; print(json.dumps(sys.argv[1:]))"
_DNS = r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?"


def _wapctl(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "wapctl", *map(str, args)],
                          capture_output=True, text=True, timeout=120, check=False)


def _through_xargs(stdout: str) -> list[list[str]]:
    """What ``xargs -L1 kubectl`` would pass kubectl, one list per line."""
    done = subprocess.run(["xargs", "-L1", sys.executable, "-c", _RECORD], input=stdout,
                          capture_output=True, text=True, timeout=60, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


def _kubectl_args(argv: list[str]) -> tuple[str | None, str, str]:
    """(namespace, resource, name) of ``-n NS resource/NAME`` or ``resource/NAME``, asserting
    the shape kubectl takes (one TYPE/NAME argument, a DNS name, a namespace flag)."""
    namespace = None
    if argv[:1] == ["-n"]:
        assert 3 == len(argv), argv
        namespace = argv[1]
        assert re.fullmatch(_DNS, namespace), argv
        argv = argv[2:]
    assert 1 == len(argv), argv
    resource, _, name = argv[0].partition("/")
    assert re.fullmatch(r"[a-z]+(\.[a-z0-9-]+)*", resource), argv
    assert re.fullmatch(_DNS, name), argv
    return namespace, resource, name


def test_plan_victims_are_kubectl_arguments() -> None:
    """gang-multi-node.yaml: the victims of the JSON plan, each as -n NS pod/NAME."""
    doc = json.loads(_wapctl("plan", PLAN / "gang-multi-node.yaml", "-o", "json").stdout)
    out = _wapctl("plan", PLAN / "gang-multi-node.yaml", "-o", "name")
    assert 0 == out.returncode, out.stderr
    got = [_kubectl_args(argv) for argv in _through_xargs(out.stdout)]
    assert doc["victims"]
    assert [(*v["pod"].split("/")[:1], "pod", v["pod"].split("/")[1])
            for v in doc["victims"]] == got


@pytest.mark.parametrize("args", [
    ("validate", ROOT / "fixtures" / "api-versions" / "v1alpha2.yaml"),
    ("validate", ROOT / "fixtures" / "api-versions" / "v1alpha1.yaml"),
    ("check-cycles", CYCLES / "kep-ab.yaml"),
    ("simulate", ROOT / "fixtures" / "simulate" / "cascade.yaml"),
    ("audit", CYCLES / "kep-ab.yaml", "--change", CYCLES / "kep-ab-fixed.yaml"),
])
def test_every_line_is_kubectl_arguments(args: tuple[object, ...]) -> None:
    out = _wapctl(*args, "-o", "name")
    assert out.returncode in (0, 1), out.stderr
    argvs = _through_xargs(out.stdout)
    assert argvs and len(argvs) == len(out.stdout.splitlines())
    for argv in argvs:
        _kubectl_args(argv)


def test_validate_names_each_kind_as_kubectl_does() -> None:
    """v1alpha2.yaml: 3 nodes, 11 pods, 3 classes, 3 Workloads, 3 PodGroup objects; kinds
    outside the core group carry their API group, as kubectl's own -o name prints them."""
    out = _wapctl("validate", ROOT / "fixtures" / "api-versions" / "v1alpha2.yaml", "-o", "name")
    resources = [_kubectl_args(argv)[1] for argv in _through_xargs(out.stdout)]
    assert {"node": 3, "pod": 11, "priorityclass.scheduling.k8s.io": 3,
            "workload.scheduling.k8s.io": 3, "podgroup.scheduling.k8s.io": 3} == {
        r: resources.count(r) for r in resources}
