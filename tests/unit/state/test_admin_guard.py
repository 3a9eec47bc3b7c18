"""Every event handler of every admin state checks the session on the server before anything else:
through `@admin_event`, or by calling `self._signed_in()` first itself."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import textwrap

import storefront.state.admin as admin_states
from storefront.state.admin.session import SESSION_CHECKED, AdminState

GUARD = "_signed_in"
#: Handlers that must run without a session (signing in, resuming the session the browser sends,
#: or sending the signed-out visitor on).
OPEN_HANDLERS = {
    "AdminLoginState.login",
    "AdminLoginState.open_login",
    "AdminLoginState.logout",
    "AdminLoginState.resume_on_login",
    "AdminState.resume_session",
}


def _admin_state_classes() -> list[type]:
    for module in pkgutil.iter_modules(admin_states.__path__):
        importlib.import_module(f"{admin_states.__name__}.{module.name}")
    found, pending = [], [AdminState]
    while pending:
        cls = pending.pop()
        found.append(cls)
        pending.extend(cls.__subclasses__())
    return found


#: Reflex's own generic setter: it only sets a var, and every handler that acts re-checks.
BUILT_IN = {"setvar"}


def _handlers(cls: type) -> dict[str, object]:
    """The event handlers a class itself defines (Reflex keeps their functions in event_handlers)."""
    return {
        name: handler.fn for name, handler in cls.event_handlers.items() if name in vars(cls) and name not in BUILT_IN
    }


def _guarded(cls: type, fn: object, depth: int = 0) -> bool:
    """True when `fn` is wrapped by `@admin_event`, or its first statement that does something calls
    self._signed_in() or hands over to a helper of the class that is guarded so."""
    if getattr(fn, SESSION_CHECKED, False):
        return True
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    body = tree.body[0].body  # type: ignore[attr-defined]
    statements = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    for node in ast.walk(statements[0]):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        if node.func.attr == GUARD:
            return True
        helper = getattr(cls, node.func.attr, None)
        if (
            depth < 2
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "self"
            and inspect.isfunction(helper)
            and _guarded(cls, helper, depth + 1)
        ):
            return True
    return False


def test_there_are_admin_states_to_check() -> None:
    names = {cls.__name__ for cls in _admin_state_classes()}
    assert {"AdminState", "AdminLoginState", "OrdersState", "ProductEditorState", "CategoriesState"} <= names


def test_every_admin_handler_starts_with_the_session_check() -> None:
    unguarded = []
    for cls in _admin_state_classes():
        for name, fn in _handlers(cls).items():
            if f"{cls.__name__}.{name}" in OPEN_HANDLERS:
                continue
            if not _guarded(cls, fn):
                unguarded.append(f"{cls.__name__}.{name}")
    assert not unguarded, f"handlers that do not check the admin session first: {unguarded}"
