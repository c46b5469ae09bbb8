"""Shell completion for ``kubectl wap`` (kubectl >= 1.26 plugin completion).

kubectl completes a plugin's arguments by running ``kubectl_complete-wap`` (from PATH) with the
words typed after ``kubectl wap``, the last one being the word under the cursor, and reads
Cobra's ``__complete`` protocol: one candidate a line (``value<TAB>description``), then
``:<directive>`` (4: no file completion; 0: let the shell complete file names). The helper
script in completions/ runs ``kubectl-wap __complete ...``, answered here from the same click
command tree the shell completion scripts use (so they cannot disagree).
"""

from __future__ import annotations

from typing import Any

NO_FILE_COMPLETION = 4
DEFAULT = 0


def cobra_complete(app: Any, words: list[str], *, descriptions: bool = True) -> str:
    from typer._click.shell_completion import ShellComplete
    from typer.main import get_command

    class _Cobra(ShellComplete):
        name = "cobra"
        source_template = ""

        def source_vars(self) -> dict[str, Any]:  # pragma: no cover - never sourced
            return {}

        def get_completion_args(self) -> tuple[list[str], str]:  # pragma: no cover
            return [], ""

        def format_completion(self, item: Any) -> str:  # pragma: no cover
            return str(item.value)

    args, incomplete = (words[:-1], words[-1]) if words else ([], "")
    try:
        items = _Cobra(get_command(app), {}, "kubectl wap", "_WAPCTL_COMPLETE").get_completions(
            args, incomplete)
    except Exception:  # an unparsable command line: offer nothing, let the shell decide
        return f":{DEFAULT}\n"
    if any(item.type in ("file", "dir") for item in items):
        return f":{DEFAULT}\n"
    lines = []
    for item in items:
        text = str(item.value)
        if descriptions and item.help:
            text += "\t" + " ".join(str(item.help).split())
        lines.append(text)
    directive = NO_FILE_COMPLETION if lines else DEFAULT
    return "".join(f"{line}\n" for line in lines) + f":{directive}\n"
