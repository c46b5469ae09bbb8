"""The live-cluster path against a fake API server on 127.0.0.1: documents, pagination,
discovery, config resolution, clean exit-4 errors, ``wapctl snapshot``, and never a write."""

from __future__ import annotations

import copy
import json
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml
from fake_apiserver import SCHEDULING, synthetic_cluster

from wapctl import ingest, live
from wapctl.errors import ClusterError, ExitCode, Source, UsageError
from wapctl.ingest import json_reader

# ---- a small cluster: a pending high-priority pod that needs a victim ---------------------

MANAGED = [{"manager": "kubectl", "operation": "Update", "apiVersion": "v1",
            "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {}}}]


def _node(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name},
                     "managedFields": MANAGED},
        "spec": {},
        "status": {"capacity": {"cpu": "2", "memory": "4Gi", "pods": "10"},
                   "allocatable": {"cpu": "2", "memory": "4Gi", "pods": "10"}},
    }


def _pod(name: str, *, node: str | None, cls: str, prio: int, cpu: str,
         ns: str = "team-a", workload: str | None = None,
         start: str = "2025-01-01T00:00:00Z") -> dict[str, Any]:
    spec: dict[str, Any] = {
        "priorityClassName": cls, "priority": prio,
        "containers": [{"name": "main", "image": "app:1",
                        "resources": {"requests": {"cpu": cpu, "memory": "256Mi"}}}],
    }
    if node:
        spec["nodeName"] = node
    if workload:
        spec["workloadRef"] = {"name": workload, "podGroup": "workers"}
    status: dict[str, Any] = {"phase": "Running" if node else "Pending"}
    if node:
        status["startTime"] = start
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "uid": f"uid-{name}",
                     "creationTimestamp": start, "labels": {"app": name},
                     "managedFields": MANAGED},
        "spec": spec, "status": status,
    }


def small_cluster() -> list[dict[str, Any]]:
    return [
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "low"}, "value": 100},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "high"}, "value": 1000},
        _node("node-a"),
        _node("node-b"),
        {"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
         "metadata": {"name": "train", "namespace": "team-a"},
         "spec": {"podGroups": [{"name": "workers", "policy": {"gang": {"minCount": 2}}}]}},
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
         "metadata": {"name": "solo", "namespace": "team-a"},
         "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "solo"}}},
         "status": {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1,
                    "expectedPods": 1}},
        _pod("solo", node="node-a", cls="low", prio=100, cpu="1500m"),
        _pod("worker-0", node="node-b", cls="low", prio=100, cpu="750m", workload="train"),
        _pod("worker-1", node="node-b", cls="low", prio=100, cpu="750m", workload="train",
             start="2025-01-01T00:05:00Z"),
        _pod("urgent", node=None, cls="high", prio=1000, cpu="1", ns="team-b"),
    ]


def as_kubectl_shows(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The objects as ``kubectl get -o json`` prints them: no managedFields."""
    shown = copy.deepcopy(objects)
    for obj in shown:
        obj["metadata"].pop("managedFields", None)
    return shown


def write_list_file(path: Path, objects: list[dict[str, Any]]) -> Path:
    # the fake server says v1.36.2 at /version; a wapctl snapshot keeps it in this annotation
    doc = {"apiVersion": "v1", "kind": "List", "items": as_kubectl_shows(objects),
           "metadata": {"resourceVersion": "",
                        "annotations": {"wapctl.io/server-version": "v1.36.2"}}}
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


def fetch(kubeconfig: Path | str | None, *, page_size: int = 500, timeout: float = 10.0,
          context: str | None = None, progress: bool = False) -> list[Any]:
    return live.fetch_documents(kubeconfig=None if kubeconfig is None else str(kubeconfig),
                                context=context, request_timeout=timeout,
                                page_size=page_size, progress=progress)


def key(obj: dict[str, Any]) -> tuple[str, str, str]:
    meta = obj["metadata"]
    return (obj["kind"], meta.get("namespace", ""), meta["name"])


def closed_port() -> int:
    """A port nothing listens on: bound once, then closed."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def cli() -> Any:
    """The wapctl Typer app."""
    from wapctl.cli import app

    return app


def run(args: list[str]) -> Any:
    from typer.testing import CliRunner

    return CliRunner().invoke(cli(), args)


@pytest.fixture(autouse=True)
def _no_ambient_kubeconfig(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test may reach a real cluster through the developer's own config."""
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_PORT", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


# ---- documents ----------------------------------------------------------------------------


def test_live_documents_are_the_objects_as_kubectl_shows_them(apiserver, tmp_path):
    """Every served object comes back once, with apiVersion/kind filled in and no
    managedFields, exactly as kubectl get -o json shows it."""
    objects = small_cluster()
    fake = apiserver(objects)
    docs = fetch(fake.write_kubeconfig(tmp_path / "kc"))
    assert sorted(as_kubectl_shows(objects), key=key) == sorted((d.obj for d in docs), key=key)
    assert all(list(d.obj)[:2] == ["apiVersion", "kind"] for d in docs)


def test_live_documents_equal_the_documents_of_a_file(apiserver, tmp_path):
    """The loader's documents of a kubectl List file equal the live documents of the same
    objects, as far as the file reader keeps them (it skips what no builder reads: uids,
    container images, ...), and both build the same snapshot."""
    objects = small_cluster()
    fake = apiserver(objects)
    live_docs = fetch(fake.write_kubeconfig(tmp_path / "kc"))
    file_docs = ingest.read_documents([str(write_list_file(tmp_path / "snap.json", objects))])
    assert sorted((d.obj for d in file_docs), key=key) == sorted(
        (json_reader.kept(d.obj) for d in live_docs), key=key
    )
    assert all("image" in c for d in live_docs if d.obj["kind"] == "Pod"
               for c in d.obj["spec"]["containers"])  # live reads keep everything
    live, from_file = ingest.build_snapshot(live_docs), ingest.build_snapshot(file_docs)
    assert live.pods.keys() == from_file.pods.keys()
    assert [msgspec.structs.replace(p, source=None) for p in live.pods.values()] == [
        msgspec.structs.replace(p, source=None) for p in from_file.pods.values()
    ]


def test_sources_name_server_list_path_page_and_item(apiserver, tmp_path):
    """Source.file is the server URL plus the list path; document is the page, item the index."""
    fake = apiserver(small_cluster())
    docs = fetch(fake.write_kubeconfig(tmp_path / "kc"), page_size=2)
    pods = [d.source for d in docs if d.obj["kind"] == "Pod"]
    url = f"{fake.url}/api/v1/pods"
    expected = [Source(url, 1, 0), Source(url, 1, 1), Source(url, 2, 0), Source(url, 2, 1)]
    assert expected == pods


def test_documents_come_in_kind_order(apiserver, tmp_path):
    """Classes and nodes first, pods last; within a kind, the server's key order."""
    fake = apiserver(small_cluster())
    docs = fetch(fake.write_kubeconfig(tmp_path / "kc"))
    kinds = [d.obj["kind"] for d in docs]
    assert ["PriorityClass"] * 2 + ["Node"] * 2 + ["Workload", "PodDisruptionBudget"] + \
        ["Pod"] * 4 == kinds


def test_progress_display_does_not_change_the_result(apiserver, tmp_path):
    """With progress on, the Rich display goes to stderr and the documents are the same."""
    fake = apiserver(small_cluster())
    kc = fake.write_kubeconfig(tmp_path / "kc")
    assert [d.obj for d in fetch(kc)] == [d.obj for d in fetch(kc, progress=True)]


# ---- pagination -----------------------------------------------------------------------------


def test_pagination_collects_every_page(apiserver, tmp_path):
    """50 pods at page size 7 take 8 requests, each with limit=7, and yield all 50 once."""
    fake = apiserver(synthetic_cluster(3, 50))
    docs = fetch(fake.write_kubeconfig(tmp_path / "kc"), page_size=7)
    pods = [d for d in docs if d.obj["kind"] == "Pod"]
    names = sorted(d.obj["metadata"]["name"] for d in pods)
    assert [f"pod-{i:06d}" for i in range(50)] == names
    pod_requests = [p for m, p in fake.requests if p.startswith("/api/v1/pods")]
    assert 8 == len(pod_requests)
    assert all("limit=7" in p for p in pod_requests)
    assert ["continue=" in p for p in pod_requests] == [False] + [True] * 7
    assert [7] * 7 + [1] == [sum(1 for d in pods if d.source.document == page)
                             for page in range(1, 9)]


def test_gzip_compressed_pages_are_decoded(apiserver, tmp_path):
    """Pages the server gzips (the client asks for gzip, as client-go does) decode to the same
    documents."""
    fake = apiserver(synthetic_cluster(3, 50))
    kc = fake.write_kubeconfig(tmp_path / "kc")
    plain = [d.obj for d in fetch(kc, page_size=20)]
    fake.gzip_min_bytes = 0
    assert plain == [d.obj for d in fetch(kc, page_size=20)]
    assert fake.gzipped > 5


def test_expired_continue_token_restarts_one_full_list(apiserver, tmp_path):
    """A 410 Expired on a continue request relists once without a limit (client-go's pager):
    every pod exactly once."""
    fake = apiserver(synthetic_cluster(3, 50))
    fake.expire_continue = 1
    docs = fetch(fake.write_kubeconfig(tmp_path / "kc"), page_size=20)
    names = [d.obj["metadata"]["name"] for d in docs if d.obj["kind"] == "Pod"]
    assert sorted(f"pod-{i:06d}" for i in range(50)) == sorted(names)
    assert 50 == len(names)
    pod_requests = [p for m, p in fake.requests if p.startswith("/api/v1/pods")]
    assert ["/api/v1/pods?limit=20", "continue", "/api/v1/pods"] == [
        "continue" if "continue=" in p else p for p in pod_requests
    ]


# ---- discovery of the Workload API ----------------------------------------------------------


def _workload(version: str) -> dict[str, Any]:
    return {"apiVersion": f"{SCHEDULING}/{version}", "kind": "Workload",
            "metadata": {"name": f"wl-{version}", "namespace": "default"}, "spec": {}}


def _podgroup(version: str) -> dict[str, Any]:
    return {"apiVersion": f"{SCHEDULING}/{version}", "kind": "PodGroup",
            "metadata": {"name": f"pg-{version}", "namespace": "default"}, "spec": {}}


@pytest.mark.parametrize(
    ("served", "expected"),
    [
        ((), []),
        (("v1alpha1",), [("Workload", "v1alpha1")]),
        (("v1alpha1", "v1alpha2"), [("Workload", "v1alpha2"), ("PodGroup", "v1alpha2")]),
        (("v1alpha1", "v1alpha2", "v1alpha3"),
         [("Workload", "v1alpha3"), ("PodGroup", "v1alpha3")]),
        # issue 26: a newer server serving the beta is read in v1beta1, over every alpha
        (("v1alpha2", "v1alpha3", "v1beta1"),
         [("Workload", "v1beta1"), ("PodGroup", "v1beta1")]),
        (("v1beta1",), [("Workload", "v1beta1"), ("PodGroup", "v1beta1")]),
    ],
    ids=["no-workload-api", "v1alpha1", "v1alpha2-over-v1alpha1", "v1alpha3-newest",
         "v1beta1-over-alphas", "v1beta1-only"],
)
def test_workload_api_version_found_by_discovery(apiserver, tmp_path, served, expected):
    """Workloads and PodGroups are listed in the newest served alpha version that has them."""
    objects = []
    for version in served:
        objects.append(_workload(version))
        if version != "v1alpha1":
            objects.append(_podgroup(version))
    fake = apiserver(objects, workload_versions=served)
    docs = fetch(fake.write_kubeconfig(tmp_path / "kc"))
    got = [(d.obj["kind"], d.obj["apiVersion"].split("/")[1]) for d in docs
           if d.obj["kind"] in ("Workload", "PodGroup")]
    assert expected == got


def test_workload_group_404_means_no_workloads(apiserver, tmp_path):
    """A version listed in /apis whose discovery answers 404 (stale) is skipped: no workloads,
    no error."""
    fake = apiserver(small_cluster())
    fake.fail[f"/apis/{SCHEDULING}/v1alpha1"] = 404
    docs = fetch(fake.write_kubeconfig(tmp_path / "kc"))
    assert [] == [d for d in docs if d.obj["kind"] == "Workload"]
    assert 9 == len(docs)


def test_workload_list_404_after_discovery_means_no_workloads(apiserver, tmp_path):
    """The Workload list vanishing between discovery and listing (404) gives no workloads."""
    fake = apiserver(small_cluster())
    fake.fail[f"/apis/{SCHEDULING}/v1alpha1/workloads"] = 404
    docs = fetch(fake.write_kubeconfig(tmp_path / "kc"))
    assert ["PodDisruptionBudget"] == [d.obj["kind"] for d in docs if d.obj["kind"] not in
                                       ("Pod", "Node", "PriorityClass")]


# ---- configuration resolution ---------------------------------------------------------------


def test_kubeconfig_from_environment(apiserver, tmp_path, monkeypatch):
    """Without --kubeconfig, $KUBECONFIG is used (missing entries in it are skipped)."""
    fake = apiserver(small_cluster())
    kc = fake.write_kubeconfig(tmp_path / "kc")
    monkeypatch.setenv("KUBECONFIG", f"{tmp_path / 'missing'}:{kc}")
    assert 10 == len(fetch(None))


def test_first_current_context_along_kubeconfig_list_wins(apiserver, tmp_path, monkeypatch):
    """With $KUBECONFIG=a:b, a's current-context is used, as kubectl does (b's points at a dead
    port)."""
    fake = apiserver(small_cluster())
    first = fake.write_kubeconfig(tmp_path / "a", context="live")
    second = fake.write_kubeconfig(tmp_path / "b", context="dead",
                                   server=f"http://127.0.0.1:{closed_port()}")
    config = json.loads(second.read_text())
    config["clusters"][0]["name"] = "dead-cluster"
    config["contexts"][0]["context"]["cluster"] = "dead-cluster"
    second.write_text(json.dumps(config))
    monkeypatch.setenv("KUBECONFIG", f"{first}:{second}")
    assert 10 == len(fetch(None))
    assert 10 == len(fetch(None, context="live"))
    with pytest.raises(ClusterError, match="cannot connect"):
        fetch(None, context="dead")


def test_kubeconfig_from_home(apiserver, tmp_path):
    """Without --kubeconfig and $KUBECONFIG, ~/.kube/config is used."""
    fake = apiserver(small_cluster())
    (tmp_path / "home" / ".kube").mkdir(parents=True)
    fake.write_kubeconfig(tmp_path / "home" / ".kube" / "config")
    assert 10 == len(fetch(None))


def test_explicit_kubeconfig_beats_environment(apiserver, tmp_path, monkeypatch):
    """--kubeconfig wins over $KUBECONFIG (which here points at a dead port)."""
    fake = apiserver(small_cluster())
    dead = fake.write_kubeconfig(tmp_path / "dead", server=f"http://127.0.0.1:{closed_port()}")
    monkeypatch.setenv("KUBECONFIG", str(dead))
    assert 10 == len(fetch(fake.write_kubeconfig(tmp_path / "kc")))


def test_context_selects_cluster(apiserver, tmp_path):
    """--context picks a context other than current-context."""
    fake = apiserver(small_cluster())
    kc = fake.write_kubeconfig(tmp_path / "kc", server=f"http://127.0.0.1:{closed_port()}",
                               context="dead")
    config = json.loads(kc.read_text())
    config["clusters"].append({"name": "live", "cluster": {"server": fake.url}})
    config["contexts"].append({"name": "live", "context": {"cluster": "live",
                                                           "user": "fake-user"}})
    kc.write_text(json.dumps(config))
    assert 10 == len(fetch(kc, context="live"))


def test_kubeconfig_is_never_rewritten(apiserver, tmp_path):
    """Listing leaves the kubeconfig byte for byte as it was."""
    fake = apiserver(small_cluster())
    kc = fake.write_kubeconfig(tmp_path / "kc")
    before = kc.read_bytes()
    fetch(kc)
    assert before == kc.read_bytes()


# ---- errors: exit 4, one line naming the server and what failed -----------------------------


def _bad_kubeconfig(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bad-kc"
    path.write_text(text, encoding="utf-8")
    return path


ERROR_CASES = [
    ("wrong-token", "401 Unauthorized: the server rejected the credentials of context 'fake'"),
    ("no-token", "401 Unauthorized"),
    ("unreachable", "cannot connect: connection refused"),
    ("forbidden-pods", ('403 Forbidden: not allowed to list pods (GET /api/v1/pods): pods is '
                       'forbidden: User "system:serviceaccount:wapctl:reader" cannot list')),
    ("timeout", ("the --request-timeout of 0.3s ran out waiting for GET "
                 "/apis/scheduling.k8s.io/v1/priorityclasses (it bounds the whole command, "
                 "retries included; raise it for a slow or very large cluster)")),
    ("tls-to-plain-http", "TLS failure: wrong version number (the server does not speak TLS"),
    ("policy-group-404", ("404 Not Found: GET /apis/policy/v1/poddisruptionbudgets: the server "
                         "does not serve poddisruptionbudgets")),
    ("server-error", "HTTP 500 for GET /api/v1/nodes: injected failure 500"),
    ("not-kubernetes", "GET /api: 404 Not Found: this is not a Kubernetes API server"),
    ("redirect", "GET /api was redirected (an authenticating proxy or a login page?)"),
    ("missing-kubeconfig", "kubeconfig {tmp}/nope: no such file"),
    ("unknown-context", "kubeconfig {tmp}/kc: no context named 'other' (contexts: fake)"),
    ("kubeconfig-not-yaml", "kubeconfig {tmp}/bad-kc: cannot read it:"),
    ("kubeconfig-no-current", "kubeconfig {tmp}/bad-kc: no current-context; pass --context"),
    ("kubeconfig-no-server", "kubeconfig {tmp}/bad-kc, context 'c': the cluster has no server"),
]


@pytest.mark.parametrize(("setup", "needle"), ERROR_CASES,
                         ids=[c[0] for c in ERROR_CASES])
def test_cluster_errors_are_one_clear_line(apiserver, tmp_path, setup, needle):
    """Each failure raises ClusterError (exit 4) whose message names the server or the
    kubeconfig and what failed."""
    fake = apiserver(small_cluster())
    kc = fake.write_kubeconfig(tmp_path / "kc")
    context = None
    timeout = 5.0
    if setup == "wrong-token":
        kc = fake.write_kubeconfig(tmp_path / "kc", token="stolen")
    elif setup == "no-token":
        kc = fake.write_kubeconfig(tmp_path / "kc", token="")
    elif setup == "unreachable":
        kc = fake.write_kubeconfig(tmp_path / "kc", server=f"http://127.0.0.1:{closed_port()}")
    elif setup == "forbidden-pods":
        fake.forbidden.add("pods")
    elif setup == "timeout":
        fake.delay, timeout = 2.0, 0.3
    elif setup == "tls-to-plain-http":
        kc = fake.write_kubeconfig(tmp_path / "kc", server=fake.url.replace("http:", "https:"),
                                   extra_cluster={"insecure-skip-tls-verify": True})
    elif setup == "policy-group-404":
        fake.fail["/apis/policy/v1/poddisruptionbudgets"] = 404
    elif setup == "server-error":
        fake.fail["/api/v1/nodes"] = 500
    elif setup == "not-kubernetes":
        fake.fail["/api"] = 404
    elif setup == "redirect":
        fake.fail["/api"] = 302
    elif setup == "missing-kubeconfig":
        kc = tmp_path / "nope"
    elif setup == "unknown-context":
        context = "other"
    elif setup == "kubeconfig-not-yaml":
        kc = _bad_kubeconfig(tmp_path, "clusters: [unclosed\n")
    elif setup == "kubeconfig-no-current":
        kc = _bad_kubeconfig(tmp_path, "apiVersion: v1\nkind: Config\nclusters: []\n"
                                       "contexts: []\nusers: []\n")
    elif setup == "kubeconfig-no-server":
        kc = _bad_kubeconfig(tmp_path, yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config", "current-context": "c",
            "clusters": [{"name": "x", "cluster": {}}],
            "contexts": [{"name": "c", "context": {"cluster": "x", "user": "u"}}],
            "users": [{"name": "u", "user": {}}]}))
    with pytest.raises(ClusterError) as caught:
        fetch(kc, context=context, timeout=timeout)
    message = str(caught.value)
    assert ExitCode.CLUSTER == caught.value.exit_code
    assert needle.format(tmp=tmp_path) in message
    assert "\n" not in message
    if setup in ("wrong-token", "unreachable", "forbidden-pods", "timeout", "server-error"):
        assert message.startswith("cluster http://127.0.0.1:")


def test_no_config_anywhere_is_a_clear_error():
    """No --kubeconfig, no $KUBECONFIG, no ~/.kube/config and not in a pod: exit 4, saying so."""
    with pytest.raises(ClusterError) as caught:
        fetch(None)
    assert "no cluster to read: no --kubeconfig, $KUBECONFIG is unset, ~/.kube/config does not" \
        " exist and wapctl is not running inside a cluster" in str(caught.value)


def test_in_cluster_without_service_account_is_a_clear_error(monkeypatch, tmp_path):
    """In a pod (KUBERNETES_SERVICE_HOST set) without a token file: exit 4 naming in-cluster."""
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", str(closed_port()))
    from kubernetes.config import incluster_config

    monkeypatch.setattr(incluster_config, "SERVICE_TOKEN_FILENAME", str(tmp_path / "token"))
    with pytest.raises(ClusterError) as caught:
        fetch(None)
    assert str(caught.value).startswith("in-cluster config: ")


@pytest.mark.parametrize(("timeout", "page_size"), [(-1.0, 500), (5.0, 0)],
                         ids=["negative-timeout", "zero-page-size"])
def test_bad_options_are_usage_errors(tmp_path, timeout, page_size):
    """A negative --request-timeout or a page size below 1 is a usage error (exit 2)."""
    with pytest.raises(UsageError):
        fetch(tmp_path / "kc", timeout=timeout, page_size=page_size)


# ---- read-only ------------------------------------------------------------------------------


def test_fake_server_would_see_a_write(apiserver):
    """The request record catches non-GET methods (so the read-only tests can fail)."""
    fake = apiserver()
    request = urllib.request.Request(f"{fake.url}/api/v1/pods", data=b"{}", method="POST",
                                     headers={"Authorization": "Bearer test-token"})
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=5)
    assert 405 == caught.value.code
    assert {"POST"} == fake.methods()


def test_server_never_receives_a_write(apiserver, tmp_path):
    """Listing (with pagination, a 410 restart and a 403) sends only GET requests."""
    fake = apiserver(synthetic_cluster(4, 30))
    kc = fake.write_kubeconfig(tmp_path / "kc")
    fetch(kc, page_size=4)
    fake.expire_continue = 1
    fetch(kc, page_size=4)
    fake.forbidden.add("pods")
    with pytest.raises(ClusterError):
        fetch(kc)
    assert {"GET"} == fake.methods()
    assert len(fake.requests) > 20


def test_kubernetes_client_is_not_imported_by_file_commands():
    """Importing the live module and the snapshot command does not import kubernetes (slow)."""
    code = ("import sys, wapctl.live, wapctl.commands.snapshot; "
            "print('kubernetes' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parent.parent)
    assert "False" == out.stdout.strip()


# TLS: tests/test_live_tls.py


# ---- wapctl snapshot (through the CLI) ------------------------------------------------------


def test_snapshot_writes_a_sorted_list(apiserver, tmp_path):
    """snapshot --output-file FILE writes one kind: List with items by kind, namespace, name,
    and reports the counts on stderr."""
    fake = apiserver(small_cluster())
    kc = fake.write_kubeconfig(tmp_path / "kc")
    out = tmp_path / "snap.yaml"
    result = run(["snapshot", "--kubeconfig", str(kc), "--output-file", str(out)])
    assert 0 == result.exit_code, result.output
    doc = yaml.safe_load(out.read_text())
    assert ("v1", "List") == (doc["apiVersion"], doc["kind"])
    assert [
        ("PriorityClass", "", "high"), ("PriorityClass", "", "low"),
        ("Node", "", "node-a"), ("Node", "", "node-b"),
        ("Workload", "team-a", "train"),
        ("PodDisruptionBudget", "team-a", "solo"),
        ("Pod", "team-a", "solo"), ("Pod", "team-a", "worker-0"), ("Pod", "team-a", "worker-1"),
        ("Pod", "team-b", "urgent"),
    ] == [key(item) for item in doc["items"]]
    assert "" == result.stdout
    assert (f"wrote 10 objects (2 PriorityClass, 2 Node, 1 Workload, 1 PodDisruptionBudget, "
            f"4 Pod; only the fields wapctl reads) to {out}\n") == result.stderr


@pytest.mark.parametrize(
    ("args", "name", "parse"),
    [
        ([], "snap.yaml", yaml.safe_load),
        ([], "snap.json", json.loads),
        (["-o", "json"], "snap.txt", json.loads),
        (["-o", "yaml"], "snap.json", yaml.safe_load),
    ],
    ids=["yaml-default", "json-by-suffix", "json-flag", "yaml-flag-wins"],
)
def test_snapshot_format(apiserver, tmp_path, args, name, parse):
    """-o picks yaml or json; without it the file suffix .json means json, else yaml;
    stdout gets the same text when there is no --output-file."""
    fake = apiserver(small_cluster())
    kc = fake.write_kubeconfig(tmp_path / "kc")
    out = tmp_path / name
    result = run(["snapshot", "--kubeconfig", str(kc), "--output-file", str(out), *args])
    assert 0 == result.exit_code, result.output
    text = out.read_text()
    doc = parse(text)
    assert 10 == len(doc["items"])
    assert (parse is json.loads) == text.startswith("{")
    assert (parse is yaml.safe_load) == text.startswith("# wapctl snapshot")
    fmt = [a for a in args if a in ("json", "yaml")] or (["json"] if name.endswith(".json")
                                                        else [])
    stdout = run(["snapshot", "--kubeconfig", str(kc), *(["-o", fmt[0]] if fmt else [])])
    assert text == stdout.stdout


def test_snapshot_list_sorts_by_kind_namespace_name():
    """Items sort by kind (definitions first, unknown kinds last), then namespace, then name,
    whatever order they come in."""
    from wapctl.commands.snapshot import snapshot_list

    objects = [
        {"kind": "Pod", "metadata": {"namespace": "b", "name": "a"}},
        {"kind": "ConfigMap", "metadata": {"namespace": "a", "name": "z"}},
        {"kind": "Pod", "metadata": {"namespace": "a", "name": "b"}},
        {"kind": "Node", "metadata": {"name": "n"}},
        {"kind": "PriorityClass", "metadata": {"name": "p"}},
        {"kind": "Pod", "metadata": {"namespace": "a", "name": "a"}},
    ]
    doc = snapshot_list(reversed(objects))
    assert ("v1", "List") == (doc["apiVersion"], doc["kind"])
    assert [("PriorityClass", "", "p"), ("Node", "", "n"), ("Pod", "a", "a"), ("Pod", "a", "b"),
            ("Pod", "b", "a"), ("ConfigMap", "a", "z")] == [key(o) for o in doc["items"]]


def test_snapshot_is_deterministic(apiserver, tmp_path):
    """The same objects, stored in another order and listed with another page size, give the
    same bytes."""
    objects = small_cluster()
    first = apiserver(objects)
    second = apiserver(list(reversed(objects)))
    a = run(["snapshot", "--kubeconfig", str(first.write_kubeconfig(tmp_path / "a"))])
    b = run(["snapshot", "--kubeconfig", str(second.write_kubeconfig(tmp_path / "b")),
             "--page-size", "1"])
    assert 0 == a.exit_code == b.exit_code
    assert a.stdout == b.stdout


def test_snapshot_round_trips_through_the_loader(apiserver, tmp_path):
    """The snapshot file reads back through ingest.read_documents + build_snapshot with the same
    objects."""
    objects = small_cluster()
    fake = apiserver(objects)
    out = tmp_path / "snap.yaml"
    result = run(["snapshot", "--kubeconfig", str(fake.write_kubeconfig(tmp_path / "kc")),
                  "--output-file", str(out), "--full"])
    assert 0 == result.exit_code, result.output
    documents = ingest.read_documents([str(out)])
    assert sorted(as_kubectl_shows(objects), key=key) == sorted((d.obj for d in documents),
                                                                key=key)
    snap = ingest.build_snapshot(documents)
    assert "v1.36.2" == snap.server_version


@pytest.mark.parametrize("existing", [False, True], ids=["no-file", "existing-file"])
def test_failed_snapshot_leaves_no_file(apiserver, tmp_path, existing):
    """A run that fails (401) exits 4 with one line, writes no file and leaves an existing one
    untouched, with no temporary left behind."""
    fake = apiserver(small_cluster())
    kc = fake.write_kubeconfig(tmp_path / "kc", token="wrong")
    out = tmp_path / "snap.yaml"
    if existing:
        out.write_text("old\n")
    result = run(["snapshot", "--kubeconfig", str(kc), "--output-file", str(out)])
    assert ExitCode.CLUSTER == result.exit_code
    assert result.stderr.startswith(f"error: cluster {fake.url}: 401 Unauthorized")
    assert 1 == len(result.stderr.splitlines())
    assert "Traceback" not in result.output
    assert (["kc", "snap.yaml"] if existing else ["kc"]) == sorted(
        p.name for p in tmp_path.iterdir() if p.name != "home")
    if existing:
        assert "old\n" == out.read_text()


def test_unreachable_port_exits_4(tmp_path, apiserver):
    """snapshot against a closed port exits 4 with one line naming the server."""
    fake = apiserver()
    port = closed_port()
    kc = fake.write_kubeconfig(tmp_path / "kc", server=f"http://127.0.0.1:{port}")
    result = run(["snapshot", "--kubeconfig", str(kc)])
    assert ExitCode.CLUSTER == result.exit_code
    assert (f"error: cluster http://127.0.0.1:{port}: cannot connect: connection refused\n"
            == result.stderr)


# ---- plan: live equals file -----------------------------------------------------------------


def test_plan_from_live_server_equals_plan_from_file(apiserver, tmp_path):
    """plan -o json gives byte-identical output for the live server and a file of the same
    objects."""
    objects = small_cluster()
    fake = apiserver(objects)
    kc = fake.write_kubeconfig(tmp_path / "kc")
    snap = write_list_file(tmp_path / "snap.json", objects)
    from_live = run(["plan", "--kubeconfig", str(kc), "-o", "json"])
    from_file = run(["plan", str(snap), "-o", "json"])
    assert from_file.exit_code == from_live.exit_code, from_live.output + from_file.output
    assert from_file.stdout == from_live.stdout
    plan = json.loads(from_live.stdout)
    assert ("PreemptionPlan", "team-b", "urgent", "RequiresPreemption") == (
        plan["kind"], plan["preemptor"]["namespace"], plan["preemptor"]["name"], plan["status"])
    # node-a's pod is PDB-protected; on node-b one worker frees enough: the later-started one.
    assert [("team-a/worker-1", "node-b")] == [(v["pod"], v["node"]) for v in plan["victims"]]
    assert {"GET"} == fake.methods()


def test_plan_from_a_v1beta1_server_equals_the_v1alpha2_file(apiserver, tmp_path):
    """Issue 26: a server serving scheduling.k8s.io/v1beta1 is listed in v1beta1 and its
    Workloads and PodGroups read as the other shapes: the plan equals the v1alpha2 twin's
    (fixtures/api-versions), not standalone pods."""
    api = Path(__file__).resolve().parent.parent / "fixtures" / "api-versions"
    objects: list[dict[str, Any]] = []
    for doc in yaml.safe_load_all((api / "v1beta1.yaml").read_text(encoding="utf-8")):
        objects.extend(doc["items"] if doc["kind"] == "List" else [doc])
    fake = apiserver(objects, workload_versions=("v1alpha2", "v1alpha3", "v1beta1"))
    kc = fake.write_kubeconfig(tmp_path / "kc")
    from_live = run(["plan", "--kubeconfig", str(kc), "-o", "json"])
    from_file = run(["plan", str(api / "v1alpha2.yaml"), "-o", "json"])
    assert 0 == from_live.exit_code, from_live.output
    live_plan, file_plan = json.loads(from_live.stdout), json.loads(from_file.stdout)
    # the live read knows the server's version (1.36.2), the file does not: the same model
    assert ("1.36", "server version v1.36.2") == tuple(live_plan.pop("model").values())
    assert "1.36" == file_plan.pop("model")["name"]
    assert file_plan == live_plan
    assert any(p.endswith("/v1beta1/podgroups") for p in fake.paths())


@pytest.mark.parametrize(
    "command",
    [["validate"], ["check-cycles", "-o", "json"], ["simulate", "-o", "json"],
     ["audit", "--change", "{change}", "-o", "json"]],
    ids=["validate", "check-cycles", "simulate", "audit"],
)
def test_other_commands_read_live_as_files(apiserver, tmp_path, command):
    """validate, check-cycles, simulate and audit give the same output and exit code for the
    live server as for a file of the same objects."""
    change = tmp_path / "change.yaml"
    change.write_text("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
                      "metadata: {name: high}\nvalue: 50\n", encoding="utf-8")
    command = [arg.format(change=change) for arg in command]
    objects = small_cluster()
    fake = apiserver(objects)
    kc = fake.write_kubeconfig(tmp_path / "kc")
    snap = write_list_file(tmp_path / "snap.json", objects)
    from_live = run([*command, "--kubeconfig", str(kc)])
    from_file = run([*command, str(snap)])
    assert from_file.exit_code == from_live.exit_code, from_live.output + from_file.output
    assert from_file.exit_code in (0, 1), from_file.output
    assert from_file.stdout == from_live.stdout
    assert {"GET"} == fake.methods()


# ---- RBAC -----------------------------------------------------------------------------------


def test_rbac_role_grants_exactly_what_is_listed(apiserver, tmp_path):
    """fixtures/rbac/clusterrole.yaml grants get/list on exactly the resources wapctl lists
    (every Workload API version served, and the events of explain/history) and on nothing
    else; watch only on what history --watch watches (pods, events)."""
    role_file = Path(__file__).resolve().parent.parent / "fixtures" / "rbac" / "clusterrole.yaml"
    docs = list(yaml.safe_load_all(role_file.read_text(encoding="utf-8")))
    role = next(d for d in docs if d["kind"] == "ClusterRole")
    granted = {(group, resource): sorted(rule["verbs"]) for rule in role["rules"]
               for group in rule["apiGroups"] for resource in rule["resources"]}
    fake = apiserver([_workload("v1alpha3"), _podgroup("v1alpha3")],
                     workload_versions=("v1alpha1", "v1alpha2", "v1alpha3"), events=True)
    fetch(fake.write_kubeconfig(tmp_path / "kc"))
    from wapctl.live_events import fetch_events

    fetch_events(kubeconfig=str(tmp_path / "kc"), context=None, request_timeout=10, page_size=50)
    listed = set()
    for path in fake.paths():
        parts = path.split("/")
        if parts[1] == "api" and len(parts) == 4:
            listed.add(("", parts[3]))
        elif parts[1] == "apis" and len(parts) == 5:
            listed.add((parts[2], parts[4]))
    assert sorted(listed) == sorted(granted)
    watched = {("", "pods"), ("events.k8s.io", "events")}  # wapctl.live_events.follow
    assert all((["get", "list", "watch"] if key in watched else ["get", "list"]) == verbs
               for key, verbs in granted.items())
    binding = next(d for d in docs if d["kind"] == "ClusterRoleBinding")
    assert ("ClusterRole", "wapctl-reader") == (binding["roleRef"]["kind"],
                                                binding["roleRef"]["name"])


def test_interrupted_snapshot_exits_130_and_leaves_no_file(apiserver, tmp_path, monkeypatch):
    """Ctrl-C in the middle of listing exits 130 with one line and writes no file."""
    fake = apiserver(small_cluster())
    kc = fake.write_kubeconfig(tmp_path / "kc")
    real = live.HttpGet.list_all
    calls = []

    def interrupt_on_nodes(self, target, page_size, bar):
        calls.append(target.kind)
        if target.kind == "Node":
            raise KeyboardInterrupt
        return real(self, target, page_size, bar)

    monkeypatch.setattr(live.HttpGet, "list_all", interrupt_on_nodes)
    result = run(["snapshot", "--kubeconfig", str(kc), "--output-file",
                  str(tmp_path / "snap.yaml")])
    assert ExitCode.INTERRUPTED == result.exit_code
    assert ["PriorityClass", "Node"] == calls
    assert "interrupted\n" == result.stderr
    assert ["kc"] == sorted(p.name for p in tmp_path.iterdir() if p.name != "home")
