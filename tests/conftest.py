"""Shared pytest set-up: Hypothesis profiles, the no-silent-skip rule, the fake API server.

Hypothesis profiles (registered here, before any test module is imported, so every
``@settings(...)`` in the tests inherits from the loaded one):

- ``ci`` (the default, and always when ``$CI`` is set): derandomized (the same examples on every
  run and machine), no example database, no deadline, the example counts each test states (100
  where it states none). Whether a bug is caught never depends on the run.
- ``long`` (``HYPOTHESIS_PROFILE=long``, or ``--hypothesis-profile=long``): randomized, many
  examples: every test's own count times ``LONG_FACTOR``. The nightly/deep run; see the README
  ("Testing") and ``tests/fuzz/``.
- ``dev``: randomized with the example database, the stated counts (for hunting locally).

Skips: a test may be skipped only by a ``skip`` or ``skipif`` marker that states its reason
(``reason=`` or the first argument of ``skip``, a non-blank string). Any other skip —
``pytest.skip()`` inside a test or fixture, ``pytest.importorskip``, a module-level skip, a
marker without a reason — turns into a failure that says so (``pytest_runtest_makereport``,
``pytest_collectreport`` below). An ImportError can never again hide tests.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# ---- Hypothesis profiles ---------------------------------------------------------------------

CI_MAX_EXAMPLES = 100  # for tests that state no count of their own
LONG_FACTOR = 20  # the long profile runs each property this many times as many examples

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=CI_MAX_EXAMPLES,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "long",
    derandomize=False,
    database=None,
    deadline=None,
    max_examples=CI_MAX_EXAMPLES * LONG_FACTOR,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=CI_MAX_EXAMPLES)


def profile_name(environ: Any = os.environ) -> str:
    """The profile to load: ``ci`` under CI and by default; ``HYPOTHESIS_PROFILE`` otherwise."""
    if environ.get("CI"):
        return "ci"
    return environ.get("HYPOTHESIS_PROFILE") or "ci"


settings.load_profile(profile_name())


def current_profile() -> str:
    """The name of the loaded profile (``settings.get_current_profile_name``, newer Hypothesis)."""
    getter = getattr(settings, "get_current_profile_name", None)
    return getter() if getter is not None else str(settings._current_profile)


def _scale_for_long(items: list[pytest.Item]) -> None:
    """Under ``long``, every property runs LONG_FACTOR times its own (explicit) count.

    An explicit ``@settings(max_examples=N)`` overrides any profile, so the counts are scaled on
    the collected test functions. Hypothesis keeps a test's settings on the attribute below
    (what ``@settings`` sets); if it ever moves, this fails loudly instead of running short."""
    for item in items:
        fn = getattr(item, "obj", None)
        if not getattr(fn, "is_hypothesis_test", False):
            continue
        own = fn._hypothesis_internal_use_settings  # raises if Hypothesis renames it
        fn._hypothesis_internal_use_settings = settings(
            own, max_examples=own.max_examples * LONG_FACTOR, derandomize=False, database=None
        )


# ---- no silent skips ---------------------------------------------------------------------------


def stated_skip_reason(item: pytest.Item) -> str | None:
    """The reason stated by the item's ``skip``/``skipif`` marker, None when it states none.

    What counts as stated: ``@pytest.mark.skip(reason="...")`` or ``skip("...")``, and
    ``@pytest.mark.skipif(cond, reason="...")``, with a reason that is not blank."""
    for mark in item.iter_markers():
        if mark.name not in ("skip", "skipif"):
            continue
        reason = mark.kwargs.get("reason")
        if reason is None and mark.name == "skip" and mark.args:
            reason = mark.args[0]
        if isinstance(reason, str) and reason.strip():
            return reason
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: Any) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if not report.skipped or hasattr(report, "wasxfail"):
        return
    if stated_skip_reason(item) is not None:
        return
    what = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    report.outcome = "failed"
    report.longrepr = (
        f"{item.nodeid} was skipped without a reason stated in a skip/skipif marker ({what}); "
        "silent skips are not allowed (tests/conftest.py): fix the cause, or mark the test "
        "@pytest.mark.skipif(condition, reason=...)"
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.skipped:  # a module-level pytest.skip / importorskip: the whole file vanishes
        what = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = (
            f"{collector.nodeid} was skipped at collection ({what}); silent skips are not "
            "allowed (tests/conftest.py)"
        )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if current_profile() == "long":
        _scale_for_long(items)


def pytest_report_header(config: pytest.Config) -> str:
    current = settings.default
    return (f"hypothesis profile {current_profile()}: "
            f"derandomize={current.derandomize} database={current.database!r}")


# ---- fixtures ------------------------------------------------------------------------------------


@pytest.fixture
def apiserver() -> Iterator[Any]:
    """A factory for fake Kubernetes API servers on 127.0.0.1 (tests/fake_apiserver.py):
    ``apiserver(objects, **options)`` starts one; all are stopped when the test ends."""
    from fake_apiserver import FakeApiServer

    started: list[FakeApiServer] = []

    def start(objects: Any = (), **options: Any) -> FakeApiServer:
        server = FakeApiServer(objects, **options).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
