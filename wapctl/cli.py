"""The Typer application. Commands live in ``wapctl/commands/``; this file only wires them."""

from __future__ import annotations

import sys

import typer

# Click's exception classes, whether typer vendors click (newer releases) or depends on it:
# typer.BadParameter derives from click's UsageError, itself a ClickException.
_CLICK_ERRORS = {c.__name__: c for c in typer.BadParameter.__mro__}
ClickUsageError: type[Exception] = _CLICK_ERRORS["UsageError"]
ClickException: type[Exception] = _CLICK_ERRORS["ClickException"]

from wapctl import __version__
from wapctl.errors import ExitCode

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
from wapctl.commands import version as _version_cmd

app.command("plan")(_plan.plan)
app.command("validate")(_validate.validate)
app.command("snapshot")(_snapshot.snapshot)
app.command("check-cycles")(_check_cycles.check_cycles)
app.command("audit")(_audit.audit)
app.command("simulate")(_simulate.simulate)
app.command("version")(_version_cmd.version)


def main() -> None:
    """The console script: Typer's own error display is a boxed panel; ours is one line."""
    try:
        code = app(standalone_mode=False)
    except ClickUsageError as exc:  # unknown option, bad value, missing argument
        ctx = getattr(exc, "ctx", None)
        if not exc.format_message():  # type: ignore[attr-defined]
            sys.exit(int(ExitCode.INPUT))  # no arguments at all: Typer has printed the help
        hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        sys.stderr.write(f"error: {exc.format_message()}{hint}\n")  # type: ignore[attr-defined]
        sys.exit(int(ExitCode.INPUT))
    except ClickException as exc:
        sys.stderr.write(f"error: {exc.format_message()}\n")  # type: ignore[attr-defined]
        sys.exit(exc.exit_code)  # type: ignore[attr-defined]
    except typer.Abort:
        sys.stderr.write("interrupted\n")
        sys.exit(int(ExitCode.INTERRUPTED))
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":  # pragma: no cover
    main()
