//go:build tools

// Package tools pins goreleaser, which make release-snapshot runs with the
// repository's .goreleaser.yaml. It has its own module so that its many
// dependencies never move the versions crdguard or the other tools build with.
package tools

import _ "github.com/goreleaser/goreleaser/v2"
