"""Live reads survive a control plane's bad moments as client-go's do (issue 29).

Each fault is injected into the fake API server (``FakeApiServer.inject``: the answers a real
kube-apiserver gives when it throttles, drains or loses etcd, and the network's dropped and
reset connections) and the outcome is checked exactly: the same snapshot/plan bytes as a run
without the fault and one stderr note per retry, or exit 4 with one line naming the URL; and
the time it took. The backoff of broken connections is made small and jitter-free here
(``SMALL``): 0.05 s, then 0.1, 0.2, 0.4 s; the Retry-After waits are real (0 or 1 s).

The cluster: 3 nodes, 50 pods (``synthetic_cluster(3, 50)``), listed with ``--page-size 10``,
so pods come in 5 pages, each a chunked body (~8.5 KB, above Go's 2 KiB buffer).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from fake_apiserver import synthetic_cluster

from wapctl import live, live_retry
from wapctl.errors import ClusterError, ExitCode
from wapctl.live_retry import Broken, Reply, Retrier, RetryPolicy, check_wait

PODS = "/api/v1/pods"
SMALL = RetryPolicy(backoff_base=0.05, jitter=0.0)


@pytest.fixture(autouse=True)
def _small_backoff(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(live_retry, "DEFAULT_POLICY", SMALL)
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def run(args: list[str]) -> tuple[Any, float]:
    """The CLI's result and its wall-clock seconds."""
    from typer.testing import CliRunner

    from wapctl.cli import app

    start = time.monotonic()
    result = CliRunner().invoke(app, args)
    return result, time.monotonic() - start


def snapshot(kc: Path, *extra: str) -> tuple[Any, float]:
    return run(["snapshot", "--kubeconfig", str(kc), "--page-size", "10", "-o", "json",
                *extra])


@pytest.fixture
def cluster(apiserver: Any, tmp_path: Path) -> tuple[Any, Path, str]:
    """(fake server, kubeconfig, the snapshot JSON it gives without any fault)."""
    fake = apiserver(synthetic_cluster(3, 50))
    kc = fake.write_kubeconfig(tmp_path / "kc")
    clean, _ = snapshot(kc)
    assert 0 == clean.exit_code, clean.output
    assert 50 == sum(item["kind"] == "Pod" for item in json.loads(clean.stdout)["items"])
    with fake._lock:
        fake.requests.clear()
    return fake, kc, clean.stdout


def pod_requests(fake: Any) -> list[str]:
    """The pods requests, ``limit=10``, ``continue`` or the unlimited ``full`` list."""
    paths = [p for m, p in fake.requests if p.startswith(PODS)]
    return ["continue" if "continue=" in p else "limit=10" if "limit=10" in p else "full"
            for p in paths]


# ---- a transient fault: the same bytes, one note per retry ----------------------------------


@pytest.mark.parametrize(("kind", "code", "page"), [("throttle", 429, 1),
                                                      ("shutting-down", 503, 2)])
def test_one_answer_with_retry_after_is_retried_after_that_wait(cluster, kind, code, page):
    """A 429 (max-in-flight) or 503 (a draining apiserver) with Retry-After: 1 is retried after
    1 s, as client-go's checkWait says: the snapshot is byte-identical, stderr says so."""
    fake, kc, clean = cluster
    fault = fake.inject(PODS, kind, page=page, retry_after="1")
    result, took = snapshot(kc)
    assert 0 == result.exit_code, result.output
    assert clean == result.stdout
    assert f"retrying GET {PODS} after {code} (Retry-After 1s)\n" == result.stderr
    assert 1 == fault.hits
    # 5 pages + the one retried; the retry asks for the same page again
    expected = ["limit=10", *["continue"] * 4]
    expected.insert(page - 1, expected[page - 1])
    assert expected == pod_requests(fake)
    assert 1.0 <= took < 3.0


def test_500_without_retry_after_is_final_at_once(cluster):
    """A 500 without Retry-After is not retried (client-go's checkWait needs the header): exit
    4 at once, one line with the URL and the server's message, one request."""
    fake, kc, _ = cluster
    fake.inject(PODS, "internal", page=1)
    result, took = snapshot(kc)
    assert ExitCode.CLUSTER == result.exit_code
    assert "" == result.stdout
    assert (f"error: cluster {fake.url}: HTTP 500 for GET {PODS}: etcdserver: leader changed\n"
            == result.stderr)
    assert ["limit=10"] == pod_requests(fake)
    assert took < 1.5


def test_a_body_cut_midway_is_read_again(cluster):
    """The connection closes after half of page 3's body: page 3 is asked for again (same
    continue token) after the backoff, and the snapshot is byte-identical."""
    fake, kc, clean = cluster
    fault = fake.inject(PODS, "cut", page=3)
    result, took = snapshot(kc)
    assert 0 == result.exit_code, result.output
    assert clean == result.stdout
    assert re.fullmatch(
        rf"retrying GET {PODS} after a body cut short \(IncompleteRead\(\d+ bytes read, \d+ "
        r"more expected\)\) \(backoff 0.05s\)\n", result.stderr), result.stderr
    assert 1 == fault.hits
    assert ["limit=10", "continue", "continue", "continue", "continue", "continue"] == \
        pod_requests(fake)
    assert took < 1.5


def test_a_reset_on_page_3_of_5_resumes_at_page_3(cluster):
    """A TCP reset instead of page 3: page 3 is asked for again with the same continue token
    (so of the same resourceVersion); the snapshot is byte-identical."""
    fake, kc, clean = cluster
    fake.inject(PODS, "reset", page=3)
    result, took = snapshot(kc)
    assert 0 == result.exit_code, result.output
    assert clean == result.stdout
    assert f"retrying GET {PODS} after connection reset by peer (backoff 0.05s)\n" == \
        result.stderr
    continues = [p for _, p in fake.requests if p.startswith(PODS) and "continue=" in p]
    assert 5 == len(continues) and continues[1] == continues[2]  # page 3, twice
    assert took < 1.5


def test_a_slow_first_byte_within_the_deadline_changes_nothing(cluster):
    """An answer held back 0.5 s (of a 5 s deadline) is waited for, not retried."""
    fake, kc, clean = cluster
    fake.inject(PODS, "slow", page=2, delay=0.5)
    result, took = snapshot(kc, "--request-timeout", "5s")
    assert 0 == result.exit_code, result.output
    assert clean == result.stdout
    assert "" == result.stderr
    assert 5 == len(pod_requests(fake))
    assert 0.5 <= took < 2.0


def test_a_410_mid_pagination_restarts_one_consistent_list(cluster):
    """Page 3's continue token has expired (410): the list restarts once without a limit (a
    fresh list, nothing kept from pages 1-2), says so, and the snapshot is byte-identical."""
    fake, kc, clean = cluster
    fake.inject(PODS, "expired", page=3)
    result, took = snapshot(kc)
    assert 0 == result.exit_code, result.output
    assert clean == result.stdout
    assert (f"restarting the list GET {PODS} in one request: its continue token expired "
            "(410 Gone)\n") == result.stderr
    assert ["limit=10", "continue", "continue", "full"] == pod_requests(fake)
    assert took < 1.5


def test_plan_is_byte_identical_after_a_reset(apiserver, tmp_path):
    """plan -o json reads through the same retries: a reset on page 2 of the pods leaves the
    plan unchanged. (The synthetic cluster plus one pending pod asking 30 of a node's 31.5
    CPUs, which only preemption can place.)"""
    pending = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "urgent", "namespace": "ns-000", "uid": "uid-urgent"},
               "spec": {"priorityClassName": "high", "priority": 1000,
                        "containers": [{"name": "main",
                                        "resources": {"requests": {"cpu": "30"}}}]},
               "status": {"phase": "Pending"}}
    fake = apiserver([*synthetic_cluster(3, 50), pending])
    kc = fake.write_kubeconfig(tmp_path / "kc")
    args = ["plan", "--kubeconfig", str(kc), "--page-size", "10", "-o", "json",
            "--pod", "ns-000/urgent"]
    clean, _ = run(args)
    fake.inject(PODS, "reset", page=2)
    faulted, _ = run(args)
    assert clean.exit_code == faulted.exit_code, faulted.output
    plan = json.loads(clean.stdout)
    assert ("PreemptionPlan", "urgent") == (plan["kind"], plan["preemptor"]["name"])
    assert clean.stdout == faulted.stdout
    assert f"retrying GET {PODS} after connection reset by peer (backoff 0.05s)\n" == \
        faulted.stderr


def test_check_cycles_against_a_live_cluster_reports_its_retries(cluster, tmp_path):
    """check-cycles MANIFEST --kubeconfig lists the cluster through its own call: its retries
    are reported too."""
    fake, kc, _ = cluster
    manifest = tmp_path / "pc.yaml"
    manifest.write_text("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
                        "metadata: {name: extra}\nvalue: 10\n", encoding="utf-8")
    args = ["check-cycles", str(manifest), "--kubeconfig", str(kc), "-o", "json"]
    clean, _ = run(args)
    fake.inject("/api/v1/nodes", "shutting-down", retry_after="0")
    faulted, _ = run(args)
    assert clean.exit_code == faulted.exit_code, faulted.output
    assert clean.stdout == faulted.stdout
    assert "retrying GET /api/v1/nodes after 503 (Retry-After 0s)\n" == faulted.stderr


# ---- a persistent fault: exit 4, one error line, bounded time -------------------------------


def test_a_server_that_never_recovers_is_given_up_after_10_retries(cluster):
    """503 with Retry-After: 0 forever: 10 retries (client-go's maxRetries), 11 requests, then
    exit 4 with one line naming the URL, what the server said and the retries."""
    fake, kc, _ = cluster
    fake.inject(PODS, "shutting-down", times=None, retry_after="0")
    result, took = snapshot(kc)
    assert ExitCode.CLUSTER == result.exit_code
    assert "" == result.stdout
    note = f"retrying GET {PODS} after 503 (Retry-After 0s)\n"
    assert (note * 10 + f"error: cluster {fake.url}: HTTP 503 for GET {PODS}: apiserver is "
            "shutting down; gave up after 10 retries\n") == result.stderr
    assert 11 == len(pod_requests(fake))
    assert took < 1.5


def test_a_wait_that_would_pass_the_deadline_is_not_begun(cluster):
    """429 with Retry-After: 1 forever and --request-timeout 1.9s: one retry after 1 s; the
    next 1 s wait would pass the deadline (at most 0.9 s is left), so wapctl stops there and
    says why, well within the deadline."""
    fake, kc, _ = cluster
    fake.inject(PODS, "throttle", times=None, retry_after="1")
    result, took = snapshot(kc, "--request-timeout", "1.9")
    assert ExitCode.CLUSTER == result.exit_code
    assert (f"retrying GET {PODS} after 429 (Retry-After 1s)\n"
            f"error: cluster {fake.url}: 429 Too Many Requests: the server throttles GET "
            f"{PODS}; not retried: waiting 1s would pass the --request-timeout of 1.9s (it "
            "bounds the whole command, retries included)\n") == result.stderr
    assert 2 == len(pod_requests(fake))
    assert 1.0 <= took < 1.9


def test_a_connection_that_keeps_breaking_is_given_up_after_4_retries(cluster):
    """A reset on every try of page 3: 4 retries with backoff doubling from 0.05 s (0.05 +
    0.1 + 0.2 + 0.4 = 0.75 s of waiting), then exit 4 with one line."""
    fake, kc, _ = cluster
    fake.inject(PODS, "reset", page=3, times=None)
    result, took = snapshot(kc)
    assert ExitCode.CLUSTER == result.exit_code
    notes = "".join(f"retrying GET {PODS} after connection reset by peer (backoff {b}s)\n"
                    for b in ("0.05", "0.1", "0.2", "0.4"))
    assert (notes + f"error: cluster {fake.url}: the connection broke during GET {PODS}: "
            "connection reset by peer; gave up after 4 retries\n") == result.stderr
    assert ["limit=10", "continue", *["continue"] * 5] == pod_requests(fake)
    assert 0.75 <= took < 2.0


def test_a_slow_answer_past_the_deadline_exits_4_at_the_deadline(cluster):
    """Page 2 held back 3 s with --request-timeout 1s: exit 4 when the deadline passes (not
    after 3 s), naming the request and the deadline; nothing retried."""
    fake, kc, _ = cluster
    fake.inject(PODS, "slow", page=2, delay=3.0)
    result, took = snapshot(kc, "--request-timeout", "1s")
    assert ExitCode.CLUSTER == result.exit_code
    assert (f"error: cluster {fake.url}: the --request-timeout of 1s ran out waiting for GET "
            f"{PODS} (it bounds the whole command, retries included; raise it for a slow or "
            "very large cluster)\n") == result.stderr
    assert ["limit=10", "continue"] == pod_requests(fake)
    assert 1.0 <= took < 2.0


def test_pages_of_two_resource_versions_are_an_error_not_a_list(cluster):
    """Page 3 comes back of another resourceVersion (no real server does; a broken
    intermediary could): exit 4 naming both versions, never a mixed list. The fake's
    resourceVersion is its largest item's: pod-000049's 1000 + 49 = 1049."""
    fake, kc, _ = cluster
    fake.inject(PODS, "other-rv", page=3)
    result, _ = snapshot(kc)
    assert ExitCode.CLUSTER == result.exit_code
    assert (f"error: cluster {fake.url}: GET {PODS}: page 3 is of resourceVersion 1050 but "
            "page 1 of 1049: the pages do not make one consistent list\n") == result.stderr


def test_request_timeout_help_says_it_bounds_the_whole_command():
    result, _ = run(["snapshot", "--help"])
    text = " ".join(re.sub(r"[│╭╮╰╯─]", " ", result.stdout).split())
    assert ("Deadline for reading the cluster, for the whole command: every API request and "
            "every retry (429/5xx with Retry-After, a broken connection) must finish within it"
            ) in text


# ---- the retry rules themselves ---------------------------------------------------------------


@pytest.mark.parametrize(("status", "header", "wait"), [
    (429, "1", 1), (503, "0", 0), (500, "2", 2), (504, "7", 7), (599, "1", 1),
    (500, None, None),  # a 5xx without Retry-After: final
    (404, "1", None), (410, "1", None), (200, "1", None),  # not 429 or 5xx
    (429, "Fri, 31 Dec 1999 23:59:59 GMT", None),  # strconv.Atoi fails on an HTTP-date
    (429, "1.5", None), (429, " 1", None), (429, "+2", 2), (429, "", None),
])
def test_check_wait_follows_client_go(status, header, wait):
    """client-go checkWait: 429 or >= 500, and a Retry-After that strconv.Atoi reads."""
    headers = {} if header is None else {"Retry-After": header}
    assert wait == check_wait(status, headers)


def test_backoff_doubles_from_its_base_with_jitter_and_a_cap():
    """Reflector-style backoff: 0.8 s doubling, capped at 30 s, plus rand * 100% of itself."""
    policy = RetryPolicy()
    assert [0.8, 1.6, 3.2, 6.4] == [policy.backoff(step, 0.0) for step in range(4)]
    assert 1.2 == pytest.approx(policy.backoff(0, 0.5))  # 0.8 + 0.5 * 0.8
    assert 30.0 == policy.backoff(10, 0.0)  # 0.8 * 1024 = 819.2, capped
    assert 59.0 == pytest.approx(policy.backoff(10, 0.9667), abs=0.01)


class _Clock:
    """A fake clock that sleeping advances; records the sleeps."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def _retrier(timeout: float, clock: _Clock, notes: list[str]) -> Retrier:
    return Retrier(timeout, notify=notes.append, policy=RetryPolicy(), clock=clock,
                   sleep=clock.sleep, rand=lambda: 0.0)


def test_a_refused_first_contact_is_final_but_a_later_refusal_is_retried():
    """Connection refused before the server ever answered: no retry (a wrong address). Once
    it has answered, a refusal is an apiserver restarting: backed off and retried."""
    clock, notes = _Clock(), []
    retrier = _retrier(60, clock, notes)

    def refused(timeout: float | None) -> Reply:
        raise Broken("cannot connect: connection refused", "connection refused", refused=True)

    with pytest.raises(ClusterError, match=r"^cannot connect: connection refused$"):
        retrier.get("/api", refused, ClusterError)
    assert ([], []) == (notes, clock.slept)
    retrier.get("/api", lambda timeout: Reply(200, b"{}", {}), ClusterError)
    answers = iter([None, Reply(200, b"ok", {})])

    def flaky(timeout: float | None) -> Reply:
        answer = next(answers)
        if answer is None:
            raise Broken("cannot connect: connection refused", "connection refused",
                         refused=True)
        return answer

    assert b"ok" == retrier.get("/api/v1/pods", flaky, ClusterError).body
    assert ["retrying GET /api/v1/pods after connection refused (backoff 0.8s)"] == notes
    assert [0.8] == clock.slept


def test_a_long_retry_after_is_capped_and_each_attempt_gets_what_is_left():
    """Retry-After: 3600 is waited 30 s (the cap), and said so; every attempt is given the
    time left of the one deadline (100 s here), so a retry never hides a timeout."""
    clock, notes = _Clock(), []
    retrier = _retrier(100, clock, notes)
    timeouts: list[float | None] = []
    answers = iter([Reply(429, b"", {"Retry-After": "3600"}), Reply(200, b"ok", {})])

    def attempt(timeout: float | None) -> Reply:
        timeouts.append(timeout)
        clock.now += 2.0  # each request takes 2 s
        return next(answers)

    assert b"ok" == retrier.get("/api/v1/pods", attempt, ClusterError).body
    assert ["retrying GET /api/v1/pods after 429 (Retry-After 3600s, waiting 30s)"] == notes
    assert [100.0, 68.0] == timeouts  # 100 - 2 (first request) - 30 (the wait)
    assert 68.0 == retrier.remaining() + 2.0


def test_no_deadline_means_no_limit_but_still_at_most_10_retries():
    """--request-timeout 0: attempts get no timeout; a 429 forever still ends after 10
    retries, and the reply says so for the failure line."""
    clock, notes = _Clock(), []
    retrier = _retrier(0, clock, notes)
    timeouts: list[float | None] = []

    def attempt(timeout: float | None) -> Reply:
        timeouts.append(timeout)
        return Reply(429, b"", {"Retry-After": "1"})

    reply = retrier.get("/api", attempt, ClusterError)
    assert (429, "gave up after 10 retries") == (reply.status, reply.retried)
    assert [None] * 11 == timeouts
    assert [1] * 10 == clock.slept


def test_the_urllib3_layer_retries_nothing_itself(apiserver, tmp_path):
    """urllib3's own Retry would answer a 429 with Retry-After by "too many 429 error
    responses" (status=0) before wapctl saw it: it is off; wapctl's retry sees the 429."""
    fake = apiserver(synthetic_cluster(1, 2))
    kc = fake.write_kubeconfig(tmp_path / "kc")
    fake.inject("/api", "throttle", retry_after="0")
    notes: list[str] = []
    docs = live.fetch_documents(kubeconfig=str(kc), context=None, request_timeout=10,
                                page_size=10, progress=False, notify=notes.append)
    assert ["retrying GET /api after 429 (Retry-After 0s)"] == notes
    assert 2 == sum(d.obj["kind"] == "Pod" for d in docs)


@pytest.mark.parametrize("kind", ["cut", "reset"])
def test_over_tls_a_cut_or_reset_is_retried_too(apiserver, tmp_path, kind):
    """Over TLS (a trustme CA in the kubeconfig) a body cut short or a reset is the same
    retriable fault, not a TLS failure: every pod, one note."""
    import ssl

    import trustme

    ca = trustme.CA()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    ca.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    fake = apiserver(synthetic_cluster(3, 50), tls=context)
    kc = fake.write_kubeconfig(tmp_path / "kc",
                               extra_cluster={"certificate-authority": str(tmp_path / "ca.pem")})
    fake.inject(PODS, kind, page=3)
    notes: list[str] = []
    docs = live.fetch_documents(kubeconfig=str(kc), context=None, request_timeout=10,
                                page_size=10, progress=False, notify=notes.append)
    assert 50 == sum(d.obj["kind"] == "Pod" for d in docs)
    cause = "connection reset by peer" if kind == "reset" else "a body cut short"
    assert [cause] == [n.split(" after ", 1)[1].split(" (")[0] for n in notes]
