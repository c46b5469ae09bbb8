"""`wapctl audit` output: the AuditReport document and a Rich table.

The JSON/YAML document (``audit_to_dict``)::

    {"apiVersion": "wapctl/v1", "kind": "AuditReport",
     "risky": true,                    # it introduces a cycle, a violation or a dangling
                                       # reference (exit 1)
     "changes": [<change>, ...],       # sorted by kind, namespace, name
     "edges": {"added": [<edge>, ...], "removed": [<edge>, ...]},
     "lostProtection": [{"victim": <cell>, "newPreemptors": [<cell>, ...]}],
     "cycles": {"introduced": [<cycle>, ...], "fixed": [<cycle>, ...]},
     "violations": {"introduced": [<violation>, ...], "fixed": [<violation>, ...]},
     "plans": [<plan change>, ...],
     "keptOldPriority": [<finding>, ...],   # running pods keeping a changed class's old value
     "danglingReferences": [<warning>, ...],  # references to objects the change removes
     "summary": {...}}

``<change>``: ``{"action": "added|changed|unchanged|deleted", "kind": "PriorityClass",
"namespace": null, "name": "train", "before": {...} | null, "after": {...} | null}`` — before
and after hold the priority-relevant fields: PriorityClass ``value``, ``preemptionPolicy``,
``globalDefault``; Workload ``priorityClassName``, ``preemptionPriorityClassName``; PodGroup
``schedulingPriority``, ``preemptionPriority``, ``preemptionPolicy``; null for other kinds or
when the object does not exist on that side.

``<cell>``: members (pod groups, pods on their own) that share a profile before *and* after::

    {"profileBefore": "300/600", "profileAfter": "1000/600",   # null: absent on that side
     "workloads": ["ml/training"], "podGroups": ["ml/training/workers"], "pods": [],
     "templates": [],                                            # "Kind ns/name[/template]"
     "counts": {"workloads": 1, "podGroups": 1, "pods": 0, "templates": 0}}  # samples <= 10

``<edge>``: ``{"preemptor": <cell>, "victim": <cell>}`` — members of ``preemptor`` may now
preempt (added) or no longer preempt (removed) members of ``victim``.

``<cycle>`` and ``<violation>`` are exactly the CycleReport items (``wapctl.render.cycles``):
introduced ones from the changed snapshot, fixed ones from the original.

``<finding>`` is a CycleReport finding (``wapctl.render.cycles``, rule ``priority-drift``).

``<warning>`` is an entry of ``warnings`` (``MissingPriorityClass``, ``MissingWorkload``,
``MissingPodGroup``) that the change introduces: an object still naming what the change deleted
(``wapctl.audit.dangling_references``).

``<plan change>``: a pending preemptor whose plan status or victims differ::

    {"preemptor": {"kind": "Pod|PodGroup", "name": "ns/name or ns/workload/group"},
     "before": <plan> | null, "after": <plan> | null}    # null: not pending on that side
    <plan> = {"status": "RequiresPreemption", "reason": "...",
              "victims": [{"pod": "ns/name", "node": "node-a"}], "victimCount": 2}

``summary``: ``changes`` counts the objects added, changed or deleted; ``changesIgnored`` the
objects of kinds wapctl does not read (Services, ...: applied, then skipped by the loader);
then counts of everything else above (``edgesAdded`` etc. count all, lists hold at most
``listLimit``), ``cycleCountComplete`` (false: a side had more cycles than were enumerated),
``preemptorsPending`` / ``preemptorsPlanned`` / ``plansTruncated``.

Like the CycleReport, the document names no files, so it does not depend on how the objects
are split over files or ordered.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from wapctl.audit import AuditReport, Cell, ChangeItem, EdgeChange, PlanChange
from wapctl.model import Snapshot
from wapctl.preemption import Plan
from wapctl.render.cycles import (
    API_VERSION,
    cycle_path,
    cycle_to_dict,
    finding_to_dict,
    member_examples,
    violation_to_dict,
)
from wapctl.render.warnings import warnings_to_list

EXAMPLES = 3


# ---- the document --------------------------------------------------------------------------


def _fields(snapshot: Snapshot, item: ChangeItem) -> dict[str, Any] | None:
    ref = item.ref
    if ref.kind == "PriorityClass":
        pc = snapshot.priority_classes.get(ref.name)
        if pc is None:
            return None
        return {
            "value": pc.value,
            "preemptionPolicy": pc.preemption_policy,
            "globalDefault": pc.global_default,
        }
    if ref.kind == "Workload":
        wl = snapshot.workloads.get(f"{ref.namespace}/{ref.name}")
        if wl is None:
            return None
        return {
            "priorityClassName": wl.priority_class_name,
            "preemptionPriorityClassName": wl.preemption_priority_class_name,
        }
    if ref.kind == "PodGroup":
        for group in snapshot.pod_groups.values():
            if group.namespace == ref.namespace and group.name == ref.name:
                return {
                    "schedulingPriority": group.priority,
                    "preemptionPriority": group.preemption_priority,
                    "preemptionPolicy": group.preemption_policy,
                }
    return None


def change_to_dict(report: AuditReport, item: ChangeItem) -> dict[str, Any]:
    return {
        "action": item.action,
        "kind": item.ref.kind,
        "namespace": item.ref.namespace or None,
        "name": item.ref.name,
        "before": _fields(report.before, item),
        "after": _fields(report.after, item),
    }


def cell_to_dict(cell: Cell) -> dict[str, Any]:
    return {
        "profileBefore": cell.before.id if cell.before is not None else None,
        "profileAfter": cell.after.id if cell.after is not None else None,
        "workloads": list(cell.workloads),
        "podGroups": list(cell.pod_groups),
        "pods": list(cell.pods),
        "templates": list(cell.templates),
        "counts": {
            "workloads": cell.workload_count,
            "podGroups": cell.pod_group_count,
            "pods": cell.pod_count,
            "templates": cell.template_count,
        },
    }


def edge_to_dict(edge: EdgeChange) -> dict[str, Any]:
    return {"preemptor": cell_to_dict(edge.preemptor), "victim": cell_to_dict(edge.victim)}


def plan_to_summary(plan: Plan | None, limit: int) -> dict[str, Any] | None:
    if plan is None:
        return None
    return {
        "status": plan.status,
        "reason": plan.reason,
        "victims": [{"pod": v.pod, "node": v.node} for v in plan.victims[:limit]],
        "victimCount": len(plan.victims),
    }


def plan_change_to_dict(change: PlanChange, limit: int) -> dict[str, Any]:
    return {
        "preemptor": {"kind": change.kind, "name": change.key},
        "before": plan_to_summary(change.before, limit),
        "after": plan_to_summary(change.after, limit),
    }


def summary_to_dict(report: AuditReport) -> dict[str, Any]:
    return {
        "changes": sum(1 for c in report.changes if c.action != "unchanged"),
        "changesIgnored": report.changes_ignored,
        "edgesAdded": report.edges_added_count,
        "edgesRemoved": report.edges_removed_count,
        "lostProtection": report.lost_protection_count,
        "cyclesBefore": report.cycles_before.count,
        "cyclesAfter": report.cycles_after.count,
        "cyclesIntroduced": report.cycles_introduced_count,
        "cyclesFixed": report.cycles_fixed_count,
        "cycleCountComplete": report.cycle_comparison_complete,
        "violationsBefore": len(report.violations_before),
        "violationsAfter": len(report.violations_after),
        "violationsIntroduced": len(report.violations_introduced),
        "violationsFixed": len(report.violations_fixed),
        "preemptorsPending": report.preemptors_pending,
        "preemptorsPlanned": report.preemptors_planned,
        "plansTruncated": report.preemptors_planned < report.preemptors_pending,
        "plansChanged": len(report.plans),
        "keptOldPriority": len(report.kept_old_values),
        "danglingReferences": len(report.dangling),
        "listLimit": report.limit,
    }


def audit_to_dict(report: AuditReport) -> dict[str, Any]:
    """The AuditReport document (module docstring), deterministic."""
    return {
        "apiVersion": API_VERSION,
        "kind": "AuditReport",
        "risky": report.risky,
        "changes": [change_to_dict(report, c) for c in report.changes],
        "edges": {
            "added": [edge_to_dict(e) for e in report.edges_added],
            "removed": [edge_to_dict(e) for e in report.edges_removed],
        },
        "lostProtection": [
            {
                "victim": cell_to_dict(lp.victim),
                "newPreemptors": [cell_to_dict(c) for c in lp.new_preemptors],
            }
            for lp in report.lost_protection
        ],
        "cycles": {
            "introduced": [cycle_to_dict(report.graph_after, c) for c in report.cycles_introduced],
            "fixed": [cycle_to_dict(report.graph_before, c) for c in report.cycles_fixed],
        },
        "violations": {
            "introduced": [violation_to_dict(v) for v in report.violations_introduced],
            "fixed": [violation_to_dict(v) for v in report.violations_fixed],
        },
        "plans": [plan_change_to_dict(p, report.limit) for p in report.plans],
        "keptOldPriority": [finding_to_dict(x) for x in report.kept_old_values],
        "danglingReferences": warnings_to_list(report.dangling),
        "summary": summary_to_dict(report),
        "warnings": warnings_to_list(report.before.warnings, report.after.warnings),
        "model": report.model.to_dict() if report.model is not None else None,
    }


# ---- human text ------------------------------------------------------------------------------


def _fields_text(fields: dict[str, Any] | None) -> str:
    if fields is None:
        return "-"
    return ", ".join(f"{k}={v}" for k, v in fields.items() if v is not None and v is not False)


def change_text(report: AuditReport, item: ChangeItem) -> str:
    before, after = _fields(report.before, item), _fields(report.after, item)
    if item.action == "changed" and before is not None and after is not None:
        diff = [f"{k} {before[k]} → {after[k]}" for k in before if before[k] != after.get(k)]
        return ", ".join(diff) or "no priority field changed"
    if item.action == "added":
        return _fields_text(after)
    if item.action == "deleted":
        return _fields_text(before)
    return ""


def cell_label(cell: Cell, examples: int = EXAMPLES) -> str:
    """``ml/training (300/600 → 1000/600)``: a few members and the profile change."""
    if cell.before == cell.after:
        profile = cell.after.id if cell.after is not None else "-"
    elif cell.before is None:
        profile = f"new {cell.after.id}" if cell.after is not None else "-"
    elif cell.after is None:
        profile = f"deleted {cell.before.id}"
    else:
        profile = f"{cell.before.id} → {cell.after.id}"
    return f"{member_examples(cell, examples)} ({profile})"


def _plan_text(plan: Plan | None) -> str:
    if plan is None:
        return "not pending"
    victims = ", ".join(v.pod for v in plan.victims[:EXAMPLES])
    if len(plan.victims) > EXAMPLES:
        victims += f" +{len(plan.victims) - EXAMPLES} more"
    return f"{plan.status}: {victims}" if victims else plan.status


PROFILE_LEGEND = ("Profiles read SCHEDULING/PREEMPTION priority (1000/100: schedules at 1000, "
                  "is preempted as 100); A → B: before → after the change.")


def _table(title: str, *columns: str) -> Table:
    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left")
    for column in columns:
        table.add_column(column, overflow="fold")  # long names wrap, never cut off
    return table


def _count(shown: int, total: int) -> str:
    return f"{total}" if shown == total else f"{shown} of {total}"


def _render_kept(report: AuditReport, console: Console) -> None:
    """Running pods that keep the old priority: one short row per pod, each reason (shared by
    the pods of a class re-created alike) written once under the table, numbered. The JSON
    keeps each finding's whole message."""
    reasons: dict[str, int] = {}
    table = _table(f"Running pods that keep the old priority ({len(report.kept_old_values)})",
                   "pod", "keeps", "why")
    for x in report.kept_old_values:
        # "Pod NS/NAME keeps priority N: <reason>" (drift.kept_old_values); names have no ": "
        head, _, reason = x.message.partition(": ")
        number = reasons.setdefault(reason, len(reasons) + 1)
        table.add_row(Text(x.object), Text(head.removeprefix(f"{x.object} keeps ")),
                      Text(f"[{number}]"))
    console.print(table)
    for reason, number in reasons.items():
        console.print(Text(f"[{number}] {reason}"))


def render_table(report: AuditReport, console: Console) -> None:
    """The report for people: the change, edges, protection, cycles, violations, plans."""
    s = summary_to_dict(report)
    _render_change(report, s, console)
    _render_graph_changes(report, s, console)
    if report.kept_old_values:
        _render_kept(report, console)
    if report.dangling:
        _render_dangling(report, console)
    _render_verdict(report, s, console)


def _render_change(report: AuditReport, s: dict[str, Any], console: Console) -> None:
    """The change's table: each object with its action and priority fields."""
    ignored = f"; {s['changesIgnored']} of other kinds ignored" if s["changesIgnored"] else ""
    objects = "1 object" if s["changes"] == 1 else f"{s['changes']} objects"
    table = _table(f"Change ({objects}{ignored})", "action", "object", "priority fields")
    for item in report.changes:
        table.add_row(item.action, Text(item.ref.spec), Text(change_text(report, item)))
    console.print(table)


def _render_graph_changes(report: AuditReport, s: dict[str, Any], console: Console) -> None:
    """The tables of edges added and removed, lost protection, cycles and rule violations."""
    for edges, total, word in (
        (report.edges_added, s["edgesAdded"], "now may preempt"),
        (report.edges_removed, s["edgesRemoved"], "no longer may preempt"),
    ):
        if total:
            table = _table(
                f"Preemption edges: who {word} whom ({_count(len(edges), total)})",
                "preemptor",
                "victim",
            )
            for e in edges:
                table.add_row(Text(cell_label(e.preemptor)), Text(cell_label(e.victim)))
            console.print(table)
    if report.lost_protection:
        table = _table(
            f"Lost protection ({_count(len(report.lost_protection), s['lostProtection'])})",
            "can now be preempted",
            "by",
        )
        for lp in report.lost_protection:
            by = "; ".join(cell_label(c) for c in lp.new_preemptors)
            table.add_row(Text(cell_label(lp.victim)), Text(by))
        console.print(table)
    for cycles, graph, total, word in (
        (report.cycles_introduced, report.graph_after, s["cyclesIntroduced"], "introduced"),
        (report.cycles_fixed, report.graph_before, s["cyclesFixed"], "fixed"),
    ):
        if total:
            table = _table(f"Cycles {word} ({_count(len(cycles), total)})", "#", "cycle")
            for i, c in enumerate(cycles, 1):
                table.add_row(str(i), Text(cycle_path(graph, c)))
            console.print(table)
    for violations, word in (
        (report.violations_introduced, "introduced"),
        (report.violations_fixed, "fixed"),
    ):
        if violations:
            table = _table(f"Rule violations {word} ({len(violations)})", "object", "profile")
            for v in violations:
                table.add_row(Text(f"{v.kind} {v.name}"), v.profile.id)
            console.print(table)


def _render_verdict(report: AuditReport, s: dict[str, Any], console: Console) -> None:
    """The plans that change, the notes on what was left out, and the RISKY/OK line."""
    planned = f"{s['preemptorsPlanned']} of {s['preemptorsPending']} pending preemptors planned"
    if report.plans:
        table = _table(
            f"Plans that change ({len(report.plans)}; {planned})", "preemptor", "before", "after"
        )
        for p in report.plans:
            table.add_row(
                Text(f"{p.kind} {p.key}"), Text(_plan_text(p.before)), Text(_plan_text(p.after))
            )
        console.print(table)
    else:
        console.print(f"No plan changes ({planned}).")
    if s["plansTruncated"]:
        console.print(
            f"[yellow]Only the first {s['preemptorsPlanned']} preemptors in queue "
            "order were planned (--max-plans).[/]"
        )
    if not report.cycle_comparison_complete:
        console.print("[yellow]Too many cycles to compare them all; counts are minimums.[/]")
    if report.edges_added or report.edges_removed or report.cycles_introduced \
            or report.cycles_fixed or report.lost_protection:
        console.print(Text(PROFILE_LEGEND, style="dim"))
    label = "[red]RISKY[/]" if report.risky else "[green]OK[/]"
    console.print(f"{label}: {verdict(report.risky, s)}")


def verdict(risky: bool, summary: Mapping[str, Any]) -> str:
    """Why the change is risky, or that it is not: the reasons with a count above zero among
    the summary's (``summary_to_dict``) introduced cycles, introduced rule violations and
    dangling references, which are what ``AuditReport.risky`` reads. The table's last line and
    the html page's badge both say this."""
    if not risky:
        return "introduces no preemption cycle and no rule violation"
    introduced = [f"{n} {what}(s)" for n, what in (
        (summary["cyclesIntroduced"], "cycle"), (summary["violationsIntroduced"], "rule violation"),
    ) if n]
    reasons = ["introduces " + " and ".join(introduced)] if introduced else []
    if summary["danglingReferences"]:
        reasons.append(f"leaves {summary['danglingReferences']} reference(s) dangling")
    return "; ".join(reasons)


def _render_dangling(report: AuditReport, console: Console) -> None:
    table = _table(f"References the change leaves dangling ({len(report.dangling)})",
                   "object", "field", "warning")
    for w in report.dangling:
        table.add_row(Text(w.object), Text(w.field or "-"), Text(w.message))
    console.print(table)
