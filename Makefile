# The two commands a newcomer needs: `make demo` and `make test`.
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/devlearn/devlearn/internal/hookcmd.version=$(VERSION)
BIN     := bin/devlearn
HOOKBIN := bin/devlearn-hook
GOFILES  = $(shell find cmd internal templates -name '*.go' 2>/dev/null)

.PHONY: all build test demo bench fuzz fmt clean

all: build

# devlearn, and devlearn-hook: the hooks and the status line in a binary
# that links nothing else, so that every tool call starts fast.
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/devlearn
	$(GO) build -ldflags "$(LDFLAGS)" -o $(HOOKBIN) ./cmd/devlearn-hook

# Every test, with the race detector, after a gofmt check and go vet.
test:
	@out=$$(gofmt -l $(GOFILES)); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

# devlearn's main job, on the sample project embedded in the binary.
demo: build
	./$(BIN) demo

# Benchmarks of every hot path; see docs/benchmarks.md for what each measures.
bench:
	@./scripts/bench.sh

# Each fuzz target, briefly (FUZZTIME=1m make fuzz for longer).
fuzz:
	@./scripts/fuzz.sh

fmt:
	gofmt -w $(GOFILES)

clean:
	rm -rf bin
