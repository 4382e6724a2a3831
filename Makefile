# HumChess. `make help` lists the targets.
SHELL := /bin/bash
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
ORT_DIR := $(CURDIR)/build/onnxruntime
ORT_LIB := $(ORT_DIR)/libonnxruntime.so.1
export ONNXRUNTIME_SHARED_LIBRARY_PATH ?= $(ORT_LIB)

.PHONY: help check check-engine build run install test test-engine test-short bench onnxruntime fmt vet gotch train-build train-test train-bench

help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

check: ## check the prerequisites of every target (Go, npm, g++, libtorch, OpenBLAS, jemalloc) and say what to install
	@./scripts/check-prereqs.sh train && echo "all prerequisites found"

check-engine: ## check the prerequisites of the engine's targets (Go, npm)
	@./scripts/check-prereqs.sh engine && echo "engine prerequisites found"

onnxruntime: $(ORT_LIB) ## install the ONNX Runtime 1.24.1 shared library into build/onnxruntime (from npm, sha256-checked)

$(ORT_LIB):
	./scripts/install-onnxruntime.sh $(ORT_DIR)

BUILD_NOTE := (a first build compiles every dependency, ONNX Runtime's cgo bindings included: about 2 minutes on 2 cores; later builds take seconds)

build: ## build bin/humchess
	@./scripts/check-prereqs.sh engine
	@echo "building bin/humchess $(BUILD_NOTE)"
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/humchess ./cmd/humchess

.PHONY: build-embed
build-embed: onnxruntime ## build bin/humchess-embed: one file with the ONNX Runtime library inside (-tags ortembed)
	@./scripts/check-prereqs.sh engine
	mkdir -p nets/ort/embedded
	cp $(ORT_LIB) nets/ort/embedded/libonnxruntime.so.1
	@echo "building bin/humchess-embed $(BUILD_NOTE)"
	$(GO) build -tags ortembed -ldflags "$(LDFLAGS)" -o bin/humchess-embed ./cmd/humchess

RELEASE_DIR ?= build/release
.PHONY: release
release: ## cross-build one self-contained executable per platform (Linux amd64/arm64, Windows amd64, macOS arm64) and SHA256SUMS into RELEASE_DIR (build/release)
	VERSION=$(VERSION) GO=$(GO) ./scripts/release.sh $(RELEASE_DIR)

PREFIX ?= $(HOME)/.local
install: build-embed ## install the single-file engine as PREFIX/bin/humchess (PREFIX default ~/.local; PREFIX=/usr/local with sudo)
	install -D -m 0755 bin/humchess-embed $(DESTDIR)$(PREFIX)/bin/humchess
	@echo "installed $(DESTDIR)$(PREFIX)/bin/humchess"

run: build onnxruntime ## run the engine (UCI on stdin/stdout) on its embedded net
	@echo "bin/humchess speaks UCI on stdin/stdout: try uci, isready, position startpos, go wtime 60000 btime 60000, quit" >&2
	./bin/humchess

test: ## run all tests, the engine's and the trainer's (the README's test command; the trainer needs libtorch-dev)
	@./scripts/check-prereqs.sh train
	$(MAKE) onnxruntime
	$(GO) vet ./...
	$(GO) test ./...
	$(MAKE) train-test

test-engine: ## run the engine module's tests only (no libtorch needed)
	@./scripts/check-prereqs.sh engine
	$(MAKE) onnxruntime
	$(GO) vet ./...
	$(GO) test ./...

test-short: ## run the quick tests only
	$(GO) test -short ./...

.PHONY: lichess-bot-test
lichess-bot-test: build onnxruntime ## play bullet and blitz games through lichess-bot (../shared/tools/lichess-bot), pondering on and off; fails on an illegal move, a flag, a hang or an engine error line
	./scripts/ci-lichess-bot.sh bin/humchess

bench: ## run the benchmarks
	$(GO) test -run '^$$' -bench . -benchmem ./...

NET ?=
.PHONY: bench-signature
bench-signature: build ## print `humchess bench` timings and its Bench signature (NET=file; default: the embedded net)
	./bin/humchess bench $(if $(NET),-net $(NET))

fmt: ## gofmt everything
	gofmt -w $$(git ls-files '*.go')

gotch: build/gotch/.stamp ## patch gotch v0.9.1 for the local libtorch into build/gotch and build it (needs libtorch-dev)

build/gotch/.stamp: scripts/patch-gotch.sh
	./scripts/patch-gotch.sh build/gotch

TRAIN_ENV := OPENBLAS_NUM_THREADS=$${OPENBLAS_NUM_THREADS:-$$(nproc)} OMP_NUM_THREADS=$${OMP_NUM_THREADS:-1} LD_PRELOAD=$${LD_PRELOAD:-/usr/lib/x86_64-linux-gnu/libjemalloc.so.2} MALLOC_CONF=$${MALLOC_CONF:-dirty_decay_ms:-1,muzzy_decay_ms:-1}

train-build: gotch ## build bin/humchess-train (the gotch trainer)
	cd cmd/humchess-train && $(GO) build -ldflags "$(LDFLAGS)" -o ../../bin/humchess-train .

train-test: gotch onnxruntime ## test the trainer (train/torch, cmd/humchess-train) on CPU
	cd train/torch && $(GO) vet ./... && env $(TRAIN_ENV) $(GO) test -timeout 15m ./...
	cd cmd/humchess-train && $(GO) vet ./... && env $(TRAIN_ENV) $(GO) test ./...

train-bench: gotch ## time a training step of the default config on this machine
	cd train/torch && env $(TRAIN_ENV) $(GO) test -run '^$$' -bench BenchmarkTrainStep -benchtime 3x .

PGN ?=
SHARDS ?= shards

.PHONY: prep prep-bench
prep: build ## PGN to training shards: make prep PGN="a.pgn.zst b.pgn.zst" SHARDS=dir [PREP_FLAGS=-force]
	@test -n "$(PGN)" || { echo 'usage: make prep PGN="games.pgn.zst ..." [SHARDS=dir]'; exit 2; }
	./bin/humchess prep -o $(SHARDS) $(PREP_FLAGS) $(PGN)

prep-bench: ## time PGN to shards (1 worker and all cores) with a CPU profile in prep-cpu.out
	$(GO) test -run '^$$' -bench Prep -benchtime 1x -cpuprofile prep-cpu.out ./train/data/prep/

.PHONY: board-golden
board-golden: ## regenerate the board encoder and vocabulary golden files (testdata/board/*.golden)
	$(GO) test ./board -run 'Golden' -update

.PHONY: uci-transcripts
uci-transcripts: ## regenerate the UCI transcripts' expected output (testdata/uci/*.out); read the diff
	$(GO) test ./cmd/humchess -run 'Transcripts' -update

MAIA_DIR ?= $(CURDIR)/../shared/maia
EVAL_PGN ?= $(CURDIR)/testdata/games/lichess-2022-06-2500.pgn.zst

.PHONY: eval-maia
eval-maia: build ## move matching of every Maia net (and maia-auto) on the validation games of EVAL_PGN, into eval-out/
	mkdir -p eval-out
	./bin/humchess eval -split validation -net maia-auto=$(MAIA_DIR) $(foreach b,1100 1200 1300 1400 1500 1600 1700 1800 1900,-net maia-$(b)=$(MAIA_DIR)/maia-$(b).pb.gz) \
		-csv eval-out/maia.csv -plots eval-out -dims all,rating $(EVAL_PGN) | tee eval-out/maia.txt
