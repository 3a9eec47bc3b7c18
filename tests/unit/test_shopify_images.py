"""Store-catalogue images: Shopify's CDN sizes them on request; others are drawn as given."""

from __future__ import annotations

from dataclasses import astuple

from storefront.services.shopify.catalogue import StoreImage
from storefront.services.shopify.images import store_picture


def test_shopify_cdn_images_get_a_srcset_at_three_widths() -> None:
    src, srcset, width, height = astuple(
        store_picture(StoreImage("https://cdn.shopify.com/s/files/1/tee.jpg?v=17", width=2048, height=1024))
    )
    assert src == "https://cdn.shopify.com/s/files/1/tee.jpg?v=17&width=640"
    assert srcset == ", ".join(
        f"https://cdn.shopify.com/s/files/1/tee.jpg?v=17&width={w} {w}w" for w in (320, 640, 960)
    )
    assert (width, height) == (2048, 1024)
    assert store_picture(None).src == "/images/product-placeholder.jpg"
    assert store_picture(StoreImage("/uploads/demo/shopify/x.png")).srcset == ""


def test_a_cdn_image_of_unknown_width_gets_every_width_and_the_default_size() -> None:
    shown = store_picture(StoreImage("https://cdn.shopify.com/s/files/1/cap.png"))
    assert shown.srcset.count("w,") == 2 and (shown.width, shown.height) == (800, 800)
