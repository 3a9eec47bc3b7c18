"""The events routes over HTTP on SQLite and PostgreSQL: the public list, the admin's routes and
their session, status codes and bodies."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session, func, select

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.models import Event
from storefront.services.admin.auth import SESSION_REQUIRED
from storefront.services.events.events import (
    BAD_LINK,
    END_BEFORE_START,
    EVENT_NOT_FOUND,
    INVALID_EVENT,
    LOCATION_REQUIRED,
    TITLE_REQUIRED,
)
from storefront.services.payments.gateway import TestPaymentGateway
from tests.api.staff import as_owner, owner_headers

EVENTS = "/api/events"
ADMIN_ROUTES = [
    ("GET", "/api/events/admin/all"),
    ("POST", "/api/events"),
    ("PUT", "/api/events/{id}"),
    ("DELETE", "/api/events/{id}"),
]


def form(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "title": "HWDKN Summer Tour",
        "description": "Three nights of music and merch.",
        "location": "Austin, TX",
        "startDate": "2026-12-05T19:00",
        "endDate": "2026-12-05T23:00",
        "images": ["/uploads/events/a.webp", ""],
        "videos": ["https://video.example.com/v/1", ""],
        "links": [{"title": "Tickets", "url": "https://tickets.example.com"}, {"title": "", "url": ""}],
        "isActive": True,
        "featured": False,
        "capacity": "150",
        "price": "25.50",
    }
    data.update(overrides)
    return data


@pytest.fixture
def client(engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TestClient:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    as_owner(monkeypatch)
    return TestClient(create_api(Settings(), engine=engine, gateway=TestPaymentGateway()))


@pytest.fixture
def admin(client: TestClient) -> dict[str, str]:
    return owner_headers(client)


def _create(client: TestClient, admin: dict[str, str], **overrides: Any) -> dict[str, Any]:
    response = client.post(EVENTS, json=form(**overrides), headers=admin)
    assert response.status_code == 201, response.text
    return response.json()


def _count(engine: Engine) -> int:
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(Event)).one()


def _titles(response: Any) -> list[str]:
    assert response.status_code == 200, response.text
    return [event["title"] for event in response.json()]


# --------------------------------------------------------------------------- the admin session


@pytest.mark.parametrize(("method", "path"), ADMIN_ROUTES)
def test_admin_event_routes_need_the_admin_session(
    client: TestClient, admin: dict[str, str], engine: Engine, method: str, path: str
) -> None:
    event = _create(client, admin)
    url = path.replace("{id}", str(event["id"]))
    for headers in ({}, {"x-admin-token": "not-a-token"}, {"x-admin-token": ""}):
        response = client.request(method, url, headers=headers, json=form(title="Changed"))
        assert response.status_code == 401, (method, path, headers, response.text)
        assert response.json()["error"] == SESSION_REQUIRED
    assert _count(engine) == 1
    assert _titles(client.get("/api/events/admin/all", headers=admin)) == ["HWDKN Summer Tour"]


def test_a_revoked_session_opens_no_event_route(client: TestClient, admin: dict[str, str]) -> None:
    assert client.post("/api/admin/logout", headers=admin).status_code == 200
    assert client.post(EVENTS, json=form(), headers=admin).status_code == 401
    assert client.get("/api/events/admin/all", headers=admin).status_code == 401


def test_every_event_route_is_listed_here(client: TestClient) -> None:
    paths = client.app.openapi()["paths"]  # type: ignore[attr-defined]
    routes = {
        (method.upper(), re.sub(r"\{event_id\}", "{id}", path))
        for path, methods in paths.items()
        for method in methods
        if path.startswith(EVENTS)
    }
    assert routes == {*ADMIN_ROUTES, ("GET", EVENTS)}


def test_the_public_list_needs_no_session(client: TestClient, admin: dict[str, str]) -> None:
    _create(client, admin)
    response = client.get(EVENTS)
    assert response.status_code == 200
    assert [event["title"] for event in response.json()] == ["HWDKN Summer Tour"]


# --------------------------------------------------------------------------- create, update, delete


def test_creating_an_event_answers_201_with_the_cleaned_event(client: TestClient, admin: dict[str, str]) -> None:
    event = _create(client, admin)
    assert isinstance(event["id"], int)
    assert {key: value for key, value in event.items() if key != "id"} == {
        "title": "HWDKN Summer Tour",
        "description": "Three nights of music and merch.",
        "location": "Austin, TX",
        "startDate": "2026-12-05T19:00",
        "endDate": "2026-12-05T23:00",
        "images": ["/uploads/events/a.webp"],
        "videos": ["https://video.example.com/v/1"],
        "links": [{"title": "Tickets", "url": "https://tickets.example.com"}],
        "isActive": True,
        "featured": False,
        "capacity": 150,
        "price": 25.5,
        "registrations": [],
        "registrationCount": 0,
    }
    assert client.get(EVENTS).json() == [public(event)]


def test_blank_capacity_and_price_are_saved_as_null(client: TestClient, admin: dict[str, str]) -> None:
    event = _create(client, admin, capacity="", price=None, endDate="")
    assert (event["capacity"], event["price"], event["endDate"]) == (None, None, None)


def test_an_end_before_the_start_is_refused_and_nothing_saved(
    client: TestClient, admin: dict[str, str], engine: Engine
) -> None:
    response = client.post(EVENTS, json=form(endDate="2026-12-05T18:00"), headers=admin)
    assert response.status_code == 422
    assert response.json() == {"error": END_BEFORE_START, "details": {"endDate": END_BEFORE_START}}
    assert _count(engine) == 0


def test_missing_fields_are_named_one_by_one(client: TestClient, admin: dict[str, str], engine: Engine) -> None:
    response = client.post(
        EVENTS, json=form(title=" ", location="", links=[{"title": "x", "url": "javascript:1"}]), headers=admin
    )
    assert response.status_code == 422
    assert response.json() == {
        "error": INVALID_EVENT,
        "details": {"title": TITLE_REQUIRED, "location": LOCATION_REQUIRED, "links": BAD_LINK},
    }
    assert _count(engine) == 0


@pytest.mark.parametrize("body", [None, [], "an event", 42])
def test_a_body_that_is_not_an_object_is_refused(
    client: TestClient, admin: dict[str, str], engine: Engine, body: Any
) -> None:
    response = client.post(EVENTS, json=body, headers=admin)
    assert response.status_code == 422
    assert _count(engine) == 0


def test_an_update_replaces_the_event(client: TestClient, admin: dict[str, str]) -> None:
    event = _create(client, admin)
    response = client.put(
        f"{EVENTS}/{event['id']}",
        json=form(title="Winter Tour", images=[], videos=[], links=[], capacity="", featured=True),
        headers=admin,
    )
    assert response.status_code == 200, response.text
    changed = response.json()
    assert changed["id"] == event["id"]
    assert (changed["title"], changed["images"], changed["videos"], changed["links"]) == ("Winter Tour", [], [], [])
    assert (changed["capacity"], changed["featured"]) == (None, True)
    assert client.get(EVENTS).json() == [public(changed)]


def test_a_refused_update_leaves_the_event_as_it_was(client: TestClient, admin: dict[str, str]) -> None:
    event = _create(client, admin)
    response = client.put(
        f"{EVENTS}/{event['id']}", json=form(title="Winter Tour", endDate="2026-01-01T00:00"), headers=admin
    )
    assert response.status_code == 422
    assert response.json()["details"] == {"endDate": END_BEFORE_START}
    assert client.get(EVENTS).json() == [public(event)]


def test_deleting_an_event_removes_it(client: TestClient, admin: dict[str, str], engine: Engine) -> None:
    keep, gone = _create(client, admin, title="Keep"), _create(client, admin, title="Gone")
    response = client.delete(f"{EVENTS}/{gone['id']}", headers=admin)
    assert response.status_code == 200
    assert response.json() == {"success": True, "id": gone["id"]}
    assert client.get(EVENTS).json() == [public(keep)]
    assert _count(engine) == 1
    assert client.delete(f"{EVENTS}/{gone['id']}", headers=admin).status_code == 404


@pytest.mark.parametrize("unknown", ["999999", "abc", "1.5"])
def test_an_unknown_event_is_not_found(client: TestClient, admin: dict[str, str], engine: Engine, unknown: str) -> None:
    _create(client, admin)
    for method, body in (("PUT", form()), ("DELETE", None)):
        response = client.request(method, f"{EVENTS}/{unknown}", json=body, headers=admin)
        assert response.status_code == 404, (method, unknown, response.text)
        assert response.json()["error"] == EVENT_NOT_FOUND
    assert _count(engine) == 1


# --------------------------------------------------------------------------- the lists


def public(event: dict) -> dict:
    """The event as the public list shows it: everything but its registrations."""
    return {key: value for key, value in event.items() if key != "registrations"}


def test_the_public_list_leaves_out_the_registrations_and_the_admin_list_has_them(
    client: TestClient, admin: dict[str, str], engine: Engine
) -> None:
    event = _create(client, admin)
    with Session(engine) as session:
        row = session.get(Event, event["id"])
        assert row is not None
        row.registrations_json = json.dumps([{"name": "Jane Shopper", "email": "jane@example.com"}])
        session.add(row)
        session.commit()
    (shown,) = client.get(EVENTS).json()
    assert "registrations" not in shown and shown["registrationCount"] == 1
    assert "jane@example.com" not in client.get(EVENTS).text
    (staff,) = client.get("/api/events/admin/all", headers=admin).json()
    assert staff["registrations"] == [{"name": "Jane Shopper", "email": "jane@example.com"}]
    schemas = client.get("/api/openapi.json").json()["components"]["schemas"]
    listed = client.get("/api/openapi.json").json()["paths"][EVENTS]["get"]["responses"]["200"]["content"]
    item = listed["application/json"]["schema"]["items"]["$ref"].rsplit("/", 1)[1]
    assert "registrations" not in schemas[item]["properties"] and "registrationCount" in schemas[item]["properties"]
    assert "registrations" in schemas["Event"]["properties"]



def test_the_public_list_has_active_events_soonest_first_and_the_admin_list_all(
    client: TestClient, admin: dict[str, str]
) -> None:
    _create(client, admin, title="Late", startDate="2027-03-01T10:00", endDate="")
    _create(client, admin, title="Hidden", startDate="2026-01-01T10:00", endDate="", isActive=False)
    _create(client, admin, title="Soon", startDate="2026-06-01T10:00", endDate="")
    public = client.get(EVENTS)
    assert _titles(public) == ["Soon", "Late"]
    assert public.headers["X-Total-Count"] == "2"
    everything = client.get("/api/events/admin/all", headers=admin)
    assert _titles(everything) == ["Hidden", "Soon", "Late"]
    assert everything.headers["X-Total-Count"] == "3"
    assert [event["isActive"] for event in everything.json()] == [False, True, True]


def test_featured_filters_the_public_list(client: TestClient, admin: dict[str, str]) -> None:
    _create(client, admin, title="Star", featured=True, startDate="2026-12-07T10:00", endDate="")
    _create(client, admin, title="Plain", featured=False)
    _create(client, admin, title="Hidden star", featured=True, isActive=False)
    assert _titles(client.get(EVENTS, params={"featured": "true"})) == ["Star"]
    assert _titles(client.get(EVENTS, params={"featured": "false"})) == ["Plain"]
    assert _titles(client.get(EVENTS)) == ["Plain", "Star"]
    assert _titles(client.get("/api/events/admin/all", params={"featured": "true"}, headers=admin)) == [
        "Hidden star",
        "Star",
    ]


def test_the_public_list_is_paged(client: TestClient, admin: dict[str, str]) -> None:
    for day in range(1, 6):
        _create(client, admin, title=f"Day {day}", startDate=f"2026-12-{day:02d}T10:00", endDate="")
    response = client.get(EVENTS, params={"limit": 2, "offset": 2})
    assert _titles(response) == ["Day 3", "Day 4"]
    assert response.headers["X-Total-Count"] == "5"
    assert _titles(client.get(EVENTS, params={"offset": 4})) == ["Day 5"]


@pytest.mark.parametrize(
    "params", [{"limit": 0}, {"limit": 101}, {"offset": -1}, {"featured": "perhaps"}, {"limit": "x"}]
)
def test_bad_list_parameters_are_refused(client: TestClient, params: dict[str, Any]) -> None:
    response = client.get(EVENTS, params=params)
    assert response.status_code == 422
    assert "error" in response.json()


def test_no_events_is_an_empty_list(client: TestClient) -> None:
    response = client.get(EVENTS)
    assert response.status_code == 200
    assert response.json() == []
