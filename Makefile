# imgfetch: build, test, demo and install.
#
#   make              release build with the Swift runtime linked in (.build/static/release/imgfetch; it starts
#                     ~5 ms faster than one using the toolchain's shared libraries), installing missing packages first
#   make test         debug build, every test, then the ThreadSanitizer pass (test-tsan)
#   make demo         release build, then scripts/demo.sh against the bundled sample images
#   make install      static-stdlib release build installed under $(DESTDIR)$(PREFIX)
#   make man-check    the man page renders with no groff warnings
#   make bench        bench/run.sh
#   make fuzz         scripts/fuzz.sh, when it exists
#   make deps         install missing Debian packages (no-op when all are there)
#   make clean

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := all

# The Swift toolchain: `swift` on PATH, else the usual install location.
ifeq ($(origin SWIFT),undefined)
SWIFT := $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
endif
SWIFT_BUILD_FLAGS ?=

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR := $(DESTDIR)$(PREFIX)/bin
MANDIR := $(DESTDIR)$(PREFIX)/share/man/man1
# Shared libraries of our own (if a target ever becomes one) go here, beside nothing else.
LIBDIR := $(DESTDIR)$(PREFIX)/lib/imgfetch

# Separate scratch paths so the static and TSan builds never invalidate the everyday .build/debug and .build/release.
STATIC_SCRATCH := .build/static
TSAN_SCRATCH := .build/tsan
TSAN_FILTER ?= Concurrency

# Debian packages needed to build, test and demo (libvips-tools is not needed).
DEB_PACKAGES := libvips-dev libcurl4-openssl-dev pkg-config python3 openssl groff-base

.PHONY: all build debug deps test test-unit test-tsan demo install man-check bench fuzz clean check-swift

all: build

# --- dependencies ------------------------------------------------------------------------------------------

# Installs only what is missing; runs `apt-get update` once, and only when something is missing.
deps:
	@missing=""; \
	for p in $(DEB_PACKAGES); do \
	  status=$$(dpkg-query -W -f='$${db:Status-Abbrev}' "$$p" 2>/dev/null || true); \
	  case "$$status" in ii*) ;; *) missing="$$missing $$p" ;; esac; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing$$missing"; \
	  sudo=""; if [ "$$(id -u)" -ne 0 ]; then sudo="sudo"; fi; \
	  $$sudo apt-get update -q; \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	fi; \
	if ! pkg-config --exists vips libcurl; then \
	  echo "deps: pkg-config cannot find vips and libcurl even though their packages are installed" >&2; exit 1; \
	fi

check-swift:
	@if ! [ -x "$(SWIFT)" ] && ! command -v "$(SWIFT)" >/dev/null 2>&1; then \
	  echo "Swift toolchain not found (looked for swift on PATH and /opt/swift/usr/bin/swift); set SWIFT=/path/to/swift" >&2; \
	  exit 1; \
	fi

# --- building ----------------------------------------------------------------------------------------------

build: deps check-swift
	$(SWIFT) build -c release -Xswiftc -static-stdlib --scratch-path $(STATIC_SCRATCH) $(SWIFT_BUILD_FLAGS)
	@echo "built $(STATIC_SCRATCH)/release/imgfetch"

debug: deps check-swift
	$(SWIFT) build $(SWIFT_BUILD_FLAGS)

# --- tests -------------------------------------------------------------------------------------------------

# The end-to-end tests run .build/debug/imgfetch, so the debug binary is built before the tests.
test: test-unit
	@$(MAKE) --no-print-directory test-tsan

test-unit: debug
	$(SWIFT) build --build-tests $(SWIFT_BUILD_FLAGS)
	$(SWIFT) test --skip-build

# The in-process concurrency tests under ThreadSanitizer, in their own scratch path. When no test matches
# $(TSAN_FILTER) this says so and succeeds (swift test --filter with no match only warns, but we don't rely on it).
test-tsan: debug
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path $(TSAN_SCRATCH) $(SWIFT_BUILD_FLAGS)
	@tests=$$($(SWIFT) test list --skip-build --sanitize=thread --scratch-path $(TSAN_SCRATCH)); \
	if ! grep -qE '$(TSAN_FILTER)' <<<"$$tests"; then \
	  echo "test-tsan: no test matches '$(TSAN_FILTER)'; nothing to run under ThreadSanitizer"; \
	else \
	  supp=""; if [ -f .ci/tsan.supp ]; then supp="suppressions=$(CURDIR)/.ci/tsan.supp"; fi; \
	  echo "$(SWIFT) test --skip-build --sanitize=thread --scratch-path $(TSAN_SCRATCH) --filter '$(TSAN_FILTER)'"; \
	  TSAN_OPTIONS="halt_on_error=1 $$supp $${TSAN_OPTIONS:-}" \
	    $(SWIFT) test --skip-build --sanitize=thread --scratch-path $(TSAN_SCRATCH) --filter '$(TSAN_FILTER)'; \
	fi

# --- demo --------------------------------------------------------------------------------------------------

demo: build
	IMGFETCH=$(STATIC_SCRATCH)/release/imgfetch bash scripts/demo.sh

# --- install -----------------------------------------------------------------------------------------------

# A release binary with the Swift runtime and Foundation linked in, so it runs without the toolchain
# (it still needs the libvips and libcurl runtime packages, which the -dev packages pull in).
install: build
	install -d -m 0755 "$(BINDIR)" "$(MANDIR)"
	install -m 0755 "$(STATIC_SCRATCH)/release/imgfetch" "$(BINDIR)/imgfetch"
	install -m 0644 man/imgfetch.1 "$(MANDIR)/imgfetch.1"
	@libs=$$(find "$(STATIC_SCRATCH)/release/" -maxdepth 1 -name 'lib*.so' -type f 2>/dev/null); \
	if [ -n "$$libs" ]; then \
	  install -d -m 0755 "$(LIBDIR)"; \
	  for l in $$libs; do echo "install -m 0755 $$l $(LIBDIR)/"; install -m 0755 "$$l" "$(LIBDIR)/"; done; \
	fi
	@bad=$$(ldd "$(BINDIR)/imgfetch" | grep -E 'libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime|not found' || true); \
	if [ -n "$$bad" ]; then \
	  echo "install: $(BINDIR)/imgfetch still needs libraries from the Swift toolchain or missing ones:" >&2; \
	  echo "$$bad" >&2; exit 1; \
	fi
	@echo "installed $(BINDIR)/imgfetch (no Swift runtime libraries needed) and $(MANDIR)/imgfetch.1"

# --- checks and tools --------------------------------------------------------------------------------------

# groff must print nothing at all: any output is a warning.
man-check:
	@out=$$(groff -man -ww -z man/imgfetch.1 2>&1; groff -man -ww -z -Tutf8 man/imgfetch.1 2>&1); \
	if [ -n "$$out" ]; then echo "$$out" >&2; echo "man-check: groff warnings in man/imgfetch.1" >&2; exit 1; fi; \
	echo "man-check: man/imgfetch.1 renders without warnings"

bench: build
	bash bench/run.sh

fuzz:
	@if [ -f scripts/fuzz.sh ]; then \
	  bash scripts/fuzz.sh; \
	else \
	  echo "fuzz: not available (scripts/fuzz.sh does not exist yet)"; \
	fi

clean:
	rm -rf .build demo-output
