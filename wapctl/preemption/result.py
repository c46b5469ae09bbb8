"""What a plan says: its status, placements, victims, terminating pods relied on, ties."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal

from wapctl.models import BehaviourModel
from wapctl.preemptor import Preemptor

PlanStatus = Literal["Schedulable", "WaitingForTermination", "RequiresPreemption", "Unschedulable"]
# Final: each is its own Literal type, so a report's narrower Literal (simulate's Action) takes it
SCHEDULABLE: Final = "Schedulable"
WAITING: Final = "WaitingForTermination"
REQUIRES_PREEMPTION: Final = "RequiresPreemption"
UNSCHEDULABLE: Final = "Unschedulable"

UnitKind = Literal["Pod", "PodGroup"]


def waiting_reason(desc: str, where: str, by_preemption: list[bool]) -> str:
    """The WaitingForTermination sentence for terminating pods the placement waits for;
    ``by_preemption`` holds, per pod, whether it is terminating because the scheduler preempted
    it (DisruptionTarget, reason PreemptionByScheduler) rather than being deleted otherwise."""
    n = len(by_preemption)
    waits = "1 terminating pod finishes" if n == 1 else f"{n} terminating pods finish"
    if all(by_preemption):
        why = "the preemption already triggered suffices"
    else:
        why = "it is already terminating" if n == 1 else "they are already terminating"
    return f"{desc} fits {where} once {waits}; {why}, no new victims."



@dataclass(frozen=True, slots=True)
class Placement:
    pod: str  # "ns/name"
    node: str


@dataclass(frozen=True, slots=True)
class Victim:
    pod: str  # "ns/name"
    node: str
    priority: int  # the pod's preemption priority (its unit's)
    unit_kind: UnitKind
    unit_name: str  # "ns/name" for a pod unit, "ns/workload/group" for a PodGroup unit
    pdb_violation: bool  # this pod took a PodDisruptionBudget below zero (upstream marking)


@dataclass(frozen=True, slots=True)
class TerminatingPod:
    pod: str
    node: str


@dataclass(frozen=True, slots=True)
class Tie:
    """A choice upstream makes at random; the plan took ``chosen`` deterministically."""

    decision: str
    chosen: tuple[str, ...]
    alternatives: tuple[str, ...]  # the equal options not taken (possibly truncated)
    count: int = 0  # how many options were equal in all (0: chosen + alternatives)


@dataclass(frozen=True, slots=True)
class Plan:
    """The outcome for one preemptor. Lists are sorted by pod key."""

    preemptor: Preemptor
    status: PlanStatus
    reason: str
    placements: tuple[Placement, ...] = ()
    victims: tuple[Victim, ...] = ()
    terminating: tuple[TerminatingPod, ...] = ()  # on nodes the placement uses
    unplaced: tuple[str, ...] = ()  # preemptor pods left pending (gang remainder, or all)
    # the behaviour model the plan followed (not part of equality: plans compare by outcome)
    model: BehaviourModel | None = field(default=None, compare=False)
    ties: tuple[Tie, ...] = ()  # decisions upstream takes at random
    notes: tuple[str, ...] = ()  # remarks on how the preemptor was read

    @property
    def victim_pods(self) -> int:
        return len(self.victims)

    @property
    def victim_units(self) -> int:
        return len({(v.unit_kind, v.unit_name) for v in self.victims})

    @property
    def max_victim_priority(self) -> int | None:
        return max((v.priority for v in self.victims), default=None)

    @property
    def pdb_violations(self) -> int:
        return sum(1 for v in self.victims if v.pdb_violation)

    @property
    def nodes_touched(self) -> int:
        """Distinct nodes hosting victims."""
        return len({v.node for v in self.victims})


