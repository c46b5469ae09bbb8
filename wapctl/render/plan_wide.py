"""``wapctl plan -o wide``: the numbers behind a plan, so a user can see why a node was chosen.

- the preemptor's requests (per pending pod);
- for each node the plan uses (a placement, a victim or a terminating pod there): its free
  resources before the plan (allocatable minus every bound, unfinished pod, terminating ones
  included) and after it (victims and the terminating pods waited for gone, the placed pods
  added), for the resources the preemptor requests and the pod count;
- the PodDisruptionBudgets matching each victim, by name.

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

from wapctl.fit import label_selector_matches
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


def preemptor_resources(plan: Plan) -> tuple[str, ...]:
    """What the preemptor requests, cpu and memory first, then the rest sorted, then pods."""
    names = {r for p in plan.preemptor.pods for r in p.requests if r != "pods"}
    return tuple(r for r in ("cpu", "memory") if r in names) + tuple(
        sorted(names - {"cpu", "memory"})) + ("pods",)


def free_on(snapshot: Snapshot, nodes: Iterable[str],
            resources: tuple[str, ...]) -> dict[str, dict[str, int]]:
    """Free ``resources`` on each of ``nodes`` (those in the snapshot): allocatable minus every
    bound, unfinished pod, terminating ones included ("pods": free pod slots)."""
    free: dict[str, dict[str, int]] = {}
    for name in nodes:
        node = snapshot.nodes.get(name)
        if node is not None:
            free[name] = {r: node.allocatable.get(r, 0) for r in resources}
    for pod in snapshot.pods.values():
        slot = free.get(pod.node_name or "")
        if slot is None or pod.finished:
            continue
        for r in resources:
            slot[r] -= 1 if r == "pods" else pod.requests.get(r, 0)
    return free


def wide_details(snapshot: Snapshot, plan: Plan) -> WideDetails:
    pods = plan.preemptor.pods
    resources = preemptor_resources(plan)
    used_nodes = sorted({x.node for x in plan.placements} | {v.node for v in plan.victims}
                        | {t.node for t in plan.terminating})
    free = free_on(snapshot, used_nodes, resources)
    after = {n: dict(v) for n, v in free.items()}

    def move(key: str, node: str, sign: int) -> None:
        pod, slot = snapshot.pods.get(key), after.get(node)
        if pod is None or slot is None:
            return
        for r in resources:
            slot[r] += sign * (1 if r == "pods" else pod.requests.get(r, 0))

    for v in plan.victims:
        move(v.pod, v.node, +1)
    for t in plan.terminating:
        move(t.pod, t.node, +1)
    for x in plan.placements:
        move(x.pod, x.node, -1)
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
        nodes=tuple(NodeFree(n, free[n], after[n],
                             {r: snapshot.nodes[n].allocatable.get(r, 0) for r in resources})
                    for n in used_nodes if n in free),
        pdbs=pdbs,
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
    console.print(Text(wide.runner_up_note, style="dim"), soft_wrap=True)
