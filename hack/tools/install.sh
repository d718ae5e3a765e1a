#!/bin/sh
# Builds pinned server/CLI binaries from the Go module proxy into <repo>/bin,
# cached by version: a binary that already exists is not rebuilt. Progress
# goes to stderr; stdout gets only the resulting path(s).
#
# Usage: hack/tools/install.sh NAME...
#   kube-apiserver | kubectl | etcd   bin/k8s/<k8s-version>-<goos>-<goarch>/NAME
#   envtest        all three above; prints the directory (KUBEBUILDER_ASSETS)
#   kube-controller-manager  bin/k8s/<k8s-version>-<goos>-<goarch>/ too, beside
#                  envtest's (test/e2e runs its storage version migrator);
#                  neither envtest nor all builds it
#   kubeconform    bin/kubeconform-<version>/kubeconform
#   controller-gen bin/controller-gen-<version>/controller-gen
#   helm           bin/helm-<version>/helm
#   benchstat      bin/benchstat-<version>/benchstat
#   golangci-lint  bin/golangci-lint-<version>/golangci-lint
#   goreleaser     bin/goreleaser-<version>/goreleaser (make release-snapshot)
#   cyclonedx-gomod  bin/cyclonedx-gomod-<version>/cyclonedx-gomod (the
#                  release's SBOMs)
#   openapi2jsonschema  prints the path of kubeconform's python script
#                       (scripts/openapi2jsonschema.py) in the module cache
#   module MODULE  prints the source dir of a dependency of crdguard's own
#                  go.mod (downloads it if needed)
#   corpus MODULE  prints the source dir of a CRD corpus module pinned in
#                  hack/tools/corpora/go.mod (downloads it if needed)
#   corpus-previous MODULE  the same for the release before, pinned in
#                  hack/tools/corpora-previous/go.mod (crdguard diff's corpus)
#   sarif-schema   prints the path of the SARIF 2.1.0 JSON schema,
#                  bin/sarif-schema-<version>/sarif-2.1.0.json, taken from the
#                  npm package @microsoft/sarif-multitool-linux (needs npm)
#   pre-commit     prints the path of pre-commit (https://pre-commit.com),
#                  apt-get installing the Debian package pre-commit when it
#                  is not on the PATH (test/ci runs the hooks with it)
#   all            envtest + kubeconform + controller-gen + helm + benchstat
#                  + golangci-lint
#
# Versions come from the go.mod files beside this script, and one from the
# script itself:
#   go.mod          k8s.io/kubernetes (kube-apiserver, kubectl,
#                   kube-controller-manager), kubeconform
#   etcd/go.mod     go.etcd.io/etcd/server/v3 (etcd)
#   controller-gen/go.mod  sigs.k8s.io/controller-tools (controller-gen)
#   helm/go.mod     helm.sh/helm/v3 (helm)
#   benchstat/go.mod  golang.org/x/perf (benchstat)
#   golangci-lint/go.mod  github.com/golangci/golangci-lint/v2 (golangci-lint)
#   goreleaser/go.mod  github.com/goreleaser/goreleaser/v2 (goreleaser)
#   cyclonedx-gomod/go.mod  github.com/CycloneDX/cyclonedx-gomod (cyclonedx-gomod)
#   corpora/go.mod  cert-manager, gateway-api, prometheus-operator, ECK,
#                   MongoDB Community (CRD YAML)
#   corpora-previous/go.mod  cert-manager, gateway-api, prometheus-operator at
#                   the release before
#   SARIF_MULTITOOL_VERSION below  @microsoft/sarif-multitool-linux (SARIF schema)
# Override the output root with BIN_DIR (default: <repo>/bin).
set -eu

# The SARIF schema is the one Microsoft's SARIF SDK validates with: the final
# 2.1.0 schema with the OASIS errata (the smaller @microsoft/jest-sarif ships
# only the 2.1.0-rtm.5 draft). The package is a 43 MB .NET build, of which
# only the schema is kept; its digest is pinned so that a republished
# package cannot change what the tests check against.
SARIF_MULTITOOL_VERSION=5.7.0
SARIF_SCHEMA_SHA256=1c49a0f2b60444c71bb14878e21e0d882198eff4c539861b133093ad89ed798c

TOOLS_DIR=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)
ROOT_DIR=$(CDPATH='' cd -- "$TOOLS_DIR/../.." && pwd)
BIN_DIR=${BIN_DIR:-$ROOT_DIR/bin}

log() { echo "install.sh: $*" >&2; }
die() { log "$*"; exit 1; }

# modversion DIR MODULE: the version of MODULE selected in DIR's go.mod.
modversion() { (cd "$1" && go list -m -f '{{.Version}}' "$2"); }

# moddir DIR MODULE: the module cache dir of MODULE as selected in DIR/go.mod,
# downloaded first: `go list -m` alone prints an empty Dir for a module the
# cache does not hold yet.
moddir() {
	d=$(cd "$1" && go mod download "$2" && go list -m -f '{{.Dir}}' "$2") || die "cannot download $2 (selected in $1/go.mod)"
	[ -n "$d" ] && [ -d "$d" ] || die "no source directory for $2 (selected in $1/go.mod)"
	echo "$d"
}

goos=$(go env GOOS)
goarch=$(go env GOARCH)

k8s_version() { modversion "$TOOLS_DIR" k8s.io/kubernetes; }          # v1.37.2
envtest_dir() { v=$(k8s_version); echo "$BIN_DIR/k8s/${v#v}-$goos-$goarch"; }

# gobuild MODDIR OUTDIR LDFLAGS PKG...: build main packages PKG... from the
# module in MODDIR into OUTDIR, via a temp dir so no half-written binary is
# ever taken for a cached one.
gobuild() {
	moddir=$1 outdir=$2 ldflags=$3
	shift 3
	mkdir -p "$outdir"
	tmp=$(mktemp -d "$outdir/.build.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT INT TERM
	log "building $* (module $moddir) ..."
	start=$(date +%s)
	(cd "$moddir" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$tmp/" "$@")
	for f in "$tmp"/*; do mv -f "$f" "$outdir/"; done
	rm -rf "$tmp"
	trap - EXIT INT TERM
	log "built $* in $(($(date +%s) - start))s"
}

# kube-apiserver, kubectl and kube-controller-manager share most packages:
# build the missing ones in one go build so that work is shared.
install_k8s() {
	dir=$(envtest_dir)
	pkgs=
	for name in "$@"; do
		[ -x "$dir/$name" ] || pkgs="$pkgs k8s.io/kubernetes/cmd/$name"
	done
	if [ -n "$pkgs" ]; then
		v=$(k8s_version)
		major=${v#v}; major=${major%%.*}
		minor=${v#v*.}; minor=${minor%%.*}
		date=$(cd "$TOOLS_DIR" && go list -m -f '{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}' k8s.io/kubernetes)
		ldflags="-s -w"
		for p in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
			ldflags="$ldflags -X $p.gitVersion=$v -X $p.gitMajor=$major -X $p.gitMinor=$minor -X $p.buildDate=$date"
		done
		# shellcheck disable=SC2086 # $pkgs is a list of package paths
		gobuild "$TOOLS_DIR" "$dir" "$ldflags" $pkgs
	fi
	for name in "$@"; do echo "$dir/$name"; done
}

install_etcd() {
	dir=$(envtest_dir)
	if [ ! -x "$dir/etcd" ]; then
		gobuild "$TOOLS_DIR/etcd" "$dir" "-s -w" go.etcd.io/etcd/server/v3
		# go build names it after the last non-major-version path element
		mv -f "$dir/server" "$dir/etcd"
	fi
	echo "$dir/etcd"
}

install_kubeconform() {
	v=$(modversion "$TOOLS_DIR" github.com/yannh/kubeconform)
	dir=$BIN_DIR/kubeconform-$v
	if [ ! -x "$dir/kubeconform" ]; then
		gobuild "$TOOLS_DIR" "$dir" "-s -w -X main.version=$v" github.com/yannh/kubeconform/cmd/kubeconform
	fi
	echo "$dir/kubeconform"
}

install_controller_gen() {
	v=$(modversion "$TOOLS_DIR/controller-gen" sigs.k8s.io/controller-tools)
	dir=$BIN_DIR/controller-gen-$v
	if [ ! -x "$dir/controller-gen" ]; then
		gobuild "$TOOLS_DIR/controller-gen" "$dir" "-s -w -X sigs.k8s.io/controller-tools/pkg/version.version=$v" sigs.k8s.io/controller-tools/cmd/controller-gen
	fi
	echo "$dir/controller-gen"
}

install_helm() {
	v=$(modversion "$TOOLS_DIR/helm" helm.sh/helm/v3)
	dir=$BIN_DIR/helm-$v
	if [ ! -x "$dir/helm" ]; then
		# The ldflags are the ones helm's own Makefile sets: the version that
		# `helm version` reports, and the Kubernetes version that templates see
		# as .Capabilities.KubeVersion when helm does not talk to a cluster
		# (derived there from k8s.io/client-go v0.MINOR -> 1.MINOR).
		cg=$(modversion "$TOOLS_DIR/helm" k8s.io/client-go)
		minor=${cg#v0.}; minor=${minor%%.*}
		ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$v -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
		for p in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
			ldflags="$ldflags -X $p.k8sVersionMajor=1 -X $p.k8sVersionMinor=$minor"
		done
		gobuild "$TOOLS_DIR/helm" "$dir" "$ldflags" helm.sh/helm/v3/cmd/helm
	fi
	echo "$dir/helm"
}

install_benchstat() {
	v=$(modversion "$TOOLS_DIR/benchstat" golang.org/x/perf)
	dir=$BIN_DIR/benchstat-$v
	if [ ! -x "$dir/benchstat" ]; then
		gobuild "$TOOLS_DIR/benchstat" "$dir" "-s -w" golang.org/x/perf/cmd/benchstat
	fi
	echo "$dir/benchstat"
}

install_golangci_lint() {
	v=$(modversion "$TOOLS_DIR/golangci-lint" github.com/golangci/golangci-lint/v2)
	dir=$BIN_DIR/golangci-lint-$v
	if [ ! -x "$dir/golangci-lint" ]; then
		# Built from a module of ours, the binary's build info names that
		# module, not golangci-lint's: set what `golangci-lint version`
		# reports the way its release build does (a date makes it skip the
		# build info).
		date=$(cd "$TOOLS_DIR/golangci-lint" && go list -m -f '{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}' github.com/golangci/golangci-lint/v2)
		gobuild "$TOOLS_DIR/golangci-lint" "$dir" "-s -w -X main.version=${v#v} -X main.date=$date" github.com/golangci/golangci-lint/v2/cmd/golangci-lint
	fi
	echo "$dir/golangci-lint"
}

install_goreleaser() {
	v=$(modversion "$TOOLS_DIR/goreleaser" github.com/goreleaser/goreleaser/v2)
	dir=$BIN_DIR/goreleaser-$v
	if [ ! -x "$dir/goreleaser" ]; then
		# What `goreleaser --version` reports, set as its release build does:
		# built from a module of ours, the build info names that module.
		date=$(cd "$TOOLS_DIR/goreleaser" && go list -m -f '{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}' github.com/goreleaser/goreleaser/v2)
		gobuild "$TOOLS_DIR/goreleaser" "$dir" "-s -w -X main.version=${v#v} -X main.date=$date -X main.builtBy=crdguard-hack-tools" github.com/goreleaser/goreleaser/v2
	fi
	echo "$dir/goreleaser"
}

install_cyclonedx_gomod() {
	v=$(modversion "$TOOLS_DIR/cyclonedx-gomod" github.com/CycloneDX/cyclonedx-gomod)
	dir=$BIN_DIR/cyclonedx-gomod-$v
	if [ ! -x "$dir/cyclonedx-gomod" ]; then
		# Its version comes from the build info at init, which names our
		# module: `cyclonedx-gomod version` reports v0.0.0-unknown.
		gobuild "$TOOLS_DIR/cyclonedx-gomod" "$dir" "-s -w" github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod
	fi
	echo "$dir/cyclonedx-gomod"
}

install_sarif_schema() {
	v=$SARIF_MULTITOOL_VERSION
	dir=$BIN_DIR/sarif-schema-$v
	if [ ! -f "$dir/sarif-2.1.0.json" ]; then
		command -v npm >/dev/null || die "sarif-schema needs npm"
		mkdir -p "$dir"
		tmp=$(mktemp -d "$dir/.fetch.XXXXXX")
		trap 'rm -rf "$tmp"' EXIT INT TERM
		log "fetching @microsoft/sarif-multitool-linux@$v from npm for its SARIF schema ..."
		(cd "$tmp" && npm pack --silent "@microsoft/sarif-multitool-linux@$v" >/dev/null)
		tar -xzf "$tmp"/*.tgz -C "$tmp" package/sarif-2.1.0.json
		echo "$SARIF_SCHEMA_SHA256  $tmp/package/sarif-2.1.0.json" | sha256sum -c - >/dev/null ||
			die "sarif-2.1.0.json of @microsoft/sarif-multitool-linux@$v does not have the pinned sha256"
		mv -f "$tmp/package/sarif-2.1.0.json" "$dir/"
		rm -rf "$tmp"
		trap - EXIT INT TERM
	fi
	echo "$dir/sarif-2.1.0.json"
}

# pre-commit is a Python program that Debian packages with its
# dependencies: the distribution's package, not a pip install into the
# system's Python.
install_pre_commit() {
	if ! command -v pre-commit >/dev/null; then
		command -v apt-get >/dev/null || die "pre-commit is not on the PATH and there is no apt-get to install the Debian package pre-commit"
		sudo=
		[ "$(id -u)" -eq 0 ] || sudo=sudo
		log "installing the Debian package pre-commit ..."
		{ $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq pre-commit; } >&2 ||
			die "apt-get install pre-commit failed"
	fi
	command -v pre-commit
}

[ $# -gt 0 ] || die "usage: $0 kube-apiserver|kubectl|kube-controller-manager|etcd|envtest|kubeconform|controller-gen|helm|benchstat|golangci-lint|goreleaser|cyclonedx-gomod|pre-commit|openapi2jsonschema|module MODULE|corpus MODULE|corpus-previous MODULE|sarif-schema|all ..."

while [ $# -gt 0 ]; do
	case $1 in
	kube-apiserver | kubectl | kube-controller-manager) install_k8s "$1" ;;
	etcd) install_etcd ;;
	envtest)
		install_k8s kube-apiserver kubectl >/dev/null
		install_etcd >/dev/null
		envtest_dir
		;;
	kubeconform) install_kubeconform ;;
	controller-gen) install_controller_gen ;;
	helm) install_helm ;;
	benchstat) install_benchstat ;;
	golangci-lint) install_golangci_lint ;;
	goreleaser) install_goreleaser ;;
	cyclonedx-gomod) install_cyclonedx_gomod ;;
	sarif-schema) install_sarif_schema ;;
	pre-commit) install_pre_commit ;;
	openapi2jsonschema)
		f=$(moddir "$TOOLS_DIR" github.com/yannh/kubeconform)/scripts/openapi2jsonschema.py
		[ -f "$f" ] || die "not found: $f"
		echo "$f"
		;;
	module)
		[ $# -ge 2 ] || die "module needs a MODULE argument"
		moddir "$ROOT_DIR" "$2"
		shift
		;;
	corpus)
		[ $# -ge 2 ] || die "corpus needs a MODULE argument"
		moddir "$TOOLS_DIR/corpora" "$2"
		shift
		;;
	corpus-previous)
		[ $# -ge 2 ] || die "corpus-previous needs a MODULE argument"
		moddir "$TOOLS_DIR/corpora-previous" "$2"
		shift
		;;
	all)
		install_k8s kube-apiserver kubectl
		install_etcd
		install_kubeconform
		install_controller_gen
		install_helm
		install_benchstat
		install_golangci_lint
		;;
	*) die "unknown tool: $1" ;;
	esac
	shift
done
