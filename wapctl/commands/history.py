"""`wapctl history`: every preemption the scheduler's events record, churn and ping-pong."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from wapctl.commands import common
from wapctl.commands.explain import BeforeOpt, read_inputs
from wapctl.errors import ExitCode, UsageError


def _history(inputs: Any) -> Any:
    from wapctl.events import unread_warnings
    from wapctl.history import build_history
    from wapctl.ingest import build_snapshot
    from wapctl.owners import ObjectIndex

    lists = [d for d in (inputs.current, inputs.before) if d]
    snapshots = [build_snapshot(d) for d in lists]
    indexes = [ObjectIndex(d) for d in lists]
    warnings = [*(w for snap in snapshots for w in snap.warnings), *unread_warnings(inputs.log)]
    return build_history(inputs.log, ObjectIndex(*lists), snapshots, indexes), warnings


def _watch(opts: common.SnapshotOptions, output: common.StoryFormat) -> None:
    """Print each victim as the live cluster's events show it, until Ctrl-C; a Preempted
    event that cannot be read is a warning line on stderr."""
    import sys

    from wapctl.live_events import Seen, follow
    from wapctl.model import LoadWarning
    from wapctl.render.history import seen_line, seen_to_dict
    from wapctl.render.warnings import warning_line, warnings_to_list

    def warn(warning: LoadWarning) -> None:
        sys.stderr.write(warning_line(warnings_to_list([warning])[0]) + "\n")
        sys.stderr.flush()

    def emit(seen: Seen) -> None:
        doc = seen_to_dict(seen)
        if output is common.StoryFormat.json:
            sys.stdout.write(common.dump_json(doc))
        elif output is common.StoryFormat.yaml:
            sys.stdout.write("---\n" + common.dump_yaml(doc))
        else:
            sys.stdout.write(seen_line(doc) + "\n")
        sys.stdout.flush()

    follow(kubeconfig=opts.kubeconfig, context=opts.context,
           request_timeout=opts.request_timeout, emit=emit, warn=warn)


@common.boundary
def history(
    paths: common.SnapshotPaths = None,
    before: BeforeOpt = None,
    kubeconfig: common.KubeconfigOpt = None,
    context: common.ContextOpt = None,
    request_timeout: common.RequestTimeoutOpt = 30.0,
    page_size: common.PageSizeOpt = 500,
    max_input_size: common.MaxInputSizeOpt = None,
    watch: Annotated[bool, typer.Option(
        "--watch", "-w", help="Follow the live cluster: print each victim as its Preempted "
        "event arrives, with its preemptor and the victims of that preemptor seen so far (the "
        "victims of one preemptor make one preemption, and more may come: no preemption is "
        "printed as complete). As offline, the events of default-scheduler and of any "
        "scheduler a pod names (spec.schedulerName) count; a Preempted event that cannot be "
        "read is a warning on stderr (watches events and pods; Ctrl-C stops).")] = False,
    output: common.StoryOutputOpt = common.StoryFormat.table,
    color: common.ColorOpt = common.ColorMode.auto,
    no_color: common.NoColorOpt = False,
) -> None:
    """Every preemption in the scheduler's events: who preempted whom.

    Counts per owning workload (pod group, JobSet, Deployment/ReplicaSet, Job, ...) and per
    pair of workloads, with the capacity churned (the victims' requests). An owner whose pods
    were taken by two or more preemptions is reported as churn; workloads preempting each
    other in a circle as ping-pong. Events live one hour by default: an empty window says so.
    Exit 0, or 1 when there is ping-pong (for alerting); 2 on bad input, 4 when the cluster
    cannot be read.
    """
    from wapctl.render.history import history_to_dict, render_history

    opts = common.SnapshotOptions(paths=tuple(paths or ()), kubeconfig=kubeconfig,
                                  context=context, request_timeout=request_timeout,
                                  page_size=page_size, max_input_size=max_input_size)
    if watch:
        if not opts.live:
            raise UsageError("--watch follows a live cluster: give no snapshot files")
        _watch(opts, output)
        return
    h, warnings = _history(read_inputs(opts, before))
    doc = history_to_dict(h, warnings)
    common.emit(doc, output, no_color, lambda console: render_history(doc, console), color=color)
    raise typer.Exit(int(ExitCode.FINDINGS if h.ping_pong else ExitCode.OK))
