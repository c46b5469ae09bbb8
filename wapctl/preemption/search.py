"""The victim search: the KEP's level search over priorities, and upstream's reprieve."""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from wapctl.models import ImportanceKey, importance_kep
from wapctl.preemption.budgets import Budgets
from wapctl.preemption.result import Tie
from wapctl.preemption.units import LevelUnits, Unit


class Feasibility(Protocol):
    """What the victim search asks of a domain: remove a unit or put it back, and "does the
    preemptor fit now?" (``try_add`` puts a unit back and keeps it there only if the preemptor
    still fits)."""

    def remove(self, unit: Unit) -> None: ...
    def add(self, unit: Unit) -> None: ...
    def feasible(self) -> bool: ...
    def try_add(self, unit: Unit) -> bool: ...


# ---- the victim search (steps 5 and 6) --------------------------------------------------------


class LevelSearch:
    """Step 5 on one domain: the lowest priority level whose removal makes room.

    Levels are visited from the bottom with doubling steps (0, 1, 3, 7, ...), then bisected:
    for a monotone check this is the binary search of SPEC §3 and finds the same lowest level,
    but it only ever removes units up to about that level, not every unit first.
    """

    __slots__ = ("begin", "by_priority", "check", "end", "ends", "level", "removed")

    def __init__(self, units: Sequence[Unit], check: Feasibility,
                 presorted: bool = False, search: str = "binary") -> None:
        """``presorted``: ``units`` already are in (priority, name) order. ``search``:
        ``"binary"`` finds the lowest level (KEP-5710); ``"none"`` removes every unit at once
        (upstream: no search over priorities, every lower-priority unit removed)."""
        self.check = check
        self.by_priority = (units if presorted
                            else sorted(units, key=lambda u: (u.priority, u.name)))
        if isinstance(self.by_priority, LevelUnits):  # known without making the units
            levels, self.ends = self.by_priority.levels, self.by_priority.ends
        else:
            priorities = [u.priority for u in self.by_priority]
            levels = sorted(set(priorities))
            self.ends = [bisect_right(priorities, level) for level in levels]
        self.removed = 0
        self.level: int | None = None  # priority of the level found, None: nothing makes room
        self.begin = self.end = 0  # by_priority[begin:end]: the units of the level found
        if search == "none":
            found = (len(levels) - 1 if levels and self.feasible_at(len(levels) - 1)
                     else None)
        else:
            found = lowest_level(len(levels), self.feasible_at)
        if found is not None:
            self.move(self.ends[found])
            self.level, self.end = levels[found], self.ends[found]
            self.begin = self.ends[found - 1] if found else 0
        else:
            self.move(self.ends[-1])  # leave every unit removed (for the caller's message)

    def move(self, target: int) -> None:
        check, units = self.check, self.by_priority
        remove_all = getattr(check, "remove_all", None)  # a check may remove many at once
        if remove_all is not None and self.removed < target:
            remove_all(units[self.removed:target])
            self.removed = target
        while self.removed < target:
            check.remove(units[self.removed])
            self.removed += 1
        while self.removed > target:
            self.removed -= 1
            check.add(units[self.removed])

    def feasible_at(self, k: int) -> bool:
        self.move(self.ends[k])
        return self.check.feasible()

    def reprieve(self, budgets: Budgets,
                 importance: Callable[..., ImportanceKey] = importance_kep,
                 ties: list[Tie] | None = None,
                 rng: random.Random | None = None) -> tuple[list[Unit], set[str]]:
        """Step 6 from the found level: the victim units (most important first) and the
        PDB-violating pod keys."""
        self.check.feasible()  # refresh a cached answer for the current (found) level
        return reprieve(self.by_priority[: self.end], self.check, budgets, importance, ties, rng)


def reprieve(units: Iterable[Unit], check: Feasibility, budgets: Budgets,
             importance: Callable[..., ImportanceKey] = importance_kep,
             ties: list[Tie] | None = None,
             rng: random.Random | None = None) -> tuple[list[Unit], set[str]]:
    """Upstream's reprieve (``SelectVictimsOnNode``, ``selectVictimsOnDomain``): units sorted
    most important first; PDB budgets spent in that order; the PDB-violating units tried
    first, then the others; a unit goes back if the preemptor still fits. Returns the victim
    units (most important first) and the PDB-violating pod keys. Units of equal importance
    (all but the name) are in an order upstream does not fix; where another order among them
    was seen to change the victims, they are reported in ``ties``. With ``rng`` those equal
    units are ordered at random instead of by name (one of the scheduler's possible
    outcomes)."""
    if rng is None:
        candidates = sorted(units, key=lambda u: u.importance_by(importance))
    else:
        shuffled = list(units)
        rng.shuffle(shuffled)
        rank = {u: k for k, u in enumerate(shuffled)}
        candidates = sorted(shuffled, key=lambda u: (*u.importance_by(importance)[:-1], rank[u]))
    order, violating = _reprieve_order(candidates, budgets)
    victims = [u for u in order if not check.try_add(u)]
    if ties is not None and victims and rng is None:
        _victim_ties(candidates, victims, importance, ties,
                     _Replay(check, budgets, order, set(victims)))
    if order is not candidates:  # back in the candidates' order (else they are in it)
        order_of = {u: k for k, u in enumerate(candidates)}
        victims.sort(key=order_of.__getitem__)
    return victims, violating


def _reprieve_order(candidates: list[Unit], budgets: Budgets) -> tuple[list[Unit], set[str]]:
    """The order units are tried in (the PDB-violating ones first, each part in the
    candidates' order) and the PDB-violating pod keys."""
    violating = budgets.violating_pods(candidates)
    if not violating:
        return candidates, violating
    marked = [(u.members[0][0].key in violating) if len(u.members) == 1
              else any(p.key in violating for p, _ in u.members) for u in candidates]
    return ([u for u, m in zip(candidates, marked, strict=True) if m]
            + [u for u, m in zip(candidates, marked, strict=True) if not m]), violating


# How many other orders the tie check replays per reprieve (each costs a reprieve): ties it
# cannot confirm within this budget are not reported.
_REPLAYS = 8
_REPLAYS_PER_RUN = 3


class _Replay:
    """The reprieve run again from the same start with the candidates in another order, the
    check given back as the first run left it: which units would be the victims then."""

    def __init__(self, check: Feasibility, budgets: Budgets, order: list[Unit],
                 victims: set[Unit]) -> None:
        self.check, self.budgets = check, budgets
        self.kept = [u for u in order if u not in victims]  # back in the state now
        self.victims = victims
        self.left = _REPLAYS

    def victims_for(self, candidates: list[Unit]) -> set[Unit]:
        check = self.check
        self.left -= 1
        for u in reversed(self.kept):  # the state the reprieve started from: all removed
            check.remove(u)
        order, _ = _reprieve_order(candidates, self.budgets)
        victims = {u for u in order if not check.try_add(u)}
        for u in reversed(order):
            if u not in victims:
                check.remove(u)
        for u in self.kept:
            check.add(u)
        return victims


def _victim_ties(candidates: list[Unit], victims: list[Unit],
                 importance: Callable[..., tuple[object, ...]], ties: list[Tie],
                 replay: _Replay) -> None:
    """Runs of equal importance (name aside) holding both victims and reprieved units where
    another order was seen to change the victims: each victim of the run (at most
    ``_REPLAYS_PER_RUN``) moved to the run's front, the reprieve replayed. A victim that goes
    whichever is tried first (the only unit that blocks the preemptor) is no tie. Reported:
    the run's units whose fate a replay changed (victims, then spared ones)."""
    chosen_set = set(victims)
    runs: list[tuple[int, int]] = []  # [start, end) of each run of equal importance
    start, head = 0, None
    for k, u in enumerate([*candidates, None]):
        key = u.importance_by(importance)[:-1] if u is not None else None
        if k and (u is None or key != head):
            runs.append((start, k))
            start = k
        head = key
    for begin, end in runs:
        run = candidates[begin:end]
        chosen = [x for x in run if x in chosen_set]
        if len(chosen) == len(run) or not chosen:
            continue
        changed: set[Unit] = set()
        for x in chosen[:_REPLAYS_PER_RUN]:
            if replay.left <= 0:
                break
            moved = [x, *(u for u in run if u is not x)]
            changed |= replay.victims_for([*candidates[:begin], *moved, *candidates[end:]]) \
                ^ chosen_set
        swapped = [u for u in run if u in changed]
        if any(u in chosen_set for u in swapped) and any(u not in chosen_set for u in swapped):
            ties.append(Tie("victims among units of equal importance",
                            tuple(u.name for u in swapped if u in chosen_set),
                            tuple(u.name for u in swapped if u not in chosen_set), len(run)))


def node_ties(units: Sequence[Unit], check: Feasibility, budgets: Budgets,
              importance: Callable[..., tuple[object, ...]], ties: list[Tie]) -> None:
    """Upstream's search on one node (every lower unit removed, then the reprieve) again, for
    its ties only (the tie check replays the reprieve: done for the node chosen only), on a
    fresh ``check`` of that node."""
    search = LevelSearch(units, check, presorted=True, search="none")
    if search.level is not None:
        search.reprieve(budgets, importance, ties)


def lowest_level(count: int, feasible: Callable[[int], bool]) -> int | None:
    """The lowest k in [0, count) with feasible(k), assuming monotonicity; None if even
    count-1 is infeasible. Probes 0, 1, 3, 7, ... then bisects (the order is part of the
    contract: the reference implementation probes the same levels)."""
    if count == 0:
        return None
    lo, k, step = 0, 0, 1
    while not feasible(k):
        if k == count - 1:
            return None
        lo = k + 1
        k = min(count - 1, k + step)
        step *= 2
    hi = k
    while lo < hi:
        mid = (lo + hi) // 2
        if feasible(mid):
            hi = mid
        else:
            lo = mid + 1
    return hi


