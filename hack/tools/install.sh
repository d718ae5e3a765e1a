#!/bin/sh
# Builds pinned server/CLI binaries from the Go module proxy into <repo>/bin,
# cached by version: a binary that already exists is not rebuilt. Progress
# goes to stderr; stdout gets only the resulting path(s).
#
# Usage: hack/tools/install.sh NAME...
#   kube-apiserver | kubectl | etcd   bin/k8s/<k8s-version>-<goos>-<goarch>/NAME
#   envtest        all three above; prints the directory (KUBEBUILDER_ASSETS)
#   kubeconform    bin/kubeconform-<version>/kubeconform
#   controller-gen bin/controller-gen-<version>/controller-gen
#   openapi2jsonschema  prints the path of kubeconform's python script
#                       (scripts/openapi2jsonschema.py) in the module cache
#   corpus MODULE  prints the source dir of a CRD corpus module pinned in
#                  hack/tools/corpora/go.mod (downloads it if needed)
#   all            envtest + kubeconform
#
# Versions come from the go.mod files beside this script:
#   go.mod          k8s.io/kubernetes (kube-apiserver, kubectl), kubeconform
#   etcd/go.mod     go.etcd.io/etcd/server/v3 (etcd)
#   controller-gen/go.mod  sigs.k8s.io/controller-tools (controller-gen)
#   corpora/go.mod  cert-manager, gateway-api, prometheus-operator (CRD YAML)
# Override the output root with BIN_DIR (default: <repo>/bin).
set -eu

TOOLS_DIR=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)
ROOT_DIR=$(CDPATH='' cd -- "$TOOLS_DIR/../.." && pwd)
BIN_DIR=${BIN_DIR:-$ROOT_DIR/bin}

log() { echo "install.sh: $*" >&2; }
die() { log "$*"; exit 1; }

# modversion DIR MODULE: the version of MODULE selected in DIR's go.mod.
modversion() { (cd "$1" && go list -m -f '{{.Version}}' "$2"); }

# moddir DIR MODULE: the module cache dir of MODULE as selected in DIR/go.mod.
moddir() { (cd "$1" && go mod download "$2" && go list -m -f '{{.Dir}}' "$2"); }

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

# kube-apiserver and kubectl share most packages: build the missing ones in
# one go build so that work is shared.
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

[ $# -gt 0 ] || die "usage: $0 kube-apiserver|kubectl|etcd|envtest|kubeconform|controller-gen|openapi2jsonschema|corpus MODULE|all ..."

while [ $# -gt 0 ]; do
	case $1 in
	kube-apiserver | kubectl) install_k8s "$1" ;;
	etcd) install_etcd ;;
	envtest)
		install_k8s kube-apiserver kubectl >/dev/null
		install_etcd >/dev/null
		envtest_dir
		;;
	kubeconform) install_kubeconform ;;
	controller-gen) install_controller_gen ;;
	openapi2jsonschema)
		f=$(moddir "$TOOLS_DIR" github.com/yannh/kubeconform)/scripts/openapi2jsonschema.py
		[ -f "$f" ] || die "not found: $f"
		echo "$f"
		;;
	corpus)
		[ $# -ge 2 ] || die "corpus needs a MODULE argument"
		moddir "$TOOLS_DIR/corpora" "$2"
		shift
		;;
	all)
		install_k8s kube-apiserver kubectl
		install_etcd
		install_kubeconform
		install_controller_gen
		;;
	*) die "unknown tool: $1" ;;
	esac
	shift
done
