"""`wapctl simulate`: the SimulationReport document and its Rich timeline.

The document (``-o json``; ``-o yaml`` is the same document)::

    {"apiVersion": "wapctl/v1", "kind": "SimulationReport",
     "settings": {"maxSteps": 1000, "requeue": true, "namespace": null},
     "steps": [...], "converged": bool, "hitStepLimit": bool,
     "cycle": null | {...}, "final": {...}}

``settings``
    The replay's bounds: ``maxSteps`` (``--max-steps``), ``requeue`` (false with
    ``--no-requeue``), ``namespace`` (``-n``: only preemptors of this namespace are queued).

``steps[]`` — one per step, in order:
    ``step`` (1-based; the logical clock), ``preemptor`` (``{"kind": "Pod|PodGroup", "name":
    "ns/name" or "ns/workload/group", "priority": int}``, or null for a step in which no
    preemptor could be tried and terminating pods only finished), ``action`` (``Bound`` — the
    plan was Schedulable and its placements were bound —, ``RequiresPreemption``,
    ``WaitingForTermination``, ``Unschedulable``, or ``Finished``), ``reason`` (the plan's
    sentence), ``placements`` (``[{"pod", "node"}]``: bound for ``Bound``, nominated for
    ``RequiresPreemption`` / ``WaitingForTermination``), ``nodes`` (the distinct placement
    nodes), ``victims`` (``[{"pod", "node", "priority", "unit": {"kind", "name"},
    "pdbViolation"}]``: made terminating in this step; never a pod already terminating),
    ``waitingFor`` (``[{"pod", "node"}]``: the terminating pods the plan waits for, its
    ``terminating``), ``finished`` (``[{"pod", "node"}]``: terminating
    pods that finished at the start of this step, or during a ``Finished`` step), ``requeued``
    (``["ns/name"]``: finished pods recreated as pending at the end of this step). Lists are
    sorted by pod.

``converged``
    True only when no further step can change anything: nothing queued, nothing terminating
    (everything left is parked with nothing to free it).

``hitStepLimit``
    True when ``maxSteps`` steps ran without converging or finding a cycle. Exactly one of
    ``converged``, ``hitStepLimit`` and a non-null ``cycle`` holds.

``cycle``
    ``{"kind": "MutualPreemption" | "RepeatedState", "members": [...], "steps": [int],
    "edges": [...], "repeatsStep": int | null}``. ``members[]``: ``{"kind": "Pod|PodGroup",
    "name", "workload": "ns/name" | null, "priority", "preemptionPriority", "pods": [...]}`` — a
    pod group (for pods of one) or a pod on its own, with its pods that took part; in cycle
    order for ``MutualPreemption`` (starting with the oldest edge), by name for
    ``RepeatedState``. ``steps``: the steps that formed the cycle (the edges' steps; for
    ``RepeatedState`` every step since the repeated one). ``edges[]``: ``{"from", "to",
    "step"}`` — a pod of ``from`` preempted a pod of ``to`` in ``step`` (empty for
    ``RepeatedState``). ``repeatsStep``: for ``RepeatedState``, the step (0 = the snapshot)
    whose end state came back; else null.

``final``
    ``{"step": last step run, "pods": {"bound", "pending", "terminating", "completed",
    "removed"}, "preemptors": [...]}``: pod counts after the last step (``completed`` =
    Succeeded/Failed, ``removed`` = finished and not recreated because of ``--no-requeue``) and
    the preemptors still queued, in queue order: ``{"kind", "name", "priority", "pods": pending
    pods in it, "state": "Queued|Parked|Waiting", "lastStatus": plan status or null (never
    tried), "lastReason": str | null}``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from wapctl.model import LoadWarning
from wapctl.render.warnings import warnings_to_list
from wapctl.simulate import FINISHED, Cycle, SimulationResult, Step

FINAL_ROWS = 20  # preemptors listed in the table; the JSON lists all
POD_NAMES = 3  # pods named per table cell before "+N more"


def _step(step: Step) -> dict[str, Any]:
    pre = step.preemptor
    return {
        "step": step.number,
        "preemptor": None if pre is None else {
            "kind": pre.kind, "name": pre.name, "priority": pre.priority},
        "action": step.action,
        "reason": step.reason,
        "placements": [{"pod": p.pod, "node": p.node} for p in step.placements],
        "nodes": list(step.nodes),
        "victims": [
            {"pod": v.pod, "node": v.node, "priority": v.priority,
             "unit": {"kind": v.unit_kind, "name": v.unit_name}, "pdbViolation": v.pdb_violation}
            for v in step.victims
        ],
        "waitingFor": [{"pod": t.pod, "node": t.node} for t in step.waiting_for],
        "finished": [{"pod": f.pod, "node": f.node} for f in step.finished],
        "requeued": list(step.requeued),
    }


def _cycle(cycle: Cycle | None) -> dict[str, Any] | None:
    if cycle is None:
        return None
    return {
        "kind": cycle.kind,
        "members": [
            {"kind": m.kind, "name": m.name, "workload": m.workload, "priority": m.priority,
             "preemptionPriority": m.preemption_priority, "pods": list(m.pods)}
            for m in cycle.members
        ],
        "steps": list(cycle.steps),
        "edges": [{"from": e.source, "to": e.target, "step": e.step} for e in cycle.edges],
        "repeatsStep": cycle.repeats_step,
    }


def simulation_to_dict(
    result: SimulationResult, warnings: Iterable[LoadWarning] | None = None
) -> dict[str, Any]:
    """The SimulationReport document (see the module docstring for every field).

    ``warnings``: the loaded snapshot's warnings (default: those the final state carries)."""
    final = result.final
    return {
        "apiVersion": "wapctl/v1",
        "kind": "SimulationReport",
        "settings": {"maxSteps": result.max_steps, "requeue": result.requeue,
                     "namespace": result.namespace},
        "steps": [_step(s) for s in result.steps],
        "converged": result.converged,
        "hitStepLimit": result.hit_step_limit,
        "cycle": _cycle(result.cycle),
        "final": {
            "step": final.step,
            "pods": {"bound": final.bound, "pending": final.pending,
                     "terminating": final.terminating, "completed": final.completed,
                     "removed": final.removed},
            "preemptors": [
                {"kind": left.unit.kind, "name": left.unit.name,
                 "priority": left.unit.priority, "pods": left.pods, "state": left.state,
                 "lastStatus": left.last_status, "lastReason": left.last_reason}
                for left in final.preemptors
            ],
        },
        "warnings": warnings_to_list(result.snapshot.warnings if warnings is None else warnings),
    }


# ---- the Rich rendering -----------------------------------------------------------------------

_ACTION_STYLE = {
    "Bound": "green",
    "RequiresPreemption": "yellow",
    "WaitingForTermination": "cyan",
    "Unschedulable": "red",
    "Finished": "dim",
}


def _names(items: list[str]) -> str:
    if not items:
        return ""
    shown = "\n".join(items[:POD_NAMES])
    if len(items) > POD_NAMES:
        shown += f"\n+{len(items) - POD_NAMES} more"
    return shown


def verdict(doc: dict[str, Any]) -> str:
    """One line: how the replay ended."""
    steps = len(doc["steps"])
    if doc["cycle"] is not None:
        cycle = doc["cycle"]
        names = " -> ".join(m["name"] for m in cycle["members"])
        if cycle["kind"] == "MutualPreemption":
            names += f" -> {cycle['members'][0]['name']}"
            return (f"Cycle: {names} preempt each other (steps "
                    f"{', '.join(map(str, cycle['steps']))}); it would go on forever.")
        return (f"Cycle: the state after step {steps} repeats the state after step "
                f"{cycle['repeatsStep']} ({names}); it would go on forever.")
    if doc["hitStepLimit"]:
        limit = doc["settings"]["maxSteps"]
        return (f"Stopped after --max-steps {limit} step{'' if limit == 1 else 's'} without "
                f"converging or finding a cycle: raise --max-steps to see where it ends.")
    return f"Converged after {steps} step(s): nothing left can change."


def _on_nodes(items: list[dict[str, Any]]) -> str:
    """Each pod with its own node ("ns/name on node"), so no column pairs pods and nodes by
    position."""
    return _names([f"{i['pod']} on {i['node']}" if i["node"] else i["pod"] for i in items])


def render_simulation(doc: dict[str, Any], console: Console) -> None:
    """The timeline (pods finishing at the start of a step get a ``Finished`` row of their
    own, their pods in the pods column), the final state and the cycle. Every pod is printed
    with its own node; the preemptor's placement nodes have a column of their own."""
    table = Table(title="Simulation", box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("step", justify="right", no_wrap=True)
    table.add_column("preemptor", overflow="fold")
    table.add_column("placed on", overflow="fold")
    table.add_column("action", no_wrap=True)
    table.add_column("victims, or pods finished (on node)", no_wrap=True)
    cycle_steps = set(doc["cycle"]["steps"]) if doc["cycle"] else set()
    for s in doc["steps"]:
        step_no = Text(str(s["step"]), style="bold magenta" if s["step"] in cycle_steps else "")
        if s["finished"]:
            table.add_row(step_no, "-", "-", Text(FINISHED, style=_ACTION_STYLE[FINISHED]),
                          _on_nodes(s["finished"]), style="dim")
        pre = s["preemptor"]
        if pre is None:
            continue
        table.add_row(step_no, pre["name"], ", ".join(s["nodes"]) or "-",
                      Text(s["action"], style=_ACTION_STYLE[s["action"]]),
                      _on_nodes(s["victims"]))
    console.print(table)

    pods = doc["final"]["pods"]
    console.print(
        f"Final state after step {doc['final']['step']}: {pods['bound']} bound, "
        f"{pods['pending']} pending, {pods['terminating']} terminating"
        + (f", {pods['removed']} removed (not recreated)" if pods["removed"] else "")
    )
    left = doc["final"]["preemptors"]
    if left:
        rest = Table(title="Pending preemptors left", box=box.SIMPLE_HEAD, title_justify="left")
        rest.add_column("preemptor", overflow="fold")
        rest.add_column("kind")
        rest.add_column("priority", justify="right")
        rest.add_column("pods", justify="right")
        rest.add_column("state")
        rest.add_column("last status")
        for item in left[:FINAL_ROWS]:
            rest.add_row(item["name"], item["kind"], str(item["priority"]),
                         str(item["pods"]), item["state"], item["lastStatus"] or "not tried")
        console.print(rest)
        if len(left) > FINAL_ROWS:
            console.print(f"... and {len(left) - FINAL_ROWS} more (-o json lists them all)")
    cycle = doc["cycle"]
    if cycle is not None:
        members = Table(title=f"Cycle ({cycle['kind']})", box=box.SIMPLE_HEAD,
                        title_justify="left")
        members.add_column("member", overflow="fold")
        members.add_column("kind")
        members.add_column("workload", overflow="fold")
        members.add_column("scheduling", justify="right")
        members.add_column("preemption", justify="right")
        members.add_column("pods", overflow="fold")
        for m in cycle["members"]:
            members.add_row(m["name"], m["kind"], m["workload"] or "-",
                            str(m["priority"]), str(m["preemptionPriority"]), _names(m["pods"]))
        console.print(members)
    style = "red" if cycle is not None or doc["hitStepLimit"] else "green"
    console.print(Text(verdict(doc), style=style))
