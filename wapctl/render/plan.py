"""`wapctl plan`: the PreemptionPlan document (SPEC.md §4) and its Rich rendering."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from wapctl.model import LoadWarning
from wapctl.preemption import Plan
from wapctl.render.warnings import warnings_to_list

_STATUS_STYLE = {
    "Schedulable": "bold green",
    "WaitingForTermination": "bold cyan",
    "RequiresPreemption": "bold yellow",
    "Unschedulable": "bold red",
}


def plan_to_dict(plan: Plan, warnings: Iterable[LoadWarning] = ()) -> dict[str, Any]:
    """The machine document, exactly SPEC.md §4; lists sorted by pod, so output is stable.

    ``warnings``: the snapshot's load warnings (``Snapshot.warnings``)."""
    p = plan.preemptor
    victims = sorted(plan.victims, key=lambda v: v.pod)
    return {
        "apiVersion": "wapctl/v1",
        "kind": "PreemptionPlan",
        "preemptor": {
            "kind": p.kind,
            "namespace": p.namespace,
            "name": p.name,
            "podGroup": p.pod_group,
            "priority": p.priority,
            "preemptionPolicy": p.preemption_policy,
            "minCount": p.min_count,
        },
        "status": plan.status,
        "reason": plan.reason,
        "placements": [
            {"pod": x.pod, "node": x.node} for x in sorted(plan.placements, key=lambda x: x.pod)
        ],
        "victims": [
            {
                "pod": v.pod,
                "node": v.node,
                "priority": v.priority,
                "unit": {"kind": v.unit_kind, "name": v.unit_name},
                "pdbViolation": v.pdb_violation,
            }
            for v in victims
        ],
        "terminating": [
            {"pod": t.pod, "node": t.node} for t in sorted(plan.terminating, key=lambda t: t.pod)
        ],
        "summary": {
            "victimPods": plan.victim_pods,
            "victimUnits": plan.victim_units,
            "maxVictimPriority": plan.max_victim_priority,
            "pdbViolations": plan.pdb_violations,
            "nodesTouched": plan.nodes_touched,
        },
        "warnings": warnings_to_list(warnings),
    }


def _preemptor_line(doc: dict[str, Any]) -> Text:
    p = doc["preemptor"]
    who = f"{p['namespace']}/{p['name']}" + (f"/{p['podGroup']}" if p["podGroup"] else "")
    text = Text.assemble(("Preemptor ", "bold"), (f"{p['kind']} {who}", "bold"))
    details = [f"priority {p['priority']}", f"preemptionPolicy {p['preemptionPolicy']}"]
    if p["minCount"] is not None:
        details.append(f"minCount {p['minCount']}")
    text.append("  (" + ", ".join(details) + ")")
    return text


def render_plan(doc: dict[str, Any], console: Console, *, note: str | None = None) -> None:
    """Preemptor summary, placements, victims, terminating pods relied on, one-line verdict."""
    if note:
        console.print(Text(note, style="dim"))
    console.print(_preemptor_line(doc))
    if doc["placements"]:
        table = Table(title="Placements", box=box.SIMPLE_HEAD, title_justify="left")
        table.add_column("pod", overflow="fold")  # long names wrap, never cut off
        table.add_column("node", overflow="fold")
        for row in doc["placements"]:
            table.add_row(row["pod"], row["node"])
        console.print(table)
    if doc["victims"]:
        table = Table(title="Victims", box=box.SIMPLE_HEAD, title_justify="left")
        for col, justify in (("pod", "left"), ("node", "left"), ("priority", "right"),
                             ("unit", "left"), ("PDB", "left")):
            table.add_column(col, justify=justify, overflow="fold")  # type: ignore[arg-type]
        for v in doc["victims"]:
            unit = v["unit"]["kind"] + " " + v["unit"]["name"]
            pdb = Text("violated", style="red") if v["pdbViolation"] else Text("-")
            table.add_row(v["pod"], v["node"], str(v["priority"]), unit, pdb)
        console.print(table)
    if doc["terminating"]:
        title = "Waiting for terminating pods"
        table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left",
                      min_width=len(title))  # a narrow table would wrap its title
        table.add_column("pod", overflow="fold")
        table.add_column("node", overflow="fold")
        for row in doc["terminating"]:
            table.add_row(row["pod"], row["node"])
        console.print(table)
    s = doc["summary"]
    verdict = Text.assemble((doc["status"], _STATUS_STYLE.get(doc["status"], "bold")), ": ",
                            doc["reason"])
    if doc["victims"]:  # the reason already counts pods, units and the highest priority
        nodes = "1 node" if s["nodesTouched"] == 1 else f"{s['nodesTouched']} nodes"
        pdbs = s["pdbViolations"]
        verdict.append(f" Victims on {nodes}; "
                       f"{pdbs} PodDisruptionBudget violation{'' if pdbs == 1 else 's'}.")
    console.print(verdict)
