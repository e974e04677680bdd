# The front door (STYLE.md item 12). CI calls only `make test` (through .ci/run).
SWIFT        ?= swift
BUILD_DIR    ?= .build
CONFIG       ?= debug
BIN           = $(BUILD_DIR)/$(CONFIG)
# Debian packages the build, the tests and the benchmarks need.
APT_PACKAGES := libsqlite3-dev libcurl4-openssl-dev libjpeg-dev libexif-dev libedit-dev libmicrohttpd-dev \
                libssl-dev pkg-config curl libjpeg-turbo-progs
SWIFT_FLAGS  ?= -j $(shell nproc 2>/dev/null || echo 2)

.PHONY: deps build run test test-only lint format bench chaos clean

## deps: install the Debian packages (apt-get update only when something is missing; safe to re-run)
deps:
	@command -v $(SWIFT) >/dev/null 2>&1 || { echo "swift is not on PATH: install Swift 6.x (swift.org/install) and add its usr/bin to PATH."; exit 1; }
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing \
	    || { echo "make deps: apt-get failed; run: sudo apt-get install$$missing"; exit 1; }; \
	fi

## build: build every target (zero warnings expected)
build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

## run: jqc-shell on the embedded dev server with the demo data (pass ARGS="--json" etc.)
run: build
	@$(BIN)/jqc-shell $(ARGS)

## test: deps, build, the whole suite, then lint
test: deps
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	$(MAKE) --no-print-directory test-only
	$(MAKE) --no-print-directory lint

test-only:
	$(SWIFT) test --skip-build $(TEST_FLAGS)

## lint: swift-format in lint mode, then the architecture linter (once it exists)
lint:
	$(SWIFT) format lint --configuration .swift-format --recursive Package.swift Modules Apps Tooling Tests
	@if [ -f Apps/jqc-lint/main.swift ] && [ -f jqc-lint.json ]; then \
	  $(SWIFT) build $(SWIFT_FLAGS) --product jqc-lint >/dev/null && $(BIN)/jqc-lint --root . ; \
	fi

## format: rewrite sources with swift-format
format:
	$(SWIFT) format format --configuration .swift-format --in-place --recursive Package.swift Modules Apps Tooling Tests

## bench: the benchmarks of SPEC.md §6 (issue 11)
bench: deps
	@if [ -x scripts/bench.sh ]; then scripts/bench.sh; else echo "make bench: not built yet (issue 11)"; fi

## chaos: the fault suite (issue 11)
chaos: deps
	@if [ -x scripts/chaos.sh ]; then scripts/chaos.sh; else echo "make chaos: not built yet (issue 11)"; fi

clean:
	rm -rf $(BUILD_DIR)
