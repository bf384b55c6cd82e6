# afkit: build, test, benchmark and convert the bundled assets.
#
#   make          release build (installs the C libraries' -dev packages if pkg-config lacks them)
#   make test     build and run every test
#   make assets   convert Assets/ to CAF and validate the results as system sounds
#   make bench    run the benchmarks beside the reference tools
#   make bench-streams  N live 128 kbit/s ICY streams from a loopback server read in one process, against one
#                 FFmpeg process per stream (Benchmarks/Streams; BENCH_STREAMS_ARGS, e.g. --counts 100,1000;
#                 --kind hls: N live HLS playlists followed to their end, every segment counted)
#   make conformance  afkit over other projects' test files, each checked against FFmpeg (flac, libsndfile):
#                 CONFORMANCE_SOURCES holds folders or git directories, each optionally @subfolder
#                 (CONFORMANCE.md); AFKIT=PATH checks that binary instead of building one
#   make fuzz     fuzz every parser and decoder, FUZZ_SECONDS (600) per target; grows Fuzz/corpus
#   make fuzz-smoke  replay the committed corpus and regressions, then 20 s per target (CI)
#   make dist     dist/afkit-VERSION-linux-ARCH.tar.gz: the release binary, README, LICENSE, NOTICE, NEEDS
#                 (its Debian packages), the man pages and the bash, zsh and fish completions
#   make man      one man page a command (afkit.1, afkit.convert.1, ...) in build/man, from the release binary's own
#                 help (swift-argument-parser's generate-manual); read one with `man -l build/man/afkit.convert.1`
#   make lint     the toolchain's swift-format over the sources and tests, as .swift-format configures it
#   make prove-client  build Examples/ClientPackage against the products, one at a time, and run its proof
#   make prove-remote-exec  the Bazel example executed by BuildGrid with a worker, on loopback ports
#   make docs     the DocC archives of every library product (docs/), through swift-docc-plugin (a docc warning
#                 fails it), and the README's picture of an HTML report (Documentation/report.png, by headless
#                 Chromium)
#   make clean    remove build output

SWIFT        ?= swift
# Release builds link the Swift runtime and Foundation statically on Linux: afkit then starts in a
# quarter of the time (BENCHMARKS.md, process start), which a build running it per file feels.
RELEASE      := -c release $(if $(filter Linux,$(shell uname -s)),--static-swift-stdlib)
AFKIT        := .build/release/afkit
PKG_MODULES  := sndfile lame faad2 samplerate soxr libavcodec libebur128 libcurl flac opus vorbis vorbisenc zlib
DEB_PACKAGES := pkg-config libsndfile1-dev libmp3lame-dev libfaad-dev libsamplerate0-dev libsoxr-dev libavcodec-dev libebur128-dev libcurl4-openssl-dev libflac-dev libopus-dev libvorbis-dev zlib1g-dev
# make assets: one `afkit convert` per source (so make -j and make's own incremental logic work),
# then the outputs are validated with Apple's system-sound rules.
ASSET_PRESET ?= system-sound
ASSET_SOURCES := $(wildcard Assets/*.wav Assets/*.aif Assets/*.aiff Assets/*.aifc Assets/*.caf Assets/*.mp3)
ASSET_OUTPUTS := $(addprefix build/assets/,$(addsuffix .caf,$(basename $(notdir $(ASSET_SOURCES)))))

# libFuzzer targets (Fuzz/FuzzTargets.swift); checks shared with Tests/FuzzRegressionTests.
FUZZ_TARGETS := stream file codecs validator icy hls
FUZZ_SECONDS ?= 600
FUZZ_JOBS    ?= 2

.PHONY: all release test test-build test-deps test-venv assets bench bench-streams conformance clean deps fuzz fuzz-smoke fuzz-build dist install lint docs man prove-client \
	prove-remote-exec

all: release

# Install the system libraries once, only when pkg-config cannot find them.
deps:
	@if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists $(PKG_MODULES); then \
		echo "installing $(DEB_PACKAGES)"; \
		SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(DEB_PACKAGES); \
	fi

release: deps
	$(SWIFT) build $(RELEASE) --product afkit

# The tests need the libraries, Debian's bazel-bootstrap (the Bazel rules' proof), PostgreSQL (BuildGrid's
# scheduler, for the remote-execution proof) and the servers the
# network tests start on loopback (Icecast with the ezstream source client, nginx) and Chromium, headless, for
# the HTML report: one update, one install.
TEST_TOOLS := bazel:bazel-bootstrap icecast2:icecast2 ezstream:ezstream nginx:nginx-light chromium:chromium \
	ffmpeg:ffmpeg gst-launch-1.0:gstreamer1.0-tools
# The HLS players the packages are played in (HLSPlayerTests): FFmpeg, and GStreamer's hlsdemux2 (in Debian 12's
# plugins-good) with libav's AAC decoder.
GST_PLUGINS := gstreamer1.0-plugins-good gstreamer1.0-libav
test-deps:
	@missing=; \
	if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists $(PKG_MODULES); then missing="$(DEB_PACKAGES)"; fi; \
	for tool in $(TEST_TOOLS); do \
		PATH="$$PATH:/usr/sbin" command -v $${tool%%:*} >/dev/null 2>&1 || missing="$$missing $${tool#*:}"; done; \
	python3 -c 'import ensurepip' 2>/dev/null || missing="$$missing python3-venv"; \
	{ gst-inspect-1.0 hlsdemux2 && gst-inspect-1.0 avdec_aac; } >/dev/null 2>&1 || missing="$$missing $(GST_PLUGINS)"; \
	ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || missing="$$missing postgresql"; \
	if [ -n "$$missing" ]; then \
		echo "installing$$missing"; \
		SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

# mutagen (PyPI), the independent reader the round-trip tests read afkit's tags and pictures back with, in a
# virtual environment of its own (Debian's python3-venv gives `python3 -m venv` its pip).
VENV := .build-venv
test-venv: test-deps
	@$(VENV)/bin/python -c 'import mutagen' 2>/dev/null || { \
		rm -rf $(VENV) && python3 -m venv $(VENV) && $(VENV)/bin/pip install -q mutagen==1.47.0; }

# The tests run on an optimized build (with testable imports) in a folder of its own, so the release build
# is never rebuilt with other flags: the suites take a minute instead of six and a half (BENCHMARKS.md). The
# test targets themselves compile unoptimized (Package.swift's testSettings: a minute less of building).
TEST_BUILD := -c release --scratch-path .build-test
TEST_AFKIT := .build-test/release/afkit
# The network tests run on their own after the rest: they time servers and reconnections, and the
# rest keeps both cores' concurrency threads busy with long synchronous work.
NETWORK_TESTS := AudioStreamingTests|NetworkCommandTests|HLSPlayerTests
# The test build also checks that every module imports only what Package.swift declares for it.
TEST_FLAGS := -Xswiftc -enable-testing --explicit-target-dependency-import-check error
test-build: test-deps
	$(SWIFT) build $(TEST_BUILD) --build-tests $(TEST_FLAGS)
# Three groups side by side after the build (Tests/run-groups.sh): the suites; the Bazel proofs, which mostly wait
# on Bazel and BuildGrid; the client package's proof. (Started during the build instead, the client package's own
# build slowed the optimized one by more than it saved: 7 minutes against 6 on a fresh clone.)
test: test-deps test-venv test-build
	bash Tests/run-groups.sh \
		"$(SWIFT) test $(TEST_BUILD) --skip-build --skip '$(NETWORK_TESTS)' && $(SWIFT) test $(TEST_BUILD) --skip-build --filter '$(NETWORK_TESTS)'" \
		"timeout --foreground 900 bash Examples/bazel-assets/prove.sh $(TEST_AFKIT) && timeout --foreground 900 bash Examples/bazel-assets/prove-remote-cache.sh $(TEST_AFKIT) && timeout --foreground 900 bash Examples/bazel-assets/prove-remote-exec.sh $(TEST_AFKIT)" \
		"timeout --foreground 900 bash Examples/ClientPackage/prove.sh"

# The Bazel rules executed remotely: BuildGrid (PyPI, pinned), PostgreSQL and one worker on loopback ports.
# (--foreground: an interrupt from the terminal reaches the proof, which stops what it started.)
# (Only the binary, with the test build's flags: the same build, reused when `make test` made it.)
prove-remote-exec: test-deps
	$(SWIFT) build $(TEST_BUILD) --product afkit $(TEST_FLAGS)
	timeout --foreground 900 bash Examples/bazel-assets/prove-remote-exec.sh $(TEST_AFKIT)

# afkit's products as a client package uses them (Examples/ClientPackage): each links alone, and a program
# over them reads, seeks and validates as FFmpeg's references say.
prove-client: deps
	timeout --foreground 900 bash Examples/ClientPackage/prove.sh

assets: $(ASSET_OUTPUTS)
	$(AFKIT) validate --profile system-sound build/assets

$(AFKIT): release

build/assets/%.caf: Assets/%.wav | $(AFKIT) build/assets
	$(AFKIT) convert --preset $(ASSET_PRESET) $< $@
build/assets/%.caf: Assets/%.aif | $(AFKIT) build/assets
	$(AFKIT) convert --preset $(ASSET_PRESET) $< $@
build/assets/%.caf: Assets/%.aiff | $(AFKIT) build/assets
	$(AFKIT) convert --preset $(ASSET_PRESET) $< $@
build/assets/%.caf: Assets/%.aifc | $(AFKIT) build/assets
	$(AFKIT) convert --preset $(ASSET_PRESET) $< $@
build/assets/%.caf: Assets/%.mp3 | $(AFKIT) build/assets
	$(AFKIT) convert --preset $(ASSET_PRESET) $< $@

build/assets:
	mkdir -p $@

# Benchmarks need the reference tools too.
bench: release
	$(SWIFT) build $(RELEASE) --product afkit-codec-benchmarks
	@for tool in ffmpeg:ffmpeg lame:lame sox:sox sndfile-convert:sndfile-programs; do \
		command -v $${tool%%:*} >/dev/null 2>&1 || missing="$$missing $${tool#*:}"; done; \
	if [ -n "$$missing" ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; fi
	python3 Benchmarks/bench.py

# Many streams in one process (Benchmarks/Streams/bench-streams.py): FFmpeg makes the sources and is the reference.
BENCH_STREAMS_ARGS ?=
bench-streams:
	$(SWIFT) build $(RELEASE) --product afkit-stream-benchmark
	@command -v ffmpeg >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ffmpeg; }
	python3 Benchmarks/Streams/bench-streams.py $(BENCH_STREAMS_ARGS)

# Not run by CI: the sources are other projects' repositories, fetched first (CONFORMANCE.md). The default binary
# is built; one given as AFKIT=PATH is checked as it is. Results go to build/conformance.
CONFORMANCE_SOURCES ?=
conformance: $(if $(filter .build/release/afkit,$(AFKIT)),release)
	@for tool in ffmpeg:ffmpeg flac:flac sndfile-convert:sndfile-programs; do \
		command -v $${tool%%:*} >/dev/null 2>&1 || missing="$$missing $${tool#*:}"; done; \
	if [ -n "$$missing" ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; fi
	python3 Conformance/conformance.py --afkit $(AFKIT) --out build/conformance $(CONFORMANCE_SOURCES)

dist: release man
	bash Packaging/dist.sh $(AFKIT) dist $(MAN_DIR)

# make install [PREFIX=/usr/local] [DESTDIR=...]: the stripped binary in PREFIX/bin, the man pages and the bash,
# zsh and fish completions where each looks (Packaging/install.sh; it says when PREFIX/bin is not on PATH).
PREFIX ?= /usr/local
install: release man
	bash Packaging/install.sh $(AFKIT) "$(DESTDIR)$(PREFIX)" $(MAN_DIR)

# The man pages, generated from the commands' abstracts, discussions and option help by swift-argument-parser's
# generate-manual tool (what its plugin runs), built beside the release binary and run on it (it reads the
# binary's --experimental-dump-help): `make install` and `make dist` build afkit once, in release, where the plugin
# built the whole package again in debug (8 minutes on a 2-core machine) or in release without the release
# build's flags (relinking the binary). One page a command, as `man -l` and `man` read them.
MAN_DIR := build/man
GENERATE_MANUAL := .build/release/generate-manual
man: release
	$(SWIFT) build $(RELEASE) --product generate-manual
	rm -rf $(MAN_DIR) && mkdir -p $(MAN_DIR)
	$(GENERATE_MANUAL) $(AFKIT) --multi-page --output-directory $(MAN_DIR)
	# A discussion's blank line (a paragraph break) becomes mdoc's paragraph macro, which groff reads without a warning.
	sed -i 's/^$$/.Pp/' $(MAN_DIR)/*.1
	# A command's page is afkit-COMMAND, as git's are (man afkit-convert); the tool names them afkit.COMMAND.
	for page in $(MAN_DIR)/afkit.*.1; do mv "$$page" "$(MAN_DIR)/afkit-$${page##*/afkit.}"; done
	sed -i -e 's/^\.Xr afkit\./.Xr afkit-/' -e 's/^\.Dt AFKIT\./.Dt AFKIT-/' $(MAN_DIR)/*.1
	@ls $(MAN_DIR)

# Lint fails on any finding: formatting (what `swift format format -i` would change) and the rules
# .swift-format turns on (no force unwrap, no force try).
LINT_PATHS := Package.swift Sources Tests Benchmarks Fuzz Examples/ClientPackage Examples/StreamMonitor
lint:
	$(SWIFT) format lint --strict --recursive --parallel $(LINT_PATHS)

# Every library product's catalog (Sources/PRODUCT/Documentation.docc), built with docc's --warnings-as-errors:
# a link that resolves to nothing (in a catalog or a doc comment) fails the build. A doc comment links only to
# its own module's symbols (``Symbol``); another module's are named in code voice (`AudioFile`).
DOC_TARGETS := AudioFormats FileAccess AudioContainers AudioCodecs AudioDecoding AssetValidation AudioEngines \
	AudioConversion AudioStreaming AudioFileKit AudioToolboxCompat
docs:
	mkdir -p docs
	for target in $(DOC_TARGETS); do \
		$(SWIFT) package --allow-writing-to-directory docs generate-documentation --target $$target \
			--disable-indexing --warnings-as-errors --output-path docs/$$target || exit 1; done
	@command -v chromium >/dev/null 2>&1 || $(MAKE) test-deps
	$(MAKE) release
	sh Documentation/make-report-screenshot.sh $(AFKIT)

fuzz-build:
	bash Fuzz/build.sh .build-fuzz/afkit-fuzz

fuzz: fuzz-build
	AFKIT_FUZZ_JOBS=$(FUZZ_JOBS) Fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-smoke: fuzz-build
	AFKIT_FUZZ_JOBS=2 AFKIT_FUZZ_KEEP_CORPUS=1 Fuzz/run.sh 20 $(FUZZ_TARGETS)

clean:
	rm -rf .build .build-test .build-fuzz .build-buildgrid build dist docs
