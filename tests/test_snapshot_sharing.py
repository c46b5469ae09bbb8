"""``wapctl snapshot`` output is safe to share and still answers every question the same.

- A pod carrying a secret in ``env``, ``envFrom``, a secret volume and the
  ``last-applied-configuration`` annotation: none of it reaches the file (it does with ``--full``,
  so the test would notice if the secret were never served).
- The file is written with owner-only permissions (0600), also over an existing file.
- Stripping changes no answer: for every fixture and for the recorded v1.36.2 cluster, ``plan``,
  ``check-cycles`` and ``simulate`` give the same JSON for the stripped objects as for the full
  ones (``wapctl.shareable.KEEP`` must list every field the loader reads).
- The server version reaches the file and comes back through the loader.
"""

from __future__ import annotations

import copy
import json
import stat
from pathlib import Path
from typing import Any

import pytest
import yaml
from fake_apiserver import FakeApiServer, recorded_objects
from typer.testing import CliRunner

from wapctl import ingest
from wapctl.cli import app
from wapctl.errors import InputError, Source
from wapctl.shareable import shareable

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SECRET = "hunter2-s3cr3t-value"


@pytest.fixture(autouse=True)
def _no_ambient_kubeconfig(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def _secret_pod() -> dict[str, Any]:
    manifest = {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "db", "namespace": "prod"},
                "spec": {"containers": [{"name": "db", "image": "db:1",
                                         "env": [{"name": "PASSWORD", "value": SECRET}]}]}}
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "db", "namespace": "prod", "uid": "u-db",
                     "labels": {"app": "db"},
                     "annotations": {"kubectl.kubernetes.io/last-applied-configuration":
                                     json.dumps(manifest),
                                     "note": f"password is {SECRET}"},
                     "managedFields": [{"manager": "kubectl", "fieldsV1": {"f:spec": {}}}]},
        "spec": {
            "nodeName": "node-a",
            "priority": 0,
            "serviceAccountName": "db-" + SECRET,
            "imagePullSecrets": [{"name": "pull-" + SECRET}],
            "containers": [{
                "name": "db", "image": "registry.example/db:1",
                "command": ["db", f"--password={SECRET}"],
                "args": [f"--token={SECRET}"],
                "env": [{"name": "PASSWORD", "value": SECRET},
                        {"name": "FROM_SECRET", "valueFrom": {"secretKeyRef": {
                            "name": "db-" + SECRET, "key": "password"}}}],
                "envFrom": [{"secretRef": {"name": "all-" + SECRET}}],
                "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}},
                "volumeMounts": [{"name": "creds", "mountPath": "/creds"}],
            }],
            "volumes": [{"name": "creds", "secret": {"secretName": "vol-" + SECRET}}],
        },
        "status": {"phase": "Running", "startTime": "2026-01-01T00:00:00Z",
                   "podIP": "10.0.0.7",
                   "containerStatuses": [{"name": "db", "image": "db:1", "ready": True}]},
    }


def _node() -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "node-a", "annotations": {"secret": SECRET}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                       "addresses": [{"type": "InternalIP", "address": "192.0.2.1"}]}}


def _snapshot(tmp_path: Path, *args: str) -> tuple[Any, Path]:
    with FakeApiServer([_node(), _secret_pod()], token="t") as fake:
        kc = fake.write_kubeconfig(tmp_path / "kc")
        out = tmp_path / "snap.yaml"
        result = CliRunner().invoke(app, ["snapshot", "--kubeconfig", str(kc),
                                          "--output-file", str(out), *args])
    assert 0 == result.exit_code, result.output
    return result, out


def test_a_secret_bearing_pod_never_reaches_the_snapshot(tmp_path):
    """env values, envFrom/secret names, command/args, volumes, annotations (with
    last-applied-configuration) and managedFields are left out; what wapctl reads stays."""
    _, out = _snapshot(tmp_path)
    text = out.read_text(encoding="utf-8")
    assert SECRET not in text
    items = json.dumps(yaml.safe_load(text)["items"])
    assert "last-applied-configuration" not in items and "managedFields" not in items
    assert text.startswith("# wapctl snapshot of a Kubernetes v1.36.2 cluster\n"
                           "# contents: only the fields wapctl reads; left out: env and envFrom")
    doc = yaml.safe_load(text)
    pod = next(o for o in doc["items"] if o["kind"] == "Pod")
    assert {"name": "db", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}} == \
        pod["spec"]["containers"][0]
    assert {"name": "db", "namespace": "prod", "uid": "u-db", "labels": {"app": "db"}} == \
        pod["metadata"]
    # a container status keeps its name, resources.requests and allocatedResources only
    # (wapctl.ingest.resize): the image and readiness go
    assert {"phase": "Running", "startTime": "2026-01-01T00:00:00Z",
            "containerStatuses": [{"name": "db"}]} == pod["status"]
    assert "v1.36.2" == doc["metadata"]["annotations"]["wapctl.io/server-version"]
    assert doc["metadata"]["annotations"]["wapctl.io/contents"].startswith(
        "only the fields wapctl reads")


def test_full_keeps_everything(tmp_path):
    """--full keeps env and annotations (so the test above would see a leak), managedFields
    excepted as kubectl hides them."""
    _, out = _snapshot(tmp_path, "--full")
    text = out.read_text(encoding="utf-8")
    items = json.dumps(yaml.safe_load(text)["items"])
    assert SECRET in items and "last-applied-configuration" in items
    assert "managedFields" not in items


@pytest.mark.parametrize("existing", [False, True], ids=["new-file", "over-existing-0644"])
def test_snapshot_file_is_owner_only(tmp_path, existing):
    """The file is 0600 whatever was there before."""
    out = tmp_path / "snap.yaml"
    if existing:
        out.write_text("old\n")
        out.chmod(0o644)
    _snapshot(tmp_path)
    assert 0o600 == stat.S_IMODE(out.stat().st_mode)


def test_json_snapshot_says_what_it_holds_in_an_annotation(tmp_path):
    """JSON has no comments: the List annotation says what was left out."""
    with FakeApiServer([_node(), _secret_pod()], token="t") as fake:
        kc = fake.write_kubeconfig(tmp_path / "kc")
        result = CliRunner().invoke(app, ["snapshot", "--kubeconfig", str(kc), "-o", "json"])
    assert 0 == result.exit_code, result.output
    doc = json.loads(result.stdout)
    assert SECRET not in result.stdout
    assert "env and envFrom" in doc["metadata"]["annotations"]["wapctl.io/contents"]


def test_output_flag_takes_a_format_and_points_a_file_to_output_file(tmp_path):
    """-o FILE (the old spelling) is a usage error that names --output-file."""
    result = CliRunner().invoke(app, ["snapshot", "-o", str(tmp_path / "x.yaml")])
    assert 2 == result.exit_code
    assert f"use --output-file {tmp_path / 'x.yaml'}" in result.stderr


def test_server_version_round_trips_through_the_file(tmp_path):
    """The loader reads wapctl.io/server-version back into Snapshot.server_version; a file
    without it has none."""
    _, out = _snapshot(tmp_path)
    assert "v1.36.2" == ingest.build_snapshot(ingest.read_documents([str(out)])).server_version
    plain = FIXTURES / "plan" / "single-pod.yaml"
    assert ingest.build_snapshot(ingest.read_documents([str(plain)])).server_version is None


def test_live_snapshot_has_the_server_version(tmp_path):
    """The live path reads /version (gitVersion) into Snapshot.server_version."""
    from wapctl.commands.common import SnapshotOptions, load_snapshot

    version = {"major": "1", "minor": "37", "gitVersion": "v1.37.0-alpha.1"}
    with FakeApiServer([_node()], token="t", version=version) as fake:
        kc = fake.write_kubeconfig(tmp_path / "kc")
        snap = load_snapshot(SnapshotOptions(kubeconfig=str(kc)))
        assert "/version" in fake.paths()
    assert "v1.37.0-alpha.1" == snap.server_version


# ---- stripping changes no answer -------------------------------------------------------------


def _fixture_objects() -> list[tuple[str, list[dict[str, Any]]]]:
    cases = []
    for path in sorted(FIXTURES.rglob("*.yaml")):
        if "rbac" in path.parts or path.parent.name == "audit":
            continue
        docs = ingest.read_documents([str(path)])
        cases.append((path.relative_to(FIXTURES).as_posix(), [d.obj for d in docs]))
    recorded = []
    for obj in recorded_objects():
        obj["metadata"].pop("managedFields", None)
        recorded.append(obj)
    cases.append(("recorded k8s 1.36.2 cluster", recorded))
    return cases


CASES = _fixture_objects()


def _build(objects: list[dict[str, Any]]) -> Any:
    docs = ingest.Documents(ingest.Document(Source("snap.json", 1, i), o)
                          for i, o in enumerate(objects))
    return ingest.build_snapshot(docs)


@pytest.mark.parametrize(("name", "objects"), CASES, ids=[c[0] for c in CASES])
def test_stripped_objects_load_as_the_same_cluster(name, objects):
    """The loader builds an equal Snapshot (every node, pod, class, PDB, workload and group,
    with their sources) from the stripped objects as from the full ones."""
    before = copy.deepcopy(objects)
    stripped = [shareable(o) for o in objects]
    assert before == objects  # shareable does not modify its input
    try:
        full = _build(objects)
    except InputError as exc:  # a fixture that is not a whole cluster (manifests to check)
        with pytest.raises(InputError) as caught:
            _build(stripped)
        assert str(exc) == str(caught.value)
        return
    assert full == _build(stripped)


PLANNED = [c for c in CASES if c[0].startswith(("plan/", "simulate/", "recorded"))]


@pytest.mark.parametrize(("name", "objects"), PLANNED, ids=[c[0] for c in PLANNED])
def test_stripped_snapshot_plans_as_the_full_one(tmp_path, name, objects):
    """plan (and, for the recorded cluster, simulate) give the same JSON for a stripped
    snapshot file as for the full one."""
    full = tmp_path / "full.json"
    stripped = tmp_path / "stripped.json"
    full.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    stripped.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                    "items": [shareable(o) for o in objects]}))
    commands = [["plan", "-o", "json"]]
    if name.startswith("recorded"):
        commands.append(["simulate", "-o", "json"])
    for command in commands:
        a = CliRunner().invoke(app, [*command, str(full)])
        b = CliRunner().invoke(app, [*command, str(stripped)])
        assert (a.exit_code, a.stdout) == (b.exit_code, b.stdout), (name, command)
        assert a.exit_code in (0, 1, 3), (name, command, a.output)


def test_stripping_does_remove_something_from_the_fixtures():
    """Not vacuous: the recorded cluster loses fields (annotations, images, env) when
    stripped."""
    recorded = CASES[-1][1]
    assert sum(json.dumps(shareable(o)) != json.dumps(o) for o in recorded) > 20


def test_snapshot_command_and_loader_agree_on_the_annotation():
    """The writer's annotation name is the one the loader reads back."""
    from wapctl.commands import snapshot as command

    assert ingest.SERVER_VERSION_ANNOTATION == command.SERVER_VERSION_ANNOTATION
