"""The shared warnings contract (SPEC.md §4 "Warnings"): ``Snapshot.warnings`` reaches every
report as a top-level, sorted, duplicate-free ``warnings`` list, and tables show one yellow
line per warning before the report."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from wapctl import ingest
from wapctl.cli import app
from wapctl.model import LoadWarning, sorted_warnings
from wapctl.render.warnings import TABLE_LIMIT, render_warnings, warnings_to_list

ROOT = Path(__file__).resolve().parent.parent
SINGLE = ROOT / "fixtures" / "plan" / "single-pod.yaml"
CYCLES = ROOT / "fixtures" / "cycles"

W_POD = LoadWarning("MissingPriorityClass", "Pod prod/web-1", "spec.priorityClassName",
                    "PriorityClass 'gone' is not in the snapshot; using spec.priority 1000",
                    "a.yaml:12")
W_GROUP = LoadWarning("PriorityDivergence", "PodGroup prod/etl/main", None,
                      "pods have priority 0, the PodGroup 100", None)


def test_sorted_warnings_orders_by_code_object_field_message_and_drops_duplicates():
    """Input order must not matter, and the same warning twice is listed once."""
    copy = dataclasses.replace(W_POD, source="elsewhere.yaml:3")  # same content, other place
    assert (W_POD, W_GROUP) == sorted_warnings([W_GROUP, W_POD, copy])


def test_document_list_has_exactly_the_four_contract_fields():
    assert [
        {"code": "MissingPriorityClass", "object": "Pod prod/web-1",
         "field": "spec.priorityClassName",
         "message": "PriorityClass 'gone' is not in the snapshot; using spec.priority 1000"},
        {"code": "PriorityDivergence", "object": "PodGroup prod/etl/main", "field": None,
         "message": "pods have priority 0, the PodGroup 100"},
    ] == warnings_to_list([W_GROUP], [W_POD, W_GROUP])


def test_table_lines_are_yellow_one_per_warning_and_capped():
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="standard", width=60)
    many = [dataclasses.replace(W_POD, object=f"Pod prod/web-{i:02}") for i in range(25)]
    render_warnings(warnings_to_list(many), console)
    lines = out.getvalue().splitlines()
    assert TABLE_LIMIT + 1 == len(lines)  # one line each, however narrow the console
    assert all("\x1b[33m" in line for line in lines)  # yellow
    assert "Warning: Pod prod/web-00 spec.priorityClassName: PriorityClass" in lines[0]
    assert "5 more warnings (-o json lists them all)" in lines[-1]


def _run(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, json.loads(result.stdout)


@pytest.mark.parametrize(
    "args, kind",
    [
        (("plan", str(SINGLE)), "PreemptionPlan"),
        (("validate", str(SINGLE)), "ValidationReport"),
        (("check-cycles", str(SINGLE)), "CycleReport"),
        (("simulate", str(SINGLE)), "SimulationReport"),
        (("audit", str(CYCLES / "kep-ab.yaml"), "--change", str(CYCLES / "kep-ab-fixed.yaml")),
         "AuditReport"),
    ],
)
def test_every_report_has_a_warnings_list(args, kind):
    """A clean snapshot: every report kind still carries the key, as an empty list."""
    _, doc = _run(*args, "-o", "json")
    assert (kind, []) == (doc["kind"], doc["warnings"])


def test_snapshot_warnings_reach_plan_and_table(monkeypatch):
    """Warnings the loader attaches come out in -o json (sorted) and as table lines."""
    real = ingest.build_snapshot

    def with_warnings(documents):
        snap = real(documents)
        return dataclasses.replace(snap, warnings=(W_GROUP, W_POD))

    monkeypatch.setattr(ingest, "build_snapshot", with_warnings)
    _, doc = _run("plan", str(SINGLE), "-o", "json")
    assert ["MissingPriorityClass", "PriorityDivergence"] == [w["code"] for w in doc["warnings"]]
    table = CliRunner().invoke(app, ["plan", str(SINGLE)], catch_exceptions=False).stdout
    first = table.splitlines()[:2]
    assert first[0].startswith("Warning: Pod prod/web-1 spec.priorityClassName: ")
    assert first[1].startswith("Warning: PodGroup prod/etl/main: ")


def test_github_format_turns_warnings_into_warning_annotations():
    """check-cycles --format github: each load warning is a ::warning workflow command."""
    export = ROOT / "fixtures" / "exports" / "k8s-1.36" / "kubectl"
    result = CliRunner().invoke(
        app, ["check-cycles", str(export / "get-nodes-pods-priorityclasses-pdb.yaml"),
              "--format", "github"], catch_exceptions=False)
    warnings = [line for line in result.stdout.splitlines() if line.startswith("::warning")]
    assert 3 == len(warnings)  # the pods of three PodGroups the export left out
    assert warnings[0].startswith("::warning title=wapctl MissingPodGroup::Pod batch/etl-shard-0 ")


def test_output_name_keeps_stdout_to_names_and_warns_on_stderr():
    export = ROOT / "fixtures" / "exports" / "kubectl-no-system-classes.yaml"
    result = CliRunner().invoke(app, ["plan", str(export), "-o", "name"],
                                catch_exceptions=False)
    assert ("-n batch pod/etl-worker-0\n", 0) == (result.stdout, result.exit_code)
    assert "\nWarning: Pod batch/etl-worker-0 spec.priorityClassName: " in result.stderr
