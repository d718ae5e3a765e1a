package app

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/report"
	"github.com/crdguard/crdguard/pkg/schema"
)

// Values of --unpaired: what an input without a previous version in --old,
// and an --old object without an input, are.
const (
	// unpairedError (the default) makes each an error result: a renamed or
	// moved object validated as a CREATE would skip its transition rules
	// without a word, and a CI run must not lose them that way.
	unpairedError = "error"
	// unpairedCreate validates such an input as a CREATE, and tells of
	// each on stderr, as of each old object nothing pairs with.
	unpairedCreate = "create"
)

// objectKey identifies an object across the old and new inputs.
type objectKey struct {
	apiVersion, kind, namespace, name string
}

func keyOf(registry *schema.Registry, obj *unstructured.Unstructured) objectKey {
	return objectKey{obj.GetAPIVersion(), obj.GetKind(), registry.Namespace(obj), obj.GetName()}
}

// ref is the key as results name an object: "Kind namespace/name".
func (k objectKey) ref() string {
	r := report.Result{Kind: k.kind, Namespace: k.namespace, Name: k.name}
	return r.ObjectRef()
}

// oldObjects are the previous versions of the inputs (--old), and which of
// them an input has paired with. Workers pair concurrently.
type oldObjects struct {
	// paths are the --old paths; none when the run has no --old.
	paths  []string
	byKey  map[objectKey]*manifest.Document
	inRead []objectKey // the keys in the order they were read

	mu     sync.Mutex
	paired map[objectKey]bool
}

func loadOldObjects(streams Streams, registry *schema.Registry, paths []string) (*oldObjects, error) {
	olds := &oldObjects{paths: paths, byKey: map[objectKey]*manifest.Document{}, paired: map[objectKey]bool{}}
	if len(paths) == 0 {
		return olds, nil
	}
	docs, err := manifest.ReadPaths(streams.In, paths...)
	if err != nil {
		return nil, inputError(err)
	}
	for i, doc := range docs {
		if doc.Err != nil {
			return nil, inputError(fmt.Errorf("%s: %w", doc.Position(), doc.Err))
		}
		key := keyOf(registry, doc.Object)
		if _, dup := olds.byKey[key]; dup {
			return nil, usageError("%s: %s %s/%s appears twice in --old", doc.Position(), key.kind, key.namespace, key.name)
		}
		olds.byKey[key] = &docs[i]
		olds.inRead = append(olds.inRead, key)
	}
	return olds, nil
}

// given tells whether the run has --old.
func (o *oldObjects) given() bool { return len(o.paths) > 0 }

// pair returns the previous version of the input with key, nil when --old
// has none, and records that it paired.
func (o *oldObjects) pair(key objectKey) *unstructured.Unstructured {
	doc := o.byKey[key]
	if doc == nil {
		return nil
	}
	o.mu.Lock()
	o.paired[key] = true
	o.mu.Unlock()
	return doc.Object
}

// unpairedInput is the error of an input with no previous version in
// --old: it names the object and where it was looked for.
func (o *oldObjects) unpairedInput(key objectKey) string {
	return fmt.Sprintf("%s has no previous version in --old %s: no object there has apiVersion %s, kind %s, namespace %q and name %q; "+
		"an object renamed or moved to another namespace is no UPDATE, and its transition rules would not run "+
		"(--unpaired=create validates it as a CREATE)",
		key.ref(), strings.Join(o.paths, ", "), key.apiVersion, key.kind, key.namespace, key.name)
}

// unpairedOld are the results of the --old objects no input paired with,
// in the order they were read: each an error, or under --unpaired=create
// none, with a note on stderr instead. Call it once every input is
// evaluated.
func (o *oldObjects) unpairedOld(streams Streams, mode string) []report.Result {
	o.mu.Lock()
	defer o.mu.Unlock()
	var results []report.Result
	for _, key := range o.inRead {
		if o.paired[key] {
			continue
		}
		doc := o.byKey[key]
		if mode == unpairedCreate {
			fmt.Fprintf(streams.Err, "crdguard: note: %s: %s in --old pairs with no input: deleted or renamed\n", doc.Position(), key.ref())
			continue
		}
		results = append(results, report.Result{
			Source: doc.Source, Document: doc.Index, Line: doc.Line,
			APIVersion: key.apiVersion, Kind: key.kind, Namespace: key.namespace, Name: key.name,
			Error: fmt.Sprintf("%s in --old pairs with no input: no input has apiVersion %s, kind %s, namespace %q and name %q; "+
				"if it was deleted or renamed, --unpaired=create accepts that with a note", key.ref(), key.apiVersion, key.kind, key.namespace, key.name),
		})
	}
	return results
}

// createNotes are the notes on inputs validated as a CREATE under
// --unpaired=create, printed in input order once the run is done:
// workers finish in any order.
type createNotes struct {
	mu    sync.Mutex
	notes []createNote
}

type createNote struct {
	source, document int
	text             string
}

func (n *createNotes) add(source int, doc manifest.Document, key objectKey) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.notes = append(n.notes, createNote{source, doc.Index,
		fmt.Sprintf("crdguard: note: %s: %s has no previous version in --old: validated as a CREATE (--unpaired=create)", doc.Position(), key.ref())})
}

func (n *createNotes) print(streams Streams) {
	n.mu.Lock()
	defer n.mu.Unlock()
	slices.SortFunc(n.notes, func(a, b createNote) int {
		return cmp.Or(cmp.Compare(a.source, b.source), cmp.Compare(a.document, b.document))
	})
	for _, note := range n.notes {
		fmt.Fprintln(streams.Err, note.text)
	}
}
