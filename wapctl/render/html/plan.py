"""``wapctl plan -o html``: the PreemptionPlan as a page.

Drawn from the ``-o json`` document (every name, status, victim, placement, tie and sample
count on the page is that document's) and the ``-o wide`` numbers it lacks (``extras.plan_picture``:
resources before -> after on the nodes used, the PDBs of each victim, every node's load for the
overview). Nodes the plan uses are cards: capacity bars before and after, the victims coloured by
unit (a pod group preempted as one keeps its colour on every node), the preemptor's pods placed
there, and the terminating pods waited for, apart.
"""

from __future__ import annotations

from typing import Any

from wapctl.render.html.page import (
    ALERT,
    GOOD,
    NEUTRAL,
    esc,
    heat_colour,
    legend,
    model_line,
    page,
    plural,
    section,
    svg_open,
    swatch,
    table,
    unit_colour,
    warnings_list,
)
from wapctl.render.plan import tie_line
from wapctl.render.plan_wide import fmt_amount

_STATUS_CLASS = {"Schedulable": "good", "Unschedulable": "alert"}
CELL = 11  # heat map square, px
OUTLINE = "#E69F00"  # orange: the nodes the plan uses, on the blue heat map
CARD_FILTER_FROM = 12  # cards above this get a filter box


def unit_keys(doc: dict[str, Any]) -> dict[str, int]:
    """Each victim pod group (kind/name) and its colour index, in the order the victims list
    them; a pod preempted alone is its own unit and is drawn grey (``unit_fill``)."""
    keys: dict[str, int] = {}
    for v in doc["victims"]:
        if v["unit"]["kind"] != "Pod":
            keys.setdefault(_unit_key(v), len(keys))
    return keys


def unit_fill(key: str, keys: dict[str, int]) -> str:
    return unit_colour(keys[key]) if key in keys else NEUTRAL


def _unit_key(victim: dict[str, Any]) -> str:
    return f"{victim['unit']['kind']}/{victim['unit']['name']}"


def _header(doc: dict[str, Any], note: str | None) -> str:
    p = doc["preemptor"]
    who = f"{p['namespace']}/{p['name']}" + (f"/{p['podGroup']}" if p["podGroup"] else "")
    details = [f"priority {p['priority']}", f"preemptionPolicy {p['preemptionPolicy']}"]
    if p["minCount"] is not None:
        details.append(f"minCount {p['minCount']}")
    status = doc["status"]
    out = [f"<h1>Preemption plan for {esc(p['kind'])} <span class=\"mono\">{esc(who)}</span>"
           "</h1>",
           f"<p class=\"muted\">{esc(', '.join(details))}</p>",
           f"<p><span class=\"badge {_STATUS_CLASS.get(status, '')}\">{esc(status)}</span> "
           f"{esc(doc['reason'])}</p>"]
    if note:
        out.append(f'<p class="muted">{esc(note)}</p>')
    out.append(model_line(doc.get("model")))
    out += [f'<p class="muted">{esc(line)}</p>' for line in doc.get("notes", ())]
    s = doc["summary"]
    if doc["victims"]:
        out.append(f"<p>{plural(s['victimPods'], 'victim pod')} in "
                   f"{plural(s['victimUnits'], 'unit')} on {plural(s['nodesTouched'], 'node')}, "
                   f"highest victim priority {esc(s['maxVictimPriority'])}; "
                   f"<span class=\"{'alert' if s['pdbViolations'] else ''}\">"
                   f"{plural(s['pdbViolations'], 'PodDisruptionBudget violation')}</span>.</p>")
    return "".join(out)


def _legend(doc: dict[str, Any]) -> str:
    items = [(swatch("var(--bar)"), "used before the plan"),
             (swatch("var(--bar2)"), "used after it"),
             (swatch(ALERT), "more than allocatable"),
             (swatch("var(--bg)", f"border:2px solid {GOOD};border-radius:8px"),
              "preemptor's pod placed"),
             (swatch("var(--bg)", f"border:2px solid {ALERT};border-radius:8px"),
              "victim whose eviction violates a PDB"),
             (swatch("var(--bg)", f"border:2px dashed {NEUTRAL};border-radius:8px"),
              "terminating pod waited for (not deleted again)")]
    return legend(items)


UNITS_LISTED = 30  # pod groups named in the legend (the victims table names every unit)


def _units_legend(doc: dict[str, Any], keys: dict[str, int]) -> str:
    if not doc["victims"]:
        return ""
    counts: dict[str, int] = {}
    nodes: dict[str, set[str]] = {}
    for v in doc["victims"]:
        counts[_unit_key(v)] = counts.get(_unit_key(v), 0) + 1
        nodes.setdefault(_unit_key(v), set()).add(v["node"])
    items = []
    for key, i in list(keys.items())[:UNITS_LISTED]:
        kind, name = key.split("/", 1)
        items.append((swatch(unit_colour(i)), f"{kind} {name}: {plural(counts[key], 'pod')} "
                      f"on {plural(len(nodes[key]), 'node')}"))
    if len(keys) > UNITS_LISTED:
        items.append(("", f"+{len(keys) - UNITS_LISTED} more pod groups (victims table)"))
    alone = sum(1 for v in doc["victims"] if v["unit"]["kind"] == "Pod")
    if alone:
        items.append((swatch(NEUTRAL), f"{plural(alone, 'pod')} preempted alone"))
    return ('<p class="muted">Victims are coloured by the pod group preempted as one: a group '
            "keeps its colour on every node (colours repeat after seven groups; hover a victim "
            "to outline its whole unit).</p>" + legend(items))


def _amount(resource: str, n: int) -> str:
    """CPUs in cores (``31.15``), so before and after read in one unit; else ``fmt_amount``."""
    if resource == "cpu":
        return f"{n / 1000:.3f}".rstrip("0").rstrip(".")
    return fmt_amount(resource, n)


def _bar(resource: str, node: dict[str, Any]) -> str:
    alloc = node["allocatable"][resource]
    rows = []
    for label, free, cls in (("before", node["freeBefore"][resource], ""),
                             ("after", node["freeAfter"][resource], " after")):
        used = alloc - free
        share = used / alloc if alloc > 0 else (1.0 if used > 0 else 0.0)
        over = " over" if free < 0 else ""
        width = min(100.0, max(0.0, share * 100))
        text = (f"{resource} {label}: {_amount(resource, used)} of "
                f"{_amount(resource, alloc)} used")
        rows.append(f'<span class="muted" title="{esc(text)}">{esc(resource)} {label}</span>'
                    f'<div class="track" title="{esc(text)}"><div class="fill{cls}{over}" '
                    f'style="width:{width:.1f}%"></div></div>')
    alloc_text = _amount(resource, alloc)
    before = _amount(resource, alloc - node["freeBefore"][resource])
    after = _amount(resource, alloc - node["freeAfter"][resource])
    return (f'<div class="bar">{"".join(rows)}</div><div class="muted mono" '
            f'style="font-size:11px;margin-bottom:4px">{esc(resource)} used {esc(before)} → '
            f"{esc(after)} of {esc(alloc_text)}</div>")


def _victim_chip(v: dict[str, Any], keys: dict[str, int], pdbs: dict[str, list[str]]) -> str:
    key = _unit_key(v)
    pdb = ""
    names = pdbs.get(v["pod"], [])
    if v["pdbViolation"]:
        pdb = f" <b class=\"alert\" title=\"{esc(', '.join(names) or 'PDB')} violated\">PDB</b>"
    title = f"victim {v['pod']}, priority {v['priority']}, unit {v['unit']['kind']} " \
            f"{v['unit']['name']}" + (f"; PDBs: {', '.join(names)}" if names else "")
    cls = "chip pdb" if v["pdbViolation"] else "chip"
    return (f'<span class="{cls}" data-key="{esc(key)}" title="{esc(title)}">'
            f'<span class="dot" style="background:{unit_fill(key, keys)}"></span>'
            f"{esc(v['pod'])} <span class=\"muted\">{esc(v['priority'])}</span>{pdb}</span>")


def _card(name: str, doc: dict[str, Any], node: dict[str, Any] | None, keys: dict[str, int],
          pdbs: dict[str, list[str]], resources: list[str]) -> str:
    parts = [f"<h3 class=\"mono\">{esc(name)}</h3>"]
    if node is None:
        parts.append('<p class="muted">not in the snapshot: no capacity to show</p>')
    else:
        parts += [_bar(r, node) for r in resources]
    victims = [v for v in doc["victims"] if v["node"] == name]
    placed = [x for x in doc["placements"] if x["node"] == name]
    waiting = [t for t in doc["terminating"] if t["node"] == name]
    if victims:
        parts.append('<div class="chips">' + "".join(_victim_chip(v, keys, pdbs)
                                                     for v in victims) + "</div>")
    if placed:
        parts.append('<div class="chips">' + "".join(
            f'<span class="chip placed" title="{esc("placed: " + x["pod"])}">▶ '
            f"{esc(x['pod'])}</span>" for x in placed) + "</div>")
    if waiting:
        parts.append('<div class="chips"><span class="muted" style="font-size:12px">'
                     "waiting for:</span>" + "".join(
                         f'<span class="chip term" title="{esc("terminating: " + t["pod"])}">'
                         f"{esc(t['pod'])}</span>" for t in waiting) + "</div>")
    return f'<div class="card node" data-name="{esc(name)}">{"".join(parts)}</div>'


def _cards(doc: dict[str, Any], picture: dict[str, Any], keys: dict[str, int]) -> str:
    names = sorted({x["node"] for x in doc["placements"]} | {v["node"] for v in doc["victims"]}
                   | {t["node"] for t in doc["terminating"]})
    if not names:
        return ""
    nodes = {n["name"]: n for n in picture["nodes"]}
    pdbs = picture["pdbs"]
    resources = picture["resources"]
    cards = "".join(_card(n, doc, nodes.get(n), keys, pdbs, resources) for n in names)
    search = ""
    if len(names) > CARD_FILTER_FROM:
        search = ('<p><input class="filter" type="search" placeholder="filter nodes by name" '
                  'aria-label="filter nodes" data-target=".card.node"></p>')
    return section(f"Nodes the plan uses ({len(names)})", search,
                   f'<div class="cards">{cards}</div>')


def _overview(doc: dict[str, Any], picture: dict[str, Any]) -> str:
    ov = picture.get("overview")
    if not ov:
        return ""
    cells = ov["nodes"]
    used = {x["node"] for x in doc["placements"]} | {v["node"] for v in doc["victims"]} | {
        t["node"] for t in doc["terminating"]}
    cols = 60
    rows = (len(cells) + cols - 1) // cols
    out = [svg_open(cols * CELL + 2, rows * CELL + 2, "every node's load")]
    for i, (name, shares) in enumerate(cells):
        known = [s for s in shares if s is not None]
        load = max(known) if known else 0.0
        x, y = 1 + (i % cols) * CELL, 1 + (i // cols) * CELL
        tip = name + ": " + ", ".join(
            f"{r} {'-' if s is None else f'{s * 100:.0f}%'}"
            for r, s in zip(ov["resources"], shares, strict=True))
        if name in used:
            tip += " (used by the plan)"
        stroke = f' stroke="{OUTLINE}" stroke-width="2.5"' if name in used else ""
        out.append(f'<rect x="{x}" y="{y}" width="{CELL - 1}" height="{CELL - 1}" '
                   f'fill="{heat_colour(load)}"{stroke}><title>{esc(tip)}</title></rect>')
    out.append("</svg>")
    scale = "".join(swatch(heat_colour(f / 8)) for f in range(9))
    intro = (f'<p class="muted">Every node ({len(cells)}), coloured by its busiest requested '
             f"resource ({esc(', '.join(ov['resources']))}) before the plan: "
             f"<span style=\"white-space:nowrap\">0% {scale} 100%</span>; outlined in orange: the "
             f"{plural(len(used), 'node')} the plan uses. Hover a square for its numbers.</p>")
    return section("Cluster overview", intro, f'<div class="scroll">{"".join(out)}</div>')


def _victims_table(doc: dict[str, Any], picture: dict[str, Any], keys: dict[str, int]) -> str:
    if not doc["victims"]:
        return ""
    sampled = doc.get("samples")
    freq = {}
    if sampled:
        freq = {p: sampled["count"] for p in sampled["always"]}
        freq.update({r["pod"]: r["samples"] for r in sampled["sometimes"]})
    headers = ["pod", "node", "priority", "unit", "PDB"]
    if sampled:
        headers.append(f"chosen in (of {sampled['count']} samples)")
    rows = []
    for v in doc["victims"]:
        key = _unit_key(v)
        pdbs = ", ".join(picture["pdbs"].get(v["pod"], [])) or "-"
        pdb = f'<span class="alert">{esc(pdbs)} violated</span>' if v["pdbViolation"] \
            else esc(pdbs)
        unit = "-" if v["unit"]["kind"] == "Pod" else f"{v['unit']['kind']} {v['unit']['name']}"
        row = [f'<span data-key="{esc(key)}">{swatch(unit_fill(key, keys))} '
               f"<span class=\"mono\">{esc(v['pod'])}</span></span>",
               esc(v["node"]), esc(v["priority"]), esc(unit), pdb]
        if sampled:
            row.append(esc(freq.get(v["pod"], 0)))
        rows.append(row)
    return section(f"Victims ({len(doc['victims'])})", table(headers, rows))


def _lists(doc: dict[str, Any]) -> str:
    out = []
    if doc["placements"]:
        out.append(section(f"Placements of the preemptor's pods ({len(doc['placements'])})",
                           table(["pod", "node"], ([esc(x["pod"]), esc(x["node"])]
                                                   for x in doc["placements"]))))
    if doc["terminating"]:
        out.append(section(
            f"Terminating pods waited for ({len(doc['terminating'])})",
            '<p class="muted">Already terminating: the plan deletes none of them again (a '
            "victim the scheduler chooses that is already going is left to finish); the "
            "preemptor waits for them to go.</p>",
            table(["pod", "node"], ([esc(t["pod"]), esc(t["node"])]
                                    for t in doc["terminating"]))))
    return "".join(out)


def _ties(doc: dict[str, Any]) -> str:
    ties = doc.get("ties") or []
    if not ties:
        return ""
    rows = [[esc(t["decision"]), esc(", ".join(t["chosen"])),
             esc(", ".join(t["alternatives"])), esc(t["equal"]), esc(tie_line(t))]
            for t in ties]
    return section(f"Random choices upstream ({len(ties)})",
                   '<p class="muted">Where kube-scheduler picks at random among equals: this '
                   "plan shows one choice; the alternatives were as good.</p>",
                   table(["decision", "chosen", "alternatives", "equal", "in words"], rows))


def _samples(doc: dict[str, Any]) -> str:
    s = doc.get("samples")
    if not s:
        return ""
    v = s["victimPods"]
    rows = [[esc(p), esc(s["count"])] for p in s["always"]]
    rows += [[esc(r["pod"]), esc(r["samples"])] for r in s["sometimes"]]
    statuses = ", ".join(f"{k} {n}" for k, n in s["statuses"].items())
    bars = table(["pod", f"preempted in (of {s['count']})"], rows) if rows else ""
    return section(
        f"Over {s['count']} seeded tie orders (seed {s['seed']})",
        f"<p>{esc(v['min'])}–{esc(v['max'])} victim pods (median {esc(v['median'])}); "
        f"{plural(len(s['always']), 'pod')} preempted always, {len(s['sometimes'])} "
        f"sometimes. Statuses: {esc(statuses)}.</p>", bars)


def plan_page(doc: dict[str, Any], picture: dict[str, Any], note: str | None = None) -> str:
    """The page (module docstring); ``doc`` is the ``-o json`` document."""
    keys = unit_keys(doc)
    p = doc["preemptor"]
    body = [_header(doc, note), _overview(doc, picture), _legend(doc), _units_legend(doc, keys),
            _cards(doc, picture, keys), _victims_table(doc, picture, keys),
            _lists(doc), _ties(doc), _samples(doc), warnings_list(doc.get("warnings") or [])]
    return page(f"wapctl plan: {p['namespace']}/{p['name']}", body, doc)
