"""``wapctl check-cycles -o html``: the CycleReport as a page.

The graph (every profile and "can preempt" edge, ``extras.graph_picture``: the JSON document
lists only the cycles) drawn by ``graph.graph_svg``; then the report's own cycles, violations,
findings and new victims, each with its one-line fix and where it is written (file:line, as
``--format github`` annotates them).
"""

from __future__ import annotations

from typing import Any

from wapctl.render.html.graph import NEW, graph_svg
from wapctl.render.html.page import (
    ALERT,
    NEUTRAL,
    esc,
    legend,
    model_line,
    page,
    plural,
    section,
    swatch,
    table,
    warnings_list,
)


def graph_legend(*, audit: bool = False) -> str:
    items = [(swatch("var(--card)"), "profile: scheduling/preemption priority"),
             (swatch("rgba(213,94,0,0.13)", f"border:2px solid {ALERT}"), "on a cycle"),
             (swatch("var(--card)", f"border:2px dashed {ALERT}"),
              "breaks preemption ≥ scheduling (✗ rule)"),
             (swatch(ALERT), "edge of a listed cycle"),
             (swatch(NEUTRAL), "X → Y: X can preempt Y")]
    if audit:
        items += [(swatch(NEW), "carries members the change lets preempt (red on a cycle)"),
                  (swatch("var(--bg)", f"border:2px dashed {NEUTRAL}"),
                   "carries members the change stops preempting (red on a cycle)")]
    return legend(items) + (
        '<p class="muted">Profiles are rows, highest scheduling priority on top. Arcs on the '
        "right go down (higher preempts lower); arcs on the left go up or loop, and only a "
        "rule breaker can be preempted from below. Hover a box or an arc for its members, "
        "file:line and priorities.</p>")


def member_names(item: dict[str, Any]) -> str:
    names = [*item["workloads"], *item["pods"], *item["templates"]]
    c = item["counts"]
    more = c["workloads"] + c["pods"] + c["templates"] - len(names)
    return ", ".join(names) + (f" +{more} more" if more > 0 else "")


def cycle_rows(cycles: list[dict[str, Any]], where: list[str | None]) -> list[list[str]]:
    rows = []
    for i, c in enumerate(cycles):
        path = " → ".join(f"{m['profile']} [{member_names(m)}]" for m in c["members"])
        path += f" → {c['members'][0]['profile']}"
        rows.append([esc(i + 1), f'<span class="alert">{esc(path)}</span>', esc(c["fix"]),
                     f'<span class="mono">{esc(where[i] or "-")}</span>'])
    return rows


def violation_rows(violations: list[dict[str, Any]], where: list[str | None]) -> list[list[str]]:
    return [[f"{esc(v['kind'])} <span class=\"mono\">{esc(v['name'])}</span>",
             esc(v["profile"]), "yes" if v["inCycle"] else "no", esc(v["message"]),
             esc(v["fix"]), f'<span class="mono">{esc(w or "-")}</span>']
            for v, w in zip(violations, where, strict=True)]


def _findings(doc: dict[str, Any], where: list[str | None]) -> str:
    rows = [[esc(x["rule"]), f'<span class="mono">{esc(x["object"])}</span>',
             esc(x["message"]), esc(x["fix"]), f'<span class="mono">{esc(w or "-")}</span>']
            for x, w in zip(doc["findings"], where, strict=True)]
    if not rows:
        return ""
    return section(f"Other findings ({len(rows)})",
                   table(["rule", "object", "finding", "fix", "where"], rows))


def _new_victims(doc: dict[str, Any]) -> str:
    if not doc["newVictims"]:
        return ""
    rows = [[esc(e["profile"]), esc(", ".join(e["members"])),
             esc(", ".join(e["victims"]) + (f" +{e['counts']['victims'] - len(e['victims'])}"
                                            f" more" if e["counts"]["victims"] > len(e["victims"])
                                            else ""))]
            for e in doc["newVictims"]]
    return section("Running workloads these manifests can preempt",
                   table(["profile", "manifests' members", "can preempt (running)"], rows))


def _header(doc: dict[str, Any]) -> str:
    s = doc["summary"]
    clean = not doc["cycles"] and not doc["violations"] and not doc["findings"] \
        and s["cycles"] == 0
    count = f"{s['cycles']}{'' if s['cyclesCountComplete'] else '+'}"
    verdict = ('<span class="badge good">OK</span> no preemption cycles, no rule violations'
               if clean else
               f'<span class="badge alert">FAIL</span> {esc(count)} '
               f"cycle{'' if count == '1' else 's'}, "
               f"{plural(s['violations'], 'rule violation')}, "
               f"{plural(s['findings'], 'other finding')}")
    scope = f" (namespace {s['namespace']})" if s["namespace"] else ""
    return (f"<h1>Priority graph and preemption cycles{esc(scope)}</h1><p>{verdict}</p>"
            f"<p class=\"muted\">{plural(s['profiles'], 'profile')}, "
            f"{plural(s['edges'], 'preemption edge')}; {plural(s['workloads'], 'workload')}, "
            f"{plural(s['podGroups'], 'pod group')}, {plural(s['pods'], 'standalone pod')}, "
            f"{plural(s['templates'], 'pod template')}.</p>" + model_line(doc.get("model")))


def cycles_page(doc: dict[str, Any], picture: dict[str, Any]) -> str:
    """The page (module docstring): ``doc`` is the ``-o json`` document, ``picture``
    ``extras.cycles_picture``."""
    where = picture["where"]
    n_c, n_v = len(doc["cycles"]), len(doc["violations"])
    svg, caption = graph_svg(picture["graph"], label="priority graph")
    body = [_header(doc), section("The priority graph", graph_legend(),
                                  f'<div class="scroll">{svg}</div>',
                                  f'<p class="muted">{esc(caption)}</p>' if caption else "")]
    if doc["cycles"]:
        total = doc["summary"]["cycles"]
        title = f"Preemption cycles ({n_c}" + (f" shortest of {total}" if total != n_c else "")
        body.append(section(title + ")", table(["#", "cycle", "fix", "where"],
                                               cycle_rows(doc["cycles"], where[:n_c]))))
    if doc["violations"]:
        body.append(section(
            f"Rule violations: preemption priority below scheduling priority ({n_v})",
            table(["object", "profile", "on cycle", "why", "fix", "where"],
                  violation_rows(doc["violations"], where[n_c:n_c + n_v]))))
    body += [_findings(doc, where[n_c + n_v:]), _new_victims(doc),
             warnings_list(doc.get("warnings") or [])]
    return page("wapctl check-cycles", body, doc)
