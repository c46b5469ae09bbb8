"""`wapctl explain` / `history` / `snapshot --events` against the fake API server serving the
objects and Events recorded at scenario C's 2-preempted stage (tests/data/k8s-1.36/events)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from wapctl.cli import app

STAGE = Path(__file__).resolve().parent / "data" / "k8s-1.36" / "events" / "C-gang-podgroup" / \
    "2-preempted"


def _objects() -> list[dict[str, Any]]:
    out = []
    for name in ("nodes", "pods", "priorityclasses", "workloads", "podgroups",
                 "poddisruptionbudgets", "events.k8s.io-v1-events"):
        doc = json.loads((STAGE / f"{name}.json").read_text())
        kind = doc["kind"].removesuffix("List")
        out.extend({"apiVersion": doc["apiVersion"], "kind": kind, **i} for i in doc["items"])
    return out


def run(*args: object) -> Any:
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


def test_live_explain_and_history_read_the_events(apiserver: Any, tmp_path: Path) -> None:
    fake = apiserver(_objects(), workload_versions=("v1alpha2",), events=True)
    kc = fake.write_kubeconfig(tmp_path / "kc")
    result = run("explain", "pod/default/low-2", "--kubeconfig", kc, "-o", "json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["preemption"]["preemptor"]["name"] == "default/train-workers"
    assert [v["pod"] for v in doc["preemption"]["victims"]] == [
        "default/low-1", "default/low-2", "default/low-3"]
    assert doc["verdict"]["agrees"] is True
    result = run("history", "--kubeconfig", kc, "-o", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["summary"]["victims"] == 3
    assert fake.methods() == {"GET"}


def test_snapshot_events_keeps_them_for_offline_explain(apiserver: Any, tmp_path: Path) -> None:
    fake = apiserver(_objects(), workload_versions=("v1alpha2",), events=True)
    kc = fake.write_kubeconfig(tmp_path / "kc")
    out = tmp_path / "snap.json"
    assert run("snapshot", "--events", "--kubeconfig", kc, "--output-file", out).exit_code == 0
    items = json.loads(out.read_text())["items"]
    assert sum(1 for i in items if i["kind"] == "Event") == 7  # 3 Preempted, 3 Failed, 1 noise
    offline = json.loads(run("explain", "default/low-2", out, "-o", "json").stdout)
    live = json.loads(run("explain", "default/low-2", "--kubeconfig", kc, "-o", "json").stdout)
    assert offline == live
    # without --events the snapshot has none, and explain says the pod is no victim
    plain = tmp_path / "plain.json"
    assert run("snapshot", "--kubeconfig", kc, "--output-file", plain).exit_code == 0
    assert not [i for i in json.loads(plain.read_text())["items"] if i["kind"] == "Event"]


def test_forbidden_events_are_a_warning(apiserver: Any, tmp_path: Path) -> None:
    fake = apiserver(_objects(), workload_versions=("v1alpha2",), events=True)
    fake.forbidden.add("events")
    kc = fake.write_kubeconfig(tmp_path / "kc")
    result = run("history", "--kubeconfig", kc, "-o", "json")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert [w["code"] for w in doc["warnings"]] == ["EventsUnreadable"]
    assert "namespaceSelector" not in doc["warnings"][0]["message"]
    assert "not allowed to list events" in doc["warnings"][0]["message"]
    assert doc["preemptions"] == []
