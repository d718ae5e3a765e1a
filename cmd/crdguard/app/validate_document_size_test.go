package app

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/internal/filetree"
	"github.com/crdguard/crdguard/pkg/manifest"
)

// A document, or an item of a List, larger than kube-apiserver accepts in
// one request is an error naming its file, line and the limit, not read
// and never allowed; the objects around it are still validated. Standard
// input is read the same way.
func TestValidateRefusesDocumentsOverTheRequestLimit(t *testing.T) {
	good := readFile(t, goodYAML)
	big := strings.Replace(good, "  namespace: shop\n", "  namespace: shop\n  annotations:\n    big: "+strings.Repeat("x", manifest.MaxDocumentBytes)+"\n", 1)
	item := func(doc string) string {
		return "- " + strings.ReplaceAll(strings.TrimSuffix(doc, "\n"), "\n", "\n  ") + "\n"
	}
	input := good + "---\n" + big + "---\napiVersion: v1\nkind: List\nitems:\n" + item(good) + item(big) + item(good)
	dir := filetree.Write(t, map[string]string{"objects.yaml": input})
	path := filepath.Join(dir, "objects.yaml")
	const limit = "larger than 3 MiB, the most kube-apiserver accepts in one request: not read"
	for _, source := range []string{path, "-"} {
		t.Run(source, func(t *testing.T) {
			stdin := ""
			if source == "-" {
				stdin = input
			}
			r := crdguard(t, stdin, "validate", "--crds", exampleCRD, source)
			want := source + ":1 (document 1): MySQLCluster shop/prod is valid (CREATE)\n" +
				source + ":20 (document 2): error: " + limit + "\n" +
				source + ":44 (document 3, items[0]): MySQLCluster shop/prod is valid (CREATE)\n" +
				source + ":62 (document 3, items[1]): error: items[1]: " + limit + "\n" +
				source + ":82 (document 3, items[2]): MySQLCluster shop/prod is valid (CREATE)\n" +
				"3 objects and 2 unreadable inputs: 3 allowed, 0 denied, 0 skipped, 2 errors\n"
			if r.code != ExitUsage || r.stdout != want {
				t.Errorf("exit %d, stdout\n%s\nwant exit 2, stdout\n%s\nstderr %s", r.code, r.stdout, want, r.stder)
			}
		})
	}
}
