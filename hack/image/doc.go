// Command image writes the crdguard-webhook container image of a goreleaser
// release as an OCI image layout, without a container engine or a registry:
// the Dockerfile's image (static crdguard-webhook and crdguard in
// /usr/local/bin, running as nonroot 65532 with crdguard-webhook as the
// entrypoint) for linux/amd64 and linux/arm64 in one index, on an empty
// base with the system files distroless static has (system.go).
//
// make release-snapshot runs it after goreleaser, from the repository root:
//
//	go -C hack/image run . -dist $PWD/dist
//
// It reads the version and the binaries from goreleaser's dist/metadata.json
// and dist/artifacts.json and writes dist/crdguard-webhook_VERSION_oci/.
// The module is its own so that go-containerregistry never moves the
// versions crdguard builds with.
package main
