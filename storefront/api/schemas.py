"""The HTTP API's shared request and answer pieces (spec section 7 names), for validation and /api/docs;
each router's own models are in the `<router>_schemas.py` module next to it.

Request models are deliberately permissive where a service checks the field and answers the
spec's own message ('Please enter a valid email address', 'Name must be at least 2 characters',
'Invalid price value', ...): the field is optional and typed the way the browser sends it, so a
body of the right shape always reaches the service, which stays the one place of each rule. A body
that does not fit the model at all (not an object, a list where an object belongs) is FastAPI's 422,
answered by the app as {"error": "Invalid request", "details": {field: reason}}.

Every model allows extra fields: the services ignore what they do not read (or refuse it with
their own message), and answers may carry more than the fields named here.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

#: A text field the service checks itself (missing, blank or mistyped -> the spec's message).
Text = str | None
#: A number the browser may send as a JSON number or a numeric string ("29.99").
Number = int | float | str | None
#: An id the browser may send as a number or a string.
Id = int | str | None
#: A field documented as text but taken as sent, whatever its JSON type: the service answers the
#: spec's message for a wrong type too (the order lookup names both fields in one refusal).
AnyText = Annotated[Any, Field(json_schema_extra={"type": ["string", "null"]})]
#: An email the service checks itself; documented as an email so generated examples look like one.
Email = Annotated[str | None, Field(json_schema_extra={"format": "email"})]


class _Open(BaseModel):
    """A JSON object that may carry more fields than declared."""

    model_config = ConfigDict(extra="allow")


def _example(*examples: dict[str, Any]) -> ConfigDict:
    """A request model's config with examples (shown in /api/docs, sent by the fuzz test)."""
    return ConfigDict(extra="allow", json_schema_extra={"examples": list(examples)})


def dump(model: BaseModel | None) -> dict[str, Any]:
    """The request model as a dict ({} when no body was sent)."""
    return {} if model is None else model.model_dump(exclude_unset=True)


# --------------------------------------------------------------------------- errors


class ErrorBody(_Open):
    """Every refusal: the message, and per-field messages or the provider's details."""

    error: str = Field(description="What went wrong, in the spec's words")
    details: Any = Field(None, description="Messages per field ({field: message}) or the provider's reason")


class LoginErrorBody(ErrorBody):
    """A refused sign-in also carries the spec's {message}."""

    message: str | None = Field(None, description="The spec's login failure text")


class ProviderErrorBody(ErrorBody):
    """A refusal by the print provider: the spec's failure text, its reason and its own error body."""

    provider: Any = Field(None, description="The provider's error body")


def errors(*statuses: int, model: type[BaseModel] = ErrorBody, **described: str) -> dict[int | str, dict[str, Any]]:
    """`responses=` entries for these statuses, all answering {"error", "details"}."""
    texts = {
        400: "Bad request",
        401: "No live admin session (x-admin-token), or a wrong key",
        402: "The payment was declined",
        403: "Signed in, but the person's role may not do this",
        404: "Not found (a wrong key answers the same)",
        409: "Conflict with the record's current state",
        413: "The body is too large",
        422: "Invalid request: {error, details: {field: message}}",
        429: "Too many requests from this address; Retry-After says when to come back",
        500: "The provider accepted the change but it could not be recorded (a sync catches up)",
        502: "The provider, store or engine could not answer",
        503: "Not now: try again later",
    }
    out: dict[int | str, dict[str, Any]] = {}
    for status in statuses:
        out[status] = {"model": model, "description": described.get(f"d{status}", texts.get(status, "Refused"))}
    return out


# --------------------------------------------------------------------------- generic answers (any router's)


class Success(_Open):
    success: bool


class Deleted(_Open):
    success: bool
    id: int
