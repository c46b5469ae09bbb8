"""Controllers' pod templates as workloads: what a pipeline's manifests will run.

CI pipelines hold Deployments, Jobs, JobSets, ... — not pods. Each pod template becomes a
:class:`~wapctl.model.PodTemplateWorkload` with the priorities its pods will have, so the
priority graph (``graph.py``) sees them as members before any pod exists.

Where the pod templates are (kind, API group: path of the ``PodTemplateSpec``):

- ``Deployment``, ``ReplicaSet``, ``StatefulSet``, ``DaemonSet`` (apps), ``ReplicationController``
  (core), ``Job`` (batch): ``spec.template``
- ``CronJob`` (batch): ``spec.jobTemplate.spec.template``
- ``PodTemplate`` (core): ``template``
- ``JobSet`` (jobset.x-k8s.io): ``spec.replicatedJobs[i].template.spec.template``, one template
  per replicated job, named by it
- ``LeaderWorkerSet`` (leaderworkerset.x-k8s.io): ``spec.leaderWorkerTemplate.leaderTemplate``
  (named ``leader``; optional, the leader uses the worker template without it) and
  ``spec.leaderWorkerTemplate.workerTemplate`` (``worker``)
- a ``Workload``'s ``podGroupTemplates[]`` (scheduling.k8s.io v1alpha2, v1alpha3, v1beta1) that no
  ``PodGroup`` object instantiates yet: :func:`from_pod_group_templates`.

Priorities, as for a pod (SPEC.md §2): a template whose pods join a pod group of the snapshot
(``spec.workloadRef`` to a v1alpha1 Workload, ``spec.schedulingGroup.podGroupName`` to a
PodGroup object) takes the group's scheduling and preemption priority; otherwise
``spec.priority``, else its ``priorityClassName``'s value, else the ``globalDefault`` class,
else 0, and its preemption priority is the same (a pod has no preemption class of its own).
A reference to a pod group that the snapshot does not hold is normal in manifests (controllers
create PodGroups at run time): the template then keeps its own priority.

A ``priorityClassName`` that no PriorityClass of the snapshot defines is not an input error
here (unlike for a pod): the template is kept with ``unknown_class`` set and no priority, and
``check-cycles`` reports it as a finding. Malformed fields (a template that is not a mapping, a
priority that is not an integer) are ``InputError`` naming file, document and field.
Nothing here modifies its input.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wapctl import priority as prio
from wapctl.errors import InputError, Source
from wapctl.ingest import fields
from wapctl.model import NEVER, PREEMPT_LOWER, PodGroup, PodTemplateWorkload, PriorityClass

__all__ = ["KINDS", "extract", "from_pod_group_templates", "resolve"]

# (API group, kind) of the controllers whose pod templates are read.
KINDS: frozenset[tuple[str, str]] = frozenset(
    {
        ("apps", "Deployment"),
        ("apps", "ReplicaSet"),
        ("apps", "StatefulSet"),
        ("apps", "DaemonSet"),
        ("", "ReplicationController"),
        ("", "PodTemplate"),
        ("batch", "Job"),
        ("batch", "CronJob"),
        ("jobset.x-k8s.io", "JobSet"),
        ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
    }
)
_POLICIES = (PREEMPT_LOWER, NEVER)


class RawTemplate:
    """One pod template found in an object, before priorities are resolved."""

    __slots__ = ("field", "kind", "labels", "name", "namespace", "pod", "source", "template")

    def __init__(
        self,
        kind: str,
        namespace: str,
        name: str,
        template: str | None,
        field: str,
        pod: dict[str, Any],
        labels: dict[str, str],
        source: Source,
    ):
        self.kind = kind
        self.namespace = namespace
        self.name = name
        self.template = template
        self.field = field  # path of the PodTemplateSpec
        self.pod = pod  # the PodTemplateSpec mapping
        self.labels = labels
        self.source = source


def _mapping(value: Any, source: Source, field: str) -> dict[str, Any]:
    if value is None:
        return {}
    if type(value) is not dict:
        raise InputError(f"must be a mapping, not {fields.typename(value)}", source, field)
    return value


def _labels(meta: dict[str, Any], source: Source, field: str) -> dict[str, str]:
    raw = _mapping(meta.get("labels"), source, field)
    return {str(k): v for k, v in raw.items() if type(v) is str}


def _at(obj: dict[str, Any], path: str, source: Source) -> dict[str, Any] | None:
    """The mapping at a dotted path, None when some step is absent."""
    here: Any = obj
    walked: list[str] = []
    for step in path.split("."):
        here = _mapping(here, source, ".".join(walked) or step).get(step)
        walked.append(step)
        if here is None:
            return None
    return _mapping(here, source, path)


def extract(
    kind: str, obj: dict[str, Any], source: Source, namespace: str, name: str
) -> list[RawTemplate]:
    """The pod templates of one controller object (``kind`` one of :data:`KINDS`)."""
    meta = _mapping(obj.get("metadata"), source, "metadata")
    owner_labels = _labels(meta, source, "metadata.labels")
    found: list[tuple[str | None, str]] = []  # (template name, path of the PodTemplateSpec)
    if kind == "CronJob":
        found.append((None, "spec.jobTemplate.spec.template"))
    elif kind == "PodTemplate":
        found.append((None, "template"))
    elif kind == "JobSet":
        spec = _mapping(obj.get("spec"), source, "spec")
        jobs = spec.get("replicatedJobs")
        if jobs is not None and type(jobs) is not list:
            raise InputError(f"must be a list, not {fields.typename(jobs)}", source,
                             "spec.replicatedJobs")
        for i, job in enumerate(jobs or ()):
            f = f"spec.replicatedJobs[{i}]"
            job = _mapping(job, source, f)
            jname = job.get("name")
            if type(jname) is not str or not jname:
                raise InputError("missing (required)", source, f + ".name")
            found.append((jname, f + ".template.spec.template"))
    elif kind == "LeaderWorkerSet":
        lwt = _at(obj, "spec.leaderWorkerTemplate", source) or {}
        if lwt.get("leaderTemplate") is not None:
            found.append(("leader", "spec.leaderWorkerTemplate.leaderTemplate"))
        found.append(("worker", "spec.leaderWorkerTemplate.workerTemplate"))
    else:
        found.append((None, "spec.template"))
    out = []
    for template, path in found:
        pod = _walk(obj, path, source)
        if pod is None:
            continue  # no template there: nothing this object will run
        pod_meta = _mapping(pod.get("metadata"), source, path + ".metadata")
        labels = {**_labels(pod_meta, source, path + ".metadata.labels"), **owner_labels}
        out.append(RawTemplate(kind, namespace, name, template, path, pod, labels, source))
    return out


def _walk(obj: dict[str, Any], path: str, source: Source) -> dict[str, Any] | None:
    """Like :func:`_at`, but ``path`` may index lists (``replicatedJobs[0]``)."""
    here: Any = obj
    walked = ""
    for step in path.split("."):
        key, _, index = step.partition("[")
        here = _mapping(here, source, walked or key).get(key)
        walked = f"{walked}.{key}" if walked else key
        if here is None:
            return None
        if index:
            here = here[int(index[:-1])]  # checked by extract
            walked += f"[{index}"
    return _mapping(here, source, path)


def resolve(
    raw: RawTemplate,
    classes: Mapping[str, PriorityClass],
    default: PriorityClass | None,
    pod_groups: Mapping[str, PodGroup],
    group_objects: Mapping[str, str],
) -> PodTemplateWorkload:
    """The template's priorities (module docstring). ``group_objects`` maps a v1alpha2/3
    PodGroup object's ``ns/name`` to its pod group key."""
    source = raw.source
    base = raw.field + ".spec"
    spec = _mapping(raw.pod.get("spec"), source, base)
    pcn = spec.get("priorityClassName") or None
    if pcn is not None and type(pcn) is not str:
        raise InputError(f"must be a string, not {fields.typename(pcn)}", source,
                         base + ".priorityClassName")
    number = spec.get("priority")
    if number is not None:  # as a pod's spec.priority is checked
        if type(number) is not int:
            raise fields.type_error(number, "an integer", source, base + ".priority")
        fields.check_int32(number, source, base + ".priority")
    policy = spec.get("preemptionPolicy") or None
    if policy is not None and policy not in _POLICIES:
        raise InputError(
            f"unknown value {policy!r} (expected one of: {', '.join(_POLICIES)})",
            source,
            base + ".preemptionPolicy",
        )
    group = _group_of(spec, raw.namespace, pod_groups, group_objects)
    key = f"{raw.kind} {raw.namespace}/{raw.name}"
    if raw.template is not None:
        key += f"/{raw.template}"
    common = dict(
        kind=raw.kind,
        namespace=raw.namespace,
        name=raw.name,
        template=raw.template,
        key=key,
        field=base,
        priority_class_name=pcn,
        labels=raw.labels,
        source=source,
    )
    pc = classes.get(pcn) if pcn is not None else None
    if pcn is not None and pc is None and number is None:
        return PodTemplateWorkload(
            **common,  # type: ignore[arg-type]
            priority=None,
            preemption_priority=None,
            group_key=group.key if group is not None else None,
            unknown_class=pcn,
        )
    pp = prio.resolve_pod(
        spec_priority=number, priority_class=pc, spec_policy=policy, default=default
    )
    if group is not None:
        never = group.preemption_policy == NEVER or pp.own_never
        return PodTemplateWorkload(
            **common,  # type: ignore[arg-type]
            priority=group.priority,
            preemption_priority=group.preemption_priority,
            preemption_policy=NEVER if never else PREEMPT_LOWER,
            group_key=group.key,
            unknown_class=pcn if pcn is not None and pc is None else None,
        )
    return PodTemplateWorkload(
        **common,  # type: ignore[arg-type]
        priority=pp.priority,
        preemption_priority=pp.preemption_priority,
        preemption_policy=pp.preemption_policy,
        unknown_class=pcn if pcn is not None and pc is None else None,
    )


def _group_of(
    spec: dict[str, Any],
    namespace: str,
    pod_groups: Mapping[str, PodGroup],
    group_objects: Mapping[str, str],
) -> PodGroup | None:
    wref = spec.get("workloadRef")
    if type(wref) is dict:
        name, group = wref.get("name"), wref.get("podGroup")
        if type(name) is str and type(group) is str:
            return pod_groups.get(f"{namespace}/{name}/{group}")
    sg = spec.get("schedulingGroup")
    if type(sg) is dict and type(sg.get("podGroupName")) is str:
        key = group_objects.get(f"{namespace}/{sg['podGroupName']}")
        return pod_groups.get(key) if key is not None else None
    return None


def from_pod_group_templates(
    namespace: str,
    name: str,
    source: Source,
    templates: Mapping[str, Mapping[str, Any]],
    workload_class: PriorityClass | None,
    workload_preemption_class: PriorityClass | None,
    default: PriorityClass | None,
) -> list[PodTemplateWorkload]:
    """A Workload's ``podGroupTemplates`` as the pod groups they will become: each template's
    own class (or number), else the Workload's, else the globalDefault, as for a PodGroup
    object that names the template and sets nothing itself. ``templates`` are the loader's
    parsed template settings (``priority``: (class, number), ``preemption_class``,
    ``preemption_policy``, ``field``)."""
    out = []
    for tname in sorted(templates):
        t = templates[tname]
        pc, number = t.get("priority") or (None, None)
        if pc is None and number is None:
            pc = workload_class
        gp = prio.resolve_group(
            priority_class=pc,
            priority=number,
            preemption_class=t.get("preemption_class") or workload_preemption_class,
            preemption_policy=t.get("preemption_policy"),
            default=default,
            use_default=True,
        )
        value, preemption, policy = prio.group_values(gp, (), default=default)
        out.append(
            PodTemplateWorkload(
                kind="Workload",
                namespace=namespace,
                name=name,
                template=tname,
                key=f"Workload {namespace}/{name}/{tname}",
                field=str(t.get("field", "spec.podGroupTemplates.")).rstrip("."),
                priority_class_name=gp.priority_class_name,
                priority=value,
                preemption_priority=preemption,
                preemption_policy=policy,
                preemption_priority_class_name=gp.preemption_priority_class_name,
                source=source,
            )
        )
    return out
