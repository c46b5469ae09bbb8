"""Scheduling and preemption priority resolution (SPEC.md §2), as pure functions.

The loader parses PriorityClasses, pod groups and pods, looks the named classes up with
``lookup`` (which is where a missing class becomes an ``InputError``) and then calls
``resolve_group`` / ``resolve_pod`` / ``group_values``. Nothing here reads documents.

Rules (SPEC.md §2, KEP-5710, kube-scheduler):

- Scheduling priority of a pod: its pod group's priority if the group sets one (a class or a
  number), else ``spec.priority``, else its own ``spec.priorityClassName``, else the
  ``globalDefault`` PriorityClass, else 0. A group's explicit number wins over its class, as
  upstream reads ``PodGroup.spec.priority`` (the admission controller fills it from the class).
- Preemption priority (its priority as a victim): the group's preemption priority class if set
  (``preemptionPriorityClassName``, the seed-era KEP-5710 field), else the scheduling priority.
- Preemption policy: ``Never`` wins. A pod never preempts when its own policy says so
  (``spec.preemptionPolicy``, else its class's) or when its group's does (the v1alpha3
  ``preemptionPolicy`` of the PodGroup, else the class that gave the group its priority). A pod
  group never preempts when the group says so or any of its pods does — upstream's PodGroup
  preemptor is ``Never`` as soon as one member pod is.
- More than one ``globalDefault`` class is a contradiction (upstream admission would silently
  take the smallest; a snapshot that has two is almost certainly a mistake).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from wapctl.errors import InputError, Source
from wapctl.model import NEVER, PREEMPT_LOWER, PreemptionPolicy, PriorityClass

__all__ = [
    "GroupPriority",
    "PodPriority",
    "global_default",
    "group_values",
    "lookup",
    "resolve_group",
    "resolve_pod",
]


@dataclass(frozen=True, slots=True)
class GroupPriority:
    """What a pod group itself says about priority, already resolved against the classes.

    ``priority`` is None when the group sets none (a v1alpha1 Workload without a class): its
    pods then use their own priorities."""

    priority: int | None = None
    priority_class_name: str | None = None
    preemption_priority: int | None = None
    preemption_priority_class_name: str | None = None
    preemption_policy: PreemptionPolicy | None = None


@dataclass(frozen=True, slots=True)
class PodPriority:
    priority: int  # scheduling priority
    preemption_priority: int
    preemption_policy: PreemptionPolicy
    own_priority: int | None  # what the pod alone says (spec.priority, else its class), if any
    own_never: bool  # the pod's own policy (spec or class) is Never


def global_default(classes: Iterable[PriorityClass]) -> PriorityClass | None:
    """The one ``globalDefault`` class, or None; two or more are an ``InputError``."""
    defaults = sorted((c for c in classes if c.global_default), key=lambda c: c.name)
    if len(defaults) > 1:
        names = ", ".join(c.name for c in defaults)
        raise InputError(
            f"more than one PriorityClass has globalDefault: true ({names}); keep one",
            defaults[1].source,
            "globalDefault",
        )
    return defaults[0] if defaults else None


def lookup(
    classes: Mapping[str, PriorityClass], name: str, source: Source | None, field: str
) -> PriorityClass:
    """The class called ``name``; a missing one is an ``InputError`` naming the field."""
    found = classes.get(name)
    if found is None:
        raise InputError(f"PriorityClass {name!r} does not exist in the snapshot", source, field)
    return found


def resolve_group(
    *,
    priority_class: PriorityClass | None = None,
    priority: int | None = None,
    preemption_class: PriorityClass | None = None,
    preemption_policy: PreemptionPolicy | None = None,
    default: PriorityClass | None = None,
    use_default: bool = False,
) -> GroupPriority:
    """A group's own priority settings.

    ``use_default``: the group always has a priority (a v1alpha2/v1alpha3 PodGroup: admission
    gives it the globalDefault class, or 0 when there is none) instead of deferring to its pods.
    """
    value: int | None
    policy = preemption_policy
    if priority is not None:
        value = priority
    elif priority_class is not None:
        value = priority_class.value
    elif use_default:
        value = default.value if default is not None else 0
    else:
        value = None
    if policy is None:
        if priority_class is not None:
            policy = priority_class.preemption_policy
        elif use_default and priority is None and default is not None:
            policy = default.preemption_policy
    class_name = priority_class.name if priority_class is not None else None
    if class_name is None and use_default and priority is None and default is not None:
        class_name = default.name
    return GroupPriority(
        priority=value,
        priority_class_name=class_name,
        preemption_priority=preemption_class.value if preemption_class is not None else None,
        preemption_priority_class_name=(
            preemption_class.name if preemption_class is not None else None
        ),
        preemption_policy=policy,
    )


def resolve_pod(
    *,
    spec_priority: int | None = None,
    priority_class: PriorityClass | None = None,
    spec_policy: PreemptionPolicy | None = None,
    default: PriorityClass | None = None,
    group: GroupPriority | None = None,
) -> PodPriority:
    """A pod's scheduling priority, preemption priority and policy (module docstring)."""
    own = spec_priority
    if own is None and priority_class is not None:
        own = priority_class.value
    own_policy = spec_policy
    if own_policy is None and priority_class is not None:
        own_policy = priority_class.preemption_policy
    if group is not None and group.priority is not None:
        value = group.priority
    elif own is not None:
        value = own
    elif default is not None:
        value = default.value
        if own_policy is None:
            own_policy = default.preemption_policy
    else:
        value = 0
    own_never = own_policy == NEVER
    never = own_never or (group is not None and group.preemption_policy == NEVER)
    preemption = value
    if group is not None and group.preemption_priority is not None:
        preemption = group.preemption_priority
    return PodPriority(
        priority=value,
        preemption_priority=preemption,
        preemption_policy=NEVER if never else PREEMPT_LOWER,
        own_priority=own,
        own_never=own_never,
    )


def group_values(
    group: GroupPriority,
    member_priorities: Iterable[int],
    *,
    member_never: bool = False,
    default: PriorityClass | None = None,
) -> tuple[int, int, PreemptionPolicy]:
    """The (scheduling priority, preemption priority, policy) of a pod group as a unit.

    A group without a priority of its own (v1alpha1 without a Workload class) takes the lowest
    priority of its pods — KEP-5710's "minimum of priorities of pods that belong to it" — or,
    with no pods, the globalDefault value (else 0)."""
    if group.priority is not None:
        value = group.priority
    else:
        members = list(member_priorities)
        if members:
            value = min(members)
        else:
            value = default.value if default is not None else 0
    preemption = group.preemption_priority if group.preemption_priority is not None else value
    never = member_never or group.preemption_policy == NEVER
    return value, preemption, NEVER if never else PREEMPT_LOWER
