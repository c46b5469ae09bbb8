"""The numbers a picture needs that the ``-o json`` document does not carry, taken from where
the other outputs take them (nothing here decides anything about scheduling):

- plan: the ``-o wide`` numbers (``wapctl.render.plan_wide``: free resources before -> after on
  the nodes the plan uses, the PDBs of each victim) with each node's allocatable, and, for the
  overview, every node's used share of the resources the preemptor requests (the same
  ``free_on`` figures, the planner's accounting, on all nodes);
- check-cycles and audit: the whole priority graph (``-o dot`` / ``-o mermaid`` draw it from
  the same report), its vertices and edges in the CycleReport's own shapes
  (``wapctl.render.cycles.vertex_to_dict`` / ``edge_to_dict``), and where each vertex's first
  member and each finding is written (file:line, as the table and ``--format github`` say);
  for audit also the profile edges that carry the edges it adds and removes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from wapctl.graph import Cycle, CycleReport, Edge, PriorityGraph
from wapctl.locate import Locator
from wapctl.model import Snapshot
from wapctl.preemption import Plan
from wapctl.render.cycles import edge_to_dict, locations, vertex_to_dict
from wapctl.render.plan_wide import WideDetails, free_on, planner_state

if TYPE_CHECKING:
    from wapctl.audit import AuditReport

OVERVIEW_FROM = 25  # clusters with more nodes than this also get the heat map of every node


def _share(allocatable: int, free: int) -> float | None:
    """Used share of a resource, rounded (3 digits); None when the node has none of it."""
    if allocatable <= 0:
        return None if free >= 0 else 1.0
    return round((allocatable - free) / allocatable, 3)


def plan_picture(snapshot: Snapshot, plan: Plan, wide: WideDetails) -> dict[str, Any]:
    """The plan page's extra numbers (module docstring); ``wide`` is ``wide_details``."""
    nodes = [{"name": n.name, "allocatable": n.allocatable, "freeBefore": n.before,
              "freeAfter": n.after} for n in wide.nodes]
    picture: dict[str, Any] = {
        "resources": list(wide.resources),
        "requests": [[key, req] for key, req in wide.requests],
        "nodes": nodes,
        "pdbs": {pod: list(names) for pod, names in sorted(wide.pdbs.items())},
        "overview": None,
    }
    if len(snapshot.nodes) > OVERVIEW_FROM:
        resources = tuple(r for r in wide.resources if r != "pods") or ("pods",)
        names = sorted(snapshot.nodes)
        free = free_on(planner_state(snapshot, plan), names, resources)
        cells = []
        for name in names:
            alloc = snapshot.nodes[name].allocatable
            cells.append([name, [_share(alloc.get(r, 0), free[name][r]) for r in resources]])
        picture["overview"] = {"resources": list(resources), "nodes": cells}
    return picture


def _where(locator: Locator, source: Any) -> str | None:
    if source is None:
        return None
    line = locator.line_of(source)
    return f"{source.file}:{line}" if line is not None else str(source.describe())


def graph_picture(graph: PriorityGraph, cycles: Iterable[Cycle],
                  locator: Locator | None = None) -> dict[str, Any]:
    """Every vertex and edge of ``graph``; ``onCycle`` marks the vertices on any cycle and the
    edges of the listed ``cycles``; ``where`` is the first member's file:line."""
    loc = locator or Locator()
    cyclic = graph.cyclic_profiles()
    cycle_edges = {(e.source, e.target) for c in cycles for e in c.edges}
    return {
        "profiles": [
            {**vertex_to_dict(v), "onCycle": p in cyclic, "violates": p.violates,
             "where": _where(loc, v.source)}
            for p, v in graph.vertices.items()
        ],
        "edges": [
            {**edge_to_dict(Edge(s, t)), "onCycle": (s, t) in cycle_edges}
            for s, t in graph.edges
        ],
    }


def audit_picture(report: AuditReport) -> dict[str, Any]:
    """audit: both graphs, and the [from, to] profile ids of the edges that carry the edges
    the audit adds (on the graph after the change) and removes (before it): the JSON's
    ``edgesAdded`` / ``edgesRemoved``, all of them."""
    return {
        "before": graph_picture(report.graph_before, report.cycles_before.cycles),
        "after": graph_picture(report.graph_after, report.cycles_after.cycles),
        "added": sorted([s.id, t.id] for s, t in report.profile_edges_added),
        "removed": sorted([s.id, t.id] for s, t in report.profile_edges_removed),
    }


def cycles_picture(report: CycleReport) -> dict[str, Any]:
    """check-cycles: the graph, and the file:line of every finding in report order (cycles,
    violations, the others), as ``--format github`` annotates them."""
    loc = Locator()
    where: list[str | None] = []
    for _, _, _, source, line in locations(report, loc):
        if source is None:
            where.append(None)
        else:
            where.append(f"{source.file}:{line}" if line is not None else source.describe())
    return {"graph": graph_picture(report.graph, report.cycles, loc), "where": where}
