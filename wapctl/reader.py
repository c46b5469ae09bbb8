"""The fast path of reading a snapshot: decode only what wapctl reads.

``wapctl.load`` hands every input's bytes here first. For JSON, ``msgspec`` decodes the
document against a schema of the fields wapctl's builders read (``_Object``: the whole
``metadata`` but ``managedFields``; the whole ``spec``; of ``status`` only the fields any
builder reads); everything else -- ``managedFields``, ``containerStatuses``, ``conditions``,
node ``images``, ... -- is skipped by the decoder without building a Python object for it.
Each object then becomes the plain ``dict`` the builders expect, as ``json.loads`` would have
made it minus the skipped fields.

Whenever the fast path is not sure, it returns ``None`` and the caller takes the safe path
(``json`` / PyYAML, with today's exact errors): a syntax error, a document that is not an
object, a List item that is not an object, a field of the wrong shape for the schema, an
integer outside 64 bits, a document nested deeper than the limit. So on any input the fast
path gives either what the safe path gives (fields the builders read) or nothing.

YAML is not read here yet: it goes through PyYAML (wapctl.load), exact but ~30x the file in
memory, so the general 256 MiB limit stays for it. Measured for a fast path: rapidyaml parses
fast, but walking its tree from Python costs ~2.4 us per node (a 2,000-node export has ~12M),
so the promising route is rapidyaml's C++ JSON emitter feeding this module's msgspec schema,
after a text pre-scan that sends any plain scalar where YAML 1.1 (PyYAML) and the emitter
could disagree -- yes/no/on/off, 0755, 1_000, 1:30, unquoted timestamps, .inf, merge keys,
tags, anchors -- to PyYAML.

A builder that starts reading a new field must add it to the schema below (the differential
test, tests/test_reader_differential.py, builds every fixture both ways and fails otherwise).

Depth: no walk. The decoder is run under a lowered recursion limit, so a document nested
deeper than ``MAX_DEPTH`` -- in a kept field or a skipped one -- fails to decode and takes the
safe path, which reports it exactly (see ``_SLACK``). Where the interpreter's limit does not
bound the decoder (CPython >= 3.12 keeps a separate C limit), every JSON input takes the safe
path.
"""

from __future__ import annotations

import sys
from typing import Any

import msgspec

# The fields of each part that any builder in wapctl.load reads, or may soon read (ObjectMeta
# is kept whole but for managedFields). Every field is ``Any``: the builders check types and
# report mistakes exactly as on the safe path.
_UNSET = msgspec.UNSET
_META_FIELDS = (
    "name",
    "namespace",
    "generateName",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "selfLink",
)
_STATUS_FIELDS = (
    # Pod
    "phase",
    "nominatedNodeName",
    "startTime",
    "conditions",  # DisruptionTarget: a pod being preempted (wapctl.load._pod)
    "qosClass",
    "reason",
    "message",
    # Node
    "allocatable",
    "capacity",
    # PodDisruptionBudget
    "disruptionsAllowed",
    "disruptedPods",
    "currentHealthy",
    "desiredHealthy",
    "expectedPods",
    # workload controllers
    "observedGeneration",
    "replicas",
    "readyReplicas",
    "availableReplicas",
)
# top-level fields of the kinds wapctl reads (PriorityClass keeps its fields at the top)
_OBJECT_FIELDS = (
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
)


def _struct(name: str, fields: tuple[str, ...], types: dict[str, Any] | None = None) -> Any:
    types = types or {}
    return msgspec.defstruct(
        name,
        [(f, types.get(f, Any), _UNSET) for f in fields],
        omit_defaults=True,
        gc=False,
    )


_Meta = _struct("_Meta", _META_FIELDS)
_Status = _struct("_Status", _STATUS_FIELDS)
_Object = _struct(
    "_Object",
    _OBJECT_FIELDS,
    {"metadata": _Meta | None, "status": _Status | None},
)
# A document: one object, or a List of them (``items``). A non-List object with an ``items``
# field keeps it as decoded objects; the builders never read it.
_Document = _struct(
    "_Document",
    (*_OBJECT_FIELDS, "items"),
    {"metadata": Any, "status": _Status | None, "items": list[_Object] | None},
)
_DOCUMENT_FIELDS = (*_OBJECT_FIELDS, "items")
_DECODER = msgspec.json.Decoder(_Document)


def _as_dict(struct: Any, fields: tuple[str, ...]) -> dict[str, Any]:
    out = {}
    for f in fields:
        v = getattr(struct, f)
        if v is not _UNSET:
            out[f] = v
    return out


def _object(o: Any) -> dict[str, Any]:
    obj = _as_dict(o, _OBJECT_FIELDS)
    meta = obj.get("metadata")
    if meta is not None:
        obj["metadata"] = _as_dict(meta, _META_FIELDS)
    status = obj.get("status")
    if status is not None:
        obj["status"] = _as_dict(status, _STATUS_FIELDS)
    return obj


def _stack_depth() -> int:
    frame = sys._getframe(1)
    n = 0
    while frame is not None:
        n += 1
        frame = frame.f_back
    return n


# The decoder counts one level of Python recursion per nested container, skipped ones too, and
# raises RecursionError past the interpreter's limit. Lowering that limit around the decode to
# the current depth plus _SLACK makes any document nested deeper than MAX_DEPTH fail there (a
# List's items sit 3 levels down: fields nested _SLACK - 1 deeper fail, so documents from about
# _SLACK + 2 levels on); such a document then takes the safe path, which measures it exactly.
# Documents a little shallower than the limit take the safe path too, which is exact as well.
_SLACK = 90


def _decode_bounded(decoder: Any, data: bytes) -> Any:
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(_stack_depth() + _SLACK)
    try:
        return decoder.decode(data)
    finally:
        sys.setrecursionlimit(old)


def _recursion_bounds_decoding() -> bool:
    """Whether this interpreter's recursion limit bounds the decoder (CPython 3.11 and older
    count C recursion against it; newer ones keep a separate, fixed C limit)."""
    deep = b"[" * (_SLACK + 20) + b"]" * (_SLACK + 20)
    try:
        _decode_bounded(msgspec.json.Decoder(), deep)
    except RecursionError:
        return True
    return False


_BOUNDED = _recursion_bounds_decoding()


def read_json(data: bytes, max_depth: int) -> dict[str, Any] | None:
    """The JSON document in ``data`` as the dict the builders read (its ``items``, when it has a
    list of them, as dicts too), or None: take the safe path."""
    if not _BOUNDED or max_depth < _SLACK + 3:
        return None  # the depth limit could not be kept without a walk: the safe path walks
    try:
        doc = _decode_bounded(_DECODER, data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError, OverflowError):
        return None
    out = _as_dict(doc, _DOCUMENT_FIELDS)
    status = out.get("status")
    if status is not None:
        out["status"] = _as_dict(status, _STATUS_FIELDS)
    items = out.get("items")
    if items is not None:
        out["items"] = [_object(o) for o in items]
    return out


# ---- lines of JSON List items, found only when an error names one ----------------------------

_RawItems = msgspec.defstruct("_RawItems", [("items", list[msgspec.Raw], [])], gc=False)


def _json_item_line(path: str, item: int) -> int | None:
    """The 1-based line where ``items[item]`` of the JSON file at ``path`` starts: the file is
    read again and split into raw items (nothing is built), and each item is found after the
    previous one."""
    with open(path, "rb") as fh:
        data = fh.read()
    raws = msgspec.json.decode(data, type=_RawItems).items
    if item >= len(raws):
        return None
    pos = 0
    for raw in raws[: item + 1]:
        text = bytes(raw)
        pos = data.find(text, pos)
        if pos < 0:
            return None
        found, pos = pos, pos + len(text)
    return data.count(b"\n", 0, found) + 1


def register_json_lines(name: str) -> None:
    """Let errors about the items of the JSON List file ``name`` name their line (not for
    ``<stdin>``, which cannot be read twice). Nothing of the text is kept meanwhile."""
    from wapctl.errors import register_line_finder

    if name.startswith("<"):
        return

    def finder(source: Any) -> int | None:
        return None if source.item is None else _json_item_line(name, source.item)

    register_line_finder(name, finder)
