"""Choosing a single pod's node: upstream ``pickOneNodeForPreemption``'s criteria, each a named
function, and the bound the KEP model's node search prunes with."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import NamedTuple, TypeVar

from wapctl.model import Pod
from wapctl.preemption.units import Unit

# Upstream sums victim priorities as int64 after adding MaxInt32+1 to each, so that negative
# priorities cannot make a node with more victims look cheaper.
PRIORITY_OFFSET = 2**31
_INF = float("inf")

_T = TypeVar("_T")


def _may_beat_one(units: Sequence[Unit], start: int, level: int, best: NodeScore,
                  node: str) -> bool:
    """Whether ``units[start:]`` (in priority order) has a one-pod unit of priority ``level``
    that, as a node's only victim, would score below ``best`` (a one-victim-pod score of that
    level): it started later, or at the same time on a node whose name sorts first (no start
    time counts as started last, as in ``node_score``)."""
    earliest, best_node = -best.latest_start, best.node
    for k in range(start, len(units)):
        u = units[k]
        if u.priority != level:
            break
        if len(u.members) == 1:
            t = u.members[0][0].start_time
            t = _INF if t is None else t
            if t > earliest or (t == earliest and node < best_node):
                return True
    return False


@dataclass(frozen=True, slots=True)
class _NodeCandidate:
    """What upstream's ``pickOneNodeForPreemption`` knows of one candidate node."""

    node: str
    victim_pods: tuple[tuple[Pod, int], ...]  # (pod, its unit's priority)
    violating: frozenset[str]

    @property
    def top(self) -> int:
        return max(prio for _, prio in self.victim_pods)


def _pdb_violations(c: _NodeCandidate) -> float:
    return sum(1 for p, _ in c.victim_pods if p.key in c.violating)


def _highest_priority(c: _NodeCandidate) -> float:
    return c.top


def _priority_sum(c: _NodeCandidate) -> float:
    # upstream adds MaxInt32+1 per victim so that negative priorities never favour more victims
    return sum(prio + PRIORITY_OFFSET for _, prio in c.victim_pods)


def _victim_count(c: _NodeCandidate) -> float:
    return len(c.victim_pods)


def _latest_start(c: _NodeCandidate) -> float:
    top = c.top
    earliest = min((p.start_time if p.start_time is not None else _INF
                    for p, prio in c.victim_pods if prio == top), default=_INF)
    return -earliest  # later start of the highest-priority victims wins


# Upstream ``pickOneNodeForPreemption`` (preemption.go), in order; each a smaller-is-better key.
NODE_CRITERIA: tuple[tuple[str, Callable[[_NodeCandidate], float]], ...] = (
    ("fewest PDB violations", _pdb_violations),
    ("lowest highest victim priority", _highest_priority),
    ("smallest sum of victim priorities", _priority_sum),
    ("fewest victims", _victim_count),
    ("latest start of the highest-priority victims", _latest_start),
)


class NodeScore(NamedTuple):
    """A candidate node's ``NODE_CRITERIA`` values as one ascending sort key (the fields in
    ``NODE_CRITERIA``'s order, named after its functions), then ``draw`` (where the model draws
    at random: upstream's random pick among nodes equal on every criterion; else 0) and the
    node name (the reported winner among equal nodes, with a tie note)."""

    pdb_violations: float
    highest_priority: float
    priority_sum: float
    victim_count: float
    latest_start: float
    draw: float
    node: str

    def criteria(self) -> tuple[float, float, float, float, float]:
        """The ``NODE_CRITERIA`` values alone (what nodes equal for upstream share)."""
        return (self.pdb_violations, self.highest_priority, self.priority_sum,
                self.victim_count, self.latest_start)


# one order: NodeScore's fields are NODE_CRITERIA's functions, in that order
assert tuple(f.__name__.lstrip("_") for _, f in NODE_CRITERIA) == NodeScore._fields[:5]


def node_score(victims: list[Unit], violating: set[str], node: str) -> NodeScore:
    """``NODE_CRITERIA`` of a candidate node as a ``NodeScore`` (no draw)."""
    c = _NodeCandidate(node, tuple((p, u.priority) for u in victims for p, _ in u.members),
                       frozenset(violating))
    return NodeScore(_pdb_violations(c), _highest_priority(c), _priority_sum(c),
                     _victim_count(c), _latest_start(c), 0.0, node)


def node_criteria(node: str, victim_pods: Sequence[tuple[Pod, int]],
                  violating: Iterable[str] = ()) -> tuple[tuple[str, float], ...]:
    """Each ``NODE_CRITERIA`` value (name, smaller-is-better value) of a candidate node whose
    victims are ``victim_pods`` ((pod, its unit's priority); at least one), ``violating``
    the keys of those that take a PodDisruptionBudget below zero: what
    ``pickOneNodeForPreemption`` compares, for explaining a choice after the fact."""
    c = _NodeCandidate(node, tuple(victim_pods), frozenset(violating))
    return tuple((name, criterion(c)) for name, criterion in NODE_CRITERIA)


def may_win(best: NodeScore, prune: bool, node: str, units: Sequence[Unit], start: int,
            level: int) -> bool:
    """The KEP model's node search bound (``Evaluator.dry_run_preemption``), ``best`` being
    violation-free: whether ``node``, whose victims are of level ``level`` from
    ``units[start:]``, may still score below ``best``."""
    if best.highest_priority < level:
        return False
    return not (prune and best.victim_count == 1 and best.highest_priority == level
                and not _may_beat_one(units, start, level, best, node))


def pick_one_node_for_preemption(candidates: Sequence[tuple[NodeScore, _T]]
                                 ) -> tuple[NodeScore, _T] | None:
    """Upstream ``pickOneNodeForPreemption`` (pkg/scheduler/framework/preemption/preemption.go,
    called by ``Evaluator.SelectCandidate``), every model: the candidate of the smallest
    ``NodeScore`` (``NODE_CRITERIA`` in order, then the draw where the model draws at random,
    then the node name); None without candidates."""
    if not candidates:
        return None
    return min(candidates, key=itemgetter(0))
