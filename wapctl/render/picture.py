"""`check-cycles -o dot` and `-o mermaid`: the priority graph as a picture.

Nodes are the profiles (``scheduling/preemption``), labelled with a few members; an edge
``X -> Y`` says members of X can preempt members of Y (X's scheduling priority is strictly
above Y's preemption priority) and is labelled with the two numbers. Highlighted:

- profiles on a preemption cycle: red, filled;
- edges of the listed cycles: red and thick;
- profiles that break KEP-5710's rule (preemption < scheduling): a thick dashed border and
  "breaks preemption >= scheduling" in the label;
- profiles that never preempt (``/Never``): grey text.

Node ids are ``p0``, ``p1``, ... in profile order, so the same report gives the same text.
Graphviz renders DOT (``dot -Tsvg``); Mermaid renders in GitHub Markdown and PR comments
(put the output in a ```mermaid block).
"""

from __future__ import annotations

from wapctl.graph import CycleReport, Profile, Vertex
from wapctl.model import NEVER

EXAMPLES = 3  # members shown per node
LEGEND = (
    "profile = scheduling/preemption priority; X -> Y: X can preempt Y "
    "(X scheduling > Y preemption); red: on a preemption cycle; dashed border: breaks "
    "preemption >= scheduling"
)


def _members(vertex: Vertex) -> list[str]:
    names = [*vertex.workloads, *vertex.pods, *vertex.templates][:EXAMPLES]
    total = vertex.workload_count + vertex.pod_count + vertex.template_count
    if total > len(names):
        names.append(f"+{total - len(names)} more")
    return names


def _lines(vertex: Vertex) -> list[str]:
    lines = [vertex.profile.id, *_members(vertex)]
    if vertex.profile.violates:
        lines.append("breaks preemption >= scheduling")
    return lines


def _ids(report: CycleReport) -> dict[Profile, str]:
    return {p: f"p{i}" for i, p in enumerate(report.graph.vertices)}


def _cycle_edges(report: CycleReport) -> set[tuple[Profile, Profile]]:
    return {(e.source, e.target) for c in report.cycles for e in c.edges}


def _edges(report: CycleReport) -> list[tuple[Profile, Profile]]:
    return sorted(report.graph.graph.edges())


def _dot_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def dot(report: CycleReport) -> str:
    """Graphviz DOT text (module docstring)."""
    ids = _ids(report)
    cyclic = report.graph.cyclic_profiles()
    on_cycle = _cycle_edges(report)
    out = [
        "digraph wapctl {",
        "  rankdir=LR;",
        f'  label="{_dot_escape(LEGEND)}";',
        "  labelloc=b;",
        '  node [shape=box, style="rounded", fontname="Helvetica"];',
        '  edge [fontname="Helvetica", fontsize=10];',
    ]
    for profile, vertex in report.graph.vertices.items():
        label = "\\n".join(_dot_escape(line) for line in _lines(vertex))
        attrs = [f'label="{label}"']
        styles = ["rounded"]
        if profile in cyclic:
            attrs += ["color=red", 'fillcolor="#fde0e0"']
            styles.append("filled")
        if profile.violates:
            attrs.append("penwidth=3")
            styles.append("dashed")
        if profile.policy == NEVER:
            attrs.append("fontcolor=gray40")
        attrs.insert(1, f'style="{",".join(styles)}"')
        out.append(f"  {ids[profile]} [{', '.join(attrs)}];")
    for source, target in _edges(report):
        label = f"{source.scheduling} > {target.preemption}"
        attrs = [f'label="{label}"']
        if (source, target) in on_cycle:
            attrs += ["color=red", "penwidth=2.5"]
        else:
            attrs.append("color=gray50")
        out.append(f"  {ids[source]} -> {ids[target]} [{', '.join(attrs)}];")
    out.append("}")
    return "\n".join(out) + "\n"


def _mermaid_escape(text: str) -> str:
    return text.replace("&", "#amp;").replace('"', "#quot;").replace("<", "#lt;").replace(
        ">", "#gt;"
    )


def mermaid(report: CycleReport) -> str:
    """Mermaid flowchart text (module docstring)."""
    ids = _ids(report)
    cyclic = report.graph.cyclic_profiles()
    on_cycle = _cycle_edges(report)
    out = ["flowchart LR", f"  %% {LEGEND}"]
    for profile, vertex in report.graph.vertices.items():
        label = "<br/>".join(_mermaid_escape(line) for line in _lines(vertex))
        out.append(f'  {ids[profile]}["{label}"]')
    red_links = []
    for n, (source, target) in enumerate(_edges(report)):
        label = f"{source.scheduling} #gt; {target.preemption}"
        out.append(f'  {ids[source]} -->|"{label}"| {ids[target]}')
        if (source, target) in on_cycle:
            red_links.append(str(n))
    out += [
        "  classDef cycle fill:#fde0e0,stroke:#c00,stroke-width:2px",
        "  classDef violation stroke:#c00,stroke-width:4px,stroke-dasharray:6 3",
        "  classDef never color:#666",
    ]
    for cls, members in (
        ("cycle", [p for p in report.graph.vertices if p in cyclic]),
        ("violation", [p for p in report.graph.vertices if p.violates]),
        ("never", [p for p in report.graph.vertices if p.policy == NEVER]),
    ):
        if members:
            out.append(f"  class {','.join(ids[p] for p in members)} {cls}")
    if red_links:
        out.append(f"  linkStyle {','.join(red_links)} stroke:#c00,stroke-width:3px")
    return "\n".join(out) + "\n"
