"""The hand-worked inter-pod constraint fixtures in fixtures/constraints/: each YAML derives,
in its header comment, the preemption its constraint forces; this runs ``wapctl plan -o json``
on it (default model) and checks status, victims and placements against that derivation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.builders import gang, member, node, pod, snapshot
from tests.constraint_builders import HOSTNAME, aff, constrained, sel
from wapctl.cli import app
from wapctl.fit import Accounting
from wapctl.models import get_model
from wapctl.preemption import plan
from wapctl.preemptor import select_preemptor

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "constraints"

# name -> (status, victims, placements: pod -> node, or a set of acceptable node tuples)
EXPECTED = {
    "preemptor-anti-affinity": ("RequiresPreemption", ["default/web"], {"default/p": "node-a"}),
    "existing-anti-affinity": ("RequiresPreemption", ["default/guard"], {"default/p": "node-a"}),
    "topology-spread": ("RequiresPreemption", ["default/web-2"], {"default/p": "node-a"}),
    "host-port": ("RequiresPreemption", ["default/old"], {"default/p": "node-a"}),
    "host-port-address": ("Schedulable", [], {"default/p": "node-b"}),
    "pod-affinity": ("RequiresPreemption", ["default/filler"], {"default/p": "node-c"}),
    "gang-anti-affinity": ("RequiresPreemption", ["default/batch"], None),
}


def _plan(name: str, *extra: str) -> dict:
    result = CliRunner().invoke(app, ["plan", str(FIXTURES / f"{name}.yaml"), "-o", "json",
                                      *extra], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout[result.stdout.index("{"):])


def test_every_fixture_has_an_expectation() -> None:
    """No fixture without its derived answer, no answer without its fixture."""
    assert sorted(p.stem for p in FIXTURES.glob("*.yaml")) == sorted(EXPECTED)


@pytest.mark.parametrize("model", ["default", "1.36", "upstream", "kep-5710"])
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_constraint_forces_the_derived_preemption(name: str, model: str) -> None:
    """Status, victims and placements are the ones derived in the fixture's comment, under
    every behaviour model (none of these cases turns on what the models differ in)."""
    status, victims, placements = EXPECTED[name]
    plan = _plan(name, *(() if model == "default" else ("--model", model)))
    assert plan["status"] == status, plan["reason"]
    assert sorted(v["pod"] for v in plan["victims"]) == victims
    got = {p["pod"]: p["node"] for p in plan["placements"]}
    if placements is not None:
        assert got == placements
    else:  # the gang: one member per node, on n1 and n2
        assert sorted(got) == ["ml/train-0", "ml/train-1"]
        assert sorted(got.values()) == ["n1", "n2"]


def test_unschedulable_reason_names_the_pod_dependent_filter() -> None:
    """A preemptor rejected only by anti-affinity to a higher-priority pod is Unschedulable,
    and the reason counts the node under the anti-affinity reason, not "without room"."""
    snap = snapshot(
        nodes=[node("n1", labels={HOSTNAME: "n1"})],
        pods=[pod("web", node="n1", prio=5000, labels={"app": "web"}),
              constrained(pod("p", prio=1000), anti=[aff(HOSTNAME, sel({"app": "web"}))])])
    result = plan(snap, select_preemptor(snap, pod="default/p"), model=get_model("1.36"))
    assert result.status == "Unschedulable"
    assert "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules" in \
        result.reason


def test_gang_search_by_counts_falls_back_when_the_filters_need_more() -> None:
    """KEP model, gang of 2 (2 cpu each) keeping apart by hostname. n1 (4 cpu): low (2 cpu,
    prio 10); n2 (4 cpu): mid (3 cpu, prio 20). By copy counts, removing low makes room for both
    on n1 (level 10); the anti-affinity puts the second pod elsewhere, so that answer does not
    place the gang and the search runs with the filters: level 20 (both out), reprieve mid back
    (n2 then has 1 cpu: fails), low back (n1 has 2 cpu for one pod: fits). Victims [mid]."""
    g = gang("train", min_count=2, prio=1000)
    snap = snapshot(
        nodes=[node("n1", labels={HOSTNAME: "n1"}), node("n2", labels={HOSTNAME: "n2"})],
        pods=[pod("low", node="n1", cpu="2", prio=10, start=1),
              pod("mid", node="n2", cpu="3", prio=20, start=1),
              *(constrained(member(g, f"t{i}", cpu="2", labels={"app": "t"}),
                            anti=[aff(HOSTNAME, sel({"app": "t"}))]) for i in range(2))],
        groups=[g])
    result = plan(snap, select_preemptor(snap, workload="default/train"),
                  model=get_model("kep-5710"))
    assert result.status == "RequiresPreemption"
    assert [v.pod for v in result.victims] == ["default/mid"]
    assert sorted(p.node for p in result.placements) == ["n1", "n2"]


# ---- gangs that keep apart, per model (mutation-testing survivors, issue 17) -------------------


def _apart(name: str, g, **kwargs):
    """A member of ``g`` labelled app=t that keeps off any node holding an app=t pod."""
    return constrained(member(g, name, labels={"app": "t"}, **kwargs),
                       anti=[aff(HOSTNAME, sel({"app": "t"}))])


@pytest.mark.parametrize("model", ["1.36", "upstream", "kep-5710"])
def test_gang_keeping_apart_preempts_one_pod_on_each_node(model: str) -> None:
    """Gang of 2 (2 cpu each, prio 1000) keeping apart by hostname. n1 and n2 (3 cpu each)
    hold one victim each (2 cpu, prio 10): each node takes one member only once its victim is
    gone, and the gang needs both nodes. Resources alone already say so (by copy counts: with
    both removed, 1 + 1 copies; putting either back leaves 1 < 2), and the members, placed
    with the anti-affinity, go one per node: victims [a, b] in every model (upstream: both
    removed, members fixed on n1 and n2, neither victim fits back beside its member)."""
    g = gang("train", min_count=2, prio=1000)
    snap = snapshot(
        nodes=[node("n1", cpu="3", labels={HOSTNAME: "n1"}),
               node("n2", cpu="3", labels={HOSTNAME: "n2"})],
        pods=[pod("a", node="n1", cpu="2", prio=10, start=1),
              pod("b", node="n2", cpu="2", prio=10, start=2),
              *(_apart(f"t{i}", g, cpu="2") for i in range(2))],
        groups=[g])
    result = plan(snap, select_preemptor(snap, workload="default/train"),
                  model=get_model(model))
    assert result.status == "RequiresPreemption"
    assert [v.pod for v in result.victims] == ["default/a", "default/b"]
    assert sorted(p.node for p in result.placements) == ["n1", "n2"]


@pytest.mark.parametrize("model", ["1.36", "upstream", "kep-5710"])
def test_a_victim_the_placed_gang_repels_is_not_reprieved(model: str) -> None:
    """Gang of 2 (2 cpu each, prio 1000, app=t) keeping off nodes with app=t pods. n1 (4 cpu):
    blocker (1 cpu, prio 10, app=t); n2 (4 cpu): filler (3 cpu, prio 10). Nothing fits now
    (n1 repels, n2 has 1 cpu). With both gone the members take n1 and n2, one each. Putting
    blocker back: resources hold on n1 (1 + 2 <= 4) but the member there keeps off app=t pods
    (upstream selectVictimsOnDomain's reprieve re-runs the filters, InterPodAffinity among
    them); putting filler back: n2 holds 3 + 2 > 4. Victims [blocker, filler] in every model,
    in either reprieve order (each alone leaves only one node for the two members). The same
    with an Accounting (the plan has its own view and filters, dropped with it)."""
    g = gang("train", min_count=2, prio=1000)
    snap = snapshot(
        nodes=[node("n1", labels={HOSTNAME: "n1"}), node("n2", labels={HOSTNAME: "n2"})],
        pods=[pod("blocker", node="n1", cpu="1", prio=10, start=1, labels={"app": "t"}),
              pod("filler", node="n2", cpu="3", prio=10, start=1),
              *(_apart(f"t{i}", g, cpu="2") for i in range(2))],
        groups=[g])
    pre = select_preemptor(snap, workload="default/train")
    for acc in (None, Accounting(snap)):
        result = plan(snap, pre, model=get_model(model), state=acc)
        assert result.status == "RequiresPreemption"
        assert [v.pod for v in result.victims] == ["default/blocker", "default/filler"]
        assert sorted(p.node for p in result.placements) == ["n1", "n2"]


@pytest.mark.parametrize("model", ["1.36", "upstream", "kep-5710"])
def test_a_gang_counts_against_the_pods_per_node_limit(model: str) -> None:
    """One node, 8 cpu but pods: 2, full with v1 and v2 (1 cpu each, prio 10). A gang of 2
    (1 cpu each, prio 1000) needs both pod slots: victims [v1, v2] in every model (upstream:
    the members fixed on n1 take both slots, so neither victim fits back; NodeResourcesFit
    counts pods against allocatable pods)."""
    g = gang("train", min_count=2, prio=1000)
    snap = snapshot(
        nodes=[node("n1", cpu="8", pods=2)],
        pods=[pod("v1", node="n1", cpu="1", prio=10, start=1),
              pod("v2", node="n1", cpu="1", prio=10, start=2),
              *(member(g, f"t{i}", cpu="1") for i in range(2))],
        groups=[g])
    result = plan(snap, select_preemptor(snap, workload="default/train"),
                  model=get_model(model))
    assert result.status == "RequiresPreemption"
    assert [v.pod for v in result.victims] == ["default/v1", "default/v2"]
    assert [p.node for p in result.placements] == ["n1", "n1"]


@pytest.mark.parametrize("model", ["1.36", "upstream", "kep-5710"])
def test_a_gang_larger_than_the_cluster_is_unschedulable(model: str) -> None:
    """Gang of 3 (2 cpu each, prio 1000) on one 4-cpu node holding v (prio 10, 2 cpu): even
    with v gone only 2 members fit. Unschedulable in every model, v untouched, and the reason
    says how many fit at most."""
    g = gang("train", min_count=3, prio=1000)
    snap = snapshot(nodes=[node("n1")],
                    pods=[pod("v", node="n1", cpu="2", prio=10),
                          *(member(g, f"t{i}", cpu="2") for i in range(3))],
                    groups=[g])
    result = plan(snap, select_preemptor(snap, workload="default/train"),
                  model=get_model(model))
    assert ("Unschedulable", ()) == (result.status, result.victims)
    assert "needs 3 pod(s) placed but at most 2 fit" in result.reason


@pytest.mark.parametrize("model", ["1.36", "upstream", "kep-5710"])
def test_a_victim_fits_back_into_the_last_pod_slot(model: str) -> None:
    """n1 (4 cpu, pods: 3) runs v1 (prio 10, 3 cpu) and v2 (prio 20, 500m). A gang of 2 (500m
    each, prio 1000) needs both pods' slots: now 2 + 2 > 3. Without v1 the members and v2 are
    3 pods in 3 slots and 1.5 cpu of 4: v2 stays (upstream's fixed placement: pod count +
    members <= allocatable pods); v1 back would make 4 pods. Victim v1 in every model."""
    g = gang("train", min_count=2, prio=1000)
    snap = snapshot(nodes=[node("n1", pods=3)],
                    pods=[pod("v1", node="n1", cpu="3", prio=10, start=1),
                          pod("v2", node="n1", cpu="500m", prio=20, start=1),
                          *(member(g, f"t{i}", cpu="500m") for i in range(2))],
                    groups=[g])
    result = plan(snap, select_preemptor(snap, workload="default/train"),
                  model=get_model(model))
    assert ("RequiresPreemption", ["default/v1"]) == (
        result.status, [v.pod for v in result.victims])
