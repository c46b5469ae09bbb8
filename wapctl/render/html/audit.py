"""``wapctl audit -o html``: the AuditReport as a page.

The priority graph before and after the change side by side (``extras.graph_picture`` of each
side: the JSON document lists only what changed); the profile edges that carry the edges the
audit adds are blue on the after side, those that carry the edges it removes dashed on the
before side (red, like every edge of a cycle, when on one); a profile edge that is only
relabelled (its members still preempt the same members) is not marked; then the report's changes,
edges, lost protection, cycles and violations introduced or fixed, the references left
dangling, and the plans that change, victims side by side. The badge's words are the table's
verdict (``wapctl.render.audit.verdict``).
"""

from __future__ import annotations

import json
from typing import Any

from wapctl.render.audit import verdict
from wapctl.render.html.cycles import graph_legend, member_names, violation_rows
from wapctl.render.html.graph import graph_svg
from wapctl.render.html.page import (
    esc,
    model_line,
    page,
    plural,
    section,
    table,
    warnings_list,
)


def _graphs(doc: dict[str, Any], picture: dict[str, Any]) -> str:
    """Both graphs; the profile edges that carry the audit's edge diff (``picture["added"]``,
    ``picture["removed"]``: the same edges the JSON counts) are marked, nothing else."""
    s = doc["summary"]
    added = {(a, b) for a, b in picture["added"]}
    removed = {(a, b) for a, b in picture["removed"]}
    panels = []
    for title, graph, kwargs in (("Before", picture["before"], {"removed": removed}),
                                 ("After", picture["after"], {"added": added})):
        svg, caption = graph_svg(graph, label=f"priority graph {title.lower()}", **kwargs)
        panels.append(f'<div style="min-width:0"><h3>{title} the change</h3>'
                      f'<div class="scroll">{svg}</div>'
                      + (f'<p class="muted">{esc(caption)}</p>' if caption else "") + "</div>")
    note = (f'<p class="muted">The change adds {plural(s["edgesAdded"], "preemption edge")} '
            f'and removes {s["edgesRemoved"]} (who may preempt whom, member by member: the '
            f"edge tables below). They lie on {plural(len(added), 'profile edge')} of the "
            f"graph after the change and {len(removed)} of the graph before it. A profile "
            "edge whose numbers changed while its members may still preempt the same members "
            "is not a change, and is not marked.</p>")
    return section("The priority graph, before and after", graph_legend(audit=True), note,
                   '<div style="display:flex;flex-wrap:wrap;gap:24px">' + "".join(panels)
                   + "</div>")


def _cell(cell: dict[str, Any]) -> str:
    b, a = cell["profileBefore"], cell["profileAfter"]
    profile = (a or "-") if b == a else (f"new {a}" if b is None else
                                         f"deleted {b}" if a is None else f"{b} → {a}")
    return f"{esc(member_names(cell))} <span class=\"muted\">({esc(profile)})</span>"


def _fields(fields: dict[str, Any] | None) -> str:
    """``value=1000, globalDefault=false``: the JSON's fields as the JSON spells them."""
    if fields is None:
        return "-"
    return esc(", ".join(f"{k}={v if isinstance(v, str) else json.dumps(v)}"
                         for k, v in fields.items()))


def _changes(doc: dict[str, Any]) -> str:
    rows = [[esc(c["action"]), esc(c["kind"]),
             f'<span class="mono">{esc((c["namespace"] + "/") if c["namespace"] else "")}'
             f'{esc(c["name"])}</span>', _fields(c["before"]), _fields(c["after"])]
            for c in doc["changes"]]
    s = doc["summary"]
    unchanged = len(rows) - s["changes"]
    count = "; ".join([str(len(rows))] + ([f"{unchanged} unchanged"] if unchanged else [])
                      + ([f"{s['changesIgnored']} of other kinds ignored"]
                         if s["changesIgnored"] else []))
    return section(f"Objects in the change ({count})",
                   table(["action", "kind", "name", "before", "after"], rows)) if rows else ""


def _count(shown: int, total: int) -> str:
    """``3`` when all are listed, ``3, the first 1 listed`` when the JSON's list is cut."""
    return f"{total}" if shown == total else f"{total}, the first {shown} listed"


def _edges(doc: dict[str, Any]) -> str:
    s = doc["summary"]
    out = []
    for key, count, title in (("added", s["edgesAdded"], "can now preempt"),
                              ("removed", s["edgesRemoved"], "can no longer preempt")):
        rows = [[_cell(e["preemptor"]), _cell(e["victim"])] for e in doc["edges"][key]]
        if rows:
            out.append(section(f"Edges {key}: {_count(len(rows), count)}",
                               table(["preemptor", title], rows)))
    rows = [[_cell(lp["victim"]), "<br>".join(_cell(c) for c in lp["newPreemptors"])]
            for lp in doc["lostProtection"]]
    if rows:
        out.append(section(f"Lost protection ({_count(len(rows), s['lostProtection'])})",
                           table(["victim", "new preemptors"], rows)))
    return "".join(out)


def _cycles(doc: dict[str, Any]) -> str:
    out = []
    s = doc["summary"]
    for key, cls, total in (("introduced", "alert", s["cyclesIntroduced"]),
                            ("fixed", "good", s["cyclesFixed"])):
        cycles = doc["cycles"][key]
        rows = []
        for i, c in enumerate(cycles, 1):
            path = " → ".join(f"{m['profile']} [{member_names(m)}]" for m in c["members"])
            rows.append([esc(i), f'<span class="{cls}">{esc(path)} → '
                         f"{esc(c['members'][0]['profile'])}</span>", esc(c["fix"])])
        if rows:
            out.append(section(f"Cycles {key} ({_count(len(rows), total)})",
                               table(["#", "cycle", "fix"], rows)))
        violations = doc["violations"][key]
        if violations:
            rows = [r[:5] for r in violation_rows(violations, [None] * len(violations))]
            out.append(section(f"Rule violations {key} ({len(violations)})",
                               table(["object", "profile", "on cycle", "why", "fix"], rows)))
    return "".join(out)


def _side(plan: dict[str, Any] | None, other: dict[str, Any] | None, mark: str) -> str:
    if plan is None:
        return '<span class="muted">not pending</span>'
    theirs = {v["pod"] for v in other["victims"]} if other else set()
    chips = "".join(
        f'<span class="chip{" " + mark if v["pod"] not in theirs else ""}" '
        f'title="{esc(v["pod"] + " on " + v["node"])}">{esc(v["pod"])}</span>'
        for v in plan["victims"])
    more = plan["victimCount"] - len(plan["victims"])
    return (f"<b>{esc(plan['status'])}</b> <span class=\"muted\">{esc(plan['reason'])}</span>"
            f'<div class="chips">{chips}'
            + (f'<span class="muted">+{more} more</span>' if more > 0 else "") + "</div>")


def _plans(doc: dict[str, Any]) -> str:
    if not doc["plans"]:
        return ""
    rows = [[f'{esc(p["preemptor"]["kind"])} <span class="mono">'
             f'{esc(p["preemptor"]["name"])}</span>',
             _side(p["before"], p["after"], "gone"), _side(p["after"], p["before"], "new")]
            for p in doc["plans"]]
    return section(
        f"Plans that change ({len(rows)})",
        '<p class="muted">Victims only before the change are dashed; victims only after it '
        "have a vermillion border.</p>", table(["preemptor", "before", "after"], rows))


def _kept(doc: dict[str, Any]) -> str:
    rows = [[f'<span class="mono">{esc(x["object"])}</span>', esc(x["message"]), esc(x["fix"])]
            for x in doc["keptOldPriority"]]
    return section(f"Running pods keeping the old priority ({len(rows)})",
                   table(["object", "finding", "fix"], rows)) if rows else ""


def _header(doc: dict[str, Any]) -> str:
    s = doc["summary"]
    badge = ('<span class="badge alert">RISKY</span>' if doc["risky"] else
             '<span class="badge good">OK</span>')
    facts = (f"{plural(s['changes'], 'object')} changed; edges +{s['edgesAdded']} "
             f"-{s['edgesRemoved']}; cycles {s['cyclesBefore']} → {s['cyclesAfter']}; rule "
             f"violations {s['violationsBefore']} → {s['violationsAfter']}; "
             f"{plural(s['danglingReferences'], 'reference')} left dangling; "
             f"{plural(s['plansChanged'], 'plan')} changed of {s['preemptorsPlanned']} "
             f"planned ({s['preemptorsPending']} pending).")
    if not s["cycleCountComplete"]:
        facts += " Too many cycles to compare them all; the cycle counts are minimums."
    if s["plansTruncated"]:
        facts += (f" Only the first {s['preemptorsPlanned']} pending preemptors in queue order "
                  "were planned (--max-plans).")
    return (f"<h1>Audit of a priority change</h1><p>{badge} the change "
            f"{esc(verdict(doc['risky'], s))}</p><p class=\"muted\">{esc(facts)}"
            f"</p>" + model_line(doc.get("model")))


def _dangling(doc: dict[str, Any]) -> str:
    rows = [[f'<span class="mono">{esc(w["object"])}</span>', esc(w["field"] or "-"),
             esc(w["message"])] for w in doc["danglingReferences"]]
    return section(f"References the change leaves dangling ({len(rows)})",
                   '<p class="muted">Objects that still name an object the change deletes; '
                   "each one makes the change risky.</p>",
                   table(["object", "field", "warning"], rows)) if rows else ""


def audit_page(doc: dict[str, Any], picture: dict[str, Any]) -> str:
    """The page (module docstring): ``doc`` is the ``-o json`` document, ``picture`` holds
    ``before`` and ``after`` (``extras.graph_picture``) and ``added`` / ``removed``, the
    [from, to] profile ids of the edges that carry the edges the change adds / removes."""
    body = [_header(doc), _graphs(doc, picture), _changes(doc), _cycles(doc), _dangling(doc),
            _plans(doc), _edges(doc), _kept(doc), warnings_list(doc.get("warnings") or [])]
    return page("wapctl audit", body, doc)
