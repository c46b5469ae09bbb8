"""The line a warning or an error names for an object of a file read on a fast path (which
keeps no lines while reading: wapctl.ingest.line_finders finds them when a message names one).

Every warning names its own object's line, however many there are in one file, and the line
is the one PyYAML would give (its node's start mark) whatever the file's line breaks. The
expected lines are counted by hand in the texts below (each pod's first line is recorded as
the text is put together).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wapctl import ingest
from wapctl.errors import InputError
from wapctl.ingest import limits, yaml_reader

NODE = """\
apiVersion: v1
kind: Node
metadata:
  name: n1
status:
  allocatable: {cpu: "8", memory: 8Gi, pods: "110"}
"""


def _pod(name: str) -> str:
    """A bound pod naming a PriorityClass the snapshot lacks: one MissingPriorityClass
    warning each (every pod names its own class)."""
    return f"""\
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: default
spec:
  nodeName: n1
  priority: 100
  priorityClassName: gone-{name}
  containers:
  - name: c
    resources: {{requests: {{cpu: 100m}}}}
"""


def _stream() -> tuple[str, dict[str, tuple[int, int]]]:
    """A stream of documents the way tools write them (comments, blank lines, a comment on a
    ``---`` line, a document written on its ``---`` line) and, per pod, (line, document)."""
    parts: list[str] = []
    where: dict[str, tuple[int, int]] = {}

    def line() -> int:
        return "".join(parts).count("\n") + 1

    parts.append("# generated\n\n")
    parts.append(NODE)  # document 1 (no ---)
    parts.append("---\n")
    where["p1"] = (line(), 2)
    parts.append(_pod("p1"))
    parts.append("--- # the second pod\n# its owner: a job\n\n")
    where["p2"] = (line(), 3)
    parts.append(_pod("p2"))
    parts.append("--- {apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: x}}\n")
    parts.append("---\n\n\n")
    where["p3"] = (line(), 5)
    parts.append(_pod("p3"))
    return "".join(parts), where


def _warned(path: Path) -> dict[str, str | None]:
    snap = ingest.build_snapshot(ingest.read_documents([str(path)]))
    return {w.object: w.source for w in snap.warnings if w.code == "MissingPriorityClass"}


@pytest.fixture
def fast_yaml(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every YAML file takes the fast reader (normally from 1 MiB on)."""
    monkeypatch.setattr(limits, "FAST_YAML_FROM", 0)


@pytest.mark.usefixtures("fast_yaml")
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_each_warning_of_a_stream_names_its_documents_line(
    tmp_path: Path, newline: str
) -> None:
    """Three pods of one stream, three warnings, each at its pod's first line (after the
    comments and blank lines that follow its ``---``); with CRLF line breaks too."""
    text, where = _stream()
    path = tmp_path / "s.yaml"
    path.write_bytes(text.replace("\n", newline).encode())
    expected = {
        f"Pod default/{p}": f"{path}:{ln}, document {doc}" for p, (ln, doc) in where.items()
    }
    assert expected == _warned(path)


@pytest.mark.usefixtures("fast_yaml")
def test_a_line_break_pyyaml_counts_inside_a_value_moves_the_lines_after_it(
    tmp_path: Path,
) -> None:
    """PyYAML counts NEL (U+0085) as a line break, in a quoted value too: the pod after a
    document holding one is a line further down than its newlines alone say."""
    text, where = _stream()
    head = (
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: x}\n'
        'data: {a: "1\u00852"}\n---\n'
    )
    path = tmp_path / "s.yaml"
    path.write_bytes((head + text).encode())
    shift = head.count("\n") + 1  # its four lines and the --- line, and the NEL
    expected = {
        f"Pod default/{p}": f"{path}:{ln + shift}, document {doc + 1}"
        for p, (ln, doc) in where.items()
    }
    assert expected == _warned(path)


@pytest.mark.usefixtures("fast_yaml")
def test_each_warning_of_a_yaml_list_names_its_items_line(tmp_path: Path) -> None:
    """A List as kubectl writes it (``items:`` then ``- `` entries at column 0): the node's
    entry takes lines 4-9, then each pod's 12 lines, so pod i (item i + 1) starts at line
    10 + 12 i."""
    pods = [_pod(f"q{i}") for i in range(3)]

    def entry(doc: str) -> str:
        lines = doc.splitlines()
        return "".join(["- " + lines[0] + "\n", *("  " + ln + "\n" for ln in lines[1:])])

    text = "apiVersion: v1\nkind: List\nitems:\n" + entry(NODE) + "".join(map(entry, pods))
    text += "metadata:\n  resourceVersion: \"\"\n"
    path = tmp_path / "l.yaml"
    path.write_text(text)
    expected = {
        f"Pod default/q{i}": f"{path}:{10 + 12 * i}, document 1, item {i + 1}" for i in range(3)
    }
    assert expected == _warned(path)


@pytest.mark.usefixtures("fast_yaml")
def test_a_nel_in_a_yaml_list_moves_the_items_after_it(tmp_path: Path) -> None:
    """A List whose node has a label value holding a NEL (the node's entry: lines 4-10): each
    pod one line further down than the newlines say, at 12 + 12 i (PyYAML counts NEL as a
    line break)."""
    pods = [_pod(f"q{i}") for i in range(2)]

    def entry(doc: str) -> str:
        lines = doc.splitlines()
        return "".join(["- " + lines[0] + "\n", *("  " + ln + "\n" for ln in lines[1:])])

    node = NODE.replace("  name: n1\n", '  name: n1\n  labels: {note: "a\u0085b"}\n', 1)
    text = "apiVersion: v1\nkind: List\nitems:\n" + entry(node) + "".join(map(entry, pods))
    path = tmp_path / "l.yaml"
    path.write_bytes(text.encode())
    expected = {
        f"Pod default/q{i}": f"{path}:{12 + 12 * i}, document 1, item {i + 1}" for i in range(2)
    }
    assert expected == _warned(path)



@pytest.mark.usefixtures("fast_yaml")
def test_a_list_libyaml_reads_with_a_tab_names_the_items_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A List read in slices (slices of 200 bytes, so this small one is) whose ConfigMap
    holds a quoted value running onto a line starting ``- ``: the ``- `` starts in the text
    are not the items, so the pod's line comes from the parser's events. Its items hold tabs
    after values, which libyaml (the reader) takes as blank space and PyYAML's pure-Python
    scanner refuses: the lines are found by libyaml too, so the warning still names the pod's
    line, 9 (lines 4-8: the ConfigMap, its value's second line ``- y"}`` on line 8)."""
    monkeypatch.setattr(yaml_reader, "CHUNK", 200)
    text = (
        "apiVersion: v1\nkind: List\nitems:\n"
        "- apiVersion: v1\n  kind: ConfigMap\t\n  metadata: {name: c, namespace: default}\n"
        '  data: {a: "x\n- y\t"}\n'
        "- apiVersion: v1\n  kind: Pod\t\n  metadata: {name: p, namespace: default}\n"
        "  spec: {nodeName: n1, priority: 100, priorityClassName: gone, containers: [{name: c}]}\n"
        'metadata: {resourceVersion: ""}\n' + "# padding: a List read in slices\n" * 12
    )
    assert len(text) > 2 * 200
    path = tmp_path / "l.yaml"
    path.write_text(text)
    assert {"Pod default/p": f"{path}:9, document 1, item 1"} == _warned(path)

def test_each_warning_of_a_json_list_names_its_items_line(tmp_path: Path) -> None:
    """A JSON List printed one item a line: item i on line i + 2."""
    items = [yaml.safe_load(NODE), *(yaml.safe_load(_pod(f"j{i}")) for i in range(3))]
    lines = ['{"apiVersion": "v1", "kind": "List", "items": [']
    last = len(items) - 1
    lines += [json.dumps(item) + ("," if i < last else "") for i, item in enumerate(items)]
    lines.append("]}")
    path = tmp_path / "l.json"
    path.write_text("\n".join(lines) + "\n")
    expected = {
        f"Pod default/j{i}": f"{path}:{i + 3}, document 1, item {i + 1}" for i in range(3)
    }
    assert expected == _warned(path)


# ---- any layout: the line PyYAML's own parser marks ------------------------------------------
#
# The oracle is PyYAML itself: each document's node start mark and, for a List, each item's.
# The streams are put together from what tools write: comments and blank lines anywhere a
# line may start, a comment on a ``---`` line, documents written on their ``---`` line, Lists
# laid out as kubectl writes them or indented, an ``items`` key deeper down that is not a
# List's, CRLF line breaks, a byte-order mark, a directive or an end marker (those two only
# PyYAML reads).

_OBJECT = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: x\n"
_FILLER = ("", "\n", "# a comment\n", "\n# two\n\n")


@st.composite
def _document(draw: st.DrawFn, n: int) -> str:
    shape = draw(st.sampled_from(["object", "flow", "nested items", "list", "indented list"]))
    name = f"c{n}"
    if shape == "object":
        return _OBJECT.format(name=name)
    if shape == "flow":
        return f"{{apiVersion: v1, kind: ConfigMap, metadata: {{name: {name}, namespace: x}}}}\n"
    if shape == "nested items":
        return _OBJECT.format(name=name) + "data:\n  items:\n  - not an item\n"
    count = draw(st.integers(1, 3))
    entries = []
    for i in range(count):
        body = _OBJECT.format(name=f"{name}-{i}").splitlines()
        lead = draw(st.sampled_from(["- ", "-\n  ", "- # c\n  "]))
        entries.append(lead + body[0] + "\n" + "".join("  " + ln + "\n" for ln in body[1:]))
    items = "".join(entries)
    if shape == "indented list":
        items = "".join("  " + ln + "\n" for ln in items.splitlines())
    # a sequence under an ``items`` key deeper down, before the List's own: not its items
    nested = draw(st.sampled_from(["", "metadata:\n  items:\n  - not an item\n"]))
    return "apiVersion: v1\nkind: List\n" + nested + "items:\n" + items


@st.composite
def _streams(draw: st.DrawFn) -> bytes:
    count = draw(st.integers(1, 5))
    parts = [draw(st.sampled_from(["", "# head\n", "---\n", "# head\n---\n"]))]
    for n in range(count):
        if n:
            parts.append(draw(st.sampled_from(["---\n", "--- # next\n", "---\n\n# c\n"])))
        parts.append(draw(st.sampled_from(_FILLER)))
        parts.append(draw(_document(n)))
        parts.append(draw(st.sampled_from(_FILLER)))
    text = "".join(parts)
    if draw(st.booleans()) and text.startswith("---"):
        text = "%YAML 1.1\n" + text
    elif draw(st.booleans()):
        text += "...\n"
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return (b"\xef\xbb\xbf" if draw(st.booleans()) else b"") + text.encode()


def _pyyaml_lines(text: bytes) -> list[int]:
    """PyYAML's line of each object: a document's node, or each item of a List's items."""
    lines = []
    for node in yaml.compose_all(text.decode("utf-8-sig"), Loader=yaml.SafeLoader):
        if node is None:
            continue
        mapping = node.tag.endswith(":map")
        items = [v for k, v in node.value if k.value == "items"] if mapping else []
        if items and isinstance(items[0], yaml.SequenceNode):
            lines += [item.start_mark.line + 1 for item in items[0].value]
        else:
            lines.append(node.start_mark.line + 1)
    return lines


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=_streams())
def test_every_object_is_placed_where_pyyaml_marks_it(
    text: bytes, tmp_path: Path, fast_yaml: None
) -> None:
    """Whatever the layout, every object read fast is named at the line PyYAML's parser
    marks: its document's node, or its List item's."""
    path = tmp_path / "s.yaml"
    path.write_bytes(text)
    docs = ingest.read_documents([str(path)])
    assert _pyyaml_lines(text) == [d.source.located_line() for d in docs]


# values whose text holds what the item walk must read past: brackets and quotes in strings,
# escapes, a line break written as an escape
_TRICKY = ['{"a": ["]", "}"]}', 'say "hi" \\ ] }', "two\nlines", "[[[", ""]


@given(
    count=st.integers(1, 6),
    layout=st.sampled_from(["one a line", "indented", "one line", "crlf", "members first",
                            "spaced commas"]),
    tricky=st.lists(st.sampled_from(_TRICKY), max_size=6),
)
def test_every_json_item_is_placed_on_its_line(
    count: int, layout: str, tricky: list[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Each item of a JSON List on the line its ``{`` is on, however the List is printed (CRLF
    line breaks, the List's other members before ``items``, blanks around commas) and whatever
    its strings hold."""
    items = [yaml.safe_load(_OBJECT.format(name=f"j{i}")) for i in range(count)]
    for i, value in enumerate(tricky):
        items[i % count].setdefault("data", {})[f"k{i}"] = value
    doc = {"apiVersion": "v1", "kind": "List", "items": items}
    if layout == "indented":
        text = json.dumps(doc, indent=4)
    elif layout == "one line":
        text = json.dumps(doc)
    elif layout == "crlf":
        text = json.dumps(doc, indent=2).replace("\n", "\r\n")
    elif layout == "members first":
        text = '{"metadata": {"resourceVersion": "1"},\n "kind": "List", "items": [\n'
        text += ",\n".join(json.dumps(item) for item in items) + "\n],\n\"apiVersion\": \"v1\"}"
    else:
        sep = " ,\n\t " if layout == "spaced commas" else ",\n"
        text = '{"apiVersion": "v1", "kind": "List", "items": [\n'
        text += sep.join(json.dumps(item) for item in items) + "\n]}\n"
    path = tmp_path_factory.mktemp("j") / "l.json"
    path.write_bytes(text.encode())
    starts, pos = [], text.index('"items": [') + 9
    for _ in items:
        pos = text.index("{", pos + 1)
        starts.append(text.count("\n", 0, pos) + 1)
        _, end = json.JSONDecoder().raw_decode(text, pos)
        pos = end
    docs = ingest.read_documents([str(path)])
    assert starts == [d.source.located_line() for d in docs]


@pytest.mark.parametrize("lead", ["", "\n", "\n\n  \n"], ids=["none", "one", "three"])
def test_an_item_that_is_no_object_is_named_on_its_line(tmp_path: Path, lead: str) -> None:
    """A List with an item that is no object is read by the safe path and its lines found by
    splitting the raw items: the number after the Node (printed as json.dumps(indent=2) does)
    is on line 17 of the List, moved down by every blank line before it."""
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
            "status": {"allocatable": {"cpu": "4"}}}
    text = lead + json.dumps({"apiVersion": "v1", "kind": "List", "items": [node, 5]},
                             indent=2) + "\n"
    path = tmp_path / "l.json"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        ingest.read_documents([str(path)])
    line = 17 + lead.count("\n")
    assert (f"{path}:{line}, document 1, item 1: a List item must be a mapping (a Kubernetes "
            "object), not a number") == str(err.value)


def test_a_json_list_changed_since_it_was_read_names_no_lines(tmp_path: Path) -> None:
    """The lines of a JSON List's items are found when a message first needs one, by reading
    the file again. Rewritten in between (here: a line added before the items, so every item
    moved down one), the file gives no line rather than the new text's: the item is named
    without one. Unchanged, item 1 is on line 3."""
    items = [yaml.safe_load(_OBJECT.format(name=f"j{i}")) for i in range(3)]
    text = '{"apiVersion": "v1", "kind": "List", "items": [\n'
    text += ",\n".join(json.dumps(item) for item in items) + "\n]}\n"
    same, moved = tmp_path / "same.json", tmp_path / "moved.json"
    same.write_text(text)
    moved.write_text(text)
    kept = ingest.read_documents([str(same)])
    docs = ingest.read_documents([str(moved)])
    moved.write_text(text.replace('"items": [\n', '"items": [\n\n', 1))
    assert 3 == kept[1].source.located_line()
    assert docs[1].source.located_line() is None
    assert f"{moved}, document 1, item 1" == docs[1].source.describe()
