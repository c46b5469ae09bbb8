"""`check-cycles -o sarif`: the findings as a SARIF 2.1.0 log, for code-scanning upload.

One run, tool ``wapctl``; the driver lists one rule per finding kind (``wapctl.findings.RULES``,
always all of them, in that order, so ``ruleIndex`` is stable); one result per cycle, rule
violation and other finding, in the order of the report, each ``level: error`` with the message
and the fix. A result read from a file has a ``physicalLocation``: the path as given (a relative
URI reference; an absolute path becomes a ``file://`` URI) and ``region.startLine``, the line of
the offending field (``wapctl.locate``). Objects from stdin or a cluster have no file: their
result has only a ``logicalLocation`` naming the object. Deterministic, like every report.
The schema is OASIS's sarif-schema-2.1.0.json; tests/data holds a copy the tests validate with.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any
from urllib.parse import quote

from wapctl import __version__
from wapctl import findings as f
from wapctl.errors import Source
from wapctl.graph import CycleReport
from wapctl.locate import Locator
from wapctl.render.cycles import fix_lines, locations

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/kubernetes/enhancements/issues/5710"

_HELP = {
    f.CYCLE: "Raise the preemption priority of each rule-breaking workload on the cycle to at "
    "least its scheduling priority (KEP-5710: preemption priority >= scheduling priority).",
    f.RULE: "Set preemptionPriorityClassName to a class whose value is >= the scheduling "
    "class's value, or remove it.",
    f.UNKNOWN_CLASS: "Create the PriorityClass or name an existing one.",
    f.DRIFT: "Recreate the pods (roll out their controller) so admission gives them the "
    "class's current value, or restore the class's old value.",
    f.GROUP_DIVERGENCE: "Give the pod its pod group's class, or none.",
    f.KUEUE_DIVERGENCE: "Make the WorkloadPriorityClass value equal to the pods' "
    "PriorityClass value.",
    f.UNKNOWN_KUEUE_CLASS: "Create the WorkloadPriorityClass or name an existing one.",
}


def _name(rule_id: str) -> str:
    return "".join(part.capitalize() for part in rule_id.split("-"))


def rules() -> list[dict[str, Any]]:
    return [
        {
            "id": rule_id,
            "name": _name(rule_id),
            "shortDescription": {"text": text},
            "help": {"text": _HELP[rule_id]},
            "defaultConfiguration": {"level": "error"},
        }
        for rule_id, text in f.RULES.items()
    ]


def artifact_uri(path: str) -> str:
    pure = PurePath(path)
    if pure.is_absolute():
        return "file://" + quote(pure.as_posix())
    return quote(pure.as_posix())


def _location(source: Source | None, line: int | None) -> dict[str, Any] | None:
    if source is None or source.file.startswith("<") or "://" in source.file:
        return None
    physical: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(source.file)}}
    if line is not None:
        physical["region"] = {"startLine": line}
    return {"physicalLocation": physical}


def sarif_log(report: CycleReport, locator: Locator | None = None) -> dict[str, Any]:
    """The SARIF 2.1.0 log of the report (module docstring)."""
    index = {rule_id: i for i, rule_id in enumerate(f.RULES)}
    fixes = fix_lines(report)
    objects = (
        [None] * len(report.cycles)
        + [f"{v.kind} {v.name}" for v in report.violations]
        + [x.object for x in report.findings]
    )
    results = []
    for i, (rule_id, _title, message, source, line) in enumerate(locations(report, locator)):
        text = message
        if rule_id in (f.CYCLE, f.RULE):
            text += ". Fix: " + fixes[i].split(": ", 1)[1]
        result: dict[str, Any] = {
            "ruleId": rule_id,
            "ruleIndex": index[rule_id],
            "level": "error",
            "message": {"text": text},
        }
        location = _location(source, line)
        logical = objects[i]
        if location is not None or logical is not None:
            loc = location or {}
            if logical is not None:
                loc["logicalLocations"] = [{"fullyQualifiedName": logical}]
            result["locations"] = [loc]
        results.append(result)
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "wapctl",
                        "version": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": rules(),
                    }
                },
                "results": results,
            }
        ],
    }
