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
from wapctl.render.plan_wide import WideDetails, render_nodes, render_requests
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
        "model": plan.model.to_dict() if plan.model is not None else None,
        "ties": [
            {"decision": t.decision, "chosen": list(t.chosen),
             "alternatives": list(t.alternatives),
             "equal": t.count or len(t.chosen) + len(t.alternatives)}
            for t in plan.ties
        ],
        "notes": list(plan.notes),
        "warnings": warnings_to_list(warnings),
    }


def tie_line(tie: dict[str, Any]) -> str:
    """One line per random upstream choice: "n1 chosen among 3 equal nodes"."""
    chosen = ", ".join(tie["chosen"])
    if tie["decision"].startswith("victims among"):  # printed only where the order matters
        return (f"{chosen} preempted rather than {', '.join(tie['alternatives'])}: "
                f"equal importance, and another order among them changes the victims "
                f"(upstream's order of equals is not in the snapshot)")
    if tie["decision"].startswith("candidate nodes"):
        return f"{chosen} chosen; {tie['decision']}"
    return f"{chosen} chosen among {tie['equal']} equal nodes ({tie['decision']})"


def _preemptor_line(doc: dict[str, Any]) -> Text:
    p = doc["preemptor"]
    who = f"{p['namespace']}/{p['name']}" + (f"/{p['podGroup']}" if p["podGroup"] else "")
    text = Text.assemble(("Preemptor ", "bold"), (f"{p['kind']} {who}", "bold"))
    details = [f"priority {p['priority']}", f"preemptionPolicy {p['preemptionPolicy']}"]
    if p["minCount"] is not None:
        details.append(f"minCount {p['minCount']}")
    text.append("  (" + ", ".join(details) + ")")
    return text


def names_table(title: str, *columns: str, **kwargs: Any) -> Table:
    """A table whose columns hold names: never wrapped nor cut (CopyableConsole prints a table
    wider than the terminal at its own width)."""
    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left",
                  min_width=len(title), **kwargs)  # a narrow table would wrap its title
    for col in columns:
        table.add_column(col, no_wrap=True)
    return table


UNIT_LEGEND = ("unit: the pod group preempted as one (disruptionMode PodGroup); "
               "- : the pod alone")


def render_plan(
    doc: dict[str, Any],
    console: Console,
    *,
    note: str | None = None,
    wide: WideDetails | None = None,
) -> None:
    """Preemptor summary, placements, victims, terminating pods relied on, one-line verdict;
    ``wide`` (``-o wide``) adds requests, nodes' free resources and the PDBs by name."""
    if note:
        console.print(Text(note, style="dim"))
    model = doc.get("model")
    if model:
        console.print(Text(f"Model {model['name']} ({model['reason']})", style="dim"))
    for line in doc.get("notes", ()):
        console.print(Text(line, style="dim"))
    console.print(_preemptor_line(doc))
    if wide is not None:
        render_requests(wide, console)
    if doc["placements"]:
        table = names_table("Placements", "pod", "node")
        for row in doc["placements"]:
            table.add_row(row["pod"], row["node"])
        console.print(table)
    if doc["victims"]:
        grouped = any(v["unit"]["kind"] != "Pod" for v in doc["victims"])
        table = names_table("Victims", "pod", "node")
        table.add_column("priority", justify="right", no_wrap=True)
        if grouped:  # a plain pod's unit is itself: the column only says something for groups
            table.add_column("unit", no_wrap=True)
        # "PDB violated" is the plan's pdbViolation flag, the same in every form; -o wide adds
        # the budgets matching the pod by name, which a pod may match without violating any
        table.add_column("PDB violated", no_wrap=True)
        if wide is not None:
            table.add_column("PDBs matching", no_wrap=True)
        for v in doc["victims"]:
            cells: list[Any] = [v["pod"], v["node"], str(v["priority"])]
            if grouped:
                cells.append(v["unit"]["name"] if v["unit"]["kind"] != "Pod" else "-")
            cells.append(Text("yes", style="red") if v["pdbViolation"] else Text("no"))
            if wide is not None:
                cells.append(Text(", ".join(wide.pdbs.get(v["pod"], ())) or "-"))
            table.add_row(*cells)
        console.print(table)
        if grouped:
            console.print(Text(UNIT_LEGEND, style="dim"))
    if doc["terminating"]:
        table = names_table("Waiting for terminating pods", "pod", "node")
        for row in doc["terminating"]:
            table.add_row(row["pod"], row["node"])
        console.print(table)
    if wide is not None:
        render_nodes(wide, console)
    s = doc["summary"]
    verdict = Text.assemble((doc["status"], _STATUS_STYLE.get(doc["status"], "bold")), ": ",
                            doc["reason"])
    if doc["victims"]:  # the reason already counts pods, units and the highest priority
        nodes = "1 node" if s["nodesTouched"] == 1 else f"{s['nodesTouched']} nodes"
        pdbs = s["pdbViolations"]
        verdict.append(f" Victims on {nodes}; "
                       f"{pdbs} PodDisruptionBudget violation{'' if pdbs == 1 else 's'}.")
    console.print(verdict)
    sampled = doc.get("samples")
    if sampled:
        v = sampled["victimPods"]
        console.print(Text(
            f"Over {sampled['count']} seeded tie orders: {v['min']}-{v['max']} victim pods "
            f"(median {v['median']}); {len(sampled['always'])} "
            f"pod{'' if len(sampled['always']) == 1 else 's'} preempted always, "
            f"{len(sampled['sometimes'])} sometimes.", style="bold"))
        for row in sampled["sometimes"][:10]:
            console.print(Text(f"  {row['pod']}: preempted in {row['samples']} of "
                               f"{sampled['count']}", style="yellow"))
    ties = doc.get("ties") or []
    for tie in ties[:5]:
        console.print(Text("Random upstream: " + tie_line(tie), style="yellow"))
    if len(ties) > 5:
        console.print(Text(f"... and {len(ties) - 5} more random choices (see -o json ties)",
                           style="yellow"))
