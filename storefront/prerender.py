"""A build step: React Router prerenders one product page as the template of every product's first HTML.

`/product/[id]` is a dynamic route, so the build has no page for it and a product's address would
be answered by the bare app shell. Prerendering it once at TEMPLATE gives a full page (layout,
loading state, an empty first view) that ServedRoutes answers for every `/product/{id}` and
first_view.py fills with that product; the page hydrates the same whatever the id (Reflex reads the
id from the backend, not from the HTML).
"""

from __future__ import annotations

import json
import re

from reflex_base.plugins.base import Plugin

TEMPLATE = "/product/__first_view__"
CONFIG_FILE = "react-router.config.js"
_EXPORT = re.compile(r"^export default (\{.*\});\s*$", re.S)


def with_template(config: str) -> str:
    """react-router.config.js prerendering every static page and the product template too (as is
    when the build prerenders nothing)."""
    match = _EXPORT.match(config)
    if not match or json.loads(match.group(1)).get("prerender") is not True:
        return config
    return (
        f"const config = {match.group(1)};\n"
        f"config.prerender = async ({{ getStaticPaths }}) => [...getStaticPaths(), {json.dumps(TEMPLATE)}];\n"
        "export default config;\n"
    )


class ProductTemplate(Plugin):
    """Adds TEMPLATE to the pages the production build prerenders."""

    def pre_compile(self, **context) -> None:
        context["add_modify_task"](CONFIG_FILE, with_template)
