"""Fake provider HTTP servers that follow ../shared/contracts/."""
