//go:build tools

// Package tools pins golangci-lint, which make lint runs with the repository's
// .golangci.yml. It has its own module so that its many analyzer
// dependencies never move the versions crdguard or the other tools build with.
package tools

import _ "github.com/golangci/golangci-lint/v2/cmd/golangci-lint"
