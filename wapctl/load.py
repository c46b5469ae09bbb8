"""Snapshot files, directories and stdin -> documents -> a validated ``Snapshot``.

Inputs (SPEC.md §1): files, directories (every ``*.yaml``, ``*.yml`` and ``*.json`` directly
inside, sorted by name) and ``-`` for stdin. YAML may hold several documents; JSON holds one
value. A document is one Kubernetes object or a list of them (``kind: List`` or any kind ending
in ``List``, with ``items``), exactly as ``kubectl get ... -o yaml|json`` prints it. Empty YAML
documents (a lone ``---``) are skipped; a file with no documents at all is an error.

Parsing is safe: YAML goes through libyaml's C ``CSafeLoader`` when PyYAML has it (else the pure
Python ``SafeLoader``), so a tag such as ``!!python/object`` is an error, never a constructed
object; documents are composed first so each object keeps the line it starts on
(``Source.line``). Text that starts like JSON is read by the fast reader (``wapctl.reader``:
msgspec against a schema of the fields read, skipping ``managedFields`` and status noise); when
it is not sure it hands over to the ``json`` module (the safe path, today's exact errors); a
``.json`` file that is not valid JSON is an error, anything else falls back to YAML. YAML of
``FAST_YAML_FROM`` (1 MiB) or more first tries ``wapctl.reader_yaml`` (rapidyaml + the JSON fast
reader, behind a pre-scan for what YAML 1.1 could read differently), which gives PyYAML's
objects or hands over to PyYAML with its reason.

Limits against hostile input (each gives exit 2 and one clear line, quickly, in bounded memory):

- ``MAX_INPUT_SIZE`` = 256 MiB per file and for stdin, and ``MAX_FAST_INPUT_SIZE`` = 8 GiB for
  text inputs (YAML or JSON: no NUL byte in the head) of at least ``FAST_FROM`` (1 MiB), which
  the fast readers take in memory bounded by the objects kept (a 5,000-node realistic export is
  ~3.6 GB; big files are memory-mapped, not copied). The safe readers (PyYAML, and ``json``,
  when the fast reader hands over) never take more than ``MAX_INPUT_SIZE``. Files are measured
  with ``stat`` (and 4 KiB of their head) before anything else is read; stdin is read with a
  cap.
  ``--max-input-size`` (``max_input_size``) sets one limit for everything.
- ``MAX_ALIASES`` = 100 alias uses (``*name``) per YAML document, and ``MAX_ALIAS_EXPANSION`` =
  100,000 nodes that those aliases may stand for once expanded ("billion laughs" has only 72
  aliases but 10^9 nodes). Checked in a parse-only pass over libyaml's events, before anything is
  composed, that runs only when the text contains an anchor and an alias, so ordinary snapshots
  (kubectl never writes aliases) pay nothing. An alias to an unfinished anchor (a recursive
  structure) is refused there too.
- ``MAX_DEPTH`` = 100 levels of nested mappings/lists per document (a real Kubernetes object
  is about 15 deep). Checked on every YAML document and safe-path JSON by an iterative walk;
  the fast JSON reader checks the text's bracket nesting before decoding instead (no walk; a
  deeper document goes to the safe path) — nothing in wapctl recurses on input structure, and a
  ``RecursionError`` from a parser is reported as this limit.
  libyaml itself refuses more than 1000 levels before building anything.
- Very long scalars are fine up to the size limit.

Kinds read: ``Node`` (v1), ``Pod`` (v1), ``PriorityClass`` (scheduling.k8s.io), a
``PodDisruptionBudget`` (policy), ``Workload`` / ``PodGroup`` of scheduling.k8s.io ``v1alpha1``,
``v1alpha2``, ``v1alpha3`` and ``v1beta1``, and ``Namespace`` (v1, labels only, for pod
affinity namespaceSelectors; see ``load_constraints``). Every other kind is counted in
``Snapshot.ignored_kinds`` (a known kind name of another API group, such as Kueue's
``Workload``, is counted as ``Workload.kueue.x-k8s.io``).

Workload API shapes — field names checked against kubernetes/kubernetes
``staging/src/k8s.io/api/scheduling/{v1alpha1,v1alpha2,v1alpha3}/types.go``: v1alpha1 in the
revision that holds ``Workload`` with ``PodGroups []PodGroup`` / ``PodGroupPolicy`` (and
pkg/registry/scheduling/workload's strategy test for ``Policy.Gang.DisruptionMode``); v1alpha2
at 2bf085f4f11d27f7dfadc56d6514627330960a07 (flat ``podGroupTemplateRef``), at
056a01553e91d6ad2c3d1e82927ea348f6e84887 (the ``podGroupTemplateRef.workload`` union) and in
the later revision adding ``DisruptionMode``/``PriorityClassName``/``Priority`` to
``PodGroupTemplate`` and ``PodGroupSpec``; v1alpha3 at 0c66e103c5b3037fffd568c44857ee99ded636b2.
The pod side follows the scheduler's ``pod.Spec.SchedulingGroup.PodGroupName``
(pkg/scheduler/framework/preemption) and core/v1 ``WorkloadReference{name, podGroup,
podGroupReplicaKey}``. Priority divergence: kubernetes/enhancements#6367 (KEP-5710: from Beta
the scheduler fails a group whose pods' priority differs from the group's) and
kubernetes/kubernetes#139030 (the PodGroup's priority is authoritative for its pods).

- v1alpha1: ``Workload.spec.podGroups[]{name, policy{basic: {} | gang: {minCount}}}``; pods join
  with ``spec.workloadRef{name, podGroup}``. KEP-5710 fields: ``spec.priorityClassName``,
  ``spec.preemptionPriorityClassName`` and per group ``disruptionMode`` (also spelled
  ``preemptionMode``, or ``policy.gang.disruptionMode`` as one upstream revision had it):
  ``Pod | PodGroup``. The Workload's class overrides its pods' own priorities (SPEC.md §2).
- v1alpha2: ``Workload.spec.podGroupTemplates[]{name, schedulingPolicy, disruptionMode,
  priorityClassName, priority}`` and separate ``PodGroup`` objects with
  ``spec.podGroupTemplateRef.workload{workloadName, podGroupTemplateName}`` (the flat
  ``podGroupTemplateRef{workloadName, podGroupTemplateName}`` is accepted too),
  ``schedulingPolicy``, ``disruptionMode`` ``Pod | PodGroup``, ``priorityClassName``,
  ``priority``; pods join with ``spec.schedulingGroup.podGroupName``.
- v1alpha3: as v1alpha2, but ``disruptionMode`` is the union ``{single: {}} | {all: {}}``,
  templates and PodGroups carry ``preemptionPolicy``, and the PodGroup's template reference is
  ``spec.workloadRef{workloadName, templateName}``.
- v1beta1: read as v1alpha3 (the same fields wapctl reads; see ``wapctl.workload_api``).

A PodGroup object's fields win over its template's, which win over the Workload's
(``priorityClassName``/``priority`` travel as a pair). ``preemptionPriorityClassName`` (the
seed-era KEP-5710 field that ``check-cycles`` guards) is accepted on the Workload in every
shape and, for v1alpha2/v1alpha3, on templates and PodGroups too, most specific first.
Normalised pod groups are keyed ``ns/<workload>/<group>``: the v1alpha1 group name, or the
v1alpha2/v1alpha3 PodGroup object's ``metadata.name`` — so the same cluster written in each
shape, with PodGroup objects named like their templates, gives the same keys.

What a real cluster's export legitimately holds loads, with a ``LoadWarning`` in
``Snapshot.warnings`` (SPEC.md §1): List items without kind (the list's kind tells), a class
missing where a priority number stands in for it (``MissingPriorityClass``; the built-in
``system-*`` classes are always known), a pod whose PodGroup or Workload is missing (planned as
a standalone pod, ``MissingPodGroup``), a PodGroup whose Workload is missing (its own settings,
``MissingWorkload``), a pod of a v1alpha2/v1alpha3 PodGroup whose own priority differs from the
group's (``PriorityDivergence``: the real 1.36 scheduler binds such pods, KEP-5710 Beta fails
the group; both numbers are kept, ``Pod.priority`` is the group's, ``Pod.own_priority`` the
pod's; v1alpha1 follows SPEC.md: the Workload's class wins).

Contradictions are ``InputError`` (exit 2), each naming file, document, List item and field:
``PodGroup`` disruption with a ``basic`` policy, a PodGroup whose template is missing (or whose
Workload is missing when it has no policy of its own), a pod whose v1alpha1 group is missing,
gang ``minCount`` < 1, duplicate objects, missing PriorityClasses with no number standing in,
negative or unparsable quantities, wrong types and unknown enum values.
Not supported (an error, so nothing is silently misread): standalone PodGroups without a
template reference and v1alpha3/v1beta1 ``compositePodGroupTemplates``; ``podGroupReplicaKey`` is
ignored. Nothing here modifies its input.
"""

from __future__ import annotations

import json
import mmap
import os
import re
import stat
import sys
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from itertools import compress, count, repeat
from operator import add, attrgetter, is_not
from typing import Any, BinaryIO, NamedTuple, cast

import msgspec
import yaml

from wapctl import fields, reader, reader_hints, reader_keys
from wapctl import load_constraints as constraints
from wapctl import priority as prio
from wapctl import templates as tmpl
from wapctl.errors import InputError, Source, UsageError
from wapctl.fields import enum as _enum
from wapctl.fields import label_selector as _label_selector
from wapctl.fields import list_field as _list
from wapctl.fields import mapping as _mapping
from wapctl.fields import opt_bool as _opt_bool
from wapctl.fields import opt_int as _opt_int
from wapctl.fields import opt_str as _opt_str
from wapctl.fields import req_str as _req_str
from wapctl.fields import requirement as _requirement
from wapctl.fields import str_map as _str_map
from wapctl.fields import type_error as _type_error
from wapctl.fields import typename as _typename
from wapctl.gcpause import gc_paused
from wapctl.model import (
    NEVER,
    PREEMPT_LOWER,
    DisruptionMode,
    GroupPolicy,
    LoadWarning,
    Node,
    NodeSelectorTerm,
    Pod,
    PodDisruptionBudget,
    PodGroup,
    PodTemplateWorkload,
    PriorityClass,
    Snapshot,
    Taint,
    Toleration,
    Workload,
    sorted_warnings,
)
from wapctl.quantity import QuantityError, parse_quantity
from wapctl.quantity import amount as _quantity_amount
from wapctl.workload_api import UNION_SHAPES, V1ALPHA3, V1BETA1, union_mode

__all__ = [
    "DEFAULT_NODE_PODS",
    "MAX_ALIASES",
    "MAX_ALIAS_EXPANSION",
    "MAX_DEPTH",
    "MAX_FAST_INPUT_SIZE",
    "MAX_INPUT_SIZE",
    "Document",
    "build_snapshot",
    "parse_size",
    "read_documents",
]

MAX_INPUT_SIZE = 256 * 1024 * 1024  # bytes per file / stdin (and what the safe readers take)
MAX_FAST_INPUT_SIZE = 8 << 30  # ... for JSON, read fast (a 5,000-node export is ~3 GB)
FAST_FROM = 1 << 20  # inputs from this size on get MAX_FAST_INPUT_SIZE
FAST_YAML_FROM = 1 << 20  # YAML from this size on tries the fast reader (smaller: PyYAML)
MAX_ALIASES = 100  # alias uses per YAML document
MAX_ALIAS_EXPANSION = 100_000  # nodes the aliases of one document may stand for, expanded
MAX_DEPTH = 100  # nesting levels per document
# A node whose status lists no "pods" allocatable gets the kubelet's default --max-pods.
DEFAULT_NODE_PODS = 110

_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SUFFIXES = (".yaml", ".yml", ".json")
_STDIN = "<stdin>"

API_GROUP = "scheduling.k8s.io"
V1ALPHA1 = "scheduling.k8s.io/v1alpha1"
V1ALPHA2 = "scheduling.k8s.io/v1alpha2"
_WORKLOAD_VERSIONS = (V1ALPHA1, V1ALPHA2, V1ALPHA3, V1BETA1)
_PODGROUP_VERSIONS = (V1ALPHA2, V1ALPHA3, V1BETA1)


# where a document starts (1-based line) and where each of its ``items`` starts, when known
Lines = tuple[int | None, list[int] | None]


class Document(NamedTuple):
    """One Kubernetes object and where it came from (List items are already flattened)."""

    source: Source
    obj: dict[str, Any]


SERVER_VERSION_ANNOTATION = "wapctl.io/server-version"


class Documents(list[Document]):
    """The documents read, and the API server version their source names: the live
    ``/version``, or the ``wapctl.io/server-version`` annotation of a List that ``wapctl
    snapshot`` wrote (the first one found). ``build_snapshot`` carries it to the Snapshot,
    with ``warnings``: what a live read could not list but the run survives (e.g.
    ``NamespacesUnreadable``)."""

    server_version: str | None = None
    warnings: tuple[LoadWarning, ...] = ()


def _server_version(obj: dict[str, Any]) -> str | None:
    meta = obj.get("metadata")
    annotations = meta.get("annotations") if type(meta) is dict else None
    value = annotations.get(SERVER_VERSION_ANNOTATION) if type(annotations) is dict else None
    return value if type(value) is str and value else None


# ---- sizes ---------------------------------------------------------------------------------


def parse_size(text: str) -> int:
    """A byte count written as a quantity (``512Mi``, ``2Gi``, ``1e9``) for --max-input-size."""
    try:
        size = parse_quantity(text.strip() if isinstance(text, str) else text)
    except QuantityError as exc:
        raise UsageError(
            f"--max-input-size: {exc.reason} in {text!r} (e.g. 512Mi or 2Gi)"
        ) from None
    if size <= 0:
        raise UsageError(f"--max-input-size must be positive, got {text!r}")
    return -((-size.numerator) // size.denominator)


def _human(size: int) -> str:
    for unit, shift in (("Gi", 30), ("Mi", 20), ("Ki", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift}{unit}"
    return f"{size} bytes"


# ---- reading files -------------------------------------------------------------------------


def read_documents(
    paths: list[str], *, max_input_size: int | None = None, stdin: BinaryIO | None = None
) -> Documents:
    """Every object in ``paths`` in input order (a directory's files sorted by name).

    ``max_input_size`` is the size limit for every input; by default it is ``MAX_INPUT_SIZE``,
    or ``MAX_FAST_INPUT_SIZE`` for an input of at least ``FAST_FROM`` bytes that starts like
    JSON (what the fast reader takes, in memory bounded by the objects kept)."""
    out = Documents()
    with gc_paused():
        for path in paths:
            _read_path(path, max_input_size, stdin, out)
    return out


def _default_limit(explicit: int | None, head: bytes, size: int) -> int:
    """The limit for an input of ``size`` bytes (at least) that starts with ``head``."""
    if explicit is not None:
        return explicit
    if size < FAST_FROM:
        return MAX_INPUT_SIZE
    if b"\x00" in head:  # not text: refused by its size before it is read
        return MAX_INPUT_SIZE
    # JSON and YAML both have a fast reader (wapctl.reader, wapctl.reader_yaml); what it hands
    # over to the safe readers is capped at MAX_INPUT_SIZE by _slow_path_bytes
    return max(MAX_INPUT_SIZE, MAX_FAST_INPUT_SIZE)


_HEAD = 4096


def _read_path(
    path: str, explicit: int | None, stdin: BinaryIO | None, out: list[Document]
) -> None:
    if path == "-":
        stream = stdin if stdin is not None else sys.stdin.buffer
        if explicit is not None:
            limit = explicit
            data = _read_capped(stream, limit + 1)
        else:  # the first MiB tells which default applies
            data = _read_capped(stream, FAST_FROM)
            limit = _default_limit(None, data, len(data))
            if len(data) == FAST_FROM:
                data += _read_capped(stream, limit + 1 - len(data))
        if len(data) > limit:
            raise InputError(_too_large(limit), Source(_STDIN))
        _parse_into(_STDIN, data, False, out, explicit)
        return
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError("no such file or directory", Source(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", Source(path)) from None
    if stat.S_ISDIR(st.st_mode):
        for name in _directory_files(path):
            _read_file(name, explicit, out)
    else:
        _read_file(path, explicit, out, st)


def _directory_files(path: str) -> list[str]:
    try:
        names = sorted(os.listdir(path))
    except OSError as exc:
        raise InputError(f"cannot list directory: {exc.strerror or exc}", Source(path)) from None
    files = [
        os.path.join(path, n)
        for n in names
        if n.lower().endswith(_SUFFIXES) and os.path.isfile(os.path.join(path, n))
    ]
    if not files:
        raise InputError("directory has no *.yaml, *.yml or *.json files", Source(path))
    return files


_CHUNK = 1 << 20


def _read_capped(stream: BinaryIO, cap: int, first: int = _CHUNK) -> bytes:
    """At most ``cap`` bytes, in chunks, so a small input never costs a ``cap``-sized buffer."""
    chunks = []
    total = 0
    want = min(cap, max(first, 1))
    while total < cap:
        chunk = stream.read(want)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        want = min(cap - total, max(_CHUNK, total))
    return b"".join(chunks) if len(chunks) != 1 else chunks[0]


def _too_large(limit: int) -> str:
    return f"input is larger than the {_human(limit)} limit (raise it with --max-input-size)"


def _read_file(
    path: str, explicit: int | None, out: list[Document], st: os.stat_result | None = None
) -> None:
    data: Any = None
    try:
        if st is None:
            st = os.stat(path)
        regular = stat.S_ISREG(st.st_mode)
        with open(path, "rb") as fh:
            head = fh.read(_HEAD) if regular and explicit is None else b""
            limit = _default_limit(explicit, head, st.st_size if regular else FAST_FROM)
            if regular and st.st_size > limit:
                raise InputError(
                    f"file is {st.st_size} bytes, larger than the {_human(limit)} limit "
                    "(raise it with --max-input-size)",
                    Source(path),
                )
            if regular and st.st_size >= _MAP_FROM:
                # a big export is mapped, not copied: the decoder reads the page cache directly
                # (copy-on-write: the YAML parser works in place on a private copy of the pages
                # it changes; the file itself is never written)
                data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_COPY)
            else:
                # read(n) allocates n bytes up front: ask for what stat promised, capped
                fh.seek(0)
                expected = st.st_size if regular else 0
                data = _read_capped(fh, limit + 1, expected + 1)
    except InputError:
        raise
    except (OSError, ValueError) as exc:  # ValueError: mmap of a file emptied meanwhile
        reason = getattr(exc, "strerror", None) or exc
        raise InputError(f"cannot read: {reason}", Source(path)) from None
    try:
        if len(data) > limit:
            raise InputError(_too_large(limit), Source(path))
        _parse_into(path, data, path.lower().endswith(".json"), out, explicit)
    finally:
        if type(data) is mmap.mmap:
            data.close()


_LEADING_SPACE = re.compile(rb"[ \t\r\n]*")
_MAP_FROM = 64 << 20  # files this big are memory-mapped instead of read
_ALIAS = re.compile(r"(?:^|[\s\[{,:])\*[^\s\[\]{},]", re.MULTILINE)


def _parse_into(
    name: str, data: Any, json_only: bool, out: list[Document], explicit: int | None = None
) -> None:
    """Parse one input's bytes (or a read-only map of them) and append its objects to ``out``."""
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    start = _LEADING_SPACE.match(data).end()  # type: ignore[union-attr]
    if start == len(data):
        raise InputError("empty input: no YAML or JSON documents", Source(name))
    json_like = json_only or data[start : start + 1] in (b"{", b"[")
    # The fast reader refuses any NUL byte (JSON has none, not even in a skipped string), so
    # the scan for them waits until it has refused the input (a 3.5 GB export: ~0.4 s saved).
    docs = _fast_json(name, data) if json_like else None
    if docs is None:
        if data.find(b"\x00") >= 0:
            raise InputError("binary data (NUL bytes), not YAML or JSON", Source(name))
        if json_like:
            docs = _parse_json(name, data, json_only, explicit)
        if docs is None:
            docs = _parse_yaml(name, data, explicit)
    if not docs:
        raise InputError("no YAML or JSON documents (only empty ones)", Source(name))
    for number, obj, lines in docs:
        _flatten(name, number, obj, out, lines)


def _slow_path_bytes(
    name: str, data: Any, what: str, explicit: int | None, reason: str = ""
) -> bytes:
    """``data`` as bytes for the safe (json / PyYAML) readers, which take several times the
    input's size in memory: past ``MAX_INPUT_SIZE`` only with an explicit --max-input-size."""
    limit = MAX_INPUT_SIZE if explicit is None else explicit
    if len(data) > limit:
        if what == "YAML":
            why = (
                "it needs the exact YAML 1.1 reader, PyYAML"
                + (f" ({reason})" if reason else "")
                + ", which takes about 30 times the file in memory; raise the limit with "
                "--max-input-size, or export JSON (-o json)"
            )
        else:
            why = (
                "the fast JSON reader could not take it (a syntax error, an unusual value or "
                f"nesting deeper than {MAX_DEPTH} levels) and the safe reader needs several "
                "times the file in memory; raise the limit with --max-input-size"
            )
        raise InputError(
            f"{len(data)} bytes of {what}, larger than the {_human(limit)} limit: {why}",
            Source(name),
        )
    return data if type(data) is bytes else data[:]


def _fast_json(name: str, data: Any) -> list[tuple[int, Any, Lines]] | None:
    """The JSON document in ``data`` by the fast reader, or None: take the safe path."""
    fast = reader.read_json(data, MAX_DEPTH)
    if fast is None:
        return None
    if len(data) <= reader_keys.FAST_CHECK_MAX:  # a duplicate key: msgspec kept the last
        _unique_keys(name, data)
    if type(fast.get("items")) is list:
        reader.register_json_lines(name)
    line = data[: _LEADING_SPACE.match(data).end()].count(b"\n") + 1  # type: ignore[union-attr]
    return [(1, fast, (line, None))]


def _unique_keys(name: str, data: Any) -> None:
    try:
        reader_keys.check_json(data)
    except reader_keys.DuplicateKey as dup:
        raise reader_keys.error(name, 1, json.loads(bytes(data)), dup) from None


def _parse_json(
    name: str, data: Any, required: bool, explicit: int | None = None
) -> list[tuple[int, Any, Lines]] | None:
    """The JSON document in ``data`` by the safe reader (``json``), exact errors: None when
    it is not JSON and need not be (the caller tries YAML)."""
    line = data[: _LEADING_SPACE.match(data).end()].count(b"\n") + 1  # type: ignore[union-attr]
    data = _slow_path_bytes(name, data, "JSON", explicit)
    try:
        obj = reader_keys.loads(data)
    except reader_keys.DuplicateKey as dup:
        raise reader_keys.error(name, 1, json.loads(data), dup) from None
    except RecursionError:
        raise InputError(_depth_message(), Source(name, 1)) from None
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text (a binary file?)", Source(name)) from None
    except ValueError as exc:  # JSONDecodeError, or an int with too many digits
        if not required:
            return None
        if isinstance(exc, json.JSONDecodeError):
            hint = ": it holds YAML, not JSON (name it .yaml)" * reader_hints.yaml_not_json(data)
            raise InputError(f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
                             f"{hint}", Source(name, 1, line=exc.lineno)) from None
        raise InputError(f"invalid JSON: {reader_hints.value_problem(exc)}",
                         Source(name, 1)) from None
    _check_depth(obj, Source(name, 1))
    if type(obj) is dict and type(obj.get("items")) is list:
        reader.register_json_lines(name)
    return [(1, obj, (line, None))]


def _parse_yaml(name: str, data: Any, explicit: int | None = None) -> list[tuple[int, Any, Lines]]:
    reason = ""
    if len(data) >= FAST_YAML_FROM:
        from wapctl import reader_yaml  # rapidyaml loads only for big YAML

        fast, reason = reader_yaml.read_yaml(data, MAX_DEPTH)
        if fast is not None:
            reader_yaml.register_yaml_lines(name, fast)
            return [(number, obj, (None, None)) for number, obj in fast]
    data = _slow_path_bytes(name, data, "YAML", explicit, reason)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text (a binary file?)", Source(name)) from None
    if "*" in text and "&" in text and _ALIAS.search(text):
        _check_events(name, text)
    docs: list[tuple[int, Any, tuple[int | None, list[int] | None]]] = []
    number = 0
    loader = reader_keys.UniqueKeyLoader(text)
    try:
        # what yaml.load_all does, keeping each document's composed node for its line marks
        while loader.check_node():
            node = loader.get_node()
            obj = loader.construct_document(node)
            number += 1
            if obj is not None:
                _check_depth(obj, Source(name, number, line=node.start_mark.line + 1))
                docs.append((number, obj, _node_lines(node)))
    except InputError:
        raise
    except reader_keys.DuplicateKey as dup:
        dup.steps = reader_keys.yaml_steps(node, dup.node)
        doc = reader_keys.yaml_plain(node)
        raise reader_keys.error(name, number + 1, doc, dup, _node_lines(node)) from None
    except yaml.YAMLError as exc:
        raise reader_hints.yaml_error(exc, name, number + 1, text, _depth_message()) from None
    except RecursionError:
        raise InputError(_depth_message(), Source(name, number + 1)) from None
    except (ValueError, OverflowError) as exc:  # e.g. a 5000-digit integer, a bad date
        raise InputError(f"invalid YAML value: {reader_hints.value_problem(exc)}",
                         Source(name, number + 1)) from None
    except Exception as exc:  # PyYAML's constructors trip over some explicit tags (!!timestamp x)
        raise InputError(
            f"invalid YAML value ({type(exc).__name__}: {exc})", Source(name, number + 1)
        ) from None
    finally:
        loader.dispose()
    return docs


def _node_lines(node: Any) -> tuple[int, list[int] | None]:
    """The 1-based line where a composed document starts and, when it has an ``items`` list,
    where each item starts (only read when the document turns out to be a List)."""
    items = None
    if type(node) is yaml.MappingNode:
        for key, value in node.value:
            if key.value == "items" and type(value) is yaml.SequenceNode:
                items = [item.start_mark.line + 1 for item in value.value]
    return node.start_mark.line + 1, items


def _depth_message() -> str:
    return f"nested deeper than {MAX_DEPTH} levels"


def _check_events(name: str, text: str) -> None:
    """Alias and depth limits on the parser's events, before anything is composed.

    Besides counting alias uses, this adds up how many nodes the aliases would stand for once
    expanded (an anchor's subtree size, aliases inside it included): a billion-laughs bomb has
    only 72 aliases but expands to 10^9 nodes."""
    number = 0
    aliases = 0
    expansion = 0
    stack: list[list[Any]] = []  # open collections: [anchor, expanded size]
    anchors: dict[str, int] = {}
    try:
        event: Any  # PyYAML's events carry ``anchor`` on the kinds tested below
        for event in yaml.parse(text, Loader=_LOADER):
            kind = type(event)
            if kind is yaml.ScalarEvent:
                if event.anchor is not None:
                    anchors[event.anchor] = 1
                if stack:
                    stack[-1][1] += 1
            elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
                stack.append([event.anchor, 1])
                if len(stack) > MAX_DEPTH:
                    raise InputError(_depth_message(), Source(name, number))
            elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
                anchor, size = stack.pop()
                if anchor is not None:
                    anchors[anchor] = size
                if stack:
                    stack[-1][1] += size
            elif kind is yaml.AliasEvent:
                aliases += 1
                size = anchors.get(event.anchor)
                if size is None:
                    raise InputError(
                        f"YAML alias *{event.anchor} refers to no complete anchor "
                        "(undefined, or a recursive structure)",
                        Source(name, number),
                    )
                expansion += size
                if aliases > MAX_ALIASES or expansion > MAX_ALIAS_EXPANSION:
                    raise InputError(
                        f"YAML aliases exceed the limits ({MAX_ALIASES} aliases, "
                        f"{MAX_ALIAS_EXPANSION} expanded nodes per document): an alias bomb?",
                        Source(name, number),
                    )
                if stack:
                    stack[-1][1] += size
            elif kind is yaml.DocumentStartEvent:
                number += 1
                aliases = expansion = 0
                anchors.clear()
    except yaml.YAMLError as exc:
        raise reader_hints.yaml_error(exc, name, number or 1, text, _depth_message()) from None


def _check_depth(obj: Any, source: Source) -> None:
    """MAX_DEPTH on a parsed document, iteratively (a parser may nest deeper than we allow)."""
    if type(obj) is not dict and type(obj) is not list:
        return
    level = [obj]
    depth = 1
    while level:
        if depth > MAX_DEPTH:
            raise InputError(_depth_message(), source)
        nxt: list[Any] = []
        add = nxt.append
        for x in level:
            for v in x.values() if type(x) is dict else x:
                t = type(v)
                if t is dict or t is list:
                    add(v)
        level = nxt
        depth += 1


def _flatten(
    name: str, number: int, obj: Any, out: list[Document], lines: Lines = (None, None)
) -> None:
    line, item_lines = lines
    if type(obj) is not dict:
        raise InputError(
            f"a document must be a mapping (a Kubernetes object or List), not {_typename(obj)}",
            Source(name, number),  # not an object: the document number says where
        )
    kind = obj.get("kind")
    items = obj.get("items")
    if type(kind) is str and kind.endswith("List") and (type(items) is list or kind == "List"):
        if isinstance(out, Documents) and out.server_version is None:
            out.server_version = _server_version(obj)
        if type(items) is not list:
            if items is None:
                return  # an empty List as some tools print it
            raise InputError(
                f"must be a list, not {_typename(items)}", Source(name, number, line=line), "items"
            )
        # A raw API list (``kubectl get --raw``, curl: ``PodList``) leaves kind and apiVersion
        # off its items: they are the list's. The item is copied, never modified.
        item_kind = kind[: -len("List")] if kind != "List" else None
        api = obj.get("apiVersion")
        if item_lines is None or len(item_lines) != len(items):
            item_lines = [None] * len(items)  # type: ignore[list-item]
        for i, item in enumerate(items):
            if type(item) is not dict:
                raise InputError(
                    f"a List item must be a mapping (a Kubernetes object), not {_typename(item)}",
                    Source(name, number, i, item_lines[i]),
                )
            if item_kind and "kind" not in item:
                item = {**item, "kind": item_kind}
                if "apiVersion" not in item and type(api) is str:
                    item["apiVersion"] = api
            out.append(Document(Source(name, number, i, item_lines[i]), item))
        return
    out.append(Document(Source(name, number, line=line), obj))


# (resource name, quantity text) -> amount, for pairs ``_amount`` has accepted: the same few
# strings repeat across a cluster's pods, and a hit needs none of the checks again.
_AMOUNTS: dict[tuple[str, str], int] = {}
_AMOUNTS_LIMIT = 100_000


def _amount(resource: Any, q: Any, source: Source, path: str) -> int:
    """A non-negative resource amount; ``path`` is the field path of the mapping holding it."""
    if type(q) is str:
        value = _AMOUNTS.get((resource, q))  # only accepted (str, str) pairs are stored
        if value is not None:
            return value
    if type(resource) is not str:
        raise InputError("resource names must be strings", source, path)
    try:
        value = _quantity_amount(resource, q)
    except QuantityError as exc:
        raise InputError(f"{exc.reason} in {exc.text!r}", source, f"{path}.{resource}") from None
    if value < 0:
        raise InputError(f"negative quantity {q!r}", source, f"{path}.{resource}")
    if type(q) is str and len(_AMOUNTS) < _AMOUNTS_LIMIT:
        _AMOUNTS[(resource, q)] = value
    return value


_ISO = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:([Zz])|([+-])(\d\d):(\d\d))?"
)


# datetime.fromisoformat reads a trailing "Z" as UTC itself from Python 3.11 on, at a third of
# the cost of rewriting it to "+00:00" first (two timestamps on each of 151k pods).
_FROMISO_Z = sys.version_info >= (3, 11)


def _time(value: Any, source: Source, field: str) -> float | None:
    """RFC3339 (what the API server writes) -> epoch seconds; a naive time counts as UTC."""
    if value is None:
        return None
    if type(value) is str:
        dt = None
        if _FROMISO_Z and value[-1:] == "Z":
            try:
                dt = datetime.fromisoformat(value)
            except ValueError:
                pass
        if dt is None:
            try:
                dt = datetime.fromisoformat(
                    value[:-1] + "+00:00" if value[-1:] in "Zz" else value)
            except ValueError:
                dt = _slow_time(value, source, field)
    elif type(value) is datetime:  # an unquoted timestamp in YAML
        dt = value
    else:
        raise _type_error(value, "an RFC3339 timestamp string", source, field)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.timestamp()


def _slow_time(value: str, source: Source, field: str) -> datetime:
    m = _ISO.fullmatch(value)
    if m is None:
        raise InputError(f"not an RFC3339 timestamp: {value!r}", source, field)
    y, mo, d, h, mi, s, frac, _z, sign, oh, om = m.groups()
    try:
        tz = timezone.utc
        if sign:
            from datetime import timedelta

            offset = timedelta(hours=int(oh), minutes=int(om))
            tz = timezone(offset if sign == "+" else -offset)
        micro = int((frac or "0")[:6].ljust(6, "0"))
        return datetime(int(y), int(mo), int(d), int(h), int(mi), int(s), micro, tzinfo=tz)
    except ValueError as exc:
        raise InputError(f"not an RFC3339 timestamp: {value!r} ({exc})", source, field) from None


_Head = tuple[dict[str, Any], str, str]  # (metadata, namespace, name) read once per object


def _meta(obj: dict[str, Any], source: Source, namespaced: bool) -> _Head:
    meta = obj.get("metadata")
    if type(meta) is not dict:
        if meta is None:
            raise InputError("missing (required)", source, "metadata.name")
        raise _type_error(meta, "a mapping", source, "metadata")
    name = meta.get("name")
    if type(name) is not str or not name:
        if name is None or name == "":
            raise InputError("missing (required)", source, "metadata.name")
        raise _type_error(name, "a string", source, "metadata.name")
    ns = ""
    if namespaced:
        ns = meta.get("namespace") or "default"
        if type(ns) is not str:
            raise _type_error(ns, "a string", source, "metadata.namespace")
    return meta, ns, name


# ---- Node ----------------------------------------------------------------------------------

_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _node(obj: dict[str, Any], source: Source, head: _Head) -> Node:
    """``status.allocatable`` (``status.capacity`` when a node reports no allocatable), labels,
    taints and ``spec.unschedulable``. A node that lists no ``pods`` allocatable gets
    ``DEFAULT_NODE_PODS`` (110, the kubelet's default ``--max-pods``)."""
    meta, _, name = head
    spec = _mapping(obj.get("spec"), source, "spec")
    status = _mapping(obj.get("status"), source, "status")
    raw = status.get("allocatable")
    path = "status.allocatable"
    if not raw:
        raw, path = status.get("capacity"), "status.capacity"
    raw = _mapping(raw, source, path)
    allocatable = {k: _amount(k, q, source, path) for k, q in raw.items()}
    if "pods" not in allocatable:
        allocatable["pods"] = DEFAULT_NODE_PODS
    taints = []
    for i, t in enumerate(_list(spec.get("taints"), source, "spec.taints")):
        f = f"spec.taints[{i}]"
        if type(t) is not dict:
            raise _type_error(t, "a mapping", source, f)
        taints.append(
            Taint(
                key=_req_str(t.get("key"), source, f + ".key"),
                value=_opt_str(t.get("value"), source, f + ".value") or "",
                effect=_enum(t.get("effect"), _TAINT_EFFECTS, source, f + ".effect")
                or _missing(source, f + ".effect"),
            )
        )
    return Node(
        name=name,
        labels=_str_map(meta.get("labels"), source, "metadata.labels"),
        allocatable=allocatable,
        taints=tuple(taints),
        unschedulable=_opt_bool(spec.get("unschedulable"), source, "spec.unschedulable"),
        source=source,
    )


def _missing(source: Source, field: str) -> Any:
    raise InputError("missing (required)", source, field)


# ---- PriorityClass -------------------------------------------------------------------------

# The classes every API server creates at start, whether or not an export lists them:
# kubernetes/kubernetes pkg/apis/scheduling/helpers.go ``systemPriorityClasses``, with
# ``SystemCriticalPriority = 2 * HighestUserDefinablePriority`` = 2 * 10^9 (types.go).
BUILTIN_PRIORITY_CLASSES = {
    "system-node-critical": PriorityClass("system-node-critical", 2_000_001_000),
    "system-cluster-critical": PriorityClass("system-cluster-critical", 2_000_000_000),
}


class _ClassBook(dict):  # type: ignore[type-arg]
    """The PriorityClasses to resolve names against (the snapshot's, then the built-in ones),
    and the objects that named a class the snapshot lacks but carry a number of their own.

    A missing class is an error only where no number stands in for it (``resolve``)."""

    def __init__(self, classes: dict[str, PriorityClass]):
        super().__init__(BUILTIN_PRIORITY_CLASSES)
        self.update(classes)
        # class name -> [(object label, source, field, number or None)]
        self.missing: dict[str, list[tuple[str, Source, str, int | None]]] = {}

    def resolve(
        self, name: str, number: int | None, label: str, source: Source, field: str,
        *, deferred: bool = False,
    ) -> PriorityClass | None:
        """The class called ``name``. Missing: None when ``number`` stands in for it (or the
        caller defers the decision), noted for a warning; otherwise an ``InputError``."""
        found: PriorityClass | None = self.get(name)
        if found is not None:
            return found
        if number is None and not deferred:
            raise _missing_class(name, source, field)
        self.missing.setdefault(name, []).append((label, source, field, number))
        return None

    def warnings(self) -> list[LoadWarning]:
        out = []
        for name, users in self.missing.items():
            label, source, field, _ = min(users, key=lambda u: u[0])
            numbers = ", ".join(map(str, sorted({n for *_, n in users if n is not None})))
            others = len(users) - 1
            who = (f"; {others} more object{'s name' if others > 1 else ' names'} it too"
                   if others else "")
            if not numbers:
                used = "the PodGroups carry their own priority"
            elif others:
                used = f"the priority each object carries is used ({numbers})"
            else:
                used = f"the priority it carries is used ({numbers})"
            out.append(LoadWarning(
                "MissingPriorityClass", label, field,
                f"PriorityClass {name!r} is not in the snapshot (deleted, or left out of the "
                f"export){who}; {used}",
                source.describe(),
            ))
        return out


def _missing_class(name: str, source: Source, field: str) -> InputError:
    return InputError(
        f"PriorityClass {name!r} does not exist in the snapshot and no priority number stands "
        f"in for it: add it to the snapshot (kubectl get priorityclass {name} -o yaml)",
        source,
        field,
    )

_POLICIES = (PREEMPT_LOWER, NEVER)


_check_int32 = fields.check_int32


def _priority_class(obj: dict[str, Any], source: Source, head: _Head) -> PriorityClass:
    _, _, name = head
    value = obj.get("value")
    if type(value) is not int:
        if value is None:
            raise InputError("missing (required)", source, "value")
        raise _type_error(value, "an integer", source, "value")
    _check_int32(value, source, "value")
    return PriorityClass(
        name=name,
        value=value,
        global_default=_opt_bool(obj.get("globalDefault"), source, "globalDefault"),
        preemption_policy=_enum(obj.get("preemptionPolicy"), _POLICIES, source, "preemptionPolicy")
        or PREEMPT_LOWER,  # type: ignore[arg-type]
        source=source,
    )


# ---- PodDisruptionBudget -------------------------------------------------------------------


def _pdb(obj: dict[str, Any], source: Source, head: _Head) -> PodDisruptionBudget:
    _, ns, name = head
    spec = _mapping(obj.get("spec"), source, "spec")
    status = _mapping(obj.get("status"), source, "status")
    allowed = _opt_int(status.get("disruptionsAllowed"), source, "status.disruptionsAllowed")
    disrupted = _mapping(status.get("disruptedPods"), source, "status.disruptedPods")
    return PodDisruptionBudget(
        namespace=ns,
        name=name,
        selector=_label_selector(spec.get("selector"), source, "spec.selector"),
        disruptions_allowed=allowed or 0,
        disrupted_pods=frozenset(str(k) for k in disrupted),
        source=source,
    )


# ---- Workload and PodGroup -----------------------------------------------------------------


class _Group:
    """A pod group being assembled: the merged policy and priority settings of one group."""

    __slots__ = (
        "api_version",
        "disruption_mode",
        "key",
        "member_never",
        "members",
        "min_count",
        "name",
        "namespace",
        "policy",
        "priority",
        "source",
        "workload",
    )

    def __init__(self, namespace: str, workload: str, name: str, api_version: str, source: Source):
        self.namespace = namespace
        self.workload = workload
        self.name = name
        self.key = f"{namespace}/{workload}/{name}"
        self.api_version = api_version
        self.source = source
        self.policy: GroupPolicy = "Basic"
        self.min_count: int | None = None
        self.disruption_mode: DisruptionMode = "Pod"
        self.priority = prio.GroupPriority()
        self.members: list[int] = []
        self.member_never = False


class _WorkloadDef:
    __slots__ = (
        "api_version",
        "group_names",
        "groups",
        "name",
        "namespace",
        "preemption_class",
        "priority_class",
        "source",
        "templates",
    )

    def __init__(self, namespace: str, name: str, api_version: str, source: Source):
        self.namespace = namespace
        self.name = name
        self.api_version = api_version
        self.source = source
        self.priority_class: PriorityClass | None = None
        self.preemption_class: PriorityClass | None = None
        self.groups: dict[str, _Group] = {}  # v1alpha1
        self.templates: dict[str, dict[str, Any]] = {}  # v1alpha2/3: name -> parsed settings
        self.group_names: list[str] = []


def _policy(
    value: Any, source: Source, field: str
) -> tuple[GroupPolicy, int | None, dict[str, Any]]:
    """``basic: {}`` or ``gang: {minCount}`` -> (policy, minCount, gang mapping)."""
    if value is None:
        raise InputError("missing (required): basic or gang", source, field)
    pol = _mapping(value, source, field)
    has_basic = pol.get("basic") is not None
    gang = pol.get("gang")
    if has_basic == (gang is not None):
        raise InputError(
            "exactly one of basic or gang must be set" if has_basic else "missing: basic or gang",
            source,
            field,
        )
    if has_basic:
        _mapping(pol.get("basic"), source, field + ".basic")
        return "Basic", None, {}
    gang = _mapping(gang, source, field + ".gang")
    mc = gang.get("minCount")
    if type(mc) is not int:
        if mc is None:
            raise InputError("missing (required)", source, field + ".gang.minCount")
        raise _type_error(mc, "an integer", source, field + ".gang.minCount")
    if mc < 1:
        raise InputError(f"must be at least 1, got {mc}", source, field + ".gang.minCount")
    return "Gang", mc, gang


_MODES = ("Pod", "PodGroup")


def _settings(
    spec: dict[str, Any],
    api_version: str,
    source: Source,
    field: str,
    classes: _ClassBook,
    *,
    policy_required: bool,
    label: str = "",
) -> dict[str, Any]:
    """A v1alpha2/v1alpha3 template's or PodGroup's own settings; absent ones are left out.

    A template (``policy_required``) naming a missing class without a number records
    ``missing_class``: only an error if a PodGroup without its own priority inherits it."""
    out: dict[str, Any] = {"source": source, "field": field}
    pol = spec.get("schedulingPolicy")
    if pol is not None or policy_required:
        out["policy"] = _policy(pol, source, field + "schedulingPolicy")
    dm = spec.get("disruptionMode")
    if api_version in UNION_SHAPES:
        mode = union_mode(dm, api_version, source, field + "disruptionMode")
        pp = _enum(spec.get("preemptionPolicy"), _POLICIES, source, field + "preemptionPolicy")
        if pp is not None:
            out["preemption_policy"] = pp
    else:
        mode = _enum(dm, _MODES, source, field + "disruptionMode")
    if mode is not None:
        out["disruption_mode"] = (mode, field + "disruptionMode")
        if mode == "PodGroup" and "policy" in out and out["policy"][0] == "Basic":
            raise _basic_whole(api_version, source, field + "disruptionMode")
    pcn = _opt_str(spec.get("priorityClassName"), source, field + "priorityClassName")
    number = _opt_int(spec.get("priority"), source, field + "priority")
    if number is not None:
        _check_int32(number, source, field + "priority")
    if pcn is not None or number is not None:
        pc = None
        if pcn:
            pc = classes.resolve(pcn, number, label, source, field + "priorityClassName",
                                 deferred=policy_required)
            if pc is None and number is None:
                out["missing_class"] = (pcn, source, field + "priorityClassName")
        out["priority"] = (pc, number)
    ppcn = _opt_str(
        spec.get("preemptionPriorityClassName"), source, field + "preemptionPriorityClassName"
    )
    if ppcn is not None:
        out["preemption_class"] = prio.lookup(
            classes, ppcn, source, field + "preemptionPriorityClassName"
        )
    return out


def _workload(
    obj: dict[str, Any], source: Source, head: _Head, classes: _ClassBook
) -> _WorkloadDef:
    _, ns, name = head
    api = obj["apiVersion"]
    wl = _WorkloadDef(ns, name, api, source)
    spec = obj.get("spec")
    if spec is None:
        raise InputError("missing (required)", source, "spec")
    spec = _mapping(spec, source, "spec")
    pcn = _opt_str(spec.get("priorityClassName"), source, "spec.priorityClassName")
    if pcn is not None:
        wl.priority_class = prio.lookup(classes, pcn, source, "spec.priorityClassName")
    ppcn = _opt_str(
        spec.get("preemptionPriorityClassName"), source, "spec.preemptionPriorityClassName"
    )
    if ppcn is not None:
        wl.preemption_class = prio.lookup(classes, ppcn, source, "spec.preemptionPriorityClassName")
    if api == V1ALPHA1:
        _workload_v1alpha1(wl, spec, source)
        return wl
    if spec.get("compositePodGroupTemplates"):
        raise InputError(
            "CompositePodGroup templates are not supported by wapctl yet",
            source,
            "spec.compositePodGroupTemplates",
        )
    if "podGroups" in spec:
        raise InputError(
            f"{api} Workloads list podGroupTemplates (podGroups is the v1alpha1 shape)",
            source,
            "spec.podGroups",
        )
    raw = spec.get("podGroupTemplates")
    if raw is None:
        raise InputError("missing (required)", source, "spec.podGroupTemplates")
    for i, t in enumerate(_list(raw, source, "spec.podGroupTemplates")):
        f = f"spec.podGroupTemplates[{i}]"
        if type(t) is not dict:
            raise _type_error(t, "a mapping", source, f)
        tname = _req_str(t.get("name"), source, f + ".name")
        if tname in wl.templates:
            raise InputError(f"duplicate template name {tname!r}", source, f + ".name")
        wl.templates[tname] = _settings(t, api, source, f + ".", classes, policy_required=True,
                                        label=f"Workload {ns}/{name}")
    return wl


def _workload_v1alpha1(wl: _WorkloadDef, spec: dict[str, Any], source: Source) -> None:
    if "podGroupTemplates" in spec:
        raise InputError(
            f"{V1ALPHA1} Workloads list podGroups (podGroupTemplates is the v1alpha2+ shape)",
            source,
            "spec.podGroupTemplates",
        )
    raw = spec.get("podGroups")
    if raw is None:
        raise InputError("missing (required)", source, "spec.podGroups")
    for i, g in enumerate(_list(raw, source, "spec.podGroups")):
        f = f"spec.podGroups[{i}]"
        if type(g) is not dict:
            raise _type_error(g, "a mapping", source, f)
        gname = _req_str(g.get("name"), source, f + ".name")
        if gname in wl.groups:
            raise InputError(f"duplicate pod group name {gname!r}", source, f + ".name")
        policy, min_count, gang = _policy(g.get("policy"), source, f + ".policy")
        modes = []
        for key, path in (
            ("disruptionMode", f + ".disruptionMode"),
            ("preemptionMode", f + ".preemptionMode"),
        ):
            m = _enum(g.get(key), _MODES, source, path)
            if m is not None:
                modes.append((m, path))
        m = _enum(gang.get("disruptionMode"), _MODES, source, f + ".policy.gang.disruptionMode")
        if m is not None:
            modes.append((m, f + ".policy.gang.disruptionMode"))
        if len({m for m, _ in modes}) > 1:
            raise InputError(
                "disruption mode given twice with different values "
                f"({', '.join(f'{p}={m}' for m, p in modes)})",
                source,
                modes[1][1],
            )
        group = _Group(wl.namespace, wl.name, gname, V1ALPHA1, source)
        group.policy, group.min_count = policy, min_count
        if modes:
            group.disruption_mode = cast(DisruptionMode, modes[0][0])  # one of _MODES
            _check_mode(group, source, modes[0][1])
        wl.groups[gname] = group
        wl.group_names.append(gname)


def _check_mode(group: _Group, source: Source, field: str) -> None:
    if group.disruption_mode == "PodGroup" and group.policy == "Basic":
        raise _basic_whole(group.api_version, source, field)


def _basic_whole(api_version: str, source: Source, field: str) -> InputError:
    shown = "all" if api_version in UNION_SHAPES else "PodGroup"
    return InputError(
        f"disruption mode {shown} needs a gang policy: a basic group has no whole to "
        "preempt together (upstream forbids it)",
        source,
        field,
    )


def _template_ref(spec: dict[str, Any], api: str, source: Source) -> tuple[str, str, str, str]:
    """(workload name, template name, and their field paths) of a PodGroup."""
    if api in UNION_SHAPES:
        base = "spec.workloadRef"
        ref = spec.get("workloadRef")
        wkey, tkey = "workloadName", "templateName"
    else:
        base = "spec.podGroupTemplateRef"
        ref = spec.get("podGroupTemplateRef")
        wkey, tkey = "workloadName", "podGroupTemplateName"
        if type(ref) is dict and ref.get("workload") is not None:
            base += ".workload"
            ref = ref["workload"]
    if ref is None:
        raise InputError(
            "missing: a PodGroup without a Workload template reference is not supported by "
            "wapctl yet",
            source,
            base,
        )
    ref = _mapping(ref, source, base)
    return (
        _req_str(ref.get(wkey), source, f"{base}.{wkey}"),
        _req_str(ref.get(tkey), source, f"{base}.{tkey}"),
        f"{base}.{wkey}",
        f"{base}.{tkey}",
    )


def _pod_group(
    obj: dict[str, Any],
    source: Source,
    head: _Head,
    classes: _ClassBook,
    workloads: dict[str, _WorkloadDef],
    default: PriorityClass | None,
    warnings: list[LoadWarning],
) -> _Group:
    _, ns, name = head
    api = obj["apiVersion"]
    spec = obj.get("spec")
    if spec is None:
        raise InputError("missing (required)", source, "spec")
    spec = _mapping(spec, source, "spec")
    wname, tname, wfield, tfield = _template_ref(spec, api, source)
    own = _settings(spec, api, source, "spec.", classes, policy_required=False,
                    label=f"PodGroup {ns}/{name}")
    wl = workloads.get(f"{ns}/{wname}")
    if wl is None:
        # An export of PodGroups without their Workloads: a PodGroup as the API server admitted
        # it carries its own policy and priority, so the Workload is not needed to plan.
        if "policy" not in own:
            raise InputError(
                f"Workload {ns}/{wname} does not exist in the snapshot and the PodGroup has no "
                "schedulingPolicy of its own: add the Workload to the snapshot",
                source,
                wfield,
            )
        warnings.append(LoadWarning(
            "MissingWorkload", f"PodGroup {ns}/{name}", wfield,
            f"Workload {ns}/{wname} is not in the snapshot; the PodGroup's own settings are used",
            source.describe(),
        ))
        wl = _WorkloadDef(ns, wname, api, source)
        wl.templates[tname] = {}
    if wl.api_version == V1ALPHA1:
        raise InputError(
            f"Workload {ns}/{wname} is {V1ALPHA1}, which has no podGroupTemplates to refer to",
            source,
            wfield,
        )
    template = wl.templates.get(tname)
    if template is None:
        raise InputError(
            f"Workload {ns}/{wname} has no podGroupTemplate {tname!r}"
            f" (it has: {', '.join(sorted(wl.templates)) or 'none'})",
            source,
            tfield,
        )
    group = _Group(ns, wname, name, api, source)

    def pick(key: str) -> Any:
        return own[key] if key in own else template.get(key)

    group.policy, group.min_count, _ = pick("policy")
    mode = pick("disruption_mode")
    if mode is not None:
        group.disruption_mode = mode[0]
        if "disruption_mode" in own or "policy" not in own:
            where, field = (own if "disruption_mode" in own else template)["source"], mode[1]
        else:  # the PodGroup's own policy contradicts the mode it inherits
            where, field = source, "spec.schedulingPolicy"
        _check_mode(group, where, field)
    pc, number = pick("priority") or (None, None)
    if "priority" not in own and "missing_class" in template:
        raise _missing_class(*template["missing_class"]).about(f"Workload {ns}/{wname}")
    if pc is None and number is None and wl.priority_class is not None:
        pc = wl.priority_class
    group.priority = prio.resolve_group(
        priority_class=pc,
        priority=number,
        preemption_class=pick("preemption_class") or wl.preemption_class,
        preemption_policy=pick("preemption_policy"),
        default=default,
        use_default=True,
    )
    if f"{ns}/{wname}" in workloads:
        wl.group_names.append(name)
    return group


# ---- Pod -----------------------------------------------------------------------------------

_PHASES = ("Pending", "Running", "Succeeded", "Failed", "Unknown")
_TOLERATION_OPERATORS = ("Equal", "Exists")
_TOLERATION_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_NODE_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_FIELD_OPERATORS = ("In", "NotIn")
_EMPTY: dict[str, int] = {}


def _container_requests(c: Any, source: Source, path: str) -> dict[str, int]:
    """One container's requests, defaulted from its limits as the API server does."""
    if type(c) is not dict:
        raise _type_error(c, "a mapping", source, path)
    res = c.get("resources")
    if not res:
        if res is None or type(res) is dict:
            return _EMPTY
        raise _type_error(res, "a mapping", source, path + ".resources")
    if type(res) is not dict:
        raise _type_error(res, "a mapping", source, path + ".resources")
    req = res.get("requests")
    lim = res.get("limits")
    out: dict[str, int] = {}
    if req:
        if type(req) is not dict:
            raise _type_error(req, "a mapping", source, path + ".resources.requests")
        for k, q in req.items():
            out[k] = _amount(k, q, source, path + ".resources.requests")
    elif req is not None and type(req) is not dict:
        raise _type_error(req, "a mapping", source, path + ".resources.requests")
    if lim:
        if type(lim) is not dict:
            raise _type_error(lim, "a mapping", source, path + ".resources.limits")
        for k, q in lim.items():
            value = _amount(k, q, source, path + ".resources.limits")
            if k not in out:
                out[k] = value
    elif lim is not None and type(lim) is not dict:
        raise _type_error(lim, "a mapping", source, path + ".resources.limits")
    return out


def _pod_requests(spec: dict[str, Any], source: Source) -> dict[str, int]:
    """Effective requests as upstream ``resourcehelper.PodRequests``: the larger of the
    containers' sum (plus restartable "sidecar" init containers) and each regular init
    container (plus the sidecars started before it), then plus ``spec.overhead``."""
    total: dict[str, int] = {}
    containers = spec.get("containers")
    if containers is not None:
        if type(containers) is not list:
            raise _type_error(containers, "a list", source, "spec.containers")
        amounts = _AMOUNTS
        for i, c in enumerate(containers):
            res = c.get("resources") if type(c) is dict else None
            if type(res) is dict and "limits" not in res:
                req = res.get("requests")
                if type(req) is dict:
                    # the usual container: requests only, amounts read before (``_amount``'s
                    # cache; anything else takes ``_container_requests``)
                    for k, q in req.items():
                        v = amounts.get((k, q)) if type(q) is str else None
                        if v is None:
                            v = _amount(k, q, source, f"spec.containers[{i}].resources.requests")
                        total[k] = total.get(k, 0) + v
                    continue
            for k, v in _container_requests(c, source, f"spec.containers[{i}]").items():
                total[k] = total.get(k, 0) + v
    inits = spec.get("initContainers")
    if inits:
        if type(inits) is not list:
            raise _type_error(inits, "a list", source, "spec.initContainers")
        sidecars: dict[str, int] = {}
        init_max: dict[str, int] = {}
        for i, c in enumerate(inits):
            r = _container_requests(c, source, f"spec.initContainers[{i}]")
            if c.get("restartPolicy") == "Always":
                for k, v in r.items():
                    total[k] = total.get(k, 0) + v
                    sidecars[k] = sidecars.get(k, 0) + v
                current = sidecars
            else:
                current = dict(sidecars)
                for k, v in r.items():
                    current[k] = current.get(k, 0) + v
            for k, v in current.items():
                if v > init_max.get(k, 0):
                    init_max[k] = v
        for k, v in init_max.items():
            if v > total.get(k, 0):
                total[k] = v
    elif inits is not None and type(inits) is not list:
        raise _type_error(inits, "a list", source, "spec.initContainers")
    pod_level = spec.get("resources")
    if pod_level is not None:
        # PodLevelResources (on by default since 1.34): pod-level cpu / memory / hugepages
        # requests replace the containers' aggregate, as upstream PodRequests does.
        for k, v in _container_requests(spec, source, "spec").items():
            if k in ("cpu", "memory") or k.startswith("hugepages-"):
                total[k] = v
    overhead = spec.get("overhead")
    if overhead:
        if type(overhead) is not dict:
            raise _type_error(overhead, "a mapping", source, "spec.overhead")
        for k, q in overhead.items():
            total[k] = total.get(k, 0) + _amount(k, q, source, "spec.overhead")
    total.pop("pods", None)  # a pod always counts as one pod; "pods" is not a request
    return total


# Toleration objects by their raw fields: pods of one cluster repeat the same few tolerations.
_TOLERATIONS: dict[tuple[Any, ...], Toleration] = {}


# A list of tolerations read before -> (the list, what it reads as), by the list's identity:
# the fast reader hands every pod that writes its tolerations alike the same list
# (wapctl.reader._shared_tolerations). The list is kept, so its id stays its own.
_TOLERATION_LISTS: dict[int, tuple[list[Any], tuple[Toleration, ...]]] = {}


def _tolerations(value: Any, source: Source) -> tuple[Toleration, ...]:
    if value is None:
        return ()
    known = _TOLERATION_LISTS.get(id(value))
    if known is not None and known[0] is value:
        return known[1]
    out = _read_tolerations(value, source)
    if len(_TOLERATION_LISTS) < 4096:
        _TOLERATION_LISTS[id(value)] = (value, out)
    return out


def _read_tolerations(value: Any, source: Source) -> tuple[Toleration, ...]:
    if type(value) is not list:
        raise _type_error(value, "a list", source, "spec.tolerations")
    out = []
    for i, t in enumerate(value):
        if type(t) is dict:
            raw = (t.get("key"), t.get("operator"), t.get("value"), t.get("effect"))
            try:
                known = _TOLERATIONS.get(raw)
            except TypeError:  # an unhashable field: let the checks below name it
                known = None
            if known is not None:
                out.append(known)
                continue
        made = _toleration(t, source, f"spec.tolerations[{i}]")
        if len(_TOLERATIONS) < 10_000:
            _TOLERATIONS[raw] = made
        out.append(made)
    return tuple(out)


def _toleration(t: Any, source: Source, f: str) -> Toleration:
    if type(t) is not dict:
        raise _type_error(t, "a mapping", source, f)
    key = _opt_str(t.get("key"), source, f + ".key") or ""
    op = _enum(t.get("operator"), _TOLERATION_OPERATORS, source, f + ".operator") or "Equal"
    if not key and op != "Exists":
        raise InputError("an empty key needs operator Exists", source, f + ".operator")
    val = t.get("value")
    if val is not None and type(val) is not str:
        raise _type_error(val, "a string (quote it)", source, f + ".value")
    if op == "Exists" and val:
        raise InputError("must be empty when operator is Exists", source, f + ".value")
    return Toleration(
        key=key,
        operator=op,
        value=val or "",
        effect=_enum(t.get("effect"), _TOLERATION_EFFECTS, source, f + ".effect") or "",
    )


def _required_affinity(spec: dict[str, Any], source: Source) -> tuple[NodeSelectorTerm, ...] | None:
    affinity = spec.get("affinity")
    if not affinity:
        return None
    affinity = _mapping(affinity, source, "spec.affinity")
    na = _mapping(affinity.get("nodeAffinity"), source, "spec.affinity.nodeAffinity")
    base = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
    req = na.get("requiredDuringSchedulingIgnoredDuringExecution")
    if req is None:
        return None
    req = _mapping(req, source, base)
    terms = []
    for i, term in enumerate(
        _list(req.get("nodeSelectorTerms"), source, base + ".nodeSelectorTerms")
    ):
        f = f"{base}.nodeSelectorTerms[{i}]"
        term = _mapping(term, source, f)
        exprs = tuple(
            _requirement(e, _NODE_OPERATORS, source, f"{f}.matchExpressions[{j}]", numeric=True)
            for j, e in enumerate(
                _list(term.get("matchExpressions"), source, f + ".matchExpressions")
            )
        )
        fields = []
        for j, e in enumerate(_list(term.get("matchFields"), source, f + ".matchFields")):
            r = _requirement(e, _FIELD_OPERATORS, source, f"{f}.matchFields[{j}]", numeric=False)
            # As the API server's validateNodeFieldSelectorRequirement
            # (pkg/apis/core/validation/validation.go): metadata.name only, one value.
            if r.key != "metadata.name":
                raise InputError(
                    f"only metadata.name can be matched, not {r.key!r}",
                    source,
                    f"{f}.matchFields[{j}].key",
                )
            if len(r.values) != 1:
                raise InputError(f"operator {r.operator} takes exactly one value in matchFields",
                                 source, f"{f}.matchFields[{j}].values")
            fields.append(r)
        terms.append(NodeSelectorTerm(match_expressions=exprs, match_fields=tuple(fields)))
    return tuple(terms)


class _PodContext:
    """What pod parsing needs from the rest of the snapshot."""

    __slots__ = (
        "again", "classes", "default", "divergent", "gkey", "missing_groups", "pod_groups",
        "resolved", "reuse", "warnings", "workloads",
    )

    def __init__(
        self,
        classes: _ClassBook,
        default: PriorityClass | None,
        workloads: dict[str, _WorkloadDef],
        pod_groups: dict[str, _Group],
        reuse: BuildCache | None = None,
    ):
        self.reuse = reuse
        self.classes = classes
        self.default = default
        self.workloads = workloads
        self.pod_groups = pod_groups  # v1alpha2/3 by "ns/podgroup-name"
        self.warnings: list[LoadWarning] = []  # Snapshot.warnings, unsorted
        # pod group label -> [(pod key, source)]: pods of a group the snapshot lacks
        self.missing_groups: dict[str, list[tuple[str, Source, str]]] = {}
        # pod group key -> [(pod key, own priority, source)]: pods disagreeing with their group
        self.divergent: dict[str, list[tuple[str, int, Source]]] = {}
        # (spec.priority, class name, spec.preemptionPolicy, group key) -> resolve_pod's answer
        self.resolved: dict[tuple[Any, ...], prio.PodPriority] = {}
        # _priority_ref -> _pod_priority's answer for a pod read again, None where pods with
        # that ref must each be resolved (see _pod_again)
        self.again: dict[tuple[Any, ...], Any] = {}
        # of the pod resolved last: what pods resolving alike in every build share (see
        # _Memory.members), None for a pod to resolve on its own (a group it names is missing)
        self.gkey: tuple[Any, ...] | None = None

    def missing_group(self, label: str, pod: str, source: Source, field: str) -> None:
        self.missing_groups.setdefault(label, []).append((pod, source, field))

    def finish(self, groups: dict[str, _Group]) -> list[LoadWarning]:
        """The warnings gathered while reading pods, one per class, missing group or group."""
        out = list(self.warnings) + self.classes.warnings()
        for label, pods in self.missing_groups.items():
            pod, source, field = min(pods)
            who = ("this pod is planned as a standalone pod" if len(pods) == 1 else
                   f"this pod and {len(pods) - 1} more are planned as standalone pods")
            out.append(LoadWarning(
                "MissingPodGroup", f"Pod {pod}", field,
                f"{label} is not in the snapshot (an export without the Workload API kinds?): "
                f"{who}",
                source.describe(),
            ))
        for key, members in self.divergent.items():
            g = groups[key]
            members.sort()
            pod, _, source = members[0]
            own = ", ".join(f"{p} {n}" for p, n, _ in members[:3])
            more = f" +{len(members) - 3} more" if len(members) > 3 else ""
            out.append(LoadWarning(
                "PriorityDivergence", f"PodGroup {g.namespace}/{g.name}", "spec.priority",
                f"the PodGroup's priority is {g.priority.priority} but its pods carry their own "
                f"({own}{more}): kube-scheduler 1.36 binds such pods; the KEP-5710 Beta "
                "scheduler refuses the group",
                source.describe(),
            ))
        return out


def _pod_group_of(
    spec: dict[str, Any], ns: str, pod: str, source: Source, ctx: _PodContext
) -> _Group | None:
    wref = spec.get("workloadRef")
    sg = spec.get("schedulingGroup")
    if wref is not None and sg is not None:
        raise InputError(
            "set spec.workloadRef (v1alpha1) or spec.schedulingGroup (v1alpha2+), not both",
            source,
            "spec.schedulingGroup",
        )
    if sg is not None:
        sg = _mapping(sg, source, "spec.schedulingGroup")
        pg_name = _opt_str(sg.get("podGroupName"), source, "spec.schedulingGroup.podGroupName")
        if pg_name is None:
            return None
        group = ctx.pod_groups.get(f"{ns}/{pg_name}")
        if group is None:
            ctx.missing_group(f"PodGroup {ns}/{pg_name}", pod, source,
                              "spec.schedulingGroup.podGroupName")
        return group
    if wref is None:
        return None
    wref = _mapping(wref, source, "spec.workloadRef")
    wname = _req_str(wref.get("name"), source, "spec.workloadRef.name")
    gname = _req_str(wref.get("podGroup"), source, "spec.workloadRef.podGroup")
    wl = ctx.workloads.get(f"{ns}/{wname}")
    if wl is None:
        ctx.missing_group(f"Workload {ns}/{wname}", pod, source, "spec.workloadRef.name")
        return None
    if wl.api_version != V1ALPHA1:
        raise InputError(
            f"Workload {ns}/{wname} is {wl.api_version}: its pods join a PodGroup through "
            "spec.schedulingGroup.podGroupName",
            source,
            "spec.workloadRef",
        )
    group = wl.groups.get(gname)
    if group is None:
        raise InputError(
            f"Workload {ns}/{wname} has no pod group {gname!r}"
            f" (it has: {', '.join(sorted(wl.groups)) or 'none'})",
            source,
            "spec.workloadRef.podGroup",
        )
    return group


def _priority_ref(spec: dict[str, Any], ns: str) -> tuple[Any, ...]:
    """What ``_pod_priority`` reads of a pod that an earlier build read without error (so every
    field here has its checked type): spec.priority, the class and policy it names, its group
    reference."""
    group: tuple[Any, ...] | None = None
    sg = spec.get("schedulingGroup")
    if sg is not None:
        group = ("PodGroup", ns, sg.get("podGroupName"))
    else:
        wref = spec.get("workloadRef")
        if wref is not None:
            group = ("Workload", ns, wref.get("name"), wref.get("podGroup"))
    return (spec.get("priority"), spec.get("priorityClassName") or None,
            spec.get("preemptionPolicy") or None, group)


def _quiet(
    names_group: bool, pcn: Any, pp: prio.PodPriority, group: _Group | None,
    ctx: _PodContext,
) -> bool:
    """Whether ``_pod_priority`` noted nothing about the pod itself -- a missing class or group,
    a priority diverging from its group's -- beyond joining the group: then every pod with the
    same ``_priority_ref`` resolves alike in this build. (``names_group``: the pod names a pod
    group, ``_priority_ref(...)[3] is not None``.)"""
    if pcn and ctx.classes.get(pcn) is None:
        return False
    if names_group and group is None:
        return False
    return not (
        group is not None
        and group.api_version != V1ALPHA1
        and pp.own_priority is not None
        and pp.own_priority != group.priority.priority
    )


_UNKNOWN = object()


def _pod_priority(
    spec: dict[str, Any], ns: str, key: str, source: Source, ctx: _PodContext
) -> tuple[Any, prio.PodPriority, _Group | None]:
    """(spec.priorityClassName, the resolved priorities, the pod group) of a pod; notes the
    pod as a member of its group, and a priority diverging from the group's."""
    named = "workloadRef" in spec or "schedulingGroup" in spec
    group = _pod_group_of(spec, ns, key, source, ctx) if named else None

    spec_priority = spec.get("priority")
    if spec_priority is not None:
        if type(spec_priority) is not int:
            raise _type_error(spec_priority, "an integer", source, "spec.priority")
        _check_int32(spec_priority, source, "spec.priority")
    pcn = spec.get("priorityClassName")
    pc = None
    if pcn:
        if type(pcn) is not str:
            raise _type_error(pcn, "a string", source, "spec.priorityClassName")
        # Admission wrote spec.priority from the class: a class deleted since (or left out of
        # the export) is a warning, as the scheduler only reads spec.priority.
        pc = ctx.classes.get(pcn) or ctx.classes.resolve(
            pcn, spec_priority, f"Pod {key}", source, "spec.priorityClassName")
    policy = spec.get("preemptionPolicy") or None
    if policy is not None and policy not in _POLICIES:
        _enum(policy, _POLICIES, source, "spec.preemptionPolicy")
    # the same few (number, class, policy, group) combinations repeat across a cluster's pods;
    # within one build each class name and group key stands for one object
    resolved_key = (spec_priority, pc.name if pc is not None else None, policy,
                    group.key if group is not None else None)
    pp = ctx.resolved.get(resolved_key)
    if pp is None:
        pp = ctx.resolved[resolved_key] = prio.resolve_pod(
            spec_priority=spec_priority,
            priority_class=pc,
            spec_policy=policy,
            default=ctx.default,
            group=group.priority if group is not None else None,
        )
    if group is not None:
        if (
            group.api_version != V1ALPHA1
            and pp.own_priority is not None
            and pp.own_priority != group.priority.priority
        ):
            ctx.divergent.setdefault(group.key, []).append((key, pp.own_priority, source))
        _join(group, pp)
    # Pods naming the same number, class, policy and group (the group object stands for the
    # reference naming it) resolve alike in every build. A pod read again keys its set by its
    # _priority_ref instead (_pod_again): two keys may split one such set in two, which only
    # shares less, never wrongly.
    ctx.gkey = (None if named and group is None else
                (spec_priority, pcn or None, policy, group))
    return pcn, pp, group


def _join(group: _Group, pp: prio.PodPriority, count: int = 1) -> None:
    """``count`` members with these priorities join ``group`` (its values,
    ``prio.group_values``)."""
    if count == 1:
        group.members.append(pp.priority)
    else:
        group.members.extend(repeat(pp.priority, count))
    if pp.own_never:
        group.member_never = True


def _pod(obj: dict[str, Any], source: Source, head: _Head, ctx: _PodContext) -> Pod:
    meta, ns, name = head
    key = f"{ns}/{name}"
    spec = obj.get("spec")
    spec = {} if spec is None else _mapping(spec, source, "spec")
    status = obj.get("status")
    status = {} if status is None else _mapping(status, source, "status")

    requests = _pod_requests(spec, source)
    pcn, pp, group = _pod_priority(spec, ns, key, source, ctx)

    phase = status.get("phase") or "Pending"
    if phase not in _PHASES:
        _enum(phase, _PHASES, source, "status.phase")
    node_name = spec.get("nodeName") or None
    if node_name is not None and type(node_name) is not str:
        raise _type_error(node_name, "a string", source, "spec.nodeName")
    nominated = status.get("nominatedNodeName") or None
    if nominated is not None and type(nominated) is not str:
        raise _type_error(nominated, "a string", source, "status.nominatedNodeName")
    affinity = _required_affinity(spec, source) if "affinity" in spec else None
    gates = spec.get("schedulingGates")
    if gates is not None and type(gates) is not list:
        raise _type_error(gates, "a list", source, "spec.schedulingGates")
    labels = _str_map(meta.get("labels"), source, "metadata.labels")
    affinity_terms, anti_terms = (
        constraints.pod_affinity_terms(spec, ns, labels, source) if "affinity" in spec else ((), ())
    )
    spread = (constraints.spread_constraints(spec, labels, source)
              if "topologySpreadConstraints" in spec else ())
    ports = constraints.host_ports(spec, source)
    finished = phase in ("Succeeded", "Failed")
    terminating = meta.get("deletionTimestamp") is not None
    warnings = constraints.pod_warnings(
        spec, key, pending=node_name is None and not finished and not terminating,
        gated=bool(gates) and node_name is None, source=source)
    if warnings:
        ctx.warnings.extend(warnings)

    pod = Pod(
        namespace=ns,
        name=name,
        key=key,
        preempted_by_scheduler=terminating and _preempted_by_scheduler(status, source),
        requests=requests,
        priority=pp.priority,
        preemption_priority=pp.preemption_priority,
        preemption_policy=pp.preemption_policy,
        own_preemption_policy=NEVER if pp.own_never else PREEMPT_LOWER,
        priority_class_name=pcn or None,
        node_name=node_name,
        phase=phase,
        terminating=terminating,
        nominated_node=nominated,
        group_key=group.key if group is not None else None,
        creation_time=_time(meta.get("creationTimestamp"), source, "metadata.creationTimestamp"),
        start_time=_time(status.get("startTime"), source, "status.startTime"),
        labels=labels,
        node_selector=_str_map(spec.get("nodeSelector"), source, "spec.nodeSelector"),
        required_affinity=affinity,
        tolerations=_tolerations(spec.get("tolerations"), source),
        source=source,
        gated=bool(gates),
        affinity_terms=affinity_terms,
        anti_affinity_terms=anti_terms,
        spread_constraints=spread,
        host_ports=ports,
        own_priority=pp.own_priority,
    )
    if ctx.reuse is not None:  # every document _build classified has its _Seen
        seen = ctx.reuse[id(obj)]
        seen.built, seen.warnings, seen.resolved = pod, warnings, _resolved(pcn, pp, group)
    return pod


def _pod_again(hit: _Seen, head: _Head, ctx: _PodContext) -> Pod:
    """``_pod`` of a document that an earlier build with the same ``BuildCache`` read without
    error: only what depends on the rest of the snapshot (its pod group and priorities, in
    ``_pod_priority``) is read again; every other field, and its warnings, are the same.

    Within one build, pods naming the same priority, class, policy and group resolve alike
    (``_priority_ref``): once one of them has resolved quietly -- its class and group found,
    no divergence to note -- the others take its answer and only join the group."""
    pod: Pod = hit.built
    spec = hit.obj.get("spec")
    if spec is None:
        spec = {}
    ref = hit.ref
    if ref is None:
        ref = hit.ref = _priority_ref(spec, head[1])
    known = ctx.again.get(ref, _UNKNOWN)
    if known is None or known is _UNKNOWN:
        pcn, pp, group = _pod_priority(spec, head[1], pod.key, hit.source, ctx)
        resolved = _resolved(pcn, pp, group)
        if known is _UNKNOWN:
            quiet = _quiet(ref[3] is not None, pcn, pp, group, ctx)
            ctx.again[ref] = (pp, group, resolved) if quiet else None
    else:
        pp, group, resolved = known
        if group is not None:
            _join(group, pp)
        ctx.gkey = ref
    warnings = hit.warnings
    if warnings:
        ctx.warnings.extend(warnings)
    if hit.resolved == resolved:
        return pod  # the change left it alone (the model is immutable: both snapshots share it)
    return _re_resolved(pod, resolved)


# The fields of a Pod that _pod_priority decides, in the order _resolved gives them.
_RESOLVED = ("priority", "preemption_priority", "preemption_policy", "own_preemption_policy",
             "priority_class_name", "group_key", "own_priority")


def _re_resolved(pod: Pod, resolved: tuple[Any, ...]) -> Pod:
    """A copy of ``pod`` holding ``resolved`` (as ``_resolved`` gives them) in its
    ``_RESOLVED`` fields."""
    priority, preemption, policy, own_policy, pcn, group_key, own_priority = resolved
    return msgspec.structs.replace(
        pod, priority=priority, preemption_priority=preemption, preemption_policy=policy,
        own_preemption_policy=own_policy, priority_class_name=pcn, group_key=group_key,
        own_priority=own_priority)


def _resolved(pcn: Any, pp: prio.PodPriority, group: _Group | None) -> tuple[Any, ...]:
    """What a pod with these answers of ``_pod_priority`` holds in the ``_RESOLVED`` fields."""
    return (pp.priority, pp.preemption_priority, pp.preemption_policy,
            NEVER if pp.own_never else PREEMPT_LOWER, pcn or None,
            group.key if group is not None else None, pp.own_priority)


def _preempted_by_scheduler(status: dict[str, Any], source: Source) -> bool:
    """Upstream ``PodTerminatingByPreemption`` (preemption/util.go) of a terminating pod: the
    first ``DisruptionTarget`` condition is True with reason ``PreemptionByScheduler``. Read
    only for pods with a ``deletionTimestamp`` (upstream answers false first for the others).
    The condition's ``status`` is a string (``ConditionStatus``); a YAML boolean there (an
    unquoted ``True``) is refused as the API server would refuse it, not read as false."""
    conditions = status.get("conditions")
    if type(conditions) is not list:
        return False
    for i, cond in enumerate(conditions):
        if isinstance(cond, dict) and cond.get("type") == "DisruptionTarget":
            value = cond.get("status")
            if value is not None and type(value) is not str:
                raise _type_error(value, 'a string: "True", "False" or "Unknown" (quote it)',
                                  source, f"status.conditions[{i}].status")
            return value == "True" and cond.get("reason") == "PreemptionByScheduler"
    return False


# ---- the snapshot --------------------------------------------------------------------------

# (API group, kind) -> reader; the core group is "".
_NODE, _POD, _CLASS, _PDB, _WORKLOAD, _PODGROUP, _TEMPLATE, _NAMESPACE = range(8)
_KINDS = {
    ("", "Node"): _NODE,
    ("", "Pod"): _POD,
    (API_GROUP, "PriorityClass"): _CLASS,
    ("policy", "PodDisruptionBudget"): _PDB,
    (API_GROUP, "Workload"): _WORKLOAD,
    (API_GROUP, "PodGroup"): _PODGROUP,
    ("", "Namespace"): _NAMESPACE,
}
_KIND_NAMES = {kind: group for group, kind in _KINDS}
_LABELS = {
    _NODE: "Node",
    _POD: "Pod",
    _CLASS: "PriorityClass",
    _PDB: "PodDisruptionBudget",
    _WORKLOAD: "Workload",
    _PODGROUP: "PodGroup",
    _TEMPLATE: "object",  # controllers with pod templates (templates.KINDS); key "Kind ns/name"
    _NAMESPACE: "Namespace",
}


# (kind, apiVersion) -> reader, for the pairs of strings ``_classify`` has accepted as a kind
# wapctl reads: its answer depends on nothing else.
_CLASSIFIED: dict[tuple[str, str], int] = {}


def _classify(obj: Any, source: Source, ignored: Counter[str]) -> int | None:
    if type(obj) is not dict:
        raise InputError(f"an object must be a mapping, not {_typename(obj)}", source)
    kind = obj.get("kind")
    api = obj.get("apiVersion")
    if type(kind) is str and type(api) is str:
        known = _CLASSIFIED.get((kind, api))
        if known is not None:
            return known
        which = _classify_named(kind, api, source, ignored)
        if which is not None:
            _CLASSIFIED[(kind, api)] = which
        return which
    return _classify_named(kind, api, source, ignored)


def _classify_named(kind: Any, api: Any, source: Source, ignored: Counter[str]) -> int | None:
    if type(kind) is not str or not kind:
        if kind is None or kind == "":
            raise InputError("missing (required)", source, "kind")
        raise _type_error(kind, "a string", source, "kind")
    if api is None:
        group = _KIND_NAMES.get(kind)
        if group is None:
            ignored[kind] += 1
            return None
        if kind in ("Workload", "PodGroup"):
            raise InputError(
                f"missing: needed to tell the {kind} API shape "
                f"({', '.join(_WORKLOAD_VERSIONS if kind == 'Workload' else _PODGROUP_VERSIONS)})",
                source,
                "apiVersion",
            )
    elif type(api) is not str:
        raise _type_error(api, "a string", source, "apiVersion")
    else:
        group = api.rpartition("/")[0] if "/" in api else ""
    which = _KINDS.get((group, kind))
    if which is None and (group, kind) in tmpl.KINDS:
        return _TEMPLATE
    if which is None:
        ignored[f"{kind}.{group}" if kind in _KIND_NAMES else kind] += 1
        return None
    if which == _WORKLOAD and api not in _WORKLOAD_VERSIONS:
        raise InputError(
            f"unsupported Workload version {api!r} (supported: {', '.join(_WORKLOAD_VERSIONS)})",
            source,
            "apiVersion",
        )
    if which == _PODGROUP and api not in _PODGROUP_VERSIONS:
        raise InputError(
            f"unsupported PodGroup version {api!r} (supported: {', '.join(_PODGROUP_VERSIONS)})",
            source,
            "apiVersion",
        )
    return which


def _named(exc: InputError, which: int, head: _Head) -> InputError:
    """The error, naming the object it is about: ``Pod prod/web-1 (file:line ...)``."""
    _, ns, name = head
    return exc.about(f"{_LABELS[which]} {ns}/{name}" if ns else f"{_LABELS[which]} {name}")


@contextmanager
def _about(which: int, head: _Head) -> Iterator[None]:
    """An ``InputError`` while reading one object names it (``_named``)."""
    try:
        yield
    except InputError as exc:
        raise _named(exc, which, head) from None


def _place(source: Source) -> str:
    """``file, document N[, item I][, line L]``: the line last, so the place reads the same
    with and without it."""
    line = source.located_line()
    return source.describe(line=False) + ("" if line is None else f", line {line}")


def _register(seen: dict[str, Source], label: str, key: str, source: Source) -> None:
    first = seen.get(key)
    if first is not None:
        raise InputError(
            f"duplicate {label} {key} (first defined at {_place(first)})",
            source,
            "metadata.name",
        )
    seen[key] = source


class _Seen:
    """What a build learnt of one document: its bucket entry (with its metadata), kind and key;
    for a pod, a node or a PodDisruptionBudget, what was built of it (and a pod's warnings,
    the fields ``_pod_priority`` decided, and ``_priority_ref`` once read)."""

    __slots__ = ("built", "entry", "key", "obj", "ref", "resolved", "source", "warnings",
                 "which")

    def __init__(self, entry: tuple[Source, dict[str, Any], _Head], which: int, key: str):
        self.entry = entry  # (source, document, head): as _build's buckets hold it
        self.source, self.obj = entry[0], entry[1]
        self.which = which
        self.key = key
        self.built: Any = None
        self.warnings: Sequence[LoadWarning] = ()
        self.ref: tuple[Any, ...] | None = None
        self.resolved: tuple[Any, ...] | None = None  # a pod's _RESOLVED fields


class BuildCache(dict):  # type: ignore[type-arg]
    """What one ``build_snapshot`` learnt of each document, for another build of mostly the
    same documents (``audit`` builds the snapshot before and after a change). A document read
    again (the same object with the same source) is not classified again; a node or a PDB is
    taken over whole; a pod is only resolved again against the rest of the snapshot -- pod group
    and priorities -- the rest of its fields are taken over. It keeps the documents it has seen
    alive (so their ids stay theirs): drop it with the builds. (``id`` of a document ->
    ``_Seen``; ``_build``'s first loop puts one for every document it classifies, or takes
    the one the same object with the same source left.)

    ``last`` is what the latest build that succeeded made of its whole input (``_Memory``):
    a build of that input with a few documents replaced, added or removed (``audit``'s
    second build) starts from it and reads only the documents that differ (``_sort_again``)
    and, when the pods are the same documents, resolves their priorities once per set of pods
    that resolve alike (``_pods_again``).

    Documents are only read, never changed in place: a document seen before (ignored kinds
    included) is taken to say what it said then. Entries taken out of the cache meanwhile
    send the next build the ordinary way."""

    last: _Memory | None = None


class _Memory:
    """What one build made of its input, as ``_build`` left it: the documents (the list it
    read), and per reader (``_NODE`` ...) its bucket's entries, their positions among the
    documents, their keys (in the same order) and the set of those keys; the ignored kinds;
    and of the pods, in bucket order, the pods built, the sets of positions whose pods resolve
    alike (``members``: by ``_PodContext.gkey``) and those to resolve each on its own
    (``solo``), the pods' own warnings, the pods by key (as the snapshot holds them) and their
    namespaces. Only the next build reads it, having taken it off the cache (a failed build
    leaves none): that build makes new lists for a bucket that changed and takes over the pods'
    list and dict (``_pods_again``); nothing else modifies it."""

    __slots__ = ("buckets", "docs", "ignored", "keys", "keysets", "members", "pod_namespaces",
                 "pod_out", "pod_warnings", "pods_by_key", "positions", "solo")

    def __init__(self, docs: list[Any], buckets: list[list[Any]], positions: list[list[int]],
                 keys: list[list[str]], keysets: list[Any], ignored: Counter[str]):
        self.docs, self.buckets, self.positions = docs, buckets, positions
        self.keys, self.keysets, self.ignored = keys, keysets, ignored
        self.pod_out: list[Pod] = []
        self.members: list[list[int]] = []
        self.solo: list[int] = []
        self.pod_warnings: list[LoadWarning] = []
        self.pods_by_key: dict[str, Pod] = {}
        self.pod_namespaces: set[str] = set()


class _Fallback(Exception):
    """The input is not one ``_sort_again`` / ``_pods_again`` can take from the earlier build
    (too different, a duplicate, a cache entry gone): build it the ordinary way."""


def build_snapshot(documents: Iterable[Document], *, reuse: BuildCache | None = None) -> Snapshot:
    """Validate the objects, resolve priorities and pod groups, and build the ``Snapshot``.

    Raises ``InputError`` naming file, document, List item and field for every contradiction
    (see the module docstring). The documents are only read. ``reuse``: see ``BuildCache``."""
    with gc_paused():
        return _build(documents, getattr(documents, "server_version", None), reuse)


def _build(
    documents: Iterable[Document], server_version: str | None = None,
    reuse: BuildCache | None = None,
) -> Snapshot:
    if reuse is None:
        return _assemble(documents, documents, server_version, None, None)
    docs = list(documents)  # the memory's own list: the caller may change theirs
    # what the latest build made (none if it failed: it may have left other documents' _Seen
    # where this memory's documents had theirs)
    last, reuse.last = reuse.last, None
    if last is not None:
        try:
            return _assemble(docs, documents, server_version, reuse, last)
        except (_Fallback, InputError):
            pass  # the ordinary build below gives the snapshot, or the error, from scratch
    return _assemble(docs, documents, server_version, reuse, None)


def _learn(obj: Any, source: Source, ignored: Counter[str], reuse: BuildCache | None,
           hit: _Seen | None) -> tuple[int, str, tuple[Source, dict[str, Any], _Head]] | None:
    """A document's reader, key and bucket entry (None: a kind no reader takes, counted in
    ``ignored``): ``hit``'s, when it is what an earlier build learnt of this very document
    (the same object with the same source), else read and kept in ``reuse`` when given."""
    if hit is not None and hit.obj is obj and hit.source is source:
        return hit.which, hit.key, hit.entry
    which = _classify(obj, source, ignored)
    if which is None:
        return None
    namespaced = which not in (_NODE, _CLASS, _NAMESPACE)
    head = _meta(obj, source, namespaced)
    key = f"{head[1]}/{head[2]}" if namespaced else head[2]
    if which == _TEMPLATE:
        key = f"{obj['kind']} {key}"
    entry = (source, obj, head)
    if reuse is not None:
        reuse[id(obj)] = _Seen(entry, which, key)
    return which, key, entry


def _sort(
    documents: Iterable[Any], reuse: BuildCache | None, ignored: Counter[str],
) -> tuple[list[list[Any]], list[list[int]], list[dict[str, Source]]]:
    """Each document's bucket entry ``(source, document, head)`` in its reader's bucket, in
    document order, with the document's position; ``InputError`` for a duplicate."""
    buckets: list[list[tuple[Source, dict[str, Any], _Head]]] = [[] for _ in range(8)]
    positions: list[list[int]] = [[] for _ in range(8)]
    seen: list[dict[str, Source]] = [{} for _ in range(8)]
    learnt = reuse.get if reuse is not None else None  # id(document) -> _Seen
    for i, (source, obj) in enumerate(documents):
        found = _learn(obj, source, ignored, reuse, learnt(id(obj)) if learnt is not None else None)
        if found is None:
            continue
        which, key, entry = found
        bucket_seen = seen[which]
        if key in bucket_seen:
            _register(bucket_seen, _LABELS[which], key, source)
        bucket_seen[key] = source
        buckets[which].append(entry)
        positions[which].append(i)
    return buckets, positions, seen


# A second build gives up on reusing the memory past this many differing stretches.
_MAX_EDITS = 256


def _common(new: list[Any], j: int, old: list[Any], p: int) -> int:
    """How many items from ``new[j]`` on are, one by one, the items from ``old[p]`` on."""
    k, step = 0, 64
    while True:
        a, b = new[j + k:j + k + step], old[p + k:p + k + step]
        miss = next(compress(count(), map(is_not, a, b)), None)
        if miss is not None:
            return k + miss
        n = min(len(a), len(b))
        k += n
        if n < step:
            return k
        step = min(step * 4, 1 << 16)


def _align(
    new: list[Any], old: list[Any]
) -> tuple[list[tuple[int, int, int]], list[int]] | None:
    """``new`` as stretches of ``old`` and other items: ``runs`` ``(j, p, n)``, ``new[j:j+n]``
    is ``old[p:p+n]`` (the same objects), in increasing ``j`` and ``p``; ``fresh``: the
    positions in ``new`` of the other items. The items of ``old`` outside the runs are gone.
    None when there are too many differences to be worth it."""
    runs: list[tuple[int, int, int]] = []
    fresh: list[int] = []
    j = p = 0
    n, m = len(new), len(old)
    where: dict[int, int] | None = None
    while j < n:
        if p < m:
            k = _common(new, j, old, p)
            if k:
                runs.append((j, p, k))
                j += k
                p += k
                continue
        if len(runs) + len(fresh) > _MAX_EDITS:
            return None
        item = new[j]
        if j + 1 < n and p + 1 < m and new[j + 1] is old[p + 1]:  # replaced in place
            fresh.append(j)
            j += 1
            p += 1
            continue
        if where is None:
            where = dict(zip(map(id, old), count()))
        q = where.get(id(item), -1)
        if q > p and old[q] is item:  # old[p:q] are gone
            p = q
            continue
        fresh.append(j)  # new, or an old one out of order: read on its own
        j += 1
    return runs, fresh


def _sort_again(
    docs: list[Any], last: _Memory, reuse: BuildCache, ignored: Counter[str],
) -> tuple[list[list[Any]], list[list[int]], list[list[str]], list[Any]]:
    """``_sort`` of ``docs`` from the memory of an earlier build: only the documents that
    are not, in order, the earlier build's are classified; a bucket no document joined or
    left is the earlier one. ``_Fallback`` where the outcome could be an error."""
    aligned = _align(docs, last.docs)
    if aligned is None:
        raise _Fallback
    runs, fresh = aligned
    ignored.update(last.ignored)
    added: list[list[tuple[int, Any, str]]] = [[] for _ in range(8)]
    learnt = reuse.get
    for j in fresh:
        source, obj = docs[j]
        found = _learn(obj, source, ignored, reuse, learnt(id(obj)))
        if found is None:
            continue
        which, key, entry = found
        added[which].append((j, entry, key))
    made = [_bucket_again(last, which, runs, added[which]) for which in range(8)]
    buckets, positions, keys, keysets, kept = map(list, zip(*made, strict=True))
    _forget_gone(last, runs, sum(kept), ignored)
    return buckets, positions, keys, keysets


def _bucket_again(
    last: _Memory, which: int, runs: list[tuple[int, int, int]], added: list[tuple[int, Any, str]],
) -> tuple[list[Any], list[int], list[str], Any, int]:
    """Bucket ``which`` of ``_sort_again`` (entries, positions, keys, key set), and its kept."""
    entries, where, names = last.buckets[which], last.positions[which], last.keys[which]
    slices = []
    for j, q, k in runs:
        lo, hi = bisect_left(where, q), bisect_left(where, q + k)
        if lo < hi:
            slices.append((j - q, lo, hi))
    kept = sum(hi - lo for _, lo, hi in slices)
    if not added and kept == len(entries):  # the same entries: shared
        if any(d for d, _, _ in slices):  # documents before them came or went
            where = [x for d, lo, hi in slices
                     for x in (where[lo:hi] if d == 0 else map(add, where[lo:hi], repeat(d)))]
        return entries, where, names, last.keysets[which], kept
    keyset = set(last.keysets[which])
    covered = 0
    for _, lo, hi in slices:
        keyset.difference_update(names[covered:lo])
        covered = hi
    keyset.difference_update(names[covered:])
    parts: list[tuple[int, int, Any]] = [(where[lo] + d, 0, (d, lo, hi))
                                         for d, lo, hi in slices]
    for j, entry, key in added:
        if key in keyset:  # a duplicate: the ordinary build names both places
            raise _Fallback
        keyset.add(key)
        parts.append((j, 1, (entry, key)))
    parts.sort(key=lambda t: t[0])
    b_entries: list[Any] = []
    b_where: list[int] = []
    b_names: list[str] = []
    for j, is_added, part in parts:
        if is_added:
            b_entries.append(part[0])
            b_where.append(j)
            b_names.append(part[1])
            continue
        d, lo, hi = part
        b_entries.extend(entries[lo:hi])
        b_where.extend(where[lo:hi] if d == 0 else map(add, where[lo:hi], repeat(d)))
        b_names.extend(names[lo:hi])
    return b_entries, b_where, b_names, keyset, kept


def _forget_gone(last: _Memory, runs: list[tuple[int, int, int]], kept_docs: int,
                 ignored: Counter[str]) -> None:
    """Takes the ignored documents of ``last`` that ``runs`` leave out (gone) off ``ignored``."""
    # the documents of the earlier build that are gone, as ranges of positions
    gone: list[tuple[int, int]] = []
    p = 0
    for _, q, k in runs:
        if q > p:
            gone.append((p, q))
        p = q + k
    if p < len(last.docs):
        gone.append((p, len(last.docs)))
    # the ignored documents among those gone no longer count
    gone_total = sum(b - a for a, b in gone)
    read_gone = sum(len(last.buckets[w]) for w in range(8)) - kept_docs
    if gone_total > read_gone:
        scratch: Counter[str] = Counter()
        for a, b in gone:
            for x in range(a, b):
                if any(bisect_left(w, x) < len(w) and w[bisect_left(w, x)] == x
                       for w in last.positions):
                    continue
                source, obj = last.docs[x]
                _classify(obj, source, scratch)
        ignored.subtract(scratch)
        for kind in [k for k, v in ignored.items() if v <= 0]:
            del ignored[kind]


def _assemble(
    documents: Iterable[Any], given: Iterable[Document], server_version: str | None,
    reuse: BuildCache | None, last: _Memory | None,
) -> Snapshot:
    """The snapshot of ``documents`` (``given``: as the caller gave them, for the reader's
    warnings); with ``last``, starting from the memory of an earlier build."""
    ignored: Counter[str] = Counter()
    if last is not None:
        buckets, positions, keys, keysets = _sort_again(
            documents, last, reuse, ignored)  # type: ignore[arg-type]
    else:
        buckets, positions, seen = _sort(documents, reuse, ignored)
        keys, keysets = ([list(s) for s in seen] if reuse is not None else [], seen)
    learnt = reuse.get if reuse is not None else None  # id(document) -> _Seen

    classes = {}
    for source, obj, head in buckets[_CLASS]:
        with _about(_CLASS, head):
            pc = _priority_class(obj, source, head)
        classes[pc.name] = pc
    default = prio.global_default(classes.values())
    book = _ClassBook(classes)  # plus the built-in system-* classes
    load_warnings: list[LoadWarning] = []
    workloads, groups, pod_groups = _groups(buckets, book, default, load_warnings)

    ctx = _PodContext(book, default, workloads, pod_groups, reuse)
    ctx.warnings.extend(load_warnings)
    memory = (_Memory(documents, buckets, positions, keys, keysets, ignored)  # type: ignore[arg-type]
              if reuse is not None else None)
    if last is not None and buckets[_POD] is last.buckets[_POD]:
        pods_by_key = _pods_again(last, memory, ctx)  # type: ignore[arg-type]
        pod_namespaces: set[str] | None = last.pod_namespaces
    else:
        pods_by_key = _pods(buckets[_POD], memory, ctx)
        pod_namespaces = None
    namespaces = {head[2]: constraints.namespace_labels(obj, head[2], source)
                  for source, obj, head in buckets[_NAMESPACE]}
    for which, label in ((_WORKLOAD, "Workload"), (_PODGROUP, "PodGroup")):
        for source, obj, head in buckets[which]:
            ctx.warnings.extend(
                constraints.group_warnings(obj, f"{label} {head[1]}/{head[2]}", source))
    nodes, pdbs = _nodes_and_pdbs(buckets, learnt)
    model_groups, model_workloads = _models(groups, workloads, default)

    templates = _templates(buckets[_TEMPLATE], workloads, classes, default, model_groups)
    if pod_namespaces is None:
        pod_namespaces = {p.namespace for p in pods_by_key.values()}
    ctx.warnings.extend(
        constraints.namespace_warnings(pods_by_key.values(), namespaces, pod_namespaces))
    ctx.warnings.extend(getattr(given, "warnings", ()))
    nodes.sort(key=lambda n: n.name)
    pdbs.sort(key=_KEY)
    snapshot = Snapshot(
        nodes={n.name: n for n in nodes},
        pods=pods_by_key,
        priority_classes={name: classes[name] for name in sorted(classes)},
        pdbs=tuple(pdbs),
        workloads=model_workloads,
        pod_groups=model_groups,
        ignored_kinds=dict(sorted(ignored.items())),
        namespaces={name: namespaces[name] for name in sorted(namespaces)},
        templates=templates,
        warnings=sorted_warnings(ctx.finish(groups)),
        server_version=server_version,
    )
    if reuse is not None:
        memory.pods_by_key = pods_by_key.copy()  # type: ignore[union-attr]
        memory.pod_namespaces = pod_namespaces  # type: ignore[union-attr]
        reuse.last = memory
    return snapshot


def _groups(
    buckets: list[list[Any]], book: _ClassBook, default: PriorityClass | None,
    load_warnings: list[LoadWarning],
) -> tuple[dict[str, _WorkloadDef], dict[str, _Group], dict[str, _Group]]:
    """The Workloads and PodGroups by key, and every group (theirs, v1alpha1's) by group key."""
    workloads: dict[str, _WorkloadDef] = {}
    for source, obj, head in buckets[_WORKLOAD]:
        with _about(_WORKLOAD, head):
            wl = _workload(obj, source, head, book)
        workloads[f"{wl.namespace}/{wl.name}"] = wl
    groups: dict[str, _Group] = {}
    for wl in workloads.values():
        for group in wl.groups.values():  # v1alpha1
            group.priority = prio.resolve_group(
                priority_class=wl.priority_class, preemption_class=wl.preemption_class
            )
            groups[group.key] = group
    pod_groups: dict[str, _Group] = {}
    for source, obj, head in buckets[_PODGROUP]:
        with _about(_PODGROUP, head):
            group = _pod_group(obj, source, head, book, workloads, default, load_warnings)
        pod_groups[f"{group.namespace}/{group.name}"] = group
        if group.key in groups:  # unreachable with unique names, kept as a guard
            raise InputError(f"pod group {group.key} defined twice", source, "metadata.name")
        groups[group.key] = group
    return workloads, groups, pod_groups


def _nodes_and_pdbs(
    buckets: list[list[Any]], learnt: Callable[[int], Any] | None,
) -> tuple[list[Node], list[PodDisruptionBudget]]:
    """The nodes and PDBs of their buckets, each taken from ``learnt`` when built before."""
    nodes = []
    head = None
    try:
        for source, obj, head in buckets[_NODE]:
            hit = learnt(id(obj)) if learnt is not None else None  # checked or made by _learn
            if hit is not None and hit.built is not None:
                nodes.append(hit.built)  # a node depends on its document alone
                continue
            node = _node(obj, source, head)
            if hit is not None:
                hit.built = node
            nodes.append(node)
    except InputError as exc:
        raise _named(exc, _NODE, head) from None  # type: ignore[arg-type]
    pdbs = []
    for source, obj, head in buckets[_PDB]:
        hit = learnt(id(obj)) if learnt is not None else None  # checked or made by _learn
        if hit is not None and hit.built is not None:
            pdbs.append(hit.built)  # as a node, a PDB depends on its document alone
            continue
        with _about(_PDB, head):
            pdb = _pdb(obj, source, head)
        if hit is not None:
            hit.built = pdb
        pdbs.append(pdb)
    return nodes, pdbs


def _models(
    groups: dict[str, _Group], workloads: dict[str, _WorkloadDef], default: PriorityClass | None,
) -> tuple[dict[str, PodGroup], dict[str, Workload]]:
    """The model's pod groups (priorities resolved) and Workloads (classes named), by key."""
    model_groups = {}
    for key in sorted(groups):
        g = groups[key]
        value, preemption, policy = prio.group_values(
            g.priority, g.members, member_never=g.member_never, default=default)
        model_groups[key] = PodGroup(
            namespace=g.namespace, workload=g.workload, name=g.name, key=key, policy=g.policy,
            min_count=g.min_count, disruption_mode=g.disruption_mode, priority=value,
            preemption_priority=preemption, preemption_policy=policy,
            declared_preemption_policy=g.priority.preemption_policy,
            priority_class_name=g.priority.priority_class_name,
            preemption_priority_class_name=g.priority.preemption_priority_class_name,
            api_version=g.api_version, source=g.source)
    model_workloads = {}
    for key in sorted(workloads):
        wl = workloads[key]
        model_workloads[key] = Workload(
            namespace=wl.namespace, name=wl.name, key=key, api_version=wl.api_version,
            group_names=tuple(sorted(wl.group_names)),
            priority_class_name=_workload_class(wl, "priority"),
            preemption_priority_class_name=_workload_class(wl, "preemption_class"),
            source=wl.source)
    return model_groups, model_workloads


def _pods(
    bucket: list[tuple[Source, dict[str, Any], _Head]], memory: _Memory | None,
    ctx: _PodContext,
) -> dict[str, Pod]:
    """The pods of the bucket by key, in key order; their part of ``memory``."""
    learnt = ctx.reuse.get if ctx.reuse is not None else None
    pods = []
    first_warning = len(ctx.warnings)
    head = None
    try:  # one handler for the loop (a context manager per pod costs ~2 us each)
        if memory is None:
            for source, obj, head in bucket:
                pods.append(_pod(obj, source, head, ctx))
        else:
            alike: dict[Any, list[int]] = {}  # gkey -> positions
            solo = memory.solo
            for i, (source, obj, head) in enumerate(bucket):
                hit = learnt(id(obj))  # type: ignore[misc]
                if hit is None or hit.obj is not obj:
                    raise _Fallback  # an entry taken out of the cache since the last build
                if hit.built is not None:
                    pods.append(_pod_again(hit, head, ctx))
                else:
                    pods.append(_pod(obj, source, head, ctx))
                gkey = ctx.gkey
                if gkey is None:
                    solo.append(i)
                else:
                    same = alike.get(gkey)
                    if same is None:
                        alike[gkey] = [i]
                    else:
                        same.append(i)
            memory.members = list(alike.values())
            memory.pod_out = pods
            memory.pod_warnings = ctx.warnings[first_warning:]
    except InputError as exc:
        raise _named(exc, _POD, head) from None  # type: ignore[arg-type]
    return {p.key: p for p in sorted(pods, key=_KEY)}


_resolved_of = attrgetter(*_RESOLVED)


def _pods_again(last: _Memory, memory: _Memory, ctx: _PodContext) -> dict[str, Pod]:
    """``_pods`` of the same pod documents as the build ``last`` remembers, from its pods:
    each set of pods that resolve alike (``last.members``) is resolved with its first pod;
    when that resolves quietly (``_quiet``) the others only join its group, else each is
    resolved on its own, as are ``last.solo``'s. A pod whose resolved fields changed is
    copied with the new ones. ``InputError`` as ``_pod_priority`` raises it (unnamed: the
    caller builds again the ordinary way)."""
    # last is this build's alone (``_build`` took it off the cache): its pods' list and dict
    # become this build's
    out = last.pod_out
    bucket = last.buckets[_POD]
    changed: list[int] = []

    def again(i: int) -> tuple[Any, ...]:
        source, obj, head = bucket[i]
        spec = obj.get("spec")
        if spec is None:
            spec = {}
        pod = out[i]
        pcn, pp, group = _pod_priority(spec, head[1], pod.key, source, ctx)
        resolved = _resolved(pcn, pp, group)
        moved = resolved != _resolved_of(pod)
        if moved:
            out[i] = _re_resolved(pod, resolved)
            changed.append(i)
        names_group = (spec.get("schedulingGroup") is not None
                       or spec.get("workloadRef") is not None)
        quiet = _quiet(names_group, pcn, pp, group, ctx)
        return (pp, group, resolved, moved) if quiet else ()

    for same in last.members:
        first = same[0]
        quiet = again(first)
        if len(same) == 1:
            continue
        if not quiet:
            for i in same[1:]:
                again(i)
            continue
        pp, group, resolved, moved = quiet
        if group is not None:
            _join(group, pp, len(same) - 1)
        if moved:  # the first one's fields changed: all did
            for i in same[1:]:
                out[i] = _re_resolved(out[i], resolved)
            changed.extend(same[1:])
    for i in last.solo:
        again(i)
    ctx.warnings.extend(last.pod_warnings)
    memory.members, memory.solo = last.members, last.solo
    memory.pod_out, memory.pod_warnings = out, last.pod_warnings
    by_key = last.pods_by_key
    for i in changed:
        pod = out[i]
        by_key[pod.key] = pod
    return by_key


_KEY = attrgetter("key")


def _templates(
    owners: list[tuple[Source, dict[str, Any], _Head]],
    workloads: dict[str, _WorkloadDef],
    classes: dict[str, PriorityClass],
    default: PriorityClass | None,
    groups: dict[str, PodGroup],
) -> dict[str, PodTemplateWorkload]:
    """Controllers' pod templates, and the podGroupTemplates of v1alpha2/3 Workloads that no
    PodGroup object instantiates yet (templates.py)."""
    objects = {f"{g.namespace}/{g.name}": k for k, g in groups.items() if g.api_version != V1ALPHA1}
    out: list[PodTemplateWorkload] = []
    for source, obj, (_, ns, name) in owners:
        try:
            for raw in tmpl.extract(obj["kind"], obj, source, ns, name):
                out.append(tmpl.resolve(raw, classes, default, groups, objects))
        except InputError as exc:  # the line names the controller, as a pod's names the pod
            raise exc.about(f"{obj['kind']} {ns}/{name}") from None
    for wl in workloads.values():
        if wl.templates and not wl.group_names:
            out.extend(
                tmpl.from_pod_group_templates(
                    wl.namespace, wl.name, wl.source, wl.templates, wl.priority_class,
                    wl.preemption_class, default,
                )
            )
    return {t.key: t for t in sorted(out, key=lambda t: t.key)}


def _workload_class(wl: _WorkloadDef, which: str) -> str | None:
    """The Workload's own class, else (v1alpha2/3) the one all its templates name."""
    own = wl.priority_class if which == "priority" else wl.preemption_class
    if own is not None:
        return own.name
    if not wl.templates:
        return None
    names = set()
    for t in wl.templates.values():
        value = t.get(which)
        pc = value[0] if which == "priority" and value is not None else value
        names.add(pc.name if pc is not None else None)
    return names.pop() if len(names) == 1 else None
