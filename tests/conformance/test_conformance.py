"""Upstream kube-scheduler test-table rows, each written as a snapshot with its upstream answer
(tests/conformance/rows/*.yaml; README.md there lists them), run through the real CLI path:
``wapctl plan ROW.yaml --pod NS/NAME | --workload NS/NAME[/GROUP] --model M -o json``.

A row file is a kubectl-style List (the snapshot; its header comment cites the upstream test,
table row, file and commit and derives the answer) plus one ``ConformanceRow`` document, a kind
wapctl ignores, holding the question and the answer per behaviour model:

    plan: {workload: default/preemptor-pg/preemptor-pg}      # or {pod: default/p}
    expect:
      "1.36": {status: RequiresPreemption, victims: [default/p1]}
      upstream:
        status: RequiresPreemption
        oneOf: [{victims: [default/p1], placements: {default/p: n1}},
                {victims: [default/p2], placements: {default/p: n2}}]
    xfail: {"1.36": "<what differs, upstream cite>"}         # the engine does not pass it yet
    pending: "<filter the row needs>"                          # waits for a filter wapctl lacks

``oneOf`` lists every answer upstream can give where it breaks a tie at random (equal node
scores, equal victims); ``placements`` (pod -> node) is given only where the row decides it.
``pdbViolations`` (optional) is the plan's summary count. ``terminating`` (optional, per answer)
lists the victims upstream chooses that are already terminating: upstream's test table counts
them among the candidate's victims, but ``prepareCandidate`` deletes nothing already being
deleted, so the plan lists them under ``terminating`` and ``victims`` holds the new deletions.
``plan.featureGates`` (``Name=true,...``) is passed as ``--feature-gates``. Rows the engine does
not pass yet are strict xfails, so a fix flips them into failures that ask for the marker to go.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from wapctl.cli import app

ROWS_DIR = Path(__file__).resolve().parent / "rows"
ROW_KIND = ("conformance.wapctl.io/v1", "ConformanceRow")
MODELS = ("1.36", "upstream", "kep-5710")
STATUSES = {"Schedulable", "WaitingForTermination", "RequiresPreemption", "Unschedulable"}


def _row_doc(path: Path) -> dict[str, Any]:
    docs = [d for d in yaml.safe_load_all(path.read_text()) if isinstance(d, dict)]
    rows = [d for d in docs if (d.get("apiVersion"), d.get("kind")) == ROW_KIND]
    assert len(rows) == 1, f"{path.name}: expected one ConformanceRow document, found {len(rows)}"
    return rows[0]


def _cases() -> list[Any]:
    cases = []
    for path in sorted(ROWS_DIR.glob("*.yaml")):
        row = _row_doc(path)
        for model, expect in row["expect"].items():
            marks = []
            reason = (row.get("xfail") or {}).get(model)
            if row.get("pending"):
                reason = f"pending filters: {row['pending']}" + (f"; {reason}" if reason else "")
            if reason:
                marks.append(pytest.mark.xfail(strict=True, reason=reason))
            cases.append(pytest.param(path, model, expect, id=f"{path.stem}[{model}]", marks=marks))
    return cases


CASES = _cases()


def _plan(
    path: Path, question: dict[str, str], model: str
) -> tuple[int, dict[str, Any] | None, str]:
    args = ["plan", str(path)]
    if "pod" in question:
        args += ["--pod", question["pod"]]
    if "workload" in question:
        args += ["--workload", question["workload"]]
    if "featureGates" in question:
        args += ["--feature-gates", question["featureGates"]]
    args += ["--model", model, "-o", "json"]
    result = CliRunner().invoke(app, args, catch_exceptions=False)
    try:
        document = json.loads(result.stdout)
    except ValueError:
        document = None
    return result.exit_code, document, result.output


def _answer_matches(got: dict[str, Any], answer: dict[str, Any]) -> bool:
    if sorted(answer.get("victims", [])) != got["victims"]:
        return False
    if "terminating" in answer and sorted(answer["terminating"]) != got["terminating"]:
        return False
    return "placements" not in answer or answer["placements"] == got["placements"]


@pytest.mark.parametrize(("path", "model", "expect"), CASES)
def test_row_gives_the_upstream_answer(path: Path, model: str, expect: dict[str, Any]) -> None:
    """`wapctl plan --model M` on the row's snapshot gives the status, victim set and (where the
    row decides them) placements that upstream's test table expects for that version."""
    row = _row_doc(path)
    code, plan, output = _plan(path, row["plan"], model)
    assert plan is not None, f"no JSON plan (exit {code}): {output.strip()[-400:]}"
    got = {
        "status": plan["status"],
        "victims": sorted(v["pod"] for v in plan["victims"]),
        "terminating": sorted(t["pod"] for t in plan["terminating"]),
        "placements": {p["pod"]: p["node"] for p in plan["placements"]},
    }
    answers = expect.get("oneOf") or [expect]
    assert expect["status"] == got["status"], f"got {got}; expected {expect}"
    assert any(_answer_matches(got, a) for a in answers), f"got {got}; expected one of {answers}"
    if "pdbViolations" in expect:
        assert expect["pdbViolations"] == plan["summary"]["pdbViolations"]
    assert (3 if expect["status"] == "Unschedulable" else 0) == code
    assert model == plan.get("model", {}).get("name"), "the plan names the model it used"


def test_every_row_cites_upstream_and_answers_per_model() -> None:
    """Each row names its upstream test, table row, file and commit, asks one question and gives
    a well-formed answer for known models only; and the corpus is not empty."""
    paths = sorted(ROWS_DIR.glob("*.yaml"))
    assert len(paths) >= 60
    problems = []
    for path in paths:
        row = _row_doc(path)
        text = path.read_text()
        upstream = row.get("upstream") or {}
        for field in ("test", "row", "file", "commit"):
            if not upstream.get(field):
                problems.append(f"{path.name}: upstream.{field} missing")
        header = text.split("apiVersion", 1)[0]
        if not text.startswith("# Conformance row") or upstream.get("test", "?") not in header:
            problems.append(f"{path.name}: header comment does not cite the upstream test")
        if len(set(row.get("plan", {})) & {"pod", "workload"}) != 1:
            problems.append(f"{path.name}: plan must name exactly one of pod / workload")
        for model, expect in row.get("expect", {}).items():
            if model not in MODELS:
                problems.append(f"{path.name}: unknown model {model}")
            if expect.get("status") not in STATUSES:
                problems.append(f"{path.name}: {model}: bad status {expect.get('status')}")
            if ("victims" in expect) == ("oneOf" in expect):
                problems.append(f"{path.name}: {model}: give exactly one of victims / oneOf")
        for model in row.get("xfail") or {}:
            if model not in row.get("expect", {}):
                problems.append(f"{path.name}: xfail for {model}, which the row does not answer")
    assert [] == problems


def test_readme_lists_every_row() -> None:
    """README.md's table names every row file, so the coverage table cannot drift from the rows."""
    readme = (Path(__file__).resolve().parent / "README.md").read_text()
    missing = [p.stem for p in sorted(ROWS_DIR.glob("*.yaml")) if p.stem not in readme]
    assert [] == missing
