"""`audit -o html`: every count and mark on the page is the audit's own (the `-o json`
document's and the table's), worked out by hand from fixtures/cycles/audit/.

Profiles in fixtures/cycles/audit/cluster.yaml: ml/training 300/600, batch/report 700/700,
web/frontend-0 750/750; edges report -> training, frontend -> training, frontend -> report."""

from __future__ import annotations

import html
import re
from pathlib import Path

from typer.testing import CliRunner

from wapctl.cli import app

ROOT = Path(__file__).resolve().parent.parent
AUDIT = ROOT / "fixtures" / "cycles" / "audit"
CLUSTER = str(AUDIT / "cluster.yaml")

BLUE, RED, GREY = "#0072B2", "#D55E00", "#888888"
ARC = re.compile(r'<path d="[^"]*" fill="none" stroke="([^"]*)" stroke-width="[^"]*"'
                 r'( stroke-dasharray="5 4")?[^>]*><title>([^ ]+) can preempt ([^ ]+) '
                 r"\([^)]*\)([^<]*)</title>")


def page(*args: str) -> str:
    result = CliRunner().invoke(app, ["audit", *args, "-o", "html"], catch_exceptions=False)
    return result.stdout


def words(text: str) -> str:
    """The page's text, tags and the embedded JSON removed, spaces squeezed."""
    text = re.sub(r"<script.*?</script>|<style.*?</style>", " ", text, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())


def arcs(text: str, side: str) -> list[tuple[str, bool, str, str, str]]:
    """(colour, dashed, from, to, tooltip tail) of every arc of the graph ``side``."""
    svg = text.split(f'aria-label="priority graph {side}"', 1)[1].split("</svg>", 1)[0]
    return sorted((c, bool(d), a, b, tail) for c, d, a, b, tail in ARC.findall(svg))


def test_relabelled_edges_are_not_removed_and_added():
    """raise-medium.yaml (medium 700 -> 800): report 800/800 may now preempt the frontend
    (750), the frontend no longer report: 1 edge added, 1 removed (the JSON's edgesAdded and
    edgesRemoved). report -> training stays (700 > 600, then 800 > 600), only its label
    changes, so it is marked on neither side; frontend -> training is untouched."""
    text = page(CLUSTER, "-c", str(AUDIT / "raise-medium.yaml"))
    assert "edges +1 -1;" in words(text)
    assert ("The change adds 1 preemption edge and removes 1 (who may preempt whom, member by "
            "member: the edge tables below). They lie on 1 profile edge of the graph after the "
            "change and 1 of the graph before it.") in words(text)
    lets, stops = "; carries members the change lets preempt", \
        "; carries members the change stops preempting"
    assert [
        (GREY, False, "700/700", "300/600", ""),
        (GREY, False, "750/750", "300/600", ""),
        (GREY, True, "750/750", "700/700", stops),
    ] == arcs(text, "before")
    assert [
        (BLUE, False, "800/800", "750/750", lets),
        (GREY, False, "750/750", "300/600", ""),
        (GREY, False, "800/800", "300/600", ""),
    ] == sorted(arcs(text, "after"), key=lambda a: a[0] != BLUE)


def test_readme_example_removes_no_edge():
    """raise-train.yaml (train 300 -> 1000, the README's picture): training 1000/600 may now
    preempt report and the frontend (2 added), and nothing is removed: both old edges into
    training still exist (the cycles' red edges). The 2 added edges are on cycles, so red; the
    tooltips say which ones carry the change."""
    text = page(CLUSTER, "-c", str(AUDIT / "raise-train.yaml"))
    assert "edges +2 -0;" in words(text)
    assert "The change adds 2 preemption edges and removes 0 " in words(text)
    assert "They lie on 2 profile edges of the graph after the change and 0 of the graph " \
        "before it." in words(text)
    before = arcs(text, "before")
    assert [] == [a for a in before if a[1] or a[4]]  # nothing dashed, nothing "changed"
    assert {("700/700", "300/600"), ("750/750", "300/600"), ("750/750", "700/700")} == {
        (a, b) for _, _, a, b, _ in before}
    lets = "; on a cycle; carries members the change lets preempt"
    assert [(RED, False, "1000/600", "700/700", lets), (RED, False, "1000/600", "750/750", lets)
            ] == [a for a in arcs(text, "after") if a[4].endswith("lets preempt")]


MANIFESTS = ROOT / "fixtures" / "manifests" / "cluster.yaml"


def badge(text: str) -> str:
    """The verdict line under the title."""
    return words(text).split("Audit of a priority change ", 1)[1].split(" 1 object", 1)[0]


def test_a_dangling_reference_is_the_badge_s_reason_and_is_listed():
    """fixtures/manifests/cluster.yaml, --delete PriorityClass/medium: batch/report-0 still
    names `medium` (tests/test_audit.py works it out): no cycle, no violation, one dangling
    reference. The badge gives that reason, as the table's last line does, and the page lists
    the reference."""
    args = (str(MANIFESTS), "--delete", "PriorityClass/medium")
    text = words(page(*args))
    table = CliRunner().invoke(app, ["audit", *args, "--no-color"]).stdout
    assert "RISKY: leaves 1 reference(s) dangling" == table.strip().splitlines()[-1]
    assert "RISKY the change leaves 1 reference(s) dangling" == badge(page(*args))
    assert "cycles 0 → 0; rule violations 0 → 0; 1 reference left dangling;" in text
    assert ("References the change leaves dangling (1) Objects that still name an object the "
            "change deletes; each one makes the change risky. object field warning Pod "
            "batch/report-0 spec.priorityClassName PriorityClass 'medium' is not in the "
            "snapshot") in text


def test_the_badge_names_cycles_and_violations_or_none():
    """raise-train.yaml introduces 3 cycles and 1 violation (the fixture's comment); raise-
    medium.yaml none, and nothing dangles: OK. No dangling-references section on either."""
    train = page(CLUSTER, "-c", str(AUDIT / "raise-train.yaml"))
    medium = page(CLUSTER, "-c", str(AUDIT / "raise-medium.yaml"))
    assert ("RISKY the change introduces 3 cycle(s) and 1 rule violation(s)",
            "OK the change introduces no preemption cycle and no rule violation") == (
        badge(train), badge(medium))
    assert [] == [t for t in (train, medium) if "leaves dangling (" in words(t)]


def test_cut_lists_are_counted_as_the_json_counts():
    """With lists cut to 1 entry (audit(limit=1)), raise-train.yaml still has 3 cycles
    introduced, 2 edges added and 2 members losing protection (the summary's counts): each
    section gives the count and says how many it lists."""
    from wapctl.audit import audit
    from wapctl.ingest import read_documents
    from wapctl.render.audit import audit_to_dict
    from wapctl.render.html.audit import audit_page
    from wapctl.render.html.extras import audit_picture

    report = audit(read_documents([CLUSTER]), read_documents([str(AUDIT / "raise-train.yaml")]),
                   limit=1)
    doc = audit_to_dict(report)
    assert (1, 1, 1) == (len(doc["cycles"]["introduced"]), len(doc["edges"]["added"]),
                         len(doc["lostProtection"]))
    text = words(audit_page(doc, audit_picture(report)))
    assert [] == [title for title in ("Cycles introduced (3, the first 1 listed)",
                                      "Edges added: 2, the first 1 listed",
                                      "Lost protection (2, the first 1 listed)")
                  if title not in text]
    # the graph still marks every added edge, not only the listed one
    assert "They lie on 2 profile edges of the graph after the change" in text


def test_unchanged_and_ignored_objects_and_unplanned_preemptors_are_said(tmp_path: Path):
    """A change file holding `train` at 1000, `medium` at its current 700 and a Service: 1
    object changed (the header, as the table's "Change (1 object; 1 of other kinds
    ignored)"), 2 listed, 1 of them unchanged, the Service ignored. With --max-plans 0 none of
    the 1 pending preemptor is planned, which the table says and the page now too. Field
    values are spelt as the JSON spells them (false, not Python's False)."""
    change = tmp_path / "change.yaml"
    change.write_text(
        "{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: train}, "
        "value: 1000}\n---\n{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, "
        "metadata: {name: medium}, value: 700}\n---\n{apiVersion: v1, kind: Service, "
        "metadata: {name: s, namespace: x}}\n")
    text = words(page(CLUSTER, "-c", str(change), "--max-plans", "0"))
    assert "1 object changed;" in text
    assert ("0 plans changed of 0 planned (1 pending). Only the first 0 pending preemptors "
            "in queue order were planned (--max-plans).") in text
    assert ("Objects in the change (2; 1 unchanged; 1 of other kinds ignored) action kind name "
            "before after unchanged PriorityClass medium value=700, "
            "preemptionPolicy=PreemptLowerPriority, globalDefault=false") in text
    assert "False" not in text


def test_too_many_cycles_to_count_is_said(tmp_path: Path):
    """Seven Workloads scheduling at 1001..1007 that the change makes preemptible as 1..7:
    every one may then preempt every other, a complete digraph on 7 vertices, with
    sum C(7,k)(k-1)! = 2365 cycles, more than the 1,000 the audit enumerates. The table warns
    that the counts are minimums; the page says so under its counts too."""
    snap, change = tmp_path / "snap.yaml", tmp_path / "change.yaml"
    group = "podGroups: [{name: g, policy: {basic: {}}}]"
    items, changed = [], []
    for i in range(1, 8):
        items += [f"- {{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: "
                  f"{{name: s{i}}}, value: {1000 + i}}}",
                  f"- {{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: "
                  f"{{name: p{i}}}, value: {i}}}",
                  f"- {{apiVersion: scheduling.k8s.io/v1alpha1, kind: Workload, metadata: "
                  f"{{name: w{i}, namespace: d}}, spec: {{priorityClassName: s{i}, {group}}}}}"]
        changed.append(f"{{apiVersion: scheduling.k8s.io/v1alpha1, kind: Workload, metadata: "
                       f"{{name: w{i}, namespace: d}}, spec: {{priorityClassName: s{i}, "
                       f"preemptionPriorityClassName: p{i}, {group}}}}}")
    snap.write_text("apiVersion: v1\nkind: List\nitems:\n" + "\n".join(items) + "\n")
    change.write_text("\n---\n".join(changed) + "\n")
    table = CliRunner().invoke(app, ["audit", str(snap), "-c", str(change)]).stdout
    assert "Too many cycles to compare them all; counts are minimums." in table
    text = words(page(str(snap), "-c", str(change)))
    assert "Too many cycles to compare them all; the cycle counts are minimums." in text
