"""The fast path of reading YAML: rapidyaml's C++ parser and JSON emitter, then the JSON fast
path (``wapctl.ingest.json_reader.read_json``), with exactly PyYAML's meaning or nothing.

wapctl reads YAML as PyYAML does (YAML 1.1, the ``SafeLoader`` resolvers): a plain ``yes``,
``On`` or ``True`` is a boolean, ``0755`` an octal integer, ``1_000`` and ``1:30`` integers,
``.5`` and ``1.`` floats, ``~`` and ``Null`` null, ``2025-01-01`` a date, ``1e3`` a string,
and ``<<`` a merge key. rapidyaml (YAML 1.2) parses about 15 times faster than PyYAML's C
loader builds Python objects and emits JSON in C++: a plain scalar that is a JSON number,
``true``, ``false`` or ``null`` is emitted bare, every other scalar quoted. So the two agree on
every scalar but the plain ones where YAML 1.1 and JSON differ, and on keys only when the key
reads as a string in YAML 1.1.

Before parsing, one pass of RE2 (a DFA: ~0.5 s for a 316 MB export) looks for anything the
two could read differently:

- a plain scalar, as a value or a list entry, that YAML 1.1 reads as a boolean, null, number
  or date where JSON does not, or the other way round (``yes``, ``Off``, ``True``, ``~``,
  ``0755``, ``0x1F``, ``+5``, ``-08``, ``1_000``, ``1:30``, ``.5``, ``1.``, ``.inf``, ``1e3``,
  ``2025-01-01...``, ``=``, ``<<``); digits with a leading zero and an 8 or a 9
  (``0734851389``) are no octal number, so YAML 1.1 reads a string, and the emitter quotes
  them (JSON has no leading zeros): not counted;
- a plain key that YAML 1.1 reads as anything but a string (``1:``, ``true:``, ``on:``,
  ``~:``, a date, with a time too), an empty or complex (``?``) key;
- tags, anchors and aliases (``!``, ``&``, ``*`` starting a token), directives (``%``);
- ``nan``, ``inf`` and ``infinity`` as a word anywhere (the emitter rewrites ``nan``,
  ``.NaN``, ``-inf``, ``infinity``... as ``.nan`` / ``-.inf``, keys even when quoted);
- in a flow collection, a comment it goes on after (rapidyaml keeps ``b #c`` as the value of
  ``{a: b #c`` then ``, d: e}``) or one holding a closer, and a value starting ``:`` or ``?``
  (``{a: :x}``: libyaml refuses both, rapidyaml reads them);
- tabs, control characters, non-BMP escapes (``\\U``, surrogate ``\\uD800``), NEL/LS/PS line
  breaks and byte-order marks inside the text, where the two parsers' rules differ.

When all it finds are plain scalar values (the first item), the input stays on the fast path:
after parsing, each plain value is resolved as PyYAML's ``Resolver`` and ``SafeConstructor``
read it (``_resolve_plain``) and set in rapidyaml's tree in JSON's spelling -- a string quoted,
``yes`` as ``true``, ``0755`` as ``493``, ``~`` as ``null`` -- before the emit (~15 ms CPU per
MiB of List items holding such values, against ~140 ms for PyYAML reading them: the real-2k
YAML benchmark, benchmarks/README.md). A value JSON has no text for (a date, infinity, ``=``,
``<<``) and everything else the scan finds (``needs_pyyaml``) send the input to the safe path
(PyYAML, ``wapctl.ingest``), which gives today's exact answer or error -- except a big List
read in slices (below), whose pieces needing PyYAML alone go to it.

The scan is conservative: it looks at tokens after every ``: ``, ``- ``, ``, ``, ``[``,
``{`` and line start, including inside quoted strings and comments, so a false alarm only costs
time. kubectl (Go's yaml) quotes every ambiguous scalar, and PyYAML's dumper leaves plain only
scalars YAML 1.1 reads as strings, which the fast path resolves: real exports take it. The
emitter writes a duplicate key twice; msgspec keeps the last, so an input of at most
``duplicate_keys.FAST_CHECK_MAX`` bytes is checked for one and, if it has one, PyYAML reads it
and reports it (``wapctl.ingest.duplicate_keys``).

Whatever rapidyaml refuses (a syntax error), whatever its emitter refuses (nesting deeper than
64 levels: anything up to ``MAX_DEPTH`` then takes the safe path, which measures it exactly) and
whatever the JSON fast path refuses (not an object, a field of the wrong shape, deep nesting)
takes the safe path too, so the hostile-input guarantees are PyYAML's: no tags constructed, the
alias limits (aliases never take this path), ``MAX_DEPTH``. rapidyaml's parser is iterative and
its emitter stops at 64 levels, so a deep document cannot exhaust the C stack.

A big List laid out as kubectl writes it (``items:`` at the top level, each entry a ``- `` at
column 0) is read in 16 MiB slices of its entries, each parsed into one reused tree, emitted as
``{"items": [...]}`` and decoded before the next: memory stays near the objects kept (the
316 MB 2k export: 0.95 GB peak instead of 2.5 GB for the whole tree and its JSON). A slice
boundary inside a multi-line quoted scalar makes that slice fail to parse: the safe path then.

In such a List, each slice the pre-scan finds risky is parsed in rapidyaml's arena (not in
place, so it can be read again as written) with its plain values resolved; when that cannot be
(the slice holds a tag, a risky key, ``inf`` as a word, or a value JSON has no text for) it is
cut into runs of its entries, at most ``EXACT_PIECE`` (1 MiB) each: the risky runs resolved in
the same way or read by PyYAML with wapctl's loader (duplicate keys refused, scalars as YAML
1.1 reads them), each item kept as the JSON fast path keeps one (``json_reader.kept``), the
others fast. The whole input still goes to the safe path when it has an anchor or an alias
(only that path bounds their expansion), when the List's top-level keys are risky, and when a
piece fails in PyYAML or holds a value JSON has no type for (an unquoted date, bytes, a
non-string key): that path then gives the exact answer or error.

Documents start where PyYAML's would (``read_yaml`` keeps PyYAML's numbering, empty documents
included). Lines are not kept while reading: ``wapctl.ingest.line_finders`` lets an error name
the line of a document or List item, found on demand from the file (``Source.located_line``).
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import itertools
import logging
import math
import mmap
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, cast

import msgspec
import re2
import ryml
import yaml

from wapctl.ingest import duplicate_keys, json_reader

log = logging.getLogger(__name__)

# ---- the pre-scan ------------------------------------------------------------------------------

# what may end a plain token: a line break, a flow indicator, a comment, a ": " or the end
_END = rb"[ \t]*(?:[\r\n,\]}#]|:[ \t\r\n]|:\z|\z)"
# YAML 1.1 booleans and nulls that JSON would read as strings (lowercase true/false/null agree)
_WORDS = rb"yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|True|TRUE|False|FALSE|Null|NULL|~|<<|="
# PyYAML's int and float resolvers (yaml/resolver.py), a JSON number and a date
_PY_INT = (
    rb"[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+"
    rb"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+"
)
_PY_FLOAT = (
    rb"[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
    rb"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
)
_JSON_NUMBER = rb"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
_DATE = rb"[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?"
# Numbers where YAML 1.1 and the emitter + JSON differ. Both read -?(0|[1-9][0-9]*) as that int
# and -?(0|[1-9][0-9]*).[0-9]+ with an optional signed exponent as that float; every other
# numeric-looking plain scalar is listed here (RE2 has no lookahead, so "not the agreed form"
# is spelled out; a few agreed ones are caught too, which only costs the safe path).
_NUMBERS = (
    rb"\+[0-9.]"  # a sign JSON does not have
    rb"|[-+]?0b[01_]+" + _END  # binary
    + rb"|[-+]?0x[0-9a-fA-F_]+" + _END  # hexadecimal
    + rb"|0[0-7_]+" + _END  # octal (0734851389, with an 8, is a string in both)
    + rb"|[-+]0[0-9_]+" + _END  # a sign and a leading zero: octal, or -08 (emitted bare)
    + rb"|[-+]?0[0-9_]+\.[0-9_]*(?:[eE][-+]?[0-9]+)?" + _END  # a float with a leading zero
    + rb"|[-+]?[0-9.][0-9_.:]*_[0-9_.:]*(?:[eE][-+]?[0-9_]+)?" + _END  # digit separators
    + rb"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?" + _END  # base 60
    + rb"|[-+]?\.[0-9][0-9_]*(?:[eE][-+]?[0-9]+)?" + _END  # no digit before the point
    + rb"|[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)" + _END  # infinity, not-a-number
    + rb"|[-+]?[0-9][0-9_]*\.(?:[eE][-+]?[0-9]+)?" + _END  # no digit after the point
    + rb"|[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+" + _END  # an exponent without a point (1e3)
    + rb"|[-+]?[0-9][0-9_]*\.[0-9_]*[eE][0-9]+" + _END  # an exponent without a sign
)
# what no plain scalar's resolution can mend: an anchor, alias or tag, reserved indicators
# PyYAML refuses, a complex or empty key
_SPECIAL = rb"[?:](?:[ \t\r\n,\]}]|\z)|[&*!%@`]"
_VALUE = rb"(?:" + _WORDS + rb")" + _END + rb"|" + _DATE + rb"|" + _NUMBERS + rb"|" + _SPECIAL
# a date with a time, as PyYAML's timestamp resolver reads one
_TIME = (
    rb"(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?"
    rb"(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?"
)
# a plain key YAML 1.1 reads as anything but a string (JSON's keys are strings)
_KEY = (
    rb"(?:" + _WORDS + rb"|true|false|null|" + _PY_INT + rb"|" + _PY_FLOAT + rb"|"
    + _JSON_NUMBER + rb"|" + _DATE + rb"(?:" + _TIME + rb")?)[ \t]*:(?:[ \t\r\n]|\z)"
)
# where a plain token may start: the start, a line, a flow collection or entry, after ": ",
# "- ", "? ", and after a quoted JSON-like key ("a":1)
_START = rb"(?:\A|[\n\r\[{,]|[:?-][ \t]|[\x22\x27]:)[ \t]*"
_ANYWHERE = (
    rb"\t"
    rb"|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]"  # control characters (PyYAML refuses them)
    rb"|\xc2[\x80-\x9f]"  # C1 controls and NEL, a line break in YAML 1.1
    rb"|\xe2\x80[\xa8\xa9]"  # LS, PS: line breaks in YAML 1.1
    # a carriage return alone, also a line break in YAML 1.1: rapidyaml reads it as part of a
    # comment (and the key after it too) or of a quoted value (PyYAML folds it to a space)
    rb"|(?:\A|[^\r])\r(?:[^\n]|\z)"
    rb"|\xef\xbb\xbf|\xef\xbf[\xbe\xbf]"  # a byte-order mark inside, non-characters
    rb"|\\U|\\u[dD][89a-fA-F]"  # escapes of characters outside the BMP, surrogates
    rb"|(?:\A|[\n\r])%"  # a directive
    # a document end marker: PyYAML refuses one with no document before it and a document
    # after it without "---"; rapidyaml reads both
    rb"|(?:\A|[\n\r])\.\.\.(?:[ \t\r\n]|\z)"
    rb"|[:?][,\]}]"  # an empty value in a flow collection: libyaml refuses "[a:]", "{a:,"
    rb"|[\[{,][ \t]*[|>:?]"  # a block scalar or a ':' / '?' first in a flow collection
    rb"|:[ \t]+[:?][^ \t\r\n]"  # a value starting ':x' or '?x': libyaml refuses it in a flow
    # a comment where rapidyaml's flow parser differs: one holding a flow closer ("{a: x #}"
    # parses), or one the collection goes on after ("{a: b #c\n , d: e}" reads "b #c")
    rb"|[ \t]#[^\r\n]*[\]}]|[ \t]#[^\r\n]*[\r\n]+[ \t]*[,\]}]"
    # the emitter rewrites nan, inf, infinity, -inf, .NaN, .Inf... as .nan / .inf (keys even
    # when quoted)
    rb"|(?:\A|[^A-Za-z0-9_])[-+.]?(?:[nN][aA][nN]|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?)"
    rb"(?:[^A-Za-z0-9_]|\z)"
)
_RISKY_PATTERN = _START + rb"(?:" + _VALUE + rb"|" + _KEY + rb")|" + _ANYWHERE


def _compile(pattern: bytes) -> Any:
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1  # bytes, not UTF-8 characters
    options.max_mem = 64 << 20  # the DFA's cache
    return re2.compile(pattern, options)


_RISKY = _compile(_RISKY_PATTERN)
# what only PyYAML reads as YAML 1.1 does: the pre-scan's finds but the plain scalar values,
# which ``_resolve_plain`` sets in rapidyaml's tree as YAML 1.1 reads them
_NEEDS_PYYAML = _compile(_START + rb"(?:" + _SPECIAL + rb"|" + _KEY + rb")|" + _ANYWHERE)
# an anchor or an alias: only the safe path, reading the whole input, counts how far aliases
# expand (alias bombs), so an input with one never has its List read piece by piece
_ALIASES = _compile(_START + rb"[&*]")


_LEAD = re.compile(rb"^(?:[\n\r\[{,]|[:?-][ \t]|[\x22\x27]:)?[ \t]*")


def risky(data: Any) -> str | None:
    """Why ``data`` (YAML bytes) may read differently in YAML 1.1 and through the emitter, or
    None: nothing in it may."""
    return _why(_RISKY, data)


def needs_pyyaml(data: Any) -> str | None:
    """Why only PyYAML can read ``data`` as YAML 1.1 does, or None: whatever the pre-scan finds
    in it is a plain scalar value, which the fast path resolves (``_resolve_plain``)."""
    return _why(_NEEDS_PYYAML, data)


def _why(pattern: Any, data: Any) -> str | None:
    m = pattern.search(data)
    if m is None:
        return None
    start, end = m.start(), m.end()
    line = bytes(data[:start]).count(b"\n") + 1
    token = _LEAD.sub(b"", bytes(data[start:end])).rstrip(b" \t\r\n,]}#")
    token = token[:-1].rstrip() if token.endswith(b":") and len(token) > 1 else token
    shown = token[:40].decode("utf-8", "replace")
    return f"{shown!r} on line {line} may read differently in YAML 1.1"


# ---- parsing -----------------------------------------------------------------------------------


@contextlib.contextmanager
def _stderr_silenced() -> Iterator[None]:
    """rapidyaml prints its parse errors to the C stderr before raising: we take the safe path
    then, which reports the error as one line, so its message is not shown."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 2)
        finally:
            os.close(null)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _tree(data: Any) -> Any:
    tree = ryml.Tree()
    # a block-style export has about one node per line; reserving them up front is ~4x faster
    # than letting the tree grow (a short estimate only means one growth)
    tree.reserve(_node_estimate(data))
    if json_reader.writable_map(data):
        ryml.parse_in_place(data, tree)  # a private copy-on-write map: the file is not touched
    else:
        ryml.parse_in_arena(data, tree)
    return tree


def _slice_tree(sample: Any) -> Any:
    """A tree to parse slices of about ``CHUNK`` bytes into, one after another (``_reparse``),
    its nodes reserved for ``sample``, the first slice's text."""
    tree = ryml.Tree()
    tree.reserve(_node_estimate(sample))
    return tree


def _slice_buffer() -> mmap.mmap:
    """An anonymous map for the JSON of one slice (a larger one gets a map of its own)."""
    return mmap.mmap(-1, 2 * CHUNK + (1 << 20))


def _reparse(tree: Any, piece: Any, in_place: bool) -> None:
    """Parse ``piece`` into ``tree``, reused: what it held before is dropped, its capacity kept;
    ``in_place``: in ``piece`` itself (a private copy-on-write map), else in the tree's arena."""
    tree.clear()
    tree.clear_arena()
    if in_place:
        ryml.parse_in_place(piece, tree)
    else:
        ryml.parse_in_arena(piece, tree)


def _node_estimate(data: Any) -> int:
    """About 1.1 nodes per line (a block-style export has a little over one), the lines counted
    in 32 samples spread over the text (a map has no ``count``): reserving the tree's nodes up
    front is ~4x faster than letting it double, and a short estimate costs one doubling."""
    size = len(data)
    step = 128 << 10
    if size <= 32 * step:
        return int(bytes(data).count(b"\n") * 1.1) + 64
    stride = size // 32
    newlines = sum(bytes(data[i : i + step]).count(b"\n") for i in range(0, 32 * stride, stride))
    return int(newlines * size / (32 * step) * 1.1) + 64


def _emit(tree: Any, node: int, size_hint: int) -> memoryview:
    """The JSON text of ``node``, in an anonymous map that only takes the pages written."""
    buf = mmap.mmap(-1, max(size_hint, 4096))
    failed, size = ryml.emit_json_to_substr(tree, node, buf)
    if failed:
        buf.close()
        buf = mmap.mmap(-1, size + 1)
        failed, size = ryml.emit_json_to_substr(tree, node, buf)
    return memoryview(buf)[:size]


class _Refused(Exception):
    """The fast path cannot be sure: the message says why."""


def read_yaml(data: Any, max_depth: int) -> tuple[list[tuple[int, Any]] | None, str]:
    """The YAML documents in ``data`` (bytes, or a map of them) as ``(number, object)`` pairs
    (PyYAML's numbering; empty documents are left out) or ``(None, reason)``: take the safe
    path."""
    reason = risky(data)
    pyyaml = None if reason is None else needs_pyyaml(data)
    layout = list_layout(data)
    if pyyaml is not None and (layout is None or _ALIASES.search(data) is not None):
        return _fallback(pyyaml)
    try:
        with _stderr_silenced():
            if layout is not None:  # a risky List: its risky slices resolved or read by PyYAML
                exact = reason is not None
                return [(1, _read_list(data, layout, max_depth, exact, pyyaml is not None))], ""
            return _read_stream(data, max_depth, reason is not None), ""
    except (_Refused, _Unresolved) as exc:
        return _fallback(str(exc))
    except Exception as exc:  # ryml's ExceptionParse / ExceptionVisit (nesting over 64)
        if type(exc).__name__ == "ExceptionVisit":
            return _fallback("nested deeper than the fast reader goes (64 levels)")
        return _fallback(f"rapidyaml could not parse it ({type(exc).__name__})")


def _read_stream(data: Any, max_depth: int, resolve: bool) -> list[tuple[int, Any]]:
    """Every document of ``data``; a long stream (from ``2 * CHUNK`` bytes) a slice of whole
    documents at a time, each about ``CHUNK`` bytes and cut where a line starts a document
    (``---``), into one tree and one buffer reused: rapidyaml's tree, some 13 times the text it
    holds, then holds one slice, and a mapped file's pages are handed back as they are read.
    Whole with a directive (a ``%`` line belongs to the document after it)."""
    if len(data) < 2 * CHUNK or data[:1] == b"%" or data.find(b"\n%") >= 0:
        return _read_documents(data, max_depth, resolve)
    check = len(data) <= duplicate_keys.FAST_CHECK_MAX
    docs: list[tuple[int, Any]] = []
    start = count = released = 0
    arena = _slice_buffer()
    try:
        with memoryview(data) as view:
            tree = _slice_tree(view[:CHUNK])
            while start < len(data):
                stop = _documents_end(data, start, CHUNK)
                _reparse(tree, view[start:stop], False)
                texts = _emit_documents(tree, resolve, arena)
                docs.extend(_decode_documents(texts, arena, max_depth, check, count))
                count += len(texts)
                start = stop
                released = json_reader.release(data, released, start)
    finally:
        arena.close()
    return docs


def _documents_end(data: Any, start: int, size: int) -> int:
    """Where the slice of whole documents from ``start`` ends: at the first line from ``size``
    bytes on that starts a document, and after the first such line from ``start`` (the text
    before a stream's first ``---`` is read with the document it opens, as a whole read does);
    or at the end."""
    first = document_start(data, start)
    if first < 0:
        return len(data)
    cut = document_start(data, max(start + size, first + 1))
    return len(data) if cut < 0 else cut


def document_start(data: Any, pos: int, marker: bytes = b"---") -> int:
    """The first line from ``pos`` on (``pos`` itself when a line starts there) that starts a
    document, ``---`` then a blank, a line break or the end of the text (with ``marker`` ``...``:
    that ends one); -1 if none."""
    at = pos
    wanted = b"\n" + marker
    if pos > 0:
        found = data.find(wanted, pos - 1)
        at = -1 if found < 0 else found + 1
    while at >= 0:
        if data[at : at + 3] == marker and data[at + 3 : at + 4] in _AFTER_MARKER:
            return at
        found = data.find(wanted, at + 1)
        at = -1 if found < 0 else found + 1
    return -1


_AFTER_MARKER = (b"", b" ", b"\t", b"\r", b"\n")


def _read_documents(data: Any, max_depth: int, resolve: bool = False) -> list[tuple[int, Any]]:
    """Every document, each parsed and emitted whole; with ``resolve``, its plain scalars set
    as YAML 1.1 reads them (``_resolve_plain``). The tree is let go before any is decoded."""
    check = len(data) <= duplicate_keys.FAST_CHECK_MAX
    tree = _tree(data)
    arena = mmap.mmap(-1, len(data) * 2 + 4096)
    try:
        texts = _emit_documents(tree, resolve, arena)
        del tree
        return _decode_documents(texts, arena, max_depth, check, 0)
    finally:
        arena.close()


def _emit_documents(tree: Any, resolve: bool, arena: mmap.mmap) -> list[memoryview | None]:
    """The JSON text of each document in ``tree`` (None for an empty one); with ``resolve``,
    its plain scalars first set as YAML 1.1 reads them (``_resolve_plain``). The texts are
    written one after another in ``arena``, an anonymous map that only takes the pages written;
    a document past its end gets a map of its own."""
    if resolve:
        _resolve_plain(tree)
    root = tree.root_id()
    nodes = list(ryml.children(tree, root)) if tree.is_stream(root) else [root]
    texts: list[memoryview | None] = []
    try:
        with memoryview(arena) as view:
            at = 0
            for node in nodes:
                if tree.is_val(node) and tree.val_is_null(node):
                    texts.append(None)  # an empty document
                    continue
                with view[at:] as rest:  # released even when rapidyaml raises
                    failed, size = ryml.emit_json_to_substr(tree, node, rest)
                if failed:
                    texts.append(_emit(tree, node, size + 1))
                else:
                    texts.append(view[at : at + size])
                    at += size
    except BaseException:  # rapidyaml refused a later document: let the earlier texts go, so
        _let_all_go(texts, arena)  # the arena can be closed and its error is the one reported
        raise
    return texts


def _decode_documents(
    texts: list[memoryview | None], arena: mmap.mmap, max_depth: int, check: bool, before: int
) -> list[tuple[int, Any]]:
    """Each document's JSON text decoded and let go, numbered as PyYAML numbers documents
    (from ``before + 1``, empty ones counted)."""
    docs: list[tuple[int, Any]] = []
    try:
        for index, text in enumerate(texts):
            if text is None:
                continue
            number = before + index + 1
            if check:
                _unique_keys(text, number)
            obj = json_reader.read_json(text, max_depth)
            texts[index] = None
            _let_go(text, arena)
            if obj is None:
                raise _Refused(f"document {number} is not what the JSON fast path reads")
            docs.append((number, obj))
    finally:
        _let_all_go(texts, arena)  # what an error left undecoded
    return docs


def _let_all_go(texts: list[memoryview | None], arena: mmap.mmap) -> None:
    for text in texts:
        if text is not None:
            _let_go(text, arena)


def _let_go(text: memoryview, arena: mmap.mmap) -> None:
    """Release ``text``; close its map when it is one of its own (not ``arena``)."""
    buf = text.obj
    text.release()
    if buf is not arena:
        cast(mmap.mmap, buf).close()


# ---- plain scalars as YAML 1.1 reads them, set in rapidyaml's tree -----------------------------

_STR = "tag:yaml.org,2002:str"
# the JSON text of a value PyYAML constructs, None when JSON has none
_JSON_TEXT: dict[str, Callable[[Any], bytes | None]] = {
    "tag:yaml.org,2002:bool": lambda v: b"true" if v else b"false",
    "tag:yaml.org,2002:null": lambda v: b"null",
    "tag:yaml.org,2002:int": lambda v: str(v).encode(),
    "tag:yaml.org,2002:float": lambda v: repr(v).encode() if math.isfinite(v) else None,
}


class _Unresolved(Exception):
    """A plain scalar YAML 1.1 reads as something JSON has no text for (a date, infinity, a
    merge or value key, an integer too long to write): PyYAML reads it."""


@functools.lru_cache(maxsize=4096)
def _yaml11(text: bytes) -> bytes | None:
    """How the emitter must write the plain scalar ``text`` for JSON to read what YAML 1.1
    reads (PyYAML's ``Resolver`` and ``SafeConstructor``): None for a string (write it quoted),
    else the JSON text of the boolean, null, integer or float."""
    value = text.decode("utf-8")
    tag = _RESOLVER.resolve(yaml.ScalarNode, value, (True, False))
    if tag == _STR:
        return None
    write = _JSON_TEXT.get(tag)
    json_text = None
    if write is not None:
        with contextlib.suppress(ValueError):  # an integer over Python's digit limit
            node = yaml.ScalarNode(tag, value)
            json_text = write(_CONSTRUCTOR.yaml_constructors[tag](_CONSTRUCTOR, node))
    if json_text is None:
        kind = tag.rsplit(":", 1)[-1]
        raise _Unresolved(f"{value[:40]!r} is a {kind} in YAML 1.1, which JSON has no text for")
    return json_text


def _resolve_plain(tree: Any, nodes: Iterable[int] | None = None) -> None:
    """Set each plain scalar value in ``tree`` (or among ``nodes``) to what YAML 1.1 reads, for
    the JSON emitter: a string quoted, a boolean, null or number in JSON's spelling. The
    pre-scan has sent whatever else the two read differently to PyYAML (``_NEEDS_PYYAML``),
    and a scalar whose first character starts none of YAML 1.1's implicit types is a string to
    both."""
    starts = _RESOLVER.yaml_implicit_resolvers
    is_plain, val = tree.is_val_plain, tree.val
    # a tree only parsed into: its nodes are 0 .. size-1, numbered in the text's order
    for node in range(tree.size()) if nodes is None else nodes:
        if not is_plain(node):
            continue
        value = val(node)  # None for an empty value ("a:"): the emitter writes null, as PyYAML
        if value is None:
            continue
        text = bytes(value)
        if not text or chr(text[0]) not in starts:
            continue
        json_text = _yaml11(text)
        if json_text is None:
            tree.set_val_style(node, ryml.VAL_DQUO)
        elif json_text != text:
            # rapidyaml 0.15's Python API sets a value only through Tree._set_val (the
            # dependency is pinned below 0.16; the quirk tests fail if it changes)
            tree._set_val(node, tree.to_arena(json_text))


# PyYAML's own (untyped): the resolver and constructor its SafeLoader and CSafeLoader use
_RESOLVER: Any = yaml.resolver.Resolver()
_CONSTRUCTOR: Any = yaml.constructor.SafeConstructor()


# ---- a big List, read in slices of its items ---------------------------------------------------

CHUNK = 16 << 20  # bytes of List items parsed at a time: the tree stays ~100 MB, reused
_ITEMS_KEY = b"\nitems:\n- "
_TOP_LEVEL_LINE = re2.compile(rb"\n[^ \t\r\n#]")


def list_layout(data: Any, any_size: bool = False) -> tuple[int, int, int] | None:
    """Where a big List's items are, when the text is laid out as kubectl writes it: one
    document, a top-level ``items:`` key (once) followed by an indentless sequence whose entries
    start with ``- `` at column 0, then other top-level keys. Returns (start of the ``items:``
    line, start of its first entry, end of its last entry), or None: read the document whole.

    Only a line starting with ``- `` ends an entry, so a slice boundary can only fall inside a
    scalar that runs over several lines when that scalar is quoted (block and plain scalars end
    at a less indented line): then that slice does not parse and the safe path reads the file.
    Below ``2 * CHUNK`` a List is read whole (None) unless ``any_size`` (the items' lines).
    """
    if len(data) < 2 * CHUNK and not any_size:
        return None
    if data[: len(_ITEMS_KEY) - 1] == _ITEMS_KEY[1:]:
        key = -1  # items: on the first line
    else:
        key = data.find(_ITEMS_KEY)
        if key < 0:
            return None
    if data.find(_ITEMS_KEY, key + 1) >= 0:
        return None
    first = key + len(b"\nitems:\n")
    last = data.rfind(b"\n- ")
    # the top-level keys after the items: the first line at column 0 after the last entry
    # that is not a comment or a blank line
    m = _TOP_LEVEL_LINE.search(data, last + 1)
    end = len(data) if m is None else m.start() + 1
    for marker in (b"---", b"..."):  # a document starts or ends among the items: read whole
        if 0 <= document_start(data, first, marker) < end:
            return None
    return key + 1, first, end


def _read_list(
    data: Any, layout: tuple[int, int, int], max_depth: int, exact: bool, pyyaml: bool
) -> Any:
    """The List's items a slice at a time; with ``exact`` (the pre-scan found something YAML
    1.1 may read differently), each slice the pre-scan finds risky is read by ``_risky_items``:
    its plain values resolved, or in runs of items, those needing it read by PyYAML (only
    looked for with ``pyyaml``: something in ``data`` needs it)."""
    key, first, end = layout
    view = memoryview(data)
    # the List without its items: the lines before ``items:`` and after the last entry
    head = bytes(view[:key]) + bytes(view[end:])
    if exact and needs_pyyaml(head) is not None:
        raise _Refused("the List's top-level keys may read differently in YAML 1.1")
    docs = _read_documents(head, max_depth, exact)
    if len(docs) != 1 or docs[0][0] != 1 or "items" in docs[0][1]:
        raise _Refused("the List's top level is not a single mapping with one items list")
    out = docs[0][1]
    items: list[Any] = []
    check = len(data) <= duplicate_keys.FAST_CHECK_MAX
    in_place = json_reader.writable_map(data)
    tree = _slice_tree(view[first : first + CHUNK])
    buf = _slice_buffer()
    try:
        start = first
        while start < end:
            stop = _slice_end(data, start, end, CHUNK)
            piece = view[start:stop]
            if exact and risky(piece) is not None:
                items.extend(_risky_items(tree, data, (start, stop), buf, max_depth, pyyaml))
            else:
                items.extend(_fast_items(tree, piece, in_place, buf, max_depth, check))
            start = stop
    finally:
        buf.close()
        view.release()
    out["items"] = items
    return out


EXACT_PIECE = 1 << 20  # bytes of List items PyYAML reads at a time: ~40 MB of its nodes


def _slice_end(data: Any, start: int, end: int, size: int) -> int:
    """Where the slice of List items from ``start`` ends: at the first entry (``- `` at column
    0) from ``size`` bytes on, or at ``end``."""
    stop = data.find(b"\n- ", start + size, end)
    return end if stop < 0 else stop + 1


def _runs(data: Any, view: memoryview, start: int, stop: int) -> list[tuple[int, int, bool]]:
    """The List entries from ``start`` to ``stop`` as runs of consecutive risky or clean
    entries, ``(start, stop, risky)``, a risky run at most about ``EXACT_PIECE`` bytes: where
    few items hold an unusual scalar, PyYAML reads just those."""
    runs: list[tuple[int, int, bool]] = []
    run_start, run_risky = start, False
    pos = start
    while pos < stop:
        nxt = _slice_end(data, pos, stop, 1)  # the next entry
        is_risky = risky(view[pos:nxt]) is not None
        if pos > run_start and (is_risky != run_risky or (
                is_risky and nxt - run_start > EXACT_PIECE)):
            runs.append((run_start, pos, run_risky))
            run_start = pos
        run_risky = is_risky
        pos = nxt
    runs.append((run_start, stop, run_risky))
    return runs


def _risky_items(
    tree: Any, data: Any, bounds: tuple[int, int], buf: mmap.mmap, max_depth: int, pyyaml: bool
) -> list[Any]:
    """The List items of a slice the pre-scan finds risky. When all it finds are plain scalar
    values, the slice with those set as YAML 1.1 reads them (``_resolve_plain``); else, or when
    one has no JSON value, in runs of items: the risky ones resolved the same way or read by
    PyYAML (``_exact_items``), the others fast. Parsed in rapidyaml's arena, never in place:
    a slice given up on is parsed again, or read by PyYAML, from the text as written. Without
    ``pyyaml`` nothing in the input needs PyYAML, so the slice is not searched for it."""
    check = len(data) <= duplicate_keys.FAST_CHECK_MAX
    view = memoryview(data)
    try:
        start, stop = bounds
        if not pyyaml or _NEEDS_PYYAML.search(view[start:stop]) is None:
            marked = _marked_entries(data, start, stop)
            with contextlib.suppress(_Unresolved):
                return _fast_items(tree, view[start:stop], False, buf, max_depth, check, marked)
        items = []
        for run_start, run_stop, is_risky in _runs(data, view, start, stop):
            piece = view[run_start:run_stop]
            # a tree of its own: clearing the slice's costs its whole capacity
            run_tree = ryml.Tree()
            run_tree.reserve(_node_estimate(piece))
            if is_risky and (not pyyaml or _NEEDS_PYYAML.search(piece) is None):
                with contextlib.suppress(_Unresolved):
                    items.extend(_fast_items(run_tree, piece, False, buf, max_depth, check, True))
                    continue
            if is_risky:
                items.extend(_exact_items(piece, max_depth))
            else:
                items.extend(_fast_items(run_tree, piece, False, buf, max_depth, check))
        return items
    finally:
        view.release()


def _fast_items(
    tree: Any, piece: memoryview, in_place: bool, buf: mmap.mmap, max_depth: int, check: bool,
    resolve: bool | tuple[int, set[int]] = False,
) -> list[Any]:
    """The List items in ``piece`` by rapidyaml and the JSON fast path (``tree`` reused); with
    ``resolve``, its plain scalars set as YAML 1.1 reads them (``_resolve_plain``): all, or
    those of the items given as (how many items ``piece`` has, which of them)."""
    _reparse(tree, piece, in_place)
    root = tree.root_id()
    if not tree.is_seq(root):
        raise _Refused("a slice of the List's items is not a list")
    if resolve is True:
        _resolve_plain(tree)
    elif resolve:
        _resolve_items(tree, root, *resolve)
    return _items_of(tree, root, buf, max_depth, check)


def _resolve_items(tree: Any, root: int, count: int, marked: set[int]) -> None:
    """Resolve the plain scalars of the items ``marked`` (their indexes among ``count``): an
    item's nodes are numbered from its own to the next item's, as the parser made them (a
    tree only parsed into). Should the items not be the ``count`` expected, all of them."""
    children = list(ryml.children(tree, root))
    if len(children) != count or any(a >= b for a, b in itertools.pairwise(children)):
        _resolve_plain(tree)
        return
    bounds = [*children, tree.size()]
    for k in sorted(marked):
        _resolve_plain(tree, range(bounds[k], bounds[k + 1]))


def _marked_entries(data: Any, start: int, stop: int) -> tuple[int, set[int]]:
    """How many List entries run from ``start`` to ``stop``, and which of them hold something
    the pre-scan finds (a match is counted in the entries it starts and ends in)."""
    starts = []
    pos = start
    while pos < stop:
        starts.append(pos)
        pos = _slice_end(data, pos, stop, 1)
    view = memoryview(data)
    try:
        marked = {bisect.bisect_right(starts, start + at) - 1
                  for m in _RISKY.finditer(view[start:stop]) for at in (m.start(), m.end() - 1)}
    finally:
        view.release()
    return len(starts), marked


def _exact_items(piece: memoryview, max_depth: int) -> list[Any]:
    """The List items in ``piece`` as PyYAML reads them (wapctl's loader: duplicate keys
    refused), each kept as the JSON fast path keeps an item (``json_reader.kept``). Anything
    PyYAML refuses, an item that is not a mapping or nests deeper than ``max_depth`` allows,
    or a value JSON has no type for (a date, bytes, a non-string key, infinity): ``_Refused``,
    so the safe path reads the whole input and reports it exactly."""
    try:
        loader = duplicate_keys.UniqueKeyLoader(bytes(piece).decode("utf-8"))
        try:
            values = loader.get_single_data()
        finally:
            loader.dispose()
    except Exception as exc:  # a YAML error, a duplicate key, a bad scalar, RecursionError
        why = type(exc).__name__
        raise _Refused(f"PyYAML could not read a piece of the List ({why})") from None
    if type(values) is not list:
        raise _Refused("a piece of the List's items is not a list")
    items = []
    for item in values:
        if type(item) is not dict or not _plain_json(item, max_depth - 2):
            raise _Refused("a List item read by PyYAML is not what the JSON fast path reads")
        try:
            items.append(json_reader.kept(item))
        except (msgspec.ValidationError, msgspec.EncodeError, OverflowError, TypeError):
            raise _Refused(
                "a List item read by PyYAML is not what the JSON fast path reads") from None
    return items


def kept_document(obj: Any, max_depth: int) -> Any:
    """A document PyYAML read (``obj``) as the fast path keeps one: the JSON fast reader's
    reading of its JSON (only the fields the builders read). ``obj`` itself when it holds
    what JSON has no text for (a date, bytes, a non-string key, infinity) or that reader
    refuses it: the builders then read it whole, as from a small file. A big input the fast
    reader handed to PyYAML (an anchor, a tag) then keeps about what the fast path would."""
    if type(obj) is not dict or not _plain_json(obj, max_depth):
        return obj
    try:
        text = msgspec.json.encode(obj)
    except (msgspec.EncodeError, OverflowError, TypeError, ValueError):
        return obj
    kept = json_reader.read_json(text, max_depth)
    return obj if kept is None else kept


_JSON_SCALARS = (str, int, bool, type(None))


def _plain_json(obj: dict[str, Any], depth: int) -> bool:
    """Whether ``obj`` holds only what JSON has (string keys; strings, integers, finite floats,
    booleans, null, lists and mappings) and nests at most ``depth`` levels, itself one."""
    level: list[Any] = [obj]
    while level:
        if depth <= 0:
            return False
        depth -= 1
        nxt: list[Any] = []
        for x in level:
            if type(x) is dict:
                if any(type(k) is not str for k in x):
                    return False
                values: Any = x.values()
            else:
                values = x
            for v in values:
                t = type(v)
                if t is dict or t is list:
                    nxt.append(v)
                elif t is float:
                    if not math.isfinite(v):
                        return False
                elif t not in _JSON_SCALARS:
                    return False
        level = nxt
    return True


_OPEN = b'{"items":'


def _items_of(
    tree: Any, root: int, buf: mmap.mmap, max_depth: int, check: bool
) -> list[Any]:
    """The items of one slice, emitted as ``{"items": [...]}`` (the depth they have in the
    file) and decoded by the JSON fast path."""
    with memoryview(buf)[len(_OPEN) : -1] as rest:  # released even when rapidyaml raises
        failed, size = ryml.emit_json_to_substr(tree, root, rest)
    if failed:  # one huge item: a buffer of its size
        big = mmap.mmap(-1, len(_OPEN) + size + 1)
        try:
            return _items_of(tree, root, big, max_depth, check)
        finally:
            big.close()
    buf[: len(_OPEN)] = _OPEN
    n = len(_OPEN) + size
    buf[n : n + 1] = b"}"
    out = memoryview(buf)
    try:
        if check:
            _unique_keys(out[: n + 1], 1)
        doc = json_reader.read_json(out[: n + 1], max_depth)
    finally:
        out.release()
    if doc is None or type(doc.get("items")) is not list:
        raise _Refused("a List item is not what the JSON fast path reads")
    items: list[Any] = doc["items"]
    return items


def _unique_keys(text: Any, number: int) -> None:
    """The emitter writes a repeated key twice (msgspec would keep the last): PyYAML then
    reads the input and reports it exactly (``wapctl.ingest.duplicate_keys``)."""
    try:
        duplicate_keys.check_json(text)
    except duplicate_keys.DuplicateKey:
        raise _Refused(f"document {number} has a mapping with a key twice") from None


def _fallback(reason: str) -> tuple[None, str]:
    log.debug("YAML takes the exact (PyYAML) path: %s", reason)
    return None, reason
