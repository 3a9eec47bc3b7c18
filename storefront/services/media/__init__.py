"""Media: images in and out, whoever shows them.

Checks by content and sized WebP renditions (`images.py`), reading a source image's bytes from
disk or over HTTP (`image_sources.py`), the renditions of every catalogue image, each address
prepared once (`catalog_images.py`), uploads checked and re-encoded before anything is stored
(`uploads.py`: event and try-on photos), and the demo's drawn garments and tiles
(`demo_images.py`).

May use: platform, collections.
"""
