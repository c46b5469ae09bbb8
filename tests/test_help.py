"""Help that teaches (issue 15): every command's --help has an Examples section whose command
lines all run (here, against fixtures and a fake API server), option types read like kubectl's
(no Python types such as <bool> or <list[str]>), and the text wraps to the terminal."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from wapctl.cli import app, normalize_argv
from wapctl.commands.examples import EXAMPLES

ROOT = Path(__file__).resolve().parent.parent
WAPCTL = str(Path(sys.executable).with_name("wapctl"))
SNAPSHOT = ROOT / "fixtures" / "exports" / "k8s-1.36" / "kubectl" / "get-all-wapctl-kinds.yaml"
CHANGE = ROOT / "fixtures" / "exports" / "change-raise-low.yaml"
EVENTS = ROOT / "tests" / "data" / "k8s-1.36" / "events"
COMMANDS = ["plan", "validate", "snapshot", "check-cycles", "audit", "simulate", "explain",
            "history"]
CASES = [(cmd, line) for cmd in COMMANDS for _, line in EXAMPLES[cmd]]
# explain exits 1 when its replay disagrees with the scheduler and history on ping-pong: in
# these recorded preemptions neither happens
OK = {"plan": {0, 3}, "check-cycles": {0, 1}, "audit": {0, 1}, "simulate": {0, 1}}
# what the examples' file names stand for: a fixture, or for the commands that read the
# scheduler's Events, a real 1.36 scheduler's recorded preemption (tests/data/k8s-1.36/events)
FILES = {"snapshot.yaml": SNAPSHOT, "change.yaml": CHANGE}
EVENT_FILES = {
    "explain": {"snapshot.yaml": EVENTS / "A-single-pod" / "2-preempted",
                "before.yaml": EVENTS / "A-single-pod" / "1-before"},
    "history": {"snapshot.yaml": EVENTS / "C-gang-podgroup" / "3-finished",
                "before.yaml": EVENTS / "C-gang-podgroup" / "1-before"},
}


def help_text(command: str, columns: int = 100) -> str:
    env = {**os.environ, "COLUMNS": str(columns)}
    return subprocess.run([WAPCTL, command, "--help"], capture_output=True, text=True,
                          timeout=60, env=env, check=True).stdout


def test_every_command_has_examples():
    assert set(COMMANDS) == set(EXAMPLES)
    assert all(len(EXAMPLES[c]) >= 2 for c in COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_examples_and_kubectl_style_types(command):
    text = help_text(command)
    assert "Examples:" in text
    for _, line in EXAMPLES[command]:
        assert line in text  # one line, never re-wrapped
    if command != "snapshot":  # snapshot's own options belong to the testinfra helper
        assert "<" not in text.replace("<stdin>", ""), text


def test_help_wraps_to_the_terminal():
    narrow, wide = help_text("plan", 80), help_text("plan", 140)
    assert max(map(len, narrow.splitlines())) <= 80
    assert 100 < max(map(len, wide.splitlines())) <= 140


@pytest.fixture
def live_kubeconfig(apiserver, tmp_path):
    objects = yaml.safe_load(SNAPSHOT.read_text())["items"]
    fake = apiserver(objects, workload_versions=("v1alpha2",))
    return fake.write_kubeconfig(tmp_path / "kubeconfig", context="prod")


@pytest.mark.parametrize(("command", "line"), CASES, ids=[line for _, line in CASES])
def test_every_example_runs(command, line, live_kubeconfig):
    """Each example as written, with its file names standing for fixtures or recorded
    preemptions (``FILES``, ``EVENT_FILES``) and the context prod for a fake API server serving
    the same cluster."""
    stdin = None
    if "|" in line:  # `kubectl get ... | wapctl ...`: the export arrives on stdin
        line = line.split("|", 1)[1]
        stdin = SNAPSHOT.read_text()
    args = shlex.split(line)
    redirect = None
    if ">" in args:
        redirect = args[args.index(">") + 1]
        args = args[: args.index(">")]
    assert "wapctl" == args[0]
    files = EVENT_FILES.get(command, FILES)
    args = [str(files.get(a, a)) for a in args[1:]]
    argv = normalize_argv(args, set(COMMANDS))
    result = CliRunner().invoke(app, argv, input=stdin, catch_exceptions=False,
                                env={"KUBECONFIG": str(live_kubeconfig)})
    assert result.exit_code in OK.get(command, {0}), result.output
    assert "error:" not in result.stderr
    if redirect is not None:  # what would land in the file is a snapshot every command reads
        doc = (json.loads if redirect.endswith(".json") else yaml.safe_load)(result.stdout)
        assert "List" == doc["kind"] and doc["items"]


OUTPUT_COMMANDS = ["plan", "validate", "check-cycles", "audit", "simulate", "explain", "history"]


def _accepted(command: str) -> set[str]:
    """The -o values the option parser takes, as its refusal of an unknown one lists them."""
    args = [command, *(["pod/default/x"] if command == "explain" else []), "-o", "bogus"]
    out = CliRunner().invoke(app, args).output
    listed = out.split("is not one of ", 1)[1]
    return set(re.findall(r"'([a-z]+)'", listed))


@pytest.mark.parametrize("command", OUTPUT_COMMANDS)
def test_output_help_names_exactly_the_formats_the_command_takes(command):
    """-o's help names every format the command takes and none it refuses (explain and
    history once listed wide and name, then refused them)."""
    vocabulary = set().union(*(_accepted(c) for c in OUTPUT_COMMANDS))
    text = " ".join(help_text(command, columns=400).split())
    option = text.split("--output FORMAT", 1)[1].split(" --", 1)[0].split("[default", 1)[0]
    named = set(re.findall(r"[a-z]+", re.sub(r"\((?!or )[^)]*\)", "", option))) & vocabulary
    assert _accepted(command) == named
    for fmt in named:
        args = [command, *(["pod/default/x"] if command == "explain" else []),
                "/nonexistent/none.yaml", "-o", fmt]
        refused = CliRunner().invoke(app, args).output
        assert ("--output" not in refused and f"-o {fmt}" not in refused), refused


@pytest.mark.parametrize(("command", "args"), [
    ("plan", []), ("validate", []), ("simulate", []),
    ("audit", ["--change", str(CHANGE)]),
])
def test_what_help_says_of_wide_is_what_wide_prints(command, args):
    """-o wide is accepted everywhere, as kubectl's; only plan's has more columns, and each
    command's --help says which (simulate's once promised more columns and printed the
    table)."""
    text = " ".join(help_text(command, columns=400).split())
    table = CliRunner().invoke(app, [command, str(SNAPSHOT), *args, "-o", "table"]).stdout
    wide = CliRunner().invoke(app, [command, str(SNAPSHOT), *args, "-o", "wide"]).stdout
    if command == "plan":
        assert "wide (more columns)" in text and wide != table
    else:
        assert "table (or wide, the same)" in text and wide == table
