"""DESIGN.md: services never import reflex, state or pages; the service domains use each other one
way only (no cycles, platform uses none, each only what its __init__ says it may use). Above the
services: the API and the serving of pages (web/) never import the Reflex states, and the states
import no pages, components, API or web module but the texts and routes every layer reads."""

import ast
import re
from pathlib import Path

from storefront.config import PROJECT_ROOT

FORBIDDEN = (
    "reflex", "storefront.state", "storefront.pages", "storefront.components", "storefront.api", "storefront.web",
)
SERVICES = PROJECT_ROOT / "storefront" / "services"
PREFIX = "storefront.services."
#: The foundation every domain may lean on; it leans on no other domain.
PLATFORM = "platform"


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(PROJECT_ROOT).with_suffix("").parts)


def _imports(path: Path) -> set[str]:
    """Every module a file imports, at any depth of the file (function-level imports too); for
    `from package import name` both the package and package.name, since name may be a module."""
    names: set[str] = set()
    package = _module_name(path).rsplit(".", 1)[0]  # a package's __init__ is in the package itself
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:  # relative: resolved against the file's package
                base = package.rsplit(".", node.level - 1)[0]
                module = f"{base}.{module}" if module else base
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def test_services_import_nothing_from_reflex_state_or_pages() -> None:
    offenders = {
        str(path.relative_to(PROJECT_ROOT)): sorted(
            name for name in _imports(path) if name.split(".")[0] == "reflex" or name.startswith(FORBIDDEN[1:])
        )
        for path in SERVICES.rglob("*.py")
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def _offenders(package: str, forbidden: tuple[str, ...], allowed: tuple[str, ...] = ()) -> dict[str, list[str]]:
    """file -> the modules under `forbidden` it imports (but those under `allowed`), for each file of
    storefront/<package> that imports any."""
    found = {}
    for path in (PROJECT_ROOT / "storefront" / package).rglob("*.py"):
        names = sorted(
            name
            for name in _imports(path)
            if any(name == f or name.startswith(f + ".") for f in forbidden)
            and not any(name == a or name.startswith(a + ".") for a in allowed)
        )
        if names:
            found[str(path.relative_to(PROJECT_ROOT))] = names
    return found


#: The page texts, routes and address parameters (a leaf of plain data): the states read them too.
PAGE_TEXTS = "storefront.web.page_texts"


def test_the_api_imports_no_state_page_or_component() -> None:
    assert _offenders("api", ("storefront.state", "storefront.pages", "storefront.components")) == {}


def test_serving_pages_imports_no_state() -> None:
    assert _offenders("web", ("storefront.state",)) == {}


def test_states_import_no_page_component_api_or_web_module() -> None:
    forbidden = ("storefront.pages", "storefront.components", "storefront.api", "storefront.web")
    assert _offenders("state", forbidden, allowed=(PAGE_TEXTS,)) == {}


def test_the_page_texts_the_states_read_import_only_services() -> None:
    path = PROJECT_ROOT / Path(*PAGE_TEXTS.split(".")).with_suffix(".py")
    imported = {name for name in _imports(path) if name.startswith("storefront.")}
    assert {name for name in imported if not name.startswith("storefront.services.")} == set()


def _domains() -> list[str]:
    return sorted(path.name for path in SERVICES.iterdir() if (path / "__init__.py").is_file())


def _domain_imports() -> dict[str, dict[str, set[str]]]:
    """domain -> other domain it imports -> the files of the domain that import it."""
    domains = set(_domains())
    graph: dict[str, dict[str, set[str]]] = {domain: {} for domain in domains}
    for domain in domains:
        for path in (SERVICES / domain).rglob("*.py"):
            for name in _imports(path):
                if not name.startswith(PREFIX):
                    continue
                other = name.removeprefix(PREFIX).split(".")[0]
                if other in domains and other != domain:
                    graph[domain].setdefault(other, set()).add(str(path.relative_to(SERVICES)))
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """A cycle of the directed graph as a path (its first node repeated at the end), or []."""
    done: set[str] = set()
    path: list[str] = []

    def visit(node: str) -> list[str]:
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt in path:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in done:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        done.add(node)
        return []

    for node in sorted(graph):
        if node not in done:
            found = visit(node)
            if found:
                return found
    return []


def _may_use(domain: str) -> set[str]:
    """The domains a domain's __init__ docstring allows: its line 'May use: a, b, c.' ('May use: no
    other domain.' for none)."""
    doc = ast.get_docstring(ast.parse((SERVICES / domain / "__init__.py").read_text())) or ""
    match = re.search(r"^May use: ([^.(]*)", doc, re.MULTILINE)
    assert match, f"services/{domain}/__init__.py says which domains it may use ('May use: ...')"
    listed = match.group(1).strip()
    return set() if listed.startswith("no other domain") else {name.strip() for name in listed.split(",")}


def test_every_service_module_belongs_to_a_domain() -> None:
    loose = sorted(path.name for path in SERVICES.glob("*.py") if path.name != "__init__.py")
    assert loose == []
    assert {"admin", "catalog", "events", "mail", "media", "newsletter", "orders", "payments", PLATFORM} <= set(
        _domains()
    )


def test_the_cycle_finder_finds_cycles() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_domains_import_each_other_without_cycles() -> None:
    graph = _domain_imports()
    cycle = _cycle({domain: set(others) for domain, others in graph.items()})
    steps = {f"{a} -> {b}": sorted(graph[a][b]) for a, b in zip(cycle, cycle[1:], strict=False)}
    assert steps == {}


def test_platform_imports_no_other_domain() -> None:
    assert _domain_imports()[PLATFORM] == {}
    assert _may_use(PLATFORM) == set()


def test_each_domain_imports_only_the_domains_its_init_allows() -> None:
    domains = set(_domains())
    allowed = {domain: _may_use(domain) for domain in domains}
    assert {domain: sorted(names - domains) for domain, names in allowed.items() if names - domains} == {}
    assert _cycle(allowed) == []
    graph = _domain_imports()
    unexpected = {
        f"{domain} -> {other}": sorted(files)
        for domain, others in graph.items()
        for other, files in others.items()
        if other not in allowed[domain]
    }
    assert unexpected == {}
