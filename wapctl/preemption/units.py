"""Victim units: a single pod, or every running pod of a ``PodGroup``-mode group; and the index
of them kept with a ``fit.Accounting`` across plans."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator, Mapping, Sequence
from operator import attrgetter
from typing import overload

from wapctl.fit import Accounting, ClusterState
from wapctl.model import Pod, PodGroup, Snapshot
from wapctl.models import ImportanceKey, importance_kep, pod_rank
from wapctl.preemption.result import UnitKind
from wapctl.preemptor import Preemptor

_INF = float("inf")

# ---- victim units -----------------------------------------------------------------------------


class Unit:
    """A preemption unit: one pod, or every eligible pod of a ``PodGroup``-mode group."""

    __slots__ = ("_importance", "_on_node", "kind", "members", "name", "nodes", "priority",
                 "tier")

    def __init__(self, kind: UnitKind, name: str, priority: int,
                 members: Sequence[tuple[Pod, int]], tier: int, nodes: tuple[int, ...]) -> None:
        self.kind = kind
        self.name = name
        self.priority = priority
        self.members = members  # (pod, node index), sorted by pod key
        self.tier = tier  # 0 whole group, 1 pod of a workload, 2 standalone pod
        self.nodes = nodes  # distinct node indices, sorted
        self._importance: tuple[Callable[..., ImportanceKey], ImportanceKey] | None = None
        self._on_node: dict[int, tuple[dict[str, int], int]] | None = None

    @property
    def importance(self) -> ImportanceKey:
        """The KEP-5710 sort key, most important first (``models.importance_kep``)."""
        return self.importance_by(importance_kep)

    def importance_by(self, fn: Callable[..., ImportanceKey]) -> ImportanceKey:
        """Sort key of this unit under a model's importance function (most important first);
        the last element is the name, our stand-in for upstream's random order / UID."""
        cached = self._importance
        if cached is not None and cached[0] is fn:
            return cached[1]
        members = self.members
        if len(members) == 1:  # most units: no generator for one pod
            start = members[0][0].start_time
            if start is None:
                start = _INF
        else:
            start = min((p.start_time for p, _ in members if p.start_time is not None),
                        default=_INF)
        key = fn(self.priority, self.kind == "PodGroup", self.tier < 2,
                 len(self.members), start, self.name)
        self._importance = (fn, key)
        return key

    def on_node(self, i: int) -> tuple[Mapping[str, int], int]:
        """The unit's summed requests and pod count on node ``i``."""
        if len(self.members) == 1:
            return self.members[0][0].requests, 1
        if self._on_node is None:
            agg: dict[int, tuple[dict[str, int], int]] = {}
            for pod, j in self.members:
                req, n = agg.get(j, ({}, 0))
                for r, q in pod.requests.items():
                    req[r] = req.get(r, 0) + q
                agg[j] = (req, n + 1)
            self._on_node = agg
        return self._on_node[i]


def _whole_group_keys(groups: Mapping[str, PodGroup], whole_groups: bool) -> frozenset[str]:
    """The groups whose running pods form one unit (``PodGroup`` disruption mode), when groups
    are taken whole."""
    if not whole_groups:
        return frozenset()
    return frozenset(gk for gk, g in groups.items() if g.disruption_mode == "PodGroup")


def _one_pod_unit(entry: tuple[Pod, int], priority: int) -> Unit:
    """The unit of one running pod (``entry``: the pod and its node index)."""
    pod = entry[0]
    return Unit("Pod", pod.key, priority, (entry,), 2 if pod.group_key is None else 1,
                 (entry[1],))


def _whole_group_unit(gk: str, priority: int, members: Sequence[tuple[Pod, int]]) -> Unit:
    """The unit of a whole group: its running pods (by pod key)."""
    return Unit("PodGroup", gk, priority, members, 0, tuple(sorted({i for _, i in members})))


def victim_units(snapshot: Snapshot, state: ClusterState, preemptor: Preemptor,
                  separate: bool = True, whole_groups: bool = True,
                  terminating: bool = False, own: bool = False) -> LevelUnits:
    """Step 4: every unit the preemptor may preempt, in (priority, name) order, each priority
    level's units made when first read (``LevelUnits``). ``separate``: victims ranked by their
    preemption priority (KEP), else by their scheduling priority; ``whole_groups``:
    ``PodGroup``-mode groups are one unit, else each pod is its own; ``terminating``: the
    terminating pods (still holding their resources) are potential victims too, as upstream's
    NodeInfo still lists them; ``own``: a one-pod unit ranked by the pod's own priority
    (``models.pod_rank``)."""
    own_group = preemptor.group_key
    limit = preemptor.priority
    groups = snapshot.pod_groups
    whole_keys = _whole_group_keys(groups, whole_groups)
    levels: dict[int, list[tuple[Pod, int]]] = {}  # one-pod units' (pod, node), per priority
    whole: dict[str, list[tuple[Pod, int]]] = {}  # whole groups' running pods
    present = state.bound  # bound, running, on a known node; sorted by key
    if terminating and state.terminating:
        present = sorted([*state.bound, *state.terminating], key=lambda t: t[0].key)
    for entry in present:  # (pod, node index): kept as the unit's member, not made again
        pod = entry[0]
        gk = pod.group_key
        if gk is not None:
            if gk == own_group:
                continue
            if gk in whole_keys:
                members = whole.get(gk)
                if members is None:
                    whole[gk] = [entry]
                else:
                    members.append(entry)
                continue
        pp = pod_rank(pod, separate, own)
        if pp < limit:
            level = levels.get(pp)
            if level is None:
                levels[pp] = [entry]
            else:
                level.append(entry)
    group_levels: dict[int, list[str]] = {}
    for gk in whole:
        g = groups[gk]
        gp = g.preemption_priority if separate else g.priority
        if gp < limit:
            group_levels.setdefault(gp, []).append(gk)
    return LevelUnits(levels, group_levels, whole)


class LevelUnits(Sequence[Unit]):
    """A preemptor's victim units in (priority, name) order, a priority level's units made
    when one of them is first read: a victim search that finds room at a low level never
    makes the units above it. ``levels`` (ascending) and ``ends`` (how many units are at or
    below each level) answer without making any."""

    __slots__ = ("_groups", "_made", "_next", "_pods", "_whole", "ends", "levels")

    def __init__(self, pods: dict[int, list[tuple[Pod, int]]], groups: dict[int, list[str]],
                 whole: dict[str, list[tuple[Pod, int]]]) -> None:
        self._pods = pods  # per priority: the one-pod units' (pod, node), by pod key
        self._groups = groups  # per priority: whole groups' keys
        self._whole = whole  # whole group -> its running pods, by pod key
        self.levels = sorted(pods.keys() | groups.keys())
        self.ends: list[int] = []
        n = 0
        for p in self.levels:
            n += len(pods.get(p, ())) + len(groups.get(p, ()))
            self.ends.append(n)
        self._made: list[Unit] = []
        self._next = 0  # the first level not made yet

    def _make(self, n: int) -> None:
        """Make levels until at least ``n`` units are made."""
        made = self._made
        while len(made) < n:
            p = self.levels[self._next]
            self._next += 1
            level = [_one_pod_unit(entry, p) for entry in self._pods.get(p, ())]
            keys = self._groups.get(p)
            if keys:
                level.extend(_whole_group_unit(gk, p, self._whole[gk]) for gk in keys)
                level.sort(key=_NAME)  # pods come by key; names are unique across kinds
            made.extend(level)

    def __len__(self) -> int:
        return self.ends[-1] if self.ends else 0

    @overload
    def __getitem__(self, k: int) -> Unit: ...

    @overload
    def __getitem__(self, k: slice) -> list[Unit]: ...

    def __getitem__(self, k: int | slice) -> Unit | list[Unit]:
        if isinstance(k, slice):
            _, stop, step = k.indices(len(self))
            self._make(stop if step > 0 else len(self))
            return self._made[k]
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(k)
        self._make(k + 1)
        return self._made[k]

    def __iter__(self) -> Iterator[Unit]:
        self._make(len(self))
        return iter(self._made)


_NAME = attrgetter("name")
_PRIORITY = attrgetter("priority")


def _by_priority(units: list[Unit]) -> list[Unit]:
    """Units in (priority, name) order: the order of the level search. Names are unique, so
    sorting by name and then, stably, by priority gives it without a tuple per unit."""
    units.sort(key=_NAME)
    units.sort(key=_PRIORITY)
    return units


def _insert(keys: list[tuple[int, str]], units: list[Unit], unit: Unit) -> None:
    key = (unit.priority, unit.name)
    j = bisect_left(keys, key)
    keys.insert(j, key)
    units.insert(j, unit)


def _delete(keys: list[tuple[int, str]], units: list[Unit], unit: Unit) -> None:
    j = bisect_left(keys, (unit.priority, unit.name))
    del keys[j]
    del units[j]


class UnitIndex:
    """Every victim-unit candidate of a kept ``fit.Accounting``, for the plans of any preemptor.

    What ``victim_units`` derives from all running pods for one preemptor, kept for all of
    them: a unit per running pod outside ``PodGroup``-mode groups and a unit per such group
    (all its running pods), in (priority, name) order overall and per node. A preemptor's
    units are the prefix below its priority minus its own group's. The accounting tells it
    every running pod that leaves or joins; only the units of that pod change. A whole group's
    unit is rebuilt once per batch of changes to its pods (before the next question that reads
    the units), not once per pod: a gang bound or preempted pod by pod costs one rebuild.
    """

    def __init__(self, accounting: Accounting, pod_groups: Mapping[str, PodGroup],
                 separate: bool = True, whole_groups: bool = True, own: bool = False) -> None:
        self.pod_groups = pod_groups
        self.separate = separate
        self.whole_groups = whole_groups
        self.own = own  # one-pod units ranked by the pod's own priority (models.pod_rank)
        self._keys: list[tuple[int, str]] = []
        self._units: list[Unit] = []
        self._node_keys: dict[int, list[tuple[int, str]]] = {}
        self._node_units: dict[int, list[Unit]] = {}
        self.pod_units: dict[str, Unit] = {}  # pod key -> its Pod unit
        self._members: dict[str, dict[str, tuple[Pod, int]]] = {}  # whole group -> running pods
        self._whole: dict[str, Unit] = {}  # whole group -> its current PodGroup unit
        self.grouped: dict[str, int] = {}  # group key -> Pod units of its pods
        # whole groups whose pods changed since their unit was last built: their old unit is
        # already out of the lists, the new one is built once, before the next question
        self._dirty: set[str] = set()
        # the groups whose running pods form one unit
        self._whole_keys = _whole_group_keys(pod_groups, whole_groups)
        units: list[Unit] = []
        members = self._members
        for pod, i in accounting.bound_pods():
            gk = self._whole_group(pod)
            if gk is None:
                units.append(self._pod_unit(pod, i))
            else:
                members.setdefault(gk, {})[pod.key] = (pod, i)
        units.extend(self._group_unit(gk) for gk in members)
        _by_priority(units)
        self._units = units
        self._keys = keys = [(u.priority, u.name) for u in units]
        node_units, node_keys = self._node_units, self._node_keys
        for u, key in zip(units, keys, strict=True):
            for i in u.nodes:
                local = node_units.get(i)
                if local is None:
                    node_units[i] = [u]
                    node_keys[i] = [key]
                else:
                    local.append(u)
                    node_keys[i].append(key)
        accounting.listen(self.changed)

    # The lists as they answer now (every pending group change applied first).

    @property
    def keys(self) -> list[tuple[int, str]]:
        self._flush()
        return self._keys

    @property
    def units(self) -> list[Unit]:
        self._flush()
        return self._units

    @property
    def node_keys(self) -> dict[int, list[tuple[int, str]]]:
        self._flush()
        return self._node_keys

    @property
    def node_units(self) -> dict[int, list[Unit]]:
        self._flush()
        return self._node_units

    @property
    def members(self) -> dict[str, dict[str, tuple[Pod, int]]]:
        self._flush()
        return self._members

    @property
    def whole(self) -> dict[str, Unit]:
        self._flush()
        return self._whole

    @classmethod
    def of(cls, accounting: Accounting, pod_groups: Mapping[str, PodGroup],
           separate: bool = True, whole_groups: bool = True, own: bool = False) -> UnitIndex:
        """The accounting's index (built at its first plan), for these pod groups and this way
        of forming units (one index per way)."""
        memo_key = (cls, separate, whole_groups, own)
        index = accounting.memo.get(memo_key)
        if isinstance(index, cls):
            if index.pod_groups is pod_groups or index.pod_groups == pod_groups:
                return index
            accounting.unlisten(index.changed)
        index = accounting.memo[memo_key] = cls(accounting, pod_groups, separate, whole_groups,
                                                own)
        return index

    def _whole_group(self, pod: Pod) -> str | None:
        gk = pod.group_key
        return gk if gk is not None and gk in self._whole_keys else None

    def _pod_unit(self, pod: Pod, i: int) -> Unit:
        unit = _one_pod_unit((pod, i), pod_rank(pod, self.separate, self.own))
        self.pod_units[pod.key] = unit
        if pod.group_key is not None:
            self.grouped[pod.group_key] = self.grouped.get(pod.group_key, 0) + 1
        return unit

    def _group_unit(self, gk: str) -> Unit:
        running = self._members[gk]
        members = [running[k] for k in sorted(running)]
        group = self.pod_groups[gk]
        unit = _whole_group_unit(
            gk, group.preemption_priority if self.separate else group.priority, members)
        self._whole[gk] = unit
        return unit

    def _place(self, unit: Unit) -> None:
        _insert(self._keys, self._units, unit)
        node_keys, node_units = self._node_keys, self._node_units
        for i in unit.nodes:
            _insert(node_keys.setdefault(i, []), node_units.setdefault(i, []), unit)

    def _unplace(self, unit: Unit) -> None:
        _delete(self._keys, self._units, unit)
        node_keys, node_units = self._node_keys, self._node_units
        for i in unit.nodes:
            _delete(node_keys[i], node_units[i], unit)

    def changed(self, left: tuple[Pod, int] | None, joined: tuple[Pod, int] | None) -> None:
        for entry, joins in ((left, False), (joined, True)):
            if entry is None:
                continue
            pod, i = entry
            gk = self._whole_group(pod)
            if gk is None:
                if joins:
                    self._place(self._pod_unit(pod, i))
                else:
                    self._unplace(self.pod_units.pop(pod.key))
                    if pod.group_key is not None:
                        self.grouped[pod.group_key] -= 1
                continue
            # A whole group's unit spans all its pods: a gang bound or preempted pod by pod
            # would rebuild it once per pod. Take it out now, rebuild it once in _flush.
            if gk not in self._dirty:
                old = self._whole.pop(gk, None)
                if old is not None:
                    self._unplace(old)
                self._dirty.add(gk)
            running = self._members.setdefault(gk, {})
            if joins:
                running[pod.key] = entry
            else:
                del running[pod.key]
                if not running:
                    del self._members[gk]

    def _flush(self) -> None:
        """Build the unit of every whole group changed since the last question (placed by key,
        so the order of the groups does not matter)."""
        dirty = self._dirty
        if dirty:
            for gk in dirty:
                if gk in self._members:
                    self._place(self._group_unit(gk))
            dirty.clear()

    def _mine(self, own: str | None) -> str | None:
        """The preemptor's own group if it has units here (they are never its victims)."""
        if own is not None and (self.grouped.get(own, 0) > 0 or own in self._whole):
            return own
        return None

    @staticmethod
    def _owned(unit: Unit, own: str) -> bool:
        if unit.kind == "PodGroup":
            return unit.name == own
        return unit.members[0][0].group_key == own

    def below(self, limit: int, own: str | None) -> list[Unit]:
        """The preemptor's victim units (those of ``victim_units``), in (priority, name)
        order."""
        self._flush()
        units = self._units[: bisect_left(self._keys, (limit, ""))]
        mine = self._mine(own)
        if mine is not None:
            units = [u for u in units if not self._owned(u, mine)]
        return units

    def per_node(self, limit: int, own: str | None) -> dict[int, list[Unit]]:
        """``below`` per node it has pods on, each in (priority, name) order."""
        self._flush()
        mine = self._mine(own)
        out: dict[int, list[Unit]] = {}
        node_units = self._node_units
        for i, keys in self._node_keys.items():
            j = bisect_left(keys, (limit, ""))
            if j:
                local = node_units[i][:j]
                if mine is not None:
                    local = [u for u in local if not self._owned(u, mine)]
                    if not local:
                        continue
                out[i] = local
        return out


