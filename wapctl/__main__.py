"""Entry point of the console scripts and of ``python -m wapctl``.

It imports the CLI inside a KeyboardInterrupt guard, so Ctrl-C even while the libraries load
exits 130 with one line instead of a traceback.
"""

from __future__ import annotations

import sys


def main() -> None:
    try:
        from wapctl.cli import main as cli_main
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        raise SystemExit(130) from None
    cli_main()


if __name__ == "__main__":
    main()
