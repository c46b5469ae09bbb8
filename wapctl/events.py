"""The scheduler's Events among the documents read: what it wrote about preemption.

Both Event APIs load, as the API server lists them (``EventList`` items without ``kind`` /
``apiVersion``: ``wapctl.ingest`` gives them the list's) and as kubectl prints them (``List``
of items that carry both):

- core ``v1`` Event: ``involvedObject``, ``message``, ``reportingComponent`` (or
  ``source.component``), ``firstTimestamp`` / ``lastTimestamp`` / ``count``;
- ``events.k8s.io/v1`` Event: ``regarding``, ``note``, ``reportingController`` (or
  ``deprecatedSource.component``), ``deprecatedFirstTimestamp`` / ...

Both carry ``eventTime``, ``series``, ``related``, ``action``, ``reason``. The API server keeps
one object per event and serves it through both APIs, so the same object read from both
lists (same ``metadata.uid``) counts once.

An event is the scheduler's when its reporter is ``default-scheduler`` or a scheduler named by
some pod's ``spec.schedulerName``; every other event (the apiserver's ``KubeAPIReadyz``, the
kubelet's, controllers') is only counted.

kube-scheduler (v1.36, pkg/scheduler/framework/preemption) writes one ``Preempted`` event per
victim pod: ``Preempted by pod <preemptor UID> on node <node>`` for a pod preemptor, and
``Preempted by podgroup <PodGroup UID> on node cluster`` with ``related`` = the PodGroup for
a pod group's (workload-aware) preemption. Older schedulers wrote ``Preempted by
<namespace>/<name> on node <node>``; that form is read too.

Times are kept as the event wrote them and ordered as the instants they name (``instant``):
``18:00:00Z`` (a ``metav1.Time``) is before ``18:00:00.5Z`` (a ``MicroTime``). Nothing here
prints.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from wapctl.errors import InputError, Source
from wapctl.model import LoadWarning

DEFAULT_SCHEDULER = "default-scheduler"
CORE_API = "v1"
EVENTS_API = "events.k8s.io/v1"
EVENT_APIS = (CORE_API, EVENTS_API)
# The API server's default --event-ttl: events older than this are gone.
DEFAULT_EVENT_TTL_SECONDS = 3600

PREEMPTED = "Preempted"
# The warning for a scheduler's Preempted event that no preemption could be read from.
UNREAD_PREEMPTED = "UnreadPreemptedEvent"
FAILED_SCHEDULING = "FailedScheduling"
SCHEDULED = "Scheduled"

_PREEMPTED_NOTE = re.compile(
    r"Preempted by (?:(?P<kind>pod|podgroup) )?(?P<who>\S+) on node (?P<node>\S+)\s*"
)
# The node the scheduler writes for a pod group's preemption: there is no one node.
CLUSTER_NODE = "cluster"
# RFC 3339, as the API server writes an event's times: ``metav1.Time`` whole seconds
# (``2026-12-03T18:07:34Z``), ``metav1.MicroTime`` with fractional seconds (``...34.700244Z``).
_RFC3339 = re.compile(r"(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?"
                      r"([Zz]|[+-]\d{2}:\d{2})")
_NO_TIME = datetime.min.replace(tzinfo=timezone.utc)


def instant(text: str) -> tuple[datetime, int] | None:
    """The instant an RFC 3339 time names, as something to compare (the whole second, then
    the nanoseconds), or None when ``text`` is not one. ``18:00:00Z`` is before
    ``18:00:00.5Z``, whatever the strings' order; offsets are honoured."""
    m = _RFC3339.fullmatch(text)
    if m is None:
        return None
    offset = m.group(4).upper()
    try:
        whole = datetime.fromisoformat(
            f"{m.group(1)}T{m.group(2)}{'+00:00' if offset == 'Z' else offset}")
    except ValueError:  # 2026-13-45 and the like
        return None
    return whole, int((m.group(3) or "").ljust(9, "0"))


def time_key(text: str | None) -> tuple[int, datetime, int]:
    """A sort key for an event time (``SchedulerEvent.time``, which ``read_event`` checked):
    no time first, then by instant."""
    at = instant(text) if text else None
    return (0, _NO_TIME, 0) if at is None else (1, *at)


@dataclass(frozen=True, slots=True)
class ObjectRef:
    """``regarding`` / ``involvedObject`` / ``related``: who an event is about."""

    kind: str
    namespace: str
    name: str
    uid: str | None = None
    api_version: str | None = None
    resource_version: str | None = None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


@dataclass(frozen=True, slots=True)
class SchedulerEvent:
    """One event the scheduler wrote, whichever API it was read from."""

    uid: str  # metadata.uid, else "namespace/name" of the Event
    namespace: str
    name: str
    reason: str
    note: str
    type: str
    regarding: ObjectRef | None
    related: ObjectRef | None
    reporter: str
    time: str | None  # eventTime, else the first timestamp, else metadata.creationTimestamp
    last_time: str | None  # series.lastObservedTime, else the last timestamp, else ``time``
    count: int  # series.count / count / deprecatedCount; 1 when none is given
    source: Source | None = None


@dataclass(frozen=True, slots=True)
class Preemption:
    """One ``Preempted`` event: a victim pod and what its note says of the preemptor."""

    victim: ObjectRef
    preemptor_kind: str  # "Pod" | "PodGroup"
    preemptor_uid: str | None  # None in the old ``namespace/name`` form
    preemptor_name: str | None  # "ns/name": the old form's, or ``related``'s for a pod group
    node: str | None  # None for a pod group's preemption (the note says "cluster")
    time: str | None
    event: SchedulerEvent

    @property
    def preemptor_id(self) -> str:
        """What tells one preemptor from another: its UID, else its name."""
        return self.preemptor_uid or f"{self.preemptor_kind} {self.preemptor_name}"


@dataclass(frozen=True)
class EventLog:
    """The scheduler's events, oldest first; ``preemptions`` are the parsed ``Preempted`` ones
    (same order). ``others``: events read that are not the scheduler's; ``unparsed``:
    ``Preempted`` events whose note is in no form known here (kept in ``events``)."""

    events: tuple[SchedulerEvent, ...] = ()
    preemptions: tuple[Preemption, ...] = ()
    others: int = 0
    unparsed: tuple[SchedulerEvent, ...] = ()
    read: int = 0  # Event objects read (after removing the copies from the other API)

    def about(self, kind: str, namespace: str, name: str,
              reason: str | None = None) -> list[SchedulerEvent]:
        """The scheduler's events regarding one object, oldest first."""
        return [e for e in self.events
                if e.regarding is not None and e.regarding.kind == kind
                and e.regarding.namespace == namespace and e.regarding.name == name
                and (reason is None or e.reason == reason)]

    def preemptions_of(self, namespace: str, name: str) -> list[Preemption]:
        """The preemptions that took the pod ``namespace/name`` (several when a re-created
        pod of the same name was preempted again), oldest first."""
        return [p for p in self.preemptions
                if p.victim.namespace == namespace and p.victim.name == name]

    def same_preemption(self, preemption: Preemption) -> list[Preemption]:
        """Every victim of the preemptor that took ``preemption``'s victim, oldest first."""
        return [p for p in self.preemptions if p.preemptor_id == preemption.preemptor_id]


# ---- reading --------------------------------------------------------------------------------


def is_event(obj: Mapping[str, Any]) -> bool:
    return obj.get("kind") == "Event" and obj.get("apiVersion") in EVENT_APIS


def _text(obj: Mapping[str, Any], field: str) -> str:
    value = obj.get(field)
    return value if type(value) is str else ""


def _str(obj: Mapping[str, Any], field: str, source: Source | None, what: str) -> str:
    value = obj.get(field)
    if value is None:
        return ""
    if type(value) is not str:
        raise InputError(f"must be a string, not {type(value).__name__}", source, what)
    return value


def _ref(value: Any, source: Source | None, field: str) -> ObjectRef | None:
    if value is None:
        return None
    if type(value) is not dict:
        raise InputError(f"must be a mapping, not {type(value).__name__}", source, field)

    def text(name: str) -> str | None:
        v = value.get(name)
        if v is not None and type(v) is not str:
            raise InputError(f"must be a string, not {type(v).__name__}", source,
                             f"{field}.{name}")
        return v or None

    return ObjectRef(kind=text("kind") or "", namespace=text("namespace") or "",
                     name=text("name") or "", uid=text("uid"), api_version=text("apiVersion"),
                     resource_version=text("resourceVersion"))


def _count(obj: Mapping[str, Any], core: bool, source: Source | None) -> int:
    series = obj.get("series")
    if type(series) is dict and type(series.get("count")) is int:
        return int(series["count"])
    value = obj.get("count" if core else "deprecatedCount")
    if value is None:
        return 1
    if type(value) is not int:
        raise InputError(f"must be an integer, not {type(value).__name__}", source,
                         "count" if core else "deprecatedCount")
    return max(1, value)


def _time(candidates: Iterable[tuple[str, Any]], source: Source | None) -> str | None:
    """The first candidate that is a non-empty string, as written; ``InputError`` naming its
    field when it is not an RFC 3339 time."""
    for field, value in candidates:
        if type(value) is str and value:
            if instant(value) is None:
                raise InputError(f"not an RFC 3339 time: {value!r}", source, field)
            return value
    return None


def _times(obj: Mapping[str, Any], core: bool,
           source: Source | None) -> tuple[str | None, str | None]:
    first_field, last_field = (("firstTimestamp", "lastTimestamp") if core else
                               ("deprecatedFirstTimestamp", "deprecatedLastTimestamp"))
    meta: Mapping[str, Any] = obj["metadata"] if type(obj.get("metadata")) is dict else {}
    first = _time((("eventTime", obj.get("eventTime")), (first_field, obj.get(first_field)),
                   ("metadata.creationTimestamp", meta.get("creationTimestamp"))), source)
    series = obj.get("series")
    observed = series.get("lastObservedTime") if type(series) is dict else None
    last = _time((("series.lastObservedTime", observed), (last_field, obj.get(last_field))),
                 source)
    return first, last or first


def read_event(obj: Mapping[str, Any], source: Source | None = None) -> SchedulerEvent:
    """One Event object (either API) as a ``SchedulerEvent``; ``InputError`` naming the Event
    and the field when a field the scheduler's events carry has the wrong shape."""
    core = obj.get("apiVersion") == CORE_API
    meta: Mapping[str, Any] = obj["metadata"] if type(obj.get("metadata")) is dict else {}
    ns, name = _text(meta, "namespace"), _text(meta, "name")
    label = f"Event {ns}/{name}" if ns else f"Event {name}"
    try:
        regarding = _ref(obj.get("involvedObject" if core else "regarding"), source,
                         "involvedObject" if core else "regarding")
        related = _ref(obj.get("related"), source, "related")
        note = _str(obj, "message" if core else "note", source, "message" if core else "note")
        reporter = _str(obj, "reportingComponent" if core else "reportingController", source,
                        "reportingComponent" if core else "reportingController")
        if not reporter:
            old = obj.get("source" if core else "deprecatedSource")
            if type(old) is dict and type(old.get("component")) is str:
                reporter = old["component"]
        first, last = _times(obj, core, source)
        event = SchedulerEvent(
            uid=_text(meta, "uid") or f"{ns}/{name}",
            namespace=ns, name=name, reason=_str(obj, "reason", source, "reason"),
            note=note, type=_str(obj, "type", source, "type"), regarding=regarding,
            related=related, reporter=reporter, time=first, last_time=last,
            count=_count(obj, core, source), source=source)
    except InputError as exc:
        raise exc.about(label) from None
    return event


def parse_preemption(event: SchedulerEvent) -> Preemption | None:
    """The preemption a ``Preempted`` event records, or None when its note is in no form
    known here (or it regards no pod)."""
    if event.reason != PREEMPTED or event.regarding is None or event.regarding.kind != "Pod":
        return None
    m = _PREEMPTED_NOTE.fullmatch(event.note)
    if m is None:
        return None
    who, node = m.group("who"), m.group("node")
    kind = "PodGroup" if m.group("kind") == "podgroup" else "Pod"
    uid: str | None = who
    name: str | None = None
    if m.group("kind") is None:  # the old form: namespace/name, no UID
        if "/" not in who:
            return None
        uid, name = None, who
    if event.related is not None and event.related.kind == kind:
        name = event.related.key
    return Preemption(victim=event.regarding, preemptor_kind=kind, preemptor_uid=uid,
                      preemptor_name=name, node=None if node == CLUSTER_NODE and
                      kind == "PodGroup" else node, time=event.time, event=event)


def scheduler_names(documents: Iterable[Any]) -> frozenset[str]:
    """``default-scheduler`` and every ``spec.schedulerName`` of the pods read."""
    names = {DEFAULT_SCHEDULER}
    for doc in documents:
        obj = doc.obj
        if obj.get("kind") == "Pod" and type(obj.get("spec")) is dict:
            name = obj["spec"].get("schedulerName")
            if type(name) is str and name:
                names.add(name)
    return frozenset(names)


def _sort_key(e: SchedulerEvent) -> tuple[tuple[int, datetime, int], str, str, str]:
    return (time_key(e.time), e.namespace, e.name, e.uid)


def read_events(documents: Iterable[Any], schedulers: frozenset[str] | None = None) -> EventLog:
    """The scheduler's events among ``documents`` (``wapctl.ingest.Document``s; any other kind
    is skipped), oldest first. ``schedulers``: the reporters that count as the scheduler
    (default: ``scheduler_names`` of the same documents)."""
    docs = list(documents)
    if schedulers is None:
        schedulers = scheduler_names(docs)
    seen: dict[str, SchedulerEvent] = {}
    others: set[str] = set()
    for doc in docs:
        if not is_event(doc.obj):
            continue
        event = read_event(doc.obj, doc.source)
        if event.reporter not in schedulers:
            others.add(event.uid)
            continue
        known = seen.get(event.uid)
        if known is None or time_key(event.last_time) > time_key(known.last_time):
            seen[event.uid] = event  # the later copy: a series grows between two reads
    events = tuple(sorted(seen.values(), key=_sort_key))
    preemptions: list[Preemption] = []
    unparsed: list[SchedulerEvent] = []
    for e in events:
        p = parse_preemption(e)
        if p is not None:
            preemptions.append(p)
        elif e.reason == PREEMPTED:
            unparsed.append(e)
    return EventLog(events=events, preemptions=tuple(preemptions), others=len(others),
                    unparsed=tuple(unparsed), read=len(seen) + len(others))


def unread_warnings(log: EventLog, pod: str | None = None) -> tuple[LoadWarning, ...]:
    """An ``UnreadPreemptedEvent`` warning for each of ``log.unparsed`` (a scheduler's
    ``Preempted`` event no preemption was read from: a note in no form known here, or no pod
    regarded), or only for those regarding the pod ``pod`` ("namespace/name")."""
    return tuple(unread_warning(e) for e in log.unparsed
                 if pod is None or (e.regarding is not None and e.regarding.kind == "Pod"
                                    and e.regarding.key == pod))


def unread_warning(e: SchedulerEvent) -> LoadWarning:
    """The ``UnreadPreemptedEvent`` warning for one ``Preempted`` event no preemption was
    read from (``parse_preemption`` gave None)."""
    about = e.regarding
    regarding = f"{about.kind} {about.key}" if about is not None else "no object"
    return LoadWarning(
        UNREAD_PREEMPTED, f"Event {e.namespace}/{e.name}" if e.namespace else f"Event {e.name}",
        None, f'a Preempted event of {e.reporter} that wapctl cannot read as a preemption '
        f'(note "{e.note}", regarding {regarding}): it is counted in no preemption',
        source=e.source)
