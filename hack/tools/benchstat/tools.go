//go:build tools

// Package tools pins benchstat, which summarises the go test -bench runs of
// make bench; install.sh builds it from this module.
package tools

import _ "golang.org/x/perf/cmd/benchstat"
