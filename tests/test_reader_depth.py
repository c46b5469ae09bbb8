"""The JSON fast path's depth pre-scan (``json_reader.nested_within``): brackets inside strings do
not count, escapes are read as JSON reads them, and a document nested deeper than
``MAX_DEPTH`` outside strings is refused exactly as the safe path refuses it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wapctl import ingest
from wapctl.errors import InputError
from wapctl.ingest import json_reader

DEEP_IN_STRINGS = "[{" * 150 + '\\"' + "]}" * 150  # JSON text of a string's value


def _pod(spec: str, label: str = "x") -> str:
    return ('{"apiVersion": "v1", "kind": "Pod", '
            '"metadata": {"name": "p", "namespace": "n", "labels": {"a": "' + label + '"}}, '
            '"spec": ' + spec + "}")


def _nest(levels: int) -> str:
    """``levels`` nested lists inside the ``spec`` mapping (itself level 2)."""
    return '{"x": ' + "[" * levels + "]" * levels + "}"


@pytest.fixture
def fast(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each ``read_json`` call took the document (True) or handed it on (False)."""
    taken: list[bool] = []
    read_json = json_reader.read_json

    def spy(data: Any, depth: int, *check: Any) -> Any:
        out = read_json(data, depth, *check)
        taken.append(out is not None)
        return out

    monkeypatch.setattr(json_reader, "read_json", spy)
    return taken


def _read(tmp_path: Path, text: str) -> list[ingest.Document]:
    path = tmp_path / "doc.json"
    path.write_text(text, encoding="utf-8")
    return list(ingest.read_documents([str(path)]))


@pytest.mark.parametrize(
    "label",
    [DEEP_IN_STRINGS, "\\\\" + DEEP_IN_STRINGS, '\\"' * 3 + DEEP_IN_STRINGS + "\\\\"],
    ids=["brackets", "after an escaped backslash", "between escaped quotes"],
)
def test_brackets_in_strings_do_not_count(
    tmp_path: Path, fast: list[bool], label: str
) -> None:
    """Nesting up to the limit outside strings plus 300 brackets inside one: the fast path
    takes it and gives what the safe path gives."""
    text = _pod(_nest(ingest.MAX_DEPTH - 2), label)
    docs = _read(tmp_path, text)
    assert [True] == fast
    assert json.loads(text)["metadata"]["labels"] == docs[0].obj["metadata"]["labels"]


@pytest.mark.parametrize(
    "label",
    ["", "\\\\", "[[[", "\\\"]]]", "]]]]]]"],
    ids=["plain", "an escaped backslash last", "brackets", "escaped quote", "closers"],
)
def test_one_level_too_deep_outside_strings(
    tmp_path: Path, fast: list[bool], label: str
) -> None:
    """One level past the limit, whatever the strings before it hold (a string ending in an
    escaped backslash ends there): the safe path's error, naming the file and document."""
    with pytest.raises(InputError) as exc:
        _read(tmp_path, _pod(_nest(ingest.MAX_DEPTH - 1), label))
    assert [False] == fast
    assert f"nested deeper than {ingest.MAX_DEPTH} levels" == exc.value.reason
    assert str(tmp_path / "doc.json") in str(exc.value)
    assert "document 1" in str(exc.value)


@pytest.mark.parametrize("pad", [0, json_reader.SLICE // 2], ids=["small", "over 4 MiB"])
def test_a_list_item_one_level_too_deep_is_refused_at_any_size(
    tmp_path: Path, fast: list[bool], pad: int
) -> None:
    """A List whose last item nests one level past the limit (List 1, ``items`` 2, the item 3,
    its ``spec`` mapping 4, then ``MAX_DEPTH - 3`` lists: 5 to ``MAX_DEPTH`` + 1) is refused
    with the safe path's error whatever the file's size, and one level less is read: over
    ``SLICE`` (4 MiB; here the two items before it pad a label to 2 MiB each) the List is read
    in slices of items and the deep item stops that read; the file must then not be decoded
    whole unchecked, which took it without a word."""

    def text(levels: int) -> str:
        items = [_pod('{"containers": [{"name": "c"}]}', "x" * pad) for _ in range(2)]
        items.append(_pod(_nest(levels)))
        return '{"apiVersion": "v1", "kind": "List", "items": [' + ", ".join(items) + "]}"

    assert (len(text(0)) > json_reader.SLICE) == (pad > 0)
    assert 3 == len(_read(tmp_path, text(ingest.MAX_DEPTH - 4)))
    with pytest.raises(InputError) as exc:
        _read(tmp_path, text(ingest.MAX_DEPTH - 3))
    assert [True, False] == fast
    assert f"nested deeper than {ingest.MAX_DEPTH} levels" == exc.value.reason
    assert f"{tmp_path / 'doc.json'}, document 1: " in str(exc.value)


def _depth(x: Any) -> int:
    """The oracle: containers nested in the parsed value (a scalar 0, ``[]`` 1)."""
    if isinstance(x, dict):
        return 1 + max(map(_depth, x.values()), default=0)
    if isinstance(x, list):
        return 1 + max(map(_depth, x), default=0)
    return 0


_TEXT = st.text(st.sampled_from('[]{}"\\/ab:,\n\t\u00e9\u2028\U0001f600'), max_size=12)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=500, deadline=None)
@given(_JSON, st.integers(0, 8), st.sampled_from([None, 0, 2]), st.booleans())
def test_scan_agrees_with_json(value: Any, limit: int, indent: int | None, ascii: bool) -> None:
    """On any JSON text: within ``limit`` exactly when ``json.loads`` nests it that deep."""
    text = json.dumps(value, indent=indent, ensure_ascii=ascii).encode()
    assert (_depth(json.loads(text)) <= limit) == json_reader.nested_within(text, limit)
    assert json_reader.nested_within(memoryview(b" " + text)[1:], limit) == (
        _depth(value) <= limit
    )


_TOO_DEEP = ("[" * ingest.MAX_DEPTH + "]" * ingest.MAX_DEPTH).encode()  # levels 2 to MAX + 1
_DEPTH_REASON = f"nested deeper than {ingest.MAX_DEPTH} levels"


@pytest.mark.parametrize(
    ("members", "reason"),
    [
        (b'"items": null, "x": ' + _TOO_DEEP, _DEPTH_REASON),
        (b'"x": ' + _TOO_DEEP + b', "items": []', _DEPTH_REASON),
        (b'"\xff": 1, "x": ' + _TOO_DEEP, "not UTF-8 text (a binary file?)"),
    ],
    ids=["after items that is no array", "a member before items", "after a key not UTF-8"],
)
def test_a_long_document_the_slice_walk_gives_up_on_is_still_depth_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast: list[bool], members: bytes,
    reason: str
) -> None:
    """A JSON file longer than a slice (``SLICE`` lowered to 64 bytes) is walked member by
    member by the slice reader; where the walk stops (``items`` null, a member nested one level
    past the limit: the document is level 1, ``MAX_DEPTH`` lists 2 to ``MAX_DEPTH`` + 1, a key
    that is not UTF-8) the document is decoded whole only after the depth pass, so it is
    refused with the safe path's error, never taken unchecked."""
    monkeypatch.setattr(json_reader, "SLICE", 64)
    path = tmp_path / "doc.json"
    path.write_bytes(b'{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, '
                     + members + b"}")
    with pytest.raises(InputError) as exc:
        ingest.read_documents([str(path)])
    assert [False] == fast
    assert reason == exc.value.reason
