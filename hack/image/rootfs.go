package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"os"
	"time"
)

// nonroot is the user the image runs as, distroless's nonroot.
const nonroot = 65532

// The user and group databases of distroless static: root, nobody and
// nonroot, so that tools and logs show a name for 65532.
const (
	passwd = "root:x:0:0:root:/root:/sbin/nologin\n" +
		"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
		"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	group = "root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n"
)

// entry is one file or directory of the image.
type entry struct {
	name     string // path without a leading slash; directories end in /
	mode     int64
	uid      int
	contents []byte
}

// rootfs is the image's one layer as an uncompressed tar: the directories,
// passwd and group, distroless's system files, and the binaries (name to path on disk) in
// /usr/local/bin. Every entry has modified time mtime, so that the same
// release gives the same layer (whole seconds keep the headers plain ustar).
func rootfs(binaries map[string]string, names []string, mtime time.Time) ([]byte, error) {
	entries := []entry{
		{name: "etc/", mode: 0o755},
		{name: "etc/group", mode: 0o644, contents: []byte(group)},
		{name: "etc/passwd", mode: 0o644, contents: []byte(passwd)},
		{name: "home/", mode: 0o755},
		{name: "home/nonroot/", mode: 0o700, uid: nonroot},
		{name: "root/", mode: 0o700},
		{name: "tmp/", mode: 0o1777},
		{name: "usr/", mode: 0o755},
		{name: "usr/local/", mode: 0o755},
		{name: "usr/local/bin/", mode: 0o755},
	}
	system, err := systemFiles()
	if err != nil {
		return nil, err
	}
	entries = append(entries, system...)
	for _, name := range names {
		path, ok := binaries[name]
		if !ok {
			return nil, fmt.Errorf("no %s binary", name)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		entries = append(entries, entry{name: "usr/local/bin/" + name, mode: 0o755, contents: data})
	}

	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.uid, ModTime: mtime}
		if e.name[len(e.name)-1] == '/' {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(e.contents))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.contents); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
