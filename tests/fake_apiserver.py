"""A small fake Kubernetes API server for the live-cluster tests and the listing benchmark.

It speaks just enough of the REST API for what ``wapctl.live`` reads: discovery (``/api``,
``/api/v1``, ``/apis``, ``/apis/<group>``, ``/apis/<group>/<version>``), cluster-wide JSON lists
that honour ``limit`` / ``continue`` (with ``metadata.continue`` and ``remainingItemCount``),
``Status`` objects for errors, and a bearer-token check. Every request is recorded (method and
path) so a test can prove that wapctl never sends anything but GET.

List items are served without ``apiVersion`` / ``kind``, as the real API server serves built-in
types. Objects are pre-encoded once, so a 30k-pod list costs the server little and a benchmark
mostly measures the client.
"""

from __future__ import annotations

import base64
import gzip
import json
import ssl
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass(frozen=True)
class Resource:
    group: str  # "" for the core group
    version: str
    plural: str
    kind: str
    namespaced: bool

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def path(self) -> str:
        prefix = "/api" if not self.group else f"/apis/{self.group}"
        return f"{prefix}/{self.version}/{self.plural}"


SCHEDULING = "scheduling.k8s.io"

# Which resources each served version has (upstream: Workload from v1alpha1, PodGroup objects
# from v1alpha2 on).
BUILTIN: tuple[Resource, ...] = (
    Resource("", "v1", "nodes", "Node", False),
    Resource("", "v1", "pods", "Pod", True),
    Resource(SCHEDULING, "v1", "priorityclasses", "PriorityClass", False),
    Resource("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", True),
)
WORKLOAD_RESOURCES: dict[str, tuple[Resource, ...]] = {
    "v1alpha1": (Resource(SCHEDULING, "v1alpha1", "workloads", "Workload", True),),
    "v1alpha2": (
        Resource(SCHEDULING, "v1alpha2", "workloads", "Workload", True),
        Resource(SCHEDULING, "v1alpha2", "podgroups", "PodGroup", True),
    ),
    "v1alpha3": (
        Resource(SCHEDULING, "v1alpha3", "workloads", "Workload", True),
        Resource(SCHEDULING, "v1alpha3", "podgroups", "PodGroup", True),
    ),
}

WRITE_METHODS = ("POST", "PUT", "PATCH", "DELETE")


def status_body(code: int, reason: str, message: str, **extra: Any) -> dict[str, Any]:
    """A ``metav1.Status`` failure object, as the API server sends with an error code."""
    doc: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }
    doc.update(extra)
    return doc


class FakeApiServer:
    """A threaded HTTP(S) server on 127.0.0.1 with an ephemeral port.

    ``objects`` are full Kubernetes objects (with ``apiVersion`` and ``kind``); each is served at
    the list path of its resource. ``workload_versions`` are the scheduling.k8s.io alpha versions
    the server advertises in discovery (none: a cluster without the Workload API).

    Knobs a test can set after construction: ``forbidden`` (plurals that answer 403),
    ``fail`` (path -> status code), ``delay`` (seconds before each list answer),
    ``expire_continue`` (how many continue requests answer 410 Expired), ``gzip_min_bytes``
    (gzip answers at least this large when the client accepts gzip; the real server does so
    above 128 KiB).
    """

    def __init__(
        self,
        objects: Iterable[dict[str, Any]] = (),
        *,
        token: str | None = "test-token",
        workload_versions: Iterable[str] = ("v1alpha1",),
        tls: ssl.SSLContext | None = None,
        user: str = "system:serviceaccount:wapctl:reader",
    ) -> None:
        self.token = token
        self.user = user
        self.workload_versions = tuple(workload_versions)
        self.resources: dict[str, Resource] = {}
        for res in BUILTIN:
            self.resources[res.path] = res
        for version in self.workload_versions:
            for res in WORKLOAD_RESOURCES[version]:
                self.resources[res.path] = res
        self._items: dict[str, list[tuple[tuple[str, str], bytes]]] = {
            p: [] for p in self.resources
        }
        self.forbidden: set[str] = set()
        self.fail: dict[str, int] = {}
        self.delay = 0.0
        self.expire_continue = 0
        self.gzip_min_bytes: int | None = None  # gzip bodies this large, as the API server does
        self.gzipped = 0
        self.requests: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        self._tls = tls
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.add(objects)

    # ---- content ------------------------------------------------------------------------

    def resource_for(self, obj: dict[str, Any]) -> Resource:
        for res in self.resources.values():
            if res.group_version == obj.get("apiVersion") and res.kind == obj.get("kind"):
                return res
        raise ValueError(
            f"the fake server does not serve {obj.get('apiVersion')} {obj.get('kind')}"
        )

    def add(self, objects: Iterable[dict[str, Any]]) -> None:
        """Store objects, kept in etcd key order (namespace, name) within each resource."""
        touched = set()
        for obj in objects:
            res = self.resource_for(obj)
            item = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind")}
            meta = item.get("metadata") or {}
            key = (meta.get("namespace", "") if res.namespaced else "", meta.get("name", ""))
            encoded = json.dumps(item, separators=(",", ":")).encode()
            self._items[res.path].append((key, encoded))
            touched.add(res.path)
        for path in touched:
            self._items[path].sort(key=lambda kv: kv[0])

    # ---- lifecycle ----------------------------------------------------------------------

    def start(self) -> FakeApiServer:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        server.daemon_threads = True
        if self._tls is not None:
            server.socket = self._tls.wrap_socket(server.socket, server_side=True)
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, args=(0.05,),
                                        name="fake-apiserver", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeApiServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        scheme = "https" if self._tls is not None else "http"
        return f"{scheme}://127.0.0.1:{self.port}"

    def methods(self) -> set[str]:
        with self._lock:
            return {method for method, _ in self.requests}

    def paths(self) -> list[str]:
        """The paths requested so far (without query), in order."""
        with self._lock:
            return [urlsplit(path).path for _, path in self.requests]

    def write_kubeconfig(
        self,
        path: str | Path,
        *,
        token: str | None = None,
        context: str = "fake",
        server: str | None = None,
        extra_cluster: dict[str, Any] | None = None,
    ) -> Path:
        """A kubeconfig with one cluster/user/context pointing at this server (token auth)."""
        cluster: dict[str, Any] = {"server": server or self.url}
        cluster.update(extra_cluster or {})
        user: dict[str, Any] = {}
        tok = token if token is not None else self.token
        if tok is not None:
            user["token"] = tok
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "fake-cluster", "cluster": cluster}],
            "users": [{"name": "fake-user", "user": user}],
            "contexts": [
                {"name": context, "context": {"cluster": "fake-cluster", "user": "fake-user"}}
            ],
            "current-context": context,
        }
        target = Path(path)
        target.write_text(json.dumps(config, indent=2), encoding="utf-8")
        return target

    # ---- request handling ---------------------------------------------------------------

    def _record(self, method: str, path: str) -> None:
        with self._lock:
            self.requests.append((method, path))

    def handle(self, method: str, raw_path: str, headers: Any) -> tuple[int, bytes]:
        self._record(method, raw_path)
        parts = urlsplit(raw_path)
        path = parts.path.rstrip("/") or "/"
        query = parse_qs(parts.query)
        if self.token is not None and headers.get("Authorization") != f"Bearer {self.token}":
            return _json(401, status_body(401, "Unauthorized", "Unauthorized"))
        if method != "GET":
            return _json(405, status_body(405, "MethodNotAllowed",
                                          f"the fake server refuses {method}: wapctl is read-only"))
        if path in self.fail:
            code = self.fail[path]
            return _json(code, status_body(code, _REASONS.get(code, "InternalError"),
                                           f"injected failure {code} for {path}"))
        discovery = self._discovery(path)
        if discovery is not None:
            return _json(200, discovery)
        res = self.resources.get(path)
        if res is None:
            return _json(404, status_body(404, "NotFound",
                                          "the server could not find the requested resource"))
        if res.plural in self.forbidden:
            group = f'"{res.group}"'
            return _json(403, status_body(
                403, "Forbidden",
                f'{res.plural} is forbidden: User "{self.user}" cannot list resource '
                f'"{res.plural}" in API group {group} at the cluster scope',
                details={"kind": res.plural, "group": res.group}))
        if self.delay:
            time.sleep(self.delay)
        return self._list(res, query)

    def _list(self, res: Resource, query: dict[str, list[str]]) -> tuple[int, bytes]:
        items = self._items[res.path]
        start = 0
        token = query.get("continue", [""])[0]
        if token:
            with self._lock:
                expire = self.expire_continue > 0
                if expire:
                    self.expire_continue -= 1
            if expire:
                return _json(410, status_body(
                    410, "Expired",
                    "The provided continue parameter is too old to display a consistent list "
                    "result. You can start a new list without the continue parameter."))
            try:
                start = int(base64.urlsafe_b64decode(token.encode()).decode())
            except ValueError:
                return _json(400, status_body(400, "BadRequest", "invalid continue token"))
        limit_text = query.get("limit", ["0"])[0]
        limit = int(limit_text) if limit_text.isdigit() else 0
        end = len(items) if limit <= 0 else min(len(items), start + limit)
        meta: dict[str, Any] = {"resourceVersion": "4242"}
        if end < len(items):
            meta["continue"] = base64.urlsafe_b64encode(str(end).encode()).decode()
            meta["remainingItemCount"] = len(items) - end
        head = json.dumps({
            "kind": f"{res.kind}List",
            "apiVersion": res.group_version,
            "metadata": meta,
        }, separators=(",", ":")).encode()
        body = head[:-1] + b',"items":[' + b",".join(e for _, e in items[start:end]) + b"]}"
        return 200, body

    def _discovery(self, path: str) -> dict[str, Any] | None:
        if path == "/api":
            return {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [
                {"clientCIDR": "0.0.0.0/0", "serverAddress": f"127.0.0.1:{self.port}"}]}
        if path == "/apis":
            return {"kind": "APIGroupList", "apiVersion": "v1",
                    "groups": [self._group(g) for g in self._groups()]}
        pieces = path.split("/")
        if len(pieces) == 3 and pieces[1] == "api":
            return self._resource_list("", pieces[2])
        if len(pieces) == 3 and pieces[1] == "apis" and pieces[2] in self._groups():
            return self._group(pieces[2]) | {"kind": "APIGroup", "apiVersion": "v1"}
        if len(pieces) == 4 and pieces[1] == "apis":
            return self._resource_list(pieces[2], pieces[3])
        return None

    def _groups(self) -> list[str]:
        return sorted({r.group for r in self.resources.values() if r.group})

    def _versions(self, group: str) -> list[str]:
        found = {r.version for r in self.resources.values() if r.group == group}
        return sorted(found, key=lambda v: (v != "v1", v))

    def _group(self, group: str) -> dict[str, Any]:
        versions = [{"groupVersion": f"{group}/{v}", "version": v} for v in self._versions(group)]
        return {"name": group, "versions": versions, "preferredVersion": versions[0]}

    def _resource_list(self, group: str, version: str) -> dict[str, Any] | None:
        resources = [r for r in self.resources.values()
                     if r.group == group and r.version == version]
        if not resources:
            return None
        entries = []
        for r in sorted(resources, key=lambda r: r.plural):
            entries.append({"name": r.plural, "singularName": r.kind.lower(),
                            "namespaced": r.namespaced, "kind": r.kind,
                            "verbs": ["create", "delete", "get", "list", "patch", "update",
                                      "watch"]})
            entries.append({"name": f"{r.plural}/status", "singularName": "",
                            "namespaced": r.namespaced, "kind": r.kind,
                            "verbs": ["get", "patch", "update"]})
        gv = f"{group}/{version}" if group else version
        return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv,
                "resources": entries}


_REASONS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
            410: "Expired", 429: "TooManyRequests", 500: "InternalError",
            503: "ServiceUnavailable"}


def _json(code: int, doc: dict[str, Any]) -> tuple[int, bytes]:
    return code, json.dumps(doc).encode()


def _make_handler(fake: FakeApiServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the real server
        disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms stalls

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            code, body = fake.handle(self.command, self.path, self.headers)
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            if code in (301, 302, 303, 307, 308):  # an injected redirect, as a login proxy sends
                self.send_header("Location", "/login")
            accepts = self.headers.get("Accept-Encoding") or ""
            if fake.gzip_min_bytes is not None and len(body) >= fake.gzip_min_bytes \
                    and "gzip" in accepts:
                body = gzip.compress(body, compresslevel=1)
                self.send_header("Content-Encoding", "gzip")
                with fake._lock:
                    fake.gzipped += 1
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _serve

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


# ---- synthetic clusters (tests and the benchmark) ---------------------------------------


def synthetic_cluster(nodes: int, pods: int, *, namespaces: int = 20) -> list[dict[str, Any]]:
    """A deterministic cluster: nodes, pods spread round-robin over them, two classes, a PDB."""
    objects: list[dict[str, Any]] = [
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "low"}, "value": 100},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "high"}, "value": 1000, "preemptionPolicy": "PreemptLowerPriority"},
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
         "metadata": {"name": "web", "namespace": "ns-000"},
         "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
         "status": {"disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1,
                    "expectedPods": 2}},
    ]
    for n in range(nodes):
        name = f"node-{n:05d}"
        objects.append({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": f"uid-{name}", "resourceVersion": "1",
                         "creationTimestamp": "2025-01-01T00:00:00Z",
                         "labels": {"kubernetes.io/hostname": name,
                                    "kubernetes.io/os": "linux",
                                    "topology.kubernetes.io/zone": f"zone-{n % 3}"}},
            "spec": {"podCIDR": "10.0.0.0/24"},
            "status": {"capacity": {"cpu": "32", "memory": "128Gi", "pods": "110"},
                       "allocatable": {"cpu": "31500m", "memory": "125Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]},
        })
    for p in range(pods):
        ns = f"ns-{p % namespaces:03d}"
        name = f"pod-{p:06d}"
        node = f"node-{p % max(nodes, 1):05d}"
        objects.append({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "uid": f"uid-{ns}-{name}",
                         "resourceVersion": str(1000 + p),
                         "creationTimestamp": "2025-01-01T00:00:00Z",
                         "labels": {"app": "web" if p % 2 else "batch",
                                    "pod-template-hash": "5d9f8c7b6"},
                         "managedFields": [{"manager": "kube-controller-manager",
                                            "operation": "Update", "apiVersion": "v1",
                                            "fieldsType": "FieldsV1",
                                            "fieldsV1": {"f:metadata": {"f:labels": {}}}}]},
            "spec": {
                "nodeName": node,
                "priorityClassName": "low" if p % 3 else "high",
                "priority": 100 if p % 3 else 1000,
                "containers": [{"name": "main", "image": "registry.example/app:1.0",
                                "resources": {"requests": {"cpu": "250m", "memory": "512Mi"},
                                              "limits": {"memory": "1Gi"}}}],
                "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                                 "effect": "NoExecute", "tolerationSeconds": 300}],
            },
            "status": {"phase": "Running", "startTime": "2025-01-01T00:01:00Z",
                       "conditions": [{"type": "Ready", "status": "True"}]},
        })
    return objects


def main() -> None:  # pragma: no cover - manual use: python tests/fake_apiserver.py
    import argparse

    parser = argparse.ArgumentParser(description="Serve a synthetic cluster until Ctrl-C.")
    parser.add_argument("--nodes", type=int, default=10)
    parser.add_argument("--pods", type=int, default=100)
    parser.add_argument("--kubeconfig", default="fake-kubeconfig.json")
    args = parser.parse_args()
    with FakeApiServer(synthetic_cluster(args.nodes, args.pods)) as fake:
        fake.write_kubeconfig(args.kubeconfig)
        print(f"serving {fake.url}; kubeconfig written to {args.kubeconfig}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":  # pragma: no cover
    main()
