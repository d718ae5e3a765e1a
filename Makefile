# crdguard. `make help` lists the targets by section: a `##@` line starts
# a section, and a target's `##` comment is its line there.

GO        ?= go
TOOLS     := sh hack/tools/install.sh
# Packages whose tests start kube-apiserver and etcd (envtest); make unit
# runs every other package.
APISERVER_PKGS := /internal/localcluster /test/e2e /test/reliability /test/chart
# Packages whose tests are cheap enough to run under the race detector.
RACE_PKGS := ./pkg/schema/ ./pkg/manifest/ ./pkg/policies/... ./pkg/audit/ ./internal/webhook/ ./internal/cluster/ ./internal/auditor/ ./internal/selfsigned/ ./cmd/crdguard/... ./cmd/crdguard-webhook/...
# The modules besides crdguard's: those that pin the tools, one per tool or
# group of tools, and hack/image (the release's container image).
TOOLS_MODULES := $(patsubst %/go.mod,%,$(wildcard hack/tools/go.mod hack/tools/*/go.mod hack/image/go.mod))
FUZZTIME  ?= 30s
BENCHTIME ?= 2s

.DEFAULT_GOAL := help

##@ General

# Prints each `##@` line as a heading and each `target: ## text` line as
# the target and its text.
.PHONY: help
help: ## List the targets, by section.
	@awk 'BEGIN { FS = ":.*## "; print "Usage: make <target> [VAR=value ...]" } \
		/^##@ / { printf "\n%s\n", substr($$0, 5) } \
		/^[a-zA-Z0-9_-]+:.*## / { printf "  %-14s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

##@ Development

# controller-gen writes the GuardPolicy deepcopy functions and CRD; the
# CRD, the OpenReports CRDs and the example GuardPolicy are then copied to
# where the library, the chart and config/ read them.
.PHONY: generate
generate: ## Regenerate the GuardPolicy code and CRD, and their copies in the chart.
	CG="$$($(TOOLS) controller-gen)" && $$CG object paths=./pkg/apis/... && \
		$$CG crd paths=./pkg/apis/... output:crd:artifacts:config=config/crd/bases
	cp config/crd/bases/crdguard.dev_guardpolicies.yaml pkg/apis/crdguard/v1alpha1/crd.yaml
	cp config/crd/bases/crdguard.dev_guardpolicies.yaml charts/crdguard/crds/crdguard.dev_guardpolicies.yaml
	cp examples/mysql/policy.yaml charts/crdguard/files/mysql-safety.yaml
	OR="$$($(TOOLS) module github.com/openreports/reports-api)" && \
		for dir in charts/crdguard/crds config/crd/openreports; do \
			install -D -m 0644 -t $$dir "$$OR/config/crd/openreports.io_reports.yaml" "$$OR/config/crd/openreports.io_clusterreports.yaml" || exit 1; \
		done

# golangci-lint at the version hack/tools pins, with .golangci.yml: the
# linters chosen there and depguard's rules for what each of pkg/,
# internal/ and cmd/ may import.
.PHONY: lint
lint: ## Run golangci-lint on the tree (built into bin/ the first time).
	GL="$$($(TOOLS) golangci-lint)" && $$GL run --allow-parallel-runners ./...

.PHONY: lint-api
lint-api: generate ## Lint the GuardPolicy Go types against their CRD; warnings fail too.
	$(GO) run ./cmd/crdguard lint --fail-on warning --crds config/crd/bases ./pkg/apis/...

# What CI checks besides the tests (.ci/run runs it before make test).
.PHONY: verify
verify: generate lint-api lint ## Fail on stale generated files, gofmt, go vet, lint, lint-api, untidy go.mod or config/ drift.
	@git diff --exit-code -- pkg/apis config/crd charts/crdguard/crds charts/crdguard/files || { echo "generated files are stale: run make generate and commit"; exit 1; }
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet ./...
	$(GO) mod tidy -diff
	@for mod in $(TOOLS_MODULES); do \
		echo "cd $$mod && $(GO) mod tidy -diff"; (cd $$mod && $(GO) mod tidy -diff) || exit 1; \
	done
	KUBEBUILDER_ASSETS="$$($(TOOLS) envtest)" $(GO) test -count=1 -run '^TestKustomize' ./test/chart/

.PHONY: demo
demo: ## Run the webhook behind a real kube-apiserver and show kubectl's verdicts on examples/mysql.
	$(GO) run ./hack/demo

##@ Testing

.PHONY: unit
unit: ## Run the tests that need no API server (nor any tool built): the fast loop.
	$(GO) test $$($(GO) list ./... | grep -v $(foreach p,$(APISERVER_PKGS),-e '$(p)'))
	$(GO) -C hack/image test ./...

# -update is defined by internal/golden: only the packages whose tests
# import it accept the flag.
.PHONY: update-golden
update-golden: ## Rewrite every golden file from the current output (go test -update); review them with git diff.
	$(GO) test $$($(GO) list -f '{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}' ./... | awk '/ github.com\/crdguard\/crdguard\/internal\/golden( |$$)/ {print $$1}') -update

# The policy library's suites run against their operators' CRDs from the
# module proxy, through the CLI's --crds: ./policies/ (go test runs it
# here, and in make test with ./...).
.PHONY: policies
policies: ## Run the policy library's suites (policies/) against the operators' real CRDs.
	$(GO) test -count=1 ./policies/

# The example's test suite runs as a user runs it, through the CLI; the
# library's suites run in go test ./... (./policies/, as make policies).
# test/e2e runs every compiled policy and fieldValidation mode on the real
# API server, and the compiler's golden cases run under -race: on two busy
# cores each can take longer than go test's default 10m. test/e2e also
# runs kube-controller-manager's storage version migrator, which install.sh
# builds beside envtest's binaries; make tools does not build it.
.PHONY: test
test: tools ## Run every test: unit, corpora, fuzz seeds, race, real kube-apiserver, the example's and the policy library's suites (what CI runs).
	$(TOOLS) kube-controller-manager >/dev/null
	KUBEBUILDER_ASSETS="$$($(TOOLS) envtest)" $(GO) test -timeout 30m ./...
	$(GO) -C hack/image test ./...
	$(GO) test -race -timeout 30m $(RACE_PKGS)
	$(GO) run ./cmd/crdguard test examples/mysql

# The targets: decoding, validation, the JSON report's stored objects,
# the fast schema check against kube-openapi, policies, image references,
# test suites, CRD diff, AdmissionReviews. CRDs
# and AdmissionReviews are large inputs: minimizing each new one for the
# default 60s would leave no time to fuzz.
.PHONY: fuzz
fuzz: ## Fuzz every fuzz target for FUZZTIME each (default 30s).
	$(GO) test ./pkg/manifest/ -run '^$$' -fuzz FuzzRead -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/manifest/ -run '^$$' -fuzz FuzzBlockYAML -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/manifest/ -run '^$$' -fuzz FuzzFieldPositions -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/manifest/ -run '^$$' -fuzz FuzzListItemByItem -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/report/ -run '^$$' -fuzz FuzzJSONObject -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/schema/ -run '^$$' -fuzz FuzzValidate -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/schema/ -run '^$$' -fuzz FuzzFastSchema -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./pkg/schema/ -run '^$$' -fuzz FuzzFastCEL -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./pkg/policies/ -run '^$$' -fuzz FuzzEvaluate -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/policies/ -run '^$$' -fuzz FuzzImageVersion -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/policies/ -run '^$$' -fuzz FuzzApprovalGrammar -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/policies/internal/rules/ -run '^$$' -fuzz FuzzVersionPattern -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/testsuite/ -run '^$$' -fuzz FuzzDecode -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/schema/diff/ -run '^$$' -fuzz FuzzCompare -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./internal/webhook/ -run '^$$' -fuzz FuzzAdmissionReview -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./internal/webhook/ -run '^$$' -fuzz FuzzFastDecodeReview -fuzztime $(FUZZTIME) -fuzzminimizetime 5s

# The go test benchmarks go to bench/results/gotest.txt, summarised by
# benchstat (which needs 6 runs for a confidence interval); then ./bench
# runs the families side by side: the webhook against controller-runtime
# and net/http, end to end through kube-apiserver (none, VAP, webhook),
# scale, and the CLI against kubeconform. It writes
# bench/results/results.md and latency.png.
.PHONY: bench
bench: tools ## Run the benchmarks into bench/results/ (BENCHTIME, BENCHARGS).
	mkdir -p bench/results
	$(GO) test ./pkg/manifest/ ./pkg/schema/ ./pkg/schema/diff/ ./pkg/report/ ./pkg/policies/ ./pkg/policies/vap/ ./internal/webhook/ ./internal/cluster/ -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) -count 6 > bench/results/gotest.txt
	BS="$$($(TOOLS) benchstat)" && $$BS bench/results/gotest.txt | tee bench/results/benchstat.txt
	KUBEBUILDER_ASSETS="$$($(TOOLS) envtest)" $(GO) run ./bench $(BENCHARGS)

##@ Build

# One line per main package. The demo and the benchmark harness run from
# the repository root, as make demo and make bench run them.
.PHONY: build
build: ## Build every binary into bin/: crdguard, kubectl-crdguard, crdguard-webhook, crdguard-demo, crdguard-bench.
	$(GO) build -trimpath -o bin/crdguard ./cmd/crdguard
	$(GO) build -trimpath -o bin/kubectl-crdguard ./cmd/kubectl-crdguard
	$(GO) build -trimpath -o bin/crdguard-webhook ./cmd/crdguard-webhook
	$(GO) build -trimpath -o bin/crdguard-demo ./hack/demo
	$(GO) build -trimpath -o bin/crdguard-bench ./bench

##@ Release

# goreleaser (.goreleaser.yaml) and cyclonedx-gomod, its SBOM command, are
# built into bin/ the first time (~8 min); make tools builds neither. The
# image is written after goreleaser, from the linux binaries it built.
.PHONY: release-snapshot
release-snapshot: ## Build a release locally into dist/: archives, checksums.txt, SBOMs, Krew manifest, image layout.
	GR="$$($(TOOLS) goreleaser)" && CG="$$($(TOOLS) cyclonedx-gomod)" && \
		PATH="$$(dirname "$$CG"):$$PATH" $$GR release --snapshot --clean
	$(GO) -C hack/image run . -dist "$(CURDIR)/dist"

##@ Tools

# hack/tools/install.sh builds each from the Go module proxy at the
# version its go.mod pins, once: kube-apiserver, etcd, kubectl,
# kubeconform, controller-gen, helm, benchstat and golangci-lint.
.PHONY: tools
tools: ## Build the pinned tools into bin/ (the first time takes ~10 min).
	$(TOOLS) all >/dev/null
