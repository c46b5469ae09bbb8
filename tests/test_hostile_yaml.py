"""Hostile input (issue 8 §1): each is a clean InputError, quickly, in bounded memory."""

from __future__ import annotations

import json
import re
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from wapctl import ingest
from wapctl.errors import InputError
from wapctl.ingest import decode, duplicate_keys, limits

SECONDS = 5.0  # generous on a loaded 2-core machine; each case takes milliseconds
PEAK_BYTES = 64 * 2**20


@pytest.fixture
def measured() -> Iterator[Callable[[Callable[[], Any]], InputError]]:
    """Run a load that must fail; return its InputError after checking time and memory."""

    def run(action: Callable[[], Any]) -> InputError:
        tracemalloc.start()
        start = time.monotonic()
        try:
            with pytest.raises(InputError) as info:
                action()
        finally:
            elapsed = time.monotonic() - start
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
        assert elapsed < SECONDS
        assert peak < PEAK_BYTES
        return info.value

    yield run


def _file(tmp_path: Path, name: str, text: str | bytes) -> str:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return str(path)


def _load(path: str, **kwargs: Any) -> Any:
    return ingest.build_snapshot(ingest.read_documents([path], **kwargs))


BILLION_LAUGHS = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
kind: Pod
metadata: {name: bomb}
"""


def test_alias_bomb(tmp_path: Path, measured: Any) -> None:
    """A billion-laughs document is rejected by its alias count before it is composed."""
    err = measured(lambda: _load(_file(tmp_path, "bomb.yaml", BILLION_LAUGHS)))
    assert "YAML aliases exceed the limits" in err.reason
    assert "bomb.yaml, document 1" in str(err)


def test_aliases_inside_an_anchor_count_what_they_expand_to(
    tmp_path: Path, measured: Any
) -> None:
    """An anchor whose collection holds aliases stands for all they expand to: b is 10 uses of
    a (a list of 400: 401 nodes), 4,011 nodes; c's uses of b then add 4,011 each, and the 24th
    takes the document past MAX_ALIAS_EXPANSION (4,010 + 24 x 4,011 = 100,274 > 100,000) with
    only 34 aliases, far below MAX_ALIASES."""
    items = ", ".join(["x"] * 400)
    text = (f"kind: ConfigMap\nmetadata: {{name: c}}\na: &a [{items}]\n"
            f"b: &b [{', '.join(['*a'] * 10)}]\nc: [{', '.join(['*b'] * 30)}]\n")
    err = measured(lambda: _load(_file(tmp_path, "nested.yaml", text)))
    assert "YAML aliases exceed the limits" in err.reason
    assert (ingest.MAX_ALIASES, ingest.MAX_ALIAS_EXPANSION) == (100, 100_000)


def test_many_small_aliases(tmp_path: Path, measured: Any) -> None:
    """More than MAX_ALIASES alias uses in one document is refused even if each is tiny."""
    uses = ", ".join(["*a"] * (ingest.MAX_ALIASES + 1))
    text = f"kind: ConfigMap\nmetadata: {{name: c}}\nx: &a 1\ny: [{uses}]\n"
    err = measured(lambda: _load(_file(tmp_path, "many.yaml", text)))
    assert "YAML aliases exceed the limits" in err.reason


def test_recursive_alias(tmp_path: Path, measured: Any) -> None:
    """An alias inside its own anchor (a self-referencing structure) is refused."""
    text = "kind: ConfigMap\nmetadata: {name: c}\nx: &a [*a, *a]\n"
    err = measured(lambda: _load(_file(tmp_path, "loop.yaml", text)))
    assert "refers to no complete anchor" in err.reason


def test_alias_bomb_in_a_later_document_names_it(tmp_path: Path, measured: Any) -> None:
    """The document number of the bomb is reported."""
    text = "kind: Node\nmetadata: {name: a}\n---\n" + BILLION_LAUGHS
    err = measured(lambda: _load(_file(tmp_path, "bomb.yaml", text)))
    assert "document 2" in str(err)


def test_a_few_aliases_are_fine(tmp_path: Path) -> None:
    """Ordinary anchors and aliases (below the limit) load normally."""
    text = (
        "apiVersion: v1\nkind: List\nitems:\n"
        "- {apiVersion: v1, kind: Node, metadata: {name: a, labels: &l {zone: z1}},"
        " status: {allocatable: &r {cpu: '4', memory: 8Gi}}}\n"
        "- {apiVersion: v1, kind: Node, metadata: {name: b, labels: *l},"
        " status: {allocatable: *r}}\n"
    )
    snap = _load(_file(tmp_path, "ok.yaml", text))
    assert {"zone": "z1"} == dict(snap.nodes["b"].labels)


def test_star_in_text_is_not_an_alias(tmp_path: Path) -> None:
    """An asterisk inside a quoted value (a glob) is just text."""
    text = (
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n"
        "  annotations: {x: '&b ls *.txt', y: \"[ *a ]\"}\n"
    )
    assert ["a"] == list(_load(_file(tmp_path, "glob.yaml", text)).nodes)


DEEP = 10_000


@pytest.mark.parametrize(
    "text",
    [
        "[" * DEEP + "]" * DEEP,
        "{a: " * DEEP + "1" + "}" * DEEP,
        "- " * DEEP + "x\n",
        "kind: Pod\nmetadata: {name: p}\nspec: " + "[" * 150 + "]" * 150 + "\n",
    ],
    ids=["flow lists", "flow mappings", "block lists", "150 levels under libyaml's limit"],
)
def test_deep_yaml_nesting(tmp_path: Path, measured: Any, text: str) -> None:
    """Deeply nested YAML is refused with the depth limit, never a RecursionError or a crash."""
    err = measured(lambda: _load(_file(tmp_path, "deep.yaml", text)))
    assert f"nested deeper than {ingest.MAX_DEPTH} levels" == err.reason


@pytest.mark.parametrize("depth", [150, DEEP])
def test_deep_json_nesting(tmp_path: Path, measured: Any, depth: int) -> None:
    """Deeply nested JSON is refused the same way (the json module's RecursionError too)."""
    text = '{"kind": "Pod", "x": ' + "[" * depth + "]" * depth + "}"
    err = measured(lambda: _load(_file(tmp_path, "deep.json", text)))
    assert f"nested deeper than {ingest.MAX_DEPTH} levels" == err.reason
    assert "document 1" in str(err)


def test_deep_nesting_with_pure_python_loader(
    tmp_path: Path, measured: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without libyaml, the pure-Python loader's RecursionError becomes the same clean error.
    Both loaders the reader uses are swapped: the event pass (``decode.LOADER``) and the one
    that builds documents (``duplicate_keys.UniqueKeyLoader``, else libyaml's C parser would
    refuse the nesting first and the pure-Python path would go untested)."""
    used: list[str] = []

    class PurePython(yaml.SafeLoader):
        def __init__(self, stream: Any) -> None:
            used.append("pure")
            super().__init__(stream)

    monkeypatch.setattr(decode, "LOADER", yaml.SafeLoader)
    monkeypatch.setattr(duplicate_keys, "UniqueKeyLoader", PurePython)
    # (text starting with "[" would be read as JSON first, and refused there). 500 levels:
    # past what PyYAML's recursive composer takes under Python's recursion limit; its
    # pure-Python scanner takes time quadratic in the flow nesting, slowed ~15x more by this
    # test's tracemalloc (2,000 levels: 25 s here), which libyaml's scanner does not
    deep = 500
    err = measured(lambda: _load(_file(tmp_path, "deep.yaml", "a: " + "[" * deep + "]" * deep)))
    assert f"nested deeper than {ingest.MAX_DEPTH} levels" == err.reason
    assert used == ["pure"]


def test_exactly_the_depth_limit_is_fine(tmp_path: Path) -> None:
    """MAX_DEPTH levels are accepted; one more is not."""
    inner = ingest.MAX_DEPTH - 1  # the document mapping itself is level 1
    ok = {
        "kind": "ConfigMap",
        "metadata": {"name": "c"},
        "x": json.loads("[" * inner + "]" * inner),
    }
    snap = _load(_file(tmp_path, "ok.json", json.dumps(ok)))
    assert {"ConfigMap": 1} == dict(snap.ignored_kinds)
    ok["x"] = [ok["x"]]
    with pytest.raises(InputError):
        _load(_file(tmp_path, "too.json", json.dumps(ok)))


def test_exactly_the_depth_limit_is_fine_in_yaml(tmp_path: Path) -> None:
    """The same boundary in YAML, read by PyYAML (a file this small never tries the fast
    reader): the document mapping is level 1 and each ``[`` one more, so MAX_DEPTH - 1
    brackets make exactly MAX_DEPTH levels, accepted; MAX_DEPTH brackets make one too many."""
    def doc(brackets: int) -> str:
        return "kind: ConfigMap\nmetadata: {name: c}\nx: " + "[" * brackets + "]" * brackets + "\n"

    snap = _load(_file(tmp_path, "ok.yaml", doc(ingest.MAX_DEPTH - 1)))
    assert {"ConfigMap": 1} == dict(snap.ignored_kinds)
    with pytest.raises(InputError) as err:
        _load(_file(tmp_path, "too.yaml", doc(ingest.MAX_DEPTH)))
    assert f"nested deeper than {ingest.MAX_DEPTH} levels" == err.value.reason


@pytest.mark.parametrize(
    "tag",
    [
        "!!python/object/apply:os.mkdir",
        "!!python/object/new:os.mkdir",
        "!!python/name:os.mkdir",
        "!custom",
    ],
)
def test_python_tags_are_refused_not_constructed(tmp_path: Path, measured: Any, tag: str) -> None:
    """A tag that would construct a Python object is an error, and nothing runs."""
    target = tmp_path / "created-by-yaml"
    text = f"kind: Pod\nmetadata: {{name: p}}\nspec: {tag} [{str(target)!r}]\n"
    err = measured(lambda: _load(_file(tmp_path, "tag.yaml", text)))
    assert "is not allowed" in err.reason
    assert "tag.yaml, document 1" in str(err)
    assert not target.exists()


def test_huge_sparse_junk_file_is_refused_before_reading(tmp_path: Path, measured: Any) -> None:
    """A 1 GiB file (sparse, so cheap to make) is refused by its size, without reading it."""
    path = tmp_path / "junk.yaml"
    with open(path, "wb") as fh:
        fh.truncate(2**30)
    err = measured(lambda: _load(str(path)))
    assert "larger than the 256Mi limit" in err.reason
    assert "--max-input-size" in err.reason


def test_raised_limit_reads_a_file_over_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """max_input_size raises the limit: a file refused under a small default is accepted."""
    monkeypatch.setattr(limits, "MAX_INPUT_SIZE", 10)
    path = _file(tmp_path, "n.yaml", "kind: Node\nmetadata: {name: a}\n")
    with pytest.raises(InputError):
        _load(path)
    assert ["a"] == list(_load(path, max_input_size=ingest.parse_size("1Ki")).nodes)


def test_random_junk_bytes(tmp_path: Path, measured: Any) -> None:
    """Bytes that are not text at all are a clean error."""
    junk = bytes((i * 167 + 13) % 256 for i in range(100_000))
    err = measured(lambda: _load(_file(tmp_path, "junk.yaml", junk)))
    assert "binary" in err.reason or "UTF-8" in err.reason


def test_control_characters(tmp_path: Path, measured: Any) -> None:
    """Unprintable characters YAML forbids are a clean error naming the position."""
    err = measured(lambda: _load(_file(tmp_path, "ctl.yaml", "kind: Node\x07\n")))
    assert "invalid YAML" in err.reason


def test_very_long_scalar_is_fine(tmp_path: Path) -> None:
    """A multi-megabyte annotation value loads (long scalars are fine up to the size limit)."""
    big = "x" * (8 * 2**20)
    text = f"kind: Node\nmetadata:\n  name: a\n  annotations: {{big: {big}}}\n"
    start = time.monotonic()
    assert ["a"] == list(_load(_file(tmp_path, "long.yaml", text)).nodes)
    assert time.monotonic() - start < SECONDS


@pytest.mark.parametrize("name", ["big.yaml", "big.json"])
def test_huge_integer(tmp_path: Path, measured: Any, name: str) -> None:
    """An integer with thousands of digits is a clean error, not a ValueError traceback."""
    digits = "9" * 10_000
    text = f'{{"kind": "PriorityClass", "metadata": {{"name": "x"}}, "value": {digits}}}'
    err = measured(lambda: _load(_file(tmp_path, name, text)))
    assert "invalid" in err.reason


@pytest.mark.parametrize(
    "text",
    ["kind: Pod\nmetadata: {name: p}\nx: !!timestamp not-a-date\n", "1.5\n", "--- !!binary aGk=\n"],
    ids=["timestamp tag on junk", "float document", "binary document"],
)
def test_odd_yaml_values(tmp_path: Path, measured: Any, text: str) -> None:
    """Explicit tags PyYAML's constructors trip over, and scalar documents, are clean errors."""
    err = measured(lambda: _load(_file(tmp_path, "odd.yaml", text)))
    assert re.search(r"/odd\.yaml(:\d+)?, document 1: ", str(err)), str(err)
