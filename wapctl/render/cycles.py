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
     "counts": {"workloads": 1, "podGroups": 1, "pods": 1, "groupPods": 4}}

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
     "message": "human sentence"}

``summary``::

    {"profiles": 3, "edges": 4,               # the whole graph
     "cycles": 2,                             # cycles found (with --namespace: touching it)
     "cyclesListed": 2,                       # len(cycles), at most --max-cycles
     "cyclesCountComplete": true,             # false: counting stopped, "cycles" is a minimum
     "profilesInCycles": 2, "violations": 1,
     "workloads": 2, "podGroups": 2, "pods": 1,   # members of the graph, cluster-wide
     "namespace": null}                       # the --namespace filter, if any

Source files are deliberately absent: the document must be byte-identical however the same
objects are split over files or ordered. The table and the GitHub format name the files.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from wapctl.errors import Source
from wapctl.graph import Cycle, CycleReport, Edge, PriorityGraph, Profile, Vertex, Violation
from wapctl.model import NEVER, LoadWarning
from wapctl.render.warnings import warnings_to_list

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
        "counts": {
            "workloads": vertex.workload_count,
            "podGroups": vertex.pod_group_count,
            "pods": vertex.pod_count,
            "groupPods": vertex.group_pod_count,
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
    }


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
        "workloads": len(
            {m.workload for m in report.graph.members.values() if m.kind == "PodGroup"}
        ),
        "podGroups": sum(v.pod_group_count for v in vertices),
        "pods": sum(v.pod_count for v in vertices),
        "namespace": report.namespace,
    }


def report_to_dict(report: CycleReport, warnings: Iterable[LoadWarning] = ()) -> dict[str, Any]:
    """The CycleReport document (module docstring), deterministic; ``warnings``: the
    snapshot's load warnings."""
    return {
        "apiVersion": API_VERSION,
        "kind": "CycleReport",
        "cycles": [cycle_to_dict(report.graph, c) for c in report.cycles],
        "violations": [violation_to_dict(v) for v in report.violations],
        "summary": summary_to_dict(report),
        "warnings": warnings_to_list(warnings),
    }


# ---- human text ------------------------------------------------------------------------------


def vertex_label(vertex: Vertex, examples: int = EXAMPLES) -> str:
    """``1000/100 [ns/a, ns/b +3 more]``: the profile and a few of its members."""
    names = list(vertex.workloads[:examples])
    names += list(vertex.pods[: max(0, examples - len(names))])
    total = vertex.workload_count + vertex.pod_count
    more = f" +{total - len(names)} more" if total > len(names) else ""
    return f"{vertex.profile.id} [{', '.join(names)}{more}]"


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
    return f"{cycles}, {m} rule violation{'s' if m != 1 else ''}"


def _where(source: Source | None) -> str:
    return source.describe() if source is not None else ""


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


def render_table(report: CycleReport, console: Console) -> None:
    """The report for people: graph size, cycles, violations, a verdict line."""
    s = summary_to_dict(report)
    scope = f" (namespace {report.namespace})" if report.namespace else ""
    console.print(
        Text(
            f"Priority graph{scope}: {_plural(s['profiles'], 'profile')}, "
            f"{_plural(s['edges'], 'preemption edge')}; {_plural(s['workloads'], 'workload')}, "
            f"{_plural(s['podGroups'], 'pod group')}, {_plural(s['pods'], 'standalone pod')}"
        )
    )
    if report.cycles:
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
    if report.violations:
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
            cycle = "yes" if v.in_cycle else ("no (Never)" if v.profile.policy == NEVER else "no")
            table.add_row(
                Text(f"{v.kind} {v.name}"),
                str(v.profile.scheduling),
                str(v.profile.preemption),
                Text(classes),
                cycle,
                Text(_where(v.source)),
            )
        console.print(table)
    if report.clean:
        console.print("[green]OK[/]: no preemption cycles, no rule violations")
    else:
        console.print(f"[red]FAIL[/]: {count_text(report)}")


# ---- GitHub Actions annotations ----------------------------------------------------------------


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(level: str, title: str, message: str, source: Source | None) -> str:
    """One workflow command: ``::error file=<path>,title=<title>::<message>``.

    ``file`` (and ``line`` where the reader knows it) is given only for a real file (not
    ``<stdin>``, not a cluster URL); the document number goes into the message, as annotations
    know lines, not documents."""
    props = []
    if source is not None and not source.file.startswith("<") and "://" not in source.file:
        props.append(f"file={_escape_property(source.file)}")
        line = source.located_line()
        if line is not None:
            props.append(f"line={line}")
        where = source.describe(line=False)[len(source.file) + 2 :]  # "document 3[, item 1]"
        if where:
            message += f" ({where})"
    elif source is not None:
        message += f" ({source.describe()})"
    props.append(f"title={_escape_property(title)}")
    return f"::{level} {','.join(props)}::{_escape_data(message)}"


def github_lines(report: CycleReport) -> list[str]:
    """One ``::error`` per cycle (at the file of its first rule-breaking profile's first
    member: every cycle has one) and per violation, then a plain summary line."""
    lines = []
    for cycle in report.cycles:
        breakers = [v for v in cycle.vertices if v.violates] or list(cycle.vertices)
        source = report.graph.vertices[breakers[0]].source
        lines.append(
            annotation(
                "error", "KEP-5710 preemption cycle", cycle_message(report.graph, cycle), source
            )
        )
    for v in report.violations:
        lines.append(annotation("error", "KEP-5710 priority rule", violation_message(v), v.source))
    verdict = "no preemption cycles, no rule violations" if report.clean else count_text(report)
    lines.append(f"wapctl check-cycles: {verdict}")
    return lines
