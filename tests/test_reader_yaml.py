"""The fast YAML reader (wapctl.ingest.yaml_reader) against the safe one (PyYAML): same objects or
none.

The oracle is PyYAML's ``load_all`` with wapctl's loader, projected on the fields the JSON fast
path keeps (``project`` from test_reader_differential): on every input ``read_yaml`` must give
exactly those documents, numbered as PyYAML numbers them, or ``None`` (the safe path reads it)
-- and ``None`` whenever PyYAML fails. Inputs: every YAML fixture in the repo, a small realistic
export from the benchmark generator, fuzzed documents made of the scalars where YAML 1.1 and
JSON disagree, and one test per quirk that it takes the safe path and gets PyYAML's answer.
The List-in-slices path (``list_layout``, normally from 32 MiB on) is exercised by shrinking
the slice size.
"""

from __future__ import annotations

import datetime
import importlib.util
import io
import itertools
import json
import mmap
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.test_reader_differential import _ABSENT, _depth, project
from wapctl import ingest
from wapctl.errors import InputError
from wapctl.ingest import decode, limits, sources, yaml_reader
from wapctl.ingest.json_reader import owner_references
from wapctl.owners import ObjectIndex

ROOT = Path(__file__).resolve().parent.parent
YAML_FILES = sorted(
    p
    for base in (ROOT / "fixtures", ROOT / "tests" / "data")
    if base.exists()
    for p in base.rglob("*")
    if p.suffix in (".yaml", ".yml")
)


def _same(a: Any, b: Any) -> bool:
    """Equal with the same types all the way down (1 == 1.0 == True in Python)."""
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if type(a) is list:
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _pyyaml(data: bytes) -> list[tuple[int, Any]] | None:
    """PyYAML's documents as wapctl's safe path numbers them, or None when it fails."""
    try:
        docs = list(yaml.load_all(data.decode("utf-8"), Loader=decode.LOADER))
    except Exception:
        return None
    if any(_depth(d) > ingest.MAX_DEPTH for d in docs):
        return None
    return [(n, d) for n, d in enumerate(docs, 1) if d is not None]


def check(data: bytes) -> bool:
    """read_yaml gives PyYAML's projected documents or None; True when it took the fast path."""
    safe = _pyyaml(data)
    fast, reason = yaml_reader.read_yaml(data, ingest.MAX_DEPTH)
    if safe is None:
        assert fast is None, data
        return False
    if fast is None:
        assert reason
        return False
    expected = [(n, project(d)) for n, d in safe]
    assert all(d is not _ABSENT for _, d in expected), (data, fast)
    assert _same(expected, fast), (data, expected, fast)
    return True


@pytest.fixture(params=[None, 64, 700], ids=["whole", "slices of 64 B", "slices of 700 B"])
def slices(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Read a List in slices of items even when small (the default is 16 MiB from 32 MiB on)."""
    if request.param is not None:
        monkeypatch.setattr(yaml_reader, "CHUNK", request.param)


@pytest.mark.parametrize("path", YAML_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_fixture_reads_as_pyyaml_does(path: Path, slices: None) -> None:
    check(path.read_bytes())


def _generator() -> Any:
    path = ROOT / "benchmarks" / "gen_snapshot.py"
    spec = importlib.util.spec_from_file_location("gen_snapshot", path)
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_snapshot", gen)  # its dataclasses look their module up
    spec.loader.exec_module(gen)
    return gen


@pytest.fixture(scope="module")
def realistic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A realistic export (managedFields, statuses, ...) as the benchmarks' real-2k, small."""
    gen = _generator()
    path = tmp_path_factory.mktemp("real") / "real.yaml"
    gen.write_snapshot(
        gen.Params(nodes=3, pods_per_node=3, gang_size=4, realistic=True), {"yaml": path}
    )
    return path


def test_realistic_export_takes_the_fast_path(realistic: Path, slices: None) -> None:
    """What PyYAML's dumper writes (every ambiguous scalar quoted) is read fast and exactly."""
    assert check(realistic.read_bytes())


def test_realistic_export_builds_the_same_snapshot(
    realistic: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through wapctl.ingest, fast (from 0 bytes on, in slices) and safe give one Snapshot."""
    safe = ingest.build_snapshot(ingest.read_documents([str(realistic)]))
    monkeypatch.setattr(limits, "FAST_YAML_FROM", 0)
    monkeypatch.setattr(yaml_reader, "CHUNK", 4096)
    fast = ingest.build_snapshot(ingest.read_documents([str(realistic)]))
    assert safe == fast
    assert len(fast.pods) > 0


# ---- each quirk: resolved on the fast path, or the safe path; PyYAML's answer either way -------

# plain scalar values YAML 1.1 reads otherwise than JSON: the fast path sets each in rapidyaml's
# tree as PyYAML's resolver and constructor read it (a boolean, null or number in JSON's
# spelling, a string quoted), so the input stays fast and reads as PyYAML reads it
RESOLVED = {
    # YAML 1.1 booleans and nulls that JSON reads as strings
    "yes": "metadata:\n  name: a\n  labels: {x: yes}\n",
    "On": "metadata:\n  name: a\n  labels:\n    x: On\n",
    "True": (  # a terminating pod's conditions are read (a pending one's are not kept)
        "metadata:\n  name: a\n  deletionTimestamp: '2025-01-01T00:00:00Z'\n"
        "status:\n  conditions:\n  - type: DisruptionTarget\n    status: True\n"
    ),
    "NULL": "metadata:\n  name: a\n  labels:\n    x: NULL\n",
    "tilde": "metadata:\n  name: a\n  labels:\n    x: ~\n",
    # numbers: YAML 1.1 and JSON read them differently
    "octal": "metadata:\n  labels:\n    mode: 0755\n",
    "hex": "metadata:\n  labels:\n    x: 0x1F\n",
    "plus sign": "value: +5\n",
    "underscores": "value: 1_000\n",
    "base 60": "metadata:\n  labels:\n    x: 1:30\n",
    "leading point": "metadata:\n  labels:\n    x: .5\n",
    "trailing point": "metadata:\n  labels:\n    x: 1.\n",
    "negative leading point": "metadata:\n  labels:\n    x: -.5\n",
    "exponent without point": "metadata:\n  labels:\n    x: 1e3\n",
    "exponent without sign": "metadata:\n  labels:\n    x: 1.5e3\n",
    "flow value": "spec: [yes, no]\n",
    "JSON-like key": 'metadata: {"labels": {"a":yes}}\n',
    # an empty value beside a resolved one: null, as PyYAML reads it (it used to end the fast
    # path with a TypeError)
    "empty value": "metadata:\n  name: a\n  labels:\n    a:\n    b: yes\n",
    "empty flow value": "metadata:\n  name: a\n  labels: {a: , b: yes}\n",
}
# what no value's resolution mends: keys, values JSON has no text for (infinity, dates, the
# merge and value keys), words the emitter rewrites, tags, anchors, characters and layout the
# two parsers treat differently
QUIRKS = {
    "key yes": "metadata:\n  labels:\n    yes: b\n",
    "key on": "spec:\n  on: 1\n",
    "key true": "metadata:\n  labels:\n    true: b\n",
    "key number": "metadata:\n  labels:\n    1: b\n",
    "key null": "metadata:\n  labels:\n    null: b\n",
    "infinity": "spec:\n  x: .inf\n",
    "nan word": "spec:\n  x: nan\n",
    "quoted inf key": "metadata:\n  labels:\n    'inf': a\n",
    "big exponent": "metadata:\n  labels:\n    x: 1.0e+999\n",
    "infinity word": "metadata:\n  labels: {x: infinity}\n",  # the emitter writes .inf
    "quoted infinity key": "metadata:\n  labels:\n    \"infinity\": a\n",
    "signed infinity word": "metadata:\n  labels: {x: -infinity}\n",
    # keys YAML 1.1 reads as dates: beside a resolved value too (values were resolved, keys not)
    "date-time key": "metadata:\n  labels:\n    2025-01-01 10:00:00: v\n    b: yes\n",
    "flow date-time key": "metadata:\n  labels: {2025-01-01T10:00:00Z: v}\n",
    # flow collections rapidyaml reads otherwise: a comment the collection goes on after (it
    # kept "web #c" as the value), a comment holding the closer, a value starting ':' or '?'
    # (libyaml refuses the last two)
    "comment in a flow mapping": "metadata:\n  labels: {app: web #c\n    , tier: x}\n",
    "comment before a flow closer": "spec:\n  containers: [{name: a, image: b #c\n    }]\n",
    "comment holding the closer": "metadata:\n  labels: {a: x #}\n",
    "flow value starting ':'": "metadata:\n  labels: {a: :x}\n",
    "flow value starting '?'": "metadata:\n  labels: {a: ?x}\n",
    # dates, merge keys, value, tags, anchors
    "date": "metadata:\n  creationTimestamp: 2025-01-01T00:00:00Z\n",
    "bad date": "metadata:\n  x: 2025-13-45\n",
    "merge": "base: &b {name: a}\nmetadata:\n  <<: *b\n",
    "value": "spec:\n  x: =\n",
    "tag": "metadata:\n  name: !!str 1\n",
    "python tag": "metadata: !!python/object:os.system {}\n",
    "anchor": "metadata: &m {name: a}\nspec: *m\n",
    # characters and layout the two parsers treat differently
    "tab": "metadata:\n  name:\ta\n",
    "control character": "metadata:\n  name: a\x07b\n",
    "NEL": "metadata:\n  name: a\xc2\x85b\n",
    # a carriage return alone is a line break in YAML 1.1; rapidyaml reads it as part of a
    # comment (losing the key after it) or of a quoted value (PyYAML folds it to a space)
    "CR after a comment": "metadata: {name: a} # c\rspec: {nodeName: n1}\n",
    "CR in a quoted value": 'metadata:\n  name: "a\rb"\n',
    "CR at the start": "\rmetadata: {name: a}\n",
    "surrogate escape": 'metadata:\n  name: "\\ud83d\\ude00"\n',
    "long escape": 'metadata:\n  name: "\\U0001F600"\n',
    "directive": "%YAML 1.1\n---\nmetadata: {name: a}\n",
    # document end markers: PyYAML refuses one before any document (hypothesis found "# c",
    # "...", "---" read by rapidyaml), or a document after one without "---"
    "end marker between documents": "...\n---\nmetadata: {name: a}\n",
    "document after an end marker": "metadata: {name: a}\n...\nspec: {}\n",
    "complex key": "metadata:\n  ? name\n  : a\n",
    "flow key": "spec: {1: a}\n",
}


@pytest.mark.parametrize("text", RESOLVED.values(), ids=RESOLVED.keys())
def test_plain_value_yaml_reads_otherwise_than_json_is_resolved_fast(text: str) -> None:
    """A value such as ``yes``, ``0755`` or ``1:30`` no longer sends the input to PyYAML:
    the fast path reads it as PyYAML does (``check`` compares with PyYAML's documents)."""
    assert yaml_reader.risky(("apiVersion: v1\nkind: Pod\n" + text).encode()) is not None
    assert check(("apiVersion: v1\nkind: Pod\n" + text).encode())


@pytest.mark.parametrize("text", QUIRKS.values(), ids=QUIRKS.keys())
def test_quirk_takes_the_safe_path(text: str) -> None:
    doc = "apiVersion: v1\nkind: Pod\n" + text
    fast, reason = yaml_reader.read_yaml(doc.encode(), ingest.MAX_DEPTH)
    assert fast is None
    assert reason

# ---- a long stream of documents, read a slice of whole documents at a time ---------------------

_STREAM_DOCS = (
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  labels: {app: web}\n",
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus:\n  allocatable: {cpu: '4'}\n",
    "# a comment only: an empty document\n",
    "",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  script: |\n"
    "    ---\n    not a document\n    ----\n",  # "---" inside a block scalar: indented
    "{apiVersion: v1, kind: Pod, metadata: {name: f}}\n",
)
_SEPARATORS = ("---\n", "--- \n", "---\t# a comment\n", "...\n---\n", "---\r\n")


@st.composite
def _streams(draw: st.DrawFn) -> str:
    """A stream of documents as helm or kustomize write them, or as a hand may: a leading
    comment or marker or neither, documents empty or not, markers with a comment or an end
    marker before them, a document on its marker's line."""
    docs = draw(st.lists(st.sampled_from(_STREAM_DOCS), min_size=1, max_size=8))
    head = draw(st.sampled_from(["", "---\n", "# Source: chart/templates/a.yaml\n"]))
    text = head + docs[0]
    for doc in docs[1:]:
        sep = draw(st.sampled_from(_SEPARATORS))
        if doc.startswith("{") and draw(st.booleans()):
            sep = "--- "  # the document on the marker's line
        text += sep + doc
    return text


@settings(max_examples=150, deadline=None)
@given(_streams(), st.sampled_from([1, 16, 64, 256]))
def test_a_long_stream_is_read_in_slices_as_whole(text: str, chunk: int) -> None:
    """Slices of one document or less, of a few, of all: PyYAML's documents, numbered as it
    numbers them (empty ones counted), and the fast path whenever the whole read takes it."""
    data = text.encode()
    whole = yaml_reader.read_yaml(data, ingest.MAX_DEPTH)[0]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(yaml_reader, "CHUNK", chunk)
        fast = check(data)
    assert fast == (whole is not None)


def test_a_stream_is_cut_only_where_a_line_starts_a_document(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    """Slices of 1 byte: a cut at every marker line but the first (the text before it, the
    first document, is read with the document it opens), none inside a block scalar whose
    lines read "---" and "----", none at "---x": documents 1-4 as PyYAML numbers them."""
    monkeypatch.setattr(yaml_reader, "CHUNK", 1)
    text = (
        b"apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\n"
        b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  s: |\n    ---\n"
        b"    ----\n---\n---\nkind: Pod\nmetadata: {name: b, labels: {x: ---x}}\n"
    )
    parsed: list[bytes] = []
    real = yaml_reader.ryml.parse_in_arena

    def spy(buf: Any, tree: Any) -> Any:
        parsed.append(bytes(buf))
        return real(buf, tree)

    monkeypatch.setattr(yaml_reader.ryml, "parse_in_arena", spy)
    docs, _ = yaml_reader.read_yaml(text, ingest.MAX_DEPTH)
    assert docs is not None
    assert [n for n, _ in docs] == [1, 2, 4]  # document 3 is empty
    assert docs[1][1]["kind"] == "ConfigMap" and docs[2][1]["metadata"]["name"] == "b"
    assert [p.split(b"\n", 1)[0] for p in parsed] == [b"apiVersion: v1", b"---", b"---"]
    assert b"".join(parsed) == text


def assert_fast_path_agrees(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``load`` reads ``path`` the same -- documents or one-line error -- by PyYAML and with
    the fast path tried from 0 bytes on."""

    def read() -> Any:  # what the builders are given (the fast path keeps only what they read)
        try:
            return [project(d.obj) for d in ingest.read_documents([str(path)])]
        except InputError as exc:
            return str(exc)

    safe = read()
    monkeypatch.setattr(limits, "FAST_YAML_FROM", 0)
    assert safe == read()



@pytest.mark.parametrize("text", {**RESOLVED, **QUIRKS}.values(), ids={**RESOLVED, **QUIRKS}.keys())
def test_quirk_reads_as_pyyaml_through_load(
    text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the fast path tried from 0 bytes on, load gives PyYAML's documents (or its error)."""
    path = tmp_path / "q.yaml"
    path.write_bytes(("apiVersion: v1\nkind: Pod\n" + text).encode())
    assert_fast_path_agrees(path, monkeypatch)


def test_plain_words_json_reads_alike_take_the_fast_path() -> None:
    """The scalars both read alike stay fast: true/false/null, decimal ints (big ones too:
    msgspec decodes them into Python ints, as PyYAML does), floats with a point, quoted
    anything, IPs and quantities."""
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  labels: {a: 'yes', b: \"0755\"}\n"
        "spec:\n  x: true\n  y: false\n  z: null\n  n: -12\n  f: 1.5\n  g: 2.5e+3\n"
        "  ip: 10.0.0.1\n  q: 4Gi\n  c: 100m\n  t: '2025-01-01T00:00:00Z'\n"
        "  big: 123456789012345678901234567890\n  neg: -98765432109876543210\n"
    )
    assert check(text.encode())


def test_duplicate_keys_take_the_exact_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The emitter writes a repeated key twice and the JSON reader would keep the last (issue 26:
    kubectl refuses them): the fast path declines, in a kept struct field (metadata), inside it
    and in a free-form mapping (labels), and load reports PyYAML's exact error either way."""
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\n"
        "  labels: {x: '1', y: '2', x: '3'}\nmetadata:\n  name: c\n  labels: {z: '4', z: '5'}\n"
    )
    fast, reason = yaml_reader.read_yaml(text.encode(), ingest.MAX_DEPTH)
    assert (None, "document 1 has a mapping with a key twice") == (fast, reason)
    path = tmp_path / "dup.yaml"
    path.write_text(text, encoding="utf-8")
    assert_fast_path_agrees(path, monkeypatch)


# ---- fuzzed documents ----------------------------------------------------------------------------

_RISKY = [
    "yes", "No", "on", "OFF", "True", "true", "false", "null", "Null", "~", "", "0755", "0x1F",
    "nan", "inf", "-inf", ".Inf", "NaN", "Infinity",
    "+5", "1_000", "1:30", ".5", "1.", "-.5", ".inf", ".NaN", "1e3", "1.5e+3", "1.5e3",
    "2025-01-01", "2025-01-01T10:00:00Z", "=", "<<", "0", "-0", "12", "3.25", "10.0.0.1", "4Gi",
    "100m", "a b", "-", "x: y", "#c", "a#b", "08", "0o17", "0b101", "123456789012345678901",
    "é", "a\\b", "'", '"', "*a", "&a", "!x", "?", "[a]", "{a: 1}", "%", "@", "`", "|", ">",
    "infinity", "-infinity", "2025-01-01 10:00:00", ":x", "?x", "a #}",
]  # fmt: skip
_KEYS = ["name", "kind", "metadata", "spec", "status", "labels", "items", "value", *_RISKY[:30],
         "2025-01-01 10:00:00", "infinity"]


def _scalar(draw: Any, pool: list[str]) -> str:
    s = draw(st.sampled_from(pool) | st.text("ab1.-:_ ", max_size=5))
    style = draw(st.sampled_from(["plain", "plain", "single", "double"]))
    if style == "single":
        return "'" + s.replace("'", "''") + "'"
    if style == "double":
        return json.dumps(s)
    return s


@st.composite
def _node(draw: Any, indent: int, depth: int) -> str:
    """A YAML value at ``indent`` (as the text after ``key:``), block or flow."""
    kind = draw(st.sampled_from(["scalar", "map", "seq", "flow"] if depth < 3 else ["scalar"]))
    comment = draw(st.sampled_from(["", "", " # c"]))
    if kind == "scalar":
        return " " + _scalar(draw, _RISKY) + comment + "\n"
    if kind == "flow":
        items = draw(st.lists(st.just(0), max_size=3))
        # entries on one line, or on several, with comments where rapidyaml and libyaml differ
        cont = "\n" + " " * (indent + 2)
        sep = draw(st.sampled_from([", ", ", ", "," + cont, " #c" + cont + ", ", ", #c" + cont]))
        if draw(st.booleans()):
            inner = sep.join(_scalar(draw, _RISKY) for _ in items)
            return f" [{inner}]{comment}\n"
        inner = sep.join(f"{_scalar(draw, _KEYS)}: {_scalar(draw, _RISKY)}" for _ in items)
        return f" {{{inner}}}{comment}\n"
    pad = " " * (indent + 2)
    out = comment + "\n"
    for _ in range(draw(st.integers(1, 3))):
        if kind == "map":
            out += pad + _scalar(draw, _KEYS) + ":" + draw(_node(indent + 2, depth + 1))
        else:
            out += pad + "-" + draw(_node(indent + 2, depth + 1))
    return out


@st.composite
def _yaml_text(draw: Any) -> bytes:
    docs = []
    for _ in range(draw(st.integers(1, 3))):
        body = "apiVersion: v1\nkind: " + draw(st.sampled_from(["Pod", "List"])) + "\n"
        for _ in range(draw(st.integers(0, 3))):
            body += _scalar(draw, _KEYS) + ":" + draw(_node(0, 0))
        if draw(st.booleans()):
            body += "items:\n" + "".join(
                "- kind: Node\n  metadata:\n    name:" + draw(_node(4, 2))
                for _ in range(draw(st.integers(0, 3)))
            )
        docs.append(body)
    text = draw(st.sampled_from(["", "---\n", "# top\n"])) + "---\n".join(docs)
    if draw(st.booleans()):
        text += draw(st.sampled_from(["---\n", "...\n", "# end\n"]))
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return text.encode()


@settings(max_examples=250, deadline=None)
@given(_yaml_text(), st.sampled_from([None, 40]))
def test_fuzzed_documents(data: bytes, chunk: int | None) -> None:
    """Whole, or a List in slices of 40 bytes whose risky ones are read by PyYAML in pieces of
    20 bytes (each about one item)."""
    if chunk is None:
        check(data)
        return
    saved = yaml_reader.CHUNK, yaml_reader.EXACT_PIECE
    yaml_reader.CHUNK, yaml_reader.EXACT_PIECE = chunk, chunk // 2
    try:
        check(data)
    finally:
        yaml_reader.CHUNK, yaml_reader.EXACT_PIECE = saved


# ---- a List as Python tooling writes it: the risky pieces by PyYAML, the rest fast -----------


def _tooling_list(
    risky_items: range, n: int = 30, anchor: bool = False, label: str = "commit: 4e{i:02d}392"
) -> bytes:
    """A List as PyYAML's emitter writes one: in the items of ``risky_items``, a label it
    leaves plain because YAML 1.1 reads it as a string -- by default a short commit id
    (``commit: 4e10392``) that JSON would read as a number."""
    out = "apiVersion: v1\nkind: List\nitems:\n"
    for i in range(n):
        labels = (f"    labels:\n      {label.format(i=i)}\n" if i in risky_items else "")
        out += (f"- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p{i}\n"
                f"    namespace: d\n{labels}  spec:\n    nodeName: n1\n")
    if anchor:
        out = out.replace("    namespace: d\n", "    namespace: &ns d\n", 1)
    return (out + "metadata:\n  resourceVersion: ''\n").encode()


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Slices of 400 bytes, pieces of 100 (an item is ~110): the sizes of each piece PyYAML
    reads are recorded."""
    monkeypatch.setattr(yaml_reader, "CHUNK", 400)
    monkeypatch.setattr(yaml_reader, "EXACT_PIECE", 100)
    read: list[int] = []
    real = yaml_reader._exact_items

    def spy(piece: Any, max_depth: int) -> Any:
        read.append(len(piece))
        return real(piece, max_depth)

    monkeypatch.setattr(yaml_reader, "_exact_items", spy)
    return read


# a plain value YAML 1.1 reads otherwise than JSON (a short commit id: a string, to JSON a
# number) is resolved on the fast path; "inf" as a word (the emitter may rewrite it) is not
LABELS = [("commit: 4e{i:02d}392", False), ("app: ml-inf-{i:02d}", True)]


@pytest.mark.parametrize(("label", "by_pyyaml"), LABELS, ids=["resolved", "by PyYAML"])
def test_a_risky_list_reads_its_risky_items_fast_or_by_pyyaml(
    small_pieces: list[int], label: str, by_pyyaml: bool
) -> None:
    """One unusual scalar does not send the whole List to PyYAML: a value the fast path can
    resolve stays fast (no piece goes to PyYAML), and what only PyYAML reads as YAML 1.1 does
    is read by it in pieces holding just those items. The objects are PyYAML's (projected as
    the fast path keeps them)."""
    data = _tooling_list(range(10, 13), label=label)
    assert yaml_reader.risky(data) is not None
    pods = yaml_reader.read_yaml(data, ingest.MAX_DEPTH)[0][0][1]["items"]  # type: ignore[index]
    assert [p["metadata"].get("labels") for p in pods[9:14]] == [
        None, *(yaml.safe_load(label.format(i=i)) for i in range(10, 13)), None]
    # PyYAML read exactly the three risky items (each over the 100-byte piece: one at a time)
    entries = data.split(b"\n- ")
    assert small_pieces == [len(entries[i + 1]) + 3 for i in range(10, 13) if by_pyyaml]
    assert check(data)  # the fast path's answer, equal to PyYAML's


@pytest.mark.parametrize("where", ["stdin", "mapped file"])
def test_a_risky_run_given_up_on_leaves_the_text_as_written(
    small_pieces: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """A big YAML List whose risky run holds a plain date (the fast path cannot resolve it:
    JSON has no date) and a double-quoted value with an escape (``"a\\x41b"``): rapidyaml
    tries the run in its own arena, and when it gives up the safe path reads the input as
    written, so the label is "aAb" as PyYAML reads it. Parsed in place, the escape would
    already have been rewritten in the buffer (for stdin, inside an immutable bytes object),
    and PyYAML would read what was left there. A mapped file is read again from the file."""
    monkeypatch.setattr(limits, "FAST_YAML_FROM", 0)
    monkeypatch.setattr(sources, "MAP_FROM", 0)
    data = _tooling_list(range(10, 13)).replace(
        b"      commit: 4e11392\n",
        b'      commit: 4e11392\n      y: "a\\x41b"\n    x: 2025-01-01\n')
    assert yaml.safe_load(data)["items"][11]["metadata"]["x"] == datetime.date(2025, 1, 1)
    if where == "stdin":
        docs = ingest.read_documents(["-"], stdin=io.BytesIO(data))
    else:
        path = tmp_path / "list.yaml"
        path.write_bytes(data)
        docs = ingest.read_documents([str(path)])
    pods = {d.obj["metadata"]["name"]: d.obj for d in docs}
    assert {"commit": "4e11392", "y": "aAb"} == pods["p11"]["metadata"]["labels"]


def test_in_a_list_with_both_only_what_needs_pyyaml_goes_to_it(small_pieces: list[int]) -> None:
    """Resolvable values in some items and, in another slice, one only PyYAML reads as YAML
    1.1 does: PyYAML reads just that item, the resolvable ones stay fast."""
    data = _tooling_list(range(3, 6))
    data = data.replace(b"    name: p20\n", b"    name: p20\n    labels:\n      app: ml-inf-20\n")
    pods = yaml_reader.read_yaml(data, ingest.MAX_DEPTH)[0][0][1]["items"]  # type: ignore[index]
    assert [p["metadata"].get("labels") for p in pods[2:7]] == [
        None, {"commit": "4e03392"}, {"commit": "4e04392"}, {"commit": "4e05392"}, None]
    assert pods[20]["metadata"]["labels"] == {"app": "ml-inf-20"}
    entries = data.split(b"\n- ")
    assert small_pieces == [len(entries[21]) + 3]
    assert check(data)


@pytest.mark.parametrize(("value", "fast"), [("0755", True), ("!!str 0755", False)])
def test_a_lists_own_keys_are_resolved_or_read_by_pyyaml(
    small_pieces: list[int], value: str, fast: bool
) -> None:
    """The List's own keys (after its items) are read apart from them: a plain value there is
    resolved like any other, a tag sends the whole input to PyYAML."""
    data = _tooling_list(range(3)).replace(
        b"metadata:\n  resourceVersion: ''\n", f"metadata:\n  resourceVersion: {value}\n".encode())
    docs, why = yaml_reader.read_yaml(data, ingest.MAX_DEPTH)
    assert (docs is not None) is fast
    assert fast or why == "the List's top-level keys may read differently in YAML 1.1"
    assert check(data) is fast


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"anchor": True}, "'&' on line 8 may read differently"),  # the whole input: PyYAML
        ({"date": True}, "a List item read by PyYAML is not what the JSON fast path reads"),
    ],
    ids=["anchor", "date"],
)
def test_a_risky_list_with_what_pieces_cannot_take_goes_whole_to_pyyaml(
    small_pieces: list[int], change: dict[str, bool], reason: str
) -> None:
    """An anchor or alias (only the whole input's reading counts alias expansion) or a value
    JSON has no type for (an unquoted date: a datetime, not a string) in a risky piece: the
    safe path reads the whole input."""
    data = _tooling_list(range(10, 13), anchor=change.get("anchor", False))
    if change.get("date"):
        data = data.replace(b"    name: p11\n", b"    name: p11\n    x: 2025-01-01\n")
    fast, why = yaml_reader.read_yaml(data, ingest.MAX_DEPTH)
    assert fast is None
    assert reason in why
    assert check(data) is False


def test_an_item_pyyaml_reads_keeps_its_owner_for_explain_and_history(
    small_pieces: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """explain and history name a pod's workload by its controller (``ownerReferences``), which
    the readers keep inside ``owner_references()``: an item of a big YAML List that PyYAML
    reads (a label only YAML 1.1 reads as written) keeps it as the items read fast do, so
    every pod here is Job d/train's, none a lone pod."""
    monkeypatch.setattr(limits, "FAST_YAML_FROM", 0)
    owner = (b"    ownerReferences:\n    - apiVersion: batch/v1\n      kind: Job\n"
             b"      name: train\n      uid: u-train\n      controller: true\n")
    data = _tooling_list(range(10, 11), label="app: ml-inf-{i:02d}").replace(
        b"    namespace: d\n", b"    namespace: d\n" + owner)
    path = tmp_path / "list.yaml"
    path.write_bytes(data)
    with owner_references():
        docs = ingest.read_documents([str(path)])
    assert len(small_pieces) == 1  # PyYAML read the one risky item, p10
    index = ObjectIndex(docs)
    pods = [index.pod("d", f"p{i}") for i in range(30)]
    assert {str(index.owner(p)) for p in pods if p is not None} == {"Job d/train"}
    assert None not in pods


def test_a_pyyaml_item_the_json_reader_refuses_sends_the_list_to_the_safe_reader(
    small_pieces: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An item of a big YAML List that PyYAML reads is kept only as the JSON fast reader would
    keep it: one that reader refuses (a pod's ``status`` that is a string, not a mapping) sends
    the whole input to the exact reader, PyYAML, so its memory limit applies: past it the
    user is told the size, the limit, why the exact reader is needed and how to go on. The
    limits are lowered here (the safe readers' to 600 bytes; the fast reader from 0 bytes)."""
    monkeypatch.setattr(limits, "FAST_YAML_FROM", 0)
    monkeypatch.setattr(limits, "FAST_FROM", 0)
    monkeypatch.setattr(limits, "MAX_INPUT_SIZE", 600)
    data = _tooling_list(range(10, 11), label="app: ml-inf-{i:02d}").replace(
        b"    nodeName: n1\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p11\n",
        b"    nodeName: n1\n  status: Running\n- apiVersion: v1\n  kind: Pod\n"
        b"  metadata:\n    name: p11\n")
    assert b"status: Running" in data
    path = tmp_path / "list.yaml"
    path.write_bytes(data)
    with pytest.raises(InputError) as info:
        ingest.read_documents([str(path)])
    assert str(info.value) == (
        f"{path}: {len(data)} bytes of YAML, larger than the 600 bytes limit: it needs the exact "
        "YAML 1.1 reader, PyYAML (a List item read by PyYAML is not what the JSON fast path "
        "reads), which takes about 30 times the file in memory; raise the limit with "
        "--max-input-size, or export JSON (-o json)")
    assert len(small_pieces) == 1  # PyYAML read the one risky item, p10


@pytest.mark.parametrize(("label", "by_pyyaml"), LABELS, ids=["resolved", "by PyYAML"])
def test_a_risky_list_loads_as_pyyaml_loads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small_pieces: list[int], label: str,
    by_pyyaml: bool,
) -> None:
    """Through the loader: the same Snapshot whether PyYAML reads the whole file or the
    fast path reads it, resolving its values or with PyYAML's pieces."""
    path = tmp_path / "tooling.yaml"
    path.write_bytes(_tooling_list(range(0, 30, 7), label=label))
    safe = ingest.build_snapshot(ingest.read_documents([str(path)]))
    monkeypatch.setattr(limits, "FAST_YAML_FROM", 0)
    fast = ingest.build_snapshot(ingest.read_documents([str(path)]))
    assert bool(small_pieces) == by_pyyaml
    assert safe == fast
    assert fast.pods["d/p7"].labels == yaml.safe_load(label.format(i=7))


def test_hashes_with_a_leading_zero_as_pyyaml_writes_them_take_the_fast_path(
    small_pieces: list[int],
) -> None:
    """PyYAML's emitter leaves ``pod-template-hash: 0734851389`` plain: with an 8 or a 9 it is
    no octal number, so YAML 1.1 reads a string, and rapidyaml's emitter quotes it (no JSON
    number has a leading zero). Both agree: no piece goes to PyYAML, and the labels are the
    strings PyYAML reads."""
    assert yaml.safe_dump({"pod-template-hash": "0734851389"}) == (
        "pod-template-hash: 0734851389\n")  # as Python tooling writes it
    data = _tooling_list(range(30), label="pod-template-hash: 07348{i:02d}389")
    assert yaml_reader.risky(data) is None
    pods = yaml_reader.read_yaml(data, ingest.MAX_DEPTH)[0][0][1]["items"]  # type: ignore[index]
    assert pods[7]["metadata"]["labels"] == {"pod-template-hash": "0734807389"}
    assert small_pieces == []
    assert check(data)


def _numberish_tokens() -> list[str]:
    """Every plain token up to three characters of digits, signs, points, underscores,
    colons and exponents, and leading-zero ones up to five digits: where YAML 1.1's int and
    float rules and JSON's numbers part."""
    short = ("".join(t) for n in (1, 2, 3) for t in itertools.product("0179+-._e:", repeat=n))
    zeros = ("0" + "".join(t) for n in (1, 2, 3, 4) for t in itertools.product("0789", repeat=n))
    hashes = {"0734851389", "-0734851389", "+0734851389", "0734851389.5"}
    return sorted(set(short) | set(zeros) | hashes)


def test_number_like_plain_scalars_read_as_pyyaml_reads_them() -> None:
    """Each token as a value, a list entry and a flow entry: the fast path reads every one
    PyYAML reads, as PyYAML reads it (``0755`` octal, ``0734851389`` a string, ``+7``, ``1_0``,
    ``1:7`` base 60, ``1.`` and ``.7`` floats, ``1e7`` a string) and leaves to PyYAML only what
    PyYAML refuses (``1:``, ``-``, ``[``)."""
    for token in _numberish_tokens():
        doc = f"kind: Pod\nspec:\n  x: {token}\n  l:\n  - {token}\n  f: [{token}, 1]\n".encode()
        assert check(doc) is (_pyyaml(doc) is not None), token


_TIMESTAMPS = [
    "2025-01-01", "2025-1-1", "2025-01-01T10:00:00Z", "2025-01-01t10:00:00", "2025-1-1T1:00:00",
    "2025-01-01 10:00:00", "2025-01-01  10:00:00.5", "2025-01-01T10:00:00.123-05:00",
    "2025-01-01 10:00:00 +7", "2025-01-01T10:00:00 Z", "2025-01-01T10:00", "2025-01-01T1:0:00",
]  # fmt: skip


def test_keys_yaml_reads_as_no_string_are_never_read_as_one() -> None:
    """Each token as a plain key (block and flow), beside a value the fast path resolves: the
    fast path reads the document as PyYAML does, or leaves it to PyYAML -- a key YAML 1.1
    reads as a date, number, boolean or null is never read as a string (a date with a time,
    ``2025-01-01 10:00:00:``, was)."""
    for token in [*_numberish_tokens(), *_RISKY, *_TIMESTAMPS]:
        for doc in (f"kind: Pod\nmetadata:\n  labels:\n    {token}: v\n    b: yes\n",
                    f"kind: Pod\nmetadata:\n  labels: {{{token}: v, b: yes}}\n"):
            check(doc.encode())


# ---- limits and lines ----------------------------------------------------------------------------


def _pod(i: int, cpu: str = "1") -> str:
    return (
        f"- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p{i}\n    namespace: ns\n"
        f"  spec:\n    containers:\n    - name: c\n      resources:\n"
        f"        requests:\n          cpu: '{cpu}'\n"
    )


def test_error_in_a_list_item_read_fast_names_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The List starts with "apiVersion: v1", "items:" (lines 1-2); each pod above is 11
    lines, so item i starts on line 3 + 11 i: item 7 (the bad cpu) on line 80."""
    monkeypatch.setattr(limits, "FAST_YAML_FROM", 0)
    monkeypatch.setattr(yaml_reader, "CHUNK", 100)
    text = "apiVersion: v1\nitems:\n" + "".join(
        _pod(i, "-1" if i == 7 else "1") for i in range(10)
    ) + "kind: List\n"
    path = tmp_path / "l.yaml"
    path.write_text(text)
    assert yaml_reader.read_yaml(text.encode(), ingest.MAX_DEPTH)[0] is not None  # fast
    with pytest.raises(InputError) as info:
        ingest.build_snapshot(ingest.read_documents([str(path)]))
    assert f"{path}:80, document 1, item 7" in str(info.value)


def test_error_in_a_list_item_read_in_slices_finds_its_line_in_the_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A List read in slices is a big export: the line of an item an error names is found by
    counting its ``- `` entries in the text, as it was sliced, never by streaming the file's
    events through PyYAML (~0.3 s per MB: over a minute before the error of an item near the
    end of a 300 MB export). Same List as above: item 7 starts on line 3 + 11 * 7 = 80."""
    monkeypatch.setattr(limits, "FAST_YAML_FROM", 0)
    monkeypatch.setattr(yaml_reader, "CHUNK", 100)
    parsed: list[object] = []
    real_parse = yaml.parse

    def spy(stream: Any, *args: Any, **kwargs: Any) -> Any:
        parsed.append(stream)
        return real_parse(stream, *args, **kwargs)

    monkeypatch.setattr(yaml, "parse", spy)
    text = "apiVersion: v1\nitems:\n" + "".join(
        _pod(i, "-1" if i == 7 else "1") for i in range(10)
    ) + "kind: List\n"
    path = tmp_path / "l.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        ingest.build_snapshot(ingest.read_documents([str(path)]))
    assert f"{path}:80, document 1, item 7" in str(info.value)
    assert parsed == []


@pytest.mark.parametrize("chunk", [None, 100], ids=["whole", "in slices"])
@pytest.mark.parametrize("fast_from", [0, 1 << 40], ids=["fast", "safe"])
def test_an_item_whose_dash_line_holds_only_a_comment_is_named_at_its_first_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int | None, fast_from: int
) -> None:
    """Item 7 written "- # the odd one", a blank line, then its keys: the item starts where
    PyYAML marks its mapping, the first key's line, whichever reader reads the file. The List
    as above: item 7's "-" on line 80, the blank line 81, "apiVersion" on line 82."""
    monkeypatch.setattr(limits, "FAST_YAML_FROM", fast_from)
    if chunk is not None:
        monkeypatch.setattr(yaml_reader, "CHUNK", chunk)
    items = [_pod(i, "-1" if i == 7 else "1") for i in range(10)]
    items[7] = items[7].replace("- apiVersion", "- # the odd one\n\n  apiVersion", 1)
    path = tmp_path / "l.yaml"
    path.write_text("apiVersion: v1\nitems:\n" + "".join(items) + "kind: List\n")
    with pytest.raises(InputError) as info:
        ingest.build_snapshot(ingest.read_documents([str(path)]))
    assert f"{path}:82, document 1, item 7" in str(info.value)


@pytest.mark.parametrize("marker", ["...", "---"])
def test_a_document_marker_among_big_list_items_reads_as_pyyaml_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, marker: str
) -> None:
    """A "..." or "---" line between the entries of a big List ends its document there:
    PyYAML reads the text after it as another document, which starts with entries at column 0
    ("...": "did not find expected <document start>"; "---": a document that is a sequence,
    not an object). Read in slices of entries, a "..." went unseen and all 12 items were read
    (a review found it); such a List is now read whole, so the file gives PyYAML's answer, fast
    or safe."""
    monkeypatch.setattr(yaml_reader, "CHUNK", 64)
    items = "".join(_pod(i) for i in range(6)) + marker + "\n" + "".join(
        _pod(i) for i in range(6, 12))
    path = tmp_path / "l.yaml"
    path.write_text("apiVersion: v1\nkind: List\nitems:\n" + items)
    assert_fast_path_agrees(path, monkeypatch)


def test_error_in_an_indented_list_item_read_fast_names_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Items indented under "items:" (as yq and ruamel write them) are not read in slices but
    whole, and the line is found by streaming the file's events: "apiVersion", "kind",
    "items:" are lines 1-3, each pod 11 lines, so item 7 (the bad cpu) starts on line 81."""
    monkeypatch.setattr(limits, "FAST_YAML_FROM", 0)
    items = "".join(_pod(i, "-1" if i == 7 else "1") for i in range(10))
    text = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
        "  " + line + "\n" for line in items.splitlines())
    path = tmp_path / "l.yaml"
    path.write_text(text)
    assert yaml_reader.read_yaml(text.encode(), ingest.MAX_DEPTH)[0] is not None  # fast
    with pytest.raises(InputError) as info:
        ingest.build_snapshot(ingest.read_documents([str(path)]))
    assert f"{path}:81, document 1, item 7" in str(info.value)


def test_error_in_a_later_document_read_fast_names_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Document 2 starts after the "---" on line 4, its first key on line 5."""
    monkeypatch.setattr(limits, "FAST_YAML_FROM", 0)
    text = (
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\n"
        "spec: {containers: [{name: c, resources: {requests: {cpu: 'x'}}}]}\n"
    )
    path = tmp_path / "d.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        ingest.build_snapshot(ingest.read_documents([str(path)]))
    assert f"{path}:5, document 2" in str(info.value)


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """The defaults scaled down: 2 KiB for the safe readers, 1 MiB fast from 1 KiB on."""
    monkeypatch.setattr(limits, "MAX_INPUT_SIZE", 2048)
    monkeypatch.setattr(limits, "MAX_FAST_INPUT_SIZE", 1 << 20)
    monkeypatch.setattr(limits, "FAST_FROM", 1024)
    monkeypatch.setattr(limits, "FAST_YAML_FROM", 1024)


def _refused_past_the_general_limit(path: Path) -> str:
    """The reason ``path`` is refused with the 2 KiB general limit: it names the limit and the
    way out (checked here); the caller checks why."""
    with pytest.raises(InputError) as info:
        ingest.read_documents([str(path)])
    reason = info.value.reason
    assert "larger than the 2Ki limit" in reason
    assert "--max-input-size" in reason
    return reason


def test_yaml_over_the_general_limit_is_read_fast_by_default(
    tmp_path: Path, small_limits: None
) -> None:
    path = tmp_path / "big.yaml"
    pods = "".join(_pod(i) for i in range(40))
    path.write_text("apiVersion: v1\nitems:\n" + pods + "kind: List\n")
    assert 40 == len(ingest.read_documents([str(path)]))


def test_yaml_needing_pyyaml_over_the_general_limit_says_why(
    tmp_path: Path, small_limits: None
) -> None:
    """A tag sends the file to PyYAML, which only takes the general limit: one line with the
    reason, the offending token and its line (not the plain ``yes`` before it, which the fast
    path resolves), and the way out."""
    path = tmp_path / "big.yaml"
    pods = "".join(_pod(i) for i in range(40))
    head = "apiVersion: v1\nmetadata:\n  labels: {a: yes}\n"
    path.write_text(f"{head}items:\n{pods}kind: List\n")
    assert 40 == len(ingest.read_documents([str(path)]))  # yes: resolved on the fast path
    path.write_text(f"{head}  annotations: {{b: !!str yes}}\nitems:\n{pods}kind: List\n")
    reason = _refused_past_the_general_limit(path)
    assert "exact YAML 1.1 reader" in reason
    assert "'!' on line 4 may read differently in YAML 1.1" in reason
    assert 40 == len(ingest.read_documents([str(path)], max_input_size=1 << 20))


def test_list_item_json_cannot_hold_over_the_general_limit_says_why(
    tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A label written with YAML's escape for a control character (``"\\e"``, ESC, as in a
    colored message) is emitted as that raw character, which JSON does not allow in a string:
    the slice of items goes to PyYAML. Past the general limit the one-line error gives that
    reason (not an internal error's name) and the way out; with a higher limit PyYAML reads
    the label, ESC and all."""
    monkeypatch.setattr(yaml_reader, "CHUNK", 1024)  # the List read in slices of items
    pods = "".join(_pod(i) for i in range(40)).replace(
        "    name: p7\n", '    name: p7\n    labels: {note: "\\e[31m"}\n'
    )
    path = tmp_path / "big.yaml"
    path.write_text(f"apiVersion: v1\nitems:\n{pods}kind: List\n")
    reason = _refused_past_the_general_limit(path)
    assert "PyYAML (a List item is not what the JSON fast path reads)" in reason
    docs = ingest.read_documents([str(path)], max_input_size=1 << 20)
    assert (40, {"note": "\x1b[31m"}) == (len(docs), docs[7].obj["metadata"]["labels"])


def test_list_item_not_utf8_over_the_general_limit_is_refused_as_not_utf8(
    tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A List item holding a plain value in a legacy encoding (latin-1 bytes, not UTF-8) next
    to a ``yes`` the fast path resolves: the file is not UTF-8 text, which no limit changes,
    so past the general limit too the one error says so -- not that the file is too big (a
    user raising the limit would only meet this error next), nor an internal error's name
    (UnicodeDecodeError)."""
    monkeypatch.setattr(yaml_reader, "CHUNK", 1024)  # the List read in slices of items
    pods = "".join(_pod(i) for i in range(40)).encode().replace(
        b"    name: p7\n", b"    name: p7\n    labels: {a: yes, b: caf\xe9}\n"
    )
    path = tmp_path / "big.yaml"
    path.write_bytes(b"apiVersion: v1\nitems:\n" + pods + b"kind: List\n")
    with pytest.raises(InputError) as info:
        ingest.read_documents([str(path)])
    assert "not UTF-8 text (a binary file?)" == info.value.reason


def test_list_followed_by_another_document_over_the_general_limit_says_why(
    tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big List (read in slices of items) followed by a second document ("---" after its
    last top-level key): the List's top level is then not one mapping, so the file goes to
    PyYAML. Past the general limit the one-line error names that reason, so the user knows
    why the exact reader was needed; with a higher limit both documents are read."""
    monkeypatch.setattr(yaml_reader, "CHUNK", 1024)  # the List read in slices of items
    pods = "".join(_pod(i) for i in range(40))
    path = tmp_path / "big.yaml"
    path.write_text(
        f"apiVersion: v1\nitems:\n{pods}kind: List\n---\n"
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n"
    )
    reason = _refused_past_the_general_limit(path)
    assert (
        "PyYAML (the List's top level is not a single mapping with one items list), "
        "which takes" in reason
    )
    docs = ingest.read_documents([str(path)], max_input_size=1 << 20)
    assert 41 == len(docs)


def _list_with_tagged_item(index: int, extra: str = "", labels: str = "{a: !!str b}") -> str:
    """The 40-pod List of the tests above (the pre-scan finds nothing in it), item ``index``
    given ``labels`` (by default a tagged one: only PyYAML reads a tag, so the run of items
    holding it goes to PyYAML while the rest is read fast) and ``extra`` lines at its top
    level."""
    pods = [_pod(i) for i in range(40)]
    pods[index] = pods[index].replace(
        "    namespace: ns\n", f"    namespace: ns\n    labels: {labels}\n") + extra
    return "apiVersion: v1\nitems:\n" + "".join(pods) + "kind: List\n"


def _nested(levels: int) -> str:
    return "{a: " * levels + "1" + "}" * levels


_NOT_KEPT = "a List item read by PyYAML is not what the JSON fast path reads"


@pytest.mark.parametrize(
    ("extra", "why"),
    [
        # "kind" twice: PyYAML (wapctl's loader) refuses the piece, and its error is named
        ("  kind: !!str Pod\n", "PyYAML could not read a piece of the List (DuplicateKey)"),
        # status a string: PyYAML reads it, the JSON fast path's schema has an object there
        ("  status: x\n", _NOT_KEPT),
        # 98 mappings in the item's x: the document is 101 levels deep (the List, its items,
        # the item, 98), past MAX_DEPTH
        (f"  x: {_nested(98)}\n", _NOT_KEPT),
    ],
    ids=["duplicate key", "status not an object", "nested 101 levels"],
)
def test_list_item_pyyaml_reads_apart_over_the_general_limit_says_why(
    extra: str, why: str, tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a big List read in slices, an item holding a tag is read by PyYAML on its own; when
    that piece cannot be kept (PyYAML refuses it, or it holds what the fast path does not
    read), the whole file goes to PyYAML. Past the general limit the one-line error says which
    of the two it was, in those words (with the name of PyYAML's error), and the way out."""
    monkeypatch.setattr(yaml_reader, "CHUNK", 1024)  # the List read in slices of items
    path = tmp_path / "big.yaml"
    path.write_text(_list_with_tagged_item(7, extra))
    reason = _refused_past_the_general_limit(path)
    assert f"it needs the exact YAML 1.1 reader, PyYAML ({why}), which takes" in reason


def test_list_item_pyyaml_reads_apart_may_nest_to_the_depth_limit(
    tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MAX_DEPTH (100) holds for an item PyYAML reads apart as for the whole file: an item
    making the document exactly 100 levels deep (the List, its items, the item and 97
    mappings) is read by the fast path, past the general limit; one level more is refused,
    as the whole file's reading refuses it (never read as if it were within the limit)."""
    monkeypatch.setattr(yaml_reader, "CHUNK", 1024)  # the List read in slices of items
    path = tmp_path / "big.yaml"
    path.write_text(_list_with_tagged_item(7, f"  x: {_nested(97)}\n"))
    docs = ingest.read_documents([str(path)])
    assert (40, {"a": "b"}) == (len(docs), docs[7].obj["metadata"]["labels"])
    path.write_text(_list_with_tagged_item(7, f"  x: {_nested(98)}\n"))
    with pytest.raises(InputError) as info:
        ingest.read_documents([str(path)], max_input_size=1 << 20)
    assert info.value.reason == "nested deeper than 100 levels"


def test_list_whose_last_item_pyyaml_reads_is_read_fast_over_the_general_limit(
    tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tag in the List's very last item (the end of the last slice, where the List's own
    keys follow): that item is read by PyYAML, the others fast, so a file past the general
    limit is read, the tagged label as PyYAML reads it."""
    monkeypatch.setattr(yaml_reader, "CHUNK", 1024)  # the List read in slices of items
    path = tmp_path / "big.yaml"
    path.write_text(_list_with_tagged_item(39))
    docs = ingest.read_documents([str(path)])
    assert (40, "p39", {"a": "b"}) == (
        len(docs), docs[39].obj["metadata"]["name"], docs[39].obj["metadata"]["labels"])


def test_quoted_value_with_a_line_like_an_entry_stays_in_one_pyyaml_piece(
    tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tagged double-quoted label running over two lines, the second starting ``- `` at
    column 0 (so it looks like a List entry of its own), then a ``yes``: both parts are risky,
    and PyYAML reads such consecutive entries as one piece up to ``EXACT_PIECE`` bytes -- here
    exactly the item's size, so it is not cut. The file is read past the general limit, the
    label folded as YAML folds it (the line break a space) and ``yes`` a boolean."""
    monkeypatch.setattr(yaml_reader, "CHUNK", 1024)  # the List read in slices of items
    labels = '\n      note: !!str "first\n- second"\n      mode: yes'
    text = _list_with_tagged_item(7, labels=labels)
    item = text[text.index("- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p7\n"):
                text.index("- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p8\n")]
    assert "\n- second" in item
    monkeypatch.setattr(yaml_reader, "EXACT_PIECE", len(item))
    path = tmp_path / "big.yaml"
    path.write_text(text)
    docs = ingest.read_documents([str(path)])
    assert (40, {"note": "first - second", "mode": True}) == (
        len(docs), docs[7].obj["metadata"]["labels"])


def test_plain_values_after_an_entry_with_its_dash_alone_are_resolved_past_the_general_limit(
    tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entry written with its ``-`` alone on the line (``-\\n  apiVersion: v1``, valid
    YAML) does not start with ``- ``, so the fast path counts one entry fewer than the items
    rapidyaml parses; a ``yes`` in a later item of that slice must still read as YAML 1.1
    reads it (True, as PyYAML gives), not as the string "yes", and the file past the general
    limit is read fast, not refused."""
    monkeypatch.setattr(yaml_reader, "CHUNK", 1024)  # the List read in slices of items
    pods = [_pod(i) for i in range(40)]
    pods[1] = "-\n  " + pods[1][2:]
    pods[2] = pods[2].replace("    namespace: ns\n", "    namespace: ns\n    labels: {a: yes}\n")
    path = tmp_path / "big.yaml"
    path.write_text("apiVersion: v1\nitems:\n" + "".join(pods) + "kind: List\n")
    docs = ingest.read_documents([str(path)])
    assert (40, "p1", "p2", {"a": True}) == (
        len(docs), docs[1].obj["metadata"]["name"], docs[2].obj["metadata"]["name"],
        docs[2].obj["metadata"]["labels"])


def test_plain_value_in_the_lists_last_item_is_resolved_fast_past_the_general_limit(
    tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``yes`` in the List's very last item (the last slice, the List's own keys after it,
    no other entry in the text): it reads as YAML 1.1 reads it (True) on the fast path, so
    the file past the general limit is read, not refused."""
    monkeypatch.setattr(yaml_reader, "CHUNK", 1024)  # the List read in slices of items
    pods = [_pod(i) for i in range(40)]
    pods[39] = pods[39].replace("    namespace: ns\n", "    namespace: ns\n    labels: {a: yes}\n")
    path = tmp_path / "big.yaml"
    path.write_text("apiVersion: v1\nitems:\n" + "".join(pods) + "kind: List\n")
    docs = ingest.read_documents([str(path)])
    assert (40, {"a": True}) == (len(docs), docs[39].obj["metadata"]["labels"])


@pytest.mark.parametrize(
    ("labels", "token"),
    [
        # a trailing comment holding a flow closer (rapidyaml's flow parser may read it
        # differently): quoted from the ``#`` to the last character before the closer (only
        # the closer and blanks trimmed: the final ``X`` of ``MAX`` stays)
        ("{a: b}  # was [--level=MAX]", "# was [--level=MAX"),
        # an empty key in a flow mapping: the ``:`` itself (a lone colon is the token, not a
        # key's colon to trim), never an empty ''
        ("{a: b, : c}", ":"),
    ],
    ids=["comment with a closer", "lone colon"],
)
def test_needing_pyyaml_over_the_general_limit_quotes_the_token_as_written(
    labels: str, token: str, tmp_path: Path, small_limits: None
) -> None:
    """What sends a big file to PyYAML, past the general limit, is quoted in the error as
    written, with its line (3): a user sees which characters to fix."""
    path = tmp_path / "big.yaml"
    pods = "".join(_pod(i) for i in range(40))
    head = f"apiVersion: v1\nmetadata:\n  labels: {labels}\n"
    path.write_text(f"{head}items:\n{pods}kind: List\n")
    reason = _refused_past_the_general_limit(path)
    assert f"({token!r} on line 3 may read differently in YAML 1.1)" in reason


def test_a_token_cut_inside_a_character_is_shown_with_a_replacement_mark(
    tmp_path: Path, small_limits: None
) -> None:
    """The offending token is quoted up to 40 bytes; when that cuts a UTF-8 character in two
    (a comment in another script), the half is shown as U+FFFD and the file is refused with
    the usual one-line reason, never a crash: ``#`` is one byte and each ``\u00e9`` two, so
    the 40 bytes hold ``#``, 19 of them and the first byte of the 20th."""
    path = tmp_path / "big.yaml"
    pods = "".join(_pod(i) for i in range(40))
    head = "apiVersion: v1\nmetadata:\n  labels: {a: b}  #" + "\u00e9" * 30 + "]\n"
    path.write_text(f"{head}items:\n{pods}kind: List\n", encoding="utf-8")
    reason = _refused_past_the_general_limit(path)
    shown = "#" + "\u00e9" * 19 + "\ufffd"
    assert f"('{shown}' on line 3 may read differently in YAML 1.1)" in reason


def test_yaml_nested_past_the_fast_readers_depth_over_the_general_limit_says_why(
    tmp_path: Path, small_limits: None
) -> None:
    """A document nested deeper than rapidyaml's emitter goes (64 levels; wapctl allows 100)
    is handed to PyYAML: past the general limit the one-line error gives that reason (not an
    internal error's name) and the way out; with a higher limit PyYAML reads it."""
    deep = "{a: " * 70 + "1" + "}" * 70
    pods = "".join(_pod(i) for i in range(40))
    path = tmp_path / "big.yaml"
    path.write_text(f"apiVersion: v1\nmetadata:\n  x: {deep}\nitems:\n{pods}kind: List\n")
    reason = _refused_past_the_general_limit(path)
    assert "PyYAML (nested deeper than the fast reader goes (64 levels))," in reason
    assert 40 == len(ingest.read_documents([str(path)], max_input_size=1 << 20))


def test_a_deep_later_document_of_a_stream_says_why(tmp_path: Path, small_limits: None) -> None:
    """The same with the deep document second in a stream, the first already emitted into
    the shared buffer: still the depth named, not the buffer's own error (BufferError)."""
    deep = "{a: " * 70 + "1" + "}" * 70
    path = tmp_path / "stream.yaml"
    path.write_text("".join(f"---\n{_pod(i)[2:]}".replace("\n  ", "\n") for i in range(40))
                    + f"---\nkind: ConfigMap\nmetadata: {{name: c}}\nx: {deep}\n")
    reason = _refused_past_the_general_limit(path)
    assert "PyYAML (nested deeper than the fast reader goes (64 levels))," in reason
    assert 41 == len(ingest.read_documents([str(path)], max_input_size=1 << 20))


def _parsed_sizes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every text rapidyaml parses from now on (the bytes read_yaml is given)."""
    sizes: list[int] = []
    real = yaml_reader.ryml.parse_in_arena

    def spy(data: Any, *args: Any, **kwargs: Any) -> Any:
        sizes.append(len(data))
        return real(data, *args, **kwargs)

    monkeypatch.setattr(yaml_reader.ryml, "parse_in_arena", spy)
    return sizes


@pytest.mark.parametrize("head", ["", "apiVersion: v1\n", "# c\napiVersion: v1\n"])
def test_list_is_read_in_slices_with_items_first_or_later(
    head: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``items:`` on the first line or after other keys: sliced (no whole tree), same objects."""
    monkeypatch.setattr(yaml_reader, "CHUNK", 100)
    parsed = _parsed_sizes(monkeypatch)
    text = (head + "items:\n" + "".join(_pod(i) for i in range(5)) + "kind: List\n").encode()
    assert check(text)
    assert parsed and max(parsed) < len(text)  # slices only, never the whole text
    parsed.clear()
    no_items = b"id: 1\n" + text[len(head) :].replace(b"items:", b"x:")
    assert check(no_items)
    assert [len(no_items)] == parsed  # read whole


def test_list_with_other_top_level_keys_inside_the_items_falls_back() -> None:
    """A top-level key between two entries of an indentless items list cannot be sliced: the
    slice does not parse, the safe path reads it (and PyYAML refuses it)."""
    saved = yaml_reader.CHUNK
    yaml_reader.CHUNK = 30
    try:
        text = "apiVersion: v1\nitems:\n" + _pod(0) + "kind: List\n" + _pod(1)
        check(text.encode())
        assert yaml_reader.read_yaml(text.encode(), ingest.MAX_DEPTH)[0] is None
    finally:
        yaml_reader.CHUNK = saved


@pytest.mark.parametrize("first", ["--- hello\n", "hello\n"], ids=["opened by ---", "bare"])
def test_a_long_stream_stops_at_its_first_slice_whether_or_not_it_opens_with_a_marker(
    tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch, first: str
) -> None:
    """A long stream (from ``2 * CHUNK``, here 8 KiB) is read a slice of whole documents at a
    time, cut at a ``---`` line from ``CHUNK`` bytes on, so rapidyaml's tree (some 13 times
    the text) only ever holds one slice -- also when the file's first line is ``---``. Here
    document 1 is a string and a document past the first slice nests 80 levels (rapidyaml's
    emitter stops at 64; PyYAML reads it): the fast path gives up at the first slice, never
    parsing the whole text, and past the general limit the error names document 1, not the
    deep one (the whole stream read at once reached the deep document first)."""
    monkeypatch.setattr(yaml_reader, "CHUNK", 4096)
    parsed = _parsed_sizes(monkeypatch)
    namespaces = [f"---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns{i}\n"
                  for i in range(200)]
    deep = "---\nkind: ConfigMap\nmetadata: {name: c}\nx: " + "[" * 80 + "]" * 80 + "\n"
    text = first + "".join(namespaces[:100]) + deep + "".join(namespaces[100:])
    assert yaml_reader.CHUNK < text.index(deep) and 2 * yaml_reader.CHUNK <= len(text)
    path = tmp_path / "stream.yaml"
    path.write_text(text)
    reason = _refused_past_the_general_limit(path)
    assert "PyYAML (document 1 is not what the JSON fast path reads), which takes" in reason
    assert parsed and max(parsed) < text.index(deep)  # the first slice only


@pytest.mark.parametrize(
    ("second", "why"),
    [
        ("x: " + "[" * 80 + "]" * 80, "nested deeper than the fast reader goes (64 levels)"),
        ("x: [a, b", "rapidyaml could not parse it (ExceptionParse)"),
    ],
    ids=["80 levels", "a syntax error"],
)
def test_a_long_stream_is_read_a_slice_of_several_documents_at_a_time(
    tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch, second: str, why: str
) -> None:
    """A long stream (from ``2 * CHUNK``, here 8 KiB) is read a slice of about ``CHUNK`` bytes
    of whole documents at a time, not a document at a time: the first slice (documents 1 to
    about 60) is parsed and emitted before any of its documents is decoded. Here document 1 is
    a string (the JSON fast path refuses it) and document 2, in the same slice, nests 80 levels
    (rapidyaml's emitter stops at 64) or does not parse: past the general limit the reason
    names document 2's problem, met first, not document 1."""
    monkeypatch.setattr(yaml_reader, "CHUNK", 4096)
    namespaces = [f"---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns{i}\n"
                  for i in range(200)]
    text = "--- hello\n---\nkind: ConfigMap\nmetadata: {name: c}\n" + second + "\n"
    text += "".join(namespaces)
    assert 2 * yaml_reader.CHUNK <= len(text)
    path = tmp_path / "stream.yaml"
    path.write_text(text)
    reason = _refused_past_the_general_limit(path)
    assert f"it needs the exact YAML 1.1 reader, PyYAML ({why}), which takes" in reason


def test_a_mapped_stream_read_in_one_slice_to_a_page_boundary_is_read_fast(
    tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long YAML file (from ``2 * CHUNK``, here 8 KiB) is mapped and read in slices of whole
    documents, each slice's pages handed back to the kernel once read. One document with no
    ``---`` after it is one slice ending at the end of the file; when the file's size is a
    multiple of the page size, the pages handed back end exactly there, and doing so must not
    fail: the file is read by the fast path (a failure sent it to PyYAML, which refuses it
    past the general limit, 2 KiB here)."""
    monkeypatch.setattr(sources, "MAP_FROM", 0)
    monkeypatch.setattr(yaml_reader, "CHUNK", 4096)
    head = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ns\n  labels:\n"
    tail = "spec:\n  containers:\n  - name: c\n"
    size = 4 * mmap.PAGESIZE
    pad = "x" * (size - len(head) - len("    pad: ''\n") - len(tail))
    text = f"{head}    pad: '{pad}'\n{tail}"
    assert size == len(text) >= 2 * yaml_reader.CHUNK
    path = tmp_path / "pod.yaml"
    path.write_text(text)
    [doc] = ingest.read_documents([str(path)])
    assert ("p", {"pad": pad}) == (doc.obj["metadata"]["name"], doc.obj["metadata"]["labels"])


def test_a_stream_under_two_slices_is_read_whole(
    tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stream shorter than ``2 * CHUNK`` (here 8 KiB) is parsed and emitted whole, even when
    a ``---`` line lies past ``CHUNK`` bytes (where a long stream would be cut): document 1 is
    a string (the JSON fast path refuses it) and a document past the first ``CHUNK`` bytes
    nests 80 levels (rapidyaml's emitter stops at 64). The whole stream is emitted before any
    document is decoded, so past the general limit the reason names the deep document's
    problem, met first -- not document 1, as when a long stream stops at its first slice."""
    monkeypatch.setattr(yaml_reader, "CHUNK", 4096)
    parsed = _parsed_sizes(monkeypatch)
    namespaces = [f"---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns{i}\n"
                  for i in range(90)]
    deep = "---\nkind: ConfigMap\nmetadata: {name: c}\nx: " + "[" * 80 + "]" * 80 + "\n"
    text = "--- hello\n" + "".join(namespaces[:80]) + deep + "".join(namespaces[80:])
    assert yaml_reader.CHUNK < text.index(deep) and len(text) < 2 * yaml_reader.CHUNK
    path = tmp_path / "stream.yaml"
    path.write_text(text)
    reason = _refused_past_the_general_limit(path)
    assert "PyYAML (nested deeper than the fast reader goes (64 levels)), which takes" in reason
    assert [len(text)] == parsed  # one parse of the whole text, no slices


# ---- hostile input through the fast path ---------------------------------------------------------

_HOSTILE = {
    "flow lists 10,000 deep": "[" * 10_000 + "]" * 10_000,
    "flow mappings 10,000 deep": "{a: " * 10_000 + "1" + "}" * 10_000,
    "block lists 10,000 deep": "- " * 10_000 + "x\n",
    "150 deep in a Pod": "kind: Pod\nmetadata: {name: p}\nspec: " + "[" * 150 + "]" * 150 + "\n",
    "70 deep in a Pod": "kind: Pod\nmetadata: {name: p}\nspec: " + "[" * 70 + "]" * 70 + "\n",
    "billion laughs": (ROOT / "tests" / "test_hostile_yaml.py").read_text().split('"""\\\n')[1]
    .split('"""')[0],
    "python tag": "kind: Pod\nmetadata: !!python/object/apply:os.system ['true']\n",
    "syntax error": "kind: Pod\nmetadata: {name: [p}\n",
    "not a mapping": "- 1\n- 2\n",
}


@pytest.mark.parametrize("text", _HOSTILE.values(), ids=_HOSTILE.keys())
def test_hostile_input_gets_the_safe_paths_answer(
    text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tried from 0 bytes on, the fast path hands each over (or reads it as PyYAML does): the
    same documents or the same one-line error, the depth limit, the alias limits, no tag."""
    path = tmp_path / "h.yaml"
    path.write_text(text)
    assert_fast_path_agrees(path, monkeypatch)


@pytest.mark.parametrize("reason", ["deep", "date"])
def test_a_mapped_file_the_fast_path_hands_over_is_read_as_written(
    reason: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big file is memory-mapped and rapidyaml parses it in place (in the map's private
    copy-on-write pages, unescaping and folding quoted scalars where they stand). When the fast
    path then hands it to PyYAML (nesting deeper than the emitter's 64 levels, a plain date
    JSON has no value for), PyYAML reads the file as written: the name below came out as
    "aAb41b", the note as "line one line twoo"."""
    monkeypatch.setattr(sources, "MAP_FROM", 0)
    monkeypatch.setattr(limits, "FAST_YAML_FROM", 0)
    extra = "{a: " * 70 + "1" + "}" * 70 if reason == "deep" else "2025-01-01"
    text = (
        'apiVersion: v1\nkind: Pod\nmetadata:\n  name: "a\\x41b"\n  namespace: d\n'
        f'  labels:\n    note: "line one\\nline two"\nspec:\n  x: {extra}\n'
    ).encode()
    path = tmp_path / "mapped.yaml"
    path.write_bytes(text)
    assert yaml_reader.read_yaml(text, ingest.MAX_DEPTH)[0] is None  # handed over
    [doc] = ingest.read_documents([str(path)])
    assert doc.obj["metadata"] == {
        "name": "aAb", "namespace": "d", "labels": {"note": "line one\nline two"}}
    assert path.read_bytes() == text


def test_a_mapped_file_that_grows_before_pyyaml_reads_it_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mapped file the fast path hands to PyYAML is read again from disk; if it changed size
    meanwhile (a snapshot still being written), the read stops with an error naming the file
    and saying why, instead of parsing half of one file and half of another. Here a date
    makes rapidyaml hand it over, and the file grows by a line while it does so."""
    monkeypatch.setattr(sources, "MAP_FROM", 0)
    monkeypatch.setattr(limits, "FAST_YAML_FROM", 0)
    path = tmp_path / "mapped.yaml"
    path.write_bytes(b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\nspec:\n  x: 2025-01-01\n")
    read_yaml = yaml_reader.read_yaml

    def growing(data: Any, depth: int) -> Any:
        with open(path, "ab") as fh:
            fh.write(b"# more\n")
        return read_yaml(data, depth)

    monkeypatch.setattr(yaml_reader, "read_yaml", growing)
    with pytest.raises(InputError) as info:
        ingest.read_documents([str(path)])
    assert f"{path}: the file changed while it was being read" == str(info.value)


def test_a_mapped_file_removed_before_pyyaml_reads_it_is_named_with_the_systems_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mapped file the fast path hands to PyYAML is opened again to be read from disk; if it
    is gone by then (a snapshot replaced or cleaned up meanwhile), the user gets the one-line
    error for an unreadable file: its name, "cannot read:" and the system's reason
    (ENOENT's "No such file or directory"), not an internal error. Here a date makes rapidyaml
    hand it over, and the file is deleted while it does so."""
    monkeypatch.setattr(sources, "MAP_FROM", 0)
    monkeypatch.setattr(limits, "FAST_YAML_FROM", 0)
    path = tmp_path / "mapped.yaml"
    path.write_bytes(b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\nspec:\n  x: 2025-01-01\n")
    read_yaml = yaml_reader.read_yaml

    def removing(data: Any, depth: int) -> Any:
        path.unlink()
        return read_yaml(data, depth)

    monkeypatch.setattr(yaml_reader, "read_yaml", removing)
    with pytest.raises(InputError) as info:
        ingest.read_documents([str(path)])
    assert f"{path}: cannot read: No such file or directory" == str(info.value)


def test_a_mapped_file_is_read_by_the_fast_path_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big file is memory-mapped and parsed where it stands (the map's private copy-on-write
    pages): the fast path reads it, escapes and folds unescaped in the map, and the file on
    disk is untouched. The exact readers' limit is set below the file's size here, so a file
    handed to PyYAML would be refused instead."""
    monkeypatch.setattr(sources, "MAP_FROM", 0)
    monkeypatch.setattr(limits, "FAST_YAML_FROM", 0)
    text = (
        b'apiVersion: v1\nkind: Pod\nmetadata:\n  name: "a\\x41b"\n  namespace: d\n'
        b'  labels:\n    note: "line one\\nline two"\n    mode: 0755\n'
    )
    monkeypatch.setattr(limits, "FAST_FROM", 0)  # the file gets the fast readers' limit
    monkeypatch.setattr(limits, "MAX_INPUT_SIZE", len(text) // 2)
    path = tmp_path / "mapped.yaml"
    path.write_bytes(text)
    [doc] = ingest.read_documents([str(path)])
    assert doc.obj["metadata"] == {
        "name": "aAb", "namespace": "d", "labels": {"note": "line one\nline two", "mode": 493}}
    assert path.read_bytes() == text


def test_a_yaml_list_over_4_mib_is_read_by_the_fast_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A YAML export of several MiB (``kubectl get pods -A -o yaml`` of a busy cluster) is read
    by the fast path: over 4 MiB (32 samples of 128 KiB) its tree is sized from newlines
    counted in samples instead of in the whole text, and that estimate must not fail, or the
    file goes to PyYAML, which takes ~30 times its size in memory. The exact readers' limit is
    set below the file's size here, so a file handed to PyYAML would be refused instead."""
    monkeypatch.setattr(limits, "FAST_FROM", 0)  # the file gets the fast readers' limit
    monkeypatch.setattr(limits, "FAST_YAML_FROM", 0)
    monkeypatch.setattr(limits, "MAX_INPUT_SIZE", 1 << 20)
    count = 30_000
    text = "apiVersion: v1\nitems:\n" + "".join(_pod(i) for i in range(count)) + "kind: List\n"
    assert 32 * (128 << 10) < len(text) < 6 << 20
    path = tmp_path / "big.yaml"
    path.write_text(text)
    docs = ingest.read_documents([str(path)])
    assert count == len(docs)
    assert ("p29999", "1") == (
        docs[-1].obj["metadata"]["name"],
        docs[-1].obj["spec"]["containers"][0]["resources"]["requests"]["cpu"],
    )


def test_a_list_item_larger_than_the_slice_buffer_is_read_by_the_fast_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A List item whose JSON is larger than the buffer its slice is emitted into (a pod with a
    1.5 MiB label value here; the fast path skips annotations) is still read by the fast path,
    whole: the slice is emitted again into a buffer of its own size. The slices here are 4 KiB,
    so the reused buffer is 1 MiB + 8 KiB; the exact readers' limit is set below the file's
    size, so a file handed to PyYAML would be refused instead."""
    monkeypatch.setattr(limits, "FAST_FROM", 0)  # the file gets the fast readers' limit
    monkeypatch.setattr(limits, "FAST_YAML_FROM", 0)
    monkeypatch.setattr(yaml_reader, "CHUNK", 4096)
    note = "x" * (3 << 19)  # 1.5 MiB
    big = _pod(1).replace("    namespace: ns\n", f"    namespace: ns\n    labels:\n"
                          f"      note: {note}\n", 1)
    text = "apiVersion: v1\nitems:\n" + _pod(0) + big + _pod(2) + "kind: List\n"
    assert len(text) > 2 * yaml_reader.CHUNK + (1 << 20)
    monkeypatch.setattr(limits, "MAX_INPUT_SIZE", 1 << 20)
    path = tmp_path / "big-item.yaml"
    path.write_text(text)
    docs = ingest.read_documents([str(path)])
    assert ["p0", "p1", "p2"] == [d.obj["metadata"]["name"] for d in docs]
    assert {"note": note} == docs[1].obj["metadata"]["labels"]


def test_rapidyaml_errors_are_not_printed(tmp_path: Path) -> None:
    """rapidyaml prints a parse error to the C stderr before raising; the CLI still shows one
    line (PyYAML's error, from the safe path). 1 MiB of comment puts the file on the fast path."""
    import subprocess

    path = tmp_path / "bad.yaml"
    path.write_text("# " + "x" * (1 << 20) + "\nkind: Pod\nmetadata: {name: [p}\n")
    proc = subprocess.run(
        [sys.executable, "-c", "from wapctl.cli import main; main()", "validate", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert 2 == proc.returncode
    assert 1 == len(proc.stderr.splitlines()), proc.stderr
    assert "invalid YAML" in proc.stderr


# ---- a big input PyYAML reads keeps what the fast path keeps ----------------------------------

_ANCHORED = (
    "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: anchors, namespace: x}\n"
    'data: {a: &v "1", b: *v}\n'
)


def _outcome(path: Path) -> tuple[str, Any]:
    try:
        return "built", ingest.build_snapshot(ingest.read_documents([str(path)]))
    except InputError as exc:
        return "refused", str(exc)


@pytest.mark.parametrize("path", YAML_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_big_input_pyyaml_reads_builds_what_a_small_one_builds(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each fixture with an anchor added (only PyYAML reads anchors): read as a small file,
    PyYAML's documents whole; read as a big one (the fast reader hands it over), each document
    kept as the fast path keeps one. The same snapshot (or the same error) either way."""
    text = path.read_bytes()
    copy = tmp_path / path.name
    copy.write_bytes(text + (b"" if text.endswith(b"\n") else b"\n") + _ANCHORED.encode())
    small = _outcome(copy)
    monkeypatch.setattr(limits, "FAST_YAML_FROM", 0)
    big = _outcome(copy)
    assert small == big
