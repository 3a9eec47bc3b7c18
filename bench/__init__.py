"""Benchmarks of the store's hot paths (`make bench`); never part of `make test`."""
