"""`wapctl simulate` through Typer's CliRunner: exit codes (0 converged, 1 cycle or step bound,
2 bad input), the SimulationReport document, the timeline table, and determinism across
document order, file split and format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from wapctl.cli import app

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "simulate"


def run(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


@pytest.mark.parametrize(
    ("name", "code"),
    [("ping-pong.yaml", 1), ("ping-pong-fixed.yaml", 0), ("cascade.yaml", 0),
     ("gang-waiting.yaml", 0)],
    ids=["ping-pong-cycles", "fixed-converges", "cascade-converges", "gang-converges"],
)
def test_exit_code_per_fixture(name: str, code: int):
    """A cycle exits 1; a queue that converges exits 0."""
    assert code == run("simulate", FIXTURES / name, "-o", "json").exit_code


def test_json_document_for_the_ping_pong():
    """The JSON is the SimulationReport: steps, the cycle with members and edges, the final
    state."""
    result = run("simulate", FIXTURES / "ping-pong.yaml", "-o", "json")
    doc = json.loads(result.stdout)
    assert ("wapctl/v1", "SimulationReport") == (doc["apiVersion"], doc["kind"])
    assert {"maxSteps": 1000, "requeue": True, "namespace": None} == doc["settings"]
    assert [(1, "RequiresPreemption"), (2, "WaitingForTermination"), (3, "Bound"),
            (4, "RequiresPreemption")] == [(s["step"], s["action"]) for s in doc["steps"]]
    assert {
        "step": 3,
        "preemptor": {"kind": "Pod", "name": "team-b/server-0", "priority": 500},
        "action": "Bound",
        "reason": "pod team-b/server-0 fits on node n1 without preemption.",
        "placements": [{"pod": "team-b/server-0", "node": "n1"}],
        "nodes": ["n1"],
        "victims": [],
        "waitingFor": [],
        "finished": [{"pod": "team-a/trainer-0", "node": "n1"},
                     {"pod": "team-a/trainer-1", "node": "n1"}],
        "requeued": ["team-a/trainer-0", "team-a/trainer-1"],
    } == doc["steps"][2]
    assert (False, False) == (doc["converged"], doc["hitStepLimit"])
    assert {
        "kind": "MutualPreemption",
        "members": [
            {"kind": "PodGroup", "name": "team-b/server/main", "workload": "team-b/server",
             "priority": 500, "preemptionPriority": 500, "pods": ["team-b/server-0"]},
            {"kind": "PodGroup", "name": "team-a/trainer/workers", "workload": "team-a/trainer",
             "priority": 1000, "preemptionPriority": 100,
             "pods": ["team-a/trainer-0", "team-a/trainer-1"]},
        ],
        "steps": [1, 4],
        "edges": [{"from": "team-b/server/main", "to": "team-a/trainer/workers", "step": 1},
                  {"from": "team-a/trainer/workers", "to": "team-b/server/main", "step": 4}],
        "repeatsStep": None,
    } == doc["cycle"]
    assert {"step": 4, "pods": {"bound": 0, "pending": 2, "terminating": 1, "completed": 0,
                                "removed": 0}} == {k: doc["final"][k] for k in ("step", "pods")}
    assert [("team-a/trainer/workers", "PodGroup", 2, "Queued", "RequiresPreemption")] == [
        (p["name"], p["kind"], p["pods"], p["state"], p["lastStatus"])
        for p in doc["final"]["preemptors"]]


def test_yaml_is_the_same_document():
    """-o yaml prints the same document as -o json."""
    as_json = json.loads(run("simulate", FIXTURES / "cascade.yaml", "-o", "json").stdout)
    as_yaml = yaml.safe_load(run("simulate", FIXTURES / "cascade.yaml", "-o", "yaml").stdout)
    assert as_json == as_yaml


def test_table_shows_timeline_final_state_and_cycle():
    """The table lists each step, the finished pods, the final state and the cycle verdict."""
    result = run("simulate", FIXTURES / "ping-pong.yaml", "--no-color")
    out = result.stdout
    assert 1 == result.exit_code
    for text in ("RequiresPreemption", "WaitingForTermination", "Bound", "Finished",
                 "team-b/server-0", "Final state after step 4: 0 bound, 2 pending, 1 terminating",
                 "Cycle (MutualPreemption)"):
        assert text in out, text
    assert ("Cycle: team-b/server/main -> team-a/trainer/workers -> team-b/server/main preempt "
            "each other (steps 1, 4)") in " ".join(out.split())
    assert "\x1b[" not in out


def test_converged_table_says_so():
    """A converged replay ends with a one-line verdict and lists the parked preemptors."""
    result = run("simulate", FIXTURES / "cascade.yaml", "--no-color")
    assert 0 == result.exit_code
    assert "Converged after 7 step(s): nothing left can change." in result.stdout
    assert "dev/scratch-0" in result.stdout and "Parked" in result.stdout


def test_step_bound_exits_1_with_a_clear_message():
    """--max-steps ends the replay: exit 1, hitStepLimit in the document, a message on stderr."""
    result = run("simulate", FIXTURES / "cascade.yaml", "--max-steps", "3", "-o", "json")
    assert 1 == result.exit_code
    doc = json.loads(result.stdout)
    assert (False, True, None, 3) == (doc["converged"], doc["hitStepLimit"], doc["cycle"],
                                      len(doc["steps"]))
    assert ("wapctl simulate: Stopped after --max-steps 3 steps without converging or finding "
            "a cycle: raise --max-steps to see where it ends.\n") == result.stderr


def test_step_bound_in_the_table():
    """In the table the verdict line says the bound was hit."""
    result = run("simulate", FIXTURES / "cascade.yaml", "--max-steps", "2", "--no-color")
    assert 1 == result.exit_code
    assert "Stopped after --max-steps 2 steps" in " ".join(result.stdout.split())


def test_step_bound_of_one_says_one_step():
    result = run("simulate", FIXTURES / "cascade.yaml", "--max-steps", "1", "-o", "json")
    assert result.stderr.startswith("wapctl simulate: Stopped after --max-steps 1 step without")


def test_a_pod_that_finishes_comes_back_whoever_deleted_it_as_help_says():
    """fixtures/plan/terminating.yaml: old was deleted by hand (no DisruptionTarget, no
    victim of any step, no controller). It finishes in step 2 and comes back pending under its
    name, planned in step 3 -- what --help and the README say of every finished pod."""
    doc = json.loads(run("simulate", FIXTURES.parent / "plan" / "terminating.yaml",
                         "-o", "json").stdout)
    steps = doc["steps"]
    assert [] == steps[0]["victims"] and [] == steps[1]["victims"]
    assert ["default/old"] == steps[1]["requeued"]
    assert "default/old" == steps[2]["preemptor"]["name"]
    text = " ".join(run("simulate", "--help").stdout.split())
    assert ("Every pod that finishes -- a victim, or a pod already terminating in the snapshot "
            "-- comes back pending under its own name") in text


def test_no_requeue_ends_the_ping_pong():
    """--no-requeue: preempted pods are gone for good, so the ping-pong converges (exit 0)."""
    result = run("simulate", FIXTURES / "ping-pong.yaml", "--no-requeue", "-o", "json")
    assert 0 == result.exit_code
    doc = json.loads(result.stdout)
    assert False is doc["settings"]["requeue"]
    assert [[], [], []] == [s["requeued"] for s in doc["steps"]]
    assert 2 == doc["final"]["pods"]["removed"]


def test_namespace_limits_the_queue():
    """-n only queues that namespace's preemptors."""
    doc = json.loads(run("simulate", FIXTURES / "cascade.yaml", "-n", "dev", "-o", "json").stdout)
    assert [] == doc["steps"]
    assert True is doc["converged"]
    assert {"maxSteps": 1000, "requeue": True, "namespace": "dev"} == doc["settings"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.yaml"], "missing.yaml"),
        (["--max-steps", "0", "cascade.yaml"], "--max-steps"),
    ],
    ids=["missing-file", "max-steps-zero"],
)
def test_bad_input_exits_2(args: list[str], message: str, monkeypatch):
    """A missing file or a bad option exits 2 with a message naming it, no traceback."""
    monkeypatch.chdir(FIXTURES)
    result = run("simulate", *args)
    assert 2 == result.exit_code
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_malformed_snapshot_exits_2(tmp_path: Path):
    """A snapshot that does not parse exits 2 with one line naming the file."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: Pod\nmetadata: [\n")
    result = run("simulate", bad)
    assert 2 == result.exit_code
    assert str(bad) in result.stderr
    assert 1 == len(result.stderr.strip().splitlines())


def test_document_order_file_split_and_format_give_identical_json(tmp_path: Path):
    """The same objects reversed, split over two files and written as JSON give byte-identical
    output."""
    items = yaml.safe_load((FIXTURES / "ping-pong.yaml").read_text())["items"]
    expected = run("simulate", FIXTURES / "ping-pong.yaml", "-o", "json").stdout
    reversed_items = list(reversed(items))
    half = len(reversed_items) // 2
    (tmp_path / "a.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                                 "items": reversed_items[:half]}))
    (tmp_path / "b.yaml").write_text(yaml.safe_dump_all(reversed_items[half:]))
    result = run("simulate", tmp_path / "b.yaml", tmp_path / "a.json", "-o", "json")
    assert 1 == result.exit_code
    assert expected == result.stdout


def test_input_files_are_not_modified():
    """Simulating reads the snapshot and never writes it."""
    path = FIXTURES / "ping-pong.yaml"
    before = path.read_bytes()
    run("simulate", path, "-o", "json")
    assert before == path.read_bytes()


def test_help_renders():
    """`wapctl simulate --help` renders and names the replay's options."""
    result = run("simulate", "--help")
    assert 0 == result.exit_code
    assert "--max-steps" in result.stdout and "--no-requeue" in result.stdout
