"""The home page's newsletter block. Sign-up is not open yet: nothing stores subscribers, so a
submitted form says so plainly instead of pretending it worked."""

from __future__ import annotations

from typing import Any

import reflex as rx

NOT_OPEN_YET = "Newsletter sign-up isn't open yet \u2014 check back soon."


class NewsletterState(rx.State):
    """Whether the form was submitted in this tab: the notice shows from then on."""

    submitted: bool = False

    @rx.event
    def subscribe(self, form: dict[str, Any]) -> None:
        """The address is neither kept nor sent anywhere until sign-up opens."""
        self.submitted = True
