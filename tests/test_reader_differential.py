"""The fast reader (wapctl.ingest.json_reader) against the safe one (json): same objects, same
snapshot.

The oracle is ``json.loads`` projected on the fields the fast reader keeps (``project``
below, written from the schema's field lists): on every input the fast reader must return
exactly that projection, or ``None`` (the caller then takes the safe path) -- never something
else. Inputs: every fixture (YAML fixtures re-encoded as JSON), the List responses recorded
from a real 1.36.2 API server (fixtures/exports/k8s-1.36/lists/), and fuzzed documents.
"""

from __future__ import annotations

import datetime
import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from wapctl import ingest
from wapctl.errors import InputError
from wapctl.ingest import decode, json_reader, sources

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted(
    p for p in (ROOT / "fixtures").rglob("*") if p.suffix in (".json", ".yaml", ".yml")
)
# inputs, not the expected outputs kept beside them
INPUTS = [p for p in FIXTURES if ".expected." not in p.name]
RECORDED = sorted((ROOT / "fixtures" / "exports" / "k8s-1.36" / "lists").glob("*.json"))
# the Event lists (both APIs) and pod lists recorded around real preemptions (wapctl.events)
RECORDED += sorted((ROOT / "tests" / "data" / "k8s-1.36" / "events").glob("*/*/*.json"))

_ABSENT = object()


def _pick(d: dict[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    return {k: d[k] for k in fields if k in d}


def _pick_each(values: Any, fields: tuple[str, ...]) -> Any:
    """A list's mappings projected on ``fields``; other elements, and a non-list, as they are."""
    if type(values) is not list:
        return values
    return [_pick(v, fields) if type(v) is dict else v for v in values]


def _project_spec(spec: Any) -> Any:
    if type(spec) is not dict:
        return spec  # any other value is kept as it is, for the builder to report
    out = _pick(spec, json_reader.SPEC_FIELDS)
    for name in ("containers", "initContainers"):
        if name in out:
            out[name] = _pick_each(out[name], json_reader.CONTAINER_FIELDS)
            if type(out[name]) is list:
                for c in out[name]:
                    if type(c) is dict and "ports" in c:
                        c["ports"] = _pick_each(c["ports"], json_reader.PORT_FIELDS)
    if "volumes" in out:
        if out.get("nodeName"):
            del out["volumes"]  # read only for a pod not bound to a node
        else:
            out["volumes"] = _pick_each(out["volumes"], json_reader.VOLUME_FIELDS)
    if "tolerations" in out:
        out["tolerations"] = _pick_each(out["tolerations"], json_reader.TOLERATION_FIELDS)
    return out


def _project_status(status: dict[str, Any], meta: Any) -> dict[str, Any]:
    out = _pick(status, json_reader.STATUS_FIELDS)
    if "conditions" in out:
        conditions = _pick_each(out["conditions"], json_reader.CONDITION_FIELDS)
        terminating = type(meta) is dict and meta.get("deletionTimestamp") is not None
        resizing = type(conditions) is list and any(
            type(c) is dict and c.get("type") == "PodResizePending" for c in conditions)
        if terminating or resizing:
            out["conditions"] = conditions
        else:
            del out["conditions"]  # read only for a terminating object or a pod resizing
    for name in ("containerStatuses", "initContainerStatuses"):
        if name in out:
            out[name] = _pick_each(out[name], json_reader.CONTAINER_STATUS_FIELDS)
            if type(out[name]) is list:
                for cs in out[name]:
                    if type(cs) is dict and type(cs.get("resources")) is dict:
                        cs["resources"] = _pick(cs["resources"],
                                                json_reader.STATUS_RESOURCES_FIELDS)
    return out


def project(doc: Any) -> Any:
    """What the fast reader must return for ``json.loads`` giving ``doc``: _ABSENT where the
    schema cannot take it (it must then return None). A document is projected as a List item
    is (one object a document, as a stream brings them), its ``items`` too."""
    if type(doc) is not dict:
        return _ABSENT
    items = doc.get("items")
    out = _project_object({k: v for k, v in doc.items() if k != "items"})
    if out is _ABSENT:
        return out
    meta = doc.get("metadata")
    if type(meta) is dict and "annotations" in meta:  # a document's: the server version only
        notes = meta["annotations"]
        kept = {k: v for k, v in notes.items() if k == ingest.SERVER_VERSION_ANNOTATION
                } if type(notes) is dict else notes
        if kept != {}:
            out["metadata"]["annotations"] = kept
    if "items" not in doc:
        return out
    if items is not None:
        if type(items) is not list:
            return _ABSENT
        projected = [_project_object(i) if type(i) is dict else _ABSENT for i in items]
        if _ABSENT in projected:
            return _ABSENT
        items = projected
    out["items"] = items
    return out


def _project_object(item: dict[str, Any]) -> Any:
    """An object as the schema keeps it: its fields, its metadata's and status's read ones."""
    obj = _pick(item, json_reader.OBJECT_FIELDS)
    meta = obj.get("metadata")
    if type(meta) is dict:  # any other value is kept as it is: a builder reports it
        obj["metadata"] = _pick(meta, json_reader.META_FIELDS)
    status = obj.get("status")
    if status is not None:
        if type(status) is not dict:
            return _ABSENT
        obj["status"] = _pick(status, json_reader.STATUS_FIELDS)
    if "status" in obj and obj["status"] is not None:
        obj["status"] = _project_status(obj["status"], obj.get("metadata"))
    if "spec" in obj:
        obj["spec"] = _project_spec(obj["spec"])
    return obj


def _depth(x: Any) -> int:
    """Levels of nested dicts/lists (iteratively: the oracle must not recurse either)."""
    depth, level = 0, [x]
    while True:
        containers = [c for c in level if type(c) is dict or type(c) is list]
        if not containers:
            return depth
        depth += 1
        level = [v for c in containers for v in (c.values() if type(c) is dict else c)]


def check(data: bytes) -> None:
    try:
        safe = json.loads(data)
    except (ValueError, RecursionError):
        assert json_reader.read_json(data, ingest.MAX_DEPTH) is None
        return
    fast = json_reader.read_json(data, ingest.MAX_DEPTH)
    expected = project(safe)
    if expected is _ABSENT or _depth(safe) > ingest.MAX_DEPTH:
        assert fast is None
    elif fast is not None:
        assert expected == fast
        # same types, not only equal values (1 == 1.0 == True)
        assert json.dumps(expected, sort_keys=True) == json.dumps(fast, sort_keys=True)


def _as_json(path: Path) -> list[bytes]:
    """A JSON file as is; a YAML file's documents as one JSON List (dates as strings)."""
    if path.suffix == ".json":
        return [path.read_bytes()]
    docs = [d for d in yaml.safe_load_all(path.read_text()) if d is not None]

    def default(o: Any) -> str:
        assert isinstance(o, datetime.date)
        return o.isoformat()

    return [
        json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}, default=default).encode()
    ]


@pytest.mark.parametrize("path", FIXTURES + RECORDED, ids=lambda p: str(p.relative_to(ROOT)))
def test_fixture_reads_as_json_does(path: Path) -> None:
    for data in _as_json(path):
        check(data)


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: str(p.relative_to(ROOT)))
def test_recorded_lists_take_the_fast_path_and_skip_the_noise(path: Path) -> None:
    """Real server output is read fast (not handed to the safe path), managedFields gone."""
    fast = json_reader.read_json(path.read_bytes(), ingest.MAX_DEPTH)
    assert fast is not None
    for item in fast["items"]:
        assert "managedFields" not in item.get("metadata", {})
        for cs in (item.get("status") or {}).get("containerStatuses", []):
            assert set(cs) <= {"name", "resources", "allocatedResources"}


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_fixture_builds_the_same_snapshot(path: Path) -> None:
    """The fast reader's objects and json.loads' objects (of the fixture as JSON; a YAML
    fixture's objects are PyYAML's) build the same Snapshot -- or fail with the same message."""
    (data,) = _as_json(path)

    def build(doc: Any) -> Any:
        docs: list[ingest.Document] = []
        try:
            decode.flatten("f.json", 1, doc, docs)
            return ingest.build_snapshot(docs)
        except InputError as exc:
            return exc.reason

    fast = json_reader.read_json(data, ingest.MAX_DEPTH)
    assert fast is not None  # every fixture is plain Kubernetes JSON: the fast path takes it
    assert build(json.loads(data)) == build(fast)


# ---- fuzzed documents ------------------------------------------------------------------------

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)
_names = st.sampled_from(
    [
        *json_reader.OBJECT_FIELDS,
        *json_reader.META_FIELDS,
        *json_reader.STATUS_FIELDS,
        *json_reader.SPEC_FIELDS,
        *json_reader.CONTAINER_FIELDS,
        *json_reader.VOLUME_FIELDS,
        *json_reader.PORT_FIELDS,
        *json_reader.TOLERATION_FIELDS,
        *json_reader.CONDITION_FIELDS,
        "managedFields",
        "items",
        "containerStatuses",
        "x",
    ]
)
_objects = st.recursive(
    st.dictionaries(_names, _values, max_size=6),
    lambda inner: st.dictionaries(_names, inner | _values, max_size=5),
    max_leaves=8,
)
_documents = st.one_of(
    _objects,
    st.builds(
        lambda items, rest: {**rest, "kind": "List", "items": items},
        st.lists(_objects | _values, max_size=4),
        _objects,
    ),
    _values,
)


@settings(max_examples=300, deadline=None)
@given(_documents, st.booleans())
def test_fuzzed_documents(doc: Any, indent: bool) -> None:
    check(json.dumps(doc, indent=4 if indent else None).encode())


@pytest.mark.parametrize("depth", [1, 50, 85, 95, 97, 98, 99, 100, 101, 102, 150, 5000])
@pytest.mark.parametrize(
    "where",
    ["top", "item", "skipped", "raw conditions", "raw volumes", "read conditions",
     "shared tolerations"],
)
def test_depth_around_the_limit(depth: int, where: str) -> None:
    """Nesting in a kept or a skipped field, or in one kept as raw text and never decoded (a
    running pod's conditions, a bound pod's volumes) or decoded later (a terminating pod's
    conditions): the fast reader never accepts a document the safe path refuses for depth (it
    may hand a document near the limit to the safe path)."""
    nest = "[" * depth + "]" * depth
    item = {
        "item": '{"kind": "Pod", "spec": ' + nest + "}",
        "skipped": '{"kind": "Pod", "zz": ' + nest + "}",
        "raw conditions": '{"kind": "Pod", "status": {"conditions": ' + nest + "}}",
        "raw volumes": '{"kind": "Pod", "spec": {"nodeName": "n", "volumes": ' + nest + "}}",
        "read conditions": '{"kind": "Pod", "metadata": {"deletionTimestamp": "x"}, '
        '"status": {"conditions": ' + nest + "}}",
        "shared tolerations": '{"kind": "Pod", "spec": {"tolerations": [' + nest + "]}}",
    }
    if where == "top":
        text = '{"kind": "Pod", "spec": ' + nest + "}"
    else:
        text = '{"kind": "List", "items": [' + item[where] + "]}"
    check(text.encode())


def _pod(name: str, *, node: str | None, terminating: bool, preempted: bool = True) -> dict:
    spec: dict[str, Any] = {
        "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "d"}},
                    {"name": "tmp", "emptyDir": {}}],
    }
    meta: dict[str, Any] = {"name": name, "namespace": "ns"}
    if node is not None:
        spec["nodeName"] = node
    if terminating:
        meta["deletionTimestamp"] = "2026-12-01T00:00:00Z"
    conditions = [
        {"type": "Ready", "status": "True", "lastTransitionTime": "2026-12-01T00:00:00Z"},
        {"type": "DisruptionTarget", "status": "True",
         "reason": "PreemptionByScheduler" if preempted else "EvictionByEvictionAPI",
         "message": "preempted"},
    ]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
            "status": {"phase": "Running" if node else "Pending", "conditions": conditions}}


RAW_FIELDS = {
    "apiVersion": "v1",
    "kind": "List",
    "items": [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
         "status": {"allocatable": {"cpu": "4", "pods": "10"},
                    "conditions": [{"type": "Ready", "status": "True"}]}},
        _pod("running", node="n", terminating=False),
        _pod("preempted", node="n", terminating=True),
        _pod("evicted", node="n", terminating=True, preempted=False),
        _pod("pending", node=None, terminating=False),
        _pod("pending-terminating", node=None, terminating=True),
    ],
}


def test_conditions_and_volumes_are_read_where_a_builder_reads_them(tmp_path: Path) -> None:
    """Conditions are decoded for terminating objects and volumes for pods without a node; the
    others leave them out. Derived by hand: ``preempted`` is terminating with DisruptionTarget
    True / PreemptionByScheduler (wapctl.ingest.pod), ``evicted`` is terminating
    for another reason; the pending pods each warn VolumeNotModelled for ``data`` (volume 0),
    the bound ones do not. The snapshot equals the safe path's, also read from a file big
    enough to be memory-mapped (the map closes: no raw text refers to it afterwards)."""
    data = json.dumps(RAW_FIELDS).encode()
    check(data)
    fast = json_reader.read_json(data, ingest.MAX_DEPTH)
    assert fast is not None
    items = {o["metadata"]["name"]: o for o in fast["items"][1:]}
    assert "conditions" not in fast["items"][0]["status"]
    assert "conditions" not in items["running"]["status"]
    assert [c["type"] for c in items["preempted"]["status"]["conditions"]] == [
        "Ready", "DisruptionTarget"]
    assert [sorted(v) for v in items["pending"]["spec"]["volumes"]] == [
        ["persistentVolumeClaim"], []]
    assert "volumes" not in items["running"]["spec"]
    big = tmp_path / "big.json"
    big.write_bytes(data[:-1] + b" " * (sources.MAP_FROM + 1) + b"}")
    snap = ingest.build_snapshot(ingest.read_documents([str(big)]))
    docs: list[ingest.Document] = []
    decode.flatten(str(big), 1, json.loads(data), docs)  # the safe path's objects
    safe = ingest.build_snapshot(docs)
    assert {k: p.preempted_by_scheduler for k, p in snap.pods.items()} == {
        "ns/running": False, "ns/preempted": True, "ns/evicted": False, "ns/pending": False,
        "ns/pending-terminating": True,
    }
    assert sorted(w.object for w in snap.warnings if w.code == "VolumeNotModelled") == [
        "Pod ns/pending"]
    assert snap.pods == safe.pods and snap.warnings == safe.warnings


def test_tolerations_read_afresh_keep_their_fields() -> None:
    """A pod's tolerations come back from the fast reader with key, operator, value and effect
    as written (tolerationSeconds, which no builder reads, left out): a pod that tolerates a
    taint must still tolerate it. Pods writing the same tolerations share one decoded list,
    remembered for the rest of the process (and a forked process inherits it); keys naming
    this process make sure these are decoded here and now."""
    k = f"dedicated-{os.getpid()}"
    written = [
        {"key": k, "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
        {"key": k + "-gone", "operator": "Exists", "effect": "NoExecute",
         "tolerationSeconds": 30},
    ]
    pods = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "ns"},
             "spec": {"tolerations": written}} for i in range(2)]
    data = json.dumps({"apiVersion": "v1", "kind": "List", "items": pods}).encode()
    fast = json_reader.read_json(data, ingest.MAX_DEPTH)
    assert fast is not None
    expected = [
        {"key": k, "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
        {"key": k + "-gone", "operator": "Exists", "effect": "NoExecute"},
    ]
    assert [expected, expected] == [p["spec"]["tolerations"] for p in fast["items"]]


def test_event_fields_survive_the_fast_path() -> None:
    """What ``wapctl explain`` reads of a recorded Preempted event and of a pod (UID, owner
    references) is kept by the fast reader, as json.loads reads it."""
    base = ROOT / "tests" / "data" / "k8s-1.36" / "events" / "C-gang-podgroup" / "2-preempted"
    for name, fields in (("events.k8s.io-v1-events.json", ("regarding", "related", "note",
                                                           "reportingController", "eventTime")),
                         ("api-v1-events.json", ("involvedObject", "message",
                                                 "reportingComponent", "eventTime"))):
        data = (base / name).read_bytes()
        fast = json_reader.read_json(data, ingest.MAX_DEPTH)
        assert fast is not None
        safe = json.loads(data)
        preempted = [i for i in safe["items"] if i["reason"] == "Preempted"]
        assert len(preempted) == 3
        for item, kept in zip(safe["items"], fast["items"], strict=True):
            assert kept["metadata"]["uid"] == item["metadata"]["uid"]
            for field in fields:
                assert kept.get(field) == item.get(field)
    pods = json_reader.read_json((base / "pods.json").read_bytes(), ingest.MAX_DEPTH)
    assert pods is not None
    assert all(p["metadata"]["uid"] for p in pods["items"])


def test_owner_references_are_kept_only_when_asked() -> None:
    """Plans do not pay for owner references; explain and history (inside
    ``owner_references()``) read them as json.loads does."""
    doc = {"apiVersion": "v1", "kind": "List", "items": [{
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ns", "uid": "u1", "ownerReferences": [
            {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u0",
             "controller": True, "blockOwnerDeletion": True}]}}]}
    data = json.dumps(doc).encode()
    plain = json_reader.read_json(data, ingest.MAX_DEPTH)
    assert plain is not None and "ownerReferences" not in plain["items"][0]["metadata"]
    with json_reader.owner_references():
        kept = json_reader.read_json(data, ingest.MAX_DEPTH)
    assert kept is not None
    assert kept["items"][0]["metadata"] == doc["items"][0]["metadata"]  # type: ignore[index]
    assert not json_reader.keeps_owner_references()



def test_owner_references_are_kept_in_a_list_read_in_slices(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A List longer than a slice (``SLICE`` lowered to 64 bytes, so each pod is a slice of its
    own) is read in slices; inside ``owner_references()`` (explain, history) every pod keeps its
    ownerReferences there as in a whole read, and outside it none does.
    Hand-worked: pods p0..p2 in ns, each owned by ReplicaSet rs (uid r)."""
    monkeypatch.setattr(json_reader, "SLICE", 64)
    owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "r",
             "controller": True}
    doc = {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": f"p{i}", "namespace": "ns", "ownerReferences": [owner]}}
        for i in range(3)]}
    data = json.dumps(doc).encode()
    assert len(data) > json_reader.SLICE  # read in slices (read_list), not whole
    with json_reader.owner_references():
        kept = json_reader.read_json(data, ingest.MAX_DEPTH)
    plain = json_reader.read_json(data, ingest.MAX_DEPTH)
    assert kept is not None and plain is not None
    assert [
        {"name": "p0", "namespace": "ns", "ownerReferences": [owner]},
        {"name": "p1", "namespace": "ns", "ownerReferences": [owner]},
        {"name": "p2", "namespace": "ns", "ownerReferences": [owner]},
    ] == [i["metadata"] for i in kept["items"]]
    assert [{"name": "p0", "namespace": "ns"}, {"name": "p1", "namespace": "ns"},
            {"name": "p2", "namespace": "ns"}] == [i["metadata"] for i in plain["items"]]



def test_a_thread_that_never_asked_for_owner_references_reads_json(tmp_path: Path) -> None:
    """Every ``wapctl`` command but explain and history reads its JSON input in a thread that
    never entered ``owner_references()`` (a fresh process's main thread, or a worker thread
    of a program using ``wapctl.ingest``): the fast path reads it, without owner references,
    instead of failing (an AttributeError there is an internal error, exit 70).
    Hand-worked: the one pod of the List, its name and namespace, no ownerReferences."""
    from concurrent.futures import ThreadPoolExecutor

    doc = {"apiVersion": "v1", "kind": "List", "items": [{
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ns", "ownerReferences": [
            {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u0"}]},
        "spec": {"containers": []}}]}
    path = tmp_path / "pods.json"
    path.write_text(json.dumps(doc))

    def read() -> tuple[bool, list[Any]]:
        docs = ingest.read_documents([str(path)])
        return json_reader.keeps_owner_references(), [d.obj["metadata"] for d in docs]

    with ThreadPoolExecutor(max_workers=1) as fresh:  # a new thread: nothing set in it yet
        keeps, metas = fresh.submit(read).result()
    assert (False, [{"name": "p", "namespace": "ns"}]) == (keeps, metas)


# ---- Lists read in slices (json_reader.read_list) ---------------------------------------------

_blank = st.text(alphabet=" \t\n\r", max_size=2)
_LIST_FLAWS = ("", "no comma", "trailing comma", "text after", "second items", "item not an object",
               "items null after")


@st.composite
def _list_texts(draw: st.DrawFn) -> tuple[str, bool]:
    """A List document as any tool may write it (whitespace anywhere JSON allows it, ``items``
    among its other members), or with one flaw; and whether it is a List ``read_list`` must
    read (no flaw, no member nested too deep)."""
    items = draw(st.lists(_objects, max_size=6))
    head = draw(st.lists(st.tuples(_names.filter(lambda n: n != "items"), _values), max_size=3))
    flaw = draw(st.sampled_from(_LIST_FLAWS)) if draw(st.booleans()) else ""
    indent = draw(st.sampled_from([None, 1, 4]))

    def gap() -> str:
        return draw(_blank)

    texts = [json.dumps(i, indent=indent) for i in items]
    if flaw == "item not an object":
        texts.insert(draw(st.integers(0, len(texts))), json.dumps(draw(_scalars)))
    commas = [gap() + "," + gap() for _ in texts[1:]]
    if flaw == "no comma" and commas:
        commas[draw(st.integers(0, len(commas) - 1))] = gap() + " "
    body = "".join(t + (commas[n] if n < len(commas) else "") for n, t in enumerate(texts))
    if flaw == "trailing comma" and texts:
        body += ","
    members = [json.dumps(k) + gap() + ":" + gap() + json.dumps(v) for k, v in head]
    members.insert(draw(st.integers(0, len(members))),
                   '"items"' + gap() + ":" + gap() + "[" + gap() + body + gap() + "]")
    if flaw == "second items":
        members.append('"items": [' + json.dumps(draw(_objects)) + "]")
    if flaw == "items null after":
        members.append('"items": null')
    text = gap() + "{" + gap() + ("," + gap()).join(members) + gap() + "}" + gap()
    if flaw == "text after":
        text += draw(st.sampled_from(["}", "x", "{}", ","]))
    return text, not flaw


@settings(max_examples=150, deadline=None)
@given(_list_texts(), st.sampled_from([1, 64, 4096]))
def test_lists_read_in_slices_as_whole(case: tuple[str, bool], size: int) -> None:
    """Slices of one item or less, of a few, of all: a List any tool may write that the fast
    reader takes at all, it takes in slices, exactly as json.loads projects it; a flawed one is
    never read in slices otherwise (None, then the whole document decides: ``check``). A
    writable buffer (a file's private map, the YAML reader's JSON) is read alike, each slice
    bracketed in place, and left as it was."""
    text, readable = case
    data = text.encode()
    buffer = bytearray(data)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(json_reader, "SLICE", size)
        sliced = json_reader.read_list(data, ingest.MAX_DEPTH)
        in_place = json_reader.read_list(memoryview(buffer), ingest.MAX_DEPTH)
        whole = json_reader.read_json(data, ingest.MAX_DEPTH)
        check(data)
    assert bytes(buffer) == data
    assert json.dumps(in_place, sort_keys=True) == json.dumps(sliced, sort_keys=True)
    try:
        doc = json.loads(data)
    except ValueError:
        assert sliced is None
        return
    if readable and _depth(doc) <= ingest.MAX_DEPTH:
        assert sliced is not None or whole is None  # what the fast path reads, it reads in slices
    if sliced is not None:
        expected = project(doc)
        assert json.dumps(expected, sort_keys=True) == json.dumps(sliced, sort_keys=True)


@pytest.mark.parametrize(
    "flaw", ["", "text after the end", "unbalanced", "item 300 not JSON"]
)
def test_a_mapped_list_released_as_read_still_reads_right(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flaw: str
) -> None:
    """A mapped file read in slices of a page (the pages read handed back to the kernel, each
    slice bracketed in the map and put back): the same snapshot as the safe path's; when its
    end, or an item late in it, turns out not to be JSON, the safe path's error from the same
    map read again: json's message at json's line and column."""
    monkeypatch.setattr(sources, "MAP_FROM", 0)
    monkeypatch.setattr(json_reader, "SLICE", 4096)
    doc = {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}", "labels": {
            "pad": "x" * 50}}, "status": {"allocatable": {"cpu": "4", "pods": "10"}}}
        for i in range(400)]}
    text = json.dumps(doc, indent=2)
    if flaw == "text after the end":
        text += ' , "x": 1}'
    elif flaw == "unbalanced":
        text += "]"
    elif flaw:
        text = text.replace('"name": "n300"', '"name" "n300"')
    path = tmp_path / "big.json"
    path.write_text(text)
    if not flaw:
        snap = ingest.build_snapshot(ingest.read_documents([str(path)]))
        docs: list[ingest.Document] = []
        decode.flatten(str(path), 1, doc, docs)
        assert sorted(snap.nodes) == sorted(f"n{i}" for i in range(400))
        assert snap.nodes == ingest.build_snapshot(docs).nodes
        return
    with pytest.raises(InputError) as exc:
        ingest.read_documents([str(path)])
    with pytest.raises(json.JSONDecodeError) as err:
        json.loads(text)
    assert f"{err.value.msg} (line {err.value.lineno}, column {err.value.colno})" in str(exc.value)


@pytest.mark.parametrize("meta", ["x", 5, [], None], ids=["string", "number", "list", "null"])
@pytest.mark.parametrize("where", ["list", "item", "object"])
def test_metadata_that_is_no_mapping_is_read_fast_and_left_to_the_builders(
    meta: Any, where: str
) -> None:
    """A metadata that is not a mapping (a List's own, an item's, a lone object's) is kept as
    it is, not refused: the input stays on the fast path, whatever its size (past the general
    limit the safe path refuses it), and the builders are given what the safe path gives
    them, to name the mistake alike."""
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "d"},
           "spec": {"containers": [{"name": "c"}]}}
    if where == "object":
        doc: dict[str, Any] = {**pod, "metadata": meta}
    else:
        doc = {"apiVersion": "v1", "kind": "List", "metadata": {}, "items": [pod]}
        if where == "list":
            doc["metadata"] = meta
        else:
            doc["items"] = [{**pod, "metadata": meta}]
    data = json.dumps(doc).encode()
    fast = json_reader.read_json(data, ingest.MAX_DEPTH)
    assert fast is not None
    check(data)


def test_an_object_with_an_items_list_keeps_its_owner_references_when_read_in_slices(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Pod that carries an ``items`` array of its own (its kind does not end in ``List``, so
    it is one object, not a List) in a file longer than a slice (``SLICE`` lowered to 64 bytes)
    is walked by the slice reader; inside ``owner_references()`` (explain, history: they name
    a pod's workload by them) the pod keeps its ownerReferences as a whole read does.
    Hand-worked: one document, pod p in ns owned by ReplicaSet rs (uid r)."""
    monkeypatch.setattr(json_reader, "SLICE", 64)
    owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "r",
             "controller": True}
    doc = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "p", "namespace": "ns", "ownerReferences": [owner]},
           "items": []}
    path = tmp_path / "pod.json"
    path.write_text(json.dumps(doc))
    assert path.stat().st_size > json_reader.SLICE
    with json_reader.owner_references():
        docs = ingest.read_documents([str(path)])
    assert [{"name": "p", "namespace": "ns", "ownerReferences": [owner]}] == [
        d.obj["metadata"] for d in docs
    ]


def test_a_json_array_longer_than_a_slice_gets_the_safe_paths_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A JSON file longer than a slice (``SLICE`` lowered to 64 bytes) that is an array, not an
    object: the slice reader hands it over and the user gets the safe path's error naming the
    file and document 1 (not a crash)."""
    monkeypatch.setattr(json_reader, "SLICE", 64)
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ns"}}
    path = tmp_path / "pods.json"
    path.write_text(json.dumps([pod, pod]))
    assert path.stat().st_size > json_reader.SLICE
    with pytest.raises(InputError) as exc:
        ingest.read_documents([str(path)])
    assert (f"{path}, document 1: a document must be a mapping (a Kubernetes object or "
            "List), not a list") == str(exc.value)


def test_resize_conditions_and_container_statuses_are_kept_as_read() -> None:
    """A pod's conditions are kept for a PodResizePending condition (wapctl.ingest.resize) --
    also when its type is spelled with a JSON escape, and not when only a message names it --
    and its container statuses cut to name, resources.requests and allocatedResources."""
    statuses = ('"containerStatuses": [{"name": "c", "image": "x", "state": {"running": {}},'
                ' "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "2"}},'
                ' "allocatedResources": {"cpu": "1"}}]')
    escaped = '{"type": "PodResize\\u0050ending", "status": "True", "reason": "Infeasible"}'
    named = '{"type": "Ready", "status": "True", "message": "PodResizePending elsewhere"}'
    for conditions in (escaped, named):
        data = ('{"kind": "Pod", "metadata": {"name": "p"}, "spec": {"nodeName": "n"},'
                f' "status": {{"conditions": [{conditions}], {statuses}}}}}').encode()
        check(data)
        fast = json_reader.read_json(data, ingest.MAX_DEPTH)
        assert fast is not None
        assert [{"name": "c", "resources": {"requests": {"cpu": "1"}},
                 "allocatedResources": {"cpu": "1"}}] == fast["status"]["containerStatuses"]
        assert ("conditions" in fast["status"]) == (conditions is escaped)
