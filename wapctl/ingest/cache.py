"""What a build remembers for the next build of mostly the same documents (``BuildCache``):
``audit`` builds the snapshot before and after a change, and the second build reads only what
differs (``wapctl.ingest.rebuild``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from wapctl.errors import Source
from wapctl.ingest.fields import Head
from wapctl.model import LoadWarning, Pod


class Seen:
    """What a build learnt of one document: its bucket entry (with its metadata), kind and key;
    for a pod, a node or a PodDisruptionBudget, what was built of it (and a pod's warnings,
    the fields ``pod_priority`` decided, and ``priority_ref`` once read)."""

    __slots__ = ("built", "entry", "key", "obj", "ref", "resolved", "source", "warnings",
                 "which")

    def __init__(self, entry: tuple[Source, dict[str, Any], Head], which: int, key: str):
        self.entry = entry  # (source, document, head): as _build's buckets hold it
        self.source, self.obj = entry[0], entry[1]
        self.which = which
        self.key = key
        self.built: Any = None
        self.warnings: Sequence[LoadWarning] = ()
        self.ref: tuple[Any, ...] | None = None
        self.resolved: tuple[Any, ...] | None = None  # a pod's RESOLVED_FIELDS fields


class BuildCache(dict):  # type: ignore[type-arg]
    """What one ``build_snapshot`` learnt of each document, for another build of mostly the
    same documents (``audit`` builds the snapshot before and after a change). A document read
    again (the same object with the same source) is not classified again; a node or a PDB is
    taken over whole; a pod is only resolved again against the rest of the snapshot -- pod group
    and priorities -- the rest of its fields are taken over. It keeps the documents it has seen
    alive (so their ids stay theirs): drop it with the builds. (``id`` of a document ->
    ``Seen``; ``assemble._build``'s first loop puts one for every document it classifies, or takes
    the one the same object with the same source left.)

    ``last`` is what the latest build that succeeded made of its whole input (``Memory``):
    a build of that input with a few documents replaced, added or removed (``audit``'s
    second build) starts from it and reads only the documents that differ (``sort_again``)
    and, when the pods are the same documents, resolves their priorities once per set of pods
    that resolve alike (``pods_again``).

    Documents are only read, never changed in place: a document seen before (ignored kinds
    included) is taken to say what it said then. Entries taken out of the cache meanwhile
    send the next build the ordinary way."""

    last: Memory | None = None


class Memory:
    """What one build made of its input, as ``assemble._build`` left it: the documents (the list it
    read), and per reader (``NODE`` ...) its bucket's entries, their positions among the
    documents, their keys (in the same order) and the set of those keys; the ignored kinds;
    and of the pods, in bucket order, the pods built, the sets of positions whose pods resolve
    alike (``members``: by ``PodContext.gkey``) and those to resolve each on its own
    (``solo``), the pods' own warnings, the pods by key (as the snapshot holds them) and their
    namespaces. Only the next build reads it, having taken it off the cache (a failed build
    leaves none): that build makes new lists for a bucket that changed and takes over the pods'
    list and dict (``pods_again``); nothing else modifies it."""

    __slots__ = ("buckets", "docs", "ignored", "keys", "keysets", "members", "pod_namespaces",
                 "pod_out", "pod_warnings", "pods_by_key", "positions", "solo")

    def __init__(self, docs: list[Any], buckets: list[list[Any]], positions: list[list[int]],
                 keys: list[list[str]], keysets: list[Any], ignored: Counter[str]):
        self.docs, self.buckets, self.positions = docs, buckets, positions
        self.keys, self.keysets, self.ignored = keys, keysets, ignored
        self.pod_out: list[Pod] = []
        self.members: list[list[int]] = []
        self.solo: list[int] = []
        self.pod_warnings: list[LoadWarning] = []
        self.pods_by_key: dict[str, Pod] = {}
        self.pod_namespaces: set[str] = set()


class Fallback(Exception):
    """The input is not one ``sort_again`` / ``pods_again`` can take from the earlier build
    (too different, a duplicate, a cache entry gone): build it the ordinary way."""
