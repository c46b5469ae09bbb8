"""PodDisruptionBudgets: which victim pods take a budget below zero (upstream
``filterPodsWithPDBViolation`` / ``FilterVictimsWithPDBViolation``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from wapctl.fit import label_selector_matches
from wapctl.model import Pod, PodDisruptionBudget
from wapctl.preemption.units import _Unit

# ---- PodDisruptionBudgets ---------------------------------------------------------------------


class _Budgets:
    """Upstream ``filterPodsWithPDBViolation`` over units: budgets are spent in importance order;
    a pod that takes any budget below zero violates it, and so does its whole unit."""

    def __init__(self, pdbs: Sequence[PodDisruptionBudget]) -> None:
        self.pdbs = list(pdbs)  # sorted by key
        self.by_namespace: dict[str, list[int]] = {}
        # A PDB with matchLabels can only select pods carrying its first (key, value) pair:
        # index it there, so a pod only tries the PDBs its own labels point at.
        self.by_label: dict[tuple[str, str, str], list[int]] = {}
        self.unindexed: dict[str, list[int]] = {}
        for j, pdb in enumerate(self.pdbs):
            self.by_namespace.setdefault(pdb.namespace, []).append(j)
            selector = pdb.selector
            if selector is None or selector.empty:
                continue  # selects nothing
            if selector.match_labels:
                key, value = min(selector.match_labels.items())
                self.by_label.setdefault((pdb.namespace, key, value), []).append(j)
            else:
                self.unindexed.setdefault(pdb.namespace, []).append(j)
        self.source = pdbs
        # pod key -> (the labels answered for, matching PDB indices)
        self._matching: dict[str, tuple[Mapping[str, str], tuple[int, ...]]] = {}

    @classmethod
    def of(cls, pdbs: Sequence[PodDisruptionBudget],
           memo: dict[object, object] | None) -> _Budgets:
        """Budgets for these PDBs; with a memo (a kept accounting's) the per-pod matching is
        kept across plans as long as the PDBs are the same objects."""
        if memo is None:
            return cls(pdbs)
        kept = memo.get(cls)
        if not isinstance(kept, cls) or kept.source is not pdbs:
            kept = memo[cls] = cls(pdbs)
        return kept

    def matching(self, pod: Pod) -> tuple[int, ...]:
        """Indices (in PDB key order) of the PDBs selecting this pod."""
        cached = self._matching.get(pod.key)
        found = cached[1] if cached is not None and cached[0] is pod.labels else None
        if found is None:
            if not pod.labels:  # upstream: a pod without labels matches no PDB
                found = ()
            else:
                ns, by_label = pod.namespace, self.by_label
                candidates = list(self.unindexed.get(ns, ()))
                for key, value in pod.labels.items():
                    hit = by_label.get((ns, key, value))
                    if hit:
                        candidates.extend(hit)
                found = tuple(sorted(j for j in candidates
                                     if label_selector_matches(self.pdbs[j].selector,
                                                               pod.labels)))
            self._matching[pod.key] = (pod.labels, found)
        return found

    def violating_pods(self, units_in_order: Iterable[_Unit]) -> set[str]:
        violating: set[str] = set()
        if not self.pdbs:
            return violating
        allowed = [pdb.disruptions_allowed for pdb in self.pdbs]
        by_namespace = self.by_namespace
        for unit in units_in_order:
            for pod, _ in unit.members:
                if pod.namespace not in by_namespace:
                    continue
                for j in self.matching(pod):
                    if pod.name in self.pdbs[j].disrupted_pods:
                        continue  # already counted by the API server
                    allowed[j] -= 1
                    if allowed[j] < 0:
                        violating.add(pod.key)
                        break
        return violating


