"""errors.Source.line: the 1-based line where each object starts, and describe() as file:line."""

from __future__ import annotations

from pathlib import Path

import pytest

from wapctl import ingest
from wapctl.errors import InputError, Source

# Hand-numbered: line 1 a comment, document 1 (a Node) at line 2, "---" at line 5, document 2
# (a List) at line 6 whose items start at lines 9 and 12 ("- " opens each item's mapping).
YAML_TEXT = """\
# a comment
kind: Node
metadata: {name: a}
status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}
---
apiVersion: v1
kind: List
items:
- kind: Node
  metadata: {name: b}
  status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}
- kind: Node
  metadata: {name: c}
  status: {allocatable: {cpu: "-1", memory: 1Gi, pods: "10"}}
"""


def test_yaml_objects_carry_the_line_they_start_on(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(YAML_TEXT)
    docs = ingest.read_documents([str(path)])
    assert [2, 9, 12] == [d.source.line for d in docs]


def test_error_names_file_colon_line(tmp_path: Path) -> None:
    """The bad cpu is in the third object (second List item), which starts at line 12."""
    path = tmp_path / "s.yaml"
    path.write_text(YAML_TEXT)
    with pytest.raises(InputError) as info:
        ingest.build_snapshot(ingest.read_documents([str(path)]))
    expected = f"Node c ({path}:12, document 2, item 1, field status.allocatable.cpu): "
    assert str(info.value).startswith(expected)  # the object first (issue 15), then file:line


def test_line_is_not_part_of_equality() -> None:
    """The same object read with and without line knowledge is the same source."""
    assert Source("f.yaml", 2, 1, line=7) == Source("f.yaml", 2, 1)
    assert hash(Source("f.yaml", 2, 1, line=7)) == hash(Source("f.yaml", 2, 1))


@pytest.mark.parametrize(
    ("source", "text"),
    [
        (Source("f.yaml", 2, 1, line=7), "f.yaml:7, document 2, item 1, field spec"),
        (Source("f.yaml", 2), "f.yaml, document 2, field spec"),
    ],
)
def test_describe(source: Source, text: str) -> None:
    assert text == source.describe("spec")
    assert text.replace(":7", "") == source.describe("spec", line=False)
