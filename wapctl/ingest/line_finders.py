"""Lines of objects read on the fast paths, found only when an error or a warning names one.

The fast readers keep no lines while reading (a 3.5 GB export would hold millions of them for
the few an error names). Instead each registers a finder for its file
(``wapctl.errors.register_line_finder``) that ``Source.located_line`` asks when a message names
the object: the file is read again, once, into an index of every object's line, so a file with
many warnings is read once more, not once per warning (a 64 MB stream with 118 warnings took
~500 s of CPU when each streamed the file again up to its object).

- JSON List items: the List walked in the file's map an item at a time, as the fast reader
  finds them (nothing built, pages handed back); a List whose items are not all objects: its
  items as raw text, each found after the one before it (``_json_item_lines``).
- A YAML List laid out as kubectl writes it: the entries' ``- `` starts between ``items:`` and
  the List's other keys, as a big one's slices are cut (``_list_item_lines``).
- A YAML stream's documents: the first line after each ``---`` that holds more than a comment
  (``_document_lines``).
- Anything else: where PyYAML puts it, from its C parser's events (nothing built), read only
  as far as the lines asked for so far (``_EventLines``).

``<stdin>`` cannot be read twice: its objects are named without a line.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Iterator
from typing import Any, cast

import msgspec
import yaml

from wapctl.errors import Source, register_line_finder
from wapctl.ingest import json_reader, limits

# ---- JSON ------------------------------------------------------------------------------------


class _RawItems(msgspec.Struct, gc=False):
    items: list[msgspec.Raw] = []


def _json_item_lines(path: str, size: int | None = None) -> list[int]:
    """The 1-based line where each item of the JSON List file at ``path`` starts. A List whose
    items are objects (every export) is walked in its map an item at a time, as the fast
    reader finds them, its pages handed back as it goes (``json_reader.item_lines``): a 3.5 GB
    export is indexed in little memory. Any other (items that are not objects, read by the
    safe path; at most the general input limit) is read again and split into raw items
    (nothing is built), each found after the previous one (up to the first not found, should
    the file have changed). No lines at all when its size is no longer ``size``, the size it
    was read at: another text's lines would be wrong ones."""
    with open(path, "rb") as fh:
        now = os.fstat(fh.fileno()).st_size
        if size is not None and now != size:
            return []  # the file changed since it was read
        if now:
            with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
                walked = json_reader.item_lines(mapped, limits.MAX_DEPTH)
            if walked is not None:
                return walked
        data = fh.read()
    raws = msgspec.json.decode(data, type=_RawItems).items
    lines: list[int] = []
    pos = counted = 0
    line = 1
    for raw in raws:
        text = bytes(raw)
        found = data.find(text, pos)
        if found < 0:
            break
        line += data.count(b"\n", counted, found)
        counted = found
        lines.append(line)
        pos = found + len(text)
    return lines


def register_json_lines(name: str, size: int | None = None) -> None:
    """Let errors about the items of the JSON List file ``name`` (``size`` bytes when read)
    name their line (not for ``<stdin>``). Nothing of the text is kept meanwhile; a file whose
    size changed since gives no lines rather than another text's."""
    if name.startswith("<"):
        return
    index: list[int] | None = None

    def finder(source: Source) -> int | None:
        nonlocal index
        if source.item is None:
            return None
        if index is None:
            index = _json_item_lines(name, size)
        return index[source.item] if source.item < len(index) else None

    register_line_finder(name, finder)


# ---- YAML ------------------------------------------------------------------------------------

_NODE_STARTS = (yaml.ScalarEvent, yaml.AliasEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent)


class _EventLines:
    """Where each document of a YAML file starts, and each item of its top-level ``items``
    sequence, where PyYAML puts them (a node's start mark): its C parser streams the file's
    events (nothing is built), read only as far as the lines asked for so far need, and kept
    (each later question resumes the same stream)."""

    def __init__(self, path: str) -> None:
        self._events = self._parse(path)
        # per document: [its node's line or None, its items' lines or None, whether it ended]
        self._docs: list[list[Any]] = []
        self._stack: list[list[Any]] = []  # open collections: [kind, children seen, last key]
        self._over = False

    @staticmethod
    def _parse(path: str) -> Iterator[yaml.Event]:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        with open(path, "rb") as fh:
            yield from yaml.parse(fh, Loader=loader)

    def line(self, document: int | None, item: int | None) -> int | None:
        """The line of document ``document`` (1-based; None: the first), or of its List item
        ``item``; None when the file has no such node."""
        target = document or 1
        while not self._known(target, item) and self._step():
            pass
        if target > len(self._docs):
            return None
        line, items, _ = self._docs[target - 1]
        if item is None:
            return cast("int | None", line)
        return items[item] if items is not None and 0 <= item < len(items) else None

    def _known(self, target: int, item: int | None) -> bool:
        if target > len(self._docs):
            return False
        line, items, ended = self._docs[target - 1]
        if ended:
            return True
        if item is None:
            return line is not None
        return items is not None and 0 <= item < len(items)

    def _step(self) -> bool:
        """Read one more event into the index; False at the end of the stream."""
        if self._over:
            return False
        event = next(self._events, None)
        if event is None:
            self._over = True
            return False
        kind = type(event)
        if kind is yaml.DocumentStartEvent:
            self._docs.append([None, None, False])
            self._stack = []
        elif kind is yaml.DocumentEndEvent:
            if self._docs:
                self._docs[-1][2] = True
        elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
            self._stack.pop()
        elif kind in _NODE_STARTS and self._docs:
            self._node(event, kind, self._docs[-1])
        return True

    def _node(self, event: yaml.Event, kind: type, doc: list[Any]) -> None:
        mark = event.start_mark
        assert mark is not None  # the parser marks every event it makes
        line = mark.line + 1
        stack = self._stack
        is_items = False
        if not stack:
            doc[0] = line
        else:
            parent = stack[-1]
            index = parent[1]
            parent[1] += 1
            if parent[0] == "items":
                doc[1].append(line)
            elif parent[0] == "map":
                if index % 2 == 0:
                    scalar = kind is yaml.ScalarEvent
                    parent[2] = cast(yaml.ScalarEvent, event).value if scalar else None
                elif len(stack) == 1 and parent[2] == "items" and doc[1] is None:
                    is_items = True
        if kind is yaml.MappingStartEvent:
            stack.append(["map", 0, None])
        elif kind is yaml.SequenceStartEvent:
            if is_items:
                doc[1] = []
            stack.append(["items" if is_items else "seq", 0, None])


def _document_lines(path: str, numbers: list[int]) -> list[int | None] | None:
    """The line of each document's node in the YAML stream at ``path`` (index: its number - 1,
    PyYAML's numbering: the text before the first ``---`` is a document when it holds more
    than comments), found in the text: the first thing after a document's ``---`` that is
    neither a blank nor a comment. None -- read the events -- for a text starting with a
    byte-order mark, or when a document in ``numbers`` (those read) is not found holding
    something. The fast reader read the file, so it holds no directive, no ``...`` line and
    no line break PyYAML counts but ``\n`` and CRLF (its pre-scan sends those to PyYAML)."""
    from wapctl.ingest.yaml_reader import document_start  # loaded already: it read the file

    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        if data[:3] == b"\xef\xbb\xbf":
            return None  # a byte-order mark: the reader skipped it, the text index does not
        first = document_start(data, 0)
        bounds = [(0, len(data) if first < 0 else first)]
        while first >= 0:
            after = document_start(data, first + 3)
            bounds.append((first + 3, len(data) if after < 0 else after))
            first = after
        lines: list[int | None] = []
        line, counted = 1, 0
        for start, end in bounds:
            at = _content(data, start, end)
            if at is not None:
                line += data[counted:at].count(b"\n")
                counted = at
            lines.append(None if at is None else line)
        if lines[0] is None:
            del lines[0]  # only comments before the first ``---``: no document
    if any(n > len(lines) or lines[n - 1] is None for n in numbers):
        return None
    return lines


def _content(data: Any, pos: int, end: int) -> int | None:
    """The first byte in ``data[pos:end]`` that is neither in a blank line nor in a comment."""
    while pos < end:
        newline = data.find(b"\n", pos, end)
        stop = end if newline < 0 else newline
        text = data[pos:stop]
        rest = text.lstrip(b" \t")
        if rest.rstrip(b"\r") and not rest.startswith(b"#"):  # a CRLF line's CR is no content
            return pos + len(text) - len(rest)
        if newline < 0:
            return None
        pos = newline + 1
    return None


def _list_item_lines(path: str, count: int) -> list[int] | None:
    """The line of each item of a YAML List laid out as kubectl writes it (``yaml_reader.
    list_layout``): the entry starts (``- `` at column 0) between ``items:`` and the List's
    other keys, provided there are exactly ``count`` of them (else a multi-line quoted scalar
    holds one: None)."""
    from wapctl.ingest.yaml_reader import list_layout  # loaded already: it read the file

    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        layout = list_layout(data, any_size=True)
        if layout is None:
            return None
        _, first, end = layout
        starts = [first]
        pos = first
        while len(starts) <= count:
            pos = data.find(b"\n- ", pos, end)
            if pos < 0:
                break
            pos += 1
            starts.append(pos)
        if len(starts) != count:
            return None
        lines: list[int] = []
        line, counted = 1, 0
        for start in starts:
            # where PyYAML marks the item: the first thing after its ``-`` that is neither a
            # blank nor a comment (on the ``-`` line, or a later one)
            at = _content(data, start + 1, end)
            if at is None:
                return None  # an entry holding nothing: the events say where
            line += data[counted:at].count(b"\n")  # a map has no count: an entry's copy
            counted = at
            lines.append(line)
        return lines


def register_yaml_lines(name: str, docs: list[tuple[int, Any]] | None = None) -> None:
    """Let errors about the documents and List items of the YAML file ``name``, read on the
    fast path (``docs``: what ``yaml_reader.read_yaml`` gave), name their line (not for
    ``<stdin>``). A big List's items are found in the text (the way it was sliced), anything
    else from PyYAML's events."""
    if name.startswith("<"):
        return
    count = None
    if docs is not None and len(docs) == 1 and type(docs[0][1].get("items")) is list:
        count = len(docs[0][1]["items"])
    numbers = [number for number, _ in docs or ()]
    items: list[int] | None = None
    listed = count is not None
    documents: list[int | None] | None = None
    texts = docs is not None
    events: _EventLines | None = None

    def finder(source: Source) -> int | None:
        nonlocal items, listed, documents, texts, events
        item, number = source.item, source.document or 1
        if listed and item is not None and number == 1:
            if items is None:
                items = _list_item_lines(name, cast(int, count))
                listed = items is not None
            if items is not None and 0 <= item < len(items):
                return items[item]
        if texts and item is None:
            if documents is None:
                documents = _document_lines(name, numbers)
                texts = documents is not None
            if documents is not None and number <= len(documents):
                found = documents[number - 1]
                if found is not None:
                    return found
        if events is None:
            events = _EventLines(name)
        return events.line(source.document, item)

    register_line_finder(name, finder)
