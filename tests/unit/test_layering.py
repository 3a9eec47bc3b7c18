"""DESIGN.md: services never import reflex, state or pages."""

import ast
from pathlib import Path

from storefront.config import PROJECT_ROOT

FORBIDDEN = ("reflex", "storefront.state", "storefront.pages", "storefront.components", "storefront.api")


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_services_import_nothing_from_reflex_state_or_pages() -> None:
    offenders = {
        str(path.relative_to(PROJECT_ROOT)): sorted(
            name for name in _imports(path) if name.split(".")[0] == "reflex" or name.startswith(FORBIDDEN[1:])
        )
        for path in (PROJECT_ROOT / "storefront" / "services").rglob("*.py")
    }
    assert {path: names for path, names in offenders.items() if names} == {}
