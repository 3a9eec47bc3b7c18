"""Events: the store's tours & events.

The form's cleaning and checks, the public and admin lists, create, update and delete
(`events.py`), the demo store's events (`demo_events.py`), and the sweep of event photos nobody
uses any more (`upload_sweep.py`). The photos are uploaded and rendered by media.

May use: platform, collections, media.
"""
