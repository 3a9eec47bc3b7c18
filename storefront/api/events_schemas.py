"""Request and answer models of the tours & events routes (storefront/api/events.py)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from storefront.api.schemas import Number, Text, _example, _Open


class EventLink(_Open):
    title: Text = None
    url: Text = None


class EventForm(_Open):
    """The event form (spec section 5): title, location, description and startDate required."""

    model_config = _example(
        {
            "title": "Spring Step Show",
            "description": "An evening of stepping.",
            "location": "Albany, NY",
            "startDate": "2030-04-05T19:00",
            "endDate": "2030-04-05T22:00",
            "images": [],
            "videos": [""],
            "links": [{"title": "Tickets", "url": "https://example.com/tickets"}],
            "isActive": True,
            "featured": False,
            "capacity": 200,
            "price": 15.5,
        }
    )

    title: Text = Field(None, description="Required")
    description: Text = Field(None, description="Required")
    location: Text = Field(None, description="Required")
    startDate: Text = Field(None, description="Required, yyyy-mm-ddThh:mm")
    endDate: Text = Field(None, description="Optional, yyyy-mm-ddThh:mm")
    images: list[Any] | None = Field(None, description="Image URLs; blank entries are dropped")
    videos: list[Any] | None = Field(None, description="Video URLs; blank entries are dropped")
    links: list[Any] | None = Field(None, description="[{title, url}]; a link missing either is dropped")
    isActive: bool | None = Field(None, description="Default true")
    featured: bool | None = Field(None, description="Default false")
    capacity: Number = Field(None, description="Optional whole number")
    price: Number = Field(None, description="Optional, at least 0, dollars")


class PublicEvent(BaseModel):
    """An event as anyone may read it (`GET /api/events`): without its registrations, which name
    the people who signed up and are for staff only (the count is public)."""

    model_config = ConfigDict(extra="ignore")

    id: int
    title: str
    description: str
    location: str
    startDate: str
    endDate: str | None = None
    images: list[str]
    videos: list[str]
    links: list[EventLink]
    isActive: bool
    featured: bool
    capacity: int | None = None
    price: float | None = None
    registrationCount: int = 0


class Event(PublicEvent):
    """An event as staff see it (the admin routes): with its registrations."""

    model_config = ConfigDict(extra="allow")

    registrations: list[Any] = []
