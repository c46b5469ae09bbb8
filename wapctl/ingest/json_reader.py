"""The fast path of reading a snapshot: decode only what wapctl reads.

``wapctl.ingest`` hands every input's bytes here first. For JSON, ``msgspec`` decodes the
document against a schema of the fields wapctl's builders read (``_Object``: of ``metadata``
the name, namespace, labels, timestamps and UID -- and owner references inside
``owner_references()``; an Event's fields; of ``spec`` the fields any kind's builder reads,
with a pod's containers cut to name, resources, ports (host port, protocol, host IP) and
restartPolicy, its tolerations to key, operator, value and effect, and its volumes to the
kinds a warning names; of ``status`` only the fields any builder reads, conditions cut to
type, status and reason, container statuses to name, ``resources.requests`` and
``allocatedResources`` (an in-place resize, wapctl.ingest.resize) -- conditions, container
statuses, volumes and tolerations are first kept as raw text and decoded only where read, see
``_plain``); everything else -- ``managedFields``, annotations, env, images, probes, mounts,
a container status's state and image, node ``images``, ... -- is skipped by the
decoder without building a Python object for it. Each object then becomes the plain ``dict``
the builders expect, as ``json.loads`` would have made it minus the skipped fields (``kept``
gives the same projection of an object read elsewhere). A cut part (spec, a container, ...)
that is not a JSON object is kept as it is, for the builder to report as the safe path would.

Whenever the fast path is not sure, it returns ``None`` and the caller takes the safe path
(``json`` / PyYAML, with today's exact errors): a syntax error, a document that is not an
object, a List item that is not an object, a field of the wrong shape for the schema, an
integer outside 64 bits, a document nested deeper than the limit. So on any input the fast
path gives either what the safe path gives (fields the builders read) or nothing.

YAML reaches this module too: ``yaml_reader`` turns a YAML input that YAML 1.1 (PyYAML)
and JSON read alike into JSON text with rapidyaml's C++ emitter and hands it to ``read_json``;
anything else takes PyYAML's path (see that module).

A builder that starts reading a new field must add it to the schema below (the differential
test, tests/test_reader_differential.py, builds every fixture both ways and fails otherwise).

A List (an object with an ``items`` array: every export) over ``SLICE`` (4 MiB) is read in
slices of whole items, ``read_list``: only the objects stay, not the text (a mapped file's
pages are handed back as they are read), so a 3.5 GB export is read in far less memory than
its size. Any other document, and any of 4 MiB or less, is decoded whole. A lone object (a
YAML stream's document) is decoded with a List item's schema.

Depth: no walk. Before the decode, one pass of RE2's DFA over the text (``nested_within``)
checks that its brackets nest at most ``MAX_DEPTH`` deep -- in a kept field or a skipped one;
a document nested deeper takes the safe path, which reports it exactly (a List's slices are
checked by the pattern that finds them). The pass costs as much as the decode or more (a
220 MB export: 0.37 s against 0.28-0.32 s; 722 MB: 1.24 s). No interpreter-wide state
(recursion limit) is touched, and every supported Python takes the fast path alike.
"""

from __future__ import annotations

import functools
import mmap
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, cast

import msgspec
import re2

from wapctl.ingest.utf8 import Utf8Check

# The fields of each part that any builder reads (wapctl.ingest: pod, constraints, templates,
# drift; a document's own metadata also keeps the server-version annotation). Every field
# is ``Any`` unless cut further below: the builders check types and report mistakes exactly
# as on the safe path.
_UNSET = msgspec.UNSET
META_FIELDS = (
    "name",
    "namespace",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    # Events name objects by UID (wapctl.owners, wapctl.events)
    "uid",
)
# Kept only inside ``with owner_references():`` (explain and history name a pod's workload by
# them): every pod carries them, and decoding them costs a plan on a large cluster ~30% more.
_OWNER_FIELDS = ("ownerReferences",)
STATUS_FIELDS = (
    # Pod
    "phase",
    "nominatedNodeName",
    "startTime",
    "conditions",  # DisruptionTarget (a pod being preempted), PodResizePending (resize)
    "containerStatuses",  # in-place resize: what a container holds (wapctl.ingest.resize)
    "initContainerStatuses",
    # Node
    "allocatable",
    "capacity",
    # PodDisruptionBudget
    "disruptionsAllowed",
    "disruptedPods",
)
# ``spec``: the fields any builder reads, of any kind (wapctl.ingest: node, pod, constraints,
# templates, drift). A pod's containers keep only what the builders read of them (requests,
# host ports, sidecar restartPolicy) and its volumes only the kinds a warning names; env,
# images, commands, probes, mounts, the projected service-account volume, ... are skipped.
SPEC_FIELDS = (
    # Pod (wapctl.ingest.pod.read_pod and the helpers it calls, constraints, drift)
    "containers",
    "initContainers",
    "overhead",
    "resources",  # pod-level resources
    "nodeName",
    "nodeSelector",
    "affinity",
    "tolerations",
    "topologySpreadConstraints",
    "priority",
    "priorityClassName",
    "preemptionPolicy",
    "schedulerName",
    "schedulingGates",
    "resourceClaims",
    "volumes",
    "workloadRef",  # also a v1alpha3 PodGroup's template reference
    "schedulingGroup",
    "runtimeClassName",
    "hostNetwork",
    # Node
    "taints",
    "unschedulable",
    # PodDisruptionBudget
    "selector",
    "minAvailable",
    "maxUnavailable",
    "unhealthyPodEvictionPolicy",
    # Workload and PodGroup (every version)
    "podGroups",
    "podGroupTemplates",
    "compositePodGroupTemplates",
    "podGroupTemplateRef",
    "preemptionPriorityClassName",
    "schedulingPolicy",
    "schedulingConstraints",
    "disruptionMode",
    "controllerRef",
    # controllers with pod templates (wapctl.ingest.templates)
    "template",
    "jobTemplate",
    "replicatedJobs",
    "leaderWorkerTemplate",
    "replicas",
)
CONTAINER_FIELDS = ("name", "resources", "restartPolicy", "ports")
PORT_FIELDS = ("hostPort", "protocol", "hostIP")  # constraints.host_ports
TOLERATION_FIELDS = ("key", "operator", "value", "effect")  # wapctl.ingest.pod._toleration
CONDITION_FIELDS = ("type", "status", "reason")  # DisruptionTarget (wapctl.ingest.pod.read_pod)
# a container's status: what an in-place resize left it holding (wapctl.ingest.resize)
CONTAINER_STATUS_FIELDS = ("name", "resources", "allocatedResources")
STATUS_RESOURCES_FIELDS = ("requests",)  # of a container status's ``resources``
VOLUME_FIELDS = ("persistentVolumeClaim", "ephemeral")
# top-level fields of the kinds wapctl reads (PriorityClass keeps its fields at the top)
OBJECT_FIELDS = (
    "apiVersion",
    "kind",
    "metadata",
    "spec",
    "status",
    "value",
    "globalDefault",
    "description",
    "preemptionPolicy",
    "template",
    # Event, core v1 and events.k8s.io/v1 (wapctl.events.read_event)
    "involvedObject",
    "regarding",
    "related",
    "reason",
    "message",
    "note",
    "type",
    "reportingComponent",
    "reportingController",
    "source",
    "deprecatedSource",
    "eventTime",
    "firstTimestamp",
    "lastTimestamp",
    "deprecatedFirstTimestamp",
    "deprecatedLastTimestamp",
    "count",
    "deprecatedCount",
    "series",
)


def _struct(name: str, fields: tuple[str, ...], types: dict[str, Any] | None = None) -> Any:
    types = types or {}
    return msgspec.defstruct(
        name,
        [(f, types.get(f, Any), _UNSET) for f in fields],
        omit_defaults=True,
        gc=False,
    )


def _total(struct: Any) -> Any:
    """``struct`` where JSON has an object, any other JSON value as it is: a field of this type
    never fails to decode (a builder then reports a wrong shape as the safe path would)."""
    return struct | list | str | int | float | bool | None


def _list_of(struct: Any) -> Any:
    """A list of ``struct``s where JSON has a list (other elements as they are), any other
    JSON value as it is."""
    item: Any = _total(struct)
    return list[item] | dict | str | int | float | bool | None


# A pod's conditions and volumes are read for few pods (conditions of terminating pods only,
# volumes of unscheduled ones only, and of every pod for explain, which makes a bound
# preemptor pending again) but are many small objects on every pod: they are kept as
# raw JSON text by the decoder (no object built) and decoded only for the pods that need them
# (``_plain``); for the others they are left out, as for any field no builder reads.
_Raw = msgspec.Raw
_Condition = _struct("_Condition", CONDITION_FIELDS)
_Status = _struct(
    "_Status",
    STATUS_FIELDS,
    {"conditions": _Raw, "containerStatuses": _Raw, "initContainerStatuses": _Raw},
)
_StatusResources = _struct("_StatusResources", STATUS_RESOURCES_FIELDS)
_ContainerStatus = _struct(
    "_ContainerStatus", CONTAINER_STATUS_FIELDS, {"resources": _total(_StatusResources)}
)
_Port = _struct("_Port", PORT_FIELDS)
_Container = _struct("_Container", CONTAINER_FIELDS, {"ports": _list_of(_Port)})
_Volume = _struct("_Volume", VOLUME_FIELDS)
_Toleration = _struct("_Toleration", TOLERATION_FIELDS)
_Spec = _struct(
    "_Spec",
    SPEC_FIELDS,
    {
        "containers": _list_of(_Container),
        "initContainers": _list_of(_Container),
        "volumes": _Raw,
        "tolerations": _Raw,
    },
)
_CONDITIONS = msgspec.json.Decoder(_list_of(_Condition))
_CONTAINER_STATUSES = msgspec.json.Decoder(_list_of(_ContainerStatus))
_VOLUMES = msgspec.json.Decoder(_list_of(_Volume))
_TOLERATIONS = msgspec.json.Decoder(_list_of(_Toleration))
# A pod's tolerations as raw text -> their decoded list, one list shared by every pod that
# writes them alike (a cluster's pods repeat the same few: the defaults for not-ready and
# unreachable nodes, a GPU taint's). Documents are read, never changed, so sharing is safe; the
# builder then reads each shared list once (wapctl.ingest.pod._tolerations).
_SHARED_TOLERATIONS: dict[bytes, Any] = {}
_SHARED_LIMIT = 4096


# the one annotation read: the server version ``wapctl snapshot`` writes on its List
# (wapctl.ingest.decode.SERVER_VERSION_ANNOTATION); a document's other annotations are left out
_SERVER_VERSION = msgspec.defstruct(
    "_Annotations",
    [("server_version", Any, _UNSET)],
    rename={"server_version": "wapctl.io/server-version"},
    omit_defaults=True,
    gc=False,
)


def _schema(meta_fields: tuple[str, ...]) -> tuple[Any, Any, Any]:
    """The object struct, the document decoder and the decoder of a slice of List items (a
    JSON array of objects) keeping ``meta_fields`` of metadata."""
    meta = _struct("_Meta", meta_fields)
    document_meta = _struct(
        "_DocumentMeta", (*meta_fields, "annotations"), {"annotations": _total(_SERVER_VERSION)}
    )
    obj = _struct(
        "_Object",
        OBJECT_FIELDS,
        {"metadata": _total(meta), "status": _Status | None, "spec": _total(_Spec)},
    )
    # A document: one object, read as a List item is (a stream brings one object a
    # document), or a List of them (``items``). A non-List object with an ``items`` field
    # keeps it as decoded objects; the builders never read it.
    document = _struct(
        "_Document",
        (*OBJECT_FIELDS, "items"),
        {
            "metadata": _total(document_meta),
            "status": _Status | None,
            "spec": _total(_Spec),
            "items": list[obj] | None,  # type: ignore[valid-type]
        },
    )
    return obj, msgspec.json.Decoder(document), msgspec.json.Decoder(list[obj])  # type: ignore[valid-type]


_Object, _DECODER, _ITEMS_DECODER = _schema(META_FIELDS)
_OWNERS_OBJECT, _OWNERS_DECODER, _OWNERS_ITEMS_DECODER = _schema((*META_FIELDS, *_OWNER_FIELDS))
_owners = threading.local()


@contextmanager
def owner_references() -> Iterator[None]:
    """Within it (this thread), ``read_json`` keeps ``metadata.ownerReferences`` too."""
    before = getattr(_owners, "on", False)
    _owners.on = True
    try:
        yield
    finally:
        _owners.on = before


def keeps_owner_references() -> bool:
    return bool(getattr(_owners, "on", False))


_to_builtins = msgspec.to_builtins
_RAW_TYPES = (_Raw,)


def _plain(struct: Any) -> dict[str, Any]:
    """A decoded object as the plain dict the builders read: each struct (nested ones too)
    becomes a dict of the fields the input set, in C (``to_builtins``: every default is UNSET
    and omitted; the values it copies are JSON's dicts, lists and scalars). The raw
    ``status.conditions`` are decoded for a terminating pod (``deletionTimestamp`` set: the
    DisruptionTarget condition, wapctl.ingest.pod._preempted_by_scheduler) and for a pod with
    a PodResizePending condition (wapctl.ingest.resize.infeasible), the container statuses
    for every pod that has them, and ``spec.volumes`` for
    a pod without ``spec.nodeName`` (the VolumeNotModelled warning of a pending or gated pod),
    for every pod inside ``owner_references()`` (explain's replay unbinds its preemptor);
    elsewhere no builder reads them and they are left out. No raw text stays behind (it
    refers to the input's buffer)."""
    out: dict[str, Any] = _to_builtins(struct, builtin_types=_RAW_TYPES)
    _decode_raw(out)
    return out


def _decode_raw(out: dict[str, Any]) -> None:
    status = out.get("status")
    if type(status) is dict:
        _decode_status(status, out.get("metadata"))
    spec = out.get("spec")
    if type(spec) is not dict:
        return
    if type(spec.get("volumes")) is _Raw:
        raw = spec.pop("volumes")
        # explain (it reads inside ``owner_references()``) makes a bound preemptor pending
        # again (wapctl.replay): its volumes then count as a pending pod's
        if not spec.get("nodeName") or keeps_owner_references():
            spec["volumes"] = _to_builtins(_VOLUMES.decode(raw))
    raw = spec.get("tolerations")
    if type(raw) is _Raw:
        spec["tolerations"] = _shared_tolerations(raw)


def _decode_status(status: dict[str, Any], meta: Any) -> None:
    """A pod's raw conditions and container statuses, decoded where a builder reads them."""
    raw = status.get("conditions")
    if type(raw) is _Raw:
        del status["conditions"]
        terminating = type(meta) is dict and meta.get("deletionTimestamp") is not None
        # PodResizePending: only such pods' conditions are read besides a terminating pod's
        # (wapctl.ingest.resize.infeasible); a backslash may spell that name with escapes
        text = bytes(raw)
        if terminating or b"PodResizePending" in text or b"\\" in text:
            conditions = _to_builtins(_CONDITIONS.decode(text))
            if terminating or resize_pending(conditions):
                status["conditions"] = conditions
    for field in ("containerStatuses", "initContainerStatuses"):
        raw = status.get(field)
        if type(raw) is _Raw:
            status[field] = _to_builtins(_CONTAINER_STATUSES.decode(raw))


def resize_pending(conditions: Any) -> bool:
    """Whether ``conditions`` (a list) has a PodResizePending condition: the conditions of a
    pod that is not terminating are kept for that one (wapctl.ingest.resize.infeasible)."""
    return type(conditions) is list and any(
        type(c) is dict and c.get("type") == "PodResizePending" for c in conditions)


def _shared_tolerations(raw: Any) -> Any:
    text = bytes(raw)  # a copy: the raw text refers to the input's buffer
    value = _SHARED_TOLERATIONS.get(text)
    if value is None:
        value = _to_builtins(_TOLERATIONS.decode(text))
        if len(_SHARED_TOLERATIONS) < _SHARED_LIMIT:
            _SHARED_TOLERATIONS[text] = value
    return value


def _objects(structs: list[Any]) -> list[dict[str, Any]]:
    """The decoded List items as plain dicts (``_plain``). Each struct is dropped once
    converted, so the two forms are never both whole in memory."""
    out: list[dict[str, Any]] = []
    append = out.append
    for i, o in enumerate(structs):
        append(_plain(o))
        structs[i] = None
    return out


# Depth: one pass of RE2's DFA over the text, before the decode. ``_within(depth)`` matches
# exactly the texts whose brackets (``[``/``{`` and ``]``/``}`` outside JSON strings, a
# string's escapes -- ``\"``, ``\\`` -- skipped as JSON reads them) never nest more than
# ``depth`` deep, the document itself being level 1 as in ``wapctl.ingest.decode._check_depth``:
# nesting the bracket rule ``depth`` times bounds it with no counter (a bounded depth is a
# regular language). A text it refuses -- nested deeper, or not JSON (unbalanced brackets, an
# unterminated string) -- takes the safe path, which reports it exactly; a text it accepts that
# is not JSON fails to decode. Linear time, no interpreter-wide state, the same on every
# Python (a recursion limit no longer bounds C code from 3.12 on).
_STRING = rb'"(?:[^"\\]|\\[\x00-\xff])*"'
_FLAT = rb'[^\[\]{}"]'


def _nested(depth: int) -> bytes:
    """The pattern of a text whose brackets nest at most ``depth`` deep (outside strings)."""
    pattern = rb"(?:" + _FLAT + rb"|" + _STRING + rb")*"
    for _ in range(depth):
        pattern = rb"(?:" + _FLAT + rb"|" + _STRING + rb"|[\[{]" + pattern + rb"[\]}])*"
    return pattern


def _compile(pattern: bytes, longest: bool = False) -> Any:
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1  # bytes, not UTF-8 characters
    options.max_mem = 64 << 20  # the DFA's cache: a few states per level
    options.longest_match = longest
    return re2.compile(pattern, options)


@functools.lru_cache(maxsize=4)
def _within(depth: int) -> Any:
    return _compile(_nested(depth))


def nested_within(data: bytes | memoryview, depth: int) -> bool:
    """Whether ``data``'s brackets, outside JSON strings, nest at most ``depth`` deep (False
    also for a text with more closing brackets than opening ones somewhere, or fewer in all,
    or an unterminated string)."""
    return _within(depth).fullmatch(data) is not None


# what msgspec raises on a text the fast path does not take (the caller then reads it safely)
_REFUSED = (msgspec.DecodeError, msgspec.ValidationError, RecursionError, OverflowError)


def read_json(
    data: bytes | memoryview, max_depth: int, check: Utf8Check | None = None
) -> dict[str, Any] | None:
    """The JSON document in ``data`` as the dict the builders read (its ``items``, when it has a
    list of them, as dicts too), or None: take the safe path. A List is read in slices
    (``read_list``), any other document, and one of a slice or less, whole (its walk would
    only cost: a stream of small YAML documents brings one at a time). ``check``: the UTF-8
    check of a List read in slices is taken as far as each slice before its pages are handed
    back (the caller checks the rest)."""
    if len(data) <= SLICE:
        return _read_whole(data, max_depth)
    listed, walked = _read_list(data, max_depth, check)
    return listed if listed is not None else _read_whole(data, max_depth, walked)


def _read_whole(
    data: bytes | memoryview, max_depth: int, walked: bool = False
) -> dict[str, Any] | None:
    """The document decoded at once; ``walked``: ``_read_list`` walked all of it and found its
    members nested within ``max_depth`` (a document without ``items``), so no depth pass."""
    if not walked and not nested_within(data, max_depth):
        return None  # too deep (or not JSON): the safe path measures it exactly
    try:
        doc = (_OWNERS_DECODER if keeps_owner_references() else _DECODER).decode(data)
    except _REFUSED:
        return None
    out = _document(doc)
    del doc  # no raw text may refer to the input once this returns
    items = out.get("items")
    if items is not None:
        out["items"] = _objects(items)
    return out


def _document(doc: Any) -> dict[str, Any]:
    """A decoded document as the plain dict a List item becomes (``_plain``), its ``items``
    left as they are (decoded objects)."""
    items = doc.items
    doc.items = _UNSET
    out = _plain(doc)
    meta = out.get("metadata")
    if type(meta) is dict and meta.get("annotations") == {}:
        del meta["annotations"]  # none read: as an item has none
    if items is not _UNSET:
        out["items"] = items
    return out


# ---- a List read in slices -------------------------------------------------------------------
#
# A List export is nearly all ``items``. Decoded at once, the whole text stays in memory (a
# mapped file: every page resident) while the objects are built, so the peak is the file plus
# its objects. ``read_list`` instead walks the document's top level, reads ``items`` a slice of
# whole items at a time (about ``SLICE`` bytes: one RE2 match finds where the last whole item of
# the slice ends, checking the items' depth on the way; the slice, bracketed, is decoded as a
# JSON array of objects and turned into dicts), and hands a mapped file's pages back to the
# kernel once read (``MADV_DONTNEED``: a private map of an unchanged file reads them again from
# the file if touched). Its other members are decoded together as a document without items.
# Every byte between the pieces is checked as JSON has it (whitespace, one comma or closer),
# each piece's depth by its pattern, so the result is the whole decode's; at anything else (an
# ``items`` that is not an array, an item that is not an object, text after the document, a
# slice msgspec refuses) it returns None and the document is read whole, which decides it.

SLICE = 4 << 20
_WS = rb"[ \t\n\r]*"
_BLANK = _compile(_WS)
_OPEN = _compile(_WS + rb"\{" + _WS)
_KEY = _compile(rb"(" + _STRING + rb")" + _WS + rb":" + _WS)
_NEXT = _compile(_WS + rb"([,}])" + _WS)
_RELEASE = getattr(mmap, "MADV_DONTNEED", None)


@functools.lru_cache(maxsize=4)
def _list_patterns(depth: int) -> tuple[Any, Any, Any]:
    """For a document nested at most ``depth`` deep: a run of List items (level 3) each with its
    comma; one item with its comma or the list's closing bracket; a member's value (level 2)."""
    item = rb"\{" + _nested(depth - 3) + rb"\}"
    run = _compile(rb"(?:" + _WS + item + _WS + rb",)*", longest=True)
    last = _compile(_WS + item + _WS + rb"[,\]]", longest=True)
    value = _compile(
        rb"(?:" + _STRING + rb"|[\[{]" + _nested(depth - 2) + rb"[\]}]|[^ \t\n\r,{}\[\]\"]+)",
        longest=True,
    )
    return run, last, value


def read_list(data: Any, max_depth: int, check: Utf8Check | None = None) -> dict[str, Any] | None:
    """The JSON document in ``data`` as ``read_json`` gives it, read in slices, when it is an
    object with one ``items`` array of objects, nested at most ``max_depth`` deep; None
    otherwise, and for anything that is not such a JSON document: read it whole."""
    return _read_list(data, max_depth, check)[0]


def _read_list(
    data: Any, max_depth: int, check: Utf8Check | None
) -> tuple[dict[str, Any] | None, bool]:
    """``read_list``'s answer, and whether the walk went through a whole JSON object without
    ``items`` whose members nest within ``max_depth`` (its whole decode needs no depth pass)."""
    if max_depth < 3:
        return None, False
    owners = keeps_owner_references()
    run, last, _ = _list_patterns(max_depth)
    walked = _walk(data, max_depth, lambda d, p: _items(d, p, (run, last), owners, check))
    if walked is None:
        return None, False
    items, head = walked
    if items is None:
        return None, True
    members = b",".join(bytes(data[a:b]) for a, b in head)
    try:
        doc = (_OWNERS_DECODER if owners else _DECODER).decode(b"{" + members + b"}")
    except _REFUSED:
        return None, False
    out = _document(doc)
    out["items"] = items
    return out, False


def _walk(
    data: Any, max_depth: int, read_items: Callable[[Any, int], tuple[Any, int] | None]
) -> tuple[Any, list[tuple[int, int]]] | None:
    """Walk the JSON object ``data``'s members: each ``items`` array is handed to
    ``read_items`` (at the byte after its ``[``), which gives what it read and where the array
    ends (a second array replaces the first, as in a whole decode); every other member is
    matched by its pattern (nested within ``max_depth``) and its span kept. What the last
    ``items`` gave (None: no ``items``) and the other members' spans; None when ``data`` is not
    such a document, or ``read_items`` gave up."""
    start = _OPEN.match(data)
    if start is None or max_depth < 3:
        return None
    value = _list_patterns(max_depth)[2]
    pos, head, items = start.end(), [], None  # head: the other members' spans
    while True:
        key = _KEY.match(data, pos)
        if key is None:
            return None
        name, pos = bytes(key.group(1)), key.end()
        try:
            is_items = msgspec.json.decode(name) == "items"
        except msgspec.DecodeError:
            return None
        if is_items and data[pos : pos + 1] != b"[":
            return None  # not an array (null, ...): read whole
        if is_items:
            items = read_items(data, pos + 1)
            if items is None:
                return None
            pos = items[1]
        else:
            val = value.match(data, pos)
            if val is None:
                return None
            head.append((key.start(), val.end()))
            pos = val.end()
        sep = _NEXT.match(data, pos)
        if sep is None:
            return None
        pos = sep.end()
        if sep.group(1) == b"}":
            break
    if pos != len(data):
        return None
    return (None if items is None else items[0]), head


def item_lines(data: Any, max_depth: int) -> list[int] | None:
    """The 1-based line where each item of the JSON List ``data`` (a file's map) starts, found
    with ``read_list``'s walk and item pattern, an item at a time (not decoded: for a file the
    reader has read), and the pages read handed back: a file of any size is indexed in little
    memory. None when ``data`` is not a List whose items are objects nested within
    ``max_depth`` (then the caller decodes it)."""
    if max_depth < 3:
        return None
    one = _list_patterns(max_depth)[1]
    line, counted, released = 1, 0, 0

    def lines(text: Any, pos: int) -> tuple[list[int], int] | None:
        nonlocal line, counted, released
        out: list[int] = []
        while True:
            begin = _BLANK.match(text, pos).end()
            if not out and text[begin : begin + 1] == b"]":
                return out, begin + 1
            found = one.match(text, pos)
            if found is None:
                return None
            line += text[counted:begin].count(b"\n")
            counted = begin
            out.append(line)
            pos = found.end()
            if text[pos - 1 : pos] == b"]":
                return out, pos
            released = release(text, released, begin)

    walked = _walk(data, max_depth, lines)
    return None if walked is None or walked[0] is None else cast("list[int]", walked[0])


def _items(
    data: Any, pos: int, patterns: tuple[Any, Any], owners: bool, check: Utf8Check | None
) -> tuple[list[dict[str, Any]], int] | None:
    """The items of the array whose ``[`` ends at ``pos``, and where the array ends."""
    run, last = patterns
    out: list[dict[str, Any]] = []
    blank = _BLANK.match(data, pos).end()
    if data[blank : blank + 1] == b"]":
        return out, blank + 1
    decoder = _OWNERS_ITEMS_DECODER if owners else _ITEMS_DECODER
    # a writable map, or a writable view (the YAML reader's emitted JSON): bracketed in place
    writable = writable_map(data) or (type(data) is memoryview and not data.readonly)
    released = 0
    while True:
        found = run.match(data, pos, min(pos + SLICE, len(data)))
        end = found.end() if found is not None else pos
        if end == pos:  # the last item, or one longer than a slice
            found = last.match(data, pos)
            if found is None:
                return None
            end = found.end()
        if not _decode_slice(data, pos, end, writable, decoder, out):
            return None
        pos = end
        if data[end - 1 : end] == b"]":
            return out, pos
        if check is not None:
            check.upto(data, pos)  # before its pages are handed back: faulted in once
        released = release(data, released, pos)


def _decode_slice(
    data: Any, pos: int, end: int, writable: bool, decoder: Any, out: list[Any]
) -> bool:
    """Decode the whole items in ``data[pos:end]`` (with their commas; the last byte a comma or
    the array's ``]``) as one JSON array into ``out``. The byte before them is the array's
    ``[`` or the comma after the previous slice: in ``writable`` input (a file's private
    copy-on-write map; a buffer of this process) the two ends are made ``[`` and ``]`` while
    msgspec decodes and then put back; other input is copied, bracketed."""
    if not writable:
        return _decode_into(b"[" + bytes(data[pos : end - 1]) + b"]", decoder, out)
    before, after = data[pos - 1], data[end - 1]
    data[pos - 1], data[end - 1] = 0x5B, 0x5D  # [ ]
    try:
        with memoryview(data) as view:
            return _decode_into(view[pos - 1 : end], decoder, out)
    finally:
        data[pos - 1], data[end - 1] = before, after


def _decode_into(text: Any, decoder: Any, out: list[Any]) -> bool:
    try:
        structs = decoder.decode(text)
    except _REFUSED:
        return False
    out.extend(map(_plain, structs))  # no raw text left referring to the input
    return True


def writable_map(data: Any) -> bool:
    """Whether ``data`` is a map this process may write (a file's private copy-on-write map)."""
    if type(data) is not mmap.mmap:
        return False
    try:
        memoryview(data).release()
        return not memoryview(data).readonly
    except (TypeError, ValueError):
        return False


def release(data: Any, released: int, pos: int) -> int:
    """Hand the mapped pages of ``data`` before ``pos`` back to the kernel; the new mark."""
    if type(data) is not mmap.mmap or _RELEASE is None:
        return released
    page = pos - pos % mmap.PAGESIZE
    if page > released:
        data.madvise(_RELEASE, released, page - released)
        return page
    return released


def kept(obj: dict[str, Any]) -> dict[str, Any]:
    """A List item (as ``json.loads`` gives it) as this reader keeps it: what the builders
    read of it. For comparing other sources' objects (a live read) with a file's."""
    struct = _OWNERS_OBJECT if keeps_owner_references() else _Object
    return _plain(msgspec.json.decode(msgspec.json.encode(obj), type=struct))
