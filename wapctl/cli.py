"""The Typer application. Commands live in ``wapctl/commands/``; this file only wires them."""

from __future__ import annotations

import typer

from wapctl import __version__

app = typer.Typer(
    name="wapctl",
    help="Plan and audit Kubernetes workload-aware preemption (KEP-5710) before it happens.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"wapctl {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Plan and audit Kubernetes workload-aware preemption (KEP-5710) before it happens."""


# Each command module exposes one function; registration order is the order in --help.
from wapctl.commands import audit as _audit
from wapctl.commands import check_cycles as _check_cycles
from wapctl.commands import plan as _plan
from wapctl.commands import simulate as _simulate
from wapctl.commands import snapshot as _snapshot
from wapctl.commands import validate as _validate

app.command("plan")(_plan.plan)
app.command("validate")(_validate.validate)
app.command("snapshot")(_snapshot.snapshot)
app.command("check-cycles")(_check_cycles.check_cycles)
app.command("audit")(_audit.audit)
app.command("simulate")(_simulate.simulate)


def main() -> None:
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
