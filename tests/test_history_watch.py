"""`wapctl history --watch` (wapctl.live_events.follow) against the fake API server serving the
watch streams recorded around scenario C's gang preemption (tests/data/k8s-1.36/events/
C-gang-podgroup: lists at resourceVersion 78, then the pods and events streams). The follow
must print the three recorded preemptions (low-1, low-2, low-3 by pod group
default/train-workers) once each, surviving a 410 on its first events watch (answered by a new
list) and a connection cut in the middle of the stream (resumed from the last version seen).
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from wapctl.live_events import Seen, follow
from wapctl.model import LoadWarning
from wapctl.render.history import seen_line, seen_to_dict

C = Path(__file__).resolve().parent / "data" / "k8s-1.36" / "events" / "C-gang-podgroup"
EVENTS_PATH = "/apis/events.k8s.io/v1/events"
PODS_PATH = "/api/v1/pods"


def _objects() -> list[dict[str, Any]]:
    out = []
    for name in ("nodes", "pods", "priorityclasses", "workloads", "podgroups",
                 "events.k8s.io-v1-events"):
        doc = json.loads((C / "1-before" / f"{name}.json").read_text())
        kind = doc["kind"].removesuffix("List")
        out.extend({"apiVersion": doc["apiVersion"], "kind": kind, **i} for i in doc["items"])
    return out


def _follow(fake: Any, kubeconfig: Path, want: int, seconds: float = 30,
            warned: list[LoadWarning] | None = None) -> tuple[list[Seen], dict[str, Any]]:
    got: list[Seen] = []
    stop = threading.Event()
    result: dict[str, Any] = {}
    warnings = warned if warned is not None else []

    def emit(seen: Seen) -> None:
        got.append(seen)
        if len(got) >= want:
            stop.set()

    def run() -> None:
        import os

        os.environ.pop("KUBECONFIG", None)
        result.update(follow(kubeconfig=str(kubeconfig), context=None, request_timeout=10,
                             emit=emit, stop=stop, warn=warnings.append))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    deadline = time.monotonic() + seconds
    while thread.is_alive() and time.monotonic() < deadline:
        thread.join(0.2)
    stop.set()
    thread.join(5)
    return got, result


def test_follow_survives_a_410_and_a_dropped_connection(apiserver: Any, tmp_path: Path) -> None:
    fake = apiserver(_objects(), workload_versions=("v1alpha2",), resource_version=78,
                     events=True)
    fake.watch_streams[EVENTS_PATH] = (C / "watch-events.k8s.io-v1-events.jsonl").read_bytes(
        ).splitlines(keepends=True)
    fake.watch_streams[PODS_PATH] = (C / "watch-api-v1-pods.jsonl").read_bytes(
        ).splitlines(keepends=True)
    fake.expire_watch[EVENTS_PATH] = 1  # the first events watch: ERROR 410
    fake.drop_watch[EVENTS_PATH] = 4  # the next one is cut after low-1's Preempted (RV 91)
    got, result = _follow(fake, fake.write_kubeconfig(tmp_path / "kc"), want=3)
    assert [(s.preemption.victim.key, s.preemptor, s.preemption.node) for s in got] == [
        ("default/low-1", "pod group default/train-workers", None),
        ("default/low-2", "pod group default/train-workers", None),
        ("default/low-3", "pod group default/train-workers", None)]
    # one preemption (pod group train-workers' UID) taking three pods: victims 1, 2, 3 of it
    assert [s.victims_so_far for s in got] == [1, 2, 3]
    # listed twice (start, then after the 410); watched from 78 twice, then resumed at 91
    assert result["lists"]["Event"] == 2
    assert result["watches"]["Event"][:3] == ["78", "78", "91"]
    assert fake.methods() == {"GET"}


def test_a_relist_long_after_the_start_gets_its_own_deadline(apiserver: Any,
                                                             tmp_path: Path) -> None:
    """--request-timeout bounds each list, not the whole follow: a 410 that comes after the
    timeout has passed is still answered by a new list (a merged Retrier once made the command's
    deadline apply to the re-list, which then failed with "ran out before GET")."""
    fake = apiserver(_objects(), workload_versions=("v1alpha2",), resource_version=78,
                     events=True)
    fake.watch_streams[EVENTS_PATH] = (C / "watch-events.k8s.io-v1-events.jsonl").read_bytes(
        ).splitlines(keepends=True)
    fake.watch_hold = 1.5  # each watch stays open 1.5 s, past the 1 s timeout below
    kubeconfig = fake.write_kubeconfig(tmp_path / "kc")
    stop = threading.Event()
    result: dict[str, Any] = {}
    errors: list[BaseException] = []

    def run() -> None:
        import os

        os.environ.pop("KUBECONFIG", None)
        try:
            result.update(follow(kubeconfig=str(kubeconfig), context=None, request_timeout=1,
                                 emit=lambda seen: None, stop=stop))
        except BaseException as exc:  # the thread's failure is the test's
            errors.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    time.sleep(0.5)
    fake.expire_watch[EVENTS_PATH] = 1  # the second events watch (at ~1.5 s): ERROR 410
    deadline = time.monotonic() + 8
    while time.monotonic() < deadline and thread.is_alive():
        lists = [p for m, p in fake.requests if p.split("?")[0] == EVENTS_PATH
                 and "watch=true" not in p]
        if len(lists) >= 2:
            break
        time.sleep(0.1)
    time.sleep(0.3)  # let the second list finish
    stop.set()
    thread.join(5)
    assert errors == []
    assert result["lists"]["Event"] == 2


def _streams(fake: Any, scheduler: str | None = None, pods_name_it: bool = True,
             note: tuple[str, str] | None = None) -> None:
    """C's recorded streams; ``scheduler``: the events' reporter (and, with ``pods_name_it``,
    every watched pod's spec.schedulerName) renamed to it; ``note``: (old, new) in the events
    stream's first line holding ``old``."""
    events = (C / "watch-events.k8s.io-v1-events.jsonl").read_bytes().splitlines(keepends=True)
    pods = (C / "watch-api-v1-pods.jsonl").read_bytes().splitlines(keepends=True)
    if scheduler:
        events = [line.replace(b'"reportingController":"default-scheduler"',
                               f'"reportingController":"{scheduler}"'.encode()) for line in events]
        if pods_name_it:
            pods = [line.replace(b'"schedulerName":"default-scheduler"',
                                 f'"schedulerName":"{scheduler}"'.encode()) for line in pods]
    if note:
        i = next(i for i, line in enumerate(events) if note[0].encode() in line)
        events[i] = events[i].replace(note[0].encode(), note[1].encode())
    fake.watch_streams[EVENTS_PATH] = events
    fake.watch_streams[PODS_PATH] = pods


def test_a_scheduler_a_pod_names_counts_as_offline(apiserver: Any, tmp_path: Path) -> None:
    """C's events reported by my-scheduler, which the watched pods name in spec.schedulerName:
    offline history counts such events, so the watch hands on the same three victims (it once
    counted default-scheduler's only, and printed nothing)."""
    fake = apiserver(_objects(), workload_versions=("v1alpha2",), resource_version=78,
                     events=True)
    _streams(fake, "my-scheduler")
    got, _ = _follow(fake, fake.write_kubeconfig(tmp_path / "kc"), want=3)
    assert [(s.preemption.victim.key, s.preemption.event.reporter, s.victims_so_far)
            for s in got] == [("default/low-1", "my-scheduler", 1),
                              ("default/low-2", "my-scheduler", 2),
                              ("default/low-3", "my-scheduler", 3)]


def test_a_reporter_no_pod_names_is_not_the_scheduler(apiserver: Any, tmp_path: Path) -> None:
    """The same events reported by my-scheduler, but no pod names it: they are not the
    scheduler's (offline they count in notTheScheduler), so nothing is handed on."""
    fake = apiserver(_objects(), workload_versions=("v1alpha2",), resource_version=78,
                     events=True)
    _streams(fake, "my-scheduler", pods_name_it=False)
    got, _ = _follow(fake, fake.write_kubeconfig(tmp_path / "kc"), want=1, seconds=4)
    assert got == []


def test_each_document_is_one_victim_of_its_preemptor(apiserver: Any, tmp_path: Path) -> None:
    """What -o json prints per Seen: a PreemptionVictim (not a whole "Preemption": offline,
    C is one preemption taking three pods) with its preemptor and the count so far."""
    fake = apiserver(_objects(), workload_versions=("v1alpha2",), resource_version=78,
                     events=True)
    _streams(fake)
    got, _ = _follow(fake, fake.write_kubeconfig(tmp_path / "kc"), want=3)
    doc = seen_to_dict(got[1])
    assert doc == {
        "apiVersion": "wapctl/v1", "kind": "PreemptionVictim",
        "time": "2026-12-03T18:08:06.043778Z", "victim": "default/low-2",
        "victimOwner": "Pod default/low-2",
        "preemptor": {"kind": "PodGroup", "uid": "4a205f51-5930-4aae-bb88-f0a8be55893f",
                      "description": "pod group default/train-workers"},
        "victimsSoFar": 2, "node": None,
        "note": "Preempted by podgroup 4a205f51-5930-4aae-bb88-f0a8be55893f on node cluster"}
    assert seen_line(doc) == (
        "2026-12-03T18:08:06.043778Z  pod group default/train-workers preempted default/low-2 "
        "(Pod default/low-2) [2 victims of this preemptor so far]")


def test_a_preempted_event_it_cannot_read_is_a_warning(apiserver: Any, tmp_path: Path) -> None:
    """low-1's Preempted note rewritten in a form wapctl does not read: it is a warning naming
    the event, and the other two victims are victims 1 and 2 of train-workers."""
    fake = apiserver(_objects(), workload_versions=("v1alpha2",), resource_version=78,
                     events=True)
    _streams(fake, note=("Preempted by podgroup 4a205f51-5930-4aae-bb88-f0a8be55893f on node "
                         "cluster", "Preempted by workload default/training on node cluster"))
    warned: list[LoadWarning] = []
    got, _ = _follow(fake, fake.write_kubeconfig(tmp_path / "kc"), want=2, warned=warned)
    assert [(s.preemption.victim.key, s.victims_so_far) for s in got] == [
        ("default/low-2", 1), ("default/low-3", 2)]
    (w,) = warned
    assert w.code == "UnreadPreemptedEvent" and w.object.startswith("Event default/low-1.")
    assert 'note "Preempted by workload default/training on node cluster"' in w.message
