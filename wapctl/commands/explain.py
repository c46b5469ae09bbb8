"""`wapctl explain`: why a pod was preempted (or is pending), replayed and checked against what
the scheduler did."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from wapctl.commands import common
from wapctl.errors import ExitCode, UsageError

BeforeOpt = Annotated[
    list[str] | None,
    typer.Option("--before", metavar="FILE|DIR",
                 help="A snapshot taken before the preemption (e.g. by a cron job running "
                 "'wapctl snapshot'): victims already gone are taken from it. Repeatable.",
                 show_default=False),
]


def parse_target(text: str, namespace: str | None, kubeconfig: str | None,
                 context: str | None) -> str:
    """``pod/NS/NAME``, ``NS/NAME``, ``pod/NAME`` or ``NAME`` (in -n, else the context's
    namespace, else default) as ``NS/NAME``."""
    rest = text[4:] if text.startswith(("pod/", "po/")) else text
    rest = text[3:] if text.startswith("po/") else rest
    if text.startswith("pods/"):
        rest = text[5:]
    parts = rest.split("/")
    if len(parts) > 2 or not all(parts):
        raise UsageError(f"{text!r}: expected pod/NAMESPACE/NAME")
    if len(parts) == 2:
        if namespace is not None and parts[0] != namespace:
            raise UsageError(f"pod {rest} is not in namespace {namespace}")
        return rest
    if namespace is None:
        from wapctl.commands.kubecontext import context_namespace

        namespace = context_namespace(kubeconfig, context) if (kubeconfig or context) else None
    return f"{namespace or 'default'}/{rest}"


def read_inputs(opts: common.SnapshotOptions, before: list[str] | None) -> Any:
    """The current documents (files or live, events included), ``--before``'s, and the
    scheduler's events of both (``wapctl.explain.Inputs``)."""
    from wapctl import ingest
    from wapctl.events import read_events
    from wapctl.explain import Inputs
    from wapctl.gcpause import keep_until_exit
    from wapctl.ingest.json_reader import owner_references

    with owner_references():  # owners name the workloads (wapctl.owners)
        current: Any = common.read_documents(opts)  # a ingest.Documents
        earlier = (ingest.read_documents(list(before), max_input_size=opts.input_limit)
                   if before else ingest.Documents())
    if opts.live:
        from wapctl.live_events import fetch_events

        events, warnings = fetch_events(kubeconfig=opts.kubeconfig, context=opts.context,
                                        request_timeout=opts.request_timeout,
                                        page_size=opts.page_size)
        current.extend(events)
        current.warnings = (*current.warnings, *warnings)
    inputs = Inputs(current, earlier, read_events([*current, *earlier]))
    keep_until_exit(inputs)
    return inputs


@common.boundary
def explain(
    target: Annotated[str, typer.Argument(metavar="pod/NAMESPACE/NAME",
                                          help="The pod to explain.", show_default=False)],
    paths: common.SnapshotPaths = None,
    before: BeforeOpt = None,
    kubeconfig: common.KubeconfigOpt = None,
    context: common.ContextOpt = None,
    namespace: common.TargetNamespaceOpt = None,
    request_timeout: common.RequestTimeoutOpt = 30.0,
    page_size: common.PageSizeOpt = 500,
    max_input_size: common.MaxInputSizeOpt = None,
    model: common.ModelOpt = None,
    feature_gates: common.FeatureGatesOpt = None,
    output: common.StoryOutputOpt = common.StoryFormat.table,
    color: common.ColorOpt = common.ColorMode.auto,
    no_color: common.NoColorOpt = False,
) -> None:
    """Explain why a pod was preempted, or why it is pending.

    For a victim: who preempted it (the Preempted event's UID resolved to the pod or pod
    group), when, on which node, which pods went with it; then the cluster just before it
    (victims still terminating are put back; gone ones come from --before), the plan wapctl
    predicts for that preemptor there, why this node and these pods, and whether the
    prediction agrees with what the scheduler did. For a pending pod: the scheduler's
    FailedScheduling notes, whether it may preempt, and the plan now. The snapshot must hold
    the Events (kubectl get events -A, or 'wapctl snapshot --events'); events live one hour
    by default. Exit 0 when explained (the prediction agrees or no comparison was possible),
    1 when the prediction differs, 2 on bad input, 4 when the cluster cannot be read.
    """
    from wapctl.explain import VictimExplanation, explain_pod
    from wapctl.render.explain import explain_to_dict, render_explain

    key = parse_target(target, namespace, kubeconfig, context)
    opts = common.SnapshotOptions(paths=tuple(paths or ()), kubeconfig=kubeconfig,
                                  context=context, request_timeout=request_timeout,
                                  page_size=page_size, max_input_size=max_input_size)
    inputs = read_inputs(opts, before)
    behaviour = None
    if model is not None or feature_gates is not None:
        from wapctl.ingest import build_snapshot

        behaviour = common.behaviour_model(build_snapshot(inputs.current), model, feature_gates)
    result = explain_pod(key, inputs, behaviour)
    doc = explain_to_dict(result)
    common.emit(doc, output, no_color, lambda console: render_explain(doc, console), color=color)
    differs = isinstance(result, VictimExplanation) and result.verdict.agrees is False
    raise typer.Exit(int(ExitCode.FINDINGS if differs else ExitCode.OK))
