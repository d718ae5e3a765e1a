//go:build tools

// Package tools pins cyclonedx-gomod, which writes the SBOM of each release
// archive's binaries (goreleaser's sboms). It has its own module so that its
// dependencies never move the versions crdguard or the other tools build with.
package tools

import _ "github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod"
