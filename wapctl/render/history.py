"""``wapctl history``: the machine document (docs/SPEC.md, "history") and its tables."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.text import Text

from wapctl.events import DEFAULT_EVENT_TTL_SECONDS, UNREAD_PREEMPTED
from wapctl.history import History, Incident
from wapctl.model import LoadWarning
from wapctl.render.plan import names_table
from wapctl.render.plan_wide import fmt_amount
from wapctl.render.warnings import warnings_to_list

EMPTY_WINDOW = (f"No preemption in the events read. The API server keeps events "
                f"{DEFAULT_EVENT_TTL_SECONDS // 3600} hour by default (--event-ttl): an "
                "older preemption has left no trace; 'wapctl snapshot --events' keeps them.")
UNREAD_ONLY = ("No preemption wapctl can read in the events: {} of the scheduler's Preempted "
               "events {} in a form it does not read (see the warnings above).")
NO_EVENTS = ("No Event objects were read: give the events with the objects (kubectl get "
             "events -A -o yaml, or 'wapctl snapshot --events').")


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _amounts(requests: Any) -> str:
    return ", ".join(f"{r} {fmt_amount(r, a)}" for r, a in requests.items()) or "-"


def _owner(owner: Any) -> str | None:
    return None if owner is None else str(owner)


def _incident(inc: Incident) -> dict[str, Any]:
    return {
        "time": inc.time,
        "preemptor": {"kind": inc.preemptor_kind, "name": inc.preemptor,
                      "owner": _owner(inc.preemptor_owner)},
        "node": inc.node,
        "victims": [{"pod": v.pod, "uid": v.uid, "owner": _owner(v.owner), "node": v.node,
                     "requests": dict(v.requests) if v.requests is not None else None,
                     "time": v.time} for v in inc.victims],
    }


def history_to_dict(h: History, warnings: Iterable[LoadWarning] = ()) -> dict[str, Any]:
    return {
        "apiVersion": "wapctl/v1",
        "kind": "PreemptionHistory",
        "window": {"first": h.first, "last": h.last, "eventsRead": h.events_read,
                   "notTheScheduler": h.others},
        "preemptions": [_incident(i) for i in h.incidents],
        "owners": [{"owner": o.owner, "preemptions": o.preemptions, "victims": o.victims,
                    "requests": dict(o.requests), "unknownRequests": o.unknown_requests,
                    "churn": o.churn} for o in h.owners],
        "pairs": [{"preemptor": p.preemptor, "victim": p.victim, "preemptions": p.preemptions,
                   "victims": p.victims} for p in h.pairs],
        "summary": {"preemptions": len(h.incidents),
                    "victims": sum(len(i.victims) for i in h.incidents),
                    "requests": dict(h.requests), "unknownRequests": h.unknown_requests,
                    "churn": [o.owner for o in h.churn],
                    "pingPong": [list(c) for c in h.ping_pong]},
        "warnings": warnings_to_list(warnings),
    }


def incident_line(inc: dict[str, Any]) -> str:
    """One preemption in one line."""
    p = inc["preemptor"]
    kind = "pod group" if p["kind"] == "PodGroup" else "pod"
    where = f" on {inc['node']}" if inc["node"] else ""
    victims = ", ".join(v["pod"] for v in inc["victims"])
    return f"{inc['time'] or '?'}  {kind} {p['name']} preempted {victims}{where}"


def render_history(doc: dict[str, Any], console: Console) -> None:
    w, s = doc["window"], doc["summary"]
    unread = sum(1 for x in doc["warnings"] if x["code"] == UNREAD_PREEMPTED)
    if not doc["preemptions"]:
        text = (NO_EVENTS if not w["eventsRead"] else
                UNREAD_ONLY.format(unread, "is" if unread == 1 else "are") if unread else
                EMPTY_WINDOW)
        console.print(Text(text, style="yellow"))
        return
    table = names_table("Preemptions", "time", "preemptor", "preemptor's owner", "victims",
                         "node")
    for inc in doc["preemptions"]:
        p = inc["preemptor"]
        table.add_row(inc["time"] or "", f"{p['kind']} {p['name']}", p["owner"] or "unknown",
                      ", ".join(v["pod"] for v in inc["victims"]), inc["node"] or "-")
    console.print(table)
    table = names_table("Per owner (victims' workloads)", "owner", "preemptions", "victims",
                         "requests churned", "")
    for o in doc["owners"]:
        req = _amounts(o["requests"])
        if o["unknownRequests"]:
            req += f" (+{_n(o['unknownRequests'], 'pod')} not in any snapshot)"
        table.add_row(o["owner"], str(o["preemptions"]), str(o["victims"]), req,
                      Text("churn", style="bold yellow") if o["churn"] else "")
    console.print(table)
    table = names_table("Per workload pair", "preemptor's owner", "victims' owner",
                         "preemptions", "victims")
    for p in doc["pairs"]:
        table.add_row(p["preemptor"], p["victim"], str(p["preemptions"]), str(p["victims"]))
    console.print(table)
    unknown = (f" (+{_n(s['unknownRequests'], 'victim')} not in any snapshot)"
               if s["unknownRequests"] else "")
    console.print(Text(f"{_n(s['preemptions'], 'preemption')} took {_n(s['victims'], 'pod')} "
                       f"between "
                       f"{w['first']} and {w['last']}; requests churned: "
                       f"{_amounts(s['requests'])}{unknown}.", style="bold"))
    if unread:
        console.print(Text(f"Not counted: {_n(unread, 'Preempted event')} in a form wapctl "
                           "does not read (see the warnings above).", style="yellow"))
    for owner in s["churn"]:
        console.print(Text(f"Churn: {owner} was preempted again and again "
                           "(by 2 or more preemptions)", style="yellow"))
    for cycle in s["pingPong"]:
        console.print(Text("Ping-pong: " + " -> ".join([*cycle, cycle[0]])
                           + " (each preempts the next)", style="bold red"))


def seen_to_dict(seen: Any) -> dict[str, Any]:
    """One victim ``history --watch`` saw (``live_events.Seen``), as a document: a
    ``PreemptionVictim``, not a whole preemption (its preemptor may take more later)."""
    p = seen.preemption
    return {"apiVersion": "wapctl/v1", "kind": "PreemptionVictim", "time": p.time,
            "victim": p.victim.key, "victimOwner": _owner(seen.victim_owner),
            "preemptor": {"kind": p.preemptor_kind, "uid": p.preemptor_uid,
                          "description": seen.preemptor},
            "victimsSoFar": seen.victims_so_far, "node": p.node, "note": p.event.note}


def seen_line(doc: dict[str, Any]) -> str:
    """The line ``history --watch`` prints for one victim as its event arrives."""
    owner = f" ({doc['victimOwner']})" if doc["victimOwner"] else ""
    where = f" on node {doc['node']}" if doc["node"] else ""
    return f"{doc['time'] or '?'}  {doc['preemptor']['description']} preempted " \
           f"{doc['victim']}{owner}{where} [{_n(doc['victimsSoFar'], 'victim')} of this " \
           "preemptor so far]"
