"""PodDisruptionBudgets: which victim pods take a budget below zero (upstream
``filterPodsWithPDBViolation`` / ``FilterVictimsWithPDBViolation``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from wapctl.fit import label_selector_matches
from wapctl.model import Pod, PodDisruptionBudget
from wapctl.preemption.units import Unit

# ---- PodDisruptionBudgets ---------------------------------------------------------------------


@dataclass(frozen=True)
class PdbRules:
    """How a scheduler version matches and spends PodDisruptionBudgets.

    - ``empty_selects_all``: a non-nil empty selector selects every pod of its namespace
      (newest ``util.go`` ``FilterVictimsWithPDBViolation`` via ``LabelSelectorAsSelector``);
      1.36 skips ``selector.Empty()``. A nil selector selects nothing in every version.
    - ``unlabeled_match``: a pod without labels is matched like any other (newest); 1.36 skips
      it (``len(pod.Labels) == 0``).
    - ``spend_all``: a violating pod still spends every other PDB matching it (1.36
      ``filterPodsWithPDBViolation``, the single-pod path); else it stops at the first one.
    - ``stop_unit``: a unit's pods after its first violating pod spend nothing (1.36 group path
      ``filterVictimsWithPDBViolation`` breaks out of the unit).
    """

    empty_selects_all: bool = False
    unlabeled_match: bool = False
    spend_all: bool = False
    stop_unit: bool = False


KEP_RULES = PdbRules()


class Budgets:
    """Upstream ``filterPodsWithPDBViolation`` over units: budgets are spent in importance order;
    a pod that takes any budget below zero violates it, and so does its whole unit.

    Kept in an accounting's memo, it is ``portable``: valid for an accounting derived from that
    one (``fit.Accounting.derive``), whose pods are the same or re-read: it checks what it
    reads (the PDBs by value, each pod's labels by identity) before it answers from memory."""

    portable = True

    def __init__(self, pdbs: Sequence[PodDisruptionBudget], rules: PdbRules = KEP_RULES) -> None:
        self.rules = rules
        self.pdbs = list(pdbs)  # sorted by key
        self.everything: dict[str, list[int]] = {}  # empty selectors (``empty_selects_all``)
        self.by_namespace: dict[str, list[int]] = {}
        # A PDB with matchLabels can only select pods carrying its first (key, value) pair:
        # index it there, so a pod only tries the PDBs its own labels point at.
        self.by_label: dict[tuple[str, str, str], list[int]] = {}
        self.unindexed: dict[str, list[int]] = {}
        for j, pdb in enumerate(self.pdbs):
            self.by_namespace.setdefault(pdb.namespace, []).append(j)
            selector = pdb.selector
            if selector is None:
                continue  # selects nothing
            if selector.empty:
                if rules.empty_selects_all:
                    self.everything.setdefault(pdb.namespace, []).append(j)
                continue
            if selector.match_labels:
                key, value = min(selector.match_labels.items())
                self.by_label.setdefault((pdb.namespace, key, value), []).append(j)
            else:
                self.unindexed.setdefault(pdb.namespace, []).append(j)
        self.source = pdbs
        # pod key -> (the labels answered for, matching PDB indices)
        self._matching: dict[str, tuple[Mapping[str, str], tuple[int, ...]]] = {}

    @classmethod
    def of(cls, pdbs: Sequence[PodDisruptionBudget], memo: dict[object, object] | None,
           rules: PdbRules = KEP_RULES) -> Budgets:
        """Budgets for these PDBs; with a memo (a kept accounting's) the per-pod matching is
        kept across plans as long as the PDBs are the same (or equal: read again)."""
        if memo is None:
            return cls(pdbs, rules)
        key = (cls, rules)
        kept = memo.get(key)
        if not isinstance(kept, cls) or (kept.source is not pdbs and kept.source != pdbs):
            kept = memo[key] = cls(pdbs, rules)
        return kept

    def matching(self, pod: Pod) -> tuple[int, ...]:
        """Indices (in PDB key order) of the PDBs selecting this pod."""
        cached = self._matching.get(pod.key)
        found = cached[1] if cached is not None and cached[0] is pod.labels else None
        if found is None:
            if not pod.labels and not self.rules.unlabeled_match:
                found = ()  # 1.36: a pod without labels matches no PDB
            else:
                ns, by_label = pod.namespace, self.by_label
                candidates = list(self.unindexed.get(ns, ()))
                everything = self.everything.get(ns, ())
                for key, value in pod.labels.items():
                    hit = by_label.get((ns, key, value))
                    if hit:
                        candidates.extend(hit)
                found = tuple(sorted([*everything, *(
                    j for j in candidates
                    if label_selector_matches(self.pdbs[j].selector, pod.labels))]))
            self._matching[pod.key] = (pod.labels, found)
        return found

    def violating_pods(self, units_in_order: Iterable[Unit]) -> set[str]:
        violating: set[str] = set()
        if not self.pdbs:
            return violating
        allowed = [pdb.disruptions_allowed for pdb in self.pdbs]
        by_namespace, pdbs, matching = self.by_namespace, self.pdbs, self.matching
        spend_all, stop_unit = self.rules.spend_all, self.rules.stop_unit
        for unit in units_in_order:
            for pod, _ in unit.members:
                if pod.namespace not in by_namespace:
                    continue
                for j in matching(pod):
                    if pod.name in pdbs[j].disrupted_pods:
                        continue  # already counted by the API server
                    allowed[j] -= 1
                    if allowed[j] < 0:
                        violating.add(pod.key)
                        if not spend_all:
                            break
                if stop_unit and pod.key in violating:
                    break
        return violating


