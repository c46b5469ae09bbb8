"""The Typer application. Commands live in ``wapctl/commands/``; this file only wires them."""

from __future__ import annotations

import os
import re
import sys
from typing import Any, NoReturn

import typer

# Click's exception classes, whether typer vendors click (newer releases) or depends on it:
# typer.BadParameter derives from click's UsageError, itself a ClickException.
_CLICK_ERRORS = {c.__name__: c for c in typer.BadParameter.__mro__}
ClickUsageError: type[Exception] = _CLICK_ERRORS["UsageError"]
ClickException: type[Exception] = _CLICK_ERRORS["ClickException"]

from wapctl import __version__
from wapctl.errors import ExitCode

# Help reads like kubectl's: an argument with a metavar shows only that ([FILE|DIR|-]...), not
# Typer's Python type (<list[str]>) beside it. Options set their metavars in commands/common.py.
_argument_type = typer.core.TyperArgument.display_type_rich


def _argument_display(self: typer.core.TyperArgument, ctx: Any) -> str | None:
    return None if self.metavar else _argument_type(self, ctx)


typer.core.TyperArgument.display_type_rich = _argument_display  # type: ignore[assignment]

app = typer.Typer(
    name="wapctl",
    help="Plan and audit Kubernetes workload-aware preemption (KEP-5710) before it happens.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    # Help wraps to the terminal (click caps it at 80 columns unless told otherwise).
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 200},
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
from wapctl.commands import explain as _explain
from wapctl.commands import history as _history
from wapctl.commands import plan as _plan
from wapctl.commands import simulate as _simulate
from wapctl.commands import snapshot as _snapshot
from wapctl.commands import validate as _validate
from wapctl.commands import version as _version_cmd
from wapctl.commands.examples import epilog as _epilog


class _Command(typer.core.TyperCommand):
    """A command whose help examples name the program as invoked: ``kubectl wap plan ...``
    when run as the kubectl plugin, as its usage line and error hints do."""

    def format_epilog(self, ctx: Any, formatter: Any) -> None:
        prog = ctx.find_root().info_name or "wapctl"
        saved = self.epilog
        self.epilog = _epilog(self.name or "", prog) if saved else saved
        try:
            super().format_epilog(ctx, formatter)
        finally:
            self.epilog = saved


for _name, _function in (("plan", _plan.plan), ("validate", _validate.validate),
                         ("snapshot", _snapshot.snapshot),
                         ("check-cycles", _check_cycles.check_cycles), ("audit", _audit.audit),
                         ("simulate", _simulate.simulate), ("explain", _explain.explain),
                         ("history", _history.history)):
    app.command(_name, cls=_Command, epilog=_epilog(_name))(_function)
app.command("version")(_version_cmd.version)


# Options every data command takes, which may also come before the command name, as with
# kubectl (``wapctl --context prod plan``): they are moved after it.
_GLOBAL_VALUE_OPTIONS = frozenset({
    "--kubeconfig", "--context", "-n", "--namespace", "--request-timeout", "-o", "--output",
    "--color", "--page-size", "--max-input-size",
})
_GLOBAL_FLAGS = frozenset({"-A", "--all-namespaces", "--no-color"})
_SHORT_EQUALS = re.compile(r"(-[A-Za-z])=(.*)", re.DOTALL)


def normalize_argv(argv: list[str], commands: frozenset[str] | set[str]) -> list[str]:
    """kubectl's spellings that click reads otherwise: ``-o=json`` / ``-n=prod`` (click would
    take ``=json`` as the value), and global options before the command name."""
    out: list[str] = []
    for i, tok in enumerate(argv):
        if tok == "--":
            out.extend(argv[i:])
            break
        m = _SHORT_EQUALS.fullmatch(tok)
        out.extend((m.group(1), m.group(2)) if m else (tok,))
    lead: list[str] = []
    i = 0
    while i < len(out):
        tok = out[i]
        if tok in _GLOBAL_FLAGS:
            lead.append(tok)
            i += 1
        elif tok.startswith("--") and tok.split("=", 1)[0] in _GLOBAL_VALUE_OPTIONS and "=" in tok:
            lead.append(tok)
            i += 1
        elif tok in _GLOBAL_VALUE_OPTIONS and i + 1 < len(out):
            lead.extend(out[i : i + 2])
            i += 2
        else:
            break
    if lead and i < len(out) and out[i] in commands:
        return [out[i], *lead, *out[i + 1 :]]
    return out


def prog_name(argv0: str) -> str:
    """``kubectl wap`` when run as the kubectl plugin (``kubectl-wap``), else ``wapctl``."""
    base = os.path.basename(argv0)
    return "kubectl wap" if base.startswith("kubectl-wap") else "wapctl"


# Typer's words for a value outside an option's choices (through pydantic: "Value error, ...").
_NOT_ONE_OF = re.compile(r"(?:Value error, )?'(?P<value>.*)' is not one of "
                         r"(?P<choices>'[^']*'(?:, '[^']*')*)\.?", re.DOTALL)


def _choice_message(exc: Exception) -> str | None:
    """``-o 'JSON' is not an accepted value: use one of table, wide, ...`` for an option value
    outside its choices, in wapctl's words (None: another usage error)."""
    found = _NOT_ONE_OF.fullmatch(str(getattr(exc, "message", "")))
    param = getattr(exc, "param", None)
    if found is None or param is None:
        return None
    value = found["value"]
    choices = re.findall(r"'([^']*)'", found["choices"])
    names = sorted(getattr(param, "opts", []) + getattr(param, "secondary_opts", []), key=len)
    option = "/".join(names) or str(getattr(param, "name", "the option"))
    text = f"{option} {value!r} is not an accepted value: use one of {', '.join(choices)}"
    if value.lower() in choices:
        text += " (lowercase, as kubectl takes them)"
    return text


def _closed_pipe() -> NoReturn:
    """stdout's reader went away (``wapctl ... | head -1``): exit as kubectl does, killed by
    SIGPIPE (141 in a shell), writing nothing more. Only the console script does this: stdout
    becomes /dev/null, so the interpreter's last flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real stdout: nothing is left to flush there either
        pass
    sys.exit(int(ExitCode.CLOSED_PIPE))


def main() -> None:
    """The console script and the one error boundary: Typer's own error display is a boxed
    panel; ours is one line, and every exception maps to an exit code (commands.common.
    exit_code_for)."""
    try:
        _main()
        sys.stdout.flush()  # what is still buffered: a closed pipe shows here, not at exit
    except BrokenPipeError:
        _closed_pipe()
    except SystemExit as exc:
        # Typer answers a closed pipe it meets itself (--help, --version) with exit 1, the
        # code for findings, once it has wrapped stdout in its PacifyFlushWrapper
        if exc.code == ExitCode.CLOSED_PIPE or type(sys.stdout).__name__ == "PacifyFlushWrapper":
            _closed_pipe()
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _closed_pipe()
        raise


def _main() -> None:
    from wapctl.commands.common import exit_code_for, report_interrupt
    from wapctl.gcpause import keep_objects_until_exit

    keep_objects_until_exit()  # one command, then the process ends: no freeing object by object

    commands = frozenset(c.name for c in app.registered_commands if c.name)
    if sys.argv[1:2] in (["__complete"], ["__completeNoDesc"]):  # kubectl_complete-wap
        from wapctl.commands.plugin_complete import cobra_complete

        rest = sys.argv[2:]
        words = normalize_argv(rest[:-1], commands) + rest[-1:]
        sys.stdout.write(cobra_complete(app, words,
                                        descriptions=sys.argv[1] == "__complete"))
        sys.exit(0)
    args = normalize_argv(sys.argv[1:], commands)
    try:
        code = app(args=args, prog_name=prog_name(sys.argv[0]), standalone_mode=False)
    except ClickUsageError as exc:  # unknown option, bad value, missing argument
        ctx = getattr(exc, "ctx", None)
        if not exc.format_message():  # type: ignore[attr-defined]
            sys.exit(int(ExitCode.INPUT))  # no arguments at all: Typer has printed the help
        hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        message = _choice_message(exc) or exc.format_message()  # type: ignore[attr-defined]
        sys.stderr.write(f"error: {message}{hint}\n")
        sys.exit(int(ExitCode.INPUT))
    except ClickException as exc:
        sys.stderr.write(f"error: {exc.format_message()}\n")  # type: ignore[attr-defined]
        sys.exit(exc.exit_code)  # type: ignore[attr-defined]
    except typer.Abort:
        report_interrupt()
        sys.exit(int(ExitCode.INTERRUPTED))
    except (Exception, KeyboardInterrupt) as exc:
        sys.exit(exit_code_for(exc))
    if code == ExitCode.INTERRUPTED:  # Typer turns a Ctrl-C outside the commands into Exit(130)
        report_interrupt(unless_reported=True)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":  # pragma: no cover
    main()
