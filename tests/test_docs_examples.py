"""The docs say only what the tool does (issue 26): every fenced block of README.md and
docs/*.md is run or compared here, or says why not.

Each block is marked by an HTML comment on the line before its fence (tests/docs_blocks.py
lists the markers): an output block is compared line by line with what its command prints
(in-process through CliRunner, from the repository root, no colour, lines as long as needed,
as in a pipe); an abridged JSON block must agree with the real document in everything it
shows; a shell block's commands run against the bundled fixtures; ``ci`` blocks are
tests/test_ci_docs.py's; a ``not run`` block gives its reason. A failure names the doc's
file:line and prints the tool's output, ready to paste.

When a change of the tool's output is intended, ``python tests/docs_sync.py --write`` rewrites
every ``output of`` block from the tool (``python tests/docs_sync.py`` only lists the blocks
that differ); check the diff by hand before committing. The test never writes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from docs_blocks import (
    ROOT,
    Block,
    abridged_in,
    all_blocks,
    command_lines,
    normal,
    run,
)
from test_ci_docs import execute, workspace

BLOCKS = all_blocks()
OUTPUTS = [b for b in BLOCKS if b.marker in ("output of", "output of, in the CI workspace")]
SHELL = [b for b in BLOCKS if b.marker is None and b.info == "sh"]
CI_SHELL = [b for b in BLOCKS if b.marker == "run in the CI workspace"]
ABRIDGED = [b for b in BLOCKS if b.marker == "abridged output of"]
EXIT_CODES = {0, 1, 3}  # plan's unschedulable, findings and cycles are answers, not failures


def _id(block: Block) -> str:
    return block.where


def test_every_block_says_what_it_is() -> None:
    """A block is run, compared, run by test_ci_docs.py, or marked ``not run`` with a
    reason; nothing is left unchecked by accident."""
    loose = [b.where for b in BLOCKS
             if b.marker is None and b.info != "sh" and not b.info.endswith(" ci")]
    unreasoned = [b.where for b in BLOCKS if b.marker == "not run" and not b.argument]
    assert ([], []) == (loose, unreasoned)
    # the machinery sees the blocks it is meant to: the README's plan, the CI annotations
    assert {"README.md", "docs/ci.md"} <= {b.where.split(":")[0] for b in OUTPUTS}
    assert ABRIDGED and SHELL and CI_SHELL


@pytest.mark.parametrize("block", OUTPUTS, ids=_id)
def test_output_blocks_are_what_the_tool_prints(block: Block, tmp_path: Path) -> None:
    assert block.argument
    cwd = ROOT
    if block.marker == "output of, in the CI workspace":
        cwd = workspace(tmp_path, "chart-cycle.yaml")
    code, out = run(block.argument, cwd)
    assert code in EXIT_CODES, f"{block.where}: {block.argument} exited {code}:\n{out}"
    assert normal(block.body) == normal(out), (
        f"{block.where}: the block differs from what `{block.argument}` prints "
        f"(tests/docs_sync.py --write rewrites it); the tool prints:\n{out}")


@pytest.mark.parametrize("block", ABRIDGED, ids=_id)
def test_abridged_json_agrees_with_the_tool(block: Block) -> None:
    assert block.argument
    code, out = run(block.argument)
    assert code in EXIT_CODES, f"{block.where}: {block.argument} exited {code}:\n{out}"
    document, _ = json.JSONDecoder().raw_decode(out[out.index("{"):])  # stderr lines aside
    errors = abridged_in(json.loads("\n".join(block.body)), document)
    assert [] == errors, f"{block.where}: `{block.argument}` prints:\n{out}"


@pytest.mark.parametrize("block", SHELL, ids=_id)
def test_shell_blocks_run_on_the_fixtures(block: Block) -> None:
    """Each line of an unmarked sh block is a wapctl command that runs from the repository
    root on the bundled fixtures and gives an answer (no usage or input error)."""
    lines = command_lines(block)
    assert lines, block.where
    for line in lines:
        assert re.match(r"(wapctl|kubectl-wap|kubectl wap) ", line), (
            f"{block.where}: `{line}` is not a wapctl command: mark the block "
            "<!-- not run: REASON -->")
        code, out = run(line)
        assert code in EXIT_CODES, f"{block.where}: `{line}` exited {code}:\n{out}"


@pytest.mark.parametrize("block", CI_SHELL, ids=_id)
def test_ci_workspace_blocks_run(block: Block, tmp_path: Path) -> None:
    """The README's CI lines, in tests/test_ci_docs.py's workspace (deploy/ the KEP ping-pong
    chart, snapshots/prod.yaml the cluster): each exits 1 (a finding), as the doc says of
    a chart with a cycle, unless guarded by `|| true`."""
    ws = workspace(tmp_path, "chart-cycle.yaml")
    codes = {line: execute(line, ws) for line in command_lines(block)}
    assert {line: 1 for line in codes} == codes, block.where


def test_readme_layout_lists_every_module() -> None:
    """The README's Layout block names every module under wapctl/ at its place in the tree,
    and nothing that does not exist."""
    [layout] = [b for b in BLOCKS if b.path.name == "README.md" and b.body[:1] == ["wapctl/"]]
    listed: set[str] = set()
    packages: list[str] = []  # the package at each depth below wapctl/
    for line in layout.body[1:]:
        depth = (len(line) - len(line.lstrip())) // 2
        tokens = line.split()
        del packages[depth - 1:]
        if not tokens or not re.fullmatch(r"\w+(\.py|/)", tokens[0]):
            continue
        if tokens[0].endswith("/"):  # a package; the rest of the line describes it
            packages.append(tokens[0])
            continue
        # a line of module names only ("plan.py  validate.py ...") lists them all; else its
        # first word is the module and the rest describes it
        names = tokens if all(t.endswith(".py") for t in tokens) else tokens[:1]
        listed |= {f"wapctl/{''.join(packages)}{n}" for n in names}
    modules = {str(p.relative_to(ROOT)) for p in (ROOT / "wapctl").rglob("*.py")}
    assert (set(), set()) == (modules - listed, listed - modules)
