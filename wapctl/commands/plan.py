"""`wapctl plan`: which pods and gangs would be preempted to place a pending pod or pod group."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from wapctl.commands import common
from wapctl.errors import ExitCode, NothingPending

if TYPE_CHECKING:
    from wapctl.model import LabelSelector, Snapshot
    from wapctl.models import BehaviourModel
    from wapctl.preemptor import Preemptor

PodOpt = Annotated[
    str | None,
    typer.Option("--pod", metavar="[NAMESPACE/]NAME",
                 help="The pending pod to plan for; a bare NAME is in -n, else the "
                 "kubeconfig context's namespace, else default.",
                 show_default=False),
]
WorkloadOpt = Annotated[
    str | None,
    typer.Option("--workload", metavar="NAMESPACE/WORKLOAD[/GROUP]",
                 help="The pending pod group to plan for.", show_default=False),
]
SamplesOpt = Annotated[
    int,
    typer.Option("--samples", min=0, metavar="N",
                 help="Also replay the plan N times with seeded random tie orders (as the "
                 "scheduler's random choices would fall) and report the spread: pods "
                 "preempted always / sometimes, min/median/max victim count."),
]
SeedOpt = Annotated[int, typer.Option("--seed", metavar="N", help="First seed of --samples.")]


@common.boundary
def plan(
    paths: common.SnapshotPaths = None,
    pod: PodOpt = None,
    workload: WorkloadOpt = None,
    kubeconfig: common.KubeconfigOpt = None,
    context: common.ContextOpt = None,
    namespace: common.NamespaceOpt = None,
    all_namespaces: common.AllNamespacesOpt = False,
    selector: common.SelectorOpt = None,
    request_timeout: common.RequestTimeoutOpt = 30.0,
    page_size: common.PageSizeOpt = 500,
    max_input_size: common.MaxInputSizeOpt = None,
    samples: SamplesOpt = 0,
    seed: SeedOpt = 0,
    model: common.ModelOpt = None,
    feature_gates: common.FeatureGatesOpt = None,
    output: common.ReportOutputOpt = common.ReportFormat.table,
    color: common.ColorOpt = common.ColorMode.auto,
    no_color: common.NoColorOpt = False,
) -> None:
    """Plan workload-aware preemption for a pending pod or pod group.

    With neither --pod nor --workload, plans for the highest-priority pending preemptor
    (narrowed by -n and -l) and says which. Exit 0 when the preemptor can be placed (possibly
    after preemption or after terminating pods are gone) or nothing is pending, 3 when it
    cannot be placed even with preemption, 2 on bad input, 4 when the cluster cannot be read.
    """
    from dataclasses import replace

    from wapctl.preemption import plan as make_plan
    from wapctl.render.names import plan_names
    from wapctl.render.plan import plan_to_dict, render_plan
    from wapctl.render.plan_wide import wide_details
    from wapctl.selector import parse_selector

    namespace = common.resolve_namespace(namespace, all_namespaces)
    label_selector = parse_selector(selector) if selector is not None else None
    if pod is not None and "/" not in pod and namespace is None:
        from wapctl.commands.kubecontext import context_namespace

        pod = f"{context_namespace(kubeconfig, context) or 'default'}/{pod}"
    opts = common.SnapshotOptions(
        paths=tuple(paths or ()),
        kubeconfig=kubeconfig,
        context=context,
        namespace=namespace,
        request_timeout=request_timeout,
        page_size=page_size,
        max_input_size=max_input_size,
    )
    snapshot = common.load_snapshot(opts, progress=True)
    behaviour = common.behaviour_model(snapshot, model, feature_gates)
    preemptor, notes = _preemptor(snapshot, behaviour, pod, workload, namespace,
                                  label_selector, output)
    result = make_plan(snapshot, preemptor, model=behaviour)
    if notes:
        result = replace(result, notes=tuple(notes))
    doc = plan_to_dict(result, snapshot.warnings)
    if samples:
        from wapctl.samples import sample_plans, samples_to_dict

        doc["samples"] = samples_to_dict(sample_plans(snapshot, preemptor, model=behaviour,
                                                      samples=samples, seed=seed))
    note = None if pod or workload else _highest_note(preemptor, output)
    common.emit(
        doc, output, no_color,
        lambda console: render_plan(doc, console, note=note),
        color=color,
        names=lambda: plan_names(doc),
        wide=lambda console: render_plan(doc, console, note=note,
                                         wide=wide_details(snapshot, result)),
        html=lambda: _html(doc, snapshot, result, note),
    )
    raise typer.Exit(int(ExitCode.UNSCHEDULABLE if result.status == "Unschedulable"
                         else ExitCode.OK))


def _preemptor(snapshot: Snapshot, behaviour: BehaviourModel, pod: str | None,
               workload: str | None, namespace: str | None, selector: LabelSelector | None,
               output: common.ReportFormat) -> tuple[Preemptor, list[str]]:
    """The preemptor the options name (a pod of a gang: its whole group, where the model plans
    groups whole), with the notes saying so; nothing pending ends the command with exit 0."""
    from wapctl.preemptor import whole_group_of

    try:
        preemptor = common.named_preemptor(snapshot, pod=pod, workload=workload,
                                           namespace=namespace, selector=selector)
    except NothingPending as exc:  # not a failure: say so on stdout (stderr for machines)
        stream = sys.stdout if output.human else sys.stderr
        stream.write(f"{exc}\n")
        raise typer.Exit(int(ExitCode.OK)) from None
    notes: list[str] = []
    if pod and preemptor.kind == "Pod" and behaviour.pod_plans_its_group:
        group = whole_group_of(snapshot, preemptor)
        if group is not None:
            preemptor = group
    if pod and preemptor.kind == "PodGroup":
        notes.append(f"pod {pod} is a member of pod group {preemptor.group_key}: group members "
                     f"do not preempt one by one, so the plan is for the whole group")
    return preemptor, notes


def _highest_note(preemptor: Preemptor, output: common.ReportFormat) -> str:
    """Which preemptor was chosen when none was named (on stderr too, for machine output)."""
    who = f"{preemptor.namespace}/{preemptor.name}"
    if preemptor.pod_group:
        who += f"/{preemptor.pod_group}"
    note = f"Planning for the highest-priority pending preemptor: {preemptor.kind} {who}"
    if not output.human:
        sys.stderr.write(note + "\n")
    return note


def _html(doc: dict[str, Any], snapshot: Any, result: Any, note: str | None) -> str:
    """``-o html``: the document and the ``-o wide`` numbers it lacks, as one page."""
    from wapctl.render.html.extras import plan_picture
    from wapctl.render.html.plan import plan_page
    from wapctl.render.plan_wide import wide_details

    picture = plan_picture(snapshot, result, wide_details(snapshot, result))
    return plan_page(doc, picture, note=note)
