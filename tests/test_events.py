"""Reading the scheduler's Events (wapctl.events) from recorded v1.36.2 API responses.

The expected values are read off the recorded files by hand (tests/data/k8s-1.36/events/*/
README.md quotes them): A's one Preempted event, C's three, the apiserver's KubeAPIReadyz
noise in every list, and the same Event object served by both APIs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from wapctl import ingest
from wapctl.errors import InputError
from wapctl.events import read_events

EVENTS = Path(__file__).resolve().parent / "data" / "k8s-1.36" / "events"


def _log(*paths: Path):  # type: ignore[no-untyped-def]
    return read_events(ingest.read_documents([str(p) for p in paths]))


def test_pod_preemptor_event_from_either_api_is_one_event() -> None:
    stage = EVENTS / "A-single-pod" / "2-preempted"
    for files in ((stage / "api-v1-events.json",), (stage / "events.k8s.io-v1-events.json",),
                  (stage / "api-v1-events.json", stage / "events.k8s.io-v1-events.json")):
        log = _log(*files)
        # Preempted (low-1), FailedScheduling (urgent); KubeAPIReadyz is the apiserver's
        assert [e.reason for e in log.events] == ["FailedScheduling", "Preempted"]
        assert log.others == 1
        (p,) = log.preemptions
        assert p.victim.key == "default/low-1"
        assert p.victim.uid == "14ef764e-4c03-4a9b-b784-ac16885371e8"
        assert (p.preemptor_kind, p.preemptor_uid) == ("Pod",
                                                       "d617cef0-f638-4839-87f5-6efdb86ce8f6")
        assert p.preemptor_name is None  # a pod preemptor is named by UID only
        assert p.node == "n1"
        assert p.time == "2026-12-03T18:07:34.700244Z"


def test_pod_group_preemptor_names_the_group_and_no_node() -> None:
    log = _log(EVENTS / "C-gang-podgroup" / "2-preempted")
    assert [p.victim.name for p in log.preemptions] == ["low-1", "low-2", "low-3"]
    for p in log.preemptions:
        assert p.preemptor_kind == "PodGroup"
        assert p.preemptor_uid == "4a205f51-5930-4aae-bb88-f0a8be55893f"
        assert p.preemptor_name == "default/train-workers"  # from ``related``
        assert p.node is None  # the note says "on node cluster"
    assert len(log.same_preemption(log.preemptions[0])) == 3


def test_kubectl_yaml_list_reads_as_the_raw_list(tmp_path: Path) -> None:
    """``kubectl get events -o yaml`` prints ``kind: List`` whose items carry kind and
    apiVersion; it reads as the raw EventList does."""
    raw = json.loads((EVENTS / "C-gang-podgroup" / "3-finished" /
                      "events.k8s.io-v1-events.json").read_text())
    items = [{"apiVersion": "events.k8s.io/v1", "kind": "Event", **i} for i in raw["items"]]
    path = tmp_path / "events.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    a = _log(path)
    b = _log(EVENTS / "C-gang-podgroup" / "3-finished" / "events.k8s.io-v1-events.json")
    assert [(e.uid, e.reason, e.note, e.count) for e in a.events] == \
        [(e.uid, e.reason, e.note, e.count) for e in b.events]
    # train-0's repeated FailedScheduling is a series of 2
    assert [e.count for e in a.about("Pod", "default", "train-0", "FailedScheduling")] == [1, 2, 1]


def _event(reporter: str, note: str, pod_scheduler: str | None = None) -> list[dict]:  # type: ignore[type-arg]
    docs: list[dict] = [{  # type: ignore[type-arg]
        "apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": "v.1", "namespace": "ns", "uid": "e1"},
        "reason": "Preempted", "note": note, "reportingController": reporter,
        "regarding": {"kind": "Pod", "namespace": "ns", "name": "v", "uid": "u-v"},
        "eventTime": "2026-01-01T00:00:00.000000Z"}]
    if pod_scheduler:
        docs.append({"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": "p", "namespace": "ns"},
                     "spec": {"schedulerName": pod_scheduler, "containers": []}})
    return docs


def _read(tmp_path: Path, docs: list[dict]):  # type: ignore[no-untyped-def,type-arg]
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return _log(path)


def test_only_the_schedulers_events_count(tmp_path: Path) -> None:
    note = "Preempted by pod 1234 on node n1"
    assert len(_read(tmp_path, _event("default-scheduler", note)).preemptions) == 1
    other = _read(tmp_path, _event("my-scheduler", note))
    assert (len(other.preemptions), other.others) == (0, 1)
    # a second scheduler named by a pod's spec.schedulerName is a scheduler too
    assert len(_read(tmp_path, _event("my-scheduler", note, "my-scheduler")).preemptions) == 1


def test_older_note_form_names_the_preemptor(tmp_path: Path) -> None:
    log = _read(tmp_path, _event("default-scheduler", "Preempted by ns/big on node n2"))
    (p,) = log.preemptions
    assert (p.preemptor_kind, p.preemptor_uid, p.preemptor_name, p.node) == (
        "Pod", None, "ns/big", "n2")


def test_unknown_note_is_kept_but_not_parsed(tmp_path: Path) -> None:
    log = _read(tmp_path, _event("default-scheduler", "Preempted for reasons"))
    assert log.preemptions == () and len(log.unparsed) == 1


def test_malformed_event_names_the_event_and_field(tmp_path: Path) -> None:
    docs = _event("default-scheduler", "Preempted by pod 1 on node n1")
    docs[0]["regarding"] = "low-1"
    with pytest.raises(InputError) as err:
        _read(tmp_path, docs)
    text = str(err.value)
    assert "Event ns/v.1" in text and "regarding" in text and "in.yaml" in text


def _timed(victim: str, **fields: object) -> dict:  # type: ignore[type-arg]
    """A Preempted event of ``victim``: events.k8s.io/v1, or core v1 when ``message`` is given."""
    core = "message" in fields
    return {"apiVersion": "v1" if core else "events.k8s.io/v1", "kind": "Event",
            "metadata": {"name": f"{victim}.1", "namespace": "ns", "uid": f"e-{victim}"},
            "reason": "Preempted",
            ("involvedObject" if core else "regarding"): {"kind": "Pod", "namespace": "ns",
                                                          "name": victim, "uid": f"u-{victim}"},
            ("reportingComponent" if core else "reportingController"): "default-scheduler",
            **({} if core else {"note": "Preempted by pod p1 on node n1"}), **fields}


def test_times_are_ordered_as_instants_and_kept_as_written(tmp_path: Path) -> None:
    """a at 18:00:00.5Z (a MicroTime), b at 18:00:00Z (a core event's whole-second
    firstTimestamp, no eventTime), c at 19:00:00.25+01:00 = 18:00:00.25Z. In time: b, c, a.
    As strings a < b ('.' < 'Z') < c, which is what the reader once gave."""
    log = _read(tmp_path, [
        _timed("a", eventTime="2026-12-03T18:00:00.500000Z"),
        _timed("b", message="Preempted by pod p1 on node n1",
               firstTimestamp="2026-12-03T18:00:00Z", lastTimestamp="2026-12-03T18:00:00Z"),
        _timed("c", eventTime="2026-12-03T19:00:00.25+01:00")])
    assert [(p.victim.name, p.time) for p in log.preemptions] == [
        ("b", "2026-12-03T18:00:00Z"), ("c", "2026-12-03T19:00:00.25+01:00"),
        ("a", "2026-12-03T18:00:00.500000Z")]


def test_a_time_that_is_not_rfc3339_names_the_event_and_field(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        _read(tmp_path, [_timed("a", eventTime="yesterday at six")])
    text = str(err.value)
    assert "Event ns/a.1" in text and "eventTime" in text and "yesterday at six" in text
