"""NodePorts: a pod's host ports must be free on the node.

Follows kube-scheduler ``pkg/scheduler/framework/plugins/nodeports/node_ports.go``
(``Fits`` / ``fitsPorts``) with the conflict rule of ``HostPortInfo.CheckConflict``
(``pkg/scheduler/framework/types.go``) and the ports of ``util.GetHostPorts``
(``pkg/scheduler/util/utils.go``: containers and restartable "sidecar" init containers,
``hostPort`` > 0 only), in kubernetes/kubernetes:

- an empty ``hostIP`` is 0.0.0.0 and an empty protocol TCP (the loader fills both);
- a wanted 0.0.0.0 port conflicts with that (protocol, port) used on any address;
- a wanted specific address conflicts with the same address or 0.0.0.0.

``PortUsage`` is one node's ``UsedPorts``: pods add and remove their ports.
"""

from __future__ import annotations

from collections.abc import Iterable

from wapctl.model import HostPort, Pod

REASON = "node(s) didn't have free ports for the requested pod ports"
ALL_ADDRESSES = "0.0.0.0"


class PortUsage:
    """(protocol, port) -> address -> how many pods use it, on one node."""

    __slots__ = ("used",)

    def __init__(self) -> None:
        self.used: dict[tuple[str, int], dict[str, int]] = {}

    def add(self, pod: Pod, delta: int = 1) -> None:
        for hp in pod.host_ports:
            by_ip = self.used.setdefault((hp.protocol, hp.port), {})
            n = by_ip.get(hp.ip, 0) + delta
            if n > 0:
                by_ip[hp.ip] = n
            else:
                by_ip.pop(hp.ip, None)
                if not by_ip:
                    del self.used[(hp.protocol, hp.port)]

    def remove(self, pod: Pod) -> None:
        self.add(pod, -1)

    def conflicts(self, hp: HostPort) -> bool:
        """``HostPortInfo.CheckConflict``."""
        by_ip = self.used.get((hp.protocol, hp.port))
        if not by_ip:
            return False
        if hp.ip == ALL_ADDRESSES:
            return True
        return hp.ip in by_ip or ALL_ADDRESSES in by_ip

    def reason(self, pod: Pod) -> str | None:
        """``fitsPorts``: any wanted port in conflict fails the node."""
        for hp in pod.host_ports:
            if self.conflicts(hp):
                return REASON
        return None


def check(pod: Pod, on_node: Iterable[Pod]) -> str | None:
    """Does ``pod`` fit a node holding the pods ``on_node``? None or the upstream reason."""
    if not pod.host_ports:
        return None
    usage = PortUsage()
    for other in on_node:
        usage.add(other)
    return usage.reason(pod)
