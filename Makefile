# crdguard. `make help` lists the targets.

GO        ?= go
TOOLS     := sh hack/tools/install.sh
# Packages whose tests start kube-apiserver and etcd (envtest); make unit
# runs every other package.
APISERVER_PKGS := /internal/localcluster /test/e2e /test/reliability /test/chart
# Packages whose tests are cheap enough to run under the race detector.
RACE_PKGS := ./pkg/schema/ ./pkg/manifest/ ./pkg/policies/... ./pkg/audit/ ./internal/webhook/ ./internal/auditor/ ./internal/selfsigned/ ./cmd/crdguard/... ./cmd/webhook/...
FUZZTIME  ?= 30s
BENCHTIME ?= 2s

.DEFAULT_GOAL := help

.PHONY: help
help: ## List the targets.
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-10s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: build
build: ## Build bin/crdguard.
	$(GO) build -trimpath -o bin/crdguard ./cmd/crdguard

.PHONY: tools
tools: ## Build kube-apiserver, etcd, kubectl, kubeconform, controller-gen and helm into bin/ (first time ~10 min).
	$(TOOLS) all >/dev/null

.PHONY: unit
unit: ## Run every test that needs no API server (no tools to build): the fast loop.
	$(GO) test $$($(GO) list ./... | grep -v $(foreach p,$(APISERVER_PKGS),-e '$(p)'))

# -update is defined by internal/golden: only the packages whose tests
# import it accept the flag.
.PHONY: update-golden
update-golden: ## Rewrite every golden file from the current output (go test -update); review them with git diff.
	$(GO) test $$($(GO) list -f '{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}' ./... | awk '/ github.com\/crdguard\/crdguard\/internal\/golden( |$$)/ {print $$1}') -update

.PHONY: test
test: tools ## Run every test: unit, parity corpus, fuzz seeds, race, real kube-apiserver.
	KUBEBUILDER_ASSETS="$$($(TOOLS) envtest)" $(GO) test ./...
	$(GO) test -race $(RACE_PKGS)

# CRDs and AdmissionReviews are large inputs: minimizing each new one for
# the default 60s would leave no time to fuzz.
.PHONY: fuzz
fuzz: ## Fuzz every target (decoding, validation, policies, image references, CRD diff, AdmissionReviews) for FUZZTIME each.
	$(GO) test ./pkg/manifest/ -run '^$$' -fuzz FuzzRead -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/schema/ -run '^$$' -fuzz FuzzValidate -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/policies/ -run '^$$' -fuzz FuzzEvaluate -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/policies/ -run '^$$' -fuzz FuzzImageVersion -fuzztime $(FUZZTIME)
	$(GO) test ./pkg/schema/diff/ -run '^$$' -fuzz FuzzCompare -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./internal/webhook/ -run '^$$' -fuzz FuzzAdmissionReview -fuzztime $(FUZZTIME) -fuzzminimizetime 5s

# The go test benchmarks go to bench/results/gotest.txt, summarised by
# benchstat (which needs 6 runs for a confidence interval); then ./bench
# runs the families side by side and writes bench/results/results.md and
# latency.png.
.PHONY: bench
bench: tools ## Benchmarks: go test -bench (benchstat), then webhook vs controller-runtime and net/http, end to end through kube-apiserver (none, VAP, webhook), scale, CLI vs kubeconform, into bench/results/.
	mkdir -p bench/results
	$(GO) test ./pkg/schema/ ./pkg/schema/diff/ ./pkg/policies/ ./pkg/policies/vap/ ./internal/webhook/ -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) -count 6 > bench/results/gotest.txt
	BS="$$($(TOOLS) benchstat)" && $$BS bench/results/gotest.txt | tee bench/results/benchstat.txt
	KUBEBUILDER_ASSETS="$$($(TOOLS) envtest)" $(GO) run ./bench $(BENCHARGS)

.PHONY: generate
generate: ## Regenerate the GuardPolicy deepcopy functions and CRD with controller-gen; copy the OpenReports CRDs and the example GuardPolicy into the chart.
	CG="$$($(TOOLS) controller-gen)" && $$CG object paths=./pkg/apis/... && \
		$$CG crd paths=./pkg/apis/... output:crd:artifacts:config=config/crd/bases
	cp config/crd/bases/crdguard.dev_guardpolicies.yaml pkg/apis/crdguard/v1alpha1/crd.yaml
	cp config/crd/bases/crdguard.dev_guardpolicies.yaml charts/crdguard/crds/crdguard.dev_guardpolicies.yaml
	cp examples/mysql/policy.yaml charts/crdguard/files/mysql-safety.yaml
	OR="$$($(TOOLS) module github.com/openreports/reports-api)" && \
		for dir in charts/crdguard/crds config/crd/openreports; do \
			install -D -m 0644 -t $$dir "$$OR/config/crd/openreports.io_reports.yaml" "$$OR/config/crd/openreports.io_clusterreports.yaml" || exit 1; \
		done

.PHONY: lint-api
lint-api: generate ## Lint the GuardPolicy Go types against the CRD generated from them; warnings fail too.
	$(GO) run ./cmd/crdguard lint --fail-on warning --crds config/crd/bases ./pkg/apis/...

.PHONY: verify
verify: generate lint-api ## Fail on gofmt, go vet, untidy go.mod, stale generated files, lint-api findings or config/ drifting from the chart.
	@git diff --exit-code -- pkg/apis config/crd charts/crdguard/crds charts/crdguard/files || { echo "generated files are stale: run make generate and commit"; exit 1; }
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet ./...
	$(GO) mod tidy -diff
	cd hack/tools && $(GO) mod tidy -diff
	cd hack/tools/corpora && $(GO) mod tidy -diff
	cd hack/tools/corpora-previous && $(GO) mod tidy -diff
	cd hack/tools/helm && $(GO) mod tidy -diff
	cd hack/tools/benchstat && $(GO) mod tidy -diff
	KUBEBUILDER_ASSETS="$$($(TOOLS) envtest)" $(GO) test -count=1 -run '^TestKustomize' ./test/chart/

.PHONY: demo
demo: ## Run the webhook behind a real kube-apiserver and show kubectl's verdicts on examples/mysql.
	$(GO) run ./hack/demo
