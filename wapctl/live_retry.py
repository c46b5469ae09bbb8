"""Retries of the idempotent GETs ``wapctl.live`` sends, as client-go's rest client makes them,
all within one deadline: ``--request-timeout`` bounds the whole command, retries and their waits
included, so no retry hides a timeout.

What is retried (kubernetes/kubernetes, ``staging/src/k8s.io/client-go/rest/``):

- an answer 429, or any 5xx, that carries ``Retry-After`` in whole seconds: ``with_retry.go``
  ``checkWait`` (429 or >= 500) with ``request.go`` ``retryAfterSeconds`` (``strconv.Atoi`` of
  the header, so an HTTP-date is not honoured). wapctl waits as told, at most
  ``RetryPolicy.max_retry_after`` seconds, up to ``max_retries`` = 10 retries: ``request.go``
  ``NewRequest`` sets ``maxRetries: 10`` and ``withRetry.IsNextRetry`` stops once ``attempts >
  maxRetries``. A 5xx without ``Retry-After`` is final (``checkWait`` says no), as in client-go;
- a connection reset, or closed before the answer came (``request.go`` ``request``:
  ``isErrRetryableFunc`` retries a GET whose error is ``net.IsConnectionReset`` or
  ``net.IsProbableEOF``, after the 1 s of ``with_retry.go`` ``retryAfterResponse``), and a body
  cut short (``transformResponse`` only says "unexpected error when reading response body.
  Please retry."; the request is an idempotent GET, so wapctl does retry it);
- a refused connection, once the server has answered this command (an apiserver restarting;
  client-go's reflector backs off on ``utilnet.IsConnectionRefused``). A refusal of the first
  contact is final at once, as in client-go's ``request``: a wrong address or a server that is
  down is reported without a minute of retries.

The last two back off exponentially with jitter, as client-go's reflector does
(``tools/cache/reflector.go``: ``wait.NewExponentialBackoffManager(800ms, 30s, 2m, 2.0, 1.0)``:
from 0.8 s doubling, capped at 30 s, plus up to 100% jitter), at most ``max_broken_retries``
times. Every retry is announced through ``notify`` (one line, before its wait), so none is
silent; this module prints nothing. A wait that would pass the deadline is not begun: the
failure is reported at once, saying so.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

Notify = Callable[[str], None]
_ATOI = re.compile(r"[+-]?[0-9]+")  # what Go's strconv.Atoi accepts


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry (see the module docstring for where each number comes
    from); tests make the backoff small."""

    max_retries: int = 10
    max_broken_retries: int = 4
    max_retry_after: float = 30.0
    backoff_base: float = 0.8
    backoff_cap: float = 30.0
    jitter: float = 1.0

    def backoff(self, step: int, rand: float) -> float:
        """The wait before broken-connection retry ``step`` (0 first), ``rand`` in [0, 1): the
        base doubled per step, capped, plus ``rand * jitter`` of itself (``wait.Jitter``)."""
        delay = min(self.backoff_cap, self.backoff_base * 2.0 ** step)
        return delay + rand * self.jitter * delay


DEFAULT_POLICY = RetryPolicy()


@dataclass(frozen=True)
class Reply:
    """One answer: status, body and headers (a case-insensitive mapping); ``retried`` says, for a
    failure line, why a retriable answer was not retried again ("" when it was not retriable)."""

    status: int
    body: bytes
    headers: Mapping[str, str]
    retried: str = ""


class Broken(Exception):
    """One attempt failed in a way worth retrying: ``text`` says it for a failure line, ``cause``
    for a retry note; ``refused``: the connection was refused (no server answered)."""

    def __init__(self, text: str, cause: str, *, refused: bool = False) -> None:
        super().__init__(text)
        self.text = text
        self.cause = cause
        self.refused = refused


def retry_after_seconds(headers: Mapping[str, str]) -> int | None:
    """client-go ``request.go`` ``retryAfterSeconds``: the ``Retry-After`` header when it is a
    whole number (``strconv.Atoi``), else None."""
    value = headers.get("Retry-After")
    if not isinstance(value, str) or not _ATOI.fullmatch(value):
        return None
    return int(value)


def check_wait(status: int, headers: Mapping[str, str]) -> int | None:
    """client-go ``with_retry.go`` ``checkWait``: the seconds to wait before retrying an answer
    429 or 5xx that carries ``Retry-After``; None when it is not to be retried."""
    if status != 429 and status < 500:
        return None
    return retry_after_seconds(headers)


def broken_cause(exc: BaseException) -> tuple[str, bool] | None:
    """(cause, refused) when a urllib3 error is one to retry (a connection refused, reset or
    closed early, or a body cut short), else None (timeouts, TLS, DNS, redirects, proxies)."""
    import http.client

    from urllib3 import exceptions as ue

    reason: BaseException = exc
    if isinstance(exc, ue.MaxRetryError) and exc.reason is not None:
        reason = exc.reason
    if isinstance(reason, ue.NameResolutionError):
        return None
    if isinstance(reason, ue.NewConnectionError):
        refused = isinstance(reason.__cause__, ConnectionRefusedError) \
            or "Connection refused" in str(reason)
        return ("connection refused", True) if refused else None
    if not isinstance(reason, ue.ProtocolError):
        return None
    inner = reason.args[1] if len(reason.args) > 1 else None
    if isinstance(inner, ConnectionResetError):
        return "connection reset by peer", False
    if isinstance(inner, http.client.RemoteDisconnected):
        return "the server closed the connection without answering", False
    if isinstance(inner, http.client.IncompleteRead):  # urllib3's IncompleteRead and
        return f"a body cut short ({inner!r})", False  # InvalidChunkLength are ones too
    return f"a broken connection ({' '.join(str(reason).split())})", False


def _seconds(value: float) -> str:
    return f"{round(value, 2):g}s"


def _retries(count: int) -> str:
    return f"{count} retr{'y' if count == 1 else 'ies'}"


class Retrier:
    """One command's deadline and retries. ``clock``, ``sleep`` and ``rand`` are injectable for
    tests; ``policy`` defaults to ``DEFAULT_POLICY`` as it is when the Retrier is made."""

    def __init__(self, request_timeout: float, *, notify: Notify | None = None,
                 policy: RetryPolicy | None = None, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Any] = time.sleep,
                 rand: Callable[[], float] = random.random) -> None:
        self.request_timeout = request_timeout
        self.policy = policy or DEFAULT_POLICY
        self._clock = clock
        self._sleep = sleep
        self._rand = rand
        self._notify = notify
        self._end = clock() + request_timeout if request_timeout else None
        self.answered = False  # has the server answered anything yet (a refusal then retries)

    def remaining(self) -> float | None:
        """Seconds left before the deadline; None when there is none (--request-timeout 0)."""
        return None if self._end is None else max(0.0, self._end - self._clock())

    def expired(self) -> bool:
        left = self.remaining()
        return left is not None and left <= 0

    def out_of_time(self, path: str, during: str = "waiting for") -> str:
        """The failure line's text for a deadline that passed."""
        return (f"the --request-timeout of {self.request_timeout:g}s ran out {during} GET "
                f"{path} (it bounds the whole command, retries included; raise it for a slow "
                "or very large cluster)")

    def get(self, path: str, attempt: Callable[[float | None], Reply],
            fail: Callable[[str], Exception]) -> Reply:
        """The reply to ``GET path``, retried as the module docstring says.

        ``attempt(timeout)`` makes one request allowed ``timeout`` seconds (None: no limit) and
        returns its Reply or raises Broken (a final failure it raises as it likes). A Broken
        not retried is raised as ``fail(text)``; a retriable answer not retried comes back with
        ``retried`` saying why.
        """
        retries = broken = 0
        while True:
            left = self.remaining()
            if left is not None and left <= 0:
                raise fail(self.out_of_time(path, "before"))
            try:
                reply = attempt(left)
            except Broken as exc:
                if exc.refused and not self.answered:
                    raise fail(exc.text) from None
                delay = self.policy.backoff(broken, self._rand())
                stop = self._exhausted(retries, broken >= self.policy.max_broken_retries) \
                    or self._too_late(delay)
                if stop:
                    raise fail(f"{exc.text}; {stop}") from None
                self.note(f"retrying GET {path} after {exc.cause} "
                               f"(backoff {_seconds(delay)})")
                self._sleep(delay)
                retries, broken = retries + 1, broken + 1
                continue
            self.answered = True
            seconds = check_wait(reply.status, reply.headers)
            if seconds is None:
                return reply
            wait = min(max(seconds, 0), self.policy.max_retry_after)
            stop = self._exhausted(retries, False) or self._too_late(wait)
            if stop:
                return replace(reply, retried=stop)
            told = f"Retry-After {seconds}s" + ("" if wait == seconds else
                                                f", waiting {_seconds(wait)}")
            self.note(f"retrying GET {path} after {reply.status} ({told})")
            self._sleep(wait)
            retries += 1

    def _exhausted(self, retries: int, broken_limit: bool) -> str:
        if retries >= self.policy.max_retries or broken_limit:
            return f"gave up after {_retries(retries)}"
        return ""

    def _too_late(self, wait: float) -> str:
        left = self.remaining()
        if left is None or wait < left:
            return ""
        return (f"not retried: waiting {_seconds(wait)} would pass the --request-timeout of "
                f"{self.request_timeout:g}s (it bounds the whole command, retries included)")

    def note(self, text: str) -> None:
        """Say something through ``notify`` (a retry, a restarted list)."""
        if self._notify is not None:
            self._notify(text)
