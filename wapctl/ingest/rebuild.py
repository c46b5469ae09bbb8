"""A second build from the memory of the first (``BuildCache.last``): only the documents that
differ are read, and pods are only resolved again against the rest of the snapshot."""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from itertools import compress, count, repeat
from operator import add, attrgetter, is_not
from typing import Any

from wapctl.ingest.cache import BuildCache, Fallback, Memory, Seen
from wapctl.ingest.classify import POD, classify, learn
from wapctl.ingest.fields import Head
from wapctl.ingest.resolve import (
    RESOLVED_FIELDS,
    PodContext,
    join,
    pod_priority,
    priority_ref,
    resolved_fields,
    resolves_quietly,
    with_resolved,
)
from wapctl.model import Pod

_UNKNOWN = object()


def pod_again(hit: Seen, head: Head, ctx: PodContext) -> Pod:
    """``read_pod`` of a document that an earlier build with the same ``BuildCache`` read without
    error: only what depends on the rest of the snapshot (its pod group and priorities, in
    ``pod_priority``) is read again; every other field, and its warnings, are the same.

    Within one build, pods naming the same priority, class, policy and group resolve alike
    (``priority_ref``): once one of them has resolved quietly -- its class and group found,
    no divergence to note -- the others take its answer and only join the group."""
    pod: Pod = hit.built
    spec = hit.obj.get("spec")
    if spec is None:
        spec = {}
    ref = hit.ref
    if ref is None:
        ref = hit.ref = priority_ref(spec, head[1])
    known = ctx.again.get(ref, _UNKNOWN)
    if known is None or known is _UNKNOWN:
        pcn, pp, group = pod_priority(spec, head[1], pod.key, hit.source, ctx)
        resolved = resolved_fields(pcn, pp, group)
        if known is _UNKNOWN:
            quiet = resolves_quietly(ref[3] is not None, pcn, pp, group, ctx)
            ctx.again[ref] = (pp, group, resolved) if quiet else None
    else:
        pp, group, resolved = known
        if group is not None:
            join(group, pp)
        ctx.gkey = ref
    warnings = hit.warnings
    if warnings:
        ctx.warnings.extend(warnings)
    if hit.resolved == resolved:
        return pod  # the change left it alone (the model is immutable: both snapshots share it)
    return with_resolved(pod, resolved)


# A second build gives up on reusing the memory past this many differing stretches.
_MAX_EDITS = 256


def _common(new: list[Any], j: int, old: list[Any], p: int) -> int:
    """How many items from ``new[j]`` on are, one by one, the items from ``old[p]`` on."""
    k, step = 0, 64
    while True:
        a, b = new[j + k:j + k + step], old[p + k:p + k + step]
        miss = next(compress(count(), map(is_not, a, b)), None)
        if miss is not None:
            return k + miss
        n = min(len(a), len(b))
        k += n
        if n < step:
            return k
        step = min(step * 4, 1 << 16)


def _align(
    new: list[Any], old: list[Any]
) -> tuple[list[tuple[int, int, int]], list[int]] | None:
    """``new`` as stretches of ``old`` and other items: ``runs`` ``(j, p, n)``, ``new[j:j+n]``
    is ``old[p:p+n]`` (the same objects), in increasing ``j`` and ``p``; ``fresh``: the
    positions in ``new`` of the other items. The items of ``old`` outside the runs are gone.
    None when there are too many differences to be worth it."""
    runs: list[tuple[int, int, int]] = []
    fresh: list[int] = []
    j = p = 0
    n, m = len(new), len(old)
    where: dict[int, int] | None = None
    while j < n:
        if p < m:
            k = _common(new, j, old, p)
            if k:
                runs.append((j, p, k))
                j += k
                p += k
                continue
        if len(runs) + len(fresh) > _MAX_EDITS:
            return None
        item = new[j]
        if j + 1 < n and p + 1 < m and new[j + 1] is old[p + 1]:  # replaced in place
            fresh.append(j)
            j += 1
            p += 1
            continue
        if where is None:
            where = dict(zip(map(id, old), count()))
        q = where.get(id(item), -1)
        if q > p and old[q] is item:  # old[p:q] are gone
            p = q
            continue
        fresh.append(j)  # new, or an old one out of order: read on its own
        j += 1
    return runs, fresh


def sort_again(
    docs: list[Any], last: Memory, reuse: BuildCache, ignored: Counter[str],
) -> tuple[list[list[Any]], list[list[int]], list[list[str]], list[Any]]:
    """``assemble._sort`` of ``docs`` from the memory of an earlier build: only the documents that
    are not, in order, the earlier build's are classified; a bucket no document joined or
    left is the earlier one. ``Fallback`` where the outcome could be an error."""
    aligned = _align(docs, last.docs)
    if aligned is None:
        raise Fallback
    runs, fresh = aligned
    ignored.update(last.ignored)
    added: list[list[tuple[int, Any, str]]] = [[] for _ in range(8)]
    learnt = reuse.get
    for j in fresh:
        source, obj = docs[j]
        found = learn(obj, source, ignored, reuse, learnt(id(obj)))
        if found is None:
            continue
        which, key, entry = found
        added[which].append((j, entry, key))
    made = [_bucket_again(last, which, runs, added[which]) for which in range(8)]
    buckets, positions, keys, keysets, kept = map(list, zip(*made, strict=True))
    _forget_gone(last, runs, sum(kept), ignored)
    return buckets, positions, keys, keysets


def _bucket_again(
    last: Memory, which: int, runs: list[tuple[int, int, int]], added: list[tuple[int, Any, str]],
) -> tuple[list[Any], list[int], list[str], Any, int]:
    """Bucket ``which`` of ``sort_again`` (entries, positions, keys, key set), and its kept."""
    entries, where, names = last.buckets[which], last.positions[which], last.keys[which]
    slices = []
    for j, q, k in runs:
        lo, hi = bisect_left(where, q), bisect_left(where, q + k)
        if lo < hi:
            slices.append((j - q, lo, hi))
    kept = sum(hi - lo for _, lo, hi in slices)
    if not added and kept == len(entries):  # the same entries: shared
        if any(d for d, _, _ in slices):  # documents before them came or went
            where = [x for d, lo, hi in slices
                     for x in (where[lo:hi] if d == 0 else map(add, where[lo:hi], repeat(d)))]
        return entries, where, names, last.keysets[which], kept
    keyset = set(last.keysets[which])
    covered = 0
    for _, lo, hi in slices:
        keyset.difference_update(names[covered:lo])
        covered = hi
    keyset.difference_update(names[covered:])
    parts: list[tuple[int, int, Any]] = [(where[lo] + d, 0, (d, lo, hi))
                                         for d, lo, hi in slices]
    for j, entry, key in added:
        if key in keyset:  # a duplicate: the ordinary build names both places
            raise Fallback
        keyset.add(key)
        parts.append((j, 1, (entry, key)))
    parts.sort(key=lambda t: t[0])
    b_entries: list[Any] = []
    b_where: list[int] = []
    b_names: list[str] = []
    for j, is_added, part in parts:
        if is_added:
            b_entries.append(part[0])
            b_where.append(j)
            b_names.append(part[1])
            continue
        d, lo, hi = part
        b_entries.extend(entries[lo:hi])
        b_where.extend(where[lo:hi] if d == 0 else map(add, where[lo:hi], repeat(d)))
        b_names.extend(names[lo:hi])
    return b_entries, b_where, b_names, keyset, kept


def _forget_gone(last: Memory, runs: list[tuple[int, int, int]], kept_docs: int,
                 ignored: Counter[str]) -> None:
    """Takes the ignored documents of ``last`` that ``runs`` leave out (gone) off ``ignored``."""
    # the documents of the earlier build that are gone, as ranges of positions
    gone: list[tuple[int, int]] = []
    p = 0
    for _, q, k in runs:
        if q > p:
            gone.append((p, q))
        p = q + k
    if p < len(last.docs):
        gone.append((p, len(last.docs)))
    # the ignored documents among those gone no longer count
    gone_total = sum(b - a for a, b in gone)
    read_gone = sum(len(last.buckets[w]) for w in range(8)) - kept_docs
    if gone_total > read_gone:
        scratch: Counter[str] = Counter()
        for a, b in gone:
            for x in range(a, b):
                if any(bisect_left(w, x) < len(w) and w[bisect_left(w, x)] == x
                       for w in last.positions):
                    continue
                source, obj = last.docs[x]
                classify(obj, source, scratch)
        ignored.subtract(scratch)
        for kind in [k for k, v in ignored.items() if v <= 0]:
            del ignored[kind]


_resolved_of = attrgetter(*RESOLVED_FIELDS)


def pods_again(last: Memory, memory: Memory, ctx: PodContext) -> dict[str, Pod]:
    """``assemble._pods`` of the same pod documents as the build ``last`` remembers, from its pods:
    each set of pods that resolve alike (``last.members``) is resolved with its first pod;
    when that resolves quietly (``resolves_quietly``) the others only join its group, else each is
    resolved on its own, as are ``last.solo``'s. A pod whose resolved fields changed is
    copied with the new ones. ``InputError`` as ``pod_priority`` raises it (unnamed: the
    caller builds again the ordinary way)."""
    # last is this build's alone (``assemble._build`` took it off the cache): its pods' list
    # and dict become this build's
    out = last.pod_out
    bucket = last.buckets[POD]
    changed: list[int] = []

    def again(i: int) -> tuple[Any, ...]:
        source, obj, head = bucket[i]
        spec = obj.get("spec")
        if spec is None:
            spec = {}
        pod = out[i]
        pcn, pp, group = pod_priority(spec, head[1], pod.key, source, ctx)
        resolved = resolved_fields(pcn, pp, group)
        moved = resolved != _resolved_of(pod)
        if moved:
            out[i] = with_resolved(pod, resolved)
            changed.append(i)
        names_group = (spec.get("schedulingGroup") is not None
                       or spec.get("workloadRef") is not None)
        quiet = resolves_quietly(names_group, pcn, pp, group, ctx)
        return (pp, group, resolved, moved) if quiet else ()

    for same in last.members:
        first = same[0]
        quiet = again(first)
        if len(same) == 1:
            continue
        if not quiet:
            for i in same[1:]:
                again(i)
            continue
        pp, group, resolved, moved = quiet
        if group is not None:
            join(group, pp, len(same) - 1)
        if moved:  # the first one's fields changed: all did
            for i in same[1:]:
                out[i] = with_resolved(out[i], resolved)
            changed.extend(same[1:])
    for i in last.solo:
        again(i)
    ctx.warnings.extend(last.pod_warnings)
    memory.members, memory.solo = last.members, last.solo
    memory.pod_out, memory.pod_warnings = out, last.pod_warnings
    by_key = last.pods_by_key
    for i in changed:
        pod = out[i]
        by_key[pod.key] = pod
    return by_key
