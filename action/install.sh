#!/usr/bin/env bash
# Installs crdguard release CRDGUARD_VERSION for this runner and puts it on
# the job's PATH (GITHUB_PATH): the archive and checksums.txt that the
# release publishes, the archive checked against its checksum.
#
# CRDGUARD_RELEASES is where releases are (default GitHub's; a file:// URL
# serves a local goreleaser dist/). CRDGUARD_INSTALL_DIR is where the binary
# goes (default RUNNER_TEMP/crdguard).
set -euo pipefail

fail() {
	echo "::error title=crdguard::$*" >&2
	exit 2
}

version=${CRDGUARD_VERSION:-}
[[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] ||
	fail "install a released version: set the action's version input (v0.1.0), or use the action at a release tag; got \"$version\""

case ${RUNNER_OS:-$(uname -s)} in
Linux) os=linux ;;
macOS | Darwin) os=darwin ;;
Windows | MINGW* | MSYS*) os=windows ;;
*) fail "no crdguard release for the runner's operating system ${RUNNER_OS:-$(uname -s)}" ;;
esac
case ${RUNNER_ARCH:-$(uname -m)} in
X64 | x86_64 | amd64) arch=amd64 ;;
ARM64 | aarch64 | arm64) arch=arm64 ;;
*) fail "no crdguard release for the runner's architecture ${RUNNER_ARCH:-$(uname -m)}" ;;
esac

ext=tar.gz binary=crdguard
if [[ $os == windows ]]; then
	ext=zip binary=crdguard.exe
fi
archive=crdguard_${version#v}_${os}_${arch}.${ext}
releases=${CRDGUARD_RELEASES:-https://github.com/crdguard/crdguard/releases/download}
dir=${CRDGUARD_INSTALL_DIR:-${RUNNER_TEMP:?}/crdguard}
download=$(mktemp -d)
trap 'rm -rf "$download"' EXIT

for file in "$archive" checksums.txt; do
	curl --fail --silent --show-error --location --retry 3 -o "$download/$file" "$releases/$version/$file" ||
		fail "downloading $releases/$version/$file"
done
want=$(awk -v f="$archive" '$2 == f { print $1 }' "$download/checksums.txt")
[[ -n $want ]] || fail "checksums.txt of $version lists no $archive"
if command -v sha256sum >/dev/null; then
	got=$(sha256sum "$download/$archive" | awk '{ print $1 }')
else
	got=$(shasum -a 256 "$download/$archive" | awk '{ print $1 }')
fi
[[ $got == "$want" ]] || fail "$archive does not match checksums.txt: sha256 $got, want $want"

mkdir -p "$dir"
if [[ $ext == zip ]]; then
	unzip -o -q "$download/$archive" "$binary" -d "$dir"
else
	tar -xzf "$download/$archive" -C "$dir" "$binary"
fi
if [[ -n ${GITHUB_PATH:-} ]]; then
	echo "$dir" >>"$GITHUB_PATH"
fi
"$dir/$binary" version
