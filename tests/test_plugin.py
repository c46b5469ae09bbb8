"""kubectl plugin polish (issue 15): `kubectl wap` in usage and hints when run as kubectl-wap,
the kubectl_complete-wap helper speaking Cobra's __complete protocol, the krew manifest."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
HELPER = ROOT / "completions" / "kubectl_complete-wap"


def run(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(list(args), capture_output=True, text=True, timeout=60, env=env)


def test_plugin_usage_and_hints_say_kubectl_wap():
    r = run(str(BIN / "kubectl-wap"), "plan", "--help")
    assert r.stdout.startswith("Usage: kubectl wap plan [OPTIONS]")
    r = run(str(BIN / "kubectl-wap"), "plan", "--bogus")
    assert (2, "error: No such option: --bogus (see 'kubectl wap plan --help')\n") == (
        r.returncode, r.stderr)
    assert run(str(BIN / "wapctl"), "plan", "--help").stdout.startswith("Usage: wapctl plan")


def test_plugin_help_examples_say_kubectl_wap():
    """Issue 26: the Examples of `kubectl-wap <cmd> --help` name the program as invoked, as
    the usage line does, so each can be pasted as shown: every example line (after its `# what`
    comment) runs `kubectl wap`, a pipe's right side included; `wapctl` help keeps `wapctl`."""
    for command in ("plan", "validate", "snapshot", "check-cycles", "audit", "simulate"):
        text = run(str(BIN / "kubectl-wap"), command, "--help").stdout
        examples = text.split("Examples:", 1)[1].splitlines()
        lines = [ln.strip() for i, ln in enumerate(examples)
                 if i and examples[i - 1].strip().startswith("# ")]
        assert lines and all(
            ln.startswith("kubectl wap ") or "| kubectl wap " in ln for ln in lines), lines
        assert "wapctl " not in "\n".join(lines), lines
    wapctl = run(str(BIN / "wapctl"), "validate", "--help").stdout
    assert "  kubectl get nodes,pods,priorityclasses,pdb -A -o yaml | wapctl validate -" in wapctl


@pytest.mark.parametrize(("words", "expected"), [
    (["pl"], ["plan\t", ":4"]),  # commands, with their description after a tab
    (["plan", "-o", ""], ["table", "wide", "json", "yaml", "name", "html", ":4"]),
    (["--context", "x", "check-cycles", "--form"], ["--format\t", ":4"]),  # globals first
    (["plan", ""], [":0"]),  # a snapshot file: the shell completes file names
])
def test_completion_helper_speaks_cobra(words, expected):
    """kubectl runs the helper with the words after `kubectl wap`, the last one being the word
    under the cursor; lines are candidates, the last is ':<directive>'."""
    r = run(str(HELPER), *words)
    assert 0 == r.returncode, r.stderr
    lines = r.stdout.splitlines()
    assert len(expected) == len(lines), lines
    assert all(line.startswith(e) for line, e in zip(lines, expected, strict=True)), lines


def test_krew_manifest_template():
    doc = yaml.safe_load((ROOT / "packaging" / "krew" / "wap.yaml").read_text())
    assert ("krew.googlecontainertools.github.com/v1alpha2", "Plugin", "wap") == (
        doc["apiVersion"], doc["kind"], doc["metadata"]["name"])
    for platform in doc["spec"]["platforms"]:
        assert "kubectl-wap" == platform["bin"]
        assert {"kubectl-wap", "kubectl_complete-wap"} <= {f["from"] for f in platform["files"]}
    assert os.access(HELPER, os.X_OK)
