"""`wapctl history`: the recorded preemptions (tests/data/k8s-1.36/events) and a hand-made
window with churn and ping-pong."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from wapctl.cli import app

EVENTS = Path(__file__).resolve().parent / "data" / "k8s-1.36" / "events"


def run(*args: object) -> Any:
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


def history_json(*args: object) -> tuple[int, dict[str, Any]]:
    result = run("history", *args, "-o", "json")
    return result.exit_code, json.loads(result.stdout)


def test_recorded_gang_preemption_with_its_capacity() -> None:
    """C: one preemption by pod group train-workers took low-1..3 (2 cpu and 256Mi each, as
    the scenario README says): 6 cpu and 768Mi churned; nobody twice, so no churn."""
    m = json.loads((EVENTS / "C-gang-podgroup" / "meta.json").read_text())
    code, doc = history_json(EVENTS / "C-gang-podgroup" / "3-finished",
                             "--before", EVENTS / "C-gang-podgroup" / "1-before")
    assert code == 0
    (inc,) = doc["preemptions"]
    assert inc["preemptor"] == {"kind": "PodGroup", "name": "default/train-workers",
                                "owner": "PodGroup default/train-workers"}
    assert [v["pod"] for v in inc["victims"]] == m["victims"]
    assert [v["node"] for v in inc["victims"]] == m["nodes"]  # from --before
    assert doc["summary"]["requests"] == {"cpu": 6000, "memory": 3 * 256 * 2**20}
    assert doc["summary"]["unknownRequests"] == 0
    assert doc["summary"]["churn"] == [] and doc["summary"]["pingPong"] == []


def test_victims_in_no_snapshot_are_counted_as_unknown() -> None:
    code, doc = history_json(EVENTS / "C-gang-podgroup" / "3-finished")
    assert code == 0
    assert doc["summary"]["requests"] == {} and doc["summary"]["unknownRequests"] == 3
    assert doc["owners"][0]["owner"] == "unknown"


def test_one_unknown_victim_is_one_pod_in_the_table() -> None:
    """A's victim finished before the snapshot: its requests are unknown, counted in words
    that agree with the number (one pod, one victim)."""
    out = run("history", EVENTS / "A-single-pod" / "3-finished").stdout
    assert "(+1 pod not in any snapshot)" in out
    assert "(+1 victim not in any snapshot)" in out
    assert "pods not in any snapshot" not in out


def test_recorded_single_pod_preemption() -> None:
    code, doc = history_json(EVENTS / "A-single-pod" / "2-preempted")
    assert code == 0
    (inc,) = doc["preemptions"]
    assert (inc["preemptor"]["name"], inc["node"]) == ("default/urgent", "n1")
    assert doc["pairs"] == [{"preemptor": "Pod default/urgent", "victim": "Pod default/low-1",
                             "preemptions": 1, "victims": 1}]


def test_empty_window_says_events_expire() -> None:
    result = run("history", EVENTS / "E-cannot-preempt" / "2-unschedulable")
    assert result.exit_code == 0
    assert "No preemption in the events read" in result.stdout
    assert "1 hour by default" in result.stdout
    result = run("history", EVENTS / "E-cannot-preempt" / "2-unschedulable" / "pods.json")
    assert "No Event objects were read" in result.stdout


def _pod(name: str, uid: str, rs: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ns", "uid": uid,
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                              "name": rs, "uid": f"rs-{rs}",
                                              "controller": True}]},
            "spec": {"containers": [{"resources": {"requests": {"cpu": "1"}}}]}}


def _preempted(victim: str, uid: str, by: str, node: str, time: str) -> dict[str, Any]:
    return {"apiVersion": "events.k8s.io/v1", "kind": "Event",
            "metadata": {"name": f"{victim}.{time[-3:]}", "namespace": "ns", "uid": f"e-{victim}"},
            "reason": "Preempted", "reportingController": "default-scheduler",
            "regarding": {"kind": "Pod", "namespace": "ns", "name": victim, "uid": uid},
            "note": f"Preempted by pod {by} on node {node}", "eventTime": time}


def test_churn_and_ping_pong_exit_1(tmp_path: Path) -> None:
    """b-1 (ReplicaSet b) took a-1, then a-2 (ReplicaSet a) took b-2, then b-3 took a-3:
    ReplicaSet a lost pods to two preemptions (churn); a and b preempt each other
    (ping-pong). Each victim requests 1 cpu: 3 cpu churned, 2 of them from a."""
    docs = [_pod("a-1", "ua1", "a"), _pod("a-2", "ua2", "a"), _pod("a-3", "ua3", "a"),
            _pod("b-1", "ub1", "b"), _pod("b-2", "ub2", "b"), _pod("b-3", "ub3", "b"),
            _preempted("a-1", "ua1", "ub1", "n1", "2026-01-01T00:00:01.000000Z"),
            _preempted("b-2", "ub2", "ua2", "n2", "2026-01-01T00:00:02.000000Z"),
            _preempted("a-3", "ua3", "ub3", "n1", "2026-01-01T00:00:03.000000Z")]
    path = tmp_path / "window.json"  # JSON: the fast reader must keep the owner references
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}))
    code, doc = history_json(path)
    assert code == 1
    owners = {o["owner"]: o for o in doc["owners"]}
    assert owners["ReplicaSet ns/a"]["preemptions"] == 2 and owners["ReplicaSet ns/a"]["churn"]
    assert owners["ReplicaSet ns/a"]["requests"] == {"cpu": 2000}
    assert not owners["ReplicaSet ns/b"]["churn"]
    assert doc["summary"]["churn"] == ["ReplicaSet ns/a"]
    assert doc["summary"]["pingPong"] == [["ReplicaSet ns/a", "ReplicaSet ns/b"]]
    assert doc["summary"]["requests"] == {"cpu": 3000}
    pairs = {(p["preemptor"], p["victim"]): p["preemptions"] for p in doc["pairs"]}
    assert pairs == {("ReplicaSet ns/b", "ReplicaSet ns/a"): 2,
                     ("ReplicaSet ns/a", "ReplicaSet ns/b"): 1}
    out = run("history", path).stdout
    assert "Ping-pong: ReplicaSet ns/a -> ReplicaSet ns/b -> ReplicaSet ns/a" in out
    assert "Churn: ReplicaSet ns/a" in out


def test_watch_needs_a_live_cluster() -> None:
    result = run("history", "--watch", EVENTS / "A-single-pod" / "2-preempted")
    assert result.exit_code == 2
    assert "--watch follows a live cluster" in result.stderr


def test_window_and_order_follow_the_instants_not_the_strings(tmp_path: Path) -> None:
    """b-1 took a-1 at 18:00:00.5Z (MicroTime); a-2 took b-2 at 18:00:00Z (a core event:
    whole seconds, no eventTime). The first preemption is the 18:00:00Z one, though
    '...00.500000Z' < '...00Z' as strings; the times print as the events wrote them."""
    core = {"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": "b-2.1", "namespace": "ns", "uid": "e-b-2"},
            "reason": "Preempted", "source": {"component": "default-scheduler"},
            "involvedObject": {"kind": "Pod", "namespace": "ns", "name": "b-2", "uid": "ub2"},
            "message": "Preempted by pod ua2 on node n2",
            "firstTimestamp": "2026-12-03T18:00:00Z", "lastTimestamp": "2026-12-03T18:00:00Z"}
    docs = [_pod("a-2", "ua2", "a"), _pod("b-1", "ub1", "b"),
            _preempted("a-1", "ua1", "ub1", "n1", "2026-12-03T18:00:00.500000Z"), core]
    path = tmp_path / "window.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}))
    _, doc = history_json(path)
    assert doc["window"]["first"] == "2026-12-03T18:00:00Z"
    assert doc["window"]["last"] == "2026-12-03T18:00:00.500000Z"
    assert [(i["time"], i["preemptor"]["name"]) for i in doc["preemptions"]] == [
        ("2026-12-03T18:00:00Z", "ns/a-2"), ("2026-12-03T18:00:00.500000Z", "ns/b-1")]
    out = run("history", path).stdout
    assert "between 2026-12-03T18:00:00Z and 2026-12-03T18:00:00.500000Z" in out


def test_older_note_form_resolves_the_preemptor_read(tmp_path: Path) -> None:
    """The older note names the preemptor 'ns/name' (no UID). b-1 (ReplicaSet b) took a-1,
    then a-2 (ReplicaSet a) took b-2: both preemptors are read, so their owners are known and
    a and b preempt each other: ping-pong, exit 1 (as with the UID form)."""
    docs = [_pod("a-1", "ua1", "a"), _pod("a-2", "ua2", "a"), _pod("b-1", "ub1", "b"),
            _pod("b-2", "ub2", "b")]
    for victim, uid, by, time in (("a-1", "ua1", "ns/b-1", "2026-01-01T00:00:01.000000Z"),
                                  ("b-2", "ub2", "ns/a-2", "2026-01-01T00:00:02.000000Z")):
        event = _preempted(victim, uid, "x", "n1", time)
        event["note"] = f"Preempted by {by} on node n1"
        docs.append(event)
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}))
    code, doc = history_json(path)
    assert [i["preemptor"] for i in doc["preemptions"]] == [
        {"kind": "Pod", "name": "ns/b-1", "owner": "ReplicaSet ns/b"},
        {"kind": "Pod", "name": "ns/a-2", "owner": "ReplicaSet ns/a"}]
    assert doc["summary"]["pingPong"] == [["ReplicaSet ns/a", "ReplicaSet ns/b"]]
    assert code == 1


def test_a_preempted_event_it_cannot_read_is_a_warning_not_silence(tmp_path: Path) -> None:
    """One Preempted event whose note is in no known form ("Preempted by workload ..."), one
    readable one (b-1 took a-1). The unread one is a warning naming the event and its note;
    the table says it was not counted; alone, it does not make "no preemption left a trace"."""
    odd = _preempted("a-2", "ua2", "x", "n1", "2026-01-01T00:00:02.000000Z")
    odd["note"] = "Preempted by workload ns/w on node n1 (gang)"
    ok = _preempted("a-1", "ua1", "ub1", "n1", "2026-01-01T00:00:01.000000Z")
    both, alone = tmp_path / "both.json", tmp_path / "alone.json"
    both.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [ok, odd]}))
    alone.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [odd]}))
    code, doc = history_json(both)
    assert code == 0 and doc["summary"]["preemptions"] == 1
    assert doc["warnings"] == [{
        "code": "UnreadPreemptedEvent", "object": "Event ns/a-2.00Z", "field": None,
        "message": 'a Preempted event of default-scheduler that wapctl cannot read as a '
                   'preemption (note "Preempted by workload ns/w on node n1 (gang)", '
                   'regarding Pod ns/a-2): it is counted in no preemption'}]
    out = run("history", both).stdout
    assert "Warning: Event ns/a-2.00Z: a Preempted event" in out
    assert "Not counted: 1 Preempted event in a form wapctl does not read" in out
    _, doc = history_json(alone)
    assert doc["preemptions"] == [] and len(doc["warnings"]) == 1
    out = run("history", alone).stdout
    assert "No preemption wapctl can read in the events: 1 of the scheduler's Preempted " \
        "events is in a form it does not read" in out
    assert "left no trace" not in out
