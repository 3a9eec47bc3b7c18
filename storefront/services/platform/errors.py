"""Typed errors raised by services; state turns them into toasts, the API into status codes."""

from __future__ import annotations


class ServiceError(Exception):
    """Base of every error a service raises on purpose."""

    status_code = 400

    def __init__(self, message: str, details: object | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class ValidationError(ServiceError):
    """Bad input; `field_errors` maps a field name to the message shown at that field."""

    status_code = 422

    def __init__(self, message: str, field_errors: dict[str, str] | None = None) -> None:
        super().__init__(message, details=field_errors or None)
        self.field_errors: dict[str, str] = dict(field_errors or {})


class NotFoundError(ServiceError):
    status_code = 404


class UnauthorizedError(ServiceError):
    status_code = 401


class ForbiddenError(ServiceError):
    """Signed in, but the person's role may not do this."""

    status_code = 403


class ConflictError(ServiceError):
    status_code = 409


class TooManyRequestsError(ServiceError):
    """A limit was reached; `retry_after` is how many seconds to wait, when known."""

    status_code = 429

    def __init__(self, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
