# afkit: build, test, benchmark and convert the bundled assets.
#
#   make          release build (installs the C libraries' -dev packages if pkg-config lacks them)
#   make test     build and run every test
#   make assets   report (and, once the converter lands, convert and validate) Assets/
#   make bench    run the benchmarks beside the reference tools
#   make clean    remove build output

SWIFT        ?= swift
AFKIT        := .build/release/afkit
PKG_MODULES  := sndfile lame faad2 samplerate soxr
DEB_PACKAGES := pkg-config libsndfile1-dev libmp3lame-dev libfaad-dev libsamplerate0-dev libsoxr-dev
ASSETS       := $(wildcard Assets/*.wav Assets/*.aif Assets/*.aiff Assets/*.aifc Assets/*.caf Assets/*.mp3)

.PHONY: all release test assets bench clean deps

all: release

# Install the system libraries once, only when pkg-config cannot find them.
deps:
	@if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists $(PKG_MODULES); then \
		echo "installing $(DEB_PACKAGES)"; \
		SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(DEB_PACKAGES); \
	fi

release: deps
	$(SWIFT) build -c release --product afkit

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

assets: release
	@status=0; for f in $(ASSETS); do $(AFKIT) info "$$f" || status=1; done; exit $$status

# Benchmarks need the reference tools too.
bench: release
	$(SWIFT) build -c release --product afkit-codec-benchmarks
	@command -v ffmpeg >/dev/null 2>&1 && command -v lame >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ffmpeg lame; }
	python3 Benchmarks/bench.py

clean:
	rm -rf .build build
