"""Pending preemptors: queue order, gang grouping, selection from the command line."""

from __future__ import annotations

import pytest
from builders import basic, gang, member, node, pod, snapshot

from wapctl.errors import NothingPending, UsageError
from wapctl.model import NEVER
from wapctl.preemptor import Preemptor, pending_preemptors, select_preemptor

TRAIN = gang("train", min_count=3, prio=500, policy=NEVER)
WEB = basic("web", prio=50)
SVC = basic("svc", ns="prod", prio=10)


def _snapshot():
    return snapshot(
        nodes=[node("n1")],
        pods=[
            pod("late", prio=100, created=20.0),
            pod("early", prio=100, created=10.0),
            pod("b-undated", prio=100),
            pod("a-undated", prio=100),
            pod("low", prio=1, created=0.0),
            pod("bound", prio=1000, node="n1"),
            pod("done", prio=1000, phase="Succeeded"),
            pod("leaving", prio=1000, terminating=True),
            member(TRAIN, "t0", created=30.0),
            member(TRAIN, "t1", created=5.0),
            member(TRAIN, "t2", node="n1"),
            member(TRAIN, "t3", node="n1", terminating=True),
            member(WEB, "w0", created=1.0),
            member(WEB, "w1", created=2.0),
            member(SVC, "s0", created=0.0),
        ],
        groups=[TRAIN, WEB, SVC],
    )


def test_queue_order_priority_then_creation_then_key():
    """Higher priority first; then earlier creation (undated last); then key."""
    keys = [p.key for p in pending_preemptors(_snapshot())]
    assert ["default/train/main", "default/early", "default/late", "default/a-undated",
            "default/b-undated", "default/w0", "default/w1", "prod/s0", "default/low"] == keys


def test_gang_is_one_preemptor_with_needed_after_bound_pods():
    """A gang's pending pods form one PodGroup preemptor; running members count toward
    minCount, terminating ones do not."""
    train = pending_preemptors(_snapshot())[0]
    expected = Preemptor(
        kind="PodGroup", namespace="default", name="train", pod_group="main",
        group_key="default/train/main", priority=500, preemption_policy=NEVER, min_count=3,
        pods=tuple(_snapshot().pods[k] for k in ("default/t0", "default/t1")), needed=2,
    )
    assert expected == train


def test_basic_group_pods_are_individual_preemptors():
    """Pods of a Basic group queue one by one, keeping their group key."""
    w0 = next(p for p in pending_preemptors(_snapshot()) if p.key == "default/w0")
    assert ("Pod", None, "default/web/main", 1) == (w0.kind, w0.pod_group, w0.group_key,
                                                    w0.needed)


def test_namespace_narrows_the_queue():
    """--namespace keeps only preemptors of that namespace."""
    assert ["prod/s0"] == [p.key for p in pending_preemptors(_snapshot(), "prod")]


def test_needed_never_below_zero():
    """A gang with more running members than minCount needs 0 more."""
    g = gang("g", min_count=1, prio=5)
    snap = snapshot(nodes=[node("n1")],
                    pods=[member(g, "a", node="n1"), member(g, "b", node="n1"), member(g, "c")],
                    groups=[g])
    assert 0 == pending_preemptors(snap)[0].needed


def test_select_defaults_to_the_head_of_the_queue():
    """With neither --pod nor --workload the first pending preemptor is planned."""
    assert "default/train/main" == select_preemptor(_snapshot()).key


@pytest.mark.parametrize(
    ("kwargs", "expected_key", "expected_kind", "expected_needed"),
    [({"pod": "default/late"}, "default/late", "Pod", 1),
     ({"pod": "late"}, "default/late", "Pod", 1),
     ({"pod": "s0", "namespace": "prod"}, "prod/s0", "Pod", 1),
     ({"pod": "default/t0"}, "default/train/main", "PodGroup", 2),
     ({"workload": "default/train"}, "default/train/main", "PodGroup", 2),
     ({"workload": "default/train/main"}, "default/train/main", "PodGroup", 2),
     ({"workload": "default/web/main"}, "default/web/main", "PodGroup", 2),
     ({"namespace": "prod"}, "prod/s0", "Pod", 1)],
    ids=["pod", "pod-default-namespace", "pod-in-namespace", "gang-member-plans-its-gang",
         "workload", "workload-group", "basic-group-as-one-unit", "head-in-namespace"],
)
def test_select_preemptor(kwargs, expected_key, expected_kind, expected_needed):
    """A named pod or workload is planned; a basic group named as a workload is one unit
    needing all its pending pods."""
    chosen = select_preemptor(_snapshot(), **kwargs)
    assert (expected_key, expected_kind, expected_needed) == (chosen.key, chosen.kind,
                                                              chosen.needed)


# Domain errors name the pod or workload, never a CLI flag (issue 15: the core knows no flags;
# deliberate change of these messages), and suggest close names.
ERROR_CASES = [
    ({"pod": "default/x", "workload": "default/train"},
     "name a pod or a workload to plan for, not both"),
    ({"pod": "default/missing"}, "pod default/missing is not in the snapshot"),
    ({"pod": "default/bound"}, "pod default/bound is not pending: it is bound to node n1"),
    ({"pod": "default/done"}, "pod default/done is not pending: it has finished (Succeeded)"),
    ({"pod": "default/leaving"}, "pod default/leaving is not pending: it is terminating"),
    ({"pod": "a/b/c"}, "pod 'a/b/c': expected NAMESPACE/NAME"),
    ({"pod": "default/late", "namespace": "prod"},
     "pod default/late is not in namespace prod"),
    ({"workload": "default/nope"}, "workload default/nope is not in the snapshot"),
    ({"workload": "default/train/other"},
     "workload default/train has no pod group 'other' (it has: main)"),
    # a bare name: the namespaces holding a workload of that name are suggested (issue 26)
    ({"workload": "train"}, "workload 'train': expected NAMESPACE/NAME or NAMESPACE/NAME/GROUP"
                            " (did you mean default/train?)"),
]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    ERROR_CASES,
    ids=["both-options", "unknown-pod", "bound-pod", "finished-pod", "terminating-pod",
         "malformed-pod", "pod-outside-namespace", "unknown-workload", "unknown-group",
         "malformed-workload"],
)
def test_select_preemptor_errors(kwargs, message):
    """Unknown, non-pending or malformed names are usage errors (exit 2) with a clear line."""
    with pytest.raises(UsageError) as caught:
        select_preemptor(_snapshot(), **kwargs)
    assert message == str(caught.value)


@pytest.mark.parametrize(("kwargs", "suggestion"), [
    ({"pod": "default/lat"}, "(did you mean default/late?)"),
    ({"workload": "default/trian"}, "(did you mean default/train?)"),
    ({"workload": "default/train/mian"}, "(did you mean main?)"),
])
def test_unknown_names_get_suggestions(kwargs, suggestion):
    """difflib's close matches: a typo'd pod, workload or group name is answered with the
    names it probably meant."""
    with pytest.raises(UsageError) as caught:
        select_preemptor(_snapshot(), **kwargs)
    assert str(caught.value).endswith(suggestion)


def test_empty_queue_is_nothing_pending_not_an_error():
    """Nothing to plan is an answer (exit 0), not a usage error (issue 15)."""
    with pytest.raises(NothingPending) as caught:
        select_preemptor(_snapshot(), namespace="empty")
    assert "no pending pod or pod group in namespace empty: nothing to plan" == str(caught.value)
    assert 0 == caught.value.exit_code


def test_workload_with_several_pending_groups_asks_for_one():
    """A workload name is ambiguous when more than one of its groups has pending pods."""
    a = gang("multi", "a", min_count=1)
    b = gang("multi", "b", min_count=1)
    snap = snapshot(nodes=[node("n1")], pods=[member(a, "a0"), member(b, "b0")], groups=[a, b])
    with pytest.raises(UsageError) as caught:
        select_preemptor(snap, workload="default/multi")
    assert ("workload default/multi has several pod groups with pending pods (a, b): name one as "
            "default/multi/GROUP") == str(caught.value)


def test_workload_picks_its_only_pending_group():
    """A workload with several groups but one pending group plans that group."""
    a = gang("multi", "a", min_count=1)
    b = gang("multi", "b", min_count=1)
    snap = snapshot(nodes=[node("n1")], pods=[member(a, "a0", node="n1"), member(b, "b0")],
                    groups=[a, b])
    assert "default/multi/b" == select_preemptor(snap, workload="default/multi").key


def test_group_without_pending_pods_is_a_usage_error():
    """Naming a group that has nothing pending is an error, not an empty plan."""
    g = gang("done", min_count=1)
    snap = snapshot(nodes=[node("n1")], pods=[member(g, "a", node="n1")], groups=[g])
    with pytest.raises(UsageError) as caught:
        select_preemptor(snap, workload="default/done/main")
    assert "pod group default/done/main has no pending pods" == str(caught.value)


def test_cli_names_its_options(tmp_path):
    """The CLI says the core's selection errors as one line naming the pod or workload (the
    core knows no flags, issue 15); only the both-options error is the CLI's own."""
    import yaml
    from typer.testing import CliRunner

    from wapctl.cli import app

    snap = tmp_path / "snap.yaml"
    snap.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
         "status": {"allocatable": {"cpu": "1", "pods": "10"}}}]}))
    runner = CliRunner()
    cases = [
        (["--pod", "default/missing"], "error: pod default/missing is not in the snapshot\n"),
        (["--pod", "default/late", "-n", "prod"],
         "error: pod default/late is not in namespace prod\n"),
        (["--workload", "x"],
         "error: workload 'x': expected NAMESPACE/NAME or NAMESPACE/NAME/GROUP\n"),
        (["--pod", "a/b", "--workload", "a/b"], "error: give either --pod or --workload, "
                                                 "not both\n"),
    ]
    for args, message in cases:
        result = runner.invoke(app, ["plan", str(snap), *args])
        assert (2, message) == (result.exit_code, result.stderr), args
