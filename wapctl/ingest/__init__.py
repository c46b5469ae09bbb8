"""Ingest: snapshot files, directories and stdin -> documents -> one validated ``Snapshot``.

Everything before the ``Snapshot`` happens here, in this order (a module a step):
``sources`` (files, directories, stdin; size limits from ``limits``) -> ``decode`` (JSON and
YAML -> ``Document``s; the fast readers ``json_reader`` and ``yaml_reader``, the safe ones,
``duplicate_keys``, ``hints`` for error lines, ``line_finders`` for the lines of objects read
fast) -> ``classify`` (which builder takes a document)
-> the builders ``node``, ``pdb``, ``priority_class``, ``workload``, ``pod`` (with
``constraints`` and ``templates``; single fields through ``fields``) -> ``resolve`` (pod groups
and priorities: the only cross-object step) -> ``assemble`` (the ``Snapshot``). ``cache`` and
``rebuild`` let a second build of mostly the same documents read only what differs (``audit``).
The public API is re-exported here: ``read_documents``, ``build_snapshot``, ``Document``,
``Documents``, ``BuildCache``, ``parse_size`` and the limits' values (to change a limit, set
it on ``wapctl.ingest.limits``: the code reads it there when it applies it).

Inputs (SPEC.md §1): files, directories (every ``*.yaml``, ``*.yml`` and ``*.json`` directly
inside, sorted by name) and ``-`` for stdin. YAML may hold several documents; JSON holds one
value. A document is one Kubernetes object or a list of them (``kind: List`` or any kind ending
in ``List``, with ``items``), exactly as ``kubectl get ... -o yaml|json`` prints it. Empty YAML
documents (a lone ``---``) are skipped; a file with no documents at all is an error.

Parsing is safe: YAML goes through libyaml's C ``CSafeLoader`` when PyYAML has it (else the pure
Python ``SafeLoader``), so a tag such as ``!!python/object`` is an error, never a constructed
object; documents are composed first so each object keeps the line it starts on
(``Source.line``). Text that starts like JSON is read by the fast reader (``json_reader``:
msgspec against a schema of the fields read, skipping ``managedFields`` and status noise); when
it is not sure it hands over to the ``json`` module (the safe path, today's exact errors); a
``.json`` file that is not valid JSON is an error, anything else falls back to YAML. YAML of
``FAST_YAML_FROM`` (1 MiB) or more first tries ``yaml_reader`` (rapidyaml + the JSON fast
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
affinity namespaceSelectors; see ``wapctl.ingest.constraints``). Every other kind is counted in
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

from wapctl.ingest.assemble import build_snapshot
from wapctl.ingest.cache import BuildCache
from wapctl.ingest.decode import SERVER_VERSION_ANNOTATION, Document, Documents
from wapctl.ingest.limits import (
    DEFAULT_NODE_PODS,
    FAST_FROM,
    MAX_ALIAS_EXPANSION,
    MAX_ALIASES,
    MAX_DEPTH,
    MAX_FAST_INPUT_SIZE,
    MAX_INPUT_SIZE,
    parse_size,
)
from wapctl.ingest.priority_class import BUILTIN_PRIORITY_CLASSES
from wapctl.ingest.sources import read_documents

__all__ = [
    "BUILTIN_PRIORITY_CLASSES",
    "DEFAULT_NODE_PODS",
    "FAST_FROM",
    "MAX_ALIASES",
    "MAX_ALIAS_EXPANSION",
    "MAX_DEPTH",
    "MAX_FAST_INPUT_SIZE",
    "MAX_INPUT_SIZE",
    "SERVER_VERSION_ANNOTATION",
    "BuildCache",
    "Document",
    "Documents",
    "build_snapshot",
    "parse_size",
    "read_documents",
]
