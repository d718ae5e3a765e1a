package diff

import (
	"reflect"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

var metadataChanged = Check{
	Name: "metadata-changed",
	Doc:  "the CRD's labels or annotations changed",
	// The rest of metadata (uid, resourceVersion, managedFields, ...) is
	// written by the server: a CRD read back from a cluster differs there
	// from its source without any change of meaning. The name is the same
	// on both sides by construction.
	Claims: []string{"metadata"},
	CRD: func(p *CRDPair) []Change {
		var out []Change
		for _, f := range []struct {
			name     string
			old, new map[string]string
		}{
			{"labels", p.Old.Labels, p.New.Labels},
			{"annotations", p.Old.Annotations, p.New.Annotations},
		} {
			for _, k := range unionKeys(f.old, f.new) {
				o, oldOK := f.old[k]
				n, newOK := f.new[k]
				if oldOK == newOK && reflect.DeepEqual(o, n) {
					continue
				}
				// Always a subscript, even where schema.KeyPath would
				// write a field name: policy paths and their reports
				// name a label so ("metadata.labels[app]").
				out = append(out, Change{Impact: Info, Path: field.NewPath("metadata", f.name).Key(k).String(), Old: o, New: n,
					Message: "metadata only: no effect on objects, but selectors and tools reading it may see a difference"})
			}
		}
		return out
	},
}
