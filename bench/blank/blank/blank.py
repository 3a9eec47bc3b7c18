"""The minimal Reflex page: one heading and a counter button, nothing else."""

import reflex as rx


class CounterState(rx.State):
    """A click counter."""

    count: int = 0

    @rx.event
    def increment(self) -> None:
        self.count += 1


def index() -> rx.Component:
    return rx.el.main(
        rx.el.h1("Blank bench page"),
        rx.el.button(
            "Clicked ", CounterState.count.to_string(), " times",
            id="counter", on_click=CounterState.increment,
        ),
        lang="en",
    )


app = rx.App()
app.add_page(index, route="/", title="Blank bench page", description="The bench's minimal Reflex page.")
