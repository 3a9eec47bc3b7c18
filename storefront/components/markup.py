"""Markup written once and drawn twice: by React in the page, and as HTML by the server in the first view.

A tree of `Element`s whose classes and attributes are the very ones the page's React components
render (Radix Themes' classes and the store's own from assets/styles.css, no run-time generated
class), so the HTML the server sends before the JavaScript runs and the elements React puts in its
place look the same. Values are Vars when React draws the tree, plain strings when the server writes it.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass, field

import reflex as rx
from reflex_components_core.react_router.dom import ReactRouterLink

Value = str | int | rx.Var


@dataclass(frozen=True)
class Element:
    """An HTML element. `link` draws an `<a href>` as a router link in React (client-side navigation);
    `react_attrs` are attributes only React gets (a JavaScript handler), `react_props` the Reflex
    props only React's component gets (an event such as `on_click`). An attribute whose value is
    None is left out (React leaves out null too)."""

    tag: str
    classes: str = ""
    attrs: Mapping[str, Value] = field(default_factory=dict)
    children: tuple[Node, ...] = ()
    link: bool = False
    react_attrs: Mapping[str, object] = field(default_factory=dict)
    react_props: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Slot:
    """A part React draws with its own (interactive) component and the server writes as `markup`."""

    component: object
    markup: Node


@dataclass(frozen=True)
class Raw:
    """Trusted markup the server writes as is (an icon's SVG); React draws `component`."""

    markup: str
    component: object = None


Node = Element | Slot | Raw | str | int | rx.Var

#: HTML attribute names as React spells them.
_REACT_NAMES = {"srcset": "srcSet", "fetchpriority": "fetchPriority", "tabindex": "tabIndex"}
_VOID = {"img", "input", "br", "hr", "meta", "link", "source"}


def to_html(node: Node) -> str:
    """The HTML of a tree whose values are plain strings, every text and attribute escaped."""
    if isinstance(node, Raw):
        return node.markup
    if isinstance(node, Slot):
        return to_html(node.markup)
    if isinstance(node, rx.Var):
        raise TypeError("to_html needs plain values, not Vars")
    if not isinstance(node, Element):
        return html.escape(str(node), quote=False)
    attrs = dict(node.attrs)
    if node.classes:
        attrs = {"class": node.classes, **attrs}
    written = "".join(f' {name}="{html.escape(str(value), quote=True)}"' for name, value in attrs.items()
                      if value is not None)
    if node.tag in _VOID:
        return f"<{node.tag}{written}>"
    return f"<{node.tag}{written}>{''.join(to_html(child) for child in node.children)}</{node.tag}>"


def to_component(node: Node) -> rx.Component | rx.Var | str:
    """The Reflex component that draws the tree."""
    if isinstance(node, (Raw, Slot)):
        return node.component  # type: ignore[return-value]
    if not isinstance(node, Element):
        return node
    children = [to_component(child) for child in node.children]
    attrs = {_REACT_NAMES.get(name, name): value for name, value in node.attrs.items()}
    props: dict[str, object] = {"custom_attrs": {**attrs, **node.react_attrs}, **node.react_props}
    if node.classes:
        props["class_name"] = node.classes
    if node.link:
        href = props["custom_attrs"].pop("href")  # type: ignore[union-attr]
        return ReactRouterLink.create(*children, to=href, **props)
    return getattr(rx.el, node.tag)(*children, **props)


def pick(condition: rx.Var | bool, yes: Value, no: Value) -> Value:
    """`yes` or `no` by a condition that is a Var (React) or a bool (the server)."""
    if isinstance(condition, rx.Var):
        return rx.cond(condition, yes, no)
    return yes if condition else no
