"""NodePorts: host port conflicts (wapctl.filters.node_ports)."""

from __future__ import annotations

import pytest

from tests.builders import pod
from tests.constraint_builders import constrained
from wapctl.filters import node_ports
from wapctl.filters.node_ports import REASON

# Upstream TestNodePorts rows, pkg/scheduler/framework/plugins/nodeports/node_ports_test.go
# (kubernetes/kubernetes 27214b84cfe38d60c33b93b5b3a43be3ad99c2e9): (name, wanted ports,
# ports of the pod already on the node, fits).
ROWS = [
    ("other port", ["UDP/127.0.0.1/8080"], ["UDP/127.0.0.1/9090"], True),
    ("same udp port", ["UDP/127.0.0.1/8080"], ["UDP/127.0.0.1/8080"], False),
    ("same tcp port", ["TCP/127.0.0.1/8080"], ["TCP/127.0.0.1/8080"], False),
    ("different host ip", ["TCP/127.0.0.1/8080"], ["TCP/127.0.0.2/8080"], True),
    ("different protocol", ["UDP/127.0.0.1/8080"], ["TCP/127.0.0.1/8080"], True),
    ("second udp port conflict", ["UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"],
     ["UDP/127.0.0.1/8080"], False),
    ("first tcp port conflict", ["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"],
     ["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"], False),
    ("first tcp port conflict due to 0.0.0.0 hostIP", ["TCP/0.0.0.0/8001"],
     ["TCP/127.0.0.1/8001"], False),
    ("TCP hostPort conflict due to 0.0.0.0 hostIP", ["TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"],
     ["TCP/127.0.0.1/8001"], False),
    ("second tcp port conflict to 0.0.0.0 hostIP", ["TCP/127.0.0.1/8001"],
     ["TCP/0.0.0.0/8001"], False),
    ("second different protocol", ["UDP/127.0.0.1/8001"], ["TCP/0.0.0.0/8001"], True),
    ("UDP hostPort conflict due to 0.0.0.0 hostIP", ["UDP/127.0.0.1/8001"],
     ["TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"], False),
]


@pytest.mark.parametrize(("name", "want", "used", "fits"), ROWS, ids=[r[0] for r in ROWS])
def test_upstream_node_ports_rows(name: str, want: list[str], used: list[str],
                                  fits: bool) -> None:
    """A wanted host port conflicts on the same (ip or 0.0.0.0, protocol, port)."""
    incoming = constrained(pod("p"), ports=want)
    existing = constrained(pod("e", node="m1"), ports=used)
    assert node_ports.check(incoming, [existing]) == (None if fits else REASON)


def test_skip_filter_row() -> None:
    """Upstream "skip filter": a pod without host ports fits whatever the node holds."""
    existing = constrained(pod("e", node="m1"), ports=["TCP/0.0.0.0/80"])
    assert node_ports.check(pod("p"), [existing]) is None


def test_removing_the_holder_frees_the_port() -> None:
    """PortUsage counts users: the port is free only when its last user leaves."""
    a = constrained(pod("a", node="m1"), ports=["TCP//8080"])
    b = constrained(pod("b", node="m1"), ports=["TCP//8080"])
    incoming = constrained(pod("p"), ports=["TCP/10.0.0.1/8080"])
    usage = node_ports.PortUsage()
    usage.add(a)
    usage.add(b)
    usage.remove(a)
    assert usage.reason(incoming) == REASON
    usage.remove(b)
    assert usage.reason(incoming) is None
    assert usage.used == {}
