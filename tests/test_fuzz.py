"""Fuzzing (issue 8 §2): mutated fixtures end in a clean result or a clean error, never a crash.

The mutations and the core path live in ``tests/fuzzing.py``; ``tests/fuzz/run_fuzz.py`` runs the
same mutations for as long as asked. Here hypothesis draws a modest number of them for CI.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import fuzzing
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from wapctl import ingest, preemption
from wapctl.cli import app
from wapctl.errors import InputError

CORPUS = fuzzing.load_corpus()
BASES = {name: fuzzing.base_documents(objects) for name, objects in CORPUS}
CLEAN_CORE = {"ok", "InputError", "ok+audit:InputError"}
SETTINGS = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}


@pytest.mark.parametrize(("name", "objects"), CORPUS, ids=[name for name, _ in CORPUS])
def test_every_fixture_runs_the_whole_core_path_cleanly(name, objects):
    """Each unmutated fixture, as YAML and as JSON, loads and goes through plan, cycles,
    simulate and audit with outcome ok."""
    as_json = json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}).encode()
    as_yaml = yaml.safe_dump_all(objects).encode()
    assert ["ok", "ok"] == [fuzzing.exercise_core(data, BASES[name])
                            for data in (as_json, as_yaml)]


@settings(max_examples=300, **SETTINGS)
@given(st.data())
def test_mutated_snapshots_end_in_a_result_or_an_input_error(data):
    """A mutated fixture, as YAML or JSON, either runs the whole core path or is refused with
    an InputError that names its file; no other exception escapes."""
    c = fuzzing.HypothesisChooser(data)
    name, objects = c.choice(CORPUS)
    _, raw = fuzzing.serialise(c, fuzzing.mutate(c, objects))
    assert fuzzing.exercise_core(raw, BASES[name]) in CLEAN_CORE


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz-cli")


@settings(max_examples=100, **SETTINGS)
@given(st.data())
def test_mutated_snapshots_through_the_cli_exit_cleanly(workdir, data):
    """Every command on a mutated snapshot (a file or stdin), now and then with odd option
    values, exits 0-3 with no traceback and no internal error."""
    c = fuzzing.HypothesisChooser(data)
    _, objects = c.choice(CORPUS)
    fmt, raw = fuzzing.serialise(c, fuzzing.mutate(c, objects))
    snap = workdir / ("snap.json" if fmt.startswith("json") else "snap.yaml")
    snap.write_bytes(raw)
    change = workdir / "change.yaml"
    change.write_bytes(raw)
    stdin = c.integer(0, 4) == 0  # the snapshot as - on standard input
    args = fuzzing.cli_args(c, "-" if stdin else str(snap), str(change))
    result = CliRunner().invoke(app, args, input=raw if stdin else None,
                                catch_exceptions=False)
    assert None is fuzzing.check_cli_result(result.exit_code, result.output), (args,
                                                                              result.output)


@pytest.mark.parametrize(
    ("amount", "expected"),
    [
        ("1.5.3Gi", "expected a number with an optional suffix"),
        ("-0", 0),
        ("1e999", "exponent beyond"),
        ("NaN", "no digits"),
        ("-1", "negative quantity"),
        ("1e64", 10**67),
        (" 1", "expected a number with an optional suffix"),
        ("", "empty"),
        ("9" * 65, "longer than 64 characters"),
        (1e308, "exponent beyond"),
        (float("nan"), "not a finite number"),
        (True, "a boolean is not a quantity"),
        ([], "expected a string or a number"),
        ({"a": 1}, "expected a string or a number"),
    ],
    ids=["two-dots", "minus-zero", "1e999", "NaN", "negative", "1e64", "leading-space", "empty",
         "65-digits", "float-1e308", "float-nan", "bool", "list", "mapping"],
)
def test_mangled_cpu_requests(amount, expected):
    """A mangled cpu request is an InputError naming the field; a valid odd one loads."""
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "d"},
           "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": amount}}}]}}
    data = json.dumps(pod).encode()
    documents = ingest.read_documents(["-"], stdin=io.BytesIO(data))
    if isinstance(expected, int):
        assert {"cpu": expected} == dict(ingest.build_snapshot(documents).pods["d/p"].requests)
        return
    with pytest.raises(InputError) as caught:
        ingest.build_snapshot(documents)
    assert "spec.containers[0].resources.requests.cpu" == caught.value.field
    assert expected in caught.value.reason


def test_the_harness_notices_a_crash(monkeypatch):
    """A bug in the core (here: plan raising ZeroDivisionError) escapes exercise_core."""
    def broken(snapshot, preemptor):
        raise ZeroDivisionError("planted")

    monkeypatch.setattr(preemption, "plan", broken)
    data = (fuzzing.FIXTURES / "plan" / "single-pod.yaml").read_bytes()
    with pytest.raises(ZeroDivisionError):
        fuzzing.exercise_core(data)


def test_the_cli_check_notices_a_traceback():
    """An exit code outside 0-3, a traceback or an internal error in the output is unclean."""
    assert [None, "exit code 70", "exit code 4", "'Traceback' in the output",
            "'internal error' in the output"] == [
        fuzzing.check_cli_result(0, "fine"),
        fuzzing.check_cli_result(70, "boom"),
        fuzzing.check_cli_result(4, "cluster"),
        fuzzing.check_cli_result(1, "Traceback (most recent call last):"),
        fuzzing.check_cli_result(2, "error: internal error: KeyError"),
    ]


def test_fixture_corpus_covers_every_fixture_directory():
    """The fuzz corpus draws on plan, cycles, cycles/audit, simulate and api-versions."""
    dirs = {str(Path(name).parent) for name, _ in CORPUS}
    assert {"plan", "cycles", "cycles/audit", "simulate", "api-versions"} == dirs
