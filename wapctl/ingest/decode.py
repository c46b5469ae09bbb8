"""Bytes -> documents: JSON and YAML, fast readers first, the safe ones when they are not sure.

Text that starts like JSON goes to the fast reader (``wapctl.ingest.json_reader``); when it is
not sure it hands over to the ``json`` module (exact errors). YAML of ``FAST_YAML_FROM`` (1 MiB)
or more first tries ``wapctl.ingest.yaml_reader``; smaller YAML, and what that reader hands
over, goes to PyYAML's safe loader (libyaml's ``CSafeLoader`` when present), composed so each
object keeps the line it starts on. Duplicate keys are refused (``duplicate_keys``), alias
bombs and deep nesting too (``limits``). Lists are flattened into their items (``flatten``):
each ``Document`` is one object and where it came from.
"""

from __future__ import annotations

import json
import mmap
import re
from typing import Any, NamedTuple

import yaml

from wapctl.errors import InputError, Source, cannot_read
from wapctl.ingest import duplicate_keys, hints, json_reader, limits, line_finders, utf8
from wapctl.ingest.fields import typename as _typename
from wapctl.ingest.limits import byte_count, human
from wapctl.ingest.utf8 import NOT_UTF8
from wapctl.model import LoadWarning

LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# where a document starts (1-based line) and where each of its ``items`` starts, when known
Lines = tuple[int | None, list[int] | None]


class Document(NamedTuple):
    """One Kubernetes object and where it came from (List items are already flattened)."""

    source: Source
    obj: dict[str, Any]


SERVER_VERSION_ANNOTATION = "wapctl.io/server-version"


class Documents(list[Document]):
    """The documents read, and the API server version their source names: the live
    ``/version``, or the ``wapctl.io/server-version`` annotation of a List that ``wapctl
    snapshot`` wrote (the first one found). ``build_snapshot`` carries it to the Snapshot,
    with ``warnings``: what a live read could not list but the run survives (e.g.
    ``NamespacesUnreadable``)."""

    server_version: str | None = None
    warnings: tuple[LoadWarning, ...] = ()


def _server_version(obj: dict[str, Any]) -> str | None:
    meta = obj.get("metadata")
    annotations = meta.get("annotations") if type(meta) is dict else None
    value = annotations.get(SERVER_VERSION_ANNOTATION) if type(annotations) is dict else None
    return value if type(value) is str and value else None


_LEADING_SPACE = re.compile(rb"[ \t\r\n]*")


_ALIAS = re.compile(r"(?:^|[\s\[{,:])\*[^\s\[\]{},]", re.MULTILINE)


def parse_into(
    name: str, data: Any, json_only: bool, out: list[Document], explicit: int | None = None
) -> None:
    """Parse one input's bytes (or a read-only map of them) and append its objects to ``out``."""
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    start = _LEADING_SPACE.match(data).end()  # type: ignore[union-attr]
    if start == len(data):
        raise InputError("empty input: no YAML or JSON documents", Source(name))
    json_like = json_only or data[start : start + 1] in (b"{", b"[")
    # The fast reader refuses any NUL byte (JSON has none, not even in a skipped string), so
    # the scan for them waits until it has refused the input (a 3.5 GB export: ~0.4 s saved).
    docs = _fast_json(name, data) if json_like else None
    if docs is None:
        if data.find(b"\x00") >= 0:
            raise InputError("binary data (NUL bytes), not YAML or JSON", Source(name))
        if json_like:
            docs = _parse_json(name, data, json_only, explicit)
        if docs is None:
            docs = _parse_yaml(name, data, explicit)
    if not docs:
        raise InputError("no YAML or JSON documents (only empty ones)", Source(name))
    for number, obj, lines in docs:
        flatten(name, number, obj, out, lines)


def _slow_path_bytes(
    name: str, data: Any, what: str, explicit: int | None, reason: str = ""
) -> bytes:
    """``data`` as bytes for the safe (json / PyYAML) readers, which take several times the
    input's size in memory: past ``MAX_INPUT_SIZE`` only with an explicit --max-input-size."""
    limit = limits.MAX_INPUT_SIZE if explicit is None else explicit
    if len(data) > limit:
        if what == "YAML":
            why = (
                "it needs the exact YAML 1.1 reader, PyYAML"
                + (f" ({reason})" if reason else "")
                + ", which takes about 30 times the file in memory; raise the limit with "
                "--max-input-size, or export JSON (-o json)"
            )
        else:
            why = (
                "the fast JSON reader could not take it (a syntax error, an unusual value or "
                f"nesting deeper than {limits.MAX_DEPTH} levels) and the safe reader needs several "
                "times the file in memory; raise the limit with --max-input-size"
            )
        raise InputError(
            f"{byte_count(len(data))} of {what}, larger than the {human(limit)} limit: {why}",
            Source(name),
        )
    if type(data) is mmap.mmap and what == "YAML":
        return _file_bytes(name, len(data))
    return data if type(data) is bytes else data[:]


def _file_bytes(name: str, size: int) -> bytes:
    """The file ``name`` read again: a mapped file's map may no longer hold its text once a
    fast reader handed it over (the YAML reader parses in place, in the map's private
    copy-on-write pages: a quoted ``"a\\x41b"`` is left as ``"aAb41b"``)."""
    try:
        with open(name, "rb") as fh:
            text = fh.read(size + 1)
    except OSError as exc:
        raise cannot_read(exc, name) from None
    if len(text) != size:
        raise InputError("the file changed while it was being read", Source(name))
    return text


def _check_utf8(name: str, data: Any, check: utf8.Utf8Check) -> None:
    """Refuse ``data`` that is not UTF-8 text as the safe readers decode it (``utf8``): the
    rest of it, after what ``check`` has seen, and its end."""
    if not check.valid(data):
        raise InputError(NOT_UTF8, Source(name))


def _register_item_lines(name: str, doc: Any, size: int) -> None:
    """Let errors about the items of a JSON List (``doc``, read from ``size`` bytes of
    ``name``) name their lines, found when one is first needed."""
    if type(doc) is dict and type(doc.get("items")) is list:
        line_finders.register_json_lines(name, size)


def _fast_json(name: str, data: Any) -> list[tuple[int, Any, Lines]] | None:
    """The JSON document in ``data`` by the fast reader, or None: take the safe path."""
    check = utf8.Utf8Check("surrogatepass")  # a List's slices checked as they are read
    fast = json_reader.read_json(data, limits.MAX_DEPTH, check)
    if fast is None:
        return None
    _check_utf8(name, data, check)  # the text is as it was (brackets put back)
    line = data[: _LEADING_SPACE.match(data).end()].count(b"\n") + 1  # type: ignore[union-attr]
    if len(data) <= duplicate_keys.FAST_CHECK_MAX:  # a duplicate key: msgspec kept the last
        _unique_keys(name, data, line)
    _register_item_lines(name, fast, len(data))
    return [(1, fast, (line, None))]


def _unique_keys(name: str, data: Any, line: int) -> None:
    try:
        duplicate_keys.check_json(data)
    except duplicate_keys.DuplicateKey as dup:
        raise _duplicate(name, json.loads(bytes(data)), dup, line, len(data)) from None


def _duplicate(
    name: str, doc: Any, dup: duplicate_keys.DuplicateKey, line: int, size: int
) -> InputError:
    """The duplicate-key error of a JSON document starting on ``line`` (``size`` bytes); a List
    item's line is found on demand, as for any other error about an item."""
    _register_item_lines(name, doc, size)
    return duplicate_keys.error(name, 1, doc, dup, (line, None))


def _parse_json(
    name: str, data: Any, required: bool, explicit: int | None = None
) -> list[tuple[int, Any, Lines]] | None:
    """The JSON document in ``data`` by the safe reader (``json``), exact errors: None when
    it is not JSON and need not be (the caller tries YAML)."""
    line = data[: _LEADING_SPACE.match(data).end()].count(b"\n") + 1  # type: ignore[union-attr]
    data = _slow_path_bytes(name, data, "JSON", explicit)
    try:
        try:
            obj = duplicate_keys.loads(data)
        except duplicate_keys.DuplicateKey as dup:
            # the key is met before the end of the text: a syntax error after it comes first,
            # as in Go's decoder, which checks the whole text before it decodes
            raise _duplicate(name, json.loads(data), dup, line, len(data)) from None
    except RecursionError:
        raise InputError(_depth_message(), Source(name, 1)) from None
    except UnicodeDecodeError:
        raise InputError(NOT_UTF8, Source(name)) from None
    except ValueError as exc:  # JSONDecodeError, or an int with too many digits
        if not required:
            return None
        if isinstance(exc, json.JSONDecodeError):
            hint = ": it holds YAML, not JSON (name it .yaml)" * hints.yaml_not_json(data)
            if exc.msg == "Extra data" and exc.doc[exc.pos:exc.pos + 1] == "{":
                hint = (": a second JSON object starts there (objects printed one after "
                        "another); put them in one List, or in a .yaml file with a line "
                        "'---' between them")
            raise InputError(f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
                             f"{hint}", Source(name, 1, line=exc.lineno)) from None
        raise InputError(f"invalid JSON: {hints.value_problem(exc)}",
                         Source(name, 1)) from None
    _check_depth(obj, Source(name, 1))
    _register_item_lines(name, obj, len(data))
    return [(1, obj, (line, None))]


def _parse_yaml(name: str, data: Any, explicit: int | None = None) -> list[tuple[int, Any, Lines]]:
    """The YAML documents in ``data``: from ``FAST_YAML_FROM`` on by the fast reader, or, when
    it hands over, by PyYAML, each document then kept as the fast path keeps one (the fields
    the builders read: ``yaml_reader.kept_document``); below, by PyYAML, whole."""
    reason = ""
    kept = None
    if len(data) >= limits.FAST_YAML_FROM:
        from wapctl.ingest import yaml_reader  # rapidyaml loads only for big YAML

        kept = yaml_reader.kept_document
        # before the fast reader, which parses a mapped file in place
        _check_utf8(name, data, utf8.Utf8Check("strict"))
        fast, reason = yaml_reader.read_yaml(data, limits.MAX_DEPTH)
        if fast is not None:
            line_finders.register_yaml_lines(name, fast)
            return [(number, obj, (None, None)) for number, obj in fast]
    data = _slow_path_bytes(name, data, "YAML", explicit, reason)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(NOT_UTF8, Source(name)) from None
    if "*" in text and "&" in text and _ALIAS.search(text):
        _check_events(name, text)
    docs: list[tuple[int, Any, tuple[int | None, list[int] | None]]] = []
    number = 0
    loader = duplicate_keys.UniqueKeyLoader(text)
    try:
        # what yaml.load_all does, keeping each document's composed node for its line marks
        while loader.check_node():
            node = loader.get_node()
            obj = loader.construct_document(node)
            number += 1
            if obj is not None:
                _check_depth(obj, Source(name, number, line=node.start_mark.line + 1))
                if kept is not None:
                    obj = kept(obj, limits.MAX_DEPTH)
                docs.append((number, obj, _node_lines(node)))
    except InputError:
        raise
    except duplicate_keys.DuplicateKey as dup:
        dup.steps = duplicate_keys.yaml_steps(node, dup.node)
        doc = duplicate_keys.yaml_plain(node)
        raise duplicate_keys.error(name, number + 1, doc, dup, _node_lines(node)) from None
    except hints.BadScalar as bad:
        raise bad.error(name, number + 1) from None
    except yaml.YAMLError as exc:
        raise hints.yaml_error(exc, name, number + 1, text, _depth_message()) from None
    except RecursionError:
        raise InputError(_depth_message(), Source(name, number + 1)) from None
    except (ValueError, OverflowError) as exc:  # e.g. a 5000-digit integer, a bad date
        raise InputError(f"invalid YAML value: {hints.value_problem(exc)}",
                         Source(name, number + 1)) from None
    except Exception as exc:  # PyYAML's constructors trip over some explicit tags (!!timestamp x)
        raise InputError(
            f"invalid YAML value ({type(exc).__name__}: {exc})", Source(name, number + 1)
        ) from None
    finally:
        loader.dispose()
    return docs


def _node_lines(node: Any) -> tuple[int, list[int] | None]:
    """The 1-based line where a composed document starts and, when it has an ``items`` list,
    where each item starts (only read when the document turns out to be a List)."""
    items = None
    if type(node) is yaml.MappingNode:
        for key, value in node.value:
            if key.value == "items" and type(value) is yaml.SequenceNode:
                items = [item.start_mark.line + 1 for item in value.value]
    return node.start_mark.line + 1, items


def _depth_message() -> str:
    return f"nested deeper than {limits.MAX_DEPTH} levels"


def _check_events(name: str, text: str) -> None:
    """Alias and depth limits on the parser's events, before anything is composed.

    Besides counting alias uses, this adds up how many nodes the aliases would stand for once
    expanded (an anchor's subtree size, aliases inside it included): a billion-laughs bomb has
    only 72 aliases but expands to 10^9 nodes."""
    number = 0
    aliases = 0
    expansion = 0
    stack: list[list[Any]] = []  # open collections: [anchor, expanded size]
    anchors: dict[str, int] = {}
    try:
        event: Any  # PyYAML's events carry ``anchor`` on the kinds tested below
        for event in yaml.parse(text, Loader=LOADER):
            kind = type(event)
            if kind is yaml.ScalarEvent:
                if event.anchor is not None:
                    anchors[event.anchor] = 1
                if stack:
                    stack[-1][1] += 1
            elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
                stack.append([event.anchor, 1])
                if len(stack) > limits.MAX_DEPTH:
                    raise InputError(_depth_message(), Source(name, number))
            elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
                anchor, size = stack.pop()
                if anchor is not None:
                    anchors[anchor] = size
                if stack:
                    stack[-1][1] += size
            elif kind is yaml.AliasEvent:
                aliases += 1
                size = anchors.get(event.anchor)
                if size is None:
                    raise InputError(
                        f"YAML alias *{event.anchor} refers to no complete anchor "
                        "(undefined, or a recursive structure)",
                        Source(name, number),
                    )
                expansion += size
                if aliases > limits.MAX_ALIASES or expansion > limits.MAX_ALIAS_EXPANSION:
                    raise InputError(
                        f"YAML aliases exceed the limits ({limits.MAX_ALIASES} aliases, "
                        f"{limits.MAX_ALIAS_EXPANSION} expanded nodes per document): an alias "
                        "bomb?",
                        Source(name, number),
                    )
                if stack:
                    stack[-1][1] += size
            elif kind is yaml.DocumentStartEvent:
                number += 1
                aliases = expansion = 0
                anchors.clear()
    except yaml.YAMLError as exc:
        raise hints.yaml_error(exc, name, number or 1, text, _depth_message()) from None


def _check_depth(obj: Any, source: Source) -> None:
    """MAX_DEPTH on a parsed document, iteratively (a parser may nest deeper than we allow)."""
    if type(obj) is not dict and type(obj) is not list:
        return
    level = [obj]
    depth = 1
    while level:
        if depth > limits.MAX_DEPTH:
            raise InputError(_depth_message(), source)
        nxt: list[Any] = []
        add = nxt.append
        for x in level:
            for v in x.values() if type(x) is dict else x:
                t = type(v)
                if t is dict or t is list:
                    add(v)
        level = nxt
        depth += 1


def flatten(
    name: str, number: int, obj: Any, out: list[Document], lines: Lines = (None, None)
) -> None:
    line, item_lines = lines
    if type(obj) is not dict:
        raise InputError(
            f"a document must be a mapping (a Kubernetes object or List), not {_typename(obj)}",
            Source(name, number),  # not an object: the document number says where
        )
    kind = obj.get("kind")
    items = obj.get("items")
    # a List, or a typed one (PodList, ...: a raw API list) with items or an empty one
    # (``items: null``, as Go's encoder writes a nil slice)
    if type(kind) is str and kind.endswith("List") and (
            type(items) is list or kind == "List" or ("items" in obj and items is None)):
        if isinstance(out, Documents) and out.server_version is None:
            out.server_version = _server_version(obj)
        if type(items) is not list:
            if items is None:
                return  # an empty List as some tools print it
            raise InputError(
                f"must be a list, not {_typename(items)}", Source(name, number, line=line), "items"
            )
        # A raw API list (``kubectl get --raw``, curl: ``PodList``) leaves kind and apiVersion
        # off its items: they are the list's. The item is copied, never modified.
        item_kind = kind[: -len("List")] if kind != "List" else None
        api = obj.get("apiVersion")
        if item_lines is None or len(item_lines) != len(items):
            item_lines = [None] * len(items)  # type: ignore[list-item]
        for i, item in enumerate(items):
            if type(item) is not dict:
                raise InputError(
                    f"a List item must be a mapping (a Kubernetes object), not {_typename(item)}",
                    Source(name, number, i, item_lines[i]),
                )
            if item_kind and "kind" not in item:
                item = {**item, "kind": item_kind}
                if "apiVersion" not in item and type(api) is str:
                    item["apiVersion"] = api
            out.append(Document(Source(name, number, i, item_lines[i]), item))
        return
    out.append(Document(Source(name, number, line=line), obj))
