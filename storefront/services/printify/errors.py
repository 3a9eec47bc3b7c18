"""Typed errors raised by Printify providers (demo and real HTTP client), and the provider's own
words for a refusal (`provider_reason`)."""

from __future__ import annotations

from collections.abc import Mapping

from storefront.services.platform.errors import ServiceError


class ProviderError(ServiceError):
    """The print provider refused or failed a request; `details` holds its error body."""

    status_code = 502

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: int | None = None,
        details: object | None = None,
    ) -> None:
        super().__init__(message, details=details)
        self.status = status
        self.code = code

    def __repr__(self) -> str:
        """Class, status, code and message, for logs."""
        return f"{type(self).__name__}(status={self.status!r}, code={self.code!r}, message={self.message!r})"


class ProviderNotFound(ProviderError):
    """The provider has no such shop, product or order (HTTP 404)."""

    status_code = 404

    def __init__(
        self,
        message: str = "Not found",
        *,
        status: int | None = 404,
        code: int | None = None,
        details: object | None = None,
    ) -> None:
        super().__init__(message, status=status, code=code, details=details)


class ProviderUnauthorized(ProviderError):
    """The provider rejected our credentials (HTTP 401/403)."""

    def __init__(
        self,
        message: str = "Unauthorized",
        *,
        status: int | None = 401,
        code: int | None = None,
        details: object | None = None,
    ) -> None:
        super().__init__(message, status=status, code=code, details=details)


class ProviderRateLimited(ProviderError):
    """The provider throttled us (HTTP 429); `retry_after` is seconds when known."""

    def __init__(
        self,
        message: str = "Too many requests",
        *,
        retry_after: float | None = None,
        status: int | None = 429,
        code: int | None = None,
        details: object | None = None,
    ) -> None:
        super().__init__(message, status=status, code=code, details=details)
        self.retry_after = retry_after


class ProviderUnavailable(ProviderError):
    """The provider is down, timed out or answered something unparseable (5xx and the like)."""

    def __init__(
        self,
        message: str = "Print provider unavailable",
        *,
        status: int | None = None,
        code: int | None = None,
        details: object | None = None,
    ) -> None:
        super().__init__(message, status=status, code=code, details=details)


class ProviderOutcomeUnknown(ProviderUnavailable):
    """A call that changes state failed after it was sent (timeout, 5xx): it may have taken effect."""


def provider_reason(error: ServiceError) -> str:
    """The provider's own words for a refusal: its validation reason, else its message."""
    details = error.details
    if isinstance(details, Mapping):
        errors = details.get("errors")
        if isinstance(errors, Mapping) and isinstance(errors.get("reason"), str) and errors["reason"]:
            return errors["reason"]
        for key in ("message", "error"):
            if isinstance(details.get(key), str) and details[key]:
                return details[key]
    return error.message
