"""Read the cluster state from a live API server, read-only, as snapshot documents.

Live and file runs share one code path: every listed object becomes exactly the document a
``kubectl get ... -o json`` file gives (``apiVersion`` and ``kind`` filled in, which list items
lack; ``metadata.managedFields`` dropped, as kubectl hides them), and the loader takes it from
there. Only GET requests are ever sent: discovery plus paginated lists, retried (429/5xx with
Retry-After, broken connections) as ``wapctl.live_retry`` says, within one deadline for the
whole command.

The kubernetes client is imported inside the functions: it is slow to import, and commands that
read files must not pay for it. Its ApiClient does the config, auth and TLS work; the bodies are
decoded here with ``json.loads`` (much faster than model deserialization, and it keeps the exact
JSON shape the server sent).
"""

from __future__ import annotations

import json
import os
import re
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from wapctl import live_retry
from wapctl.errors import ClusterError, Source, UsageError
from wapctl.ingest import Document, Documents
from wapctl.live_retry import Broken, Reply, Retrier
from wapctl.model import LoadWarning

SCHEDULING_GROUP = "scheduling.k8s.io"
# The Workload API versions wapctl reads, newest first (issues 9, 26): the newest served one that
# has the resource wins (v1beta1 over every alpha, as the API server's own version priority).
WORKLOAD_VERSIONS = ("v1beta1", "v1alpha3", "v1alpha2", "v1alpha1")
RBAC_HINT = "fixtures/rbac/clusterrole.yaml"


@dataclass(frozen=True)
class ListTarget:
    """One collection to list: the kind its items get and the cluster-wide list path."""

    kind: str
    api_version: str
    path: str
    plural: str
    # A 403 on an optional collection is a warning with this code, not a failure.
    forbidden_warning: str | None = None


CORE_TARGETS = (
    ListTarget("PriorityClass", "scheduling.k8s.io/v1",
               "/apis/scheduling.k8s.io/v1/priorityclasses", "priorityclasses"),
    ListTarget("Node", "v1", "/api/v1/nodes", "nodes"),
    # Namespace labels only feed pod affinity namespaceSelectors: without them the run goes on.
    ListTarget("Namespace", "v1", "/api/v1/namespaces", "namespaces",
               forbidden_warning="NamespacesUnreadable"),
)
LATE_TARGETS = (
    ListTarget("PodDisruptionBudget", "policy/v1", "/apis/policy/v1/poddisruptionbudgets",
               "poddisruptionbudgets"),
    ListTarget("Pod", "v1", "/api/v1/pods", "pods"),
)


# Larger timeouts overflow the platform's time_t in the HTTP stack (1e12 does); 0 means none.
MAX_REQUEST_TIMEOUT = 1e6


def fetch_documents(
    *,
    kubeconfig: str | None,
    context: str | None,
    request_timeout: float,
    page_size: int,
    progress: bool,
    notify: Callable[[str], None] | None = None,
) -> Documents:
    """List Nodes, Namespaces, Pods, PriorityClasses, PodDisruptionBudgets, Workloads and
    PodGroups; the result's ``server_version`` is the ``gitVersion`` of ``GET /version`` (None
    if unreadable), its ``warnings`` say what was skipped (403 on Namespaces).

    Config: ``kubeconfig``, else ``$KUBECONFIG``, else ``~/.kube/config``, else the in-cluster
    service account. ``request_timeout`` is one deadline for every request and retry
    (``wapctl.live_retry``; 0: none); ``notify`` gets one line per retry or restarted list.
    Raises ClusterError (exit 4) with one line naming the server and what failed.
    """
    if not 0 <= request_timeout <= MAX_REQUEST_TIMEOUT:  # NaN fails both comparisons
        raise UsageError(
            f"--request-timeout must be from 0 to {MAX_REQUEST_TIMEOUT:g} seconds "
            f"(0 waits forever), got {request_timeout:g}"
        )
    if page_size < 1:
        raise UsageError("--page-size must be at least 1")
    cfg, who, tls = _client_configuration(kubeconfig, context)
    api = HttpGet(cfg, who, Retrier(request_timeout, notify=notify,
                                     policy=live_retry.DEFAULT_POLICY), tls)
    try:
        with warnings.catch_warnings():
            # insecure-skip-tls-verify is the kubeconfig's explicit choice: no warning per page.
            warnings.filterwarnings("ignore", message="Unverified HTTPS request")
            api.probe()
            documents = Documents()
            documents.server_version = api.server_version()
            targets = [*CORE_TARGETS, *api.workload_targets(), *LATE_TARGETS]
            with _progress(progress) as bar:
                for target in targets:
                    documents.extend(api.list_all(target, page_size, bar))
            documents.warnings = tuple(api.warnings)
            return documents
    finally:
        api.close()


# ---- configuration ------------------------------------------------------------------------


@dataclass(frozen=True)
class TlsSetup:
    """What the kubeconfig says about TLS, in its own words, for failure messages."""

    ca: str | None = None  # "certificate-authority /path" or "certificate-authority-data"
    client_cert: str | None = None  # "client-certificate /path", "client-certificate-data"
    server_name: str | None = None  # tls-server-name


def _tls_setup(cfg: Any, cluster: Any, user: Any) -> TlsSetup:
    def has(node: Any, key: str) -> bool:
        try:
            return node is not None and key in node and bool(node[key])
        except Exception:  # a malformed section: the loader has reported it already
            return False

    if has(cluster, "certificate-authority-data"):
        ca: str | None = "certificate-authority-data"
    elif has(cluster, "certificate-authority"):
        ca = f"certificate-authority {cfg.ssl_ca_cert or cluster['certificate-authority']}"
    else:
        ca = None
    if has(user, "client-certificate-data"):
        client: str | None = "client-certificate-data"
    elif has(user, "client-certificate"):
        client = f"client-certificate {cfg.cert_file or user['client-certificate']}"
    elif getattr(cfg, "cert_file", None):
        client = f"client certificate {cfg.cert_file} (from the exec plugin)"
    else:
        client = None
    return TlsSetup(ca, client, getattr(cfg, "tls_server_name", None) or None)


def _resolve_kubeconfig(explicit: str | None) -> str | None:
    """The kubeconfig path(s) to load, or None for the in-cluster config."""
    if explicit:
        path = os.path.expanduser(explicit)
        if not os.path.isfile(path):
            raise ClusterError(f"kubeconfig {explicit}: no such file")
        return path
    env = os.environ.get("KUBECONFIG", "")
    if env:
        paths = [os.path.expanduser(p) for p in env.split(os.pathsep) if p]
        existing = [p for p in paths if os.path.isfile(p)]
        if not existing:
            raise ClusterError(f"$KUBECONFIG names no existing file ({env})")
        return os.pathsep.join(existing)
    default = os.path.expanduser(os.path.join("~", ".kube", "config"))
    return default if os.path.isfile(default) else None


def _context_names(config: Any) -> list[str]:
    contexts = config.value.get("contexts") if isinstance(config.value, dict) else None
    names = []
    for entry in contexts or []:
        value = getattr(entry, "value", entry)
        if isinstance(value, dict) and isinstance(value.get("name"), str):
            names.append(value["name"])
    return names


def _client_configuration(
    kubeconfig: str | None, context: str | None
) -> tuple[Any, str, TlsSetup]:
    """A kubernetes client Configuration, a phrase naming whose credentials it carries, and
    what the configuration says about TLS."""
    from kubernetes.client import Configuration
    from kubernetes.config.config_exception import ConfigException
    from urllib3.util import Retry

    cfg = type.__call__(Configuration)  # a fresh one, never the process-wide default
    path = _resolve_kubeconfig(kubeconfig)
    if path is None:
        if context:
            raise ClusterError(
                f"--context {context}: no kubeconfig found (--kubeconfig, $KUBECONFIG, "
                "~/.kube/config)"
            )
        if not os.environ.get("KUBERNETES_SERVICE_HOST"):
            raise ClusterError(
                "no cluster to read: no --kubeconfig, $KUBECONFIG is unset, ~/.kube/config does "
                "not exist and wapctl is not running inside a cluster (give snapshot files to "
                "work offline)"
            )
        from kubernetes.config.incluster_config import load_incluster_config

        try:
            load_incluster_config(client_configuration=cfg)
        except (ConfigException, OSError) as exc:
            raise ClusterError(f"in-cluster config: {exc}") from None
        who = "the pod's service account"
        tls = TlsSetup(ca=f"service account CA {cfg.ssl_ca_cert}")
    else:
        who, tls = _load_kubeconfig(cfg, path, context)
    # No retries inside urllib3 (wapctl.live_retry makes them, within the deadline, and says
    # so); never follow redirects.
    cfg.retries = Retry(total=0, redirect=0, respect_retry_after_header=False)
    return cfg, who, tls


def _load_kubeconfig(cfg: Any, path: str, context: str | None) -> tuple[str, TlsSetup]:
    from kubernetes.config import kube_config
    from kubernetes.config.config_exception import ConfigException

    try:
        merger = kube_config.KubeConfigMerger(path)
        merged = merger.config
    except Exception as exc:
        raise ClusterError(f"kubeconfig {path}: cannot read it: {_one_line(exc)}") from None
    if merged is None:
        raise ClusterError(f"kubeconfig {path}: no configuration found (empty file?)")
    names = _context_names(merged)
    listed = ", ".join(names) if names else "none"
    if context is not None and context not in names:
        raise ClusterError(f"kubeconfig {path}: no context named {context!r} (contexts: {listed})")
    if context is None:
        current = _current_context(merger)
        if not current:
            raise ClusterError(
                f"kubeconfig {path}: no current-context; pass --context (contexts: {listed})"
            )
        if current not in names:
            raise ClusterError(
                f"kubeconfig {path}: current-context {current!r} is not defined "
                f"(contexts: {listed})"
            )
        context = str(current)
    cfg.host = ""  # so a cluster entry without a server is caught, not sent to a default
    try:
        # No config_persister: wapctl never rewrites the user's kubeconfig.
        loader = kube_config.KubeConfigLoader(
            config_dict=merged, active_context=context, config_base_path=None
        )
        loader.load_and_set(cfg)
    except ConfigException as exc:
        raise ClusterError(f"kubeconfig {path}, context {context!r}: {_one_line(exc)}") from None
    except Exception as exc:
        raise ClusterError(
            f"kubeconfig {path}, context {context!r}: invalid: {type(exc).__name__}: "
            f"{_one_line(exc)}"
        ) from None
    if not getattr(cfg, "host", None):
        raise ClusterError(f"kubeconfig {path}, context {context!r}: the cluster has no server")
    tls = _tls_setup(cfg, getattr(loader, "_cluster", None), getattr(loader, "_user", None))
    return f"context {context!r}", tls


def _current_context(merger: Any) -> Any:
    """The first current-context set along the $KUBECONFIG list, as kubectl takes it (the
    client's merger would keep the last one)."""
    files = getattr(merger, "config_files", None) or {}
    for path in getattr(merger, "paths", None) or []:
        config = files.get(path)
        if isinstance(config, dict) and config.get("current-context"):
            return config["current-context"]
    value = merger.config.value
    return value.get("current-context") if isinstance(value, dict) else None


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


# ---- requests -----------------------------------------------------------------------------


class HttpGet:
    """GET requests through the kubernetes ApiClient, every failure mapped to ClusterError."""

    def __init__(self, cfg: Any, who: str, retrier: Retrier,
                 tls: TlsSetup | None = None) -> None:
        from kubernetes.client import ApiClient

        from wapctl import __version__

        self.server = str(cfg.host).rstrip("/")
        self.who = who
        self.tls = tls or TlsSetup()
        self.retrier = retrier
        self.retried = ""  # why the last request's retriable answer was not retried again
        self.api = ApiClient(configuration=cfg)
        self.api.user_agent = f"wapctl/{__version__}"
        self.warnings: list[LoadWarning] = []

    def close(self) -> None:
        close = getattr(self.api, "close", None)
        if close is not None:
            close()

    def fail(self, text: str) -> ClusterError:
        return ClusterError(f"cluster {self.server}: {text}")

    def raw(self, path: str, query: list[tuple[str, Any]] | None = None) -> tuple[int, bytes]:
        """(status, body) of ``GET path?query``, retried as ``wapctl.live_retry`` says; network,
        TLS and auth-setup errors raise."""
        reply = self.retrier.get(path, lambda timeout: self._attempt(path, query, timeout),
                                 self.fail)
        self.retried = reply.retried
        return reply.status, reply.body

    def _attempt(self, path: str, query: list[tuple[str, Any]] | None,
                 timeout: float | None) -> Reply:
        """One ``GET path?query`` allowed ``timeout`` seconds; Broken when worth retrying."""
        import urllib3
        from kubernetes.client.exceptions import ApiException
        from kubernetes.config.config_exception import ConfigException

        headers = {"Accept": "application/json", "Accept-Encoding": "gzip"}
        try:
            if hasattr(self.api, "param_serialize"):  # clients from the newer OpenAPI generator
                request = self.api.param_serialize(
                    method="GET", resource_path=path, query_params=query or [],
                    header_params=headers, auth_settings=["BearerToken"],
                )
                resp = self.api.call_api(*request, _request_timeout=timeout).response
            else:  # older clients (untested here): call_api(..., _preload_content=False)
                resp = self.api.call_api(
                    path, "GET", query_params=query or [], header_params=headers,
                    auth_settings=["BearerToken"], _preload_content=False,
                    _return_http_data_only=True, _request_timeout=timeout,
                )  # type: ignore[call-arg]  # the older generator's signature
            body = self._read(resp, path)
            release = getattr(resp, "release_conn", None)
            if release is not None:
                release()
        except ApiException as exc:
            if not exc.status:  # the client's wrapping of an SSL error
                raise self.fail(_tls_text(str(exc.reason or exc), self.server, self.tls)) from None
            body = exc.body if isinstance(exc.body, bytes) else str(exc.body or "").encode()
            return Reply(int(exc.status), body, exc.headers or {})
        except urllib3.exceptions.HTTPError as exc:
            text = self._network_text(exc, path)
            broken = live_retry.broken_cause(exc)
            if broken is not None:
                raise Broken(text, broken[0], refused=broken[1]) from None
            raise self.fail(text) from None
        except ConfigException as exc:  # refreshing credentials (exec plugin, OIDC) failed
            raise self.fail(f"cannot get credentials for {self.who}: {_one_line(exc)}") from None
        return Reply(int(resp.status), body, resp.headers)

    def _read(self, resp: Any, path: str) -> bytes:
        """The whole (decompressed) body, read within the deadline."""
        chunks = []
        for chunk in resp.stream(1 << 20, decode_content=True):
            chunks.append(chunk)
            if self.retrier.expired():
                resp.close()
                raise self.fail(self.retrier.out_of_time(path, "reading the answer to"))
        return b"".join(chunks)

    def _network_text(self, exc: Exception, path: str) -> str:
        from urllib3 import exceptions as ue

        reason: Any = exc
        if isinstance(exc, ue.MaxRetryError) and exc.reason is not None:
            reason = exc.reason
        detail = _one_line(reason)
        match = re.search(r"\[Errno -?\d+\] ([^)'\"]+)", detail)
        cause = match.group(1).strip() if match else detail
        if isinstance(reason, ue.NameResolutionError):
            return f"cannot resolve the server's host name ({cause})"
        if isinstance(reason, ue.NewConnectionError):
            return f"cannot connect: {cause.lower()}"
        if isinstance(reason, ue.ConnectTimeoutError):
            return f"cannot connect: {self.retrier.out_of_time(path, 'connecting for')}"
        if isinstance(reason, (ue.ReadTimeoutError, ue.TimeoutError)):
            return self.retrier.out_of_time(path)
        if isinstance(reason, ue.SSLError):
            return _tls_text(detail, self.server, self.tls)
        if isinstance(reason, ue.ProxyError):
            return f"proxy error: {detail}"
        if isinstance(reason, ue.ResponseError) and "redirect" in detail:
            return (
                f"GET {path} was redirected (an authenticating proxy or a login page?); "
                "point the kubeconfig at the API server itself"
            )
        if isinstance(reason, ue.ProtocolError):
            broken = live_retry.broken_cause(reason)
            return f"the connection broke during GET {path}: {broken[0] if broken else detail}"
        return f"GET {path} failed: {detail}"

    def json(self, path: str, query: list[tuple[str, Any]] | None = None,
             *, what: str) -> tuple[int, Any]:
        status, body = self.raw(path, query)
        if status != 200:
            return status, body
        try:
            return status, json.loads(body)
        except ValueError:
            raise self.fail(
                f"GET {path} did not return JSON (is {self.server} a Kubernetes API server?)"
            ) from None

    def status_error(self, status: int, body: Any, path: str, what: str) -> ClusterError:
        message = ""
        if isinstance(body, (bytes, str)):
            try:
                doc = json.loads(body)
            except ValueError:
                doc = None
            if isinstance(doc, dict) and doc.get("kind") == "Status":
                message = _one_line(Exception(doc.get("message") or ""))
        suffix = f": {message}" if message else ""
        retried = f"; {self.retried}" if self.retried else ""
        if status == 401:
            return self.fail(
                f"401 Unauthorized: the server rejected the credentials of {self.who} "
                f"(GET {path}); they may be wrong or expired"
            )
        if status == 403:
            return self.fail(
                f"403 Forbidden: not allowed to list {what} (GET {path}){suffix}; a read-only "
                f"user needs the ClusterRole in {RBAC_HINT}"
            )
        if status == 404:
            return self.fail(f"404 Not Found: GET {path}: the server does not serve {what}")
        if status == 410:
            return self.fail(f"410 Gone: the list of {what} expired while paging (GET {path})")
        if status == 429:
            return self.fail(f"429 Too Many Requests: the server throttles GET {path}{suffix}"
                             f"{retried}")
        return self.fail(f"HTTP {status} for GET {path}{suffix}{retried}")

    # ---- discovery ------------------------------------------------------------------------

    def probe(self) -> None:
        """GET /api: reachable, authenticated, and really a Kubernetes API server."""
        status, doc = self.json("/api", what="the core API")
        if status == 404:
            raise self.fail("GET /api: 404 Not Found: this is not a Kubernetes API server")
        if status != 200:
            raise self.status_error(status, doc, "/api", "the core API")
        if not isinstance(doc, dict) or "v1" not in (doc.get("versions") or []):
            raise self.fail("GET /api did not list v1: this is not a Kubernetes API server")

    def server_version(self) -> str | None:
        """``gitVersion`` of ``GET /version`` ("v1.36.2"); None when the server does not say
        (it is informative only: a failure here does not stop the listing)."""
        status, body = self.raw("/version")
        try:
            doc = json.loads(body) if status == 200 else None
        except ValueError:
            doc = None
        version = doc.get("gitVersion") if isinstance(doc, dict) else None
        return version if isinstance(version, str) and version else None

    def workload_targets(self) -> list[ListTarget]:
        """Workloads and PodGroups in the newest served version that has each of them.

        A cluster without the Workload API (group or version not served, 404) has none.
        """
        status, doc = self.json("/apis", what="the API groups")
        if status != 200:
            raise self.status_error(status, doc, "/apis", "the API groups")
        served: set[str] = set()
        for group in (doc.get("groups") or []) if isinstance(doc, dict) else []:
            if isinstance(group, dict) and group.get("name") == SCHEDULING_GROUP:
                for entry in group.get("versions") or []:
                    if isinstance(entry, dict) and isinstance(entry.get("version"), str):
                        served.add(entry["version"])
        found: dict[str, ListTarget] = {}
        for version in WORKLOAD_VERSIONS:
            if version not in served or len(found) == 2:
                continue
            path = f"/apis/{SCHEDULING_GROUP}/{version}"
            status, resources = self.json(path, what=f"{SCHEDULING_GROUP}/{version}")
            if status == 404:
                continue  # stale discovery: the version is gone; fine
            if status != 200:
                raise self.status_error(status, resources, path, f"{SCHEDULING_GROUP}/{version}")
            entries = resources.get("resources") if isinstance(resources, dict) else None
            for entry in entries or []:
                if not isinstance(entry, dict):
                    continue
                name, kind = entry.get("name"), entry.get("kind")
                if (kind in ("Workload", "PodGroup") and kind not in found
                        and isinstance(name, str) and "/" not in name):
                    found[kind] = ListTarget(kind, f"{SCHEDULING_GROUP}/{version}",
                                             f"{path}/{name}", name)
        return [found[k] for k in ("Workload", "PodGroup") if k in found]

    # ---- lists ----------------------------------------------------------------------------

    def list_all(self, target: ListTarget, page_size: int, bar: _Bar) -> list[Document]:
        """Every item of the collection, page by page (``limit`` / ``continue``).

        An expired continue token (410) restarts the list once without a limit, as client-go's
        pager does (``tools/pager/pager.go`` ``List`` with ``FullListIfExpired``), and says so
        through ``notify``. Every page must carry the first page's
        ``metadata.resourceVersion`` (a retried page is asked for with the same continue token,
        which pins it): the result is one consistent list, never pages of two versions, or a
        ClusterError saying which pages differ.
        """
        file = f"{self.server}{target.path}"
        limit: int | None = page_size
        restarted = False
        documents: list[Document] = []
        token: str | None = None
        page = 0
        version: Any = None
        task = bar.add(target.plural)
        while True:
            query: list[tuple[str, Any]] = []
            if limit is not None:
                query.append(("limit", limit))
            if token:
                query.append(("continue", token))
            status, doc = self.json(target.path, query, what=target.plural)
            if status == 410 and token and not restarted:
                self.retrier.note(f"restarting the list GET {target.path} in one request: its "
                                  "continue token expired (410 Gone)")
                restarted, limit, token, page, documents = True, None, None, 0, []
                bar.reset(task)
                continue
            optional = target.kind in ("Workload", "PodGroup")
            if status == 404 and optional and page == 0:
                break  # the Workload API vanished since discovery: no workloads
            if status == 403 and target.forbidden_warning and page == 0:
                self.warnings.append(LoadWarning(
                    code=target.forbidden_warning, object=f"{target.kind}s", field=None,
                    message=f"403 Forbidden: not allowed to list {target.plural} (GET "
                    f"{target.path}); namespaceSelectors see only each namespace's name "
                    f"label; the ClusterRole in {RBAC_HINT} grants it",
                    source=file))
                break
            if status != 200:
                raise self.status_error(status, doc, target.path, target.plural)
            page += 1
            meta = self._add_page(doc, target, page, documents)
            if page == 1:
                version = meta.get("resourceVersion")
            elif meta.get("resourceVersion") != version:
                raise self.fail(
                    f"GET {target.path}: page {page} is of resourceVersion "
                    f"{_version_text(meta.get('resourceVersion'))} but page 1 of "
                    f"{_version_text(version)}: the pages do not make one consistent list")
            next_token = meta.get("continue") or None
            remaining = meta.get("remainingItemCount")
            if not next_token:
                total: int | None = len(documents)
            else:
                total = len(documents) + remaining if isinstance(remaining, int) else None
            bar.update(task, len(documents), total)
            if not next_token:
                return documents
            if next_token == token:
                raise self.fail(f"GET {target.path}: the server returned the same continue "
                                "token twice")
            token = str(next_token)
        bar.update(task, 0, 0)
        return documents

    def _add_page(self, doc: Any, target: ListTarget, page: int,
                  documents: list[Document]) -> dict[str, Any]:
        """Append the page's items to ``documents``; the page's list metadata."""
        items = doc.get("items") if isinstance(doc, dict) else None
        if not isinstance(items, list) and not (isinstance(doc, dict) and items is None):
            raise self.fail(f"GET {target.path} did not return a list")
        file = f"{self.server}{target.path}"
        for index, item in enumerate(items or []):
            if not isinstance(item, dict):
                raise self.fail(f"GET {target.path}: page {page} item {index} is not an object")
            documents.append(Document(Source(file, page, index), _as_document(item, target)))
        meta = doc.get("metadata")
        return meta if isinstance(meta, dict) else {}


def _version_text(version: Any) -> str:
    return str(version) if isinstance(version, str) and version else "(none)"


def _as_document(item: dict[str, Any], target: ListTarget) -> dict[str, Any]:
    """The object as ``kubectl get -o json`` prints it: apiVersion and kind first, no
    managedFields."""
    meta = item.get("metadata")
    if isinstance(meta, dict) and "managedFields" in meta:
        del meta["managedFields"]
    doc = {"apiVersion": target.api_version, "kind": target.kind, **item}
    if "kind" in item or "apiVersion" in item:  # items of built-in lists have neither
        doc["apiVersion"], doc["kind"] = target.api_version, target.kind
    return doc


_CLIENT_CERT_REJECTED = ("UNKNOWN_CA", "BAD_CERTIFICATE", "CERTIFICATE_UNKNOWN",
                         "ACCESS_DENIED", "DECRYPT_ERROR", "UNSUPPORTED_CERTIFICATE",
                         "CERTIFICATE_EXPIRED", "CERTIFICATE_REVOKED")
_HANDSHAKE_ENDED = ("CERTIFICATE_REQUIRED", "HANDSHAKE_FAILURE", "EOF occurred in violation",
                    "UNEXPECTED_EOF", "Connection reset")


def _tls_text(detail: str, server: str = "", tls: TlsSetup | None = None) -> str:
    """A TLS failure in terms of this kubeconfig: which of its settings does not fit."""
    from urllib.parse import urlsplit

    tls = tls or TlsSetup()
    text = " ".join(detail.split())
    match = re.search(r"\[SSL: [A-Z0-9_]+\] ([^(]+)", text)
    cause = match.group(1).strip() if match else text
    if "WRONG_VERSION_NUMBER" in text or "record layer failure" in text:
        return f"TLS failure: {cause} (the server does not speak TLS here: is it plain http?)"
    if "Hostname mismatch" in text or "IP address mismatch" in text:
        name = tls.server_name or urlsplit(server).hostname or server
        return (
            f"TLS failure: the server's certificate is not valid for {name} (hostname "
            "mismatch); put a name the certificate carries in the cluster's server URL, or set "
            "tls-server-name in the kubeconfig"
        )
    if "CERTIFICATE_VERIFY_FAILED" in text:
        why = re.search(r"certificate verify failed: ([^(]+)", text)
        reason = why.group(1).strip() if why else cause
        if "expired" in reason:
            return f"TLS failure: certificate verify failed: {reason}: the server's " \
                "certificate has expired"
        if tls.ca is None:
            return (
                f"TLS failure: certificate verify failed: {reason}: the kubeconfig sets no "
                "certificate-authority for this cluster and the system's CAs do not trust the "
                "server; add the cluster's CA as certificate-authority(-data)"
            )
        return (
            f"TLS failure: certificate verify failed: {reason}: the kubeconfig's {tls.ca} did "
            "not sign the server's certificate (is it this cluster's CA?)"
        )
    if "ALERT" in text and any(a in text for a in _CLIENT_CERT_REJECTED):
        if tls.client_cert is not None:
            return (
                f"TLS failure: the server rejected the kubeconfig's {tls.client_cert} "
                f"({cause}): is it signed by a CA this cluster trusts?"
            )
        return f"TLS failure: the server ended the handshake ({cause})"
    if any(a in text for a in _HANDSHAKE_ENDED):
        if tls.client_cert is None:
            return (
                f"TLS failure: the server ended the handshake ({cause}); it likely requires a "
                "client certificate, and the kubeconfig's user has no client-certificate"
            )
        return (
            f"TLS failure: the server ended the handshake ({cause}); it may have rejected the "
            f"kubeconfig's {tls.client_cert}: is it signed by a CA this cluster trusts?"
        )
    return f"TLS failure: {cause}"


# ---- progress -----------------------------------------------------------------------------


class _Bar:
    """A Rich progress display on stderr, one line per collection; silent when disabled."""

    def __init__(self, enabled: bool) -> None:
        self._progress: Any = None
        if enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self._progress = Progress(
                TextColumn("listing {task.description:<22}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )

    def add(self, description: str) -> Any:
        return self._progress.add_task(description, total=None) if self._progress else None

    def update(self, task: Any, completed: int, total: int | None) -> None:
        if self._progress is not None:
            self._progress.update(task, completed=completed, total=total)

    def reset(self, task: Any) -> None:
        if self._progress is not None:
            self._progress.reset(task, total=None)


@contextmanager
def _progress(enabled: bool) -> Iterator[_Bar]:
    bar = _Bar(enabled)
    if bar._progress is not None:
        bar._progress.start()
    try:
        yield bar
    finally:
        if bar._progress is not None:
            bar._progress.stop()
