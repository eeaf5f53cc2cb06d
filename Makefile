# Whisker: install what is missing, build, run the demo, test. CI runs `make test` (.ci/run).
#
#   make deps    install the system packages the build and the tests need (apt-get, only if missing)
#   make build   build the library and the cat-service demo
#   make run     build cat-service (release) and run it on http://127.0.0.1:8080 in the foreground
#   make test    the layer check, the documentation, unit and in-process tests, the allocation budget, the demo's typed tests, then the curl tests against the real cat-service binary, then the generator's examples on Whisker (test-examples), then whisker-mock serving the demo's and the examples' documents under Schemathesis (test-mock)
#   make test-newcomer  a new package made from README.md alone, built, served and checked (Scripts/newcomer.sh)
#   make test-budget  mallocs per request (HTTP/1.1, h2c, the OpenAPI transport, the demo's ?count=3 and JSON body validated, h2 over TLS) against Benchmarks/Allocations/Thresholds
#   make bench-layers  per-layer micro-benchmarks (parser, router, query decoding, validation, response head, framing): ns and mallocs an operation (not part of `make test`)
#   make bench-instructions  user-space instructions a request (cachegrind, deterministic) of the release cat-service: HTTP/1.1, ?count=3, h2c (not part of `make test`; INSTRUCTIONS_LAYERS=1: per layer)
#   make clean   remove the build folders
#   make fuzz    build the libFuzzer targets (Fuzz/) and fuzz each for FUZZ_SECONDS (not part of `make test`)
#   make fuzz-replay  run the fuzz seed corpus and the saved regression inputs once, without fuzzing
#   make soak    a release cat-service under a few minutes of mixed load, checked for leaks (not part of `make test`)
#   make docs    the DocC documentation of every library module, one combined archive in .build/docs/Whisker.doccarchive
#                (warnings are errors, every public symbol documented; `make test` builds it)

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build

# Swift lives in /opt/swift/usr/bin on these machines; a non-login shell may not have it on PATH.
ifeq ($(shell command -v swift),)
export PATH := $(PATH):/opt/swift/usr/bin
endif

DEMO := Demo/CatService

# SwiftPM rebuilds the demo's build plugin (swift-openapi-generator and its dependencies, a minute or
# more) whenever the environment differs from its last build. So swift runs without make's own
# variables, and this file's settings are not exported: `make test`, `make build` and
# `make run RUN_PORT=9000` reuse one plugin build. (A `swift build` typed in a shell sees a slightly
# different environment, `_` and `SHLVL`, and rebuilds the plugin once.)
SWIFT ?= env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u MAKE_TERMOUT -u MAKE_TERMERR swift

# The demo is a nested package (it keeps swift-openapi-generator out of the library's dependencies).
# `make test` builds it in debug: a clean debug build compiles far faster than release, and the curl
# tests check behaviour, not speed. `make run` builds it in release, as it would be deployed, in its
# own build folder: debug and release builds sharing one folder rebuild the plugin at every switch.
TEST_CONFIG ?= debug
RUN_CONFIG ?= release
RUN_SCRATCH ?= $(DEMO)/.build-release
RUN_HOST ?= 127.0.0.1
RUN_PORT ?= 8080

DEMO_TEST_BUILD = $(SWIFT) build --package-path $(DEMO) -c $(TEST_CONFIG)
# The release demo links the Swift runtime, Concurrency, Dispatch and FoundationEssentials statically
# (Linux): the process holds only the pages of them it touches instead of mapping and relocating
# five shared libraries, and calls swift_retain/release without the PLT: 1.8 MiB less resident and
# 7-13% less CPU a request, for a stripped binary of 24 MB instead of 9.4 (Performance.md, "What each
# MiB is"). Its Package.swift links it lean on top (lld, packed relocations, no exported symbols,
# GCC's libstdc++ linked in: 3 MiB less resident, release builds on Linux only). Debian's libraries
# (libc, OpenSSL, nghttp2, zlib, Brotli) stay shared.
# Benchmarks/build.sh builds cat-service with the same flag (the same build folder).
DEMO_STATIC_STDLIB = $(if $(filter Linux,$(shell uname -s)),--static-swift-stdlib)
DEMO_RUN_BUILD = $(SWIFT) build --package-path $(DEMO) --scratch-path $(RUN_SCRATCH) -c $(RUN_CONFIG) $(DEMO_STATIC_STDLIB)
unexport SWIFT TEST_CONFIG RUN_CONFIG RUN_SCRATCH RUN_HOST RUN_PORT

.PHONY: schemathesis deps build build-lib build-demo run test test-layers test-lib test-budget test-demo test-demo-swift test-dispatch clean

# deps: each tool or library is checked first; apt-get runs (update once, then one install) only
# for what is missing, with sudo only when not root. Debian's systemd package brings
# systemd-socket-activate and systemd-analyze for Demo/CatService/Tests/systemd.sh (installing it
# in a container does not start systemd); perl (perl-base, always on Debian) is its fake notify socket.
# The zstd command line tool decodes and codes what compression.sh and uploads.sh send and read.
# hiredis is the Redis store's client (WhiskerRedis); redis-server is started by its tests and by
# redis-store.sh on loopback (installing it does not start it as a service: no systemd runs here).
# Chromium (headless, driven from Python over its DevTools pipe) plays the clip in browser.sh;
# python3 also writes h2-abuse.sh's hand-made HTTP/2 frames, and with PyYAML (python3-yaml) reads the
# demo's document to compare with the server's reader (docs.sh, DocumentReaderTests). nginx (reverse proxy, HTTP/2 and TLS)
# and haproxy (PROXY protocol v2) stand in front of cat-service in nginx.sh and haproxy.sh; neither
# is started as a service: the tests run their own on loopback. slowhttptest plays slowloris, slow
# POST and slow read in slow-clients.sh, which counts the connections left with ss (iproute2). gdb prints
# the stacks of a library test run that hangs (Scripts/bounded-test-run.py). fincore
# (util-linux-extra) says that check-memory.sh dropped the release cat-service from the page cache.
# The Python client `websockets` (PyPI, its sync client: version 13 or later) speaks WebSocket to
# /ws/echo in websocket.sh. The HTTP/2 library `h2` (PyPI) drives the generator's bidirectional
# example over h2c in test-examples, sending and reading on one stream at once.
deps:
	@missing=(); \
	pkg-config --exists libnghttp2 openssl 2>/dev/null || missing+=(pkg-config libnghttp2-dev libssl-dev); \
	pkg-config --exists zlib libbrotlienc 2>/dev/null || missing+=(pkg-config zlib1g-dev libbrotli-dev); \
	pkg-config --exists libzstd 2>/dev/null || missing+=(pkg-config libzstd-dev); \
	command -v zstd >/dev/null || missing+=(zstd); \
	pkg-config --exists hiredis 2>/dev/null || missing+=(pkg-config libhiredis-dev); \
	command -v redis-server >/dev/null || missing+=(redis-server); \
	command -v curl >/dev/null || missing+=(curl); \
	command -v ffprobe >/dev/null || missing+=(ffmpeg); \
	command -v h2load >/dev/null || missing+=(nghttp2-client); \
	command -v openssl >/dev/null || missing+=(openssl); \
	command -v timeout >/dev/null || missing+=(coreutils); \
	{ command -v systemd-socket-activate && command -v systemd-analyze; } >/dev/null || missing+=(systemd); \
	command -v perl >/dev/null || missing+=(perl-base); \
	command -v python3 >/dev/null || missing+=(python3); \
	python3 -c 'import yaml' 2>/dev/null || missing+=(python3-yaml); \
	command -v chromium >/dev/null || missing+=(chromium); \
	command -v nginx >/dev/null || missing+=(nginx); \
	command -v haproxy >/dev/null || missing+=(haproxy); \
	command -v slowhttptest >/dev/null || missing+=(slowhttptest); \
	command -v ss >/dev/null || missing+=(iproute2); \
	command -v gdb >/dev/null || missing+=(gdb); \
	command -v fincore >/dev/null || missing+=(util-linux-extra); \
	if (( $${#missing[@]} )); then \
	    sudo=""; if [[ $$(id -u) -ne 0 ]]; then sudo=sudo; fi; \
	    echo "deps: installing $${missing[*]}"; \
	    $$sudo apt-get update; \
	    $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$${missing[@]}"; \
	else \
	    echo "deps: pkg-config, libnghttp2, openssl, zlib, libbrotlienc, libzstd (and zstd), hiredis, redis-server, curl, ffprobe, h2load, systemd-socket-activate, systemd-analyze, perl, python3 (with PyYAML), chromium, nginx, haproxy, slowhttptest, ss, gdb present"; \
	fi; \
	if ! python3 -c 'import websockets' 2>/dev/null; then \
	    echo "deps: installing websockets (PyPI)"; \
	    python3 -m pip install --quiet 'websockets>=13'; \
	fi; \
	if ! python3 -c 'import h2' 2>/dev/null; then \
	    echo "deps: installing h2 (PyPI)"; \
	    python3 -m pip install --quiet 'h2>=4'; \
	fi; \
	if ! command -v schemathesis >/dev/null; then \
	    echo "deps: installing schemathesis (PyPI)"; \
	    python3 -m pip install --quiet 'schemathesis>=4.32'; \
	fi

# build: the library (root package) and the demo in its test configuration.
build: build-lib build-demo

build-lib:
	$(SWIFT) build

# SwiftPM keeps a dependent package's build plan while its own manifest is unchanged, and does not see
# a file added to the library it depends on by path ("cannot find 'X' in scope" after a pull). The
# plan ($(1), a glob of description.json files) is dropped when the library's list of files differs
# from the one recorded beside it ($(2)), and only then: a dropped plan rebuilds Whisker (~40 s).
define drop-plan-if-library-files-changed
git ls-files -co --exclude-standard Sources Package.swift | cmp -s - $(2) || { \
    rm -f $(1); mkdir -p $(dir $(2)); \
    git ls-files -co --exclude-standard Sources Package.swift > $(2); }
endef

build-demo:
	$(call drop-plan-if-library-files-changed,$(DEMO)/.build/*/$(TEST_CONFIG)/description.json,$(DEMO)/.build/library-files)
	$(DEMO_TEST_BUILD) --product cat-service

# run: a release cat-service in the foreground; Ctrl-C stops it gracefully.
# Override the address with `make run RUN_HOST=0.0.0.0 RUN_PORT=9000`.
# The release binary links the Swift runtime statically (DEMO_STATIC_STDLIB), so the
# runtime cannot find its crash backtracer beside libswiftCore.so: SWIFT_BACKTRACE names the static
# one of the toolchain that built it (unless set already), and a crash still prints a symbolicated
# backtrace. A deployment sets the same variable (or ships swift-backtrace-static with the binary).
SWIFT_BACKTRACER_STATIC = $(abspath $(dir $(shell command -v swift))/../libexec/swift/linux/swift-backtrace-static)
run: deps
	$(call drop-plan-if-library-files-changed,$(RUN_SCRATCH)/*/$(RUN_CONFIG)/description.json,$(RUN_SCRATCH)/library-files)
	$(DEMO_RUN_BUILD) --product cat-service
	SWIFT_BACKTRACE="$${SWIFT_BACKTRACE:-swift-backtrace=$(SWIFT_BACKTRACER_STATIC)}" \
	    exec "$$($(DEMO_RUN_BUILD) --show-bin-path)/cat-service" --host $(RUN_HOST) --port $(RUN_PORT)

# test: the library's unit and in-process tests, the allocation budget, then the demo's curl tests
# (Demo/CatService/Tests/run-all.sh, which ends with "N passed, N failed"), then both again on the
# Dispatch-source I/O backend (test-dispatch: about as long as test-lib and test-demo's curl part).
test: deps test-layers docs test-lib test-budget test-demo test-dispatch test-memory test-examples test-mock test-newcomer

# test-memory: the release cat-service that `make run` builds (the same build folder, so `make run`
# and `make test` share it), started as `make run` starts it, must map or link no ICU nor
# libFoundation nor the shared libstdc++, stay at most 20 MiB resident once it answers and at most
# 22 MiB at its peak after a bounded load of the bench's shapes (h2load, a few seconds): issue 41's
# goals; started from disk (its binary dropped from the page cache) it idles at 19.3 to 19.6 and
# peaks at 21.1 to 21.3 after the zstd load (Scripts/check-memory.sh). The debug build
# the curl tests use says nothing about a deployed server's memory, hence a release build of its own.
.PHONY: test-memory
test-memory: deps
	$(call drop-plan-if-library-files-changed,$(RUN_SCRATCH)/*/$(RUN_CONFIG)/description.json,$(RUN_SCRATCH)/library-files)
	$(DEMO_RUN_BUILD) --product cat-service
	Scripts/check-memory.sh "$$($(DEMO_RUN_BUILD) --show-bin-path)/cat-service"

# The module layers (Scripts/check-layers.sh: dependencies, imports, folder sizes), and the
# HTTP/1.1-only example, which must link no TLS or HTTP/2 library and serve as a client expects.
# The example is built without the default traits, as a user who turns them off gets Whisker, in a
# build folder of its own (the other builds keep the traits).
HTTP1_ONLY_BUILD = $(SWIFT) build --disable-default-traits --scratch-path .build-http1-only
test-layers:
	$(HTTP1_ONLY_BUILD) --product HTTP1OnlyExample
	Scripts/check-layers.sh "$$($(HTTP1_ONLY_BUILD) --show-bin-path)/HTTP1OnlyExample"
	Scripts/http1-only.sh "$$($(HTTP1_ONLY_BUILD) --show-bin-path)/HTTP1OnlyExample"

# The memory suites bound the process's resident memory or heap, which every test in the process
# shares: they run in a process of their own, after the rest, one test at a time.
# LIB_TRAITS: the default traits (TLS, HTTP2, Compression), Configuration, so that each feature module's configuration
# keys (its +ConfigReader file, built only with that trait) are compiled and tested
# (WhiskerConfigurationTests), and Redis, so that the umbrella's docs show what it re-exports. A `swift test` without them reports that those tests did not run.
MEMORY_SUITES := StreamingTests|DeadlineMemoryTests|FreedMemoryReleaseTests|StaticFilesMemoryTests|RateLimiterMemoryTests
LIB_TRAITS := TLS,HTTP2,Compression,Configuration,Redis
# Each pass runs the test bundle itself under a watchdog (Scripts/bounded-test-run.py): a test that
# hangs fails the pass after LIB_TEST_SECONDS (the passes take 16 and 26 s on two cores), naming the
# tests that had not ended and printing every thread's stack, instead of holding CI until its own
# limit ends it with nothing to read. The bundle prints Swift Testing's events line by line
# (--verbose, stdbuf), as `swift test` would run it; the package has no XCTest tests.
LIB_TEST_SECONDS ?= 900
unexport LIB_TEST_SECONDS
LIB_TESTS = Scripts/bounded-test-run.py $(LIB_TEST_SECONDS) -- stdbuf -oL "$$($(SWIFT) build --show-bin-path)"/*PackageTests.xctest --testing-library swift-testing --verbose
test-lib:
	$(SWIFT) build --build-tests --traits $(LIB_TRAITS)
	$(LIB_TESTS) --skip '$(MEMORY_SUITES)'
	$(LIB_TESTS) --no-parallel --filter '$(MEMORY_SUITES)'

# test-budget: allocations per request, counted by package-benchmark's malloc interposer in a
# nested package (Benchmarks/Allocations, README.md there), for HTTP/1.1 keep-alive, h2c, the
# OpenAPI transport, the demo's `GET /api/emoji?count=3` and `POST /api/adopt` (a JSON body)
# validated against its document, and h2 over TLS on a loopback socket; each count must equal
# its budget in Benchmarks/Allocations/Thresholds/debug, or the check fails with the numbers (more
# allocations, or fewer: then lower the budget). Built in
# debug: a clean debug build takes about a minute on two cores, release about two; the counts are
# exact either way, and release's are in Thresholds/release (`make test-budget BUDGET_CONFIG=release`).
# test-budget-update writes the current counts as the budget; test-budget-stacks shows where a
# request's allocations come from (BUDGET_FILTER=h2c for one benchmark).
BUDGET := Benchmarks/Allocations
BUDGET_CONFIG ?= debug
BUDGET_BUILD = $(SWIFT) build --package-path $(BUDGET) -c $(BUDGET_CONFIG)
unexport BUDGET_CONFIG
.PHONY: test-budget-update test-budget-stacks build-budget

# BenchmarkTool is package-benchmark's driver (what `swift package benchmark` runs), built here in
# the same configuration, from modules the benchmark has built already. The plan is dropped first,
# as for the demo: a file added to the library would not be seen.
build-budget: deps
	rm -f $(BUDGET)/.build/*/$(BUDGET_CONFIG)/description.json
	$(BUDGET_BUILD) --product AllocationBudget
	$(BUDGET_BUILD) --product BenchmarkTool

test-budget: build-budget
	$(BUDGET)/budget.sh check "$$($(BUDGET_BUILD) --show-bin-path)" $(BUDGET_CONFIG)

test-budget-update: build-budget
	$(BUDGET)/budget.sh update "$$($(BUDGET_BUILD) --show-bin-path)" $(BUDGET_CONFIG)

test-budget-stacks: build-budget
	$(BUDGET)/budget.sh stacks "$$($(BUDGET_BUILD) --show-bin-path)" $(BUDGET_CONFIG)

# bench-layers: the per-layer micro-benchmarks (Benchmarks/Allocations/Benchmarks/Layers, README.md
# there): wall clock and mallocs per operation of the HTTP/1.1 parser, the router, query decoding
# (Whisker's and swift-openapi-runtime's), validation, the response head and HTTP/1.1 and HTTP/2
# framing in memory, printed as one table per metric. Release build, not part of `make test`
# (time is not deterministic). LAYERS_FILTER=regex runs some; LAYERS_BASELINE=name saves the run
# as a baseline, LAYERS_COMPARE=name compares the run with a saved one (two revisions: save on
# one, compare on the other).
LAYERS_BUILD = $(SWIFT) build --package-path $(BUDGET) -c release
LAYERS_FILTER ?=
LAYERS_BASELINE ?=
LAYERS_COMPARE ?=
unexport LAYERS_FILTER LAYERS_BASELINE LAYERS_COMPARE
.PHONY: bench-layers
bench-layers: deps
	rm -f $(BUDGET)/.build/*/release/description.json
	$(LAYERS_BUILD) --product Layers
	$(LAYERS_BUILD) --product BenchmarkTool
	LAYERS_FILTER='$(LAYERS_FILTER)' LAYERS_BASELINE='$(LAYERS_BASELINE)' LAYERS_COMPARE='$(LAYERS_COMPARE)' \
		$(BUDGET)/layers.sh "$$($(LAYERS_BUILD) --show-bin-path)"

# H2SPEC: the h2spec binary for Demo/CatService/Tests/h2spec.sh (HTTP/2 conformance, three modes).
# No registry packages it; .ci/run passes ../shared/tools/h2spec. Without it that script says so
# and checks nothing.
H2SPEC ?=
unexport H2SPEC

# test-demo-swift: the demo's typed tests (Demo/CatService/Tests/CatServiceTests), every operation
# through a client generated from openapi.yaml, in process and live over HTTP/1.1 and h2c
# (WhiskerTesting's WhiskerTestTransport), on the modules build-demo has built.
test-demo-swift: build-demo
	$(SWIFT) test --package-path $(DEMO) -c $(TEST_CONFIG)

test-demo: build-demo test-demo-swift
	H2SPEC="$(abspath $(H2SPEC))" $(DEMO)/Tests/run-all.sh "$$($(DEMO_TEST_BUILD) --show-bin-path)/cat-service"

# test-dispatch: the library's tests (as test-lib) and the demo's curl suite (as test-demo) on the
# second I/O backend, a Dispatch source waking each worker's queue instead of the worker's own
# thread (on Darwin a Dispatch read and write source per connection): WHISKER_IO_BACKEND=dispatch is IOBackend.default's override, read by every IOWorker made
# without an explicit backend, so the same builds serve (see IOBackend in WhiskerSockets).
test-dispatch: build-demo
	WHISKER_IO_BACKEND=dispatch $(MAKE) test-lib
	WHISKER_IO_BACKEND=dispatch H2SPEC="$(abspath $(H2SPEC))" $(DEMO)/Tests/run-all.sh "$$($(DEMO_TEST_BUILD) --show-bin-path)/cat-service"

# test-newcomer: a new package made from README.md alone (Scripts/newcomer.sh): the README's
# dependency line for a local checkout (pointed at this one), its target lines (the generator's plugin
# and WhiskerEmbedDocument) and its `main` snippet, around the issue's openapi.yaml (GET
# /greet/{name}?shout=bool); built in .build-newcomer (the library's .build is not touched), served
# on a free port, and checked: ?shout=maybe is a 400 naming shout, ?shout=true a 200, the document
# and the docs page served. The first build takes minutes (the generator and its dependencies); the
# next are incremental. NEWCOMER_BUILD_SECONDS bounds the build (1200).
.PHONY: test-newcomer
test-newcomer:
	Scripts/newcomer.sh

# test-examples: swift-openapi-generator's own examples on Whisker (Tests/GeneratorExamples, README.md
# there). The scratch package EXAMPLES (git ignores it) is made from Package.swift.template and
# resolved; extract.sh takes the examples from SwiftPM's checkout of the generator at the version
# resolved (nothing of theirs is committed), cuts each server's bootstrap (their handlers byte for
# byte, checked) and puts ours beside; one build, bounded by EXAMPLES_BUILD_TIMEOUT seconds, makes
# every example; check.py runs each without and with validation over HTTP/1.1 and h2c, with their
# client examples, and ends with "N passed, M failed". EXAMPLES_ONLY="event-streams petstore" runs some.
# As for the demo, SwiftPM's kept plan is dropped when the library's list of files changed.
EXAMPLES := .build-examples
EXAMPLES_BUILD = $(SWIFT) build --package-path $(EXAMPLES)
EXAMPLES_BUILD_TIMEOUT ?= 1800
EXAMPLES_ONLY ?=
unexport EXAMPLES_BUILD_TIMEOUT EXAMPLES_ONLY
.PHONY: test-examples examples-source test-mock
examples-source: deps
	mkdir -p $(EXAMPLES)
	cmp -s Tests/GeneratorExamples/Package.swift.template $(EXAMPLES)/Package.swift || cp Tests/GeneratorExamples/Package.swift.template $(EXAMPLES)/Package.swift
	WHISKER_EXAMPLES_RESOLVE_ONLY=1 $(SWIFT) package --package-path $(EXAMPLES) resolve
	Tests/GeneratorExamples/extract.sh $(EXAMPLES)

test-examples: examples-source
	$(call drop-plan-if-library-files-changed,$(EXAMPLES)/.build/*/debug/description.json,$(EXAMPLES)/library-files)
	timeout $(EXAMPLES_BUILD_TIMEOUT) $(EXAMPLES_BUILD)
	Tests/GeneratorExamples/check.py "$$($(EXAMPLES_BUILD) --show-bin-path)" $(EXAMPLES) $(EXAMPLES_ONLY)

# test-mock: whisker-mock serves, with no code, the demo's document and each distinct document of
# the generator's examples (as examples-source extracts them), and Schemathesis (PyPI) drives each
# with every check, twice: the requests it allows, then the ones it forbids
# (Scripts/mock-schemathesis.sh, Tests/Mock: what is told and why). Bounded: MOCK_EXAMPLES examples
# per operation (20), 120 s a run; loopback only.
MOCK_BUILD = $(SWIFT) build --traits $(LIB_TRAITS) --product whisker-mock
test-mock: examples-source
	$(MOCK_BUILD)
	Scripts/mock-schemathesis.sh "$$($(MOCK_BUILD) --show-bin-path)/whisker-mock" $(DEMO)/Sources/CatServiceCore/openapi.yaml \
	    $$(find $(EXAMPLES)/generator/Examples -name openapi.yaml -type f | sort | xargs md5sum | awk '!seen[$$1]++ { print $$2 }')

# clean: every build folder of the library, the demo, the allocation budget, the examples and the newcomer package.
clean:
	rm -rf .build .build-http1-only .build-newcomer $(DEMO)/.build $(RUN_SCRATCH) $(BUDGET)/.build $(EXAMPLES)

# docs: one combined DocC archive of the library's modules, DOCS_MODULES (every Swift library target:
# the umbrella `Whisker` first, whose catalog Sources/Whisker/Whisker.docc holds the landing page and
# the articles, then the modules it re-exports or sits beside), built by swift-docc-plugin's
# generate-documentation with --enable-experimental-combined-documentation, in DOCS_OUTPUT (under
# .build, which git ignores). DOCS_SCRATCH is the build folder the plugin builds the symbol graphs
# in (the library's own, .build, by default). Three checks fail it, in `make test` too:
# - Scripts/check-doc-modules.sh: DOCS_MODULES is exactly the package's Swift library targets (a new
#   module must be added here);
# - a DocC warning (an unresolved link, say): --warnings-as-errors. A link to another module's symbol
#   is written ``/WhiskerCore/WhiskerServer``, with a leading slash, and resolves only when that
#   module is a direct dependency of the linking one (the plugin hands each module the archives of
#   its direct dependencies); otherwise it is written as code, `WhiskerServer`;
# - Scripts/check-doc-coverage.py: every public symbol has a doc comment, every module a catalog
#   page of its own, Sources/<Module>/<Module>.docc/<Module>.md (it lists what is missing).
# Built with LIB_TRAITS, as test-lib is (one build of the library for both): the modules' configuration
# keys and the umbrella's whole key table are documented too.
# --enable-inherited-docs shows a protocol requirement's documentation on the members that implement
# it in another module (MemoryByteStream's ByteStream methods, a type's `description`): the coverage
# check counts those as documented, so DocC must show them.
DOCS_MODULES := Whisker WhiskerSockets WhiskerHTTP WhiskerCore WhiskerTLS WhiskerHTTP2 WhiskerCompression \
    WhiskerCORS WhiskerProxies WhiskerHealth WhiskerWebSocket WhiskerStaticFiles WhiskerObservability WhiskerLifecycle WhiskerConfiguration WhiskerRedis OpenAPIWhisker OpenAPIWhiskerDocument OpenAPIWhiskerPolicies WhiskerTesting WhiskerMock
DOCS_SCRATCH ?= .build
DOCS_OUTPUT ?= .build/docs/Whisker.doccarchive
unexport DOCS_MODULES DOCS_SCRATCH DOCS_OUTPUT
.PHONY: docs
docs:
	Scripts/check-doc-modules.sh $(DOCS_MODULES)
	mkdir -p $(dir $(DOCS_OUTPUT))
	$(SWIFT) package --traits $(LIB_TRAITS) --scratch-path $(DOCS_SCRATCH) --allow-writing-to-directory $(DOCS_OUTPUT) \
	    generate-documentation --enable-experimental-combined-documentation $(addprefix --target ,$(DOCS_MODULES)) \
	    --enable-inherited-docs --output-path $(DOCS_OUTPUT) --warnings-as-errors
	Scripts/check-doc-coverage.py $(DOCS_SCRATCH) $(DOCS_MODULES)

# bench: where each microsecond of a request goes, layer by layer (a C floor, nginx, Whisker with a
# plain route, + the transport and generated handler, + validation, + the demo's response steps), and
# the CatService on Whisker (cat-service as `make run` builds it), Hummingbird 2 and Vapor 4, side by
# side, over HTTP/1.1 (wrk) and then HTTP/2 (h2c and h2 over TLS, h2load: Benchmarks/bench-h2.sh,
# which bench.sh runs). Not part of `make test`. The first run builds the peers in release (5 to 12
# minutes each, once per machine); Whisker's bench server and cat-service are rebuilt incrementally
# every run. A default run measures for about 21 minutes; BENCH_SERVERS, BENCH_SCENARIOS,
# BENCH_ROUNDS (3), BENCH_DURATION (5 s a scenario) and the other settings are in
# Benchmarks/README.md; e.g. `make bench BENCH_ROUNDS=5`. nginx and h2load come from `make deps`.
# Results: Benchmarks/.results/ (latest.md: the last report; latest-layers.md: its per-layer table).
.PHONY: bench
bench: deps
	@if ! command -v wrk >/dev/null; then \
	    sudo=""; if [[ $$(id -u) -ne 0 ]]; then sudo=sudo; fi; \
	    echo "bench: installing wrk"; \
	    $$sudo apt-get update; \
	    $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends wrk; \
	fi
	bash Benchmarks/bench.sh

# bench-instructions: the user-space instructions a request costs the release cat-service (as `make
# run` builds it), counted by valgrind's cachegrind (Benchmarks/instructions.sh): deterministic where
# CPU time is not, for comparing two revisions. Not part of `make test`; installs valgrind if missing.
# INSTRUCTIONS_LAYERS=1 adds a row per layer (a plain route, + the transport, + validation), counted
# on the bench server (Benchmarks/build.sh whisker).
.PHONY: bench-instructions
bench-instructions: deps
	@if ! command -v valgrind >/dev/null; then \
	    sudo=""; if [[ $$(id -u) -ne 0 ]]; then sudo=sudo; fi; \
	    echo "bench-instructions: installing valgrind"; \
	    $$sudo apt-get update; \
	    $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends valgrind; \
	fi
	$(call drop-plan-if-library-files-changed,$(RUN_SCRATCH)/*/$(RUN_CONFIG)/description.json,$(RUN_SCRATCH)/library-files)
	$(DEMO_RUN_BUILD) --product cat-service
	Benchmarks/instructions.sh "$$($(DEMO_RUN_BUILD) --show-bin-path)/cat-service" 1000 \
	    $$(if [[ "$(INSTRUCTIONS_LAYERS)" == 1 ]]; then bash Benchmarks/build.sh whisker; fi)

# soak: a release cat-service under a few minutes of mixed load (Scripts/soak.sh: HTTP/1.1, h2c, h2
# over TLS, 20 MiB uploads, event streams and clips left midway, a certificate reload every 10 s),
# sampling memory, threads and descriptors; not part of `make test`. SOAK_SECONDS (180).
SOAK_SECONDS ?= 180
unexport SOAK_SECONDS
.PHONY: soak
soak: deps
	$(call drop-plan-if-library-files-changed,$(RUN_SCRATCH)/*/$(RUN_CONFIG)/description.json,$(RUN_SCRATCH)/library-files)
	$(DEMO_RUN_BUILD) --product cat-service
	SOAK_SECONDS=$(SOAK_SECONDS) Scripts/soak.sh "$$($(DEMO_RUN_BUILD) --show-bin-path)/cat-service"

# fuzz: the libFuzzer targets of Fuzz/ (a nested package, built with libFuzzer and AddressSanitizer)
# for the HTTP/1.1 parser, the router, h2c upgrade, Range and the HTTP/2 session; each runs for
# FUZZ_SECONDS (60) from a scratch copy of its seed corpus in Fuzz/.build/fuzz-work, and the first
# crash, timeout (5 s) or out-of-memory (2 GB) stops it with the reproducer's path. Not part of
# `make test`. E.g. `make fuzz FUZZ_SECONDS=600 FUZZ_TARGETS=FuzzRouter`. Fuzz/README.md has more.
# fuzz-replay: the seed corpus and Fuzz/Regressions once each, no fuzzing.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
.PHONY: fuzz fuzz-replay
fuzz: deps
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/fuzz.sh run $(FUZZ_TARGETS)

# schemathesis: a property-based tester (PyPI) drives cat-service from its own document, with
# --contract-check on; outside `make test` (random requests), bounded to two minutes.
schemathesis: build-demo
	bash Scripts/schemathesis.sh $(DEMO)/.build/$(TEST_CONFIG)/cat-service

fuzz-replay: deps
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL Fuzz/fuzz.sh replay $(FUZZ_TARGETS)
