"""A build step: React Router prerenders one page per dynamic route as the template of its first HTML.

`/product/[id]` and `/shopify/product/[product_id]` are dynamic routes, so the build has no page for
them and their addresses would be answered by the bare app shell, which paints nothing until the
app has started. Prerendering each once (TEMPLATES) gives a full page (layout, loading state, an
empty first view) that ServedRoutes answers for every address under its prefix and first_view.py
fills with that product; the page hydrates the same whatever the id (Reflex reads the id from the
address, not from the HTML).
"""

from __future__ import annotations

import json
import re

from reflex_base.plugins.base import Plugin

#: The template of every product page.
TEMPLATE = "/product/__first_view__"
#: The template of every Shopify product page.
SHOPIFY_TEMPLATE = "/shopify/product/__first_view__"
#: The address prefix each template answers.
TEMPLATES = {"/product/": TEMPLATE, "/shopify/product/": SHOPIFY_TEMPLATE}
CONFIG_FILE = "react-router.config.js"
_EXPORT = re.compile(r"^export default (\{.*\});\s*$", re.S)


def with_template(config: str) -> str:
    """react-router.config.js prerendering every static page and the templates too (as is when the
    build prerenders nothing)."""
    match = _EXPORT.match(config)
    if not match or json.loads(match.group(1)).get("prerender") is not True:
        return config
    templates = ", ".join(json.dumps(template) for template in TEMPLATES.values())
    return (
        f"const config = {match.group(1)};\n"
        f"config.prerender = async ({{ getStaticPaths }}) => [...getStaticPaths(), {templates}];\n"
        "export default config;\n"
    )


class ProductTemplate(Plugin):
    """Adds TEMPLATES to the pages the production build prerenders."""

    def pre_compile(self, **context) -> None:
        context["add_modify_task"](CONFIG_FILE, with_template)
