"""The priority graph as SVG, for check-cycles and audit: an arc diagram.

Profiles are rows, highest scheduling priority on top (then preemption priority, then id), so
the layout is fixed by the numbers alone: the same graph always gives the same picture. An
edge X -> Y (X can preempt Y) bends out on the right when Y is lower down — the ordinary
direction, higher preempts lower — and on the left when Y is higher up or X itself: only a
profile whose preemption priority is below its scheduling priority (a rule breaker) can be
preempted from below, so every arc on the left goes into one, and every cycle uses one.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from wapctl.render.html.page import ALERT, NEUTRAL, arrow_marker, esc, svg_open, svg_text

NEW = "#0072B2"  # blue: edges the change adds (audit)
ROW = 50  # px per profile
BOX_W = 270
BOX_H = 38
MAX_EDGES = 1500  # more edges than this: only the highlighted ones are drawn (said in the caption)
LABEL_CHARS = 40


def _order(profiles: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(profiles, key=lambda p: (-p["schedulingPriority"], -p["preemptionPriority"],
                                           p["profile"]))


def _members(p: dict[str, Any]) -> tuple[str, str]:
    """(short label, full list for the tooltip)."""
    names = [*p["workloads"], *p["pods"], *p["templates"]]
    c = p["counts"]
    total = c["workloads"] + c["pods"] + c["templates"]
    more = total - len(names)
    full = ", ".join(names) + (f" and {more} more" if more > 0 else "")
    short = ", ".join(names[:2])
    if total > 2:
        short += f" +{total - min(2, len(names))}"
    if len(short) > LABEL_CHARS:
        short = short[: LABEL_CHARS - 1] + "…"
    return short or "(no members listed)", full


def _vertex(p: dict[str, Any], x: float, y: float) -> str:
    short, full = _members(p)
    tip = [f"profile {p['profile']} (scheduling {p['schedulingPriority']}, preemption "
           f"{p['preemptionPriority']}, {p['preemptionPolicy']})", f"members: {full}"]
    if p.get("where"):
        tip.append(f"first member at {p['where']}")
    if p["violates"]:
        tip.append("breaks preemption >= scheduling")
    if p["onCycle"]:
        tip.append("on a preemption cycle")
    stroke = ALERT if p["onCycle"] or p["violates"] else "var(--line)"
    dash = ' stroke-dasharray="6 3"' if p["violates"] else ""
    width = 2.5 if p["onCycle"] or p["violates"] else 1
    fill = "rgba(213,94,0,0.13)" if p["onCycle"] else "var(--card)"
    cls = "muted" if p["preemptionPolicy"] == "Never" else ""
    return (f'<g data-key="{esc("profile " + p["profile"])}"><title>{esc(chr(10).join(tip))}'
            f'</title><rect x="{x:g}" y="{y:g}" width="{BOX_W}" height="{BOX_H}" rx="6" '
            f'style="fill:{fill};stroke:{stroke}" stroke-width="{width}"{dash}/>'
            + svg_text(x + 8, y + 15, p["profile"] + ("  ✗ rule" if p["violates"] else ""),
                       weight="600", cls=cls)
            + svg_text(x + 8, y + 30, short, cls="muted") + "</g>")


def _style(e: dict[str, Any], added: Collection[tuple[str, str]],
           removed: Collection[tuple[str, str]]) -> tuple[str, float, str, str]:
    """(colour, width, dash attribute, marker id) of an edge."""
    pair = (e["from"], e["to"])
    if e["onCycle"]:
        return ALERT, 2.6, "", "a-cycle"
    if pair in added:
        return NEW, 2.4, "", "a-new"
    if pair in removed:
        return NEUTRAL, 1.6, ' stroke-dasharray="5 4"', "a-plain"
    return NEUTRAL, 1, ' stroke-opacity="0.55"', "a-plain"


def _change(e: dict[str, Any], added: Collection[tuple[str, str]],
            removed: Collection[tuple[str, str]]) -> str:
    """The tooltip's words for an edge that carries an audit's edge change, else ""."""
    pair = (e["from"], e["to"])
    if pair in added:
        return "; carries members the change lets preempt"
    if pair in removed:
        return "; carries members the change stops preempting"
    return ""


def _arc(e: dict[str, Any], rows: dict[str, int], left: float,
         style: tuple[str, float, str, str], change: str = "") -> str:
    i, j = rows[e["from"]], rows[e["to"]]
    colour, width, dash, marker = style
    y1 = 20 + i * ROW + BOX_H / 2 - 6
    y2 = 20 + j * ROW + BOX_H / 2 + 6
    if j > i:  # downwards: on the right
        x = left + BOX_W
        bulge = 24 + 26 * (j - i) ** 0.85
        d = f"M{x:g},{y1:g} C{x + bulge:.1f},{y1:g} {x + bulge:.1f},{y2:g} {x + 2:g},{y2:g}"
    elif j == i:  # a self-loop: members preempt each other
        x = left
        d = f"M{x:g},{y1:g} C{x - 40:g},{y1 - 14:g} {x - 40:g},{y2 + 14:g} {x - 2:g},{y2:g}"
    else:
        x = left
        y1, y2 = y1 + 12, y2 - 12
        bulge = 24 + 26 * (i - j) ** 0.85
        d = f"M{x:g},{y1:g} C{x - bulge:.1f},{y1:g} {x - bulge:.1f},{y2:g} {x - 2:g},{y2:g}"
    tip = (f"{e['from']} can preempt {e['to']} ({e['preemptorPriority']} > "
           f"{e['victimPriority']})" + ("; on a cycle" if e["onCycle"] else "") + change)
    return (f'<path d="{d}" fill="none" stroke="{colour}" stroke-width="{width}"{dash} '
            f'marker-end="url(#{marker})"><title>{esc(tip)}</title></path>')


def graph_svg(graph: dict[str, Any], *, label: str,
              added: Collection[tuple[str, str]] = (),
              removed: Collection[tuple[str, str]] = ()) -> tuple[str, str]:
    """(the SVG, a caption saying what was left out, or ""). ``graph`` is
    ``extras.graph_picture``; ``added`` / ``removed``: (from, to) profile ids to highlight."""
    profiles = _order(graph["profiles"])
    rows = {p["profile"]: n for n, p in enumerate(profiles)}
    edges = [e for e in graph["edges"] if e["from"] in rows and e["to"] in rows]
    caption = ""
    if len(edges) > MAX_EDGES:
        keep = [e for e in edges if e["onCycle"] or (e["from"], e["to"]) in added
                or (e["from"], e["to"]) in removed or rows[e["to"]] <= rows[e["from"]]]
        caption = (f"{len(edges) - len(keep)} of {len(edges)} edges are not drawn: ordinary "
                   "downward edges (a higher profile preempting a lower one) of a graph this "
                   "dense; the highlighted and upward ones are all here.")
        edges = keep
    span = max((abs(rows[e["to"]] - rows[e["from"]]) for e in edges), default=0)
    up = max((rows[e["from"]] - rows[e["to"]] for e in edges), default=0)
    up = max(up, 0)
    left = 10 + (24 + 26 * up ** 0.85 if up else 0) + 30
    right = 24 + 26 * span ** 0.85 + 20
    width = left + BOX_W + right
    height = 20 + len(profiles) * ROW + 10
    out = [svg_open(width, height, label), "<defs>",
           arrow_marker("a-plain", NEUTRAL), arrow_marker("a-cycle", ALERT),
           arrow_marker("a-new", NEW), "</defs>"]
    ordered = sorted(edges, key=lambda e: (e["onCycle"], (e["from"], e["to"]) in added))
    out += [_arc(e, rows, left, _style(e, added, removed), _change(e, added, removed))
            for e in ordered]
    out += [_vertex(p, left, 20 + n * ROW) for n, p in enumerate(profiles)]
    out.append("</svg>")
    return "".join(out), caption
