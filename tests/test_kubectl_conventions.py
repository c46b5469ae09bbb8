"""kubectl's conventions (issue 15), through the real console script (.venv/bin/wapctl):
output forms, ``-o=json`` / ``-n=prod`` spellings, global flags before the command, durations,
-A, -l, the context's namespace for a bare --pod, --color."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from wapctl.cli import normalize_argv
from wapctl.commands.common import parse_duration

ROOT = Path(__file__).resolve().parent.parent
WAPCTL = str(Path(sys.executable).with_name("wapctl"))
GANG = ROOT / "fixtures" / "plan" / "gang-multi-node.yaml"
K8S = ROOT / "fixtures" / "exports" / "k8s-1.36" / "kubectl" / "get-all-wapctl-kinds.yaml"
ESC = "\x1b["

# A PDB-protected victim, worked by hand: n1 (4 CPU) runs default/web-0 (low=100, 4 CPU,
# app=web, PDB default/web allowing 1 disruption); default/urgent (high=1000, 2 CPU) is pending.
# Only n1 exists, web-0 is the only victim (no PDB violation: the budget goes 1 -> 0).
# Free CPU on n1: 0 before; after, web-0's 4 CPU back and urgent's 2 taken: 2. Pods: 110 - 1
# bound = 109 free before, and 109 after (one leaves, one comes).
PDB_SNAPSHOT = """\
apiVersion: v1
kind: List
items:
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: low}, value: 100}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000}
- {apiVersion: v1, kind: Node, metadata: {name: n1},
   status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: web, namespace: default}
  spec: {selector: {matchLabels: {app: web}}}
  status: {disruptionsAllowed: 1}
- {apiVersion: v1, kind: Pod, metadata: {name: web-0, namespace: default, labels: {app: web}},
   spec: {nodeName: n1, priorityClassName: low,
          containers: [{name: c, resources: {requests: {cpu: "4"}}}]},
   status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: urgent, namespace: default},
   spec: {priorityClassName: high, containers: [{name: c, resources: {requests: {cpu: "2"}}}]}}
"""


def wapctl(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "KUBECONFIG")}
    full["HOME"] = os.environ.get("HOME", "/tmp")
    full.update(env or {})
    return subprocess.run([WAPCTL, *map(str, args)], capture_output=True, text=True,
                          timeout=60, env=full)


def invoke(*args: object, env: dict[str, str] | None = None):
    """In-process (fast) where the console script adds nothing: no argv rewriting involved."""
    from typer.testing import CliRunner

    from wapctl.cli import app

    base = {"NO_COLOR": None, "KUBECONFIG": None}
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False,
                              env={**base, **(env or {})})


def test_normalize_argv_spellings():
    cmds = {"plan", "validate"}
    assert ["plan", "-o", "json", "-n", "prod", "f"] == normalize_argv(
        ["plan", "-o=json", "-n=prod", "f"], cmds)
    assert ["plan", "--context", "x", "-A", "--output=json", "f"] == normalize_argv(
        ["--context", "x", "-A", "--output=json", "plan", "f"], cmds)
    # not a command after the globals: left alone (click reports it)
    assert ["--context", "x", "nope"] == normalize_argv(["--context", "x", "nope"], cmds)
    # after "--" nothing is rewritten
    assert ["plan", "--", "-o=x"] == normalize_argv(["plan", "--", "-o=x"], cmds)


@pytest.mark.parametrize(("text", "seconds"), [
    ("30", 30.0), ("30s", 30.0), ("1m30s", 90.0), ("500ms", 0.5), ("2h", 7200.0), ("0", 0.0),
    ("1.5", 1.5), (12, 12.0),
])
def test_durations(text, seconds):
    assert seconds == parse_duration(text)


@pytest.mark.parametrize("text", ["", "abc", "30x", "s", "-1s", "1m-2s"])
def test_bad_durations(text):
    with pytest.raises(typer.BadParameter):
        parse_duration(text)


def test_output_spellings_and_global_flags_before_the_command():
    """-o=json after the command and -o json before it give the same document."""
    after = wapctl("plan", GANG, "-o=json")
    before = wapctl("-o", "json", "plan", GANG)
    assert (0, 0) == (after.returncode, before.returncode)
    assert json.loads(after.stdout) == json.loads(before.stdout)
    assert "PreemptionPlan" == json.loads(after.stdout)["kind"]


def test_global_context_reaches_the_command():
    """`wapctl --context x plan FILE`: --context is plan's (it then conflicts with a file)."""
    r = wapctl("--context", "x", "plan", GANG)
    assert (2, "error: give snapshot files or --kubeconfig/--context, not both\n") == (
        r.returncode, r.stderr)


def test_namespace_equals_and_selector_narrow_the_preemptor():
    """In the recorded cluster the queue head is the ml/finetune gang (10000, oldest); -n=prod
    and -l app=web each pick prod/web-7c9d8b5f4-pend7 instead."""
    head = json.loads(invoke("plan", K8S, "-o", "json").stdout)["preemptor"]
    by_ns = json.loads(wapctl("plan", K8S, "-n=prod", "-o", "json").stdout)["preemptor"]
    by_label = json.loads(invoke("plan", K8S, "-l", "app=web,tier in (frontend)", "-o",
                                 "json").stdout)["preemptor"]
    assert ("finetune", "web-7c9d8b5f4-pend7", "web-7c9d8b5f4-pend7") == (
        head["name"], by_ns["name"], by_label["name"])
    none = invoke("plan", K8S, "-l", "app=nothing")
    assert (0, "no pending pod or pod group matching the label selector: nothing to plan\n") == (
        none.exit_code, none.stdout)
    bad = invoke("plan", K8S, "-l", "=web")
    assert 2 == bad.exit_code and "label selector" in bad.stderr


def test_all_namespaces_and_namespace_conflict():
    r = invoke("plan", GANG, "-A", "-n", "ml")
    assert (2, "error: give -n/--namespace or -A/--all-namespaces, not both\n") == (
        r.exit_code, r.stderr)
    assert 0 == invoke("check-cycles", GANG, "-A").exit_code


def test_request_timeout_takes_durations():
    assert 0 == invoke("plan", GANG, "--request-timeout", "30s").exit_code
    bad = wapctl("plan", GANG, "--request-timeout", "soon")  # click's error via cli.main
    assert 2 == bad.returncode and "not a duration" in bad.stderr


def test_bare_pod_name_uses_the_context_namespace(tmp_path):
    kubeconfig = tmp_path / "config"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: work\n"
        "contexts:\n- name: work\n  context: {cluster: c, user: u, namespace: prod}\n"
        "- name: other\n  context: {cluster: c, user: u, namespace: ml}\n"
    )
    r = wapctl("plan", K8S, "--pod", "web-7c9d8b5f4-pend7", "-o", "json",
               env={"KUBECONFIG": str(kubeconfig)})
    assert (0, "prod") == (r.returncode, json.loads(r.stdout)["preemptor"]["namespace"])
    # without a kubeconfig namespace: default, as kubectl
    r = wapctl("plan", K8S, "--pod", "web-7c9d8b5f4-pend7",
               env={"KUBECONFIG": str(tmp_path / "missing")})
    assert 2 == r.returncode and "default/web-7c9d8b5f4-pend7" in r.stderr


def test_output_name_lists_the_victims_for_xargs():
    doc = json.loads(wapctl("plan", GANG, "-o", "json").stdout)
    names = wapctl("plan", GANG, "-o", "name")
    # kubectl arguments, one object a line (issue 26: pod/NS/NAME is no kubectl argument)
    assert [f"-n {v['pod'].split('/')[0]} pod/{v['pod'].split('/')[1]}"
            for v in doc["victims"]] == names.stdout.splitlines()
    assert 3 == len(doc["victims"])


def test_output_wide_shows_requests_free_resources_and_pdb_names(tmp_path):
    snap = tmp_path / "pdb.yaml"
    snap.write_text(PDB_SNAPSHOT)
    r = wapctl("plan", snap, "-o", "wide")
    assert 0 == r.returncode, r.stderr
    lines = [" ".join(line.split()) for line in r.stdout.splitlines()]
    assert "Requests of default/urgent: cpu 2" in lines
    # columns: pod, node, priority, PDB violated (the plan's flag), PDBs matching (by name)
    assert "default/web-0 n1 100 no default/web" in lines
    assert "n1 0 -> 2 109 -> 109" in lines  # cpu and pod slots, before -> after
    assert any(line.startswith("Runner-up node: not exposed") for line in lines)


@pytest.mark.parametrize(("args", "env", "coloured"), [
    (["--color", "always"], {}, True),
    (["--color", "always"], {"NO_COLOR": "1"}, True),  # an explicit flag beats the variable
    ([], {}, False),  # auto, and a pipe is not a terminal
    (["--color", "never"], {}, False),
    (["--no-color", "--color", "always"], {}, False),
])
def test_color_modes(args, env, coloured):
    r = invoke("plan", GANG, *args, env=env)
    assert (0, coloured) == (r.exit_code, ESC in r.stdout)


def test_every_report_command_takes_the_output_forms():
    cycles = ROOT / "fixtures" / "cycles"
    for args in (["validate", GANG], ["check-cycles", cycles / "kep-ab.yaml"],
                 ["simulate", ROOT / "fixtures" / "simulate" / "cascade.yaml"],
                 ["audit", cycles / "kep-ab.yaml", "--change", cycles / "kep-ab-fixed.yaml"]):
        for fmt in ("wide", "name"):
            r = invoke(*args, "-o", fmt)
            assert r.exit_code in (0, 1), (args, fmt, r.stderr)
            if fmt == "name":
                assert r.stdout and all(
                    re.fullmatch(r"(-n [a-z0-9-]+ )?[a-z0-9.]+/[a-z0-9.-]+", line)
                    for line in r.stdout.splitlines()), r.stdout
