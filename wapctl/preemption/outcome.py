"""What a chosen preemption does: the victims it deletes and the terminating pods it waits for.

Upstream chooses victims among every lower-priority pod of a node, a terminating one included
(``SelectVictimsOnNode``; the group path's domain iterates ``node.GetPods()``), and ranks the
candidate nodes with all of them (``pickOneNodeForPreemption``). Acting on the chosen
candidate, ``prepareCandidate`` (preemption.go; ``Executor.prepareCandidate`` /
``prepareCandidateAsync`` in executor.go) skips every victim whose ``DeletionTimestamp`` is set:
"Graceful pod deletion has already started. Sending another API call is unnecessary." So a
victim that is already terminating is no new victim: nothing deletes it, nothing marks it, it
is not counted; the preemptor waits for it. A plan therefore lists it under ``terminating``
(the pods the plan waits for), never under ``victims``; a plan whose chosen victims are all
already terminating starts no preemption: ``WaitingForTermination`` on the chosen node(s).

``terminating`` of a preemption plan: those victims, plus — when the search ran with the
terminating pods taken as gone (``ClusterState.released``: nothing made room while they held)
— every terminating pod on the nodes the placement uses. A terminating pod that was no victim
and still held its room while the victims were chosen is not waited for, so not listed.
"""

from __future__ import annotations

from collections.abc import Iterable

from wapctl.fit import ClusterState
from wapctl.preemption.result import (
    REQUIRES_PREEMPTION,
    WAITING,
    PlanStatus,
    TerminatingPod,
    Victim,
)
from wapctl.preemption.units import Unit


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def victim_records(units: Iterable[Unit], violating: set[str],
                   state: ClusterState) -> tuple[Victim, ...]:
    """One record per victim pod (terminating ones included), sorted by pod key."""
    names = [s.name for s in state.nodes]
    records = [
        Victim(pod=p.key, node=names[i], priority=u.priority, unit_kind=u.kind,
               unit_name=u.name, pdb_violation=p.key in violating)
        for u in units
        for p, i in u.members
    ]
    records.sort(key=lambda v: v.pod)
    return tuple(records)


def terminating_on(state: ClusterState, used: Iterable[int]) -> tuple[TerminatingPod, ...]:
    """The terminating pods on the nodes ``used`` (by node index), sorted by pod key."""
    used_set = set(used)
    return tuple(TerminatingPod(p.key, state.nodes[i].name)
                 for p, i in state.terminating if i in used_set)


def summary_tail(victims: tuple[Victim, ...]) -> str:
    units = len({(v.unit_kind, v.unit_name) for v in victims})
    top = max(v.priority for v in victims)
    pdb = sum(1 for v in victims if v.pdb_violation)
    text = (f"preempting {plural(len(victims), 'pod')} in {plural(units, 'unit')} "
            f"(highest victim priority {top}")
    if pdb:
        text += f", {plural(pdb, 'PodDisruptionBudget violation')}"
    return text + ")"


def actuate(state: ClusterState, chosen: tuple[Victim, ...], used: Iterable[int],
            fits: str) -> tuple[PlanStatus, str, tuple[Victim, ...], tuple[TerminatingPod, ...]]:
    """The chosen victims as the scheduler acts on them: (status, reason, victims deleted,
    terminating pods waited for). ``fits`` starts the reason ("pod ns/p fits on node n1")."""
    going = {p.key for p, _ in state.terminating}
    new = tuple(v for v in chosen if v.pod not in going)
    already = [TerminatingPod(v.pod, v.node) for v in chosen if v.pod in going]
    waited = {t.pod: t for t in already}
    if state.released:  # planned with every terminating pod gone: those on the nodes used too
        waited.update((t.pod, t) for t in terminating_on(state, used))
    terminating = tuple(waited[k] for k in sorted(waited))
    if not already:
        return REQUIRES_PREEMPTION, f"{fits} after {summary_tail(new)}.", new, terminating
    if new:
        more = plural(len(already), "more chosen victim")
        return (REQUIRES_PREEMPTION,
                f"{fits} after {summary_tail(new)}; {more} "
                f"{'is' if len(already) == 1 else 'are'} already terminating and not deleted "
                f"again.", new, terminating)
    n = len(terminating)
    finish = "1 terminating pod finishes" if n == 1 else f"{n} terminating pods finish"
    return (WAITING, f"{fits} once {finish}: every victim the scheduler chooses is already "
                     f"terminating, so it deletes nothing new.", (), terminating)
