"""Documents -> one validated, immutable ``Snapshot``: every object read by its kind's
builder, priorities and pod groups resolved, warnings gathered, in a fixed order."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from operator import attrgetter
from typing import Any

from wapctl import priority as prio
from wapctl.errors import InputError, Source
from wapctl.gcpause import gc_paused
from wapctl.ingest import constraints, rebuild
from wapctl.ingest import templates as tmpl
from wapctl.ingest.cache import BuildCache, Fallback, Memory
from wapctl.ingest.classify import (
    CLASS,
    LABELS,
    NAMESPACE,
    NODE,
    PDB,
    POD,
    PODGROUP,
    TEMPLATE,
    WORKLOAD,
    about,
    learn,
    named,
    register,
)
from wapctl.ingest.decode import Document
from wapctl.ingest.fields import Head
from wapctl.ingest.node import read_node
from wapctl.ingest.pdb import read_pdb
from wapctl.ingest.pod import read_pod
from wapctl.ingest.priority_class import ClassBook, read_priority_class
from wapctl.ingest.resolve import PodContext
from wapctl.ingest.workload import GroupDraft, WorkloadDraft, read_pod_group, read_workload
from wapctl.model import (
    LoadWarning,
    Node,
    Pod,
    PodDisruptionBudget,
    PodGroup,
    PodTemplateWorkload,
    PriorityClass,
    Snapshot,
    Workload,
    sorted_warnings,
)
from wapctl.workload_api import V1ALPHA1


def build_snapshot(documents: Iterable[Document], *, reuse: BuildCache | None = None) -> Snapshot:
    """Validate the objects, resolve priorities and pod groups, and build the ``Snapshot``.

    Raises ``InputError`` naming file, document, List item and field for every contradiction
    (see the module docstring). The documents are only read. ``reuse``: see ``BuildCache``."""
    with gc_paused():
        return _build(documents, getattr(documents, "server_version", None), reuse)


def _build(
    documents: Iterable[Document], server_version: str | None = None,
    reuse: BuildCache | None = None,
) -> Snapshot:
    if reuse is None:
        return _assemble(documents, documents, server_version, None, None)
    docs = list(documents)  # the memory's own list: the caller may change theirs
    # what the latest build made (none if it failed: it may have left other documents' Seen
    # where this memory's documents had theirs)
    last, reuse.last = reuse.last, None
    if last is not None:
        try:
            return _assemble(docs, documents, server_version, reuse, last)
        except (Fallback, InputError):
            pass  # the ordinary build below gives the snapshot, or the error, from scratch
    return _assemble(docs, documents, server_version, reuse, None)


def _sort(
    documents: Iterable[Any], reuse: BuildCache | None, ignored: Counter[str],
) -> tuple[list[list[Any]], list[list[int]], list[dict[str, Source]]]:
    """Each document's bucket entry ``(source, document, head)`` in its reader's bucket, in
    document order, with the document's position; ``InputError`` for a duplicate."""
    buckets: list[list[tuple[Source, dict[str, Any], Head]]] = [[] for _ in range(8)]
    positions: list[list[int]] = [[] for _ in range(8)]
    seen: list[dict[str, Source]] = [{} for _ in range(8)]
    learnt = reuse.get if reuse is not None else None  # id(document) -> Seen
    for i, (source, obj) in enumerate(documents):
        found = learn(obj, source, ignored, reuse, learnt(id(obj)) if learnt is not None else None)
        if found is None:
            continue
        which, key, entry = found
        bucket_seen = seen[which]
        if key in bucket_seen:
            register(bucket_seen, LABELS[which], key, source)
        bucket_seen[key] = source
        buckets[which].append(entry)
        positions[which].append(i)
    return buckets, positions, seen


def _assemble(
    documents: Iterable[Any], given: Iterable[Document], server_version: str | None,
    reuse: BuildCache | None, last: Memory | None,
) -> Snapshot:
    """The snapshot of ``documents`` (``given``: as the caller gave them, for the reader's
    warnings); with ``last``, starting from the memory of an earlier build."""
    ignored: Counter[str] = Counter()
    if last is not None:
        buckets, positions, keys, keysets = rebuild.sort_again(
            documents, last, reuse, ignored)  # type: ignore[arg-type]
    else:
        buckets, positions, seen = _sort(documents, reuse, ignored)
        keys, keysets = ([list(s) for s in seen] if reuse is not None else [], seen)
    learnt = reuse.get if reuse is not None else None  # id(document) -> Seen

    classes = {}
    for source, obj, head in buckets[CLASS]:
        with about(CLASS, head):
            pc = read_priority_class(obj, source, head)
        classes[pc.name] = pc
    default = prio.global_default(classes.values())
    book = ClassBook(classes)  # plus the built-in system-* classes
    load_warnings: list[LoadWarning] = []
    workloads, groups, pod_groups = _groups(buckets, book, default, load_warnings)

    ctx = PodContext(book, default, workloads, pod_groups, reuse)
    ctx.warnings.extend(load_warnings)
    memory = (Memory(documents, buckets, positions, keys, keysets, ignored)  # type: ignore[arg-type]
              if reuse is not None else None)
    if last is not None and buckets[POD] is last.buckets[POD]:
        pods_by_key = rebuild.pods_again(last, memory, ctx)  # type: ignore[arg-type]
        pod_namespaces: set[str] | None = last.pod_namespaces
    else:
        pods_by_key = _pods(buckets[POD], memory, ctx)
        pod_namespaces = None
    namespaces = {head[2]: constraints.namespace_labels(obj, head[2], source)
                  for source, obj, head in buckets[NAMESPACE]}
    for which, label in ((WORKLOAD, "Workload"), (PODGROUP, "PodGroup")):
        for source, obj, head in buckets[which]:
            ctx.warnings.extend(
                constraints.group_warnings(obj, f"{label} {head[1]}/{head[2]}", source))
    nodes, pdbs = _nodes_and_pdbs(buckets, learnt)
    model_groups, model_workloads = _models(groups, workloads, default)

    templates = _templates(buckets[TEMPLATE], workloads, classes, default, model_groups)
    if pod_namespaces is None:
        pod_namespaces = {p.namespace for p in pods_by_key.values()}
    ctx.warnings.extend(
        constraints.namespace_warnings(pods_by_key.values(), namespaces, pod_namespaces))
    ctx.warnings.extend(getattr(given, "warnings", ()))
    nodes.sort(key=lambda n: n.name)
    pdbs.sort(key=_KEY)
    snapshot = Snapshot(
        nodes={n.name: n for n in nodes},
        pods=pods_by_key,
        priority_classes={name: classes[name] for name in sorted(classes)},
        pdbs=tuple(pdbs),
        workloads=model_workloads,
        pod_groups=model_groups,
        ignored_kinds=dict(sorted(ignored.items())),
        namespaces={name: namespaces[name] for name in sorted(namespaces)},
        templates=templates,
        warnings=sorted_warnings(ctx.finish(groups)),
        server_version=server_version,
    )
    if reuse is not None:
        memory.pods_by_key = pods_by_key.copy()  # type: ignore[union-attr]
        memory.pod_namespaces = pod_namespaces  # type: ignore[union-attr]
        reuse.last = memory
    return snapshot


def _groups(
    buckets: list[list[Any]], book: ClassBook, default: PriorityClass | None,
    load_warnings: list[LoadWarning],
) -> tuple[dict[str, WorkloadDraft], dict[str, GroupDraft], dict[str, GroupDraft]]:
    """The Workloads and PodGroups by key, and every group (theirs, v1alpha1's) by group key."""
    workloads: dict[str, WorkloadDraft] = {}
    for source, obj, head in buckets[WORKLOAD]:
        with about(WORKLOAD, head):
            wl = read_workload(obj, source, head, book)
        workloads[f"{wl.namespace}/{wl.name}"] = wl
    groups: dict[str, GroupDraft] = {}
    for wl in workloads.values():
        for group in wl.groups.values():  # v1alpha1
            group.priority = prio.resolve_group(
                priority_class=wl.priority_class, preemption_class=wl.preemption_class
            )
            groups[group.key] = group
    pod_groups: dict[str, GroupDraft] = {}
    for source, obj, head in buckets[PODGROUP]:
        with about(PODGROUP, head):
            group = read_pod_group(obj, source, head, book, workloads, default, load_warnings)
        pod_groups[f"{group.namespace}/{group.name}"] = group
        if group.key in groups:  # only through a "/" in a name (Kubernetes refuses those)
            raise InputError(f"pod group {group.key} defined twice", source, "metadata.name")
        groups[group.key] = group
    return workloads, groups, pod_groups


def _nodes_and_pdbs(
    buckets: list[list[Any]], learnt: Callable[[int], Any] | None,
) -> tuple[list[Node], list[PodDisruptionBudget]]:
    """The nodes and PDBs of their buckets, each taken from ``learnt`` when built before."""
    nodes = []
    head = None
    try:
        for source, obj, head in buckets[NODE]:
            hit = learnt(id(obj)) if learnt is not None else None  # checked or made by learn
            if hit is not None and hit.built is not None:
                nodes.append(hit.built)  # a node depends on its document alone
                continue
            node = read_node(obj, source, head)
            if hit is not None:
                hit.built = node
            nodes.append(node)
    except InputError as exc:
        raise named(exc, NODE, head) from None  # type: ignore[arg-type]
    pdbs = []
    for source, obj, head in buckets[PDB]:
        hit = learnt(id(obj)) if learnt is not None else None  # checked or made by learn
        if hit is not None and hit.built is not None:
            pdbs.append(hit.built)  # as a node, a PDB depends on its document alone
            continue
        with about(PDB, head):
            pdb = read_pdb(obj, source, head)
        if hit is not None:
            hit.built = pdb
        pdbs.append(pdb)
    return nodes, pdbs


def _models(
    groups: dict[str, GroupDraft], workloads: dict[str, WorkloadDraft],
    default: PriorityClass | None,
) -> tuple[dict[str, PodGroup], dict[str, Workload]]:
    """The model's pod groups (priorities resolved) and Workloads (classes named), by key."""
    model_groups = {}
    for key in sorted(groups):
        g = groups[key]
        value, preemption, policy = prio.group_values(
            g.priority, g.members, member_never=g.member_never, default=default)
        model_groups[key] = PodGroup(
            namespace=g.namespace, workload=g.workload, name=g.name, key=key, policy=g.policy,
            min_count=g.min_count, disruption_mode=g.disruption_mode, priority=value,
            preemption_priority=preemption, preemption_policy=policy,
            declared_preemption_policy=g.priority.preemption_policy,
            priority_class_name=g.priority.priority_class_name,
            preemption_priority_class_name=g.priority.preemption_priority_class_name,
            api_version=g.api_version, source=g.source)
    model_workloads = {}
    for key in sorted(workloads):
        wl = workloads[key]
        model_workloads[key] = Workload(
            namespace=wl.namespace, name=wl.name, key=key, api_version=wl.api_version,
            group_names=tuple(sorted(wl.group_names)),
            priority_class_name=_workload_class(wl, "priority"),
            preemption_priority_class_name=_workload_class(wl, "preemption_class"),
            source=wl.source)
    return model_groups, model_workloads


def _pods(
    bucket: list[tuple[Source, dict[str, Any], Head]], memory: Memory | None,
    ctx: PodContext,
) -> dict[str, Pod]:
    """The pods of the bucket by key, in key order; their part of ``memory``."""
    learnt = ctx.reuse.get if ctx.reuse is not None else None
    pods = []
    first_warning = len(ctx.warnings)
    head = None
    try:  # one handler for the loop (a context manager per pod costs ~2 us each)
        if memory is None:
            for source, obj, head in bucket:
                pods.append(read_pod(obj, source, head, ctx))
        else:
            alike: dict[Any, list[int]] = {}  # gkey -> positions
            solo = memory.solo
            for i, (source, obj, head) in enumerate(bucket):
                hit = learnt(id(obj))  # type: ignore[misc]
                if hit is None or hit.obj is not obj:
                    raise Fallback  # an entry taken out of the cache since the last build
                if hit.built is not None:
                    pods.append(rebuild.pod_again(hit, head, ctx))
                else:
                    pods.append(read_pod(obj, source, head, ctx))
                gkey = ctx.gkey
                if gkey is None:
                    solo.append(i)
                else:
                    same = alike.get(gkey)
                    if same is None:
                        alike[gkey] = [i]
                    else:
                        same.append(i)
            memory.members = list(alike.values())
            memory.pod_out = pods
            memory.pod_warnings = ctx.warnings[first_warning:]
    except InputError as exc:
        raise named(exc, POD, head) from None  # type: ignore[arg-type]
    return {p.key: p for p in sorted(pods, key=_KEY)}


_KEY = attrgetter("key")


def _templates(
    owners: list[tuple[Source, dict[str, Any], Head]],
    workloads: dict[str, WorkloadDraft],
    classes: dict[str, PriorityClass],
    default: PriorityClass | None,
    groups: dict[str, PodGroup],
) -> dict[str, PodTemplateWorkload]:
    """Controllers' pod templates, and the podGroupTemplates of v1alpha2/3 Workloads that no
    PodGroup object instantiates yet (``templates``)."""
    objects = {f"{g.namespace}/{g.name}": k for k, g in groups.items() if g.api_version != V1ALPHA1}
    out: list[PodTemplateWorkload] = []
    for source, obj, (_, ns, name) in owners:
        try:
            for raw in tmpl.extract(obj["kind"], obj, source, ns, name):
                out.append(tmpl.resolve(raw, classes, default, groups, objects))
        except InputError as exc:  # the line names the controller, as a pod's names the pod
            raise exc.about(f"{obj['kind']} {ns}/{name}") from None
    for wl in workloads.values():
        if wl.templates and not wl.group_names:
            out.extend(
                tmpl.from_pod_group_templates(
                    wl.namespace, wl.name, wl.source, wl.templates, wl.priority_class,
                    wl.preemption_class, default,
                )
            )
    return {t.key: t for t in sorted(out, key=lambda t: t.key)}


def _workload_class(wl: WorkloadDraft, which: str) -> str | None:
    """The Workload's own class, else (v1alpha2/3) the one all its templates name."""
    own = wl.priority_class if which == "priority" else wl.preemption_class
    if own is not None:
        return own.name
    if not wl.templates:
        return None
    names = set()
    for t in wl.templates.values():
        value = t.get(which)
        pc = value[0] if which == "priority" and value is not None else value
        names.add(pc.name if pc is not None else None)
    return names.pop() if len(names) == 1 else None
