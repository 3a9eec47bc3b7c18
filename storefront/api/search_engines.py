"""/sitemap.xml and /robots.txt: what search engines may read and where the sitemap is, every
address absolute under PUBLIC_URL. The sitemap is built from the database on each request."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from sqlmodel import Session

from storefront.api.sessions import SessionRoute, get_session
from storefront.services.catalog.sitemap import ROBOTS_PATH, SITEMAP_PATH, render_robots, render_sitemap
from storefront.web.page_head import sitemap_entries

router = APIRouter(tags=["search engines"], route_class=SessionRoute)

#: Crawlers may keep the sitemap a few minutes; what staff publish or hide shows in the next one.
SITEMAP_CACHE = "public, max-age=300"
ROBOTS_CACHE = "public, max-age=3600"


@router.api_route(SITEMAP_PATH, methods=["GET", "HEAD"], response_class=Response, include_in_schema=False)
def sitemap(request: Request, session: Session = Depends(get_session)) -> Response:
    """Every public page, collection, visible product and active event (sitemaps.org XML)."""
    body = render_sitemap(request.app.state.services.settings.public_url, sitemap_entries(session))
    return Response(body, media_type="application/xml", headers={"Cache-Control": SITEMAP_CACHE})


@router.api_route(ROBOTS_PATH, methods=["GET", "HEAD"], response_class=Response, include_in_schema=False)
def robots(request: Request) -> Response:
    """The back office and the API kept out; the sitemap's address."""
    body = render_robots(request.app.state.services.settings.public_url)
    return Response(body, media_type="text/plain", headers={"Cache-Control": ROBOTS_CACHE})
