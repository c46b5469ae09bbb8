"""Duplicate keys: a mapping that names the same key twice is refused (issue 26).

kube-apiserver's strict decoding (``fieldValidation=Strict``) sends YAML through sigs.k8s.io/yaml's
``YAMLToJSONStrict`` "to catch duplicate fields in YAML that would have been dropped" and JSON
through sigs.k8s.io/json's ``UnmarshalStrict``, whose duplicate fields are strict errors
(kubernetes/kubernetes ``staging/src/k8s.io/apimachinery/pkg/runtime/serializer/json/json.go``,
``Serializer.unmarshal``, at cfc58f47073f); kubectl refuses a YAML manifest with a key twice
(``mapping key "timeoutSeconds" already defined at line 27``, kubectl 1.21.1 in
k8up-io/k8up#452). PyYAML, ``json`` and msgspec all keep the last value silently, so a Pod with
two ``spec:`` keys would plan with the second one.

Where each reader checks:

- PyYAML (the exact YAML path): ``UniqueKeyLoader`` checks every mapping as it is constructed,
  at any depth; the key nodes' marks give both lines.
- ``json`` (the exact JSON path): ``loads`` checks every object through ``object_pairs_hook``
  (about +12% on that reader: ``json.loads`` of the 720 MB real-2k export, 6.9 -> 7.7 s CPU); only
  when it finds one does ``locate_json`` scan the text again for the path and both lines.
- the fast readers (msgspec, and rapidyaml's JSON fed to msgspec) keep the last value like the
  others and have no hook; an input of at most ``FAST_CHECK_MAX`` bytes is checked by ``loads``
  too (a second parse, of a small input: +0.05 s CPU for the 3.7 MB JSON of a realistic
  10-node export, +0.035 s for its 1.6 MB YAML), and the YAML fast path hands a
  document with a duplicate to PyYAML, which reports it exactly. Larger inputs read by the fast
  readers -- cluster exports, which a serializer wrote from maps -- are not checked: a check
  would be a second full parse (``json.loads`` with the hook: 7.7 s CPU on the 720 MB real-2k
  export, whose fast read takes 1.1 s).
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from wapctl.errors import InputError, Source
from wapctl.ingest import classify, hints

FAST_CHECK_MAX = 4 << 20  # inputs the fast readers read that are checked for duplicate keys
_MERGE = "tag:yaml.org,2002:merge"
_NULL = "tag:yaml.org,2002:null"


class DuplicateKey(Exception):
    """``key`` twice in the mapping at ``steps`` (keys and list indexes from the document's
    root), first on line ``first``, again on line ``second`` (1-based; None when unknown)."""

    def __init__(
        self, key: str, steps: tuple[str | int, ...], first: int | None, second: int | None
    ) -> None:
        super().__init__(key)
        self.key = key
        self.steps = steps
        self.first = first
        self.second = second
        self.node: Any = None  # PyYAML: the mapping node, until its steps are known


# ---- YAML (PyYAML) -------------------------------------------------------------------------


_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class UniqueKeyLoader(_BaseLoader):  # type: ignore[misc]
    """PyYAML's safe loader (C parser when available) refusing a mapping with a key twice.
    Merge keys (``<<``) are left to PyYAML: a key written next to a merge overrides it, as
    YAML says. A scalar its tag cannot read (``!!timestamp soon``) is a ``hints.BadScalar``,
    which knows where the scalar is, instead of Python's bare exception (the constructors of
    the tags that can fail so are wrapped below: a wrapper around every node's construction
    cost 0.5-10 % of this path)."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        if type(node) is yaml.MappingNode:
            _check_mapping(self, node)
        return super().construct_mapping(node, deep=deep)


def _checked(construct: Any) -> Any:
    def construct_checked(loader: Any, node: Any) -> Any:
        try:
            return construct(loader, node)
        except (ValueError, KeyError, AttributeError, OverflowError, IndexError) as exc:
            raise hints.BadScalar(node, exc) from None

    return construct_checked


# the scalar constructors that fail with Python's own exception on a value they cannot read
# (int('abc'), a bool map lookup, the timestamp regex's None, a 13th month, the sign of an
# empty !!int or !!float: ''[0]); the others raise
# PyYAML's ConstructorError, which has the place already
for _tag in ("int", "float", "bool", "timestamp"):
    _name = "tag:yaml.org,2002:" + _tag
    UniqueKeyLoader.add_constructor(_name, _checked(UniqueKeyLoader.yaml_constructors[_name]))


def _check_mapping(loader: Any, node: Any) -> None:
    seen: dict[Any, Any] = {}
    for key_node, _ in node.value:
        if type(key_node) is not yaml.ScalarNode or key_node.tag == _MERGE:
            continue
        key = loader.construct_object(key_node)  # cached: built once, as PyYAML would
        try:
            first = seen.setdefault(key, key_node)
        except TypeError:  # an unhashable key: PyYAML refuses it itself
            continue
        if first is not key_node:
            dup = DuplicateKey(
                _shown(key, key_node), (), first.start_mark.line + 1, key_node.start_mark.line + 1
            )
            dup.node = node
            raise dup


def _shown(key: Any, node: Any) -> str:
    """The key as the error names it: its value, or, for an integer too long to print in
    decimal (Python refuses more than 4,300 digits; a hex one reads), as the file writes it."""
    try:
        return str(key)
    except ValueError:
        return str(node.value)


def yaml_steps(root: Any, target: Any) -> tuple[str | int, ...]:
    """The keys and indexes from the composed document ``root`` to its node ``target``."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(root, ())]
    while stack:
        node, steps = stack.pop()
        if node is target:
            return steps
        if type(node) is yaml.MappingNode:
            for k, v in node.value:
                stack.append((v, (*steps, str(k.value))))
        elif type(node) is yaml.SequenceNode:
            for i, v in enumerate(node.value):
                stack.append((v, (*steps, i)))
    return ()


def yaml_plain(node: Any) -> Any:
    """A composed node's scalars, mappings and lists as plain values (strings, and None for a
    null such as ``namespace: ~``; a repeated key keeps its last value): enough to name the
    object a duplicate is in."""
    if type(node) is yaml.MappingNode:
        return {str(getattr(k, "value", "")): yaml_plain(v) for k, v in node.value}
    if type(node) is yaml.SequenceNode:
        return [yaml_plain(v) for v in node.value]
    if getattr(node, "tag", None) == _NULL:
        return None
    return getattr(node, "value", None)


# ---- JSON ------------------------------------------------------------------------------------


class _Repeated(Exception):
    pass


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _Repeated
    return out


def loads(data: bytes | str) -> Any:
    """``json.loads`` refusing an object with a key twice (``DuplicateKey``, located)."""
    try:
        return json.loads(data, object_pairs_hook=_unique)
    except _Repeated:
        # decoded as json decodes bytes (its own detection, lone surrogates kept), so the
        # scan reads every key as json did and finds the same duplicate
        text = data if isinstance(data, str) else data.decode(
            json.detect_encoding(data), "surrogatepass")
        raise locate_json(text) from None


def check_json(data: Any) -> None:
    """Raise ``DuplicateKey`` if the JSON text ``data`` (bytes, or a map of them) has an object
    with a key twice; any other problem is left to the reader that read it."""
    try:
        loads(bytes(data))
    except (ValueError, RecursionError):
        pass


_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[{}\[\],:]')


def locate_json(text: str) -> DuplicateKey:
    """The first key repeated in an object of the JSON ``text``, with its path and both
    lines (a scan of the tokens, run only once a duplicate is known to be there)."""
    # open containers: [is_object, steps, keys seen -> line, next key or index, expect a key]
    stack: list[list[Any]] = []
    line, pos = 1, 0
    key: Any = None
    for m in _TOKEN.finditer(text):
        tok = m.group()
        line += text.count("\n", pos, m.start())
        pos = m.start()
        top = stack[-1] if stack else None
        if tok in "{[":
            steps = () if top is None else (*top[1], top[3])
            stack.append([tok == "{", steps, {}, None if tok == "{" else 0, tok == "{"])
        elif tok in "}]":
            stack.pop()
        elif tok == ",":
            if top is not None:
                if top[0]:
                    top[4] = True
                else:
                    top[3] += 1
        elif tok == ":":
            if top is not None:
                top[4] = False
        elif top is not None and top[0] and top[4]:
            key = json.loads(tok)
            seen = top[2]
            if key in seen:
                return DuplicateKey(key, top[1], seen[key], line)
            seen[key] = line
            top[3] = key
    return DuplicateKey(str(key), (), None, None)


# ---- the error -----------------------------------------------------------------------------

_PLAIN_STEP = re.compile(r"[A-Za-z0-9_-]+\Z")


def _field(steps: tuple[str | int, ...]) -> str:
    """``spec.containers[0].resources``; a key with dots or slashes as ``["a.b/c"]``."""
    out = ""
    for step in steps:
        if isinstance(step, int):
            out += f"[{step}]"
        elif _PLAIN_STEP.match(step):
            out += f".{step}" if out else step
        else:
            out += f'["{step}"]'
    return out


def error(
    file: str,
    document: int,
    doc: Any,
    dup: DuplicateKey,
    lines: tuple[int | None, Any] = (None, None),
) -> InputError:
    """The one-line error for ``dup`` in document ``document`` of ``file`` (``doc``: that
    document as plain values, to name the object; ``lines``: where the document and each of
    its List items start, when known)."""
    steps, item, list_kind = dup.steps, None, None
    kind = doc.get("kind") if type(doc) is dict else None
    is_list = type(kind) is str and kind.endswith("List") and type(doc.get("items")) is list
    obj = doc
    if is_list and len(steps) >= 2 and steps[0] == "items" and isinstance(steps[1], int):
        item, steps, obj = steps[1], steps[2:], doc["items"][steps[1]]
        list_kind = str(kind)[: -len("List")] or None
    line = lines[0] if item is None else (lines[1][item] if lines[1] else None)

    def at(n: int | None) -> str:
        return file if n is None else f"{file}:{n}"

    return InputError(
        f"duplicate key {dup.key!r}: first at {at(dup.first)}, again at {at(dup.second)} "
        "(kubectl refuses duplicate keys)",
        Source(file, document, item, line),
        _field((*steps, dup.key)),
        classify.object_label(obj, list_kind),
    )
