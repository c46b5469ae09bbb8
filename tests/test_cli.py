"""The `plan` and `validate` commands through Typer's CliRunner: exit codes (SPEC.md §5),
clean one-line errors, the table for people, and inputs left untouched."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wapctl.cli import app

ROOT = Path(__file__).resolve().parent.parent
PLAN = ROOT / "fixtures" / "plan"
API = ROOT / "fixtures" / "api-versions"


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(app, [str(a) for a in args], input=input, catch_exceptions=False)


def test_plan_exits_0_when_the_preemptor_can_be_placed():
    """A preemptor placed after preemption exits 0."""
    assert 0 == run("plan", PLAN / "single-pod.yaml", "-o", "json").exit_code


def test_plan_exits_3_when_unschedulable_even_with_preemption():
    """A preemptor that cannot be placed (here: policy Never) exits 3."""
    assert 3 == run("plan", PLAN / "never.yaml").exit_code


def test_plan_without_a_selector_names_the_preemptor_it_chose():
    """With neither --pod nor --workload the table says which preemptor was planned."""
    result = run("plan", PLAN / "gang-multi-node.yaml", "--no-color")
    assert 0 == result.exit_code
    assert "Planning for the highest-priority pending preemptor: PodGroup ml/train/workers" in (
        result.stdout.replace("\n", " ")
    )


def test_plan_table_lists_placements_victims_and_verdict():
    """The table shows every placement, every victim with its unit, and the verdict."""
    result = run("plan", PLAN / "podgroup-whole.yaml", "--pod", "default/urgent", "--no-color",
                 "--model", "upstream")  # upstream takes the PodGroup-mode victim whole
    out = result.stdout
    assert "default/urgent" in out and "n1" in out
    assert "batch/etl-0" in out and "batch/etl-1" in out
    assert "batch/etl/workers" in out and "unit: the pod group preempted as one" in out
    assert "RequiresPreemption" in out
    assert "\x1b[" not in out  # no colour when not a terminal


def test_plan_for_a_named_workload_group():
    """--workload NS/NAME/GROUP plans that pod group."""
    result = run("plan", PLAN / "gang-multi-node.yaml", "--workload", "ml/train/workers",
                 "-o", "json")
    doc = json.loads(result.stdout)
    assert ("PodGroup", "train", "workers") == (
        doc["preemptor"]["kind"], doc["preemptor"]["name"], doc["preemptor"]["podGroup"])


def test_plan_reads_stdin():
    """`-` reads the snapshot from standard input."""
    text = (PLAN / "single-pod.yaml").read_text()
    via_stdin = run("plan", "-", "-o", "json", input=text)
    via_file = run("plan", PLAN / "single-pod.yaml", "-o", "json")
    assert via_file.stdout == via_stdin.stdout


def test_plan_reads_a_directory(tmp_path):
    """A directory is read as all the snapshot files directly inside it."""
    (tmp_path / "a.yaml").write_text((PLAN / "single-pod.yaml").read_text())
    (tmp_path / "notes.txt").write_text("not a snapshot")
    via_dir = run("plan", tmp_path, "-o", "json")
    via_file = run("plan", PLAN / "single-pod.yaml", "-o", "json")
    assert 0 == via_dir.exit_code
    assert via_file.stdout == via_dir.stdout


def test_the_same_cluster_twice_is_a_duplicate_error():
    """A directory holding one cluster in three API shapes has duplicate objects: exit 2."""
    result = run("plan", API, "--workload", "ml/inference")
    assert 2 == result.exit_code
    assert "duplicate" in result.output.lower()


@pytest.mark.parametrize(
    ("args", "pattern"),
    [
        (["plan", "/nonexistent/snap.yaml"], r"/nonexistent/snap\.yaml"),
        (["plan", PLAN / "single-pod.yaml", "--pod", "default/nope"], r"default/nope"),
        (["plan", PLAN / "single-pod.yaml", "--workload", "ml/none"], r"ml/none"),
        (["plan", PLAN / "single-pod.yaml", "--pod", "a/b", "--workload", "c/d"], r"not both"),
        (["plan", PLAN / "single-pod.yaml", "-o", "xml"], r"xml"),
        (["validate", "/nonexistent/dir/"], r"/nonexistent/dir"),
    ],
    ids=["missing-file", "unknown-pod", "unknown-workload", "pod-and-workload", "bad-format",
         "missing-dir"],
)
def test_usage_and_input_errors_exit_2_with_one_line(args, pattern):
    """Usage and input errors exit 2 with a message naming the culprit, never a traceback."""
    result = run(*args)
    assert 2 == result.exit_code
    assert re.search(pattern, result.output)
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("kind: Pod\nmetadata: {name: a\n", "document"),
        ("- just\n- a list\n", "mapping"),
        ("", "empty"),
        ("apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: -1}}\n",
         "status.allocatable.cpu"),
        ("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: d}\n"
         "spec: {priorityClassName: ghost, containers: []}\n", "priorityClassName"),
        # a PodGroup without its Workload and without a policy of its own cannot be planned
        ("apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\n"
         "metadata: {name: pg, namespace: d}\nspec: {podGroupTemplateRef: "
         "{workload: {workloadName: ghost, podGroupTemplateName: t}}}\n", "workloadName"),
    ],
    ids=["malformed-yaml", "not-a-mapping", "empty-file", "negative-quantity", "missing-class",
         "absent-workload"],
)
def test_bad_snapshot_exits_2_naming_the_file(tmp_path, text, fragment):
    """A bad snapshot gets exit 2 and one message naming the file and the problem."""
    path = tmp_path / "snap.yaml"
    path.write_text(text)
    before = path.read_bytes()
    for command in ("plan", "validate"):
        result = run(command, path)
        assert 2 == result.exit_code, result.output
        assert str(path) in result.output
        assert fragment in result.output
        assert "Traceback" not in result.output
        assert 1 == len(result.output.strip().splitlines())
    assert before == path.read_bytes()  # nothing a user gave is modified


def test_validate_prints_counts_per_kind_and_api_shapes():
    """validate -o json counts objects per kind and names each Workload's API shape."""
    result = run("validate", API / "v1alpha3.yaml", "-o", "json")
    assert 0 == result.exit_code
    doc = json.loads(result.stdout)
    assert "ValidationReport" == doc["kind"]
    assert 3 == doc["counts"]["Node"]
    assert {"scheduling.k8s.io/v1alpha3"} == {s["apiVersion"] for s in doc["apiShapes"]}


def test_validate_table_says_valid():
    """validate's table ends with the word valid."""
    result = run("validate", PLAN / "single-pod.yaml", "--no-color")
    assert 0 == result.exit_code
    assert result.stdout.rstrip().endswith("valid")


def test_version_option():
    """--version prints the version."""
    assert "wapctl 0.1.0" in run("--version").stdout


@pytest.mark.parametrize(
    "command", ["plan", "validate", "snapshot", "check-cycles", "audit", "simulate"]
)
def test_every_command_has_working_help(command):
    """`wapctl COMMAND --help` renders (Rich markup in help texts must not break it)."""
    result = run(command, "--help")
    assert 0 == result.exit_code, result.output
    assert "Usage" in result.output


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["plan", str(PLAN / "single-pod.yaml"), "-o", "xml"],
         "-o/--output 'xml' is not an accepted value: use one of"),
        (["plan", "--bogus"], "No such option: --bogus"),
        (["simulate", str(PLAN / "single-pod.yaml"), "--max-steps", "0"], "--max-steps"),
    ],
    ids=["bad-choice", "unknown-option", "out-of-range"],
)
def test_console_script_reports_usage_errors_in_one_line(args, fragment):
    """The installed entry point prints a bad option as one `error:` line and exits 2."""
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-c", "from wapctl.cli import main; main()", *args],
        capture_output=True, text=True, timeout=60,
    )
    assert 2 == proc.returncode
    assert "" == proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert 1 == len(lines), proc.stderr
    assert lines[0].startswith("error: ") and fragment in lines[0]


@pytest.mark.parametrize(("args", "line"), [
    (["plan", str(PLAN / "single-pod.yaml"), "-o", "JSON"],
     "error: -o/--output 'JSON' is not an accepted value: use one of table, wide, json, yaml, "
     "name, html (lowercase, as kubectl takes them) (see 'wapctl plan --help')"),
    (["check-cycles", str(PLAN / "single-pod.yaml"), "-o", "Sarif"],
     "error: -o/--output 'Sarif' is not an accepted value: use one of table, wide, json, yaml, "
     "name, sarif, dot, mermaid, html (lowercase, as kubectl takes them) "
     "(see 'wapctl check-cycles --help')"),
    (["plan", str(PLAN / "single-pod.yaml"), "--color", "sometimes"],
     "error: --color 'sometimes' is not an accepted value: use one of auto, always, never "
     "(see 'wapctl plan --help')"),
], ids=["upper-case-output", "mixed-case-check-output", "unknown-color"])
def test_a_value_outside_the_choices_is_one_wapctl_line(args, line):
    """Issue 26 point 9: not Typer's "Value error, 'JSON' is not one of ..." (pydantic's words):
    the option, the value, the choices, and for a case slip that kubectl takes lowercase only."""
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-c", "import sys; sys.argv[0] = 'wapctl'; "
         "from wapctl.cli import main; main()", *args],
        capture_output=True, text=True, timeout=60,
    )
    assert 2 == proc.returncode
    assert [line] == proc.stderr.splitlines()


def test_ctrl_c_while_the_cli_imports_exits_130_in_one_line(monkeypatch, capsys):
    """The entry point turns a KeyboardInterrupt during the CLI's imports into exit 130."""
    import sys
    import types

    from wapctl.__main__ import main

    class Interrupted(types.ModuleType):
        def __getattr__(self, name):
            raise KeyboardInterrupt

    monkeypatch.setitem(sys.modules, "wapctl.cli", Interrupted("wapctl.cli"))
    with pytest.raises(SystemExit) as exc:
        main()
    assert 130 == exc.value.code
    assert "interrupted\n" == capsys.readouterr().err
