"""The Reflex plugin that ships only the Radix Themes CSS the store uses (production builds only).

After Reflex writes the compiled pages into `.web` and before Vite bundles them, the global stylesheet's
`@import url('@radix-ui/themes/styles.css')` is replaced by a purged copy written next to it
(storefront/web/css_purge.py decides what stays). Vite then minifies and content-hashes the purged CSS,
so its `/assets/` name changes whenever what the store uses changes (the files are cached
immutable). Development builds (`make dev`) keep the whole stylesheet.

The build fails (PurgeInputError, CssSyntaxError) rather than ship a stylesheet it could not judge.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from reflex_base.plugins.base import Plugin

from storefront.web import css_purge

logger = logging.getLogger(__name__)

#: The import Reflex writes into `.web/styles/__reflex_global_styles.css` for the Radix theme.
RADIX_IMPORT = "@import url('@radix-ui/themes/styles.css');"
PURGED_NAME = "radix-themes.purged.css"
#: Sizes and counts of the last purge, for the numbers in docs/performance.md and the browser test.
REPORT_NAME = "radix-themes.purge.json"
STORE_PACKAGE = Path(__file__).resolve().parent


class PurgeRadixCss(Plugin):
    """Replace the Radix Themes stylesheet by the rules the compiled store can use."""

    # `update_env_json` is the one hook Reflex calls after the compiled pages are on disk and before
    # Vite builds them (`setup_frontend`, in `reflex run` and `reflex export`); `post_compile` only
    # runs when the backend's ASGI app is made, after the build, and `post_build` would have to
    # rename the hashed CSS and rewrite the scripts that name it.
    def update_env_json(self, **context: Any) -> None:
        from reflex import constants
        from reflex.environment import environment
        from reflex.utils import prerequisites

        if environment.REFLEX_ENV_MODE.get() != constants.Env.PROD:
            return None
        purge_web_dir(prerequisites.get_web_dir())
        return None


def purge_web_dir(web_dir: Path) -> dict[str, int]:
    """Purge the Radix stylesheet for the store compiled in `web_dir`; the purge's report."""
    styles = web_dir / "styles"
    root = styles / "__reflex_global_styles.css"
    text = root.read_text(encoding="utf-8")
    purged_import = f"@import url('./{PURGED_NAME}');"
    if RADIX_IMPORT not in text and purged_import not in text:
        raise css_purge.PurgeInputError(f"{root} does not import the Radix stylesheet as {RADIX_IMPORT}")
    source = web_dir / "node_modules" / "@radix-ui" / "themes" / "styles.css"
    full = source.read_text(encoding="utf-8")
    usage = css_purge.radix_usage(web_dir, sorted(STORE_PACKAGE.rglob("*.py")))
    result = css_purge.purge(full, usage)
    (styles / PURGED_NAME).write_text(result.css, encoding="utf-8")
    report = {
        "bytes_before": len(full.encode()), "bytes_after": len(result.css.encode()),
        "rules_before": result.rules_before, "rules_after": result.rules_kept,
    }
    (styles / REPORT_NAME).write_text(json.dumps(report), encoding="utf-8")
    if RADIX_IMPORT in text:
        root.write_text(text.replace(RADIX_IMPORT, purged_import), encoding="utf-8")
    logger.info("Radix Themes CSS purged: %s", report)
    return report
