"""Serving and building pages: the routes the server answers, each page's first view and head, the
prerender and the HTML-first rewrite of the built pages, and the stylesheet's build plugins."""
