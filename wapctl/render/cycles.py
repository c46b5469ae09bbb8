"""`wapctl check-cycles` output: the CycleReport document, a Rich table, GitHub annotations.

The JSON/YAML document (``report_to_dict``)::

    {"apiVersion": "wapctl/v1", "kind": "CycleReport",
     "cycles": [{"length": 2, "members": [<vertex>, ...], "edges": [<edge>, ...]}],
     "violations": [<violation>, ...],
     "summary": {...}}

``<vertex>`` — one priority profile on the cycle, in cycle order (the first is the smallest)::

    {"profile": "1000/100",                  # scheduling/preemption, "/Never" appended if so
     "schedulingPriority": 1000, "preemptionPriority": 100,
     "preemptionPolicy": "PreemptLowerPriority",     # or "Never"
     "workloads": ["ns/a"],                   # sorted samples, at most 10 names each
     "podGroups": ["ns/a/workers"],
     "pods": ["ns/web-0"],                    # pods on their own (standalone pods)
     "templates": ["JobSet ns/a/workers"],    # controllers' pod templates (Kind ns/name[/tpl])
     "counts": {"workloads": 1, "podGroups": 1, "pods": 1, "groupPods": 4, "templates": 1}}

``counts`` are complete; ``groupPods`` counts the pods of the listed pod groups.

``<edge>`` — one step of the cycle, from each vertex to the next and back to the first::

    {"from": "1000/100", "to": "500/500",
     "preemptorPriority": 1000,               # scheduling priority of "from"
     "victimPriority": 500}                   # preemption priority of "to": strictly lower

``<violation>`` — a Workload (per distinct profile of its pod groups) or a pod on its own whose
preemption priority is below its scheduling priority (KEP-5710 wants preemption >= scheduling)::

    {"kind": "Workload",                      # or "Pod"
     "name": "ns/a", "namespace": "ns",
     "profile": "1000/100", "schedulingPriority": 1000, "preemptionPriority": 100,
     "preemptionPolicy": "PreemptLowerPriority",
     "priorityClassName": "high",             # null when not set
     "preemptionPriorityClassName": "low",    # null when not set (always for a Pod)
     "podGroups": ["ns/a/workers"],           # [] for a Pod
     "inCycle": true,                         # its profile lies on some cycle
     "message": "human sentence",
     "fix": "raise ns/a's preemption priority to >= 1000"}   # one line

``kind`` may also be a controller kind (``Workload`` for a podGroupTemplate not yet
instantiated). Each ``<cycle>`` also has ``"fix"``: what to change to break it.

``newVictims`` — with ``--cluster`` only (else ``[]``): per profile holding the manifests'
members, the cluster's running pod groups and pods they can preempt (samples of at most 10)::

    {"profile": "1000/100", "schedulingPriority": 1000, "preemptionPriority": 100,
     "preemptionPolicy": "PreemptLowerPriority",
     "members": ["JobSet ml/training/workers", "ml/training/workers"],
     "victims": ["batch/report-0", "web/frontend-0"],
     "counts": {"members": 2, "victims": 2}}

``findings`` — everything else that is wrong with priorities (``wapctl.findings``)::

    {"rule": "unknown-priority-class",       # or priority-drift, podgroup-priority-divergence,
                                             # kueue-priority-divergence,
                                             # unknown-kueue-priority-class
     "object": "Deployment web/api", "namespace": "web",
     "field": "spec.template.spec.priorityClassName",   # null when not one field
     "message": "human sentence", "fix": "one line"}

``summary``::

    {"profiles": 3, "edges": 4,               # the whole graph
     "cycles": 2,                             # cycles found (with --namespace: touching it)
     "cyclesListed": 2,                       # len(cycles), at most --max-cycles
     "cyclesCountComplete": true,             # false: counting stopped, "cycles" is a minimum
     "profilesInCycles": 2, "violations": 1, "findings": 0,
     "workloads": 2, "podGroups": 2, "pods": 1,   # members of the graph, cluster-wide
     "templates": 0,                          # controllers' pod templates in the graph
     "namespace": null,                       # the --namespace filter, if any
     "outsideManifests": null}                # with --cluster: {"cycles", "violations",
                                              # "findings"} of the cluster alone, left out

Source files are deliberately absent: the document must be byte-identical however the same
objects are split over files or ordered. The table and the GitHub format name the files.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from wapctl.errors import Source
from wapctl.findings import Finding
from wapctl.graph import (
    Cycle,
    CycleReport,
    Edge,
    Exposure,
    PriorityGraph,
    Profile,
    Vertex,
    Violation,
)
from wapctl.locate import Locator
from wapctl.model import NEVER, LoadWarning
from wapctl.render.warnings import warnings_to_list

if TYPE_CHECKING:
    from wapctl.audit import Cell

API_VERSION = "wapctl/v1"
EXAMPLES = 3  # member names shown per vertex in human-readable text


# ---- the document --------------------------------------------------------------------------


def profile_fields(profile: Profile) -> dict[str, Any]:
    return {
        "profile": profile.id,
        "schedulingPriority": profile.scheduling,
        "preemptionPriority": profile.preemption,
        "preemptionPolicy": profile.policy,
    }


def vertex_to_dict(vertex: Vertex) -> dict[str, Any]:
    return {
        **profile_fields(vertex.profile),
        "workloads": list(vertex.workloads),
        "podGroups": list(vertex.pod_groups),
        "pods": list(vertex.pods),
        "templates": list(vertex.templates),
        "counts": {
            "workloads": vertex.workload_count,
            "podGroups": vertex.pod_group_count,
            "pods": vertex.pod_count,
            "groupPods": vertex.group_pod_count,
            "templates": vertex.template_count,
        },
    }


def edge_to_dict(edge: Edge) -> dict[str, Any]:
    return {
        "from": edge.source.id,
        "to": edge.target.id,
        "preemptorPriority": edge.source.scheduling,
        "victimPriority": edge.target.preemption,
    }


def cycle_to_dict(graph: PriorityGraph, cycle: Cycle) -> dict[str, Any]:
    return {
        "length": len(cycle.vertices),
        "members": [vertex_to_dict(graph.vertices[v]) for v in cycle.vertices],
        "edges": [edge_to_dict(e) for e in cycle.edges],
        "fix": cycle_fix(graph, cycle),
    }


def first_member(vertex: Vertex) -> str:
    """The first listed member's name: a Workload, else a pod, else a template."""
    for names in (vertex.workloads, vertex.pods, vertex.templates):
        if names:
            return names[0]
    return vertex.profile.id


def violation_fix(v: Violation) -> str:
    p = v.profile
    return (
        f"raise {v.name}'s preemption priority to >= {p.scheduling} (a "
        f"preemptionPriorityClassName of value >= {p.scheduling}, or none), or lower its "
        f"scheduling priority to <= {p.preemption}"
    )


def cycle_fix(graph: PriorityGraph, cycle: Cycle) -> str:
    """Every rule-breaking profile on the cycle must go: without one no cycle can close."""
    parts = []
    for profile in cycle.vertices:
        if profile.violates:
            vertex = graph.vertices[profile]
            more = vertex.workload_count + vertex.pod_count + vertex.template_count - 1
            who = first_member(vertex)
            if more > 0:
                who += f" (and {_plural(more, 'more member')} of {profile.id})"
            parts.append(f"raise the preemption priority of {who} to >= {profile.scheduling}")
    return "; ".join(parts) or "no rule-breaking profile on it (a bug: please report it)"


def violation_message(v: Violation) -> str:
    def cls(name: str | None) -> str:
        return f" (class {name})" if name else ""

    p = v.profile
    text = (
        f"{v.kind} {v.name}: preemption priority {p.preemption}"
        f"{cls(v.preemption_priority_class_name)} is below its scheduling priority "
        f"{p.scheduling}{cls(v.priority_class_name)}; KEP-5710 requires preemption priority "
        ">= scheduling priority"
    )
    if v.in_cycle:
        return text + "; it is on a preemption cycle"
    if p.policy == NEVER:
        return text + "; its preemptionPolicy is Never, so it closes no cycle today"
    return text + "; it closes no cycle yet"


def violation_to_dict(v: Violation) -> dict[str, Any]:
    return {
        "kind": v.kind,
        "name": v.name,
        "namespace": v.namespace,
        **profile_fields(v.profile),
        "priorityClassName": v.priority_class_name,
        "preemptionPriorityClassName": v.preemption_priority_class_name,
        "podGroups": list(v.pod_groups),
        "inCycle": v.in_cycle,
        "message": violation_message(v),
        "fix": violation_fix(v),
    }


def exposure_to_dict(e: Exposure) -> dict[str, Any]:
    return {
        **profile_fields(e.profile),
        "members": list(e.members),
        "victims": list(e.victims),
        "counts": {"members": e.member_count, "victims": e.victim_count},
    }


def finding_to_dict(x: Finding) -> dict[str, Any]:
    return {
        "rule": x.rule,
        "object": x.object,
        "namespace": x.namespace,
        "field": x.field,
        "message": x.message,
        "fix": x.fix,
    }


def summary_to_dict(report: CycleReport) -> dict[str, Any]:
    vertices = report.graph.vertices.values()
    return {
        "profiles": len(report.graph.vertices),
        "edges": report.graph.edge_count,
        "cycles": report.cycle_count,
        "cyclesListed": len(report.cycles),
        "cyclesCountComplete": report.cycle_count_complete,
        "profilesInCycles": len(report.graph.cyclic_profiles()),
        "violations": len(report.violations),
        "findings": len(report.findings),
        "workloads": len(
            {m.workload for m in report.graph.members.values() if m.kind == "PodGroup"}
        ),
        "podGroups": sum(v.pod_group_count for v in vertices),
        "pods": sum(v.pod_count for v in vertices),
        "templates": sum(v.template_count for v in vertices),
        "namespace": report.namespace,
        "outsideManifests": None
        if report.scope is None
        else dict(zip(("cycles", "violations", "findings"), report.outside, strict=True)),
    }


def report_to_dict(report: CycleReport, warnings: Iterable[LoadWarning] = ()) -> dict[str, Any]:
    """The CycleReport document (module docstring), deterministic; ``warnings``: the
    snapshot's load warnings."""
    return {
        "apiVersion": API_VERSION,
        "kind": "CycleReport",
        "cycles": [cycle_to_dict(report.graph, c) for c in report.cycles],
        "violations": [violation_to_dict(v) for v in report.violations],
        "findings": [finding_to_dict(x) for x in report.findings],
        "newVictims": [exposure_to_dict(e) for e in report.exposures],
        "summary": summary_to_dict(report),
        "warnings": warnings_to_list(warnings),
    }


# ---- human text ------------------------------------------------------------------------------


def member_examples(members: Vertex | Cell, examples: int = EXAMPLES) -> str:
    """``ns/a, ns/b +3 more``: the first ``examples`` members (workloads, then pods, then
    templates) of a vertex or an audit cell, and how many are left out."""
    names = list(members.workloads[:examples])
    names += list(members.pods[: max(0, examples - len(names))])
    names += list(members.templates[: max(0, examples - len(names))])
    total = members.workload_count + members.pod_count + members.template_count
    more = f" +{total - len(names)} more" if total > len(names) else ""
    return f"{', '.join(names)}{more}"


def vertex_label(vertex: Vertex, examples: int = EXAMPLES) -> str:
    """``1000/100 [ns/a, ns/b +3 more]``: the profile and a few of its members."""
    return f"{vertex.profile.id} [{member_examples(vertex, examples)}]"


def cycle_path(graph: PriorityGraph, cycle: Cycle) -> str:
    labels = [vertex_label(graph.vertices[v]) for v in cycle.vertices]
    return " → ".join([*labels, cycle.vertices[0].id])


def cycle_message(graph: PriorityGraph, cycle: Cycle) -> str:
    if len(cycle.vertices) == 1:
        return (
            f"preemption cycle inside one profile: {cycle_path(graph, cycle)}: its members "
            "schedule above their own preemption priority, so they can preempt each other forever"
        )
    return (
        f"preemption cycle of {len(cycle.vertices)} profiles: {cycle_path(graph, cycle)}: each "
        "can preempt the next, so they can preempt each other forever"
    )


def count_text(report: CycleReport) -> str:
    n = report.cycle_count
    cycles = f"{n}{'' if report.cycle_count_complete else '+'} cycle{'s' if n != 1 else ''}"
    m = len(report.violations)
    text = f"{cycles}, {m} rule violation{'s' if m != 1 else ''}"
    if report.findings:
        k = len(report.findings)
        text += f", {k} other finding{'s' if k != 1 else ''}"
    return text


def _names(names: tuple[str, ...], total: int, examples: int = EXAMPLES) -> str:
    shown = min(examples, len(names))
    more = f" +{total - shown} more" if total > shown else ""
    return ", ".join(names[:shown]) + more


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


TABLE_FINDINGS = 50  # findings (and their fixes) shown in the table; -o json|sarif list all

LEGEND = (
    "How to read: a profile is written scheduling/preemption — 1000/100 schedules (preempts "
    "others) at 1000 and is a victim at 100; /Never: it never preempts. X → Y: members of X can "
    "preempt members of Y (X's scheduling priority is above Y's preemption priority); a cycle "
    "comes back to its start, so its members can preempt each other forever."
)
fix_title = "How to fix:"


def fix_lines(report: CycleReport) -> list[str]:
    """One line per finding, in the order of the tables: cycles, violations, the rest."""
    lines = [f"cycle {i}: {cycle_fix(report.graph, c)}" for i, c in enumerate(report.cycles, 1)]
    lines += [f"{v.kind} {v.name}: {violation_fix(v)}" for v in report.violations]
    lines += [f"{x.object}: {x.fix}" for x in report.findings]
    return lines


def _more_findings(report: CycleReport) -> str | None:
    hidden = len(report.findings) - TABLE_FINDINGS
    if hidden <= 0:
        return None
    plural = "s" if hidden != 1 else ""
    return f"... and {hidden} more finding{plural} (-o json or -o sarif lists all)"


def render_table(
    report: CycleReport, console: Console, locator: Locator | None = None
) -> None:
    """The report for people: graph size, cycles, violations, findings, one fix per finding,
    what the notation means, a verdict line."""
    loc = locator or Locator()

    def where(source: Source | None, field: str | None) -> str:
        if source is None:
            return ""
        line = loc.line_of(source, field)
        return f"{source.file}:{line}" if line is not None else source.describe()

    s = summary_to_dict(report)
    scope = f" (namespace {report.namespace})" if report.namespace else ""
    console.print(
        Text(
            f"Priority graph{scope}: {_plural(s['profiles'], 'profile')}, "
            f"{_plural(s['edges'], 'preemption edge')}; {_plural(s['workloads'], 'workload')}, "
            f"{_plural(s['podGroups'], 'pod group')}, {_plural(s['pods'], 'standalone pod')}"
            + (f", {_plural(s['templates'], 'pod template')}" if s["templates"] else "")
        )
    )
    if report.cycles:
        _render_cycles(report, console)
    if report.violations:
        _render_violations(report, console, where)
    if report.findings:
        _render_findings(report, console, where)
    if report.exposures:
        _render_exposures(report, console)
    if not report.clean:
        _render_fixes(report, console)
    if report.cycles:
        console.print(Text(LEGEND), style="dim")
    if report.clean:
        console.print("[green]OK[/]: no preemption cycles, no rule violations")
    else:
        console.print(f"[red]FAIL[/]: {count_text(report)}")


Where = Callable[[Source | None, str | None], str]


def _render_cycles(report: CycleReport, console: Console) -> None:
    shown = len(report.cycles)
    total = f"{report.cycle_count}{'' if report.cycle_count_complete else '+'}"
    title = (
        f"Preemption cycles ({shown})"
        if str(shown) == total
        else (f"Preemption cycles (the {shown} shortest of {total})")
    )
    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("#", justify="right")
    table.add_column(Text("cycle: profile (scheduling/preemption) [members] → ..."),
                     overflow="fold")
    for i, cycle in enumerate(report.cycles, 1):
        table.add_row(str(i), Text(cycle_path(report.graph, cycle)))
    console.print(table)


def _render_violations(report: CycleReport, console: Console, where: Where) -> None:
    table = Table(
        title=f"Rule violations: preemption priority below scheduling priority "
        f"({len(report.violations)})",
        box=box.SIMPLE_HEAD,
        title_justify="left",
    )
    table.add_column("object", overflow="fold")  # long names wrap, never cut off
    table.add_column("sched", justify="right")
    table.add_column("preempt", justify="right")
    table.add_column("classes", overflow="fold")
    table.add_column("on cycle")
    table.add_column("where", overflow="fold")
    for v in report.violations:
        classes = f"{v.priority_class_name or '-'} / {v.preemption_priority_class_name or '-'}"
        on_cycle = "yes" if v.in_cycle else ("no (Never)" if v.profile.policy == NEVER else "no")
        table.add_row(
            Text(f"{v.kind} {v.name}"),
            str(v.profile.scheduling),
            str(v.profile.preemption),
            Text(classes),
            on_cycle,
            Text(where(v.source, violation_field(v.kind, v.preemption_priority_class_name
                                                 is not None))),
        )
    console.print(table)


def _render_findings(report: CycleReport, console: Console, where: Where) -> None:
    table = Table(
        title=f"Other findings ({len(report.findings)})",
        box=box.SIMPLE_HEAD,
        title_justify="left",
    )
    table.add_column("rule", overflow="fold")
    table.add_column("finding", overflow="fold", ratio=3)
    table.add_column("where", overflow="fold", ratio=1)
    for x in report.findings[:TABLE_FINDINGS]:
        table.add_row(x.rule, Text(x.message), Text(where(x.source, x.field)))
    console.print(table)
    more = _more_findings(report)
    if more:
        console.print(Text(more))


def _render_exposures(report: CycleReport, console: Console) -> None:
    table = Table(
        title="Running workloads these manifests can preempt",
        box=box.SIMPLE_HEAD,
        title_justify="left",
    )
    table.add_column("manifests' members", overflow="fold")
    table.add_column("can preempt (running)", overflow="fold")
    for e in report.exposures:
        table.add_row(
            Text(f"{e.profile.id} [{_names(e.members, e.member_count)}]"),
            Text(_names(e.victims, e.victim_count)),
        )
    console.print(table)


def _render_fixes(report: CycleReport, console: Console) -> None:
    console.print(Text(fix_title))
    fixes = Table.grid(padding=(0, 1))  # wrapped lines hang under their text, not the dash
    fixes.add_column(justify="right", width=3)
    fixes.add_column(overflow="fold")
    lines = fix_lines(report)
    shown = len(lines) - max(0, len(report.findings) - TABLE_FINDINGS)
    for line in lines[:shown]:
        fixes.add_row("-", Text(line))
    console.print(fixes)
    more = _more_findings(report)
    if more:
        console.print(Text(more))


# ---- GitHub Actions annotations ----------------------------------------------------------------


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(
    level: str, title: str, message: str, source: Source | None, line: int | None = None
) -> str:
    """One workflow command: ``::error file=<path>,line=<n>,title=<title>::<message>``.

    ``file`` is given only for a real file (not ``<stdin>``, not a cluster URL), with ``line``
    (else the line where the object starts, when the reader knows it); without any line the
    document number goes into the message, as annotations know lines, not documents."""
    props = []
    if source is not None and not source.file.startswith("<") and "://" not in source.file:
        props.append(f"file={_escape_property(source.file)}")
        if line is None:
            line = source.located_line()
        where = source.describe(line=False)[len(source.file) + 2 :]  # "document 3[, item 1]"
        if line is not None:
            props.append(f"line={line}")
        elif where:
            message += f" ({where})"
    elif source is not None:
        message += f" ({source.describe()})"
    props.append(f"title={_escape_property(title)}")
    return f"::{level} {','.join(props)}::{_escape_data(message)}"


def violation_field(kind: str, has_preemption_class: bool) -> str:
    """The field a rule violation is annotated at: the preemption class when it is set."""
    if kind == "Pod":
        return "spec.priorityClassName"
    return "spec.preemptionPriorityClassName" if has_preemption_class else "spec"


def cycle_location(report: CycleReport, cycle: Cycle) -> tuple[Source | None, str]:
    """Where a cycle is annotated: its first rule-breaking profile's first member (every cycle
    has one), at its preemption class."""
    breakers = [v for v in cycle.vertices if v.violates] or list(cycle.vertices)
    vertex = report.graph.vertices[breakers[0]]
    kind = "Workload" if vertex.workloads else ("Pod" if vertex.pods else "Template")
    return vertex.source, violation_field(kind, True)


def locations(
    report: CycleReport, locator: Locator | None = None
) -> list[tuple[str, str, str, Source | None, int | None]]:
    """Every finding as (rule id, title, message, source, line), in report order."""
    from wapctl import findings as f

    loc = locator or Locator()
    out = []
    for cycle in report.cycles:
        source, field = cycle_location(report, cycle)
        out.append(
            (f.CYCLE, "KEP-5710 preemption cycle", cycle_message(report.graph, cycle), source,
             loc.line_of(source, field))
        )
    for v in report.violations:
        field = violation_field(v.kind, v.preemption_priority_class_name is not None)
        out.append(
            (f.RULE, "KEP-5710 priority rule", violation_message(v), v.source,
             loc.line_of(v.source, field))
        )
    for x in report.findings:
        out.append(
            (x.rule, f.RULES[x.rule], f"{x.message}. Fix: {x.fix}", x.source,
             loc.line_of(x.source, x.field))
        )
    return out


def github_lines(report: CycleReport, locator: Locator | None = None) -> list[str]:
    """One ``::error`` per cycle (at the file of its first rule-breaking profile's first
    member: every cycle has one), per violation and per other finding, on its line, then a
    plain summary line."""
    lines = [
        annotation("error", title, message, source, line)
        for _, title, message, source, line in locations(report, locator)
    ]
    verdict = "no preemption cycles, no rule violations" if report.clean else count_text(report)
    lines.append(f"wapctl check-cycles: {verdict}")
    return lines
