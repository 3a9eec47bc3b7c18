"""A request's database session gives its connection back when the endpoint returns, before the
answer is validated and the dependency cleaned up (steps that wait for the request thread pool)."""

from __future__ import annotations

from typing import Any

from fastapi import Depends, FastAPI
from fastapi.routing import APIRouter
from fastapi.testclient import TestClient
from pydantic import BaseModel, model_validator
from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Session

from storefront.api.sessions import SessionRoute, get_session


def app_on(engine: Engine, seen: dict[str, Any], route_class: type) -> FastAPI:
    class Answer(BaseModel):
        checked_out: int

        @model_validator(mode="before")
        @classmethod
        def _note_the_pool(cls, value: Any) -> Any:
            # Runs after the endpoint, while FastAPI validates the answer: is the connection back?
            seen["held_while_answering"] = engine.pool.checkedout()
            return value

    class Services:
        session_factory = staticmethod(lambda: Session(engine))

    router = APIRouter(route_class=route_class)

    @router.get("/probe", response_model=Answer)
    def probe(session: Session = Depends(get_session)) -> dict[str, int]:
        session.execute(text("SELECT 1"))
        seen["session"] = session
        return {"checked_out": engine.pool.checkedout()}

    app = FastAPI()
    app.state.services = Services()
    app.include_router(router)
    return app


def test_the_connection_is_back_in_the_pool_before_the_answer_is_validated(engine: Engine) -> None:
    seen: dict[str, Any] = {}
    response = TestClient(app_on(engine, seen, SessionRoute)).get("/probe")
    assert response.status_code == 200 and response.json()["checked_out"] == 1  # the endpoint held it
    assert seen["held_while_answering"] == 0
    assert not seen["session"].in_transaction()


def test_a_plain_route_would_hold_it_while_answering(engine: Engine) -> None:
    from fastapi.routing import APIRoute

    seen: dict[str, Any] = {}
    response = TestClient(app_on(engine, seen, APIRoute)).get("/probe")
    assert response.status_code == 200
    assert seen["held_while_answering"] == 1  # what SessionRoute prevents
