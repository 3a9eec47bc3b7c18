"""Shared by the admin product states: catalogue calls run in a thread, and the toasts of their failures."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

import reflex as rx

from storefront.services.platform.errors import ServiceError
from storefront.services.printify.errors import ProviderError, provider_reason
from storefront.services.printify.provider import PrintProvider
from storefront.wiring import services, session_scope

log = logging.getLogger(__name__)

T = TypeVar("T")


def shared_provider() -> PrintProvider:
    """The process's print provider, made from the settings."""
    return services().provider


def with_session(action: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a catalogue action with a fresh session and the process's provider."""
    with session_scope() as session:
        return action(session, shared_provider(), *args, **kwargs)


def log_unexpected(error: Exception, what: str) -> None:
    """Log with its traceback a failure that is not one of the services' refusals."""
    if not isinstance(error, ServiceError):
        log.error("%s failed", what, exc_info=error)


def failure_text(error: Exception, fallback: str) -> str:
    """What a toast says about a refusal: the provider's reason, a service's message, else `fallback`."""
    if isinstance(error, ProviderError):
        return provider_reason(error) or fallback
    if isinstance(error, ServiceError):
        return error.message or fallback
    return fallback


def error_toast(title: str, text: str = "") -> rx.event.EventSpec:
    """A destructive toast, with a description only when there is something to say."""
    return rx.toast.error(title, description=text) if text else rx.toast.error(title)
