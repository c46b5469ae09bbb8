"""Default input limits that fit real clusters, and lines of JSON List items on demand."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from wapctl import ingest
from wapctl.errors import InputError
from wapctl.ingest import json_reader, limits


def _node(name: str, cpu: str = "1") -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name},
        "status": {"allocatable": {"cpu": cpu, "memory": "1Gi", "pods": "10"}},
    }


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """The defaults scaled down: 2 KiB for everything, 1 MiB for JSON from 1 KiB on."""
    monkeypatch.setattr(limits, "MAX_INPUT_SIZE", 2048)
    monkeypatch.setattr(limits, "MAX_FAST_INPUT_SIZE", 1 << 20)
    monkeypatch.setattr(limits, "FAST_FROM", 1024)


def _list(n: int) -> dict:
    return {"apiVersion": "v1", "kind": "List", "items": [_node(f"n{i}") for i in range(n)]}


def test_json_over_the_general_limit_is_read_by_default(tmp_path: Path, small_limits: None) -> None:
    path = tmp_path / "big.json"
    path.write_text(json.dumps(_list(40)))  # ~5 KiB: over 2 KiB, under 1 MiB
    assert 40 == len(ingest.read_documents([str(path)]))


def test_yaml_over_the_general_limit_is_refused_by_size(tmp_path: Path, small_limits: None) -> None:
    """YAML below FAST_YAML_FROM (1 MiB, not scaled down here) is read by PyYAML (~30x the file
    in memory), which takes only the general limit."""
    path = tmp_path / "big.yaml"
    path.write_text("\n---\n".join(json.dumps(n) for n in _list(40)["items"]))
    with pytest.raises(InputError) as info:
        ingest.read_documents([str(path)])
    assert "larger than the 2Ki limit" in info.value.reason


def test_json_the_fast_reader_hands_over_is_capped(tmp_path: Path, small_limits: None) -> None:
    """A big JSON file the fast reader refuses (NaN is not JSON to it) would go to json.loads:
    past the general limit that is refused, with a reason and the way out."""
    path = tmp_path / "nan.json"
    doc = _list(40)
    text = json.dumps(doc).replace('"pods": "10"}', '"pods": "10", "x": NaN}', 1)
    path.write_text(text)
    with pytest.raises(InputError) as info:
        ingest.read_documents([str(path)])
    assert "larger than the 2Ki limit" in info.value.reason
    assert "--max-input-size" in info.value.reason
    # an explicit limit lets the safe reader take it
    assert 40 == len(ingest.read_documents([str(path)], max_input_size=1 << 20))


def test_explicit_limit_applies_to_json_too(tmp_path: Path, small_limits: None) -> None:
    path = tmp_path / "big.json"
    path.write_text(json.dumps(_list(40)))
    with pytest.raises(InputError):
        ingest.read_documents([str(path)], max_input_size=1024)


def test_json_list_item_error_names_its_line(tmp_path: Path) -> None:
    """json.dumps(indent=1) puts the List's "items" key on line 3 and each one-key-per-line
    node below it; item 2 (the bad cpu) starts on the line of its opening brace, found by
    hand as the line holding the third '  {' at the items' indentation."""
    path = tmp_path / "l.json"
    doc = _list(3)
    doc["items"][2] = _node("bad", cpu="-1")
    text = json.dumps(doc, indent=1)
    path.write_text(text)
    lines = text.splitlines()
    starts = [i + 1 for i, line in enumerate(lines) if line == "  {"]
    assert 3 == len(starts)
    with pytest.raises(InputError) as info:
        ingest.build_snapshot(ingest.read_documents([str(path)]))
    assert f"{path}:{starts[2]}, document 1, item 2, field status" in str(info.value)


def test_json_list_item_line_from_the_safe_reader(tmp_path: Path) -> None:
    """A JSON List the fast reader refuses (an item that is not an object) is read by the
    ``json`` module; an error about an item still names the item's line. Hand-numbered: the
    object ``{`` on line 1, "items" opens on line 4, item 0 spans lines 5-6, item 1 (the
    number 7) is on line 7. (A file of its own, by its full path: a line finder registered
    for another file of the same name cannot answer for it.)"""
    path = tmp_path / "items.json"
    path.write_text(
        "{\n"
        ' "apiVersion": "v1",\n'
        ' "kind": "List",\n'
        ' "items": [\n'
        '  {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"},\n'
        '   "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}},\n'
        "  7\n"
        " ]\n"
        "}\n"
    )
    with pytest.raises(InputError) as info:
        ingest.read_documents([str(path)])
    assert (f"{path}:7, document 1, item 1: a List item must be a mapping (a Kubernetes "
            "object), not a number") == str(info.value)


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_a_lowered_depth_limit_is_the_one_applied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str
) -> None:
    """Every limit is read from ``wapctl.ingest.limits`` when it is applied, not copied at
    import: lowered there, it is the one the readers enforce (YAML and JSON, fast and safe)."""
    node = _node("n1")
    node["metadata"]["labels"] = {"a": "b"}  # the document is 3 levels deep
    path = tmp_path / f"n{suffix}"
    path.write_text(json.dumps(node))
    assert len(ingest.read_documents([str(path)])) == 1
    monkeypatch.setattr(limits, "MAX_DEPTH", 2)
    with pytest.raises(InputError) as err:
        ingest.read_documents([str(path)])
    assert err.value.reason == "nested deeper than 2 levels"


def test_a_lowered_alias_limit_is_the_one_applied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("apiVersion: v1\nkind: Node\nmetadata: {name: n, labels: &l {a: b}}\n"
                    "x: [*l, *l]\n")
    assert len(ingest.read_documents([str(path)])) == 1
    monkeypatch.setattr(limits, "MAX_ALIASES", 1)
    with pytest.raises(InputError) as err:
        ingest.read_documents([str(path)])
    assert err.value.reason.startswith("YAML aliases exceed the limits (1 aliases, ")


def test_a_changed_default_pod_count_is_the_one_applied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    node = _node("n1")
    del node["status"]["allocatable"]["pods"]
    path = tmp_path / "n.json"
    path.write_text(json.dumps(node))
    monkeypatch.setattr(limits, "DEFAULT_NODE_PODS", 7)
    snap = ingest.build_snapshot(ingest.read_documents([str(path)]))
    assert snap.nodes["n1"].allocatable["pods"] == 7


def test_explicit_limit_lets_yaml_on_stdin_past_the_general_limit(small_limits: None) -> None:
    """A user who pipes YAML into `-` with --max-input-size raises the limit for it as for a
    file: 40 node documents (~5 KiB, over the 2 KiB general limit PyYAML's reader gets by
    default) are all read under a 1 MiB explicit limit, not refused by the general one."""
    text = "\n---\n".join(json.dumps(n) for n in _list(40)["items"]).encode()
    assert len(text) > 2048
    docs = ingest.read_documents(["-"], max_input_size=1 << 20, stdin=io.BytesIO(text))
    assert [f"n{i}" for i in range(40)] == [d.obj["metadata"]["name"] for d in docs]


@pytest.mark.parametrize("kind", ["Node", "List"])
def test_a_lowered_depth_limit_applies_to_json_read_in_slices(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """A JSON file longer than a slice (``json_reader.SLICE`` lowered to 64 bytes) goes through
    the slice reader first; a depth limit lowered to 2 applies there too: a node whose labels
    mapping is level 3, and a List whose one item (``items`` level 2, the item level 3) holds
    no mapping or list, are both refused."""
    monkeypatch.setattr(json_reader, "SLICE", 64)
    if kind == "Node":
        doc: dict = _node("n1")
        doc["metadata"]["labels"] = {"a": "b"}
    else:
        doc = {"apiVersion": "v1", "kind": "List",
               "items": [{"apiVersion": "v1", "kind": "Node"}], "pad": "x" * 64}
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(doc))
    assert path.stat().st_size > json_reader.SLICE
    monkeypatch.setattr(limits, "MAX_DEPTH", 2)
    with pytest.raises(InputError) as err:
        ingest.read_documents([str(path)])
    assert err.value.reason == "nested deeper than 2 levels"
