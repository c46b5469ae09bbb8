"""Every preemption the scheduler's events record: who preempted whom, per owning workload and
per pair of workloads, and the patterns worth an alert.

A *preemption* here is one preemptor's act: the victims of the ``Preempted`` events naming the
same preemptor (its UID). Owners are named by ``owners.ObjectIndex`` (pod group, JobSet,
controller, else the pod itself); a victim no longer among the objects read has no known owner
and is counted under "unknown". *Churn*: an owner whose pods were taken by two or more
preemptions (a ReplicaSet's re-created pod preempted again). *Ping-pong*: owners that preempt
each other in a circle (A's pods took B's, B's took A's), found as the cycles of the graph
preemptor owner -> victim owner. Capacity churned is the sum of the victims' requests, from
the snapshot that still holds each victim (the current one, else ``--before``'s); victims in
neither are counted as unknown. Nothing here prints.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from wapctl.events import EventLog, Preemption, time_key
from wapctl.model import Snapshot
from wapctl.owners import ObjectIndex, Owner


@dataclass(frozen=True)
class VictimRow:
    pod: str
    uid: str | None
    owner: Owner | None  # None: the pod is no longer among the objects read
    node: str | None  # where it ran, when known
    requests: Mapping[str, int] | None  # None: not in any snapshot read
    time: str | None


@dataclass(frozen=True)
class Incident:
    preemptor_kind: str
    preemptor: str  # "ns/name", else "UID <uid>"
    preemptor_owner: Owner | None
    node: str | None  # the event's node (None for a pod group's preemption)
    time: str | None  # the first victim's event time
    victims: tuple[VictimRow, ...]


@dataclass(frozen=True)
class OwnerRow:
    owner: str  # "Kind ns/name", or "unknown"
    preemptions: int
    victims: int
    requests: Mapping[str, int]
    unknown_requests: int  # victims whose requests are not known
    churn: bool


@dataclass(frozen=True)
class PairRow:
    preemptor: str
    victim: str
    preemptions: int
    victims: int


@dataclass(frozen=True)
class History:
    incidents: tuple[Incident, ...]
    owners: tuple[OwnerRow, ...]
    pairs: tuple[PairRow, ...]
    ping_pong: tuple[tuple[str, ...], ...]  # each a circle of owners, smallest name first
    events_read: int
    others: int
    first: str | None
    last: str | None
    requests: Mapping[str, int] = field(default_factory=dict)
    unknown_requests: int = 0

    @property
    def churn(self) -> tuple[OwnerRow, ...]:
        return tuple(o for o in self.owners if o.churn)


UNKNOWN = "unknown"


def _requests(key: str, uid: str | None, index: ObjectIndex,
              snapshots: Sequence[Snapshot], indexes: Sequence[ObjectIndex]) -> tuple[
                  Mapping[str, int] | None, str | None]:
    for snap, idx in zip(snapshots, indexes, strict=True):
        pod = snap.pods.get(key)
        known = idx.pods.get(key)
        if pod is not None and (not uid or known is None or known.uid == uid):
            return pod.requests, pod.node_name
    return None, None


def _incident(group: Sequence[Preemption], index: ObjectIndex, snapshots: Sequence[Snapshot],
              indexes: Sequence[ObjectIndex]) -> Incident:
    first = group[0]
    known = index.by_uid.get(first.preemptor_uid) if first.preemptor_uid else None
    if known is None and first.preemptor_uid is None and first.preemptor_kind == "Pod":
        known = index.pods.get(first.preemptor_name or "")  # the older note: ns/name, no UID
    owner: Owner | None
    if known is not None:
        name = known.key
        owner = index.owner(known) if known.kind == "Pod" else Owner(known.kind, known.namespace,
                                                                     known.name)
    elif first.preemptor_name:
        name = first.preemptor_name
        ns, _, rest = name.partition("/")
        owner = Owner("PodGroup", ns, rest) if first.preemptor_kind == "PodGroup" else None
    else:
        name, owner = f"UID {first.preemptor_uid}", None
    rows = []
    for p in group:
        pod = index.pod(p.victim.namespace, p.victim.name, p.victim.uid)
        requests, node = _requests(p.victim.key, p.victim.uid, index, snapshots, indexes)
        rows.append(VictimRow(p.victim.key, p.victim.uid,
                              index.owner(pod) if pod is not None else None,
                              p.node or node, requests, p.time))
    return Incident(first.preemptor_kind, name, owner, first.node, first.time, tuple(rows))


def _add(total: dict[str, int], requests: Mapping[str, int]) -> None:
    for resource, amount in requests.items():
        total[resource] = total.get(resource, 0) + amount


def _owner_rows(incidents: Sequence[Incident]) -> tuple[OwnerRow, ...]:
    acts: dict[str, set[int]] = defaultdict(set)
    victims: dict[str, int] = defaultdict(int)
    requests: dict[str, dict[str, int]] = defaultdict(dict)
    unknown: dict[str, int] = defaultdict(int)
    for i, inc in enumerate(incidents):
        for v in inc.victims:
            key = str(v.owner) if v.owner is not None else UNKNOWN
            acts[key].add(i)
            victims[key] += 1
            if v.requests is None:
                unknown[key] += 1
            else:
                _add(requests[key], v.requests)
    return tuple(OwnerRow(k, len(acts[k]), victims[k], dict(sorted(requests[k].items())),
                          unknown[k], k != UNKNOWN and len(acts[k]) >= 2)
                 for k in sorted(acts, key=lambda k: (-len(acts[k]), -victims[k], k)))


def _pairs(incidents: Sequence[Incident]) -> tuple[PairRow, ...]:
    acts: dict[tuple[str, str], set[int]] = defaultdict(set)
    count: dict[tuple[str, str], int] = defaultdict(int)
    for i, inc in enumerate(incidents):
        a = str(inc.preemptor_owner) if inc.preemptor_owner is not None else UNKNOWN
        for v in inc.victims:
            pair = (a, str(v.owner) if v.owner is not None else UNKNOWN)
            acts[pair].add(i)
            count[pair] += 1
    return tuple(PairRow(a, b, len(acts[(a, b)]), count[(a, b)])
                 for a, b in sorted(acts, key=lambda p: (-len(acts[p]), p)))


def _ping_pong(pairs: Sequence[PairRow]) -> tuple[tuple[str, ...], ...]:
    import networkx as nx

    graph: nx.DiGraph[str] = nx.DiGraph()
    graph.add_edges_from((p.preemptor, p.victim) for p in pairs
                         if UNKNOWN not in (p.preemptor, p.victim) and p.preemptor != p.victim)
    out = []
    for cycle in nx.simple_cycles(graph):
        start = cycle.index(min(cycle))
        out.append(tuple(cycle[start:] + cycle[:start]))
    return tuple(sorted(out))


def build_history(log: EventLog, index: ObjectIndex, snapshots: Sequence[Snapshot] = (),
                  indexes: Sequence[ObjectIndex] = ()) -> History:
    """The history of ``log``'s preemptions. ``snapshots`` (with the ``indexes`` of the same
    documents) give the victims' requests: the first that holds a victim (same UID) wins."""
    groups: dict[str, list[Preemption]] = {}
    for p in log.preemptions:
        groups.setdefault(p.preemptor_id, []).append(p)
    incidents = tuple(sorted((_incident(g, index, snapshots, indexes) for g in groups.values()),
                             key=lambda i: (time_key(i.time), i.preemptor)))
    total: dict[str, int] = {}
    unknown = 0
    for inc in incidents:
        for v in inc.victims:
            if v.requests is None:
                unknown += 1
            else:
                _add(total, v.requests)
    pairs = _pairs(incidents)
    times = [p.time for p in log.preemptions if p.time]
    return History(incidents, _owner_rows(incidents), pairs, _ping_pong(pairs),
                   events_read=log.read, others=log.others,
                   first=min(times, key=time_key) if times else None,
                   last=max(times, key=time_key) if times else None,
                   requests=dict(sorted(total.items())), unknown_requests=unknown)
