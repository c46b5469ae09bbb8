"""Pod fields for the inter-pod filters, and warnings for what wapctl does not evaluate.

Called from ``pod.read_pod`` (and ``assemble`` for Namespace, Workload and PodGroup objects);
kept apart so the loader proper stays about objects and priorities.

Parsed (see ``wapctl.filters`` for how each is evaluated):

- ``spec.affinity.podAffinity`` / ``podAntiAffinity``
  ``.requiredDuringSchedulingIgnoredDuringExecution[]``: ``labelSelector``, ``namespaces``,
  ``namespaceSelector``, ``topologyKey`` (required), ``matchLabelKeys`` / ``mismatchLabelKeys``
  merged into the selector as ``key In (value)`` / ``key NotIn (value)`` for each key the pod
  has, only when the term has a labelSelector (as the API server does at admission,
  ``applyMatchLabelKeysAndMismatchLabelKeys``; merging a second time changes nothing).
- ``spec.topologySpreadConstraints[]`` with ``whenUnsatisfiable: DoNotSchedule``: ``maxSkew``,
  ``topologyKey``, ``labelSelector``, ``minDomains`` (default 1), ``nodeAffinityPolicy``
  (default Honor), ``nodeTaintsPolicy`` (default Ignore), ``matchLabelKeys`` merged into the
  selector as ``key=value`` for each key the pod has (``filterTopologySpreadConstraints``).
- ``spec.containers[].ports[]`` and restartable init containers' ports with ``hostPort`` > 0:
  ``hostIP`` ("" -> 0.0.0.0), ``protocol`` (default TCP).
- ``Namespace`` objects: their labels (``kubernetes.io/metadata.name`` always included).

Warnings (``LoadWarning`` codes), each naming the object and field:

- ``VolumeNotModelled``: a pending pod's PersistentVolumeClaim or ephemeral volume (VolumeBinding,
  VolumeZone, NodeVolumeLimits and VolumeRestrictions can reject nodes for it; a running pod's
  volumes only matter through such a pending pod, which is warned).
- ``ResourceClaimNotModelled``: a pending pod's ``spec.resourceClaims`` (DynamicResources / DRA).
- ``SchedulingGated``: a gated pod: the scheduler does not try it until its gates are removed,
  and wapctl leaves it out of the queue.
- ``OtherScheduler``: ``spec.schedulerName`` other than ``default-scheduler``: another scheduler
  places that pod; wapctl models kube-scheduler's default profile.
- ``ScoringOnlyTerms``: a pending pod's preferred node / pod (anti-)affinity terms or
  ``ScheduleAnyway`` spread constraints: they only score nodes, so they may change which
  feasible node the scheduler picks, never whether one fits; wapctl does not score.
- ``WorkloadConstraintsNotModelled``: a PodGroup's ``spec.schedulingConstraints`` or a Workload
  template's (TopologyAwareWorkloadScheduling): not evaluated.
- ``NamespaceLabelsUnknown``: a namespaceSelector evaluated for a namespace that has no Namespace
  object in the snapshot (only its name label is known).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wapctl.errors import InputError, Source
from wapctl.filters.selectors import NAMESPACE_NAME_LABEL
from wapctl.ingest import fields
from wapctl.model import (
    HostPort,
    LabelSelector,
    LoadWarning,
    PodAffinityTerm,
    SelectorRequirement,
    SpreadConstraint,
)

DEFAULT_SCHEDULER = "default-scheduler"
_PROTOCOLS = ("TCP", "UDP", "SCTP")
_POLICIES = ("Honor", "Ignore")
_WHEN = ("DoNotSchedule", "ScheduleAnyway")
_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def _str_list(value: Any, source: Source, field: str) -> list[str]:
    out = fields.list_field(value, source, field)
    for i, v in enumerate(out):
        if type(v) is not str:
            raise fields.type_error(v, "a string", source, f"{field}[{i}]")
    return out


def _with_keys(
    selector: LabelSelector | None, labels: Mapping[str, str], match: list[str],
    mismatch: list[str],
) -> LabelSelector | None:
    """The selector with ``key In (value)`` / ``key NotIn (value)`` for each listed key the pod
    has; a missing selector (matches nothing) stays missing."""
    if selector is None or not (match or mismatch):
        return selector
    extra = [SelectorRequirement(k, "In", (labels[k],)) for k in match if k in labels]
    extra += [SelectorRequirement(k, "NotIn", (labels[k],)) for k in mismatch if k in labels]
    if not extra:
        return selector
    return LabelSelector(match_labels=selector.match_labels,
                         match_expressions=selector.match_expressions + tuple(extra))


def _term(t: Any, ns: str, labels: Mapping[str, str], source: Source, f: str) -> PodAffinityTerm:
    t = fields.mapping(t, source, f)
    key = fields.req_str(t.get("topologyKey"), source, f + ".topologyKey")
    selector = fields.label_selector(t.get("labelSelector"), source, f + ".labelSelector")
    namespaces = _str_list(t.get("namespaces"), source, f + ".namespaces")
    ns_selector = fields.label_selector(
        t.get("namespaceSelector"), source, f + ".namespaceSelector"
    )
    match = _str_list(t.get("matchLabelKeys"), source, f + ".matchLabelKeys")
    mismatch = _str_list(t.get("mismatchLabelKeys"), source, f + ".mismatchLabelKeys")
    both = set(match) & set(mismatch)
    if both:
        raise InputError(
            f"key {sorted(both)[0]!r} is in both matchLabelKeys and mismatchLabelKeys",
            source, f + ".mismatchLabelKeys",
        )
    if not namespaces and ns_selector is None:
        namespaces = [ns]  # neither set: the pod's own namespace
    return PodAffinityTerm(
        topology_key=key,
        selector=_with_keys(selector, labels, match, mismatch),
        namespaces=frozenset(namespaces),
        namespace_selector=ns_selector,
    )


def pod_affinity_terms(
    spec: dict[str, Any], ns: str, labels: Mapping[str, str], source: Source
) -> tuple[tuple[PodAffinityTerm, ...], tuple[PodAffinityTerm, ...]]:
    """Required pod affinity and anti-affinity terms."""
    affinity = fields.mapping(spec.get("affinity"), source, "spec.affinity")
    out: list[tuple[PodAffinityTerm, ...]] = []
    for kind in ("podAffinity", "podAntiAffinity"):
        base = f"spec.affinity.{kind}"
        section = fields.mapping(affinity.get(kind), source, base)
        terms = fields.list_field(section.get(_REQUIRED), source, f"{base}.{_REQUIRED}")
        out.append(tuple(_term(t, ns, labels, source, f"{base}.{_REQUIRED}[{i}]")
                         for i, t in enumerate(terms)))
    return out[0], out[1]


def spread_constraints(
    spec: dict[str, Any], labels: Mapping[str, str], source: Source
) -> tuple[SpreadConstraint, ...]:
    """The DoNotSchedule topology spread constraints (ScheduleAnyway ones only score)."""
    out = []
    base = "spec.topologySpreadConstraints"
    raw = fields.list_field(spec.get("topologySpreadConstraints"), source, base)
    for i, c in enumerate(raw):
        f = f"spec.topologySpreadConstraints[{i}]"
        if type(c) is not dict:
            raise fields.type_error(c, "a mapping", source, f)
        when = fields.enum(c.get("whenUnsatisfiable"), _WHEN, source, f + ".whenUnsatisfiable")
        if when is None:
            raise InputError("missing (required)", source, f + ".whenUnsatisfiable")
        skew = fields.opt_int(c.get("maxSkew"), source, f + ".maxSkew")
        if skew is None or skew <= 0:
            raise InputError("must be an integer greater than 0", source, f + ".maxSkew")
        key = fields.req_str(c.get("topologyKey"), source, f + ".topologyKey")
        selector = fields.label_selector(c.get("labelSelector"), source, f + ".labelSelector")
        min_domains = fields.opt_int(c.get("minDomains"), source, f + ".minDomains")
        if min_domains is not None and min_domains <= 0:
            raise InputError("must be greater than 0", source, f + ".minDomains")
        if min_domains is not None and when != "DoNotSchedule":
            raise InputError("may only be set with whenUnsatisfiable DoNotSchedule",
                             source, f + ".minDomains")
        affinity_policy = fields.enum(c.get("nodeAffinityPolicy"), _POLICIES, source,
                                     f + ".nodeAffinityPolicy")
        taints_policy = fields.enum(c.get("nodeTaintsPolicy"), _POLICIES, source,
                                   f + ".nodeTaintsPolicy")
        keys = _str_list(c.get("matchLabelKeys"), source, f + ".matchLabelKeys")
        if when != "DoNotSchedule":
            continue
        if selector is not None and keys:
            extra = {k: labels[k] for k in keys if k in labels}
            if extra:
                selector = LabelSelector(match_labels={**selector.match_labels, **extra},
                                         match_expressions=selector.match_expressions)
        out.append(SpreadConstraint(
            max_skew=skew,
            topology_key=key,
            selector=selector,
            min_domains=min_domains or 1,
            node_affinity_policy=affinity_policy or "Honor",
            node_taints_policy=taints_policy or "Ignore",
        ))
    return tuple(out)


def _plain_ports(ports: Any) -> bool:
    """Whether a container's ``ports`` (absent, or a list of mappings) ask for no host port;
    anything else is for ``host_ports`` to read (and report)."""
    if ports is None:
        return True
    if type(ports) is not list:
        return False
    for p in ports:
        if type(p) is not dict:
            return False
        hp = p.get("hostPort")
        if not (hp is None or (type(hp) is int and hp == 0)):
            return False
    return True


def _no_host_port(containers: Any) -> bool:
    """Whether ``containers`` (absent, or a list of mappings) ask for no host port."""
    if containers is None:
        return True
    if type(containers) is not list:
        return False
    for c in containers:
        if type(c) is not dict or not _plain_ports(c.get("ports")):
            return False
    return True


def host_ports(spec: dict[str, Any], source: Source) -> tuple[HostPort, ...]:
    """Ports with hostPort > 0 of the containers and restartable init containers
    (``util.GetHostPorts``)."""
    if "initContainers" not in spec and _no_host_port(spec.get("containers")):
        return ()  # the usual pod
    out = []
    for group in ("initContainers", "containers"):
        containers = spec.get(group)
        if containers is None:
            continue
        for i, c in enumerate(fields.list_field(containers, source, f"spec.{group}")):
            if type(c) is not dict:
                raise fields.type_error(c, "a mapping", source, f"spec.{group}[{i}]")
            if group == "initContainers" and c.get("restartPolicy") != "Always":
                continue
            ports = c.get("ports")
            if _plain_ports(ports):
                continue
            base = f"spec.{group}[{i}].ports"
            for j, p in enumerate(fields.list_field(ports, source, base)):
                f = f"{base}[{j}]"
                if type(p) is not dict:
                    raise fields.type_error(p, "a mapping", source, f)
                port = fields.opt_int(p.get("hostPort"), source, f + ".hostPort")
                if not port:
                    continue
                if not 0 < port < 65536:
                    raise InputError("must be between 1 and 65535", source, f + ".hostPort")
                proto = fields.enum(p.get("protocol"), _PROTOCOLS, source, f + ".protocol")
                ip = fields.opt_str(p.get("hostIP"), source, f + ".hostIP")
                out.append(HostPort(port=port, protocol=proto or "TCP", ip=ip or "0.0.0.0"))
    return tuple(out)


def namespace_labels(obj: dict[str, Any], name: str, source: Source) -> dict[str, str]:
    """The Namespace's labels (for namespaceSelector terms); an error names the Namespace."""
    try:
        meta = fields.mapping(obj.get("metadata"), source, "metadata")
        labels = fields.str_map(meta.get("labels"), source, "metadata.labels")
    except InputError as exc:
        raise exc.about(f"Namespace {name}") from None
    labels.setdefault(NAMESPACE_NAME_LABEL, name)
    return labels


# ---- what is not modelled --------------------------------------------------------------------


def _warning(code: str, obj: str, field: str | None, message: str,
             source: Source | None) -> LoadWarning:
    return LoadWarning(code=code, object=obj, field=field, message=message,
                       source=source)


def pod_warnings(spec: dict[str, Any], key: str, pending: bool, gated: bool,
                 source: Source) -> list[LoadWarning]:
    """What in this pod wapctl reads past without evaluating (see the module docstring)."""
    out: list[LoadWarning] = []
    name = spec.get("schedulerName")
    if not (pending or gated) and (name is None or name == DEFAULT_SCHEDULER):
        return out  # a running pod of the default scheduler: the usual pod
    obj = f"Pod {key}"
    if type(name) is str and name and name != DEFAULT_SCHEDULER:
        out.append(_warning(
            "OtherScheduler", obj, "spec.schedulerName",
            f"placed by scheduler {name!r}, not {DEFAULT_SCHEDULER}; wapctl models "
            "kube-scheduler's default profile", source))
    if gated:
        out.append(_warning(
            "SchedulingGated", obj, "spec.schedulingGates",
            "gated: the scheduler does not try it until its gates are removed; wapctl leaves it "
            "out of the queue", source))
    if not pending and not gated:
        return out
    volumes = spec.get("volumes")
    if type(volumes) is list:
        for i, v in enumerate(volumes):
            if type(v) is dict and ("persistentVolumeClaim" in v or "ephemeral" in v):
                kind = "persistentVolumeClaim" if "persistentVolumeClaim" in v else "ephemeral"
                out.append(_warning(
                    "VolumeNotModelled", obj, f"spec.volumes[{i}].{kind}",
                    "volume topology, binding and attach limits are not evaluated "
                    "(VolumeBinding, VolumeZone, NodeVolumeLimits, VolumeRestrictions)", source))
    if spec.get("resourceClaims"):
        out.append(_warning(
            "ResourceClaimNotModelled", obj, "spec.resourceClaims",
            "dynamic resource claims (DRA) are not evaluated: a node may lack the devices",
            source))
    affinity = spec.get("affinity")
    if type(affinity) is dict:
        for kind in ("nodeAffinity", "podAffinity", "podAntiAffinity"):
            section = affinity.get(kind)
            if type(section) is dict and section.get(_PREFERRED):
                out.append(_warning(
                    "ScoringOnlyTerms", obj, f"spec.affinity.{kind}.{_PREFERRED}",
                    "preferred terms only score nodes (which feasible node is picked), "
                    "never whether one fits; wapctl does not score", source))
    spread = spec.get("topologySpreadConstraints")
    if type(spread) is list:
        for i, c in enumerate(spread):
            if type(c) is dict and c.get("whenUnsatisfiable") == "ScheduleAnyway":
                out.append(_warning(
                    "ScoringOnlyTerms", obj,
                    f"spec.topologySpreadConstraints[{i}].whenUnsatisfiable",
                    "ScheduleAnyway constraints only score nodes; wapctl does not score",
                    source))
    return out


def group_warnings(obj: dict[str, Any], label: str, source: Source) -> list[LoadWarning]:
    """Topology-aware workload scheduling constraints on a PodGroup or a Workload's templates."""
    spec = obj.get("spec")
    if type(spec) is not dict:
        return []
    out = []
    if spec.get("schedulingConstraints") is not None:
        out.append(_warning(
            "WorkloadConstraintsNotModelled", label, "spec.schedulingConstraints",
            "topology-aware workload scheduling constraints are not evaluated", source))
    templates = spec.get("podGroupTemplates")
    if type(templates) is list:
        for i, t in enumerate(templates):
            if type(t) is dict and t.get("schedulingConstraints") is not None:
                out.append(_warning(
                    "WorkloadConstraintsNotModelled", label,
                    f"spec.podGroupTemplates[{i}].schedulingConstraints",
                    "topology-aware workload scheduling constraints are not evaluated",
                    source))
    return out


def namespace_warnings(
    pods: Any, namespaces: Mapping[str, Mapping[str, str]],
    pod_namespaces: set[str] | None = None,
) -> list[LoadWarning]:
    """A namespaceSelector met a namespace with no Namespace object: only its name label is
    known. One warning per pod whose term has a non-empty namespaceSelector. (``pod_namespaces``:
    the pods' namespaces, where the caller knows them.)"""
    if pod_namespaces is None:
        pod_namespaces = {p.namespace for p in pods}
    missing = sorted(pod_namespaces - set(namespaces))
    if not missing:
        return []
    out = []
    for p in pods:
        if not p.affinity_terms and not p.anti_affinity_terms:
            continue  # most pods: nothing to check
        for kind, terms in (("podAffinity", p.affinity_terms),
                            ("podAntiAffinity", p.anti_affinity_terms)):
            if any(t.namespace_selector is not None and (t.namespace_selector.match_labels
                                                        or t.namespace_selector.match_expressions)
                   for t in terms):
                out.append(_warning(
                    "NamespaceLabelsUnknown", f"Pod {p.key}", f"spec.affinity.{kind}",
                    "namespaceSelector evaluated without Namespace objects for "
                    f"{', '.join(missing)} (only their {NAMESPACE_NAME_LABEL} label is known)",
                    p.source))
                break
    return out
