package testsuite

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// MaxSuiteBytes bounds a suite file: it names files, it does not hold
// objects, so a larger one is a wrong file.
const MaxSuiteBytes = 1 << 20

// InvalidSuiteError is a suite file that cannot be run: each error names
// the field it is about.
type InvalidSuiteError struct {
	Path string
	Errs []error
}

func (e *InvalidSuiteError) Error() string {
	lines := make([]string, len(e.Errs))
	for i, err := range e.Errs {
		lines[i] = e.Path + ": " + err.Error()
	}
	return strings.Join(lines, "\n")
}

func invalid(path string, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	out := make([]error, len(errs))
	for i, err := range errs {
		out[i] = err
	}
	return &InvalidSuiteError{Path: path, Errs: out}
}

// Decode reads the suite file at path strictly: an unknown or duplicate
// field, a second document, or a suite that breaks a rule of its fields
// is an *InvalidSuiteError. It does not read the files the suite names.
func Decode(path string) (*TestSuite, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSuiteBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSuiteBytes {
		return nil, &InvalidSuiteError{Path: path, Errs: []error{fmt.Errorf("larger than %d bytes", MaxSuiteBytes)}}
	}
	js, err := singleDocument(data)
	if err != nil {
		return nil, &InvalidSuiteError{Path: path, Errs: []error{err}}
	}
	var suite TestSuite
	strict, err := kjson.UnmarshalStrict(js, &suite)
	if err != nil {
		return nil, &InvalidSuiteError{Path: path, Errs: []error{err}}
	}
	if len(strict) > 0 {
		return nil, &InvalidSuiteError{Path: path, Errs: strict}
	}
	if err := invalid(path, suite.validate()); err != nil {
		return nil, err
	}
	return &suite, nil
}

// singleDocument is the one YAML document of data, as JSON. A suite file
// holds one TestSuite: a second would otherwise go unread.
func singleDocument(data []byte) ([]byte, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		js, err := yaml.YAMLToJSONStrict(doc)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(js, []byte("null")) {
			docs = append(docs, js)
		}
	}
	switch len(docs) {
	case 0:
		return nil, errors.New("holds no document")
	case 1:
		return docs[0], nil
	}
	return nil, fmt.Errorf("holds %d documents: a suite file holds one TestSuite", len(docs))
}

// validate checks what the types cannot say: required fields, the values
// of enums, and which objects each operation takes.
func (s *TestSuite) validate() field.ErrorList {
	var errs field.ErrorList
	if s.APIVersion != APIVersion {
		errs = append(errs, field.NotSupported(field.NewPath("apiVersion"), s.APIVersion, []string{APIVersion}))
	}
	if s.Kind != Kind {
		errs = append(errs, field.NotSupported(field.NewPath("kind"), s.Kind, []string{Kind}))
	}
	if s.Metadata.Name == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "name"), ""))
	}
	if len(s.CRDs) == 0 && len(s.Policies) == 0 {
		errs = append(errs, field.Required(field.NewPath("policies"), "a suite needs crds, policies or both"))
	}
	errs = append(errs, validatePaths(field.NewPath("crds"), s.CRDs)...)
	errs = append(errs, validatePaths(field.NewPath("policies"), s.Policies)...)
	casesPath := field.NewPath("cases")
	if len(s.Cases) == 0 {
		errs = append(errs, field.Required(casesPath, "a suite needs at least one case"))
	}
	names := sets.New[string]()
	for i := range s.Cases {
		c := &s.Cases[i]
		p := casesPath.Index(i)
		switch {
		case c.Name == "":
			errs = append(errs, field.Required(p.Child("name"), ""))
		case names.Has(c.Name):
			errs = append(errs, field.Duplicate(p.Child("name"), c.Name))
		}
		names.Insert(c.Name)
		errs = append(errs, c.validate(p)...)
	}
	return errs
}

func validatePaths(p *field.Path, paths []string) field.ErrorList {
	var errs field.ErrorList
	for i, path := range paths {
		if path == "" {
			errs = append(errs, field.Required(p.Index(i), ""))
		}
	}
	return errs
}

var operations = []string{string(v1alpha1.Create), string(v1alpha1.Update), string(v1alpha1.Delete)}

func (c *Case) validate(p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch c.Operation {
	case v1alpha1.Create:
		errs = append(errs, requireRef(p.Child("object"), c.Object)...)
		if c.OldObject != nil {
			errs = append(errs, field.Forbidden(p.Child("oldObject"), "a CREATE has no old object"))
		}
	case v1alpha1.Update:
		errs = append(errs, requireRef(p.Child("object"), c.Object)...)
		errs = append(errs, requireRef(p.Child("oldObject"), c.OldObject)...)
	case v1alpha1.Delete:
		if c.Object != nil {
			errs = append(errs, field.Forbidden(p.Child("object"), "a DELETE has no new object: give the stored object as oldObject"))
		}
		errs = append(errs, requireRef(p.Child("oldObject"), c.OldObject)...)
	case "":
		errs = append(errs, field.Required(p.Child("operation"), ""))
	default:
		errs = append(errs, field.NotSupported(p.Child("operation"), c.Operation, operations))
	}
	if c.Expect == nil {
		return append(errs, field.Required(p.Child("expect"), "a case without an expectation tests nothing"))
	}
	return append(errs, c.Expect.validate(p.Child("expect"))...)
}

func requireRef(p *field.Path, ref *ObjectRef) field.ErrorList {
	switch {
	case ref == nil:
		return field.ErrorList{field.Required(p, "")}
	case ref.File == "":
		return field.ErrorList{field.Required(p.Child("file"), "")}
	}
	return nil
}

var (
	objectResults = []Result{Allowed, Denied, Warned}
	ruleResults   = []Result{Allowed, Denied, Warned, Audited}
)

func (e *Expectation) validate(p *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateResult(p.Child("result"), e.Result, objectResults)...)
	type key struct {
		policy, rule string
		result       Result
	}
	seen := sets.New[key]()
	for i, r := range e.Rules {
		rp := p.Child("rules").Index(i)
		if r.Policy == "" {
			errs = append(errs, field.Required(rp.Child("policy"), ""))
		}
		if r.Rule == "" {
			errs = append(errs, field.Required(rp.Child("rule"), ""))
		}
		errs = append(errs, validateResult(rp.Child("result"), r.Result, ruleResults)...)
		k := key{r.Policy, r.Rule, r.Result}
		if seen.Has(k) {
			errs = append(errs, field.Duplicate(rp, fmt.Sprintf("%s/%s %s", r.Policy, r.Rule, r.Result)))
		}
		seen.Insert(k)
		switch {
		case r.Result == Allowed && len(r.Fields) > 0:
			errs = append(errs, field.Forbidden(rp.Child("fields"), "an allowed rule has no findings, so no fields"))
		case r.Result != Allowed && r.Result != "" && len(r.Fields) == 0:
			errs = append(errs, field.Required(rp.Child("fields"), "the field paths of the rule's findings"))
		}
		for j, f := range r.Fields {
			if slices.Contains(r.Fields[:j], f) {
				errs = append(errs, field.Duplicate(rp.Child("fields").Index(j), f))
			}
		}
	}
	return errs
}

func validateResult(p *field.Path, r Result, allowed []Result) field.ErrorList {
	if r == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	if !slices.Contains(allowed, r) {
		names := make([]string, len(allowed))
		for i, a := range allowed {
			names[i] = string(a)
		}
		return field.ErrorList{field.NotSupported(p, r, names)}
	}
	return nil
}
