"""`wapctl explain` on the preemptions recorded from a real v1.36.2 scheduler
(tests/data/k8s-1.36/events): each scenario's explanation names the preemptor, node and victims
its meta.json records as observed, and the replayed prediction agrees with it.

Hand derivations, from the scenarios' README:
- A: n1, n2, n3 each have 3 of 4 cpu used, by low-1 (100), mid-2 (500, started 16:09:33) and
  mid-3 (500, started 16:10:33); urgent (1000, 2 cpu) must evict the one pod of some node.
  pickOneNodeForPreemption: PDB violations 0 everywhere; the highest victim priority is 100 on
  n1 against 500 on n2/n3, so n1 wins on the second criterion. Closing n1, n2 and n3 tie on
  criteria 1-4 and n3 wins on the fifth (its victim started later): the runner-up is n3.
- C: four 4-cpu nodes with one 2-cpu pod each (low-1..3 at 100, mid-4 at 500); the gang of
  three 3-cpu pods needs three emptied nodes: the three low pods go, mid-4 (500) stays.
- E: every 3-cpu pod is at priority >= hopeful's 500: no victim, Unschedulable.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from wapctl.cli import app

EVENTS = Path(__file__).resolve().parent / "data" / "k8s-1.36" / "events"


def run(*args: object) -> Any:
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


def explain_json(*args: object) -> tuple[int, dict[str, Any]]:
    result = run("explain", *args, "-o", "json")
    return result.exit_code, json.loads(result.stdout)


def meta(scenario: str) -> dict[str, Any]:
    return json.loads((EVENTS / scenario / "meta.json").read_text())  # type: ignore[no-any-return]


@pytest.mark.parametrize("stage", ["2-preempted", "3-finished"])
def test_single_pod_victim_names_the_real_preemptor_node_and_agrees(stage: str) -> None:
    m = meta("A-single-pod")
    code, doc = explain_json("pod/default/low-1", EVENTS / "A-single-pod" / stage,
                             "--before", EVENTS / "A-single-pod" / "1-before")
    assert code == 0
    p = doc["preemption"]
    assert p["preemptor"]["name"] == m["preemptor"] and p["preemptor"]["resolved"]
    assert [p["node"]] == m["nodes"]
    assert [v["pod"] for v in p["victims"]] == m["victims"]
    assert doc["verdict"] == {"agrees": True, "differences": [], "causes": []}
    assert [v["pod"] for v in doc["plan"]["victims"]] == m["victims"]
    # 2-preempted still lists low-1 (terminating); 3-finished no longer does
    replay = doc["replay"]
    assert (replay["restored"], replay["fromBefore"]) == (
        (["default/low-1"], []) if stage == "2-preempted" else ([], ["default/low-1"]))


def test_single_pod_node_choice_against_the_runner_up() -> None:
    _, doc = explain_json("pod/default/low-1", EVENTS / "A-single-pod" / "2-preempted")
    choice = doc["nodeChoice"]
    assert (choice["chosen"], choice["runnerUp"]) == ("n1", "n3")
    assert choice["runnerUpVictims"] == ["default/mid-3"]
    rows = {c["criterion"]: c for c in choice["criteria"]}
    decides = [c["criterion"] for c in choice["criteria"] if c["decides"]]
    assert decides == ["lowest highest victim priority"]
    assert (rows["lowest highest victim priority"]["chosen"],
            rows["lowest highest victim priority"]["runnerUp"]) == ("100", "500")
    assert rows["smallest sum of victim priorities"]["runnerUp"] == "500"  # no offset shown
    assert rows["latest start of the highest-priority victims"]["runnerUp"] == \
        "2026-12-03T16:10:33Z"


def test_table_says_why_and_the_verdict() -> None:
    out = run("explain", "pod/default/low-1", EVENTS / "A-single-pod" / "2-preempted").stdout
    assert "By: pod default/urgent (UID d617cef0-f638-4839-87f5-6efdb86ce8f6)" in out
    assert 'Node n1 wins on "lowest highest victim priority" (100 against 500)' in out
    assert "On n3 the preemptor would have taken default/mid-3." in out
    assert "Verdict: the prediction agrees with what the scheduler did (same victims, same " \
        "node)." in out


def test_a_pod_groups_verdict_claims_no_node_it_did_not_compare() -> None:
    """The scheduler names no node for a pod group's preemption ("on node cluster"), so the
    verdict compares the victims only and says so; the recorded gang went to other nodes
    than the predicted ones (a tie the plan reports), which "same node" would deny."""
    out = run("explain", "pod/default/low-2", EVENTS / "C-gang-podgroup" / "3-finished",
              "--before", EVENTS / "C-gang-podgroup" / "1-before").stdout
    assert "Verdict: the prediction agrees with what the scheduler did (same victims; the " \
        "event names no node to compare)." in " ".join(out.split())
    assert "same node" not in out


@pytest.mark.parametrize("victim", ["low-1", "low-2", "low-3"])
def test_gang_victims_name_the_pod_group_its_members_and_co_victims(victim: str) -> None:
    m = meta("C-gang-podgroup")
    code, doc = explain_json(f"pod/default/{victim}", EVENTS / "C-gang-podgroup" / "2-preempted")
    assert code == 0
    p = doc["preemption"]
    assert p["preemptor"]["kind"] == "PodGroup"
    assert p["preemptor"]["name"] == "default/train-workers"
    assert m["preemptor"].startswith("default/train-workers")
    assert p["preemptor"]["members"] == ["train-0", "train-1", "train-2"]
    assert p["node"] is None  # the scheduler writes "on node cluster"
    assert [v["pod"] for v in p["victims"]] == m["victims"]
    assert doc["verdict"]["agrees"] is True
    assert sorted(x["node"] for x in doc["plan"]["placements"]) == m["nodes"]
    assert any(r.startswith("default/mid-4 on n4 (priority 500) stayed") for r in doc["reasons"])


def test_gone_victims_without_before_say_what_is_missing() -> None:
    code, doc = explain_json("default/low-2", EVENTS / "C-gang-podgroup" / "3-finished")
    assert code == 0
    assert doc["replay"]["missing"] == ["default/low-1", "default/low-2", "default/low-3"]
    assert doc["verdict"]["agrees"] is None
    assert "--before" in doc["verdict"]["causes"][0]
    # a comparison with a replay that lacks the victims would list its own gaps as
    # differences (all three "taken but not predicted"), and "stayed" reasons drawn from it
    assert doc["verdict"]["differences"] == []
    assert not any("stayed" in r for r in doc["reasons"])
    out = run("explain", "default/low-2", EVENTS / "C-gang-podgroup" / "3-finished").stdout
    assert "Verdict: no comparison possible." in out and "differs:" not in out
    code, doc = explain_json("default/low-2", EVENTS / "C-gang-podgroup" / "3-finished",
                             "--before", EVENTS / "C-gang-podgroup" / "1-before")
    assert (code, doc["verdict"]["agrees"]) == (0, True)
    assert doc["replay"]["fromBefore"] == ["default/low-1", "default/low-2", "default/low-3"]
    assert doc["replay"]["unbound"] == ["default/train-0", "default/train-1", "default/train-2"]


def test_pending_pod_that_cannot_preempt() -> None:
    code, doc = explain_json("pod/default/hopeful", EVENTS / "E-cannot-preempt" /
                             "2-unschedulable")
    assert code == 0
    assert meta("E-cannot-preempt")["victims"] == []
    assert doc["role"] == "Pending"
    assert doc["failedScheduling"] == [
        "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: "
        "0/3 nodes are available: 3 No preemption victims found for incoming pod."]
    assert doc["mayPreempt"] is True
    assert doc["plan"]["status"] == "Unschedulable" and doc["plan"]["victims"] == []


def test_bound_preemptor_lists_what_it_preempted() -> None:
    code, doc = explain_json("default/urgent", EVENTS / "A-single-pod" / "3-finished")
    assert (code, doc["role"], doc["state"]) == (0, "Other", "bound to n1")
    assert [v["pod"] for v in doc["preempted"]] == ["default/low-1"]
    assert doc["plan"] is None


def test_yaml_is_the_json_document() -> None:
    args = ("explain", "default/low-1", EVENTS / "A-single-pod" / "2-preempted")
    assert yaml.safe_load(run(*args, "-o", "yaml").stdout) == \
        json.loads(run(*args, "-o", "json").stdout)


def test_unknown_pod_is_one_line_exit_2() -> None:
    result = run("explain", "pod/default/low-9", EVENTS / "A-single-pod" / "2-preempted")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "pod default/low-9 is not in the snapshot" in result.stderr


def test_a_mistyped_victim_gone_from_the_snapshot_is_suggested_from_the_events() -> None:
    """Once a victim has finished it is only in the events -- the usual case for explain: a
    typo of its name is still answered with the name the Preempted event gives."""
    result = run("explain", "pod/default/low1", EVENTS / "A-single-pod" / "3-finished")
    assert result.exit_code == 2
    assert "(did you mean default/low-1?)" in result.stderr


def _differing(tmp_path: Path) -> Path:
    """A's cluster before the preemption with urgent pending, and an event claiming the
    scheduler took mid-2 on n2: wapctl predicts low-1 on n1 (see the module docstring)."""
    folder = tmp_path / "differs"
    shutil.copytree(EVENTS / "A-single-pod" / "1-before", folder)
    pods = json.loads((EVENTS / "A-single-pod" / "2-preempted" / "pods.json").read_text())
    urgent = next(p for p in pods["items"] if p["metadata"]["name"] == "urgent")
    del urgent["status"]["nominatedNodeName"]
    (folder / "urgent.json").write_text(json.dumps({**urgent, "apiVersion": "v1",
                                                    "kind": "Pod"}))
    (folder / "event.yaml").write_text(yaml.safe_dump({
        "apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": "mid-2.1", "namespace": "default", "uid": "e-1"},
        "reason": "Preempted", "reportingController": "default-scheduler",
        "regarding": {"kind": "Pod", "namespace": "default", "name": "mid-2"},
        "note": f"Preempted by pod {urgent['metadata']['uid']} on node n2",
        "eventTime": "2026-12-03T18:07:35.000000Z"}))
    return folder


def test_prediction_that_differs_says_what_and_exits_1(tmp_path: Path) -> None:
    code, doc = explain_json("default/mid-2", _differing(tmp_path))
    assert code == 1
    assert doc["verdict"]["agrees"] is False
    assert doc["verdict"]["differences"] == [
        "predicted but not taken: default/low-1", "taken but not predicted: default/mid-2",
        "node: predicted n1, the scheduler chose n2"]
    assert len(doc["verdict"]["causes"]) == 1


def test_readme_worked_example_is_what_the_tool_prints() -> None:
    """The README's explain example is this command's real output (trailing spaces aside)."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    marker = "explain-example, tests/test_explain.py compares it with the real output -->\n"
    block = readme.split(marker + "```console\n", 1)[1].split("\n```", 1)[0]
    lines = block.splitlines()
    cut = next(i for i, line in enumerate(lines) if not line.endswith("\\")) + 1
    command = " ".join(line.rstrip("\\") for line in lines[:cut]).split()
    assert command[:3] == ["$", "wapctl", "explain"]
    shown = "\n".join(lines[cut:])
    root = Path(__file__).resolve().parent.parent
    out = run(*[str(root / a) if a.startswith("tests/") else a for a in command[2:]]).stdout
    assert [line.rstrip() for line in out.splitlines()] == shown.splitlines()


def test_a_bound_preemptor_made_pending_again_warns_of_its_volume(tmp_path: Path) -> None:
    """Scenario A with the preemptor, urgent, holding a PersistentVolumeClaim volume in the
    finished snapshot (bound to n1 there): explain makes it pending again to replay the
    preemption, and a pending pod's PVC is a volume wapctl does not model, so the replay warns
    VolumeNotModelled for it, as the same pod read by the exact reader makes it warn. (The fast
    JSON reader kept a bound pod's volumes out: the warning was lost.)"""
    src = EVENTS / "A-single-pod"
    shutil.copytree(src / "1-before", tmp_path / "1-before")
    shutil.copytree(src / "3-finished", tmp_path / "3-finished")
    pods_file = tmp_path / "3-finished" / "pods.json"
    pods = json.loads(pods_file.read_text())
    [urgent] = [p for p in pods["items"] if p["metadata"]["name"] == "urgent"]
    assert urgent["spec"]["nodeName"] == "n1"
    urgent["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": "d"}}]
    pods_file.write_text(json.dumps(pods))
    code, doc = explain_json("pod/default/low-1", tmp_path / "3-finished",
                             "--before", tmp_path / "1-before")
    assert code == 0
    assert [("VolumeNotModelled", "Pod default/urgent", "spec.volumes[0].persistentVolumeClaim")
            ] == [(w["code"], w["object"], w["field"]) for w in doc["warnings"]
                  if w["code"] == "VolumeNotModelled"]


def test_n_names_the_namespace_of_the_pod_to_explain() -> None:
    """explain's -n is the namespace of a pod named without one (kubectl's meaning), and
    --help says so; a pod named with another namespace is refused."""
    code, doc = explain_json("low-1", "-n", "default", EVENTS / "A-single-pod" / "2-preempted")
    assert (code, doc["pod"]) == (0, "default/low-1")
    refused = run("explain", "pod/default/low-1", "-n", "kube-system",
                  EVENTS / "A-single-pod" / "2-preempted")
    assert refused.exit_code == 2
    assert "pod default/low-1 is not in namespace kube-system" in refused.stderr
    text = " ".join(run("explain", "--help").stdout.split())
    assert "-n, --namespace NAMESPACE The namespace of the pod to explain" in text
    assert "Only consider preemptors" not in text


def test_a_taken_pod_not_below_the_preemptor_is_not_said_to_be_below() -> None:
    """pod_reasons words each taken pod against the preemptor's priority: v (500) is below
    p (1000); w (1000) is not, and the reason must not claim it is (explain reads which pods
    went from the events, which need not match the model's plan)."""
    from builders import node, pod, snapshot

    from wapctl.explain import pod_reasons
    from wapctl.models import get_model
    from wapctl.preemption import plan
    from wapctl.preemptor import select_preemptor

    snap = snapshot(nodes=[node("n1", cpu="4")], pods=[
        pod("v", cpu="2", prio=500, node="n1"), pod("w", cpu="2", prio=1000, node="n1"),
        pod("p", cpu="2", prio=1000)])
    pre = select_preemptor(snap, pod="default/p")
    made = plan(snap, pre, model=get_model("1.36"))
    reasons = pod_reasons(snap, pre, made, ["default/v", "default/w"], neighbours=False)
    assert reasons == (
        "default/v (priority 500) is below the preemptor's 1000",
        "default/w (priority 1000) is not below the preemptor's 1000: the model would never "
        "take it")


def test_the_latest_preemption_is_the_latest_instant(tmp_path: Path) -> None:
    """A's low-1 was preempted by urgent at 18:07:34.700244Z. Add an earlier preemption of a
    pod of the same name (another UID) at 18:07:34Z, as a core event (whole seconds, no
    eventTime): explain must explain the later one, urgent's, and count one earlier. As
    strings '...34.700244Z' < '...34Z', which once made the added one the "latest"."""
    folder = tmp_path / "2-preempted"
    shutil.copytree(EVENTS / "A-single-pod" / "2-preempted", folder)
    (folder / "older-event.json").write_text(json.dumps({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "low-1.0", "namespace": "default", "uid": "e-older"},
        "reason": "Preempted", "source": {"component": "default-scheduler"},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": "low-1",
                           "uid": "an-older-low-1"},
        "message": "Preempted by pod some-other-uid on node n2",
        "firstTimestamp": "2026-12-03T18:07:34Z", "lastTimestamp": "2026-12-03T18:07:34Z"}))
    m = meta("A-single-pod")
    code, doc = explain_json("pod/default/low-1", folder,
                             "--before", EVENTS / "A-single-pod" / "1-before")
    p = doc["preemption"]
    assert (p["time"], p["node"]) == ("2026-12-03T18:07:34.700244Z", "n1")
    assert p["preemptor"]["name"] == m["preemptor"] and p["preemptor"]["resolved"]
    assert p["earlierPreemptions"] == 1
    assert code == 0


def _a_with_note(tmp_path: Path, note: str) -> Path:
    """A's 2-preempted stage with its Preempted event's note (both APIs' copies) set to
    ``note``."""
    folder = tmp_path / "2-preempted"
    shutil.copytree(EVENTS / "A-single-pod" / "2-preempted", folder)
    for name, field in (("api-v1-events.json", "message"),
                        ("events.k8s.io-v1-events.json", "note")):
        doc = json.loads((folder / name).read_text())
        for item in doc["items"]:
            if item.get("reason") == "Preempted":
                item[field] = note
        (folder / name).write_text(json.dumps(doc))
    return folder


def test_older_note_form_resolves_the_preemptor_read(tmp_path: Path) -> None:
    """A's Preempted event rewritten in the older form, 'Preempted by default/urgent on node
    n1' (no UID): urgent is among the pods read, so the preemptor is resolved to it."""
    folder = _a_with_note(tmp_path, "Preempted by default/urgent on node n1")
    code, doc = explain_json("pod/default/low-1", folder,
                             "--before", EVENTS / "A-single-pod" / "1-before")
    p = doc["preemption"]
    assert p["note"] == "Preempted by default/urgent on node n1"
    assert p["preemptor"]["name"] == "default/urgent" and p["preemptor"]["resolved"] is True
    assert code == 0


def test_a_preempted_event_it_cannot_read_is_a_warning_not_silence(tmp_path: Path) -> None:
    """A's Preempted event (low-1.18edd0a9f0e4b21a) with a note in no form wapctl reads: low-1
    is explained as a pod no readable event names, and the event is reported, note and all,
    in the document's warnings and before the table (not "no Preempted event names it")."""
    note = "Preempted by workload default/urgent-wl on node n1 (gang)"
    folder = _a_with_note(tmp_path, note)
    code, doc = explain_json("pod/default/low-1", folder)
    assert code == 0 and doc["role"] != "Victim"
    (w,) = [w for w in doc["warnings"] if w["code"] == "UnreadPreemptedEvent"]
    assert w["object"] == "Event default/low-1.18edd0a9f0e4b21a"
    assert f'note "{note}"' in w["message"] and "regarding Pod default/low-1" in w["message"]
    out = run("explain", "pod/default/low-1", folder).stdout
    assert "Warning: Event default/low-1.18edd0a9f0e4b21a: " in out
    assert "no Preempted event names it" not in out
    assert "no Preempted event naming it can be read (see the warnings above)" in out


def test_older_note_form_lists_what_the_named_pod_preempted(tmp_path: Path) -> None:
    """With A's event in the older form ('Preempted by default/urgent on node n1'), explain of
    urgent (still pending at this stage: low-1 is terminating) lists low-1 as what it
    preempted, as with the UID form."""
    folder = _a_with_note(tmp_path, "Preempted by default/urgent on node n1")
    code, doc = explain_json("default/urgent", folder)
    assert (code, doc["role"]) == (0, "Pending")
    assert [v["pod"] for v in doc["preempted"]] == ["default/low-1"]
