"""Priority resolution (SPEC.md §2) as pure functions over parsed PriorityClasses."""

from __future__ import annotations

from typing import Any

import pytest

from wapctl import priority as prio
from wapctl.errors import InputError, Source
from wapctl.model import NEVER, PREEMPT_LOWER, PriorityClass

LOW = PriorityClass("low", 10)
MID = PriorityClass("mid", 50)
HIGH = PriorityClass("high", 100)
QUIET = PriorityClass("quiet", 70, preemption_policy=NEVER)
DEFAULT = PriorityClass("dflt", 5, global_default=True)

# id, resolve_pod keyword arguments, (priority, preemption priority, policy)
POD_CASES: list[tuple[str, dict[str, Any], tuple[int, int, str]]] = [
    ("nothing at all", {}, (0, 0, PREEMPT_LOWER)),
    ("global default", {"default": DEFAULT}, (5, 5, PREEMPT_LOWER)),
    (
        "own class beats default",
        {"priority_class": MID, "default": DEFAULT},
        (50, 50, PREEMPT_LOWER),
    ),
    (
        "spec.priority beats own class",
        {"spec_priority": 7, "priority_class": MID},
        (7, 7, PREEMPT_LOWER),
    ),
    (
        "group class beats spec.priority",
        {"spec_priority": 7, "group": prio.resolve_group(priority_class=HIGH)},
        (100, 100, PREEMPT_LOWER),
    ),
    (
        "group preemption class sets the victim priority",
        {
            "spec_priority": 7,
            "group": prio.resolve_group(priority_class=HIGH, preemption_class=MID),
        },
        (100, 50, PREEMPT_LOWER),
    ),
    (
        "group without priority defers to the pod, keeps its preemption class",
        {"spec_priority": 7, "group": prio.resolve_group(preemption_class=HIGH)},
        (7, 100, PREEMPT_LOWER),
    ),
    ("class Never", {"priority_class": QUIET}, (70, 70, NEVER)),
    ("spec Never beats class", {"priority_class": MID, "spec_policy": NEVER}, (50, 50, NEVER)),
    (
        "spec PreemptLowerPriority beats a Never class",
        {"priority_class": QUIET, "spec_policy": PREEMPT_LOWER},
        (70, 70, PREEMPT_LOWER),
    ),
    (
        "group class Never makes its pods Never",
        {"spec_priority": 1, "group": prio.resolve_group(priority_class=QUIET)},
        (70, 70, NEVER),
    ),
    (
        "explicit v1alpha3 group policy Never",
        {"group": prio.resolve_group(priority=3, preemption_policy=NEVER, use_default=True)},
        (3, 3, NEVER),
    ),
    (
        "pod Never inside a preempting group",
        {"spec_policy": NEVER, "group": prio.resolve_group(priority_class=HIGH)},
        (100, 100, NEVER),
    ),
    (
        "default class policy applies when the default gives the priority",
        {"default": PriorityClass("d", 1, global_default=True, preemption_policy=NEVER)},
        (1, 1, NEVER),
    ),
]


@pytest.mark.parametrize(
    ("kwargs", "expected"), [c[1:] for c in POD_CASES], ids=[c[0] for c in POD_CASES]
)
def test_resolve_pod(kwargs: dict[str, Any], expected: tuple[int, int, str]) -> None:
    """A pod's scheduling priority, preemption priority and policy follow SPEC.md §2."""
    got = prio.resolve_pod(**kwargs)
    assert expected == (got.priority, got.preemption_priority, got.preemption_policy)


def test_resolve_pod_reports_its_own_priority() -> None:
    """own_priority is what the pod alone says, even when its group overrides it."""
    got = prio.resolve_pod(priority_class=LOW, group=prio.resolve_group(priority_class=HIGH))
    assert (100, 10, False) == (got.priority, got.own_priority, got.own_never)
    assert prio.resolve_pod().own_priority is None


GROUP_CASES: list[tuple[str, dict[str, Any], tuple[Any, ...]]] = [
    ("nothing, v1alpha1", {}, (None, None, None, None, None)),
    ("nothing, v1alpha2 without a default", {"use_default": True}, (0, None, None, None, None)),
    (
        "nothing, v1alpha2 with a default",
        {"use_default": True, "default": DEFAULT},
        (5, "dflt", None, None, PREEMPT_LOWER),
    ),
    ("class", {"priority_class": MID}, (50, "mid", None, None, PREEMPT_LOWER)),
    (
        "number beats class",
        {"priority_class": MID, "priority": 55},
        (55, "mid", None, None, PREEMPT_LOWER),
    ),
    (
        "number only",
        {"priority": 55, "use_default": True, "default": DEFAULT},
        (55, None, None, None, None),
    ),
    (
        "preemption class",
        {"priority_class": MID, "preemption_class": HIGH},
        (50, "mid", 100, "high", PREEMPT_LOWER),
    ),
    (
        "explicit policy beats class policy",
        {"priority_class": QUIET, "preemption_policy": PREEMPT_LOWER},
        (70, "quiet", None, None, PREEMPT_LOWER),
    ),
]


@pytest.mark.parametrize(
    ("kwargs", "expected"), [c[1:] for c in GROUP_CASES], ids=[c[0] for c in GROUP_CASES]
)
def test_resolve_group(kwargs: dict[str, Any], expected: tuple[Any, ...]) -> None:
    """A group's own priority settings, resolved against the classes."""
    g = prio.resolve_group(**kwargs)
    assert expected == (
        g.priority,
        g.priority_class_name,
        g.preemption_priority,
        g.preemption_priority_class_name,
        g.preemption_policy,
    )


VALUE_CASES: list[
    tuple[str, prio.GroupPriority, list[int], dict[str, Any], tuple[int, int, str]]
] = [
    ("own priority", prio.resolve_group(priority_class=MID), [1, 2], {}, (50, 50, PREEMPT_LOWER)),
    ("lowest member", prio.GroupPriority(), [30, 20, 40], {}, (20, 20, PREEMPT_LOWER)),
    ("no members: default", prio.GroupPriority(), [], {"default": DEFAULT}, (5, 5, PREEMPT_LOWER)),
    ("no members, no default", prio.GroupPriority(), [], {}, (0, 0, PREEMPT_LOWER)),
    (
        "preemption class",
        prio.resolve_group(preemption_class=HIGH),
        [30],
        {},
        (30, 100, PREEMPT_LOWER),
    ),
    (
        "a Never member",
        prio.resolve_group(priority_class=MID),
        [50],
        {"member_never": True},
        (50, 50, NEVER),
    ),
    ("a Never class", prio.resolve_group(priority_class=QUIET), [], {}, (70, 70, NEVER)),
]


@pytest.mark.parametrize(
    ("group", "members", "kwargs", "expected"),
    [c[1:] for c in VALUE_CASES],
    ids=[c[0] for c in VALUE_CASES],
)
def test_group_values(
    group: prio.GroupPriority,
    members: list[int],
    kwargs: dict[str, Any],
    expected: tuple[int, int, str],
) -> None:
    """A pod group's priority as a unit: its own, else its least important pod's."""
    assert expected == prio.group_values(group, members, **kwargs)


def test_global_default_none_one_and_two() -> None:
    """No default is None, one is returned, two are an InputError naming the class."""
    assert prio.global_default([LOW, MID]) is None
    assert DEFAULT == prio.global_default([LOW, DEFAULT])
    other = PriorityClass("other", 1, global_default=True, source=Source("classes.yaml", 2))
    with pytest.raises(InputError) as info:
        prio.global_default([DEFAULT, other])
    assert "dflt, other" in str(info.value)
    assert "classes.yaml, document 2, field globalDefault" in str(info.value)


def test_lookup_missing_class_names_the_field() -> None:
    """A missing class is an InputError naming where it was asked for."""
    assert MID == prio.lookup({"mid": MID}, "mid", None, "spec.priorityClassName")
    with pytest.raises(InputError) as info:
        prio.lookup({"mid": MID}, "gold", Source("p.yaml", 1), "spec.priorityClassName")
    assert (
        "p.yaml, document 1, field spec.priorityClassName: PriorityClass 'gold' does not exist"
        in str(info.value)
    )
