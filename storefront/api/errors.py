"""The API's error answers: {"error": message, "details": field errors or provider details}."""

from __future__ import annotations

from fastapi.responses import JSONResponse

from storefront.services.payments.gateway import PaymentDeclined
from storefront.services.platform.errors import ServiceError, TooManyRequestsError, ValidationError

PAYMENT_FAILED = "Payment processing failed"


def error_body(exc: ServiceError) -> dict[str, object]:
    if isinstance(exc, PaymentDeclined):
        return {"error": PAYMENT_FAILED, "details": exc.reason}
    if isinstance(exc, ValidationError):
        return {"error": exc.message, "details": exc.field_errors or None}
    return {"error": exc.message, "details": exc.details}


def error_response(exc: ServiceError, **extra: object) -> JSONResponse:
    """The error's status and body (plus `extra` fields); a 429 says when to come back."""
    headers = {}
    if isinstance(exc, TooManyRequestsError) and exc.retry_after is not None:
        headers["Retry-After"] = str(exc.retry_after)
    return JSONResponse({**error_body(exc), **extra}, status_code=exc.status_code, headers=headers)
