"""The queue replay (``wapctl.simulate``): hand-worked step sequences on the fixtures and on
builder-made snapshots, termination on every input, the step bound, ``requeue=False``,
determinism, and the cross-check against the static priority graph (``wapctl.graph``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from builders import NEVER, PREEMPT_LOWER, basic, drawn_group, gang, member, node, pod, snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wapctl import graph, ingest
from wapctl import simulate as simulation
from wapctl.models import get_model
from wapctl.preemption import plan
from wapctl.preemptor import pending_preemptors
from wapctl.render.simulate import simulation_to_dict
from wapctl.simulate import SimulationResult, _Replay

KEP = get_model("kep-5710")


def simulate(snapshot, **kwargs):  # type: ignore[no-untyped-def]
    """These replays pin the KEP-5710 model's decisions (SPEC §3), as written by hand."""
    kwargs.setdefault("model", KEP)
    return simulation.simulate(snapshot, **kwargs)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "simulate"
RP, WFT, BOUND, UNSCHED, FINISHED = (
    "RequiresPreemption", "WaitingForTermination", "Bound", "Unschedulable", "Finished")


def fixture(name: str):
    return ingest.build_snapshot(ingest.read_documents([str(FIXTURES / name)]))


def trace(result: SimulationResult) -> list[tuple]:
    """Each step as (number, action, preemptor, victims, nodes, finished, requeued)."""
    return [
        (s.number, s.action, s.preemptor.name if s.preemptor else None,
         tuple(v.pod for v in s.victims), s.nodes, tuple(f.pod for f in s.finished), s.requeued)
        for s in result.steps
    ]


def outcome(result: SimulationResult) -> tuple:
    cycle = result.cycle
    return (result.converged, result.hit_step_limit,
            None if cycle is None else (cycle.kind, tuple(m.name for m in cycle.members),
                                        cycle.steps))


# ---- the fixtures ------------------------------------------------------------------------------

TRAINER = ("team-a/trainer-0", "team-a/trainer-1")
FIXTURE_CASES = {
    "ping-pong.yaml": (
        [
            (1, RP, "team-b/server-0", TRAINER, ("n1",), (), ()),
            (2, WFT, "team-b/server-0", (), ("n1",), (), ()),
            (3, BOUND, "team-b/server-0", (), ("n1",), TRAINER, TRAINER),
            (4, RP, "team-a/trainer/workers", ("team-b/server-0",), ("n1",), (), ()),
        ],
        (False, False, ("MutualPreemption", ("team-b/server/main", "team-a/trainer/workers"),
                        (1, 4))),
    ),
    "ping-pong-fixed.yaml": (
        [(1, UNSCHED, "team-b/server-0", (), (), (), ())],
        (True, False, None),
    ),
    "cascade.yaml": (
        [
            (1, RP, "prod/frontend-0", ("batch/etl-0",), ("n1",), (), ()),
            (2, WFT, "prod/frontend-0", (), ("n1",), (), ()),
            (3, BOUND, "prod/frontend-0", (), ("n1",), ("batch/etl-0",), ("batch/etl-0",)),
            (4, RP, "batch/etl-0", ("dev/scratch-0",), ("n2",), (), ()),
            (5, WFT, "batch/etl-0", (), ("n2",), (), ()),
            (6, BOUND, "batch/etl-0", (), ("n2",), ("dev/scratch-0",), ("dev/scratch-0",)),
            (7, UNSCHED, "dev/scratch-0", (), (), (), ()),
        ],
        (True, False, None),
    ),
    "gang-waiting.yaml": (
        [
            (1, RP, "ml/train/workers", ("default/low-b", "default/low-c"), ("n2", "n3"), (), ()),
            (2, WFT, "ml/train/workers", (), ("n2", "n3"), (), ()),
            (3, BOUND, "ml/train/workers", (), ("n2", "n3"),
             ("default/low-b", "default/low-c"), ("default/low-b", "default/low-c")),
            (4, UNSCHED, "default/low-b", (), (), (), ()),
            (5, UNSCHED, "default/low-c", (), (), (), ()),
        ],
        (True, False, None),
    ),
}


@pytest.mark.parametrize("name", sorted(FIXTURE_CASES), ids=sorted(FIXTURE_CASES))
def test_fixture_replays_step_by_step(name: str):
    """Each fixture replays exactly the steps worked out in its header comment."""
    steps, expected_outcome = FIXTURE_CASES[name]
    result = simulate(fixture(name))
    assert steps == trace(result)
    assert expected_outcome == outcome(result)


def test_ping_pong_cycle_names_members_priorities_and_edges():
    """The ping-pong cycle lists both workloads with their priorities, pods and closing edges."""
    cycle = simulate(fixture("ping-pong.yaml")).cycle
    assert cycle is not None
    assert [("PodGroup", "team-b/server/main", "team-b/server", 500, 500, ("team-b/server-0",)),
            ("PodGroup", "team-a/trainer/workers", "team-a/trainer", 1000, 100, TRAINER)] == [
        (m.kind, m.name, m.workload, m.priority, m.preemption_priority, m.pods)
        for m in cycle.members]
    assert [("team-b/server/main", "team-a/trainer/workers", 1),
            ("team-a/trainer/workers", "team-b/server/main", 4)] == [
        (e.source, e.target, e.step) for e in cycle.edges]


def test_gang_waiting_preempts_only_once():
    """Delayed preemption: the gang's retry waits on its victims and takes no second victim."""
    result = simulate(fixture("gang-waiting.yaml"))
    assert [1] == [s.number for s in result.steps if s.victims]
    assert (("default/low-b", "n2"), ("default/low-c", "n3")) == tuple(
        (t.pod, t.node) for t in result.steps[1].waiting_for)


def test_final_state_counts_and_leftovers():
    """The final state counts pods and lists the parked preemptor with its last status."""
    final = simulate(fixture("cascade.yaml")).final
    assert (7, 2, 1, 0, 0, 0) == (final.step, final.bound, final.pending, final.terminating,
                                  final.completed, final.removed)
    assert [("dev/scratch-0", "Pod", 100, 1, "Parked", UNSCHED)] == [
        (p.unit.name, p.unit.kind, p.unit.priority, p.pods, p.state, p.last_status)
        for p in final.preemptors]


# ---- builder-made snapshots --------------------------------------------------------------------


def ping_pong(fixed: bool = False):
    """A (1000 / 100, running) and B (500 / 500, pending) on one 4-cpu node."""
    a = basic("a", ns="team-a", prio=1000, preempt_prio=1000 if fixed else 100)
    b = basic("b", ns="team-b", prio=500)
    return snapshot(nodes=[node("n1", cpu="4")], groups=[a, b], pods=[
        member(a, "a-0", cpu="4", node="n1", created=1, start=2),
        member(b, "b-0", cpu="4", created=3),
    ])


def test_pod_ping_pong_is_a_mutual_preemption_cycle():
    """Two basic workloads with the KEP's priorities preempt each other: cycle at step 4."""
    result = simulate(ping_pong())
    assert [
        (1, RP, "team-b/b-0", ("team-a/a-0",), ("n1",), (), ()),
        (2, WFT, "team-b/b-0", (), ("n1",), (), ()),
        (3, BOUND, "team-b/b-0", (), ("n1",), ("team-a/a-0",), ("team-a/a-0",)),
        (4, RP, "team-a/a-0", ("team-b/b-0",), ("n1",), (), ()),
    ] == trace(result)
    assert (False, False, ("MutualPreemption", ("team-b/b/main", "team-a/a/main"), (1, 4))) == \
        outcome(result)


def test_pod_ping_pong_fixed_converges_at_once():
    """With A's preemption priority raised to its scheduling priority, B cannot preempt A."""
    result = simulate(ping_pong(fixed=True))
    assert [(1, UNSCHED, "team-b/b-0", (), (), (), ())] == trace(result)
    assert (True, False, None) == outcome(result)


def test_no_requeue_ends_the_ping_pong():
    """Without requeue the victim is gone for good: B binds and the replay converges."""
    result = simulate(ping_pong(), requeue=False)
    assert [
        (1, RP, "team-b/b-0", ("team-a/a-0",), ("n1",), (), ()),
        (2, WFT, "team-b/b-0", (), ("n1",), (), ()),
        (3, BOUND, "team-b/b-0", (), ("n1",), ("team-a/a-0",), ()),
    ] == trace(result)
    assert (True, False, None) == outcome(result)
    assert (1, 0, 0, 1) == (result.final.bound, result.final.pending, result.final.terminating,
                            result.final.removed)
    assert "team-a/a-0" not in result.snapshot.pods


def test_repeated_state_catches_the_ping_pong_one_round_later(monkeypatch):
    """With the relation check off, the state after step 6 (A back on n1, B pending again)
    repeats the snapshot's own state (step 0)."""
    monkeypatch.setattr(_Replay, "_relation_cycle", lambda self, n: None)
    result = simulate(ping_pong())
    assert [RP, WFT, BOUND, RP, WFT, BOUND] == [s.action for s in result.steps]
    cycle = result.cycle
    assert cycle is not None
    assert ("RepeatedState", 0, (1, 2, 3, 4, 5, 6)) == (cycle.kind, cycle.repeats_step,
                                                         cycle.steps)
    assert [("team-a/a/main", ("team-a/a-0",)), ("team-b/b/main", ("team-b/b-0",))] == [
        (m.name, m.pods) for m in cycle.members]


def test_negative_max_steps_is_refused_with_its_reason():
    """A caller of ``simulate`` passing a negative step bound gets a ValueError saying the
    bound must be at least 0 (0 is allowed: no step runs)."""
    with pytest.raises(ValueError) as info:
        simulate(fixture("cascade.yaml"), max_steps=-1)
    assert "max_steps must be >= 0" == str(info.value)


def test_max_steps_stops_with_neither_converged_nor_cycle():
    """Hitting the bound says so: hit_step_limit, not converged, no cycle, exactly N steps."""
    result = simulate(fixture("cascade.yaml"), max_steps=3)
    assert (False, True, None) == outcome(result)
    assert [1, 2, 3] == [s.number for s in result.steps]
    assert "Stopped after --max-steps 3 steps" in \
        __import__("wapctl.render.simulate", fromlist=["verdict"]).verdict(
            simulation_to_dict(result))


def test_terminating_pod_in_the_snapshot_finishes_at_step_2():
    """A snapshot taken mid-preemption: the nominated preemptor waits, then binds in step 2."""
    snap = snapshot(nodes=[node("n1", cpu="4"), node("n2", cpu="4")], pods=[
        pod("old", cpu="2", prio=100, node="n1", terminating=True, start=1),
        pod("web", cpu="2", prio=500, node="n1", start=1),
        pod("filler", cpu="4", prio=100, node="n2", start=1),
        pod("urgent", cpu="2", prio=1000, nominated="n1", created=2),
    ])
    result = simulate(snap)
    assert [
        (1, WFT, "default/urgent", (), ("n1",), (), ()),
        (2, BOUND, "default/urgent", (), ("n1",), ("default/old",), ("default/old",)),
        (3, UNSCHED, "default/old", (), (), (), ()),
    ] == trace(result)
    assert (True, False, None) == outcome(result)


def test_nothing_to_try_but_terminations_is_a_finished_step():
    """With nothing queued, a step only lets the terminating pods finish (and recreates them)."""
    snap = snapshot(nodes=[node("n1", cpu="4")], pods=[
        pod("old", cpu="2", prio=100, node="n1", terminating=True, start=1)])
    result = simulate(snap)
    assert [
        (1, FINISHED, None, (), (), ("default/old",), ("default/old",)),
        (2, BOUND, "default/old", (), ("n1",), (), ()),
    ] == trace(result)
    assert (True, False, None) == outcome(result)


def test_an_unschedulable_step_still_lists_the_pods_that_finished_in_it():
    """Step 2 lets the snapshot's terminating pod finish whatever its preemptor does: here the
    head of the queue is unschedulable (8 cpu wanted, 4 on the only node), and the step still
    says the pod finished and was recreated; it binds in step 3 (big1, tried in step 1, stays
    parked: a pod finishing does not wake an unschedulable preemptor)."""
    snap = snapshot(nodes=[node("n1", cpu="4")], pods=[
        pod("old", cpu="2", prio=100, node="n1", terminating=True, start=1),
        pod("big1", cpu="8", prio=1000, created=1),
        pod("big2", cpu="8", prio=900, created=1),
    ])
    result = simulate(snap)
    assert [
        (1, UNSCHED, "default/big1", (), (), (), ()),
        (2, UNSCHED, "default/big2", (), (), ("default/old",), ("default/old",)),
        (3, BOUND, "default/old", (), ("n1",), (), ()),
    ] == trace(result)
    assert (True, False, None) == outcome(result)


def test_unschedulable_is_parked_not_retried():
    """An unschedulable preemptor is tried once and parked: the queue converges at once."""
    snap = snapshot(nodes=[node("n1", cpu="2")], pods=[pod("big", cpu="4", prio=1000)])
    result = simulate(snap)
    assert [(1, UNSCHED, "default/big", (), (), (), ())] == trace(result)
    assert (True, False, None) == outcome(result)
    assert "Parked" == result.final.preemptors[0].state


def test_a_preemptor_waiting_for_its_victims_is_left_waiting_at_the_step_limit():
    """A replay stopped by the step bound while the preemptor waits for the victim it made
    terminating lists it as Waiting (not Parked, not Queued): a user reads from the final
    state that it will bind once the victim is gone, not that it is stuck."""
    snap = snapshot(nodes=[node("n1", cpu="2")], pods=[
        pod("v", cpu="2", prio=1, node="n1", start=1), pod("p", cpu="2", prio=100)])
    result = simulate(snap, max_steps=2)
    assert [
        (1, RP, "default/p", ("default/v",), ("n1",), (), ()),
        (2, WFT, "default/p", (), ("n1",), (), ()),
    ] == trace(result)
    assert (False, True, None) == outcome(result)
    assert [("default/p", 1, "Waiting", WFT)] == [
        (p.unit.name, p.pods, p.state, p.last_status) for p in result.final.preemptors]
    assert "Waiting" == simulation_to_dict(result)["final"]["preemptors"][0]["state"]


def test_queue_order_is_priority_then_creation_time_then_name():
    """Equal priority goes by creation time, then name; higher priority first."""
    snap = snapshot(nodes=[node("n1", cpu="8")], pods=[
        pod("c", prio=10, created=5), pod("b", prio=10, created=5), pod("a", prio=10, created=9),
        pod("z", prio=20, created=9),
    ])
    result = simulate(snap)
    assert ["default/z", "default/b", "default/c", "default/a"] == [
        s.preemptor.name for s in result.steps if s.preemptor]


def test_a_recreated_pod_queues_behind_pods_created_before_it_came_back():
    """A finished victim comes back created *now* (clock T + step), so an equal-priority pod
    pending since before that goes first, whatever the victim's old creation time. `old` (100,
    created at 1) terminates on the 2-cpu n1; `boss` (1000) waits for it at step 1 and binds at
    step 2, when `old` finishes and is recreated at T + 2 = 5 + 2 = 7 s. Then `mid` (100,
    created at 4) is ahead of `old` (100, created at 7): both are tried and parked, mid first."""
    snap = snapshot(nodes=[node("n1", cpu="2")], pods=[
        pod("old", cpu="2", prio=100, node="n1", terminating=True, created=1, start=1),
        pod("mid", cpu="1", prio=100, created=4),
        pod("boss", cpu="2", prio=1000, created=5),
    ])
    result = simulate(snap)
    assert [
        (1, WFT, "default/boss", (), ("n1",), (), ()),
        (2, BOUND, "default/boss", (), ("n1",), ("default/old",), ("default/old",)),
        (3, UNSCHED, "default/mid", (), (), (), ()),
        (4, UNSCHED, "default/old", (), (), (), ()),
    ] == trace(result)
    assert 7.0 == result.snapshot.pods["default/old"].creation_time


@pytest.mark.parametrize(
    ("times", "bound_at"),
    [({}, 1.0), ({"start": 7, "created": 3}, 8.0)],
    ids=["no-time-stamps", "latest-time-stamp"],
)
def test_the_clock_is_the_latest_time_stamp_plus_the_step(times, bound_at):
    """Step n happens at T + n seconds, T the snapshot's latest creation or start time, 0
    without time stamps (module docstring): `new` fits on n1 beside `old` and is bound at step
    1, at 0 + 1 = 1 s without time stamps, at 7 + 1 = 8 s when `old` started at 7."""
    snap = snapshot(nodes=[node("n1", cpu="4")], pods=[
        pod("old", cpu="1", node="n1", **times), pod("new", cpu="1")])
    result = simulate(snap)
    assert [(1, BOUND, "default/new", (), ("n1",), (), ())] == trace(result)
    assert bound_at == result.snapshot.pods["default/new"].start_time


def test_parked_never_preemptor_wakes_when_another_preemptor_triggers_a_preemption():
    """A Never pod parked as Unschedulable is retried when another preemptor's victim starts
    terminating (free space it could never make itself), waits for it, and binds first."""
    snap = snapshot(nodes=[node("n1", cpu="2")], pods=[
        pod("busy", cpu="2", prio=100, node="n1", start=1),
        pod("meek", cpu="1", prio=300, policy=NEVER, created=1),
        pod("boss", cpu="1", prio=250, created=2),
    ])
    result = simulate(snap)
    assert [
        (1, UNSCHED, "default/meek", (), (), (), ()),
        (2, RP, "default/boss", ("default/busy",), ("n1",), (), ()),
        (3, WFT, "default/meek", (), ("n1",), (), ()),
        (4, BOUND, "default/meek", (), ("n1",), ("default/busy",), ("default/busy",)),
        (5, BOUND, "default/boss", (), ("n1",), (), ()),
        (6, UNSCHED, "default/busy", (), (), (), ()),
    ] == trace(result)
    assert (True, False, None) == outcome(result)


def test_parked_preemptor_is_not_woken_by_a_victim_it_could_have_taken():
    """A victim it could have preempted itself starting to terminate does not wake an
    Unschedulable preemptor: it was already counted as removable."""
    snap = snapshot(nodes=[node("n1", cpu="2"), node("n2", cpu="1")], pods=[
        pod("small", cpu="1", prio=100, node="n2", start=1),
        pod("wide", cpu="4", prio=900, created=1),  # fits nowhere, even with preemption
        pod("boss", cpu="1", prio=500, created=2),
    ])
    result = simulate(snap)
    assert [
        (1, UNSCHED, "default/wide", (), (), (), ()),
        (2, BOUND, "default/boss", (), ("n1",), (), ()),
    ] == trace(result)
    snap = snapshot(nodes=[node("n1", cpu="1")], pods=[
        pod("small", cpu="1", prio=100, node="n1", start=1),
        pod("wide", cpu="4", prio=900, created=1),
        pod("boss", cpu="1", prio=500, created=2),
    ])
    result = simulate(snap)
    assert [
        (1, UNSCHED, "default/wide", (), (), (), ()),
        (2, RP, "default/boss", ("default/small",), ("n1",), (), ()),
        (3, WFT, "default/boss", (), ("n1",), (), ()),
        (4, BOUND, "default/boss", (), ("n1",), ("default/small",), ("default/small",)),
        (5, UNSCHED, "default/small", (), (), (), ()),
    ] == trace(result)


def test_parked_preemptor_wakes_when_a_reserving_nominated_pod_binds():
    """A nominated pod that reserved room against a parked unit (priority 1000 >= 1000) but
    may be its victim (preemption priority 100) wakes it when it binds (found by hypothesis)."""
    w0 = basic("w0", prio=1000, preempt_prio=100)
    w1 = basic("w1", prio=1000, preempt_prio=100)
    snap = snapshot(nodes=[node("n0", cpu="2"), node("n1", cpu="2")], groups=[w0, w1], pods=[
        member(w0, "w0-0", cpu="2", created=1),
        member(w0, "w0-1", cpu="2", node="n0", created=2, start=2),
        member(w0, "w0-2", cpu="2", node="n1", created=3, start=3),
        member(w1, "w1-0", cpu="1", created=4)])
    result = simulate(snap, requeue=False)
    assert [
        (1, UNSCHED, "default/w0-0", (), (), (), ()),
        (2, RP, "default/w1-0", ("default/w0-2",), ("n1",), (), ()),
        (3, UNSCHED, "default/w0-0", (), (), (), ()),  # w1-0's nomination reserves n1
        (4, BOUND, "default/w1-0", (), ("n1",), ("default/w0-2",), ()),
        (5, RP, "default/w0-0", ("default/w1-0",), ("n1",), (), ()),
    ] == trace(result)
    assert (False, False, ("MutualPreemption", ("default/w1/main", "default/w0/main"),
                           (2, 5))) == outcome(result)


def test_parked_unit_wakes_when_a_nominated_pod_binds_elsewhere():
    """A nomination that reserved room against a parked unit is released when its pod binds on
    another node, and the unit is retried (module docstring, *Waking*). `p` (500, 2 CPUs) is
    nominated to n1 in the snapshot, where 1000-priority `busy` leaves 1 CPU free; `u` (500,
    1 CPU, only n1) is first in the queue (older) and does not fit beside p's reservation
    (500 >= 500; busy is no victim): parked. p no longer fits on n1 and binds on the empty n2;
    its reservation gone, u is woken and binds on n1. Without the wake u stays pending."""
    snap = snapshot(nodes=[node("n1", cpu="2", labels={"slot": "n1"}),
                           node("n2", cpu="2", labels={"slot": "n2"})], pods=[
        pod("busy", cpu="1", prio=1000, node="n1", start=1),
        pod("u", cpu="1", prio=500, selector={"slot": "n1"}, created=1),
        pod("p", cpu="2", prio=500, nominated="n1", created=2),
    ])
    result = simulate(snap)
    assert [
        (1, UNSCHED, "default/u", (), (), (), ()),
        (2, BOUND, "default/p", (), ("n2",), (), ()),
        (3, BOUND, "default/u", (), ("n1",), (), ()),
    ] == trace(result)
    assert (True, False, None) == outcome(result)
    assert (3, 0) == (result.final.bound, result.final.pending)


def test_three_member_cycle_is_found_past_an_already_reached_victim():
    """A preemption cycle through three workloads is reported even when the relation also has
    a shortcut to a member already reached: T takes a-0 and b-0 (T -> A, T -> B), A takes b-1
    and s-0 (A -> B, A -> S), then S takes t-1 (S -> T). Searching from T for S, A's victims in
    name order are B (already reached from T) and then S: the cycle S -> T -> A -> S closes at
    step 7 and starts at its oldest edge, T -> A of step 1. Every workload is 1000 / 100 (each
    may preempt the others); each pod is pinned to its node, and without requeue the victims
    never come back, so nothing else happens."""
    t, a, b, s = (basic(w, prio=1000, preempt_prio=100) for w in "tabs")
    snap = snapshot(
        nodes=[node(n, cpu="2", labels={"slot": n}) for n in ("nt", "na", "ns")],
        groups=[t, a, b, s], pods=[
            member(a, "a-0", cpu="1", node="nt", start=1),
            member(b, "b-0", cpu="1", node="nt", start=1),
            member(b, "b-1", cpu="1", node="na", start=1),
            member(s, "s-0", cpu="1", node="na", start=1),
            member(t, "t-1", cpu="2", node="ns", start=1),
            member(t, "t-0", cpu="2", selector={"slot": "nt"}, created=2),
            member(a, "a-1", cpu="2", selector={"slot": "na"}, created=3),
            member(s, "s-1", cpu="2", selector={"slot": "ns"}, created=4)])
    result = simulate(snap, requeue=False)
    assert [
        (1, RP, "default/t-0", ("default/a-0", "default/b-0"), ("nt",), (), ()),
        (2, WFT, "default/t-0", (), ("nt",), (), ()),
        (3, BOUND, "default/t-0", (), ("nt",), ("default/a-0", "default/b-0"), ()),
        (4, RP, "default/a-1", ("default/b-1", "default/s-0"), ("na",), (), ()),
        (5, WFT, "default/a-1", (), ("na",), (), ()),
        (6, BOUND, "default/a-1", (), ("na",), ("default/b-1", "default/s-0"), ()),
        (7, RP, "default/s-1", ("default/t-1",), ("ns",), (), ()),
    ] == trace(result)
    assert (False, False, ("MutualPreemption", ("default/t/main", "default/a/main",
                                                "default/s/main"), (1, 4, 7))) == \
        outcome(result)
    cycle = result.cycle
    assert cycle is not None
    assert [("default/t/main", "default/a/main", 1), ("default/a/main", "default/s/main", 4),
            ("default/s/main", "default/t/main", 7)] == [
        (e.source, e.target, e.step) for e in cycle.edges]
    assert [("default/t-0", "default/t-1"), ("default/a-0", "default/a-1"),
            ("default/s-0", "default/s-1")] == [m.pods for m in cycle.members]


def test_a_cycle_names_a_pod_on_its_own_even_after_it_left_the_cluster():
    """A pod without a pod group is a cycle member of its own: kind ``Pod``, its own name, no
    workload, its own scheduling and preemption priorities and the pod itself as the pod that
    took part -- also when, without requeue, it has finished and left the cluster before the
    cycle closes (the report still names it from the snapshot). Hand-worked on one 1-cpu node
    holding g-0 (basic workload G, 300 / 300): pod a (1000 / 100) takes g-0 (step 1, a -> G),
    waits (2) and binds (3); pod h (500 / 100) takes a (4, h -> a), waits (5) and binds when a
    finishes (6: a is gone for good); g-1 (300) takes h (7, G -> h), which closes
    a -> G -> h -> a, started at its oldest edge (step 1)."""
    g = basic("g", prio=300)
    snap = snapshot(nodes=[node("n1", cpu="1")], groups=[g], pods=[
        member(g, "g-0", cpu="1", node="n1", start=1),
        pod("a", cpu="1", prio=1000, preempt_prio=100, created=2),
        pod("h", cpu="1", prio=500, preempt_prio=100, created=3),
        member(g, "g-1", cpu="1", created=4)])
    result = simulate(snap, requeue=False)
    assert [
        (1, RP, "default/a", ("default/g-0",), ("n1",), (), ()),
        (2, WFT, "default/a", (), ("n1",), (), ()),
        (3, BOUND, "default/a", (), ("n1",), ("default/g-0",), ()),
        (4, RP, "default/h", ("default/a",), ("n1",), (), ()),
        (5, WFT, "default/h", (), ("n1",), (), ()),
        (6, BOUND, "default/h", (), ("n1",), ("default/a",), ()),
        (7, RP, "default/g-1", ("default/h",), ("n1",), (), ()),
    ] == trace(result)
    assert "default/a" not in result.snapshot.pods
    cycle = result.cycle
    assert cycle is not None
    assert ("MutualPreemption", (1, 4, 7)) == (cycle.kind, cycle.steps)
    assert [
        ("Pod", "default/a", None, 1000, 100, ("default/a",)),
        ("PodGroup", "default/g/main", "default/g", 300, 300, ("default/g-0", "default/g-1")),
        ("Pod", "default/h", None, 500, 100, ("default/h",)),
    ] == [(m.kind, m.name, m.workload, m.priority, m.preemption_priority, m.pods)
          for m in cycle.members]
    assert [("default/a", "default/g/main", 1), ("default/g/main", "default/h", 7),
            ("default/h", "default/a", 4)] == [(e.source, e.target, e.step) for e in cycle.edges]


def test_gang_extra_pods_wait_for_room_without_busy_loop():
    """A gang whose minCount is met binds what fits; its extra pod is parked, not retried."""
    g = gang("job", min_count=1, prio=500)
    snap = snapshot(nodes=[node("n1", cpu="2")], groups=[g], pods=[
        member(g, "job-0", cpu="2", created=1), member(g, "job-1", cpu="2", created=1)])
    result = simulate(snap)
    assert [(1, BOUND, "default/job/main", (), ("n1",), (), ())] == trace(result)
    assert (True, False, None) == outcome(result)
    assert [("default/job/main", 1, "Parked")] == [
        (p.unit.name, p.pods, p.state) for p in result.final.preemptors]



def test_gang_extra_pod_parked_idle_wakes_on_a_termination_and_on_a_pod_finishing():
    """A gang whose minCount is met and whose extra pod does not fit now is parked, and woken
    by a pod starting to terminate and by a pod finishing (module docstring, *Waking*): the
    room a lower preemptor freed goes to the gang's extra pod, which is ahead of it in the
    queue. Hand-worked (no requeue): gang job (500, minCount 1; job-0 and job-1, 2 CPUs each),
    n1 empty (2 CPUs), n2 (2 CPUs) full with low (100); boss (300, 2 CPUs, only n2).
    1: job binds job-0 on n1, job-1 fits nowhere now: parked. 2: boss preempts low on n2;
    low terminating wakes job. 3: job (500, ahead of boss) retried: job-1 still does not fit
    (an extra pod takes only free room): Bound with no placement, parked again. 4: low
    finishes, which wakes job again: job-1 binds on n2. 5: boss no longer fits (job-1's 500
    is no victim of 300): Unschedulable. Without the wake-ups boss would take n2 and job-1
    stay pending."""
    g = gang("job", min_count=1, prio=500)
    snap = snapshot(nodes=[node("n1", cpu="2", labels={"slot": "n1"}),
                           node("n2", cpu="2", labels={"slot": "n2"})], groups=[g], pods=[
        member(g, "job-0", cpu="2", created=1), member(g, "job-1", cpu="2", created=1),
        pod("low", cpu="2", prio=100, node="n2", start=1),
        pod("boss", cpu="2", prio=300, selector={"slot": "n2"}, created=2)])
    result = simulate(snap, requeue=False)
    assert [
        (1, BOUND, "default/job/main", (), ("n1",), (), ()),
        (2, RP, "default/boss", ("default/low",), ("n2",), (), ()),
        (3, BOUND, "default/job/main", (), (), (), ()),
        (4, BOUND, "default/job/main", (), ("n2",), ("default/low",), ()),
        (5, UNSCHED, "default/boss", (), (), (), ()),
    ] == trace(result)
    assert (True, False, None) == outcome(result)
    assert [("default/boss", 1, "Parked")] == [
        (p.unit.name, p.pods, p.state) for p in result.final.preemptors]


def test_podgroup_mode_gang_comes_back_whole():
    """A PodGroup-mode gang preempted as one unit is recreated whole and queued as one gang."""
    victim = gang("old", min_count=2, mode="PodGroup", prio=100)
    snap = snapshot(nodes=[node("n1", cpu="4")], groups=[victim], pods=[
        member(victim, "old-0", cpu="2", node="n1", start=1),
        member(victim, "old-1", cpu="2", node="n1", start=1),
        pod("new", cpu="4", prio=1000, created=2),
    ])
    result = simulate(snap)
    assert [
        (1, RP, "default/new", ("default/old-0", "default/old-1"), ("n1",), (), ()),
        (2, WFT, "default/new", (), ("n1",), (), ()),
        (3, BOUND, "default/new", (), ("n1",), ("default/old-0", "default/old-1"),
         ("default/old-0", "default/old-1")),
        (4, UNSCHED, "default/old/main", (), (), (), ()),
    ] == trace(result)
    assert [("default/old/main", "PodGroup", 2)] == [
        (p.unit.name, p.unit.kind, p.pods) for p in result.final.preemptors]


def test_namespace_limits_the_queue():
    """With a namespace only its preemptors are queued; victims stay cluster-wide."""
    result = simulate(ping_pong(), namespace="team-a")
    assert [] == trace(result)
    assert (True, False, None) == outcome(result)
    result = simulate(ping_pong(), namespace="team-b", requeue=True)
    assert [RP, WFT, BOUND] == [s.action for s in result.steps]
    assert (True, False, None) == outcome(result)  # team-a/a-0 comes back, but is not queued


def test_on_step_sees_every_step():
    """The on_step callback is called once per step, in order."""
    seen: list[int] = []
    simulate(fixture("cascade.yaml"), on_step=lambda s: seen.append(s.number))
    assert [1, 2, 3, 4, 5, 6, 7] == seen


def test_the_input_snapshot_is_not_modified():
    """The replay builds new snapshots; the one it was given is unchanged."""
    snap = ping_pong()
    before = dict(snap.pods)
    simulate(snap)
    assert before == dict(snap.pods)


# ---- determinism -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(FIXTURE_CASES), ids=sorted(FIXTURE_CASES))
def test_same_objects_in_another_order_give_identical_json(name: str):
    """Reversing the documents' order gives byte-identical SimulationReport JSON."""
    docs = ingest.read_documents([str(FIXTURES / name)])
    forward = simulation_to_dict(simulate(ingest.build_snapshot(docs)))
    backward = simulation_to_dict(simulate(ingest.build_snapshot(list(reversed(docs)))))
    assert json.dumps(forward, indent=2) == json.dumps(backward, indent=2)


# ---- random tiny clusters ----------------------------------------------------------------------

PRIORITIES = (100, 500, 1000)


@st.composite
def tiny_clusters(draw):
    """1-3 nodes, 1-4 owners (a basic or gang workload, or standalone pods), some running,
    some pending; bound pods always fit their node."""
    nodes = [node(f"n{i}", cpu=str(draw(st.integers(2, 4))))
             for i in range(draw(st.integers(1, 3)))]
    free = {n.name: n.allocatable["cpu"] for n in nodes}
    groups, pods = [], []
    clock = 0
    for w in range(draw(st.integers(1, 4))):
        sched = draw(st.sampled_from(PRIORITIES))
        kind = draw(st.sampled_from(["basic", "gang", "whole", "standalone"]))
        preempt = sched if kind == "standalone" else draw(st.sampled_from(PRIORITIES))
        policy = draw(st.sampled_from([PREEMPT_LOWER, PREEMPT_LOWER, PREEMPT_LOWER, NEVER]))
        size = draw(st.integers(1, 3))
        group = drawn_group(draw, f"w{w}", kind, size, prio=sched, preempt_prio=preempt,
                            policy=policy)
        if group is not None:
            groups.append(group)
        for i in range(size):
            cpu = draw(st.integers(1, 3))
            room = [n for n, f in sorted(free.items()) if f >= cpu * 1000]
            where = draw(st.sampled_from([None, *room])) if room else None
            if where is not None:
                free[where] -= cpu * 1000
            clock += 1
            kwargs = {"cpu": str(cpu), "node": where, "created": clock,
                      "start": clock if where else None}
            if group is not None:
                pods.append(member(group, f"w{w}-{i}", **kwargs))
            else:
                pods.append(pod(f"s{w}-{i}", prio=sched, policy=policy, **kwargs))
    return snapshot(nodes=nodes, pods=pods, groups=groups)


def _profile(snap, name: str) -> graph.Profile:
    g = snap.pod_groups.get(name)
    if g is not None:
        return graph.Profile(g.priority, g.preemption_priority, g.preemption_policy)
    p = snap.pods[name]
    return graph.Profile(p.priority, p.preemption_priority, p.preemption_policy)


def _check_parked(replay: _Replay) -> None:
    """No parked unit could move: a missed wake-up would show as a fresh plan that progresses."""
    snap = replay.snapshot()
    for unit in replay.parked_unsched.values():
        fresh = plan(snap, replay._preemptor(unit), model=KEP)
        assert "Unschedulable" == fresh.status, (replay.step, unit.key, fresh.reason)
    for unit in replay.parked_idle.values():
        fresh = plan(snap, replay._preemptor(unit), model=KEP)
        assert fresh.status == "Unschedulable" or (
            fresh.status == "Schedulable" and not fresh.placements), (replay.step, unit.key,
                                                                     fresh.reason)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_clusters(), st.booleans())
def test_replay_always_ends_and_parked_units_cannot_move(snap, requeue):
    """On any tiny cluster the replay ends in exactly one way within the bound; after every
    step no parked unit could make progress (a fresh plan agrees); when it converges nothing
    is terminating and the units left are exactly the pending preemptors of the final state."""
    original = _Replay.check_cycles

    def checked(self, step):
        _check_parked(self)
        return original(self, step)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_Replay, "check_cycles", checked)
        result = simulate(snap, max_steps=60, requeue=requeue)
    assert 1 == result.converged + result.hit_step_limit + (result.cycle is not None)
    assert list(range(1, len(result.steps) + 1)) == [s.number for s in result.steps]
    assert len(result.steps) <= 60
    if result.converged:
        assert 0 == result.final.terminating
        assert [p.key for p in pending_preemptors(result.snapshot)] == [
            left.unit.name for left in result.final.preemptors]


def _profile(snap, name: str) -> graph.Profile:
    g = snap.pod_groups.get(name)
    if g is not None:
        return graph.Profile(g.priority, g.preemption_priority, g.preemption_policy)
    p = snap.pods[name]
    return graph.Profile(p.priority, p.preemption_priority, p.preemption_policy)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_clusters(), st.booleans())
def test_replay_always_ends_and_converged_means_stuck(snap, requeue):
    """On any tiny cluster the replay ends in exactly one way within the bound; when it
    converges nothing is terminating and every unit left really cannot move (a fresh plan is
    Unschedulable, or places nothing), and the units left are the snapshot's pending
    preemptors."""
    result = simulate(snap, max_steps=60, requeue=requeue)
    assert 1 == result.converged + result.hit_step_limit + (result.cycle is not None)
    assert list(range(1, len(result.steps) + 1)) == [s.number for s in result.steps]
    assert len(result.steps) <= 60
    if not result.converged:
        return
    final = result.snapshot
    assert 0 == result.final.terminating
    queue = pending_preemptors(final)
    assert [p.key for p in queue] == [left.unit.name for left in result.final.preemptors]
    for pre in queue:
        fresh = plan(final, pre, model=KEP)
        assert fresh.status == "Unschedulable" or (
            fresh.status == "Schedulable" and not fresh.placements), (pre.key, fresh.reason)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_clusters())
def test_every_live_cycle_is_a_static_finding(snap):
    """Every cycle the replay finds is a finding of check-cycles: a MutualPreemption cycle is
    a static cycle (each observed edge is a static edge, every member's profile lies on a
    static cycle); a RepeatedState cycle has a member breaking the KEP-5710 rule, reported
    as a violation (it may be no static cycle: see the simulate module docstring)."""
    result = simulate(snap, max_steps=60)
    if result.cycle is None:
        return
    report = graph.check(snap)
    if result.cycle.kind == "MutualPreemption":
        assert report.cycle_count > 0
        cyclic = report.graph.cyclic_profiles()
        for m in result.cycle.members:
            assert _profile(snap, m.name) in cyclic, m.name
        for e in result.cycle.edges:
            assert report.graph.graph.has_edge(_profile(snap, e.source),
                                               _profile(snap, e.target))
    violators = {v.name for v in report.violations}
    assert any((m.workload or m.name) in violators for m in result.cycle.members)


def test_preempt_and_steal_livelock_is_no_static_cycle():
    """Live but not static: W1 (500/100) preempts W0 (1000/100, Never); W0's other pod, ahead
    in the queue, takes the freed room; W1 preempts again, forever. No static cycle (W0 never
    preempts), but both workloads break the rule and check-cycles reports them."""
    w0 = basic("w0", prio=1000, preempt_prio=100, policy=NEVER)
    w1 = basic("w1", prio=500, preempt_prio=100)
    snap = snapshot(nodes=[node("n0", cpu="3")], groups=[w0, w1], pods=[
        member(w0, "w0-0", cpu="1", created=1),
        member(w0, "w0-1", cpu="2", node="n0", created=2, start=2),
        member(w1, "w1-0", cpu="1", created=3),
        member(w1, "w1-1", cpu="2", created=4)])
    result = simulate(snap)
    assert [
        (1, BOUND, "default/w0-0", (), ("n0",), (), ()),
        (2, RP, "default/w1-0", ("default/w0-0",), ("n0",), (), ()),
        (3, WFT, "default/w1-0", (), ("n0",), (), ()),
        (4, BOUND, "default/w1-0", (), ("n0",), ("default/w0-0",), ("default/w0-0",)),
        (5, UNSCHED, "default/w0-0", (), (), (), ()),
        (6, RP, "default/w1-1", ("default/w0-1",), ("n0",), (), ()),
        (7, WFT, "default/w0-0", (), ("n0",), (), ()),
        (8, BOUND, "default/w0-0", (), ("n0",), ("default/w0-1",), ("default/w0-1",)),
        (9, UNSCHED, "default/w0-1", (), (), (), ()),
        (10, RP, "default/w1-1", ("default/w0-0",), ("n0",), (), ()),
        (11, WFT, "default/w0-1", (), ("n0",), (), ()),
        (12, BOUND, "default/w0-1", (), ("n0",), ("default/w0-0",), ("default/w0-0",)),
        (13, UNSCHED, "default/w0-0", (), (), (), ()),
        (14, RP, "default/w1-1", ("default/w0-1",), ("n0",), (), ()),
    ] == trace(result)
    cycle = result.cycle
    assert cycle is not None
    assert ("RepeatedState", 6, (7, 8, 9, 10, 11, 12, 13, 14)) == (
        cycle.kind, cycle.repeats_step, cycle.steps)
    report = graph.check(snap)
    assert 0 == report.cycle_count
    assert {"default/w0", "default/w1"} == {v.name for v in report.violations}


def test_a_repeated_state_cycle_names_only_who_preempted_whom():
    """The members of a RepeatedState cycle are the pod groups that preempted and were
    preempted in the loop, each with its pods that took part (preemptors' placed pods,
    victims): a pending pod the loop keeps retrying in vain is no member. Hand-worked: the
    preempt-and-steal livelock above plus z-0 (2000, Never, 8 CPU on a 3-CPU node: it never
    fits). z-0 heads the queue and is Unschedulable (step 1), and every new termination wakes
    it (a Never unit may use room a terminating pod frees), so it comes back after each
    preemption (4, 8, 12). The victims finish two steps after their preemption (5, 9, 13),
    before their requeue, so w1-0 binds in 5; from then on W0's pending pod takes the freed room
    ahead of W1's nominated w1-1 (9, 13: a nomination reserves nothing against a higher
    priority) and w1-1 preempts W0's other pod (7, 11, 15). The end of step 15 repeats step 7
    (w0-0 pending, w0-1 terminating with the same time left, w1-1 nominated, the same units
    queued). In the loop 8-15 W1 preempts W0 twice with w1-1 (11: w0-0, 15: w0-1): members
    W0 {w0-0, w0-1} and W1 {w1-1}, by name; z-0 preempted no one and lost no pod."""
    w0 = basic("w0", prio=1000, preempt_prio=100, policy=NEVER)
    w1 = basic("w1", prio=500, preempt_prio=100)
    snap = snapshot(nodes=[node("n0", cpu="3")], groups=[w0, w1], pods=[
        member(w0, "w0-0", cpu="1", created=1),
        member(w0, "w0-1", cpu="2", node="n0", created=2, start=2),
        member(w1, "w1-0", cpu="1", created=3),
        member(w1, "w1-1", cpu="2", created=4),
        pod("z-0", cpu="8", prio=2000, policy=NEVER, created=5)])
    result = simulate(snap)
    assert [
        (1, UNSCHED, "default/z-0", (), (), (), ()),
        (2, BOUND, "default/w0-0", (), ("n0",), (), ()),
        (3, RP, "default/w1-0", ("default/w0-0",), ("n0",), (), ()),
        (4, UNSCHED, "default/z-0", (), (), (), ()),
        (5, BOUND, "default/w1-0", (), ("n0",), ("default/w0-0",), ("default/w0-0",)),
        (6, UNSCHED, "default/w0-0", (), (), (), ()),
        (7, RP, "default/w1-1", ("default/w0-1",), ("n0",), (), ()),
        (8, UNSCHED, "default/z-0", (), (), (), ()),
        (9, BOUND, "default/w0-0", (), ("n0",), ("default/w0-1",), ("default/w0-1",)),
        (10, UNSCHED, "default/w0-1", (), (), (), ()),
        (11, RP, "default/w1-1", ("default/w0-0",), ("n0",), (), ()),
        (12, UNSCHED, "default/z-0", (), (), (), ()),
        (13, BOUND, "default/w0-1", (), ("n0",), ("default/w0-0",), ("default/w0-0",)),
        (14, UNSCHED, "default/w0-0", (), (), (), ()),
        (15, RP, "default/w1-1", ("default/w0-1",), ("n0",), (), ()),
    ] == trace(result)
    cycle = result.cycle
    assert cycle is not None
    assert ("RepeatedState", 7, (8, 9, 10, 11, 12, 13, 14, 15)) == (
        cycle.kind, cycle.repeats_step, cycle.steps)
    assert [
        ("PodGroup", "default/w0/main", "default/w0", 1000, 100,
         ("default/w0-0", "default/w0-1")),
        ("PodGroup", "default/w1/main", "default/w1", 500, 100, ("default/w1-1",)),
    ] == [(m.kind, m.name, m.workload, m.priority, m.preemption_priority, m.pods)
          for m in cycle.members]


def test_random_clusters_do_produce_live_cycles():
    """The generator is not vacuous: the KEP ping-pong shape it can draw cycles live."""
    assert simulate(ping_pong()).cycle is not None
