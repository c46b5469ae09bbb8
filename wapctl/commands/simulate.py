"""`wapctl simulate`: replay the scheduling queue with delayed preemption until it settles.

Exit codes: 0 the queue converges; 1 a preemption cycle was found, or ``--max-steps`` ended the
replay first (a CI job must notice a replay that did not settle: an operator would rather raise
the bound than get a silent green); 2 usage or input error; 4 the cluster cannot be read.
"""

from __future__ import annotations

import sys
import time
from typing import Annotated, Any

import typer

from wapctl.commands import common
from wapctl.errors import ExitCode

MaxStepsOpt = Annotated[
    int,
    typer.Option("--max-steps", metavar="N", min=1,
                 help="Stop after this many steps if the queue has neither converged nor "
                 "cycled (exit 1)."),
]
NoRequeueOpt = Annotated[
    bool,
    typer.Option("--no-requeue",
                 help="Pods that finish are gone for good instead of coming back pending "
                 "(as a controller would recreate them)."),
]

PROGRESS_AFTER = 0.5  # seconds: short replays show no progress bar


class _Progress:
    """A Rich progress bar on stderr, shown only on a terminal and only once a replay has run
    for a while."""

    def __init__(self, total: int, no_color: bool) -> None:
        self.total = total
        self.no_color = no_color
        self.enabled = sys.stderr.isatty()
        self.started = time.monotonic()
        self.bar: Any = None
        self.task: Any = None

    def __call__(self, step: Any) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            if time.monotonic() - self.started < PROGRESS_AFTER:
                return
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self.bar = Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(),
                                console=common.make_console(self.no_color, stderr=True),
                                transient=True)
            self.bar.start()
            self.task = self.bar.add_task("steps", total=self.total)
        self.bar.update(self.task, completed=step.number)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


@common.boundary
def simulate(
    paths: common.SnapshotPaths = None,
    kubeconfig: common.KubeconfigOpt = None,
    context: common.ContextOpt = None,
    namespace: common.NamespaceOpt = None,
    all_namespaces: common.AllNamespacesOpt = False,
    request_timeout: common.RequestTimeoutOpt = 30.0,
    page_size: common.PageSizeOpt = 500,
    max_input_size: common.MaxInputSizeOpt = None,
    max_steps: MaxStepsOpt = 1000,
    no_requeue: NoRequeueOpt = False,
    model: common.ModelOpt = None,
    feature_gates: common.FeatureGatesOpt = None,
    output: common.SummaryOutputOpt = common.ReportFormat.table,
    color: common.ColorOpt = common.ColorMode.auto,
    no_color: common.NoColorOpt = False,
) -> None:
    """Replay the scheduling queue with delayed preemption until it settles or cycles.

    Each step plans the head of the queue (as `wapctl plan` does) and applies it: bind,
    preempt (victims terminate, the preemptor keeps its nominated nodes and retries), wait
    for terminations, or park. Every pod that finishes -- a victim, or a pod already
    terminating in the snapshot -- comes back pending under its own name, as a controller
    would recreate it, whether or not one owns it (unless --no-requeue).
    Exit 0 when the queue converges, 1 on a preemption cycle (or when --max-steps ends the
    replay first), 2 on bad input, 4 when the cluster cannot be read.
    """
    from wapctl.render.names import simulation_names
    from wapctl.render.simulate import render_simulation, simulation_to_dict, verdict
    from wapctl.simulate import simulate as replay

    namespace = common.resolve_namespace(namespace, all_namespaces)
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
    progress = _Progress(max_steps, no_color or color is common.ColorMode.never)
    try:
        result = replay(snapshot, max_steps=max_steps, requeue=not no_requeue,
                        namespace=namespace, on_step=progress, model=behaviour)
    finally:
        progress.close()
    doc = simulation_to_dict(result, snapshot.warnings)
    doc["model"] = behaviour.to_dict()
    if result.hit_step_limit and not output.human:
        sys.stderr.write(f"wapctl simulate: {verdict(doc)}\n")
        sys.stderr.flush()
    common.emit(doc, output, no_color, lambda console: render_simulation(doc, console),
                color=color, names=lambda: simulation_names(doc), html=lambda: _html(doc))
    raise typer.Exit(int(ExitCode.OK if result.converged else ExitCode.FINDINGS))


def _html(doc: dict[str, Any]) -> str:
    from wapctl.render.html.simulate import simulation_page

    return simulation_page(doc)
