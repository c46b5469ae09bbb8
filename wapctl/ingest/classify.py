"""Which reader takes a document (by kind and API group), its key, and the errors that name
the object they are about."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from wapctl.errors import InputError, Source
from wapctl.ingest import templates as tmpl
from wapctl.ingest.cache import BuildCache, Seen
from wapctl.ingest.fields import Head, object_head
from wapctl.ingest.fields import type_error as _type_error
from wapctl.ingest.fields import typename as _typename
from wapctl.workload_api import API_GROUP, V1ALPHA1, V1ALPHA2, V1ALPHA3, V1BETA1

# ---- the snapshot --------------------------------------------------------------------------

_WORKLOAD_VERSIONS = (V1ALPHA1, V1ALPHA2, V1ALPHA3, V1BETA1)
_PODGROUP_VERSIONS = (V1ALPHA2, V1ALPHA3, V1BETA1)

# (API group, kind) -> reader; the core group is "".
NODE, POD, CLASS, PDB, WORKLOAD, PODGROUP, TEMPLATE, NAMESPACE = range(8)
_KINDS = {
    ("", "Node"): NODE,
    ("", "Pod"): POD,
    (API_GROUP, "PriorityClass"): CLASS,
    ("policy", "PodDisruptionBudget"): PDB,
    (API_GROUP, "Workload"): WORKLOAD,
    (API_GROUP, "PodGroup"): PODGROUP,
    ("", "Namespace"): NAMESPACE,
}
_KIND_NAMES = {kind: group for group, kind in _KINDS}
LABELS = {
    NODE: "Node",
    POD: "Pod",
    CLASS: "PriorityClass",
    PDB: "PodDisruptionBudget",
    WORKLOAD: "Workload",
    PODGROUP: "PodGroup",
    TEMPLATE: "object",  # controllers with pod templates (templates.KINDS); key "Kind ns/name"
    NAMESPACE: "Namespace",
}


# (kind, apiVersion) -> reader, for the pairs of strings ``classify`` has accepted as a kind
# wapctl reads: its answer depends on nothing else.
_CLASSIFIED: dict[tuple[str, str], int] = {}


def classify(obj: Any, source: Source, ignored: Counter[str]) -> int | None:
    if type(obj) is not dict:
        raise InputError(f"an object must be a mapping, not {_typename(obj)}", source)
    kind = obj.get("kind")
    api = obj.get("apiVersion")
    if type(kind) is str and type(api) is str:
        known = _CLASSIFIED.get((kind, api))
        if known is not None:
            return known
        which = _classify_named(kind, api, source, ignored)
        if which is not None:
            _CLASSIFIED[(kind, api)] = which
        return which
    return _classify_named(kind, api, source, ignored)


def _classify_named(kind: Any, api: Any, source: Source, ignored: Counter[str]) -> int | None:
    if type(kind) is not str or not kind:
        if kind is None or kind == "":
            raise InputError("missing (required)", source, "kind")
        raise _type_error(kind, "a string", source, "kind")
    if api is None:
        group = _KIND_NAMES.get(kind)
        if group is None:
            ignored[kind] += 1
            return None
        if kind in ("Workload", "PodGroup"):
            raise InputError(
                f"missing: needed to tell the {kind} API shape "
                f"({', '.join(_WORKLOAD_VERSIONS if kind == 'Workload' else _PODGROUP_VERSIONS)})",
                source,
                "apiVersion",
            )
    elif type(api) is not str:
        raise _type_error(api, "a string", source, "apiVersion")
    else:
        group = api.rpartition("/")[0] if "/" in api else ""
    which = _KINDS.get((group, kind))
    if which is None and (group, kind) in tmpl.KINDS:
        return TEMPLATE
    if which is None:
        ignored[f"{kind}.{group}" if kind in _KIND_NAMES else kind] += 1
        return None
    if which == WORKLOAD and api not in _WORKLOAD_VERSIONS:
        raise InputError(
            f"unsupported Workload version {api!r} (supported: {', '.join(_WORKLOAD_VERSIONS)})",
            source,
            "apiVersion",
        )
    if which == PODGROUP and api not in _PODGROUP_VERSIONS:
        raise InputError(
            f"unsupported PodGroup version {api!r} (supported: {', '.join(_PODGROUP_VERSIONS)})",
            source,
            "apiVersion",
        )
    return which


def named(exc: InputError, which: int, head: Head) -> InputError:
    """The error, naming the object it is about: ``Pod prod/web-1 (file:line ...)``."""
    _, ns, name = head
    return exc.about(f"{LABELS[which]} {ns}/{name}" if ns else f"{LABELS[which]} {name}")


@contextmanager
def about(which: int, head: Head) -> Iterator[None]:
    """An ``InputError`` while reading one object names it (``named``)."""
    try:
        yield
    except InputError as exc:
        raise named(exc, which, head) from None


def _place(source: Source) -> str:
    """``file, document N[, item I][, line L]``: the line last, so the place reads the same
    with and without it."""
    line = source.located_line()
    return source.describe(line=False) + ("" if line is None else f", line {line}")


def register(seen: dict[str, Source], label: str, key: str, source: Source) -> None:
    first = seen.get(key)
    if first is not None:
        raise InputError(
            f"duplicate {label} {key} (first defined at {_place(first)})",
            source,
            "metadata.name",
        )
    seen[key] = source


_CLUSTER_SCOPED = frozenset({"Node", "PriorityClass", "Namespace"})


def object_label(obj: Any, kind: Any = None) -> str | None:
    """``Kind ns/name`` as the loader names an object it reads (``Node name`` for the kinds
    without a namespace; ``default`` for a namespaced one that names none), from the fields
    written, before any is checked: None without a kind, the kind alone without a name.
    ``kind``: the kind when the object leaves it to its List."""
    if type(obj) is not dict:
        return None
    kind = obj.get("kind") or kind
    if type(kind) is not str or not kind:
        return None
    meta = obj.get("metadata")
    meta = meta if type(meta) is dict else {}
    ns, name = meta.get("namespace"), meta.get("name")
    if type(name) is not str or not name:
        return kind
    if kind in _CLUSTER_SCOPED:
        return f"{kind} {name}"
    if (ns is None or ns == "") and (kind in _KIND_NAMES or kind in _TEMPLATE_KINDS):
        ns = "default"  # a namespaced kind wapctl reads: the loader names it so
    return f"{kind} {ns}/{name}" if type(ns) is str and ns else f"{kind} {name}"


_TEMPLATE_KINDS = frozenset(kind for _, kind in tmpl.KINDS)


def learn(obj: Any, source: Source, ignored: Counter[str], reuse: BuildCache | None,
           hit: Seen | None) -> tuple[int, str, tuple[Source, dict[str, Any], Head]] | None:
    """A document's reader, key and bucket entry (None: a kind no reader takes, counted in
    ``ignored``): ``hit``'s, when it is what an earlier build learnt of this very document
    (the same object with the same source), else read and kept in ``reuse`` when given."""
    if hit is not None and hit.obj is obj and hit.source is source:
        return hit.which, hit.key, hit.entry
    try:
        which = classify(obj, source, ignored)
    except InputError as exc:  # the kind or apiVersion: named when the object says its name
        label = object_label(obj)
        raise (exc if label is None or " " not in label else exc.about(label)) from None
    if which is None:
        return None
    namespaced = which not in (NODE, CLASS, NAMESPACE)
    try:
        head = object_head(obj, source, namespaced)
    except InputError as exc:  # a name or namespace of the wrong shape: name what is known
        label = object_label(obj)
        raise (exc if label is None else exc.about(label)) from None
    key = f"{head[1]}/{head[2]}" if namespaced else head[2]
    if which == TEMPLATE:
        key = f"{obj['kind']} {key}"
    entry = (source, obj, head)
    if reuse is not None:
        reuse[id(obj)] = Seen(entry, which, key)
    return which, key, entry
