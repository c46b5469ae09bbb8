"""Rewrite the ``output of`` blocks of README.md and docs/*.md from what the tool prints.

    python tests/docs_sync.py           # list the blocks that differ from the tool's output
    python tests/docs_sync.py --write   # rewrite them in place (check the diff by hand)

Run from anywhere; the commands run from the repository root (or tests/test_ci_docs.py's
workspace for ``output of, in the CI workspace``), as tests/test_docs_examples.py runs them.
Abridged blocks and shell blocks are not rewritten: they are edited by hand. Exit 1 when a
block differs and ``--write`` was not given.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from docs_blocks import DOCS, Block, blocks, normal, run


def actual(block: Block) -> list[str]:
    assert block.argument
    if block.marker == "output of, in the CI workspace":
        from test_ci_docs import workspace

        with tempfile.TemporaryDirectory() as tmp:
            return normal(run(block.argument, workspace(Path(tmp), "chart-cycle.yaml"))[1])
    return normal(run(block.argument)[1])


def main(argv: list[str]) -> int:
    write = "--write" in argv
    differing = 0
    for path in DOCS:
        lines = path.read_text().split("\n")
        shift = 0
        for block in blocks(path):
            if block.marker not in ("output of", "output of, in the CI workspace"):
                continue
            new = actual(block)
            if normal(block.body) == new:
                continue
            differing += 1
            print(f"{block.where}: differs from `{block.argument}`")
            indent = lines[block.line - 1 + shift][: len(lines[block.line - 1 + shift])
                                                   - len(lines[block.line - 1 + shift].lstrip())]
            start = block.line + shift  # the first body line, 0-based
            lines[start:start + len(block.body)] = [indent + ln if ln else ln for ln in new]
            shift += len(new) - len(block.body)
        if write:
            path.write_text("\n".join(lines))
    return 0 if write or not differing else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
