"""Builders for the inter-pod constraints (``wapctl.filters``), next to ``builders``.

    anti = aff("kubernetes.io/hostname", sel({"app": "web"}))
    p = constrained(pod("p"), anti=[anti], spread=[spread(1, "zone", sel({"app": "web"}))])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import msgspec

from wapctl.model import (
    HostPort,
    LabelSelector,
    Pod,
    PodAffinityTerm,
    SelectorRequirement,
    SpreadConstraint,
)

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"


def sel(match: Mapping[str, str] | None = None, *exprs: SelectorRequirement) -> LabelSelector:
    """A label selector; sel() is the empty selector (matches every pod)."""
    return LabelSelector(match_labels=dict(match or {}), match_expressions=tuple(exprs))


def aff(key: str, selector: LabelSelector | None, *, namespaces: Iterable[str] | None = None,
        ns_selector: LabelSelector | None = None, own: str = "default") -> PodAffinityTerm:
    """A required (anti-)affinity term; with neither ``namespaces`` nor ``ns_selector`` it
    selects the owning pod's namespace ``own``, as the loader resolves it."""
    ns = list(namespaces or [])
    if not ns and ns_selector is None:
        ns = [own]
    return PodAffinityTerm(topology_key=key, selector=selector, namespaces=frozenset(ns),
                           namespace_selector=ns_selector)


def spread(skew: int, key: str, selector: LabelSelector | None, *, min_domains: int = 1,
           affinity_policy: str = "Honor", taints_policy: str = "Ignore") -> SpreadConstraint:
    return SpreadConstraint(max_skew=skew, topology_key=key, selector=selector,
                            min_domains=min_domains, node_affinity_policy=affinity_policy,
                            node_taints_policy=taints_policy)


def port(text: str) -> HostPort:
    """"TCP/127.0.0.1/8080" as upstream's node_ports_test ``newPod`` writes ports."""
    proto, ip, number = text.split("/")
    return HostPort(port=int(number), protocol=proto or "TCP", ip=ip or "0.0.0.0")


def constrained(p: Pod, *, affinity: Iterable[PodAffinityTerm] = (),
                anti: Iterable[PodAffinityTerm] = (), spread: Iterable[SpreadConstraint] = (),
                ports: Iterable[str] = ()) -> Pod:
    return msgspec.structs.replace(
        p, affinity_terms=tuple(affinity), anti_affinity_terms=tuple(anti),
        spread_constraints=tuple(spread), host_ports=tuple(port(t) for t in ports))
