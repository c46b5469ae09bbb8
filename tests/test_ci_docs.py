"""The CI examples of docs/ci.md run: every fenced block marked ``ci`` (```` ```sh ci ````,
```` ```yaml ci ````) — shell lines, GitHub Actions ``run`` steps, GitLab ``script`` lines — is
extracted and its wapctl commands executed against fixtures: deploy/ is a chart fixture,
snapshots/prod.yaml the cluster fixture, and ``helm template`` / ``kustomize build`` print the
chart. The fixed chart passes every command (exit 0); the chart with the KEP ping-pong fails
every command not guarded by ``|| true`` (exit 1). Also .pre-commit-hooks.yaml."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from wapctl.cli import app

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "ci.md"
MANIFESTS = ROOT / "fixtures" / "manifests"
BLOCK = re.compile(r"^```(sh|yaml) ci\n(.*?)^```", re.S | re.M)


def commands() -> list[str]:
    """The wapctl command lines of the doc's ci blocks, in order."""
    out: list[str] = []
    for lang, body in BLOCK.findall(DOC.read_text()):
        if lang == "sh":
            lines = body.splitlines()
        else:
            doc = yaml.safe_load(body)
            lines = []
            if "jobs" in doc:  # GitHub Actions
                for job in doc["jobs"].values():
                    for step in job["steps"]:
                        lines += str(step.get("run", "")).splitlines()
            else:  # GitLab CI
                for job in doc.values():
                    lines += [*job.get("script", ()), *job.get("after_script", ())]
        out += [ln.strip() for ln in lines if "wapctl " in ln and "pip install" not in ln]
    return out


def workspace(tmp_path: Path, chart: str) -> Path:
    (tmp_path / "deploy").mkdir()
    shutil.copy(MANIFESTS / chart, tmp_path / "deploy" / "chart.yaml")
    (tmp_path / "snapshots").mkdir()
    shutil.copy(MANIFESTS / "cluster.yaml", tmp_path / "snapshots" / "prod.yaml")
    (tmp_path / "chart").mkdir()
    return tmp_path


def execute(command: str, ws: Path) -> int:
    """Run one doc line in-process: ``A | wapctl ...`` with A a chart renderer feeds the chart
    on stdin; ``> file`` / ``>> file`` write stdout; ``|| true`` makes the line succeed."""
    guarded = command.endswith("|| true")
    command = command.removesuffix("|| true").strip()
    stdin = None
    if "|" in command:
        left, command = (part.strip() for part in command.split("|", 1))
        assert left.startswith(("helm template", "kustomize build")), left
        stdin = (ws / "deploy" / "chart.yaml").read_text()
    tokens = shlex.split(command.replace('"$GITHUB_STEP_SUMMARY"', "summary.md"))
    target, append = None, False
    for op in (">>", ">"):
        if op in tokens:
            i = tokens.index(op)
            target, append, tokens = tokens[i + 1], op == ">>", tokens[:i]
            break
    assert "wapctl" == tokens[0], command
    cwd = os.getcwd()
    os.chdir(ws)
    try:
        result = CliRunner().invoke(app, tokens[1:], input=stdin, env={"COLUMNS": "100"},
                                    catch_exceptions=False)
        if target is not None:
            with open(target, "a" if append else "w") as fh:
                fh.write(result.stdout)
    finally:
        os.chdir(cwd)
    assert result.exit_code in (0, 1), (command, result.stderr)
    return 0 if guarded else result.exit_code


def test_the_doc_has_the_promised_examples() -> None:
    """GitHub Actions, GitLab CI, helm template | wapctl, --cluster, SARIF, pictures."""
    lines = commands()
    for needle in ("helm template my-release ./chart | wapctl check-cycles -",
                   "--format github", "-o sarif", "-o mermaid", "-o dot", "--cluster"):
        assert any(needle in line for line in lines), needle
    assert len(lines) >= 14


@pytest.mark.parametrize(("chart", "failing"), [("chart-fixed.yaml", 0), ("chart-cycle.yaml", 1)],
                         ids=["fixed", "cycle"])
def test_every_ci_example_runs(tmp_path: Path, chart: str, failing: int) -> None:
    """Each example exits 0 on the fixed chart and 1 (unless guarded) on the cycle."""
    ws = workspace(tmp_path, chart)
    codes = {line: execute(line, ws) for line in commands()}
    expected = {line: 0 if line.endswith("|| true") else failing for line in codes}
    assert expected == codes
    log = json.loads((ws / "wapctl.sarif").read_text())
    assert ("2.1.0", failing == 1) == (log["version"], bool(log["runs"][0]["results"]))
    summary = (ws / "summary.md").read_text()
    assert summary.startswith("flowchart LR") and "p0[" in summary


def test_helm_pipe_runs_in_a_real_shell(tmp_path: Path) -> None:
    """The doc's helm line, run by bash with a stand-in helm that prints the chart: the
    pipeline's exit status is wapctl's."""
    ws = workspace(tmp_path, "chart-cycle.yaml")
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "helm").write_text(f"#!/bin/sh\ncat {ws / 'deploy' / 'chart.yaml'}\n")
    (fake / "helm").chmod(0o755)
    [line] = [c for c in commands() if c.startswith("helm template") and "--cluster" not in c]
    env = {**os.environ, "PATH": f"{fake}{os.pathsep}{Path(sys.executable).parent}"
           f"{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(["bash", "-c", line], cwd=ws, env=env, capture_output=True,
                          text=True, timeout=120)
    assert (1, "FAIL: 1 cycle, 1 rule violation") == (
        done.returncode, done.stdout.strip().splitlines()[-1]
    )


def test_pre_commit_hook_definition() -> None:
    """The hook runs check-cycles on the user's args, never on the changed files alone, and
    the three-line snippet of the doc names it."""
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert ("wapctl-check-cycles", "wapctl check-cycles", False, "python") == (
        hook["id"], hook["entry"], hook["pass_filenames"], hook["language"]
    )
    assert re.search(hook["files"], "deploy/app.yaml") and not re.search(hook["files"], "a.md")
    assert "hooks: [{id: wapctl-check-cycles, args: [deploy/]}]" in DOC.read_text()
