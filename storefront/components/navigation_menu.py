"""Radix NavigationMenu (hover delay, skip delay and a 150 ms close delay built in)."""

import reflex as rx

_LIBRARY = "@radix-ui/react-navigation-menu@1.4.1"


class _NavigationMenu(rx.Component):
    library = _LIBRARY


class NavigationMenuRoot(_NavigationMenu):
    tag = "Root"
    alias = "NavigationMenuRoot"
    delay_duration: rx.Var[int]
    skip_delay_duration: rx.Var[int]


class NavigationMenuList(_NavigationMenu):
    tag = "List"
    alias = "NavigationMenuList"


class NavigationMenuItem(_NavigationMenu):
    tag = "Item"
    alias = "NavigationMenuItem"


class NavigationMenuTrigger(_NavigationMenu):
    tag = "Trigger"
    alias = "NavigationMenuTrigger"


class NavigationMenuContent(_NavigationMenu):
    tag = "Content"
    alias = "NavigationMenuContent"


class NavigationMenuLink(_NavigationMenu):
    """A link inside the menu; selecting it closes the open panel."""

    tag = "Link"
    alias = "NavigationMenuLink"
    as_child: rx.Var[bool]


class NavigationMenuViewport(_NavigationMenu):
    tag = "Viewport"
    alias = "NavigationMenuViewport"


nav_root = NavigationMenuRoot.create
nav_list = NavigationMenuList.create
nav_item = NavigationMenuItem.create
nav_trigger = NavigationMenuTrigger.create
nav_content = NavigationMenuContent.create
nav_link = NavigationMenuLink.create
nav_viewport = NavigationMenuViewport.create
