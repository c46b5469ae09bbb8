"""The line of a field in a manifest file: where CI annotations and SARIF results point.

A :class:`~wapctl.errors.Source` names a file, a document and a List item; a finding also names
a field path (``spec.template.spec.priorityClassName``, ``spec.replicatedJobs[0].template``).
:func:`line_of` re-reads the file (only files with findings, each once) with PyYAML's node
composer, which keeps start marks, and walks the path: the line of the deepest part of the path
that is present — the field's own line when it is written, else its closest written parent, else
the object's first line. Documents are numbered exactly as the loader numbers them (empty
documents count).

Files larger than ``MAX_LOCATE_SIZE`` are not re-read (a cluster snapshot, not a manifest); stdin
and cluster URLs cannot be; there the object's line comes from ``Source.line`` when the reader
recorded it (``Source.located_line``), else there is none. Never raises: a line is a convenience.
"""

from __future__ import annotations

import os
import re
from typing import Any

import yaml

from wapctl.errors import Source

MAX_LOCATE_SIZE = 16 * 1024 * 1024
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# steps: name, [index], or ["a.key/with.dots"] (a label key)
_STEP = re.compile(r'([^.\[\]"]+)|\[(\d+)\]|\["([^"]+)"\]')


class Locator:
    """Caches the composed documents of each file it is asked about."""

    def __init__(self) -> None:
        self._files: dict[str, list[Any] | None] = {}

    def _documents(self, path: str) -> list[Any] | None:
        if path not in self._files:
            self._files[path] = _compose(path)
        return self._files[path]

    def line_of(self, source: Source | None, field: str | None = None) -> int | None:
        """1-based line of ``field`` in the object at ``source`` (module docstring)."""
        if source is None:
            return None
        fallback = source.located_line()  # where the object starts, when the reader knows it
        if source.file.startswith("<") or "://" in source.file or source.document is None:
            return fallback
        docs = self._documents(source.file)
        if docs is None or not 0 < source.document <= len(docs):
            return fallback
        node = docs[source.document - 1]
        if node is None:
            return fallback
        if source.item is not None:
            items = _child(node, "items")
            if not isinstance(items, yaml.SequenceNode) or source.item >= len(items.value):
                return fallback
            node = items.value[source.item]
        line: int = node.start_mark.line + 1
        for name, index, quoted in _STEP.findall(field or ""):
            key = name or quoted
            if index:
                if not isinstance(node, yaml.SequenceNode) or int(index) >= len(node.value):
                    break
                node = node.value[int(index)]
                line = node.start_mark.line + 1
                continue
            found = _entry(node, key)
            if found is None:
                break
            key_node, node = found
            line = key_node.start_mark.line + 1
        return line


def _compose(path: str) -> list[Any] | None:
    try:
        if os.path.getsize(path) > MAX_LOCATE_SIZE:
            return None
        with open(path, encoding="utf-8-sig") as fh:
            return list(yaml.compose_all(fh.read(), Loader=_LOADER))
    except Exception:  # unreadable, or not YAML after all: no line, never an error
        return None


def _entry(node: Any, key: str) -> tuple[Any, Any] | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return k, v
    return None


def _child(node: Any, key: str) -> Any:
    found = _entry(node, key)
    return found[1] if found is not None else None
