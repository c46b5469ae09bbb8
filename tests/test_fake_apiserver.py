"""The fake API server answers as the real Kubernetes v1.36.2 API server did.

``tests/data/k8s-1.36/responses.json`` (and ``responses-410.json``) index every request recorded
from a real kube-apiserver v1.36.2 with its status, every response header and the body file.
Each request is replayed here against ``FakeApiServer.recorded()`` (the recorded cluster
itself) and the answer must be the same: status and reason phrase, header names in order, header
values (``Audit-Id`` only as a UUID and ``Date`` only as an HTTP date: they differ on every
answer), chunked vs ``Content-Length`` framing, and the body byte for byte (``/api`` names the
server's own address, so the recorded port is put in its place).

Not replayed, each for its stated reason (``NOT_REPLAYED``): the OpenAPI documents and the
aggregated discovery (wapctl reads neither and the fake does not serve them).
"""

from __future__ import annotations

import http.client
import json
import re
from pathlib import Path
from typing import Any

import pytest
from fake_apiserver import (
    RECORDED,
    FakeApiServer,
    continue_token,
    decode_continue,
    go_json,
    recorded_bytes,
    recorded_objects,
    to_v1alpha3,
)

from wapctl import live

ADMIN, NOBODY = "admin-token", "nobody-token"
RECORDED_PORT = 26443
NOT_REPLAYED = {
    "/openapi/v3": "OpenAPI is not read by wapctl; the fake does not serve it",
    "/openapi/v3/apis/scheduling.k8s.io/v1alpha2": "OpenAPI is not read by wapctl",
}
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
HTTP_DATE = re.compile(r"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d [A-Z][a-z]{2} \d{4} "
                       r"\d\d:\d\d:\d\d GMT$")


def _entries(index: str) -> list[dict[str, Any]]:
    entries = json.loads((RECORDED / index).read_text(encoding="utf-8"))
    kept = []
    for entry in entries:
        path = entry["request"]["path"].split("?")[0]
        accept = entry["request"]["headers"].get("Accept", "")
        if path in NOT_REPLAYED or "apidiscovery" in accept:
            continue
        kept.append(entry)
    return kept


RESPONSES = _entries("responses.json")
RESPONSES_410 = _entries("responses-410.json")


def _request(fake: FakeApiServer, entry: dict[str, Any]) -> http.client.HTTPResponse:
    tokens = {"admin": ADMIN, "nobody": NOBODY, "wrong": "wrong-token", "none": None}
    headers = {"Accept": "application/json", "User-Agent": "realk8s-recorder/1.0"}
    token = tokens[entry["request"]["as"]]
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    conn = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=10)
    conn.request(entry["request"]["method"], entry["request"]["path"], headers=headers)
    return conn.getresponse()


def _recorded_body(entry: dict[str, Any]) -> bytes | None:
    if entry.get("file"):
        return recorded_bytes(entry["file"])
    # Repeated requests name no file: their body is that of the same path's first entry.
    for other in RESPONSES:
        if other["request"]["path"].split("?")[0] == entry["request"]["path"].split("?")[0] \
                and other.get("file") and other["status"] == entry["status"] \
                and other["bodyBytes"] == entry["bodyBytes"]:
            return recorded_bytes(other["file"])
    return None


def _compare(fake: FakeApiServer, entry: dict[str, Any]) -> None:
    resp = _request(fake, entry)
    body = resp.read()
    where = f"{entry['request']['as']} GET {entry['request']['path']}"
    assert (entry["status"], entry["reason"]) == (resp.status, resp.reason), where
    got = [(name, value) for name, value in resp.getheaders()]
    assert [n for n, _ in entry["headers"]] == [n for n, _ in got], where
    for (name, want), (_, value) in zip(entry["headers"], got, strict=True):
        if name == "Audit-Id":
            assert UUID.match(value), (where, value)
        elif name == "Date":
            assert HTTP_DATE.match(value), (where, value)
        else:
            assert want == value, (where, name)
    expected = _recorded_body(entry)
    assert expected is not None, where
    if entry["request"]["path"] == "/api":
        body = body.replace(f"127.0.0.1:{fake.port}".encode(),
                            f"127.0.0.1:{RECORDED_PORT}".encode())
    assert expected == body, where
    assert entry["bodyBytes"] == len(body), where


@pytest.fixture(scope="module")
def recorded_server() -> Any:
    with FakeApiServer.recorded(token=ADMIN, users={NOBODY: "nobody"}) as fake:
        yield fake


@pytest.mark.parametrize("entry", RESPONSES,
                         ids=[f"{e['status']}-{e['request']['as']}-{e['request']['path'][:60]}"
                              for e in RESPONSES])
def test_every_recorded_response_is_replayed_exactly(recorded_server, entry):
    """Status, headers and body of each recorded request (discovery, lists and every page of a
    limit=5 list, errors) are what the real v1.36.2 server sent."""
    _compare(recorded_server, entry)


def test_the_recorded_responses_cover_what_wapctl_meets():
    """The replay is not vacuous: it covers discovery, a 6-page list, 401/403/404/400 and the
    text/plain 404, all but the explicitly excluded requests."""
    statuses = {e["status"] for e in RESPONSES}
    assert {200, 400, 401, 403, 404} <= statuses
    assert 6 == sum(bool(re.search(r"[?&]limit=5(&|$)", e["request"]["path"]))
                    and e["status"] == 200 for e in RESPONSES)
    assert len(RESPONSES) >= 40


def test_expired_continue_answers_410_with_a_fresh_token():
    """After compaction (rv 390 listed, continued later) the server answers 410 Expired with a
    continue token of rv -1 from the same key, exactly as recorded."""
    first, expired = RESPONSES_410
    with FakeApiServer.recorded(token=ADMIN, resource_version=390) as fake:
        _compare(fake, first)
        fake.expire_continue = 1
        _compare(fake, expired)


def test_expired_fault_on_page_3_is_the_recorded_410():
    """inject(..., "expired", page=3) answers page 3 with the recorded 410 Expired (same body
    as the expire_continue knob: a fresh rv -1 token from page 3's start key)."""
    first, expired = RESPONSES_410
    with FakeApiServer.recorded(token=ADMIN, resource_version=390) as fake:
        fault = fake.inject("/api/v1/pods", "expired", page=2)
        _compare(fake, first)
        _compare(fake, expired)  # the recorded continue is page 2 of limit=5
        assert 1 == fault.hits


_GO_ERROR_HEADERS = ["Audit-Id", "Cache-Control", "Content-Type", "Date", "Content-Length"]


@pytest.mark.parametrize(("kind", "status", "reason", "names", "ctype", "body"), [
    # server/filters/maxinflight.go tooManyRequests: Retry-After, then Go's http.Error
    # (text/plain; charset=utf-8, nosniff, the text and a newline)
    ("throttle", 429, "Too Many Requests",
     ["Audit-Id", "Cache-Control", "Content-Type", "Retry-After", "X-Content-Type-Options",
      "Date", "Content-Length"], "text/plain; charset=utf-8",
     b"Too many requests, please try again later.\n"),
    # server/filters/waitgroup.go waitGroupWriteRetryAfterToResponse: NewServiceUnavailable's
    # Status through json.Encoder (ends in a newline), then the appended newline
    ("shutting-down", 503, "Service Unavailable",
     ["Audit-Id", "Cache-Control", "Content-Type", "Retry-After", "X-Content-Type-Options",
      "Date", "Content-Length"], "application/json",
     b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":'
     b'"apiserver is shutting down","reason":"ServiceUnavailable","code":503}\n\n'),
    # responsewriters/status.go convertStorageErrorOrNot: 500, reason unknown (omitted)
    ("internal", 500, "Internal Server Error", _GO_ERROR_HEADERS, "application/json",
     b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":'
     b'"etcdserver: leader changed","code":500}\n'),
])
def test_status_faults_answer_as_the_apiserver_filters_do(kind, status, reason, names, ctype,
                                                          body):
    """Status, reason phrase, header names in Go's order (sorted, then Date and the framing),
    Retry-After and body of each injected answer, as the upstream code writes them."""
    with FakeApiServer(token=ADMIN) as fake:
        fault = fake.inject("/api/v1/pods", kind, retry_after="3")
        entry = {"request": {"as": "admin", "method": "GET", "path": "/api/v1/pods?limit=5"}}
        resp = _request(fake, entry)
        got = resp.read()
        assert (status, reason) == (resp.status, resp.reason)
        assert names == [name for name, _ in resp.getheaders()]
        assert ctype == resp.getheader("Content-Type")
        assert ("3" if "Retry-After" in names else None) == resp.getheader("Retry-After")
        assert body == got
        assert str(len(body)) == resp.getheader("Content-Length")
        assert 1 == fault.hits
        assert 200 == _request(fake, entry).status  # times=1: the next request is served


def test_faults_hit_only_their_page_and_count():
    """A fault for page 3 of limit=5 lists leaves pages 1, 2 and 4 alone; times=None hits
    every matching request."""
    with FakeApiServer.recorded(token=ADMIN) as fake:
        fault = fake.inject("/api/v1/pods", "internal", page=3, times=None)
        token: str | None = None
        statuses = []
        for _ in range(4):
            path = "/api/v1/pods?limit=5" + (f"&continue={token}" if token else "")
            resp = _request(fake, {"request": {"as": "admin", "method": "GET", "path": path}})
            statuses.append(resp.status)
            doc = json.loads(resp.read())
            if resp.status == 200:
                token = doc["metadata"]["continue"]
        # page 3 fails every time, so the client stays on it
        assert [200, 200, 500, 500] == statuses
        assert 2 == fault.hits


def test_go_json_is_byte_exact_for_every_recorded_body():
    """Re-encoding any recorded JSON body gives its exact bytes (the fake encodes as Go)."""
    checked = 0
    for path in sorted(RECORDED.rglob("*.json")):
        rel = path.relative_to(RECORDED).as_posix()
        if rel.startswith("responses") or rel in ("version.json", "errors/404-unknown-group.json"):
            continue
        if rel.startswith("events/") and rel.count("/") == 2:
            continue  # the events recorder's own index files (meta, timeline, ...): no API body
        data = path.read_bytes()
        assert data == go_json(json.loads(data)), rel
        checked += 1
    assert checked >= 35


def test_continue_token_shape():
    """Tokens are unpadded base64url JSON of v, rv and the last key plus NUL (the recorded
    page-1 token), and decode back."""
    token = continue_token(385, "batch/report-29401180-c4l9d")
    page1 = json.loads(recorded_bytes("lists/pods-limit5-page1.json"))
    assert page1["metadata"]["continue"] == token
    assert "=" not in token
    assert (385, "batch/report-29401180-c4l9d\x00") == decode_continue(token)


def test_v1alpha3_shapes_follow_upstream_types():
    """v1alpha2 -> v1alpha3: disruptionMode becomes the {single}/{all} union and the PodGroup's
    podGroupTemplateRef.workload{workloadName, podGroupTemplateName} becomes
    workloadRef{workloadName, templateName} (upstream scheduling/v1alpha3/types.go)."""
    pg = {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
          "metadata": {"name": "w", "namespace": "ml"},
          "spec": {"podGroupTemplateRef": {"workload": {"workloadName": "train",
                                                        "podGroupTemplateName": "workers"}},
                   "schedulingPolicy": {"gang": {"minCount": 4}},
                   "disruptionMode": "PodGroup", "priorityClassName": "high"}}
    assert {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "PodGroup",
            "metadata": {"name": "w", "namespace": "ml"},
            "spec": {"workloadRef": {"workloadName": "train", "templateName": "workers"},
                     "schedulingPolicy": {"gang": {"minCount": 4}},
                     "disruptionMode": {"all": {}}, "priorityClassName": "high"}} == to_v1alpha3(pg)
    wl = {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "Workload",
          "metadata": {"name": "etl", "namespace": "batch"},
          "spec": {"podGroupTemplates": [{"name": "shards", "schedulingPolicy": {"basic": {}},
                                          "disruptionMode": "Pod"}]}}
    assert {"single": {}} == to_v1alpha3(wl)["spec"]["podGroupTemplates"][0]["disruptionMode"]


@pytest.mark.parametrize("version", ["v1alpha2", "v1alpha3"])
def test_v1alpha_discovery_lists_podgroup_status_but_no_workload_status(version):
    """Each Workload API version lists podgroups, podgroups/status and workloads (no
    workloads/status), with the storage version's hash."""
    with FakeApiServer.recorded(token=None, workload_version=version) as fake:
        conn = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=10)
        conn.request("GET", f"/apis/scheduling.k8s.io/{version}")
        doc = json.loads(conn.getresponse().read())
    assert ["podgroups", "podgroups/status", "workloads"] == [r["name"] for r in doc["resources"]]
    if version == "v1alpha2":
        assert recorded_bytes("discovery/apis-scheduling.k8s.io-v1alpha2.json") == go_json(doc)


def _kubeconfig(fake: FakeApiServer, tmp_path: Path) -> Path:
    return fake.write_kubeconfig(tmp_path / "kc", token=ADMIN)


@pytest.fixture(autouse=True)
def _no_ambient_kubeconfig(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def _expected_documents(version: str) -> list[dict[str, Any]]:
    """The recorded objects as kubectl get -o json shows them (no managedFields)."""
    out = []
    for obj in recorded_objects():
        obj = to_v1alpha3(obj) if version == "v1alpha3" else obj
        obj["metadata"].pop("managedFields", None)
        out.append(obj)
    return out


def _key(o: dict[str, Any]) -> tuple[str, str, str]:
    return (o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"])


@pytest.mark.parametrize("version", ["v1alpha2", "v1alpha3"])
def test_live_documents_of_the_recorded_cluster_are_its_objects(tmp_path, version):
    """Listing the recorded cluster page by page (limit 5, as recorded) gives every recorded
    object once, as kubectl shows it (v1alpha3: the same objects in the v1alpha3 shape)."""
    with FakeApiServer.recorded(token=ADMIN, workload_version=version) as fake:
        docs = live.fetch_documents(kubeconfig=str(_kubeconfig(fake, tmp_path)), context=None,
                                    request_timeout=10, page_size=5, progress=False)
        assert {"GET"} == fake.methods()
    got = sorted((d.obj for d in docs), key=_key)
    assert 29 + 4 + 8 + 3 + 3 + 3 == len(got)
    assert sorted(_expected_documents(version), key=_key) == got


@pytest.mark.parametrize("version", ["v1alpha2", "v1alpha3"])
@pytest.mark.parametrize("command", [["plan", "-o", "json"], ["check-cycles", "-o", "json"],
                                     ["simulate", "-o", "json"]],
                         ids=["plan", "check-cycles", "simulate"])
def test_commands_on_the_recorded_cluster_live_equal_the_file(tmp_path, version, command):
    """plan, check-cycles and simulate give the same JSON and exit code live against the
    recorded cluster as for a List file of its objects."""
    from typer.testing import CliRunner

    from wapctl.cli import app

    snap = tmp_path / "recorded.json"
    annotations = {"wapctl.io/server-version": "v1.36.2"}  # as `wapctl snapshot` keeps it
    snap.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                "metadata": {"annotations": annotations},
                                "items": _expected_documents(version)}), encoding="utf-8")
    with FakeApiServer.recorded(token=ADMIN, workload_version=version) as fake:
        from_live = CliRunner().invoke(app, [*command, "--kubeconfig",
                                             str(_kubeconfig(fake, tmp_path))])
    from_file = CliRunner().invoke(app, [*command, str(snap)])
    assert from_file.exit_code == from_live.exit_code, from_live.output + from_file.output
    assert from_file.exit_code in (0, 1), from_file.output
    assert from_file.stdout == from_live.stdout
    assert json.loads(from_file.stdout)
