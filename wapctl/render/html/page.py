"""What every ``-o html`` page shares: escaping, the page shell, the palette, SVG helpers.

A page is one self-contained file: inline CSS, a few lines of inline script (hover highlights
and a filter box; the page reads fully without it), inline SVG, no network fetch. The report
document it was drawn from is embedded as JSON (``<script type="application/json"
id="wapctl-report">``), so the numbers on the page can be checked against ``-o json``.

Every string that comes from the input goes through :func:`esc` (text and attributes) or
:func:`json_for_script` (the embedded document), so a pod named ``<script>`` is text.
The output is deterministic: no timestamps, ids are positions.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from typing import Any

# Okabe & Ito's palette: distinguishable with every common colour-vision deficiency and in grey.
OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7")
ALERT = "#D55E00"  # vermillion: cycles, violations, overcommitted resources
GOOD = "#009E73"  # bluish green: placements, fixed things
NEUTRAL = "#888888"

# A sequential scale for heat maps (light to dark blue, readable in grey).
HEAT = ("#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5",
        "#08519c", "#08306b")


def esc(value: object) -> str:
    """Text or attribute value, HTML-escaped (quotes too)."""
    return html.escape(str(value), quote=True)


def json_for_script(doc: Any) -> str:
    """The document as JSON that is safe inside ``<script>``: ``<``, ``>``, ``&`` and the
    line separators are written as ``\\u`` escapes, so no input can close the element."""
    text = json.dumps(doc, ensure_ascii=False, sort_keys=False, separators=(",", ":"))
    for char, code in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                       ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, code)
    return text


def unit_colour(index: int) -> str:
    """The colour of the ``index``-th unit (pod group or pod preempted as one)."""
    return OKABE_ITO[index % len(OKABE_ITO)]


def heat_colour(fraction: float) -> str:
    """A fraction 0..1 (clamped) on the sequential scale."""
    f = min(1.0, max(0.0, fraction))
    return HEAT[min(len(HEAT) - 1, int(f * len(HEAT)))]


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else many or word + 's'}"


_CSS = """
:root{--bg:#ffffff;--fg:#1b1b1b;--muted:#5f6368;--card:#f6f7f9;--line:#d0d4da;
--alert:#D55E00;--good:#009E73;--accent:#0072B2;--bar:#0072B2;--bar2:#56B4E9;--track:#e4e7eb;
color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#15171a;--fg:#e8eaed;--muted:#a3a8ae;
--card:#1f2226;--line:#3a3f45;--accent:#56B4E9;--bar:#56B4E9;--bar2:#0072B2;--track:#2c3036}}
*{box-sizing:border-box}
body{margin:0;padding:16px 20px 40px;background:var(--bg);color:var(--fg);
font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:22px 0 8px;
border-bottom:1px solid var(--line);padding-bottom:3px}h3{font-size:14px;margin:0 0 6px}
.muted{color:var(--muted)}.mono,code{font-family:ui-monospace,"DejaVu Sans Mono",monospace;
font-size:12.5px}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-weight:600;
border:1.5px solid currentColor}
.alert{color:var(--alert)}.good{color:var(--good)}
.legend{display:flex;flex-wrap:wrap;gap:6px 16px;margin:8px 0;font-size:12.5px}
.legend span{display:inline-flex;align-items:center;gap:5px}
.sw{display:inline-block;width:14px;height:14px;border-radius:3px;border:1px solid var(--line)}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:12px}
.card{content-visibility:auto;contain-intrinsic-size:auto 240px;background:var(--card);
border:1px solid var(--line);border-radius:8px;padding:10px 12px;min-width:0}
.bar{display:grid;grid-template-columns:minmax(64px,auto) 1fr;gap:2px 8px;align-items:center;
font-size:12px;margin:2px 0}
.track{position:relative;height:9px;background:var(--track);border-radius:3px;overflow:hidden}
.fill{position:absolute;left:0;top:0;bottom:0;background:var(--bar)}
.fill.after{background:var(--bar2)}.fill.over{background:var(--alert)}
.chips{display:flex;flex-wrap:wrap;gap:4px;margin:6px 0 0}
.chip{display:inline-flex;align-items:center;gap:4px;padding:1px 7px;border-radius:11px;
font-size:12px;border:1.5px solid var(--line);background:var(--bg);max-width:100%;
overflow-wrap:anywhere}
.chip .dot{width:10px;height:10px;border-radius:50%;flex:none}
.chip.placed{border-color:var(--good);border-width:2px}
.chip.term{border-style:dashed;color:var(--muted)}
.chip.pdb,.chip.new{border-color:var(--alert)}.chip.gone{border-style:dashed;color:var(--muted)}
.hl{outline:3px solid var(--accent);outline-offset:1px}
table{border-collapse:collapse;margin:6px 0;font-size:13px}
th,td{text-align:left;padding:3px 10px 3px 0;border-bottom:1px solid var(--line);
vertical-align:top;overflow-wrap:break-word}
th{color:var(--muted);font-weight:600}
ul.warn li{color:var(--fg)}ul.warn li::marker{color:#E69F00}
.scroll{overflow-x:auto;max-width:100%}
svg text{fill:var(--fg);font:12px system-ui,"DejaVu Sans",sans-serif}
svg .muted{fill:var(--muted)}
input.filter{padding:4px 8px;border:1px solid var(--line);border-radius:6px;background:var(--bg);
color:var(--fg);font:inherit;width:min(320px,100%)}
.hidden{display:none}
"""

# Hover over anything with data-key: every element with the same key is outlined. A filter
# box (input.filter[data-target]) hides cards whose data-name does not contain its text.
_SCRIPT = """
(function(){
var keyed=document.querySelectorAll('[data-key]');
function mark(key,on){keyed.forEach(function(e){
if(e.getAttribute('data-key')===key){e.classList.toggle('hl',on);}});}
keyed.forEach(function(e){var k=e.getAttribute('data-key');
e.addEventListener('mouseenter',function(){mark(k,true);});
e.addEventListener('mouseleave',function(){mark(k,false);});});
document.querySelectorAll('input.filter').forEach(function(box){
var items=document.querySelectorAll(box.getAttribute('data-target'));
box.addEventListener('input',function(){var q=box.value.toLowerCase();
items.forEach(function(c){var n=(c.getAttribute('data-name')||'').toLowerCase();
c.classList.toggle('hidden',q!==''&&n.indexOf(q)<0);});});});
document.documentElement.setAttribute('data-ready','1');
})();
"""


def page(title: str, body: Iterable[str], doc: dict[str, Any]) -> str:
    """The whole page: ``body`` (already-escaped HTML fragments) and ``doc`` embedded."""
    return "".join((
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">",
        "<meta name=\"generator\" content=\"wapctl\">",
        f"<title>{esc(title)}</title><style>{_CSS}</style></head><body>\n",
        *body,
        "\n<script type=\"application/json\" id=\"wapctl-report\">",
        json_for_script(doc),
        f"</script>\n<script>{_SCRIPT}</script>\n</body></html>\n",
    ))


def legend(items: Sequence[tuple[str, str]]) -> str:
    """``items``: (swatch HTML, label text) pairs; the label is escaped here."""
    spans = "".join(f"<span>{swatch}{esc(label)}</span>" for swatch, label in items)
    return f'<div class="legend">{spans}</div>'


def swatch(colour: str, style: str = "") -> str:
    return f'<span class="sw" style="background:{colour};{style}"></span>'


def section(title: str, *parts: str) -> str:
    return f"<h2>{esc(title)}</h2>" + "".join(parts)


def table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A table; ``rows`` hold already-escaped cell HTML."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}'\
        "</tbody></table></div>"


def warnings_list(warnings: Sequence[dict[str, Any]]) -> str:
    """The report's ``warnings`` (every one: a page has room)."""
    if not warnings:
        return ""
    items = "".join(
        f"<li><b>{esc(w['object'])}</b>{' ' + esc(w['field']) if w.get('field') else ''}: "
        f"{esc(w['message'])} <span class=\"muted mono\">{esc(w['code'])}</span></li>"
        for w in warnings)
    return section(f"Warnings ({len(warnings)})", f'<ul class="warn">{items}</ul>')


def model_line(model: dict[str, Any] | None) -> str:
    if not model:
        return ""
    return (f'<p class="muted">Model <b>{esc(model["name"])}</b>: '
            f"{esc(model['reason'])}</p>")


def svg_open(width: float, height: float, label: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
            f'viewBox="0 0 {width:g} {height:g}" role="img" aria-label="{esc(label)}">')


def svg_text(x: float, y: float, text: str, *, anchor: str = "start", cls: str = "",
             weight: str = "") -> str:
    extra = f' class="{cls}"' if cls else ""
    if weight:
        extra += f' font-weight="{weight}"'
    return (f'<text x="{x:g}" y="{y:g}" text-anchor="{anchor}"{extra}>{esc(text)}</text>')


def arrow_marker(marker_id: str, colour: str) -> str:
    return (f'<marker id="{marker_id}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="9" '
            'markerHeight="9" markerUnits="userSpaceOnUse" orient="auto-start-reverse">'
            f'<path d="M0,0L10,5L0,10z" fill="{colour}"/></marker>')
