"""`wapctl version`: wapctl's version and the scheduler code each behaviour model follows."""

from __future__ import annotations

import typer


def version() -> None:
    """Print wapctl's version and what each --model follows (the upstream commit)."""
    from wapctl import __version__, models

    typer.echo(f"wapctl {__version__}")
    for name in models.MODEL_NAMES:
        typer.echo(f"model {name}: {models.get_model(name).follows}")
