"""Namespaces in live reads and snapshots: their labels feed pod affinity namespaceSelectors.

A 403 on ``GET /api/v1/namespaces`` degrades to a ``NamespacesUnreadable`` warning, because
namespaces only matter to namespaceSelector; every other 403 still fails the run (test_live.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.test_live import _no_ambient_kubeconfig, _pod, fetch, run, small_cluster
from wapctl import ingest
from wapctl.filters import interpod_affinity as ipa
from wapctl.filters.interpod_affinity import REASON_ANTI_AFFINITY
from wapctl.shareable import shareable

__all__ = ["_no_ambient_kubeconfig"]  # the autouse fixture, shared with test_live.py


def _namespace(name: str, team: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": name, "uid": f"uid-ns-{name}",
                         "labels": {"team": team, "kubernetes.io/metadata.name": name},
                         "annotations": {"owner": "secret-ish@example.com"}},
            "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}


def _guarded_cluster() -> list[dict[str, Any]]:
    """small_cluster plus Namespaces team-a (team=a) and team-b (team=b), and a pending pod in
    team-b with required anti-affinity to app=solo in namespaces labelled team=a."""
    guarded = _pod("guarded", node=None, cls="high", prio=1000, cpu="100m", ns="team-b")
    guarded["spec"]["affinity"] = {"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [{
            "topologyKey": "kubernetes.io/hostname",
            "labelSelector": {"matchLabels": {"app": "solo"}},
            "namespaceSelector": {"matchLabels": {"team": "a"}}}]}}
    return [*small_cluster(), _namespace("team-a", "a"), _namespace("team-b", "b"), guarded]


def _snapshot(docs: Any) -> Any:
    return ingest.build_snapshot(docs)


def test_live_read_lists_namespaces_and_their_labels_drive_namespace_selector(apiserver,
                                                                               tmp_path):
    """The Namespaces come back from GET /api/v1/namespaces; their labels reach the snapshot,
    so the guarded pod's selector team=a matches solo (namespace team-a) on node-a: anti-affinity
    forbids node-a and allows node-b. Without the labels, team=a would match no namespace."""
    fake = apiserver(_guarded_cluster())
    docs = fetch(fake.write_kubeconfig(tmp_path / "kc"))
    assert "/api/v1/namespaces" in fake.paths()
    assert ["team-a", "team-b"] == [d.obj["metadata"]["name"] for d in docs
                                    if d.obj["kind"] == "Namespace"]
    snap = _snapshot(docs)
    assert snap.namespaces["team-a"]["team"] == "a"
    assert not [w for w in snap.warnings if w.code == "NamespacesUnreadable"]
    guarded = snap.pods["team-b/guarded"]
    placed = [(p, snap.nodes[p.node_name]) for p in snap.pods.values() if p.node_name]
    assert ipa.check(guarded, snap.nodes["node-a"], placed, snap.namespaces) == \
        REASON_ANTI_AFFINITY
    assert ipa.check(guarded, snap.nodes["node-b"], placed, snap.namespaces) is None
    # the same check without the Namespace labels: team=a selects nothing
    assert ipa.check(guarded, snap.nodes["node-a"], placed, {}) is None


def test_forbidden_namespaces_is_a_warning_not_a_failure(apiserver, tmp_path):
    """403 on namespaces: every other kind is still listed, the documents carry one
    NamespacesUnreadable warning, and the snapshot built from them has it too."""
    fake = apiserver(_guarded_cluster())
    fake.forbidden.add("namespaces")
    docs = fetch(fake.write_kubeconfig(tmp_path / "kc"))
    assert not [d for d in docs if d.obj["kind"] == "Namespace"]
    assert {"Pod", "Node", "PriorityClass"} <= {d.obj["kind"] for d in docs}
    assert ["NamespacesUnreadable"] == [w.code for w in docs.warnings]
    assert "403 Forbidden" in docs.warnings[0].message
    assert "fixtures/rbac/clusterrole.yaml" in docs.warnings[0].message
    snap = _snapshot(docs)
    assert "NamespacesUnreadable" in {w.code for w in snap.warnings}


def test_plan_with_forbidden_namespaces_runs_and_reports_the_warning(apiserver, tmp_path):
    """plan --kubeconfig exits 0 and its JSON lists the NamespacesUnreadable warning."""
    fake = apiserver(small_cluster())
    fake.forbidden.add("namespaces")
    result = run(["plan", "--kubeconfig", str(fake.write_kubeconfig(tmp_path / "kc")),
                  "-o", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [w for w in doc["warnings"] if w["code"] == "NamespacesUnreadable"]


def test_forbidden_pods_still_fails(apiserver, tmp_path):
    """Only namespaces are optional: a 403 on pods is still exit 4."""
    fake = apiserver(small_cluster())
    fake.forbidden.add("pods")
    result = run(["plan", "--kubeconfig", str(fake.write_kubeconfig(tmp_path / "kc")),
                  "-o", "json"])
    assert result.exit_code == 4


def test_snapshot_keeps_namespace_name_and_labels_only(apiserver, tmp_path):
    """wapctl snapshot writes the Namespaces (after PriorityClasses, before Nodes) with name,
    uid and labels; annotations, spec and status are dropped. Read back, the labels are there."""
    fake = apiserver(_guarded_cluster())
    out = tmp_path / "snap.yaml"
    result = run(["snapshot", "--kubeconfig", str(fake.write_kubeconfig(tmp_path / "kc")),
                  "--output-file", str(out)])
    assert result.exit_code == 0, result.output
    items = yaml.safe_load(out.read_text(encoding="utf-8"))["items"]
    kinds = [i["kind"] for i in items]
    assert kinds.index("Namespace") > kinds.index("PriorityClass")
    assert kinds.index("Namespace") < kinds.index("Node")
    ns = next(i for i in items if i["kind"] == "Namespace")
    assert {"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": "team-a", "uid": "uid-ns-team-a",
                         "labels": {"team": "a", "kubernetes.io/metadata.name": "team-a"}}} == ns
    snap = ingest.build_snapshot(ingest.read_documents([str(out)]))
    assert snap.namespaces["team-b"]["team"] == "b"


def test_shareable_namespace_is_name_and_labels():
    """shareable() on a Namespace keeps apiVersion, kind, name, uid and labels."""
    ns = _namespace("prod", "a")
    assert shareable(ns) == {"apiVersion": "v1", "kind": "Namespace",
                             "metadata": {"name": "prod", "uid": "uid-ns-prod",
                                          "labels": ns["metadata"]["labels"]}}
    assert "annotations" in ns["metadata"]  # the input is not modified


def test_rbac_fixture_grants_namespaces_read_only():
    role_file = Path(__file__).resolve().parent.parent / "fixtures" / "rbac" / "clusterrole.yaml"
    role = next(d for d in yaml.safe_load_all(role_file.read_text(encoding="utf-8"))
                if d["kind"] == "ClusterRole")
    rules = [r for r in role["rules"] if "" in r["apiGroups"] and "namespaces" in r["resources"]]
    assert [["get", "list"]] == [sorted(r["verbs"]) for r in rules]


def test_snapshot_with_forbidden_namespaces_writes_the_file_and_warns(apiserver, tmp_path):
    """wapctl snapshot without namespace rights still writes the file (no Namespaces in it) and
    says why on stderr."""
    fake = apiserver(small_cluster())
    fake.forbidden.add("namespaces")
    out = tmp_path / "snap.yaml"
    result = run(["snapshot", "--kubeconfig", str(fake.write_kubeconfig(tmp_path / "kc")),
                  "--output-file", str(out)])
    assert result.exit_code == 0, result.output
    assert "Warning: Namespaces: 403 Forbidden" in result.stderr
    items = yaml.safe_load(out.read_text(encoding="utf-8"))["items"]
    assert "Namespace" not in {i["kind"] for i in items}


@pytest.mark.parametrize("command", [["check-cycles", "-o", "json"], ["simulate", "-o", "json"],
                                     ["audit", "--change", "{change}", "-o", "json"]],
                         ids=["check-cycles", "simulate", "audit"])
def test_every_live_command_reports_unreadable_namespaces(apiserver, tmp_path, command):
    """Every command reading a live cluster carries the NamespacesUnreadable warning into its
    JSON report (check-cycles and audit also apply change files to the listed documents)."""
    change = tmp_path / "change.yaml"
    change.write_text("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
                      "metadata: {name: high}\nvalue: 50\n", encoding="utf-8")
    fake = apiserver(small_cluster())
    fake.forbidden.add("namespaces")
    result = run([*[a.format(change=change) for a in command],
                  "--kubeconfig", str(fake.write_kubeconfig(tmp_path / "kc"))])
    assert result.exit_code in (0, 1), result.output
    codes = {w["code"] for w in json.loads(result.stdout)["warnings"]}
    assert "NamespacesUnreadable" in codes
