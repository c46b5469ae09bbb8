"""The snapshot loader: inputs, documents, kinds, pod requests, and every input error."""

from __future__ import annotations

import datetime
import io
import json
import os
import re
import threading
import types
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from wapctl import ingest, models
from wapctl.errors import ExitCode, InputError, Source, UsageError
from wapctl.ingest import fields, limits, sources
from wapctl.model import (
    NEVER,
    PREEMPT_LOWER,
    LabelSelector,
    NodeSelectorTerm,
    SelectorRequirement,
    Snapshot,
    Taint,
    Toleration,
)
from wapctl.workload_api import V1ALPHA1, V1ALPHA2, V1ALPHA3

# ---- document builders ---------------------------------------------------------------------


def pclass(name: str, value: int, **extra: Any) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        **extra,
    }


def node(name: str, cpu: Any = "4", memory: Any = "8Gi", **status: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name},
        "status": status or {"allocatable": {"cpu": cpu, "memory": memory, "pods": "110"}},
    }


def container(cpu: Any = "1", memory: Any = "1Gi", **extra: Any) -> dict[str, Any]:
    return {"name": "c", "resources": {"requests": {"cpu": cpu, "memory": memory}}, **extra}


def pod(name: str, ns: str = "default", *, containers: Any = None, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"containers": [container()] if containers is None else containers, **spec},
        "status": {"phase": "Pending"},
    }


def workload_v1alpha1(name: str, groups: list[dict[str, Any]], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": V1ALPHA1,
        "kind": "Workload",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"podGroups": groups, **spec},
    }


def gang(name: str, min_count: int = 2, **extra: Any) -> dict[str, Any]:
    return {"name": name, "policy": {"gang": {"minCount": min_count}}, **extra}


def basic(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "policy": {"basic": {}}, **extra}


def workload_v2(name: str, templates: list[dict[str, Any]], api: str = V1ALPHA2, **spec):
    return {
        "apiVersion": api,
        "kind": "Workload",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"podGroupTemplates": templates, **spec},
    }


def template(name: str, min_count: int | None = 2, **extra: Any) -> dict[str, Any]:
    policy = {"gang": {"minCount": min_count}} if min_count is not None else {"basic": {}}
    return {"name": name, "schedulingPolicy": policy, **extra}


def pod_group(
    name: str, workload: str, tmpl: str, api: str = V1ALPHA2, **spec: Any
) -> dict[str, Any]:
    if api == V1ALPHA3:
        ref = {"workloadRef": {"workloadName": workload, "templateName": tmpl}}
    else:
        ref = {
            "podGroupTemplateRef": {
                "workload": {"workloadName": workload, "podGroupTemplateName": tmpl}
            }
        }
    return {
        "apiVersion": api,
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {**ref, **spec},
    }


def write_yaml(tmp_path: Path, name: str, *docs: Any) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False), encoding="utf-8")
    return str(path)


def build(tmp_path: Path, *docs: Any) -> Snapshot:
    return ingest.build_snapshot(ingest.read_documents([write_yaml(tmp_path, "snap.yaml", *docs)]))


def error_of(tmp_path: Path, *docs: Any, name: str = "snap.yaml") -> InputError:
    path = write_yaml(tmp_path, name, *docs)
    with pytest.raises(InputError) as info:
        ingest.build_snapshot(ingest.read_documents([path]))
    return info.value


def assert_names(err: InputError, file: str, document: int | None, field: str | None) -> None:
    """The error's one line names the file, the document and the field."""
    text = str(err)
    assert file in text
    if document is not None:
        assert f"document {document}" in text
    if field is not None:
        assert f"field {field}" in text
        assert field == err.field
    assert ExitCode.INPUT == err.exit_code


# ---- reading inputs ------------------------------------------------------------------------


def test_multi_document_yaml_numbers_documents_and_skips_empty_ones(tmp_path: Path) -> None:
    """Documents are numbered as they appear in the file, empty ones (`---` alone) skipped."""
    path = tmp_path / "s.yaml"
    path.write_text(
        "---\n"
        + yaml.safe_dump(node("a"))
        + "---\n"
        + "---\n"
        + yaml.safe_dump(node("b"))
        + "---\n",
        encoding="utf-8",
    )
    docs = ingest.read_documents([str(path)])
    assert [Source(str(path), 1), Source(str(path), 3)] == [d.source for d in docs]
    assert ["a", "b"] == [d.obj["metadata"]["name"] for d in docs]


def test_list_items_are_flattened_with_item_index(tmp_path: Path) -> None:
    """A `kind: List` document gives one Document per item, Source.item set (0-based)."""
    path = write_yaml(
        tmp_path,
        "s.yaml",
        pclass("x", 1),
        {"apiVersion": "v1", "kind": "List", "items": [node("a"), node("b")]},
    )
    docs = ingest.read_documents([path])
    assert [Source(path, 1), Source(path, 2, 0), Source(path, 2, 1)] == [d.source for d in docs]


def test_typed_list_kind_is_flattened_too(tmp_path: Path) -> None:
    """`kind: PodList` (any kind ending in List, with items) is a list as kubectl prints it."""
    path = write_yaml(
        tmp_path,
        "s.yaml",
        {"apiVersion": "v1", "kind": "PodList", "metadata": {}, "items": [pod("p")]},
    )
    snap = ingest.build_snapshot(ingest.read_documents([path]))
    assert ["default/p"] == list(snap.pods)


def test_typed_list_item_keeps_its_own_kind(tmp_path: Path) -> None:
    """A typed List (``PodList``) lends its kind only to items that leave theirs off: an item
    that says it is a Node is read as a Node, not as a Pod named after it."""
    path = write_yaml(
        tmp_path,
        "s.yaml",
        {"apiVersion": "v1", "kind": "PodList", "metadata": {},
         "items": [{k: v for k, v in pod("p", nodeName="n1").items() if k != "kind"},
                   node("n1")]},
    )
    snap = ingest.build_snapshot(ingest.read_documents([path]))
    assert (["n1"], ["default/p"]) == (sorted(snap.nodes), sorted(snap.pods))


def test_raw_list_item_keeps_its_own_api_version(tmp_path: Path) -> None:
    """A raw API list (``WorkloadList``) lends its items the kind they leave off, and its
    apiVersion only to those that leave that off too: an item that says its own version is
    read as that version (here a v1alpha1 Workload, with ``podGroups``, inside a v1alpha2
    list, next to an item with neither field, which is the list's v1alpha2)."""
    own = workload_v1alpha1("w1", [gang("g")])
    del own["kind"]
    listed = workload_v2("w2", [template("t")])
    del listed["kind"], listed["apiVersion"]
    path = write_yaml(
        tmp_path, "s.yaml", {"apiVersion": V1ALPHA2, "kind": "WorkloadList", "items": [own, listed]}
    )
    docs = ingest.read_documents([path])
    assert [("Workload", V1ALPHA1), ("Workload", V1ALPHA2)] == [
        (d.obj["kind"], d.obj["apiVersion"]) for d in docs
    ]
    snap = ingest.build_snapshot(docs)
    assert V1ALPHA1 == snap.pod_groups["default/w1/g"].api_version


def test_empty_list_document_is_fine(tmp_path: Path) -> None:
    """An empty List (kubectl get with nothing found) is a valid document with no objects."""
    snap = build(tmp_path, {"apiVersion": "v1", "kind": "List", "items": []}, node("a"))
    assert ["a"] == list(snap.nodes)


@pytest.mark.parametrize("kind", ["List", "PodList", "NodeList"])
def test_a_list_with_null_items_is_an_empty_list(tmp_path: Path, kind: str) -> None:
    """Go's encoder writes an empty slice as null: a raw API list with ``items: null`` (a
    PodList, ...) is an empty list like a List is, not one ignored object of kind PodList."""
    from typer.testing import CliRunner

    from wapctl.cli import app

    (tmp_path / "empty.yaml").write_text(
        f"apiVersion: v1\nkind: {kind}\nmetadata: {{resourceVersion: '1'}}\nitems: null\n",
        encoding="utf-8")
    result = CliRunner().invoke(app, ["validate", str(tmp_path / "empty.yaml"), "-o", "json"])
    doc = json.loads(result.stdout)
    assert (0, {}, 0) == (result.exit_code, doc["ignoredKinds"], sum(doc["counts"].values()))


def test_directory_reads_yaml_and_json_files_sorted_by_name(tmp_path: Path) -> None:
    """A directory contributes its *.yaml, *.yml and *.json files in name order, nothing else."""
    (tmp_path / "b.yml").write_text(yaml.safe_dump(node("from-b")), encoding="utf-8")
    (tmp_path / "a.json").write_text(json.dumps(node("from-a")), encoding="utf-8")
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(node("from-c")), encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a snapshot", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "d.yaml").write_text(yaml.safe_dump(node("nested")), encoding="utf-8")
    docs = ingest.read_documents([str(tmp_path)])
    assert ["from-a", "from-b", "from-c"] == [d.obj["metadata"]["name"] for d in docs]
    assert str(tmp_path / "a.json") == docs[0].source.file


def test_stdin_is_read_as_bytes() -> None:
    """`-` reads the given binary stream, named <stdin> in sources."""
    data = yaml.safe_dump_all([node("a"), node("b")]).encode()
    docs = ingest.read_documents(["-"], stdin=io.BytesIO(data))
    assert [Source("<stdin>", 1), Source("<stdin>", 2)] == [d.source for d in docs]


def test_stdin_json_is_read_as_json() -> None:
    """JSON on stdin is one document."""
    data = json.dumps({"apiVersion": "v1", "kind": "List", "items": [node("a")]}).encode()
    docs = ingest.read_documents(["-"], stdin=io.BytesIO(data))
    assert [Source("<stdin>", 1, 0)] == [d.source for d in docs]


def test_stdin_over_a_mib_is_read_whole() -> None:
    """stdin of more than the first MiB (which decides the size limit) is read to its end: a
    List of 3,000 labelled nodes, ~1.5 MiB of JSON, gives all 3,000."""
    items = [node(f"n{i:04}") | {"metadata": {"name": f"n{i:04}", "labels": {"pad": "x" * 400}}}
             for i in range(3000)]
    data = json.dumps({"apiVersion": "v1", "kind": "List", "items": items}).encode()
    assert len(data) > ingest.FAST_FROM
    snap = ingest.build_snapshot(ingest.read_documents(["-"], stdin=io.BytesIO(data)))
    assert (3000, "n2999") == (len(snap.nodes), list(snap.nodes)[-1])


def test_an_unreadable_path_is_one_line_naming_it(tmp_path: Path) -> None:
    """A path through a file (not a directory) cannot be read: the line names the path and
    the operating system's reason."""
    (tmp_path / "f.yaml").write_text("{}")
    path = str(tmp_path / "f.yaml" / "x.yaml")
    with pytest.raises(InputError) as info:
        ingest.read_documents([path])
    assert f"{path}: cannot read: Not a directory" == str(info.value)


def test_yaml_file_starting_with_brace_falls_back_to_yaml(tmp_path: Path) -> None:
    """Flow-style YAML that is not JSON (unquoted keys) in a .yaml file still loads."""
    path = tmp_path / "flow.yaml"
    path.write_text("{apiVersion: v1, kind: Node, metadata: {name: a}}\n", encoding="utf-8")
    assert ["a"] == [d.obj["metadata"]["name"] for d in ingest.read_documents([str(path)])]


def test_json_and_yaml_give_equal_snapshots(tmp_path: Path) -> None:
    """The same objects as YAML and as JSON give equal snapshots (sources aside)."""
    objs = [
        pclass("low", 10, globalDefault=True),
        node("a"),
        pod("p", nodeName="a", tolerations=[{"operator": "Exists"}]),
        workload_v1alpha1("w", [gang("g")]),
        pod("q", workloadRef={"name": "w", "podGroup": "g"}),
    ]
    y = write_yaml(tmp_path, "s.yaml", *objs)
    j = tmp_path / "s.json"
    j.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}), encoding="utf-8")
    a = ingest.build_snapshot(ingest.read_documents([y]))
    b = ingest.build_snapshot(ingest.read_documents([str(j)]))
    assert {k: msgspec.structs.replace(v, source=None) for k, v in a.pods.items()} == {
        k: msgspec.structs.replace(v, source=None) for k, v in b.pods.items()
    }
    assert a.pod_groups.keys() == b.pod_groups.keys()
    assert [n.allocatable for n in a.nodes.values()] == [n.allocatable for n in b.nodes.values()]


def test_input_files_are_not_modified(tmp_path: Path) -> None:
    """Loading leaves every input byte and modification time as it was."""
    path = write_yaml(tmp_path, "s.yaml", node("a"), pod("p", nodeName="a"))
    os.utime(path, (1_000_000_000, 1_000_000_000))
    before = (Path(path).read_bytes(), os.stat(path).st_mtime_ns)
    docs = ingest.read_documents([path])
    ingest.build_snapshot(docs)
    assert before == (Path(path).read_bytes(), os.stat(path).st_mtime_ns)


def test_documents_are_not_modified_by_build(tmp_path: Path) -> None:
    """build_snapshot only reads the document dicts (defaults are not written back)."""
    docs = ingest.read_documents(
        [write_yaml(tmp_path, "s.yaml", node("a", pods=None), pod("p", containers=[{"name": "c"}]))]
    )
    snapshot_before = json.dumps([d.obj for d in docs], sort_keys=True, default=str)
    ingest.build_snapshot(docs)
    assert snapshot_before == json.dumps([d.obj for d in docs], sort_keys=True, default=str)


def test_ignored_kinds_are_counted_and_foreign_workloads_named_by_group(tmp_path: Path) -> None:
    """Unknown kinds are counted; Kueue's Workload is not the scheduling.k8s.io Workload."""
    snap = build(
        tmp_path,
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}},
        {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload", "metadata": {"name": "w"}},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}},
    )
    # A Deployment is read since pod templates are (templates.py); this one has none.
    assert {"ConfigMap": 2, "Workload.kueue.x-k8s.io": 1} == dict(snap.ignored_kinds)
    assert ({}, {}) == (dict(snap.workloads), dict(snap.templates))


def test_snapshot_mappings_iterate_in_sorted_order(tmp_path: Path) -> None:
    """Nodes, pods and classes come out sorted by key whatever the input order."""
    snap = build(
        tmp_path,
        node("c"),
        node("a"),
        node("b"),
        pod("z"),
        pod("b", ns="a"),
        pclass("y", 1),
        pclass("x", 2),
    )
    assert ["a", "b", "c"] == list(snap.nodes)
    assert ["a/b", "default/z"] == list(snap.pods)
    assert ["x", "y"] == list(snap.priority_classes)


# ---- objects --------------------------------------------------------------------------------


def test_node_fields(tmp_path: Path) -> None:
    """A node's allocatable, labels, taints and unschedulable flag are read."""
    n = node("a", cpu="3500m", memory="4Gi")
    n["metadata"]["labels"] = {"zone": "z1"}
    n["spec"] = {
        "unschedulable": True,
        "taints": [
            {"key": "gpu", "value": "yes", "effect": "NoSchedule"},
            {"key": "x", "effect": "NoExecute"},
        ],
    }
    got = build(tmp_path, n).nodes["a"]
    assert {"cpu": 3500, "memory": 4 * 2**30, "pods": 110} == dict(got.allocatable)
    assert {"zone": "z1"} == dict(got.labels)
    assert (Taint("gpu", "yes", "NoSchedule"), Taint("x", "", "NoExecute")) == got.taints
    assert got.unschedulable is True


def test_node_capacity_fallback_and_default_pods(tmp_path: Path) -> None:
    """Without allocatable, capacity is used; without a pods entry, 110 (kubelet default)."""
    got = build(tmp_path, node("a", capacity={"cpu": "2", "nvidia.com/gpu": 4})).nodes["a"]
    assert {"cpu": 2000, "nvidia.com/gpu": 4, "pods": 110} == dict(got.allocatable)


def test_pod_fields(tmp_path: Path) -> None:
    """Binding, phase, times, labels, selectors, affinity and tolerations are read."""
    p = pod(
        "p",
        nodeName="a",
        nodeSelector={"disk": "ssd"},
        tolerations=[
            {"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"},
            {"operator": "Exists"},
        ],
        affinity={
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": "zone", "operator": "In", "values": ["a", "b"]},
                                {"key": "cores", "operator": "Gt", "values": ["8"]},
                            ]
                        },
                        {
                            "matchFields": [
                                {"key": "metadata.name", "operator": "In", "values": ["n1"]}
                            ]
                        },
                    ]
                }
            }
        },
    )
    p["metadata"].update(
        labels={"app": "web"},
        creationTimestamp="2024-01-01T00:00:00Z",
        deletionTimestamp="2024-01-02T00:00:00Z",
    )
    p["status"] = {
        "phase": "Running",
        "startTime": "2024-01-01T00:00:10+01:00",
        "nominatedNodeName": "b",
    }
    got = build(tmp_path, p).pods["default/p"]
    assert ("a", "Running", True, "b") == (
        got.node_name,
        got.phase,
        got.terminating,
        got.nominated_node,
    )
    assert (1704067200.0, 1704067210.0 - 3600) == (got.creation_time, got.start_time)
    assert ({"app": "web"}, {"disk": "ssd"}) == (dict(got.labels), dict(got.node_selector))
    assert (
        Toleration("k", "Equal", "v", "NoSchedule"),
        Toleration("", "Exists", "", ""),
    ) == got.tolerations
    assert (
        NodeSelectorTerm(
            match_expressions=(
                SelectorRequirement("zone", "In", ("a", "b")),
                SelectorRequirement("cores", "Gt", ("8",)),
            )
        ),
        NodeSelectorTerm(match_fields=(SelectorRequirement("metadata.name", "In", ("n1",)),)),
    ) == got.required_affinity


def test_tolerations_read_afresh_keep_their_operator(tmp_path: Path) -> None:
    """Each toleration keeps its operator, and an omitted one is Equal (the API's default).
    The reader remembers the tolerations it has read for the rest of the process (and a forked
    process inherits them); a key naming this process makes sure they are read here and now."""
    k = f"dedicated-{os.getpid()}"
    p = pod("p", tolerations=[
        {"key": k, "operator": "Equal", "value": "v", "effect": "NoSchedule"},
        {"key": k + "-any", "operator": "Exists", "effect": "NoExecute"},
        {"key": k + "-default", "value": "w"},
    ])
    assert (
        Toleration(k, "Equal", "v", "NoSchedule"),
        Toleration(k + "-any", "Exists", "", "NoExecute"),
        Toleration(k + "-default", "Equal", "w", ""),
    ) == build(tmp_path, p).pods["default/p"].tolerations


def test_keyless_exists_toleration_is_accepted(tmp_path: Path) -> None:
    """``{operator: Exists}`` with no key tolerates every taint (Kubernetes' own rule: an empty
    key needs operator Exists, and has it): the reader takes it, and a wrong field beside it is
    the error named, not the operator. A key-less toleration cannot carry this process's id as
    the test above does, so the remembered ones (a forked process inherits them) could answer
    for the first check; a list as its value is unhashable, never remembered, and read here."""
    got = build(tmp_path, pod("p", tolerations=[{"operator": "Exists"}])).pods["default/p"]
    assert (Toleration("", "Exists", "", ""),) == got.tolerations
    err = error_of(tmp_path, pod("q", tolerations=[{"operator": "Exists", "value": []}]))
    assert ("spec.tolerations[0].value", "must be a string (quote it), not a list") == (
        err.field, err.reason)


def test_pod_without_affinity_has_no_constraint(tmp_path: Path) -> None:
    """No required node affinity is None (no constraint), not an empty tuple."""
    got = build(tmp_path, pod("p", affinity={"podAntiAffinity": {}})).pods["default/p"]
    assert got.required_affinity is None
    assert "default" == got.namespace


def test_unquoted_yaml_timestamp_is_accepted(tmp_path: Path) -> None:
    """A timestamp YAML turned into a datetime (unquoted) means the same instant."""
    path = tmp_path / "s.yaml"
    path.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, creationTimestamp: 2024-01-01T00:00:00Z}\n"
        "spec: {containers: []}\n",
        encoding="utf-8",
    )
    got = ingest.build_snapshot(ingest.read_documents([str(path)])).pods["default/p"]
    assert 1704067200.0 == got.creation_time


def test_nanosecond_timestamps_are_read(tmp_path: Path) -> None:
    """RFC3339 with more than microsecond digits still parses (truncated to microseconds)."""
    p = pod("p")
    p["metadata"]["creationTimestamp"] = "2024-01-01T00:00:00.123456789Z"
    assert pytest.approx(1704067200.123456) == build(tmp_path, p).pods["default/p"].creation_time


class _Py310Datetime(datetime.datetime):
    """``datetime`` as Python 3.10 (supported: requires-python >= 3.10) reads ISO strings: its
    fromisoformat refuses a trailing Z and a fraction of other than 3 or 6 digits, so such a
    timestamp is read by wapctl's own RFC3339 parser instead."""

    @classmethod
    def fromisoformat(cls, date_string: str, /) -> _Py310Datetime:
        fraction = re.search(r"\.(\d*)", date_string)
        if date_string[-1:] in "Zz" or (fraction is not None and len(fraction[1]) not in (3, 6)):
            raise ValueError(f"Invalid isoformat string: {date_string!r}")
        return super().fromisoformat(date_string)


@pytest.mark.parametrize("python", ["this Python", "as Python 3.10 reads"])
def test_fractional_seconds_and_offsets_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, python: str
) -> None:
    """A timestamp with a short fraction of a second is read to the right instant, whichever
    Python runs wapctl: ".5" is half a second (500000 microseconds, not 5), and the hour counts.
    Start times rank victims and nodes (a later start is preempted first among equals), creation
    times order the pending queue and explain's "pods created after the preemption". Hand-worked:
    2024-01-01T00:00:00Z is 1704067200; 10:20:30.5Z adds 37230.5 s; 10:20:30.25+02:00 is
    08:20:30.25Z, adding 30030.25 s."""
    if python != "this Python":
        shim = types.SimpleNamespace(datetime=_Py310Datetime, date=datetime.date,
                                     timedelta=datetime.timedelta, timezone=datetime.timezone)
        monkeypatch.setattr(fields, "datetime", shim)
    p = pod("p")
    p["metadata"]["creationTimestamp"] = "2024-01-01T10:20:30.5Z"
    p["status"]["startTime"] = "2024-01-01T10:20:30.25+02:00"
    got = build(tmp_path, p).pods["default/p"]
    assert (got.creation_time, got.start_time) == (1704104430.5, 1704097230.25)


@pytest.mark.parametrize("python", ["this Python", "as Python 3.10 reads"])
def test_negative_offsets_and_long_fractions_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, python: str
) -> None:
    """A timestamp west of UTC with offset minutes and a fraction of more than six digits is
    read to the right instant, whichever Python runs wapctl (3.10's fromisoformat refuses such
    a fraction, so wapctl's own RFC3339 parser reads it): "-07:30" is 7 h 30 min behind UTC
    (added, not subtracted, to reach UTC), and the fraction is truncated to microseconds.
    Hand-worked: 10:20:30.5000001-07:30 is 17:50:30.5Z; 2024-01-01T00:00:00Z is 1704067200,
    and 17:50:30.5 adds 61200 + 3000 + 30.5 = 64230.5 s."""
    if python != "this Python":
        shim = types.SimpleNamespace(datetime=_Py310Datetime, date=datetime.date,
                                     timedelta=datetime.timedelta, timezone=datetime.timezone)
        monkeypatch.setattr(fields, "datetime", shim)
    p = pod("p")
    p["metadata"]["creationTimestamp"] = "2024-01-01T10:20:30.5000001-07:30"
    assert 1704131430.5 == build(tmp_path, p).pods["default/p"].creation_time


def _time_as_before(value: str) -> float | str:
    """fields.timestamp as it read a string before it let Python 3.11 read a trailing "Z" itself
    (the oracle: the same numbers, the same strings refused)."""
    from datetime import datetime, timezone

    try:
        try:
            dt = datetime.fromisoformat(value[:-1] + "+00:00" if value[-1:] in "Zz" else value)
        except ValueError:
            dt = fields._slow_time(value, Source("f"), "x")
    except InputError as exc:
        return exc.reason
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.timestamp()


_STAMP = st.builds(
    lambda d, sep, frac, zone: d.strftime(f"%Y-%m-%d{sep}%H:%M:%S") + frac + zone,
    st.datetimes(min_value=datetime.datetime(1, 1, 2), max_value=datetime.datetime(9999, 12, 30)),
    st.sampled_from(["T", "t", " ", "_"]),
    st.sampled_from(["", ".5", ".123456", ".123456789", ".", ".12x"]),
    st.sampled_from(["Z", "z", "+00:00", "-07:30", "+0530", "", "ZZ", " Z", "+24:00"]),
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_STAMP, st.text(max_size=30), st.text(alphabet="0123456789-:TZz.+ ", max_size=30)))
def test_timestamps_read_as_before(value: str) -> None:
    """Every string reads to the same epoch seconds as before, or is refused with the same
    reason (RFC3339 as the API server writes it, and everything else)."""
    try:
        got: float | str = fields.timestamp(value, Source("f"), "x")  # type: ignore[assignment]
    except InputError as exc:
        got = exc.reason
    assert got == _time_as_before(value)


REQUESTS = [
    (
        "sum of containers",
        {"containers": [container("100m", "1Gi"), container("1.5", "512Mi")]},
        {"cpu": 1600, "memory": 2**30 + 2**29},
    ),
    (
        "limits default requests per resource",
        {
            "containers": [
                {
                    "name": "c",
                    "resources": {
                        "requests": {"cpu": "1"},
                        "limits": {"cpu": "2", "memory": "1Gi"},
                    },
                }
            ]
        },
        {"cpu": 1000, "memory": 2**30},
    ),
    (
        "regular init container larger than the sum wins per resource",
        {
            "containers": [container("1", "1Gi")],
            "initContainers": [container("3", "512Mi")],
        },
        {"cpu": 3000, "memory": 2**30},
    ),
    (
        "sidecar adds to the sum and to later init containers",
        {
            # sidecar 500m runs alongside: sum = 1 + 0.5 = 1.5; regular init after it: 2 + 0.5
            "containers": [container("1", "0")],
            "initContainers": [
                container("500m", "0", restartPolicy="Always"),
                container("2", "0"),
            ],
        },
        {"cpu": 2500, "memory": 0},
    ),
    (
        "regular init before the sidecar does not count it",
        {
            "containers": [container("1", "0")],
            "initContainers": [
                container("2", "0"),
                container("500m", "0", restartPolicy="Always"),
            ],
        },
        {"cpu": 2000, "memory": 0},
    ),
    (
        "a sidecar's resource no other container requests is exactly the sidecar's",
        {
            # only the sidecar asks for memory: sum = 0 + 1Gi = 1Gi; no regular init container
            "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}],
            "initContainers": [
                {"name": "s", "restartPolicy": "Always",
                 "resources": {"requests": {"memory": "1Gi"}}},
            ],
        },
        {"cpu": 1000, "memory": 2**30},
    ),
    (
        "overhead is added last",
        {"containers": [container("1", "1Gi")], "overhead": {"cpu": "250m", "memory": "100Mi"}},
        {"cpu": 1250, "memory": 2**30 + 100 * 2**20},
    ),
    (
        "extended resources and no resources at all",
        {
            "containers": [
                {"name": "c", "resources": {"limits": {"nvidia.com/gpu": 2}}},
                {"name": "d"},
            ]
        },
        {"nvidia.com/gpu": 2},
    ),
]


@pytest.mark.parametrize(
    ("spec", "expected"), [r[1:] for r in REQUESTS], ids=[r[0] for r in REQUESTS]
)
def test_pod_effective_requests(tmp_path: Path, spec: dict[str, Any], expected: dict) -> None:
    """Effective requests follow upstream PodRequests (hand-worked)."""
    p = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}
    assert expected == dict(build(tmp_path, p).pods["default/p"].requests)


def test_a_null_key_in_resources_requests_nothing(tmp_path: Path) -> None:
    """Only ``resources.requests`` (and limits) request anything: a YAML null key there (``~:``
    or ``null:``) is not a field of ResourceRequirements, so its amounts are not requested,
    and they do not replace the container's real requests. Hand-worked: container a has only
    the null key (0 cpu), b requests 1 cpu beside a null key of 5 -> the pod requests 1 cpu
    (1000m), not 7."""
    p = pod("p", containers=[
        {"name": "a", "resources": {None: {"cpu": "2"}}},
        {"name": "b", "resources": {None: {"cpu": "5"}, "requests": {"cpu": "1"}}}])
    assert dict(build(tmp_path, p).pods["default/p"].requests) == {"cpu": 1000}


def test_a_resources_key_in_other_case_requests_nothing(tmp_path: Path) -> None:
    """Field names are case-sensitive: a container's ``RESOURCES`` (a mistyped key, which the
    API server drops as unknown) is not its ``resources``, so its amounts are not requested
    and do not replace the container's real requests -- the same pod read from YAML (kept
    whole) or from JSON (cut to the known fields) requests the same. Hand-worked: container
    a has only ``RESOURCES`` (0 cpu), b requests 1 cpu beside ``RESOURCES`` of 5 cpu and 1Gi
    -> the pod requests 1 cpu (1000m) and no memory, not 7000m and 1Gi."""
    p = pod("p", containers=[
        {"name": "a", "RESOURCES": {"requests": {"cpu": "2"}}},
        {"name": "b", "resources": {"requests": {"cpu": "1"}},
         "RESOURCES": {"requests": {"cpu": "5", "memory": "1Gi"}}}])
    assert dict(build(tmp_path, p).pods["default/p"].requests) == {"cpu": 1000}


def test_containers_alike_share_one_reading_but_not_across_types(tmp_path: Path) -> None:
    """Quantities already read are remembered per process (fields.AMOUNTS); a lookalike with
    other value types is still read on its own: an unquoted YAML number is an amount
    (``cpu: 2`` = 2000m), a boolean is refused, and one container's reading never changes
    another pod's. Hand-worked: a = 1 + 1 cpu and 1Gi + 1Gi memory (limits default only what
    is not requested), b = 2 cpu, c the same as a, in another pod."""
    same = {"requests": {"cpu": "1"}, "limits": {"cpu": "3", "memory": "1Gi"}}
    a = pod("a", containers=[{"name": "x", "resources": same}, {"name": "y", "resources": same}])
    b = pod("b", containers=[{"name": "x", "resources": {"requests": {"cpu": 2}}}])
    c = pod("c", containers=[{"name": "x", "resources": same}, {"name": "y", "resources": same}])
    snap = build(tmp_path, a, b, c)
    gib = 2**30
    assert dict(snap.pods["default/a"].requests) == {"cpu": 2000, "memory": 2 * gib}
    assert dict(snap.pods["default/b"].requests) == {"cpu": 2000}
    assert dict(snap.pods["default/c"].requests) == dict(snap.pods["default/a"].requests)
    # True == 1 in Python: a remembered "1" or an int 1 must not stand in for a boolean
    bad = pod("d", containers=[{"name": "x", "resources": {"requests": {"cpu": True}}}])
    err = error_of(tmp_path, a, pod("e", containers=[
        {"name": "x", "resources": {"requests": {"cpu": 1}}}]), bad)
    assert "spec.containers[0].resources.requests.cpu" in str(err)
    assert "Pod default/d" in str(err)


def test_pdb_fields(tmp_path: Path) -> None:
    """A PDB's selector, budget and already-disrupted pods are read; budget defaults to 0."""
    a = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "a", "namespace": "ns"},
        "spec": {
            "selector": {
                "matchLabels": {"app": "web"},
                "matchExpressions": [{"key": "tier", "operator": "Exists"}],
            }
        },
        "status": {"disruptionsAllowed": 2, "disruptedPods": {"web-1": "2024-01-01T00:00:00Z"}},
    }
    b = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "b"},
        "spec": {},
    }
    pdbs = build(tmp_path, b, a).pdbs
    assert ["default/b", "ns/a"] == [p.key for p in pdbs]
    assert (None, 0, frozenset()) == (
        pdbs[0].selector,
        pdbs[0].disruptions_allowed,
        pdbs[0].disrupted_pods,
    )
    assert LabelSelector({"app": "web"}, (SelectorRequirement("tier", "Exists"),)) == (
        pdbs[1].selector
    )
    assert (2, frozenset({"web-1"})) == (pdbs[1].disruptions_allowed, pdbs[1].disrupted_pods)


# ---- workloads and priorities --------------------------------------------------------------


def test_v1alpha1_workload_groups_and_pod_membership(tmp_path: Path) -> None:
    """v1alpha1 groups are keyed ns/workload/group; the Workload's class wins over the pod's."""
    snap = build(
        tmp_path,
        pclass("low", 10),
        pclass("high", 100),
        workload_v1alpha1(
            "w",
            [gang("g", 3, disruptionMode="PodGroup"), basic("b", preemptionMode="Pod")],
            priorityClassName="high",
            preemptionPriorityClassName="low",
        ),
        pod("p", priorityClassName="low", priority=10, workloadRef={"name": "w", "podGroup": "g"}),
    )
    g = snap.pod_groups["default/w/g"]
    assert ("Gang", 3, "PodGroup", 100, 10) == (
        g.policy,
        g.min_count,
        g.disruption_mode,
        g.priority,
        g.preemption_priority,
    )
    assert ("high", "low", V1ALPHA1) == (
        g.priority_class_name,
        g.preemption_priority_class_name,
        g.api_version,
    )
    b = snap.pod_groups["default/w/b"]
    assert ("Basic", None, "Pod") == (b.policy, b.min_count, b.disruption_mode)
    p = snap.pods["default/p"]
    assert ("default/w/g", 100, 10) == (p.group_key, p.priority, p.preemption_priority)
    w = snap.workloads["default/w"]
    assert (("b", "g"), "high", "low") == (
        w.group_names,
        w.priority_class_name,
        w.preemption_priority_class_name,
    )


def test_v1alpha1_gang_disruption_mode_inside_policy(tmp_path: Path) -> None:
    """policy.gang.disruptionMode (one upstream revision's place for it) is read too."""
    snap = build(
        tmp_path,
        workload_v1alpha1(
            "w", [{"name": "g", "policy": {"gang": {"minCount": 2, "disruptionMode": "PodGroup"}}}]
        ),
    )
    assert "PodGroup" == snap.pod_groups["default/w/g"].disruption_mode


def test_v1alpha1_group_without_class_takes_lowest_member_priority(tmp_path: Path) -> None:
    """A group with no priority of its own is as important as its least important pod."""
    snap = build(
        tmp_path,
        workload_v1alpha1("w", [gang("g")]),
        pod("a", priority=50, workloadRef={"name": "w", "podGroup": "g"}),
        pod("b", priority=20, workloadRef={"name": "w", "podGroup": "g"}),
    )
    assert 20 == snap.pod_groups["default/w/g"].priority
    assert [50, 20] == [snap.pods["default/a"].priority, snap.pods["default/b"].priority]


def test_v1alpha2_pod_group_objects(tmp_path: Path) -> None:
    """v1alpha2 PodGroups take the template's settings unless they set their own."""
    snap = build(
        tmp_path,
        pclass("mid", 50),
        pclass("top", 90),
        workload_v2("w", [template("t", 4, disruptionMode="PodGroup", priorityClassName="mid")]),
        pod_group("pg-1", "w", "t"),
        pod_group(
            "pg-2",
            "w",
            "t",
            schedulingPolicy={"gang": {"minCount": 2}},
            priorityClassName="top",
            priority=90,
            disruptionMode="Pod",
        ),
        pod("p", schedulingGroup={"podGroupName": "pg-1"}),
    )
    one, two = snap.pod_groups["default/w/pg-1"], snap.pod_groups["default/w/pg-2"]
    assert (4, "PodGroup", 50, "mid") == (
        one.min_count,
        one.disruption_mode,
        one.priority,
        one.priority_class_name,
    )
    assert (2, "Pod", 90, "top") == (
        two.min_count,
        two.disruption_mode,
        two.priority,
        two.priority_class_name,
    )
    assert (V1ALPHA2, "default/w/pg-1", 50) == (
        one.api_version,
        snap.pods["default/p"].group_key,
        snap.pods["default/p"].priority,
    )
    assert ("pg-1", "pg-2") == snap.workloads["default/w"].group_names
    assert "mid" == snap.workloads["default/w"].priority_class_name


def test_v1alpha2_workload_takes_the_preemption_class_all_its_templates_name(
    tmp_path: Path,
) -> None:
    """A v1alpha2 Workload naming no preemptionPriorityClassName of its own, whose every
    podGroupTemplate names "low": the Workload is read as naming "low" (the audit's
    before/after fields show it), and that KEP-5710-only field picks the kep-5710 model when
    no server version is known. Templates naming different classes leave it unnamed.
    Hand-worked: one name across all templates, else none."""
    snap = build(
        tmp_path,
        pclass("low", 10),
        pclass("other", 20),
        workload_v2("w", [template("a", preemptionPriorityClassName="low"),
                          template("b", None, preemptionPriorityClassName="low")]),
        workload_v2("mixed", [template("a", preemptionPriorityClassName="low"),
                              template("b", None, preemptionPriorityClassName="other")]),
    )
    assert ("low", None) == (
        snap.workloads["default/w"].preemption_priority_class_name,
        snap.workloads["default/mixed"].preemption_priority_class_name,
    )
    chosen = models.select_model(snap)
    assert ("kep-5710", "Workload default/w sets preemptionPriorityClassName "
            "(a KEP-5710-only field)") == (chosen.name, chosen.reason)


def test_v1alpha2_flat_template_ref_is_accepted(tmp_path: Path) -> None:
    """The earlier flat podGroupTemplateRef{workloadName, podGroupTemplateName} works too."""
    pg = pod_group("pg", "w", "t")
    pg["spec"]["podGroupTemplateRef"] = {"workloadName": "w", "podGroupTemplateName": "t"}
    snap = build(tmp_path, workload_v2("w", [template("t")]), pg)
    assert ["default/w/pg"] == list(snap.pod_groups)


def test_v1alpha3_union_disruption_mode_and_policy(tmp_path: Path) -> None:
    """v1alpha3 `all` means PodGroup, `single` Pod; preemptionPolicy Never reaches the pods."""
    snap = build(
        tmp_path,
        workload_v2("w", [template("t", disruptionMode={"all": {}})], api=V1ALPHA3),
        pod_group("a", "w", "t", api=V1ALPHA3, preemptionPolicy="Never"),
        pod_group("b", "w", "t", api=V1ALPHA3, disruptionMode={"single": {}}),
        pod("p", schedulingGroup={"podGroupName": "a"}),
    )
    a, b = snap.pod_groups["default/w/a"], snap.pod_groups["default/w/b"]
    assert ("PodGroup", NEVER) == (a.disruption_mode, a.preemption_policy)
    assert ("Pod", PREEMPT_LOWER) == (b.disruption_mode, b.preemption_policy)
    assert NEVER == snap.pods["default/p"].preemption_policy


def test_preemption_priority_class_most_specific_wins(tmp_path: Path) -> None:
    """preemptionPriorityClassName: PodGroup over template over Workload."""
    snap = build(
        tmp_path,
        pclass("p1", 1),
        pclass("p2", 2),
        pclass("p3", 3),
        workload_v2(
            "w",
            [template("t", preemptionPriorityClassName="p2"), template("u")],
            preemptionPriorityClassName="p1",
        ),
        pod_group("from-template", "w", "t"),
        pod_group("own", "w", "t", preemptionPriorityClassName="p3"),
        pod_group("from-workload", "w", "u"),
    )
    got = {k: v.preemption_priority for k, v in snap.pod_groups.items()}
    assert {"default/w/from-template": 2, "default/w/own": 3, "default/w/from-workload": 1} == got


def test_v1alpha2_group_without_priority_gets_global_default(tmp_path: Path) -> None:
    """A v1alpha2 PodGroup with no class gets the globalDefault, as admission would give it."""
    snap = build(
        tmp_path,
        pclass("dflt", 7, globalDefault=True),
        workload_v2("w", [template("t")]),
        pod_group("pg", "w", "t"),
        pod("p", schedulingGroup={"podGroupName": "pg"}),
    )
    assert (7, "dflt") == (
        snap.pod_groups["default/w/pg"].priority,
        snap.pod_groups["default/w/pg"].priority_class_name,
    )
    assert 7 == snap.pods["default/p"].priority


def test_standalone_pod_priority_chain(tmp_path: Path) -> None:
    """spec.priority, else the pod's class, else globalDefault; policy from spec or class."""
    snap = build(
        tmp_path,
        pclass("dflt", 5, globalDefault=True),
        pclass("quiet", 30, preemptionPolicy="Never"),
        pod("explicit", priority=99, priorityClassName="quiet"),
        pod("classed", priorityClassName="quiet"),
        pod("plain"),
        pod("never", preemptionPolicy="Never"),
    )
    got = {k: (p.priority, p.preemption_policy) for k, p in snap.pods.items()}
    assert {
        "default/explicit": (99, NEVER),
        "default/classed": (30, NEVER),
        "default/plain": (5, PREEMPT_LOWER),
        "default/never": (5, NEVER),
    } == got


# ---- errors ---------------------------------------------------------------------------------

F = "snap.yaml"
AFFINITY = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"


def _bad_pod(**changes: Any) -> dict[str, Any]:
    p = pod("p")
    for path, value in changes.items():
        target = p
        *parents, last = path.split("__")
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        target[last] = value
    return p


ERRORS: list[tuple[str, list[Any], int | None, str | None, str]] = [
    # id, documents, document number, field, reason
    ("not a mapping", [node("a"), ["x", "y"]], 2, None, "must be a mapping"),
    ("scalar document", ["just text"], 1, None, "must be a mapping"),
    ("missing kind", [{"apiVersion": "v1", "metadata": {"name": "a"}}], 1, "kind", "missing"),
    (
        "missing name",
        [{"apiVersion": "v1", "kind": "Node", "metadata": {}}],
        1,
        "metadata.name",
        "missing",
    ),
    ("no metadata", [{"apiVersion": "v1", "kind": "Pod"}], 1, "metadata.name", "missing"),
    (
        "containers not a list",
        [_bad_pod(spec__containers={"name": "c"})],
        1,
        "spec.containers",
        "must be a list",
    ),
    (
        "container not a mapping",
        [_bad_pod(spec__containers=["c"])],
        1,
        "spec.containers[0]",
        "must be a mapping",
    ),
    (
        "negative request",
        [_bad_pod(spec__containers__0__resources__requests__cpu="-1")],
        1,
        "spec.containers[0].resources.requests.cpu",
        "negative",
    ),
    (
        "unparsable request",
        [_bad_pod(spec__containers__0__resources__requests__memory="1 Gi")],
        1,
        "spec.containers[0].resources.requests.memory",
        "expected a number",
    ),
    (
        "unparsable limit",
        [_bad_pod(spec__containers__0__resources__limits={"cpu": "lots"})],
        1,
        "spec.containers[0].resources.limits.cpu",
        "no digits",
    ),
    ("negative allocatable", [node("a", cpu="-2")], 1, "status.allocatable.cpu", "negative"),
    (
        "negative overhead",
        [_bad_pod(spec__overhead={"memory": "-1Mi"})],
        1,
        "spec.overhead.memory",
        "negative",
    ),
    (
        "pod class missing",
        [_bad_pod(spec__priorityClassName="gold")],
        1,
        "spec.priorityClassName",
        "PriorityClass 'gold' does not exist",
    ),
    (
        "workload class missing",
        [workload_v1alpha1("w", [gang("g")], priorityClassName="gold")],
        1,
        "spec.priorityClassName",
        "PriorityClass 'gold' does not exist",
    ),
    (
        "workload preemption class missing",
        [workload_v1alpha1("w", [gang("g")], preemptionPriorityClassName="gold")],
        1,
        "spec.preemptionPriorityClassName",
        "does not exist",
    ),
    (
        # only an error once a PodGroup without a priority of its own inherits it (issue 15)
        "template class missing",
        [workload_v2("w", [template("t", priorityClassName="gold")]), pod_group("pg", "w", "t")],
        1,
        "spec.podGroupTemplates[0].priorityClassName",
        "does not exist",
    ),
    (
        "pod to absent group",
        [
            workload_v1alpha1("w", [gang("g")]),
            _bad_pod(spec__workloadRef={"name": "w", "podGroup": "x"}),
        ],
        2,
        "spec.workloadRef.podGroup",
        "has no pod group 'x'",
    ),
    (
        "pod workloadRef to v1alpha2 workload",
        [
            workload_v2("w", [template("t")]),
            _bad_pod(spec__workloadRef={"name": "w", "podGroup": "t"}),
        ],
        2,
        "spec.workloadRef",
        "spec.schedulingGroup.podGroupName",
    ),
    (
        "both refs",
        [
            _bad_pod(
                spec__workloadRef={"name": "w", "podGroup": "g"},
                spec__schedulingGroup={"podGroupName": "pg"},
            )
        ],
        1,
        "spec.schedulingGroup",
        "not both",
    ),
    (
        # without its Workload, a PodGroup needs a policy of its own (issue 15)
        "PodGroup to absent workload",
        [pod_group("pg", "w", "t")],
        1,
        "spec.podGroupTemplateRef.workload.workloadName",
        "Workload default/w does not exist in the snapshot and the PodGroup has no "
        "schedulingPolicy",
    ),
    (
        "PodGroup to absent template",
        [workload_v2("w", [template("t")]), pod_group("pg", "w", "nope")],
        2,
        "spec.podGroupTemplateRef.workload.podGroupTemplateName",
        "has no podGroupTemplate 'nope'",
    ),
    (
        "v1alpha3 PodGroup to absent template",
        [
            workload_v2("w", [template("t")], api=V1ALPHA3),
            pod_group("pg", "w", "nope", api=V1ALPHA3),
        ],
        2,
        "spec.workloadRef.templateName",
        "has no podGroupTemplate",
    ),
    (
        "PodGroup without template ref",
        [
            {
                "apiVersion": V1ALPHA2,
                "kind": "PodGroup",
                "metadata": {"name": "pg"},
                "spec": {"schedulingPolicy": {"basic": {}}},
            }
        ],
        1,
        "spec.podGroupTemplateRef",
        "not supported",
    ),
    (
        "gang minCount 0",
        [workload_v1alpha1("w", [gang("g", 0)])],
        1,
        "spec.podGroups[0].policy.gang.minCount",
        "at least 1",
    ),
    (
        "template minCount 0",
        [workload_v2("w", [template("t", 0)])],
        1,
        "spec.podGroupTemplates[0].schedulingPolicy.gang.minCount",
        "at least 1",
    ),
    (
        "minCount not a number",
        [workload_v1alpha1("w", [gang("g", "two")])],
        1,  # type: ignore
        "spec.podGroups[0].policy.gang.minCount",
        "must be an integer",
    ),
    (
        "both policies",
        [workload_v1alpha1("w", [{"name": "g", "policy": {"basic": {}, "gang": {"minCount": 1}}}])],
        1,
        "spec.podGroups[0].policy",
        "exactly one",
    ),
    (
        "PodGroup mode with basic v1alpha1",
        [workload_v1alpha1("w", [basic("g", disruptionMode="PodGroup")])],
        1,
        "spec.podGroups[0].disruptionMode",
        "needs a gang policy",
    ),
    (
        "PodGroup mode with basic v1alpha2",
        [workload_v2("w", [template("t", None, disruptionMode="PodGroup")])],
        1,
        "spec.podGroupTemplates[0].disruptionMode",
        "needs a gang policy",
    ),
    (
        "all mode with basic v1alpha3",
        [
            workload_v2("w", [template("t", None, disruptionMode={"all": {}})], api=V1ALPHA3),
            pod_group("pg", "w", "t", api=V1ALPHA3),
        ],
        1,
        "spec.podGroupTemplates[0].disruptionMode",
        "disruption mode all needs a gang policy",
    ),
    (
        "PodGroup mode from template with basic PodGroup",
        [
            workload_v2("w", [template("t", disruptionMode="PodGroup")]),
            pod_group("pg", "w", "t", schedulingPolicy={"basic": {}}),
        ],
        2,
        "spec.schedulingPolicy",
        "needs a gang policy",
    ),
    (
        "PodGroup object basic with PodGroup mode",
        [
            workload_v2("w", [template("t")]),
            pod_group("pg", "w", "t", schedulingPolicy={"basic": {}}, disruptionMode="PodGroup"),
        ],
        2,
        "spec.disruptionMode",
        "needs a gang policy",
    ),
    (
        "unknown disruption mode",
        [workload_v1alpha1("w", [gang("g", disruptionMode="Foo")])],
        1,
        "spec.podGroups[0].disruptionMode",
        "unknown value 'Foo'",
    ),
    (
        "v1alpha3 mode as string",
        [workload_v2("w", [template("t", disruptionMode="PodGroup")], api=V1ALPHA3)],
        1,
        "spec.podGroupTemplates[0].disruptionMode",
        "{all: {}}",
    ),
    (
        "v1alpha3 unknown union member",
        [workload_v2("w", [template("t", disruptionMode={"some": {}})], api=V1ALPHA3)],
        1,
        "spec.podGroupTemplates[0].disruptionMode",
        "unknown disruption mode 'some'",
    ),
    (
        "conflicting mode spellings",
        [workload_v1alpha1("w", [gang("g", disruptionMode="Pod", preemptionMode="PodGroup")])],
        1,
        "spec.podGroups[0].preemptionMode",
        "different values",
    ),
    (
        "two global defaults",
        [pclass("a", 1, globalDefault=True), pclass("b", 2, globalDefault=True)],
        2,
        "globalDefault",
        "more than one PriorityClass has globalDefault",
    ),
    (
        "class value missing",
        [
            {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": "a"},
            }
        ],
        1,
        "value",
        "missing",
    ),
    (
        "class policy unknown",
        [pclass("a", 1, preemptionPolicy="Sometimes")],
        1,
        "preemptionPolicy",
        "unknown value",
    ),
    (
        "unsupported workload version",
        [{"apiVersion": "scheduling.k8s.io/v9", "kind": "Workload", "metadata": {"name": "w"}}],
        1,
        "apiVersion",
        "unsupported Workload version",
    ),
    (
        "workload without apiVersion",
        [{"kind": "Workload", "metadata": {"name": "w"}}],
        1,
        "apiVersion",
        "API shape",
    ),
    (
        "v1alpha1 shape in v1alpha2",
        [{**workload_v1alpha1("w", [gang("g")]), "apiVersion": V1ALPHA2}],
        1,
        "spec.podGroups",
        "podGroupTemplates",
    ),
    (
        "composite templates",
        [workload_v2("w", [], api=V1ALPHA3, compositePodGroupTemplates=[{"name": "c"}])],
        1,
        "spec.compositePodGroupTemplates",
        "not supported",
    ),
    (
        "label not a string",
        [_bad_pod(metadata__labels={"gpu": True})],
        1,
        "metadata.labels.gpu",
        "quote it",
    ),
    (
        "bad timestamp",
        [_bad_pod(metadata__creationTimestamp="yesterday")],
        1,
        "metadata.creationTimestamp",
        "not an RFC3339 timestamp",
    ),
    ("unknown phase", [_bad_pod(status__phase="Sleeping")], 1, "status.phase", "unknown value"),
    (
        "unknown pod preemption policy",
        [_bad_pod(spec__preemptionPolicy="Always")],
        1,
        "spec.preemptionPolicy",
        "unknown value",
    ),
    (
        "priority not an integer",
        [_bad_pod(spec__priority="high")],
        1,
        "spec.priority",
        "must be an integer",
    ),
    (
        "unknown taint effect",
        [{**node("a"), "spec": {"taints": [{"key": "k", "effect": "Sometimes"}]}}],
        1,
        "spec.taints[0].effect",
        "unknown value",
    ),
    (
        "unknown toleration operator",
        [_bad_pod(spec__tolerations=[{"key": "k", "operator": "Like"}])],
        1,
        "spec.tolerations[0].operator",
        "unknown value",
    ),
    (
        "affinity operator unknown",
        [
            _bad_pod(
                spec__affinity={
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {"matchExpressions": [{"key": "k", "operator": "Near"}]}
                            ]
                        }
                    }
                }
            )
        ],
        1,
        AFFINITY + ".nodeSelectorTerms[0].matchExpressions[0].operator",
        "unknown value",
    ),
    (
        "affinity Gt not an integer",
        [
            _bad_pod(
                spec__affinity={
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {"key": "k", "operator": "Gt", "values": ["x"]}
                                    ]
                                }
                            ]
                        }
                    }
                }
            )
        ],
        1,
        AFFINITY + ".nodeSelectorTerms[0].matchExpressions[0].values",
        "one integer value",
    ),
    (
        "pdb selector operator",
        [
            {
                "apiVersion": "policy/v1",
                "kind": "PodDisruptionBudget",
                "metadata": {"name": "b"},
                "spec": {
                    "selector": {
                        "matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]
                    }
                },
            }
        ],
        1,
        "spec.selector.matchExpressions[0].operator",
        "unknown value",
    ),
    (
        "List item not a mapping",
        [{"apiVersion": "v1", "kind": "List", "items": [node("a"), 5]}],
        1,
        None,
        "List item must be a mapping",
    ),
]


@pytest.mark.parametrize(
    ("docs", "document", "field", "reason"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS]
)
def test_input_errors(
    tmp_path: Path, docs: list[Any], document: int | None, field: str | None, reason: str
) -> None:
    """Each contradiction or malformed field is an InputError naming file, document, field."""
    err = error_of(tmp_path, *docs)
    assert reason in err.reason
    assert_names(err, F, document, field)


def test_list_item_error_names_the_item(tmp_path: Path) -> None:
    """An error in a List item names the item index as well."""
    err = error_of(
        tmp_path,
        pclass("x", 1),
        {"apiVersion": "v1", "kind": "List", "items": [node("a"), node("b", cpu="-1")]},
    )
    assert Source(str(tmp_path / F), 2, 1) == err.source
    assert "document 2, item 1, field status.allocatable.cpu" in str(err)


def test_duplicate_objects_name_both_places(tmp_path: Path) -> None:
    """A second definition of the same Pod is an error naming where each one is."""
    err = error_of(tmp_path, pod("p"), node("a"), pod("p"))
    assert "duplicate Pod default/p" in err.reason
    assert f"{tmp_path / F}, document 1" in err.reason
    assert_names(err, F, 3, "metadata.name")


def test_duplicates_across_files(tmp_path: Path) -> None:
    """The same Node in two files is a duplicate naming both files."""
    a = write_yaml(tmp_path, "a.yaml", node("n"))
    b = write_yaml(tmp_path, "b.yaml", node("n"))
    with pytest.raises(InputError) as info:
        ingest.build_snapshot(ingest.read_documents([a, b]))
    assert a in str(info.value) and b in str(info.value)


def test_same_name_different_namespace_is_not_a_duplicate(tmp_path: Path) -> None:
    """Namespaced objects are keyed by namespace and name."""
    assert 2 == len(build(tmp_path, pod("p", ns="a"), pod("p", ns="b")).pods)


def test_v1alpha1_pod_priority_may_differ_workload_wins(tmp_path: Path) -> None:
    """In v1alpha1 the Workload's class overrides a pod's own priority (SPEC.md §2), no error."""
    snap = build(
        tmp_path,
        pclass("hi", 100),
        workload_v1alpha1("w", [gang("g")], priorityClassName="hi"),
        pod("p", priority=5, workloadRef={"name": "w", "podGroup": "g"}),
    )
    assert 100 == snap.pods["default/p"].priority


def _read_error(path: str, **kwargs: Any) -> InputError:
    with pytest.raises(InputError) as info:
        ingest.read_documents([path], **kwargs)
    return info.value


def test_missing_file(tmp_path: Path) -> None:
    """A missing path is an InputError naming it."""
    err = _read_error(str(tmp_path / "nope.yaml"))
    assert "no such file" in err.reason
    assert str(tmp_path / "nope.yaml") in str(err)


def test_entirely_empty_file(tmp_path: Path) -> None:
    """A file with nothing in it is an error."""
    (tmp_path / "e.yaml").write_bytes(b"  \n\n")
    assert "empty" in _read_error(str(tmp_path / "e.yaml")).reason


def test_file_of_empty_documents(tmp_path: Path) -> None:
    """A file holding only empty documents (and comments) is an error too."""
    (tmp_path / "e.yaml").write_text("# nothing here\n---\n---\n", encoding="utf-8")
    assert "no YAML or JSON documents" in _read_error(str(tmp_path / "e.yaml")).reason


def test_binary_file(tmp_path: Path) -> None:
    """NUL bytes mean binary data, not YAML or JSON."""
    (tmp_path / "b.yaml").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    assert "binary" in _read_error(str(tmp_path / "b.yaml")).reason


@pytest.mark.parametrize("where", ["in a kept field", "in a skipped field", "between values"])
def test_json_with_a_nul_byte_is_binary(tmp_path: Path, where: str) -> None:
    """JSON text with a NUL byte anywhere -- where the fast reader keeps a field, where it
    skips one, outside strings -- is reported as binary data like any other input (the fast
    reader refuses it before the NUL scan runs), also for a big file read through a map."""
    nul = {
        "in a kept field": b'"name": "a\x00b"',
        "in a skipped field": b'"name": "a", "annotations": {"x": "\x00"}',
        "between values": b'"name": "a",\x00 "uid": "u"',
    }[where]
    item = b'{"apiVersion": "v1", "kind": "Node", "metadata": {' + nul + b"}}"
    data = b'{"apiVersion": "v1", "kind": "List", "items": [' + item + b"]}"
    (tmp_path / "n.json").write_bytes(data)
    assert "binary" in _read_error(str(tmp_path / "n.json")).reason
    padding = b" " * (sources.MAP_FROM + 1)  # past the size from which files are mapped
    (tmp_path / "big.json").write_bytes(data[:-1] + padding + b"}")
    assert "binary" in _read_error(str(tmp_path / "big.json")).reason


def test_not_utf8(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 are an error, not mojibake."""
    (tmp_path / "l.yaml").write_bytes(b"kind: Node\nmetadata: {name: caf\xe9}\n")
    assert "not UTF-8" in _read_error(str(tmp_path / "l.yaml")).reason


def test_malformed_yaml_names_document_and_line(tmp_path: Path) -> None:
    """A YAML syntax error names the document and the line and column."""
    (tmp_path / "m.yaml").write_text(
        yaml.safe_dump(node("a")) + "---\nkind: Node\nmetadata: {name: [unclosed\n",
        encoding="utf-8",
    )
    err = _read_error(str(tmp_path / "m.yaml"))
    assert "document 2" in str(err)
    assert "invalid YAML" in err.reason and "line" in err.reason


def test_malformed_json_file(tmp_path: Path) -> None:
    """A .json file that is not JSON is an error with line and column (no YAML fallback)."""
    (tmp_path / "m.json").write_text('{"kind": "Node", "metadata": {name: "a"}}', encoding="utf-8")
    err = _read_error(str(tmp_path / "m.json"))
    assert "invalid JSON" in err.reason and "line 1, column" in err.reason


def test_empty_directory(tmp_path: Path) -> None:
    """A directory without snapshot files is an error."""
    (tmp_path / "readme.txt").write_text("x", encoding="utf-8")
    assert "no *.yaml" in _read_error(str(tmp_path)).reason


def test_size_limit_and_raising_it(tmp_path: Path) -> None:
    """A file over max_input_size is rejected before reading; a larger limit accepts it."""
    path = write_yaml(tmp_path, "s.yaml", node("a"))
    size = os.path.getsize(path)
    err = _read_error(path, max_input_size=size - 1)
    assert "larger than" in err.reason and "--max-input-size" in err.reason
    assert 1 == len(ingest.read_documents([path], max_input_size=size))


def test_stdin_is_read_with_a_cap() -> None:
    """stdin beyond the limit is an error after reading at most limit + 1 bytes."""

    asked: list[int] = []

    class Stream(io.BytesIO):
        def read(self, n: int = -1) -> bytes:  # type: ignore[override]
            asked.append(n)
            return super().read(n)

    stream = Stream(b"x" * 1000)
    with pytest.raises(InputError) as info:
        ingest.read_documents(["-"], max_input_size=100, stdin=stream)
    assert [101] == asked
    assert "<stdin>" in str(info.value)


def test_stdin_is_read_with_the_default_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --max-input-size the first FAST_FROM bytes decide the limit (JSON-like: the
    fast reader's, 4,096 here), and stdin beyond it is refused after reading limit + 1 bytes in
    all: 1,024 then 3,073 of a 10,000-byte stream."""
    monkeypatch.setattr(limits, "FAST_FROM", 1024)
    monkeypatch.setattr(limits, "MAX_INPUT_SIZE", 2048)
    monkeypatch.setattr(limits, "MAX_FAST_INPUT_SIZE", 4096)
    got: list[int] = []

    class Stream(io.BytesIO):
        def read(self, n: int | None = -1) -> bytes:  # type: ignore[override]
            chunk = super().read(n)
            got.append(len(chunk))
            return chunk

    with pytest.raises(InputError) as info:
        ingest.read_documents(["-"], stdin=Stream(b"{" + b" " * 9999))
    assert ([1024, 3073], "<stdin>: input is larger than the 4Ki limit (raise it with "
            "--max-input-size)") == (got, str(info.value))


def test_missing_class_warnings_say_who_names_it_and_what_is_used(tmp_path: Path) -> None:
    """Three pods naming a missing class, each with a number: one warning, on the first by
    name, counting the two others and listing the numbers used once each. A Workload template
    naming a missing class whose PodGroup objects carry their own priority: they are used."""
    snap = build(tmp_path, pod("b", priorityClassName="gone", priority=200),
                 pod("a", priorityClassName="gone", priority=100),
                 pod("c", priorityClassName="gone", priority=200))
    assert [("Pod default/a", "PriorityClass 'gone' is not in the snapshot (deleted, or left out "
             "of the export); 2 more objects name it too; the priority each object carries is "
             "used (100, 200)")] == [(w.object, w.message) for w in snap.warnings]
    snap = build(tmp_path, pclass("low", 5),
                 workload_v2("w", [template("t", 2, priorityClassName="gone")]),
                 pod_group("pg", "w", "t", priorityClassName="low", priority=5))
    assert [("Workload default/w", "spec.podGroupTemplates[0].priorityClassName",
             "PriorityClass 'gone' is not in the snapshot (deleted, or left out of the export); "
             "the PodGroups carry their own priority")] == [
        (w.object, w.field, w.message) for w in snap.warnings]


def test_a_pod_groups_own_number_is_its_priority_not_the_workloads_class(
    tmp_path: Path,
) -> None:
    """A v1alpha2 PodGroup with spec.priority 7 and no class, of a Workload of class low (5):
    the group schedules and is preempted at its own 7 and names no class."""
    snap = build(tmp_path, pclass("low", 5),
                 workload_v2("w", [template("t", 2)], priorityClassName="low"),
                 pod_group("pg", "w", "t", priority=7))
    g = snap.pod_groups["default/w/pg"]
    assert (7, 7, None, None) == (g.priority, g.preemption_priority, g.priority_class_name,
                                  g.preemption_priority_class_name)


PARSE_SIZE = [
    ("512Mi", 512 * 2**20),
    ("2Gi", 2 * 2**30),
    ("1e9", 10**9),
    ("1000", 1000),
    ("1.5Ki", 1536),
    ("1", 1),
    ("500m", 1),
]


@pytest.mark.parametrize(("text", "expected"), PARSE_SIZE, ids=[p[0] for p in PARSE_SIZE])
def test_parse_size(text: str, expected: int) -> None:
    """--max-input-size takes quantity syntax, down to the smallest positive size: "1" is one
    byte, and a fraction of a byte ("500m", half a byte) rounds up to one."""
    assert expected == ingest.parse_size(text)


def test_parse_size_ignores_surrounding_whitespace() -> None:
    """--max-input-size " 512Mi" or "2Gi\n" (a value quoted with its spaces, or read from a
    file with its newline) is the size written: 512 * 2**20 and 2 * 2**30 bytes, not an
    error."""
    assert (512 * 2**20, 2 * 2**30) == (ingest.parse_size(" 512Mi "), ingest.parse_size("2Gi\n"))


@pytest.mark.parametrize("text", ["lots", "-1Gi", "0", ""])
def test_parse_size_rejects(text: str) -> None:
    """A bad or non-positive size is a usage error."""
    with pytest.raises(UsageError):
        ingest.parse_size(text)


PARSE_SIZE_ERRORS = [
    ("2GB", "--max-input-size: unknown suffix 'GB' (use n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, "
     "Ti, Pi, Ei or an exponent like e3) in '2GB' (e.g. 512Mi or 2Gi)"),
    ("0", "--max-input-size must be positive, got '0'"),
    ("-1Gi", "--max-input-size must be positive, got '-1Gi'"),
]


@pytest.mark.parametrize(("text", "message"), PARSE_SIZE_ERRORS,
                         ids=[p[0] for p in PARSE_SIZE_ERRORS])
def test_parse_size_error_says_what_is_wrong(text: str, message: str) -> None:
    """The usage error a user sees for a bad --max-input-size names the option, the text as
    written and why: a suffix that is no quantity suffix (with the ones that are, and an
    example), or a size that is not positive."""
    with pytest.raises(UsageError) as info:
        ingest.parse_size(text)
    assert message == str(info.value)


def _terminating(name: str, condition_status: Any, *, deleted: bool = True) -> dict[str, Any]:
    doc = pod(name, nodeName="n1")
    if deleted:
        doc["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    doc["status"] = {"phase": "Running", "conditions": [
        {"type": "Ready", "status": "False"},
        {"type": "DisruptionTarget", "status": condition_status,
         "reason": "PreemptionByScheduler"}]}
    return doc


def test_terminating_by_preemption_reads_the_disruption_target_condition(tmp_path: Path) -> None:
    """Upstream PodTerminatingByPreemption (preemption/util.go): a pod with a deletionTimestamp
    whose first DisruptionTarget condition is "True" with reason PreemptionByScheduler; "False"
    is not, and a pod without a deletionTimestamp never is, whatever its conditions say."""
    snap = build(tmp_path, node("n1"), _terminating("yes", "True"), _terminating("no", "False"),
                 _terminating("live", "True", deleted=False))
    assert snap.pods["default/yes"].preempted_by_scheduler
    assert not snap.pods["default/no"].preempted_by_scheduler
    assert not snap.pods["default/live"].preempted_by_scheduler
    assert not snap.pods["default/live"].terminating


def test_terminating_without_a_disruption_target_condition_is_not_by_preemption(
    tmp_path: Path,
) -> None:
    """A pod being deleted that carries no DisruptionTarget condition at all (an empty
    conditions list, or only other conditions) was deleted some other way, not preempted by
    the scheduler (upstream PodTerminatingByPreemption answers false): the 1.36 models then
    do not make a nominated preemptor wait for it."""
    empty = pod("empty", nodeName="n1")
    empty["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    empty["status"] = {"phase": "Running", "conditions": []}
    other = pod("other", nodeName="n1")
    other["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    other["status"] = {"phase": "Running", "conditions": [
        {"type": "Ready", "status": "False"},
        {"type": "PodScheduled", "status": "True", "reason": "PreemptionByScheduler"}]}
    snap = build(tmp_path, node("n1"), empty, other)
    for name in ("empty", "other"):
        assert snap.pods[f"default/{name}"].terminating
        assert not snap.pods[f"default/{name}"].preempted_by_scheduler


def test_disruption_target_status_as_a_yaml_boolean_is_refused(tmp_path: Path) -> None:
    """ConditionStatus is a string: the API server refuses `status: True` unquoted (a YAML
    boolean), so a snapshot holding one was edited by hand. It used to be read silently as
    "not True", which changed whether the preemptor waits; now it is one error naming the
    field."""
    err = error_of(tmp_path, node("n1"), _terminating("t", True))
    assert_names(err, "snap.yaml", 2, "status.conditions[1].status")
    assert 'must be a string: "True", "False" or "Unknown" (quote it), not a boolean' in str(err)
    assert "Pod default/t" in str(err)


@pytest.mark.parametrize("suffix", [".json", ".yaml", ""])
def test_a_named_pipe_reads_like_a_file(tmp_path: Path, suffix: str) -> None:
    """A pipe given as a path (``wapctl plan <(kubectl get ... -o json)``, ``/dev/stdin``, a
    FIFO) reads like the file it carries: it cannot seek, so nothing may try to (it did:
    "cannot read: File or stream is not seekable")."""
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
         "status": {"allocatable": {"cpu": "4"}}}]})
    if suffix == ".yaml":
        text = yaml.safe_dump(json.loads(text))
    fifo = tmp_path / f"snap{suffix}"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "w", encoding="utf-8") as fh:
            fh.write(text)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        docs = ingest.read_documents([str(fifo)])
    finally:
        writer.join(timeout=10)
    assert [(d.source.file, d.obj["metadata"]["name"]) for d in docs] == [(str(fifo), "n1")]
    assert ingest.build_snapshot(docs).nodes["n1"].allocatable["cpu"] == 4000


def test_pod_group_without_its_workload_warns_missing_workload(tmp_path: Path) -> None:
    """A PodGroup whose Workload was left out of the export but which carries its own
    schedulingPolicy loads with one MissingWorkload warning (the code ``wapctl audit`` counts
    as dangling), on the PodGroup and its workloadName field, saying its own settings are used."""
    snap = build(tmp_path, pod_group("pg", "w", "t", schedulingPolicy={"basic": {}}))
    assert [("MissingWorkload", "PodGroup default/pg",
             "spec.podGroupTemplateRef.workload.workloadName",
             "Workload default/w is not in the snapshot; the PodGroup's own settings are used")
            ] == [(w.code, w.object, w.field, w.message) for w in snap.warnings]
