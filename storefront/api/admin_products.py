"""Admin routes (spec section 7): products (being built)."""

from fastapi import APIRouter

from storefront.api.admin import ADMIN_ONLY

router = APIRouter(dependencies=ADMIN_ONLY)
#: The public catalogue reads of section 7 (shown products only).
public_router = APIRouter()
