package main

import (
	"archive/zip"
	"bytes"
	"encoding/pem"
	"fmt"
	"io"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/crypto/x509roots/fallback/bundle"
)

// nsswitch orders name lookups as distroless does: users and groups from
// their files, hosts from /etc/hosts and then DNS, the order Go's resolver
// reads here.
const nsswitch = "passwd: files\ngroup: files\nhosts: files dns\n"

// systemFiles are the files distroless static adds to an empty base, other
// than the user databases: /etc/nsswitch.conf, the CA bundle and the time
// zone database.
func systemFiles() ([]entry, error) {
	zones, err := zoneinfo()
	if err != nil {
		return nil, fmt.Errorf("time zones: %w", err)
	}
	entries := []entry{
		{name: "etc/nsswitch.conf", mode: 0o644, contents: []byte(nsswitch)},
		{name: "etc/ssl/", mode: 0o755},
		{name: "etc/ssl/certs/", mode: 0o755},
		{name: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, contents: caBundle()},
		{name: "usr/share/", mode: 0o755},
	}
	return append(entries, zones...), nil
}

// caBundle is the Mozilla NSS roots, as Debian's ca-certificates ships
// them, in PEM. Roots with a constraint PEM cannot carry (a distrust-after
// date) are left out, so the file trusts no more than NSS does.
func caBundle() []byte {
	var buf bytes.Buffer
	for root := range bundle.Roots() {
		if root.Constraint != nil {
			continue
		}
		// Writing PEM to a bytes.Buffer cannot fail.
		_ = pem.Encode(&buf, &pem.Block{Type: "CERTIFICATE", Bytes: root.Certificate})
	}
	return buf.Bytes()
}

// zoneinfo is the IANA time zone database of the Go toolchain building
// the image ($GOROOT/lib/time/zoneinfo.zip) as /usr/share/zoneinfo, the
// same data as Debian's tzdata.
func zoneinfo() ([]entry, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT: %w", err)
	}
	zr, err := zip.OpenReader(filepath.Join(strings.TrimSpace(string(out)), "lib", "time", "zoneinfo.zip"))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	const root = "usr/share/zoneinfo/"
	entries := []entry{{name: root, mode: 0o755}}
	dirs := map[string]bool{}
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		var parents []string
		for dir := path.Dir(f.Name); dir != "." && !dirs[dir]; dir = path.Dir(dir) {
			dirs[dir] = true
			parents = append(parents, dir)
		}
		for _, dir := range slices.Backward(parents) {
			entries = append(entries, entry{name: root + dir + "/", mode: 0o755})
		}
		data, err := readZipFile(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		entries = append(entries, entry{name: root + f.Name, mode: 0o644, contents: data})
	}
	return entries, nil
}

func readZipFile(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}
