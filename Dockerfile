# syntax=docker/dockerfile:1
# crdguard-webhook image: docker build --build-arg VERSION=v0.1.0 -t crdguard-webhook .
# Static (CGO_ENABLED=0, -trimpath) binaries on distroless, running as nonroot.

ARG GO_VERSION=1.26.8

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS build
ARG TARGETOS
ARG TARGETARCH
ARG VERSION=""
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
# Both binaries take VERSION from -X (crdguard version, crdguard-webhook
# --version and its start log); without it they report "(devel)".
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=${TARGETOS} GOARCH=${TARGETARCH} \
    go build -trimpath -ldflags "-s -w -X github.com/crdguard/crdguard/internal/version.version=${VERSION}" \
      -o /out/crdguard ./cmd/crdguard && \
    CGO_ENABLED=0 GOOS=${TARGETOS} GOARCH=${TARGETARCH} \
    go build -trimpath -ldflags "-s -w -X github.com/crdguard/crdguard/internal/version.version=${VERSION}" \
      -o /out/crdguard-webhook ./cmd/crdguard-webhook

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/crdguard-webhook /out/crdguard /usr/local/bin/
USER 65532:65532
EXPOSE 9443 8443 8081
ENTRYPOINT ["/usr/local/bin/crdguard-webhook"]
