"""The victim search: the KEP's level search over priorities, and upstream's reprieve."""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from wapctl.models import importance_kep
from wapctl.preemption.budgets import _Budgets
from wapctl.preemption.result import Tie
from wapctl.preemption.units import _LevelUnits, _Unit


class _Feasibility(Protocol):
    """What the victim search asks of a domain: remove or restore a unit, and "does the
    preemptor fit now?" (``try_add`` restores a unit and keeps it only if it still fits)."""

    def remove(self, unit: _Unit) -> None: ...
    def add(self, unit: _Unit) -> None: ...
    def feasible(self) -> bool: ...
    def try_add(self, unit: _Unit) -> bool: ...


# ---- the victim search (steps 5 and 6) --------------------------------------------------------


class _Level:
    """Step 5 on one domain: the lowest priority level whose removal makes room.

    Levels are visited from the bottom with doubling steps (0, 1, 3, 7, ...), then bisected:
    for a monotone check this is the binary search of SPEC §3 and finds the same lowest level,
    but it only ever removes units up to about that level, not every unit first.
    """

    __slots__ = ("begin", "by_priority", "check", "end", "ends", "level", "removed")

    def __init__(self, units: Sequence[_Unit], check: _Feasibility,
                 presorted: bool = False, search: str = "binary") -> None:
        """``presorted``: ``units`` already are in (priority, name) order. ``search``:
        ``"binary"`` finds the lowest level (KEP-5710); ``"none"`` removes every unit at once
        (upstream: no search over priorities, every lower-priority unit removed)."""
        self.check = check
        self.by_priority = (units if presorted
                            else sorted(units, key=lambda u: (u.priority, u.name)))
        if isinstance(self.by_priority, _LevelUnits):  # known without making the units
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

    def reprieve(self, budgets: _Budgets,
                 importance: Callable[..., tuple] = importance_kep,
                 ties: list[Tie] | None = None,
                 rng: random.Random | None = None) -> tuple[list[_Unit], set[str]]:
        """Step 6 from the found level: the victim units (most important first) and the
        PDB-violating pod keys."""
        self.check.feasible()  # refresh a cached answer for the current (found) level
        return reprieve(self.by_priority[: self.end], self.check, budgets, importance, ties, rng)


def reprieve(units: Iterable[_Unit], check: _Feasibility, budgets: _Budgets,
             importance: Callable[..., tuple] = importance_kep,
             ties: list[Tie] | None = None,
             rng: random.Random | None = None) -> tuple[list[_Unit], set[str]]:
    """Upstream's reprieve (``SelectVictimsOnNode``, ``selectVictimsOnDomain``): units sorted
    most important first; PDB budgets spent in that order; the PDB-violating units tried
    first, then the others; a unit goes back if the preemptor still fits. Returns the victim
    units (most important first) and the PDB-violating pod keys. Units of equal importance
    (all but the name) whose fates differ are reported in ``ties``: upstream orders them at
    random. With ``rng`` those equal units are ordered at random instead of by name (one of
    the scheduler's possible outcomes)."""
    if rng is None:
        candidates = sorted(units, key=lambda u: u.importance_by(importance))
    else:
        shuffled = list(units)
        rng.shuffle(shuffled)
        rank = {u: k for k, u in enumerate(shuffled)}
        candidates = sorted(shuffled, key=lambda u: (*u.importance_by(importance)[:-1], rank[u]))
    violating = budgets.violating_pods(candidates)
    if violating:
        marked = [(u.members[0][0].key in violating) if len(u.members) == 1
                  else any(p.key in violating for p, _ in u.members) for u in candidates]
        order = ([u for u, m in zip(candidates, marked, strict=True) if m]
                 + [u for u, m in zip(candidates, marked, strict=True) if not m])
    else:
        order = candidates
    victims = [u for u in order if not check.try_add(u)]
    if ties is not None and victims and rng is None:
        _victim_ties(candidates, set(victims), importance, ties)
    if order is not candidates:  # back in the candidates' order (else they are in it)
        order_of = {u: k for k, u in enumerate(candidates)}
        victims.sort(key=order_of.__getitem__)
    return victims, violating


def _victim_ties(candidates: list[_Unit], victims: set[_Unit],
                 importance: Callable[..., tuple], ties: list[Tie]) -> None:
    """Runs of equal importance (name aside) holding both victims and reprieved units."""
    run: list[_Unit] = []
    head: tuple | None = None  # the run's importance, name aside
    for u in [*candidates, None]:
        key = u.importance_by(importance)[:-1] if u is not None else None
        if u is not None and run and key == head:
            run.append(u)
            continue
        if len(run) > 1:
            chosen = [x.name for x in run if x in victims]
            spared = [x.name for x in run if x not in victims]
            if chosen and spared:
                ties.append(Tie("victims among units of equal importance",
                                tuple(chosen), tuple(spared)))
        run = [u] if u is not None else []
        head = key


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


