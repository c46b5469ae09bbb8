"""Errors that point (issue 15): one line naming the object and where it is, suggestions for
unknown names, and one mapping of exceptions to exit codes (ExitCode.INTERNAL = 70)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from wapctl import ingest
from wapctl.cli import app
from wapctl.errors import ExitCode

ROOT = Path(__file__).resolve().parent.parent
WAPCTL = str(Path(sys.executable).with_name("wapctl"))
K8S = ROOT / "fixtures" / "exports" / "k8s-1.36" / "kubectl" / "get-all-wapctl-kinds.yaml"


def wapctl(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "WAPCTL_TRACEBACK")}
    return subprocess.run([WAPCTL, *map(str, args)], capture_output=True, text=True,
                          timeout=60, env={**full, **(env or {})})


def test_a_bad_field_names_the_object_the_file_and_the_field(tmp_path):
    snap = tmp_path / "snap.yaml"
    snap.write_text("apiVersion: v1\nkind: List\nitems:\n"
                    "- {apiVersion: v1, kind: Node, metadata: {name: n1}}\n"
                    "- apiVersion: v1\n  kind: Pod\n"
                    "  metadata: {name: checkout-x, namespace: prod}\n"
                    "  spec: {priority: high, containers: []}\n")
    r = wapctl("plan", snap)
    assert 2 == r.returncode
    assert 1 == len(r.stderr.splitlines())
    assert r.stderr.startswith(f"error: Pod prod/checkout-x ({snap}")
    assert "field spec.priority): must be an integer, not a string" in r.stderr


def test_unknown_pod_and_workload_get_suggestions():
    r = wapctl("plan", K8S, "--pod", "prod/web-7c9d8b5f4-pend")
    assert (2, "error: pod prod/web-7c9d8b5f4-pend is not in the snapshot (did you mean "
               "prod/web-7c9d8b5f4-pend7?)\n") == (r.returncode, r.stderr)
    r = wapctl("plan", K8S, "--workload", "ml/fintune")
    assert (2, "error: workload ml/fintune is not in the snapshot (did you mean "
               "ml/finetune?)\n") == (r.returncode, r.stderr)


def test_unknown_context_gets_a_suggestion(tmp_path):
    kubeconfig = tmp_path / "config"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: production\n"
        "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n"
        "users: [{name: u, user: {token: t}}]\n"
        "contexts:\n- {name: production, context: {cluster: c, user: u}}\n"
        "- {name: staging, context: {cluster: c, user: u}}\n"
    )
    r = wapctl("--kubeconfig", kubeconfig, "--context", "prodution", "validate")
    assert 4 == r.returncode, r.stderr
    assert r.stderr.rstrip().endswith("(did you mean production?)")


def test_an_unexpected_exception_is_internal_70_with_one_line(monkeypatch):
    def boom(documents):
        raise RuntimeError("a bug")

    monkeypatch.setattr(ingest, "build_snapshot", boom)
    monkeypatch.delenv("WAPCTL_TRACEBACK", raising=False)
    result = CliRunner().invoke(app, ["validate", str(K8S)], catch_exceptions=False)
    assert (70, int(ExitCode.INTERNAL)) == (result.exit_code, 70)
    assert ("error: internal error: RuntimeError: a bug (WAPCTL_TRACEBACK=1 shows where)\n"
            == result.stderr)
