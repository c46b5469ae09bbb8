"""``wapctl explain``: the machine document (docs/SPEC.md, "explain") and its table form."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from wapctl.events import UNREAD_PREEMPTED, Preemption
from wapctl.explain import PendingExplanation, VictimExplanation
from wapctl.render.plan import names_table, plan_to_dict, render_plan
from wapctl.render.warnings import warnings_to_list


def _preemption_row(p: Preemption) -> dict[str, Any]:
    return {"pod": p.victim.key, "uid": p.victim.uid, "time": p.time, "node": p.node}


def _victim_doc(x: VictimExplanation) -> dict[str, Any]:
    p, info, replay = x.preemption, x.preemptor, x.replay
    choice = x.node_choice
    return {
        "role": "Victim",
        "preemption": {
            "time": p.time,
            "node": p.node,
            "event": f"{p.event.namespace}/{p.event.name}",
            "note": p.event.note,
            "preemptor": {"kind": info.kind, "name": info.name, "uid": info.uid,
                          "resolved": info.resolved, "members": list(info.members)},
            "victims": [_preemption_row(v) for v in x.co_victims],
            "earlierPreemptions": x.earlier,
        },
        "replay": None if replay is None else {
            "restored": replay.restored, "fromBefore": replay.from_before,
            "missing": replay.missing, "unbound": replay.unbound,
            "missingPreemptor": replay.missing_preemptor,
        },
        "plan": plan_to_dict(x.plan) if x.plan is not None else None,
        "nodeChoice": None if choice is None else {
            "chosen": choice.chosen, "runnerUp": choice.runner_up,
            "criteria": [{"criterion": c.name, "chosen": c.chosen, "runnerUp": c.runner_up,
                          "decides": c.decides} for c in choice.criteria],
            "note": choice.note,
            "runnerUpVictims": list(choice.runner_up_victims),
        },
        "reasons": list(x.reasons),
        "verdict": {"agrees": x.verdict.agrees, "differences": list(x.verdict.differences),
                    "causes": list(x.verdict.causes)},
    }


def _other_doc(x: PendingExplanation) -> dict[str, Any]:
    return {
        "role": "Pending" if x.state == "pending" else "Other",
        "state": x.state,
        "failedScheduling": list(x.failed),
        "mayPreempt": x.may_preempt,
        "whyNot": x.why_not,
        "nominatedNode": x.nominated,
        "preempted": [_preemption_row(p) for p in x.preempted],
        "plan": plan_to_dict(x.plan) if x.plan is not None else None,
    }


def explain_to_dict(x: VictimExplanation | PendingExplanation) -> dict[str, Any]:
    body = _victim_doc(x) if isinstance(x, VictimExplanation) else _other_doc(x)
    for plan in (body.get("plan"),):
        if plan is not None:
            del plan["warnings"]  # once, at the top
    return {"apiVersion": "wapctl/v1", "kind": "PreemptionExplanation", "pod": x.pod, **body,
            "warnings": warnings_to_list(x.warnings)}


def _line(console: Console, label: str, text: str, style: str = "") -> None:
    console.print(Text.assemble((f"{label}: ", "bold"), (text, style)))


def _who(pre: dict[str, Any]) -> str:
    if pre["name"] is None:
        return f"{pre['kind']} with UID {pre['uid']} (not among the objects read)"
    kind = "pod group" if pre["kind"] == "PodGroup" else "pod"
    text = f"{kind} {pre['name']}"
    if pre["uid"]:
        text += f" (UID {pre['uid']})"
    if pre["members"]:
        text += f", members {', '.join(pre['members'])}"
    return text


def _render_replay(doc: dict[str, Any], console: Console) -> None:
    r = doc["replay"]
    parts = []
    if r["restored"]:
        parts.append("put back as running (were terminating): " + ", ".join(r["restored"]))
    if r["fromBefore"]:
        parts.append("taken from --before: " + ", ".join(r["fromBefore"]))
    if r["unbound"]:
        parts.append("pending again (since nominated or bound): " + ", ".join(r["unbound"]))
    if r["missing"]:
        parts.append("MISSING (not in the snapshot nor --before): " + ", ".join(r["missing"]))
    _line(console, "Replay", "; ".join(parts) or "the snapshot as read")


def _render_node_choice(doc: dict[str, Any], console: Console) -> None:
    c = doc["nodeChoice"]
    if c is None:
        return
    if c["runnerUp"] is None:
        _line(console, "Why node " + c["chosen"], c["note"])
        return
    table = names_table(f"Why node {c['chosen']} and not {c['runnerUp']} (the runner-up)",
                         "criterion (pickOneNodeForPreemption, in order)")
    table.add_column(c["chosen"], no_wrap=True, justify="right")
    table.add_column(c["runnerUp"], no_wrap=True, justify="right")
    table.add_column("", no_wrap=True)
    for row in c["criteria"]:
        table.add_row(row["criterion"], row["chosen"], row["runnerUp"],
                      Text("decides", style="bold") if row["decides"] else "")
    console.print(table)
    console.print(Text(f"On {c['runnerUp']} the preemptor would have taken "
                       f"{', '.join(c['runnerUpVictims'])}."))
    decider = next((row for row in c["criteria"] if row["decides"]), None)
    if decider is not None:
        console.print(Text(f"Node {c['chosen']} wins on \"{decider['criterion']}\" "
                           f"({decider['chosen']} against {decider['runnerUp']}); the "
                           "criteria before it are equal."))
    if c["note"]:
        console.print(Text(c["note"], style="yellow"))


def _render_victim(doc: dict[str, Any], console: Console) -> None:
    p = doc["preemption"]
    _line(console, "Pod", f"{doc['pod']} was preempted")
    _line(console, "By", _who(p["preemptor"]))
    _line(console, "When", p["time"] or "unknown")
    _line(console, "Node", p["node"] or "none named (a pod group's preemption: "
          "the scheduler writes \"cluster\")")
    _line(console, "Event", f"{p['event']}: {p['note']}", "dim")
    if p["earlierPreemptions"]:
        _line(console, "Earlier", f"{p['earlierPreemptions']} earlier preemption(s) of a pod "
              "of this name", "yellow")
    table = names_table("Victims of the same preemption", "pod", "time")
    for v in p["victims"]:
        table.add_row(v["pod"], v["time"] or "")
    console.print(table)
    _render_replay(doc, console)
    if doc["plan"] is not None:
        console.print(Text("Predicted plan for the preemptor, on the replay:", style="bold"))
        render_plan(doc["plan"], console)
    _render_node_choice(doc, console)
    for reason in doc["reasons"]:
        console.print(Text(f"- {reason}"))
    _render_verdict(doc["verdict"], console, p["node"])


def _render_verdict(v: dict[str, Any], console: Console, node: str | None = None) -> None:
    if v["agrees"] is True:
        compared = ("same victims, same node" if node is not None else
                    "same victims; the event names no node to compare")
        console.print(Text(f"Verdict: the prediction agrees with what the scheduler did "
                           f"({compared}).", style="bold green"))
    elif v["agrees"] is False:
        console.print(Text("Verdict: the prediction differs from what the scheduler did.",
                           style="bold red"))
    else:
        console.print(Text("Verdict: no comparison possible.", style="bold yellow"))
    for d in v["differences"]:
        console.print(Text(f"  differs: {d}"))
    for c in v["causes"]:
        console.print(Text(f"  likely: {c}" if v["agrees"] is False else f"  {c}"))


def _render_other(doc: dict[str, Any], console: Console) -> None:
    unread = any(w["code"] == UNREAD_PREEMPTED for w in doc["warnings"])
    _line(console, "Pod", f"{doc['pod']} is {doc['state']}; " + (
        "no Preempted event naming it can be read (see the warnings above)" if unread else
        "no Preempted event names it"))
    for note in doc["failedScheduling"]:
        _line(console, "FailedScheduling", note)
    if doc["state"] == "pending" and not doc["failedScheduling"]:
        _line(console, "FailedScheduling", "no event (expired, or not tried yet)", "dim")
    if doc["nominatedNode"]:
        _line(console, "Nominated", doc["nominatedNode"])
    _line(console, "May preempt", "yes" if doc["mayPreempt"] else f"no: {doc['whyNot']}")
    if doc["preempted"]:
        table = names_table("It (or its pod group) preempted", "pod", "time")
        for v in doc["preempted"]:
            table.add_row(v["pod"], v["time"] or "")
        console.print(table)
    if doc["plan"] is not None:
        console.print(Text("Plan now:", style="bold"))
        render_plan(doc["plan"], console)


def render_explain(doc: dict[str, Any], console: Console) -> None:
    if doc["role"] == "Victim":
        _render_victim(doc, console)
    else:
        _render_other(doc, console)
