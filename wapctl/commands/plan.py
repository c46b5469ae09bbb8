"""`wapctl plan`: which pods and gangs would be preempted to place a pending pod or pod group."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from wapctl.commands import common
from wapctl.errors import ExitCode


@common.boundary
def plan(
    paths: common.SnapshotPaths = None,
    pod: Annotated[
        str | None,
        typer.Option("--pod", help="The pending pod to plan for, NAMESPACE/NAME.",
                     show_default=False),
    ] = None,
    workload: Annotated[
        str | None,
        typer.Option(
            "--workload",
            help="The pending pod group to plan for: NAMESPACE/WORKLOAD, or "
            "NAMESPACE/WORKLOAD/GROUP.",
            show_default=False,
        ),
    ] = None,
    kubeconfig: common.KubeconfigOpt = None,
    context: common.ContextOpt = None,
    namespace: common.NamespaceOpt = None,
    request_timeout: common.RequestTimeoutOpt = 30.0,
    page_size: common.PageSizeOpt = 500,
    max_input_size: common.MaxInputSizeOpt = None,
    samples: Annotated[
        int,
        typer.Option("--samples", min=0,
                     help="Also replay the plan N times with seeded random tie orders (as the "
                     "scheduler's random choices would fall) and report the spread: pods "
                     "preempted always / sometimes, min/median/max victim count."),
    ] = 0,
    seed: Annotated[int, typer.Option("--seed", help="First seed of --samples.")] = 0,
    model: common.ModelOpt = None,
    feature_gates: common.FeatureGatesOpt = None,
    output: common.OutputOpt = common.OutputFormat.table,
    no_color: common.NoColorOpt = False,
) -> None:
    """Plan workload-aware preemption for a pending pod or pod group.

    With neither --pod nor --workload, plans for the highest-priority pending preemptor and
    says which. Exit 0 when the preemptor can be placed (possibly after preemption or after
    terminating pods are gone), 3 when it cannot be even with preemption, 2 on bad input,
    4 when the cluster cannot be read.
    """
    from dataclasses import replace

    from wapctl.preemption import plan as make_plan
    from wapctl.preemptor import whole_group_of
    from wapctl.render.plan import plan_to_dict, render_plan

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
    preemptor = common.named_preemptor(snapshot, pod=pod, workload=workload,
                                       namespace=namespace)
    notes: list[str] = []
    if pod and preemptor.kind == "Pod" and behaviour.name != "kep-5710":
        group = whole_group_of(snapshot, preemptor)
        if group is not None:
            preemptor = group
    if pod and preemptor.kind == "PodGroup":
        notes.append(f"pod {pod} is a member of pod group {preemptor.group_key}: group members "
                     f"do not preempt one by one, so the plan is for the whole group")
    result = make_plan(snapshot, preemptor, model=behaviour)
    if notes:
        result = replace(result, notes=tuple(notes))
    doc = plan_to_dict(result, snapshot.warnings)
    if samples:
        from wapctl.samples import sample_plans, samples_to_dict

        doc["samples"] = samples_to_dict(sample_plans(snapshot, preemptor, model=behaviour,
                                                      samples=samples, seed=seed))
    note = None
    if not pod and not workload:
        who = f"{preemptor.namespace}/{preemptor.name}"
        if preemptor.pod_group:
            who += f"/{preemptor.pod_group}"
        note = f"Planning for the highest-priority pending preemptor: {preemptor.kind} {who}"
        if output is not common.OutputFormat.table:
            sys.stderr.write(note + "\n")
    common.emit(doc, output, no_color, lambda console: render_plan(doc, console, note=note))
    raise typer.Exit(int(ExitCode.UNSCHEDULABLE if result.status == "Unschedulable"
                         else ExitCode.OK))
