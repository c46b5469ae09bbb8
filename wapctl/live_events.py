"""The scheduler's Events from a live cluster: listed with the objects, or followed as they come.

Listing: ``GET /apis/events.k8s.io/v1/events`` (every namespace, paginated) through
``wapctl.live``'s read-only client; the core ``/api/v1/events`` serves the same objects, so
one list is enough. A 403 is a warning (``EventsUnreadable``), not a failure.

Following (``history --watch``): one list-then-watch loop per resource (Events and Pods), as
client-go's reflector does: list, remember the list's ``resourceVersion``, watch from it,
remember each object's ``resourceVersion``; a dropped connection (or a watch the server ended)
resumes from the last one; a ``410 Gone`` (the version is too old: an HTTP 410, or an ``ERROR``
event with code 410 in the stream) is answered by a fresh list. Each new ``Preempted`` event is
handed on once (an Event listed again after a relist is not), with the preemptor resolved from
the pods seen. Only GET requests are sent. Nothing here prints: ``follow`` calls ``emit``.

The scheduler's events are those offline ``history`` counts (``wapctl.events``): reported by
``default-scheduler`` or by a scheduler some pod seen names in ``spec.schedulerName``. The two
streams are independent, so a ``Preempted`` event of a reporter no pod has named yet is held
and handed on when such a pod arrives.

A preemption (SPEC: every victim of one preemptor) cannot be known whole from a stream: the
preemptor may take more victims at any later time. So each ``Seen`` is one victim, with its
preemptor and how many victims of that preemptor were seen so far (``victims_so_far``); the
last one handed on for a preemptor counts what offline ``history`` counts for it.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from wapctl import live, live_retry
from wapctl.errors import ClusterError, Source
from wapctl.events import (
    DEFAULT_SCHEDULER,
    PREEMPTED,
    Preemption,
    SchedulerEvent,
    parse_preemption,
    read_event,
    unread_warning,
)
from wapctl.ingest import Document
from wapctl.model import LoadWarning
from wapctl.owners import Known, ObjectIndex, Owner

EVENTS = live.ListTarget("Event", "events.k8s.io/v1", "/apis/events.k8s.io/v1/events",
                         "events", forbidden_warning="EventsUnreadable")
PODS = live.ListTarget("Pod", "v1", "/api/v1/pods", "pods")
WATCH_SECONDS = 300  # each watch asks the server to end after this long (timeoutSeconds)
MAX_BACKOFF = 30.0


def _retrier(request_timeout: float) -> live_retry.Retrier:
    """GETs retried as the other live reads' are (``wapctl.live_retry``), one deadline."""
    return live_retry.Retrier(request_timeout, policy=live_retry.DEFAULT_POLICY)


def fetch_events(*, kubeconfig: str | None, context: str | None, request_timeout: float,
                 page_size: int) -> tuple[list[Document], tuple[LoadWarning, ...]]:
    """Every Event of the cluster (events.k8s.io/v1), as documents, and the warnings."""
    cfg, who, tls = live._client_configuration(kubeconfig, context)
    api = live.HttpGet(cfg, who, _retrier(request_timeout), tls)
    try:
        with live._progress(False) as bar:
            docs = api.list_all(EVENTS, page_size, bar)
        # live.list_all words a 403 for namespaces; say what it means for events
        warnings = tuple(replace(w, message=(
            f"403 Forbidden: not allowed to list events (GET {EVENTS.path}); no preemption "
            f"the scheduler recorded can be read; the ClusterRole in {live.RBAC_HINT} grants it"))
            if w.code == EVENTS.forbidden_warning else w for w in api.warnings)
        return docs, warnings
    finally:
        api.close()


# ---- following ------------------------------------------------------------------------------


class _Gone(Exception):
    """The resourceVersion watched from is too old: list again."""


def _lines(api: Any, path: str, query: list[tuple[str, Any]]) -> Iterator[bytes]:
    """The lines of a streamed GET (a watch), as they arrive. An HTTP error raises
    ``ClusterError`` (``_Gone`` for 410); a connection that breaks mid-stream just ends."""
    import urllib3

    request = api.api.param_serialize(
        method="GET", resource_path=path, query_params=query,
        header_params={"Accept": "application/json"}, auth_settings=["BearerToken"])
    connect = api.retrier.request_timeout or None
    resp = api.api.call_api(*request, _request_timeout=(connect, WATCH_SECONDS + 30))
    raw = resp.response
    try:
        if resp.status == 410:
            raise _Gone()
        if resp.status != 200:
            raise api.status_error(resp.status, raw.read(), path, path.rsplit("/", 1)[-1])
        buf = b""
        try:
            for chunk in raw.stream(64 * 1024):
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    if line.strip():
                        yield line
        except (urllib3.exceptions.ProtocolError, urllib3.exceptions.ReadTimeoutError):
            return  # dropped: the caller resumes from the last resourceVersion
        if buf.strip():
            yield buf
    finally:
        raw.release_conn()


@dataclass
class _Reflector:
    """List, then watch from the list's resourceVersion, resuming and relisting as needed;
    every object seen goes to ``sink(kind, type, object)`` (type ``LISTED`` for a list's)."""

    api: Any
    target: live.ListTarget
    sink: Callable[[str, str, dict[str, Any]], None]
    stop: threading.Event
    request_timeout: float = 30.0  # the deadline of each list (retries included), not the watch
    lists: int = 0
    watches: list[str] = field(default_factory=list)  # the resourceVersion of each watch

    def _list(self) -> str:
        self.api.retrier = _retrier(self.request_timeout)  # each (re)list has its own deadline
        status, doc = self.api.json(self.target.path, what=self.target.plural)
        if status != 200:
            raise self.api.status_error(status, doc, self.target.path, self.target.plural)
        self.lists += 1
        for item in doc.get("items") or []:
            self.sink(self.target.kind, "LISTED", live._as_document(item, self.target))
        return str((doc.get("metadata") or {}).get("resourceVersion") or "")

    def _watch(self, rv: str) -> tuple[str | None, int]:
        """Watch from ``rv``: the last resourceVersion seen (None: list again) and how many
        objects came."""
        self.watches.append(rv)
        query = [("watch", "true"), ("resourceVersion", rv), ("allowWatchBookmarks", "true"),
                 ("timeoutSeconds", WATCH_SECONDS)]
        seen = 0
        for line in _lines(self.api, self.target.path, query):
            event = json.loads(line)
            obj = event.get("object") or {}
            if event.get("type") == "ERROR":
                if obj.get("code") == 410:
                    return None, seen
                raise ClusterError(f"watch {self.target.path}: {obj.get('message') or obj}")
            rv = str((obj.get("metadata") or {}).get("resourceVersion") or rv)
            if event.get("type") != "BOOKMARK":
                seen += 1
                self.sink(self.target.kind, str(event.get("type")), obj)
            if self.stop.is_set():
                break
        return rv, seen

    def run(self) -> None:
        rv: str | None = None
        backoff = 0.5
        while not self.stop.is_set():
            try:
                if rv is None:
                    rv = self._list()
                started = time.monotonic()
                rv, seen = self._watch(rv)
                if seen or time.monotonic() - started > 5:
                    backoff = 0.5
                    continue
            except _Gone:
                rv = None
                continue
            except ClusterError as exc:
                if "410" in exc.message:
                    rv = None
                    continue
                self.sink("Error", "ERROR", {"message": exc.message})
            self.stop.wait(backoff)  # an empty or failed watch: do not spin
            backoff = min(MAX_BACKOFF, backoff * 2)


@dataclass(frozen=True)
class Seen:
    """One new victim (one ``Preempted`` event) as ``follow`` hands it on."""

    preemption: Preemption
    preemptor: str  # "pod ns/name", "pod group ns/name", or "pod UID <uid>"
    victim_owner: Owner | None
    victims_so_far: int = 1  # victims of this preemptor seen by this follow, this one too


class _Pods(ObjectIndex):
    """The pods seen so far, by UID (deleted ones kept: a victim is usually gone)."""

    def __init__(self) -> None:
        super().__init__()

    def add(self, obj: dict[str, Any]) -> None:
        self._add(obj)
        uid = (obj.get("metadata") or {}).get("uid")
        known = self.by_uid.get(uid) if isinstance(uid, str) else None
        if known is not None:
            self.pods[known.key] = known  # the newest pod of that name


def _describe(p: Preemption, pods: _Pods) -> str:
    known: Known | None = pods.by_uid.get(p.preemptor_uid) if p.preemptor_uid else None
    if p.preemptor_kind == "Pod":
        if known is not None:
            return f"pod {known.key}"
        return f"pod {p.preemptor_name}" if p.preemptor_name else f"pod UID {p.preemptor_uid}"
    # no members: the pods stream may not have delivered them all yet
    return f"pod group {p.preemptor_name or 'UID ' + str(p.preemptor_uid)}"


def follow(*, kubeconfig: str | None, context: str | None, request_timeout: float,
           emit: Callable[[Seen], None], stop: threading.Event | None = None,
           schedulers: frozenset[str] = frozenset({DEFAULT_SCHEDULER}),
           warn: Callable[[LoadWarning], None] | None = None) -> dict[str, Any]:
    """Follow the cluster's Events and Pods until ``stop`` is set (or Ctrl-C), calling
    ``emit`` once for each new victim (those already in the first list included).
    ``schedulers``: reporters that always count as the scheduler; a scheduler a pod seen names
    in ``spec.schedulerName`` counts too. ``warn`` gets an ``UnreadPreemptedEvent`` warning
    for a scheduler's ``Preempted`` event whose note is in no form known here.
    Returns what the loops did (``lists``, ``watches``: for tests and diagnostics)."""
    stop = stop or threading.Event()
    inbox: queue.Queue[tuple[str, str, dict[str, Any]]] = queue.Queue()

    def sink(kind: str, typ: str, obj: dict[str, Any]) -> None:
        inbox.put((kind, typ, obj))

    reflectors = []
    for target in (PODS, EVENTS):
        cfg, who, tls = live._client_configuration(kubeconfig, context)
        reflectors.append(_Reflector(live.HttpGet(cfg, who, _retrier(request_timeout), tls),
                                     target, sink, stop, request_timeout))
    threads = [threading.Thread(target=r.run, daemon=True) for r in reflectors]
    for t in threads:
        t.start()
    try:
        _Consumer(emit, warn or (lambda w: None), set(schedulers)).run(inbox, stop)
    finally:
        stop.set()
        for r in reflectors:
            r.api.close()
    return {"lists": {r.target.kind: r.lists for r in reflectors},
            "watches": {r.target.kind: list(r.watches) for r in reflectors}}


@dataclass
class _Consumer:
    """What ``follow`` does with each object the reflectors deliver."""

    emit: Callable[[Seen], None]
    warn: Callable[[LoadWarning], None]
    schedulers: set[str]  # default-scheduler and every schedulerName of the pods seen
    pods: _Pods = field(default_factory=_Pods)
    seen: set[str] = field(default_factory=set)  # Event UIDs handed on (or warned of)
    held: dict[str, dict[str, SchedulerEvent]] = field(default_factory=dict)  # by reporter
    victims: dict[str, int] = field(default_factory=dict)  # by Preemption.preemptor_id

    def run(self, inbox: queue.Queue[tuple[str, str, dict[str, Any]]],
            stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                kind, _typ, obj = inbox.get(timeout=0.2)
            except queue.Empty:
                continue
            if kind == "Error":
                raise ClusterError(obj["message"])
            if kind == "Pod":
                self.pod({"apiVersion": "v1", "kind": "Pod", **obj})
            else:
                self.event(read_event({"apiVersion": EVENTS.api_version, "kind": "Event",
                                       **obj}, Source(EVENTS.path)))

    def pod(self, obj: dict[str, Any]) -> None:
        self.pods.add(obj)
        spec = obj.get("spec")
        name = spec.get("schedulerName") if isinstance(spec, dict) else None
        if isinstance(name, str) and name and name not in self.schedulers:
            self.schedulers.add(name)
            for event in self.held.pop(name, {}).values():
                self.event(event)

    def event(self, event: SchedulerEvent) -> None:
        if event.reason != PREEMPTED or event.uid in self.seen:
            return
        if event.reporter not in self.schedulers:  # until a pod names it as its scheduler
            self.held.setdefault(event.reporter, {})[event.uid] = event
            return
        self.seen.add(event.uid)
        p = parse_preemption(event)
        if p is None:
            self.warn(unread_warning(event))
            return
        n = self.victims[p.preemptor_id] = self.victims.get(p.preemptor_id, 0) + 1
        victim = self.pods.pod(p.victim.namespace, p.victim.name, p.victim.uid)
        self.emit(Seen(p, _describe(p, self.pods),
                       self.pods.owner(victim) if victim is not None else None, n))
