"""``wapctl simulate -o html``: the SimulationReport as a page, drawn from the ``-o json``
document alone.

A timeline: steps left to right, one lane per unit (a preemptor, or a pod group or pod that was
preempted), a glyph where a preemptor was tried (its action), arrows down or up to the units it
preempted, marks where victims finished and were requeued, the cycle's steps shaded; then the
final state and every step as a table.
"""

from __future__ import annotations

from typing import Any

from wapctl.render.html.page import (
    ALERT,
    GOOD,
    NEUTRAL,
    arrow_marker,
    esc,
    legend,
    model_line,
    page,
    plural,
    section,
    svg_open,
    svg_text,
    table,
    warnings_list,
)
from wapctl.render.simulate import verdict

PREEMPT = "#E69F00"  # orange diamond: RequiresPreemption
WAIT = "#0072B2"  # blue ring: WaitingForTermination
LANE = 34
LABEL_W = 250
LABEL_CHARS = 34


def lanes(doc: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    """The lanes (units, by first appearance) and each pod's lane."""
    order: dict[str, None] = {}
    pod_lane: dict[str, str] = {}
    for s in doc["steps"]:
        if s["preemptor"] is not None:
            order.setdefault(s["preemptor"]["name"], None)
            for x in s["placements"]:
                pod_lane.setdefault(x["pod"], s["preemptor"]["name"])
        for v in s["victims"]:
            order.setdefault(v["unit"]["name"], None)
            pod_lane.setdefault(v["pod"], v["unit"]["name"])
    for s in doc["steps"]:
        for pod in [f["pod"] for f in s["finished"]] + s["requeued"]:
            lane = pod_lane.setdefault(pod, pod)
            order.setdefault(lane, None)
    return list(order), pod_lane


def _glyph(action: str, x: float, y: float) -> str:
    if action == "Bound":
        return f'<circle cx="{x:g}" cy="{y:g}" r="7" fill="{GOOD}"/>'
    if action == "RequiresPreemption":
        return (f'<path d="M{x:g},{y - 9:g}L{x + 9:g},{y:g}L{x:g},{y + 9:g}L{x - 9:g},{y:g}z" '
                f'fill="{PREEMPT}" stroke="var(--fg)" stroke-width="1"/>')
    if action == "WaitingForTermination":
        return (f'<circle cx="{x:g}" cy="{y:g}" r="6" fill="none" stroke="{WAIT}" '
                f'stroke-width="3"/>')
    return (f'<path d="M{x - 6:g},{y - 6:g}L{x + 6:g},{y + 6:g}M{x + 6:g},{y - 6:g}'
            f'L{x - 6:g},{y + 6:g}" stroke="{ALERT}" stroke-width="3"/>')


def _step_marks(s: dict[str, Any], x: float, ys: dict[str, float],
                pod_lane: dict[str, str]) -> list[str]:
    out = []
    pre = s["preemptor"]
    hit: dict[str, list[str]] = {}
    for v in s["victims"]:
        hit.setdefault(v["unit"]["name"], []).append(v["pod"])
    for unit, pods in hit.items():
        if pre is not None and unit != pre["name"]:
            y1, y2 = ys[pre["name"]], ys[unit]
            off = 10 if y2 > y1 else -10
            out.append(f'<path d="M{x:g},{y1 + off:g}L{x:g},{y2 - off:g}" stroke="{ALERT}" '
                       f'stroke-width="2" marker-end="url(#t-hit)"/>')
        tip = f"step {s['step']}: preempted {', '.join(pods)}"
        out.append(f'<g><title>{esc(tip)}</title><rect x="{x - 8:g}" y="{ys[unit] - 8:g}" '
                   f'width="16" height="16" rx="3" fill="{ALERT}"/>'
                   + svg_text(x, ys[unit] + 4, str(len(pods)), anchor="middle", weight="700")
                   .replace("<text ", '<text style="fill:#fff" ') + "</g>")
    for kind, pods in (("finished", [f["pod"] for f in s["finished"]]),
                       ("requeued", s["requeued"])):
        by_lane: dict[str, list[str]] = {}
        for pod in pods:
            by_lane.setdefault(pod_lane[pod], []).append(pod)
        for lane, names in by_lane.items():
            dx = -14 if kind == "finished" else 14
            tip = f"step {s['step']}: {kind} {', '.join(names)}"
            mark = ("M{0},{1}h8v8h-8z" if kind == "finished" else "M{0},{1}l8,4l-8,4z").format(
                f"{x + dx - 4:g}", f"{ys[lane] - 4:g}")
            fill = NEUTRAL if kind == "finished" else "none"
            out.append(f'<path d="{mark}" fill="{fill}" stroke="{NEUTRAL}" stroke-width="1.5">'
                       f"<title>{esc(tip)}</title></path>")
    if pre is not None:
        tip = f"step {s['step']}: {pre['name']} {s['action']}: {s['reason']}"
        out.append(f"<g><title>{esc(tip)}</title>{_glyph(s['action'], x, ys[pre['name']])}</g>")
    return out


def timeline_svg(doc: dict[str, Any]) -> str:
    names, pod_lane = lanes(doc)
    steps = doc["steps"]
    col = 56 if len(steps) <= 20 else (32 if len(steps) <= 60 else 18)
    width = LABEL_W + col * max(1, len(steps)) + 20
    height = 30 + LANE * max(1, len(names)) + 10
    ys = {n: 30 + LANE * i + LANE / 2 for i, n in enumerate(names)}
    cycle = doc["cycle"]
    members = {m["name"] for m in cycle["members"]} if cycle else set()
    members |= {pod_lane[p] for m in (cycle["members"] if cycle else ()) for p in m["pods"]
                if p in pod_lane}
    cyc_steps = set(cycle["steps"]) if cycle else set()
    out = [svg_open(width, height, "simulation timeline"), "<defs>",
           arrow_marker("t-hit", ALERT), "</defs>"]
    every = 1 if col >= 32 else 5
    for i, s in enumerate(steps):
        x = LABEL_W + col * i
        if s["step"] in cyc_steps:
            out.append(f'<rect x="{x:g}" y="18" width="{col}" height="{height - 18}" '
                       f'fill="rgba(213,94,0,0.14)"><title>cycle step {s["step"]}</title></rect>')
        if s["step"] % every == 0 or every == 1:
            out.append(svg_text(x + col / 2, 14, str(s["step"]), anchor="middle", cls="muted"))
    for n, y in ys.items():
        label = n if len(n) <= LABEL_CHARS else n[: LABEL_CHARS - 1] + "…"
        cls = "alert" if n in members else ""
        out.append(f'<line x1="{LABEL_W - 6}" x2="{width - 10:g}" y1="{y:g}" y2="{y:g}" '
                   f'stroke="var(--line)"/><g><title>{esc(n)}</title>'
                   + svg_text(LABEL_W - 10, y + 4, label, anchor="end",
                              weight="700" if n in members else "").replace(
                                  "<text ", f'<text style="fill:{ALERT}" ' if cls else "<text ")
                   + "</g>")
    for i, s in enumerate(steps):
        out += _step_marks(s, LABEL_W + col * i + col / 2, ys, pod_lane)
    out.append("</svg>")
    return "".join(out)


def _legend() -> str:
    def icon(body: str) -> str:
        return f'<svg width="20" height="20" viewBox="-10 -10 20 20">{body}</svg>'

    return legend([
        (icon(_glyph("Bound", 0, 0)), "bound"),
        (icon(_glyph("RequiresPreemption", 0, 0)), "preempts (victims start terminating)"),
        (icon(_glyph("WaitingForTermination", 0, 0)), "waits for terminating pods"),
        (icon(_glyph("Unschedulable", 0, 0)), "unschedulable (parked)"),
        (icon(f'<rect x="-8" y="-8" width="16" height="16" rx="3" fill="{ALERT}"/>'),
         "preempted here (number of pods)"),
        (icon(f'<path d="M-4,-4h8v8h-8z" fill="{NEUTRAL}"/>'), "victims finished"),
        (icon(f'<path d="M-4,-4l8,4l-8,4z" fill="none" stroke="{NEUTRAL}" stroke-width="1.5"/>'),
         "recreated (requeued)"),
        (icon('<rect x="-9" y="-9" width="18" height="18" fill="rgba(213,94,0,0.3)"/>'),
         "steps of the cycle"),
    ])


def _steps_table(doc: dict[str, Any]) -> str:
    rows = []
    for s in doc["steps"]:
        pre = s["preemptor"]
        rows.append([
            esc(s["step"]), esc(pre["name"]) if pre else "-", esc(s["action"]),
            esc(", ".join(v["pod"] for v in s["victims"])), esc(", ".join(s["nodes"])),
            esc(", ".join(f["pod"] for f in s["finished"])), esc(", ".join(s["requeued"])),
            f'<span class="muted">{esc(s["reason"])}</span>'])
    return section(f"Steps ({len(rows)})", table(
        ["step", "preemptor", "action", "victims", "nodes", "finished", "requeued", "reason"],
        rows))


def _final(doc: dict[str, Any]) -> str:
    f = doc["final"]
    p = f["pods"]
    text = (f"<p>After step {esc(f['step'])}: {esc(p['bound'])} bound, {esc(p['pending'])} "
            f"pending, {esc(p['terminating'])} terminating, {esc(p['completed'])} completed, "
            f"{esc(p['removed'])} removed (not recreated).</p>")
    rows = [[esc(x["name"]), esc(x["kind"]), esc(x["priority"]), esc(x["pods"]),
             esc(x["state"]), esc(x["lastStatus"] or "not tried"),
             f'<span class="muted">{esc(x["lastReason"] or "")}</span>']
            for x in f["preemptors"]]
    left = table(["preemptor", "kind", "priority", "pods", "state", "last status", "reason"],
                 rows) if rows else "<p>No preemptor left in the queue.</p>"
    return section("Final state", text, left)


def _cycle(doc: dict[str, Any]) -> str:
    c = doc["cycle"]
    if c is None:
        return ""
    rows = [[f'<span class="alert">{esc(m["name"])}</span>', esc(m["kind"]),
             esc(m["workload"] or "-"), esc(m["priority"]), esc(m["preemptionPriority"]),
             esc(", ".join(m["pods"]))] for m in c["members"]]
    edges = "".join(f"<li>{esc(e['from'])} preempted {esc(e['to'])} in step {esc(e['step'])}"
                    "</li>" for e in c["edges"])
    return section(f"Cycle ({c['kind']})", table(
        ["member", "kind", "workload", "scheduling", "preemption", "pods"], rows),
        f"<ul>{edges}</ul>" if edges else "")


def simulation_page(doc: dict[str, Any]) -> str:
    """The page (module docstring); ``doc`` is the ``-o json`` document."""
    bad = doc["cycle"] is not None or doc["hitStepLimit"]
    st = doc["settings"]
    word = "CYCLE" if doc["cycle"] else "STOPPED" if bad else "CONVERGED"
    head = (f"<h1>Simulation of the scheduling queue</h1><p><span class=\"badge "
            f"{'alert' if bad else 'good'}\">{word}</span> {esc(verdict(doc))}</p>"
            "<p class=\"muted\">"
            f"{plural(len(doc['steps']), 'step')}; --max-steps {esc(st['maxSteps'])}, requeue "
            f"{'on' if st['requeue'] else 'off'}"
            + (f", namespace {esc(st['namespace'])}" if st["namespace"] else "") + "</p>"
            + model_line(doc.get("model")))
    body = [head, section("Timeline", _legend(),
                          f'<div class="scroll">{timeline_svg(doc)}</div>'),
            _cycle(doc), _final(doc), _steps_table(doc), warnings_list(doc.get("warnings") or [])]
    return page("wapctl simulate", body, doc)
