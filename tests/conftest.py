"""Shared pytest fixtures."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


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
