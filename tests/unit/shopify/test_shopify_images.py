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


def test_the_stores_own_renditions_make_the_srcset_none_wider_than_the_source() -> None:
    renditions = ((320, "https://cdn.example/a_320.jpg"), (640, "https://cdn.example/a_640.jpg"),
                  (960, "https://cdn.example/a_960.jpg"))
    shown = store_picture(StoreImage("https://cdn.example/a.jpg", width=700, height=350, renditions=renditions))
    assert shown.srcset == "https://cdn.example/a_320.jpg 320w, https://cdn.example/a_640.jpg 640w"
    assert shown.src == "https://cdn.example/a_640.jpg" and (shown.width, shown.height) == (700, 350)
    tiny = store_picture(StoreImage("https://cdn.example/b.jpg", width=100, height=100, renditions=renditions))
    assert tiny.srcset == "https://cdn.example/a_320.jpg 320w" and tiny.src == "https://cdn.example/a_320.jpg"
