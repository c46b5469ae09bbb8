"""The loader's shortcuts for the usual pod answer exactly as its general paths do.

``wapctl.ingest.pod.pod_requests`` reads a container whose resources hold only requests without
``_container_requests``, and ``constraints.host_ports`` returns at once for a pod none of
whose container ports asks for a host port. Both are checked against the general path on
random container lists, valid and broken alike: the same amounts, the same host ports, or the
same error (message and field).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from wapctl.errors import InputError, Source
from wapctl.ingest import constraints as constraints
from wapctl.ingest import fields, pod

SOURCE = Source("snap.yaml", 1)

_QUANTITY = st.sampled_from(["100m", "2", "1Gi", "512Mi", "-1", "lots", "1 Gi", "", "0"])
_AMOUNT = st.one_of(_QUANTITY, st.integers(-2, 5), st.none(), st.just(["1"]))
_RESOURCE = st.sampled_from(["cpu", "memory", "nvidia.com/gpu", "pods", "hugepages-2Mi"])
_AMOUNTS = st.dictionaries(_RESOURCE, _AMOUNT, max_size=3)
_REQUESTS_ONLY = st.fixed_dictionaries({"requests": _AMOUNTS})  # the shortcut's case
_RESOURCES = st.one_of(
    _REQUESTS_ONLY,
    _REQUESTS_ONLY,
    _REQUESTS_ONLY,
    st.fixed_dictionaries({"requests": _AMOUNTS, "limits": _AMOUNTS}),
    st.fixed_dictionaries({"limits": _AMOUNTS}),
    st.fixed_dictionaries({"requests": st.one_of(st.none(), st.just([]), st.just("x"))}),
    st.just({}),
    st.just("x"),
    st.none(),
)
_PORT = st.one_of(
    st.fixed_dictionaries({"containerPort": st.just(80)},
                          optional={"hostPort": st.one_of(st.sampled_from([0, 80, 70000]),
                                                          st.none(), st.just("80")),
                                    "protocol": st.sampled_from(["TCP", "UDP", "HTTP"]),
                                    "hostIP": st.sampled_from(["", "10.0.0.1"])}),
    st.just("80"),
)
_PORTS = st.one_of(st.none(), st.lists(_PORT, max_size=3), st.just({"hostPort": 80}))
_CONTAINER = st.one_of(
    st.fixed_dictionaries({"name": st.just("c"), "resources": _RESOURCES, "ports": _PORTS}),
    st.fixed_dictionaries({"name": st.just("c")},
                          optional={"resources": _RESOURCES, "ports": _PORTS,
                                    "restartPolicy": st.just("Always")}),
    st.just("c"),
)
_CONTAINERS = st.one_of(st.lists(_CONTAINER, min_size=1, max_size=3),
                        st.lists(_CONTAINER, min_size=1, max_size=3),
                        st.just([]), st.none(), st.just({"name": "c"}))


def _outcome(fn: Any, *args: Any) -> Any:
    try:
        return "ok", fn(*args)
    except InputError as exc:
        return "error", str(exc)


def _general_requests(spec: dict[str, Any]) -> dict[str, int]:
    """The containers' sum as the general path reads it: ``_container_requests`` for each."""
    containers = spec.get("containers")
    total: dict[str, int] = {}
    if containers is None:
        return total
    if type(containers) is not list:
        raise fields.type_error(containers, "a list", SOURCE, "spec.containers")
    for i, c in enumerate(containers):
        for k, v in pod.container_requests(c, SOURCE, f"spec.containers[{i}]").items():
            total[k] = total.get(k, 0) + v
    total.pop("pods", None)
    return total


@given(_CONTAINERS)
def test_pod_requests_match_the_general_path(containers: Any) -> None:
    spec = {} if containers is None else {"containers": containers}
    assert _outcome(pod.pod_requests, spec, SOURCE) == _outcome(_general_requests, spec)


def _general_host_ports(spec: dict[str, Any]) -> Any:
    """``host_ports`` with its shortcut turned off: the loop that reads every container."""
    shortcut = constraints._no_host_port
    constraints._no_host_port = lambda containers: False
    try:
        return _outcome(constraints.host_ports, spec, SOURCE)
    finally:
        constraints._no_host_port = shortcut


@given(_CONTAINERS)
def test_host_ports_match_the_general_path(containers: Any) -> None:
    spec = {} if containers is None else {"containers": containers}
    assert _outcome(constraints.host_ports, spec, SOURCE) == _general_host_ports(spec)


def test_usual_pod_hand_worked() -> None:
    """A hand-worked usual pod: requests only (100m cpu + 1Gi memory, twice), a port without a
    host port: 200 millicores, 2 GiB, no host port."""
    container = {"name": "c", "resources": {"requests": {"cpu": "100m", "memory": "1Gi"}},
                 "ports": [{"containerPort": 80}]}
    spec = {"containers": [container, container]}
    assert pod.pod_requests(spec, SOURCE) == {"cpu": 200, "memory": 2 * 1024**3}
    assert constraints.host_ports(spec, SOURCE) == ()
