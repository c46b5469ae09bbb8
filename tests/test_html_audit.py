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
