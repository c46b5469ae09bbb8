"""`-o html` (issue 27): one self-contained, deterministic page per report, drawn from the
`-o json` document, with every input string escaped. The browser checks are in
tests/test_html_browser.py."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wapctl.cli import app

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "fixtures"
AUDIT = FIX / "cycles" / "audit"
REPORTS = {
    "plan": ["plan", str(FIX / "plan" / "podgroup-whole.yaml")],
    "simulate": ["simulate", str(FIX / "simulate" / "ping-pong.yaml")],
    "check-cycles": ["check-cycles", str(FIX / "manifests" / "chart-cycle.yaml")],
    "audit": ["audit", str(AUDIT / "cluster.yaml"), "-c", str(AUDIT / "raise-train.yaml")],
}


def run(*args: str) -> str:
    return CliRunner().invoke(app, list(args), catch_exceptions=False).stdout


class Page(HTMLParser):
    """The tags, attributes and text of a page, and the embedded report."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.report = ""
        self._in_report = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_report = dict(attrs).get("id") == "wapctl-report"

    def handle_endtag(self, tag):
        self._in_report = False

    def handle_data(self, data):
        if self._in_report:
            self.report += data
        else:
            self.text.append(data)


@pytest.mark.parametrize("report", sorted(REPORTS))
def test_page_embeds_exactly_the_json_document(report: str):
    """The page carries the `-o json` document it was drawn from, unchanged."""
    args = REPORTS[report]
    page = Page(run(*args, "-o", "html"))
    assert json.loads(run(*args, "-o", "json")) == json.loads(page.report)


@pytest.mark.parametrize("report", sorted(REPORTS))
def test_page_is_self_contained_and_deterministic(report: str):
    """Nothing is fetched (no link, no src, no url(), no @import; the only URL is SVG's
    namespace) and the same input gives the same bytes."""
    args = REPORTS[report]
    first, second = run(*args, "-o", "html"), run(*args, "-o", "html")
    assert first == second
    assert first.startswith("<!DOCTYPE html>")
    tags = Page(first).tags
    assert [] == [t for t, a in tags if t in ("link", "iframe", "img", "object", "embed")]
    assert [] == [(t, a) for t, a in tags if "src" in a or "href" in a]
    assert {"http://www.w3.org/2000/svg"} >= set(re.findall(r"https?://[^\s\"'<>]*", first))
    assert "@import" not in first and "url(http" not in first


HOSTILE = """
apiVersion: v1
kind: List
items:
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: low}, value: 100}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000}
- apiVersion: v1
  kind: Node
  metadata: {name: "</script><i id=pwn-node>n"}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: "<img src=x onerror=alert(1)>&amp;", namespace: default}
  spec:
    nodeName: "</script><i id=pwn-node>n"
    priorityClassName: low
    containers: [{name: c, resources: {requests: {cpu: "4"}}}]
  status: {phase: Running, startTime: "2026-01-01T10:00:00Z"}
- apiVersion: v1
  kind: Pod
  metadata: {name: "urgent\\"'><i id=pwn-pod>", namespace: default}
  spec:
    priorityClassName: high
    containers: [{name: c, resources: {requests: {cpu: "2"}}}]
  status: {phase: Pending}
"""


def test_names_cannot_inject_html(tmp_path: Path):
    """Pod and node names holding markup (the loader accepts them) come out as text: no
    element they spell exists, the victim's name is on the page verbatim, and the embedded
    JSON still parses to the -o json document."""
    snap = tmp_path / "hostile.yaml"
    snap.write_text(HOSTILE)
    text = run("plan", str(snap), "-o", "html")
    page = Page(text)
    assert [] == [t for t, a in page.tags if t == "img" or (a.get("id") or "").startswith("pwn")]
    words = "".join(page.text)
    assert "default/<img src=x onerror=alert(1)>&amp;" in words
    assert "</script><i id=pwn-node>n" in words
    assert json.loads(run("plan", str(snap), "-o", "json")) == json.loads(page.report)


def test_plan_card_shows_the_resources_before_and_after():
    """single-pod.yaml, worked by hand: node-a (4 cpu, 8Gi, 110 pods) runs web-1 and batch-1
    (2 cpu, 1Gi each): 4 cpu, 2Gi, 2 pods used. The plan preempts batch-1 and places urgent
    (2 cpu, 1Gi): still 4 cpu, 2Gi, 2 pods. node-b is not used, so it has no card."""
    words = " ".join(Page(run("plan", str(FIX / "plan" / "single-pod.yaml"), "-o", "html")).text)
    assert "cpu used 4 → 4 of 4" in words
    assert "memory used 2Gi → 2Gi of 8Gi" in words
    assert "pods used 2 → 2 of 110" in words
    assert "Nodes the plan uses (1)" in words and "node-b" not in words


def _big_cluster(nodes: int) -> str:
    """``nodes`` nodes of 4 cpu, each full with one pod: priority 1000 on all but the last,
    priority 100 on the last; a pending pod of priority 500 asking for 2 cpu."""
    items = [f"- {{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: "
             f"{{name: p{v}}}, value: {v}}}" for v in (100, 500, 1000)]
    for i in range(nodes):
        prio = 100 if i == nodes - 1 else 1000
        items.append(f"- {{apiVersion: v1, kind: Node, metadata: {{name: n{i:02d}}}, "
                     "status: {allocatable: {cpu: '4', pods: '110'}}}")
        items.append(f"- {{apiVersion: v1, kind: Pod, metadata: {{name: f{i:02d}, namespace: d}}, "
                     f"spec: {{nodeName: n{i:02d}, priorityClassName: p{prio}, containers: "
                     "[{name: c, resources: {requests: {cpu: '4'}}}]}, status: {phase: Running}}")
    items.append("- {apiVersion: v1, kind: Pod, metadata: {name: want, namespace: d}, spec: "
                 "{priorityClassName: p500, containers: [{name: c, resources: {requests: "
                 "{cpu: '2'}}}]}, status: {phase: Pending}}")
    return "apiVersion: v1\nkind: List\nitems:\n" + "\n".join(items) + "\n"


def test_big_cluster_gets_an_overview_of_every_node(tmp_path: Path):
    """30 nodes (more than the 25 a page shows as cards alone): the heat map has one square
    per node, every one 100% cpu before the plan, and only n29 (its victim f29) outlined."""
    snap = tmp_path / "big.yaml"
    snap.write_text(_big_cluster(30))
    text = run("plan", str(snap), "-o", "html")
    squares = re.findall(r'<rect x="[^"]*" y="[^"]*" width="10" height="10" fill="([^"]*)"'
                         r'( stroke="#E69F00")?[^>]*><title>([^<]*)</title>', text)
    assert 30 == len(squares)
    assert {"#08306b"} == {fill for fill, _, _ in squares}  # the scale's darkest: 100%
    assert [("n29: cpu 100% (used by the plan)")] == [t for _, s, t in squares if s]
    assert "n00: cpu 100%" == squares[0][2]


def test_small_cluster_has_no_overview():
    """Two nodes: the cards are the picture; no heat map."""
    assert "Cluster overview" not in run("plan", str(FIX / "plan" / "single-pod.yaml"),
                                         "-o", "html")


def test_validate_offers_no_html():
    """Only the four reports draw pages: validate rejects -o html as any unknown format."""
    result = CliRunner().invoke(app, ["validate", str(FIX / "plan" / "single-pod.yaml"),
                                      "-o", "html"])
    assert 2 == result.exit_code


def test_terminating_victims_are_not_called_non_victims():
    """fixtures/plan/terminating.yaml under 1.36: the scheduler chooses old, already
    terminating, as its victim and does not delete it again (SPEC.md §4 terminating). The
    page's verdict says so; its terminating section and legend must not call old 'not a
    victim' (they once did, contradicting the verdict on the same page)."""
    page = run("plan", str(FIX / "plan" / "terminating.yaml"), "--model", "1.36", "-o", "html")
    assert "already terminating" in page
    assert "not a victim" not in page and "not victims" not in page
    assert "deletes none of them again" in page
