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


def _follow(fake: Any, kubeconfig: Path, want: int) -> tuple[list[Seen], dict[str, Any]]:
    got: list[Seen] = []
    stop = threading.Event()
    result: dict[str, Any] = {}

    def emit(seen: Seen) -> None:
        got.append(seen)
        if len(got) >= want:
            stop.set()

    def run() -> None:
        import os

        os.environ.pop("KUBECONFIG", None)
        result.update(follow(kubeconfig=str(kubeconfig), context=None, request_timeout=10,
                             emit=emit, stop=stop))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
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
