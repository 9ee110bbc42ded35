# The two commands a newcomer needs: `make demo` and `make test`.
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/devlearn/devlearn/internal/hookcmd.version=$(VERSION)
BIN     := bin/devlearn
HOOKBIN  = $(dir $(BIN))devlearn-hook
GOFILES  = $(shell find cmd internal templates -name '*.go' 2>/dev/null)

.PHONY: all build install test demo bench fuzz eval eval-llm fmt clean plugin

all: build

# devlearn, and devlearn-hook: the hooks and the status line in a binary
# that links nothing else, so that every tool call starts fast.
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/devlearn
	$(GO) build -ldflags "$(LDFLAGS)" -o $(HOOKBIN) ./cmd/devlearn-hook

# Where `make install` puts devlearn and devlearn-hook (side by side: the
# hook starts the worker from the devlearn beside it): Go's own bin folder,
# made if missing.
INSTALL_DIR ?= $(shell $(GO) env GOBIN)
ifeq ($(INSTALL_DIR),)
INSTALL_DIR := $(shell $(GO) env GOPATH)/bin
endif

install: build
	mkdir -p "$(INSTALL_DIR)"
	cp $(BIN) "$(INSTALL_DIR)/devlearn"
	cp $(HOOKBIN) "$(INSTALL_DIR)/devlearn-hook"
	@case ":$$PATH:" in *":$(INSTALL_DIR):"*) ;; *) echo "note: $(INSTALL_DIR) is not on your PATH: add it, or the hooks find no devlearn";; esac

# Every test, with the race detector, after a gofmt check and go vet, in a
# home folder of its own (scripts/test.sh fails a test that writes there).
test:
	@out=$$(gofmt -l $(GOFILES)); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@GO=$(GO) ./scripts/test.sh

# The Claude Code plugin (plugin/) and its marketplace file, rebuilt from
# devlearn's hooks; 'make test' fails while they are not current.
plugin:
	$(GO) test -count=1 ./internal/plugin -update
	$(GO) test -count=1 ./internal/plugin

# devlearn's main job, on the sample project embedded in the binary.
demo: build
	./$(BIN) demo

# Benchmarks of every hot path; see docs/benchmarks.md for what each measures.
bench:
	@./scripts/bench.sh

# Measured figures of what devlearn learns and serves: capture on genuine
# sessions through the built binary (testdata/genuine: recall by kind and
# language, noise, precision, promotion, merges; the pointer-only sessions
# too when DEVLEARN_GENUINE_DIR holds them, see scripts/genuine-fetch.sh),
# then the hand-written set (testdata/eval; docs/capture.md), then the
# serving replays (docs/serve.md, "Replays").
# The three tools are built in one go build (one compile of what they share,
# linked in parallel) rather than three go runs, one after the other.
eval: build
	$(GO) build -o bin/eval/ ./internal/eval/genuine/cmd/evalgenuine ./internal/eval/genuine/cmd/recorded ./internal/eval/capture/cmd/evalcapture ./internal/eval/replay/cmd/replay
	bin/eval/evalgenuine -devlearn $(BIN) -before testdata/genuine/before.json
	bin/eval/evalcapture -before testdata/eval/before.json
	bin/eval/replay

# The LLM route on the genuine sessions, its model's answers recorded
# beforehand (docs/capture.md, "The LLM route on genuine sessions"), a
# session read after its project's earlier ones answered for the lessons
# it was shown of them (recorded -seen): by
# default the committed answers for the sessions kept in the repository;
# LLM_ANSWERS names a folder of one's own (and DEVLEARN_GENUINE_DIR the
# pointer-only sessions it answers).
LLM_ANSWERS ?= $(CURDIR)/testdata/genuine/llm/answers
eval-llm: build
	$(GO) build -o bin/eval/ ./internal/eval/genuine/cmd/evalgenuine ./internal/eval/genuine/cmd/recorded
	@printf '{"extractor":{"llm":true,"command":["%s","-seen","%s"]}}\n' "$(CURDIR)/bin/eval/recorded" "$(LLM_ANSWERS)" > bin/eval/llm-config.json
	bin/eval/evalgenuine -devlearn $(BIN) -config bin/eval/llm-config.json

# Each fuzz target, briefly (FUZZTIME=1m make fuzz for longer).
fuzz:
	@./scripts/fuzz.sh

fmt:
	gofmt -w $(GOFILES)

clean:
	rm -rf bin
