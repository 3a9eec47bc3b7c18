"""Admin routes (spec section 7): orders (being built)."""

from fastapi import APIRouter

from storefront.api.admin import ADMIN_ONLY

router = APIRouter(dependencies=ADMIN_ONLY)
