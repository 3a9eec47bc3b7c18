"""Lighthouse category scores of a page (the npm package in tools/, run on Debian's Chromium)."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from storefront.config import PROJECT_ROOT

LIGHTHOUSE = PROJECT_ROOT / "tools" / "node_modules" / ".bin" / "lighthouse"


def node_bin() -> Path:
    """The folder of the Node the Makefile installed for this platform (`make node-package` names it)."""
    package = subprocess.run(
        ["make", "-s", "--no-print-directory", "node-package"], cwd=PROJECT_ROOT, capture_output=True, text=True,
        check=True,
    ).stdout.strip()
    return PROJECT_ROOT / "tools" / "node_modules" / package / "bin"

CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
TIMEOUT_S = 240


@dataclass(frozen=True)
class LighthouseScores:
    """Scores 0-100 per category, or the reason there are none."""

    scores: dict[str, float] = field(default_factory=dict)
    error: str = ""


def lighthouse_scores(url: str, chromium: str) -> LighthouseScores:
    """Run Lighthouse once on `url` (desktop preset) and read its category scores."""
    if not LIGHTHOUSE.exists():
        return LighthouseScores(error=f"lighthouse not installed at {LIGHTHOUSE.relative_to(PROJECT_ROOT)}")
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        env = {**os.environ, "PATH": f"{node_bin()}:{os.environ.get('PATH', '')}"}
        try:
            done = subprocess.run(
                [str(LIGHTHOUSE), url, f"--chrome-path={chromium}", "--preset=desktop",
                 "--chrome-flags=--headless=new --no-sandbox --disable-gpu", "--output=json",
                 f"--output-path={report}", "--quiet", f"--only-categories={','.join(CATEGORIES)}"],
                env=env, capture_output=True, text=True, timeout=TIMEOUT_S,
            )
        except subprocess.TimeoutExpired:
            return LighthouseScores(error=f"lighthouse timed out after {TIMEOUT_S} s")
        if done.returncode != 0 or not report.exists():
            return LighthouseScores(error=(done.stderr or done.stdout).strip().splitlines()[-1:][0][:200]
                                    if (done.stderr or done.stdout).strip() else f"exit {done.returncode}")
        data = json.loads(report.read_text())
    if data.get("runtimeError"):
        return LighthouseScores(error=str(data["runtimeError"].get("message", ""))[:200])
    scores = {key: round((data["categories"][key].get("score") or 0) * 100) for key in CATEGORIES
              if key in data.get("categories", {})}
    return LighthouseScores(scores=scores)
