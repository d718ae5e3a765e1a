#!/usr/bin/env bash
# The entry of the pre-commit hooks (.pre-commit-hooks.yaml, language:
# script). It builds the crdguard CLI, and nothing else of the repository,
# once into .bin/ of pre-commit's checkout of the hook's rev, with the Go on
# the PATH and the user's module cache; then runs it with the hook's
# arguments in the user's repository. (pre-commit's language golang runs
# `go install ./...`: every program of the module, the webhook, the demo and
# the benchmarks too, with every module downloaded again into a GOPATH of
# the hook's own.)
set -euo pipefail

here=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
bin=$here/.bin/crdguard
if [[ ! -x $bin ]]; then
	command -v go >/dev/null || {
		echo "crdguard hook: building crdguard needs Go on the PATH (https://go.dev/dl/)" >&2
		exit 2
	}
	echo "crdguard hook: building crdguard from $here, once per rev (a minute or more on a new machine) ..." >&2
	# Built outside the checkout, so that go build stamps a clean commit,
	# and moved in whole, so that no half-written binary is ever run.
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	go -C "$here" build -o "$tmp/crdguard" ./cmd/crdguard >&2
	mkdir -p "$here/.bin"
	mv -f "$tmp/crdguard" "$bin"
fi
exec "$bin" "$@"
