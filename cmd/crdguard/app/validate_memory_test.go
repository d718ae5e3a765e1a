//go:build linux

package app

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// widgetCRD defines a namespaced Widget with a small schema, so that a
// run over many objects spends its time reading them.
const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.test.crdguard.dev
spec:
  group: test.crdguard.dev
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: string, pattern: '^[0-9]+Gi$'}
              replicas: {type: integer, minimum: 1}
`

// The memory of a run does not grow with the objects of one file: 10,000
// objects in one file, as many documents or as one List (as kubectl get
// -A -o yaml writes it), peak within 1.3 times and 24 MiB of one object,
// whose run peaks while loading: checking is paced to stay within the
// memory the load reached. Decoding all of a file's objects before
// checking the first took 14 KiB each.
func TestValidateMemoryFlatWithObjectsOfOneFile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary over 20,000 objects")
	}
	bin := crdguardBinary(t)
	dir := t.TempDir()
	crd := filepath.Join(dir, "crd.yaml")
	if err := os.WriteFile(crd, []byte(widgetCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, list := range []bool{false, true} {
		name := map[bool]string{false: "documents", true: "List"}[list]
		t.Run(name, func(t *testing.T) {
			one := peakValidateRSS(t, bin, crd, writeWidgets(t, dir, 1, list))
			large := peakValidateRSS(t, bin, crd, writeWidgets(t, dir, 10_000, list))
			t.Logf("peak RSS: %d MiB for one object, %d MiB for 10,000", one>>20, large>>20)
			if large*10 > one*13 || large-one > 24<<20 {
				t.Errorf("peak RSS %d MiB for 10,000 objects in one file, %d MiB for one: want at most 1.3 times and 24 MiB more", large>>20, one>>20)
			}
		})
	}
}

// writeWidgets writes n Widgets into one file, as documents or as one List.
func writeWidgets(t *testing.T, dir string, n int, list bool) string {
	t.Helper()
	path := filepath.Join(dir, fmt.Sprintf("widgets-%d-%v.yaml", n, list))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	indent, start := "", "---\n"
	if list {
		fmt.Fprint(w, "apiVersion: v1\nitems:\n")
		indent, start = "  ", "- "
	}
	for i := range n {
		fmt.Fprintf(w, "%sapiVersion: test.crdguard.dev/v1\n%skind: Widget\n%smetadata:\n%s  name: w%d\n%s  namespace: shop\n%sspec:\n%s  size: 10Gi\n%s  replicas: 3\n",
			start, indent, indent, indent, i, indent, indent, indent, indent)
	}
	if list {
		fmt.Fprint(w, "kind: List\nmetadata:\n  resourceVersion: \"\"\n")
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// peakValidateRSS runs crdguard validate -o json on input, which must pass,
// and returns its peak resident set size in bytes.
func peakValidateRSS(t *testing.T, bin, crd, input string) int64 {
	t.Helper()
	cmd := exec.Command(bin, "validate", "--crds", crd, "-o", "json", input)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("crdguard validate %s: %v\n%.2000s", input, err, out)
	}
	// Maxrss is in KiB on Linux.
	return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
}
