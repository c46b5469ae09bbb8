"""Duplicate keys are refused on every reading path (issue 26, point 5).

kubectl refuses a mapping with a key twice (kube-apiserver's strict decoding: sigs.k8s.io/yaml
YAMLToJSONStrict for YAML, sigs.k8s.io/json UnmarshalStrict for JSON); PyYAML, json and msgspec
keep the last value silently, so a Pod with two ``spec:`` keys planned with the second one. Each
test writes a small file whose line numbers are counted by hand in the comments, and checks the
one-line error: exit 2, the object (kind ns/name), the field, the key and both lines.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wapctl import ingest
from wapctl.cli import app
from wapctl.errors import InputError
from wapctl.ingest import duplicate_keys, json_reader, limits, yaml_reader

# line 1  apiVersion: v1            (document 1: a Node)
# line 7  apiVersion: v1            (document 2: the Pod starts here)
# line 12 spec:                     (the first spec: priority 1000, bound to n1)
# line 18 spec:                     (the second spec: no priority -- the one PyYAML kept)
TWO_SPECS = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: default
spec:
  priority: 1000
  nodeName: n1
  containers:
  - name: c
    resources: {requests: {cpu: "1"}}
spec:
  containers:
  - name: c
    resources: {requests: {cpu: "1"}}
"""

TWO_SPECS_ERROR = (
    "error: Pod default/web ({f}:7, document 2, field spec): duplicate key 'spec': "
    "first at {f}:12, again at {f}:18 (kubectl refuses duplicate keys)\n"
)

# line 3  items:
# line 4  - apiVersion: v1          (item 0 starts here)
# line 10     app.kubernetes.io/name: a
# line 11     app.kubernetes.io/name: b
DUPLICATE_LABEL = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: web
    namespace: prod
    labels:
      app.kubernetes.io/name: a
      app.kubernetes.io/name: b
  spec:
    containers: []
"""


def _validate(path: Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["validate", str(path)])
    return result.exit_code, result.stderr


def test_two_spec_keys_are_refused_with_both_lines(tmp_path: Path) -> None:
    """The issue's Pod: exit 2, one line naming the Pod, the key and both lines (PyYAML)."""
    path = tmp_path / "pod.yaml"
    path.write_text(TWO_SPECS, encoding="utf-8")
    code, err = _validate(path)
    assert 2 == code
    assert TWO_SPECS_ERROR.format(f=path) == err


def test_a_duplicate_in_a_cluster_scoped_object_names_it_without_namespace(
    tmp_path: Path,
) -> None:
    """A Node written with an empty metadata.namespace is named "Node n1", not "Node /n1"."""
    path = tmp_path / "node.yaml"
    path.write_text('apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  namespace: ""\n'
                    "spec: {}\nspec: {}\n", encoding="utf-8")
    assert (2, f"error: Node n1 ({path}:1, document 1, field spec): duplicate key 'spec': first "
               f"at {path}:6, again at {path}:7 (kubectl refuses duplicate keys)\n") == (
        _validate(path))


def test_a_duplicate_in_a_kind_wapctl_does_not_read_names_it_without_namespace(
    tmp_path: Path,
) -> None:
    """A ConfigMap (a kind wapctl skips, so it cannot tell whether it is namespaced) written
    without metadata.namespace is named as written, "ConfigMap settings", not
    "ConfigMap None/settings"."""
    path = tmp_path / "cm.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"
                    "data:\n  mode: a\n  mode: b\n", encoding="utf-8")
    assert (2, f"error: ConfigMap settings ({path}:1, document 1, field data.mode): duplicate "
               f"key 'mode': first at {path}:6, again at {path}:7 (kubectl refuses duplicate "
               "keys)\n") == _validate(path)


@pytest.mark.parametrize("exact_limit", [False, True], ids=["small", "exactly-the-check-limit"])
def test_fast_yaml_path_refuses_as_pyyaml_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exact_limit: bool
) -> None:
    """rapidyaml's emitter writes the key twice and msgspec would keep the last: the fast YAML
    path hands such an input to PyYAML, which gives the same line as for a small file.
    FAST_CHECK_MAX is inclusive: an input of exactly that many bytes is still checked (not
    planned silently with the second spec)."""
    monkeypatch.setattr(limits, "FAST_YAML_FROM", 0)
    if exact_limit:
        monkeypatch.setattr(duplicate_keys, "FAST_CHECK_MAX", len(TWO_SPECS.encode("utf-8")))
    path = tmp_path / "pod.yaml"
    path.write_text(TWO_SPECS, encoding="utf-8")
    code, err = _validate(path)
    assert 2 == code
    assert TWO_SPECS_ERROR.format(f=path) == err


# the error for DUPLICATE_LABEL: item 0 starts on line 4, the key is on lines 10 and 11
DUPLICATE_LABEL_ERROR = (
    "Pod prod/web ({f}:4, document 1, item 0, field metadata.labels[\"app.kubernetes.io/name\"]): "
    "duplicate key 'app.kubernetes.io/name': first at {f}:10, again at {f}:11 "
    "(kubectl refuses duplicate keys)"
)


def test_risky_list_slice_of_exactly_the_check_limit_is_still_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FAST_CHECK_MAX is inclusive for a big List read in slices too: a slice holding a value
    YAML 1.1 reads differently (``on-call: yes``, a boolean) is resolved by the fast path, and
    in an input of exactly FAST_CHECK_MAX bytes it is still checked for duplicate keys, so the
    label written twice is refused with both lines (10 and 11), not read silently as ``b``."""
    text = DUPLICATE_LABEL.replace("name: b\n", "name: b\n      on-call: yes\n")
    monkeypatch.setattr(limits, "FAST_YAML_FROM", 0)
    monkeypatch.setattr(yaml_reader, "CHUNK", 64)  # the List (230 bytes) read in slices
    monkeypatch.setattr(duplicate_keys, "FAST_CHECK_MAX", len(text.encode("utf-8")))
    path = tmp_path / "list.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as exc:
        ingest.read_documents([str(path)])
    assert DUPLICATE_LABEL_ERROR.format(f=path) == str(exc.value)


@pytest.mark.parametrize("fast_yaml", [False, True], ids=["pyyaml", "rapidyaml"])
def test_nested_duplicate_in_a_list_item_names_item_and_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast_yaml: bool
) -> None:
    """At any depth: a label key twice in List item 0 names the Pod, the item, the field path
    (a key with dots in brackets, as check-cycles' fields) and lines 10 and 11."""
    if fast_yaml:
        monkeypatch.setattr(limits, "FAST_YAML_FROM", 0)
    path = tmp_path / "list.yaml"
    path.write_text(DUPLICATE_LABEL, encoding="utf-8")
    with pytest.raises(InputError) as exc:
        ingest.read_documents([str(path)])
    assert DUPLICATE_LABEL_ERROR.format(f=path) == str(exc.value)


# The JSON twin of a List with one Pod whose container asks for cpu twice:
# line 1 "{", ... "cpu": "1" on line 19 and "cpu": "2" on line 20 (counted in the text below).
DUPLICATE_CPU = """\
{
  "apiVersion": "v1",
  "kind": "List",
  "items": [
    {
      "apiVersion": "v1",
      "kind": "Pod",
      "metadata": {
        "name": "w",
        "namespace": "d"
      },
      "spec": {
        "containers": [
          {
            "name": "c",
            "resources": {
              "requests": {
                "memory": "1Gi",
                "cpu": "1",
                "cpu": "2"
              }
            }
          }
        ]
      }
    }
  ]
}
"""

DUPLICATE_CPU_ERROR = (
    "Pod d/w ({f}:5, document 1, item 0, field spec.containers[0].resources.requests.cpu): "
    "duplicate key 'cpu': first at {f}:19, again at {f}:20 (kubectl refuses duplicate keys)"
)


def test_json_duplicate_is_refused_on_the_fast_path(tmp_path: Path) -> None:
    """msgspec (the fast JSON reader) keeps the last value; a small input is checked too."""
    path = tmp_path / "list.json"
    path.write_text(DUPLICATE_CPU, encoding="utf-8")
    # the fast path reads it
    assert json_reader.read_json(path.read_bytes(), ingest.MAX_DEPTH) is not None
    with pytest.raises(InputError) as exc:
        ingest.read_documents([str(path)])
    assert DUPLICATE_CPU_ERROR.format(f=path) == str(exc.value)


def test_json_duplicate_is_refused_on_the_safe_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The safe json reader (any JSON input the fast reader declines) refuses the same input
    with the same line."""
    monkeypatch.setattr(json_reader, "read_json", lambda data, depth, *check: None)
    path = tmp_path / "list.json"
    path.write_text(DUPLICATE_CPU, encoding="utf-8")
    with pytest.raises(InputError) as exc:
        ingest.read_documents([str(path)])
    assert DUPLICATE_CPU_ERROR.format(f=path) == str(exc.value)


def test_compact_json_on_one_line_names_the_line_twice(tmp_path: Path) -> None:
    """Both occurrences on line 1: the line is named for each, and the object is the document
    itself (no List): its kind and name."""
    path = tmp_path / "pod.json"
    doc = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "n"},
           "spec": {"containers": []}}
    path.write_text(json.dumps(doc).replace('"kind": "Pod"', '"kind": "Pod", "kind": "Pod"'),
                    encoding="utf-8")
    with pytest.raises(InputError) as exc:
        ingest.read_documents([str(path)])
    assert (f"Pod n/p ({path}:1, document 1, field kind): duplicate key 'kind': "
            f"first at {path}:1, again at {path}:1 (kubectl refuses duplicate keys)"
            ) == str(exc.value)


def test_json_array_with_a_duplicate_key_is_one_error_line(tmp_path: Path) -> None:
    """A bare JSON array (not a List object) with an object writing kind twice, on lines 3 and
    4: the error names the item's field and both lines, as for any duplicate key (no crash on
    the array having no keys of its own)."""
    path = tmp_path / "pods.json"
    path.write_text('[\n {"apiVersion": "v1",\n  "kind": "Pod",\n  "kind": "Pod"}\n]\n',
                    encoding="utf-8")
    with pytest.raises(InputError) as exc:
        ingest.read_documents([str(path)])
    assert (f"{path}:1, document 1, field [0].kind: duplicate key 'kind': "
            f"first at {path}:3, again at {path}:4 (kubectl refuses duplicate keys)"
            ) == str(exc.value)


# line 1  {                         (the document starts here)
# line 4  "labels": two labels with the same value "web" (values are no keys)
# line 6  "spec": (the first spec, a command list of strings)
# line 7  "spec": (the second)
VALUES_ALIKE = """\
{
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "web", "namespace": "prod",
               "labels": {"app": "web", "tier": "web"}},
  "status": {"phase": "Pending"},
  "spec": {"containers": [{"name": "c", "command": ["sleep", "60"]}]},
  "spec": {"containers": []}
}
"""


def test_json_values_alike_are_not_duplicate_keys(tmp_path: Path) -> None:
    """Only keys are compared: two labels with the same value, and strings in a list
    (command), are no duplicate; the error names the key written twice, spec, and its lines."""
    path = tmp_path / "pod.json"
    path.write_text(VALUES_ALIKE, encoding="utf-8")
    with pytest.raises(InputError) as exc:
        ingest.read_documents([str(path)])
    assert (f"Pod prod/web ({path}:1, document 1, field spec): duplicate key 'spec': "
            f"first at {path}:6, again at {path}:7 (kubectl refuses duplicate keys)"
            ) == str(exc.value)


def test_stdin_duplicate_names_stdin_lines(tmp_path: Path) -> None:
    """From standard input the lines are named as <stdin>:N."""
    result = CliRunner().invoke(app, ["validate", "-"], input=TWO_SPECS)
    assert 2 == result.exit_code
    assert TWO_SPECS_ERROR.format(f="<stdin>") == result.stderr


def test_merge_key_overridden_by_an_explicit_key_is_not_a_duplicate(tmp_path: Path) -> None:
    """YAML merge keys: a key written next to ``<<`` overrides the merged one (YAML 1.1's merge
    rule), which is not a duplicate; the Pod keeps its own priority 7."""
    path = tmp_path / "merge.yaml"
    path.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: n}\n"
        "spec:\n  base: &base {priority: 5, schedulerName: default-scheduler}\n"
        "  <<: *base\n  priority: 7\n  containers: []\n",
        encoding="utf-8",
    )
    (doc,) = ingest.read_documents([str(path)])
    assert 7 == doc.obj["spec"]["priority"]
