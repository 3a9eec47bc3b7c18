"""The Node.js that tests run browser-side JavaScript in: the machine's, else the project's own."""

from __future__ import annotations

import shutil

from storefront.config import PROJECT_ROOT

NODE = shutil.which("node") or next(
    iter(sorted((PROJECT_ROOT / "tools" / "node_modules").glob("node*/bin/node"))), None
)
