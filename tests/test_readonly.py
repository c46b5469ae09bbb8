"""Nothing a user gave is modified, nothing is written (issue 8 §5): every command on copies of
the fixtures leaves their bytes, modes and mtimes alone and creates no file next to them, in the
working directory or in the temporary directory; against a live cluster every command sends
only GET requests and leaves the kubeconfig alone."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from wapctl.cli import app

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


def tree_state(root: Path) -> dict[str, tuple]:
    """Every file and folder under ``root``: kind, content hash, mode and mtime (ns)."""
    state: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st = path.lstat()
            digest = (hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file()
                      else None)
            state[str(path.relative_to(root))] = (path.is_dir(), digest, st.st_mode,
                                                  st.st_mtime_ns)
    return state


def file_commands(copy: Path) -> list[tuple[list[str], bytes | None]]:
    """Every command, output format and input form over the copied fixtures:
    (args, stdin bytes or None)."""
    plan, cycles, sim = copy / "plan", copy / "cycles", copy / "simulate"
    audit, api = cycles / "audit", copy / "api-versions"
    out: list[tuple[list[str], bytes | None]] = []
    for snap in sorted(plan.glob("*.yaml")):
        for fmt in ("table", "json", "yaml"):
            out.append((["plan", str(snap), "-o", fmt], None))
    out.append((["plan", str(plan / "tie-break.yaml"), "--pod", "default/urgent"], None))
    out.append((["plan", str(plan / "gang-multi-node.yaml"), "--workload", "ml/train"], None))
    out.append((["plan", "-", "-o", "json"], (plan / "single-pod.yaml").read_bytes()))
    for snap in sorted(api.glob("*.yaml")):
        out.append((["plan", str(snap), "-o", "json"], None))
        out.append((["validate", str(snap)], None))
    out.append((["validate", str(api)], None))  # duplicates across shapes: exit 2
    out.append((["validate", str(plan / "broken.yaml")], None))  # bad input: exit 2
    for snap in sorted(cycles.glob("*.yaml")):
        for extra in (["-o", "json"], ["--format", "github"], []):
            out.append((["check-cycles", str(snap), *extra], None))
    out.append((["check-cycles", str(audit)], None))
    for snap in sorted(sim.glob("*.yaml")):
        out.append((["simulate", str(snap), "-o", "json"], None))
        out.append((["simulate", str(snap), "--no-requeue"], None))
    for change in ("raise-medium.yaml", "raise-train.yaml"):
        out.append((["audit", str(audit / "cluster.yaml"), "--change", str(audit / change)],
                    None))
        out.append((["audit", str(audit / "cluster.yaml"), "--change", str(audit / change),
                     "--delete", "PodDisruptionBudget/ml/training", "-o", "json"], None))
    out.append((["audit", "-", "--change", str(audit / "raise-train.yaml"), "-o", "yaml"],
                (audit / "cluster.yaml").read_bytes()))
    return out


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """Copies of the fixtures, an empty working directory and an empty temporary directory."""
    copy = tmp_path / "fixtures"
    shutil.copytree(FIXTURES, copy)
    (copy / "plan" / "broken.yaml").write_text("kind: Pod\nmetadata: {name: [\n")
    cwd = tmp_path / "cwd"
    tmp = tmp_path / "tmp"
    cwd.mkdir()
    tmp.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return copy, cwd, tmp


def test_no_command_modifies_or_writes_next_to_its_input(isolated):
    """All commands (plan, validate, check-cycles, simulate, audit; every output format; files,
    directories and stdin; good and bad input) leave the inputs' bytes, modes and mtimes as
    they were and write no file anywhere."""
    copy, cwd, tmp = isolated
    before = tree_state(copy)
    codes = []
    for args, stdin in file_commands(copy):
        result = CliRunner().invoke(app, args, input=stdin, catch_exceptions=False)
        codes.append(result.exit_code)
        assert result.exit_code in (0, 1, 2, 3), (args, result.output)
    assert {0, 1, 2, 3} == set(codes)  # every outcome took part, bad input included
    assert before == tree_state(copy)
    assert ([], []) == (os.listdir(cwd), os.listdir(tmp))


def test_the_state_check_sees_a_touched_file(isolated):
    """tree_state notices a rewritten file with the same bytes (mtime) and a new file."""
    copy, _, _ = isolated
    before = tree_state(copy)
    target = copy / "plan" / "never.yaml"
    data = target.read_bytes()
    st = target.stat()
    target.write_bytes(data)
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    assert before != tree_state(copy)
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert before == tree_state(copy)
    (copy / "plan" / ".never.yaml.tmp").write_text("")
    assert before != tree_state(copy)


# ---- live: only GET, and the kubeconfig untouched --------------------------------------------

LIVE_COMMANDS = [
    ["plan", "-o", "json"],
    ["plan", "--pod", "batch/report-0"],
    ["validate"],
    ["check-cycles", "-o", "json"],
    ["check-cycles", "--format", "github"],
    ["simulate", "-o", "json"],
    ["audit", "--change", "{change}", "-o", "json"],
    ["snapshot"],
    ["snapshot", "--output-file", "{out}/snap.yaml"],
    ["snapshot", "--output-file", "{out}/snap.json", "-o", "json"],
]


def test_every_command_sends_only_get_and_leaves_the_kubeconfig_alone(apiserver, tmp_path,
                                                                      monkeypatch):
    """Every command (snapshot included, to stdout and to a file) against a live cluster sends
    only GET requests, leaves the kubeconfig's folder as it was and writes only its -o file."""
    objects = [d for d in yaml.safe_load(
        (FIXTURES / "cycles" / "audit" / "cluster.yaml").read_text())["items"]]
    fake = apiserver(objects)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    kube = tmp_path / "kube"
    kube.mkdir()
    kc = fake.write_kubeconfig(kube / "config")
    change = kube / "change.yaml"
    change.write_text((FIXTURES / "cycles" / "audit" / "raise-medium.yaml").read_text())
    out = tmp_path / "out"
    out.mkdir()
    before = tree_state(kube)
    for command in LIVE_COMMANDS:
        args = [a.format(change=change, out=out) for a in command]
        result = CliRunner().invoke(app, [*args, "--kubeconfig", str(kc)],
                                    catch_exceptions=False)
        assert result.exit_code in (0, 1, 3), (args, result.output)
    assert {"GET"} == fake.methods()
    assert len(fake.requests) >= 6 * len(LIVE_COMMANDS)
    assert before == tree_state(kube)
    assert (["snap.json", "snap.yaml"], []) == (sorted(os.listdir(out)), os.listdir(home))
