"""Colour is on for a terminal and off with --no-color or NO_COLOR (README: Commands), for
every command that prints a table. FORCE_COLOR makes Rich treat the test's stdout as a
terminal."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wapctl.cli import app

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = [
    ["plan", ROOT / "fixtures" / "plan" / "never.yaml"],
    ["check-cycles", ROOT / "fixtures" / "cycles" / "kep-ab.yaml"],
    ["simulate", ROOT / "fixtures" / "simulate" / "ping-pong.yaml"],
    ["audit", ROOT / "fixtures" / "cycles" / "audit" / "cluster.yaml",
     "--change", ROOT / "fixtures" / "cycles" / "audit" / "raise-train.yaml"],
]
IDS = [c[0] for c in COMMANDS]
# An SGR sequence that sets a foreground or background colour (30-37, 39-47, 49, 90-107, or
# 38/48 extended): bold and dim are styles, not colours.
COLOUR = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])(?:;[0-9;]*)?m")


def run(args, env):
    result = CliRunner().invoke(app, [str(a) for a in args], env=env, catch_exceptions=False)
    assert result.exit_code in (0, 1, 3), result.output
    return result.stdout


@pytest.mark.parametrize("args", COMMANDS, ids=IDS)
def test_a_terminal_gets_colour(args):
    """On a terminal the verdict is coloured (so the two tests below can fail)."""
    assert COLOUR.search(run(args, {"FORCE_COLOR": "1", "NO_COLOR": None}))


@pytest.mark.parametrize("args", COMMANDS, ids=IDS)
def test_no_color_option_turns_colour_off_on_a_terminal(args):
    """--no-color prints no colour even on a terminal."""
    assert not COLOUR.search(run([*args, "--no-color"], {"FORCE_COLOR": "1", "NO_COLOR": None}))


@pytest.mark.parametrize("args", COMMANDS, ids=IDS)
def test_no_color_variable_turns_colour_off_on_a_terminal(args):
    """NO_COLOR set prints no colour even on a terminal."""
    assert not COLOUR.search(run(args, {"FORCE_COLOR": "1", "NO_COLOR": "1"}))
