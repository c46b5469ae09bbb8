"""The replay's incremental path (one ``fit.Accounting`` kept across steps, no pod-mapping copy
per step) gives byte-identical SimulationReport JSON to the rebuild path (a fresh snapshot and
accounting for every plan), and its accounting always equals one built from the current state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from builders import (
    NEVER,
    PREEMPT_LOWER,
    drawn_group,
    member,
    node,
    pdb,
    pod,
    snapshot,
    taint,
)
from builders import toleration as tol
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fast_vs_reference import random_cluster
from test_preemption_state import accounting_content

from wapctl import ingest
from wapctl.fit import Accounting
from wapctl.model import Snapshot
from wapctl.models import MODEL_NAMES, get_model
from wapctl.preemptor import queue_key
from wapctl.render.simulate import simulation_to_dict
from wapctl.simulate import _MASK, PodOnNode, _digest, _Replay, simulate

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
FIXTURE_FILES = sorted(str(p.relative_to(FIXTURES)) for p in FIXTURES.glob("*/*.yaml")
                       if p.parent.name in ("simulate", "plan", "cycles"))


def report(snap: Snapshot, incremental: bool, **options) -> str:
    return json.dumps(simulation_to_dict(simulate(snap, _incremental=incremental, **options)),
                      indent=2)


def assert_same_reports(snap: Snapshot, **options) -> None:
    assert report(snap, False, **options) == report(snap, True, **options)


@pytest.mark.parametrize("name", FIXTURE_FILES, ids=FIXTURE_FILES)
@pytest.mark.parametrize("requeue", [True, False], ids=["requeue", "no-requeue"])
def test_fixtures_give_identical_reports(name: str, requeue: bool):
    """Every simulate, plan and cycles fixture replays to the same JSON on both paths."""
    snap = ingest.build_snapshot(ingest.read_documents([str(FIXTURES / name)]))
    assert_same_reports(snap, requeue=requeue)


@pytest.mark.parametrize("seed", range(4), ids=lambda s: f"seed-{s}")
def test_medium_random_clusters_give_identical_reports(seed: int):
    """The reference test's medium clusters (PDBs, gangs of several shapes, nominations,
    terminating and finished pods, taints) replay to the same JSON for 40 steps."""
    assert_same_reports(random_cluster(seed, multi_shape=None if seed < 2 else True),
                        max_steps=40)


PRIORITIES = (100, 500, 1000)


@st.composite
def small_clusters(draw) -> Snapshot:
    """1-4 nodes (some tainted, cordoned, few pod slots, a gpu); owners of every kind with
    scheduling and preemption priorities apart; pods running (some overcommitted), pending
    (some nominated, also to a node that does not exist), terminating, finished, or bound to an
    unknown node; PDBs with little budget."""
    nodes = []
    for i in range(draw(st.integers(1, 4))):
        gpu = draw(st.integers(0, 5)) == 0
        nodes.append(node(f"n{i}", cpu=str(draw(st.integers(2, 5))), mem="8Gi",
                          pods=draw(st.sampled_from([2, 3, 110])),
                          taints=[taint("gpu", "yes")] if gpu else [],
                          unschedulable=draw(st.integers(0, 9)) == 0,
                          extra={"nvidia.com/gpu": 2} if gpu else None))
    names = [n.name for n in nodes]
    groups, pods = [], []
    clock = 0
    for w in range(draw(st.integers(2, 5))):
        sched = draw(st.sampled_from(PRIORITIES))
        kind = draw(st.sampled_from(["basic", "gang", "whole", "standalone"]))
        preempt = draw(st.sampled_from(PRIORITIES))
        policy = draw(st.sampled_from([PREEMPT_LOWER, PREEMPT_LOWER, NEVER]))
        size = draw(st.integers(1, 4))
        group = drawn_group(draw, f"w{w}", kind, size, prio=sched, preempt_prio=preempt,
                            policy=policy)
        if group is not None:
            groups.append(group)
        for i in range(size):
            clock += 1
            state = draw(st.sampled_from(["running"] * 4 + ["pending"] * 3 + [
                "nominated", "nominated", "terminating", "finished", "lost"]))
            where = None
            if state in ("running", "terminating", "finished"):
                where = draw(st.sampled_from(names))
            elif state == "lost":
                where = "gone"
            kwargs = {
                "cpu": str(draw(st.integers(1, 3))), "node": where, "created": clock,
                "start": clock if where else None,
                "terminating": state == "terminating",
                "phase": "Succeeded" if state == "finished" else None,
                "nominated": draw(st.sampled_from([*names, "gone"])) if state == "nominated"
                else None,
                "labels": {"app": draw(st.sampled_from(["a", "b"]))},
            }
            if draw(st.integers(0, 2)) == 0:
                kwargs["tolerations"] = [tol("gpu", "Exists")]
                if draw(st.booleans()):
                    kwargs["extra"] = {"nvidia.com/gpu": 1}
            if group is not None:
                pods.append(member(group, f"w{w}-{i}", **kwargs))
            else:
                pods.append(pod(f"s{w}-{i}", prio=sched, preempt_prio=preempt, policy=policy,
                                **kwargs))
    pdbs = [pdb("a", match={"app": "a"}, allowed=draw(st.integers(0, 1)))]
    return snapshot(nodes=nodes, pods=pods, groups=groups, pdbs=pdbs)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_clusters(), st.booleans(), st.sampled_from([None, "default"]),
       st.sampled_from([None, *MODEL_NAMES]))
def test_small_random_clusters_give_identical_reports(snap, requeue, namespace, model_name):
    """On random small clusters both paths give byte-identical SimulationReport JSON, under the
    model chosen from the snapshot (None: 1.36 here, no KEP-only field) and under each model
    named explicitly: the rebuild path must plan with the chosen model too (upstream fixes a
    gang's placement before the reprieve, kep-5710 searches priorities and reads the separate
    preemption priority, so planning with 1.36 there gives other steps)."""
    model = get_model(model_name) if model_name is not None else None
    assert_same_reports(snap, max_steps=40, requeue=requeue, namespace=namespace, model=model)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_clusters(), st.booleans())
def test_kept_accounting_equals_a_fresh_one_after_every_step(snap, requeue):
    """After every step the replay's accounting holds exactly what an Accounting built from
    the replay's current snapshot holds."""
    original = _Replay.check_cycles
    checked: list[int] = []

    def check(self, step):
        assert self.accounting is not None
        assert accounting_content(Accounting(self.snapshot())) == accounting_content(
            self.accounting), step.number
        checked.append(step.number)
        return original(self, step)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_Replay, "check_cycles", check)
        result = simulate(snap, max_steps=40, requeue=requeue)
    assert [s.number for s in result.steps] == checked


def assert_unit_bookkeeping_is_fresh(replay: _Replay) -> None:
    """Every unit's kept digest (the one in the state hash) and kept queue key equal the ones
    computed afresh from its pods, state and waits; the state hash's unit part is their sum."""
    total = 0
    for unit in replay.units.values():
        fresh = _digest(("unit", unit.key, unit.state, tuple(sorted(unit.waiting_on)),
                         tuple(sorted(unit.pods))))
        assert fresh == unit.hashed == unit.digest(), unit.key
        if unit.queue_key is not None:
            assert queue_key(replay._preemptor(unit)) == unit.queue_key, unit.key
        total += fresh
    assert total & _MASK == replay.unit_hash


def check_every_step(snap: Snapshot, **options) -> None:
    original = _Replay.check_cycles
    checked: list[int] = []

    def check(self, step):
        assert_unit_bookkeeping_is_fresh(self)
        checked.append(step.number)
        return original(self, step)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_Replay, "check_cycles", check)
        result = simulate(snap, **options)
    assert [s.number for s in result.steps] == checked


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_clusters(), st.booleans())
def test_kept_unit_digests_and_queue_keys_are_fresh_after_every_step(snap, requeue):
    """The replay keeps each unit's digest and queue key until its pods change, and moves a
    unit waiting for several pods once when they finish in the same step: after every step
    what it kept equals what is computed afresh."""
    check_every_step(snap, max_steps=40, requeue=requeue)


@pytest.mark.parametrize("seed", range(3), ids=lambda s: f"seed-{s}")
def test_kept_unit_bookkeeping_on_medium_clusters(seed: int):
    """The same on medium clusters, where gangs preempt, wait for and get back many pods."""
    check_every_step(random_cluster(500 + seed), max_steps=60, requeue=True)


def _finish_pod_by_pod(self, everything):
    """The reference for ``_Replay._finish``: every finishing pod moves the units waiting for
    it on its own (a unit waiting for N finishing pods moves N times)."""
    due = sorted(k for k, at in self.finish_at.items() if everything or at <= self.step)
    out = []
    for key in due:
        del self.finish_at[key]
        out.append(PodOnNode(key, self.pods[key].node_name or ""))
        self._set_pod(key, None)
        for unit_key in sorted(self.waiters.get(key, ())):
            unit = self.units[unit_key]
            left = unit.waiting_on - {key}
            self._set_state(unit, "Waiting", left) if left else self._set_state(unit, "Queued")
    if out:
        self._wake_idle()
    return out


def pod_by_pod_report(snap: Snapshot, **options) -> str:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_Replay, "_finish", _finish_pod_by_pod)
        return report(snap, True, **options)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_clusters(), st.booleans())
def test_units_moved_once_per_step_report_as_pod_by_pod(snap, requeue):
    """Moving a waiting unit once by all the pods of it that finish in a step gives the same
    report as moving it for each pod in turn."""
    assert pod_by_pod_report(snap, max_steps=40, requeue=requeue) == report(
        snap, True, max_steps=40, requeue=requeue)


@pytest.mark.parametrize("seed", range(4), ids=lambda s: f"seed-{s}")
def test_units_moved_once_per_step_on_medium_clusters(seed: int):
    assert pod_by_pod_report(random_cluster(600 + seed), max_steps=60) == report(
        random_cluster(600 + seed), True, max_steps=60)


def test_the_rebuild_path_keeps_no_accounting():
    """_incremental=False plans without an accounting, as before (the reference path)."""
    snap = snapshot(nodes=[node("n1")], pods=[pod("p", prio=1)])
    assert _Replay(snap, requeue=True, namespace=None, incremental=False).accounting is None
    assert _Replay(snap, requeue=True, namespace=None).accounting is not None
