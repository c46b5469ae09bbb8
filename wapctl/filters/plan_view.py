"""The pod-dependent filters as one preemption plan consults them.

The engine works on node indices of a ``fit.ClusterState`` and moves victim units in and out
many times; ``PlanFilters`` keeps a ``ConstraintState`` in step with it and answers "does this
pod pass NodePorts, PodTopologySpread and InterPodAffinity on node i given the pods now
present" (victims removed, reprieved units back, the preemptor's own pods placed so far).

Only pods that can change an answer for one of the preemptor's pods are tracked
(``ConstraintState.relevant``): a plan whose preemptor carries no constraint and that no
running pod's anti-affinity matches is ``active = False``, and the engine keeps its
resource-only fast paths. Terminating pods count while the cluster state holds them (upstream
NodeInfo keeps them) and leave with them when ``release_terminating`` frees their room.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from wapctl.filters.state import UNRESOLVABLE, ConstraintState, constrained
from wapctl.fit import ClusterState
from wapctl.model import Pod, Snapshot


class PlanFilters:
    """Pod-dependent filters over one plan's ``ClusterState`` (node indices)."""

    def __init__(self, snapshot: Snapshot, state: ClusterState,
                 preemptor_pods: Sequence[Pod]) -> None:
        self.state = state
        self.names = state.node_names()
        # The preemptor's pods by what the two kinds of relevance read: their own constraints
        # (not their labels), and their namespace and labels (other pods' anti-affinity).
        own: dict[tuple[object, ...], Pod] = {}
        labelled: dict[tuple[object, ...], Pod] = {}
        for p in preemptor_pods:
            if constrained(p):
                own.setdefault((p.namespace, repr(p.affinity_terms),
                                repr(p.anti_affinity_terms), repr(p.spread_constraints),
                                p.host_ports), p)
            labelled.setdefault((p.namespace, tuple(sorted(p.labels.items()))), p)
        self._namespaces = snapshot.namespaces
        self._cs: ConstraintState | None = None  # built when first needed (see ``cs``)
        self.tracked: set[str] = set()
        if own:
            present = [*state.bound, *state.reserved, *state.terminating]
        else:  # only other pods' anti-affinity can reject an unconstrained preemptor
            present = [*state.bound_with_anti_affinity(),
                       *((p, i) for p, i in (*state.reserved, *state.terminating)
                         if p.anti_affinity_terms)]
        # A term whose matchLabels ask for a label no preemptor pod has matches none of them.
        items = {item for q in labelled.values() for item in q.labels.items()}

        def may_match(other: Pod) -> bool:
            for t in other.anti_affinity_terms:
                sel = t.selector
                if sel is not None and all(item in items for item in sel.match_labels.items()):
                    return True
            return False

        if present:
            cs, names = self.cs, self.names
            for p, i in present:
                if (any(cs.relevant_own(q, p) for q in own.values())
                        or (p.anti_affinity_terms and may_match(p)
                            and any(cs.relevant_existing(q, p) for q in labelled.values()))):
                    cs.add(p, names[i])
                    self.tracked.add(p.key)
        # Removal only helps (the engine's resource-only searches give the filter-aware
        # answer) unless a preemptor pod's affinity or spread counts a present pod (removing
        # it may fail the term) or the preemptor's own pods (where the first pods go then
        # depends on the room left: a unit put back may lure them where the rest cannot follow).
        wanting = [q for q in own.values() if q.affinity_terms or q.spread_constraints]
        self.monotone = not (wanting and (
            any(self.cs.needed_by(q, p) for p in labelled.values() for q in wanting)
            or any(self.cs.needed_by(q, p) for p, _ in present
                   if p.key in self.tracked for q in wanting)))
        self.terminating = {p.key for p, _ in state.terminating if p.key in self.tracked}
        self._released = False
        self.active = bool(own) or bool(self.tracked)

    @property
    def cs(self) -> ConstraintState:
        """The constraint state over the plan's nodes, built at its first use: a plan with no
        pod that could matter (no own constraints, no running pod with anti-affinity) never
        pays the O(nodes) build."""
        cs = self._cs
        if cs is None:
            cs = self._cs = ConstraintState((ns.node for ns in self.state.nodes),
                                            self._namespaces)
        return cs

    # ---- the cluster changes -------------------------------------------------------------

    def _sync_terminating(self) -> None:
        released = self.state.released
        if released == self._released:
            return
        self._released = released
        names = self.names
        for p, i in self.state.terminating:
            if p.key in self.terminating:
                if released:
                    self.cs.remove(p, names[i])
                else:
                    self.cs.add(p, names[i])

    def remove(self, members: Iterable[tuple[Pod, int]]) -> None:
        """A victim unit's pods leave their nodes."""
        tracked, names = self.tracked, self.names
        for p, i in members:
            if p.key in tracked:
                self.cs.remove(p, names[i])

    def add(self, members: Iterable[tuple[Pod, int]]) -> None:
        """A unit's pods are back (reprieved, or the search moved down a level)."""
        tracked, names = self.tracked, self.names
        for p, i in members:
            if p.key in tracked:
                self.cs.add(p, names[i])

    def touches(self, members: Iterable[tuple[Pod, int]]) -> bool:
        """Can moving these pods change an answer?"""
        tracked = self.tracked
        return any(p.key in tracked for p, _ in members)

    def place(self, pod: Pod, i: int) -> None:
        """A preemptor pod is placed on node ``i`` for the rest of this placement run."""
        self.cs.add(pod, self.names[i])

    def unplace(self, pod: Pod, i: int) -> None:
        self.cs.remove(pod, self.names[i])

    # ---- questions ---------------------------------------------------------------------

    def reason(self, pod: Pod, i: int) -> str | None:
        self._sync_terminating()
        return self.cs.reason(pod, self.names[i])

    def fits(self, pod: Pod, i: int) -> bool:
        if not self.active:
            return True
        self._sync_terminating()
        return self.cs.reason(pod, self.names[i]) is None

    def unresolvable(self, pod: Pod, i: int) -> bool:
        """Upstream ``UnschedulableAndUnresolvable`` now: preemption does not try node ``i``."""
        return self.active and self.reason(pod, i) in UNRESOLVABLE
