"""``wapctl plan -o wide``: the numbers behind a plan, so a user can see why a node was chosen.

- the preemptor's requests (per pending pod);
- for each node the plan uses (a placement, a victim or a terminating pod there): its free
  resources before the plan and after it, for the resources the preemptor requests and the pod
  count. "Before" is what the planner itself starts from (``fit.ClusterState`` for this
  preemptor: allocatable minus every bound, unfinished pod, terminating ones included, minus
  the room reserved for pods nominated there at the preemptor's priority or above); "after"
  takes that once more with the plan applied: each pod the plan lists as a victim or as a
  terminating pod waited for leaves once (a pod in both lists leaves once), each placed pod
  arrives;
- the PodDisruptionBudgets matching each victim, by name (a match is no violation: the
  ``pdbViolation`` flag says which victims take a budget below zero).

The runner-up node (and the criterion it lost on) is not exposed by the engine yet
(``wapctl.preemption.Plan`` has no candidate list); the wide view says so instead of guessing.
Nothing here decides anything about scheduling: it only adds up the snapshot's numbers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from wapctl.fit import ClusterState, NodeState, label_selector_matches
from wapctl.model import Snapshot
from wapctl.preemption import Plan

RUNNER_UP_NOTE = ("Runner-up node: not exposed by the planning engine yet (the plan keeps only "
                  "the chosen nodes).")
_BINARY = ("memory", "ephemeral-storage")
_UNITS = (("Ti", 1024**4), ("Gi", 1024**3), ("Mi", 1024**2), ("Ki", 1024))


@dataclass(frozen=True)
class NodeFree:
    name: str
    before: dict[str, int]  # resource -> free amount ("pods": free pod slots)
    after: dict[str, int]
    allocatable: dict[str, int] = field(default_factory=dict)  # the same resources


@dataclass(frozen=True)
class WideDetails:
    resources: tuple[str, ...]  # what the preemptor requests, cpu and memory first, then pods
    requests: tuple[tuple[str, dict[str, int]], ...]  # (pod key, requests)
    nodes: tuple[NodeFree, ...]
    pdbs: dict[str, tuple[str, ...]]  # victim pod key -> matching PDB keys
    reserved: tuple[tuple[str, tuple[str, ...]], ...] = ()  # node -> nominated pods counted
    runner_up_note: str = RUNNER_UP_NOTE


def fmt_amount(resource: str, amount: int) -> str:
    """``2`` / ``500m`` CPUs, ``1Gi`` / ``1.5Gi`` bytes, plain counts otherwise."""
    sign, n = ("-", -amount) if amount < 0 else ("", amount)
    if resource == "cpu":
        return f"{sign}{n // 1000}" if n % 1000 == 0 else f"{sign}{n}m"
    if resource in _BINARY or resource.startswith("hugepages-"):
        for unit, size in _UNITS:
            if n >= size:
                text = f"{n / size:.1f}".removesuffix(".0")
                return f"{sign}{text}{unit}"
    return f"{sign}{n}"


def _free(state: NodeState, resources: tuple[str, ...]) -> dict[str, int]:
    return {r: (state.max_pods - state.pod_count if r == "pods"
                else state.allocatable.get(r, 0) - state.requested.get(r, 0))
            for r in resources}


def preemptor_resources(plan: Plan) -> tuple[str, ...]:
    """What the preemptor requests, cpu and memory first, then the rest sorted, then pods."""
    names = {r for p in plan.preemptor.pods for r in p.requests if r != "pods"}
    return tuple(r for r in ("cpu", "memory") if r in names) + tuple(
        sorted(names - {"cpu", "memory"})) + ("pods",)


def planner_state(snapshot: Snapshot, plan: Plan) -> ClusterState:
    """The planner's own accounting for this preemptor (its reservations included), every
    resource tracked: the figures shown are the engine's, not a second sum of the snapshot."""
    return ClusterState(snapshot, reserve_priority=plan.preemptor.priority,
                        exclude={p.key for p in plan.preemptor.pods})


def free_on(state: ClusterState, nodes: Iterable[str],
            resources: tuple[str, ...]) -> dict[str, dict[str, int]]:
    """Free ``resources`` on each of ``nodes`` (those the planner knows) before the plan, as the
    planner counts them ("pods": free pod slots)."""
    return {n: _free(state.nodes[state.index[n]], resources) for n in nodes if n in state.index}


def wide_details(snapshot: Snapshot, plan: Plan) -> WideDetails:
    pods = plan.preemptor.pods
    resources = preemptor_resources(plan)
    used_nodes = sorted({x.node for x in plan.placements} | {v.node for v in plan.victims}
                        | {t.node for t in plan.terminating})
    state = planner_state(snapshot, plan)
    index = {n: state.nodes[state.index[n]] for n in used_nodes if n in state.index}
    before = free_on(state, used_nodes, resources)
    gone = {v.pod: v.node for v in plan.victims} | {t.pod: t.node for t in plan.terminating}
    for key, node in gone.items():
        pod = snapshot.pods.get(key)
        if pod is not None and node in index:
            index[node].remove(pod)
    for x in plan.placements:
        pod = snapshot.pods.get(x.pod)
        if pod is not None and x.node in index:
            index[x.node].add(pod)
    after = {n: _free(s, resources) for n, s in index.items()}
    reserved: dict[str, list[str]] = {}
    for pod, i in state.reserved:
        if state.nodes[i].name in index:
            reserved.setdefault(state.nodes[i].name, []).append(pod.key)
    pdbs: dict[str, tuple[str, ...]] = {}
    for v in plan.victims:
        pod = snapshot.pods.get(v.pod)
        if pod is None or not pod.labels:
            continue
        pdbs[v.pod] = tuple(b.key for b in snapshot.pdbs if b.namespace == pod.namespace
                            and label_selector_matches(b.selector, pod.labels))
    return WideDetails(
        resources=resources,
        requests=tuple((p.key, {r: p.requests.get(r, 0) for r in resources if r != "pods"})
                       for p in pods),
        nodes=tuple(NodeFree(n, before[n], after[n],
                             {r: snapshot.nodes[n].allocatable.get(r, 0) for r in resources})
                    for n in used_nodes if n in index),
        pdbs=pdbs,
        reserved=tuple((n, tuple(keys)) for n, keys in sorted(reserved.items())),
    )


def _request_text(req: dict[str, int]) -> str:
    return ", ".join(f"{r} {fmt_amount(r, a)}" for r, a in req.items()) or "nothing"


def render_requests(wide: WideDetails, console: Console) -> None:
    distinct = {tuple(req.items()) for _, req in wide.requests}
    if len(wide.requests) > 1 and len(distinct) == 1:
        text = _request_text(wide.requests[0][1])
        console.print(Text(f"Requests of each of the {len(wide.requests)} pending pods: {text}"),
                      soft_wrap=True)
        return
    shown = wide.requests[:10]
    for key, req in shown:
        console.print(Text(f"Requests of {key}: {_request_text(req)}"), soft_wrap=True)
    if len(wide.requests) > len(shown):
        console.print(f"... and {len(wide.requests) - len(shown)} more pods (-o json)")


def render_nodes(wide: WideDetails, console: Console) -> None:
    if wide.nodes:
        title = "Free on the nodes used (before -> after the plan)"
        table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left",
                      min_width=len(title))
        table.add_column("node", no_wrap=True)
        for r in wide.resources:
            table.add_column(r, justify="right", no_wrap=True)
        for n in wide.nodes:
            cells = []
            for r in wide.resources:
                cell = Text(f"{fmt_amount(r, n.before[r])} -> {fmt_amount(r, n.after[r])}")
                if n.after[r] < 0:
                    cell.stylize("red")
                cells.append(cell)
            table.add_row(n.name, *cells)
        console.print(table)
        for node, keys in wide.reserved:
            console.print(Text(f"Reserved on {node} (nominated there, priority at or above the "
                               f"preemptor's, counted as used): {', '.join(keys)}",
                               style="dim"), soft_wrap=True)
    console.print(Text(wide.runner_up_note, style="dim"), soft_wrap=True)
