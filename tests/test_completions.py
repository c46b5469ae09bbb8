"""The committed shell completion scripts are what the Typer app generates today."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = {"bash": "wapctl.bash", "zsh": "_wapctl", "fish": "wapctl.fish"}
WAPCTL = Path(sys.executable).parent / "wapctl"


@pytest.mark.parametrize("shell", sorted(SCRIPTS))
def test_committed_completion_script_is_current(shell: str):
    """Regenerating the completion script gives exactly the committed file."""
    assert WAPCTL.exists(), "install wapctl (pip install -e .) so its console script exists"
    env = dict(os.environ, _WAPCTL_COMPLETE=f"source_{shell}")
    generated = subprocess.run([str(WAPCTL)], env=env, capture_output=True, text=True,
                               check=True).stdout
    assert generated == (ROOT / "completions" / SCRIPTS[shell]).read_text()


def test_completion_lists_the_commands():
    """Asking bash completion for `wapctl ` offers the plan command."""
    assert WAPCTL.exists(), "install wapctl (pip install -e .) so its console script exists"
    env = dict(os.environ, _WAPCTL_COMPLETE="complete_bash", COMP_WORDS="wapctl ", COMP_CWORD="1")
    out = subprocess.run([str(WAPCTL)], env=env, capture_output=True, text=True).stdout
    assert "plan" in out.split()


def test_completion_offers_explain_and_history_and_their_options():
    """`wapctl <TAB>` offers explain and history; `wapctl explain --b<TAB>` offers --before
    and `wapctl history --w<TAB>` offers --watch."""
    assert WAPCTL.exists(), "install wapctl (pip install -e .) so its console script exists"

    def complete(words: str, cword: int) -> list[str]:
        env = dict(os.environ, _WAPCTL_COMPLETE="complete_bash", COMP_WORDS=words,
                   COMP_CWORD=str(cword))
        return subprocess.run([str(WAPCTL)], env=env, capture_output=True,
                              text=True).stdout.split()

    assert {"explain", "history"} <= set(complete("wapctl ", 1))
    assert complete("wapctl explain pod/default/low-1 --b", 3) == ["--before"]
    assert "--watch" in complete("wapctl history --w", 2)
