"""`-o html` pages in a real browser (issue 27): Debian's headless Chromium opens each page once
(`--dump-dom` and `--screenshot` in one launch, console messages logged to stderr), and the
test checks that no console message was written (the pages log nothing, so any is an error),
that the script ran (it marks <html data-ready="1">), and that the DOM after it ran names every
victim, preemptor and cycle member (and, for audit, object left naming a deleted one) of the
report's `-o json` document. Screenshots are kept in tests/artifacts/html/ (git-ignored;
WAPCTL_ARTIFACTS overrides it).

Chromium must be installed (`.ci/run` installs it when missing): without it the test fails,
it never skips.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from wapctl.cli import app

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "fixtures"
AUDIT = FIX / "cycles" / "audit"
ARTIFACTS = Path(os.environ.get("WAPCTL_ARTIFACTS") or ROOT / "tests" / "artifacts") / "html"
PAGES = {
    "plan": ["plan", str(FIX / "plan" / "podgroup-whole.yaml")],
    "plan-k8s-1.36": ["plan", str(FIX / "exports" / "k8s-1.36" / "kubectl"
                                  / "get-all-wapctl-kinds.yaml")],
    "simulate": ["simulate", str(FIX / "simulate" / "ping-pong.yaml")],
    "check-cycles": ["check-cycles", str(FIX / "manifests" / "chart-cycle.yaml")],
    "audit": ["audit", str(AUDIT / "cluster.yaml"), "-c", str(AUDIT / "raise-train.yaml")],
    "audit-dangling": ["audit", str(FIX / "manifests" / "cluster.yaml"),
                       "--delete", "PriorityClass/medium"],
}


def browser() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, "install Debian's chromium (apt-get install -y chromium): .ci/run does"
    return found


def open_page(path: Path, shot: Path, width: int = 1400) -> tuple[str, list[str]]:
    """(the DOM after the scripts ran, the console lines Chromium logged)."""
    proc = subprocess.run(
        [browser(), "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
         "--enable-logging=stderr", "--v=0", f"--window-size={width},1000",
         f"--screenshot={shot}", "--dump-dom", path.as_uri()],
        capture_output=True, text=True, timeout=60)
    assert 0 == proc.returncode, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines()
               if ":CONSOLE" in line or "Uncaught" in line]
    return proc.stdout, console


def names(doc: dict[str, Any]) -> set[str]:
    """Every victim, preemptor and cycle member the JSON document names."""
    out: set[str] = set()
    kind = doc["kind"]
    if kind == "PreemptionPlan":
        p = doc["preemptor"]
        out |= {f"{p['namespace']}/{p['name']}"} | {v["pod"] for v in doc["victims"]}
        out |= {x["pod"] for x in doc["placements"]} | {t["pod"] for t in doc["terminating"]}
    elif kind == "SimulationReport":
        for s in doc["steps"]:
            out |= {s["preemptor"]["name"]} if s["preemptor"] else set()
            out |= {v["pod"] for v in s["victims"]}
        out |= {m["name"] for m in (doc["cycle"] or {"members": []})["members"]}
    elif kind == "CycleReport":
        out |= {m["profile"] for c in doc["cycles"] for m in c["members"]}
        out |= {w for c in doc["cycles"] for m in c["members"] for w in m["workloads"]}
        out |= {v["name"] for v in doc["violations"]}
    else:
        out |= {m["profile"] for c in doc["cycles"]["introduced"] for m in c["members"]}
        out |= {v["name"] for v in doc["violations"]["introduced"]}
        out |= {p["preemptor"]["name"] for p in doc["plans"]}
        out |= {w["object"] for w in doc["danglingReferences"]}
    return out


def dom_text(dom: str) -> str:
    """The DOM's text without the embedded JSON (which would name everything anyway)."""
    dom = re.sub(r'<script type="application/json" id="wapctl-report">.*?</script>', "", dom,
                 flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", dom))


@pytest.mark.parametrize("name", sorted(PAGES))
def test_page_renders_in_chromium(name: str, tmp_path: Path):
    """No console error, the script ran, every name of the JSON report is on the page."""
    args = PAGES[name]
    runner = CliRunner()
    page = tmp_path / f"{name}.html"
    page.write_text(runner.invoke(app, [*args, "-o", "html"]).stdout, encoding="utf-8")
    doc = json.loads(runner.invoke(app, [*args, "-o", "json"]).stdout)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    dom, console = open_page(page, ARTIFACTS / f"{name}.png")
    assert [] == console
    assert 'data-ready="1"' in dom.split(">", 2)[1]  # <html ... data-ready="1">
    text = dom_text(dom)
    wanted = names(doc)
    assert wanted, "the fixture should name someone"
    assert [] == sorted(n for n in wanted if n not in text)
    assert (ARTIFACTS / f"{name}.png").stat().st_size > 5000


def test_console_errors_are_caught(tmp_path: Path):
    """The check above can fail: a page whose script throws is reported."""
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><html><body><script>undefinedFunction();</script>"
                    "</body></html>")
    _, console = open_page(page, tmp_path / "broken.png", width=400)
    assert any("Uncaught ReferenceError" in line for line in console)
