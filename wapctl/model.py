"""The cluster snapshot as plain, immutable data.

Everything here is already *resolved*: quantities are integers, priorities are numbers, a pod
knows its pod group. The loader (``wapctl.ingest``) builds these from documents; the core
(``fit.py``, ``preemption.py``, ``graph.py``, ``simulate.py``) only reads them.

Resource amounts are integers: ``cpu`` in millicores, every other resource in its base unit
(bytes, count), rounded up as ``resource.Quantity.MilliValue()`` / ``Value()`` do upstream.

``Pod``, ``PodGroup`` and ``Workload`` -- made by the hundred thousand from a large export --
are frozen ``msgspec.Struct`` classes, the rest frozen dataclasses: a Struct's ``__init__`` is C
(a frozen dataclass's sets its fields one ``object.__setattr__`` call at a time: a Pod, 28
fields, ~6 us against ~0.8 us; ``Pod.__post_init__``, which sets ``state``, adds ~0.1 us).
Both compare and hash by their fields (``LoadWarning`` hashes by its sort key, without the
source it describes only when read); copy a Struct with ``msgspec.structs.replace``
(``dataclasses.replace`` refuses it), which runs ``__post_init__`` again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from dataclasses import field as _field  # a class below has a field named "field"
from typing import Any, Literal, cast

import msgspec
from msgspec.structs import force_setattr as _force_setattr

from wapctl.errors import Source

PreemptionPolicy = Literal["PreemptLowerPriority", "Never"]
DisruptionMode = Literal["Pod", "PodGroup"]
GroupPolicy = Literal["Basic", "Gang"]

PREEMPT_LOWER: PreemptionPolicy = "PreemptLowerPriority"
NEVER: PreemptionPolicy = "Never"
# Pod phases that hold no resources (``Pod.finished``)
FINISHED_PHASES = frozenset(("Succeeded", "Failed"))

# Where a pod counts: ``Pod.state``, worked out once when the pod is made (``pod_state``); the
# accounting, the preemptor list, the graph and drift read it (and ``Pod``'s properties).
PENDING = 0  # not bound, not being deleted, not finished, no nominated node
NOMINATED = 1  # as PENDING, with status.nominatedNodeName: may reserve room on that node
RUNNING = 2  # bound, not being deleted, not finished: holds its node
TERMINATING = 3  # bound and being deleted (deletionTimestamp): holds its node until gone
DELETING = 4  # not bound and being deleted: holds nothing, never scheduled
FINISHED = 5  # Succeeded or Failed: holds nothing


def pod_state(phase: str, node_name: str | None, terminating: bool,
              nominated_node: str | None) -> int:
    """The one rule for ``Pod.state``. Being deleted ranks over pending, finished over all
    (upstream counts a finished pod nowhere; NodeInfo keeps a terminating one)."""
    if phase in FINISHED_PHASES:
        return FINISHED
    if node_name is not None:
        return TERMINATING if terminating else RUNNING
    if terminating:
        return DELETING
    return PENDING if nominated_node is None else NOMINATED


# Resource amounts, see module docstring. ``pods`` is tracked separately (each pod counts 1).
Resources = Mapping[str, int]


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str
    effect: str  # NoSchedule | PreferNoSchedule | NoExecute


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str  # "" with operator Exists tolerates everything
    operator: str  # Equal | Exists
    value: str
    effect: str  # "" matches every effect


@dataclass(frozen=True, slots=True)
class SelectorRequirement:
    """A node-selector (In, NotIn, Exists, DoesNotExist, Gt, Lt) or label-selector requirement."""

    key: str
    operator: str
    values: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm:
    """Requirements ANDed; a pod's terms are ORed. ``match_fields`` only knows metadata.name."""

    match_expressions: tuple[SelectorRequirement, ...] = ()
    match_fields: tuple[SelectorRequirement, ...] = ()


@dataclass(frozen=True, slots=True)
class LabelSelector:
    match_labels: Mapping[str, str] = field(default_factory=dict)
    match_expressions: tuple[SelectorRequirement, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.match_labels and not self.match_expressions


@dataclass(frozen=True, slots=True)
class PodAffinityTerm:
    """One required ``podAffinity`` / ``podAntiAffinity`` term, as the loader resolved it.

    ``selector`` None is a term without ``labelSelector``: it matches no pod (upstream
    ``LabelSelectorAsSelector(nil)`` is ``labels.Nothing()``); an empty selector matches every
    pod. ``matchLabelKeys`` / ``mismatchLabelKeys`` are already merged into ``selector`` (as the
    API server does at admission). ``namespaces`` holds the listed namespaces, or the pod's own
    when neither ``namespaces`` nor ``namespaceSelector`` is set; ``namespace_selector`` None
    selects no namespace, empty selects all (filters evaluate it against Namespace labels).
    """

    topology_key: str
    selector: LabelSelector | None
    namespaces: frozenset[str] = frozenset()
    namespace_selector: LabelSelector | None = None


@dataclass(frozen=True, slots=True)
class SpreadConstraint:
    """One ``topologySpreadConstraints`` entry with ``whenUnsatisfiable: DoNotSchedule``
    (ScheduleAnyway ones only matter to scoring, so the loader drops them). ``selector`` as in
    ``PodAffinityTerm``, with ``matchLabelKeys`` merged in; policies as upstream defaults them."""

    max_skew: int
    topology_key: str
    selector: LabelSelector | None
    min_domains: int = 1
    node_affinity_policy: str = "Honor"  # Honor | Ignore
    node_taints_policy: str = "Ignore"  # Honor | Ignore


@dataclass(frozen=True, slots=True)
class HostPort:
    """A container port with ``hostPort`` > 0; ``ip`` "" is read as 0.0.0.0 (all addresses)."""

    port: int
    protocol: str = "TCP"
    ip: str = "0.0.0.0"


@dataclass(frozen=True, slots=True)
class Node:
    name: str
    labels: Mapping[str, str]
    allocatable: Resources  # includes "pods" (max pod count); absent resource = 0
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    source: Source | None = None


class Pod(msgspec.Struct, frozen=True):
    namespace: str
    name: str
    key: str  # "namespace/name"
    requests: Resources  # effective: max(sum containers, each init container) + overhead
    priority: int  # scheduling priority (as a preemptor), resolved per SPEC.md §2
    preemption_priority: int  # priority as a victim
    preemption_policy: PreemptionPolicy = PREEMPT_LOWER
    # the pod's own policy (spec.preemptionPolicy or its class), before a group's Never is
    # folded in; None: same as preemption_policy
    own_preemption_policy: PreemptionPolicy | None = None
    priority_class_name: str | None = None
    node_name: str | None = None  # spec.nodeName: bound when set
    phase: str = "Pending"
    terminating: bool = False  # metadata.deletionTimestamp set: preemption already triggered
    nominated_node: str | None = None  # status.nominatedNodeName
    group_key: str | None = None  # PodGroup.key when the pod belongs to a pod group
    creation_time: float | None = None  # epoch seconds
    start_time: float | None = None  # epoch seconds (status.startTime)
    labels: Mapping[str, str] = msgspec.field(default_factory=dict)
    node_selector: Mapping[str, str] = msgspec.field(default_factory=dict)
    required_affinity: tuple[NodeSelectorTerm, ...] | None = None  # None: no constraint
    tolerations: tuple[Toleration, ...] = ()
    source: Source | None = None
    gated: bool = False  # spec.schedulingGates not empty: the scheduler does not try it yet
    # status condition DisruptionTarget=True, reason PreemptionByScheduler: terminating because
    # the scheduler preempted it (upstream PodTerminatingByPreemption)
    preempted_by_scheduler: bool = False
    # What the pod alone says (spec.priority, else its class), whatever its pod group says; it
    # differs from ``priority`` when a PodGroup's priority overrides it (a LoadWarning notes
    # a v1alpha2/v1alpha3 divergence). None when the pod names no class and has no number.
    own_priority: int | None = None
    # Inter-pod constraints (wapctl.filters): required terms only, DoNotSchedule spread only.
    affinity_terms: tuple[PodAffinityTerm, ...] = ()
    anti_affinity_terms: tuple[PodAffinityTerm, ...] = ()
    spread_constraints: tuple[SpreadConstraint, ...] = ()
    host_ports: tuple[HostPort, ...] = ()
    # Where the pod counts (PENDING ... FINISHED above): set from the fields above when the pod
    # is made or copied (``__post_init__``), never given
    state: int = PENDING

    def __post_init__(self) -> None:
        _force_setattr(self, "state", pod_state(self.phase, self.node_name, self.terminating,
                                                self.nominated_node))

    @property
    def finished(self) -> bool:
        """Succeeded/Failed pods use no resources."""
        return self.state == FINISHED

    @property
    def bound(self) -> bool:
        return self.node_name is not None

    @property
    def running(self) -> bool:
        """Bound, not terminating, not finished: holds its node and counts toward minCount."""
        return self.state == RUNNING

    @property
    def pending(self) -> bool:
        """Waiting to be scheduled: not bound, not terminating, not finished, not gated."""
        return self.state <= NOMINATED and not self.gated


@dataclass(frozen=True, slots=True)
class PriorityClass:
    name: str
    value: int
    global_default: bool = False
    preemption_policy: PreemptionPolicy = PREEMPT_LOWER
    source: Source | None = None


@dataclass(frozen=True, slots=True)
class PodDisruptionBudget:
    namespace: str
    name: str
    selector: LabelSelector | None  # None or empty: matches no pod (as kube-scheduler does)
    disruptions_allowed: int  # status.disruptionsAllowed
    disrupted_pods: frozenset[str] = frozenset()  # pod names in status.disruptedPods
    source: Source | None = None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


class PodGroup(msgspec.Struct, frozen=True):
    """One pod group of a Workload, normalised from whichever API shape declared it.

    ``key`` is ``namespace/workload/group``: the victim-unit name in plans.
    """

    namespace: str
    workload: str
    name: str
    key: str
    policy: GroupPolicy
    min_count: int | None  # gang only
    disruption_mode: DisruptionMode
    priority: int  # scheduling priority
    preemption_priority: int
    preemption_policy: PreemptionPolicy
    priority_class_name: str | None = None
    preemption_priority_class_name: str | None = None
    api_version: str = "scheduling.k8s.io/v1alpha1"
    # the group's own preemptionPolicy (spec or class), without its members' Never folded in;
    # None: not declared (PodGroupPreemptionPolicy reads it)
    declared_preemption_policy: PreemptionPolicy | None = None
    source: Source | None = None


class Workload(msgspec.Struct, frozen=True):
    namespace: str
    name: str
    key: str  # "namespace/name"
    api_version: str
    group_names: tuple[str, ...]
    priority_class_name: str | None = None
    preemption_priority_class_name: str | None = None
    source: Source | None = None


class _Described:
    """``LoadWarning.source``: a ``Source`` given is kept and described when the field is first
    read. The line of an object a fast reader read is found by reading its file again
    (``wapctl.ingest.line_finders``), which no report that does not show it should pay: a
    3.5 GB export with one warning was read twice."""

    def __get__(self, obj: Any, owner: Any = None) -> str | None:
        if obj is None:
            return None  # the field's default
        where = obj.__dict__["_where"]
        if isinstance(where, Source):
            where = where.describe()
            obj.__dict__["_where"] = where
        return cast("str | None", where)

    def __set__(self, obj: Any, value: str | Source | None) -> None:
        obj.__dict__["_where"] = value


@dataclass(frozen=True)
class LoadWarning:
    """Something the loader accepted but a user should know about (SPEC.md §4, "warnings").

    ``code`` is a stable CamelCase identifier (e.g. ``MissingPriorityClass``); ``object`` names
    the object as ``Kind namespace/name`` (``Pod prod/web-1``) or ``Kind name`` for cluster-scoped
    kinds; ``field`` is the field path concerned, if any; ``source`` is where the object came
    from (``file:line`` or a URL), for people only: it is not part of the JSON document. It may
    be given as a ``Source``, described when first read (``_Described``); it is not hashed.
    """

    code: str
    object: str
    field: str | None
    message: str
    source: _Described = _Described()

    def __hash__(self) -> int:  # equal warnings have equal sort keys; the source not described
        return hash(self.sort_key())

    def sort_key(self) -> tuple[str, str, str, str]:
        return (self.code, self.object, self.field or "", self.message)


def sorted_warnings(warnings: Iterable[LoadWarning]) -> tuple[LoadWarning, ...]:
    """Warnings in ``Snapshot.warnings`` order: sorted by ``sort_key``, duplicates dropped."""
    unique: dict[tuple[str, str, str, str], LoadWarning] = {}
    for w in warnings:
        unique.setdefault(w.sort_key(), w)  # the first place it was seen
    return tuple(unique[k] for k in sorted(unique))


@dataclass(frozen=True, slots=True)
class PodTemplateWorkload:
    """A controller's pod template (a Deployment's, a JobSet replicated job's, a Workload's
    PodGroupTemplate, ...): the pods it will create, as ``check-cycles`` sees them in manifests
    before any pod exists. Built by ``wapctl.ingest.templates``; ``priority`` is None when the
    template names a PriorityClass that does not exist (``unknown_class``)."""

    kind: str  # the owner's kind: Deployment, CronJob, JobSet, LeaderWorkerSet, Workload, ...
    namespace: str
    name: str  # the owner's name
    template: str | None  # which of the owner's templates (replicated job, leader/worker, ...)
    key: str  # "Kind ns/name" or "Kind ns/name/template"
    field: str  # where the pod template spec sits in the owner, e.g. "spec.template.spec"
    priority_class_name: str | None
    priority: int | None  # scheduling priority; None when unresolved
    preemption_priority: int | None
    preemption_policy: PreemptionPolicy = PREEMPT_LOWER
    group_key: str | None = None  # the pod group its pods join (workloadRef / schedulingGroup)
    unknown_class: str | None = None  # a PriorityClass it names that does not exist
    # a Workload template's preemptionPriorityClassName (its own, else the Workload's)
    preemption_priority_class_name: str | None = None
    labels: Mapping[str, str] = _field(default_factory=dict)  # the owner's, then the template's
    source: Source | None = None


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A whole cluster. Mappings are keyed as noted and iterate in sorted key order."""

    nodes: Mapping[str, Node]  # by name
    pods: Mapping[str, Pod]  # by "ns/name"
    priority_classes: Mapping[str, PriorityClass]  # by name
    pdbs: tuple[PodDisruptionBudget, ...]  # sorted by key
    workloads: Mapping[str, Workload]  # by "ns/name"
    pod_groups: Mapping[str, PodGroup]  # by "ns/workload/group"
    ignored_kinds: Mapping[str, int] = field(default_factory=dict)  # kind -> count
    # Namespace labels by name, from Namespace objects (for affinity namespaceSelector).
    namespaces: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    templates: Mapping[str, PodTemplateWorkload] = field(default_factory=dict)  # by key
    # What loaded but deserves a note, sorted by LoadWarning.sort_key, without duplicates.
    warnings: tuple[LoadWarning, ...] = ()
    # The API server's version ("v1.36.2"): the live /version, or the List annotation
    # wapctl.io/server-version of a file written by `wapctl snapshot`; None when unknown.
    server_version: str | None = None
