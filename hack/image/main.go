package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	dist := flag.String("dist", "dist", "goreleaser's dist directory, which the layout is written into")
	flag.Parse()
	dir, err := run(*dist)
	if err != nil {
		fmt.Fprintf(os.Stderr, "image: %v\n", err)
		os.Exit(1)
	}
	fmt.Println(dir)
}

// run writes the image of the release in dist to
// dist/crdguard-webhook_VERSION_oci and returns that directory. An existing
// one is replaced: a layout only ever adds to its index.
func run(dist string) (string, error) {
	r, err := readRelease(dist)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(dist, "crdguard-webhook_"+r.version+"_oci")
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := writeLayout(r, dir); err != nil {
		return "", fmt.Errorf("writing %s: %w", dir, err)
	}
	return dir, nil
}
